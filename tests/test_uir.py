"""Unanimous Improvement Ratio (Amigó et al. 2011) and the F-alpha sweep.

Every expected number is worked by hand in the comment above it; the fast UIR is also
checked against a plain loop over test cases (hypothesis), and its properties
(antisymmetry, invariance under strictly increasing transforms) are checked on random
integer-valued metrics, where ties are frequent.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from evalcore.errors import ParameterError
from evalcore.uir import (
    UIR_THRESHOLD,
    VERDICT_A,
    VERDICT_B,
    VERDICT_NONE,
    UIRResult,
    f_alpha,
    f_alpha_sweep,
    f_beta_to_alpha,
    sweep_flips,
    uir_matrix,
    unanimous_improvement_ratio,
)

# k = 5 test cases x (precision, recall)
#   case 0: A (0.6, 0.5) vs B (0.5, 0.4): A better on both              -> A unanimous
#   case 1: A (0.7, 0.4) vs B (0.6, 0.3): A better on both              -> A unanimous
#   case 2: A (0.9, 0.8) vs B (0.9, 0.7): P tied, A better on R         -> A unanimous (>= on all)
#   case 3: A (0.2, 0.3) vs B (0.3, 0.6): B better on both              -> B unanimous
#   case 4: A (0.8, 0.1) vs B (0.4, 0.3): A better on P, B better on R  -> mixed, counts for neither
# UIR(A, B) = (3 - 1) / 5 = 0.4 >= 0.25: robust.
A5 = [[0.6, 0.5], [0.7, 0.4], [0.9, 0.8], [0.2, 0.3], [0.8, 0.1]]
B5 = [[0.5, 0.4], [0.6, 0.3], [0.9, 0.7], [0.3, 0.6], [0.4, 0.3]]


def uir_loop(a, b) -> tuple[int, int, int, Fraction]:
    """Slow, obviously right: count the test cases one by one, exact fraction for UIR."""
    a_un = b_un = tied = 0
    for row_a, row_b in zip(a, b):
        a_ge = all(x >= y for x, y in zip(row_a, row_b))
        b_ge = all(y >= x for x, y in zip(row_a, row_b))
        a_un += a_ge
        b_un += b_ge
        tied += a_ge and b_ge
    return a_un, b_un, tied, Fraction(a_un - b_un, len(a))


# ------------------------------------------------------------------ UIR: worked examples


def test_hand_worked_five_cases():
    r = unanimous_improvement_ratio(A5, B5, names=["precision", "recall"])
    assert isinstance(r, UIRResult)
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.k) == (3, 1, 0, 5)
    assert r.uir == 0.4  # (3 - 1) / 5
    assert r.threshold == UIR_THRESHOLD == 0.25
    assert r.robust is True
    assert r.verdict == VERDICT_A == "A improves on B unanimously (robust)"


def test_swapping_the_systems_negates_and_flips_the_verdict():
    # the same five cases seen from B: B unanimous on 3 (cases 0-2), A on 1 (case 3): (1 - 3) / 5 = -0.4
    r = unanimous_improvement_ratio(B5, A5)
    assert (r.a_unanimous, r.b_unanimous, r.uir) == (1, 3, -0.4)
    assert r.robust and r.verdict == VERDICT_B == "B improves on A unanimously (robust)"


def test_result_is_frozen():
    r = unanimous_improvement_ratio(A5, B5)
    with pytest.raises(AttributeError):
        r.uir = 1.0


def test_all_ties():
    # 4 cases, A == B on every metric: every case is in T(A >= B) and in T(B >= A):
    # a_unanimous = b_unanimous = all_tied = 4, UIR = (4 - 4) / 4 = 0
    m = [[0.5, 0.5, 1.0], [0.1, 0.9, 0.0], [0.3, 0.3, 0.3], [1.0, 0.0, 0.5]]
    r = unanimous_improvement_ratio(m, [row[:] for row in m])
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.k, r.uir) == (4, 4, 4, 4, 0.0)
    assert r.robust is False and r.verdict == VERDICT_NONE == "no robust improvement"


def test_mixed_only():
    # every case: A better on P, worse on R -> in neither set: UIR = (0 - 0) / 3 = 0
    a = [[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]]
    b = [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]
    r = unanimous_improvement_ratio(a, b)
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.uir) == (0, 0, 0, 0.0)
    assert not r.robust and r.verdict == VERDICT_NONE


def test_ties_cancel_but_count_in_k():
    # 4 cases: case 0 A better on both, cases 1-3 tied on both:
    # a_unanimous = 1 + 3 = 4, b_unanimous = 3, all_tied = 3, UIR = (4 - 3) / 4 = 0.25
    a = [[0.6, 0.6], [0.5, 0.5], [0.4, 0.4], [0.3, 0.3]]
    b = [[0.5, 0.5], [0.5, 0.5], [0.4, 0.4], [0.3, 0.3]]
    r = unanimous_improvement_ratio(a, b)
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.uir) == (4, 3, 3, 0.25)


# ------------------------------------------------------------------ UIR: the threshold


def test_threshold_boundary_counts_as_robust():
    # k = 4: case 0 A better on both, cases 1-3 mixed: UIR = (1 - 0) / 4 = 0.25 exactly.
    # Documented convention: |UIR| >= threshold is robust, so 0.25 is robust at the default.
    a = [[0.6, 0.6], [0.9, 0.1], [0.9, 0.1], [0.9, 0.1]]
    b = [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]
    r = unanimous_improvement_ratio(a, b)
    assert r.uir == 0.25 and r.robust and r.verdict == VERDICT_A
    # the same boundary from the other side: UIR(B, A) = -0.25, |-0.25| >= 0.25
    r = unanimous_improvement_ratio(b, a)
    assert r.uir == -0.25 and r.robust and r.verdict == VERDICT_B
    # the strict reading: a threshold just above 0.25
    r = unanimous_improvement_ratio(a, b, threshold=0.2500001)
    assert not r.robust and r.verdict == VERDICT_NONE


def test_threshold_boundary_with_k_8():
    # k = 8: A unanimous on 3, B on 1, 4 mixed: (3 - 1) / 8 = 0.25 -> robust
    a = [[2, 2], [2, 2], [2, 2], [0, 0]] + [[3, 0]] * 4
    b = [[1, 1], [1, 1], [1, 1], [1, 1]] + [[1, 1]] * 4
    r = unanimous_improvement_ratio(a, b)
    assert (r.a_unanimous, r.b_unanimous, r.uir, r.robust) == (3, 1, 0.25, True)


def test_custom_threshold():
    # the five-case example has UIR = 0.4: robust at 0.4 (boundary), not at 0.5
    r = unanimous_improvement_ratio(A5, B5, threshold=0.4)
    assert r.threshold == 0.4 and r.robust and r.verdict == VERDICT_A
    r = unanimous_improvement_ratio(A5, B5, threshold=0.5)
    assert r.threshold == 0.5 and not r.robust and r.verdict == VERDICT_NONE
    assert r.uir == 0.4  # the ratio itself does not depend on the threshold


@pytest.mark.parametrize("threshold", [0, -0.1, 1.5, float("nan"), "high"])
def test_threshold_out_of_range(threshold):
    with pytest.raises(ParameterError, match="`threshold`"):
        unanimous_improvement_ratio(A5, B5, threshold=threshold)


# ------------------------------------------------------------------ UIR: properties

metric_pairs = st.tuples(st.integers(1, 8), st.integers(1, 3)).flatmap(
    lambda shape: st.tuples(hnp.arrays(np.int64, shape, elements=st.integers(0, 3)),
                            hnp.arrays(np.int64, shape, elements=st.integers(0, 3))))


@given(metric_pairs)
def test_equals_the_loop(pair):
    a, b = pair
    r = unanimous_improvement_ratio(a, b)
    a_un, b_un, tied, uir = uir_loop(a.tolist(), b.tolist())
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.k) == (a_un, b_un, tied, len(a))
    assert r.uir == float(uir)
    assert r.robust == (abs(uir) >= Fraction(1, 4))


@given(metric_pairs)
def test_antisymmetry(pair):
    a, b = pair
    ab, ba = unanimous_improvement_ratio(a, b), unanimous_improvement_ratio(b, a)
    assert ab.uir == -ba.uir
    assert (ab.a_unanimous, ab.b_unanimous, ab.all_tied) == (ba.b_unanimous, ba.a_unanimous, ba.all_tied)
    assert ab.robust == ba.robust
    if ab.robust:
        assert {ab.verdict, ba.verdict} == {VERDICT_A, VERDICT_B}
    else:
        assert ab.verdict == ba.verdict == VERDICT_NONE


STRICTLY_INCREASING = [np.exp, np.arctan, lambda x: x**3, lambda x: 2.5 * x - 7.0, np.log1p, np.sqrt]


@given(metric_pairs, st.data())
def test_invariant_to_strictly_increasing_transforms(pair, data):
    # UIR only compares each metric of A with the same metric of B, so any strictly
    # increasing map per metric, applied to both systems, keeps every comparison
    a, b = pair
    before = unanimous_improvement_ratio(a, b)
    picks = data.draw(st.lists(st.sampled_from(range(len(STRICTLY_INCREASING))),
                               min_size=a.shape[1], max_size=a.shape[1]))
    ta = np.column_stack([STRICTLY_INCREASING[p](a[:, j].astype(float)) for j, p in enumerate(picks)])
    tb = np.column_stack([STRICTLY_INCREASING[p](b[:, j].astype(float)) for j, p in enumerate(picks)])
    assert unanimous_improvement_ratio(ta, tb) == before


# ------------------------------------------------------------------ UIR: DataFrames


def test_dataframes_are_matched_by_column_name_and_index():
    a = pd.DataFrame(A5, columns=["precision", "recall"], index=[f"q{i}" for i in range(5)])
    b = pd.DataFrame(B5, columns=["precision", "recall"], index=[f"q{i}" for i in range(5)])
    shuffled = b.loc[["q3", "q0", "q4", "q2", "q1"], ["recall", "precision"]]
    r = unanimous_improvement_ratio(a, shuffled)
    assert (r.a_unanimous, r.b_unanimous, r.uir) == (3, 1, 0.4)
    # `names` selects metric columns: on precision alone, A >= B on cases 0, 1, 2 (tie), 4 and
    # B >= A on cases 2 (tie), 3: (4 - 2) / 5 = 0.4, with one tie
    r = unanimous_improvement_ratio(a, b, names=["precision"])
    assert (r.a_unanimous, r.b_unanimous, r.all_tied, r.uir) == (4, 2, 1, 0.4)


def test_dataframe_with_other_test_cases():
    a = pd.DataFrame(A5, columns=["P", "R"], index=list("abcde"))
    b = pd.DataFrame(B5, columns=["P", "R"], index=list("abcdx"))
    with pytest.raises(ParameterError, match="same test cases.*reindex"):
        unanimous_improvement_ratio(a, b)


def test_dataframe_missing_or_text_column():
    a = pd.DataFrame(A5, columns=["P", "R"])
    with pytest.raises(ParameterError, match="`metrics_b` has no metric column 'R'"):
        unanimous_improvement_ratio(a, pd.DataFrame(B5, columns=["P", "F"]))
    text = pd.DataFrame({"query": list("abcde"), "P": [0.1] * 5})
    with pytest.raises(ParameterError, match="column 'query' is not numeric.*set_index"):
        unanimous_improvement_ratio(text, text)


# ------------------------------------------------------------------ UIR: input errors


def test_shape_mismatch_names_both_shapes():
    with pytest.raises(ParameterError, match=r"`metrics_a` has shape \(5, 2\) but `metrics_b` has shape \(4, 2\)"):
        unanimous_improvement_ratio(A5, B5[:4])


def test_no_test_case():
    with pytest.raises(ParameterError, match=r"`metrics_a` has no test cases \(shape \(0, 2\)\)"):
        unanimous_improvement_ratio(np.empty((0, 2)), np.empty((0, 2)))


def test_no_metric():
    with pytest.raises(ParameterError, match="no metrics"):
        unanimous_improvement_ratio(np.empty((3, 0)), np.empty((3, 0)))


def test_one_dimensional_input():
    with pytest.raises(ParameterError, match=r"must be 2-d.*shape \(5,\).*reshape\(-1, 1\)"):
        unanimous_improvement_ratio([0.1] * 5, [0.2] * 5)


def test_nan_names_the_test_case_and_metric():
    b = [row[:] for row in B5]
    b[3][1] = float("nan")
    with pytest.raises(ParameterError, match=r"`metrics_b` is NaN at test case 3 \(row 3\), metric 'recall'"):
        unanimous_improvement_ratio(A5, b, names=["precision", "recall"])
    frame = pd.DataFrame(b, columns=["P", "R"], index=[f"q{i}" for i in range(5)])
    with pytest.raises(ParameterError, match=r"NaN at test case 'q3' \(row 3\), metric 'R'"):
        unanimous_improvement_ratio(pd.DataFrame(A5, columns=["P", "R"], index=frame.index), frame)


def test_names_of_wrong_length():
    with pytest.raises(ParameterError, match="`names` gives 3 metric names but `metrics_a` has 2"):
        unanimous_improvement_ratio(A5, B5, names=["P", "R", "F"])


# ------------------------------------------------------------------ UIR matrix


def test_matrix_by_hand():
    # three systems on the five cases: A5, B5 and C = A5 with every value + 0.05
    # UIR(A, B) = 0.4 (above); C > A on every metric of every case: UIR(C, A) = 5 / 5 = 1;
    # C vs B: C >= A >= B where A was unanimous (cases 0-2: C > B on both);
    #   case 3: C (0.25, 0.35) vs B (0.3, 0.6): B better on both; case 4: C (0.85, 0.15) vs B (0.4, 0.3): mixed
    #   UIR(C, B) = (3 - 1) / 5 = 0.4
    c = (np.array(A5) + 0.05).tolist()
    m = uir_matrix({"A": A5, "B": B5, "C": c})
    assert list(m.index) == list(m.columns) == ["A", "B", "C"]
    assert m.index.name == "A" and m.columns.name == "B"
    expected = np.array([[0.0, 0.4, -1.0],
                         [-0.4, 0.0, -0.4],
                         [1.0, 0.4, 0.0]])
    np.testing.assert_array_equal(m.to_numpy(), expected)
    assert m.attrs["threshold"] == 0.25
    robust = m.abs() >= m.attrs["threshold"]
    assert robust.loc["A", "B"] and not robust.loc["A", "A"]


@given(st.integers(1, 5), st.integers(1, 6), st.integers(1, 3), st.data())
def test_matrix_antisymmetric_with_zero_diagonal(n_systems, k, m, data):
    systems = {f"s{i}": data.draw(hnp.arrays(np.int64, (k, m), elements=st.integers(0, 2)))
               for i in range(n_systems)}
    matrix = uir_matrix(systems, threshold=0.5)
    values = matrix.to_numpy()
    np.testing.assert_array_equal(np.diag(values), 0.0)
    np.testing.assert_array_equal(values, -values.T)
    for x in systems:
        for y in systems:
            assert matrix.loc[x, y] == unanimous_improvement_ratio(systems[x], systems[y]).uir


def test_matrix_errors():
    with pytest.raises(ParameterError, match="non-empty mapping"):
        uir_matrix({})
    with pytest.raises(ParameterError, match=r"`metrics\['B'\]` has shape \(4, 2\) but `metrics\['A'\]` has shape"):
        uir_matrix({"A": A5, "B": B5[:4]})
    with pytest.raises(ParameterError, match="`threshold`"):
        uir_matrix({"A": A5}, threshold=2)


# ------------------------------------------------------------------ F-alpha


def test_f_alpha_ends_and_harmonic_mean():
    p = np.array([0.8, 0.5, 0.3])
    r = np.array([0.2, 0.25, 0.3])
    np.testing.assert_array_equal(f_alpha(p, r, 1.0), p)  # alpha = 1: precision only
    np.testing.assert_array_equal(f_alpha(p, r, 0.0), r)  # alpha = 0: recall only
    # alpha = 0.5: 2PR / (P + R) = 2(0.16)/1.0 = 0.32; 2(0.125)/0.75 = 1/3; 2(0.09)/0.6 = 0.3
    np.testing.assert_allclose(f_alpha(p, r, 0.5), [0.32, 1 / 3, 0.3], rtol=1e-15)
    np.testing.assert_allclose(f_alpha(p, r, 0.5), 2 * p * r / (p + r), rtol=1e-15)


def test_f_alpha_zero_handling():
    # P = 0 or R = 0 with 0 < alpha < 1: 1 / (alpha / 0 + ...) -> 0; P = R = 0 -> 0
    assert f_alpha(0.0, 0.5, 0.5) == 0.0
    assert f_alpha(0.5, 0.0, 0.3) == 0.0
    assert f_alpha(0.0, 0.0, 0.5) == 0.0
    # a metric of weight 0 is left out: alpha = 1 is P even when R = 0; alpha = 0 is R even when P = 0
    assert f_alpha(0.7, 0.0, 1.0) == 0.7
    assert f_alpha(0.0, 0.6, 0.0) == 0.6
    assert f_alpha(0.0, 0.0, 1.0) == 0.0


def test_f_alpha_broadcasts():
    # one (P, R) against three alphas: 1 / (a / 0.8 + (1 - a) / 0.2) = 1 / (5 - 3.75 a)
    # a = 0: 0.2; a = 0.4: 1 / 3.5; a = 1: 0.8
    np.testing.assert_allclose(f_alpha(0.8, 0.2, [0.0, 0.4, 1.0]), [0.2, 1 / 3.5, 0.8], rtol=1e-15)


def test_f_beta_relation_on_numbers():
    # beta = 2: alpha = 1 / (1 + 4) = 0.2. P = 0.5, R = 0.25:
    #   F_beta = (1 + 4)(0.5)(0.25) / (4(0.5) + 0.25) = 0.625 / 2.25 = 5/18
    #   F_alpha = 1 / (0.2/0.5 + 0.8/0.25) = 1 / (0.4 + 3.2) = 1 / 3.6 = 5/18
    assert f_beta_to_alpha(2) == 0.2
    assert f_alpha(0.5, 0.25, f_beta_to_alpha(2)) == pytest.approx(5 / 18, rel=1e-15)
    # beta = 0.5: alpha = 1 / 1.25 = 0.8.
    #   F_beta = 1.25(0.125) / (0.25(0.5) + 0.25) = 0.15625 / 0.375 = 5/12
    #   F_alpha = 1 / (0.8/0.5 + 0.2/0.25) = 1 / 2.4 = 5/12
    assert f_beta_to_alpha(0.5) == 0.8
    assert f_alpha(0.5, 0.25, 0.8) == pytest.approx(5 / 12, rel=1e-15)
    # beta = 1 is F1 (alpha = 0.5); beta = 0 is precision (alpha = 1); beta = inf is recall (alpha = 0)
    assert (f_beta_to_alpha(1), f_beta_to_alpha(0), f_beta_to_alpha(float("inf"))) == (0.5, 1.0, 0.0)


@given(st.floats(0.01, 1), st.floats(0.01, 1), st.floats(0, 10))
def test_f_beta_relation_property(p, r, beta):
    b2 = beta * beta
    assert f_alpha(p, r, f_beta_to_alpha(beta)) == pytest.approx((1 + b2) * p * r / (b2 * p + r), rel=1e-12)


def test_f_alpha_errors():
    with pytest.raises(ParameterError, match=r"`alpha` must be in \[0, 1\].*1.5"):
        f_alpha(0.5, 0.5, 1.5)
    with pytest.raises(ParameterError, match=r"`precision` .*nan at index 1"):
        f_alpha([0.5, float("nan")], [0.5, 0.5], 0.5)
    with pytest.raises(ParameterError, match="broadcast"):
        f_alpha([0.5, 0.5], [0.5, 0.5, 0.5], 0.5)
    with pytest.raises(ParameterError, match="`beta` must be >= 0"):
        f_beta_to_alpha(-1)


# ------------------------------------------------------------------ F-alpha sweep and flips


def test_flip_worked_by_hand():
    # A has (P, R) = (0.8, 0.2) and B (0.4, 0.4) in every sample, so the means are those of one sample.
    # F_B(a) = 1 / (a/0.4 + (1 - a)/0.4) = 0.4 for every a.
    # F_A(a) = 1 / (a/0.8 + (1 - a)/0.2) = 1 / (1.25 a + 5 - 5 a) = 1 / (5 - 3.75 a).
    # F_A(a) = 0.4  <=>  5 - 3.75 a = 2.5  <=>  a = 2.5 / 3.75 = 2/3.
    # Below 2/3 (recall weighs more) B is better: F_A(0) = 0.2 < 0.4; above, A: F_A(1) = 0.8 > 0.4.
    k = 4
    sweep = f_alpha_sweep([0.8] * k, [0.2] * k, [0.4] * k, [0.4] * k)
    assert list(sweep.columns) == ["alpha", "f_a", "f_b", "difference", "better"]
    assert len(sweep) == 101
    first, middle, last = sweep.iloc[0], sweep.iloc[50], sweep.iloc[100]
    # (means of four equal floats: equal to the single value up to rounding in the summation)
    assert (first.alpha, first.better) == (0.0, "B")
    assert (first.f_a, first.f_b) == (pytest.approx(0.2, rel=1e-15), pytest.approx(0.4, rel=1e-15))
    # a = 0.5: F_A = 1 / (5 - 1.875) = 1 / 3.125 = 0.32 (= F1 = 2(0.16)/1.0), difference -0.08
    assert middle.alpha == 0.5 and middle.f_a == pytest.approx(0.32, rel=1e-15)
    assert middle.difference == pytest.approx(-0.08, rel=1e-13) and middle.better == "B"
    assert (last.alpha, last.better) == (1.0, "A") and last.f_a == pytest.approx(0.8, rel=1e-15)
    # 2/3 lies between the grid points 0.66 and 0.67: the row at 0.66 says B, at 0.67 A
    assert sweep.loc[66, "better"] == "B" and sweep.loc[67, "better"] == "A"
    flips = sweep_flips(sweep)
    assert len(flips) == 1 and flips[0] == pytest.approx(2 / 3, abs=1e-9)


def test_flip_is_a_root_of_the_mean_over_samples():
    # sample 1: A (0.8, 0.2), B (0.4, 0.4) as above; sample 2: both (0.6, 0.6), the same for every alpha.
    # mean difference = (F_A(a) - 0.4 + 0) / 2 = 0 at the same a = 2/3
    flips = sweep_flips(f_alpha_sweep([0.8, 0.6], [0.2, 0.6], [0.4, 0.6], [0.4, 0.6]))
    assert flips == [pytest.approx(2 / 3, abs=1e-9)]


def test_flip_on_a_grid_point_is_bridged():
    # the grid holds the root 2/3 itself: that row is a tie, the rows around it B then A -> one flip
    sweep = f_alpha_sweep([0.8], [0.2], [0.4], [0.4], alphas=[0.0, 0.5, 2 / 3, 1.0])
    assert list(sweep["better"]) == ["B", "B", "tie", "A"]
    assert sweep_flips(sweep) == [pytest.approx(2 / 3, abs=1e-9)]


def test_no_flip():
    # A (0.6, 0.6): F_A = 0.6 for every alpha; B (0.4, 0.5): F_B lies between 0.4 and 0.5 -> A always better
    sweep = f_alpha_sweep([0.6] * 3, [0.6] * 3, [0.4] * 3, [0.5] * 3)
    assert set(sweep["better"]) == {"A"}
    assert sweep_flips(sweep) == []
    # identical systems: a tie everywhere, no flip either
    same = f_alpha_sweep([0.3, 0.7], [0.9, 0.2], [0.3, 0.7], [0.9, 0.2])
    assert set(same["better"]) == {"tie"} and sweep_flips(same) == []


@given(st.integers(1, 4).flatmap(lambda k: st.lists(st.lists(st.floats(0.05, 1.0), min_size=k, max_size=k),
                                                    min_size=4, max_size=4)))
def test_flips_are_roots_and_match_the_sign_changes(samples):
    p_a, r_a, p_b, r_b = samples
    sweep = f_alpha_sweep(p_a, r_a, p_b, r_b, alphas=np.linspace(0, 1, 21))
    flips = sweep_flips(sweep)
    decided = [b for b in sweep["better"] if b != "tie"]
    assert len(flips) == sum(x != y for x, y in zip(decided[:-1], decided[1:]))
    for x in flips:
        assert abs(f_alpha_sweep(p_a, r_a, p_b, r_b, alphas=[x])["difference"].iloc[0]) < 1e-12


def test_sweep_flips_needs_the_sample_data():
    sweep = f_alpha_sweep([0.8], [0.2], [0.4], [0.4])
    kept = sweep[sweep["alpha"] >= 0.5]  # a row selection keeps attrs
    assert sweep_flips(kept) == [pytest.approx(2 / 3, abs=1e-9)]
    sweep.attrs.clear()
    with pytest.raises(ParameterError, match="per-sample precision and recall"):
        sweep_flips(sweep)


def test_sweep_errors():
    with pytest.raises(ParameterError, match="got lengths p_a=2, r_a=2, p_b=3, r_b=2"):
        f_alpha_sweep([0.5, 0.5], [0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ParameterError, match="`alphas` must be strictly increasing"):
        f_alpha_sweep([0.5], [0.5], [0.5], [0.5], alphas=[0.5, 0.2])
    with pytest.raises(ParameterError, match="`r_b` must be in"):
        f_alpha_sweep([0.5], [0.5], [0.5], [1.2])
    with pytest.raises(ParameterError, match="`p_a` must be a non-empty 1-d array"):
        f_alpha_sweep([], [], [], [])


# ------------------------------------------------------------------ UIR versus a fixed F


def test_no_robust_improvement_while_f1_declares_a_winner():
    # The point of the paper: a large gain on one metric bought with a loss on the other.
    # Every one of 4 samples: A (P, R) = (0.9, 0.5), B (0.5, 0.55): A better on P, worse on R -> mixed.
    # UIR = (0 - 0) / 4 = 0: no robust improvement.
    k = 4
    r = unanimous_improvement_ratio([[0.9, 0.5]] * k, [[0.5, 0.55]] * k)
    assert (r.a_unanimous, r.b_unanimous, r.uir, r.robust, r.verdict) == (0, 0, 0.0, False, VERDICT_NONE)
    # F1: A = 2(0.45)/1.4 = 9/14 = 0.6429; B = 2(0.275)/1.05 = 11/21 = 0.5238: F1 calls A the winner
    assert f_alpha(0.9, 0.5, 0.5) == pytest.approx(9 / 14, rel=1e-15)
    assert f_alpha(0.5, 0.55, 0.5) == pytest.approx(11 / 21, rel=1e-15)
    # ... but weighting recall fully (alpha = 0) makes B better: 0.55 > 0.5, so the curves cross.
    # F_A(a) = 1/(a/0.9 + (1-a)/0.5) = 1/((10/9) a + 2 - 2a) = 1/(2 - (8/9) a)
    # F_B(a) = 1/(a/0.5 + (1-a)/0.55) = 1/(2a + 20/11 - (20/11) a) = 1/(20/11 + (2/11) a)
    # equal when 2 - (8/9) a = 20/11 + (2/11) a  <=>  2/11 = (88/99 + 18/99) a = (106/99) a  <=>  a = 18/106 = 9/53
    # (check: both denominators are 98/53 there, F = 53/98 = 0.5408)
    sweep = f_alpha_sweep([0.9] * k, [0.5] * k, [0.5] * k, [0.55] * k)
    assert sweep.loc[sweep["alpha"] == 0.5, "better"].item() == "A"
    assert sweep.loc[0, "better"] == "B"
    assert sweep_flips(sweep) == [pytest.approx(9 / 53, abs=1e-9)]


def test_robust_improvement_with_a_small_f1_difference():
    # The converse (Amigó et al.): small but consistent gains. A (0.52, 0.51) vs B (0.50, 0.50) in 5 samples:
    # A better on both metrics everywhere -> UIR = 5/5 = 1, robust, although
    # F1 differs by only 2(0.52)(0.51)/1.03 - 0.5 = 0.5304/1.03 - 0.5 = 0.01495
    k = 5
    r = unanimous_improvement_ratio([[0.52, 0.51]] * k, [[0.50, 0.50]] * k)
    assert (r.uir, r.robust, r.verdict) == (1.0, True, VERDICT_A)
    assert f_alpha(0.52, 0.51, 0.5) - f_alpha(0.5, 0.5, 0.5) == pytest.approx(0.5304 / 1.03 - 0.5, rel=1e-12)
    assert sweep_flips(f_alpha_sweep([0.52] * k, [0.51] * k, [0.5] * k, [0.5] * k)) == []


# ------------------------------------------------------------------ F-beta beside precision and recall


def f_beta_exact(p: Fraction, r: Fraction, beta: Fraction) -> Fraction:
    """van Rijsbergen's F_beta = (1 + beta^2) P R / (beta^2 P + R), in exact fractions; 0 where P or R is 0."""
    if p == 0 or r == 0:
        return Fraction(0)
    return (1 + beta * beta) * p * r / (beta * beta * p + r)


