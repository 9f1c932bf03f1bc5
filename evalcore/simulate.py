"""A seeded simulator of the random experiment of Evert (2004), §3.1, with known true precisions.

The paper models an evaluation as a random experiment: every repetition draws a new
candidate set from a large population of hypothetical candidates, and for a fixed
acceptance region A the number of true positives T_A given the number of accepted
candidates N_A is binomial, ``T_A | N_A ~ Binomial(N_A, pi_A)`` (Eq. 2). :func:`simulate`
builds such a population, with several scoring functions of known quality, and draws
``k`` samples from it, so that the binomial intervals (§3.2) and Fisher's test (§3.3)
can be checked against the known truth, and the extra between-sample variation that the
paper found in real data (§4) can be added on purpose.
"""

from __future__ import annotations

import gzip
import io
import math
import numbers
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.polynomial.hermite_e import hermegauss
from scipy import optimize, special

from .errors import ParameterError

__all__ = [
    "SLOPE",
    "RESERVED_COLUMNS",
    "SCORE_TRANSFORMS",
    "MeasureSpec",
    "DEFAULT_MEASURES",
    "Experiment",
    "simulate",
    "candidate_ids",
    "to_tsv",
    "write_tsv",
]

SLOPE = 2.0
"""b in P(TP) = logistic(a + b z): how strongly the latent strength z decides the label."""

RESERVED_COLUMNS = ("sample", "candidate", "is_tp")
"""Columns of :attr:`Experiment.data` before the measures; no measure may take these names."""

FREQ_MIN = 4.0
"""Smallest value of a "frequency" score (the frequency threshold f >= 4 of Evert 2004, §4)."""
FREQ_SHAPE = 1.5
"""Tail exponent of a "frequency" score: P(f >= x) = (x / FREQ_MIN) ** -FREQ_SHAPE (Zipf-like)."""


def _identity(s: np.ndarray, noise: float) -> np.ndarray:
    return s


def _frequency(s: np.ndarray, noise: float) -> np.ndarray:
    # s / sqrt(1 + noise²) is standard normal over the population; ndtr(-x) = 1 - Phi(x) is uniform.
    return FREQ_MIN * special.ndtr(-s / math.sqrt(1.0 + noise * noise)) ** (-1.0 / FREQ_SHAPE)


