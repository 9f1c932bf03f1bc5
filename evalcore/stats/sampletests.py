"""Tests across the k samples of an experiment, each computed exactly as R 4.2.2 computes it.

One value per sample and measure (typically the precision of an n-best list on sample i), and
the question whether the samples fit the binomial model (:func:`ks_normal`, :func:`binom_test`)
or whether measure A beats measure B over the samples (:func:`paired_t`,
:func:`wilcoxon_paired`, :func:`sign_test`, with :func:`welch_t` for contrast).

Every function follows the R function named in its docstring step by step, including R's
floating-point details where they decide the answer (R's two-pass long-double mean and
variance, the order of the sums in the Kolmogorov matrix power, ``uniroot``'s Brent steps), so
that the results agree with R to about 1e-13 relative. ``tests/r/generate_samples_reference.R``
writes R's values and ``tests/test_sampletests.py`` checks them.

Where R stops with an error on degenerate data, these functions return a documented value
instead (see each function's Notes); ``method`` then says what happened.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy import special
from scipy.stats import binom, rankdata

from ..errors import ParameterError
from .fisher import ALTERNATIVES
from .intervals import binomial_interval, check_confidence_level

_EPS = np.finfo(float).eps  # R's .Machine$double.eps and C's DBL_EPSILON
_M_LN2 = 0.693147180559945309417232121458  # C's M_LN2
_M_1_SQRT_2PI = 0.398942280401432677939946059934  # C's M_1_SQRT_2PI
_KS_TOL = 1e-6  # ks.test's tol for the asymptotic Kolmogorov series
_KS_EXACT_MAX_N = 100  # ks.test: exact when n < 100 and no ties
_WILCOXON_EXACT_MAX_N = 50  # wilcox.test: exact when n < 50 and no ties, no zeros
_TOL_ROOT = 1e-4  # wilcox.test's tol.root for uniroot
_MAXITER = 1000  # uniroot's maxiter

COLUMNS = ("test", "statistic", "df", "p_value", "estimate", "low", "high", "method")


@dataclass(frozen=True)
class TestResult:
    """Outcome of one test; unpacks as ``statistic, p_value`` (like SciPy's results).

    Attributes
    ----------
    test : str
        The test, e.g. ``"paired t-test"``.
    statistic : float
        t (t-tests), V (Wilcoxon), the number of successes (binomial and sign tests), D (KS).
    df : float
        Degrees of freedom of the t-tests; NaN for the other tests.
    p_value : float
        The p-value, in [0, 1].
    estimate : float
        The effect: the mean difference (paired t), the difference of the means (Welch t), the
        Hodges-Lehmann pseudo-median of the differences (Wilcoxon), the proportion of successes
        (binomial test; the proportion of positive among the nonzero differences in the sign
        test); NaN for the KS test.
    low, high : float
        Confidence interval of ``estimate``; NaN where there is none.
    method : str
        How the p-value was computed (``"exact"``, ``"asymptotic"``, ``"t distribution"``,
        ``"normal approximation with continuity correction"``, with the reasons in brackets), or
        why no value could be computed.
    """

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    df: float
    p_value: float
    estimate: float
    low: float
    high: float
    method: str

    def __post_init__(self):  # plain Python floats, whatever numpy scalar the computation produced
        for name in ("statistic", "df", "p_value", "estimate", "low", "high"):
            object.__setattr__(self, name, float(getattr(self, name)))

    def __iter__(self):
        return iter((self.statistic, self.p_value))


# ------------------------------------------------------------------------------------ validation

def _values(values, name: str, min_size: int = 2) -> np.ndarray:
    """One validation block for a sample vector: 1-d, at least `min_size` finite numbers."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"`{name}` must be a sequence of numbers; got {values!r:.80}") from None
    if arr.ndim != 1:
        raise ParameterError(f"`{name}` must be one-dimensional (one value per sample); got shape {arr.shape}")
    if arr.size < min_size:
        raise ParameterError(f"`{name}` needs at least {min_size} value(s); got {arr.size}")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise ParameterError(f"`{name}` must hold finite numbers; got {float(arr[i])!r} at position {i}. "
                             "Drop the samples without a value first.")
    return arr


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a_arr, b_arr = _values(a, "a"), _values(b, "b")
    if a_arr.size != b_arr.size:
        raise ParameterError(f"`a` and `b` must have the same length (one value per sample, same samples in the "
                             f"same order); got {a_arr.size} and {b_arr.size}")
    return a_arr, b_arr


# ----------------------------------------------------------------------- R's arithmetic, replayed

def _r_mean(x: np.ndarray) -> float:
    """R's ``mean(x)``: a long-double sum, divided, then corrected by the mean residual."""
    xl = x.astype(np.longdouble)
    s = np.cumsum(xl)[-1] / x.size  # cumsum: sequential, like R's loop (np.sum is pairwise)
    if np.isfinite(s):
        s = s + np.cumsum(xl - s)[-1] / x.size
    return float(s)


def _r_var(x: np.ndarray) -> float:
    """R's ``var(x)`` (cov.c): deviations from the mean (rounded to double), squared and summed in long double."""
    dev = x.astype(np.longdouble) - np.longdouble(_r_mean(x))
    return float(np.cumsum(dev * dev)[-1] / (x.size - 1))


def _r_median(x: np.ndarray) -> float:
    x = np.sort(x)
    half = (x.size + 1) // 2
    return float(x[half - 1]) if x.size % 2 else _r_mean(x[half - 1:half + 1])


def _qnorm(p: float, lower_tail: bool = True) -> float:
    """R 4.2.2's ``qnorm(p, lower.tail = lower_tail)`` (Wichura's AS 241), for 0 < p < 1.

    SciPy's ``ndtri`` differs from it by a few ulp, and ``wilcox.test``'s interval (a root of a
    step function found by ``uniroot``) is sensitive enough to such differences to move by up to
    its tolerance, so the quantiles are computed as R computes them.
    """
    p_ = p if lower_tail else 0.5 - p + 0.5
    q = p_ - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        return q * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r
                         + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
                      + 133.14166789178437745) * r + 3.387132872796366608) \
            / (((((((r * 5226.495278852854561 + 28729.085735721942674) * r + 39307.89580009271061) * r
                   + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
                + 42.313330701600911252) * r + 1.0)
    tail = (0.5 - p + 0.5 if lower_tail else p) if q > 0 else p_
    r = math.sqrt(-math.log(tail))
    if r <= 5.0:
        r += -1.6
        val = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
                   + 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                + 4.6303378461565452959) * r + 1.42343711074968357734) \
            / (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
                   + 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r
                + 2.05319162663775882187) * r + 1.0)
    else:
        r += -5.0
        val = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
                   + 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                + 5.4637849111641143699) * r + 6.6579046435011037772) \
            / (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
                   + 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
                + 0.59983220655588793769) * r + 1.0)
    return -val if q < 0 else val


