"""Tests of two rankings beside Fisher's: McNemar, Pearson's chi-squared, paired bootstrap, randomization.

Where the numbers come from:

* R 4.2.2: ``tests/reference/r_pairtests_reference.json``, written by
  ``tests/r/generate_pairtests_reference.R`` (``binom.test``, ``mcnemar.test``, ``chisq.test``;
  regenerate with ``Rscript tests/r/generate_pairtests_reference.R``). The tests only read it.
* Exact fractions by hand for tiny cases (the binomial at p = 1/2 is ``C(m, k) / 2^m``).
* Slow, obviously right implementations (a multiset written out; swaps applied to sets) checked
  against the fast ones.
* Monte Carlo agreement: approximate randomization estimates the exact McNemar p-value, the
  paired bootstrap approximates it on a case built for that; tolerances are binomial standard
  errors of a p estimate from R resamples.
* The paper's data (Evert 2004, §3.3, Figure 3): Krenn's PP-verb candidates, G2 against X2.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from evalcore.compare import (
    _discordant_tps,
    _resampled_tp,
    _swapped_statistics,
    approximate_randomization,
    compare_rankings,
    pair_test,
    paired_bootstrap,
)
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.stats.pairtests import (
    PAIR_TESTS,
    decision_counts,
    mcnemar_chi2,
    mcnemar_exact,
    pearson_chi2_independent,
)
from evalcore.ranking import rank, rank_scores

REF = json.loads((Path(__file__).parent / "reference" / "r_pairtests_reference.json").read_text(encoding="utf-8"))
RTOL = 1e-10
TINY = 1e-300  # below this R's binomial tails are in the subnormal range (R even returns 4.9e-324 for 0)
GRID = np.arange(100, 2001, 50)  # the paper's grid (Evert 2004, Figure 3)


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _check_against_r(ours: np.ndarray, r_values, undefined: float = 1.0) -> None:
    """rtol 1e-10 where R's p-value is a normal double; where R has none (NaN/error), `undefined`."""
    expected = _floats(r_values)
    missing = np.isnan(expected)
    assert_array_equal(ours[missing], undefined)
    normal = ~missing & (expected > TINY)
    assert_allclose(ours[normal], expected[normal], rtol=RTOL, atol=0)
    assert np.all(ours[~missing & ~normal] <= TINY)  # both underflow


# ------------------------------------------------------------------------------ R references
def test_mcnemar_exact_equals_r_binom_test():
    ref = REF["mcnemar_exact"]
    ours = mcnemar_exact(ref["tp_d1"], ref["tp_d2"])
    _check_against_r(ours, ref["p_value"])
    # R stops on (0, 0): "'n' must be a positive integer >= 'x'"; evalcore gives p = 1
    errors = [i for i, e in enumerate(ref["error"]) if e is not None]
    assert [(ref["tp_d1"][i], ref["tp_d2"][i]) for i in errors] == [(0, 0)]


@pytest.mark.parametrize("correct", [True, False])
def test_mcnemar_chi2_equals_r_mcnemar_test(correct):
    ref = REF["mcnemar_test"]
    r = ref["correct_true" if correct else "correct_false"]
    ours = mcnemar_chi2(ref["b"], ref["c"], correct=correct)
    _check_against_r(ours, r["p_value"])  # R: NaN where b + c = 0; here p = 1
    assert np.isnan(_floats(r["p_value"])).sum() == 1


@pytest.mark.parametrize("correct", [False, True])
def test_pearson_chi2_equals_r_chisq_test(correct):
    ref = REF["chisq_test"]
    r = ref["correct_true" if correct else "correct_false"]
    ours = pearson_chi2_independent(ref["tp_a"], ref["n_a"], ref["tp_b"], ref["n_b"], correct=correct)
    _check_against_r(ours, r["p_value"])  # R: NaN on a zero margin; here p = 1
    assert np.isnan(_floats(r["p_value"])).sum() == 2


# ------------------------------------------------------------------------------- by hand
def test_mcnemar_exact_by_hand():
    # one-sided tail P(X <= k) = sum_{i <= k} C(m, i) / 2^m, doubled
    assert mcnemar_exact(0, 5) == 2 / 32
    assert mcnemar_exact(5, 0) == 2 / 32
    assert mcnemar_exact(3, 7) == pytest.approx(2 * (1 + 10 + 45 + 120) / 1024, rel=1e-15)
    assert mcnemar_exact(0, 1) == 1.0 and mcnemar_exact(4, 4) == 1.0 and mcnemar_exact(0, 0) == 1.0