SCORE_TRANSFORMS: Mapping[str, Callable[[np.ndarray, float], np.ndarray]] = MappingProxyType({
    "identity": _identity,
    "frequency": _frequency,
})
"""Strictly increasing maps from the noisy strength to the reported score (they change
the ties that rounding makes, never the ranking before rounding)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class MeasureSpec:
    """A simulated scoring function: the latent strength plus noise, optionally rounded.

    Attributes
    ----------
    name : str
        Column name of the score.
    noise : float
        Standard deviation of the Gaussian noise added to the latent strength; 0 ranks
        exactly by the strength (the best possible measure), larger is worse.
    decimals : int or None
        Round the score to this many decimals (0: whole numbers), which makes ties;
        None keeps full precision.
    transform : str
        Key of :data:`SCORE_TRANSFORMS` applied before rounding: "identity" (default) or
        "frequency" (a Zipf-like count >= ``FREQ_MIN``, as cooccurrence frequencies are).
    twin_of : str or None
        Name of another measure with the same ``noise``, ``decimals`` and ``transform``
        that this one is exactly exchangeable with (see :func:`simulate`, Notes).
    """

    name: str
    noise: float
    decimals: int | None = None
    transform: str = "identity"
    twin_of: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ParameterError(f"a measure's `name` must be a non-empty string; got {self.name!r}")
        if not _is_real(self.noise) or self.noise < 0:
            raise ParameterError(
                f"`noise` of measure {self.name!r} must be a finite number >= 0 (0 = perfect ranking); "
                f"got {self.noise!r}"
            )
        if self.decimals is not None and (not _is_int(self.decimals) or not 0 <= self.decimals <= 15):
            raise ParameterError(
                f"`decimals` of measure {self.name!r} must be None (no rounding) or a whole number "
                f"from 0 to 15; got {self.decimals!r}"
            )
        if self.transform not in SCORE_TRANSFORMS:
            raise ParameterError(
                f"`transform` of measure {self.name!r} must be one of {', '.join(SCORE_TRANSFORMS)}; "
                f"got {self.transform!r}"
            )
        if self.twin_of is not None and (not isinstance(self.twin_of, str) or self.twin_of == self.name):
            raise ParameterError(
                f"`twin_of` of measure {self.name!r} must be None or the name of another measure; "
                f"got {self.twin_of!r}"
            )


DEFAULT_MEASURES: tuple[MeasureSpec, ...] = (
    MeasureSpec("sharp", 0.5, decimals=2),
    MeasureSpec("good", 1.0, decimals=2),
    MeasureSpec("good_twin", 1.0, decimals=2, twin_of="good"),
    MeasureSpec("noisy", 2.0, decimals=1),
    MeasureSpec("freq", 3.0, decimals=0, transform="frequency"),
)
"""Four measures of decreasing quality and an exact twin: "sharp" (noise 0.5), "good"
(1.0), "good_twin" (1.0, exchangeable with "good"), "noisy" (2.0), and "freq" (noise 3.0,
a whole-number frequency-like score with many ties)."""


@dataclass(frozen=True, eq=False)
class Experiment:
    """A simulated population and the samples drawn from it (see :func:`simulate`).

    Attributes
    ----------
    data : DataFrame
        One row per drawn candidate: ``sample`` (str, "s01", "s02", ...), ``candidate``
        (int, the population member), ``is_tp`` (bool), then one float column per
        measure in the order of ``measures``. Rows are grouped by sample, in draw order.
    population : DataFrame
        One row per hypothetical candidate, indexed by ``candidate``: ``strength`` (the
        latent z), ``p_tp`` (its probability of being annotated a TP in a repetition of
        the experiment), and the fixed score of each measure.
    measures : tuple of MeasureSpec
        The measures, in column order.
    seed : int
        The seed the experiment was drawn with.
    settings : mapping
        All parameters of :func:`simulate` and the fitted intercept ``a`` and ``slope`` b.
    """

    data: pd.DataFrame
    population: pd.DataFrame
    measures: tuple[MeasureSpec, ...]
    seed: int
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def _scores(self, measure: str) -> np.ndarray:
        names = [m.name for m in self.measures]
        if measure not in names:
            raise ParameterError(f"`measure` must be one of {', '.join(names)}; got {measure!r}")
        return self.population[measure].to_numpy()

    def true_precision(self, measure: str, gamma: float) -> float:
        """The average precision pi_A of the acceptance region A = {score >= gamma}.

        Parameters
        ----------
        measure : str
            Name of a measure.
        gamma : float
            Threshold.

        Returns
        -------
        float
            pi_A, exactly.

        Raises
        ------
        ParameterError
            Unknown measure, a non-finite ``gamma``, or no population member in A.

        Notes
        -----
        Every draw of a sample is a uniform draw from the population, so a draw that
        lands in A is a uniform draw from the members of A, and it is a TP with
        probability

            pi_A = (1 / |A|) * sum_{i in A} p_tp_i.

        Hence E[T_A | N_A] = N_A * pi_A, and with ``sample_sd = 0``
        T_A | N_A ~ Binomial(N_A, pi_A) exactly (Evert 2004, Eq. 2).
        """
        scores = self._scores(measure)
        if not _is_real(gamma):
            raise ParameterError(f"`gamma` must be a finite number; got {gamma!r}")
        accepted = scores >= gamma
        if not accepted.any():
            raise ParameterError(
                f"no population member has {measure} >= {gamma!r} (the largest score is {scores.max():g}); "
                "choose a smaller `gamma`"
            )
        return float(self.population["p_tp"].to_numpy()[accepted].mean())

    def gamma_for(self, measure: str, accepted: float) -> float:
        """The threshold at which a sample accepts about ``accepted`` candidates on average.

        Parameters
        ----------
        measure : str
            Name of a measure.
        accepted : float
            Wanted average N_A per sample, ``0 < accepted <= `` the average sample size.

        Returns
        -------
        float
            The score of the ``ceil(M * accepted / n_mean)``-th best population member
            (M members, n_mean the average sample size of ``data``). Ties at that score
            make the region, and so N_A, somewhat larger.
        """
        scores = self._scores(measure)
        mean_size = len(self.data) / self.data["sample"].nunique()
        if not _is_real(accepted) or not 0 < accepted <= mean_size:
            raise ParameterError(
                f"`accepted` must be a number in (0, {mean_size:g}] (the average sample size); got {accepted!r}"
            )
        rank = max(1, math.ceil(scores.size * accepted / mean_size))
        return float(-np.partition(-scores, rank - 1)[rank - 1])


# ---------------------------------------------------------------------------
# The simulation
# ---------------------------------------------------------------------------


def _check_count(name: str, value: Any, low: int) -> int:
    if not _is_int(value) or value < low:
        raise ParameterError(f"`{name}` must be a whole number >= {low}; got {value!r}")
    return int(value)


def _check_sd(name: str, value: Any, meaning: str) -> float:
    if not _is_real(value) or value < 0:
        raise ParameterError(f"`{name}` must be a finite number >= 0 ({meaning}); got {value!r}")
    return float(value)


def _check_measures(measures: Any) -> tuple[MeasureSpec, ...]:
    if isinstance(measures, MeasureSpec):
        measures = (measures,)
    try:
        specs = tuple(measures)
    except TypeError:
        raise ParameterError(f"`measures` must be a sequence of MeasureSpec; got {measures!r}") from None
    if not specs:
        raise ParameterError("`measures` is empty; give at least one MeasureSpec, e.g. DEFAULT_MEASURES")
    bad = [m for m in specs if not isinstance(m, MeasureSpec)]
    if bad:
        raise ParameterError(f"`measures` must hold MeasureSpec objects; got {bad[0]!r}")
    names = [m.name for m in specs]
    dups = sorted({x for x in names if names.count(x) > 1})
    if dups:
        raise ParameterError(f"`measures` has duplicate names {', '.join(map(repr, dups))}; give each a unique name")
    clash = [x for x in names if x in RESERVED_COLUMNS]
    if clash:
        raise ParameterError(
            f"`measures` uses the reserved column name {clash[0]!r}; the names {', '.join(RESERVED_COLUMNS)} "
            "are taken by the data columns, rename the measure"
        )
    by_name = {m.name: m for m in specs}
    twins: dict[str, str] = {}
    for m in specs:
        if m.twin_of is None:
            continue
        base = by_name.get(m.twin_of)
        if base is None:
            raise ParameterError(
                f"`twin_of` of measure {m.name!r} is {m.twin_of!r}, which is not among the measures "
                f"({', '.join(names)}); name one of them or use None"
            )
        if base.twin_of is not None or m.twin_of in twins:
            raise ParameterError(
                f"`twin_of` of measure {m.name!r}: measure {m.twin_of!r} already has a twin or is one; "
                "a measure can have at most one twin"
            )
        if (base.noise, base.decimals, base.transform) != (m.noise, m.decimals, m.transform):
            raise ParameterError(
                f"measure {m.name!r} is `twin_of` {base.name!r} but differs from it in noise, decimals or "
                "transform; twins must have the same ones"
            )
        twins[m.twin_of] = m.name
    return specs


def _quadrature(sample_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights for E[f(sample_sd * U)], U ~ N(0, 1).

    max(16, 32 * sample_sd) nodes integrate the logistic-normal to better than 1e-12 for
    sample_sd <= 1 and about 1e-10 at 2 (checked against adaptive quadrature).
    """
    nodes, weights = hermegauss(min(512, max(16, math.ceil(32 * sample_sd))))
    return sample_sd * nodes, weights / weights.sum()


