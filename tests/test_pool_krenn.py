"""Issue 22's checks on Krenn's data: labels hidden except for a pool + sample design's candidates.

* Exact inside the pool: for G2 (log.like) and t (t.score), whose top-K lists make the pool, every n <= K gives the
  full annotation's precision (a point), and Fisher's test on D1/D2 of the two gives the full-data p-value, with the
  full-data difference interval.
* Coverage over seeds: the fast vectorised simulation (evalcore.pooling.simulation) with 300 seeds; the 2,000-seed
  run is bench/bench_pool.py. As tests/test_estimates_krenn.py: the check fails if the covering count falls below
  the binomial quantile at 1e-3 / (number of checks), so a correct method fails with probability below 1e-3.
* The simulation counts what the estimators count: for a few seeds, its bounds equal those of pooled_precision on
  the partly annotated set that draw_design gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalcore.compare import compare_rankings
from evalcore.estimates import SamplingFrame
from evalcore.io import load_candidates
from evalcore.pooling import Design, Strata, deepest_pool, draw_design
from evalcore.pooling.simulation import design_simulation
from evalcore.ranking import rank
from evalcore.stats.effect import proportion_difference

POOL = ("log.like", "t.score")
SIZES = (100, 500, 1000, 2000, 5000)
SEEDS = 300


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def full(krenn):
    return {m: rank(krenn, m, ties="stable") for m in krenn.measures}


@pytest.fixture(scope="module")
def design(full):
    k = deepest_pool([full[m] for m in POOL], 300)
    return Design("pool+sample", SamplingFrame(POOL, k, ties="stable"), size=201, seed=22)


@pytest.fixture(scope="module")
def hidden(krenn, design):
    """Krenn's candidates with every label hidden but the design's (the pool and the sample of the rest)."""
    idx = draw_design(design, krenn)
    return krenn.with_annotations(idx, krenn.labels[idx])


def test_the_design_is_the_issues(krenn, design, hidden):
    strata = Strata.of(design, hidden)
    assert design.depth == 228 and strata.pool_size == 299  # the deepest pool within 300: about 300 of the 500
    assert hidden.n_annotated == 500 and strata.progress(hidden).complete


def test_pooled_estimates_equal_the_full_annotation_for_every_n_up_to_k(krenn, full, design, hidden):
    strata = Strata.of(design, hidden)
    sizes = np.arange(1, design.depth + 1)
    for m in POOL:
        table = strata.precision(rank(hidden, m, ties="stable"), sizes)
        exact = full[m].tp[sizes] / sizes
        assert (table["regime"] == "exact").all()
        assert np.array_equal(table["estimate"].to_numpy(), exact)
        assert np.array_equal(table["lower"].to_numpy(), exact) and np.array_equal(table["upper"].to_numpy(), exact)
    a, b = (rank(hidden, m, ties="stable") for m in POOL)
    mine = strata.with_difference(strata.compare(a, b, sizes), 0.95, "newcombe")
    want = compare_rankings(full[POOL[0]], full[POOL[1]], sizes)
    assert (mine["regime"] == "exact").all()
    assert np.allclose(mine["p_value"], want["p_value"], rtol=1e-12, atol=0)
    diff = proportion_difference(want["tp_d1"], want["tp_d2"], mine["size_d"], 0.95, "newcombe")
    assert np.allclose(mine["difference_low"], diff.low) and np.allclose(mine["difference_high"], diff.high)


def test_beyond_the_pool_the_estimate_adds_the_sampled_stratum(full, design, hidden):
    strata = Strata.of(design, hidden)
    row = strata.precision(rank(hidden, "log.like", ties="stable"), [1000]).iloc[0]
    assert row.regime == "estimated" and row.pooled + row.rest == 1000 and 0 < row.rest_m < row.rest
    assert row.estimate == pytest.approx((row.pooled_tp + row.rest * row.rest_k / row.rest_m) / 1000)
    assert row.lower < full["log.like"].tp[1000] / 1000 < row.upper


def test_the_simulation_counts_what_the_estimators_count(krenn, full, design):
    pool = design.pool_mask(krenn, full)
    summary, per_seed = design_simulation(krenn.labels, {m: full[m] for m in ("log.like", "MI")}, pool, design.size,
                                          [3, 4], [50, 700, 3000], random_size=500)
    for seed in (3, 4):
        d = Design(design.kind, design.frame, size=design.size, seed=seed)
        idx = draw_design(d, krenn)
        part = krenn.with_annotations(idx, krenn.labels[idx])
        strata = Strata.of(d, part)
        for m in ("log.like", "MI"):
            table = strata.precision(rank(part, m, ties="stable"), [50, 700, 3000])
            got = per_seed[(per_seed["seed"] == seed) & (per_seed["measure"] == m)]
            assert np.allclose(got["pooled_width"], table["upper"] - table["lower"])


def test_intervals_cover_the_full_data_precision_over_seeds(krenn, full, design):
    pool = design.pool_mask(krenn, full)
    summary, _ = design_simulation(krenn.labels, full, pool, design.size, range(1000, 1000 + SEEDS), SIZES,
                                   random_size=500)
    pooled = summary[summary["design"] == "pooled"]
    checks = len(pooled)
    floor = stats.binom.ppf(1e-3 / checks, SEEDS, 0.95) / SEEDS
    assert pooled["coverage"].min() >= floor, pooled[["measure", "n", "coverage"]].to_string()
    assert pooled["coverage"].mean() >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / (SEEDS * checks))
    inside = pooled[pooled["rest"] == 0]
    assert set(zip(inside["measure"], inside["n"])) == {("log.like", 100), ("t.score", 100), ("Fisher", 100)}
    assert (inside["mean_width"] == 0).all() and (inside["coverage"] == 1).all()


def test_the_coverage_check_fails_intervals_that_are_too_narrow(krenn, full, design):
    """An 80% interval passed off as 95% is caught: the check above can fail."""
    pool = design.pool_mask(krenn, full)
    summary, _ = design_simulation(krenn.labels, {m: full[m] for m in ("MI", "chisq")}, pool, design.size,
                                   range(1000, 1000 + SEEDS), (500, 2000), confidence_level=0.8, random_size=500)
    pooled = summary[summary["design"] == "pooled"]
    assert pooled["coverage"].min() < stats.binom.ppf(1e-3 / (len(full) * len(SIZES)), SEEDS, 0.95) / SEEDS