def _signif(x: float, digits: int) -> float:
    return float(f"{x:.{digits}g}")


# -------------------------------------------------------------------------------- binomial test

def binom_test(x: int, n: int, p: float, alternative: str = "two-sided",
               confidence_level: float = 0.95) -> TestResult:
    """Exact binomial test of ``x`` successes in ``n`` trials against the probability ``p``.

    As R's ``binom.test(x, n, p, alternative, conf.level)``.

    Parameters
    ----------
    x : int
        Successes, ``0 <= x <= n``.
    n : int
        Trials, ``n >= 1``.
    p : float
        Success probability under the null hypothesis, in [0, 1].
    alternative : {"two-sided", "less", "greater"}
        "less": the true probability is below ``p``.
    confidence_level : float
        Level of the Clopper-Pearson interval; in (0, 1).

    Returns
    -------
    TestResult
        ``statistic = x``, ``estimate = x / n``, ``low, high`` = the Clopper-Pearson interval
        (one-sided for a one-sided alternative, as R), ``method = "exact"``, ``df`` NaN.

    Notes
    -----
    With ``d = P(X = x)``, ``X ~ Bin(n, p)``, the two-sided p-value is the probability of all
    outcomes at most as likely as the observed one, ``sum_{i: P(X = i) <= d (1 + 1e-7)} P(X = i)``
    (R's rule; the factor ``1 + 1e-7`` makes outcomes of equal probability count despite rounding).
    It is 1 when ``x = n p``. One-sided: ``P(X <= x)`` ("less"), ``P(X >= x)`` ("greater").
    R can return a two-sided value of 1 + a few ulp; it is clipped to 1 here (SciPy's
    ``binomtest`` implements the same rule and clips too).

    References
    ----------
    Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
    R Core Team, ``binom.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> r = binom_test(12, 80, 0.05)        # 12 of 80 95% intervals miss
    >>> round(r.p_value, 6)
    0.000614
    """
    level = check_confidence_level(confidence_level)
    if alternative not in ALTERNATIVES:
        raise ParameterError(f"`alternative` must be one of {', '.join(ALTERNATIVES)}; got {alternative!r}")
    try:
        x_f, n_f, p_f = float(x), float(n), float(p)
    except (TypeError, ValueError):
        raise ParameterError(f"`x`, `n` and `p` must be numbers; got x={x!r}, n={n!r}, p={p!r}") from None
    if not (n_f >= 1 and n_f == math.floor(n_f)):
        raise ParameterError(f"`n` must be a whole number >= 1; got {n!r}")
    if not (0 <= x_f <= n_f and x_f == math.floor(x_f)):
        raise ParameterError(f"`x` must be a whole number with 0 <= x <= n = {n_f:g}; got {x!r}")
    if not 0.0 <= p_f <= 1.0:
        raise ParameterError(f"`p` must be a probability in [0, 1]; got {p!r}")
    xi, ni = int(x_f), int(n_f)
    p_value = min(1.0, _BINOM_P[alternative](xi, ni, p_f))
    ci = binomial_interval(xi, ni, confidence_level=level, method="clopper_pearson", alternative=alternative)
    return TestResult("exact binomial test", float(xi), math.nan, p_value, xi / ni, float(ci.low),
                      float(ci.high), "exact")


