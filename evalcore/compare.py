"""Comparing two rankings of the same candidates (Evert 2004, §3.3, Figure 3).

Two acceptance sets A and B can only differ in D1 = A \\ B and D2 = B \\ A. Fisher's
exact test on [[T_D1, F_D1], [T_D2, F_D2]] tests H0: pi_D1 = pi_D2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import ParameterError
from .stats.fisher import check_alternative, fisher_exact
from .stats.intervals import check_confidence_level
from .stats.multitest import significant_up_to  # noqa: F401 - re-exported: it reads a corrected family of tests
from .nspec import check_sizes
from .ranking import Ranking

COMPARE_COLUMNS = ("n", "tp_a", "tp_b", "tp_d1", "fp_d1", "tp_d2", "fp_d2", "p_value", "log10_p", "significant")


def ranking_labels(ranking: Ranking) -> np.ndarray:
    """The TP labels of the candidates, in candidate order, recovered from a ranking."""
    labels = np.empty(ranking.n_candidates, dtype=bool)
    labels[ranking.order] = np.diff(ranking.tp) > 0
    return labels


def _counted(a, b) -> bool:
    """True for count tables of an engine (:class:`evalcore.engines.RankCounts`): no single candidates in them."""
    return hasattr(a, "pair") or hasattr(b, "pair")


def _check_pair(a: Ranking, b: Ranking) -> np.ndarray | None:
    partial = [r.measure for r in (a, b) if r.partly_annotated]
    if partial:  # unannotated candidates would count as FPs here
        raise ParameterError(f"the candidate set of {', '.join(map(repr, partial))} is only partly annotated: compare "
                             "the measures on the annotated sample (evalcore.estimates.compare_estimates)")
    if _counted(a, b):  # count tables: the labels are not held, their totals must agree
        if a.n_candidates != b.n_candidates or a.n_tp != b.n_tp or not hasattr(a, "pair"):
            raise ParameterError(f"rankings {a.measure!r} and {b.measure!r} are not of the same candidate set")
        return None
    labels = ranking_labels(a)
    if a.n_candidates != b.n_candidates or not np.array_equal(labels, ranking_labels(b)):
        raise ParameterError(f"rankings {a.measure!r} and {b.measure!r} are not of the same candidate set")
    return labels


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
