"""How big is a difference between two n-best lists: the difference of precision and the odds ratio.

Two n-best lists A and B of the same candidates differ only in D1 = A \\ B and D2 = B \\ A, both
of size ``d = n - |A ∩ B|``. Under the model of Evert (2004, §3.3) the TPs in them are
independent binomials, ``T_D1 ~ Bin(d, pi_D1)`` and ``T_D2 ~ Bin(d, pi_D2)``, and

    Pi_A - Pi_B = (T_D1 - T_D2) / n = (d / n) (p_D1 - p_D2),    p_Di = T_Di / d.

This module gives, vectorised over many tables (every n of a curve):

* :func:`proportion_difference`: an interval for ``pi_D1 - pi_D2``, Newcombe's hybrid score
  interval (Newcombe 1998, method 10; the default) or Agresti and Caffo's (2000);
* :func:`precision_difference`: the same scaled by ``d / n``, an interval for the difference of
  the precisions of the two n-best lists;
* :func:`odds_ratio`: the conditional maximum-likelihood estimate of the odds ratio of
  ``[[T_D1, F_D1], [T_D2, F_D2]]`` and its exact conditional interval, as R's ``fisher.test``
  reports them (``estimate``, ``conf.int``), solved to full precision;
* :func:`effect_sizes`: both for a table of :func:`evalcore.compare.compare_rankings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd
from scipy import special

from .. import names
from ..errors import ColumnError, ParameterError
from .fisher import ALTERNATIVES, _counts, check_alternative
from .intervals import binomial_interval, check_confidence_level
from .noncentral import log_odds_ratios

EFFECT_COLUMNS = ("diff", "diff_low", "diff_high", "odds_ratio", "or_low", "or_high")


@dataclass(frozen=True)
class EffectInterval:
    """An estimate with its confidence interval; arrays of one shape. Unpacks as (estimate, low, high)."""

    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def __iter__(self):
        return iter((self.estimate, self.low, self.high))


# ------------------------------------------------------------------ difference of two proportions
def _wilson(k: np.ndarray, size: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score bounds with `tail` on each side (R's prop.test(correct = FALSE))."""
    ci = binomial_interval(k, size, 1.0 - 2.0 * tail, method="wilson")
    return np.asarray(ci.low, dtype=np.float64), np.asarray(ci.high, dtype=np.float64)


def _newcombe(x1, x2, size, tail):
    """Newcombe (1998), method 10: Wilson's score interval of each proportion, combined."""
    p1, p2 = x1 / size, x2 / size
    l1, u1 = _wilson(x1, size, tail)
    l2, u2 = _wilson(x2, size, tail)
    low = (p1 - p2) - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = (p1 - p2) + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return low, high


def _agresti_caffo(x1, x2, size, tail):
    """Agresti & Caffo (2000): the Wald interval after adding one TP and one FP to each group."""
    q1, q2 = (x1 + 1.0) / (size + 2.0), (x2 + 1.0) / (size + 2.0)
    half = special.ndtri(1.0 - tail) * np.sqrt((q1 * (1 - q1) + q2 * (1 - q2)) / (size + 2.0))
    return np.maximum(q1 - q2 - half, -1.0), np.minimum(q1 - q2 + half, 1.0)


DIFFERENCE_METHODS: dict[str, Callable] = {"newcombe": _newcombe, "agresti_caffo": _agresti_caffo}
DIFFERENCE_LABELS = names.DIFFERENCE_INTERVALS


def check_difference_method(method: str) -> str:
    if method not in DIFFERENCE_METHODS:
        raise ParameterError(f"`method` must be one of {', '.join(DIFFERENCE_METHODS)}; got {method!r}")
    return method


