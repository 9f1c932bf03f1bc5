"""Comparing two rankings of the same candidates (Evert 2004, §3.3, Figure 3).

Two acceptance sets A and B can only differ in D1 = A \\ B and D2 = B \\ A. Fisher's
exact test on [[T_D1, F_D1], [T_D2, F_D2]] tests H0: pi_D1 = pi_D2. The tests that read that table alone are in
:mod:`evalcore.stats.pairtests`; the two that resample the candidates of the rankings are here:
:func:`paired_bootstrap` (Berg-Kirkpatrick et al. 2012) and :func:`approximate_randomization` (Yeh 2000), each
O(resamples * N) for N candidates, whatever the number of list sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from .errors import ParameterError
from .stats.fisher import check_alternative, fisher_exact
from .stats.intervals import check_confidence_level
from .stats.pairtests import (_PROGRESS_STEPS, TABLE_P_VALUES, _check_resamples, _check_seed, _reporter,
                              check_test)
from .stats.multitest import significant_up_to  # noqa: F401 - re-exported: it reads a corrected family of tests
from .nspec import check_sizes
from .ranking import Ranking, check_pair as _check_pair, ranking_labels  # noqa: F401 - (re-exported)

_CHUNK_CELLS = 1 << 22  # randomization: resamples x candidates drawn at a time

COMPARE_COLUMNS = ("n", "tp_a", "tp_b", "tp_d1", "fp_d1", "tp_d2", "fp_d2", "p_value", "log10_p", "significant")


def difference_regions(a: Ranking, b: Ranking, n=None) -> pd.DataFrame:
    """TP and FP counts in D1 = A \\ B and D2 = B \\ A for the n-best lists A of `a` and B of `b`.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int, optional
        List sizes; every n = 1..N by default.

    Returns
    -------
    DataFrame
        Columns ``n, tp_a, tp_b, overlap, tp_d1, fp_d1, tp_d2, fp_d2``.

    Notes
    -----
    A candidate is in both n-best lists iff ``max(rank_a, rank_b) <= n``, so the overlap
    for every n is a cumulative count over ``max(rank_a, rank_b)``: O(N) after the
    rankings, not a set operation per n. ``|D1| = |D2| = n - overlap``;
    ``T_D1 = tp_a - T_overlap`` and ``T_D2 = tp_b - T_overlap``. For the count tables of an engine
    (:mod:`evalcore.engines`) the overlap comes from their pair table, at the given n only.
    """
    labels = _check_pair(a, b)
    sizes = check_sizes(n, a.n_candidates)
    if labels is None:
        pair = a.pair(b)
        return _regions_table(sizes, a.tp[sizes], b.tp[sizes], sizes, sizes, pair.overlap(sizes),
                              pair.overlap_tp(sizes))
    both = np.maximum(a.ranks, b.ranks)
    n_total = a.n_candidates
    overlap = np.cumsum(np.bincount(both, minlength=n_total + 1))[sizes]
    overlap_tp = np.cumsum(np.bincount(both, weights=labels, minlength=n_total + 1)).astype(np.int64)[sizes]
    return _regions_table(sizes, a.tp[sizes], b.tp[sizes], sizes, sizes, overlap, overlap_tp)


def _regions_table(n, tp_a, tp_b, size_a, size_b, overlap, overlap_tp) -> pd.DataFrame:
    tp_d1 = tp_a - overlap_tp
    tp_d2 = tp_b - overlap_tp
    return pd.DataFrame({
        "n": np.array(n), "tp_a": tp_a, "tp_b": tp_b, "overlap": overlap,
        "tp_d1": tp_d1, "fp_d1": (size_a - overlap) - tp_d1,
        "tp_d2": tp_d2, "fp_d2": (size_b - overlap) - tp_d2,
    }, copy=False)  # (the arrays are the table's own: no copy into one block)


def _with_fisher(regions: pd.DataFrame, confidence_level: float, alternative: str) -> pd.DataFrame:
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    cells = {name: regions[name].to_numpy() for name in regions.columns}
    result = fisher_exact(cells["tp_d1"], cells["fp_d1"], cells["tp_d2"], cells["fp_d2"], alternative)
    # (regions is a table of difference_regions, made for this call: its arrays are taken, not copied)
    return pd.DataFrame({**cells, "p_value": result.pvalue, "log10_p": result.log10_pvalue,
                         "significant": result.pvalue < 1.0 - level}, copy=False)


def compare_rankings(a: Ranking, b: Ranking, n=None, *, confidence_level: float = 0.95,
                     alternative: str = "two-sided") -> pd.DataFrame:
    """Fisher's exact test on the difference regions of the n-best lists, for every n.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set (methods A and B).
    n : array_like of int, optional
        List sizes; every n = 1..N by default.
    confidence_level : float
        The difference is significant where ``p < 1 - confidence_level``.
    alternative : {"two-sided", "less", "greater"}
        "greater": A's difference region has the higher TP rate (A better than B).

    Returns
    -------
    DataFrame
        The columns of :func:`difference_regions` and ``p_value, log10_p, significant``.

    Notes
    -----
    Evert (2004), §3.3: the data for the test are the 2x2 table with rows
    ``(T_D1, F_D1)`` and ``(T_D2, F_D2)``; a two-sided test is called for. Where the two
    n-best lists are equal (D1 and D2 empty) the table has a zero margin and p = 1.

    Examples
    --------
    On Krenn's PP-verb data (Evert 2004, Figure 3), G2 against X2 is significant for
    every n from 100 to 1,250 when ties are broken by file order.
    """
    return _with_fisher(difference_regions(a, b, n), confidence_level, alternative)


def smallest_fisher_p(size_d1, size_d2, tps) -> np.ndarray:
    """The smallest two-sided p-value Fisher's exact test can give on difference regions of ``size_d1`` and
    ``size_d2`` candidates that hold ``tps`` TPs together, whichever region holds them.

    Parameters
    ----------
    size_d1, size_d2, tps : array_like of int
        The regions' sizes and their TPs together (0 <= tps <= size_d1 + size_d2), broadcast against each other.

    Returns
    -------
    ndarray of float
        The smallest p-value over the ways of splitting the TPs between D1 and D2 (1 where a region is empty).

    Notes
    -----
    Fisher's test conditions on both margins of ``[[T_D1, F_D1], [T_D2, F_D2]]``: the regions' sizes and the TPs
    they hold together. Given these, ``T_D1`` is hypergeometric, whose probabilities rise and fall once, so the least
    probable table is one of the two extremes (as many TPs as possible in D1, or in D2), and its two-sided p-value,
    the sum of the probabilities of the tables no more probable than it, is the smallest any split can give. Which
    region holds the TPs is left open, so this says how far the test can go on these regions, not what it finds.

    Examples
    --------
    Four candidates in each region and four TPs: all in D1 gives ``2 / C(8, 4) = 0.0286``; two TPs can give no less
    than 0.43 (``2 C(4, 2) / C(8, 2)``).

    >>> [round(float(p), 4) for p in smallest_fisher_p(4, 4, [4, 2, 0])]
    [0.0286, 0.4286, 1.0]
    """
    s1, s2, t = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in (size_d1, size_d2, tps)))
    if np.any(s1 < 0) or np.any(s2 < 0) or np.any(t < 0) or np.any(t > s1 + s2):
        raise ParameterError("`size_d1`, `size_d2` and `tps` must be counts with 0 <= tps <= size_d1 + size_d2")
    most = np.minimum(t, s1)  # as many TPs as possible in D1 ...
    least = np.maximum(t - s2, 0)  # ... or in D2
    p = np.minimum(*(fisher_exact(x, s1 - x, t - x, s2 - t + x).pvalue for x in (most, least)))
    return np.asarray(p, dtype=np.float64)


@dataclass(frozen=True)
class PairReach:
    """How far two rankings' n-best lists differ over a range of n, and how far Fisher's test can go on them.

    Attributes
    ----------
    n_range : (int, int)
        The range of n looked at, both ends included.
    largest_difference : int
        The most candidates D1 = A \\ B (as D2) holds at any n of the range; 0: the lists are the same at every n.
    smallest_p : float
        The smallest p-value Fisher's exact test can give at any n of the range (:func:`smallest_fisher_p`).
    alpha : float
        The level the test is at.
    """

    n_range: tuple[int, int]
    largest_difference: int
    smallest_p: float
    alpha: float

    @property
    def reaches(self) -> bool:
        """Whether the test can reach alpha somewhere in the range: the lists differ enough to tell."""
        return self.smallest_p < self.alpha

    @property
    def identical(self) -> bool:
        return self.largest_difference == 0


#: :func:`pair_reach` looks at every n of a range up to this many, else at this many n evenly spread over it.
REACH_SIZES = 100_000


def pair_reach(a: Ranking, b: Ranking, n_range: tuple[int, int], alpha: float) -> PairReach:
    """How far the n-best lists of ``a`` and ``b`` differ at every n of ``n_range`` (both ends included, cut to N;
    a range of more than :data:`REACH_SIZES` n at that many, evenly spread), and whether Fisher's exact test on
    their difference regions can reach ``alpha`` at any of them (:func:`regions_reach` of
    :func:`difference_regions`)."""
    lo, hi = (min(max(int(v), 1), a.n_candidates) for v in n_range)
    hi = max(lo, hi)
    sizes = np.arange(lo, hi + 1) if hi - lo < REACH_SIZES else np.unique(np.linspace(lo, hi, REACH_SIZES).round())
    return regions_reach(difference_regions(a, b, sizes.astype(np.int64)), alpha)


def regions_reach(regions: pd.DataFrame, alpha: float) -> PairReach:
    """:class:`PairReach` of a table of difference regions (the columns ``n, tp_d1, fp_d1, tp_d2, fp_d2`` of
    :func:`difference_regions` or of a comparison, at the n it holds): :func:`smallest_fisher_p` at each n, from the
    sizes of D1 and D2 and the TPs they hold."""
    if not 0 < alpha < 1:
        raise ParameterError(f"`alpha` must be in (0, 1); got {alpha!r}")
    cells = {c: regions[c].to_numpy(dtype=np.int64) for c in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")}
    size_d1, size_d2 = cells["tp_d1"] + cells["fp_d1"], cells["tp_d2"] + cells["fp_d2"]
    p = smallest_fisher_p(size_d1, size_d2, cells["tp_d1"] + cells["tp_d2"])
    n = regions["n"].to_numpy()
    span = (int(n.min()), int(n.max())) if n.size else (0, 0)
    return PairReach(span, int(np.maximum(size_d1, size_d2).max(initial=0)), float(p.min(initial=1.0)),
                     float(alpha))


def default_pair(measures: Sequence[str], ranking_of: Callable[[str], Ranking], n_range: tuple[int, int],
                 alpha: float, *, more: Sequence[str] = (), a: str | None = None,
                 b: str | None = None) -> tuple[str, str]:
    """The pair of measures a comparison opens on: the first two of ``measures`` whose n-best lists differ enough
    for Fisher's exact test to reach ``alpha`` somewhere in ``n_range`` (:func:`pair_reach`).

    Parameters
    ----------
    measures : sequence of str
        The measures in the order they are offered (a dashboard's shared selection, best first by average
        precision).
    more : sequence of str
        Measures tried after every pair of ``measures`` (the rest of the data's, best first); ``measures`` and
        ``more`` hold two or more together.
    ranking_of : callable
        The :class:`~evalcore.ranking.Ranking` (or an engine's count tables) of a measure, asked only for the
        measures the search reaches.
    n_range : (int, int)
        Where the lists must differ: the paper's default range, 100 to 2,000 (cut to the data).
    alpha : float
        The test's level.
    a, b : str, optional
        A measure already chosen: the other is the first of ``measures`` that differs enough from it.

    Returns
    -------
    (str, str)
        Measures A and B. The pairs of ``measures`` are tried in order, A as early as possible: (1st, 2nd), (1st,
        3rd), ..., (2nd, 3rd), ...; then those with a measure of ``more``, in the same order. Where no pair differs
        enough: the first two (or the chosen one and the first other), so a page still shows a pair, and says why it
        shows next to nothing (:attr:`PairReach.reaches`).

    Notes
    -----
    Two measures that rank alike (Krenn's log-likelihood and Fisher's p-value differ by at most four candidates in
    each region from n = 100 to 2,000) give a Figure 3 with no marker and two confidence bands that look the same.
    The choice reads the sizes of D1 and D2 and the TPs they hold together, never which region holds them, so it
    does not pick a pair for the test's verdict; and Fisher's test conditions on these margins, so a choice made on
    them leaves the test's level as it is.
    """
    first = list(dict.fromkeys(measures))
    measures = list(dict.fromkeys([*first, *more]))
    if len(measures) < 2:
        raise ParameterError(f"a pair needs two measures; got {', '.join(map(repr, measures)) or 'none'}")
    cache: dict[str, Ranking] = {}

    def ranked(m: str) -> Ranking:
        if m not in cache:
            cache[m] = ranking_of(m)
        return cache[m]

    def differ(x: str, y: str) -> bool:
        return pair_reach(ranked(x), ranked(y), n_range, alpha).reaches

    if a is not None or b is not None:
        fixed = a if a is not None else b
        others = [m for m in measures if m != fixed]
        other = next((m for m in others if differ(fixed, m)), others[0] if others else None)
        if other is None:
            raise ParameterError(f"a pair needs a measure other than {fixed!r}")
        return (fixed, other) if a is not None else (other, fixed)
    pairs = sorted(((i, j) for j in range(len(measures)) for i in range(j)), key=lambda p: (p[1] >= len(first), p))
    return next(((measures[i], measures[j]) for i, j in pairs if differ(measures[i], measures[j])),
                (measures[0], measures[1]))


def compare_sets(a: Ranking, size_a, b: Ranking, size_b, *, confidence_level: float = 0.95,
                 alternative: str = "two-sided") -> pd.DataFrame:
    """Fisher's test for acceptance sets of possibly different sizes (the top `size_a` of `a`, ...).

    For gamma-acceptance sets pass their sizes (see :func:`evalcore.curves.acceptance_sets`).
    Comparing sets of very different sizes by precision alone is unfair (Evert 2004,
    footnote 13): the smaller set tends to win. Cost O(N) per pair of sizes.

    Returns
    -------
    DataFrame
        Columns ``size_a, size_b`` and those of :func:`compare_rankings` (``n`` = ``size_a``).
    """
    labels = _check_pair(a, b)
    if labels is None:
        a.ranks  # noqa: B018 - count tables hold no single candidates: this raises a TooLargeError that says so
    sa = check_sizes(size_a, a.n_candidates, "`size_a`") if np.size(size_a) else np.zeros(0, np.int64)
    sb = check_sizes(size_b, b.n_candidates, "`size_b`") if np.size(size_b) else np.zeros(0, np.int64)
    if sa.shape != sb.shape:
        raise ParameterError(f"`size_a` and `size_b` must have the same length; got {sa.size} and {sb.size}")
    overlap = np.empty(sa.size, dtype=np.int64)
    overlap_tp = np.empty(sa.size, dtype=np.int64)
    for i, (na, nb) in enumerate(zip(sa, sb)):
        inside = (a.ranks <= na) & (b.ranks <= nb)
        overlap[i] = inside.sum()
        overlap_tp[i] = (inside & labels).sum()
    regions = _regions_table(sa, a.tp[sa], b.tp[sb], sa, sb, overlap, overlap_tp)
    regions.insert(1, "size_a", sa)
    regions.insert(2, "size_b", sb)
    return _with_fisher(regions, confidence_level, alternative)


def pair_test(a: Ranking, b: Ranking, n, test: str = "fisher", *, confidence_level: float = 0.95,
              resamples: int = 1000, seed: int = 0,
              progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Test the difference of two rankings' n-best lists at every n with a test of choice.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int or None
        List sizes (None: every n = 1..N).
    test : str
        A key of ``PAIR_TESTS`` (:mod:`evalcore.names`): "fisher", "mcnemar",
        "mcnemar_decisions", "mcnemar_chi2", "chi2", "chi2_yates", "bootstrap" or
        "randomization"; all two-sided.
    confidence_level : float
        The difference is significant where ``p < 1 - confidence_level``.
    resamples, seed, progress
        For "bootstrap" and "randomization" (see :func:`paired_bootstrap` and
        :func:`approximate_randomization`); ignored by the other tests.

    Returns
    -------
    DataFrame
        The columns of :func:`compare_rankings` (``n, tp_a, tp_b, overlap,
        tp_d1, fp_d1, tp_d2, fp_d2, p_value, log10_p, significant``) with ``p_value`` and
        ``significant`` from the chosen test, and ``test`` (its key). ``log10_p`` is
        Fisher's log-space value for "fisher" (finite below 1e-300) and ``log10(p_value)``
        for the others (-inf where the p-value underflows to 0).

    Notes
    -----
    For "fisher" the result is ``compare_rankings(a, b, n, confidence_level=...)`` with the
    column ``test`` added. The counts always come from ``compare_rankings``.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, True, True, False, False, False])
    >>> a = rank_scores(labels, np.array([6., 5, 4, 3, 2, 1]), ties="stable")
    >>> b = rank_scores(labels, np.array([1., 2, 3, 4, 5, 6]), ties="stable")
    >>> pair_test(a, b, [2, 3], "mcnemar")["p_value"].tolist()  # 2 and 3 TPs only in A
    [0.5, 0.25]
    """
    check_test(test)
    level = check_confidence_level(confidence_level)
    table = compare_rankings(a, b, n, confidence_level=level)
    if test != "fisher":
        p = P_VALUES[test](a, b, table, {"resamples": resamples, "seed": seed, "progress": progress})
        with np.errstate(divide="ignore"):
            table["log10_p"] = np.log10(p)
        table["p_value"] = p
        table["significant"] = p < 1.0 - level
    table["test"] = test
    return table


# ------------------------------------------------------------------------- paired bootstrap
def _resampled_tp(weights: np.ndarray, labels: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """TPs in the n-best lists of a resampled multiset.

    ``weights[i]`` is the multiplicity of the candidate at rank ``i + 1`` and ``labels[i]`` its
    label (0/1). The n-best list takes candidates in ranking order with their multiplicities,
    and only part of the last one's multiplicity where that overshoots n.
    """
    cum_w = np.cumsum(weights)
    cum_tp = np.cumsum(weights * labels)
    last = np.searchsorted(cum_w, sizes, side="left")  # first rank whose cumulative weight reaches n
    return cum_tp[last] - (cum_w[last] - sizes) * labels[last]


def paired_bootstrap(a: Ranking, b: Ranking, n, *, resamples: int = 1000, seed: int = 0,
                     progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Paired bootstrap over candidates (Berg-Kirkpatrick et al. 2012) for every n.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int or None
        List sizes (None: every n = 1..N).
    resamples : int
        Number of bootstrap resamples, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    progress : callable, optional
        ``progress(done, total)`` is called about every 5% of the resamples.

    Returns
    -------
    DataFrame
        ``n``; ``delta`` = observed precision of A minus that of B, ``(T_A - T_B) / n``;
        ``p_value``, two-sided, for H0: delta = 0; ``p_value_one_sided``, Berg-Kirkpatrick's
        one-sided p-value in the direction of the observed difference (1 where delta = 0).

    Notes
    -----
    Each resample draws N candidates with replacement (multiplicities ``w =
    bincount(integers(0, N, N))``), the same draw for both rankings: paired. The n-best list
    of the resampled multiset walks a ranking, accumulating multiplicities, and takes only
    part of the multiplicity of the candidate at the boundary; so ``T*_A`` is a cumulative
    sum and a ``searchsorted`` per ranking and resample, for all n at once. With ``D = T_A -
    T_B`` (``delta = D / n``) and ``D*`` its resampled value, counts are exact integers:

    * two-sided, the bootstrap distribution shifted to the null:
      ``p = (1 + #{|D* - D| >= |D|}) / (resamples + 1)``, which is 1 where ``D = 0``;
    * one-sided (Berg-Kirkpatrick et al. 2012, §2: the share of resamples where the gain is
      more than twice the observed one): ``p = (1 + #{s D* > 2 |D|}) / (resamples + 1)``,
      ``s = sign(D)``. The paper reports the bare share ``#{...} / resamples``; the added one
      (here and in the two-sided value) keeps a p-value from being 0 and differs from it by at
      most ``1 / (resamples + 1)``.

    The same resamples serve every n, so neighbouring n get correlated p-values, as a plain
    loop over n would not. Cost O(resamples * (N + len(n) log N)).

    References
    ----------
    Berg-Kirkpatrick, T., Burkett, D. & Klein, D. (2012). An empirical investigation of
    statistical significance in NLP. EMNLP-CoNLL 2012, 995-1005.
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, §16.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, False, True, False, True, False])
    >>> a = rank_scores(labels, np.array([6., 5, 4, 3, 2, 1]), ties="stable")
    >>> paired_bootstrap(a, a, [2, 4], resamples=99)["p_value"].tolist()
    [1.0, 1.0]
    """
    labels = _check_pair(a, b)
    sizes = check_sizes(n, a.n_candidates)
    resamples = _check_resamples(resamples)
    rng = np.random.default_rng(_check_seed(seed))
    n_total = a.n_candidates
    label_a = labels[a.order].astype(np.int64)
    label_b = labels[b.order].astype(np.int64)
    observed = a.tp[sizes] - b.tp[sizes]
    direction = np.sign(observed)
    more_extreme = np.zeros(sizes.size, dtype=np.int64)
    beyond_twice = np.zeros(sizes.size, dtype=np.int64)
    report = _reporter(progress, resamples)
    for done in range(1, resamples + 1):
        weights = np.bincount(rng.integers(0, n_total, n_total), minlength=n_total)
        diff = _resampled_tp(weights[a.order], label_a, sizes) - _resampled_tp(weights[b.order], label_b, sizes)
        more_extreme += np.abs(diff - observed) >= np.abs(observed)
        beyond_twice += direction * diff > 2 * np.abs(observed)
        report(done)
    one_sided = np.where(observed == 0, 1.0, (1.0 + beyond_twice) / (resamples + 1.0))
    return pd.DataFrame({"n": sizes, "delta": observed / sizes,
                         "p_value": (1.0 + more_extreme) / (resamples + 1.0),
                         "p_value_one_sided": one_sided})


# ------------------------------------------------------------------ approximate randomization
def _discordant_tps(labels: np.ndarray, a: Ranking, b: Ranking, sizes: np.ndarray):
    """The TPs whose membership differs for some n, with the span of n where it does.

    A TP with ``rank_a < rank_b`` is in D1 for ``rank_a <= n < rank_b`` (it counts +1 in
    ``T_A - T_B``), one with ``rank_b < rank_a`` in D2 for ``rank_b <= n < rank_a`` (-1).
    Returned: the candidates, the sign, and the spans as indices into `sizes` (half-open).
    """
    candidates = np.flatnonzero(labels & (a.ranks != b.ranks))
    ra, rb = a.ranks[candidates], b.ranks[candidates]
    sign = np.where(ra < rb, 1.0, -1.0)
    first = np.searchsorted(sizes, np.minimum(ra, rb), side="left")
    stop = np.searchsorted(sizes, np.maximum(ra, rb), side="left")
    return candidates, sign, first, stop


def _swapped_statistics(sign: np.ndarray, first: np.ndarray, stop: np.ndarray, swap: np.ndarray,
                        n_sizes: int) -> np.ndarray:
    """``T*_A - T*_B`` at every size, for each row of swap indicators (rows x discordant TPs).

    A swapped candidate changes lists, so its contribution changes sign; each contribution
    is added over its span of sizes with a difference array and a cumulative sum.
    """
    rows = swap.shape[0]
    value = np.where(swap, -sign, sign)
    offset = (np.arange(rows) * (n_sizes + 1))[:, None]
    width = rows * (n_sizes + 1)
    diff = (np.bincount((offset + first).ravel(), weights=value.ravel(), minlength=width)
            - np.bincount((offset + stop).ravel(), weights=value.ravel(), minlength=width))
    return np.cumsum(diff.reshape(rows, n_sizes + 1), axis=1)[:, :n_sizes]


def approximate_randomization(a: Ranking, b: Ranking, n, *, resamples: int = 1000, seed: int = 0,
                              progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Approximate randomization test (Yeh 2000) of two n-best lists, for every n.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int or None
        List sizes (None: every n = 1..N).
    resamples : int
        Number of random shuffles, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    progress : callable, optional
        ``progress(done, total)`` is called about every 5% of the shuffles.

    Returns
    -------
    DataFrame
        ``n``; ``delta = (T_A - T_B) / n``, the observed difference in precision;
        ``p_value``, two-sided.

    Notes
    -----
    Under H0 the two methods are exchangeable on every candidate: a shuffle swaps, for each
    candidate independently with probability 1/2, its membership in the two lists. Only
    candidates in D1 or D2 change anything, and FPs do not change the TP counts, so the
    statistic ``S = T_A - T_B = T_D1 - T_D2`` becomes ``S*``, a sum of random signs over the
    ``m = T_D1 + T_D2`` discordant TPs. (Shuffles change the list sizes, ``|A*| = n - s1 +
    s2``; the statistic is the difference in TP counts, i.e. in recall, which is ``n`` times
    the difference in precision of the unshuffled lists.)

    The shuffle is done literally, per candidate: one swap indicator per candidate and
    shuffle, ``default_rng(seed).random((resamples, N)) < 1/2`` (drawn in chunks, the same
    stream), shared by all n, so neighbouring n get correlated p-values. Indicators of
    candidates that are never a discordant TP are drawn and ignored. Marginally at each n,
    ``S*`` has the distribution of ``2 Bin(m, 1/2) - m``, so the p-value
    ``(1 + #{|S*| >= |S|}) / (resamples + 1)`` estimates the exact McNemar p-value
    (:func:`mcnemar_exact`); Yeh's test on these data is McNemar's test by Monte Carlo.
    Cost O(resamples * (N + len(n))).

    References
    ----------
    Yeh, A. (2000). More accurate tests for the statistical significance of result
    differences. COLING 2000, 947-953.
    Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, False, True, False, True, False])
    >>> a = rank_scores(labels, np.array([6., 5, 4, 3, 2, 1]), ties="stable")
    >>> approximate_randomization(a, a, [2, 4], resamples=99)["p_value"].tolist()
    [1.0, 1.0]
    """
    labels = _check_pair(a, b)
    sizes = check_sizes(n, a.n_candidates)
    resamples = _check_resamples(resamples)
    rng = np.random.default_rng(_check_seed(seed))
    n_total = a.n_candidates
    candidates, sign, first, stop = _discordant_tps(labels, a, b, np.sort(sizes))
    position = np.searchsorted(np.sort(sizes), sizes)  # results in the order of `sizes`
    observed = (a.tp[sizes] - b.tp[sizes]).astype(np.float64)
    at_least = np.zeros(sizes.size, dtype=np.int64)
    report = _reporter(progress, resamples)
    chunk = max(1, min(math.ceil(resamples / _PROGRESS_STEPS),
                       _CHUNK_CELLS // (n_total + sizes.size + candidates.size + 1)))
    done = 0
    while done < resamples:
        rows = min(chunk, resamples - done)
        swap = rng.random((rows, n_total)) < 0.5  # one indicator per candidate, literally
        shuffled = _swapped_statistics(sign, first, stop, swap[:, candidates], sizes.size)[:, position]
        at_least += (np.abs(shuffled) >= np.abs(observed)).sum(axis=0)
        done += rows
        report(done)
    return pd.DataFrame({"n": sizes, "delta": observed / sizes,
                         "p_value": (1.0 + at_least) / (resamples + 1.0)})


def _bootstrap(a, b, table, options) -> np.ndarray:
    return paired_bootstrap(a, b, table["n"].to_numpy(), **options)["p_value"].to_numpy()


def _randomization(a, b, table, options) -> np.ndarray:
    return approximate_randomization(a, b, table["n"].to_numpy(), **options)["p_value"].to_numpy()


#: The p-values of every test of two n-best lists (the keys of ``names.PAIR_TESTS``), from the two rankings and the
#: table of their difference regions.
P_VALUES: dict[str, Callable[[Ranking, Ranking, pd.DataFrame, dict], np.ndarray]] = {
    **TABLE_P_VALUES, "bootstrap": _bootstrap, "randomization": _randomization}
