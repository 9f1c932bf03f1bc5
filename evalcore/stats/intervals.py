"""Binomial confidence intervals for the true precision (Evert 2004, §3.2), vectorised."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

from .kernels import march_binomial_roots, wilson_bounds
from .. import names
from ..errors import ParameterError
from .fisher import ALTERNATIVES

_PARALLEL_MIN = 50_000  # below this, threads cost more than they save
_MARCH_MIN = 2_000  # below this, scipy alone is as fast
_MARCH_SMOOTH = 20  # march only where j and n - j are at least this (a smooth, narrow density)
_MARCH_ANCHOR = 1024  # re-anchor on scipy's value at least this often


@dataclass(frozen=True)
class ConfidenceInterval:
    """Lower and upper bounds, arrays of the broadcast shape of ``k`` and ``n``."""

    low: np.ndarray
    high: np.ndarray

    def __iter__(self):
        return iter((self.low, self.high))


def _betaincinv(a: np.ndarray, b: np.ndarray, y: float) -> np.ndarray:
    """scipy.special.betaincinv, split over the cores for long arrays (the ufunc releases the GIL)."""
    workers = min(os.cpu_count() or 1, 4)
    if a.size < _PARALLEL_MIN or workers < 2:
        return special.betaincinv(a, b, y)
    out = np.empty_like(a)
    bounds = np.linspace(0, a.size, workers + 1).astype(int)
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda i: special.betaincinv(a[bounds[i]:bounds[i + 1]], b[bounds[i]:bounds[i + 1]], y,
                                                    out=out[bounds[i]:bounds[i + 1]]), range(workers)))
    return out


def _beta_bounds(k, n, tail, a_shift: float, b_shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower bound = Beta(k + a_shift, n - k + b_shift) quantile `tail`, upper from the mirrored tail.

    The lower bound is 0 at k = 0 and the upper bound 1 at k = n, as in R's binom.test.
    """
    low = np.zeros_like(k)
    high = np.ones_like(k)
    has_low = k > 0
    has_high = k < n
    low[has_low] = _betaincinv(k[has_low] + a_shift, n[has_low] - k[has_low] + b_shift, tail)
    kh, nh = k[has_high], n[has_high]
    # the upper quantile of Beta(k + b', n - k + a') as 1 - lower quantile of Beta(n - k + a', k + b')
    high[has_high] = 1.0 - _betaincinv(nh - kh + a_shift, kh + b_shift, tail)
    return low, high


def _binomial_cdf_root(j: np.ndarray, n: np.ndarray, c: float) -> np.ndarray:
    """p with P(Bin(n, p) <= j) = c, for 0 <= j < n (a Clopper-Pearson bound).

    Where consecutive entries follow an n-best curve (n up by one, j up by zero or one), the
    roots are marched from exact anchors by a compiled kernel (see ``_kernels``), which is
    several times faster than scipy at large n; elsewhere, and wherever a marched step cannot
    be certified, scipy's ``betaincinv`` (Boost) gives the root.
    """
    def exact(jj, nn):  # solve in the smaller tail for accuracy
        if c <= 0.5:
            return 1.0 - _betaincinv(nn - jj, jj + 1.0, c)
        return _betaincinv(jj + 1.0, nn - jj, 1.0 - c)

    if j.size < _MARCH_MIN:
        return exact(j, n)
    smooth = (j >= _MARCH_SMOOTH) & (n - j >= _MARCH_SMOOTH)
    step_j = np.diff(j)
    marchable = np.r_[False, (np.diff(n) == 1) & ((step_j == 0) | (step_j == 1)) & smooth[1:] & smooth[:-1]]
    marchable[::_MARCH_ANCHOR] = False
    roots = np.full(j.size, np.nan)
    anchors = np.flatnonzero(~marchable)
    roots[anchors] = exact(j[anchors], n[anchors])
    stops = np.r_[anchors[1:], j.size]
    runs = stops - anchors > 1
    if runs.any():
        march_binomial_roots(j, n, roots, anchors[runs], stops[runs])
    missing = np.isnan(roots)
    if missing.any():
        roots[missing] = exact(j[missing], n[missing])
    return roots


def _clopper_pearson(k, n, tail, z):
    low = np.zeros_like(k)
    high = np.ones_like(k)
    has_low, has_high = k > 0, k < n
    # lower bound: P(X >= k) = tail, i.e. P(X <= k - 1) = 1 - tail; upper: P(X <= k) = tail
    low[has_low] = _binomial_cdf_root(k[has_low] - 1.0, n[has_low], 1.0 - tail)
    high[has_high] = _binomial_cdf_root(k[has_high], n[has_high], tail)
    return low, high


def _jeffreys(k, n, tail, z):
    return _beta_bounds(k, n, tail, 0.5, 0.5)


def _wilson_score(k, n, z, yates):
    """R's prop.test interval for one proportion (Wilson 1927, with Yates' correction `yates`): one compiled pass
    for long arrays (:func:`evalcore.stats.kernels.wilson_bounds`, the same arithmetic), NumPy below."""
    if np.ndim(k) == 1 and k.size >= _MARCH_MIN:
        k, n = np.ascontiguousarray(k, dtype=np.float64), np.ascontiguousarray(n, dtype=np.float64)
        yates = np.ascontiguousarray(np.broadcast_to(np.asarray(yates, dtype=np.float64), k.shape))
        low, high = np.empty_like(k), np.empty_like(k)
        wilson_bounds(k, n, float(z), yates, low, high)
        return low, high
    p_hat = k / n
    z22n = z * z / (2.0 * n)
    with np.errstate(invalid="ignore"):
        p_c = p_hat + yates / n
        high = np.where(p_c >= 1.0, 1.0,
                        (p_c + z22n + z * np.sqrt(np.abs(p_c * (1 - p_c)) / n + z22n / (2 * n))) / (1 + 2 * z22n))
        p_c = p_hat - yates / n
        low = np.where(p_c <= 0.0, 0.0,
                       (p_c + z22n - z * np.sqrt(np.abs(p_c * (1 - p_c)) / n + z22n / (2 * n))) / (1 + 2 * z22n))
    return np.maximum(low, 0.0), np.minimum(high, 1.0)


