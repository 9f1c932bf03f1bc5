"""Estimates from a stratified design: precision, recall and the comparison of two measures, band by band.

An n-best list L cuts each band h into a *cell*: its ``N_c`` candidates in L (known: the ranks are known), of
which ``m_c`` are annotated with ``k_c`` TPs. Given m_c, the annotated ones are a simple random sample of the cell
(the band's sample is one of the band), so the list's TPs are estimated cell by cell with the within-cell ratio,
the stratified domain estimator with known domain sizes (Cochran 1977; Särndal, Swensson & Wretman 1992)::

    T = sum_c N_c k_c / m_c,          precision = T / n.

Where a band is annotated whole, its cells are known exactly (``m_c = N_c``); where a list is wholly made of such
cells the estimate is the full annotation's. A cell with no annotated candidate (a list that cuts a band thinly) is
estimated by its band's ratio ``N_c k_h / m_h`` (the row's regime says so); a band with no annotated candidate
leaves the lists that reach it unestimated.

Intervals
---------
* **Precision.** The stratified variance of the estimate, Cochran's unbiased estimator with the finite population
  correction of every cell, ``v = sum_c (N_c / n)^2 (N_c - m_c) / (N_c (m_c - 1)) p_c (1 - p_c)``, turned into
  Kish's (1965) *effective sample size* ``n* = p (1 - p) / v``, and the Clopper-Pearson interval at ``n*`` with
  ``p n*`` successes: Korn & Graubard's (1998) interval for proportions from complex samples (R's
  ``survey::svyciprop(method = "beta")``). The cells' rates ``p_c`` in the variance are shrunk towards their band's
  rate (``(k_c + 2 p_h) / (m_c + 2)``, the band's towards the overall rate the same way), so that a small cell
  with no TP (or no FP) does not claim zero variance: the effective sample size from a model rather than from
  each cell's raw counts, as Franco, Little, Louis & Slud (2019) recommend for stratified designs with small
  counts. Where a list has one partly annotated cell and its other cells are annotated whole (a list inside the
  first band, or inside a band sampled whole and the next), the interval is that cell's exact one (hypergeometric
  or Clopper-Pearson, as chosen) plus the known TPs, as for the pool + sample design. The interval was chosen by
  its coverage in simulation (``bench/bench_strata.py``): Wilson's and Jeffreys' intervals at the same effective
  size fell to 94.3% at some lists of Krenn's data, Korn & Graubard's stayed at or above 95%.
* **Recall.** ``T_L / (T_L + T_O)`` from the intervals of the list's TPs and of the other candidates' TPs (each as
  above, independent: disjoint cells), combined by Newcombe's (2016) MOVER-R for a ratio of two independent
  estimates.
* **Two measures.** The difference regions D1 = A \\ B and D2 = B \\ A are cut into cells the same way; each region's
  TP rate is estimated as above, and its variance under the paper's binomial model (the labels of a region
  Bernoulli with its rate; no finite population correction: the test asks about the measures, not about this set)
  ``sum_c (N_c / d)^2 p_c (1 - p_c) / (m_c - 1)`` (``/ N_c`` for a cell annotated whole) gives the region's
  effective counts ``n*_i``, ``p_i n*_i`` TPs; with ``m_c`` in place of ``m_c - 1`` the test rejected 6.1% of two
  exchangeable measures at alpha = 0.05 on the generated set of ``bench/bench_strata.py``. The
  test is the two-sample score test (Pearson's chi-square without continuity correction) on the effective counts:
  Rao & Scott's (1992) adjustment of the chi-square test by each group's design effect. Fisher's test on the raw
  annotated counts would be wrong here: D1 and D2 draw from bands sampled at different rates. The interval of the
  difference is the chosen one (Newcombe's hybrid score interval, or Agresti-Caffo) on the effective counts,
  widened where needed to the MOVER of the two regions' own intervals (as for precision, in whole TPs), so that it
  also covers this candidate set's difference where a region holds a few unannotated candidates (a region of one
  candidate is 0 or 1, not a rate). Where D1 and D2 are annotated whole, the effective counts are the full counts:
  the test is Pearson's chi-square test on the full data, the interval the full data's.

References
----------
Cochran, W. G. (1977). Sampling Techniques, 3rd ed. Wiley.
Kish, L. (1965). Survey Sampling. Wiley.
Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small expected number of positive
counts estimated from survey data. Survey Methodology 24(2), 193-201.
Franco, C., Little, R. J. A., Louis, T. A. & Slud, E. V. (2019). Comparative study of confidence intervals for
proportions in complex sample surveys. Journal of Survey Statistics and Methodology 7(3), 334-364.
Newcombe, R. G. (1998). Interval estimation for the difference between independent proportions: comparison of
eleven methods. Statistics in Medicine 17(8), 873-890.
Newcombe, R. G. (2016). MOVER-R confidence intervals for ratios and products of two independently estimated
quantities. Statistical Methods in Medical Research 25(5), 1774-1778.
Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of clustered binary data. Biometrics 48(2),
577-585.
Särndal, C.-E., Swensson, B. & Wretman, J. (1992). Model Assisted Survey Sampling. Springer.
Zou, G. Y. & Donner, A. (2008). Construction of confidence limits about effect measures: a general approach.
Statistics in Medicine 27(10), 1693-1702.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from ..errors import ParameterError
from ..estimates import (ESTIMATE_COLUMNS, MIN_ANNOTATED, BaselineEstimate, _annotated_pair_ranks,
                         check_min_annotated, sample_interval)
from ..curves import _constant
from ..nspec import check_sizes
from ..ranking import Ranking
from ..stats.fisher import check_alternative
from ..stats.intervals import check_confidence_level
from .estimators import DIFFERENCE_METHODS, _region_counts

PRIOR_WEIGHT = 2.0  # a cell's rate in the variance is shrunk towards its band's with this weight (and the band's
# towards the overall rate)
REGIMES = {
    "exact": "every candidate of the list is annotated (its bands annotated whole there): exact",
    "estimated": "estimated band by band from the annotated candidates of each band's part of the list",
    "band ratio": "a band's part of the list holds no annotated candidate: that part estimated by the band's ratio",
    "uncovered": "the list reaches a band with no annotated candidate: not estimated",
}
STRATIFIED_COLUMNS = ESTIMATE_COLUMNS + ("effective", "regime")
STRATIFIED_COMPARE_COLUMNS = ("n", "size_d", "m_d1", "k_d1", "m_d2", "k_d2", "annotated", "estimate_d1",
                              "estimate_d2", "statistic", "p_value", "log10_p", "significant", "in_frame", "enough",
                              "effective_d1", "effective_tp_d1", "effective_d2", "effective_tp_d2", "lower_d1",
                              "upper_d1", "lower_d2", "upper_d2", "regime")
SMALL_REGION = 10  # regions smaller than this: the difference's own part is the span of the regions' intervals
TEST_NAME = "the score test on effective counts (Rao & Scott 1992)"
INTERVAL_NAME = "Clopper-Pearson at the effective sample size (Korn & Graubard 1998)"


# ------------------------------------------------------------------------------------------- cells
@dataclass(frozen=True)
class CellTotals:
    """A set of candidates (a list, its complement, a difference region) estimated from its cells.

    Every array has the shape of the cells' leading axes (the cells are the last axis).

    Attributes
    ----------
    size : ndarray of int
        The set's candidates n = sum N_c.
    annotated, tps : ndarray of int
        Its annotated candidates and their TPs (sum m_c, sum k_c).
    total : ndarray of float
        The estimated TPs (NaN where uncovered).
    variance : ndarray of float
        The variance of ``total / size`` (finite population, or the binomial model's: see the module's notes).
    effective : ndarray of float
        Kish's effective sample size (inf where every candidate is known, for the finite population).
    regime : ndarray of int8
        Codes into :data:`REGIMES`.
    single : ndarray of bool
        One cell partly annotated, every other cell annotated whole.
    """

    size: np.ndarray
    annotated: np.ndarray
    tps: np.ndarray
    total: np.ndarray
    variance: np.ndarray
    effective: np.ndarray
    regime: np.ndarray
    single: np.ndarray

    @property
    def estimate(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.size > 0, self.total / np.maximum(self.size, 1), np.nan)


def _smoothed_band_rates(Nh, mh, kh, weight: float) -> np.ndarray:
    """The bands' rates shrunk towards the design-weighted overall rate (weight pseudo-candidates)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(mh > 0, kh / np.maximum(mh, 1), 0.0)
        covered = np.where(mh > 0, Nh, 0)
        overall = (covered * rate).sum(-1, keepdims=True) / np.maximum(covered.sum(-1, keepdims=True), 1)
        return (kh + weight * overall) / (mh + weight)


