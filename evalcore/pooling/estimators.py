"""Estimates from a pooled design: the pool's labels are known, the rest is estimated from its random sample.

For a ranking and a list size n, the n-best list L splits into its *pooled part* L ∩ P (every label known: ``pooled``
candidates, ``pooled_tp`` TPs) and the *rest* L \\ P (``rest`` candidates, of which the ``rest_m`` sampled ones are
annotated, ``rest_k`` TPs). The sample of a ``pool+sample`` design is a simple random sample of the candidates outside
the pool, so given ``rest_m`` its members in L \\ P are a simple random sample of L \\ P: the TPs D of the rest follow
``rest_k | rest_m ~ Hypergeometric(rest, D, rest_m)``, and the list's TPs are ``pooled_tp + D``.

* Precision: ``(pooled_tp + rest * rest_k / rest_m) / n``, unbiased; the interval ``(pooled_tp + [D_L, D_U]) / n``
  with ``[D_L, D_U]`` the exact interval of the sampled stratum alone
  (:func:`evalcore.estimates.hypergeometric_interval`, or Clopper-Pearson, as the user chose): zero width where the list lies inside the pool (rest = 0), and exact (at
  least the nominal coverage) everywhere, since the pooled part is a constant.
* Recall: Webber's (2013) beta-binomial posterior of :func:`evalcore.estimates.recall_estimates` with four
  segments, the pooled part in and outside the list (known yields) and the rest in and outside the list (posterior
  yields from their samples).
* Two measures: the difference regions D1 = A \\ B and D2 = B \\ A split the same way. Where both regions lie in
  the pool, Fisher's test on their full counts is exactly the full-data test (Evert 2004, §3.3). Beyond, each
  region's TP rate is estimated by the two strata, ``p_i = (t_i + r_i k_i / m_i) / d`` (t_i pooled TPs, r_i of the
  region's d candidates outside the pool, m_i of them sampled with k_i TPs), whose variance under the paper's
  binomial model is ``pi (1 - pi) (a_i + r_i^2 / m_i) / d^2`` (a_i = d - r_i pooled candidates); the test and the
  difference interval use the *effective counts* of that variance, ``N_i = d^2 / (a_i + r_i^2 / m_i)`` candidates
  with ``p_i N_i`` TPs (Kish's design effect). They equal the full counts (N_i = d, TPs t_i) inside the pool and the
  sample's counts (N_i = m_i, TPs k_i) where a region has no pooled part, so the test is today's full-data test in
  the pool and today's sample test outside it; Fisher's test takes them rounded to whole numbers, the interval as
  they are.

A ``pool`` design (no sample) has estimates only where the lists lie inside the pool (``in_frame``), exactly as a
sampling frame annotated whole.

References
----------
Evert, S. (2004). Significance tests for the evaluation of ranking methods. §3.3.
Evert, S. & Krenn, B. (2005). Using small random samples for the manual evaluation of statistical association
measures. Computer Speech and Language 19(4), 450-466.
Aslam, J. A., Pavlu, V. & Yilmaz, E. (2006). A statistical method for system evaluation using incomplete judgments.
SIGIR 2006, 541-548.
Kish, L. (1965). Survey Sampling. Wiley. (The design effect and the effective sample size.)
Webber, W. (2013). Approximate recall confidence intervals. ACM TOIS 31(1), article 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy import special

from ..errors import ParameterError
from ..text import shown
from ..estimates import (ESTIMATE_COLUMNS, MIN_ANNOTATED, BaselineEstimate, _annotated_pair_ranks,
                         check_min_annotated, hypergeometric_interval, newcombe_difference_interval, sample_interval)
from ..curves import _constant
from ..nspec import check_sizes
from ..ranking import Ranking
from ..stats.fisher import check_alternative, fisher_exact
from ..stats.intervals import check_confidence_level

REGIMES = {
    "exact": "inside the pool: every label known, exact",
    "estimated": "beyond the pool: the rest estimated from the random sample of the candidates outside the pool",
    "uncovered": "beyond the pool with no sample of the rest: not estimated",
}
POOLED_COLUMNS = ESTIMATE_COLUMNS + ("pooled", "pooled_tp", "rest", "rest_m", "rest_k", "regime")
POOLED_COMPARE_COLUMNS = ("n", "size_d", "m_d1", "k_d1", "m_d2", "k_d2", "annotated", "estimate_d1", "estimate_d2",
                          "p_value", "log10_p", "significant", "in_frame", "enough", "pooled_d1", "pooled_tp_d1",
                          "pooled_d2", "pooled_tp_d2", "rest_d1", "rest_d2", "effective_d1", "effective_tp_d1",
                          "effective_d2", "effective_tp_d2", "regime")


class PoolIncomplete(ParameterError):
    """The pool is not annotated whole yet: no pooled estimate can be given."""


# ----------------------------------------------------------------------------- the strata of a ranking
@dataclass(frozen=True, eq=False)
class _Strata:
    """Sorted ranks along one ranking: of the pool, of its TPs, of the sampled rest and of its TPs."""

    pool: np.ndarray
    pool_tp: np.ndarray
    rest: np.ndarray
    rest_tp: np.ndarray

    def counts(self, sizes: np.ndarray):
        c = lambda x: np.searchsorted(x, sizes, side="right").astype(np.int64)  # noqa: E731
        return c(self.pool), c(self.pool_tp), c(self.rest), c(self.rest_tp)


def check_pool(ranking: Ranking, pool) -> np.ndarray:
    pool = np.asarray(pool)
    if pool.dtype != bool or pool.shape != (ranking.n_candidates,):
        raise ParameterError(f"`pool` must be a True/False mask of {ranking.n_candidates} values (one per "
                             f"candidate); got dtype {pool.dtype} and shape {pool.shape}")
    if not pool.any():
        raise ParameterError("the pool is empty: a pooled design needs at least one candidate in its pool")
    return pool


def _strata(ranking: Ranking, pool: np.ndarray, rest_sampled: bool) -> _Strata:
    """Where the pool and the sampled rest lie along the ranking; raises :class:`PoolIncomplete` unless every pool
    candidate is annotated TP or FP."""
    step = np.diff(ranking.tp) > 0  # TP at each rank (annotated TPs only)
    if ranking.annotated_ranks is None:
        ann = np.arange(1, ranking.n_candidates + 1, dtype=np.int64)
    else:
        ann = np.asarray(ranking.annotated_ranks, dtype=np.int64)
    in_pool = pool[ranking.order[ann - 1]]
    pool_ranks = np.sort(ranking.ranks[pool])
    if int(in_pool.sum()) != pool_ranks.size:
        done = int(in_pool.sum())
        raise PoolIncomplete(f"{done:,} of the pool's {pool_ranks.size:,} candidates are annotated TP or FP; the "
                             f"pooled estimates appear when all are ({pool_ranks.size - done:,} to go; an 'unsure' "
                             "mark does not count)")
    tp = step[ann - 1]
    rest = ann[~in_pool] if rest_sampled else ann[:0]
    rest_tp = ann[~in_pool & tp] if rest_sampled else ann[:0]
    return _Strata(pool=pool_ranks, pool_tp=ann[in_pool & tp], rest=rest, rest_tp=rest_tp)


def _regime(rest: np.ndarray, rest_m: np.ndarray, rest_sampled: bool) -> pd.Categorical:
    codes = np.where(rest == 0, 0, 1 if rest_sampled else 2).astype(np.int8)
    return pd.Categorical.from_codes(codes, categories=list(REGIMES))


def _rest_bounds(k, m, size, level: float, interval: str, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on the TPs (counts) of ``size`` candidates from ``k`` TPs among ``m`` of them sampled."""
    if interval == "hypergeometric":
        ci = hypergeometric_interval(k, m, size, level, alternative)
        return np.atleast_1d(ci.low_count).astype(float), np.atleast_1d(ci.high_count).astype(float)
    low, high = sample_interval(k, m, size, level, interval, alternative)
    return low * size, high * size