def test_mcnemar_chi2_by_hand():
    # b = 10, c = 4: corrected X2 = 25 / 14, uncorrected 36 / 14
    from scipy.stats import chi2
    assert mcnemar_chi2(10, 4) == pytest.approx(chi2.sf(25 / 14, 1), rel=1e-14)
    assert mcnemar_chi2(10, 4, correct=False) == pytest.approx(chi2.sf(36 / 14, 1), rel=1e-14)
    assert mcnemar_chi2(7, 7) == 1.0  # symmetric table: R drops the correction, X2 = 0


def test_functions_broadcast_and_are_symmetric():
    b = np.array([[0, 3, 40], [12, 5, 9]])
    c = np.array([7, 3, 25])
    assert mcnemar_exact(b, c).shape == (2, 3)
    assert_array_equal(mcnemar_exact(b, c), mcnemar_exact(c, b))
    assert_array_equal(mcnemar_chi2(b, c), mcnemar_chi2(c, b))
    assert_allclose(pearson_chi2_independent(b, 50, c, 50), pearson_chi2_independent(c, 50, b, 50), rtol=1e-14)


# ------------------------------------------------------------------------- oracle checks
def test_resampled_tp_equals_writing_the_multiset_out():
    rng = np.random.default_rng(7)
    for _ in range(50):
        size = int(rng.integers(1, 40))
        labels = rng.random(size) < 0.4
        weights = np.bincount(rng.integers(0, size, size), minlength=size)
        multiset = np.repeat(labels, weights)  # in ranking order, each candidate w times
        sizes = np.arange(1, size + 1)
        expected = np.array([multiset[:n].sum() for n in sizes])
        assert_array_equal(_resampled_tp(weights, labels.astype(np.int64), sizes), expected)


candidate_sets = st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.integers(0, 2**32 - 1)))


@given(candidate_sets)
def test_swapped_statistics_equal_swapping_set_memberships(data):
    """A swap moves a candidate of D1 into B and one of D2 into A; count TPs of the new sets."""
    labels, sa, sb, seed = data
    labels = np.array(labels, dtype=bool)
    a = rank_scores(labels, np.array(sa, float), ties="random", seed=seed)
    b = rank_scores(labels, np.array(sb, float), ties="random", seed=seed + 1)
    swap = np.random.default_rng(seed).random((3, labels.size)) < 0.5
    sizes = np.arange(1, labels.size + 1)
    candidates, sign, first, stop = _discordant_tps(labels, a, b, sizes)
    fast = _swapped_statistics(sign, first, stop, swap[:, candidates], sizes.size)
    for row in range(swap.shape[0]):
        for n in sizes:
            in_a, in_b = set(a.order[:n].tolist()), set(b.order[:n].tolist())
            moved = {c for c in in_a ^ in_b if swap[row, c]}
            new_a, new_b = in_a ^ moved, in_b ^ moved  # a swapped candidate changes lists
            expected = sum(labels[c] for c in new_a) - sum(labels[c] for c in new_b)
            assert fast[row, n - 1] == expected


# ----------------------------------------------------------------- Monte Carlo agreement
def _constructed_pair(tp_d1: int, tp_d2: int, *, size_d: int, common: int, total: int):
    """Two rankings whose n-best lists, n = size_d + common, have the given discordant TPs.

    Candidates 0..size_d-1 form D1 (the first tp_d1 TPs), size_d..2 size_d-1 form D2 (the first
    tp_d2 TPs), the rest are FPs. A ranks D1, the rest, D2; B ranks D2, the rest, D1.
    """
    labels = np.zeros(total, dtype=bool)
    labels[:tp_d1] = True
    labels[size_d:size_d + tp_d2] = True
    d1, d2, rest = np.arange(size_d), np.arange(size_d, 2 * size_d), np.arange(2 * size_d, total)
    rankings = []
    for order in (np.r_[d1, rest, d2], np.r_[d2, rest, d1]):
        scores = np.empty(total)
        scores[order] = -np.arange(total, dtype=float)
        rankings.append(rank_scores(labels, scores, ties="stable"))
    return rankings[0], rankings[1], size_d + common