def _binom_two_sided(x: int, n: int, p: float) -> float:
    if p == 0.0:
        return float(x == 0)
    if p == 1.0:
        return float(x == n)
    rel_err = 1 + 1e-7
    d = binom.pmf(x, n, p)
    m = n * p
    if x == m:
        return 1.0
    if x < m:
        i = np.arange(math.ceil(m), n + 1)
        y = int(np.sum(binom.pmf(i, n, p) <= d * rel_err))
        return float(binom.cdf(x, n, p) + binom.sf(n - y, n, p))
    i = np.arange(0, math.floor(m) + 1)
    y = int(np.sum(binom.pmf(i, n, p) <= d * rel_err))
    return float(binom.cdf(y - 1, n, p) + binom.sf(x - 1, n, p))


_BINOM_P: dict[str, Callable[[int, int, float], float]] = {
    "two-sided": _binom_two_sided,
    "less": lambda x, n, p: float(binom.cdf(x, n, p)),
    "greater": lambda x, n, p: float(binom.sf(x - 1, n, p)),
}


# ------------------------------------------------------------------------------------ t-tests

def _t_result(test: str, tstat: float, df: float, stderr: float, estimate: float, level: float) -> TestResult:
    """p-value and interval as R's t.test: ``2 pt(-|t|, df)``, ``(t -+ qt(1 - alpha/2, df)) stderr``."""
    p_value = float(2.0 * special.stdtr(df, -abs(tstat)))
    q = float(special.stdtrit(df, 1.0 - (1.0 - level) / 2.0))
    return TestResult(test, tstat, df, p_value, estimate, (tstat - q) * stderr, (tstat + q) * stderr,
                      "t distribution")


def _t_degenerate(test: str, df: float, estimate: float, what: str) -> TestResult:
    if estimate == 0.0:
        return TestResult(test, math.nan, df, 1.0, estimate, math.nan, math.nan,
                          f"degenerate: {what} are all equal and the difference is 0; p = 1 by convention "
                          "(R: t = NaN or 'data are essentially constant')")
    return TestResult(test, math.nan, df, math.nan, estimate, math.nan, math.nan,
                      f"not defined: {what} are (essentially) constant, so the standard error is 0 "
                      "(R: 'data are essentially constant')")


def paired_t(a, b, confidence_level: float = 0.95) -> TestResult:
    """Paired t-test of the differences ``a - b`` (sample by sample) against 0.

    As R's ``t.test(a, b, paired = TRUE, conf.level = confidence_level)``.

    Parameters
    ----------
    a, b : array_like of float, shape (k,)
        The value of measures A and B on each of the same k >= 2 samples, in the same order.
    confidence_level : float
        Level of the interval of the mean difference; in (0, 1).

    Returns
    -------
    TestResult
        ``statistic`` = t, ``df = k - 1``, ``estimate`` = mean of ``a - b`` with its interval.

    Notes
    -----
    With ``d_i = a_i - b_i``, mean ``dbar`` and standard deviation ``s`` (ddof = 1),
    ``t = dbar / (s / sqrt(k))`` has the t distribution with ``k - 1`` df under the null
    hypothesis; ``p = 2 P(T <= -|t|)`` and the interval is ``dbar -+ t_{k-1, 1-alpha/2} s / sqrt(k)``
    (Student 1908). Mean and variance are computed as R computes them (long-double sums), so that
    R's test ``s / sqrt(k) < 10 eps |dbar|`` for "essentially constant" data decides alike.

    Degenerate data: if all differences are 0, t = 0/0 and R returns NaN; here ``p_value = 1``,
    ``statistic`` and the interval NaN. If the differences are (essentially) constant but not 0,
    R stops with an error; here ``p_value``, ``statistic`` and the interval are NaN. ``method``
    says which case occurred.

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6, 1-25.
    R Core Team, ``t.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> r = paired_t([0.30, 0.25, 0.41, 0.28], [0.26, 0.24, 0.35, 0.27])
    >>> round(r.statistic, 4), round(r.p_value, 4)
    (2.4495, 0.0917)
    """
    level = check_confidence_level(confidence_level)
    a_arr, b_arr = _pair(a, b)
    d = a_arr - b_arr
    k = d.size
    mean = _r_mean(d)
    stderr = math.sqrt(_r_var(d) / k)
    if stderr == 0.0 or stderr < 10 * _EPS * abs(mean):
        return _t_degenerate("paired t-test", k - 1.0, mean, "the differences")
    return _t_result("paired t-test", mean / stderr, k - 1.0, stderr, mean, level)