def _precision_table(ranking: Ranking, sizes: np.ndarray, pool: np.ndarray, rest_sampled: bool,
                     confidence_level: float, interval: str, min_annotated: int,
                     alternative: str = "two-sided") -> pd.DataFrame:
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    min_annotated = check_min_annotated(min_annotated)
    pool = check_pool(ranking, pool)
    strata = _strata(ranking, pool, rest_sampled)
    pooled, pooled_tp, rest_m, rest_k = strata.counts(sizes)
    rest = sizes - pooled
    in_frame = (sizes >= 1) & ((rest == 0) | rest_sampled)
    low = np.full(sizes.size, np.nan)
    high = np.full(sizes.size, np.nan)
    estimate = np.full(sizes.size, np.nan)
    exact = in_frame & (rest == 0)
    estimate[exact] = pooled_tp[exact] / sizes[exact]
    low[exact] = high[exact] = estimate[exact]
    if alternative == "less":
        low[exact] = 0.0
    elif alternative == "greater":
        high[exact] = 1.0
    est = in_frame & (rest > 0)
    if est.any():
        r, m, k, t, n = rest[est], rest_m[est], rest_k[est], pooled_tp[est], sizes[est]
        lo, hi = _rest_bounds(k, m, r, level, interval, alternative)
        low[est], high[est] = (t + lo) / n, (t + hi) / n
        with np.errstate(invalid="ignore", divide="ignore"):
            estimate[est] = np.where(m > 0, (t + r * k / np.maximum(m, 1)) / n, np.nan)
    return pd.DataFrame({
        "measure": _constant(ranking.measure, sizes.size), "n": sizes, "m": pooled + rest_m, "k": pooled_tp + rest_k,
        "estimate": estimate, "lower": low, "upper": high, "in_frame": in_frame,
        "enough": in_frame & ((rest == 0) | (rest_m >= min_annotated)), "pooled": pooled, "pooled_tp": pooled_tp,
        "rest": rest, "rest_m": rest_m, "rest_k": rest_k, "regime": _regime(rest, rest_m, rest_sampled)})


