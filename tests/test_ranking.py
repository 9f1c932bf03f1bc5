"""Rankings and tie policies: the one building block."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.candidates import CandidateSet
from evalcore.errors import ColumnError, ParameterError
from evalcore.ranking import rank, rank_scores, score_ties

LABELS = np.array([True, False, True, False, False, True])
SCORES = np.array([5.0, 7.0, 3.0, 3.0, 3.0, np.nan])


def test_stable_keeps_file_order_within_ties_and_puts_nan_last():
    r = rank_scores(LABELS, SCORES, ties="stable")
    assert r.order.tolist() == [1, 0, 2, 3, 4, 5]
    assert r.tp.tolist() == [0, 0, 1, 2, 2, 2, 3]
    assert r.ranks.tolist() == [2, 1, 3, 4, 5, 6]
    assert r.n_nonfinite == 1


def test_optimistic_and_pessimistic_order_labels_within_ties():
    assert rank_scores(LABELS, SCORES, ties="optimistic").order.tolist()[2:5] == [2, 3, 4]
    assert rank_scores(LABELS, SCORES, ties="pessimistic").order.tolist()[2:5] == [3, 4, 2]


def test_lower_is_better_reverses_the_ranking():
    r = rank_scores(LABELS, SCORES, higher_is_better=False, ties="stable")
    assert r.order.tolist() == [2, 3, 4, 0, 1, 5]


def test_infinite_scores_rank_last_whatever_the_direction():
    scores = np.array([1.0, np.inf, -np.inf, 2.0])
    labels = np.array([True, True, False, False])
    for higher in (True, False):
        r = rank_scores(labels, scores, higher_is_better=higher, ties="stable")
        assert set(r.order[2:].tolist()) == {1, 2}
        assert r.n_nonfinite == 2


def test_random_ties_are_seeded_and_reported():
    labels = np.arange(200) % 3 == 0
    scores = np.repeat(np.arange(20.0), 10)
    first = rank_scores(labels, scores, ties="random", seed=42)
    again = rank_scores(labels, scores, ties="random", seed=42)
    other = rank_scores(labels, scores, ties="random", seed=43)
    assert first.seed == 42
    np.testing.assert_array_equal(first.order, again.order)
    assert not np.array_equal(first.order, other.order)
    # random tie-breaking never moves a candidate out of its tie group
    np.testing.assert_array_equal(scores[first.order], scores[other.order])
    fresh = rank_scores(labels, scores, ties="random")
    assert isinstance(fresh.seed, int)
    np.testing.assert_array_equal(rank_scores(labels, scores, seed=fresh.seed).order, fresh.order)


def test_tie_groups_and_straddled_cutoffs():
    r = rank_scores(LABELS, SCORES, ties="stable")
    assert r.tie_summary() == {"measure": "score", "tie_groups": 1, "tied_candidates": 3, "largest_group": 3,
                               "nonfinite": 1}
    # ranks 3..5 hold the three 3.0s: cut-offs after rank 3 and 4 split that group
    assert r.straddles(np.arange(1, 7)).tolist() == [False, False, True, True, False, False]


tie_data = st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.integers(0, 6), min_size=n, max_size=n),
    st.integers(0, 2**16)))


@given(tie_data)
def test_optimistic_and_pessimistic_bound_every_tie_breaking(data):
    labels, scores, seed = np.array(data[0]), np.array(data[1], dtype=float), data[2]
    best = rank_scores(labels, scores, ties="optimistic")
    worst = rank_scores(labels, scores, ties="pessimistic")
    rnd = rank_scores(labels, scores, ties="random", seed=seed)
    n = np.arange(0, labels.size + 1)
    low, high = rnd.tp_bounds(n)
    np.testing.assert_array_equal(high, best.tp)
    np.testing.assert_array_equal(low, worst.tp)
    assert np.all((low <= rnd.tp) & (rnd.tp <= high))
    # where no tie group is split, every policy agrees
    straddled = rnd.straddles(n)
    np.testing.assert_array_equal(low[~straddled], high[~straddled])


def test_rank_from_candidate_set_uses_direction_and_names_unknown_measures():
    cs = CandidateSet(labels=LABELS, scores={"a": SCORES, "p": SCORES}, directions={"p": "lower"}, source="x.tsv")
    assert rank(cs, "p", ties="stable").order.tolist() == [2, 3, 4, 0, 1, 5]
    with pytest.raises(ColumnError, match="no score column 'b'; the score columns are a, p"):
        rank(cs, "b")


@pytest.mark.parametrize("kwargs, match", [({"ties": "jitter"}, "`ties` must be one of random, stable"),
                                           ({"seed": -3}, "`seed` must be a non-negative whole number")])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        rank_scores(LABELS, SCORES, **kwargs)


@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, 1.5, -2.0, np.nan, np.inf, -np.inf]), min_size=1, max_size=60),
       st.booleans())
def test_score_ties_are_the_rankings_ties(values, higher):
    """`evalcore summary`'s ties from one sort of the scores (no ranking built) equal the ranking's: the tie summary
    and the cut-offs at n = 1..N-1 that split a tie group (issue 34: 10^7 rows in a third of the memory)."""
    scores = np.array(values)
    r = rank_scores(np.zeros(scores.size, dtype=bool), scores, ties="stable", higher_is_better=higher, measure="m")
    expected = {**r.tie_summary(), "straddled_cutoffs": int(r.straddles(np.arange(1, scores.size)).sum())}
    assert score_ties(scores, higher_is_better=higher, measure="m") == expected