def welch_t(a, b, confidence_level: float = 0.95) -> TestResult:
    """Welch's unpaired t-test of the means of ``a`` and ``b`` (unequal variances).

    As R's ``t.test(a, b, conf.level = confidence_level)`` (``var.equal = FALSE``).

    Parameters
    ----------
    a, b : array_like of float
        Two groups of at least 2 values each; the lengths may differ.
    confidence_level : float
        Level of the interval of ``mean(a) - mean(b)``; in (0, 1).

    Returns
    -------
    TestResult
        ``statistic`` = t, ``df`` = Welch-Satterthwaite df, ``estimate = mean(a) - mean(b)``
        with its interval.

    Notes
    -----
    ``se_a^2 = s_a^2 / n_a``, ``se_b^2 = s_b^2 / n_b``, ``se = sqrt(se_a^2 + se_b^2)``,
    ``t = (mean(a) - mean(b)) / se``, ``df = se^4 / (se_a^4 / (n_a - 1) + se_b^4 / (n_b - 1))``
    (Welch 1947; Satterthwaite 1946); ``p = 2 P(T_df <= -|t|)``, interval
    ``mean(a) - mean(b) -+ t_{df, 1-alpha/2} se``.

    Degenerate data (``se`` = 0 or below R's ``10 eps max(|mean(a)|, |mean(b)|)``, where R stops
    with "data are essentially constant"): ``p_value = 1`` if the means are equal, else NaN;
    ``statistic``, ``df`` and the interval NaN.

    For the precisions of two measures on the same samples, this test ignores the pairing; it
    is given for contrast with :func:`paired_t`.

    References
    ----------
    Welch, B. L. (1947). Biometrika 34, 28-35.
    Satterthwaite, F. E. (1946). Biometrics Bulletin 2, 110-114.
    R Core Team, ``t.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> r = welch_t([0.30, 0.25, 0.41, 0.28], [0.26, 0.24, 0.35, 0.27])
    >>> round(r.df, 3), round(r.p_value, 4)
    (5.339, 0.5092)
    """
    level = check_confidence_level(confidence_level)
    a_arr, b_arr = _values(a, "a"), _values(b, "b")
    na, nb = a_arr.size, b_arr.size
    ma, mb = _r_mean(a_arr), _r_mean(b_arr)
    se_a, se_b = math.sqrt(_r_var(a_arr) / na), math.sqrt(_r_var(b_arr) / nb)
    stderr = math.sqrt(se_a * se_a + se_b * se_b)
    if stderr == 0.0 or stderr < 10 * _EPS * max(abs(ma), abs(mb)):
        return _t_degenerate("Welch t-test", math.nan, ma - mb, "both groups")
    df = stderr ** 4 / (se_a ** 4 / (na - 1) + se_b ** 4 / (nb - 1))
    return _t_result("Welch t-test", (ma - mb) / stderr, df, stderr, ma - mb, level)


# ------------------------------------------------------------------ Wilcoxon signed-rank test

def _signrank_counts(n: int) -> np.ndarray:
    """Number of subsets of {1, ..., n} with sum s, s = 0 .. n(n+1)/2 (exact below n = 50)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for j in range(1, n + 1):
        counts[j:] = counts[j:] + counts[:-j]
    return counts


def _psignrank(x: float, n: int, counts: np.ndarray, lower_tail: bool = True) -> float:
    """R's psignrank (nmath/signrank.c), summing the same terms in the same order."""
    x = math.floor(x + 1e-7)
    u = n * (n + 1) / 2
    if x < 0:
        return 0.0 if lower_tail else 1.0
    if x >= u:
        return 1.0 if lower_tail else 0.0
    f = math.exp(-n * _M_LN2)
    p = 0.0
    if x <= u / 2:
        for i in range(int(x) + 1):
            p += counts[i] * f
    else:
        for i in range(int(u - x)):
            p += counts[i] * f
        lower_tail = not lower_tail
    return p if lower_tail else 0.5 - p + 0.5


def _qsignrank(prob: float, n: int, counts: np.ndarray) -> int:
    """R's qsignrank (lower tail, prob <= 0.5 as wilcox.test uses it)."""
    if prob == 0.0:
        return 0
    f = math.exp(-n * _M_LN2)
    p, q = 0.0, 0
    target = prob - 10 * _EPS
    while True:
        p += counts[q] * f
        if p >= target:
            return q
        q += 1


def _zeroin2(f: Callable[[float], float], ax: float, bx: float, fa: float, fb: float,
             tol: float, maxit: int) -> float:
    """R's R_zeroin2 (Brent's root finder as in R's zeroin.c, which uniroot calls), step by step."""
    a, b, c, fc = ax, bx, ax, fa
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    for _ in range(maxit + 1):
        prev_step = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2 * _EPS * abs(b) + tol / 2
        new_step = (c - b) / 2
        if abs(new_step) <= tol_act or fb == 0.0:
            return b
        if abs(prev_step) >= tol_act and abs(fa) > abs(fb):
            cb = c - b
            if a == c:
                t1 = fb / fa
                p = cb * t1
                q = 1.0 - t1
            else:
                q = fa / fc
                t1 = fb / fc
                t2 = fb / fa
                p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
                q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            if p > 0:
                q = -q
            else:
                p = -p
            if p < (0.75 * cb * q - abs(tol_act * q) / 2) and p < abs(prev_step * q / 2):
                new_step = p / q
        if abs(new_step) < tol_act:
            new_step = tol_act if new_step > 0 else -tol_act
        a, fa = b, fb
        b += new_step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    return b  # not converged (R warns); cannot happen within 1000 steps at tol 1e-4 on these data


def _signed_rank_z(xd: np.ndarray, correct: bool = True) -> float:
    """z of the signed-rank statistic of ``xd`` (zeros dropped, ties corrected), R's ``W(d)``."""
    xd = xd[xd != 0]
    nx = xd.size
    ranks = rankdata(np.abs(xd))
    z = float(ranks[xd > 0].sum()) - nx * (nx + 1) / 4
    _, ties = np.unique(ranks, return_counts=True)
    sigma = math.sqrt(nx * (nx + 1) * (2 * nx + 1) / 24 - float(np.sum(ties ** 3 - ties)) / 48)
    correction = math.copysign(0.5, z) if (correct and z != 0) else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(np.float64(z - correction) / np.float64(sigma))


