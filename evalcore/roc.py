"""ROC, DET and precision-recall curves, AUC and average precision, with intervals and DeLong's test.

Every function here starts from one building block, :func:`_tie_groups`: the tie groups of a
:class:`~evalcore.ranking.Ranking` in ranking order (best first) with their TP and FP counts.
A curve has one point per tie group (at its end), because a threshold on the scores can
accept all of a tie group or none of it; so nothing here depends on the ranking's tie policy.

Conventions
-----------
* Rows run in ranking order: from the strictest threshold (nothing accepted) to the most
  lenient (everything accepted). scikit-learn returns the ROC curve in the same order and
  the precision-recall and DET curves reversed.
* ``threshold`` is the score of the tie group that a point adds: the accepted candidates are
  those at least as good as it (``>=`` when higher is better, ``<=`` when lower is better).
  The point that accepts nothing has threshold ``+inf`` when higher is better and ``-inf``
  when lower is better. For a lower-is-better ranking the curves equal scikit-learn's on the
  negated scores (and their thresholds are the negated thresholds).
* Candidates with a non-finite score (NaN, +-inf) rank last whatever the direction (see
  :func:`evalcore.ranking.rank_scores`), as one tie group: they enter together at the last
  point, which accepts everything, and whose threshold is NaN (no score separates them).
  This is what scikit-learn gives (it refuses non-finite scores) when they are replaced by
  one value worse than every finite score.
* T is the number of TPs, F the number of FPs. A rate that divides by zero is undefined,
  and so is the curve: the functions raise :class:`~evalcore.errors.ParameterError`.

References
----------
Evert, S. (2004). Significance tests for the evaluation of ranking methods. COLING 2004.
Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27, 861-874.
Keane, M. Evaluation (Text Analytics for Big Data, lecture 8, UCD): precision, recall, ROC,
DET (../shared/papers/lecture-evaluation-pr-roc-det.md).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd
from scipy import special

from .curves import _constant
from . import names
from .errors import ParameterError
from .text import shown
from .stats.intervals import check_confidence_level
from .ranking import Ranking

ROC_COLUMNS = ("measure", "threshold", "fpr", "tpr", "tp", "fp")
DET_COLUMNS = ("measure", "threshold", "fpr", "fnr", "fpr_probit", "fnr_probit")
PR_COLUMNS = ("measure", "threshold", "precision", "recall")
TABLE_COLUMNS = ("measure", "auc", "auc_low", "auc_high", "ap", "ap_low", "ap_high")

_BATCH_ELEMENTS = 2**20  # bootstrap: replicates per batch x max(T, F) stays below this (~40 MB a batch)
_WORKERS = min(os.cpu_count() or 1, 4)  # bootstrap batches run on threads (numpy releases the GIL)


# --------------------------------------------------------------------------- building block
@dataclass(frozen=True)
class _Groups:
    """Tie groups of a ranking, best first (G groups)."""

    end: np.ndarray  # (G,) list size n at the end of each group
    tp_end: np.ndarray  # (G,) cumulative TPs at the end of each group
    fp_end: np.ndarray  # (G,) cumulative FPs
    tp: np.ndarray  # (G,) TPs in the group
    fp: np.ndarray  # (G,) FPs in the group
    threshold: np.ndarray  # (G,) score of the group; NaN for the group of non-finite scores
    origin: float  # threshold that accepts nothing: +inf (higher is better) or -inf
    n_tp: int
    n_fp: int
    measure: str


def _tie_groups(ranking: Ranking) -> _Groups:
    """The tie groups of ``ranking`` with their counts. O(N)."""
    n = ranking.n_candidates
    end = np.flatnonzero(ranking.group_end == np.arange(1, n + 1)) + 1
    tp_end = ranking.tp[end]
    fp_end = end - tp_end
    threshold = ranking.sorted_scores[end - 1].astype(np.float64)
    if ranking.n_nonfinite:
        threshold[-1] = np.nan
    return _Groups(end=end, tp_end=tp_end, fp_end=fp_end, tp=np.diff(tp_end, prepend=0),
                   fp=np.diff(fp_end, prepend=0), threshold=threshold,
                   origin=np.inf if ranking.higher_is_better else -np.inf,
                   n_tp=ranking.n_tp, n_fp=n - ranking.n_tp, measure=ranking.measure)


_ANNOTATE = "Annotate candidates of both kinds (or choose a data set that has them)"


def _require(g: _Groups, what: str, min_tp: int = 1, min_fp: int = 1, why: str = "",
             param: str = "ranking", hint: str = _ANNOTATE) -> None:
    if g.n_tp < min_tp or g.n_fp < min_fp:
        need = " and ".join(f"at least {k} {kind}{'s' if k > 1 else ''}"
                            for k, kind in ((min_tp, "TP"), (min_fp, "FP")) if k > 0)
        raise ParameterError(
            f"{what} of `{param}` ({shown(g.measure)}) is undefined: it needs {need}; got {g.n_tp} TPs and {g.n_fp} FPs"
            f"{why}. {hint}.")


_WHY_RATES = " (the true-positive rate divides by the number of TPs, the false-positive rate by the number of FPs)"


# --------------------------------------------------------------------------- curves
def roc_curve(ranking: Ranking) -> pd.DataFrame:
    """The ROC curve of a ranking: one point per tie group plus the origin.

    Parameters
    ----------
    ranking : Ranking
        From :func:`evalcore.ranking.rank`; any tie policy gives the same curve.

    Returns
    -------
    DataFrame
        G + 1 rows for G tie groups, in ranking order (see the module's conventions), with
        columns ``measure`` (categorical), ``threshold`` (float; ``+inf``, or ``-inf`` for a
        lower-is-better ranking, at the origin; NaN at the group of non-finite scores),
        ``fpr``, ``tpr`` (float), ``tp``, ``fp`` (int, the counts accepted). The first row is
        (0, 0) and the last (1, 1); both rates never decrease.

    Raises
    ------
    ParameterError
        When the ranking has no TPs or no FPs (a rate would divide by zero).

    Notes
    -----
    At a threshold accepting the top ``n`` candidates, with ``tp(n)`` TPs among them
    (Evert 2004, §2), ``tpr = tp(n) / T`` (recall, sensitivity) and
    ``fpr = fp(n) / F = (n - tp(n)) / F`` (fall-out, 1 - specificity) (Fawcett 2006; Keane,
    lecture 8). The same points as ``sklearn.metrics.roc_curve(labels, scores,
    drop_intermediate=False)``, on the negated scores when lower is better.

    References
    ----------
    Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27, 861-874.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> r = rank_scores(np.array([True, False, True, False]), np.array([4.0, 3.0, 3.0, 1.0]))
    >>> roc_curve(r)[["fpr", "tpr"]].to_numpy().tolist()
    [[0.0, 0.0], [0.0, 0.5], [0.5, 1.0], [1.0, 1.0]]
    """
    g = _tie_groups(ranking)
    _require(g, "The ROC curve", why=_WHY_RATES)
    tp = np.r_[0, g.tp_end]
    fp = np.r_[0, g.fp_end]
    return pd.DataFrame({
        "measure": _constant(g.measure, tp.size), "threshold": np.r_[g.origin, g.threshold],
        "fpr": fp / g.n_fp, "tpr": tp / g.n_tp, "tp": tp, "fp": fp,
    })


def det_curve(ranking: Ranking) -> pd.DataFrame:
    """The detection error trade-off (DET) curve: false-positive rate against miss rate.

    Parameters
    ----------
    ranking : Ranking

    Returns
    -------
    DataFrame
        Columns ``measure, threshold, fpr, fnr, fpr_probit, fnr_probit``, in ranking order
        (``fpr`` rising, ``fnr`` falling; scikit-learn returns the reverse). The points of
        :func:`roc_curve` from the last one with ``fpr = 0`` to the first with ``fnr = 0``
        (the others would lie at minus infinity on a probit axis), as
        ``sklearn.metrics.det_curve``. ``fpr_probit`` and ``fnr_probit`` are the normal
        deviates ``Phi^-1(rate)`` that the figure draws on linear axes; they are ``-inf``
        where the rate is 0 (always the first ``fpr`` and the last ``fnr``) and ``+inf``
        where it is 1.

    Raises
    ------
    ParameterError
        When the ranking has no TPs or no FPs.

    Notes
    -----
    ``fnr = 1 - tpr = (T - tp(n)) / T``. A DET plot shows both error rates on normal-deviate
    scales, which spreads out the region of small error rates and turns the curves of two
    normal score distributions into straight lines (Martin et al. 1997).

    References
    ----------
    Martin, A., Doddington, G., Kamm, T., Ordowski, M. & Przybocki, M. (1997). The DET curve
    in assessment of detection task performance. Proc. Eurospeech '97, 1895-1898.
    """
    g = _tie_groups(ranking)
    _require(g, "The DET curve", why=_WHY_RATES)
    tp = np.r_[0, g.tp_end]
    fp = np.r_[0, g.fp_end]
    first = int(np.searchsorted(fp, 0, side="right")) - 1  # last point with fp = 0
    last = int(np.searchsorted(tp, g.n_tp, side="left")) + 1  # through the first with tp = T
    tp, fp = tp[first:last], fp[first:last]
    fpr = fp / g.n_fp
    fnr = (g.n_tp - tp) / g.n_tp
    return pd.DataFrame({
        "measure": _constant(g.measure, tp.size), "threshold": np.r_[g.origin, g.threshold][first:last],
        "fpr": fpr, "fnr": fnr, "fpr_probit": special.ndtri(fpr), "fnr_probit": special.ndtri(fnr),
    })


def pr_curve(ranking: Ranking) -> pd.DataFrame:
    """The precision-recall curve: one point per tie group, after the point (recall 0, precision 1).

    Parameters
    ----------
    ranking : Ranking

    Returns
    -------
    DataFrame
        G + 1 rows, columns ``measure, threshold, precision, recall``, in ranking order
        (recall never decreases; scikit-learn returns the reverse). The first row is
        scikit-learn's end point ``precision = 1, recall = 0`` with the threshold that
        accepts nothing (``+inf``, ``-inf`` when lower is better); it is a convention (the
        precision of an empty list is undefined) that makes the curve start at the top left.

    Raises
    ------
    ParameterError
        When the ranking has no TPs (recall divides by T). Without FPs the curve is defined
        (precision 1 throughout).

    Notes
    -----
    At the end of each tie group, ``precision = tp(n) / n`` and ``recall = tp(n) / T``
    (Evert 2004, §2; Keane, lecture 8). The same points as
    ``sklearn.metrics.precision_recall_curve(labels, scores)`` reversed (its thresholds lack
    the end point). Unlike :func:`evalcore.curves.precision_curve`, no point falls inside a
    tie group, so the curve does not depend on the tie policy.
    """
    g = _tie_groups(ranking)
    _require(g, "The precision-recall curve", min_fp=0, why=" (recall divides by the number of TPs)")
    return pd.DataFrame({
        "measure": _constant(g.measure, g.end.size + 1), "threshold": np.r_[g.origin, g.threshold],
        "precision": np.r_[1.0, g.tp_end / g.end], "recall": np.r_[0.0, g.tp_end / g.n_tp],
    })


# --------------------------------------------------------------------------- areas
def _auc(g: _Groups) -> float:
    # 2U = sum over tie groups of fp_g * (TPs strictly before + TPs up to the group's end), exact in int64
    two_u = int(np.dot(g.fp, g.tp_end - g.tp + g.tp_end))
    return two_u / (2.0 * g.n_tp * g.n_fp)


def _average_precision(g: _Groups) -> float:
    return float(np.dot(g.tp, g.tp_end / g.end)) / g.n_tp


def auc(ranking: Ranking) -> float:
    """Area under the ROC curve.

    Parameters
    ----------
    ranking : Ranking

    Returns
    -------
    float
        In [0, 1]; 0.5 for a ranking no better than chance, 1 when every TP comes before
        every FP. Equal to ``sklearn.metrics.roc_auc_score`` (to rounding).

    Raises
    ------
    ParameterError
        When the ranking has no TPs or no FPs: the AUC is a fraction of the T x F pairs of a
        TP and an FP, and there are none.

    Notes
    -----
    The trapezoid rule over :func:`roc_curve` equals the Mann-Whitney statistic
    (Bamber 1975; Hanley & McNeil 1982)

    .. math:: A = \\frac{1}{T F} \\sum_{i \\in TP} \\sum_{j \\in FP} \\psi(x_i, y_j),
              \\quad \\psi = 1 \\text{ if } x_i \\text{ is better than } y_j,
              \\ \\tfrac12 \\text{ if they tie}, \\ 0 \\text{ otherwise},

    the probability that a random TP ranks above a random FP, ties counting one half. By tie
    groups g (best first), ``2 T F A = sum_g fp_g (2 TP_<g + tp_g)``, which is summed exactly
    in integers. O(N).

    References
    ----------
    Bamber, D. (1975). Journal of Mathematical Psychology 12, 387-415.
    Hanley, J. A. & McNeil, B. J. (1982). Radiology 143, 29-36.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> auc(rank_scores(np.array([True, False, True, False]), np.array([4.0, 3.0, 3.0, 1.0])))
    0.875
    """
    g = _tie_groups(ranking)
    _require(g, "The AUC", why=" (it is a fraction of the TP-FP pairs)")
    return _auc(g)


def average_precision(ranking: Ranking) -> float:
    """Average precision: the step-wise area under the precision-recall curve.

    Parameters
    ----------
    ranking : Ranking

    Returns
    -------
    float
        In (0, 1]; equal to ``sklearn.metrics.average_precision_score`` (to rounding). Its
        expectation for a random ranking is close to the baseline T / N.

    Raises
    ------
    ParameterError
        When the ranking has no TPs.

    Notes
    -----
    Over the tie-group ends k of :func:`pr_curve` (with ``R_0 = 0``)

    .. math:: AP = \\sum_k (R_k - R_{k-1}) P_k = \\frac{1}{T} \\sum_g tp_g \\frac{tp(n_g)}{n_g},

    the mean, over the TPs, of the precision of the list that ends with the TP's tie group
    (Manning, Raghavan & Schütze 2008, §8.4, without interpolation). Without ties it is the
    mean of the precision at the rank of each TP.

    References
    ----------
    Manning, C. D., Raghavan, P. & Schütze, H. (2008). Introduction to Information Retrieval. CUP.
    """
    g = _tie_groups(ranking)
    _require(g, "The average precision", min_fp=0, why=" (recall divides by the number of TPs)")
    return _average_precision(g)


# --------------------------------------------------------------------------- intervals
@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval.

    Attributes
    ----------
    estimate : float
        The statistic on the data (not the bootstrap median).
    low, high : float
        Bounds, within [0, 1].
    method : str
        "delong" or "bootstrap".
    confidence_level : float
    """

    estimate: float
    low: float
    high: float
    method: str
    confidence_level: float


def _placements(g: _Groups) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placement values per tie group: V10 of the group's TPs, V01 of its FPs."""
    v10 = (2 * (g.n_fp - g.fp_end) + g.fp) / (2.0 * g.n_fp)  # FPs after the group + half the group's
    v01 = (2 * (g.tp_end - g.tp) + g.tp) / (2.0 * g.n_tp)  # TPs before the group + half the group's
    return v10, v01


def _delong_variance(g: _Groups, a: float) -> float:
    v10, v01 = _placements(g)
    s10 = float(np.dot(g.tp, (v10 - a) ** 2)) / (g.n_tp - 1)
    s01 = float(np.dot(g.fp, (v01 - a) ** 2)) / (g.n_fp - 1)
    return s10 / g.n_tp + s01 / g.n_fp


_WHY_DELONG = " (DeLong's variance divides by T - 1 and F - 1)"
_HINT_DELONG = "Annotate more candidates, or use method=\"bootstrap\""


def _auc_delong(g: _Groups, level: float, resamples: int, seed: int) -> tuple[float, float]:
    _require(g, "DeLong's interval for the AUC", 2, 2, _WHY_DELONG, hint=_HINT_DELONG)
    a = _auc(g)
    half = special.ndtri(0.5 + level / 2) * np.sqrt(_delong_variance(g, a))
    return float(max(0.0, a - half)), float(min(1.0, a + half))


def _check_resampling(resamples: int, seed: int) -> None:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"`resamples` must be a whole number >= 1 (2000 is usual); got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"`seed` must be a non-negative whole number; got {seed!r}")


def _resampled_counts(n_items: int, rng: np.random.Generator, b: int) -> np.ndarray:
    """Per replicate, how often each of ``n_items`` items is drawn in ``n_items`` draws with replacement."""
    if n_items == 0:
        return np.zeros((b, 0), dtype=np.int64)
    draws = rng.integers(0, n_items, size=(b, n_items))
    draws += (np.arange(b, dtype=np.int64) * n_items)[:, None]
    return np.bincount(draws.ravel(), minlength=b * n_items).reshape(b, n_items)


def _bootstrap_batch(g: _Groups, child: np.random.SeedSequence, b: int) -> tuple[np.ndarray, np.ndarray]:
    """AUC and AP of ``b`` stratified bootstrap replicates, from their own generator.

    Works on the TPs and FPs in ranking order (not on the tie groups): each replicate
    counts how often each TP (``w``) and each FP (``u``) is drawn; a drawn candidate keeps
    its score, so it stays in its tie group. For the TP i in tie group g, ``U_end`` and
    ``U_before`` are the FPs drawn up to the end and before the start of g, and ``W_end``
    the TPs drawn up to the end of g.
    """
    rng = np.random.default_rng(child)
    group_of_tp = np.repeat(np.arange(g.end.size), g.tp)
    fp_end = g.fp_end[group_of_tp]
    fp_before = fp_end - g.fp[group_of_tp]
    tp_last = g.tp_end[group_of_tp] - 1
    w = _resampled_counts(g.n_tp, rng, b)
    u = _resampled_counts(g.n_fp, rng, b)
    u_cum = np.zeros((b, g.n_fp + 1), dtype=np.int64)
    np.cumsum(u, axis=1, out=u_cum[:, 1:])
    u_end, u_before = u_cum[:, fp_end], u_cum[:, fp_before]
    # AUC* = sum_i w_i (2 U_after + u_g) / (2 T F), U_after = F - U_end, u_g = U_end - U_before
    aucs = (np.einsum("ij,ij->i", w, 2 * g.n_fp - u_end - u_before) / (2.0 * g.n_tp * g.n_fp)
            if g.n_fp else np.full(b, np.nan))
    w_end = np.cumsum(w, axis=1)[:, tp_last]
    n_end = w_end + u_end
    precision = np.divide(w_end, n_end, out=np.zeros(n_end.shape), where=n_end > 0)
    return aucs, np.einsum("ij,ij->i", w, precision) / g.n_tp


def _bootstrap_statistics(g: _Groups, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """AUC and AP of every stratified bootstrap replicate (NaN AUCs when F = 0).

    Each replicate draws T of the TPs and F of the FPs with replacement (pROC's
    ``stratified=TRUE``). The replicates come in batches of at most ``_BATCH_ELEMENTS``
    draws per class; each batch has its own generator spawned from ``seed``, so the result
    does not depend on how many threads run the batches.
    """
    per_batch = max(1, _BATCH_ELEMENTS // max(g.n_tp, g.n_fp, 1))
    sizes = [min(per_batch, resamples - s) for s in range(0, resamples, per_batch)]
    children = np.random.SeedSequence(seed).spawn(len(sizes))
    workers = min(len(sizes), _WORKERS)
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(lambda k: _bootstrap_batch(g, children[k], sizes[k]), range(len(sizes))))
    else:
        results = [_bootstrap_batch(g, child, b) for child, b in zip(children, sizes)]
    return np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])


