"""Planning a pooled design (issue 22): the exact pool size at every depth, expected widths, the pilot's rates."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.candidates import CandidateSet
from evalcore.errors import ParameterError
from evalcore.estimates import hypergeometric_interval
from evalcore.pooling import pool_sizes
from evalcore.pooling.planning import _pilot_rates, best_ranks, expected_rest_width, plan_pool
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(21)
    n = 1500
    signal = rng.normal(size=n)
    labels = rng.random(n) < 1 / (1 + np.exp(-(2.5 * signal - 2.5)))
    scores = {"A": signal + rng.normal(scale=0.6, size=n), "B": signal + rng.normal(scale=0.6, size=n),
              "C": rng.normal(size=n)}
    c = CandidateSet(labels=labels, scores=scores, directions={m: "higher" for m in scores})
    return c, {m: rank(c, m, ties="stable") for m in scores}


def test_expected_width_equals_a_monte_carlo_of_the_design():
    rng = np.random.default_rng(3)
    rest, outside, m, p, n = 40, 300, 60, 0.3, 70
    draws = 20000
    m_r = rng.hypergeometric(rest, outside - rest, m, size=draws)
    k = rng.binomial(m_r, p)
    ci = hypergeometric_interval(k, m_r, np.full(draws, rest))
    width = (ci.high_count - ci.low_count) / n
    want = expected_rest_width(rest, outside, m, p, n)
    assert abs(want - width.mean()) < 4 * width.std() / np.sqrt(draws)
    assert expected_rest_width(0, outside, m, p, n) == 0.0  # the list inside the pool
    assert expected_rest_width(rest, outside, 0, p, n) == rest / n  # nothing sampled: the whole range


def test_a_list_inside_an_affordable_pool_is_planned_exact(data):
    c, r = data
    pool = [r["A"], r["B"]]
    sizes = pool_sizes(pool)
    plan = plan_pool(pool, pool, 300, 60, guess=0.2)
    assert plan.width == 0.0 and plan.depth >= 60 and plan.pool_size == sizes[plan.depth] <= 300
    assert plan.sample_size == 300 - plan.pool_size
    assert "pool of the top" in plan.describe()


def test_the_plan_is_the_best_exact_row_and_respects_the_budget(data):
    c, r = data
    pool = [r["A"], r["B"]]
    plan = plan_pool(pool, [r["A"], r["C"]], 200, 600, guess=0.2)
    table = plan.table
    assert (table["pool_size"] <= 200).all() and (table["sample_size"] == 200 - table["pool_size"]).all()
    exact = table[table["exact"]]
    assert 0 in table["depth"].tolist() and plan.width == exact["objective"].min() and exact.shape[0] == 1
    assert plan.width == max(plan.widths.values())
    # a measure the pool ignores gains nothing from it: the whole budget as a random sample is best for C alone
    only_c = plan_pool(pool, [r["C"]], 200, 600, guess=0.2)
    assert only_c.depth == 0 and only_c.sample_size == 200


def test_pilot_rates_count_the_annotated_candidates_outside_each_pool(data):
    c, r = data
    idx = np.arange(0, c.n_candidates, 7)
    part = c.with_annotations(idx, c.labels[idx])
    target = rank(part, "A", ties="stable")
    best = best_ranks([r["A"], r["B"]])
    depths = np.array([0, 10, 100, 400])
    n, p0 = 500, 0.25
    got = _pilot_rates(target, best, n, depths, p0)
    top = r["A"].order[:n]
    for K, value in zip(depths, got):
        seen = [i for i in top if i % 7 == 0 and best[i] > K]
        k = sum(c.labels[seen])
        assert value == pytest.approx((k + 2 * p0) / (len(seen) + 2))
    plan = plan_pool([r["A"], r["B"]], [target], 200, n, pilot=True)
    assert plan.source == "pilot" and 0 < plan.rates["A"] < 1


@pytest.mark.parametrize("kwargs, match", [(dict(budget=0), "budget"), (dict(budget=10**6), "budget"),
                                           (dict(n=0), "`n`"), (dict(guess=None), "guess"),
                                           (dict(guess=1.5), "guess")])
def test_bad_plans_are_refused(data, kwargs, match):
    c, r = data
    args = dict(budget=100, n=50, guess=0.2) | kwargs
    with pytest.raises(ParameterError, match=match):
        plan_pool([r["A"]], [r["A"]], **args)
