"""Other tests of two rankings on the same candidates, beside Fisher's test on D1/D2.

Evert (2004, §3.3) compares the n-best lists A and B of two rankings with Fisher's exact test
on the difference regions D1 = A \\ B and D2 = B \\ A (:func:`evalcore.compare.compare_rankings`).
This module offers the tests one meets instead, so that their answers can be set side by side:

* :func:`mcnemar_exact` and :func:`mcnemar_chi2`: McNemar's test for paired data, on the TPs
  that only one of the lists contains (exactly as R's ``binom.test`` and ``mcnemar.test``), and
  on each candidate's right or wrong decision (:func:`decision_counts`, Dietterich 1998);
* :func:`pearson_chi2_independent`: Pearson's chi-squared test treating the two lists as
  independent samples (Krenn 2000), which Evert (2004, §1 and §3.3) warns against, as R's
  ``chisq.test``;
* :func:`paired_bootstrap`: the paired bootstrap over candidates (Berg-Kirkpatrick et al. 2012);
* :func:`approximate_randomization`: approximate randomization (Yeh 2000).

:func:`evalcore.compare.pair_test` runs any of them (or Fisher's) and returns the table of ``compare_rankings``.
Every function is vectorised over n; the two resampling tests cost O(resamples * N) for N
candidates, whatever the number of list sizes.
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np
import pandas as pd
from scipy import stats

from .. import names
from ..errors import ParameterError
from .fisher import _counts
from .intervals import check_confidence_level
from ..nspec import check_sizes
from ..ranking import Ranking, check_pair as _check_pair

PAIR_TESTS = names.PAIR_TESTS

BOOTSTRAP_COLUMNS = ("n", "delta", "p_value", "p_value_one_sided")
RANDOMIZATION_COLUMNS = ("n", "delta", "p_value")

_SYMMETRIC_EXACT_MAX = 20_000_000  # below this many trials, R's rule at p = 1/2 is the mirror tail
_PROGRESS_STEPS = 20  # progress is reported about every 5%
_PROGRESS_SECONDS = 0.25  # ... or at least this often
_CHUNK_CELLS = 1 << 22  # randomization: resamples x candidates drawn at a time


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
        p = stats.chi2.sf(statistic, 1)
    degenerate = (rows[0] == 0) | (rows[1] == 0) | (na == 0) | (nb == 0)
    return np.where(degenerate, 1.0, p)


# ------------------------------------------------------------------------- paired bootstrap
def _resampled_tp(weights: np.ndarray, labels: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """TPs in the n-best lists of a resampled multiset.

    ``weights[i]`` is the multiplicity of the candidate at rank ``i + 1`` and ``labels[i]`` its
    label (0/1). The n-best list takes candidates in ranking order with their multiplicities,
    and only part of the last one's multiplicity where that overshoots n.
    """
    cum_w = np.cumsum(weights)
    cum_tp = np.cumsum(weights * labels)
    last = np.searchsorted(cum_w, sizes, side="left")  # first rank whose cumulative weight reaches n
    return cum_tp[last] - (cum_w[last] - sizes) * labels[last]


def paired_bootstrap(a: Ranking, b: Ranking, n, *, resamples: int = 1000, seed: int = 0,
                     progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Paired bootstrap over candidates (Berg-Kirkpatrick et al. 2012) for every n.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int or None
        List sizes (None: every n = 1..N).
    resamples : int
        Number of bootstrap resamples, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    progress : callable, optional
        ``progress(done, total)`` is called about every 5% of the resamples.

    Returns
    -------
    DataFrame
        ``n``; ``delta`` = observed precision of A minus that of B, ``(T_A - T_B) / n``;
        ``p_value``, two-sided, for H0: delta = 0; ``p_value_one_sided``, Berg-Kirkpatrick's
        one-sided p-value in the direction of the observed difference (1 where delta = 0).

    Notes
    -----
    Each resample draws N candidates with replacement (multiplicities ``w =
    bincount(integers(0, N, N))``), the same draw for both rankings: paired. The n-best list
    of the resampled multiset walks a ranking, accumulating multiplicities, and takes only
    part of the multiplicity of the candidate at the boundary; so ``T*_A`` is a cumulative
    sum and a ``searchsorted`` per ranking and resample, for all n at once. With ``D = T_A -
    T_B`` (``delta = D / n``) and ``D*`` its resampled value, counts are exact integers:

    * two-sided, the bootstrap distribution shifted to the null:
      ``p = (1 + #{|D* - D| >= |D|}) / (resamples + 1)``, which is 1 where ``D = 0``;
    * one-sided (Berg-Kirkpatrick et al. 2012, §2: the share of resamples where the gain is
      more than twice the observed one): ``p = (1 + #{s D* > 2 |D|}) / (resamples + 1)``,
      ``s = sign(D)``. The paper reports the bare share ``#{...} / resamples``; the added one
      (here and in the two-sided value) keeps a p-value from being 0 and differs from it by at
      most ``1 / (resamples + 1)``.

    The same resamples serve every n, so neighbouring n get correlated p-values, as a plain
    loop over n would not. Cost O(resamples * (N + len(n) log N)).

    References
    ----------
    Berg-Kirkpatrick, T., Burkett, D. & Klein, D. (2012). An empirical investigation of
    statistical significance in NLP. EMNLP-CoNLL 2012, 995-1005.
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, §16.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, False, True, False, True, False])
    >>> a = rank_scores(labels, np.array([6., 5, 4, 3, 2, 1]), ties="stable")
    >>> paired_bootstrap(a, a, [2, 4], resamples=99)["p_value"].tolist()
    [1.0, 1.0]
    """
    labels = _check_pair(a, b)
    sizes = check_sizes(n, a.n_candidates)
    resamples = _check_resamples(resamples)
    rng = np.random.default_rng(_check_seed(seed))
    n_total = a.n_candidates
    label_a = labels[a.order].astype(np.int64)
    label_b = labels[b.order].astype(np.int64)
    observed = a.tp[sizes] - b.tp[sizes]
    direction = np.sign(observed)
    more_extreme = np.zeros(sizes.size, dtype=np.int64)
    beyond_twice = np.zeros(sizes.size, dtype=np.int64)
    report = _reporter(progress, resamples)
    for done in range(1, resamples + 1):
        weights = np.bincount(rng.integers(0, n_total, n_total), minlength=n_total)
        diff = _resampled_tp(weights[a.order], label_a, sizes) - _resampled_tp(weights[b.order], label_b, sizes)
        more_extreme += np.abs(diff - observed) >= np.abs(observed)
        beyond_twice += direction * diff > 2 * np.abs(observed)
        report(done)
    one_sided = np.where(observed == 0, 1.0, (1.0 + beyond_twice) / (resamples + 1.0))
    return pd.DataFrame({"n": sizes, "delta": observed / sizes,
                         "p_value": (1.0 + more_extreme) / (resamples + 1.0),
                         "p_value_one_sided": one_sided})