def _percentile(values: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(values, [0.5 - level / 2, 0.5 + level / 2])  # linear: R's type 7, as pROC
    return float(low), float(high)


def _auc_bootstrap(g: _Groups, level: float, resamples: int, seed: int) -> tuple[float, float]:
    _require(g, "A bootstrap interval for the AUC")
    return _percentile(_bootstrap_statistics(g, resamples, seed)[0], level)


AUC_INTERVAL_METHODS: dict[str, Callable[[_Groups, float, int, int], tuple[float, float]]] = {
    "delong": _auc_delong,
    "bootstrap": _auc_bootstrap,
}

AUC_INTERVAL_LABELS = names.AUC_INTERVAL_LABELS


def _check_method(method: str) -> None:
    if method not in AUC_INTERVAL_METHODS:
        raise ParameterError(f"`method` must be one of {', '.join(AUC_INTERVAL_METHODS)}; got {method!r}")


def auc_interval(ranking: Ranking, confidence_level: float = 0.95, method: str = "delong", *,
                 resamples: int = 2000, seed: int = 0) -> Interval:
    """Confidence interval for the AUC.

    Parameters
    ----------
    ranking : Ranking
    confidence_level : float
        In (0, 1).
    method : {"delong", "bootstrap"}
        "delong" (default): DeLong's variance and a normal interval, clipped to [0, 1], as
        pROC's ``ci.auc(method = "delong")``. O(N) after the ranking's sort.
        "bootstrap": percentile interval over ``resamples`` stratified resamples.
    resamples : int
        Bootstrap replicates (ignored by "delong").
    seed : int
        Seed of the bootstrap; the same seed gives the same interval.

    Returns
    -------
    Interval
        ``estimate`` is :func:`auc`.

    Raises
    ------
    ParameterError
        For a bad ``confidence_level``, ``method``, ``resamples`` or ``seed``; for fewer than
        2 TPs or 2 FPs ("delong") or no TP or no FP ("bootstrap").

    Notes
    -----
    DeLong, DeLong & Clarke-Pearson (1988): with the placement values
    ``V10(x_i) = (1/F) sum_j psi(x_i, y_j)`` of the TPs and ``V01(y_j) = (1/T) sum_i
    psi(x_i, y_j)`` of the FPs (``psi`` as in :func:`auc`),

    .. math:: S_{10} = \\frac{\\sum_i (V_{10}(x_i) - A)^2}{T - 1}, \\quad
              S_{01} = \\frac{\\sum_j (V_{01}(y_j) - A)^2}{F - 1}, \\quad
              \\widehat{\\mathrm{Var}}(A) = \\frac{S_{10}}{T} + \\frac{S_{01}}{F},

    and the interval is ``A -+ z_{1 - alpha/2} sqrt(Var)`` clipped to [0, 1]. The placement
    values come from the tie groups as in the fast algorithm of Sun & Xu (2014), which
    derives them from midranks: for a TP in group g, ``V10 = (FP_>g + fp_g / 2) / F``; for an
    FP, ``V01 = (TP_<g + tp_g / 2) / T``. So the cost is the ranking's O(N log N) sort plus O(N).

    The bootstrap draws T TPs and F FPs with replacement (stratified, as pROC's default) and
    takes the ``(1 -+ level) / 2`` quantiles (linear interpolation, R's type 7) of the
    replicates' AUCs (Efron & Tibshirani 1993, §13.3). Cost: O(resamples x N) time (each
    replicate draws N candidates and counts them), in batches of at most 2**20 draws per
    class (about 40 MB of memory each) on up to 4 threads. At N = 1,000,000 that is about
    10 ms per resample on two cores, so 20 s for 2000 resamples; at N = 5,102 (Krenn's
    data) 2000 resamples take about 0.05 s.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    Biometrics 44, 837-845.
    Sun, X. & Xu, W. (2014). Fast implementation of DeLong's algorithm for comparing the areas
    under correlated receiver operating characteristic curves. IEEE Signal Processing Letters
    21, 1389-1393.
    Robin, X. et al. (2011). pROC: an open-source package for R and S+ to analyze and compare
    ROC curves. BMC Bioinformatics 12, 77.
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    """
    level = check_confidence_level(confidence_level)
    _check_method(method)
    _check_resampling(resamples, seed)
    g = _tie_groups(ranking)
    _require(g, "The AUC", why=" (it is a fraction of the TP-FP pairs)")
    low, high = AUC_INTERVAL_METHODS[method](g, level, int(resamples), int(seed))
    return Interval(estimate=_auc(g), low=low, high=high, method=method, confidence_level=level)


def ap_interval(ranking: Ranking, confidence_level: float = 0.95, *, resamples: int = 2000,
                seed: int = 0) -> Interval:
    """Bootstrap percentile interval for the average precision.

    Parameters
    ----------
    ranking : Ranking
    confidence_level : float
        In (0, 1).
    resamples : int
        Bootstrap replicates.
    seed : int
        The same seed gives the same interval (and the same resamples as
        :func:`auc_interval` with ``method="bootstrap"``).

    Returns
    -------
    Interval
        ``estimate`` is :func:`average_precision`, ``method`` "bootstrap".

    Raises
    ------
    ParameterError
        For a bad parameter, or a ranking without TPs.

    Notes
    -----
    Each replicate draws T TPs and F FPs with replacement (stratified, so every replicate
    has the data's baseline T / N) and computes
    ``AP* = (1/T) sum_g w_g W_g / (W_g + U_g)`` from the counts ``w_g`` of TPs drawn from
    tie group g and the cumulative counts ``W_g``, ``U_g`` of TPs and FPs drawn up to its
    end. The interval is the ``(1 -+ level) / 2`` quantiles of the replicates (linear
    interpolation) (Efron & Tibshirani 1993, §13.3). No closed-form variance is used: AP is
    a ratio statistic whose distribution is skewed near 0 and 1. Cost as the bootstrap of
    :func:`auc_interval`: O(resamples x N) time, memory bounded by the batches.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap. Chapman & Hall.
    """
    level = check_confidence_level(confidence_level)
    _check_resampling(resamples, seed)
    g = _tie_groups(ranking)
    _require(g, "The average precision", min_fp=0, why=" (recall divides by the number of TPs)")
    low, high = _percentile(_bootstrap_statistics(g, int(resamples), int(seed))[1], level)
    return Interval(estimate=_average_precision(g), low=low, high=high, method="bootstrap", confidence_level=level)


# --------------------------------------------------------------------------- DeLong's test
class DelongResult(NamedTuple):
    """DeLong's test; unpacks as ``(statistic, pvalue)``."""

    statistic: float
    pvalue: float


def _candidate_labels(ranking: Ranking) -> np.ndarray:
    labels = np.empty(ranking.n_candidates, dtype=bool)
    labels[ranking.order] = np.diff(ranking.tp) > 0
    return labels


def _candidate_placements(ranking: Ranking, g: _Groups) -> np.ndarray:
    """Per candidate (file order): V10 for a TP, V01 for an FP."""
    v10, v01 = _placements(g)
    group_of = np.repeat(np.arange(g.end.size), np.diff(g.end, prepend=0))
    is_tp = np.diff(ranking.tp) > 0
    out = np.empty(ranking.n_candidates)
    out[ranking.order] = np.where(is_tp, v10[group_of], v01[group_of])
    return out


def delong_test(a: Ranking, b: Ranking) -> DelongResult:
    """DeLong's test for the difference of two correlated AUCs on the same candidates.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set (same candidates in the same file order,
        same labels), e.g. by two measures.

    Returns
    -------
    DelongResult
        ``(statistic, pvalue)``: z for ``AUC(a) - AUC(b)`` and the two-sided p-value
        ``2 Phi(-|z|)``, as pROC's ``roc.test(method = "delong", paired = TRUE)``. When the
        variance of the difference is 0, z is 0 and p = 1 if the AUCs are equal (e.g. two
        perfect rankings, or the same ranking twice), and z = +-inf, p = 0 otherwise.

    Raises
    ------
    ParameterError
        When the two rankings are not of the same candidates and labels, or when there are
        fewer than 2 TPs or 2 FPs.

    Notes
    -----
    With the placement values of :func:`auc_interval` for both rankings (a TP's ``V10``
    and an FP's ``V01`` under ``a`` and under ``b``), DeLong et al. (1988) estimate the
    covariance matrix of ``(A_a, A_b)`` as ``S = S10 / T + S01 / F`` with
    ``S10[r, s] = sum_i (V10_r(x_i) - A_r)(V10_s(x_i) - A_s) / (T - 1)`` (likewise ``S01``
    over the FPs with F - 1), and

    .. math:: z = \\frac{A_a - A_b}{\\sqrt{S_{aa} + S_{bb} - 2 S_{ab}}}.

    Cost O(N) beyond the two rankings' sorts (Sun & Xu 2014).

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Biometrics 44, 837-845.
    Sun, X. & Xu, W. (2014). IEEE Signal Processing Letters 21, 1389-1393.
    Robin, X. et al. (2011). BMC Bioinformatics 12, 77 (pROC's ``roc.test``).
    """
    if a.n_candidates != b.n_candidates or not np.array_equal(_candidate_labels(a), _candidate_labels(b)):
        raise ParameterError(
            f"`a` ({shown(a.measure)}, {a.n_candidates} candidates, {a.n_tp} TPs) and `b` ({shown(b.measure)}, "
            f"{b.n_candidates} candidates, {b.n_tp} TPs) must rank the same candidates with the same labels; "
            "rank both from one candidate set")
    ga, gb = _tie_groups(a), _tie_groups(b)
    _require(ga, "DeLong's test", 2, 2, _WHY_DELONG, param="a", hint="Annotate more candidates")
    auc_a, auc_b = _auc(ga), _auc(gb)
    va, vb = _candidate_placements(a, ga), _candidate_placements(b, gb)
    labels = _candidate_labels(a)
    diff = (va - auc_a) - (vb - auc_b)
    d10, d01 = diff[labels], diff[~labels]
    variance = float(d10 @ d10) / ((ga.n_tp - 1) * ga.n_tp) + float(d01 @ d01) / ((ga.n_fp - 1) * ga.n_fp)
    d = auc_a - auc_b
    if variance == 0.0:
        return DelongResult(0.0, 1.0) if d == 0.0 else DelongResult(float(np.copysign(np.inf, d)), 0.0)
    z = d / np.sqrt(variance)
    return DelongResult(float(z), float(special.erfc(abs(z) / np.sqrt(2.0))))


# --------------------------------------------------------------------------- table
def roc_table(rankings: dict[str, Ranking], confidence_level: float = 0.95, method: str = "delong",
              resamples: int = 2000, seed: int = 0) -> pd.DataFrame:
    """AUC and average precision with confidence intervals, one row per ranking.

    Parameters
    ----------
    rankings : dict of str to Ranking
        Rows in the dict's order, named by its keys.
    confidence_level : float
    method : {"delong", "bootstrap"}
        Interval for the AUC, see :func:`auc_interval`. The AP interval is always the
        bootstrap of :func:`ap_interval`.
    resamples, seed : int
        Of the bootstrap; every ranking uses the same ``seed``, so each row equals what
        :func:`auc_interval` and :func:`ap_interval` give on their own.

    Returns
    -------
    DataFrame
        Columns ``measure, auc, auc_low, auc_high, ap, ap_low, ap_high``.

    Raises
    ------
    ParameterError
        As :func:`auc_interval` and :func:`ap_interval`; the message names the ranking.

    Notes
    -----
    One set of resamples per ranking serves both bootstrap intervals. Cost per ranking:
    the AP bootstrap, O(resamples x N) (see :func:`auc_interval`); DeLong adds O(N).
    """
    level = check_confidence_level(confidence_level)
    _check_method(method)
    _check_resampling(resamples, seed)
    if not rankings:
        raise ParameterError("`rankings` is empty; pass a dict of at least one name -> Ranking")
    rows = []
    for name, ranking in rankings.items():
        g = _tie_groups(ranking)
        param = f"rankings[{shown(name)}]"
        _require(g, "The AUC", why=" (it is a fraction of the TP-FP pairs)", param=param)
        if method == "delong":
            _require(g, "DeLong's interval for the AUC", 2, 2, _WHY_DELONG, param=param, hint=_HINT_DELONG)
        auc_boot, ap_boot = _bootstrap_statistics(g, int(resamples), int(seed))
        if method == "bootstrap":
            auc_low, auc_high = _percentile(auc_boot, level)
        else:
            auc_low, auc_high = AUC_INTERVAL_METHODS[method](g, level, int(resamples), int(seed))
        ap_low, ap_high = _percentile(ap_boot, level)
        rows.append((name, _auc(g), auc_low, auc_high, _average_precision(g), ap_low, ap_high))
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))


CURVE_FUNCTIONS = {"roc": roc_curve, "det": det_curve, "pr": pr_curve}


def curves_table(rankings: dict[str, Ranking], kind: str) -> pd.DataFrame:
    """The ROC, DET or precision-recall curves of several rankings, stacked (one ``measure`` each)."""
    if kind not in CURVE_FUNCTIONS:
        raise ParameterError(f"`kind` must be one of {', '.join(CURVE_FUNCTIONS)}; got {kind!r}")
    return pd.concat([CURVE_FUNCTIONS[kind](r) for r in rankings.values()], ignore_index=True)