unit_fractions = st.tuples(st.integers(0, 4), st.integers(0, 5)).map(lambda t: (Fraction(t[0], 4), Fraction(t[1], 5)))
pr_pairs = st.integers(1, 8).flatmap(lambda k: st.tuples(st.lists(unit_fractions, min_size=k, max_size=k),
                                                         st.lists(unit_fractions, min_size=k, max_size=k)))
betas = st.lists(st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(10)]),
                 min_size=1, max_size=3, unique=True)


@given(pr_pairs, betas)
def test_adding_f_beta_to_precision_and_recall_never_changes_the_uir(pair, chosen):
    """Why the UIR page offers no F-beta (it once did, and no number moved): F_beta is non-decreasing in P and in R
    (van Rijsbergen's monotonicity, on which Amigó et al. 2011 ground unanimous improvement), so a case where A >= B
    on P and R has A >= B on every F_beta, a case tied on both is tied on it, and a mixed case stays mixed. By the
    paper's definition, counted case by case in exact fractions (ties frequent: P in quarters, R in fifths), and by
    the fast UIR on the floats, with F_beta from f_alpha as evalcore computes it."""
    a, b = pair

    def with_f(rows):
        return [[p, r, *(f_beta_exact(p, r, beta) for beta in chosen)] for p, r in rows]

    assert uir_loop(with_f(a), with_f(b)) == uir_loop(a, b)
    float_a, float_b = (np.array(rows, dtype=np.float64) for rows in (a, b))

    def float_with_f(x):
        return np.column_stack([x, *(f_alpha(x[:, 0], x[:, 1], f_beta_to_alpha(float(beta))) for beta in chosen)])

    with_betas = unanimous_improvement_ratio(float_with_f(float_a), float_with_f(float_b))
    without = unanimous_improvement_ratio(float_a, float_b)
    a_un, b_un, tied, uir = uir_loop(a, b)
    assert with_betas == without and (without.a_unanimous, without.b_unanimous, without.all_tied) == (a_un, b_un, tied)
    assert without.uir == float(uir)