def proportion_difference(tp_d1, tp_d2, size, confidence_level: float = 0.95, method: str = "newcombe",
                          alternative: str = "two-sided") -> EffectInterval:
    """Difference ``pi_D1 - pi_D2`` of the TP rates of the two difference regions, with an interval.

    Parameters
    ----------
    tp_d1, tp_d2 : array_like of int
        TPs in D1 = A \\ B and in D2 = B \\ A; broadcast against `size`.
    size : array_like of int
        ``d = |D1| = |D2|``, at least the TP counts. Where ``d = 0`` (equal lists) the
        difference is 0 with the interval [0, 0].
    confidence_level : float
        In (0, 1).
    method : {"newcombe", "agresti_caffo"}
        See ``DIFFERENCE_METHODS``.
    alternative : {"two-sided", "less", "greater"}
        "less" gives ``[-1, high]`` and "greater" ``[low, 1]``, the one-sided bound at the full level.

    Returns
    -------
    EffectInterval
        ``estimate = (tp_d1 - tp_d2) / size`` and the bounds.

    Notes
    -----
    With ``p_i = x_i / d`` and Wilson's score bounds ``[l_i, u_i]`` of each proportion at the
    same level, Newcombe's method 10 is

        low  = p1 - p2 - sqrt((p1 - l1)^2 + (u2 - p2)^2),
        high = p1 - p2 + sqrt((u1 - p1)^2 + (p2 - l2)^2);

    it lies in [-1, 1] and contains ``p1 - p2``. Agresti-Caffo adds one success and one
    failure to each group, ``q_i = (x_i + 1) / (d + 2)``, and takes
    ``q1 - q2 +- z sqrt((q1 (1 - q1) + q2 (1 - q2)) / (d + 2))``, clipped to [-1, 1]. It is
    centred on the shrunken ``q1 - q2``, so at levels below about 0.92 it can miss ``p1 - p2``
    when almost every candidate of one region is a TP and none of the other is. Both equal
    statsmodels' ``confint_proportions_2indep(method="newcomb" | "agresti-caffo")``.

    References
    ----------
    Newcombe, R. G. (1998). Interval estimation for the difference between independent
    proportions: comparison of eleven methods. Statistics in Medicine 17, 873-890 (method 10).
    Agresti, A. & Caffo, B. (2000). Simple and effective confidence intervals for proportions
    and differences of proportions result from adding two successes and two failures.
    The American Statistician 54, 280-288.
    Evert, S. (2004). Significance tests for the evaluation of ranking methods. §3.3.

    Examples
    --------
    >>> est, low, high = proportion_difference(32, 15, 68)   # Krenn's G2 vs X2 at n = 100
    >>> round(float(est), 4), round(float(low), 4), round(float(high), 4)
    (0.25, 0.0903, 0.3929)
    """
    level = check_confidence_level(confidence_level)
    check_difference_method(method)
    check_alternative(alternative)
    x1, x2, size = np.broadcast_arrays(*(_counts(name, v) for name, v in
                                         (("tp_d1", tp_d1), ("tp_d2", tp_d2), ("size", size))))
    if np.any(x1 > size) or np.any(x2 > size):
        raise ParameterError("`tp_d1` and `tp_d2` cannot exceed `size`, the number of candidates in each region")
    shape = x1.shape
    x1, x2, size = (np.ravel(v) for v in (x1, x2, size))
    tail = (1.0 - level) / 2 if alternative == "two-sided" else 1.0 - level
    estimate = np.zeros(size.shape)
    low = np.zeros(size.shape)
    high = np.zeros(size.shape)
    some = size > 0
    if some.any():
        estimate[some] = (x1[some] - x2[some]) / size[some]
        low[some], high[some] = DIFFERENCE_METHODS[method](x1[some], x2[some], size[some], tail)
    if alternative == "less":
        low = np.where(some, -1.0, 0.0)
    elif alternative == "greater":
        high = np.where(some, 1.0, 0.0)
    return EffectInterval(*(v.reshape(shape)[()] for v in (estimate, low, high)))


