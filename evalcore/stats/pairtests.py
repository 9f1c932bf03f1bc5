"""Other tests of two rankings on the same candidates, beside Fisher's test on D1/D2.

Evert (2004, §3.3) compares the n-best lists A and B of two rankings with Fisher's exact test
on the difference regions D1 = A \\ B and D2 = B \\ A (:func:`evalcore.compare.compare_rankings`).
This module offers the tests one meets instead, so that their answers can be set side by side:

* :func:`mcnemar_exact` and :func:`mcnemar_chi2`: McNemar's test for paired data, on the TPs
  that only one of the lists contains (exactly as R's ``binom.test`` and ``mcnemar.test``), and
  on each candidate's right or wrong decision (:func:`decision_counts`, Dietterich 1998);
* :func:`pearson_chi2_independent`: Pearson's chi-squared test treating the two lists as
  independent samples (Krenn 2000), which Evert (2004, §1 and §3.3) warns against, as R's
  ``chisq.test``.

They read counts alone (the table of difference regions), so this module knows nothing of rankings. The two tests
that resample the candidates themselves, the paired bootstrap (Berg-Kirkpatrick et al. 2012) and approximate
randomization (Yeh 2000), walk the rankings and live with them in :mod:`evalcore.compare`;
:func:`evalcore.compare.pair_test` runs any test (or Fisher's) and returns the table of ``compare_rankings``.
Every function is vectorised over n.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np
import pandas as pd

from .. import names
from ..errors import ParameterError
from .fisher import _counts

PAIR_TESTS = names.PAIR_TESTS

BOOTSTRAP_COLUMNS = ("n", "delta", "p_value", "p_value_one_sided")
RANDOMIZATION_COLUMNS = ("n", "delta", "p_value")

_SYMMETRIC_EXACT_MAX = 20_000_000  # below this many trials, R's rule at p = 1/2 is the mirror tail
_PROGRESS_STEPS = 20  # progress is reported about every 5%
_PROGRESS_SECONDS = 0.25  # ... or at least this often


# ------------------------------------------------------------------------ validation helpers
def _count_arrays(**named) -> list[np.ndarray]:
    return list(np.broadcast_arrays(*(_counts(name, value) for name, value in named.items())))


def check_test(test: str) -> str:
    if test not in PAIR_TESTS:
        raise ParameterError(f"`test` must be one of {', '.join(PAIR_TESTS)}; got {test!r}")
    return test


def _check_resamples(resamples) -> int:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"`resamples` must be a whole number >= 1, e.g. 1000; got {resamples!r}")
    return int(resamples)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"`seed` must be a non-negative whole number; got {seed!r}")
    return int(seed)


def _reporter(progress: Callable[[int, int], None] | None, total: int) -> Callable[[int], None]:
    """Call ``progress(done, total)`` whenever another ~5% is done or ``_PROGRESS_SECONDS`` have passed since the
    last call, and at the end: the callback is also where a caller stops work nobody waits for (it raises), so
    it comes often enough for that (a long test's 5% can take minutes)."""
    if progress is None:
        return lambda done: None
    step = max(1, math.ceil(total / _PROGRESS_STEPS))
    state = {"next": step, "due": time.monotonic() + _PROGRESS_SECONDS}

    def report(done: int) -> None:
        now = time.monotonic()
        if done >= state["next"] or done == total or now >= state["due"]:
            progress(done, total)
            state["next"] = (done // step + 1) * step
            state["due"] = now + _PROGRESS_SECONDS

    return report


# ------------------------------------------------------------------------------- McNemar
def mcnemar_exact(tp_d1, tp_d2) -> np.ndarray:
    """Exact McNemar test: is a discordant TP equally likely to be found by either list?

    Parameters
    ----------
    tp_d1, tp_d2 : array_like of int
        TPs only in A's n-best list (``T_D1``) and only in B's (``T_D2``); broadcast.

    Returns
    -------
    ndarray of float64
        Two-sided p-values, the broadcast shape; 1 where ``tp_d1 = tp_d2 = 0``.

    Notes
    -----
    With ``m = T_D1 + T_D2`` discordant TPs (a candidate is discordant when it is a TP in one
    list and not in the other), H0 says each of them is in D1 with probability 1/2, so
    ``T_D1 ~ Bin(m, 1/2)``; the p-value is R's ``binom.test(tp_d1, tp_d1 + tp_d2)$p.value``.
    At p = 1/2 R's two-sided rule (outcomes at most ``1 + 1e-7`` times as likely as the
    observed one) takes the mirror tail: ``p = P(X <= k) + P(X >= m - k)``, ``k =
    min(T_D1, T_D2)``, and p = 1 at ``T_D1 = T_D2``; it is evaluated as R does, as two
    tails, and clipped to 1. For ``m`` above 2e7, outcomes next to the mirror can fall
    within the tolerance too (``binom.test(1e7, 2e7 + 2)`` gives 1, not the mirror tails' 1 -
    1.8e-4); such cases follow R's rule term by term, at O(m) cost each (about a second).
    R stops with an error at ``m = 0``; with no discordant TP there is no evidence either
    way, and p = 1 here.

    Relation to Fisher's test on D1/D2 (Evert 2004, §3.3): for two n-best lists of equal
    size n, ``|D1| = |D2| = n - |A ∩ B|``. Fisher conditions on both margins of
    ``[[T_D1, F_D1], [T_D2, F_D2]]``: given ``m`` TPs among the ``2|D1|`` candidates,
    ``T_D1`` is hypergeometric. McNemar conditions on the discordant TPs only and ignores the
    FPs: ``T_D1`` is binomial. The hypergeometric is narrower (variance smaller by the
    factor ``(2|D1| - m) / (2|D1| - 1)``), so the two agree when TPs are rare in the
    difference regions and Fisher is the more powerful when D1 and D2 are mostly TPs.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between correlated
    proportions or percentages. Psychometrika 12, 153-157.
    R Core Team, ``binom.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> round(float(mcnemar_exact(36, 26)), 6)   # Krenn's G2 vs X2 at n = 1,300
    0.252854
    """
    b, c = _count_arrays(tp_d1=tp_d1, tp_d2=tp_d2)
    m = b + c
    k = np.minimum(b, c)
    with np.errstate(invalid="ignore"):
        from scipy import stats  # (imported by the tests that need it: scipy.stats takes ~1 s to import)

        p = stats.binom.cdf(k, m, 0.5) + stats.binom.sf(m - k - 1, m, 0.5)
    p = np.where((2 * b == m), 1.0, np.minimum(p, 1.0))
    huge = (m > _SYMMETRIC_EXACT_MAX) & (2 * b != m)
    if huge.any():
        from .sampletests import _binom_two_sided  # R's rule term by term; only for astronomic m

        p[huge] = [min(1.0, _binom_two_sided(int(x), int(t), 0.5)) for x, t in zip(b[huge], m[huge])]
    return p


def mcnemar_chi2(tp_d1, tp_d2, correct: bool = True) -> np.ndarray:
    """McNemar's chi-squared test, as R's ``mcnemar.test``.

    Parameters
    ----------
    tp_d1, tp_d2 : array_like of int
        The off-diagonal cells ``b`` and ``c`` of the paired table TP-in-A x TP-in-B (a
        candidate is counted by whether it is a TP in A's n-best list and whether it is one in
        B's): ``b = T_D1``, ``c = T_D2``; broadcast.
    correct : bool
        Continuity correction (R's default), applied where ``b != c``.

    Returns
    -------
    ndarray of float64
        p-values; 1 where ``b + c = 0``.

    Notes
    -----
    ``X2 = (|b - c| - 1)^2 / (b + c)`` with the correction, ``(b - c)^2 / (b + c)`` without;
    ``p = P(chi2_1 >= X2)``. As R, the correction is dropped where ``b = c`` (the table is
    symmetric), giving X2 = 0 and p = 1. Where ``b + c = 0`` R returns NaN (0 / 0); the
    table then says nothing about the difference and this function returns p = 1, as
    :func:`mcnemar_exact` and Fisher's test on a zero margin do.

    References
    ----------
    McNemar, Q. (1947). Psychometrika 12, 153-157.
    R Core Team, ``mcnemar.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> round(float(mcnemar_chi2(36, 26)), 6)
    0.253038
    """
    b, c = _count_arrays(tp_d1=tp_d1, tp_d2=tp_d2)
    yates = 1.0 if correct else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = (np.abs(b - c) - np.where(b != c, yates, 0.0)) ** 2 / (b + c)
        from scipy import stats

        p = stats.chi2.sf(statistic, 1)
    return np.where(b + c == 0, 1.0, p)


# ---------------------------------------------------------------------- Pearson, independent
def pearson_chi2_independent(tp_a, n_a, tp_b, n_b, correct: bool = False) -> np.ndarray:
    """Pearson's chi-squared test of two n-best lists as if they were independent samples.

    Parameters
    ----------
    tp_a, n_a : array_like of int
        TPs in A's list and its size; broadcast with the others.
    tp_b, n_b : array_like of int
        The same for B.
    correct : bool
        Yates' continuity correction (R's ``correct = TRUE``).

    Returns
    -------
    ndarray of float64
        p-values; 1 where the table has a zero margin.

    Notes
    -----
    The table ``[[T_A, T_B], [n_a - T_A, n_b - T_B]]`` (R: ``chisq.test(matrix(c(tp_a, n_a -
    tp_a, tp_b, n_b - tp_b), 2), correct = correct)$p.value``), expected counts ``E_ij = r_i
    c_j / n``, ``X2 = sum_ij (|O_ij - E_ij| - Y)^2 / E_ij`` with ``Y = min(0.5, |O_11 -
    E_11|)`` when corrected (R's cap) and 0 otherwise, ``p = P(chi2_1 >= X2)``.

    This is the test Krenn (2000) used. Evert (2004, §1, §3.3) points out that it assumes
    independent samples, whereas two rankings of the same candidates share ``A ∩ B``: their
    precisions vary together, so the test is far too conservative for lists that overlap
    much (compare :func:`mcnemar_exact` and Fisher's test on D1/D2).

    Degenerate tables: where a margin is zero (no TP or no FP in either list, or an empty
    list) some ``E_ij`` is 0: R returns NaN with a warning, SciPy's ``chi2_contingency``
    raises. Such a table cannot show a difference, and p = 1 is returned, the value SciPy's
    ``fisher_exact`` and :func:`evalcore.stats.fisher.fisher_exact` give a zero margin.

    References
    ----------
    Krenn, B. (2000). The Usual Suspects: Data-Oriented Models for the Identification and
    Representation of Lexical Collocations. DFKI & Universität des Saarlandes.
    R Core Team, ``chisq.test`` (R 4.2.2, package stats).

    Examples
    --------
    >>> round(float(pearson_chi2_independent(200, 500, 170, 500)), 6)
    0.049421
    """
    ta, na, tb, nb = _count_arrays(tp_a=tp_a, n_a=n_a, tp_b=tp_b, n_b=n_b)
    if np.any(ta > na) or np.any(tb > nb):
        raise ParameterError("`tp_a` and `tp_b` cannot exceed the list sizes `n_a` and `n_b`")
    # R's column-major cells: x11 = T_A, x21 = F_A, x12 = T_B, x22 = F_B
    cells = (ta, na - ta, tb, nb - tb)
    total = na + nb
    rows = (ta + tb, total - (ta + tb))
    cols = (na, nb)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = [rows[i] * cols[j] / total for j in (0, 1) for i in (0, 1)]
        # R: YATES <- min(0.5, abs(x - E)), the minimum over the four cells
        gap = np.minimum.reduce([np.abs(o - e) for o, e in zip(cells, expected)])
        yates = np.minimum(0.5, gap) if correct else 0.0
        statistic = sum((np.abs(o - e) - yates) ** 2 / e for o, e in zip(cells, expected))
        from scipy import stats

        p = stats.chi2.sf(statistic, 1)
    degenerate = (rows[0] == 0) | (rows[1] == 0) | (na == 0) | (nb == 0)
    return np.where(degenerate, 1.0, p)


# ---------------------------------------------------------------------------- all together
def _fisher(a, b, table, options) -> np.ndarray:
    return table["p_value"].to_numpy()


def _mcnemar(a, b, table, options) -> np.ndarray:
    return mcnemar_exact(table["tp_d1"].to_numpy(), table["tp_d2"].to_numpy())


def decision_counts(tp_d1, fp_d1, tp_d2, fp_d2) -> tuple[np.ndarray, np.ndarray]:
    """The discordant decisions of two equal-size lists: ``b`` right in A only, ``c`` right in B only.

    A candidate of D1 = A \\ B is accepted by A and rejected by B: A decides it rightly when it
    is a TP, B when it is an FP; for D2 the other way round. So ``b = T_D1 + F_D2`` and
    ``c = T_D2 + F_D1``; every candidate outside D1 and D2 gets the same decision from both.
    McNemar's test of two classifiers (Dietterich 1998) is the exact binomial test of ``b`` out
    of ``b + c`` (:func:`mcnemar_exact` on ``(b, c)``); for n-best lists ``b + c = 2|D1|``.

    References
    ----------
    Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
    classification learning algorithms. Neural Computation 10(7), 1895-1923.

    Examples
    --------
    >>> [int(x) for x in decision_counts(36, 64, 26, 74)]  # |D1| = |D2| = 100
    [110, 90]
    """
    t1, f1, t2, f2 = _count_arrays(tp_d1=tp_d1, fp_d1=fp_d1, tp_d2=tp_d2, fp_d2=fp_d2)
    return t1 + f2, t2 + f1


def _mcnemar_decisions(a, b, table, options) -> np.ndarray:
    right_a, right_b = decision_counts(*(table[c].to_numpy() for c in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")))
    return mcnemar_exact(right_a, right_b)


def _mcnemar_chi2(a, b, table, options) -> np.ndarray:
    return mcnemar_chi2(table["tp_d1"].to_numpy(), table["tp_d2"].to_numpy(), correct=True)


def _chi2(a, b, table, options, correct: bool = False) -> np.ndarray:
    sizes = table["n"].to_numpy()
    return pearson_chi2_independent(table["tp_a"].to_numpy(), sizes, table["tp_b"].to_numpy(), sizes,
                                    correct=correct)


def _chi2_yates(a, b, table, options) -> np.ndarray:
    return _chi2(a, b, table, options, correct=True)




#: The p-values of the tests that read the table of difference regions alone (``a`` and ``b`` are not used); the
#: resampling tests over candidates join them in :data:`evalcore.compare.P_VALUES`.
TABLE_P_VALUES: dict[str, Callable[[object, object, pd.DataFrame, dict], np.ndarray]] = {
    "fisher": _fisher,
    "mcnemar": _mcnemar,
    "mcnemar_decisions": _mcnemar_decisions,
    "mcnemar_chi2": _mcnemar_chi2,
    "chi2": _chi2,
    "chi2_yates": _chi2_yates,
}