def test_the_uir_of_the_shipped_experiment_is_the_loops_on_precision_recall_and_every_f_beta():
    """analysis.uir_analysis (the UIR page's and the command line's) on the 80 samples of the shipped experiment,
    each measure cut to 20 accepted per sample on average (where UIRs are not all +-1): its matrix is the loop's
    on (P, R) and on (P, R, F0.5, F1, F2) in exact fractions of its own per-sample P and R; ``betas`` add the F
    columns to the per-sample tables and change no UIR."""
    from pathlib import Path

    from evalcore.analysis import uir_analysis
    from evalcore.io import load_candidates
    from evalcore.samples import cuts_for

    candidates = load_candidates(Path(__file__).resolve().parents[1] / "sample_data" / "experiment_sim.tsv.gz")
    measures = list(candidates.measures)
    cuts = cuts_for(candidates, measures, "gamma", 20)
    plain_result = uir_analysis(candidates, measures, cuts, measures[0], measures[1], ties="stable")
    with_betas = uir_analysis(candidates, measures, cuts, measures[0], measures[1], betas=(0.5, 1.0, 2.0),
                              ties="stable")
    assert list(with_betas.metrics[measures[0]].columns) == ["sample", "precision", "recall", "F0.5", "F1", "F2"]
    pd.testing.assert_frame_equal(with_betas.matrix, plain_result.matrix, check_exact=True)
    assert with_betas.pair == plain_result.pair
    rows = {m: [(Fraction(p), Fraction(r)) for p, r in zip(t["precision"], t["recall"])]
            for m, t in plain_result.metrics.items()}
    with_f = {m: [[p, r, *(f_beta_exact(p, r, Fraction(beta)) for beta in (Fraction(1, 2), 1, 2))] for p, r in v]
              for m, v in rows.items()}
    assert len(set(plain_result.matrix.to_numpy().ravel().round(6))) > 3  # (not a matrix of +-1 and 0)
    for x in measures:
        for y in measures:
            expected = uir_loop(rows[x], rows[y])[3]
            assert uir_loop(with_f[x], with_f[y])[3] == expected
            assert plain_result.matrix.loc[x, y] == float(expected)
