"""Switching the Threshold page's measure keeps the acceptance size (issue 10), ties handled."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.analysis import acceptance_size, gamma_for_n, gamma_for_size, gamma_keeping_size
from evalcore.errors import ColumnError, ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank, rank_scores


def slow_gamma_for_size(scores: np.ndarray, higher: bool, size: int) -> tuple[float, int]:
    """Every threshold a score can give, counted by hand; the nearest size, the smaller of two equally near."""
    finite = scores[np.isfinite(scores)]
    options = []
    for g in np.unique(finite):
        accepted = int(np.sum(finite >= g) if higher else np.sum(finite <= g))
        options.append((abs(accepted - size), accepted, float(g)))
    options.append((size, 0, None))  # nothing accepted
    _, accepted, gamma = min(options)
    return gamma, accepted


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 5).map(float), st.just(np.nan), st.just(np.inf)), min_size=1,
                max_size=40), st.booleans(), st.data())
def test_gamma_for_size_against_a_count_by_hand(values, higher, data):
    scores = np.array(values)
    ranking = rank_scores(np.ones(scores.size, bool), scores, higher_is_better=higher, ties="random", seed=1)
    if not np.isfinite(scores).any():
        with pytest.raises(ColumnError, match="no finite score"):
            gamma_for_size(ranking, 0)
        return
    size = data.draw(st.integers(0, scores.size))
    want_gamma, want_size = slow_gamma_for_size(scores, higher, size)
    gamma = gamma_for_size(ranking, size)
    assert acceptance_size(ranking, gamma) == want_size
    if want_gamma is not None:
        assert gamma == want_gamma


def test_ties_take_the_nearer_size_and_the_smaller_of_two():
    r = rank_scores(np.ones(5, bool), np.array([9.0, 7, 7, 7, 5]), ties="stable")  # sizes 0, 1, 4, 5
    assert [acceptance_size(r, gamma_for_size(r, k)) for k in range(6)] == [0, 1, 1, 4, 4, 5]
    lower = rank_scores(np.ones(3, bool), np.array([0.01, 0.5, 0.5]), higher_is_better=False, ties="stable")
    assert gamma_for_size(lower, 1) == 0.01 and gamma_for_size(lower, 2) == 0.01  # 1 and 3 equally near 2
    assert acceptance_size(lower, gamma_for_size(lower, 0)) == 0
    with pytest.raises(ParameterError, match="`size` must be a whole number from 0 to 3"):
        gamma_for_size(lower, 4)


def test_freq_to_t_score_on_krenn_keeps_the_size(krenn_tsv):
    # issue 10: freq -> t.score clamped gamma and left 1 accepted candidate and 0% precision
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    freq, t = rank(krenn, "freq", ties="stable"), rank(krenn, "t.score", ties="stable")
    size = acceptance_size(freq, 50.0)
    assert size == 2340
    gamma = gamma_keeping_size(freq, 50.0, t)
    assert acceptance_size(t, gamma) == size  # t.score has no tie across rank 2,340 ...
    assert gamma == gamma_for_n(t, size)  # ... so this is the n-best threshold of Evert (2004, §2)
    back = gamma_keeping_size(t, gamma, freq)  # freq is tied at 50: the group ends at 2,340 again
    assert back == 50.0