def _mc_tolerance(p: float, resamples: int) -> float:
    """4 binomial standard errors of a p estimate from `resamples` draws, plus the +1 bias."""
    return 4 * math.sqrt(p * (1 - p) / resamples) + 1 / resamples


@pytest.mark.parametrize("tp_d1, tp_d2",
                         [(3, 0), (5, 1), (10, 4), (20, 12), (36, 26), (44, 26), (60, 40), (9, 10)])
def test_randomization_estimates_the_exact_mcnemar_p_value(tp_d1, tp_d2):
    resamples = 4000
    a, b, n = _constructed_pair(tp_d1, tp_d2, size_d=80, common=50, total=400)
    row = compare_rankings(a, b, [n]).iloc[0]
    assert (row.tp_d1, row.tp_d2) == (tp_d1, tp_d2)
    p_ar = approximate_randomization(a, b, [n], resamples=resamples, seed=11)["p_value"].iloc[0]
    p_exact = float(mcnemar_exact(tp_d1, tp_d2))
    assert abs(p_ar - p_exact) <= _mc_tolerance(p_exact, resamples)


def test_randomization_without_discordant_tps_gives_one():
    a, b, n = _constructed_pair(0, 0, size_d=20, common=10, total=100)
    assert approximate_randomization(a, b, [n], resamples=50)["p_value"].iloc[0] == 1.0


@pytest.mark.parametrize("tp_d1, tp_d2", [(285, 255), (300, 240), (290, 250)])
def test_bootstrap_agrees_with_exact_mcnemar_on_a_large_balanced_case(tp_d1, tp_d2):
    """Why they should agree here: D1 and D2 hold 600 candidates each, and every candidate that
    A and B rank between them is an FP. The n-best list of a resample then differs between the
    rankings only by the resampled D1 and D2, wherever the cut-off falls, so
    ``D* = sum_{TP in D1} w_i - sum_{TP in D2} w_i`` with multinomial weights ``w_i``
    (nearly independent Poisson(1) for N = 20,000): mean ``b - c``, variance ``b + c`` up to
    O(1/N), the variance of McNemar's ``2 Bin(b + c, 1/2) - (b + c)`` under H0. With ``b + c =
    540`` both are close to normal, so the shifted bootstrap p-value approximates McNemar's.
    They differ by Monte Carlo error and by the lattice: D* moves in steps of 1, McNemar's
    statistic in steps of 2, a half-step of 0.5 / sqrt(540) sd, worth at most about 0.01 in p.
    """
    resamples = 4000
    a, b, n = _constructed_pair(tp_d1, tp_d2, size_d=600, common=1400, total=20_000)
    result = paired_bootstrap(a, b, [n], resamples=resamples, seed=3).iloc[0]
    assert result.delta == pytest.approx((tp_d1 - tp_d2) / n, rel=1e-15)
    p_exact = float(mcnemar_exact(tp_d1, tp_d2))
    assert abs(result.p_value - p_exact) <= _mc_tolerance(p_exact, resamples) + 0.01
    # Berg-Kirkpatrick's one-sided value is about half the two-sided one for a symmetric distribution
    assert abs(result.p_value_one_sided - p_exact / 2) <= _mc_tolerance(p_exact / 2, resamples) + 0.01


def test_bootstrap_of_identical_rankings_gives_delta_0_and_p_1():
    a, _, _ = _constructed_pair(10, 4, size_d=30, common=20, total=200)
    result = paired_bootstrap(a, a, [1, 10, 50, 200], resamples=200, seed=5)
    assert_array_equal(result["delta"], 0.0)
    assert_array_equal(result["p_value"], 1.0)
    assert_array_equal(result["p_value_one_sided"], 1.0)


@pytest.mark.parametrize("function", [paired_bootstrap, approximate_randomization])
def test_resampling_is_seeded(function):
    a, b, n = _constructed_pair(20, 12, size_d=80, common=50, total=400)
    sizes = [n - 20, n, n + 20]
    first = function(a, b, sizes, resamples=300, seed=42)
    pd.testing.assert_frame_equal(first, function(a, b, sizes, resamples=300, seed=42))
    assert not first["p_value"].equals(function(a, b, sizes, resamples=300, seed=43)["p_value"])
    assert list(first.columns) == (["n", "delta", "p_value", "p_value_one_sided"]
                                   if function is paired_bootstrap else ["n", "delta", "p_value"])


