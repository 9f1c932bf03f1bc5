"""Comparing two rankings of the same candidates (Evert 2004, §3.3, Figure 3).

Two acceptance sets A and B can only differ in D1 = A \\ B and D2 = B \\ A. Fisher's
exact test on [[T_D1, F_D1], [T_D2, F_D2]] tests H0: pi_D1 = pi_D2.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from .errors import ParameterError
from .stats.fisher import check_alternative, fisher_exact
from .stats.intervals import check_confidence_level
from .stats.pairtests import _P_VALUES, check_test
from .stats.multitest import significant_up_to  # noqa: F401 - re-exported: it reads a corrected family of tests
from .nspec import check_sizes
from .ranking import Ranking, check_pair as _check_pair, ranking_labels  # noqa: F401 - (re-exported)

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
        "n": n, "tp_a": tp_a, "tp_b": tp_b, "overlap": overlap,
        "tp_d1": tp_d1, "fp_d1": (size_a - overlap) - tp_d1,
        "tp_d2": tp_d2, "fp_d2": (size_b - overlap) - tp_d2,
    })


def _with_fisher(regions: pd.DataFrame, confidence_level: float, alternative: str) -> pd.DataFrame:
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    cells = {name: regions[name].to_numpy() for name in regions.columns}
    result = fisher_exact(cells["tp_d1"], cells["fp_d1"], cells["tp_d2"], cells["fp_d2"], alternative)
    return pd.DataFrame({**cells, "p_value": result.pvalue, "log10_p": result.log10_pvalue,
                         "significant": result.pvalue < 1.0 - level})


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
        For "bootstrap" and "randomization" (see :func:`evalcore.stats.pairtests.paired_bootstrap` and
        :func:`evalcore.stats.pairtests.approximate_randomization`); ignored by the other tests.

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
        p = _P_VALUES[test](a, b, table, {"resamples": resamples, "seed": seed, "progress": progress})
        with np.errstate(divide="ignore"):
            table["log10_p"] = np.log10(p)
        table["p_value"] = p
        table["significant"] = p < 1.0 - level
    table["test"] = test
    return table