# ------------------------------------------------------------------ approximate randomization
def _discordant_tps(labels: np.ndarray, a: Ranking, b: Ranking, sizes: np.ndarray):
    """The TPs whose membership differs for some n, with the span of n where it does.

    A TP with ``rank_a < rank_b`` is in D1 for ``rank_a <= n < rank_b`` (it counts +1 in
    ``T_A - T_B``), one with ``rank_b < rank_a`` in D2 for ``rank_b <= n < rank_a`` (-1).
    Returned: the candidates, the sign, and the spans as indices into `sizes` (half-open).
    """
    candidates = np.flatnonzero(labels & (a.ranks != b.ranks))
    ra, rb = a.ranks[candidates], b.ranks[candidates]
    sign = np.where(ra < rb, 1.0, -1.0)
    first = np.searchsorted(sizes, np.minimum(ra, rb), side="left")
    stop = np.searchsorted(sizes, np.maximum(ra, rb), side="left")
    return candidates, sign, first, stop


def _swapped_statistics(sign: np.ndarray, first: np.ndarray, stop: np.ndarray, swap: np.ndarray,
                        n_sizes: int) -> np.ndarray:
    """``T*_A - T*_B`` at every size, for each row of swap indicators (rows x discordant TPs).

    A swapped candidate changes lists, so its contribution changes sign; each contribution
    is added over its span of sizes with a difference array and a cumulative sum.
    """
    rows = swap.shape[0]
    value = np.where(swap, -sign, sign)
    offset = (np.arange(rows) * (n_sizes + 1))[:, None]
    width = rows * (n_sizes + 1)
    diff = (np.bincount((offset + first).ravel(), weights=value.ravel(), minlength=width)
            - np.bincount((offset + stop).ravel(), weights=value.ravel(), minlength=width))
    return np.cumsum(diff.reshape(rows, n_sizes + 1), axis=1)[:, :n_sizes]


