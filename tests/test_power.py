"""Power of the tests on D1/D2, the minimum detectable difference, and planning an experiment.

Where the numbers come from:

* A slow, obviously right enumeration: every outcome (T_D1, T_D2) in [0, d]^2, its binomial
  probability (scipy), and scipy's own ``fisher_exact`` (or evalcore's ``mcnemar_exact``, which
  equals R's ``binom.test``) deciding whether the test rejects (p < alpha).
* Simulation: R's ``statmod::power.fisher.test`` (statmod 1.5.0, 20,000 draws per case; in
  ``tests/reference/r_effect_reference.json``, ``tests/r/generate_effect_reference.R``) and a
  numpy simulation at d = 3,000; both must lie within 4.5 binomial standard errors.
* R 4.2.2's ``power.t.test(type = "paired")`` (same JSON). The power at a given n agrees to 1e-9
  relative: R's noncentral t (``pt`` with ``ncp``, AS 243 with an error bound of 1e-12 per
  term) and scipy's (Boost) differ in the last digits. R's n comes from ``uniroot`` with the
  tolerance ``.Machine$double.eps^0.25`` (1.2e-4), so it agrees to that.
* Properties: power at pi_D1 = pi_D2 is at most alpha; it grows with |pi_D1 - pi_D2| and, up
  to the saw-teeth of a discrete test, with d.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from evalcore.compare import compare_rankings
from evalcore.errors import ColumnError, ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.stats.fisher import fisher_exact
from evalcore.stats.pairtests import mcnemar_exact
from evalcore.stats.power import (
    MDD_COLUMNS,
    _power_from_cells,
    _power_from_limits,
    critical_values,
    detectable_differences,
    exact_power,
    minimum_detectable_difference,
    paired_t_power,
    paired_t_samples,
    plan_experiment,
    region_precisions,
    rejection_region,
)

REF = json.loads((Path(__file__).parent / "reference" / "r_effect_reference.json").read_text(encoding="utf-8"))


def _slow_power(p1: float, p2: float, d: int, alpha: float, test: str) -> float:
    t = np.arange(d + 1)
    b1, b2 = stats.binom.pmf(t, d, p1), stats.binom.pmf(t, d, p2)
    total = 0.0
    for x1 in t:
        for x2 in t:
            if test == "fisher":
                p = stats.fisher_exact([[x1, d - x1], [x2, d - x2]]).pvalue
            else:
                p = float(mcnemar_exact(x1, x2))
            if p < alpha:
                total += b1[x1] * b2[x2]
    return total


@settings(max_examples=40)
@given(st.integers(0, 18), st.floats(0, 1), st.floats(0, 1), st.sampled_from([0.01, 0.05, 0.2]),
       st.sampled_from(["fisher", "mcnemar"]))
def test_exact_power_equals_slow_enumeration(d, p1, p2, alpha, test):
    assert exact_power(p1, p2, d, alpha, test) == pytest.approx(_slow_power(p1, p2, d, alpha, test), abs=1e-13)


def test_critical_values_are_the_rejection_region():
    for d in (1, 4, 9, 25):
        for alpha in (0.01, 0.05, 0.3):
            for test in ("fisher", "mcnemar"):
                margins = np.arange(2 * d + 1)
                c = critical_values(d, margins, alpha, test)
                for m, cm in zip(margins, c):
                    x = np.arange(max(0, m - d), min(d, m) + 1)
                    if test == "fisher":
                        p = np.array([stats.fisher_exact([[xi, d - xi], [m - xi, d - m + xi]]).pvalue for xi in x])
                    else:
                        p = mcnemar_exact(x, m - x)
                    assert np.array_equal(p < alpha, (x <= cm) | (x >= m - cm)), (d, alpha, test, m)


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_critical_values_rise_by_zero_or_one(test):
    # the condition for the fast power sum (two runs of T_D2 per T_D1)
    for d in (1, 2, 3, 10, 57, 300, 2000):
        for alpha in (0.001, 0.05, 0.2):
            step = np.diff(critical_values(d, np.arange(2 * d + 1), alpha, test))
            assert np.all((step == 0) | (step == 1)), (d, alpha)


@settings(max_examples=30)
@given(st.integers(1, 60), st.floats(0, 1), st.floats(0, 1), st.sampled_from(["fisher", "mcnemar"]))
def test_power_sum_by_runs_equals_the_sum_by_cells(d, p1, p2, test):
    region = rejection_region(d, 0.05, test)
    assert region.last_low is not None
    by_runs = _power_from_limits(d, p1, p2, region.last_low, region.first_high)
    by_cells = _power_from_cells(d, p1, p2, region.m_lo, region.c)
    assert by_runs == pytest.approx(by_cells, abs=1e-14)


def test_power_agrees_with_statmod_simulation():
    for case in REF["power_fisher"]["cases"]:
        ours = exact_power(case["p1"], case["p2"], case["d"], case["alpha"])
        se = math.sqrt(ours * (1 - ours) / case["nsim"])
        assert abs(ours - case["power"]) < 4.5 * se, case


def test_power_agrees_with_a_simulation_at_d_3000():
    rng = np.random.default_rng(5)
    d, p1, p2, draws = 3000, 0.12, 0.10, 4000
    t1, t2 = rng.binomial(d, p1, draws), rng.binomial(d, p2, draws)
    simulated = float(np.mean(fisher_exact(t1, d - t1, t2, d - t2).pvalue < 0.05))
    ours = exact_power(p1, p2, d)
    assert abs(ours - simulated) < 4.5 * math.sqrt(ours * (1 - ours) / draws)


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_power_without_a_difference_is_at_most_alpha(test, alpha):
    for d in (1, 5, 30, 100, 400):
        for p in (0.01, 0.11, 0.3, 0.5, 0.8, 0.99):
            assert exact_power(p, p, d, alpha, test) <= alpha + 1e-14


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_power_grows_with_the_difference(test):
    for d in (10, 40, 150):
        for pooled in (0.1, 0.3, 0.5):
            deltas = np.linspace(0, 2 * min(pooled, 1 - pooled), 60)
            power = [exact_power(pooled + x / 2, pooled - x / 2, d, 0.05, test) for x in deltas]
            assert np.all(np.diff(power) >= -1e-13)
            assert power[0] <= 0.05 and power[-1] > power[0]


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_power_grows_with_d_up_to_saw_teeth(test):
    for p1, p2 in ((0.3, 0.2), (0.12, 0.05)):
        power = np.array([exact_power(p1, p2, d, 0.05, test) for d in range(1, 300)])
        assert np.max(-np.diff(power)) < 0.03  # a discrete test's saw-teeth
        doubled = np.array([exact_power(p1, p2, 2 * d, 0.05, test) for d in range(1, 300, 7)])
        assert np.all(doubled >= power[::7])


def test_power_for_large_d_is_quick_and_sane():
    power = exact_power(0.5, 0.49, 10_000)
    assert 0.25 < power < 0.35
    assert exact_power(0.3, 0.2, 0) == 0.0
    assert exact_power(0.3, 0.2, 10_000) == pytest.approx(1.0, abs=1e-12)


def test_power_errors():
    with pytest.raises(ParameterError, match="pi_d1"):
        exact_power(1.5, 0.2, 10)
    with pytest.raises(ParameterError, match="size"):
        exact_power(0.5, 0.2, 10.5)
    with pytest.raises(ParameterError, match="test"):
        exact_power(0.5, 0.2, 10, test="chi2")
    with pytest.raises(ParameterError, match="alpha"):
        exact_power(0.5, 0.2, 10, alpha=5)


# ------------------------------------------------------------------ minimum detectable difference
@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_minimum_detectable_difference_is_where_power_reaches_the_target(test):
    for d, pooled in ((40, 0.3), (200, 0.1), (1500, 0.2)):
        delta = minimum_detectable_difference(d, pooled, 0.05, 0.8, test)
        assert exact_power(pooled + delta / 2, pooled - delta / 2, d, 0.05, test) == pytest.approx(0.8, abs=1e-9)
        smaller = 0.99 * delta
        assert exact_power(pooled + smaller / 2, pooled - smaller / 2, d, 0.05, test) < 0.8


def test_minimum_detectable_difference_where_nothing_is_detectable():
    assert math.isnan(minimum_detectable_difference(0, 0.3))
    assert math.isnan(minimum_detectable_difference(50, 0.0))
    assert math.isnan(minimum_detectable_difference(3, 0.5))  # 3 candidates per region cannot reach 80%
    assert minimum_detectable_difference(30, 0.5) < 1


def test_detectable_differences_on_krenn(krenn_tsv):
    cs = load_candidates(krenn_tsv, label="is.colloc")
    g2, x2 = rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable")
    table = compare_rankings(g2, x2, [1, 100, 500, 1000, 1268, 2000])
    mdd = detectable_differences(table)
    assert list(mdd.columns) == list(MDD_COLUMNS)
    d = (table["tp_d1"] + table["fp_d1"]).to_numpy()
    assert_allclose(mdd["size"], d)
    assert_allclose(mdd["mdd"], mdd["mdd_pi"] * d / table["n"])
    row = mdd.iloc[1]  # n = 100: D1 = 32/36, D2 = 15/53
    assert row["pooled"] == pytest.approx(47 / 136)
    assert row["mdd_pi"] == pytest.approx(minimum_detectable_difference(68, 47 / 136))
    # G2 vs X2 at n = 100 is significant and larger than the MDD; at n = 2,000 it is not and smaller
    diff = (table["tp_a"] - table["tp_b"]) / table["n"]
    assert diff.iloc[1] > mdd["mdd"].iloc[1] and abs(diff.iloc[5]) < mdd["mdd"].iloc[5]
    with pytest.raises(ColumnError):
        detectable_differences(table[["n"]])


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_detectable_differences_equal_one_n_at_a_time(krenn_tsv, test):
    # Fisher's MDD along n runs in one compiled loop (one rejection region per d); McNemar's per d in Python
    cs = load_candidates(krenn_tsv, label="is.colloc")
    table = compare_rankings(rank(cs, "log.like", ties="stable"), rank(cs, "t.score", ties="stable"),
                             np.arange(1, 5103, 37))
    mdd = detectable_differences(table, 0.01, 0.9, test)
    for row in mdd.itertuples():
        if row.size == 0 or row.pooled in (0, 1):
            assert math.isnan(row.mdd_pi)
            continue
        one = minimum_detectable_difference(int(row.size), row.pooled, 0.01, 0.9, test)
        assert row.mdd_pi == pytest.approx(one, rel=1e-9, nan_ok=True), row


# ------------------------------------------------------------------------------------ planning
def test_region_precisions():
    assert region_precisions(0.3, 0.25, 0.8) == pytest.approx((0.275 + 0.025 / 0.2, 0.275 - 0.025 / 0.2))
    # shared part as precise as stated: Pi_A = o pi_S + (1 - o) pi_D1
    p1, p2 = region_precisions(0.3, 0.25, 0.5, shared_precision=0.4)
    assert 0.5 * 0.4 + 0.5 * p1 == pytest.approx(0.3) and 0.5 * 0.4 + 0.5 * p2 == pytest.approx(0.25)
    with pytest.raises(ParameterError, match="outside"):
        region_precisions(0.3, 0.05, 0.9)
    with pytest.raises(ParameterError, match="overlap"):
        region_precisions(0.3, 0.2, 1.0)


@pytest.mark.parametrize("test", ["fisher", "mcnemar"])
def test_plan_reaches_the_power_with_the_smallest_d_found(test):
    plan = plan_experiment(0.30, 0.25, 0.8, power=0.8, test=test)
    assert plan.power >= 0.8
    assert plan.n == math.ceil(plan.size / 0.2 - 1e-9) and plan.candidates == plan.n + plan.size
    assert exact_power(plan.pi_d1, plan.pi_d2, plan.size, test=test) == pytest.approx(plan.power)
    below = [exact_power(plan.pi_d1, plan.pi_d2, d, test=test) for d in range(max(1, plan.size - 40), plan.size)]
    assert max(below) < 0.8


def test_plan_errors():
    with pytest.raises(ParameterError, match="equal"):
        plan_experiment(0.3, 0.3, 0.5)
    with pytest.raises(ParameterError, match="too small"):
        plan_experiment(0.3, 0.2999, 0.5, max_size=1000)


# ------------------------------------------------------------------------------- paired t-test
def test_paired_t_equals_r_power_t_test():
    cases = REF["power_t"]["cases"]
    assert len(cases) == 32
    for case in cases:
        if case["solve"] == "power":
            ours = paired_t_power(case["n"], case["delta"], case["sd"], case["sig_level"], strict=case["strict"])
            assert ours == pytest.approx(case["power"], rel=1e-9), case
        else:
            ours = paired_t_samples(case["delta"], case["sd"], case["sig_level"], case["power"],
                                    strict=case["strict"])
            assert abs(ours - case["n"]) < 1.25e-4, case  # R's uniroot tolerance
            # and ours is the exact root: the power there is the target
            assert paired_t_power(ours, case["delta"], case["sd"], case["sig_level"],
                                  strict=case["strict"]) == pytest.approx(case["power"], rel=1e-12)


def test_paired_t_errors():
    with pytest.raises(ParameterError, match="delta"):
        paired_t_samples(0, 1)
    with pytest.raises(ParameterError, match="samples"):
        paired_t_power(1, 1, 1)
    with pytest.raises(ParameterError, match="sd"):
        paired_t_power(10, 1, -1)
