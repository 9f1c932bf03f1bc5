"""Power: could the experiment have found a difference, and how many candidates would it need?

For two n-best lists the tests of :mod:`evalcore.compare` and :mod:`evalcore.stats.pairtests` look at
the difference regions D1 = A \\ B and D2 = B \\ A, both of size d. Under the model of Evert
(2004, §3.3) ``T_D1 ~ Bin(d, pi_D1)`` and ``T_D2 ~ Bin(d, pi_D2)`` independently. This module gives

* :func:`exact_power`: the exact power of the two-sided Fisher test on D1/D2 (or of the exact
  McNemar test on the discordant TPs) at level alpha: the sum, over every outcome
  ``(T_D1, T_D2)``, of its binomial probability where the test rejects (p < alpha, as the
  significance markers);
* :func:`minimum_detectable_difference` and :func:`detectable_differences`: the smallest
  ``pi_D1 - pi_D2`` (and ``Pi_A - Pi_B``) the test finds with a chosen power, for the overlap
  and the pooled precision of the difference regions observed at each n;
* :func:`plan_experiment`: the n-best list size (and the candidates to annotate) needed for a
  chosen power, for hypothesised precisions of two measures and an expected overlap;
* :func:`paired_t_power` and :func:`paired_t_samples`: power and number of samples of the
  paired t-test over several samples, as R's ``power.t.test(type = "paired")``.

No function computes "observed power" (power at the observed difference): it is a function
of the p-value alone and says nothing the p-value does not (Hoenig & Heisey 2001).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from numba import njit
from scipy import integrate, optimize, special, stats

from .. import names
from ..errors import ColumnError, ParameterError
from .fisher import ALTERNATIVES
from .kernels import _log_dbinom_raw, _log_lower_tail, _ratio_up, fisher_log_pvalues, log_dhyper
from .pairtests import mcnemar_exact

_TAIL_EPS = 1e-17   # binomial windows: the left-out mass is below this
_BERNSTEIN_LOG = math.log(2e18)  # margins: P(M outside the range) < 1e-18 by Bernstein's inequality
MAX_SIZE = 10_000_000  # d up to this (McNemar's exact p-value follows R's mirror rule up to 2e7 TPs)


# ------------------------------------------------------------------------------ p-value tables
def _fisher_p(x: np.ndarray, m: np.ndarray, d: int) -> np.ndarray:
    # fisher_exact's kernel without its input checks (the cells are valid by construction)
    cells = [np.ascontiguousarray(v, dtype=np.float64) for v in (x, d - x, m - x, d - m + x)]
    return np.exp(fisher_log_pvalues(*cells, ALTERNATIVES["two-sided"]))


def _mcnemar_p(x: np.ndarray, m: np.ndarray, d: int) -> np.ndarray:
    return mcnemar_exact(x, m - x)


def _fisher_sd(m: np.ndarray, d: int) -> np.ndarray:
    """Standard deviation of T_D1 given m TPs in D1 and D2 under H0 (hypergeometric)."""
    return np.sqrt(m * (2.0 * d - m) / (4.0 * max(2.0 * d - 1.0, 1.0)))


def _mcnemar_sd(m: np.ndarray, d: int) -> np.ndarray:
    return 0.5 * np.sqrt(m)


@dataclass(frozen=True)
class _Test:
    pvalue: Callable[[np.ndarray, np.ndarray, int], np.ndarray]
    null_sd: Callable[[np.ndarray, int], np.ndarray]


POWER_TESTS: dict[str, _Test] = {"fisher": _Test(_fisher_p, _fisher_sd), "mcnemar": _Test(_mcnemar_p, _mcnemar_sd)}
POWER_TEST_LABELS = names.POWER_TESTS


def _check_test(test: str) -> _Test:
    if test not in POWER_TESTS:
        raise ParameterError(f"`test` must be one of {', '.join(POWER_TESTS)}; got {test!r}")
    return POWER_TESTS[test]


def _check_alpha(alpha: float) -> float:
    value = float(alpha)
    if not 0.0 < value < 1.0:
        raise ParameterError(f"`alpha` must be in (0, 1), e.g. 0.05; got {alpha!r}")
    return value


def _check_power(power: float) -> float:
    value = float(power)
    if not 0.0 < value < 1.0:
        raise ParameterError(f"`power` must be in (0, 1), e.g. 0.8; got {power!r}")
    return value


def _check_size(size) -> int:
    if isinstance(size, bool) or not float(size).is_integer() or not 0 <= size <= MAX_SIZE:
        raise ParameterError(f"`size` (d, the candidates in each difference region) must be a whole number "
                             f"from 0 to {MAX_SIZE:,}; got {size!r}")
    return int(size)


def _check_probability(name: str, value) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if np.any(~np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
        raise ParameterError(f"`{name}` must be a probability in [0, 1]; got {value!r}")
    return arr


_RECHECK = 1e-9   # a tail within this relative distance of alpha / 2 is decided again exactly
_REANCHOR = 256   # the tail carried from margin to margin is recomputed exactly this often


@njit(cache=True)
def _fisher_log_lower(x: int, m: int, d: int) -> float:
    """log P(T_D1 <= x) given m TPs in D1 and D2 (hypergeometric), as the Fisher kernel sums it."""
    lo = max(0, m - d)
    hi = min(d, m)
    mode = float(min(max((m + 1) // 2, lo), hi))
    return _log_lower_tail(float(x), float(lo), float(hi), mode, float(m), 2.0 * d - m, float(d))


@njit(cache=True)
def _fisher_rejects(tail: float, x: int, m: int, d: int, half: float, log_half: float) -> bool:
    """Is P(T_D1 <= x) = `tail` below alpha / 2? Close calls are made with the exact tail."""
    if abs(tail / half - 1.0) > _RECHECK:
        return tail < half
    return _fisher_log_lower(x, m, d) < log_half


@njit(cache=True)
def _fisher_critical_values(d: int, m_lo: int, m_hi: int, log_half_alpha: float, z: float) -> np.ndarray:
    """``c_m`` of Fisher's two-sided test for the margins m_lo..m_hi, in O(1) per margin.

    With rows of equal size d the null distribution of T_D1 given m is symmetric, so the two-sided
    p-value of x < m / 2 is 2 P(X <= x) (R's tolerance of 1e-7 adds a point only where neighbouring
    probabilities differ by less than that, which needs d far above 10^7), and the test rejects iff
    P(X <= x) < alpha / 2. One more TP falls into D1 with probability (d - X) / (2d - m), so from
    margin m to m + 1 at a fixed x

        P_{m+1}(X <= x) = P_m(X <= x) - P_m(X = x) (d - x) / (2d - m),
        P_{m+1}(X = x)  = P_m(X = x) (d - m + x) (m + 1) / ((m - x + 1)(2d - m)),

    and ``c`` moves up by 0 or 1: the tail at c and at c + 1 follow from these. Close calls and
    every 256th margin are computed exactly (Loader's densities, :mod:`evalcore.stats.kernels`);
    where the carried value cannot be used the margin is searched exactly.
    """
    out = np.empty(m_hi - m_lo + 1, dtype=np.int64)
    half = math.exp(log_half_alpha)
    c = -1
    tracking = False
    tail = 0.0   # P_m(X <= c) while tracking
    dens = 0.0   # P_m(X = c)
    for i in range(m_hi - m_lo + 1):
        m = m_lo + i
        lo = max(0, m - d)
        top = m // 2
        if tracking and i % _REANCHOR != 0:
            prev = m - 1
            tail = tail - dens * (d - c) / (2.0 * d - prev)
            dens = dens * (d - prev + c) * (prev + 1.0) / ((prev - c + 1.0) * (2.0 * d - prev))
            if c >= lo and 2 * c < m and _fisher_rejects(tail, c, m, d, half, log_half_alpha):
                while 2 * (c + 1) < m:
                    dens_up = dens * _ratio_up(float(c), float(m), 2.0 * d - m, float(d))
                    if not _fisher_rejects(tail + dens_up, c + 1, m, d, half, log_half_alpha):
                        break
                    c += 1
                    tail += dens_up
                    dens = dens_up
                out[i] = c
                continue
        # an exact search from the previous value (or a normal approximation at the first margin)
        if i == 0:
            sd = math.sqrt(m * (2.0 * d - m) / (4.0 * max(2.0 * d - 1.0, 1.0)))
            c = int(math.floor(m / 2.0 - z * sd))
        c = min(max(c, lo - 1), top)
        while c >= lo and _fisher_log_lower(c, m, d) >= log_half_alpha:
            c -= 1
        while 2 * (c + 1) < m and _fisher_log_lower(c + 1, m, d) < log_half_alpha:
            c += 1
        out[i] = c
        tracking = c >= lo
        if tracking:
            tail = math.exp(_fisher_log_lower(c, m, d))
            dens = math.exp(log_dhyper(float(c), float(m), 2.0 * d - m, float(d)))
    return out


def critical_values(size: int, margins, alpha: float = 0.05, test: str = "fisher") -> np.ndarray:
    """The two-sided test's rejection region for each margin m = T_D1 + T_D2.

    Parameters
    ----------
    size : int
        d = |D1| = |D2|.
    margins : array_like of int
        Numbers m of TPs in D1 and D2 together, ``0 <= m <= 2 d``.
    alpha : float
        The test rejects where p < alpha.
    test : {"fisher", "mcnemar"}

    Returns
    -------
    ndarray of int64
        ``c_m``: the test rejects exactly the outcomes ``T_D1 <= c_m`` and ``T_D1 >= m - c_m``;
        ``c_m < max(0, m - d)`` where it rejects none.

    Notes
    -----
    Given m, both tests have a null distribution of T_D1 symmetric about m / 2 and unimodal
    (hypergeometric for Fisher, with rows of equal size d; Bin(m, 1/2) for McNemar), so the
    two-sided p-value grows with x up to m / 2 and the region is the two tails. ``c_m`` is
    found from a normal approximation and moved until ``p(c_m) < alpha <= p(c_m + 1)``, with
    the p-values of :func:`evalcore.stats.fisher.fisher_exact` and
    :func:`evalcore.stats.pairtests.mcnemar_exact` themselves (R's rule for ties included).
    """
    spec = _check_test(test)
    d = _check_size(size)
    alpha = _check_alpha(alpha)
    m = np.asarray(margins, dtype=np.int64)
    if np.any(m < 0) or np.any(m > 2 * d):
        raise ParameterError(f"`margins` must lie in 0..2d = 0..{2 * d}")
    z = special.ndtri(1.0 - alpha / 2.0)
    if test == "fisher" and m.size and np.all(np.diff(m) == 1):
        return _fisher_critical_values(d, int(m[0]), int(m[-1]), math.log(alpha / 2.0), float(z))
    lo = np.maximum(0, m - d)
    top = m // 2  # p = 1 at x = m / 2 (m even); beyond m / 2 by symmetry
    mf = m.astype(np.float64)
    guess = np.floor(mf / 2.0 - z * spec.null_sd(mf, d))
    c = np.clip(np.nan_to_num(guess, nan=-1.0).astype(np.int64), lo - 1, top)
    for _ in range(4 * d + 8):
        has = c >= lo
        p_c = np.zeros(c.shape)
        if has.any():
            p_c[has] = spec.pvalue(c[has].astype(np.float64), mf[has], d)
        nxt = c + 1 <= top
        p_next = np.ones(c.shape)
        if nxt.any():
            p_next[nxt] = spec.pvalue((c[nxt] + 1).astype(np.float64), mf[nxt], d)
        down = has & (p_c >= alpha)
        up = ~down & nxt & (p_next < alpha)
        if not (down.any() or up.any()):
            return c
        c = c - down + up
    raise RuntimeError("critical_values did not settle; the p-values are not monotone")  # pragma: no cover


# ---------------------------------------------------------------------------------- kernels
@njit(cache=True)
def _binomial_window(d: int, p: float) -> tuple:
    """(first x, P(X = x) for x from there) of Bin(d, p), leaving out less than 1e-17 of the mass."""
    if p <= 0.0 or d == 0:
        return 0, np.ones(1)
    if p >= 1.0:
        return d, np.ones(1)
    q = 1.0 - p
    mode = math.floor((d + 1.0) * p)
    if mode > d:
        mode = d
    # walk out from the mode with the ratio of consecutive probabilities
    up = 0
    t = 1.0
    s = 1.0
    x = mode
    while x < d:
        r = (d - x) / (x + 1.0) * (p / q)
        t *= r
        x += 1
        up += 1
        s += t
        if t * r < _TAIL_EPS * s * (1.0 - r):
            break
    down = 0
    t = 1.0
    x = mode
    while x > 0:
        r = x / (d - x + 1.0) * (q / p)
        t *= r
        x -= 1
        down += 1
        s += t
        if t * r < _TAIL_EPS * s * (1.0 - r):
            break
    first = mode - down
    pmf = np.empty(down + up + 1)
    pmf[down] = math.exp(_log_dbinom_raw(float(mode), float(d), p, q))
    for i in range(down + 1, down + up + 1):
        x = first + i - 1
        pmf[i] = pmf[i - 1] * (d - x) / (x + 1.0) * (p / q)
    for i in range(down - 1, -1, -1):
        x = first + i + 1
        pmf[i] = pmf[i + 1] * x / (d - x + 1.0) * (q / p)
    return first, pmf


@njit(cache=True)
def _power_from_limits(d: int, p1: float, p2: float, last_low: np.ndarray, first_high: np.ndarray) -> float:
    """Sum over x1 of P(T1 = x1) P(T2 in [0, last_low[x1]] or [first_high[x1], d])."""
    first1, pmf1 = _binomial_window(d, p1)
    first2, pmf2 = _binomial_window(d, p2)
    k2 = pmf2.shape[0]
    below = np.empty(k2 + 1)  # below[i] = P(T2 < first2 + i)
    below[0] = 0.0
    for i in range(k2):
        below[i + 1] = below[i] + pmf2[i]
    above = np.empty(k2 + 1)  # above[i] = P(T2 >= first2 + i)
    above[k2] = 0.0
    for i in range(k2 - 1, -1, -1):
        above[i] = above[i + 1] + pmf2[i]
    total = 0.0
    for i in range(pmf1.shape[0]):
        x1 = first1 + i
        hi_low = last_low[x1] - first2 + 1    # T2 <= last_low: below[hi_low]
        lo_high = first_high[x1] - first2     # T2 >= first_high: above[lo_high]
        if lo_high <= hi_low:                 # the two parts meet: every T2 rejects
            share = 1.0
        else:
            share = below[min(max(hi_low, 0), k2)] + above[min(max(lo_high, 0), k2)]
        total += pmf1[i] * share
    return min(total, 1.0)


@njit(cache=True)
def _power_from_cells(d: int, p1: float, p2: float, m_lo: int, c: np.ndarray) -> float:
    """The same sum cell by cell: (x1, x2) rejects where min(x1, x2) <= c[x1 + x2 - m_lo]."""
    first1, pmf1 = _binomial_window(d, p1)
    first2, pmf2 = _binomial_window(d, p2)
    total = 0.0
    for i in range(pmf1.shape[0]):
        x1 = first1 + i
        part = 0.0
        for j in range(pmf2.shape[0]):
            x2 = first2 + j
            k = x1 + x2 - m_lo
            if 0 <= k < c.shape[0] and min(x1, x2) <= c[k]:
                part += pmf2[j]
        total += pmf1[i] * part
    return min(total, 1.0)


@njit(cache=True)
def _mdd_from_limits(d: int, pooled: float, target: float, last_low: np.ndarray, first_high: np.ndarray,
                     z_sum: float) -> float:
    """delta in (0, top] with power(pooled + delta/2, pooled - delta/2) = target (Illinois method), or NaN.

    The bracket [0, top] is first narrowed around the normal approximation
    ``(z_{1-alpha/2} + z_power) sqrt(2 pooled (1 - pooled) / d)`` (`z_sum` is the sum of the z's).
    """
    top = 2.0 * min(pooled, 1.0 - pooled)
    lo_d = 0.0
    hi_d = top
    f_lo = _power_from_limits(d, pooled, pooled, last_low, first_high) - target
    f_hi = _power_from_limits(d, min(1.0, pooled + top / 2), max(0.0, pooled - top / 2), last_low, first_high) \
        - target
    if f_hi < 0.0:
        return math.nan
    if f_lo >= 0.0:
        return 0.0
    guess = z_sum * math.sqrt(2.0 * pooled * (1.0 - pooled) / d)
    for factor in (1.0, 0.9, 1.1):
        x = guess * factor
        if lo_d < x < hi_d:
            fx = _power_from_limits(d, min(1.0, pooled + x / 2), max(0.0, pooled - x / 2), last_low, first_high) \
                - target
            if fx > 0.0:
                hi_d, f_hi = x, fx
            else:
                lo_d, f_lo = x, fx
    side = 0
    last = math.nan
    for _ in range(200):
        x = (lo_d * f_hi - hi_d * f_lo) / (f_hi - f_lo)
        if not (lo_d < x < hi_d):
            x = 0.5 * (lo_d + hi_d)
        fx = _power_from_limits(d, min(1.0, pooled + x / 2), max(0.0, pooled - x / 2), last_low, first_high) \
            - target
        if fx == 0.0 or abs(x - last) <= 1e-13 * (1.0 + x) or hi_d - lo_d <= 1e-13:
            return x
        last = x
        if fx > 0.0:
            hi_d, f_hi = x, fx
            if side == -1:
                f_lo *= 0.5
            side = -1
        else:
            lo_d, f_lo = x, fx
            if side == 1:
                f_hi *= 0.5
            side = 1
    return last


@njit(cache=True)
def _run_limits(d: int, m_lo: int, c: np.ndarray) -> tuple:
    """(last_low, first_high) for x1 = 0..d from critical values rising by 0 or 1 (see RejectionRegion)."""
    last_low = np.empty(d + 1, dtype=np.int64)
    first_high = np.empty(d + 1, dtype=np.int64)
    count = c.shape[0]
    below = 0  # margins i with h(i) = m_lo + i - c[i] <= x1
    under = 0  # margins i with c[i] < x1
    for x1 in range(d + 1):
        while below < count and m_lo + below - c[below] <= x1:
            below += 1
        while under < count and c[under] < x1:
            under += 1
        last_low[x1] = m_lo + below - 1 - x1
        first_high[x1] = m_lo + under - x1
    return last_low, first_high


@njit(cache=True)
def _bernstein_range(d: int, mean: float, variance: float) -> tuple:
    log_b = _BERNSTEIN_LOG
    t = (2.0 * log_b / 3.0 + math.sqrt((2.0 * log_b / 3.0) ** 2 + 8.0 * log_b * variance)) / 2.0
    return max(0, int(math.floor(mean - t)) - 1), min(2 * d, int(math.ceil(mean + t)) + 1)


@njit(cache=True)
def _fisher_mdd_rows(size: np.ndarray, tps: np.ndarray, log_half_alpha: float, z: float, target: float,
                     z_sum: float) -> np.ndarray:
    """The minimum detectable pi_D1 - pi_D2 of Fisher's test for rows sorted by d (NaN where undefined).

    Rows of one d share one rejection region over the margins all their pooled precisions reach;
    where critical values would not rise by 0 or 1 (never seen) the rows get -1: the caller then
    takes the general route.
    """
    out = np.full(size.shape[0], math.nan)
    start = 0
    while start < size.shape[0]:
        d = size[start]
        stop = start
        while stop < size.shape[0] and size[stop] == d:
            stop += 1
        if d > 0:
            m_lo = 2 * d
            m_hi = 0
            for i in range(start, stop):
                t = float(tps[i])
                lo_i, hi_i = _bernstein_range(d, t, t * (1.0 - t / (2.0 * d)))
                m_lo = min(m_lo, lo_i)
                m_hi = max(m_hi, hi_i)
            c = _fisher_critical_values(d, m_lo, m_hi, log_half_alpha, z)
            monotone = True
            for i in range(1, c.shape[0]):
                if c[i] - c[i - 1] != 0 and c[i] - c[i - 1] != 1:
                    monotone = False
            if not monotone:  # pragma: no cover - never seen
                out[start:stop] = -1.0
            else:
                last_low, first_high = _run_limits(d, m_lo, c)
                for i in range(start, stop):
                    if i > start and tps[i] == tps[i - 1]:
                        out[i] = out[i - 1]
                    elif 0 < tps[i] < 2 * d:
                        out[i] = _mdd_from_limits(d, tps[i] / (2.0 * d), target, last_low, first_high, z_sum)
        start = stop
    return out


# ------------------------------------------------------------------------------ rejection region
def _margin_range(size: int, mean: float, variance: float) -> tuple[int, int]:
    """Margins m with P(M outside) < 1e-18 for M = T_D1 + T_D2 (Bernstein's inequality)."""
    return _bernstein_range(size, mean, variance)


@dataclass(frozen=True)
class RejectionRegion:
    """Where a two-sided test on D1/D2 of size d rejects, for the margins m_lo..m_lo + len(c) - 1.

    ``c[i]`` is :func:`critical_values` of ``m = m_lo + i``. Where ``c`` rises by 0 or 1 from
    one margin to the next (always so far), the outcomes rejected for each ``T_D1 = x1`` are two
    runs of ``T_D2``: ``[0, last_low[x1]]`` and ``[first_high[x1], d]``, and the power is one sum
    over x1 (:meth:`power`); otherwise every cell is checked.
    """

    size: int
    alpha: float
    test: str
    m_lo: int
    c: np.ndarray
    last_low: np.ndarray | None
    first_high: np.ndarray | None

    @classmethod
    def build(cls, size: int, alpha: float, test: str, m_lo: int, m_hi: int) -> "RejectionRegion":
        margins = np.arange(m_lo, m_hi + 1)
        c = critical_values(size, margins, alpha, test)
        step = np.diff(c)
        if np.all((step == 0) | (step == 1)):
            # x2 <= c(x1 + x2)  <=>  h(m) = m - c(m) <= x1 (h does not decrease): m up to a last one;
            # x1 <= c(m): from a first m on (c does not decrease)
            # margins outside m_lo..m_hi have no probability worth counting: below m_lo count as
            # rejected low, above m_hi as rejected high (either choice changes the power by < 1e-18)
            last_low, first_high = _run_limits(size, m_lo, c.astype(np.int64))
            return cls(size, alpha, test, m_lo, c, last_low, first_high)
        return cls(size, alpha, test, m_lo, c, None, None)  # pragma: no cover - never seen; kept for safety

    def power(self, pi_d1: float, pi_d2: float) -> float:
        """Exact power at (pi_D1, pi_D2); the margins of the outcomes must lie in this region's range."""
        if self.size == 0:
            return 0.0
        if self.last_low is not None:
            return float(_power_from_limits(self.size, float(pi_d1), float(pi_d2), self.last_low, self.first_high))
        return float(_power_from_cells(self.size, float(pi_d1), float(pi_d2), self.m_lo, self.c))


def rejection_region(size: int, alpha: float = 0.05, test: str = "fisher", *, pooled: float | None = None,
                     pi_d1: float | None = None, pi_d2: float | None = None) -> RejectionRegion:
    """The rejection region for every margin that outcomes under the given precisions reach.

    Give ``pooled`` (the margins of every pair with ``(pi_D1 + pi_D2) / 2 = pooled``, for the
    minimum detectable difference) or ``pi_d1`` and ``pi_d2``; with neither, every margin 0..2d.
    """
    d = _check_size(size)
    alpha = _check_alpha(alpha)
    _check_test(test)
    if pooled is not None:
        p = float(_check_probability("pooled", pooled))
        m_lo, m_hi = _margin_range(d, 2 * d * p, 2 * d * p * (1 - p))
    elif pi_d1 is not None and pi_d2 is not None:
        p1, p2 = float(_check_probability("pi_d1", pi_d1)), float(_check_probability("pi_d2", pi_d2))
        m_lo, m_hi = _margin_range(d, d * (p1 + p2), d * (p1 * (1 - p1) + p2 * (1 - p2)))
    else:
        m_lo, m_hi = 0, 2 * d
    return RejectionRegion.build(d, alpha, test, m_lo, m_hi)


def exact_power(pi_d1, pi_d2, size: int, alpha: float = 0.05, test: str = "fisher") -> float:
    """Exact power of the two-sided test of two n-best lists on their difference regions.

    Parameters
    ----------
    pi_d1, pi_d2 : float
        True TP rates of D1 = A \\ B and D2 = B \\ A.
    size : int
        d = |D1| = |D2| (0 to 10,000,000).
    alpha : float
        Level; the test rejects where p < alpha, as the significance markers.
    test : {"fisher", "mcnemar"}
        Fisher's exact test on ``[[T_D1, F_D1], [T_D2, F_D2]]`` (Evert 2004, §3.3) or the exact
        McNemar test on the discordant TPs (:func:`evalcore.stats.pairtests.mcnemar_exact`).

    Returns
    -------
    float
        ``sum over (t1, t2) of P(T_D1 = t1) P(T_D2 = t2) [the test rejects (t1, t2)]``; 0 at d = 0.

    Notes
    -----
    The rejection region depends on d and the margin m = t1 + t2 only, so it is computed once
    per margin (:func:`critical_values`), for the margins that carry probability (Bernstein's
    inequality bounds the rest below 1e-18). For each t1 the rejected t2 form two runs, so the
    sum is one pass over the binomial probabilities of T_D1 with cumulative sums of those of
    T_D2; binomial probabilities are summed outward from the mode and cut where the rest is
    below 1e-17. Cost O(sqrt(d)) for the margins and the sum: d = 10,000 takes milliseconds.

    Because the test conditions on m and has level alpha for every m, the power at
    ``pi_D1 = pi_D2`` is at most alpha (for McNemar too: given m, T_D1 is then
    hypergeometric, which is more concentrated than Bin(m, 1/2)). Power grows with d and with
    ``|pi_D1 - pi_D2|`` up to the saw-teeth of a discrete test.

    References
    ----------
    Evert, S. (2004). Significance tests for the evaluation of ranking methods. §3.3.
    Smyth, G. K., ``statmod::power.fisher.test`` (the same power by simulation).

    Examples
    --------
    >>> round(exact_power(0.5, 0.2, 50), 4)   # statmod::power.fisher.test, 20,000 draws: 0.8520
    0.8527
    """
    p1 = float(_check_probability("pi_d1", pi_d1))
    p2 = float(_check_probability("pi_d2", pi_d2))
    region = rejection_region(size, alpha, test, pi_d1=p1, pi_d2=p2)
    return region.power(p1, p2)


# ---------------------------------------------------------------------- minimum detectable difference
def minimum_detectable_difference(size: int, pooled: float, alpha: float = 0.05, power: float = 0.8,
                                  test: str = "fisher", *, region: RejectionRegion | None = None) -> float:
    """Smallest ``pi_D1 - pi_D2`` the test detects with the given power, the pooled precision fixed.

    Parameters
    ----------
    size : int
        d = |D1| = |D2|.
    pooled : float
        ``(pi_D1 + pi_D2) / 2``, the precision of D1 and D2 together (observed:
        ``(T_D1 + T_D2) / (2 d)``).
    alpha, power, test
        Level, the power wanted (default 80%), and the test (see :func:`exact_power`).
    region : RejectionRegion, optional
        ``rejection_region(size, alpha, test, pooled=pooled)``, when already at hand.

    Returns
    -------
    float
        delta > 0 with ``exact_power(pooled + delta/2, pooled - delta/2, d) = power`` (to 1e-10);
        NaN where even the largest difference the pooled precision allows,
        ``2 min(pooled, 1 - pooled)``, is detected with less than that power (too few
        candidates), and where d = 0.

    Notes
    -----
    Power is symmetric in the sign of the difference (the test is two-sided and the regions
    have one size), so delta is the difference either way. Power rises with delta at fixed
    pooled precision; the root is bracketed between 0 (power at most alpha) and the largest
    delta, and found by the Illinois method (regula falsi) in a compiled loop, to 1e-13.
    """
    d = _check_size(size)
    alpha = _check_alpha(alpha)
    target = _check_power(power)
    p = float(_check_probability("pooled", pooled))
    top = 2.0 * min(p, 1.0 - p)
    if d == 0 or top <= 0.0 or target <= alpha:
        return math.nan
    region = region or rejection_region(d, alpha, test, pooled=p)
    if region.last_low is not None:
        z_sum = float(special.ndtri(1.0 - alpha / 2.0) + special.ndtri(target))
        return float(_mdd_from_limits(d, p, target, region.last_low, region.first_high, z_sum))

    def gap(delta: float) -> float:  # pragma: no cover - regions without runs have not been seen
        return region.power(min(1.0, p + delta / 2), max(0.0, p - delta / 2)) - target

    if gap(top) < 0:
        return math.nan
    return float(optimize.brentq(gap, 0.0, top, xtol=1e-12, rtol=1e-12))


MDD_COLUMNS = ("n", "size", "pooled", "mdd_pi", "mdd")


def detectable_differences(regions: pd.DataFrame, alpha: float = 0.05, power: float = 0.8,
                           test: str = "fisher") -> pd.DataFrame:
    """The minimum detectable difference at each n of a comparison of two n-best lists.

    Parameters
    ----------
    regions : DataFrame
        :func:`evalcore.compare.compare_rankings` (columns ``n, tp_d1, fp_d1, tp_d2, fp_d2``).
    alpha, power, test
        See :func:`minimum_detectable_difference`.

    Returns
    -------
    DataFrame
        ``n``; ``size`` = d; ``pooled`` = ``(T_D1 + T_D2) / (2 d)``; ``mdd_pi``, the smallest
        ``pi_D1 - pi_D2`` detected with the given power; ``mdd`` = ``(d / n) mdd_pi``, the same
        as a difference of the precisions ``Pi_A - Pi_B``. NaN where d = 0, where the regions
        hold only TPs or only FPs, or where no difference is detected with that power.

    Notes
    -----
    Where a difference is not significant, a small ``mdd`` says the lists truly perform alike
    (a difference that size would have been found), a large one that there are too few
    candidates in D1 and D2 to tell. This is not "observed power": nothing here depends on the
    observed difference, only on d and the pooled precision.
    """
    missing = [c for c in ("n", "tp_d1", "fp_d1", "tp_d2", "fp_d2") if c not in regions.columns]
    if missing:
        raise ColumnError(f"`regions` lacks the column(s) {', '.join(missing)}; pass a table of "
                          "evalcore.compare.compare_rankings")
    alpha = _check_alpha(alpha)
    _check_power(power)
    _check_test(test)
    n = regions["n"].to_numpy()
    size = (regions["tp_d1"] + regions["fp_d1"]).to_numpy()
    tps = (regions["tp_d1"] + regions["tp_d2"]).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.where(size > 0, tps / (2.0 * size), np.nan)
    mdd_pi = np.full(n.shape, np.nan)
    if test == "fisher" and n.size:
        order = np.lexsort((tps, size))
        z = float(special.ndtri(1.0 - alpha / 2.0))
        z_sum = z + float(special.ndtri(power))
        found = np.empty(n.size)
        found[order] = _fisher_mdd_rows(size[order].astype(np.int64), tps[order].astype(np.int64),
                                        math.log(alpha / 2.0), z, float(power), z_sum)
        general = found == -1.0
        mdd_pi = np.where(general, np.nan, found)
        todo = np.unique(size[general & (size > 0)])
    else:
        todo = np.unique(size[size > 0])
    for d in todo:
        rows = np.flatnonzero(size == d)
        # one rejection region per d, for the margins of every pooled precision seen with it (McNemar;
        # Fisher's is done above in one compiled loop)
        ranges = [_margin_range(int(d), float(t), float(t) * (1 - t / (2.0 * d))) for t in np.unique(tps[rows])]
        region = RejectionRegion.build(int(d), alpha, test, min(r[0] for r in ranges), max(r[1] for r in ranges))
        memo: dict[int, float] = {}
        for i in rows:
            if tps[i] not in memo:
                memo[tps[i]] = minimum_detectable_difference(int(d), pooled[i], alpha, power, test, region=region)
            mdd_pi[i] = memo[tps[i]]
    return pd.DataFrame({"n": n, "size": size, "pooled": pooled, "mdd_pi": mdd_pi, "mdd": mdd_pi * size / n})


# --------------------------------------------------------------------------------- planning
@dataclass(frozen=True)
class ExperimentPlan:
    """What an experiment needs to detect a hypothesised difference of two measures.

    ``n``: the n-best list size; ``size``: d, the candidates in each difference region
    (``n = ceil(d / (1 - overlap))``); ``candidates``: ``n + d``, the candidates in A ∪ B, all
    of which must be annotated; ``pi_d1, pi_d2``: the TP rates of D1 and D2 the hypotheses
    imply; ``power``: the exact power at d (at least the target).
    """

    n: int
    size: int
    candidates: int
    pi_d1: float
    pi_d2: float
    power: float

    def as_dict(self) -> dict:
        return {"n": self.n, "size": self.size, "candidates": self.candidates, "pi_d1": self.pi_d1,
                "pi_d2": self.pi_d2, "power": self.power}


def region_precisions(precision_a: float, precision_b: float, overlap: float,
                      shared_precision: float | None = None) -> tuple[float, float]:
    """TP rates of D1 and D2 implied by the precisions of A and B and their overlap.

    ``Pi_A = o pi_S + (1 - o) pi_D1`` with ``o = |A ∩ B| / n`` and ``pi_S`` the precision of the
    shared candidates (by default ``(Pi_A + Pi_B) / 2``: then D1 and D2 together are as precise
    as the shared part, and ``pi_D1 - pi_D2 = (Pi_A - Pi_B) / (1 - o)``).
    """
    pa = float(_check_probability("precision_a", precision_a))
    pb = float(_check_probability("precision_b", precision_b))
    o = float(overlap)
    if not 0.0 <= o < 1.0:
        raise ParameterError(f"`overlap` (the share of the n-best lists that A and B have in common) must be in "
                             f"[0, 1); got {overlap!r}")
    shared = (pa + pb) / 2 if shared_precision is None else float(_check_probability("shared_precision",
                                                                                        shared_precision))
    p1 = (pa - o * shared) / (1 - o)
    p2 = (pb - o * shared) / (1 - o)
    for name, value in (("D1 = A \\ B", p1), ("D2 = B \\ A", p2)):
        if not -1e-12 <= value <= 1 + 1e-12:
            raise ParameterError(f"these precisions and overlap imply a TP rate of {value:.4g} in {name}, outside "
                                 f"[0, 1]; lower the overlap or change `shared_precision`")
    return min(max(p1, 0.0), 1.0), min(max(p2, 0.0), 1.0)


def plan_experiment(precision_a: float, precision_b: float, overlap: float, *,
                    shared_precision: float | None = None, alpha: float = 0.05, power: float = 0.8,
                    test: str = "fisher", max_size: int = MAX_SIZE) -> ExperimentPlan:
    """The n-best list size needed to detect a difference of precision with the given power.

    Parameters
    ----------
    precision_a, precision_b : float
        Hypothesised precisions of the two measures' n-best lists.
    overlap : float
        Expected share of the n-best lists the measures have in common, ``|A ∩ B| / n`` in [0, 1).
    shared_precision : float, optional
        Precision of the common candidates (see :func:`region_precisions`).
    alpha, power, test
        See :func:`exact_power`.
    max_size : int
        Largest d searched.

    Returns
    -------
    ExperimentPlan

    Notes
    -----
    The power depends on n only through d. A discrete test's power saw-tooths in d: the
    smallest d with power >= target is found by doubling, bisection (which assumes power rises
    with d) and a scan of the 20 d (or 2%) below the result for a smaller d that reaches the
    target too. Raises :class:`~evalcore.errors.ParameterError` when the precisions are equal
    or ``max_size`` is not enough.

    Examples
    --------
    >>> plan = plan_experiment(0.30, 0.25, 0.8)   # D1 and D2 at 40% and 15% TPs
    >>> plan.n, plan.size, plan.candidates, round(plan.power, 3)
    (280, 56, 336, 0.808)
    """
    alpha = _check_alpha(alpha)
    target = _check_power(power)
    _check_test(test)
    p1, p2 = region_precisions(precision_a, precision_b, overlap, shared_precision)
    if p1 == p2:
        raise ParameterError("the hypothesised precisions are equal: no n gives the test more power than alpha")
    o = float(overlap)

    def power_at(d: int) -> float:
        return rejection_region(d, alpha, test, pi_d1=p1, pi_d2=p2).power(p1, p2)

    hi = 1
    while power_at(hi) < target:
        if hi >= max_size:
            raise ParameterError(f"even d = {max_size:,} candidates per difference region do not reach power "
                                 f"{target:g}; the difference is too small to detect")
        hi = min(2 * hi, max_size)
    lo = hi // 2  # power_at(lo) < target (or lo = 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    best = hi
    for d in range(hi - 1, max(0, hi - max(20, hi // 50)), -1):
        if power_at(d) >= target:
            best = d
    n = math.ceil(best / (1 - o) - 1e-9)
    return ExperimentPlan(n=n, size=best, candidates=n + best, pi_d1=p1, pi_d2=p2, power=power_at(best))


# ---------------------------------------------------------------------- samples: the paired t-test
def _check_positive(name: str, value: float) -> float:
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"`{name}` must be a positive number; got {value!r}")
    return v


def _nct_cdf_by_quadrature(x: float, nu: float, ncp: float) -> float:
    """P(T' <= x) = E[Phi(x sqrt(V / nu) - ncp)], V ~ chi-squared(nu), by adaptive quadrature."""
    def integrand(v: float) -> float:
        return float(special.ndtr(x * math.sqrt(v / nu) - ncp) * stats.chi2.pdf(v, nu))

    value, _ = integrate.quad(integrand, 0.0, np.inf, epsabs=1e-300, epsrel=1e-12, limit=200)
    return float(value)


def paired_t_power(samples: float, delta: float, sd: float, alpha: float = 0.05, *,
                   strict: bool = False) -> float:
    """Power of the two-sided paired t-test, as R's ``power.t.test(type = "paired")``.

    Parameters
    ----------
    samples : float
        Number of pairs (samples), > 1 (not necessarily whole, as in R).
    delta : float
        True mean of the per-sample differences (its sign does not matter).
    sd : float
        Standard deviation of the per-sample differences.
    alpha : float
        Level.
    strict : bool
        As R: also count rejections in the wrong tail.

    Notes
    -----
    With ``nu = n - 1`` and ``q = t_{1 - alpha/2, nu}``, power is
    ``P(T' > q)`` for ``T'`` noncentral t with ``nu`` degrees of freedom and noncentrality
    ``sqrt(n) delta / sd`` (plus ``P(T' < -q)`` if strict), R's formula (R 4.2.2, stats).

    Examples
    --------
    >>> round(paired_t_power(20, 1, 2), 6)   # R: power.t.test(20, 1, 2, type = "paired")$power
    0.564483
    """
    n = _check_positive("samples", samples)
    if n <= 1:
        raise ParameterError(f"`samples` must be more than 1; got {samples!r}")
    delta = abs(float(delta))
    sd = _check_positive("sd", sd)
    alpha = _check_alpha(alpha)
    nu = max(1e-7, n - 1.0)
    q = stats.t.isf(alpha / 2, nu)
    ncp = math.sqrt(n) * delta / sd
    value = stats.nct.sf(q, nu, ncp)
    if not math.isfinite(value):  # Boost's upper tail fails far out; its lower tail then is tiny
        value = 1.0 - stats.nct.cdf(q, nu, ncp)
    if strict:
        wrong = stats.nct.cdf(-q, nu, ncp)
        if not math.isfinite(wrong):  # Boost fails now and then far out in this tail
            wrong = _nct_cdf_by_quadrature(-q, nu, ncp)
        value += wrong
    return float(value)


def paired_t_samples(delta: float, sd: float, alpha: float = 0.05, power: float = 0.8, *,
                     strict: bool = False) -> float:
    """Number of samples the paired t-test needs, as R's ``power.t.test(type = "paired")$n``.

    Returns the exact (fractional) root of ``paired_t_power(n) = power`` in [2, 1e7]; round it
    up for a design. R finds it with ``uniroot`` to about 1.2e-4.

    Examples
    --------
    >>> round(paired_t_samples(1, 2), 3)   # R: power.t.test(delta = 1, sd = 2, power = 0.8, type = "paired")
    33.367
    """
    if float(delta) == 0.0:
        raise ParameterError("`delta` must not be 0: no number of samples detects a zero difference")
    target = _check_power(power)
    alpha = _check_alpha(alpha)

    def gap(n: float) -> float:
        return paired_t_power(n, delta, sd, alpha, strict=strict) - target

    if gap(2.0) >= 0:
        return 2.0 if gap(2.0) == 0 else float(optimize.brentq(gap, 1.0 + 1e-9, 2.0, xtol=1e-13))
    low, high = 2.0, 4.0
    while gap(high) < 0:  # bracket the root by doubling (power rises with n)
        if high >= 1e7:
            raise ParameterError("even 10,000,000 samples do not reach that power; the difference is too small")
        low, high = high, min(2.0 * high, 1e7)
    return float(optimize.brentq(gap, low, high, xtol=1e-12, rtol=1e-14))