def precision_difference(tp_d1, tp_d2, size, n, confidence_level: float = 0.95, method: str = "newcombe",
                         alternative: str = "two-sided") -> EffectInterval:
    """Difference of precision ``Pi_A - Pi_B`` of two n-best lists, with an interval.

    Parameters
    ----------
    tp_d1, tp_d2, size
        As in :func:`proportion_difference` (``size = d = n - |A ∩ B|``).
    n : array_like of int
        The list size, ``n >= size``.
    confidence_level, method, alternative
        As in :func:`proportion_difference`.

    Returns
    -------
    EffectInterval
        ``estimate = (tp_d1 - tp_d2) / n`` and the interval of ``pi_D1 - pi_D2`` times ``d / n``.

    Notes
    -----
    Under the model of Evert (2004, §3.3) the candidates in A ∩ B count for both lists, so
    ``Pi_A - Pi_B = (d / n) (pi_D1 - pi_D2)`` and an interval for ``pi_D1 - pi_D2`` scales to
    one for ``Pi_A - Pi_B``. The lists are fixed by the rankings; the interval is for the
    expected precision of these lists under the binomial model, the quantity of the paper's
    Figure 2 and Figure 3.

    Examples
    --------
    >>> est, low, high = precision_difference(32, 15, 68, 100)   # Krenn's G2 vs X2 at n = 100
    >>> round(float(est), 4), round(float(low), 4), round(float(high), 4)
    (0.17, 0.0614, 0.2672)
    """
    n_arr = _counts("n", n)
    size_arr = _counts("size", size)
    if np.any(np.broadcast_to(size_arr, np.broadcast_shapes(size_arr.shape, n_arr.shape)) > n_arr) \
            or np.any(n_arr < 1):
        raise ParameterError("`n` must be at least 1 and at least `size` (the difference regions lie in the lists)")
    inner = proportion_difference(tp_d1, tp_d2, size_arr, confidence_level, method, alternative)
    scale = size_arr / n_arr
    return EffectInterval(*(np.asarray(v * scale)[()] for v in inner))


# ------------------------------------------------------------------------------- odds ratio
def odds_ratio(a, b, c, d, confidence_level: float = 0.95, alternative: str = "two-sided") -> EffectInterval:
    """Conditional MLE of the odds ratio of ``[[a, b], [c, d]]`` and its exact conditional interval.

    Parameters
    ----------
    a, b, c, d : array_like of int
        The cells, broadcast. For two n-best lists ``a, b = T_D1, F_D1`` and ``c, d = T_D2, F_D2``.
    confidence_level : float
        In (0, 1).
    alternative : {"two-sided", "less", "greater"}
        As R: "less" gives ``[0, upper]`` and "greater" ``[lower, inf]`` at the full level.

    Returns
    -------
    EffectInterval
        ``estimate`` (0 where ``a`` is the smallest value the margins allow, ``inf`` where it
        is the largest), ``low`` and ``high`` (0 and ``inf`` where R gives them). Where a
        margin is 0 the table is the only one possible: the estimate is NaN and the
        interval [0, inf].

    Notes
    -----
    Given the margins, ``a`` follows Fisher's noncentral hypergeometric distribution
    ``P(a = j) ∝ C(m, j) C(n, k - j) psi^j`` (``m = a + c``, ``n = b + d``, ``k = a + b``).
    The conditional MLE solves ``E_psi[X] = a``; the interval (Cornfield 1956) solves
    ``P_psi(X >= a) = alpha/2`` for the lower and ``P_psi(X <= a) = alpha/2`` for the upper
    bound (``alpha`` one-sided), exactly as R's ``fisher.test``. R finds these roots with
    ``uniroot``, whose absolute tolerance (about 1.2e-4) applies to ``t = psi`` for
    ``psi < 1`` and to ``t = 1/psi`` above 1, so its bounds above 1,000 can be off by more
    than 10% (on Krenn's data, chisq against Dice at n = 1,700: R 13,853, exact 15,435), and
    some extreme tables get 2^52. Here every root is solved in ``log psi`` to rounding (see
    :mod:`evalcore.stats.noncentral`; checked against mpmath to 1e-9).

    R gives the estimate 0 for a table with a zero margin (it tests ``a == lo`` first); the
    likelihood is then flat, so the estimate here is NaN.

    For two n-best lists (rows of equal size d) the null distribution is symmetric, and the
    interval excludes 1 exactly where Fisher's test at the same level and alternative is
    significant.

    References
    ----------
    Cornfield, J. (1956). A statistical problem arising from retrospective studies.
    Proc. Third Berkeley Symposium 4, 135-148.
    Agresti, A. (2002). Categorical Data Analysis, 2nd ed., §3.5.7 and §16.6.4.
    R Core Team, ``fisher.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> est, low, high = odds_ratio(32, 36, 15, 53)   # Krenn's G2 vs X2 at n = 100
    >>> round(float(est), 4), round(float(low), 4), round(float(high), 4)
    (3.1134, 1.4059, 7.1435)
    """
    level = check_confidence_level(confidence_level)
    check_alternative(alternative)
    cells = np.broadcast_arrays(*(_counts(name, v) for name, v in zip("abcd", (a, b, c, d))))
    shape = cells[0].shape
    flat = [np.ascontiguousarray(v.ravel(), dtype=np.float64) for v in cells]
    alpha = 1.0 - level
    tail = alpha / 2 if alternative == "two-sided" else alpha
    alpha_lo = 0.0 if alternative == "less" else tail
    alpha_hi = 0.0 if alternative == "greater" else tail
    z = float(special.ndtri(1.0 - tail))
    logs = log_odds_ratios(*flat, alpha_lo, alpha_hi, z, z)
    with np.errstate(over="ignore"):
        values = np.exp(logs)
    return EffectInterval(*(values[:, i].reshape(shape)[()] for i in range(3)))


