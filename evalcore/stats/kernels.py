"""Compiled kernels (numba) for the hypergeometric distribution and Fisher's exact test.

The log-density follows R's ``dhyper`` (Loader's saddle-point algorithm with
``stirlerr`` and ``bd0``, as in R's ``nmath``), so that densities are accurate to
about 1e-15 relative even for tables with millions of counts; differences of
``lgamma`` values lose about eight digits there. Tails are summed outward from
their inner end with the ratio recurrence of consecutive densities, which is
exact in rational arithmetic and stable in floating point because every term is
positive and the terms decrease (the hypergeometric density is log-concave).

These functions are private: :mod:`evalcore.stats.fisher` validates input and calls them.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit, prange

# stirlerr(n) = log(n!) - log(sqrt(2 pi n) (n/e)^n) at n = 0, 0.5, 1, ..., 15, computed with
# mpmath at 40 digits (the same table as R's nmath/stirlerr.c; entry 0 is a placeholder there too).
_SFERR_HALVES = np.array([
    0.0, 0.15342640972002734529, 0.08106146679532725822, 0.054814121051917653896,
    0.041340695955409294094, 0.033162873519936287485, 0.027677925684998339149,
    0.023746163656297495971, 0.020790672103765093112, 0.018488450532673185231,
    0.016644691189821192163, 0.015134973221917378874, 0.013876128823070747999,
    0.012810465242920226924, 0.011896709945891770095, 0.011104559758206917327,
    0.010411265261972096497, 0.0097994161261588032984, 0.0092554621827127329177,
    0.008768700134139385463, 0.0083305634333628712565, 0.0079341145643140205472,
    0.007573675487951840795, 0.0072445543013203831795, 0.0069428401072095298657,
    0.0066652470327076824424, 0.0064089941880042070684, 0.0061717122630394576475,
    0.0059513701127588477356, 0.005746216513010115682, 0.005554733551962801371,
])

_LN_2PI = math.log(2.0 * math.pi)
# R's fisher.test includes every table whose density is <= the observed one * (1 + 1e-7).
_LOG_REL_ERR = math.log1p(1e-7)
_LN10 = math.log(10.0)


@njit(cache=True)
def _stirlerr(n: float) -> float:
    if n <= 15.0:
        return _SFERR_HALVES[int(n + n)]  # integer arguments only here
    nn = n * n
    s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


@njit(cache=True)
def _bd0(x: float, np_: float) -> float:
    """x log(x/np) + np - x, computed without cancellation (Loader 2000)."""
    if abs(x - np_) < 0.1 * (x + np_):
        v = (x - np_) / (x + np_)
        s = (x - np_) * v
        ej = 2.0 * x * v
        v = v * v
        for j in range(1, 1000):
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
        return s
    return x * math.log(x / np_) + np_ - x


@njit(cache=True)
def _log_dbinom_raw(x: float, n: float, p: float, q: float) -> float:
    if x == 0.0:
        if n == 0.0:
            return 0.0
        return -_bd0(n, n * q) - n * p if p < 0.1 else n * math.log(q)
    if x == n:
        return -_bd0(n, n * p) - n * q if q < 0.1 else n * math.log(p)
    lc = _stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p) - _bd0(n - x, n * q)
    lf = _LN_2PI + math.log(x) + math.log1p(-x / n)
    return lc - 0.5 * lf


@njit(cache=True)
def log_dhyper(x: float, r: float, b: float, n: float) -> float:
    """log P(X = x) for X ~ Hypergeometric(r white, b black, n drawn), as R's dhyper(log=TRUE)."""
    if x < 0 or x > r or x > n or n - x > b:
        return -math.inf
    if n == 0:
        return 0.0 if x == 0 else -math.inf
    p = n / (r + b)
    q = (r + b - n) / (r + b)
    return _log_dbinom_raw(x, r, p, q) + _log_dbinom_raw(n - x, b, p, q) - _log_dbinom_raw(n, r + b, p, q)


@njit(cache=True)
def _ratio_up(x: float, m: float, n: float, k: float) -> float:
    """P(X = x + 1) / P(X = x)."""
    return (m - x) * (k - x) / ((x + 1.0) * (n - k + x + 1.0))


@njit(cache=True)
def _ratio_down(x: float, m: float, n: float, k: float) -> float:
    """P(X = x - 1) / P(X = x)."""
    return x * (n - k + x) / ((m - x + 1.0) * (k - x + 1.0))