def _wilcoxon_exact_interval(x: np.ndarray, n: int, counts: np.ndarray, level: float):
    """R's exact interval: order statistics of the Walsh averages at qsignrank(alpha/2, n)."""
    alpha = 1.0 - level
    i, j = np.triu_indices(n)
    walsh = np.sort(x[i] + x[j]) / 2
    qu = _qsignrank(alpha / 2, n, counts)
    qu = max(qu, 1)
    ql = n * (n + 1) // 2 - qu
    achieved_alpha = 2 * _psignrank(qu - 1, n, counts)
    achieved = level if achieved_alpha - alpha <= alpha / 2 else 1 - _signif(achieved_alpha, 2)
    return float(walsh[qu - 1]), float(walsh[ql]), _r_median(walsh), achieved


def _wilcoxon_approx_interval(x: np.ndarray, level: float):
    """R's asymptotic interval and estimate: roots of the z statistic in the shift, by uniroot."""
    lo, hi = float(np.min(x)), float(np.max(x))
    w_lo = _signed_rank_z(x - lo)
    w_hi = _signed_rank_z(x - hi) if math.isfinite(w_lo) else math.nan
    if not math.isfinite(w_hi):  # all differences equal: no interval, the midrange as estimate
        return math.nan, math.nan, (lo + hi) / 2, 0.0

    def w(d):
        return _signed_rank_z(x - d)

    def root(zq):
        return _zeroin2(lambda d: w(d) - zq, lo, hi, w_lo - zq, w_hi - zq, _TOL_ROOT, _MAXITER)

    alpha = 1.0 - level
    while True:  # R widens the interval until the requested quantiles are inside [min, max]
        if alpha / 2 < 1 and (w_lo - _qnorm(alpha / 2, False) < 0 or w_hi - _qnorm(alpha / 2) > 0):
            alpha *= 2
        else:
            break
    achieved = 1 - min(1.0, alpha) if (alpha >= 1 or 1 - level < alpha * 0.75) else level
    if alpha < 1:
        low, high = root(_qnorm(alpha / 2, False)), root(_qnorm(alpha / 2))
    else:
        low = high = _r_median(x)

    # R sets correct <- FALSE after the interval, and W reads it when called: the estimate is
    # the root of the z statistic *without* continuity correction.
    def w_uncorrected(d):
        return _signed_rank_z(x - d, correct=False)

    estimate = _zeroin2(w_uncorrected, lo, hi, w_uncorrected(lo), w_uncorrected(hi), _TOL_ROOT, _MAXITER)
    return low, high, estimate, achieved