def pooled_precision(ranking: Ranking, n=None, *, pool, rest_sampled: bool = True, confidence_level: float = 0.95,
                     interval: str = "hypergeometric", min_annotated: int = MIN_ANNOTATED,
                     alternative: str = "two-sided") -> pd.DataFrame:
    """Estimated n-best precision from a pooled design, exact inside the pool.

    Parameters
    ----------
    ranking : Ranking
        Of the candidate set annotated by the design (the pool whole, the sample of the rest).
    n : array_like of int, optional
        List sizes in 1..N; every n by default.
    pool : ndarray of bool
        The pool (:meth:`evalcore.pooling.Design.pool_mask`).
    rest_sampled : bool
        True for a ``pool+sample`` design (the annotated candidates outside the pool are a simple random sample
        of them); False for ``pool`` (annotations outside the pool, if any, are not used).
    confidence_level, interval, min_annotated
        As :func:`evalcore.estimates.precision_estimates`; ``interval`` is the method of the sampled stratum.
    alternative : {"two-sided", "less", "greater"}

    Returns
    -------
    DataFrame
        The columns of :func:`evalcore.estimates.precision_estimates` (``m, k``: annotated candidates and TPs in
        the list, pooled and sampled) and ``pooled, pooled_tp, rest, rest_m, rest_k`` (see the module's notes)
        and ``regime`` (:data:`REGIMES`). ``enough`` is False where the rest holds fewer than ``min_annotated``
        sampled candidates.

    Raises
    ------
    PoolIncomplete
        Until every candidate of the pool is annotated TP or FP.

    Notes
    -----
    ``estimate = (pooled_tp + rest * rest_k / rest_m) / n``; the interval is ``(pooled_tp + [D_L, D_U]) / n`` with
    ``[D_L, D_U]`` the exact hypergeometric bounds on the rest's TPs (Buonaccorsi 1987), so its coverage is at
    least the nominal level, and its width is 0 where ``rest = 0``. Every count is a binary search in the sorted
    ranks of the pool and of the sample: O((P + M) log(P + M)) after the ranking.
    """
    sizes = check_sizes(n, ranking.n_candidates)
    return _precision_table(ranking, sizes, pool, rest_sampled, confidence_level, interval, min_annotated,
                            alternative)