@njit(cache=True)
def _tail_sum(start: float, stop: float, step: float, m: float, n: float, k: float, limit: float) -> tuple:
    """Sum of P(X = x) / P(X = start) for x from start to stop (inclusive) in direction step.

    The terms must be non-increasing (start at or beyond the mode). Stops once the rest is
    provably below 1e-17 of the sum. Returns (sum, done); done is False when more than
    ``limit`` terms would be needed (the caller then takes the complement instead).
    """
    s = 1.0
    t = 1.0
    x = start
    count = 0.0
    while x != stop:
        r = _ratio_up(x, m, n, k) if step > 0 else _ratio_down(x, m, n, k)
        t *= r
        s += t
        x += step
        count += 1.0
        if r < 1.0 and t * r / (1.0 - r) < 1e-17 * s:
            return s, True
        if count > limit:
            return s, False
    return s, True


@njit(cache=True)
def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    hi = max(a, b)
    return hi + math.log1p(math.exp(min(a, b) - hi))


@njit(cache=True)
def _log_range_sum(lo_x: float, hi_x: float, m: float, n: float, k: float) -> float:
    """log of sum P(X = x) for lo_x <= x <= hi_x (a short range around the mode)."""
    lp = log_dhyper(lo_x, m, n, k)
    s = 1.0
    t = 1.0
    x = lo_x
    while x < hi_x:
        t *= _ratio_up(x, m, n, k)
        s += t
        x += 1.0
    return lp + math.log(s)


@njit(cache=True)
def _log_lower_tail(x: float, lo: float, hi: float, mode: float, m: float, n: float, k: float) -> float:
    """log P(X <= x)."""
    if x >= hi:
        return 0.0
    if x > mode:  # the upper tail from x + 1 decays: take the complement
        lp = log_dhyper(x + 1.0, m, n, k)
        s, _ = _tail_sum(x + 1.0, hi, 1.0, m, n, k, math.inf)
        return math.log1p(-min(1.0, math.exp(lp) * s))
    lp = log_dhyper(x, m, n, k)
    s, _ = _tail_sum(x, lo, -1.0, m, n, k, math.inf)
    return min(0.0, lp + math.log(s))


@njit(cache=True)
def _fisher_one(a: float, b: float, c: float, d: float, alternative: int) -> float:
    """log p of Fisher's exact test for [[a, b], [c, d]]; alternative 0 two-sided, 1 less, 2 greater.

    R's parametrisation: x = a, m = a + c, n = b + d, k = a + b.
    """
    x = a
    m = a + c
    n = b + d
    k = a + b
    lo = max(0.0, k - n)
    hi = min(k, m)
    if lo == hi:  # a zero margin: one possible table
        return 0.0
    mode = math.floor((k + 1.0) * (m + 1.0) / (m + n + 2.0))
    mode = min(max(mode, lo), hi)
    if alternative == 1:
        return _log_lower_tail(x, lo, hi, mode, m, n, k)
    if alternative == 2:  # P(X >= x) = P(X' <= k - x) with the columns swapped
        return _log_lower_tail(k - x, max(0.0, k - m), min(k, n), k - mode, n, m, k)

    # Two-sided. Put the observation on the rising side of the density: swapping the
    # columns maps x to k - x and leaves the p-value unchanged.
    if x > mode:
        x = k - x
        m, n = n, m
        lo = max(0.0, k - n)
        hi = min(k, m)
        mode = min(max(math.floor((k + 1.0) * (m + 1.0) / (m + n + 2.0)), lo), hi)
    lp_obs = log_dhyper(x, m, n, k)
    thr = lp_obs + _LOG_REL_ERR
    # Left part: lo..left. The density rises up to the mode; points within the relative
    # tolerance of the observed density also count (R's relErr rule).
    left = x
    lp_left = lp_obs
    while left < mode:
        lp_next = lp_left + math.log(_ratio_up(left, m, n, k))
        if lp_next > thr:
            break
        left += 1.0
        lp_left = lp_next
    # Right part: right..hi, the first point at or after the mode with density <= thr.
    if m + n == 2.0 * k:
        # Equal row sums (two n-best lists): the density is symmetric about m / 2, so the
        # right part mirrors the left one and has the same density at its inner end.
        right = m - left
        lp_right = lp_left
    else:
        a_ = mode
        b_ = hi + 1.0  # invariant: density(a_) > thr or a_ == mode; density(b_) <= thr (or beyond hi)
        if log_dhyper(a_, m, n, k) <= thr:
            b_ = a_
        else:
            while b_ - a_ > 1.0:
                mid = math.floor((a_ + b_) / 2.0)
                if log_dhyper(mid, m, n, k) <= thr:
                    b_ = mid
                else:
                    a_ = mid
        right = b_
        lp_right = log_dhyper(right, m, n, k) if right <= hi else -math.inf
    if right <= left + 1.0:  # every table is as extreme as the observed one
        return 0.0
    # Sum the two tails outward; where they decay slowly (p is then not small) and the middle
    # (excluded) part is shorter, 1 - middle is cheaper and, for p >= 0.05, just as accurate.
    limit = max(right - left - 1.0, 64.0)
    s_left, ok_left = _tail_sum(left, lo, -1.0, m, n, k, limit)
    s_right = 0.0
    ok_right = True
    if right <= hi:
        s_right, ok_right = _tail_sum(right, hi, 1.0, m, n, k, limit)
    if not (ok_left and ok_right):
        partial = math.exp(lp_left) * s_left + (math.exp(lp_right) * s_right if right <= hi else 0.0)
        if partial >= 0.05:
            log_mid = _log_range_sum(left + 1.0, right - 1.0, m, n, k)
            return math.log1p(-min(1.0, math.exp(log_mid)))
        s_left, _ = _tail_sum(left, lo, -1.0, m, n, k, math.inf)
        if right <= hi:
            s_right, _ = _tail_sum(right, hi, 1.0, m, n, k, math.inf)
    log_p = lp_left + math.log(s_left)
    if right <= hi:
        log_p = _log_add(log_p, lp_right + math.log(s_right))
    return min(0.0, log_p)


