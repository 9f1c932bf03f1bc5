"""n-best curves, acceptance sets and difference regions against set-based oracles, and their properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.compare import compare_rankings, compare_sets, difference_regions, significant_up_to
from evalcore.curves import acceptance_sets, precision_curve
from evalcore.errors import ParameterError
from evalcore.stats.fisher import fisher_exact
from evalcore.ranking import rank_scores
from oracles import nbest_sets

POLICIES = ("stable", "optimistic", "pessimistic", "random")

# random candidate sets with heavy ties: labels, two score columns on a small integer range, a seed
candidate_sets = st.integers(1, 50).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.sampled_from(POLICIES),
    st.integers(0, 1000)))


def _rankings(data):
    labels, sa, sb, ties, seed = data
    labels = np.array(labels, dtype=bool)
    a = rank_scores(labels, np.array(sa, float), ties=ties, seed=seed, measure="a")
    b = rank_scores(labels, np.array(sb, float), ties=ties, seed=seed + 1, measure="b")
    return labels, a, b


@given(candidate_sets)
def test_difference_regions_equal_set_operations_for_every_n(data):
    labels, a, b = _rankings(data)
    expected = nbest_sets(labels, None, None, a.order, b.order)
    got = difference_regions(a, b)
    np.testing.assert_array_equal(
        got[["n", "tp_a", "tp_b", "tp_d1", "fp_d1", "tp_d2", "fp_d2"]].to_numpy(), expected)


@given(candidate_sets)
def test_curve_equals_counting_the_top_n(data):
    labels, a, _ = _rankings(data)
    curve = precision_curve(a)
    for n in range(1, labels.size + 1):
        assert curve["tp"].iloc[n - 1] == labels[a.order[:n]].sum()
    assert curve["precision"].iloc[-1] == pytest.approx(labels.mean())  # n = N: the baseline
    assert np.all(curve["baseline"] == labels.mean())


@given(candidate_sets)
def test_p_value_is_symmetric_when_a_and_b_swap(data):
    _, a, b = _rankings(data)
    ab = compare_rankings(a, b)
    ba = compare_rankings(b, a)
    np.testing.assert_allclose(ab["p_value"], ba["p_value"], rtol=1e-12)
    np.testing.assert_array_equal(ab[["tp_d1", "fp_d1"]].to_numpy(), ba[["tp_d2", "fp_d2"]].to_numpy())


@given(candidate_sets, st.sampled_from([np.exp, lambda x: 3 * x + 1, np.arctan, lambda x: x ** 3]))
def test_curves_unchanged_by_strictly_increasing_transforms(data, transform):
    labels, sa, _, ties, seed = data
    scores = np.array(sa, float)
    base = precision_curve(rank_scores(labels, scores, ties=ties, seed=seed))
    moved = precision_curve(rank_scores(labels, transform(scores), ties=ties, seed=seed))
    pd.testing.assert_frame_equal(base, moved)


def test_recall_and_f_beta_by_hand():
    labels = np.array([True, False, True, True, False])
    r = rank_scores(labels, np.array([5.0, 4, 3, 2, 1]), ties="stable")
    curve = precision_curve(r, [2, 3], beta=2.0, confidence_level=None)
    # n = 2: P = 1/2, R = 1/3, F2 = 5 P R / (4 P + R) = (5/6) / (7/3) = 5/14
    assert curve["recall"].tolist() == pytest.approx([1 / 3, 2 / 3])
    assert curve["f_beta"].iloc[0] == pytest.approx(5 / 14)
    assert "lower" not in curve


def test_no_tps_gives_nan_recall_not_an_error():
    r = rank_scores(np.zeros(4, bool), np.arange(4.0), ties="stable")
    curve = precision_curve(r)
    assert curve["precision"].eq(0).all() and curve["recall"].isna().all()


@given(candidate_sets, st.lists(st.floats(-4, 4, allow_nan=False), min_size=1, max_size=5))
def test_acceptance_sets_equal_direct_thresholding(data, gammas):
    labels, sa, _, ties, seed = data
    scores = np.array(sa, float)
    for higher in (True, False):
        table = acceptance_sets(rank_scores(labels, scores, higher_is_better=higher, ties=ties, seed=seed), gammas)
        for row, gamma in zip(table.itertuples(), gammas):
            accepted = scores >= gamma if higher else scores <= gamma
            assert row.size == accepted.sum() and row.tp == (accepted & labels).sum()


@given(candidate_sets, st.data())
def test_compare_sets_of_different_sizes_equal_set_operations(data, draw):
    labels, a, b = _rankings(data)
    n = labels.size
    na = draw.draw(st.integers(1, n))
    nb = draw.draw(st.integers(1, n))
    row = compare_sets(a, [na], b, [nb]).iloc[0]
    sa, sb = set(a.order[:na].tolist()), set(b.order[:nb].tolist())
    d1, d2 = sa - sb, sb - sa
    t1, t2 = int(labels[list(d1)].sum()), int(labels[list(d2)].sum())
    assert (row.tp_d1, row.fp_d1, row.tp_d2, row.fp_d2) == (t1, len(d1) - t1, t2, len(d2) - t2)
    assert row.p_value == pytest.approx(float(fisher_exact(t1, len(d1) - t1, t2, len(d2) - t2).pvalue))


def test_significant_up_to():
    table = pd.DataFrame({"n": [100, 150, 200, 250], "significant": [True, True, False, True]})
    assert significant_up_to(table) == 150
    assert significant_up_to(table.assign(significant=[False, True, True, True])) == 0
    assert significant_up_to(table.assign(significant=True)) == 250


def test_rankings_of_different_candidate_sets_are_refused():
    a = rank_scores(np.array([True, False]), np.array([1.0, 2.0]), ties="stable")
    b = rank_scores(np.array([False, True]), np.array([1.0, 2.0]), ties="stable")
    with pytest.raises(ParameterError, match="not of the same candidate set"):
        compare_rankings(a, b)


def test_list_sizes_outside_the_candidate_set_are_refused():
    a = rank_scores(np.array([True, False]), np.array([1.0, 2.0]), ties="stable")
    with pytest.raises(ParameterError, match=r"list size 3 is outside 1..2"):
        precision_curve(a, [1, 3])