@pytest.mark.parametrize("function", [paired_bootstrap, approximate_randomization])
def test_progress_is_reported_about_every_5_percent(function):
    a, b, n = _constructed_pair(20, 12, size_d=80, common=50, total=400)
    calls = []
    function(a, b, [n], resamples=1000, progress=lambda done, total: calls.append((done, total)))
    assert 15 <= len(calls) <= 25
    assert calls[-1] == (1000, 1000)
    assert all(total == 1000 for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


def test_unsorted_sizes_keep_their_order():
    a, b, n = _constructed_pair(20, 12, size_d=80, common=50, total=400)
    sizes = [n, 10, n - 20, 10]
    result = approximate_randomization(a, b, sizes, resamples=200, seed=1)
    sorted_result = approximate_randomization(a, b, sorted(set(sizes)), resamples=200, seed=1).set_index("n")
    assert result["n"].tolist() == sizes
    assert_array_equal(result["p_value"], sorted_result.loc[sizes, "p_value"])


# ------------------------------------------------------------------------ the paper's data
@pytest.fixture(scope="module")
def g2_x2(krenn_tsv):
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    return rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")


@pytest.mark.parametrize("test", list(PAIR_TESTS))
def test_every_test_runs_on_krenn_grid(g2_x2, test):
    result = pair_test(*g2_x2, GRID, test, resamples=2000)
    fisher = compare_rankings(*g2_x2, GRID)
    assert list(result.columns) == list(fisher.columns) + ["test"]
    assert (result["test"] == test).all()
    counts = ["n", "tp_a", "tp_b", "overlap", "tp_d1", "fp_d1", "tp_d2", "fp_d2"]
    pd.testing.assert_frame_equal(result[counts], fisher[counts])
    p = result["p_value"].to_numpy()
    assert np.all((p > 0) & (p <= 1))
    assert_array_equal(result["significant"], p < 0.05)
    if test == "fisher":
        pd.testing.assert_frame_equal(result.drop(columns="test"), fisher)
    else:
        assert_allclose(result["log10_p"], np.log10(p), rtol=1e-15)


def test_krenn_n1300_against_r(g2_x2):
    """At n = 1,300 (36 vs 26 discordant TPs; Evert 2004, Figure 3 is no longer significant)."""
    row = pair_test(*g2_x2, [1300], "mcnemar").iloc[0]
    assert (row.tp_d1, row.tp_d2) == (36, 26)
    assert row.p_value == pytest.approx(0.25285439418811095, rel=RTOL)  # binom.test(36, 62), from the JSON
    row = pair_test(*g2_x2, [1250], "chi2").iloc[0]
    assert row.p_value == pytest.approx(float(pearson_chi2_independent(331, 1250, 313, 1250)), rel=1e-15)


def test_krenn_mcnemar_on_decisions_against_r(g2_x2):
    """McNemar on each candidate's decision: b = T_D1 + F_D2 right in A only, c = T_D2 + F_D1.

    R 4.2.2 transcript:
        > binom.test(85, 136)$p.value    # n = 100:   b = 32 + 53, c = 15 + 36
        [1] 0.0044812516752525174
        > binom.test(161, 302)$p.value   # n = 1,300: b = 36 + 125, c = 26 + 115
        [1] 0.27422484630278671
        > binom.test(77, 152)$p.value    # n = 2,000: b = 9 + 68, c = 8 + 67
        [1] 0.93538937047804438
    """
    result = pair_test(*g2_x2, [100, 1300, 2000], "mcnemar_decisions")
    assert result[["tp_d1", "fp_d1", "tp_d2", "fp_d2"]].values.tolist() == [[32, 36, 15, 53], [36, 115, 26, 125],
                                                                           [9, 67, 8, 68]]
    assert_allclose(result["p_value"], [0.0044812516752525174, 0.27422484630278671, 0.93538937047804438],
                    rtol=RTOL)


def test_krenn_corrected_tests_are_the_r_checked_functions(g2_x2):
    n = np.arange(100, 2001, 50)
    table = pair_test(*g2_x2, n, "fisher")
    yates = pair_test(*g2_x2, n, "chi2_yates")["p_value"]
    assert_array_equal(yates, pearson_chi2_independent(table["tp_a"], n, table["tp_b"], n, correct=True))
    chi2 = pair_test(*g2_x2, n, "mcnemar_chi2")["p_value"]
    assert_array_equal(chi2, mcnemar_chi2(table["tp_d1"], table["tp_d2"], correct=True))
    assert (yates >= pair_test(*g2_x2, n, "chi2")["p_value"]).all()  # the correction only makes p larger


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(2, 60), st.integers(0, 2**32 - 1))
def test_decision_counts_against_a_loop_over_candidates(total, seed):
    """Oracle: for every n, count the candidates A decides rightly and B wrongly, one by one."""
    rng = np.random.default_rng(seed)
    labels = rng.random(total) < 0.3
    a = rank_scores(labels, rng.integers(0, 5, total).astype(float), ties="random", seed=seed)
    b = rank_scores(labels, rng.integers(0, 5, total).astype(float), ties="random", seed=seed + 1)
    table = pair_test(a, b, None, "fisher")
    right_a, right_b = decision_counts(table["tp_d1"], table["fp_d1"], table["tp_d2"], table["fp_d2"])
    for n, ra, rb in zip(table["n"], right_a, right_b):
        in_a, in_b = set(a.order[:n].tolist()), set(b.order[:n].tolist())
        decide = lambda members, i: (i in members) == bool(labels[i])  # noqa: E731 (accept a TP, reject an FP)
        assert ra == sum(decide(in_a, i) and not decide(in_b, i) for i in range(total))
        assert rb == sum(decide(in_b, i) and not decide(in_a, i) for i in range(total))