def wilcoxon_paired(a, b, confidence_level: float = 0.95) -> TestResult:
    """Wilcoxon signed-rank test of the differences ``a - b``, with the Hodges-Lehmann estimate.

    As R's ``wilcox.test(a, b, paired = TRUE, conf.int = TRUE, conf.level = confidence_level)``.

    Parameters
    ----------
    a, b : array_like of float, shape (k,)
        The value of measures A and B on each of the same k >= 2 samples, in the same order.
    confidence_level : float
        Requested level of the interval of the pseudo-median; in (0, 1).

    Returns
    -------
    TestResult
        ``statistic`` = V, the sum of the ranks of ``|d|`` over the positive differences;
        ``estimate`` = the pseudo-median of the differences (Hodges-Lehmann) with its interval;
        ``df`` NaN; ``method`` = ``"exact"`` or ``"normal approximation with continuity
        correction"`` with the reasons in brackets, and the achieved level of the interval when
        R had to widen it.

    Notes
    -----
    Zero differences are dropped (n = number of nonzero differences) and ``|d|`` ranked with
    average ranks for ties. Ties are exact floating-point equality, as in R (whose
    ``digits.rank = Inf`` is the default): differences of precisions such as 0.3 - 0.1 and
    0.5 - 0.3 are equal on paper but not in floating point, and are then ranked as distinct.

    *Exact* (n < 50, no ties, no zeros): ``P(V <= v)`` from the distribution of the sum of a
    random subset of ranks {1, ..., n}; two-sided ``p = min(1, 2 P(V <= v))`` for
    ``v <= n (n + 1) / 4``, else ``min(1, 2 P(V >= v))``. The estimate is the median of the
    ``n (n + 1) / 2`` Walsh averages ``(d_i + d_j) / 2, i <= j``, and the interval runs between
    the Walsh averages of order ``q`` and ``n (n + 1) / 2 - q + 1`` with ``q`` R's
    ``qsignrank(alpha/2, n)`` (at least 1) (Hollander & Wolfe 1999, section 3.2). If the level
    cannot be reached (small n), R keeps ``q = 1`` and reports the achieved level
    ``1 - signif(2 P(V <= q - 1), 2)``; ``method`` repeats it.

    *Normal approximation* (otherwise): ``z = (V - n (n + 1) / 4 - 0.5 sign(.)) / sigma`` with
    ``sigma^2 = n (n + 1) (2 n + 1) / 24 - sum(t^3 - t) / 48`` over the tie groups of size t;
    ``p = 2 P(Z <= -|z|)``. The interval is the set of shifts ``mu`` at which the same z of
    ``d - mu`` lies between the normal quantiles ``-+z_{1-alpha/2}``; the estimate is the shift
    at which z *without* the continuity correction is 0 (R switches the correction off before
    it computes the estimate). R finds these shifts with ``uniroot(tol = 1e-4)`` on a step
    function, so they are only accurate to about 1e-4, are not the exact Hodges-Lehmann values,
    and where z is 0 on a whole interval of shifts (heavy ties) the estimate is wherever the root
    finder stops in it. This function replays R's root finder and R's ``qnorm`` step by step and
    so returns R's numbers. If the quantiles lie outside the range of z, R doubles alpha until
    they do not and reports the lower level, as ``method`` does here. If all nonzero differences
    are equal there is no interval (NaN) and the estimate is their midrange, as in R.

    All differences zero: R returns p = NA; here ``statistic = 0``, ``p_value = 1``, estimate
    and interval NaN.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin 1, 80-83.
    Hodges, J. L. & Lehmann, E. L. (1963). Ann. Math. Statist. 34, 598-611.
    Hollander, M. & Wolfe, D. A. (1999). Nonparametric Statistical Methods, 2nd ed., ch. 3.
    R Core Team, ``wilcox.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> r = wilcoxon_paired([0.30, 0.25, 0.41, 0.28, 0.33], [0.26, 0.24, 0.35, 0.29, 0.30])
    >>> r.statistic, r.p_value, r.method
    (14.0, 0.125, 'exact')
    """
    level = check_confidence_level(confidence_level)
    a_arr, b_arr = _pair(a, b)
    d = a_arr - b_arr
    x = d[d != 0]
    n = x.size
    zeros = d.size - n
    test = "Wilcoxon signed-rank test"
    if n == 0:
        return TestResult(test, 0.0, math.nan, 1.0, math.nan, math.nan, math.nan,
                          "degenerate: all differences are zero; p = 1 by convention (R: NA)")
    ranks = rankdata(np.abs(x))
    v = float(ranks[x > 0].sum())
    ties = np.unique(ranks).size < n
    if n < _WILCOXON_EXACT_MAX_N and not ties and zeros == 0:
        counts = _signrank_counts(n)
        if v > n * (n + 1) / 4:
            p_one = _psignrank(v - 1, n, counts, lower_tail=False)
        else:
            p_one = _psignrank(v, n, counts)
        p_value = min(2 * p_one, 1.0)
        low, high, estimate, achieved = _wilcoxon_exact_interval(x, n, counts, level)
        method = "exact"
    else:
        z = _signed_rank_z(x)
        p_value = float(2 * special.ndtr(-abs(z)))
        low, high, estimate, achieved = _wilcoxon_approx_interval(x, level)
        reasons = ([f"n = {n} >= {_WILCOXON_EXACT_MAX_N}"] if n >= _WILCOXON_EXACT_MAX_N else []) \
            + (["ties"] if ties else []) + ([f"{zeros} zero difference(s) dropped"] if zeros else [])
        method = f"normal approximation with continuity correction ({', '.join(reasons)})"
    if math.isnan(low):
        method += "; no interval: all nonzero differences are equal (estimate = their midrange)"
    elif achieved != level:
        method += f"; interval at the achievable level {achieved:.4g}, not {level:g}"
    return TestResult(test, v, math.nan, p_value, estimate, low, high, method)


# ----------------------------------------------------------------------------------- sign test

def sign_test(a, b, confidence_level: float = 0.95) -> TestResult:
    """Sign test: the number of samples where A beats B, among those where they differ.

    As R's ``binom.test(sum(d > 0), sum(d != 0), 0.5, conf.level = confidence_level)`` with
    ``d = a - b``.

    Parameters
    ----------
    a, b : array_like of float, shape (k,)
        The value of measures A and B on each of the same k >= 2 samples, in the same order.
    confidence_level : float
        Level of the Clopper-Pearson interval; in (0, 1).

    Returns
    -------
    TestResult
        ``statistic`` = number of positive differences, ``estimate`` = their proportion among the
        nonzero differences, with its Clopper-Pearson interval; ``df`` NaN.

    Notes
    -----
    Under the null hypothesis (median difference 0) the number of positive among the ``m``
    nonzero differences is Bin(m, 1/2); the p-value is :func:`binom_test`'s two-sided one
    (Dixon & Mood 1946). If all differences are zero (m = 0), where R's ``binom.test`` stops with
    an error, ``p_value = 1`` and estimate and interval are NaN.

    References
    ----------
    Dixon, W. J. & Mood, A. M. (1946). The statistical sign test. JASA 41, 557-566.

    Examples
    --------
    >>> round(sign_test([3, 3, 3, 3, 3, 3, 3, 1, 1, 1], [2] * 10).p_value, 6)   # 7 of 10 positive
    0.34375
    """
    level = check_confidence_level(confidence_level)
    a_arr, b_arr = _pair(a, b)
    d = a_arr - b_arr
    positive, nonzero = int(np.sum(d > 0)), int(np.sum(d != 0))
    if nonzero == 0:
        return TestResult("sign test", 0.0, math.nan, 1.0, math.nan, math.nan, math.nan,
                          "degenerate: all differences are zero; p = 1 by convention (R: error in binom.test)")
    r = binom_test(positive, nonzero, 0.5, confidence_level=level)
    zeros = d.size - nonzero
    method = "exact" + (f" ({zeros} zero difference(s) dropped)" if zeros else "")
    return TestResult("sign test", r.statistic, math.nan, r.p_value, r.estimate, r.low, r.high, method)


