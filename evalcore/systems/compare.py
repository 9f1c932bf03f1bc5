"""Every pair of systems on one test set: corpus scores with intervals, the paired bootstrap, approximate
randomization, the gain's interval and Holm's correction.

For systems s_1 (the baseline), ..., s_k and each pair (s_i, s_j), i < j, in input order, with the observed gain
δ = score(s_j) − score(s_i):

- **paired bootstrap** (Koehn 2004; Berg-Kirkpatrick et al. 2012): R resamples of the items with replacement,
  the same resample for every system; δ* the gain on a resample. By Berg-Kirkpatrick et al.'s rule (default,
  ``rule="bk"``), one-sided in the direction of δ: ``p = (1 + #{sign(δ)·δ* > 2|δ|}) / (R + 1)``: under the null
  hypothesis the resampled gains centre on δ (the test set favoured the better-looking system by chance), so a gain
  of 2δ is as far from δ as 0 is. By sacrebleu's rule (``rule="sacrebleu"``, the Moses script's):
  ``p = (1 + #{|δ*| − mean|δ*| > |δ|}) / (R + 1)``. The two agree where p is small (below about 0.05) and differ
  above about 0.1, where sacrebleu's rule, which centres |δ*| on its mean, gives smaller p-values.
- **approximate randomization** (Noreen 1989; Riezler & Maxwell 2005), two-sided: each item's statistics of the two
  systems are swapped with probability 1/2, R times; ``p = (1 + #{|δ*| ≥ |δ|}) / (R + 1)`` (with the sacrebleu
  rule ``>`` instead of ``≥``, as sacrebleu's ``--paired-ar``).
- **the gain's interval**: the (1 − L)/2 and (1 + L)/2 quantiles of the bootstrap gains δ* (percentile interval,
  ``numpy.quantile``'s default, R's type 7), for the confidence level L;
- **Holm's correction** (Holm 1979) over the bootstrap p-values of all k(k − 1)/2 pairs (one family);
  ``significant`` where the adjusted p-value is below α = 1 − L.

Each system's score has the percentile interval of its bootstrap scores (the same resamples). A gain of exactly 0
gets p = 1 from every test (sacrebleu's own rules would give 1/(R + 1) for a system against itself). A resampled
gain within 1e-9 of the sacrebleu scale (1e-11 of a fraction) of the threshold counts as equal to it, so that the
last bits of floating-point arithmetic do not decide a tie. A resample on which a score is undefined (a zero
denominator of F1, accuracy or AER) counts as not exceeding the threshold and is left out of the intervals.

The observed scores are the defining library's (:func:`.metrics.exact_score`); the tests compare resampled gains
with the gain computed by the same vectorised formula as the resamples, so the identity resample gives exactly δ.

Chosen besides (:class:`.meantests.PairTests`): the paired t-test and the Wilcoxon signed-rank test of the item
values where the metric is a mean of them, each with Holm over the pairs (``p_ttest``, ``p_ttest_adjusted``,
``p_wilcoxon``, ``p_wilcoxon_adjusted``), and the randomized Tukey HSD, one family for all pairs (``p_tukey``);
``significant`` stays the bootstrap's, Holm-adjusted.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..stats.multitest import adjust_pvalues
from .meantests import PairTests, tukey_pvalues, ttest_pvalues, wilcoxon_pvalues
from .metrics import item_values
from .names import DEFAULT_RESAMPLES, DEFAULT_SEED, RULES
from .resample import BLOCK, bootstrap_sums, check_resamples, randomization_sums
from .statistics import ItemStatistics

__all__ = ["ResamplingSettings", "SystemsComparison", "compare_systems", "pair_indices", "bootstrap_pvalue",
           "randomization_pvalue", "SYSTEM_COLUMNS", "PAIR_COLUMNS", "TEST_COLUMNS", "tolerance", "PairTests",
           "pvalue_columns"]

SYSTEM_COLUMNS = ("name", "score", "ci_low", "ci_high")
PAIR_COLUMNS = ("a", "b", "delta", "delta_low", "delta_high", "p_bootstrap", "p_randomization", "p_adjusted",
                "significant")
#: The columns each test besides adds to the pairs (after PAIR_COLUMNS, in this order).
TEST_COLUMNS = {"ttest": ("p_ttest", "p_ttest_adjusted"), "wilcoxon": ("p_wilcoxon", "p_wilcoxon_adjusted"),
                "tukey": ("p_tukey",)}


@dataclass(frozen=True)
class ResamplingSettings:
    """How the tests resample: number of resamples, seed, the bootstrap's p-value rule, the confidence level."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    rule: str = "bk"
    level: float = 0.95

    def __post_init__(self) -> None:
        check_resamples(self.resamples)
        if self.rule not in RULES:
            raise ParameterError(f"`rule` must be one of {', '.join(RULES)}; got {self.rule!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or not 0 <= self.seed < 2**32:
            raise ParameterError(f"`seed` must be a whole number from 0 to 2^32 - 1; got {self.seed!r}")
        if isinstance(self.level, bool) or not isinstance(self.level, (int, float, np.floating)) \
                or not 0 < self.level < 1:  # (as evalcore.stats.intervals.check_confidence_level, without numba)
            raise ParameterError(f"`level` (the confidence level) must be in (0, 1); got {self.level!r}")

    @property
    def alpha(self) -> float:
        return 1.0 - self.level


def pair_indices(n_systems: int) -> list[tuple[int, int]]:
    """The pairs in input order: (0, 1), (0, 2), ..., (1, 2), ...: the earlier system first."""
    return [(i, j) for i in range(n_systems) for j in range(i + 1, n_systems)]


def tolerance(percent: bool) -> float:
    """How close a resampled gain may come to a threshold and count as equal to it (see the module's docstring)."""
    return 1e-9 if percent else 1e-11


def bootstrap_pvalue(gains: np.ndarray, delta: float, rule: str, tol: float = 0.0) -> float:
    """The paired bootstrap's p-value from resampled gains ``gains`` (R,) and the observed gain ``delta``.

    ``rule="bk"``: (1 + #{sign(δ)·δ* > 2|δ|}) / (R + 1); ``rule="sacrebleu"``: (1 + #{|δ*| − mean|δ*| > |δ|}) /
    (R + 1); δ = 0 gives 1. NaN gains count as not exceeding (and, for sacrebleu's mean, are left out).
    """
    gains = np.asarray(gains, dtype=np.float64)
    if delta == 0 or not np.isfinite(delta):
        return 1.0
    if rule == "bk":
        exceed = np.sign(delta) * gains > 2.0 * abs(delta) + tol
    elif rule == "sacrebleu":
        magnitude = np.abs(gains)
        exceed = magnitude - np.nanmean(magnitude) > abs(delta) + tol
    else:
        raise ParameterError(f"`rule` must be one of {', '.join(RULES)}; got {rule!r}")
    return float((1 + np.count_nonzero(exceed)) / (gains.size + 1))


def randomization_pvalue(gains: np.ndarray, delta: float, rule: str = "bk", tol: float = 0.0) -> float:
    """Approximate randomization's two-sided p-value: (1 + #{|δ*| ≥ |δ|}) / (R + 1) (``>`` under the sacrebleu
    rule); δ = 0 gives 1."""
    gains = np.asarray(gains, dtype=np.float64)
    if delta == 0 or not np.isfinite(delta):
        return 1.0
    magnitude = np.abs(gains)
    exceed = magnitude > abs(delta) + tol if rule == "sacrebleu" else magnitude >= abs(delta) - tol
    return float((1 + np.count_nonzero(exceed)) / (gains.size + 1))


@dataclass(frozen=True, eq=False)
class SystemsComparison:
    """The scores of every system and the tests of every pair.

    Attributes
    ----------
    statistics : ItemStatistics
    settings : ResamplingSettings
    systems : DataFrame
        ``name, score, ci_low, ci_high``: the observed corpus score and its bootstrap percentile interval.
    pairs : DataFrame
        ``a, b, delta, delta_low, delta_high, p_bootstrap, p_randomization, p_adjusted, significant``, one row per
        pair in input order; ``delta`` = score(b) − score(a); ``p_adjusted`` is Holm's over ``p_bootstrap``.
    gains : ndarray, shape (resamples, pairs)
        The bootstrap gains δ* of every pair (for the distribution figure).
    scores : ndarray, shape (resamples, systems)
        The bootstrap scores of every system.
    tests : PairTests
        The tests chosen besides (their p-values are columns of ``pairs``: :data:`TEST_COLUMNS`).
    """

    statistics: ItemStatistics
    settings: ResamplingSettings
    systems: pd.DataFrame
    pairs: pd.DataFrame
    gains: np.ndarray
    scores: np.ndarray
    tests: PairTests = PairTests()

    @property
    def metric(self):
        return self.statistics.metric

    @property
    def n_items(self) -> int:
        return self.statistics.n_items

    @property
    def n_significant(self) -> int:
        return int(self.pairs["significant"].sum())

    def pvalue_matrix(self, column: str = "p_adjusted") -> pd.DataFrame:
        """The p-values of ``column`` as a symmetric systems-by-systems matrix, NaN on the diagonal."""
        names = list(self.statistics.systems)
        matrix = pd.DataFrame(np.nan, index=names, columns=names)
        for row in self.pairs.itertuples(index=False):
            value = getattr(row, column)
            matrix.loc[row.a, row.b] = value
            matrix.loc[row.b, row.a] = value
        return matrix


def pvalue_columns(tests: PairTests) -> tuple[str, ...]:
    """The p-value columns of a comparison with ``tests``: the bootstrap's (Holm, unadjusted), randomization's, then
    each chosen test's (Holm-adjusted first)."""
    out = ["p_adjusted", "p_bootstrap", "p_randomization"]
    for test in tests.tests:
        out += list(TEST_COLUMNS[test][::-1])
    return tuple(out)


def _scores(metric, sums: np.ndarray, n_stats: int, n_systems: int) -> np.ndarray:
    """Scores of summed statistics laid out as ``values.reshape(items, statistics * systems)``: (R, systems)."""
    return metric.score(sums.reshape(len(sums), n_stats, n_systems).transpose(0, 2, 1))


def _quantiles(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column gives NaN (the page says why)
        low, high = np.nanquantile(values, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return low, high


def compare_systems(statistics: ItemStatistics, settings: ResamplingSettings = ResamplingSettings(),
                    progress: Callable[[int, int], None] | None = None,
                    tests: PairTests = PairTests()) -> SystemsComparison:
    """Scores with intervals and the tests of every pair (see the module's docstring).

    Parameters
    ----------
    statistics : ItemStatistics
        Per-item statistics of two or more systems (:mod:`.statistics`).
    settings : ResamplingSettings
        Resamples, seed, the bootstrap's rule and the confidence level.
    progress : callable(done, total), optional
        Called after the bootstrap, the randomization and Tukey's HSD (a checkpoint: an exception it raises stops
        the work).
    tests : PairTests, optional
        Tests besides (the t-test and Wilcoxon's for means, Tukey's HSD); refused where they do not apply.

    Returns
    -------
    SystemsComparison

    Notes
    -----
    Cost: two matrix products of (R x items) by (items x statistics·systems), in blocks, plus the scores of
    R x systems and R x pairs sums; for 10 systems, 3,000 segments and R = 10,000 of BLEU about a second and
    under 100 MB (``bench/bench_systems.py``).

    Examples
    --------
    >>> from evalcore.systems.inputs import ItemTable
    >>> from evalcore.systems.statistics import table_statistics
    >>> import numpy as np
    >>> correct = np.array([[1, 1], [1, 0], [0, 0], [1, 1], [0, 1], [1, 1]] * 10, dtype=float)
    >>> counts = np.stack([correct, np.ones_like(correct)], axis=1)   # items x (correct, total) x systems
    >>> table = ItemTable("accuracy", tuple(map(str, range(60))), ("A", "B"), counts)
    >>> result = compare_systems(table_statistics(table), ResamplingSettings(resamples=999, seed=1))
    >>> result.pairs[["a", "b", "delta"]].to_dict("records")
    [{'a': 'A', 'b': 'B', 'delta': 0.0}]
    """
    metric = statistics.metric
    values = statistics.values
    n_items, n_stats, n_systems = values.shape
    tests.check(metric)
    stages = 3 if "tukey" in tests.tests else 2
    if n_systems < 2:
        raise ParameterError(f"comparing systems needs at least two; got {n_systems}")
    flat = np.ascontiguousarray(values.reshape(n_items, n_stats * n_systems))
    totals = flat.sum(axis=0)
    observed = _scores(metric, totals[None, :], n_stats, n_systems)[0]  # the resamples' formula on all items
    bad = [statistics.systems[s] for s in range(n_systems) if not np.isfinite(observed[s])]
    if bad:
        raise ParameterError(f"{metric.label} is undefined for {', '.join(map(repr, bad))} on this test set (its "
                             "denominator is 0: no counts at all); check the input")
    pairs = pair_indices(n_systems)
    ia = np.array([i for i, _ in pairs])
    ib = np.array([j for _, j in pairs])
    tol = tolerance(metric.percent)

    boot = _scores(metric, bootstrap_sums(flat, settings.resamples, settings.seed), n_stats, n_systems)
    gains = boot[:, ib] - boot[:, ia]
    delta_v = observed[ib] - observed[ia]
    if progress is not None:
        progress(1, stages)

    swapped = randomization_sums(flat, settings.resamples, settings.seed)
    by_system = totals.reshape(n_stats, n_systems).T  # (systems, statistics)
    ar_gains = np.empty((settings.resamples, len(pairs)))
    for start in range(0, settings.resamples, BLOCK):
        block = swapped[start:start + BLOCK].reshape(-1, n_stats, n_systems).transpose(0, 2, 1)  # (r, S, k)
        shuffled_a = by_system[ib][None] + block[:, ia] - block[:, ib]          # (r, P, k)
        shuffled_b = (by_system[ia] + by_system[ib])[None] - shuffled_a
        ar_gains[start:start + len(block)] = metric.score(shuffled_b) - metric.score(shuffled_a)
    del swapped
    if progress is not None:
        progress(2, stages)

    p_boot = np.array([bootstrap_pvalue(gains[:, p], delta_v[p], settings.rule, tol) for p in range(len(pairs))])
    p_ar = np.array([randomization_pvalue(ar_gains[:, p], delta_v[p], settings.rule, tol) for p in range(len(pairs))])
    p_adjusted = adjust_pvalues(p_boot, "holm")
    low, high = _quantiles(boot, settings.level)
    gain_low, gain_high = _quantiles(gains, settings.level)
    exact = statistics.scores
    systems_table = pd.DataFrame({"name": list(statistics.systems), "score": exact, "ci_low": low, "ci_high": high})
    pairs_table = pd.DataFrame({
        "a": [statistics.systems[i] for i in ia], "b": [statistics.systems[j] for j in ib],
        "delta": exact[ib] - exact[ia], "delta_low": gain_low, "delta_high": gain_high, "p_bootstrap": p_boot,
        "p_randomization": p_ar, "p_adjusted": p_adjusted, "significant": p_adjusted < settings.alpha})
    if "ttest" in tests.tests or "wilcoxon" in tests.tests:
        per_item = item_values(values)
        for test, compute in (("ttest", lambda: ttest_pvalues(per_item, pairs)),
                              ("wilcoxon", lambda: wilcoxon_pvalues(per_item, pairs, tests))):
            if test in tests.tests:
                raw = compute()
                pairs_table[TEST_COLUMNS[test][0]] = raw
                pairs_table[TEST_COLUMNS[test][1]] = adjust_pvalues(raw, "holm")
    if "tukey" in tests.tests:
        pairs_table["p_tukey"] = tukey_pvalues(values, metric.score, pairs, delta_v, settings.resamples,
                                               settings.seed, tol)
        if progress is not None:
            progress(3, stages)
    return SystemsComparison(statistics=statistics, settings=settings, systems=systems_table, pairs=pairs_table,
                             gains=gains, scores=boot, tests=tests)