def approximate_randomization(a: Ranking, b: Ranking, n, *, resamples: int = 1000, seed: int = 0,
                              progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Approximate randomization test (Yeh 2000) of two n-best lists, for every n.

    Parameters
    ----------
    a, b : Ranking
        Two rankings of the same candidate set.
    n : array_like of int or None
        List sizes (None: every n = 1..N).
    resamples : int
        Number of random shuffles, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    progress : callable, optional
        ``progress(done, total)`` is called about every 5% of the shuffles.

    Returns
    -------
    DataFrame
        ``n``; ``delta = (T_A - T_B) / n``, the observed difference in precision;
        ``p_value``, two-sided.

    Notes
    -----
    Under H0 the two methods are exchangeable on every candidate: a shuffle swaps, for each
    candidate independently with probability 1/2, its membership in the two lists. Only
    candidates in D1 or D2 change anything, and FPs do not change the TP counts, so the
    statistic ``S = T_A - T_B = T_D1 - T_D2`` becomes ``S*``, a sum of random signs over the
    ``m = T_D1 + T_D2`` discordant TPs. (Shuffles change the list sizes, ``|A*| = n - s1 +
    s2``; the statistic is the difference in TP counts, i.e. in recall, which is ``n`` times
    the difference in precision of the unshuffled lists.)

    The shuffle is done literally, per candidate: one swap indicator per candidate and
    shuffle, ``default_rng(seed).random((resamples, N)) < 1/2`` (drawn in chunks, the same
    stream), shared by all n, so neighbouring n get correlated p-values. Indicators of
    candidates that are never a discordant TP are drawn and ignored. Marginally at each n,
    ``S*`` has the distribution of ``2 Bin(m, 1/2) - m``, so the p-value
    ``(1 + #{|S*| >= |S|}) / (resamples + 1)`` estimates the exact McNemar p-value
    (:func:`mcnemar_exact`); Yeh's test on these data is McNemar's test by Monte Carlo.
    Cost O(resamples * (N + len(n))).

    References
    ----------
    Yeh, A. (2000). More accurate tests for the statistical significance of result
    differences. COLING 2000, 947-953.
    Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, False, True, False, True, False])
    >>> a = rank_scores(labels, np.array([6., 5, 4, 3, 2, 1]), ties="stable")
    >>> approximate_randomization(a, a, [2, 4], resamples=99)["p_value"].tolist()
    [1.0, 1.0]
    """
    labels = _check_pair(a, b)
    sizes = check_sizes(n, a.n_candidates)
    resamples = _check_resamples(resamples)
    rng = np.random.default_rng(_check_seed(seed))
    n_total = a.n_candidates
    candidates, sign, first, stop = _discordant_tps(labels, a, b, np.sort(sizes))
    position = np.searchsorted(np.sort(sizes), sizes)  # results in the order of `sizes`
    observed = (a.tp[sizes] - b.tp[sizes]).astype(np.float64)
    at_least = np.zeros(sizes.size, dtype=np.int64)
    report = _reporter(progress, resamples)
    chunk = max(1, min(math.ceil(resamples / _PROGRESS_STEPS),
                       _CHUNK_CELLS // (n_total + sizes.size + candidates.size + 1)))
    done = 0
    while done < resamples:
        rows = min(chunk, resamples - done)
        swap = rng.random((rows, n_total)) < 0.5  # one indicator per candidate, literally
        shuffled = _swapped_statistics(sign, first, stop, swap[:, candidates], sizes.size)[:, position]
        at_least += (np.abs(shuffled) >= np.abs(observed)).sum(axis=0)
        done += rows
        report(done)
    return pd.DataFrame({"n": sizes, "delta": observed / sizes,
                         "p_value": (1.0 + at_least) / (resamples + 1.0)})


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


def _bootstrap(a, b, table, options) -> np.ndarray:
    return paired_bootstrap(a, b, table["n"].to_numpy(), **options)["p_value"].to_numpy()


def _randomization(a, b, table, options) -> np.ndarray:
    return approximate_randomization(a, b, table["n"].to_numpy(), **options)["p_value"].to_numpy()


_P_VALUES: dict[str, Callable[[Ranking, Ranking, pd.DataFrame, dict], np.ndarray]] = {
    "fisher": _fisher,
    "mcnemar": _mcnemar,
    "mcnemar_decisions": _mcnemar_decisions,
    "mcnemar_chi2": _mcnemar_chi2,
    "chi2": _chi2,
    "chi2_yates": _chi2_yates,
    "bootstrap": _bootstrap,
    "randomization": _randomization,
}