def cohens_dz(a, b) -> float:
    """Cohen's d_z: the mean difference in units of the standard deviation of the differences.

    Parameters
    ----------
    a, b : array_like of float, shape (k,)
        The value of measures A and B on each of the same k >= 2 samples, in the same order.

    Returns
    -------
    float
        ``mean(d) / sd(d)`` with ``d = a - b`` and ``sd`` with ddof = 1 (as R's ``sd``). If
        ``sd(d) = 0``: NaN when ``mean(d) = 0``, else +-inf (every sample differs by the same amount).

    Notes
    -----
    ``d_z = dbar / s_d`` (Cohen 1988, section 2.3.5); ``t = d_z sqrt(k)`` is the paired t statistic.

    References
    ----------
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.

    Examples
    --------
    >>> round(cohens_dz([0.30, 0.25, 0.41, 0.28], [0.26, 0.24, 0.35, 0.27]), 4)
    1.2247
    """
    a_arr, b_arr = _pair(a, b)
    d = a_arr - b_arr
    mean, sd = _r_mean(d), math.sqrt(_r_var(d))
    if sd == 0.0:
        return math.nan if mean == 0.0 else math.copysign(math.inf, mean)
    return mean / sd


# ------------------------------------------------------------------------------ Kolmogorov-Smirnov

