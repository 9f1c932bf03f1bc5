"""The Significance page warns when the data cannot show a difference (issue 10: an all-FP file said "0 of 50")."""

import itertools

import numpy as np
import pytest

from evalcore.analysis import pair_comparison, significance_warnings, smallest_p_value
from evalcore.compare import compare_rankings
from evalcore.ranking import rank_scores
from evalcore.stats.fisher import fisher_exact
from evalcore.stats.pairtests import mcnemar_exact


def _every_table(n_tp: int, n_fp: int):
    """Every D1/D2 table of two equal-size lists a data set with these counts allows: [[t, d - t], [c, d - c]]."""
    for d in range(1, n_tp + n_fp + 1):
        for t, c in itertools.product(range(d + 1), repeat=2):
            if t + c <= n_tp and (d - t) + (d - c) <= n_fp:
                yield t, d - t, c, d - c


@pytest.mark.parametrize("n_tp, n_fp", [(1, 9), (2, 2), (3, 7), (4, 4), (5, 3), (2, 8), (6, 1), (4, 9), (7, 5), (8, 8), (3, 14), (12, 6)])
def test_smallest_p_value_is_the_minimum_over_every_table(n_tp, n_fp):
    tables = np.array(list(_every_table(n_tp, n_fp)))
    fisher = fisher_exact(*tables.T).pvalue
    assert smallest_p_value("fisher", n_tp, n_fp) == pytest.approx(fisher.min(), rel=1e-12)
    mcnemar = mcnemar_exact(tables[:, 0], tables[:, 2])
    assert smallest_p_value("mcnemar", n_tp, n_fp) == pytest.approx(mcnemar.min(), rel=1e-12)
    assert smallest_p_value("bootstrap", n_tp, n_fp) is None


def test_smallest_fisher_p_is_reached_by_two_rankings():
    # A ranks the 4 TPs first, B the 4 FPs: at n = 4, D1 = 4 TPs, D2 = 4 FPs
    labels = np.array([True] * 4 + [False] * 4)
    a = rank_scores(labels, np.arange(8, 0, -1.0), ties="stable")
    b = rank_scores(labels, np.arange(1, 9.0), ties="stable")
    p = compare_rankings(a, b, [4])["p_value"].iloc[0]
    assert p == pytest.approx(smallest_p_value("fisher", 4, 4), rel=1e-12) == pytest.approx(2 / 70)


def _all(labels_value: bool, n: int = 200):
    rng = np.random.default_rng(3)
    labels = np.full(n, labels_value)
    a = rank_scores(labels, rng.random(n), measure="MI", ties="stable")
    b = rank_scores(labels, rng.random(n), measure="freq", ties="stable")
    return labels, pair_comparison(a, b, (1, 50))


@pytest.mark.parametrize("value, words", [(False, "No candidate is labelled a TP"),
                                          (True, "Every candidate is labelled a TP")])
def test_all_fp_or_all_tp_data_says_the_test_can_never_reject(value, words):
    labels, result = _all(value)
    assert result.n_significant == 0  # the page said "0 of 50" and nothing else
    warnings = significance_warnings(labels.size, int(labels.sum()), comparison=result.comparison,
                                     names=("MI", "freq"))
    assert len(warnings) == 1 and warnings[0].startswith(words) and "Data page" in warnings[0]
    assert "--" not in warnings[0]  # the page's controls, never a command-line flag


def test_too_few_tps_for_the_level():
    assert significance_warnings(5102, 3, alpha=0.05) == (
        "With only 3 TPs in the data, this test cannot reach p < 0.05 at any n: the smallest p-value it can "
        "give is 0.1. It takes more annotated candidates to tell the measures apart.",)
    assert significance_warnings(5102, 4, alpha=0.05) == ()  # 2 / 70 < 0.05
    assert significance_warnings(5102, 4, alpha=0.01)  # ... but not below 0.01
    assert "5 TPs" in significance_warnings(5102, 5, test="mcnemar")[0]  # 2^-4 = 0.0625
    assert "3 FPs" in significance_warnings(5102, 5099, alpha=0.05)[0]  # the FPs bound it as much
    assert significance_warnings(5102, 3, test="bootstrap") == ()  # no bound known from the counts


def test_the_tested_range():
    labels = np.array([False] * 60 + [True] * 20)
    scores = np.arange(80, 0, -1.0)
    a = rank_scores(labels, scores, measure="A", ties="stable")
    same = rank_scores(labels, scores * 2, measure="B", ties="stable")
    result = pair_comparison(a, same, (1, 40))
    (warning,) = significance_warnings(80, 20, comparison=result.comparison, names=("A", "B"))
    assert "A and B select the same candidates in every n-best list from 1 to 40" in warning
    other = rank_scores(labels, np.r_[np.arange(1, 61.0), np.zeros(20)], measure="C", ties="stable")
    result = pair_comparison(a, other, (1, 40))
    (warning,) = significance_warnings(80, 20, comparison=result.comparison, names=("A", "C"))
    assert warning.startswith("Neither A nor C puts a TP in an n-best list from 1 to 40")