def _wilson(k, n, tail, z):
    return _wilson_score(k, n, z, 0.0)


def _wilson_cc(k, n, tail, z):
    # R caps the correction at |x - n p0| with p0 = 0.5, the default null of prop.test.
    return _wilson_score(k, n, z, np.minimum(0.5, np.abs(k - 0.5 * n)))


def _agresti_coull(k, n, tail, z):
    n_tilde = n + z * z
    p_tilde = (k + z * z / 2.0) / n_tilde
    half = z * np.sqrt(p_tilde * (1 - p_tilde) / n_tilde)
    return np.clip(p_tilde - half, 0.0, 1.0), np.clip(p_tilde + half, 0.0, 1.0)


def _wald(k, n, tail, z):
    p_hat = k / n
    half = z * np.sqrt(p_hat * (1 - p_hat) / n)
    return np.clip(p_hat - half, 0.0, 1.0), np.clip(p_hat + half, 0.0, 1.0)


INTERVAL_METHODS: dict[str, Callable] = {
    "clopper_pearson": _clopper_pearson,
    "wilson": _wilson,
    "wilson_cc": _wilson_cc,
    "jeffreys": _jeffreys,
    "agresti_coull": _agresti_coull,
    "wald": _wald,
}

INTERVAL_LABELS = names.INTERVAL_LABELS


def check_confidence_level(confidence_level: float) -> float:
    level = float(confidence_level)
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`confidence_level` must be in (0, 1), e.g. 0.95; got {confidence_level!r}")
    return level


def binomial_interval(k, n, confidence_level: float = 0.95, method: str = "clopper_pearson",
                      alternative: str = "two-sided") -> ConfidenceInterval:
    """Confidence interval for a binomial proportion, vectorised over ``k`` and ``n``.

    Parameters
    ----------
    k : array_like of int
        Successes (TPs in an acceptance set), ``0 <= k <= n``.
    n : array_like of int
        Trials (size of the acceptance set), ``n >= 1``. Broadcast against ``k``.
    confidence_level : float
        In (0, 1); default 0.95.
    method : str
        One of ``INTERVAL_METHODS``: "clopper_pearson" (default; equals R's
        ``binom.test``), "wilson" (R's ``prop.test(correct=FALSE)``), "wilson_cc" (R's
        ``prop.test()``), "jeffreys", "agresti_coull", "wald".
    alternative : {"two-sided", "less", "greater"}
        "less" gives ``[0, upper]`` and "greater" ``[lower, 1]`` with one-sided bounds at
        the full level, as R does.

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high`` with ``0 <= low <= k/n <= high <= 1``.

    Notes
    -----
    Clopper-Pearson: the lower bound is the ``alpha/2`` quantile of Beta(k, n - k + 1) and
    the upper bound the ``1 - alpha/2`` quantile of Beta(k + 1, n - k), with 0 at k = 0 and
    1 at k = n. Jeffreys uses Beta(k + 1/2, n - k + 1/2) with the same end conventions
    (Brown, Cai & DasGupta 2001). Wald and Agresti-Coull are clipped to [0, 1].

    References
    ----------
    Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
    Wilson, E. B. (1927). JASA 22, 209-212.
    Agresti, A. & Coull, B. A. (1998). The American Statistician 52, 119-126.
    Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Statistical Science 16, 101-133.
    Evert, S. (2004), §3.2: ``binom.test(200, 500)`` gives [0.357, 0.444].

    Examples
    --------
    >>> ci = binomial_interval(200, 500)
    >>> round(float(ci.low), 5), round(float(ci.high), 5)
    (0.35676, 0.44443)
    """
    level = check_confidence_level(confidence_level)
    if method not in INTERVAL_METHODS:
        raise ParameterError(f"`method` must be one of {', '.join(INTERVAL_METHODS)}; got {method!r}")
    if alternative not in ALTERNATIVES:
        raise ParameterError(f"`alternative` must be one of {', '.join(ALTERNATIVES)}; got {alternative!r}")
    k_arr, n_arr = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64))
    shape = k_arr.shape
    k_arr, n_arr = k_arr.ravel(), n_arr.ravel()
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr) \
            or np.any(k_arr != np.floor(k_arr)) or np.any(n_arr != np.floor(n_arr)):
        bad = ~((n_arr >= 1) & (k_arr >= 0) & (k_arr <= n_arr) & (k_arr == np.floor(k_arr))
                & (n_arr == np.floor(n_arr)))
        i = int(np.argmax(bad))
        raise ParameterError(f"`k` and `n` must be whole numbers with 0 <= k <= n and n >= 1; "
                             f"got k={k_arr[i]:g}, n={n_arr[i]:g}")
    alpha = 1.0 - level
    two_sided = alternative == "two-sided"
    tail = alpha / 2 if two_sided else alpha
    z = special.ndtri(1.0 - tail)
    low, high = INTERVAL_METHODS[method](k_arr, n_arr, tail, z)
    if alternative == "less":
        low = np.zeros_like(low)
    elif alternative == "greater":
        high = np.ones_like(high)
    return ConfidenceInterval(low=low.reshape(shape)[()], high=high.reshape(shape)[()])
