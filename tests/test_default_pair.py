"""The pair a comparison opens on (issue 30): the first two measures whose n-best lists differ enough for Fisher's
exact test to reach alpha somewhere in the default range. The smallest p-value the test can give is checked against
exact fractions worked by hand and against every split of the TPs tested with scipy's fisher_exact; the choice on
Krenn's data against the paper's measures (log.like and Fisher's p-value rank nearly alike)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from evalcore import analysis
from evalcore.compare import PairReach, default_pair, pair_reach, smallest_fisher_p
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank_scores


def test_smallest_p_by_hand():
    # four candidates in each region: all four TPs in D1 is the most extreme table, p = 2 / C(8, 4) (both tails)
    assert smallest_fisher_p(4, 4, 4) == pytest.approx(2 / comb(8, 4), rel=1e-12)
    assert smallest_fisher_p(3, 3, 3) == pytest.approx(2 / comb(6, 3), rel=1e-12)  # 0.1: never below 0.05
    # two TPs among 4 + 4: both in D1 has probability C(4, 2) / C(8, 2) = 6/28, the other tail the same
    assert smallest_fisher_p(4, 4, 2) == pytest.approx(12 / 28, rel=1e-12)
    assert smallest_fisher_p([0, 5, 7], [0, 5, 7], [0, 0, 14]).tolist() == [1.0, 1.0, 1.0]  # nothing to split
    with pytest.raises(ParameterError, match="tps"):
        smallest_fisher_p(2, 2, 5)


@given(st.integers(0, 12), st.integers(0, 12), st.data())
def test_smallest_p_is_the_least_over_every_split(s1, s2, data):
    t = data.draw(st.integers(0, s1 + s2))
    splits = range(max(0, t - s2), min(t, s1) + 1)
    slow = min(scipy.stats.fisher_exact([[x, s1 - x], [t - x, s2 - t + x]]).pvalue for x in splits)
    assert smallest_fisher_p(s1, s2, t) == pytest.approx(slow, rel=1e-9, abs=1e-15)


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    candidates = load_candidates(krenn_tsv, label="is.colloc")
    order = tuple(analysis.measure_quality(candidates)["measure"])
    return order, analysis.rankings_for(candidates, order, ties="stable", seed=None)


def test_krenn_opens_on_log_likelihood_against_t_score(krenn):
    order, ranked = krenn
    assert order[:4] == ("log.like", "Fisher", "t.score", "chisq.corr")  # by average precision
    near = pair_reach(ranked["log.like"], ranked["Fisher"], (100, 2000), 0.05)
    assert near.largest_difference == 4 and not near.reaches and near.smallest_p == pytest.approx(0.1)
    asked = []

    def ranking_of(m):
        asked.append(m)
        return ranked[m]

    assert default_pair(order[:4], ranking_of, (100, 2000), 0.05, more=order[4:]) == ("log.like", "t.score")
    assert asked == ["log.like", "Fisher", "t.score"]  # only what the search reaches is ranked
    # a chosen measure keeps its side; the other is the first that differs enough from it
    assert default_pair(order[:4], ranked.__getitem__, (100, 2000), 0.05, b="log.like") == ("t.score", "log.like")
    assert default_pair(order[:4], ranked.__getitem__, (100, 2000), 0.05, a="Fisher") == ("Fisher", "t.score")
    # X2 with and without the continuity correction rank almost alike too, yet differ enough for alpha = 0.05
    assert pair_reach(ranked["chisq.corr"], ranked["chisq"], (100, 2000), 0.05).reaches


def test_pairs_of_the_selection_come_before_the_rest_and_none_falls_back_to_the_first_two():
    labels = np.array([True, False] * 50)
    scores = np.arange(100.0)
    same = rank_scores(labels, scores, ties="stable")
    ranked = {"a": same, "b": rank_scores(labels, 2 * scores, ties="stable"), "c": same,
              "d": rank_scores(labels, -scores, ties="stable")}
    reach = pair_reach(ranked["a"], ranked["b"], (1, 100), 0.05)
    assert reach == PairReach((1, 100), 0, 1.0, 0.05) and reach.identical and not reach.reaches
    assert default_pair(["a", "b", "c"], ranked.__getitem__, (1, 100), 0.05, more=["d"]) == ("a", "d")
    assert default_pair(["a", "b", "c"], ranked.__getitem__, (1, 100), 0.05) == ("a", "b")  # none differs
    with pytest.raises(ParameterError, match="two measures"):
        default_pair(["a"], ranked.__getitem__, (1, 100), 0.05)