def _mat_mult(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b with every entry summed as ks.c's m_multiply sums it: s = 0; s += a[i, k] b[k, j], k = 0, 1, ...

    (BLAS would sum in another order, and R's p = 1 - K(n, D) shows the difference where p is small.)
    """
    c = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):
        c += np.outer(a[:, k], b[k, :])
    return c


def _kolmogorov_exact_cdf(n: int, d: float) -> float:
    """P(D_n < d): Marsaglia, Tsang & Wang (2003), R's ks.c function K(n, d), same operations in the same order."""
    k = int(n * d) + 1
    m = 2 * k - 1
    h = k - n * d
    i, j = np.indices((m, m))
    hm = np.where(i - j + 1 < 0, 0.0, 1.0)
    for r in range(m):
        hm[r, 0] -= math.pow(h, r + 1)
        hm[m - 1, r] -= math.pow(h, m - r)
    hm[m - 1, 0] += math.pow(2 * h - 1, m) if 2 * h - 1 > 0 else 0.0
    for g in range(1, m + 1):  # H[i, j] /= 1, /= 2, ..., /= (i - j + 1), one division at a time
        mask = i - j + 1 >= g
        hm[mask] /= g
    # m_power(H, n) of ks.c, its recursion unrolled from the top bit of n down; the exponent e
    # counts the factors 1e140 taken out to avoid overflow
    v, e = hm, 0
    for bit in range(n.bit_length() - 2, -1, -1):
        v = _mat_mult(v, v)
        e *= 2
        if (n >> bit) & 1:
            v = _mat_mult(hm, v)
        if v[m // 2, m // 2] > 1e140:
            v = v * 1e-140
            e += 140
    s = float(v[k - 1, k - 1])
    for r in range(1, n + 1):
        s = s * r / n
        if s < 1e-140:
            s *= 1e140
            e -= 140
    return s * math.pow(10.0, e)


def _kolmogorov_limit_cdf(x: float, tol: float = _KS_TOL) -> float:
    """Kolmogorov's limiting P(sqrt(n) D_n < x) as R's pkstwo computes it (tol = 1e-6)."""
    k_max = int(math.sqrt(2 - math.log(tol)))
    if x < 1:
        z = -(math.pi / 2 * (math.pi / 4)) / (x * x)
        w = math.log(x)
        s = 0.0
        for k in range(1, k_max, 2):
            s += math.exp(k * k * z - w)
        return s / _M_1_SQRT_2PI
    z = -2 * x * x
    sign, k, old, new = -1.0, 1, 0.0, 1.0
    while abs(old - new) > tol:
        old = new
        new += 2 * sign * math.exp(z * k * k)
        sign *= -1
        k += 1
    return new


def ks_normal(x, mean: float, sd: float) -> TestResult:
    """One-sample Kolmogorov-Smirnov test of ``x`` against the normal distribution N(mean, sd^2).

    As R 4.2.2's ``ks.test(x, "pnorm", mean, sd)`` (two-sided).

    Parameters
    ----------
    x : array_like of float
        At least one finite value, e.g. the precision of one measure on each sample.
    mean, sd : float
        The normal distribution of the null hypothesis; ``sd > 0``. Evert (2004, section 4)
        predicts ``mean = pi`` and ``sd = sqrt(pi (1 - pi) / N)`` for the per-sample precisions.

    Returns
    -------
    TestResult
        ``statistic`` = D; ``method`` = ``"exact"``, ``"asymptotic"`` or ``"asymptotic (ties)"``;
        ``df``, ``estimate``, ``low``, ``high`` NaN.

    Notes
    -----
    With the sorted values ``x_(1) <= ... <= x_(n)`` and ``F`` the normal CDF,
    ``D = max_i max(F(x_(i)) - (i - 1)/n, i/n - F(x_(i)))``.

    *Exact* (n < 100 and no ties): ``p = 1 - P(D_n < D)`` with ``P(D_n < D)`` from Marsaglia,
    Tsang & Wang (2003), the power of an ``m x m`` matrix, ``m = 2 ceil(n D) - 1``. Because R
    subtracts from 1, its p-value has an absolute error of about 1e-16 and is 0 or a small
    multiple of 2^-52 where the true p is below about 1e-15; this function repeats the same
    computation in the same order and so returns the same numbers.

    *Asymptotic* (n >= 100, or ties at any n; ties are not allowed by the test's assumptions and R
    warns): ``p = 1 - K(sqrt(n) D)``, Kolmogorov's limit
    ``K(t) = 1 - 2 sum_{j>=1} (-1)^(j-1) exp(-2 j^2 t^2)``, which R sums until a term is below
    1e-6 for ``t >= 1`` and for ``t < 1`` replaces by the first term of
    ``sqrt(2 pi)/t sum_{j odd} exp(-j^2 pi^2 / (8 t^2))`` (with ``tol = 1e-6``, R's term count
    ``int(sqrt(2 - log(tol))) = 3`` keeps only ``j = 1``). That truncation makes R's p-value
    differ from the true limit by up to about 4e-5 (at t just below 1, where p is about 0.27);
    the value returned here is R's, not the true limit. Precisions ``T/N`` of equal-size samples often tie, so the
    asymptotic formula is used for them even at small n.

    References
    ----------
    Kolmogorov, A. (1933). Giornale dell'Istituto Italiano degli Attuari 4, 83-91.
    Marsaglia, G., Tsang, W. W. & Wang, J. (2003). Evaluating Kolmogorov's distribution.
    Journal of Statistical Software 8(18).
    Evert, S. (2004). Significance tests for the evaluation of ranking methods, section 4.
    R Core Team, ``ks.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> r = ks_normal([0.12, 0.08, 0.15, 0.11, 0.09, 0.13, 0.10, 0.14], 0.115, 0.03)
    >>> round(r.statistic, 6), r.method
    (0.121673, 'exact')
    """
    x_arr = _values(x, "x", min_size=1)
    try:
        mean_f, sd_f = float(mean), float(sd)
    except (TypeError, ValueError):
        raise ParameterError(f"`mean` and `sd` must be numbers; got mean={mean!r}, sd={sd!r}") from None
    if not math.isfinite(mean_f):
        raise ParameterError(f"`mean` must be a finite number; got {mean!r}")
    if not (math.isfinite(sd_f) and sd_f > 0):
        raise ParameterError(f"`sd` must be a finite number > 0; got {sd!r}. With sd = 0 there is no "
                             "normal distribution to test against.")
    n = x_arr.size
    ties = np.unique(x_arr).size < n
    diff = special.ndtr((np.sort(x_arr) - mean_f) / sd_f) - np.arange(n) / n
    d = float(max(np.max(diff), np.max(1.0 / n - diff)))
    if n < _KS_EXACT_MAX_N and not ties:
        p_value = 1.0 - _kolmogorov_exact_cdf(n, d)
        method = "exact"
    else:
        p_value = 1.0 - _kolmogorov_limit_cdf(math.sqrt(n) * d)
        method = "asymptotic (ties)" if ties else "asymptotic"
    p_value = min(1.0, max(0.0, p_value))
    return TestResult("Kolmogorov-Smirnov test", d, math.nan, p_value, math.nan, math.nan, math.nan, method)


# ---------------------------------------------------------------------------------- all together

def across_samples(a, b, confidence_level: float = 0.95) -> pd.DataFrame:
    """The paired tests of ``a - b`` over the samples, and Welch's unpaired t-test for contrast.

    Parameters
    ----------
    a, b : array_like of float, shape (k,)
        Per-sample precision of measure A and of measure B (same samples, same order), k >= 2.
    confidence_level : float
        Level of the intervals; in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per test, in this order: paired t-test (:func:`paired_t`), Wilcoxon signed-rank
        test (:func:`wilcoxon_paired`), sign test (:func:`sign_test`), Welch t-test
        (:func:`welch_t`, which ignores the pairing). Columns ``test, statistic, df, p_value,
        estimate, low, high, method`` as in :class:`TestResult`; the estimates are on the scale
        of ``a - b`` except the sign test's (proportion of samples with ``a > b``).

    Examples
    --------
    >>> t = across_samples([0.30, 0.25, 0.41, 0.28, 0.33], [0.26, 0.24, 0.35, 0.29, 0.30])
    >>> list(t["test"])
    ['paired t-test', 'Wilcoxon signed-rank test', 'sign test', 'Welch t-test']
    """
    check_confidence_level(confidence_level)
    _pair(a, b)
    rows = [f(a, b, confidence_level) for f in (paired_t, wilcoxon_paired, sign_test, welch_t)]
    return pd.DataFrame([asdict(r) for r in rows], columns=list(COLUMNS))