# numba's default threading layer aborts the process when two threads launch parallel kernels
# at once (a web server runs sessions in threads): parallel kernels are entered one at a time.
PARALLEL_LOCK = threading.Lock()


# Two functions, not one compiled twice: numba's disk cache keys on the function, so a serial
# and a parallel build of the same function would overwrite each other.
@njit(cache=True)
def _fisher_serial(a, b, c, d, alternative):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = _fisher_one(a[i], b[i], c[i], d[i], alternative)
    return out


@njit(cache=True, parallel=True)
def _fisher_parallel(a, b, c, d, alternative):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = _fisher_one(a[i], b[i], c[i], d[i], alternative)
    return out


PARALLEL_MIN = 20_000  # below this, starting the threads costs more than they save


def fisher_log_pvalues(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, alternative: int) -> np.ndarray:
    """Natural log of Fisher's exact p-value for each table [[a, b], [c, d]] (1-d float arrays)."""
    if a.shape[0] < PARALLEL_MIN:
        return _fisher_serial(a, b, c, d, alternative)
    with PARALLEL_LOCK:
        return _fisher_parallel(a, b, c, d, alternative)


# --- Clopper-Pearson bounds marched along a curve ------------------------------------------
# Solve P(Bin(n, p) <= j) = c for p at consecutive (j, n) of an n-best curve: n grows by one and
# j by zero or one per step. From the exact root p0 of the previous step, the CDF of the next
# (j, n) at p0 follows exactly from one density term, and the root moves by less than a standard
# deviation; Halley steps then only need the integral of the binomial density over [p0, p],
# which 6-point Gauss-Legendre gives to ~1e-16 relative on an interval shorter than half a
# standard deviation (the error term is (h/sd)^12 * 2e-12).

_GL_X = np.array([-0.9324695142031520278, -0.6612093864662645137, -0.2386191860831969086,
                  0.2386191860831969086, 0.6612093864662645137, 0.9324695142031520278])
_GL_W = np.array([0.1713244923791703450, 0.3607615730481386076, 0.4679139345726910474,
                  0.4679139345726910474, 0.3607615730481386076, 0.1713244923791703450])
# 3 points where the step is under 3% of a standard deviation: the error term is then
# (h/sd)^6 * 7e-6 < 6e-15 of the integral, far below the root's rounding.
_GL3_X = np.array([-0.7745966692414833770, 0.0, 0.7745966692414833770])
_GL3_W = np.array([0.5555555555555555556, 0.8888888888888888889, 0.5555555555555555556])


@njit(cache=True)
def _density_integral(h: float, p0: float, q0: float, j1: float, m: float, f0: float, sd: float) -> tuple:
    """(integral of b(j1; n0, t) over [p0, p0 + h], b at p0 + h), with b(p0) = f0."""
    integral = 0.0
    if abs(h) < 0.03 * sd:
        for g_i in range(3):
            s = 0.5 * h * (1.0 + _GL3_X[g_i])
            integral += _GL3_W[g_i] * math.exp(j1 * math.log1p(s / p0) + m * math.log1p(-s / q0))
    else:
        for g_i in range(6):
            s = 0.5 * h * (1.0 + _GL_X[g_i])
            integral += _GL_W[g_i] * math.exp(j1 * math.log1p(s / p0) + m * math.log1p(-s / q0))
    return integral * 0.5 * h * f0, f0 * math.exp(j1 * math.log1p(h / p0) + m * math.log1p(-h / q0))