def test_krenn_independent_samples_chi2_finds_less_than_fisher(g2_x2):
    """Evert (2004), §3.3: overlapping lists vary together, so tests that treat them as
    independent miss differences that Fisher on D1/D2 finds."""
    n = np.arange(100, 2001)
    fisher = pair_test(*g2_x2, n, "fisher")
    chi2 = pair_test(*g2_x2, n, "chi2")
    assert chi2["significant"].sum() < fisher["significant"].sum()
    assert not (chi2["significant"] & ~fisher["significant"]).any()


# -------------------------------------------------------------------------------- errors
def test_unknown_test_names_the_choices(g2_x2):
    with pytest.raises(ParameterError, match="`test` must be one of fisher, mcnemar, mcnemar_decisions, "
                                             "mcnemar_chi2, chi2, chi2_yates, bootstrap, randomization; "
                                             "got 'wilcoxon'"):
        pair_test(*g2_x2, GRID, "wilcoxon")


@pytest.mark.parametrize("resamples", [0, -5, 1.5, True, "100"])
@pytest.mark.parametrize("function", [paired_bootstrap, approximate_randomization])
def test_resamples_must_be_a_positive_whole_number(function, resamples):
    a, b, n = _constructed_pair(3, 1, size_d=10, common=5, total=40)
    with pytest.raises(ParameterError, match=r"`resamples` must be a whole number >= 1"):
        function(a, b, [n], resamples=resamples)


def test_resamples_are_checked_through_pair_test():
    a, b, n = _constructed_pair(3, 1, size_d=10, common=5, total=40)
    with pytest.raises(ParameterError, match="`resamples`"):
        pair_test(a, b, [n], "bootstrap", resamples=0)


@pytest.mark.parametrize("seed", [-1, 2.5, None])
def test_seed_must_be_a_non_negative_whole_number(seed):
    a, b, n = _constructed_pair(3, 1, size_d=10, common=5, total=40)
    with pytest.raises(ParameterError, match="`seed`"):
        paired_bootstrap(a, b, [n], seed=seed)


def test_bad_counts_are_refused():
    with pytest.raises(ParameterError, match="`tp_d1` must hold non-negative whole counts"):
        mcnemar_exact(-1, 3)
    with pytest.raises(ParameterError, match="`tp_d2`"):
        mcnemar_chi2(2, 1.5)
    with pytest.raises(ParameterError, match="cannot exceed the list sizes"):
        pearson_chi2_independent(6, 5, 1, 5)


def test_confidence_level_is_checked():
    a, b, n = _constructed_pair(3, 1, size_d=10, common=5, total=40)
    with pytest.raises(ParameterError, match="`confidence_level`"):
        pair_test(a, b, [n], "mcnemar", confidence_level=95)