# ------------------------------------------------------------------------------- all together
_REGION_COLUMNS = ("n", "tp_d1", "fp_d1", "tp_d2", "fp_d2")


def effect_sizes(regions: pd.DataFrame, confidence_level: float = 0.95, method: str = "newcombe",
                 alternative: str = "two-sided") -> pd.DataFrame:
    """Difference of precision and odds ratio, with intervals, for every row of a comparison.

    Parameters
    ----------
    regions : DataFrame
        :func:`evalcore.compare.compare_rankings` or :func:`evalcore.compare.difference_regions`
        of two n-best lists: columns ``n, tp_d1, fp_d1, tp_d2, fp_d2``.
    confidence_level, method, alternative
        As in :func:`precision_difference` and :func:`odds_ratio`.

    Returns
    -------
    DataFrame
        ``n`` and ``diff, diff_low, diff_high`` (``Pi_A - Pi_B`` and its interval),
        ``odds_ratio, or_low, or_high`` (conditional MLE and exact interval), one row per row of
        `regions`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"n": [100], "tp_d1": [32], "fp_d1": [36], "tp_d2": [15], "fp_d2": [53]})
    >>> effect_sizes(t).round(4).iloc[0].tolist()
    [100.0, 0.17, 0.0614, 0.2672, 3.1134, 1.4059, 7.1435]
    """
    missing = [c for c in _REGION_COLUMNS if c not in regions.columns]
    if missing:
        raise ColumnError(f"`regions` lacks the column(s) {', '.join(missing)}; pass a table of "
                          "evalcore.compare.compare_rankings")
    n, a, b, c, d = (regions[col].to_numpy() for col in _REGION_COLUMNS)
    size = a + b
    if np.any(c + d != size):
        raise ColumnError("`regions` rows must have |D1| = |D2| (tp_d1 + fp_d1 = tp_d2 + fp_d2), as two n-best "
                          "lists of one size do")
    diff = precision_difference(a, c, size, n, confidence_level, method, alternative)
    ratio = odds_ratio(a, b, c, d, confidence_level, alternative)
    return pd.DataFrame({"n": n.copy(), "diff": diff.estimate, "diff_low": diff.low, "diff_high": diff.high,
                         "odds_ratio": ratio.estimate, "or_low": ratio.low, "or_high": ratio.high}, copy=False)


__all__ = ["EFFECT_COLUMNS", "DIFFERENCE_METHODS", "DIFFERENCE_LABELS", "EffectInterval", "ALTERNATIVES",
           "proportion_difference", "precision_difference", "odds_ratio", "effect_sizes"]