@njit(cache=True)
def _march_step(j0: float, j1: float, n0: float, p0: float, guess: float) -> float:
    """Root of P(Bin(n0 + 1, p) <= j1) = c given the root p0 of P(Bin(n0, p) <= j0) = c; NaN if unsure.

    ``guess`` starts the iteration (the previous step's displacement added to p0 saves one
    quadrature along a smooth curve); p0 itself when it is not plausible.
    """
    q0 = 1.0 - p0
    n1 = n0 + 1.0
    m = n0 - j1
    f0 = math.exp(_log_dbinom_raw(j1, n0, p0, q0))  # binomial density b(j1; n0, t) at t = p0
    # P(Bin(n1, p0) <= j1) - c: one step of n removes p0 * b(j0; n0) or adds q0 * b(j0 + 1; n0)
    delta = -p0 * f0 if j1 == j0 else q0 * f0
    sd = math.sqrt(p0 * q0 / n0)
    p = p0
    integral = 0.0
    fp = f0
    if guess != p0 and 0.0 < guess < 1.0 and abs(guess - p0) < 0.25 * sd:
        p = guess
        integral, fp = _density_integral(p - p0, p0, q0, j1, m, f0, sd)
    for _ in range(12):
        g = delta - n1 * integral          # g(p) = P(Bin(n1, p) <= j1) - c
        gp = -n1 * fp                      # g'(p)
        gpp = gp * (j1 / p - m / (1.0 - p))  # g''(p)
        step = 2.0 * g * gp / (2.0 * gp * gp - g * gpp)
        p_new = p - step
        if not (0.0 < p_new < 1.0) or abs(p_new - p0) > 0.5 * sd:
            return math.nan
        if abs(step) <= 1e-11 * p_new:  # Halley converges cubically: the error is now ~1e-33
            return p_new
        p = p_new
        integral, fp = _density_integral(p - p0, p0, q0, j1, m, f0, sd)
    return math.nan


@njit(cache=True)
def _march_run(j, n, roots, start, stop):
    """One run: roots[start + 1 : stop] from the anchor roots[start]."""
    moved = 0.0  # the last step's displacement of the root, to start the next step from
    for i in range(start + 1, stop):
        p0 = roots[i - 1]
        if math.isnan(p0):
            roots[i] = math.nan
            continue
        roots[i] = _march_step(j[i - 1], j[i], n[i - 1], p0, p0 + moved)
        moved = roots[i] - p0


@njit(cache=True)
def _march_serial(j, n, roots, starts, stops):
    for r in range(starts.shape[0]):
        _march_run(j, n, roots, starts[r], stops[r])


@njit(cache=True, parallel=True)
def _march_parallel(j, n, roots, starts, stops):
    for r in prange(starts.shape[0]):
        _march_run(j, n, roots, starts[r], stops[r])


def march_binomial_roots(j: np.ndarray, n: np.ndarray, roots: np.ndarray, starts: np.ndarray,
                         stops: np.ndarray) -> None:
    """Fill roots[starts[r] + 1 : stops[r]] from the anchor roots[starts[r]], run by run.

    A step that cannot be certified (see ``_march_step``) leaves NaN there and for the rest
    of its run.
    """
    if j.shape[0] < PARALLEL_MIN:
        _march_serial(j, n, roots, starts, stops)
        return
    with PARALLEL_LOCK:
        _march_parallel(j, n, roots, starts, stops)


# --- Wilson's score bounds in one pass ------------------------------------------------------
# The expressions of ``evalcore.stats.intervals._wilson_score`` element by element, in the same order of
# operations (IEEE arithmetic, no fast-math: the same bits as NumPy's), without its dozen temporary arrays.

@njit(cache=True, error_model="numpy")
def wilson_bounds(k, n, z, yates, low, high):
    """Fill ``low``, ``high`` with Wilson's score bounds of k of n (``yates``: the continuity correction)."""
    for i in range(k.shape[0]):
        ni = n[i]
        p_hat = k[i] / ni
        z22n = z * z / (2.0 * ni)
        y = yates[i] / ni
        p_c = p_hat + y
        if p_c >= 1.0:
            h = 1.0
        else:
            h = (p_c + z22n + z * math.sqrt(abs(p_c * (1 - p_c)) / ni + z22n / (2 * ni))) / (1 + 2 * z22n)
        p_c = p_hat - y
        if p_c <= 0.0:
            lo = 0.0
        else:
            lo = (p_c + z22n - z * math.sqrt(abs(p_c * (1 - p_c)) / ni + z22n / (2 * ni))) / (1 + 2 * z22n)
        low[i] = 0.0 if lo < 0.0 else lo  # (np.maximum, np.minimum: NaN stays NaN)
        high[i] = 1.0 if h > 1.0 else h