def pooled_acceptance(ranking: Ranking, gamma, *, pool, rest_sampled: bool = True, confidence_level: float = 0.95,
                      interval: str = "hypergeometric", min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
    """Precision of gamma-acceptance sets from a pooled design (as :func:`evalcore.estimates.acceptance_estimates`:
    columns ``measure, gamma, size`` and those of :func:`pooled_precision` but n)."""
    gammas, sizes = ranking.acceptance_sizes(gamma)
    table = _precision_table(ranking, sizes, pool, rest_sampled, confidence_level, interval, min_annotated)
    table.insert(1, "gamma", gammas)
    table.insert(2, "size", sizes)
    return table.drop(columns="n")


def pooled_baseline(ranking: Ranking, *, pool, rest_sampled: bool = True, confidence_level: float = 0.95,
                    interval: str = "hypergeometric") -> BaselineEstimate:
    """The proportion of TPs in the candidate set (``pool+sample``) or in the pool (``pool``).

    ``population`` is N (or the pool's size), ``m, k`` the annotated candidates and TPs; the estimate and interval
    are those of :func:`pooled_precision` for the list of every candidate."""
    pool = check_pool(ranking, pool)
    if not rest_sampled:
        sizes = np.array([int(pool.sum())])
        strata = _strata(ranking, pool, False)
        tp = strata.pool_tp.size
        return BaselineEstimate(population=int(sizes[0]), m=int(sizes[0]), k=tp, estimate=tp / sizes[0],
                                lower=tp / sizes[0], upper=tp / sizes[0], interval=interval)
    row = _precision_table(ranking, np.array([ranking.n_candidates]), pool, True, confidence_level, interval,
                           0).iloc[0]
    return BaselineEstimate(population=ranking.n_candidates, m=int(row["m"]), k=int(row["k"]),
                            estimate=float(row["estimate"]), lower=float(row["lower"]), upper=float(row["upper"]),
                            interval=interval)


# ------------------------------------------------------------------------------------------ recall
def pooled_recall(ranking: Ranking, n=None, *, pool, rest_sampled: bool = True, confidence_level: float = 0.95,
                  prior: float = 0.5, draws: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Estimated recall of the n-best lists from a pooled design, with Webber's beta-binomial interval.

    Recall is relative to every TP of the candidate set (``pool+sample``) or of the pool (``pool``, where it is
    given only for lists inside the pool). Columns as :func:`evalcore.estimates.recall_estimates` and
    ``regime``.

    Notes
    -----
    The yields of the four segments, pooled part in the list (``t_in``) and outside it (``t_out``), known, and the
    rest in the list (``r_in`` candidates, ``m_in`` sampled, ``k_in`` TPs) and outside it (``r_out``, ``m_out``,
    ``k_out``), drawn from the posterior ``k + BetaBinomial(r - m, k + prior, m - k + prior)`` as
    :func:`evalcore.estimates.recall_estimates` does for its two segments; recall
    ``Y_in / (Y_in + Y_out)``, the interval its equal-tailed posterior quantiles. Without a rest in the list or
    outside it (both yields known), the interval is the point. The estimate is the ratio of the estimated yields.
    """
    sizes = check_sizes(n, ranking.n_candidates)
    level = check_confidence_level(confidence_level)
    if not prior > 0:
        raise ParameterError(f"`prior` must be positive (0.5 is Jeffreys', 1 the uniform prior); got {prior!r}")
    if not isinstance(draws, (int, np.integer)) or draws < 100:
        raise ParameterError(f"`draws` must be a whole number of at least 100; got {draws!r}")
    pool = check_pool(ranking, pool)
    strata = _strata(ranking, pool, rest_sampled)
    pooled, t_in, m_in, k_in = strata.counts(sizes)
    pool_total, t_total = strata.pool.size, strata.pool_tp.size
    m_total, k_total = strata.rest.size, strata.rest_tp.size
    r_in = sizes - pooled
    r_out = (ranking.n_candidates - pool_total - r_in) if rest_sampled else np.zeros_like(sizes)
    t_out, m_out, k_out = t_total - t_in, m_total - m_in, k_total - k_in
    in_frame = (sizes >= 1) & (rest_sampled | (r_in == 0))
    with np.errstate(invalid="ignore", divide="ignore"):
        y_in = t_in + np.where(r_in == 0, 0.0, np.where(m_in > 0, r_in * k_in / np.maximum(m_in, 1), np.nan))
        y_out = t_out + np.where(r_out == 0, 0.0, np.where(m_out > 0, r_out * k_out / np.maximum(m_out, 1), np.nan))
        point = np.where(y_in + y_out > 0, y_in / (y_in + y_out), np.nan)
    estimate = np.where(in_frame, point, np.nan)
    lower = np.full(sizes.size, np.nan)
    upper = np.full(sizes.size, np.nan)
    known = in_frame & (r_in == 0) & (r_out == 0)
    lower[known], upper[known] = estimate[known], estimate[known]
    rng = np.random.default_rng(seed)
    alpha = 1.0 - level
    idx = np.flatnonzero(in_frame & ~known)
    chunk = max(1, (1 << 22) // draws)

    def yields(k, m, r, j):
        p = rng.beta(k[j] + prior, m[j] - k[j] + prior, size=(draws, j.size))
        return k[j] + rng.binomial(r[j] - m[j], p)

    for start in range(0, idx.size, chunk):
        j = idx[start:start + chunk]
        total_in = t_in[j] + yields(k_in, m_in, r_in, j)
        total_out = t_out[j] + yields(k_out, m_out, r_out, j)
        both = total_in + total_out
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = np.where(both > 0, total_in / np.where(both > 0, both, 1), np.nan)
        bounds = np.nanquantile(recall, [alpha / 2, 1 - alpha / 2], axis=0)
        lower[j], upper[j] = bounds[0], bounds[1]
    return pd.DataFrame({"measure": _constant(ranking.measure, sizes.size), "n": sizes, "m": pooled + m_in,
                         "k": t_in + k_in, "estimate": estimate, "lower": lower, "upper": upper, "in_frame": in_frame,
                         "regime": _regime(np.maximum(r_in, r_out), m_in, rest_sampled)})


# ------------------------------------------------------------------------------ comparing two measures
def _region_counts(ra: np.ndarray, rb: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """How many of the candidates with ranks (ra, rb) are in D1 = A \\ B at each n: rank_a <= n < rank_b."""
    both = np.maximum(ra, rb)
    c = lambda x: np.searchsorted(np.sort(x), sizes, side="right").astype(np.int64)  # noqa: E731
    return c(ra) - c(both)


def effective_counts(size, pooled, pooled_tp, rest_m, rest_k) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A region's TP rate from its two strata, and the effective counts of its variance (see the module's notes).

    Parameters
    ----------
    size : array_like of int
        d, the region's candidates.
    pooled, pooled_tp : array_like of int
        Its candidates in the pool (a) and their TPs (t).
    rest_m, rest_k : array_like of int
        Its sampled candidates outside the pool (m) and their TPs (k); the rest r = d - a.

    Returns
    -------
    estimate, effective, effective_tp : ndarray of float
        ``p = (t + r k / m) / d``; ``N = d^2 / (a + r^2 / m)`` and ``p N`` (N = d, ``p N`` = t where r = 0; NaN
        where r > 0 and m = 0; 0 where d = 0).
    """
    d, a, t, m, k = (np.asarray(x, dtype=float) for x in (size, pooled, pooled_tp, rest_m, rest_k))
    r = d - a
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(r == 0, 0.0, np.where(m > 0, r * k / np.where(m > 0, m, 1), np.nan))
        estimate = np.where(d > 0, (t + share) / np.where(d > 0, d, 1), np.nan)
        variance = a + np.where(m > 0, r * r / np.where(m > 0, m, 1), np.nan)  # r > 0 here: then variance > 0
        effective = np.where(r == 0, d, d * d / np.where(r == 0, 1.0, variance))
    return estimate, effective, np.where(d > 0, estimate * effective, 0.0)


def pooled_compare(a: Ranking, b: Ranking, n=None, *, pool, rest_sampled: bool = True,
                   confidence_level: float = 0.95, alternative: str = "two-sided",
                   min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
    """Fisher's test on the difference regions D1 = A \\ B and D2 = B \\ A from a pooled design.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the candidate set annotated by the design.
    n, confidence_level, alternative, min_annotated
        As :func:`evalcore.estimates.compare_estimates`.
    pool, rest_sampled
        As :func:`pooled_precision`.

    Returns
    -------
    DataFrame
        The columns of :func:`evalcore.estimates.compare_estimates` (``m_d1, k_d1``: annotated candidates and TPs
        of D1, pooled and sampled; ``estimate_d1``: its estimated TP rate from both strata) and ``pooled_d1,
        pooled_tp_d1, rest_d1, effective_d1, effective_tp_d1`` (and for D2) and ``regime``: "exact" where D1 and
        D2 lie in the pool (Fisher's test on their full counts: the full-data test), "estimated" where a region
        reaches beyond it (Fisher's test on the effective counts, rounded), "uncovered" where it does so without a
        sample of the rest (p-value NaN). ``enough``: inside the pool, or each region's rest holds at least
        ``min_annotated`` sampled candidates.
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    min_annotated = check_min_annotated(min_annotated)
    sizes = check_sizes(n, a.n_candidates)
    if a.n_candidates != b.n_candidates:
        raise ParameterError(f"rankings {shown(a.measure)} and {shown(b.measure)} are not of the same candidate set")
    pool = check_pool(a, pool)
    _annotated_pair_ranks(a, b)  # the same candidates annotated, with the same labels
    _strata(a, pool, rest_sampled)  # the pool is complete
    idx = np.arange(a.n_candidates) if a.annotated_ranks is None else a.order[a.annotated_ranks - 1]
    labels = np.zeros(a.n_candidates, dtype=bool)
    labels[a.order] = np.diff(a.tp) > 0
    in_pool = pool[idx]
    sampled = idx[~in_pool] if rest_sampled else idx[:0]
    pooled_idx = np.flatnonzero(pool)
    overlap = np.cumsum(np.bincount(np.maximum(a.ranks, b.ranks), minlength=a.n_candidates + 1))[sizes]
    size_d = sizes - overlap

    def region(first: Ranking, second: Ranking):
        fr, sr = first.ranks, second.ranks
        p = _region_counts(fr[pooled_idx], sr[pooled_idx], sizes)
        ptp_idx = pooled_idx[labels[pooled_idx]]
        ptp = _region_counts(fr[ptp_idx], sr[ptp_idx], sizes)
        m = _region_counts(fr[sampled], sr[sampled], sizes)
        stp = sampled[labels[sampled]]
        k = _region_counts(fr[stp], sr[stp], sizes)
        return p, ptp, m, k

    a1, t1, m1, k1 = region(a, b)
    a2, t2, m2, k2 = region(b, a)
    r1, r2 = size_d - a1, size_d - a2
    e1, n1, x1 = effective_counts(size_d, a1, t1, m1, k1)
    e2, n2, x2 = effective_counts(size_d, a2, t2, m2, k2)
    covered = np.isfinite(n1) & np.isfinite(n2) & (rest_sampled | ((r1 == 0) & (r2 == 0)))
    N1, N2 = np.where(covered, np.rint(n1), 0), np.where(covered, np.rint(n2), 0)
    X1 = np.minimum(np.where(covered, np.rint(np.nan_to_num(x1)), 0), N1)
    X2 = np.minimum(np.where(covered, np.rint(np.nan_to_num(x2)), 0), N2)
    result = fisher_exact(X1, N1 - X1, X2, N2 - X2, alternative)
    exact = (r1 == 0) & (r2 == 0)
    regime = np.where(exact, 0, np.where(covered, 1, 2)).astype(np.int8)
    p = np.where(covered, result.pvalue, np.nan)
    enough = covered & (exact | (((r1 == 0) | (m1 >= min_annotated)) & ((r2 == 0) | (m2 >= min_annotated))))
    return pd.DataFrame({
        "n": sizes, "size_d": size_d, "m_d1": a1 + m1, "k_d1": t1 + k1, "m_d2": a2 + m2, "k_d2": t2 + k2,
        "annotated": a1 + m1 + a2 + m2, "estimate_d1": np.where(covered, e1, np.nan),
        "estimate_d2": np.where(covered, e2, np.nan), "p_value": p,
        "log10_p": np.where(covered, result.log10_pvalue, np.nan),
        "significant": covered & (result.pvalue < 1.0 - level), "in_frame": covered, "enough": enough,
        "pooled_d1": a1, "pooled_tp_d1": t1, "pooled_d2": a2, "pooled_tp_d2": t2, "rest_d1": r1, "rest_d2": r2,
        "effective_d1": np.where(covered, n1, np.nan), "effective_tp_d1": np.where(covered, x1, np.nan),
        "effective_d2": np.where(covered, n2, np.nan), "effective_tp_d2": np.where(covered, x2, np.nan),
        "regime": pd.Categorical.from_codes(regime, categories=list(REGIMES))})


# ------------------------------------------------------------------- the difference of the TP rates
def _agresti_caffo(k1, m1, k2, m2, confidence_level: float):
    """Agresti & Caffo (2000) for two groups of any sizes: Wald after one TP and one FP more in each."""
    z = special.ndtri(1 - (1 - confidence_level) / 2)
    q1, q2 = (k1 + 1.0) / (m1 + 2.0), (k2 + 1.0) / (m2 + 2.0)
    half = z * np.sqrt(q1 * (1 - q1) / (m1 + 2.0) + q2 * (1 - q2) / (m2 + 2.0))
    return np.maximum(q1 - q2 - half, -1.0), np.minimum(q1 - q2 + half, 1.0)


DIFFERENCE_METHODS: dict[str, Callable] = {"newcombe": newcombe_difference_interval,
                                           "agresti_caffo": _agresti_caffo}


def pooled_difference_interval(comparison: pd.DataFrame, confidence_level: float = 0.95,
                               method: str = "newcombe") -> pd.DataFrame:
    """:func:`pooled_compare`'s table with ``difference`` (``estimate_d1 - estimate_d2``) and its interval
    ``difference_low, difference_high`` by ``method`` ("newcombe", "agresti_caffo", as
    :data:`evalcore.names.DIFFERENCE_INTERVALS`) on the effective counts (not rounded): inside the pool the
    full-data interval, where a region has no pooled part the sample's. NaN where not covered; [0, 0] where the
    regions are empty."""
    level = check_confidence_level(confidence_level)
    if method not in DIFFERENCE_METHODS:
        raise ParameterError(f"`method` must be one of {', '.join(DIFFERENCE_METHODS)}; got {method!r}")
    x1, n1, x2, n2 = (comparison[c].to_numpy(float) for c in ("effective_tp_d1", "effective_d1", "effective_tp_d2",
                                                                "effective_d2"))
    empty = comparison["size_d"].to_numpy() == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = DIFFERENCE_METHODS[method](x1, n1, x2, n2, level)
    low, high = np.where(empty, 0.0, low), np.where(empty, 0.0, high)
    difference = np.where(empty, 0.0, comparison["estimate_d1"] - comparison["estimate_d2"])
    covered = comparison["in_frame"].to_numpy(bool)
    return comparison.assign(difference=np.where(covered, difference, np.nan),
                             difference_low=np.where(covered, low, np.nan),
                             difference_high=np.where(covered, high, np.nan))