def cell_totals(Nc, mc, kc, Nh, mh, kh, *, finite: bool = True, prior_weight: float = PRIOR_WEIGHT) -> CellTotals:
    """A set's TPs estimated from its cells, with the variance of its proportion and its effective size.

    Parameters
    ----------
    Nc, mc, kc : array_like of int, shape (..., H)
        The set's candidates in each band, the annotated ones among them and their TPs.
    Nh, mh, kh : array_like of int, broadcastable to (..., H)
        Each band's candidates, annotated candidates and TPs.
    finite : bool
        True: the variance about this candidate set's own proportion (Cochran's unbiased estimator with the
        finite population correction: cells annotated whole add nothing). False: under the binomial model of the
        labels (``p (1 - p) / (m - 1)`` per sampled cell, the unbiased estimate of its variance; a cell annotated
        whole adds its binomial variance ``p (1 - p) / N``), for tests.
    prior_weight : float
        Pseudo-candidates with which a cell's rate in the variance is shrunk towards its band's (0: the raw
        design-based variance, as R's ``survey`` package estimates it).

    Returns
    -------
    CellTotals
    """
    Nc, mc, kc = (np.asarray(x, dtype=np.int64) for x in (Nc, mc, kc))
    Nh, mh, kh = (np.asarray(x, dtype=np.int64) for x in (Nh, mh, kh))
    if np.any((kc < 0) | (kc > mc) | (mc > Nc)) or np.any((kh < 0) | (kh > mh) | (mh > Nh)):
        raise ParameterError("cells must satisfy 0 <= k <= m <= N (TPs, annotated, candidates)")
    n = Nc.sum(-1)
    present = Nc > 0
    sampled = mc > 0
    complete = present & (mc >= Nc)
    empty = present & ~sampled
    mh_b = np.broadcast_to(mh, Nc.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        band_rate = np.where(mh_b > 0, kh / np.maximum(mh, 1), np.nan)
        rate = np.where(sampled, kc / np.maximum(mc, 1), band_rate)
        uncovered = (empty & (mh_b == 0)).any(-1)
        total = np.where(present, Nc * np.nan_to_num(rate), 0.0).sum(-1)
        total = np.where(uncovered, np.nan, total)
        band_smooth = np.broadcast_to(_smoothed_band_rates(Nh, mh, kh, prior_weight), Nc.shape)
        smooth = np.where(complete, kc / np.maximum(Nc, 1),
                          np.where(sampled, (kc + prior_weight * band_smooth) / (mc + prior_weight), band_smooth))
        half = lambda m: np.maximum(m - 1.0, m / 2.0)  # noqa: E731  (m - 1, and 1/2 at m = 1: twice m = 2's factor)
        if finite:
            g = np.where(complete, 0.0, (Nc - mc) / (np.maximum(Nc, 1) * half(np.maximum(mc, 1))))
            g_empty = (1.0 / np.maximum(mh, 1) + 1.0 / np.maximum(Nc, 1)) * mh / half(np.maximum(mh, 1))
        else:
            g = np.where(complete, 1.0 / np.maximum(Nc, 1), 1.0 / half(np.maximum(mc, 1)))
            g_empty = 1.0 / np.maximum(mh, 1) + 1.0 / np.maximum(Nc, 1)
        g = np.where(present, np.where(empty, g_empty, g), 0.0)
        w = Nc / np.maximum(n, 1)[..., None]
        variance = (w * w * g * smooth * (1 - smooth)).sum(-1)
        smoothed = (w * smooth).sum(-1)
        design = (w * w * g).sum(-1)
        kish = np.where(design > 0, 1.0 / design, np.inf)  # the weights' effective size (Kish), any rate
        effective = np.where(variance > 0, smoothed * (1 - smoothed) / variance, kish)
    exact = ~uncovered & (complete == present).all(-1)
    regime = np.where(uncovered, 3, np.where(exact, 0, np.where(empty.any(-1), 2, 1))).astype(np.int8)
    if not finite:  # a region annotated whole: its full counts (the full data's test and interval)
        effective = np.where(exact, n.astype(float), effective)
    partly = present & sampled & ~complete
    single = (partly.sum(-1) == 1) & ((complete | partly) == present).all(-1)
    return CellTotals(size=n, annotated=mc.sum(-1), tps=kc.sum(-1), total=total, variance=variance,
                      effective=np.where(uncovered, np.nan, effective), regime=regime, single=single)


def _bounds_of_single(Nc, mc, kc, cells: CellTotals, level: float, interval: str, alternative: str):
    """Where one cell is partly annotated and the others whole: that cell's exact bounds plus the known TPs."""
    rows = np.flatnonzero(cells.single.ravel())
    H = Nc.shape[-1]
    N2, m2, k2 = (np.broadcast_to(x, Nc.shape).reshape(-1, H)[rows] for x in (Nc, mc, kc))
    part = (N2 > 0) & (m2 > 0) & (m2 < N2)
    j = np.argmax(part, axis=1)
    at = np.arange(rows.size)
    known = np.where(part, 0, k2).sum(1)
    low, high = sample_interval(k2[at, j], m2[at, j], N2[at, j], level, interval, alternative)
    return rows, known + low * N2[at, j], known + high * N2[at, j]


def effective_clopper_pearson(estimate, effective, confidence_level: float = 0.95,
                              alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Korn & Graubard's (1998) interval: Clopper-Pearson with ``effective * estimate`` successes of
    ``effective`` trials (both may be fractional); the point where ``effective`` is infinite.

    Notes
    -----
    ``low`` is the ``alpha/2`` quantile of Beta(x, n* - x + 1) (0 at x = 0), ``high`` the ``1 - alpha/2`` quantile of
    Beta(x + 1, n* - x) (1 at x = n*), with x = p n*; one-sided intervals put alpha in one tail.
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    p, ne = np.broadcast_arrays(np.asarray(estimate, dtype=float), np.asarray(effective, dtype=float))
    tail = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        known = np.isinf(ne)
        nn = np.where(known | ~np.isfinite(ne), 1.0, np.maximum(ne, 1e-300))
        x = np.clip(np.nan_to_num(p) * nn, 0.0, nn)
        low = np.where(x > 0, special.betaincinv(np.maximum(x, 1e-300), nn - x + 1, tail), 0.0)
        high = np.where(x < nn, special.betaincinv(x + 1, np.maximum(nn - x, 1e-300), 1 - tail), 1.0)
    low, high = np.where(known, p, low), np.where(known, p, high)
    bad = np.isnan(p) | np.isnan(ne)
    low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    if alternative == "less":
        low = np.where(bad, np.nan, 0.0)
    elif alternative == "greater":
        high = np.where(bad, np.nan, 1.0)
    return low, high


def effective_wilson(estimate, effective, confidence_level: float = 0.95,
                     alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval at the effective sample size (Kish's n*; compared in the simulation, not used)."""
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    p, ne = np.broadcast_arrays(np.asarray(estimate, dtype=float), np.asarray(effective, dtype=float))
    z = special.ndtri(1 - ((1 - level) / 2 if alternative == "two-sided" else 1 - level))
    with np.errstate(invalid="ignore", divide="ignore"):
        den = 1 + z * z / ne
        centre = (p + z * z / (2 * ne)) / den
        half = z * np.sqrt(p * (1 - p) / ne + z * z / (4 * ne * ne)) / den
    low, high = np.where(np.isinf(ne), p, np.clip(centre - half, 0, 1)), np.where(np.isinf(ne), p,
                                                                                  np.clip(centre + half, 0, 1))
    return (np.zeros_like(low) if alternative == "less" else low,
            np.ones_like(high) if alternative == "greater" else high)


def effective_jeffreys(estimate, effective, confidence_level: float = 0.95,
                       alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Jeffreys' interval at the effective sample size (compared in the simulation, not used)."""
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    p, ne = np.broadcast_arrays(np.asarray(estimate, dtype=float), np.asarray(effective, dtype=float))
    tail = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        nn = np.where(np.isinf(ne), 1.0, ne)
        x = np.clip(np.nan_to_num(p) * nn, 0, nn)
        low = np.where(x > 0, special.betaincinv(x + 0.5, nn - x + 0.5, tail), 0.0)
        high = np.where(x < nn, special.betaincinv(x + 0.5, nn - x + 0.5, 1 - tail), 1.0)
    low, high = np.where(np.isinf(ne), p, low), np.where(np.isinf(ne), p, high)
    return (np.zeros_like(low) if alternative == "less" else low,
            np.ones_like(high) if alternative == "greater" else high)


#: Intervals of a proportion at the effective sample size; the estimators use "korn_graubard" (chosen by its
#: coverage in bench/bench_strata.py), the others are there to be compared with it.
PROPORTION_INTERVALS = {"korn_graubard": effective_clopper_pearson, "wilson": effective_wilson,
                        "jeffreys": effective_jeffreys}


def total_bounds(Nc, mc, kc, Nh, mh, kh, *, confidence_level: float = 0.95, interval: str = "hypergeometric",
                 alternative: str = "two-sided", prior_weight: float = PRIOR_WEIGHT,
                 method: str = "korn_graubard"):
    """A set's estimated TPs and their interval (counts): Korn & Graubard's interval at the effective sample size
    (its bounds on the TPs rounded outward to whole numbers: the set's TPs are one), or the one partly annotated
    cell's exact interval (``interval``) where the others are annotated whole.

    Returns
    -------
    cells : CellTotals
    low, high : ndarray of float
        Bounds on the set's TPs.
    """
    level = check_confidence_level(confidence_level)
    Nc, mc, kc = (np.asarray(x, dtype=np.int64) for x in (Nc, mc, kc))
    if method not in PROPORTION_INTERVALS:
        raise ParameterError(f"`method` must be one of {', '.join(PROPORTION_INTERVALS)}; got {method!r}")
    cells = cell_totals(Nc, mc, kc, Nh, mh, kh, finite=True, prior_weight=prior_weight)
    low, high = PROPORTION_INTERVALS[method](cells.estimate, cells.effective, level, alternative)
    with np.errstate(invalid="ignore"):  # the set's TPs are a whole number: bounds on them lose nothing outward
        low = np.floor(low * cells.size + 1e-9 * np.maximum(cells.size, 1))
        high = np.ceil(high * cells.size - 1e-9 * np.maximum(cells.size, 1))
    if cells.single.any():
        rows, lo, hi = _bounds_of_single(Nc, mc, kc, cells, level, interval, alternative)
        low, high = low.copy().ravel(), high.copy().ravel()
        low[rows], high[rows] = lo, hi
        low, high = low.reshape(cells.size.shape), high.reshape(cells.size.shape)
    return cells, low, high


def mover_share(t1, l1, u1, t2, l2, u2) -> tuple[np.ndarray, np.ndarray]:
    """An interval for ``t1 / (t1 + t2)`` from intervals of two independent non-negative estimates.

    Notes
    -----
    Newcombe's (2016) MOVER-R gives theta = t1 / t2 in [L, U],
    ``L = l1 (2 t1 - l1) / (t1 t2 + sqrt((t1 t2)^2 - l1 (2 t1 - l1) u2 (2 t2 - u2)))`` (written without the
    cancellation of its usual form) and ``U = (t1 t2 + sqrt((t1 t2)^2 - u1 (2 t1 - u1) l2 (2 t2 - l2))) / (l2 (2 t2 -
    l2))`` (infinite at l2 = 0); the share t1 / (t1 + t2) = theta / (1 + theta) is increasing in theta.
    """
    t1, l1, u1, t2, l2, u2 = (np.asarray(x, dtype=float) for x in (t1, l1, u1, t2, l2, u2))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        c = l1 * (2 * t1 - l1)
        b = u2 * (2 * t2 - u2)
        root = np.sqrt(np.maximum((t1 * t2) ** 2 - b * c, 0.0))
        low = np.where(c <= 0, 0.0, c / (t1 * t2 + root))
        a = l2 * (2 * t2 - l2)
        d = u1 * (2 * t1 - u1)
        root = np.sqrt(np.maximum((t1 * t2) ** 2 - a * d, 0.0))
        high = np.where(a > 0, (t1 * t2 + root) / np.where(a > 0, a, 1.0), np.inf)
        share_low = np.where(np.isinf(low), 1.0, low / (1 + low))
        share_high = np.where(np.isfinite(high), high / (1 + high), 1.0)
    # no TP outside for sure: the share is 1 (where any TP is inside); none inside for sure: 0
    share_low = np.where((u2 <= 0) & (l1 > 0), 1.0, np.where(u1 <= 0, 0.0, share_low))
    share_high = np.where(u1 <= 0, 0.0, share_high)
    bad = np.isnan(t1) | np.isnan(t2) | np.isnan(l1) | np.isnan(u2)
    return (np.where(bad, np.nan, np.clip(share_low, 0.0, 1.0)),
            np.where(bad, np.nan, np.clip(share_high, 0.0, 1.0)))


def score_test(p1, n1, p2, n2, alternative: str = "two-sided"):
    """The two-sample score test of p1 = p2 on effective counts (``p_i`` of ``n_i``, fractional allowed).

    Returns ``statistic, p_value, log10_p``; the statistic is ``(p1 - p2) / sqrt(pp (1 - pp) (1/n1 + 1/n2))`` with
    the pooled ``pp``, 0 (p = 1) where ``pp`` is 0 or 1; NaN where a count is missing. "greater": region 1's rate
    is higher.
    """
    check_alternative(alternative)
    p1, n1, p2, n2 = (np.asarray(x, dtype=float) for x in (p1, n1, p2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        pp = (p1 * n1 + p2 * n2) / (n1 + n2)
        se = np.sqrt(pp * (1 - pp) * (1 / n1 + 1 / n2))
        z = np.where(se > 0, (p1 - p2) / np.where(se > 0, se, 1.0), 0.0)
    if alternative == "two-sided":
        log_p = np.log(2.0) + special.log_ndtr(-np.abs(z))
    elif alternative == "greater":
        log_p = special.log_ndtr(-z)
    else:
        log_p = special.log_ndtr(z)
    log_p = np.minimum(log_p, 0.0)
    bad = np.isnan(pp) | np.isnan(n1) | np.isnan(n2)
    return (np.where(bad, np.nan, z), np.where(bad, np.nan, np.exp(log_p)),
            np.where(bad, np.nan, log_p / np.log(10.0)))


# ----------------------------------------------------------------------------- the cells of a ranking
def check_bands(ranking: Ranking, band, n_bands: int | None = None) -> np.ndarray:
    band = np.asarray(band)
    top = np.inf if n_bands is None else n_bands - 1
    if (band.shape != (ranking.n_candidates,) or band.dtype.kind not in "iu"
            or (band.size and (band.min() < 0 or band.max() > top))):
        raise ParameterError(f"`bands` must give each of the {ranking.n_candidates:,} candidates its band (a whole "
                             f"number from 0{'' if n_bands is None else f' to {n_bands - 1}'}); got dtype "
                             f"{band.dtype} and shape {band.shape}")
    return band.astype(np.int64)


@dataclass(frozen=True, eq=False)
class _Cells:
    """Sorted ranks along one ranking, per band: of every candidate, of the annotated ones, of their TPs."""

    every: list
    annotated: list
    tps: list

    @classmethod
    def of(cls, ranking: Ranking, band: np.ndarray, n_bands: int) -> "_Cells":
        in_order = band[ranking.order]
        if ranking.annotated_ranks is None:
            ann = np.arange(1, ranking.n_candidates + 1, dtype=np.int64)
        else:
            ann = np.asarray(ranking.annotated_ranks, dtype=np.int64)
        tp = (np.diff(ranking.tp) > 0)[ann - 1]
        ann_band = in_order[ann - 1]
        every = [np.flatnonzero(in_order == h) + 1 for h in range(n_bands)]
        annotated = [ann[ann_band == h] for h in range(n_bands)]
        tps = [ann[(ann_band == h) & tp] for h in range(n_bands)]
        return cls(every=every, annotated=annotated, tps=tps)

    def counts(self, sizes: np.ndarray):
        """N_c, m_c, k_c of the n-best lists (sizes, H)."""
        c = lambda parts: np.stack([np.searchsorted(x, sizes, side="right") for x in parts], axis=-1)  # noqa: E731
        return c(self.every).astype(np.int64), c(self.annotated).astype(np.int64), c(self.tps).astype(np.int64)

    def totals(self):
        """N_h, m_h, k_h (H,)."""
        return tuple(np.array([x.size for x in parts], dtype=np.int64) for parts in (self.every, self.annotated,
                                                                                     self.tps))


def _n_bands(band: np.ndarray, n_bands: int | None) -> int:
    return int(n_bands) if n_bands is not None else int(band.max()) + 1 if band.size else 1


def _regime(codes: np.ndarray) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes, dtype=np.int8), categories=list(REGIMES))



def _precision_table(ranking: Ranking, sizes: np.ndarray, band: np.ndarray, n_bands: int | None,
                     confidence_level: float, interval: str, min_annotated: int,
                     alternative: str = "two-sided") -> pd.DataFrame:
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    min_annotated = check_min_annotated(min_annotated)
    band = check_bands(ranking, band, n_bands)
    cells = _Cells.of(ranking, band, _n_bands(band, n_bands))
    Nc, mc, kc = cells.counts(sizes)
    Nh, mh, kh = cells.totals()
    found, low, high = total_bounds(Nc, mc, kc, Nh, mh, kh, confidence_level=level, interval=interval,
                                    alternative=alternative)
    with np.errstate(invalid="ignore", divide="ignore"):
        n = np.maximum(sizes, 1)
        estimate, lower, upper = found.total / n, low / n, high / n
    in_frame = (sizes >= 1) & (found.regime != 3)
    return pd.DataFrame({
        "measure": _constant(ranking.measure, sizes.size), "n": sizes, "m": found.annotated, "k": found.tps,
        "estimate": np.where(in_frame, estimate, np.nan), "lower": np.where(in_frame, lower, np.nan),
        "upper": np.where(in_frame, upper, np.nan), "in_frame": in_frame,
        "enough": in_frame & ((found.regime == 0) | (found.annotated >= min_annotated)),
        "effective": np.where(in_frame, found.effective, np.nan), "regime": _regime(found.regime)})


def stratified_precision(ranking: Ranking, n=None, *, bands, n_bands: int | None = None,
                         confidence_level: float = 0.95, interval: str = "hypergeometric",
                         min_annotated: int = MIN_ANNOTATED, alternative: str = "two-sided") -> pd.DataFrame:
    """Estimated n-best precision from a stratified design.

    Parameters
    ----------
    ranking : Ranking
        Of the candidate set annotated by the design (each band's annotated candidates a simple random sample of
        the band).
    n : array_like of int, optional
        List sizes in 1..N; every n by default.
    bands : ndarray of int, shape (N,)
        Each candidate's band (:meth:`evalcore.pooling.stratified.StratifiedDesign.bands`).
    n_bands : int, optional
        The number of bands (default: the largest band + 1).
    confidence_level, min_annotated, alternative
        As :func:`evalcore.estimates.precision_estimates`.
    interval : {"hypergeometric", "clopper_pearson"}
        The exact interval of a list with a single partly annotated cell (see the module's notes); elsewhere the
        interval is Korn & Graubard's.

    Returns
    -------
    DataFrame
        The columns of :func:`evalcore.estimates.precision_estimates` (``m, k``: the list's annotated candidates
        and TPs; ``estimate``: the stratified estimate) and ``effective`` (the effective sample size; inf where
        exact) and ``regime`` (:data:`REGIMES`). ``enough`` is False where fewer than ``min_annotated`` annotated
        candidates are in the list (unless it is exact).

    Examples
    --------
    >>> import numpy as np
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([1, 1, 0, 1, 0, 0, 1, 0], bool)
    >>> annotated = np.array([1, 1, 1, 1, 1, 0, 1, 0], bool)  # band 0 (ranks 1-4) whole, 2 of band 1's 4
    >>> r = rank_scores(labels, -np.arange(8.0), ties="stable", annotated=annotated)
    >>> t = stratified_precision(r, [4, 8], bands=np.repeat([0, 1], 4))
    >>> t["estimate"].tolist(), t["regime"].tolist()
    ([0.75, 0.625], ['exact', 'estimated'])
    """
    sizes = check_sizes(n, ranking.n_candidates)
    return _precision_table(ranking, sizes, bands, n_bands, confidence_level, interval, min_annotated, alternative)


def stratified_acceptance(ranking: Ranking, gamma, *, bands, n_bands: int | None = None,
                          confidence_level: float = 0.95, interval: str = "hypergeometric",
                          min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
    """Precision of gamma-acceptance sets from a stratified design (columns ``measure, gamma, size`` and those of
    :func:`stratified_precision` but n)."""
    gammas, sizes = ranking.acceptance_sizes(gamma)
    table = _precision_table(ranking, sizes, bands, n_bands, confidence_level, interval, min_annotated)
    table.insert(1, "gamma", gammas)
    table.insert(2, "size", sizes)
    return table.drop(columns="n")


def stratified_baseline(ranking: Ranking, *, bands, n_bands: int | None = None, confidence_level: float = 0.95,
                        interval: str = "hypergeometric") -> BaselineEstimate:
    """The proportion of TPs in the candidate set from a stratified design: the list of every candidate (its cells
    are the bands)."""
    row = _precision_table(ranking, np.array([ranking.n_candidates]), bands, n_bands, confidence_level, interval,
                           0).iloc[0]
    return BaselineEstimate(population=ranking.n_candidates, m=int(row["m"]), k=int(row["k"]),
                            estimate=float(row["estimate"]), lower=float(row["lower"]), upper=float(row["upper"]),
                            interval=interval)


def stratified_recall(ranking: Ranking, n=None, *, bands, n_bands: int | None = None,
                      confidence_level: float = 0.95) -> pd.DataFrame:
    """Estimated recall of the n-best lists from a stratified design, with the MOVER-R interval.

    Returns
    -------
    DataFrame
        Columns as :func:`evalcore.estimates.recall_estimates` and ``regime`` (of the list and the rest together:
        "exact" where both are known).

    Notes
    -----
    ``T_L`` (the list's TPs) and ``T_O`` (the other candidates') are estimated from their own cells (disjoint,
    so independent given the annotated counts), each with its interval as in :func:`stratified_precision`; recall
    ``T_L / (T_L + T_O)`` and its interval by :func:`mover_share`.
    """
    sizes = check_sizes(n, ranking.n_candidates)
    level = check_confidence_level(confidence_level)
    band = check_bands(ranking, bands, n_bands)
    cells = _Cells.of(ranking, band, _n_bands(band, n_bands))
    Nc, mc, kc = cells.counts(sizes)
    Nh, mh, kh = cells.totals()
    inside, l1, u1 = total_bounds(Nc, mc, kc, Nh, mh, kh, confidence_level=level)
    outside, l2, u2 = total_bounds(Nh - Nc, mh - mc, kh - kc, Nh, mh, kh, confidence_level=level)
    t1, t2 = inside.total, outside.total
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(t1 + t2 > 0, t1 / (t1 + t2), np.nan)
    lower, upper = mover_share(t1, l1, u1, t2, l2, u2)
    regime = np.where((inside.regime == 3) | (outside.regime == 3), 3,
                      np.where((inside.regime == 0) & (outside.regime == 0), 0,
                               np.maximum(np.where(inside.regime == 0, 1, inside.regime),
                                          np.where(outside.regime == 0, 1, outside.regime))))
    in_frame = regime != 3
    known = regime == 0
    lower, upper = np.where(known, estimate, lower), np.where(known, estimate, upper)
    none = ~in_frame | np.isnan(estimate)
    return pd.DataFrame({"measure": _constant(ranking.measure, sizes.size), "n": sizes, "m": inside.annotated,
                         "k": inside.tps, "estimate": np.where(in_frame, estimate, np.nan),
                         "lower": np.where(none, np.nan, lower), "upper": np.where(none, np.nan, upper),
                         "in_frame": in_frame, "regime": _regime(regime)})


# ------------------------------------------------------------------------------ comparing two measures
def region_cells(ra: np.ndarray, rb: np.ndarray, band: np.ndarray, n_bands: int, sizes: np.ndarray) -> np.ndarray:
    """Per band, how many of the candidates with ranks (ra, rb) and bands ``band`` lie in D1 = A \\ B at each n
    (rank_a <= n < rank_b): shape (sizes, H)."""
    return np.stack([_region_counts(ra[band == h], rb[band == h], sizes) for h in range(n_bands)], axis=-1)


def stratified_compare(a: Ranking, b: Ranking, n=None, *, bands, n_bands: int | None = None,
                       confidence_level: float = 0.95, alternative: str = "two-sided",
                       min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
    """The design-based test of two measures' difference regions D1 = A \\ B and D2 = B \\ A.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the candidate set annotated by the design.
    n, confidence_level, alternative, min_annotated
        As :func:`evalcore.estimates.compare_estimates` ("greater": A's region has the higher TP rate).
    bands, n_bands
        As :func:`stratified_precision`.

    Returns
    -------
    DataFrame
        Columns :data:`STRATIFIED_COMPARE_COLUMNS`: those of :func:`evalcore.estimates.compare_estimates`
        (``m_d1, k_d1``: the annotated candidates and TPs of D1; ``estimate_d1``: its estimated TP rate), the
        score ``statistic`` and its p-value (:func:`score_test`: Rao & Scott's effective counts), the effective
        counts ``effective_d1, effective_tp_d1`` (and D2's) and ``regime`` (:data:`REGIMES`, of D1 and D2
        together). ``enough``: each region is annotated whole or holds at least ``min_annotated`` annotated
        candidates.
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    min_annotated = check_min_annotated(min_annotated)
    sizes = check_sizes(n, a.n_candidates)
    if a.n_candidates != b.n_candidates:
        raise ParameterError(f"rankings {a.measure!r} and {b.measure!r} are not of the same candidate set")
    band = check_bands(a, bands, n_bands)
    H = _n_bands(band, n_bands)
    _annotated_pair_ranks(a, b)  # the same candidates annotated, with the same labels
    idx = np.arange(a.n_candidates) if a.annotated_ranks is None else a.order[a.annotated_ranks - 1]
    labels = np.zeros(a.n_candidates, dtype=bool)
    labels[a.order] = np.diff(a.tp) > 0
    tp_idx = idx[labels[idx]]
    Nh = np.bincount(band, minlength=H).astype(np.int64)
    mh = np.bincount(band[idx], minlength=H).astype(np.int64)
    kh = np.bincount(band[tp_idx], minlength=H).astype(np.int64)

    def region(first: Ranking, second: Ranking):
        fr, sr = first.ranks, second.ranks
        Nc = region_cells(fr, sr, band, H, sizes)
        mc = region_cells(fr[idx], sr[idx], band[idx], H, sizes)
        kc = region_cells(fr[tp_idx], sr[tp_idx], band[tp_idx], H, sizes)
        _, low, high = total_bounds(Nc, mc, kc, Nh, mh, kh, confidence_level=level)
        return cell_totals(Nc, mc, kc, Nh, mh, kh, finite=False), low, high

    (d1, low1, high1), (d2, low2, high2) = region(a, b), region(b, a)
    size_d = d1.size
    e1, e2 = d1.estimate, d2.estimate
    covered = (d1.regime != 3) & (d2.regime != 3)
    statistic, p, log10_p = score_test(e1, d1.effective, e2, d2.effective, alternative)
    empty = size_d == 0
    statistic, p, log10_p = (np.where(empty, v, x) for v, x in ((0.0, statistic), (1.0, p), (0.0, log10_p)))
    regime = np.where(~covered, 3, np.where((d1.regime == 0) & (d2.regime == 0), 0,
                                            np.maximum(np.where(d1.regime == 0, 1, d1.regime),
                                                       np.where(d2.regime == 0, 1, d2.regime)))).astype(np.int8)
    enough = covered & (((d1.regime == 0) | (d1.annotated >= min_annotated))
                        & ((d2.regime == 0) | (d2.annotated >= min_annotated)))
    pvalue = np.where(covered, p, np.nan)
    with np.errstate(invalid="ignore"):
        significant = covered & (pvalue < 1.0 - level)
    return pd.DataFrame({
        "n": sizes, "size_d": size_d, "m_d1": d1.annotated, "k_d1": d1.tps, "m_d2": d2.annotated, "k_d2": d2.tps,
        "annotated": d1.annotated + d2.annotated, "estimate_d1": np.where(covered, e1, np.nan),
        "estimate_d2": np.where(covered, e2, np.nan), "statistic": np.where(covered, statistic, np.nan),
        "p_value": pvalue, "log10_p": np.where(covered, log10_p, np.nan), "significant": significant,
        "in_frame": covered, "enough": enough,
        "effective_d1": np.where(covered, d1.effective, np.nan),
        "effective_tp_d1": np.where(covered, np.nan_to_num(e1) * d1.effective, np.nan),
        "effective_d2": np.where(covered, d2.effective, np.nan),
        "effective_tp_d2": np.where(covered, np.nan_to_num(e2) * d2.effective, np.nan),
        "lower_d1": np.where(covered & (size_d > 0), low1 / np.maximum(size_d, 1), np.nan),
        "upper_d1": np.where(covered & (size_d > 0), high1 / np.maximum(size_d, 1), np.nan),
        "lower_d2": np.where(covered & (size_d > 0), low2 / np.maximum(size_d, 1), np.nan),
        "upper_d2": np.where(covered & (size_d > 0), high2 / np.maximum(size_d, 1), np.nan),
        "regime": _regime(regime)})


def difference_bounds(e1, n1, e2, n2, low1, high1, low2, high2, confidence_level: float = 0.95,
                      method: str = "newcombe", size=None) -> tuple[np.ndarray, np.ndarray]:
    """The interval of ``e1 - e2`` that covers both the regions' TP rates under the binomial model and this candidate
    set's own regions: the hull of ``method`` on the effective counts (``e_i n_i`` of ``n_i``) and of the MOVER
    (Newcombe's method 10, applied to the regions' own intervals ``[low_i, high_i]``).

    Notes
    -----
    The MOVER of a difference: ``d - sqrt((e1 - low1)^2 + (high2 - e2)^2)`` and ``d + sqrt((high1 - e1)^2 + (e2 -
    low2)^2)``, with d = e1 - e2 (Newcombe 1998; Zou & Donner 2008). Where the regions hold fewer than
    :data:`SMALL_REGION` candidates each (``size``), their differences are a few points of a coarse lattice (a region
    of one candidate is 0 or 1, and two unannotated ones may well be a TP and an FP): there the second part is the
    span ``[low1 - high2, high1 - low2]`` of the regions' own intervals instead of the MOVER's quadrature.
    """
    if method not in DIFFERENCE_METHODS:
        raise ParameterError(f"`method` must be one of {', '.join(DIFFERENCE_METHODS)}; got {method!r}")
    e1, n1, e2, n2, low1, high1, low2, high2 = (np.asarray(x, dtype=float) for x in (e1, n1, e2, n2, low1, high1,
                                                                                      low2, high2))
    with np.errstate(invalid="ignore", divide="ignore"):
        model_low, model_high = DIFFERENCE_METHODS[method](e1 * n1, n1, e2 * n2, n2, confidence_level)
        d = e1 - e2
        own_low = d - np.sqrt((e1 - low1) ** 2 + (high2 - e2) ** 2)
        own_high = d + np.sqrt((high1 - e1) ** 2 + (e2 - low2) ** 2)
        if size is not None:
            small = np.asarray(size) < SMALL_REGION
            own_low = np.where(small, low1 - high2, own_low)
            own_high = np.where(small, high1 - low2, own_high)
    return np.clip(np.fmin(model_low, own_low), -1, 1), np.clip(np.fmax(model_high, own_high), -1, 1)


def stratified_difference_interval(comparison: pd.DataFrame, confidence_level: float = 0.95,
                                   method: str = "newcombe") -> pd.DataFrame:
    """:func:`stratified_compare`'s table with ``difference`` (``estimate_d1 - estimate_d2``) and its interval
    ``difference_low, difference_high`` (:func:`difference_bounds`: ``method`` on the effective counts, the full
    data's interval where D1 and D2 are annotated whole, widened where needed to the MOVER of the regions' own
    intervals); NaN where not covered, [0, 0] where the regions are empty."""
    level = check_confidence_level(confidence_level)
    cols = ("estimate_d1", "effective_d1", "estimate_d2", "effective_d2", "lower_d1", "upper_d1", "lower_d2",
            "upper_d2")
    low, high = difference_bounds(*(comparison[c].to_numpy(float) for c in cols), level, method,
                                  size=comparison["size_d"].to_numpy())
    empty = comparison["size_d"].to_numpy() == 0
    covered = comparison["in_frame"].to_numpy(bool)
    difference = np.where(empty, 0.0, comparison["estimate_d1"] - comparison["estimate_d2"])
    return comparison.assign(difference=np.where(covered, difference, np.nan),
                             difference_low=np.where(covered, np.where(empty, 0.0, low), np.nan),
                             difference_high=np.where(covered, np.where(empty, 0.0, high), np.nan))


__all__ = ["REGIMES", "STRATIFIED_COLUMNS", "STRATIFIED_COMPARE_COLUMNS", "TEST_NAME", "INTERVAL_NAME", "CellTotals",
           "cell_totals", "total_bounds", "effective_clopper_pearson", "mover_share", "score_test",
           "stratified_precision", "stratified_acceptance", "stratified_baseline", "stratified_recall",
           "stratified_compare", "stratified_difference_interval", "difference_bounds", "DIFFERENCE_METHODS",
           "PROPORTION_INTERVALS"]
