"""Compiled kernels (numba) for Fisher's noncentral hypergeometric distribution.

The conditional maximum-likelihood estimate of the odds ratio of a 2x2 table and its exact
conditional confidence interval (R's ``fisher.test``) are roots in the log odds ratio
``theta = log(psi)`` of the mean and the tails of Fisher's noncentral hypergeometric
distribution

    P(X = j; psi)  proportional to  C(m, j) C(n, k - j) psi^j,   lo <= j <= hi,

(R's parametrisation: ``m`` = first column sum, ``n`` = second column sum, ``k`` = first row
sum, ``x`` = the top-left cell; ``lo = max(0, k - n)``, ``hi = min(k, m)``).

One *evaluation* at theta walks outward from the mode of the distribution with the ratio of
consecutive weights, ``w(j + 1) / w(j) = psi (m - j)(k - j) / ((j + 1)(n - k + j + 1))``,
until the rest is provably below 1e-17 of the sum (the distribution is log-concave, so the
ratios decrease away from the mode and a geometric series bounds the rest). It gives the
mean and variance (and, for the MLE, the third central moment) and the tail at ``x`` that the
root needs, with its conditional mean and variance: only the terms on the far side of ``x``
from the mode are summed (the smaller tail); the other tail is the total less it. A small tail
(below 1e-3 of the total, or beyond the walk) is summed again outward from ``x``, scaled by R's
``dhyper`` density (Loader's algorithm, :func:`evalcore.stats.kernels.log_dhyper`), so that it
keeps full relative precision however small it is.

Roots are found by Halley's method on an increasing function of theta (the mean minus x, the
log of the upper tail minus log alpha, or log alpha minus the log of the lower tail), safeguarded
by a bracket and bisection, until the error left after a step (at most ``|h'' / 2h'| step^2``)
is below 1e-14 (1 + |theta|): the returned theta is exact to rounding. A table met a few steps
before (along a curve most tables recur) is copied, not solved again; a table next to the
previous one starts from the previous roots moved by as much as Woolf's logit approximations of
the same roots move between the two tables. That start is within about 1e-7 of the root, so the
first Halley step lands within rounding: one evaluation per root (two without the shift, when a
TP enters or leaves a region and the roots move by about 1e-4). With both bounds wanted at a
usual level, that evaluation is one walk for the three roots: the ratio of consecutive weights
is computed once for three chains of weights, one per root's start, and both tails at x are
summed from their own terms; a root whose Halley step is not certain then goes on alone. That walk
goes in blocks of 32 terms whose ratios and weights do not wait on each other (:func:`_walk3`).

How far a walk goes: the terms fall off like a normal density, and a walk stops where the
geometric bound on the rest is below 1e-17 of the sum, about 9 standard deviations from the
mode; 1e-16 would save 2% of the terms. Summing fewer terms by Poisson summation (the sum over
every h-th term times h, exact to ``exp(-2 pi^2 sd^2 / h^2)``) needs the weights at the nodes
from log-gamma differences (Loader's), about 50 times a term of the walk each: at the
standard deviations of a million candidates (up to ~90) the ~30 nodes of the normaliser alone
cost more than the whole walk, if each table's nodes are computed afresh.

The node path (tables whose X has a standard deviation sd of 7.2 or more, both bounds wanted at a
level below 99.6%): nodes are the weights at ``x + l h`` with an integer spacing
``h = floor(0.31 sd) >= 2``, relative to the weight at x, out to 10 sd beyond each bound's point.
They are computed once by the walk's ratios (an *anchor*, at the estimate's start theta_0) and
then *moved* from one table to the next without any log-gamma: the weight is
``psi^j / ((m - j)! (k - j)! (n - k + j)!)`` up to factors common to all j, so a margin changing
by 1 to 3 multiplies each node by a product of 1 to 3 linear factors in j, and a new theta by a
geometric sequence in l (:func:`_transport`); one table then costs ~100-200 nodes times a few
operations instead of ~1,240 terms. Each root's chain is the nodes times the geometric tilt to its
own theta (:func:`_chain_sums`):

* the sum over all j of the weights (and of their moments) is ``h`` times the sum over the nodes
  (Poisson summation); the error is the weight's Fourier transform at 1/h, ``exp(-2 pi^2 sd^2 /
  h^2)`` for the near-normal weights, below exp(-150) at h <= 0.36 sd;
* a tail ``P(X >= x)`` (or ``<= x``) is ``sum_l f_l A(x - x_l)`` with ``A(c)`` the sum over
  integers u >= c of ``sinc(u / h)`` (Whittaker-Shannon interpolation of the weights at the
  integers from the nodes, summed over the tail; A tabulated once per h, :func:`_sinc_tail_table`);
  the interpolation error is about ``exp(-pi^2 sd^2 / (2 h^2))``, below 3e-17 at h <= 0.36 sd;
* the nodes stop where a chain's end nodes are below 1e-19 of its sum (the weights are
  log-concave: beyond a node the rest falls off at least geometrically, as in the walk).

Every one of these conditions is checked at each table: a spacing above 0.36 of any chain's sd,
end nodes not negligible, a node outside the support, a margin moving by more than 3, or 4,096
moves since the anchor make a new anchor; where an anchor does not serve either, or a Halley step
is not certain in 8 node evaluations, the walk solves the root. Against the walk on all 1,000,000
tables of bench/bench_effect.py the node path differs by at most 3.8e-15 in log odds ratio, and the
odds ratio with both bounds then takes 0.83 of the wall-clock time of Fisher's p-values on the same
tables, 0.87 of their processor time (the walk alone: 4.5 and 4.8, in the same run).

These functions are private: :mod:`evalcore.stats.effect` validates input and calls them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .kernels import PARALLEL_LOCK, PARALLEL_MIN, _ratio_down, _ratio_up, log_dhyper

THETA_MAX = 600.0   # |log odds ratio| searched; exact bounds of tables with < 1e9 counts lie far inside
_EPS_TAIL = 1e-17   # a walk stops when the rest is below this share of the sum
_SMALL_TAIL = 1e-3  # a tail below this share of the total is summed again from x
_TOL = 1e-14        # roots: stop after a step below _TOL * (1 + |theta|) ...
_ACCEPT = 1e-14     # ... or once the error left after the step is below _ACCEPT * (1 + |theta|)
_MAX_ITER = 200
_LOG_WARM_TAIL = math.log(2e-3)  # three roots in one walk for tails above this (levels below 99.6%)


# What a root solves: 0 the conditional MLE (mean = x), 1 the upper bound (P(X <= x) = alpha),
# 2 the lower bound (P(X >= x) = alpha). Each as h(theta) = 0 with h increasing.
MLE, UPPER, LOWER = 0, 1, 2


@njit(cache=True)
def _mode(theta: float, m: float, n: float, k: float, lo: float, hi: float) -> float:
    """The mode of the noncentral hypergeometric distribution at log odds ratio theta.

    The largest j with w(j) >= w(j - 1); a guess from the quadratic of ``w(j) = w(j - 1)``
    is corrected by comparing consecutive weights.
    """
    if theta > 0.0:
        ipsi = math.exp(-theta)
        qa = 1.0 - ipsi
        qb = (m + k + 2.0) + (n - k) * ipsi
        qc = (m + 1.0) * (k + 1.0)
    else:
        psi = math.exp(theta)
        qa = psi - 1.0
        qb = psi * (m + k + 2.0) + (n - k)
        qc = psi * (m + 1.0) * (k + 1.0)
    disc = qb * qb - 4.0 * qa * qc
    guess = 2.0 * qc / (qb + math.sqrt(max(disc, 0.0))) if qb > 0.0 else lo
    j = math.floor(guess)
    if not (j >= lo):
        j = lo
    if j > hi:
        j = hi
    # w(j + 1) >= w(j)  <=>  theta + log r(j) >= 0
    while j < hi and theta + math.log(_ratio_up(j, m, n, k)) >= 0.0:
        j += 1.0
    while j > lo and theta + math.log(_ratio_up(j - 1.0, m, n, k)) < 0.0:
        j -= 1.0
    return j


@njit(cache=True)
def _tail_from(x: float, direction: float, theta: float, m: float, n: float, k: float,
               lo: float, hi: float) -> tuple:
    """Sums of w(j) / w(x) for j from x outward (direction -1: down to lo, +1: up to hi).

    x must lie at or beyond the mode on that side, so the terms do not increase. Returns
    (sum of u, sum of u (j - x), sum of u (j - x)^2) with u = w(j) / w(x).
    """
    psi = math.exp(theta)
    ipsi = math.exp(-theta)
    s0 = 1.0
    s1 = 0.0
    s2 = 0.0
    t = 1.0
    j = x
    stop = lo if direction < 0 else hi
    while j != stop:
        q = _ratio_down(j, m, n, k) * ipsi if direction < 0 else _ratio_up(j, m, n, k) * psi
        t *= q
        j += direction
        dj = j - x
        s0 += t
        s1 += t * dj
        s2 += t * dj * dj
        if t * q < _EPS_TAIL * s0 * (1.0 - q):  # the rest is below t q / (1 - q) (q < 1 from here)
            break
    return s0, s1, s2


@njit(cache=True)
def _evaluate(theta: float, x: float, m: float, n: float, k: float, lo: float, hi: float, kind: int) -> tuple:
    """Moments and the tail at x that a root of `kind` needs, at theta.

    Returns (mean, var, third central moment (MLE only), log of the tail, mean and variance of
    X within the tail): the tail is P(X <= x) for UPPER, P(X >= x) for LOWER (none for MLE).

    The walk sums, besides the moments, only the terms on the far side of x from the mode
    (j <= x if x <= mode, j >= x if x > mode): that side is the small tail; the other tail is
    the total minus it plus the term at x, which loses no precision because it is large.
    """
    psi = math.exp(theta)
    ipsi = math.exp(-theta)
    mode = _mode(theta, m, n, k, lo, hi)
    need_tail = kind != MLE
    below = x <= mode  # the partial sums hold j <= x (else j >= x)
    s0 = 1.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    p0 = 1.0 if x == mode else 0.0
    p1 = 0.0
    p2 = 0.0
    w_x = 1.0 if mode == x else -1.0  # w(x) / w(mode) where the walk reaches x
    # upward
    t = 1.0
    j = mode
    while j < hi:
        q = _ratio_up(j, m, n, k) * psi
        t *= q
        j += 1.0
        dj = j - mode
        s0 += t
        s1 += t * dj
        s2 += t * dj * dj
        if kind == MLE:
            s3 += t * dj * dj * dj
        elif not below and j >= x:
            p0 += t
            p1 += t * dj
            p2 += t * dj * dj
            if j == x:
                w_x = t
        if t * q < _EPS_TAIL * s0 * (1.0 - q):  # the rest is below t q / (1 - q) (q < 1 from here)
            break
    # downward
    t = 1.0
    j = mode
    while j > lo:
        q = _ratio_down(j, m, n, k) * ipsi
        t *= q
        j -= 1.0
        dj = j - mode
        s0 += t
        s1 += t * dj
        s2 += t * dj * dj
        if kind == MLE:
            s3 += t * dj * dj * dj
        elif below and j <= x:
            p0 += t
            p1 += t * dj
            p2 += t * dj * dj
            if j == x:
                w_x = t
        if t * q < _EPS_TAIL * s0 * (1.0 - q):  # the rest is below t q / (1 - q) (q < 1 from here)
            break
    c1 = s1 / s0
    mean = mode + c1
    var = max(s2 / s0 - c1 * c1, 0.0)
    if not need_tail:
        m3 = s3 / s0 - 3.0 * c1 * s2 / s0 + 2.0 * c1 * c1 * c1
        return mean, var, m3, 0.0, 0.0, 0.0

    wants_below = kind == UPPER  # P(X <= x); LOWER wants P(X >= x)
    if wants_below == below or x == mode:
        if wants_below != below:  # x == mode, LOWER: P(X >= x) = total - P(X <= x) + w(x)
            dx = x - mode
            p0, p1, p2 = s0 - p0 + 1.0, s1 - p1 + dx, s2 - p2 + dx * dx
        elif p0 < _SMALL_TAIL * s0 and x != mode:
            # a small tail: summed again from x outward at full relative precision
            u0, u1, u2 = _tail_from(x, -1.0 if below else 1.0, theta, m, n, k, lo, hi)
            if w_x > 0.0:
                log_wx = math.log(w_x)
            else:
                log_wx = (log_dhyper(x, m, n, k) + theta * x) - (log_dhyper(mode, m, n, k) + theta * mode)
            return (mean, var, 0.0, log_wx + math.log(u0) - math.log(s0), x + u1 / u0,
                    max(u2 / u0 - (u1 / u0) ** 2, 0.0))
    else:  # the large tail: the total less the small one, plus the term at x
        if w_x < 0.0:  # the walk stopped before x: the small tail is below 1e-17 of the total
            p0, p1, p2 = s0, s1, s2
        else:
            dx = x - mode
            p0, p1, p2 = s0 - p0 + w_x, s1 - p1 + w_x * dx, s2 - p2 + w_x * dx * dx
    c = p1 / p0
    log_tail = math.log(p0) - math.log(s0) if p0 < s0 else 0.0
    return mean, var, 0.0, log_tail, mode + c, max(p2 / p0 - c * c, 0.0)


@njit(cache=True)
def _h(kind: int, theta: float, x: float, log_alpha: float, m: float, n: float, k: float, lo: float,
       hi: float) -> tuple:
    """(h, h', h'') at theta for the root of `kind`."""
    mean, var, m3, log_tail, mean_tail, var_tail = _evaluate(theta, x, m, n, k, lo, hi, kind)
    if kind == MLE:
        return mean - x, var, m3
    if kind == UPPER:  # -(log P(X <= x) - log alpha); d/dtheta log P(X <= x) = mean_le - mean
        return log_alpha - log_tail, mean - mean_tail, var - var_tail
    return log_tail - log_alpha, mean_tail - mean, var_tail - var


@njit(cache=True)
def solve_theta(kind: int, x: float, log_alpha: float, m: float, n: float, k: float, lo: float, hi: float,
                start: float) -> float:
    """Root in theta of the increasing function of `kind`, from `start` (Halley, safeguarded)."""
    a = -THETA_MAX
    b = THETA_MAX
    theta = min(max(start, a + 1.0), b - 1.0)
    if not (theta == theta):  # NaN start
        theta = 0.0
    for _ in range(_MAX_ITER):
        h, h1, h2 = _h(kind, theta, x, log_alpha, m, n, k, lo, hi)
        if h == 0.0:
            return theta
        if h > 0.0:
            b = theta
        else:
            a = theta
        new = math.nan
        if h1 > 0.0:
            step = h / h1
            denom = 1.0 - 0.5 * step * h2 / h1
            if denom > 0.5:  # Halley's correction where it stays close to Newton's step
                step = step / denom
            # Newton's error after a step is about |h'' / (2 h')| step^2 (Halley's is smaller)
            if abs(step) * (1.0 + abs(0.5 * h2 / h1) * abs(step)) <= _TOL * (1.0 + abs(theta)) \
                    or abs(0.5 * h2 / h1) * step * step <= _ACCEPT * (1.0 + abs(theta)):
                return theta - step
            new = theta - step
        if not (a < new < b):
            new = 0.5 * (a + b)
            if b - a <= _TOL * (1.0 + abs(new)):
                return new
        theta = new
    return theta


_BLOCK = 32  # terms per block of the blocked walk (32: the compiler vectorises its sums; the code assumes 32)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _walk3(up: bool, j: float, stop: float, tm: float, tl: float, tu: float, pm: float, pl: float, pu: float,
           m: float, n: float, k: float, origin: float, total_m: float, total_l: float, total_u: float,
           sums: np.ndarray) -> tuple:
    """:func:`_walk3_scalar` in blocks of 32 terms, with fewer dependent operations per term.

    Within a block the ratios of consecutive weights do not depend on each other: four of them
    come from one division (``n_i / d_i = n_i (prod of the other three d) / (d_0 d_1 d_2 d_3)``,
    a few roundings more than one division each). Their running product is taken in four
    quarters at once and joined; the weights of the three chains are that product times
    psi^(i + 1) (powers computed once per walk) times the chain's weight before the block, so that
    no term waits on the previous one, and the sums of the block are vector instructions
    (``fastmath`` allows only reassociating the sums and fused multiply-adds). The same terms as
    the scalar walk to a few roundings each. The rest is tested after each block as in the scalar
    walk (up to 31 terms more than it sums); the last < 32 terms to `stop` are the scalar walk's.
    """
    nk = n - k
    r = np.empty(_BLOCK)
    pwm = np.empty(_BLOCK)
    pwl = np.empty(_BLOCK)
    pwu = np.empty(_BLOCK)
    off = np.empty(_BLOCK)
    vm, vl, vu = pm, pl, pu
    for i in range(_BLOCK):
        off[i] = i
        pwm[i] = vm
        pwl[i] = vl
        pwu[i] = vu
        vm *= pm
        vl *= pl
        vu *= pu
    step = 1.0 if up else -1.0
    m0 = m1 = m2 = m3 = 0.0
    l0 = l1 = l2 = 0.0
    u0 = u1 = u2 = 0.0
    done = False
    last = _BLOCK - 1
    while (j + _BLOCK <= stop) if up else (j - _BLOCK >= stop):
        for g in range(0, _BLOCK, 4):  # four ratios from one division
            if up:
                j0, j1, j2, j3 = j + off[g], j + off[g + 1], j + off[g + 2], j + off[g + 3]
                n0, n1, n2, n3 = (m - j0) * (k - j0), (m - j1) * (k - j1), (m - j2) * (k - j2), (m - j3) * (k - j3)
                d0, d1 = (j0 + 1.0) * (nk + j0 + 1.0), (j1 + 1.0) * (nk + j1 + 1.0)
                d2, d3 = (j2 + 1.0) * (nk + j2 + 1.0), (j3 + 1.0) * (nk + j3 + 1.0)
            else:
                j0, j1, j2, j3 = j - off[g], j - off[g + 1], j - off[g + 2], j - off[g + 3]
                n0, n1, n2, n3 = j0 * (nk + j0), j1 * (nk + j1), j2 * (nk + j2), j3 * (nk + j3)
                d0, d1 = (m - j0 + 1.0) * (k - j0 + 1.0), (m - j1 + 1.0) * (k - j1 + 1.0)
                d2, d3 = (m - j2 + 1.0) * (k - j2 + 1.0), (m - j3 + 1.0) * (k - j3 + 1.0)
            d01 = d0 * d1
            d23 = d2 * d3
            inv = 1.0 / (d01 * d23)
            r[g] = n0 * (d1 * d23 * inv)
            r[g + 1] = n1 * (d0 * d23 * inv)
            r[g + 2] = n2 * (d3 * d01 * inv)
            r[g + 3] = n3 * (d2 * d01 * inv)
        q = r[last]  # the last ratio (without psi)
        for i in range(1, _BLOCK // 4):  # running products in four quarters at once, then joined
            r[i] *= r[i - 1]
            r[i + 8] *= r[i + 7]
            r[i + 16] *= r[i + 15]
            r[i + 24] *= r[i + 23]
        c8 = r[7]
        c16 = c8 * r[15]
        c24 = c16 * r[23]
        for i in range(8, 16):
            r[i] *= c8
        for i in range(16, 24):
            r[i] *= c16
        for i in range(24, 32):
            r[i] *= c24
        base = j - origin
        for i in range(_BLOCK):
            a = tm * r[i] * pwm[i]
            b = tl * r[i] * pwl[i]
            c = tu * r[i] * pwu[i]
            e = base + step * (off[i] + 1.0)
            m0 += a
            m1 += a * e
            m2 += a * e * e
            m3 += a * e * e * e
            l0 += b
            l1 += b * e
            l2 += b * e * e
            u0 += c
            u1 += c * e
            u2 += c * e * e
        tm = tm * r[last] * pwm[last]
        tl = tl * r[last] * pwl[last]
        tu = tu * r[last] * pwu[last]
        j += step * _BLOCK
        qm, ql, qu = q * pm, q * pl, q * pu
        if tm * qm < _EPS_TAIL * (total_m + m0) * (1.0 - qm) \
                and tl * ql < _EPS_TAIL * (total_l + l0) * (1.0 - ql) \
                and tu * qu < _EPS_TAIL * (total_u + u0) * (1.0 - qu):
            done = True
            break
    sums[0, 0] += m0
    sums[0, 1] += m1
    sums[0, 2] += m2
    sums[0, 3] += m3
    sums[1, 0] += l0
    sums[1, 1] += l1
    sums[1, 2] += l2
    sums[2, 0] += u0
    sums[2, 1] += u1
    sums[2, 2] += u2
    if done:
        return j, tm, tl, tu
    return _walk3_scalar(up, j, stop, tm, tl, tu, pm, pl, pu, m, n, k, origin, total_m + m0, total_l + l0,
                         total_u + u0, sums)


@njit(cache=True)
def _walk3_scalar(up: bool, j: float, stop: float, tm: float, tl: float, tu: float, pm: float, pl: float, pu: float,
                m: float, n: float, k: float, origin: float, total_m: float, total_l: float, total_u: float,
                sums: np.ndarray) -> tuple:
    """One walk for the three roots at once: terms j +- 1, ..., `stop` (upward if `up`) at three log odds ratios.

    The ratio of consecutive weights is computed once for the three chains (the division is
    a walk's cost; three chains also keep the processor busy where one waits on its own
    products). ``t*`` are the weights w(j) psi^j relative to the origin's of the estimate's (m),
    the lower (l) and the upper bound's (u) chain, ``p*`` their psi (1 / psi downward). Adds ``sum t (j - origin)^p``
    for p = 0, 1, 2 (and 3 for m) into ``sums`` (rows m, l, u); stops once every chain's rest is
    below 1e-17 of its total plus its sums so far (tested every 8 terms: a few more terms
    cost less than the test). Returns (j, tm, tl, tu) at the last term.
    """
    nk = n - k
    m0 = m1 = m2 = m3 = 0.0
    l0 = l1 = l2 = 0.0
    u0 = u1 = u2 = 0.0
    count = 0
    while (j < stop) if up else (j > stop):
        if up:
            r = ((m - j) * (k - j)) / ((j + 1.0) * (nk + j + 1.0))
            j += 1.0
        else:
            r = (j * (nk + j)) / ((m - j + 1.0) * (k - j + 1.0))
            j -= 1.0
        qm = r * pm
        ql = r * pl
        qu = r * pu
        tm *= qm
        tl *= ql
        tu *= qu
        dj = j - origin
        v = tm * dj
        m0 += tm
        m1 += v
        v *= dj
        m2 += v
        m3 += v * dj
        v = tl * dj
        l0 += tl
        l1 += v
        l2 += v * dj
        v = tu * dj
        u0 += tu
        u1 += v
        u2 += v * dj
        count += 1
        if count & 7 == 0 and tm * qm < _EPS_TAIL * (total_m + m0) * (1.0 - qm) \
                and tl * ql < _EPS_TAIL * (total_l + l0) * (1.0 - ql) \
                and tu * qu < _EPS_TAIL * (total_u + u0) * (1.0 - qu):
            break
    sums[0, 0] += m0
    sums[0, 1] += m1
    sums[0, 2] += m2
    sums[0, 3] += m3
    sums[1, 0] += l0
    sums[1, 1] += l1
    sums[1, 2] += l2
    sums[2, 0] += u0
    sums[2, 1] += u1
    sums[2, 2] += u2
    return j, tm, tl, tu


@njit(cache=True)
def _accept(theta: float, h: float, h1: float, h2: float) -> tuple:
    """Halley's step from theta: (the root, if the error left after the step is below rounding as
    in :func:`solve_theta`, else NaN; where to go on from: the step's end where it is sane)."""
    if h == 0.0:
        return theta, theta
    if not (h1 > 0.0):
        return math.nan, theta
    step = h / h1
    denom = 1.0 - 0.5 * step * h2 / h1
    if denom > 0.5:
        step = step / denom
    if abs(step) * (1.0 + abs(0.5 * h2 / h1) * abs(step)) <= _TOL * (1.0 + abs(theta)) \
            or abs(0.5 * h2 / h1) * step * step <= _ACCEPT * (1.0 + abs(theta)):
        return theta - step, theta - step
    return math.nan, (theta - step if abs(step) < 1.0 else theta)


@njit(cache=True)
def _solve_three_warm(x: float, m: float, n: float, k: float, lo: float, hi: float, log_alpha_lo: float,
                      log_alpha_hi: float, starts: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> bool:
    """The three roots from warm starts (lo < x < hi, both bounds wanted): one walk evaluates all
    three, and a root whose Halley step is not certain goes on alone in :func:`solve_theta`.
    False (nothing written) where a chain's weights overflow: its start is far from the
    estimate's and the support long (the caller then solves each root alone).

    The walk from the origin (the mode at the estimate's start) toward x stops before x; the
    term at x and the terms beyond are summed apart, so that both tails, P(X <= x) and
    P(X >= x), are sums of their own terms (no difference of sums). A tail below 1e-3 of its
    total is left to :func:`solve_theta`, which sums small tails again from x (the caller uses
    this function only for levels below 99.6%, where that is rare).
    """
    origin = _mode(starts[0], m, n, k, lo, hi)
    pm, pl, pu = math.exp(starts[0]), math.exp(starts[1]), math.exp(starts[2])
    scratch[:] = 0.0
    near = scratch[0]         # the side away from x, the origin and the terms strictly between it and x
    far = scratch[1]          # x and beyond
    if x == origin:
        far[:, 0] = 1.0       # the origin is x
    else:
        near[:, 0] = 1.0
    dx = x - origin
    up = x > origin
    # the side of the origin away from x (both sides at x == origin: x's side then starts at x)
    if up or x == origin:
        _walk3(False, origin, lo, 1.0, 1.0, 1.0, 1.0 / pm, 1.0 / pl, 1.0 / pu, m, n, k, origin, 1.0, 1.0, 1.0, near)
    else:
        _walk3(True, origin, hi, 1.0, 1.0, 1.0, pm, pl, pu, m, n, k, origin, 1.0, 1.0, 1.0, near)
    if x == origin:
        tm = tl = tu = 1.0
        wm = wl = wu = 1.0
        j = x
    else:
        step = 1.0 if up else -1.0
        if up:
            j, tm, tl, tu = _walk3(True, origin, x - 1.0, 1.0, 1.0, 1.0, pm, pl, pu, m, n, k, origin,
                                      near[0, 0], near[1, 0], near[2, 0], near)
            r = ((m - j) * (k - j)) / ((j + 1.0) * (n - k + j + 1.0))
            wm, wl, wu = tm * r * pm, tl * r * pl, tu * r * pu
        else:
            j, tm, tl, tu = _walk3(False, origin, x + 1.0, 1.0, 1.0, 1.0, 1.0 / pm, 1.0 / pl, 1.0 / pu, m, n, k,
                                        origin, near[0, 0], near[1, 0], near[2, 0], near)
            r = (j * (n - k + j)) / ((m - j + 1.0) * (k - j + 1.0))
            wm, wl, wu = tm * r / pm, tl * r / pl, tu * r / pu
        if j != x - step:  # the walk stopped before x: every chain's tail beyond is negligible
            return False
        j = x
        for row, w in ((0, wm), (1, wl), (2, wu)):
            far[row, 0] += w
            far[row, 1] += w * dx
            far[row, 2] += w * dx * dx
            far[row, 3] += w * dx * dx * dx
    total_m, total_l, total_u = near[0, 0] + far[0, 0], near[1, 0] + far[1, 0], near[2, 0] + far[2, 0]
    if up or (x == origin):
        _walk3(True, j, hi, wm, wl, wu, pm, pl, pu, m, n, k, origin, total_m, total_l, total_u, far)
    else:
        _walk3(False, j, lo, wm, wl, wu, 1.0 / pm, 1.0 / pl, 1.0 / pu, m, n, k, origin, total_m, total_l, total_u, far)
    for row in range(3):
        if not math.isfinite(near[row, 0] + far[row, 0] + near[row, 2] + far[row, 2]):
            return False
    for row in range(3):
        s0 = near[row, 0] + far[row, 0]
        s1 = near[row, 1] + far[row, 1]
        s2 = near[row, 2] + far[row, 2]
        c1 = s1 / s0
        mean = origin + c1
        var = max(s2 / s0 - c1 * c1, 0.0)
        if row == 0:
            s3 = near[0, 3] + far[0, 3]
            m3 = s3 / s0 - 3.0 * c1 * s2 / s0 + 2.0 * c1 * c1 * c1
            root, then = _accept(starts[0], mean - x, var, m3)
            out[0] = root if root == root else solve_theta(MLE, x, 0.0, m, n, k, lo, hi, then)
            continue
        # far = x and beyond: P(X >= x) where x is at or above the origin, else P(X <= x); the other
        # tail is the near part plus the term at x
        w = wl if row == 1 else wu
        if (row == 1) == (up or x == origin):
            p0, p1, p2 = far[row, 0], far[row, 1], far[row, 2]
        else:
            p0, p1, p2 = near[row, 0] + w, near[row, 1] + w * dx, near[row, 2] + w * dx * dx
        root = math.nan
        then = starts[row]
        if p0 >= _SMALL_TAIL * s0:
            c = p1 / p0
            log_tail = math.log(p0) - math.log(s0) if p0 < s0 else 0.0
            var_tail = max(p2 / p0 - c * c, 0.0)
            if row == 1:
                root, then = _accept(starts[1], log_tail - log_alpha_lo, origin + c - mean, var_tail - var)
            else:
                root, then = _accept(starts[2], log_alpha_hi - log_tail, mean - origin - c, var - var_tail)
        if not (root == root):
            root = solve_theta(LOWER if row == 1 else UPPER, x, log_alpha_lo if row == 1 else log_alpha_hi,
                               m, n, k, lo, hi, then)
        out[row] = root
    return True


@njit(cache=True)
def _odds_ratio_one(x: float, m: float, n: float, k: float, log_alpha_lo: float, log_alpha_hi: float,
                    z_lo: float, z_hi: float, need_lo: bool, need_hi: bool, starts: np.ndarray,
                    out: np.ndarray, scratch: np.ndarray) -> None:
    """log of (estimate, lower, upper) into out[0:3]; `starts` holds warm starts (NaN: none).

    Infinite logs mark 0 and infinity; NaN an undefined estimate (a zero margin).
    """
    lo = max(0.0, k - n)
    hi = min(k, m)
    if lo == hi:  # one possible table: every odds ratio is as likely
        out[0] = math.nan
        out[1] = -math.inf
        out[2] = math.inf
        return
    if need_lo and need_hi and lo < x < hi and min(log_alpha_lo, log_alpha_hi) > _LOG_WARM_TAIL \
            and abs(starts[0]) < THETA_MAX and abs(starts[1]) < THETA_MAX and abs(starts[2]) < THETA_MAX:
        if _solve_three_warm(x, m, n, k, lo, hi, log_alpha_lo, log_alpha_hi, starts, out, scratch):
            return
    # the conditional MLE
    if x == lo:
        out[0] = -math.inf
    elif x == hi:
        out[0] = math.inf
    else:
        start = starts[0]
        if not (start == start):  # the empirical log odds ratio with 1/2 added to each cell
            start = math.log((x + 0.5) * (n - k + x + 0.5) / ((k - x + 0.5) * (m - x + 0.5)))
        out[0] = solve_theta(MLE, x, 0.0, m, n, k, lo, hi, start)
    # a centre and a spread for cold starts of the bounds (computed only when needed)
    centre = math.nan
    spread = math.nan
    cold = (need_lo and x != lo and not (starts[1] == starts[1])) or \
        (need_hi and x != hi and not (starts[2] == starts[2]))
    if cold:
        if out[0] == out[0] and abs(out[0]) < THETA_MAX:
            centre = out[0]
            spread = 1.0 / math.sqrt(max(_evaluate(centre, x, m, n, k, lo, hi, MLE)[1], 1e-12))
        else:
            centre = math.log((x + 0.5) * (n - k + x + 0.5) / ((k - x + 0.5) * (m - x + 0.5)))
            spread = math.sqrt(1.0 / (x + 0.5) + 1.0 / (k - x + 0.5) + 1.0 / (m - x + 0.5)
                               + 1.0 / (n - k + x + 0.5))
    if not need_lo:
        out[1] = -math.inf
    elif x == lo:
        out[1] = -math.inf
    else:
        start = starts[1]
        if not (start == start):
            start = centre - z_lo * spread
        out[1] = solve_theta(LOWER, x, log_alpha_lo, m, n, k, lo, hi, start)
    if not need_hi:
        out[2] = math.inf
    elif x == hi:
        out[2] = math.inf
    else:
        start = starts[2]
        if not (start == start):
            start = centre + z_hi * spread
        out[2] = solve_theta(UPPER, x, log_alpha_hi, m, n, k, lo, hi, start)


# --- the three roots from every h-th weight (see the module note) ---------------------------------

_NODE_SHARE = 0.31      # node spacing h at an anchor: this share of the standard deviation (floor, at least 2)
_NODE_SHARE_MAX = 0.36  # any chain's sd below h / this: anchor again
_NODE_SHARE_MIN = 0.15  # the estimate's sd above h / this: anchor again (wider spacing is faster)
_NODE_REACH = 10.0      # nodes reach this many sd beyond each bound's point x -+ z sd
_CHAIN_REACH = 9.5      # a chain sums the nodes within this many sd of its mode
_NODE_MIN_SD = 7.2      # below this sd: today's walk
_NODE_END = 1e-19       # the end nodes of every chain below this share of its node sum
_NODE_MAX_STEPS = 4096  # anchor again after this many transports
_NODE_MAX_DELTA = 3     # a margin changing by more: anchor again
_NODE_ITER = 8
_RECENT = 8            # a table equal to one of the last this many runs of equal tables is copied
_NODE_CAP = 224         # node capacity (the grid needs at most ~160 at levels below 99.6%)

# grid fields
G_H, G_G0, G_L, G_M, G_N, G_K, G_THETA, G_C0, G_STEPS, G_VALID, G_CAP, G_SD = range(12)


@njit(cache=True, error_model="numpy")
def _sinc_tail_table(h, c0, atab):
    """atab[c0 + c] = sum over integers u >= c of sinc(u / h), c in [-c0, c0] (h integer >= 1)."""
    hh = int(h)
    sines = np.empty(2 * hh)
    for r in range(2 * hh):
        sines[r] = math.sin(math.pi * r / h)
    sines[0] = 0.0
    sines[hh] = 0.0
    half_up = 0.5 * (h + 1.0)
    half_dn = 0.5 * (h - 1.0)
    ci = int(c0)
    atab[ci] = half_up
    if ci + 1 < atab.shape[0]:
        atab[ci + 1] = half_dn
    cs = 0.0
    for u in range(1, ci + 1):
        cs += sines[u % (2 * hh)] * h / (math.pi * u)
        atab[ci - u] = half_up + cs
        if ci + u + 1 < atab.shape[0]:
            atab[ci + u + 1] = half_dn - cs


@njit(cache=True, error_model="numpy", _nrt=False)
def _geometric(out, count, first, ratio):
    """out[l] = first * ratio^l for l < count rounded up to 16: 16 powers, then blocks of 16."""
    r = ratio
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    r16 = r8 * r8
    p0, p1, p2, p3 = 1.0, r, r2, r2 * r
    p4, p5, p6, p7 = r4, r4 * r, r4 * r2, r4 * p3
    base = first
    for blk in range(0, count, 16):
        b8 = base * r8
        out[blk] = base * p0
        out[blk + 1] = base * p1
        out[blk + 2] = base * p2
        out[blk + 3] = base * p3
        out[blk + 4] = base * p4
        out[blk + 5] = base * p5
        out[blk + 6] = base * p6
        out[blk + 7] = base * p7
        out[blk + 8] = b8 * p0
        out[blk + 9] = b8 * p1
        out[blk + 10] = b8 * p2
        out[blk + 11] = b8 * p3
        out[blk + 12] = b8 * p4
        out[blk + 13] = b8 * p5
        out[blk + 14] = b8 * p6
        out[blk + 15] = b8 * p7
        base *= r16



@njit(cache=True, error_model="numpy")
def _anchor(x, m, n, k, lo, hi, theta, sd, z_lo, z_hi, grid, nodes, atab):
    """Nodes every h-th weight at theta, relative to x's (exact products of consecutive ratios).

    False where the nodes would not serve (nodes and atab have fixed capacities).
    """
    h = max(2.0, math.floor(_NODE_SHARE * sd))
    l1 = min(math.ceil((z_lo + _NODE_REACH) * sd / h), math.floor((x - lo) / h))
    l2 = min(math.ceil((z_hi + _NODE_REACH) * sd / h), math.floor((hi - x) / h))
    grid[G_VALID] = 0.0
    # each chain's nodes must lie inside the support (trimmed: only the slack beyond the chains' reach)
    if not (abs(theta) < THETA_MAX) or l1 * h < (z_lo + _CHAIN_REACH) * sd or l2 * h < (z_hi + _CHAIN_REACH) * sd:
        return False
    g0 = x - l1 * h
    size = int(l1 + l2 + 1)
    cap = ((size + 15) // 16) * 16
    if nodes.shape[0] < cap + 32:
        return False
    psi = math.exp(theta)
    ipsi = math.exp(-theta)
    i1 = int(l1)
    nodes[i1] = 1.0
    t = 1.0
    j = x
    for q in range(int(l2)):
        for s in range(int(h)):
            t *= _ratio_up(j, m, n, k) * psi
            j += 1.0
        nodes[i1 + q + 1] = t
    t = 1.0
    j = x
    for q in range(i1):
        for s in range(int(h)):
            t *= _ratio_down(j, m, n, k) * ipsi
            j -= 1.0
        nodes[i1 - q - 1] = t
    for l in range(size, nodes.shape[0]):
        nodes[l] = 0.0
    if not (math.isfinite(nodes[0]) and math.isfinite(nodes[size - 1])) or nodes[0] > 1e100 or nodes[size - 1] > 1e100:
        return False
    c0 = math.floor((atab.shape[0] - 1) / 2)
    if c0 < (size + 24) * h:
        return False
    if grid[G_H] != h:
        _sinc_tail_table(h, c0, atab)
        grid[G_C0] = c0
    grid[G_H] = h
    grid[G_G0] = g0
    grid[G_L] = size
    grid[G_M] = m
    grid[G_N] = n
    grid[G_K] = k
    grid[G_THETA] = theta
    grid[G_STEPS] = 0.0
    grid[G_VALID] = 1.0
    grid[G_CAP] = cap
    grid[G_SD] = sd
    return True


@njit(cache=True, error_model="numpy", _nrt=False)
def _transport(x, m, n, k, theta, grid, nodes, num, den):
    """The node values of the table (m, n, k) at theta from those of the previous table: exact ratios of weights."""
    dm = m - grid[G_M]
    dk = k - grid[G_K]
    dnk = (n - k) - (grid[G_N] - grid[G_K])
    if max(abs(dm), abs(dk), abs(dnk)) > _NODE_MAX_DELTA or grid[G_STEPS] >= _NODE_MAX_STEPS:
        return False
    size = int(grid[G_L])
    cap = int(grid[G_CAP])
    h = grid[G_H]
    g0 = grid[G_G0]
    if g0 < max(0.0, k - n) or g0 + (size - 1) * h > min(k, m):
        return False
    d = theta - grid[G_THETA]
    _geometric(num, cap, math.exp(d * (g0 - x)), math.exp(d * h))
    have_den = False
    # w(j) ~ 1 / ((m - j)! (k - j)! (n - k + j)!) (j! and the margins' factorials cancel in every ratio)
    for f in range(3):
        if f == 0:
            sgn, const, delta = -1.0, grid[G_M], dm
        elif f == 1:
            sgn, const, delta = -1.0, grid[G_K], dk
        else:
            sgn, const, delta = 1.0, grid[G_N] - grid[G_K], dnk
        step = sgn * h
        if delta > 0:  # (A)! / (A + delta)!
            for i in range(1, int(delta) + 1):
                c = const + sgn * g0 + i
                if have_den:
                    for l in range(cap):
                        den[l] *= c + step * l
                else:
                    for l in range(cap):
                        den[l] = c + step * l
                    have_den = True
        elif delta < 0:  # (A)! / (A - |delta|)!
            for i in range(int(-delta)):
                c = const + sgn * g0 - i
                for l in range(cap):
                    num[l] *= c + step * l
    if have_den:
        for l in range(cap):
            nodes[l] *= num[l] / den[l]
    else:
        for l in range(cap):
            nodes[l] *= num[l]
    for l in range(size, cap):
        nodes[l] = 0.0
    mid = nodes[int((x - g0) / h)]
    if not (1e-150 < mid < 1e150):
        if not (mid > 0.0 and math.isfinite(mid)):
            return False
        inv = 1.0 / mid
        for l in range(cap):
            nodes[l] *= inv
    grid[G_M] = m
    grid[G_N] = n
    grid[G_K] = k
    grid[G_THETA] = theta
    grid[G_STEPS] += 1.0
    return True


@njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"}, _nrt=False)
def _chain_sums(kind, x, d, la, lb, grid, nodes, atab, tilt, sums):
    """Sums over nodes la..lb-1 of the chain at grid theta + d: sums[0:4] = h sum f e^p (p = 0..3,
    e = j - x), sums[4:7] = the tail's (j >= x for LOWER, j <= x for UPPER) sum f A e^p (p = 0..2),
    sums[7] = the larger end node / the node sum. The tail sum of a node is A(c), the sum over integers
    u >= c of sinc(u / h)."""
    h = grid[G_H]
    g0 = grid[G_G0]
    e0 = g0 - x
    count = lb - la
    s0 = s1 = s2 = s3 = 0.0
    t0 = t1 = t2 = 0.0
    c0 = int(grid[G_C0])
    hi = int(h)
    if kind == MLE:
        for l in range(la, lb):
            f = nodes[l]
            e = e0 + h * l
            v = f * e
            s0 += f
            s1 += v
            v *= e
            s2 += v
            s3 += v * e
        ends = max(nodes[la], nodes[lb - 1])
    else:
        _geometric(tilt, count, math.exp(d * (e0 + h * la)), math.exp(d * h))
        if kind == LOWER:  # P(X >= x): A(x - x_l)
            base = c0 + int(x - g0) - hi * la
            step = -hi
        else:  # P(X <= x): A(x_l - x)
            base = c0 - int(x - g0) + hi * la
            step = hi
        for q in range(count):
            l = la + q
            f = nodes[l] * tilt[q]
            e = e0 + h * l
            a = atab[base + step * q]
            v = f * e
            s0 += f
            s1 += v
            s2 += v * e
            w = f * a
            t0 += w
            w *= e
            t1 += w
            t2 += w * e
        ends = max(nodes[la] * tilt[0], nodes[lb - 1] * tilt[count - 1])
    sums[0] = h * s0
    sums[1] = h * s1
    sums[2] = h * s2
    sums[3] = h * s3
    sums[4] = t0
    sums[5] = t1
    sums[6] = t2
    sums[7] = ends / s0


@njit(cache=True, error_model="numpy", _nrt=False)
def _nodes_solve(x, lo, hi, m, n, k, log_alpha_lo, log_alpha_hi, z_lo, z_hi, starts, grid, nodes, atab, tilt,
                 sums, out):
    """The three roots from the nodes. 0: done; 1: the nodes do not serve this table (anchor again)."""
    theta_b = grid[G_THETA]
    h = grid[G_H]
    g0 = grid[G_G0]
    size = grid[G_L]
    # the A table must hold every node's offset from x
    if (x - g0) + 2 * h > grid[G_C0] or (g0 + (size + 8) * h - x) > grid[G_C0]:
        return 11
    sd = grid[G_SD]
    for r in range(3):
        kind = MLE if r == 0 else (LOWER if r == 1 else UPPER)
        centre = x if r == 0 else (x - z_lo * sd if r == 1 else x + z_hi * sd)
        la = int(max(0.0, math.floor((centre - (_CHAIN_REACH + 0.5) * sd - g0) / h)))
        lb = int(min(size, math.ceil((centre + (_CHAIN_REACH + 0.5) * sd - g0) / h) + 1.0))
        if lb - la < 8:
            return 12
        theta = starts[r]
        if not (abs(theta) < THETA_MAX):
            return 12
        root = math.nan
        for it in range(_NODE_ITER):
            _chain_sums(kind, x, theta - theta_b, la, lb, grid, nodes, atab, tilt, sums)
            s0 = sums[0]
            if not (s0 > 0.0 and math.isfinite(s0) and math.isfinite(sums[2])):
                return 13
            if sums[7] > _NODE_END:
                return 14 + r
            c1 = sums[1] / s0
            var = sums[2] / s0 - c1 * c1
            if not (var > 0.0) or h > _NODE_SHARE_MAX * math.sqrt(var):
                return 17 + r
            if kind == MLE:
                m3 = sums[3] / s0 - 3.0 * c1 * sums[2] / s0 + 2.0 * c1 * c1 * c1
                root, then = _accept(theta, c1, var, m3)
            else:
                p0 = sums[4]
                if not (p0 > 0.0):
                    return 20
                c = sums[5] / p0
                var_tail = max(sums[6] / p0 - c * c, 0.0)
                log_tail = math.log(p0) - math.log(s0) if p0 < s0 else 0.0
                if kind == LOWER:
                    root, then = _accept(theta, log_tail - log_alpha_lo, c - c1, var_tail - var)
                else:
                    root, then = _accept(theta, log_alpha_hi - log_tail, c1 - c, var - var_tail)
            if root == root:
                break
            if then == theta:
                break
            theta = then
        if r == 0:
            sd = math.sqrt(var)
            grid[G_SD] = sd
        if not (root == root):
            log_alpha = 0.0 if kind == MLE else (log_alpha_lo if kind == LOWER else log_alpha_hi)
            root = solve_theta(kind, x, log_alpha, m, n, k, lo, hi, theta)
        out[r] = root
    if h < _NODE_SHARE_MIN * sd:
        grid[G_STEPS] = _NODE_MAX_STEPS  # anchor again at the next table: a wider spacing is faster
    return 0


@njit(cache=True)
def _woolf(a: float, b: float, c: float, d: float, z_lo: float, z_hi: float) -> tuple:
    """Woolf's logit approximations (1/2 added to each cell) of the three roots: (centre, lower, upper)."""
    centre = math.log((a + 0.5) * (d + 0.5) / ((b + 0.5) * (c + 0.5)))
    spread = math.sqrt(1.0 / (a + 0.5) + 1.0 / (b + 0.5) + 1.0 / (c + 0.5) + 1.0 / (d + 0.5))
    return centre, centre - z_lo * spread, centre + z_hi * spread


@njit(cache=True, error_model="numpy")
def _odds_ratio_run(a, b, c, d, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, out, first, stop):
    """Tables first..stop-1 in order; a table next to the previous one starts from its roots.

    The start is the previous root moved by as much as Woolf's approximation of the same root
    moves between the two tables: the approximation is off by O(1/n) but its change from one
    table to the next is the exact root's change to about 1e-7, so that the first Halley step
    usually lands within rounding and one evaluation decides the root.
    """
    starts = np.empty(3)
    warm = np.empty(3)
    row = np.empty(3)
    scratch = np.empty((2, 3, 4))
    grid = np.zeros(12)
    sums = np.empty(8)
    sd_max = 0.0
    for i in range(first, stop):
        sd_max = max(sd_max, 1.0 / math.sqrt(1.0 / (a[i] + 0.5) + 1.0 / (b[i] + 0.5) + 1.0 / (c[i] + 0.5)
                                             + 1.0 / (d[i] + 0.5)))
    cap = _NODE_CAP
    nodes = np.zeros(cap)
    num = np.empty(cap)
    den = np.empty(cap)
    tilt = np.empty(cap)
    atab = np.empty(2 * int((cap + 24) * max(2.0, math.floor(_NODE_SHARE * sd_max))) + 3)
    fast = need_lo and need_hi and min(log_alpha_lo, log_alpha_hi) > _LOG_WARM_TAIL
    recent = np.full(_RECENT, -1, dtype=np.int64)  # rows where the last few runs of one table began
    pushed = 0
    for i in range(first, stop):
        if i > first and a[i] == a[i - 1] and b[i] == b[i - 1] and c[i] == c[i - 1] and d[i] == d[i - 1]:
            out[i, 0] = out[i - 1, 0]
            out[i, 1] = out[i - 1, 1]
            out[i, 2] = out[i - 1, 2]
            continue
        seen = -1
        for r in range(_RECENT):
            j = recent[r]
            if j >= 0 and a[i] == a[j] and b[i] == b[j] and c[i] == c[j] and d[i] == d[j]:
                seen = j
                break
        recent[pushed % _RECENT] = i
        pushed += 1
        if seen >= 0:  # the table of a few steps back (a step away and back)
            out[i, 0] = out[seen, 0]
            out[i, 1] = out[seen, 1]
            out[i, 2] = out[seen, 2]
            continue
        starts[0] = math.nan
        starts[1] = math.nan
        starts[2] = math.nan
        now = _woolf(a[i], b[i], c[i], d[i], z_lo, z_hi)
        if i > first:
            near = (abs(a[i] - a[i - 1]) + abs(b[i] - b[i - 1]) + abs(c[i] - c[i - 1])
                    + abs(d[i] - d[i - 1])) <= 4.0
            if near:
                before = _woolf(a[i - 1], b[i - 1], c[i - 1], d[i - 1], z_lo, z_hi)
                for r in range(3):
                    v = out[i - 1, r]
                    if abs(v) < THETA_MAX:
                        starts[r] = v + (now[r] - before[r])
        x = a[i]
        m = a[i] + c[i]
        n = b[i] + d[i]
        k = a[i] + b[i]
        lo = max(0.0, k - n)
        hi = min(k, m)
        done = False
        if fast and lo < x < hi:
            sd = 1.0 / math.sqrt(1.0 / (a[i] + 0.5) + 1.0 / (b[i] + 0.5) + 1.0 / (c[i] + 0.5) + 1.0 / (d[i] + 0.5))
            if sd >= _NODE_MIN_SD:
                warm[0] = starts[0]
                warm[1] = starts[1]
                warm[2] = starts[2]
                for r in range(3):
                    if not (starts[r] == starts[r]):
                        starts[r] = now[r]
                status = 1
                # the previous table's nodes moved to this table, else nodes of its own
                if grid[G_VALID] == 1.0 and _transport(x, m, n, k, starts[0], grid, nodes, num, den):
                    status = _nodes_solve(x, lo, hi, m, n, k, log_alpha_lo, log_alpha_hi, z_lo, z_hi, starts,
                                          grid, nodes, atab, tilt, sums, row)
                if status >= 1 and _anchor(x, m, n, k, lo, hi, starts[0], sd, z_lo, z_hi, grid, nodes, atab):
                    status = _nodes_solve(x, lo, hi, m, n, k, log_alpha_lo, log_alpha_hi, z_lo, z_hi, starts,
                                          grid, nodes, atab, tilt, sums, row)
                if status == 0:
                    done = True
                else:
                    starts[0] = warm[0]
                    starts[1] = warm[1]
                    starts[2] = warm[2]
                    grid[G_VALID] = 0.0
        if not done:
            _odds_ratio_one(x, m, n, k, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, starts, row,
                            scratch)
        out[i, 0] = row[0]
        out[i, 1] = row[1]
        out[i, 2] = row[2]


@njit(cache=True)
def _odds_ratio_serial(a, b, c, d, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, out, bounds):
    for r in range(bounds.shape[0] - 1):
        _odds_ratio_run(a, b, c, d, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, out,
                        bounds[r], bounds[r + 1])


@njit(cache=True, parallel=True)
def _odds_ratio_parallel(a, b, c, d, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, out, bounds):
    for r in prange(bounds.shape[0] - 1):
        _odds_ratio_run(a, b, c, d, log_alpha_lo, log_alpha_hi, z_lo, z_hi, need_lo, need_hi, out,
                        bounds[r], bounds[r + 1])


_CHUNK = 4096  # tables per run of warm starts in the parallel kernel


def _distinct_tables(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the first occurrence of each distinct table, in order of appearance, and for every
    table the position of its table among them (``distinct[position] `` holds its cells).

    For tables not in the order of a curve (the kernel copies only tables met a few runs before).
    """
    cells = (a, b, c, d)
    bits = int(max(float(v.max()) for v in cells)).bit_length()
    if np.array_equal(a + b, c + d):  # two n-best lists: equal rows, d = a + b - c
        cells = cells[:3]
    if bits * len(cells) <= 63:  # one int64 key per table
        key = sum(v.astype(np.int64) << (bits * i) for i, v in enumerate(cells))
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(np.stack(cells, axis=1), axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")  # the distinct tables in order of appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse]


def _along_a_curve(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    """Whether most tables (in a sample of up to 4,096) are next to the previous one, as along a curve."""
    i = np.unique(np.linspace(1, a.shape[0] - 1, min(a.shape[0] - 1, 4096)).astype(np.int64))
    step = np.abs(a[i] - a[i - 1]) + np.abs(b[i] - b[i - 1]) + np.abs(c[i] - c[i - 1]) + np.abs(d[i] - d[i - 1])
    return bool(np.mean(step <= 4.0) >= 0.5)


def log_odds_ratios(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, alpha_lo: float,
                    alpha_hi: float, z_lo: float, z_hi: float) -> np.ndarray:
    """log of (conditional MLE, lower bound, upper bound) of the odds ratio of each table, shape (len, 3).

    ``alpha_lo`` / ``alpha_hi``: the tail probability at the lower / upper bound (0 to leave that
    bound at 0 / infinity); ``z_lo``, ``z_hi`` the matching normal quantiles (cold starts only).
    A table equal to the previous one, or to one of the last few runs of equal tables (a curve steps
    away and back), is copied, not solved again; neighbours along a curve start from each other's
    roots. (Sorting out every distinct table first cost a fifth of the solving at 1,000,000 n and
    saved only 1% of the tables a curve has.) Tables not in a curve's order (most not next to the
    previous one) are sorted out first: each distinct table is then solved once.
    """
    size = a.shape[0]
    if size == 0:
        return np.empty((0, 3))
    if size > 2 and not _along_a_curve(a, b, c, d):
        rows, position = _distinct_tables(a, b, c, d)
        if rows.size < size:
            cells = (np.ascontiguousarray(v[rows]) for v in (a, b, c, d))
            return _log_odds_ratios(*cells, alpha_lo, alpha_hi, z_lo, z_hi)[position]
    return _log_odds_ratios(a, b, c, d, alpha_lo, alpha_hi, z_lo, z_hi)


def _log_odds_ratios(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, alpha_lo: float,
                     alpha_hi: float, z_lo: float, z_hi: float) -> np.ndarray:
    size = a.shape[0]
    need_lo, need_hi = alpha_lo > 0.0, alpha_hi > 0.0
    log_lo = math.log(alpha_lo) if need_lo else 0.0
    log_hi = math.log(alpha_hi) if need_hi else 0.0
    out = np.empty((size, 3))
    if size < PARALLEL_MIN:
        bounds = np.array([0, size], dtype=np.int64)
        _odds_ratio_serial(a, b, c, d, log_lo, log_hi, z_lo, z_hi, need_lo, need_hi, out, bounds)
    else:
        bounds = np.unique(np.r_[np.arange(0, size, _CHUNK), size]).astype(np.int64)
        with PARALLEL_LOCK:
            _odds_ratio_parallel(a, b, c, d, log_lo, log_hi, z_lo, z_hi, need_lo, need_hi, out, bounds)
    return out