def _marginal_tp(x: np.ndarray, nodes: np.ndarray, weights: np.ndarray,
                 derivative: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """E[logistic(x + u)] over the quadrature of u (and its derivative in x); exact if no spread."""
    if nodes.size == 1:
        p = special.expit(x)
        return p, (p * (1.0 - p) if derivative else None)
    out = np.empty_like(x)
    dout = np.empty_like(x) if derivative else None
    step = max(1, 1_000_000 // nodes.size)  # bounded memory
    for i in range(0, x.size, step):
        p = special.expit(x[i:i + step, None] + nodes)
        out[i:i + step] = p @ weights
        if derivative:
            dout[i:i + step] = (p * (1.0 - p)) @ weights
    return out, dout


def _solve_intercept(z: np.ndarray, baseline: float, nodes: np.ndarray, weights: np.ndarray) -> float:
    """The a with mean_i E_u[logistic(a + SLOPE z_i + u)] = baseline."""
    lead = math.log(baseline / (1.0 - baseline))
    half = SLOPE * float(np.abs(z).max()) + 1.0
    lo, hi = lead - half, lead + half  # u-free: every p_i <= / >= baseline there

    def plain(a: float) -> float:
        return float(special.expit(a + SLOPE * z).mean()) - baseline

    a = optimize.brentq(plain, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    if nodes.size == 1:
        return a
    # The spread of u moves the mean only a little: Newton's method from the u-free root.
    for _ in range(50):
        p, dp = _marginal_tp(a + SLOPE * z, nodes, weights, derivative=True)
        f, df = float(p.mean()) - baseline, float(dp.mean())
        if abs(f) < 1e-14 * max(1.0, baseline):
            return a
        a -= f / df
    raise RuntimeError("no intercept found for the TP probabilities; please report this")  # pragma: no cover


def _sample_names(k: int) -> np.ndarray:
    width = max(2, len(str(k)))
    return np.array([f"s{i:0{width}d}" for i in range(1, k + 1)], dtype=object)


def simulate(*, k: int = 80, n: int = 2000, baseline: float = 0.11,
             measures: Sequence[MeasureSpec] = DEFAULT_MEASURES, population: int | None = None,
             n_sd: float = 0.0, sample_sd: float = 0.0, seed: int = 0) -> Experiment:
    """Draw ``k`` candidate sets from a population of hypothetical candidates (Evert 2004, §3.1).

    Parameters
    ----------
    k : int
        Number of samples (repetitions of the experiment), >= 1.
    n : int
        Typical number of candidates per sample (exactly ``n`` if ``n_sd = 0``), >= 1.
    baseline : float
        Average TP probability over the population, in (0, 1): the expected baseline
        precision of a sample.
    measures : sequence of MeasureSpec
        The scoring functions; default :data:`DEFAULT_MEASURES`.
    population : int, optional
        Number M of hypothetical candidates, an even number >= 2; default ``50 * n``.
    n_sd : float
        Spread of the sample sizes (>= 0): N_i = max(1, round(n * exp(n_sd * g_i))) with
        g_i ~ N(0, 1), so ``n_sd`` is about the relative standard deviation of N_i.
    sample_sd : float
        Between-sample variation (>= 0): the standard deviation of a shift u_s of every TP
        logit in sample s. 0 gives the pure binomial model of the paper; larger values
        give the extra variation it found in real data (§4).
    seed : int
        Seed (>= 0) of the random numbers; equal seeds give equal experiments.

    Returns
    -------
    Experiment
        ``data`` (one row per drawn candidate) and ``population`` (one row per member).

    Raises
    ------
    ParameterError
        A parameter out of range; the message names it.

    Notes
    -----
    Population. Members come in M / 2 mirrored pairs (2j, 2j + 1). Pair j has a latent
    strength z_j ~ N(0, 1), shared by both members, and both members have the TP
    probability

        p_tp = E_u[logistic(a + b z + u)],   u ~ N(0, sample_sd²),

    with b = ``SLOPE`` = 2 and the intercept a solved (Brent's method, then Newton's
    for ``sample_sd > 0``; the expectation by Gauss-Hermite quadrature) so that the
    mean of p_tp over the population is ``baseline``. With ``sample_sd = 0``,
    p_tp = logistic(a + b z).

    Scores. A measure with noise sigma gives member i the fixed score

        score_i = round(t(z_i + sigma * eps_i), decimals),   eps_i ~ N(0, 1),

    with t the measure's transform ("identity", or "frequency":
    t(s) = FREQ_MIN * (1 - Phi(s / sqrt(1 + sigma²))) ** (-1 / FREQ_SHAPE), a Zipf-like
    count). A threshold gamma thus accepts a fixed set A of members. Both members of a
    pair have the same eps for every measure, except that a measure and its twin
    (``twin_of``) swap their eps within the pair: member 2j has (eps', eps'') and member
    2j + 1 has (eps'', eps'). Swapping the two measures' columns and the members of every
    pair maps the population onto itself, so the twins are exactly exchangeable, jointly
    with every other measure: at equal thresholds the difference regions
    D1 = {twin1 >= gamma > twin2} and D2 = {twin2 >= gamma > twin1} have equal average
    precision, pi_D1 = pi_D2 (the null hypothesis of Fisher's test, §3.3).

    Samples. Sample s has N_s members drawn uniformly with replacement; a draw of member
    i is a TP with probability logistic(a + b z_i + u_s), independently, where u_s is
    the sample's shift (u_s = 0 if ``sample_sd = 0``). Then E[T_A | N_A] = N_A * pi_A with
    pi_A = :meth:`Experiment.true_precision`, and with ``sample_sd = 0``

        T_A | N_A ~ Binomial(N_A, pi_A)   (Evert 2004, Eq. 2)

    exactly; with ``sample_sd > 0``, T_A varies more than the binomial predicts.

    Independent random streams (spawned from ``seed``) serve the population, the sample
    sizes, the draws, the shifts and the labels, so changing ``sample_sd`` changes no
    draw, only labels, and changing ``n_sd`` keeps the population.

    References
    ----------
    Evert, S. (2004). Significance tests for the evaluation of ranking methods. §3.1, §4.

    Examples
    --------
    >>> ex = simulate(k=3, n=100, seed=1)
    >>> ex.data.columns.tolist()
    ['sample', 'candidate', 'is_tp', 'sharp', 'good', 'good_twin', 'noisy', 'freq']
    >>> ex.data["sample"].unique().tolist()
    ['s01', 's02', 's03']
    >>> round(float(ex.population["p_tp"].mean()), 12)
    0.11
    """
    k = _check_count("k", k, 1)
    n = _check_count("n", n, 1)
    if not _is_real(baseline) or not 0.0 < baseline < 1.0:
        raise ParameterError(f"`baseline` must be a TP proportion in (0, 1), e.g. 0.11; got {baseline!r}")
    specs = _check_measures(measures)
    if population is None:
        population = 50 * n
    elif not _is_int(population) or population < 2 or population % 2:
        raise ParameterError(
            f"`population` must be an even whole number >= 2 (members come in mirrored pairs), or None "
            f"for 50 * n; got {population!r}"
        )
    m_size = int(population)
    n_sd = _check_sd("n_sd", n_sd, "relative spread of the sample sizes; 0 = every sample has n")
    sample_sd = _check_sd("sample_sd", sample_sd, "sd of the per-sample TP logit shift; 0 = binomial model")
    if not _is_int(seed) or seed < 0:
        raise ParameterError(f"`seed` must be a whole number >= 0; got {seed!r}")

    rng_pop, rng_size, rng_draw, rng_shift, rng_label = (
        np.random.default_rng(s) for s in np.random.SeedSequence(int(seed)).spawn(5))

    # population: one z and one eps per measure for every pair, members 2j and 2j + 1
    pairs = m_size // 2
    z_pair = rng_pop.standard_normal(pairs)
    eps_pair = rng_pop.standard_normal((len(specs), pairs))
    nodes, weights = _quadrature(sample_sd) if sample_sd > 0 else (np.zeros(1), np.ones(1))
    intercept = _solve_intercept(z_pair, float(baseline), nodes, weights)
    p_pair = _marginal_tp(intercept + SLOPE * z_pair, nodes, weights)[0]

    index = {m.name: j for j, m in enumerate(specs)}
    pop: dict[str, np.ndarray] = {"strength": np.repeat(z_pair, 2), "p_tp": np.repeat(p_pair, 2)}
    for j, m in enumerate(specs):
        eps = np.repeat(eps_pair[j], 2)
        partner = m.twin_of or next((t.name for t in specs if t.twin_of == m.name), None)
        if partner is not None:
            eps[1::2] = eps_pair[index[partner]]
        score = SCORE_TRANSFORMS[m.transform](pop["strength"] + m.noise * eps, m.noise)
        if m.decimals is not None:
            score = np.round(score, m.decimals) + 0.0  # + 0.0: no negative zeros
        pop[m.name] = score
    population_df = pd.DataFrame(pop, index=pd.RangeIndex(m_size, name="candidate"))

    # samples
    if n_sd > 0:
        sizes = np.maximum(1, np.round(n * np.exp(n_sd * rng_size.standard_normal(k)))).astype(np.int64)
    else:
        sizes = np.full(k, n, dtype=np.int64)
    which = np.repeat(np.arange(k), sizes)
    candidate = rng_draw.integers(0, m_size, size=which.size, dtype=np.int64)
    if sample_sd > 0:
        shift = sample_sd * rng_shift.standard_normal(k)
        p_draw = special.expit(intercept + SLOPE * pop["strength"][candidate] + shift[which])
    else:
        p_draw = pop["p_tp"][candidate]
    is_tp = rng_label.random(which.size) < p_draw

    columns: dict[str, Any] = {"sample": _sample_names(k)[which], "candidate": candidate, "is_tp": is_tp}
    for m in specs:
        columns[m.name] = pop[m.name][candidate]
    settings = MappingProxyType({
        "k": k, "n": n, "baseline": float(baseline), "population": m_size, "n_sd": n_sd,
        "sample_sd": sample_sd, "seed": int(seed), "intercept": intercept, "slope": SLOPE,
    })
    return Experiment(data=pd.DataFrame(columns), population=population_df, measures=specs, seed=int(seed),
                      settings=settings)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _format(values: np.ndarray, decimals: int | None) -> np.ndarray:
    if decimals is None:
        return np.array([repr(float(v)) for v in values], dtype=object)
    return np.char.mod(f"%.{decimals}f", values).astype(object)


def candidate_ids(candidate: Any, population: int) -> np.ndarray:
    """Population indices as the text ids of the written file: "c" and the zero-padded index
    (``c00650`` in a population of 100,000), so that a reader takes them as keys, not as a score."""
    width = len(str(max(0, population - 1)))
    return np.char.add("c", np.char.zfill(np.asarray(candidate).astype(str), width)).astype(object)


def to_tsv(experiment: Experiment) -> str:
    """:attr:`Experiment.data` as tab-separated text.

    ``candidate`` is written by :func:`candidate_ids` (text, so that
    :func:`evalcore.io.suggest_roles` makes it a key), ``is_tp`` as TRUE/FALSE, every score
    with its measure's decimals (full precision for ``decimals=None``), so that reading the
    file back gives the same floats.
    """
    data = experiment.data
    out = pd.DataFrame({
        "sample": data["sample"],
        "candidate": candidate_ids(data["candidate"].to_numpy(), len(experiment.population)),
        "is_tp": np.where(data["is_tp"].to_numpy(), "TRUE", "FALSE"),
    })
    for m in experiment.measures:
        out[m.name] = _format(data[m.name].to_numpy(), m.decimals)
    return out.to_csv(sep="\t", index=False, lineterminator="\n")


def write_tsv(experiment: Experiment, path: str | os.PathLike[str]) -> None:
    """Write :func:`to_tsv`; gzip-compressed (byte-reproducible: no name, mtime 0) if ``path`` ends in .gz."""
    text = to_tsv(experiment).encode("utf-8")
    if os.fspath(path).endswith(".gz"):
        buf = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
            gz.write(text)
        text = buf.getvalue()
    with open(path, "wb") as f:
        f.write(text)
