"""Effect sizes of two n-best lists: the difference of precision and the odds ratio, with intervals.

Where the numbers come from:

* statsmodels 0.15.0, ``statsmodels.stats.proportion.confint_proportions_2indep(count1, nobs1,
  count2, nobs2, method="newcomb" | "agresti-caffo", compare="diff", alpha)``: the intervals for
  ``pi_D1 - pi_D2`` (Newcombe 1998, method 10; Agresti & Caffo 2000), computed in the test.
* mpmath at 30 digits: the conditional MLE and the exact conditional interval of the odds ratio
  from the exact weights ``C(m, j) C(n, k - j)`` of Fisher's noncentral hypergeometric
  distribution, solved by plain bisection in log psi (a slow, obviously right implementation);
  ours agrees to 1e-9 relative.
* R 4.2.2's ``fisher.test`` (``tests/reference/r_effect_reference.json``, written by
  ``tests/r/generate_effect_reference.R``; transcript ``r_effect_transcript.txt``). R finds each
  root with ``uniroot`` at its default tolerance ``.Machine$double.eps^0.25`` (about 1.2e-4),
  absolute, on ``t = psi`` where the root is below 1 and on ``t = 1/psi`` above 1. So R is a
  reference only on that scale, to 1.25e-4: its bounds above ~1,000 are off by more than 10%
  (chisq vs Dice at n = 1,700: R 13,853, exact 15,435), and roots below ~1e-4 come back as 0.
  Where the table has a zero margin R gives the estimate 0 (it checks ``x == lo`` before
  ``x == hi``); the likelihood is flat there and the estimate here is NaN.
* The paper's data (Evert 2004, §3.3, Figure 3): Krenn's PP-verb candidates, G2 against X2.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from statsmodels.stats.proportion import confint_proportions_2indep

from evalcore.compare import compare_rankings
from evalcore.errors import ColumnError, ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.stats.effect import (
    DIFFERENCE_METHODS,
    EFFECT_COLUMNS,
    effect_sizes,
    odds_ratio,
    precision_difference,
    proportion_difference,
)
from evalcore.stats.fisher import fisher_exact

REF = json.loads((Path(__file__).parent / "reference" / "r_effect_reference.json").read_text(encoding="utf-8"))
R_ALTERNATIVE = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
UNIROOT_TOL = 1.25e-4  # R's uniroot tolerance, .Machine$double.eps^0.25 = 1.22e-4
SM_METHOD = {"newcombe": "newcomb", "agresti_caffo": "agresti-caffo"}


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def g2_x2(krenn):
    return rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")


# --------------------------------------------------------------------- difference of precision
def _statsmodels(x1, x2, d, level, method):
    low, high = confint_proportions_2indep(x1, d, x2, d, method=SM_METHOD[method], compare="diff",
                                           alpha=1 - level)
    return np.clip(low, -1, 1), np.clip(high, -1, 1)  # statsmodels leaves Agresti-Caffo unclipped


@pytest.mark.parametrize("method", list(DIFFERENCE_METHODS))
@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
@pytest.mark.parametrize("d", [1, 2, 3, 5, 10, 37, 250])
def test_difference_interval_equals_statsmodels_on_every_table(method, level, d):
    x1, x2 = (v.ravel() for v in np.meshgrid(np.arange(d + 1), np.arange(d + 1)))
    ours = proportion_difference(x1, x2, d, level, method)
    low, high = _statsmodels(x1.astype(float), x2.astype(float), float(d), level, method)
    assert_allclose(ours.estimate, (x1 - x2) / d, rtol=0, atol=1e-15)
    assert_allclose(ours.low, low, rtol=1e-12, atol=1e-15)
    assert_allclose(ours.high, high, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("method", list(DIFFERENCE_METHODS))
def test_difference_interval_equals_statsmodels_on_krenn(g2_x2, method):
    table = compare_rankings(*g2_x2, range(100, 2001))
    d = (table["tp_d1"] + table["fp_d1"]).to_numpy(float)
    ours = proportion_difference(table["tp_d1"], table["tp_d2"], d, 0.95, method)
    low, high = _statsmodels(table["tp_d1"].to_numpy(float), table["tp_d2"].to_numpy(float), d, 0.95, method)
    assert_allclose(ours.low, low, rtol=1e-12)
    assert_allclose(ours.high, high, rtol=1e-12)


def test_difference_hand_worked_newcombe():
    # x1 = x2 = d / 2 at z: Wilson's half-width is z sqrt(1/(4d) + z^2/(4d^2)) / (1 + z^2/d),
    # centred at 1/2, so Newcombe's bounds are -+ sqrt(2) times it.
    d, z = 50, 1.959963984540054
    half = z * math.sqrt(0.25 / d + z * z / (4 * d * d)) / (1 + z * z / d)
    est, low, high = proportion_difference(25, 25, d, 0.95)
    assert est == 0
    assert_allclose([low, high], [-math.sqrt(2) * half, math.sqrt(2) * half], rtol=1e-13)


def test_precision_difference_is_scaled_by_d_over_n():
    inner = proportion_difference([32, 9], [15, 8], [68, 76], 0.95)
    outer = precision_difference([32, 9], [15, 8], [68, 76], [100, 2000], 0.95)
    scale = np.array([68 / 100, 76 / 2000])
    for a, b in zip(outer, inner):
        assert_allclose(a, b * scale, rtol=1e-15)
    assert_allclose(outer.estimate, [(32 - 15) / 100, (9 - 8) / 2000], rtol=1e-15)


def test_equal_lists_have_difference_zero():
    for values in precision_difference([0, 0], [0, 0], [0, 0], [100, 7]):
        assert_array_equal(values, [0, 0])


@pytest.mark.parametrize("method", list(DIFFERENCE_METHODS))
def test_one_sided_difference_bounds(method):
    two = proportion_difference(30, 18, 60, 0.90, method)
    less = proportion_difference(30, 18, 60, 0.95, method, "less")
    greater = proportion_difference(30, 18, 60, 0.95, method, "greater")
    # a one-sided bound at level L is the two-sided bound at level 2L - 1
    assert_allclose([less.low, less.high], [-1, two.high], rtol=1e-14)
    assert_allclose([greater.low, greater.high], [two.low, 1], rtol=1e-14)


@settings(max_examples=300)
@given(st.integers(1, 400), st.data(), st.sampled_from([0.8, 0.9, 0.95, 0.99, 0.999]))
def test_newcombe_contains_its_estimate(d, data, level):
    x1, x2 = data.draw(st.integers(0, d)), data.draw(st.integers(0, d))
    est, low, high = proportion_difference(x1, x2, d, level)
    assert -1 <= low <= est <= high <= 1


@settings(max_examples=300)
@given(st.integers(1, 400), st.data(), st.sampled_from([0.92, 0.95, 0.99, 0.999]))
def test_agresti_caffo_contains_its_estimate_above_0917(d, data, level):
    # Its centre is the shrunken (x1 - x2) / (d + 2); the shift from (x1 - x2) / d is at most
    # sqrt(3) standard errors (d = 1, x1 = 1, x2 = 0), so two-sided levels from 0.9167 contain it.
    x1, x2 = data.draw(st.integers(0, d)), data.draw(st.integers(0, d))
    est, low, high = proportion_difference(x1, x2, d, level, "agresti_caffo")
    assert -1 <= low <= est <= high <= 1


def test_agresti_caffo_can_miss_its_estimate_at_low_levels():
    est, low, high = proportion_difference(1, 0, 1, 0.8, "agresti_caffo")
    assert est == 1 and high < 1


def test_difference_errors():
    with pytest.raises(ParameterError, match="method"):
        proportion_difference(1, 2, 5, method="wald")
    with pytest.raises(ParameterError, match="cannot exceed"):
        proportion_difference(6, 2, 5)
    with pytest.raises(ParameterError, match="at least `size`"):
        precision_difference(1, 2, 50, 40)
    with pytest.raises(ParameterError, match="confidence_level"):
        proportion_difference(1, 2, 5, confidence_level=95)


# ---------------------------------------------------------------------- odds ratio: mpmath
def _mp_odds_ratio(a, b, c, d, level=0.95, alternative="two-sided", dps=30):
    """Conditional MLE and exact interval by bisection on the exact noncentral weights (slow, plain)."""
    with mp.workdps(dps):
        m, n, k, x = a + c, b + d, a + b, a
        lo, hi = max(0, k - n), min(k, m)
        support = list(range(lo, hi + 1))
        weights = [mp.binomial(m, j) * mp.binomial(n, k - j) for j in support]

        def dist(theta):
            psi = mp.exp(theta)
            power = psi ** (lo - x)
            terms = []
            for w in weights:
                terms.append(w * power)
                power *= psi
            return terms, mp.fsum(terms)

        def mean_minus_x(theta):
            terms, total = dist(theta)
            return mp.fsum(t * (j - x) for t, j in zip(terms, support)) / total

        def lower_tail(theta):  # P(X <= x)
            terms, total = dist(theta)
            return mp.fsum(t for t, j in zip(terms, support) if j <= x) / total

        def upper_tail(theta):  # P(X >= x)
            terms, total = dist(theta)
            return mp.fsum(t for t, j in zip(terms, support) if j >= x) / total

        def bisect(increasing, lo_t=-80, hi_t=80):
            lo_t, hi_t = mp.mpf(lo_t), mp.mpf(hi_t)
            for _ in range(75):  # 160 / 2^75 < 1e-20
                mid = (lo_t + hi_t) / 2
                if increasing(mid) > 0:
                    hi_t = mid
                else:
                    lo_t = mid
            return (lo_t + hi_t) / 2

        tail = (1 - mp.mpf(level)) / (2 if alternative == "two-sided" else 1)
        if lo == hi:
            return math.nan, 0.0, math.inf
        estimate = 0.0 if x == lo else math.inf if x == hi else float(mp.exp(bisect(mean_minus_x)))
        low = 0.0 if (x == lo or alternative == "less") else float(mp.exp(bisect(lambda t: upper_tail(t) - tail)))
        high = math.inf if (x == hi or alternative == "greater") else \
            float(mp.exp(bisect(lambda t: tail - lower_tail(t))))
        return estimate, low, high


MP_TABLES = [
    (32, 36, 15, 53), (63, 129, 34, 158), (61, 133, 29, 165), (39, 116, 24, 131), (9, 67, 8, 68),  # Krenn G2 vs X2
    (201, 215, 1, 415),  # Krenn chisq vs Dice at n = 1,700: R's upper bound 13,853
    (3, 1, 1, 3), (0, 5, 3, 2), (5, 0, 2, 3), (1, 0, 0, 1), (7, 14, 3, 18), (50, 0, 1, 60), (400, 1, 2, 400),
    (2, 300, 300, 1), (1, 200, 200, 1), (0, 1, 1, 0), (12, 7, 9, 11),
]


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("cells", MP_TABLES)
def test_odds_ratio_equals_mpmath(cells, alternative):
    ours = odds_ratio(*cells, 0.95, alternative)
    expected = _mp_odds_ratio(*cells, 0.95, alternative)
    assert_allclose([float(v) for v in ours], expected, rtol=1e-9)


@settings(max_examples=25)
@given(st.lists(st.integers(0, 40), min_size=4, max_size=4), st.sampled_from([0.9, 0.95, 0.99]))
def test_odds_ratio_equals_mpmath_on_random_tables(cells, level):
    ours = odds_ratio(*cells, level)
    expected = _mp_odds_ratio(*cells, level)
    assert_allclose([float(v) for v in ours], expected, rtol=1e-9)


def test_krenn_chisq_vs_dice_upper_bound_is_15435():
    # The example: R's fisher.test gives 13,852.8 (its uniroot stops 1.2e-4 from t = 1/psi)
    est, low, high = odds_ratio(201, 215, 1, 415)
    assert round(float(high)) == 15435
    r = next(c for c in REF["fisher"]["cases"] if (c["a"], c["b"], c["c"], c["d"]) == (201, 215, 1, 415)
             and c["alternative"] == "two.sided" and c["conf_level"] == 0.95)
    assert round(r["high"]) == 13853
    assert abs(1 / r["high"] - 1 / float(high)) < UNIROOT_TOL


# ---------------------------------------------------------------------- odds ratio: R
def _t_scale(value: np.ndarray) -> np.ndarray:
    """R's uniroot variable: psi where psi <= 1, 1/psi above (0 for infinity)."""
    with np.errstate(divide="ignore"):
        return np.where(value <= 1, value, 1 / value)


def test_odds_ratio_agrees_with_r_in_t():
    cases = REF["fisher"]["cases"]
    assert len(cases) > 1000
    checked = 0
    for case in cases:
        cells = (case["a"], case["b"], case["c"], case["d"])
        ours = odds_ratio(*cells, case["conf_level"], R_ALTERNATIVE[case["alternative"]])
        lo = max(0, cells[0] + cells[1] - (cells[1] + cells[3]))
        hi = min(cells[0] + cells[1], cells[0] + cells[2])
        for name, value in zip(("estimate", "low", "high"), ours):
            theirs = float("inf") if case[name] == "Inf" else float(case[name])
            if lo == hi and name == "estimate":
                assert theirs == 0 and math.isnan(value), case  # R: x == lo is checked first; here NaN
                continue
            structural = (name == "estimate" and cells[0] in (lo, hi)) or \
                (name == "low" and (cells[0] == lo or case["alternative"] == "less")) or \
                (name == "high" and (cells[0] == hi or case["alternative"] == "greater"))
            if structural:  # 0 and infinity exactly where R gives them
                assert value == theirs, (case, name, value)
            else:
                assert 0 < value < math.inf, (case, name, value)
                assert abs(_t_scale(np.float64(value)) - _t_scale(np.float64(theirs))) <= UNIROOT_TOL, \
                    (case, name, value, theirs)
            checked += 1
    assert checked > 3000


def test_r_differs_by_more_than_its_precision_only_in_psi():
    # Where R's t-scale error is at its tolerance, its psi-scale error can be large: the largest
    # relative difference of an upper bound is over 10% (the point).
    worst = 0.0
    for case in REF["fisher"]["cases"]:
        theirs = case["high"]
        if case["alternative"] != "two.sided" or theirs in (None, "Inf") or not 1000 < theirs < 1e15:
            continue
        ours = float(odds_ratio(case["a"], case["b"], case["c"], case["d"], case["conf_level"]).high)
        worst = max(worst, abs(ours / theirs - 1))
    assert worst > 0.1


# ---------------------------------------------------------------------- odds ratio: properties
@settings(max_examples=200)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4), st.sampled_from([0.8, 0.95, 0.999]),
       st.sampled_from(["two-sided", "less", "greater"]))
def test_interval_contains_the_estimate(cells, level, alternative):
    est, low, high = (float(v) for v in odds_ratio(*cells, level, alternative))
    if math.isnan(est):
        assert (low, high) == (0, math.inf)
    else:
        assert 0 <= low <= est <= high <= math.inf


@settings(max_examples=100)
@given(st.lists(st.integers(0, 80), min_size=4, max_size=4))
def test_swapping_the_rows_inverts_the_odds_ratio(cells):
    a, b, c, d = cells
    est, low, high = (float(v) for v in odds_ratio(a, b, c, d))
    est2, low2, high2 = (np.float64(v) for v in odds_ratio(c, d, a, b))
    with np.errstate(divide="ignore"):
        inverted = [1 / est2, 1 / high2, 1 / low2]
    assert_allclose([est, low, high], inverted, rtol=1e-11)
    # transposing the table changes nothing
    assert_allclose([float(v) for v in odds_ratio(a, c, b, d)], [est, low, high], rtol=1e-11)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("level", [0.95, 0.99])
def test_interval_excludes_one_exactly_where_fisher_is_significant(g2_x2, alternative, level):
    # Rows of equal size d: the null distribution is symmetric, so the two-sided p-value is
    # twice the smaller tail, and the tail-method interval excludes 1 iff p < 1 - level.
    table = compare_rankings(*g2_x2, None, confidence_level=level, alternative=alternative)
    est, low, high = odds_ratio(table["tp_d1"], table["fp_d1"], table["tp_d2"], table["fp_d2"], level, alternative)
    excludes = (low > 1) | (high < 1)
    assert_array_equal(excludes, table["significant"].to_numpy())
    assert excludes.sum() < len(table)
    if alternative != "less":  # G2 is worse than X2 at 9 n only, significantly at level 0.95 only
        assert excludes.sum() > 1000


def test_odds_ratio_shapes_and_special_values():
    est, low, high = odds_ratio([3, 0, 5, 0], [1, 5, 0, 0], [1, 3, 2, 3], [3, 2, 3, 4])
    assert est.shape == (4,)
    assert est[1] == 0 and low[1] == 0 and est[2] == math.inf and high[2] == math.inf
    assert math.isnan(est[3]) and (low[3], high[3]) == (0, math.inf)  # zero margin
    scalar = odds_ratio(3, 1, 1, 3)
    assert np.ndim(scalar.estimate) == 0


def test_odds_ratio_errors():
    with pytest.raises(ParameterError, match="alternative"):
        odds_ratio(1, 2, 3, 4, alternative="two.sided")
    with pytest.raises(ParameterError, match="`c`"):
        odds_ratio(1, 2, -3, 4)


def test_warm_starts_change_nothing(g2_x2):
    # Consecutive n start from the previous roots; each table alone starts cold.
    table = compare_rankings(*g2_x2, range(1, 3001))
    cells = [table[c].to_numpy() for c in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")]
    together = odds_ratio(*cells)
    rng = np.random.default_rng(3)
    for i in rng.choice(len(table), 40, replace=False):
        alone = odds_ratio(*(c[i] for c in cells))
        assert_allclose([float(v) for v in alone], [v[i] for v in together], rtol=1e-12)


def test_parallel_kernel_equals_serial():
    rng = np.random.default_rng(11)
    size = 25_000  # above the kernels' parallel threshold
    cells = [rng.integers(0, 300, size) for _ in range(4)]
    together = odds_ratio(*cells)
    for i in rng.choice(size, 30, replace=False):
        alone = odds_ratio(*(c[i] for c in cells))
        assert_allclose([float(v) for v in alone], [v[i] for v in together], rtol=1e-12)


def _curve_of_regions(rng, steps: int, start: int) -> list[np.ndarray]:
    """Tables of two n-best lists along n as a curve has them: from n to n + 1 both regions gain a
    candidate (a TP or an FP), lose one, or stay (the same table again); rows stay equal."""
    a, b, c, d = start // 5, start - start // 5, start // 7, start - start // 7
    rows = []
    for _ in range(steps):
        move = rng.integers(0, 3)
        if move == 1:  # a candidate enters each region
            if rng.random() < 0.3:
                a += 1
            else:
                b += 1
            if rng.random() < 0.2:
                c += 1
            else:
                d += 1
        elif move == 2 and min(a, b, c, d) > 0:  # a candidate leaves each region
            a, b = (a - 1, b) if rng.random() < 0.5 else (a, b - 1)
            c, d = (c - 1, d) if rng.random() < 0.5 else (c, d - 1)
        rows.append((a, b, c, d))
    return [np.array(v, dtype=np.int64) for v in zip(*rows)]


@pytest.mark.parametrize("start", [40, 5_000, 70_000])  # a standard deviation of X up to about 80
def test_recurring_tables_copied_changes_nothing(start):
    # The kernel copies a table met in the last few runs of equal tables and solves the others from
    # the previous table's roots moved by Woolf's approximation (and, from a standard deviation of
    # 7.2, from nodes moved from table to table); each table alone starts cold. Tables recur along
    # the curve (the same table at several n, and again after a step away and back).
    rng = np.random.default_rng(start)
    cells = _curve_of_regions(rng, 3_000, start)
    assert len(np.unique(np.stack(cells, axis=1), axis=0)) < 0.8 * len(cells[0])
    together = odds_ratio(*cells)
    order = rng.permutation(len(cells[0]))  # shuffled: neighbours are no longer near
    shuffled = odds_ratio(*(c[order] for c in cells))
    for i in rng.choice(len(cells[0]), 25, replace=False):
        alone = [float(v) for v in odds_ratio(*(c[i] for c in cells))]
        assert_allclose(alone, [v[i] for v in together], rtol=1e-12)
        j = int(np.flatnonzero(order == i)[0])
        assert_allclose(alone, [v[j] for v in shuffled], rtol=1e-12)


def test_recurring_tables_with_unequal_rows():
    rng = np.random.default_rng(5)
    # cells above 2^15 and rows unequal, tables recurring out of order: compared cell by cell
    cells = [rng.integers(0, 4, 600) * 20_000 + rng.integers(0, 3, 600) for _ in range(4)]
    together = odds_ratio(*cells)
    for i in rng.choice(600, 20, replace=False):
        alone = odds_ratio(*(c[i] for c in cells))
        assert_allclose([float(v) for v in alone], [v[i] for v in together], rtol=1e-12)


# ---------------------------------------------------------------------- effect_sizes
def test_effect_sizes_of_a_comparison(g2_x2):
    table = compare_rankings(*g2_x2, [100, 500, 1000, 1268, 2000])
    effects = effect_sizes(table)
    assert list(effects.columns) == ["n", *EFFECT_COLUMNS]
    d = table["tp_d1"] + table["fp_d1"]
    diff = precision_difference(table["tp_d1"], table["tp_d2"], d, table["n"])
    assert_allclose(effects["diff"], (table["tp_a"] - table["tp_b"]) / table["n"], rtol=1e-15)
    assert_allclose(effects["diff_low"], diff.low)
    assert_allclose(effects["diff_high"], diff.high)
    ratio = odds_ratio(table["tp_d1"], table["fp_d1"], table["tp_d2"], table["fp_d2"])
    assert_allclose(effects["odds_ratio"], ratio.estimate)
    # Krenn, G2 vs X2 at n = 100: D1 = 32 TPs / 36 FPs, D2 = 15 / 53; Pi_A - Pi_B = 17 / 100
    first = effects.iloc[0]
    assert first["diff"] == pytest.approx(0.17) and first["diff_low"] > 0
    assert first["or_low"] > 1


def test_effect_sizes_need_a_comparison_table():
    with pytest.raises(ColumnError, match="tp_d1"):
        effect_sizes(pd.DataFrame({"n": [1]}))
    bad = pd.DataFrame({"n": [10], "tp_d1": [3], "fp_d1": [2], "tp_d2": [1], "fp_d2": [1]})
    with pytest.raises(ColumnError, match="same|D1"):
        effect_sizes(bad)


def test_swapping_a_and_b_mirrors_the_effects(g2_x2):
    g2, x2 = g2_x2
    ab = effect_sizes(compare_rankings(g2, x2, range(50, 3000, 7)))
    ba = effect_sizes(compare_rankings(x2, g2, range(50, 3000, 7)))
    assert_allclose(ab["diff"], -ba["diff"], atol=1e-15)
    assert_allclose(ab["diff_low"], -ba["diff_high"], rtol=1e-13, atol=1e-15)
    with np.errstate(divide="ignore"):
        assert_allclose(ab["or_low"], 1 / ba["or_high"], rtol=1e-11)
    fisher = fisher_exact(*(compare_rankings(g2, x2, [100])[c] for c in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")))
    assert float(fisher.pvalue[0]) < 0.01


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000), st.data())
def test_blocked_walk_sums_the_scalar_walks_terms(m, n, data):
    """The blocked walk (32 terms a block, vectorised sums) adds the same terms as the plain scalar
    walk: equal sums to rounding (the scalar walk is the one the mpmath checks above first passed
    with), walking up or down from any point, to the end of the support or to a stop just short."""
    from evalcore.stats import noncentral as nc
    k = data.draw(st.integers(1, m + n - 1))
    lo, hi = max(0, k - n), min(k, m)
    if lo == hi:
        return
    up = data.draw(st.booleans())
    start = data.draw(st.integers(lo, hi - 1) if up else st.integers(lo + 1, hi))
    end = data.draw(st.integers(start + 1, hi) if up else st.integers(lo, start - 1))
    psi = [math.exp(data.draw(st.floats(-0.05, 0.05))) for _ in range(3)]
    p = psi if up else [1.0 / v for v in psi]
    args = (float(end), 1.0, 1.0, 1.0, *p, float(m), float(n), float(k), float(start))
    blocked, scalar = np.zeros((3, 4)), np.zeros((3, 4))
    jb, *_ = nc._walk3(up, float(start), *args, 1.0, 1.0, 1.0, blocked)
    js, *_ = nc._walk3_scalar(up, float(start), *args, 1.0, 1.0, 1.0, scalar)
    if np.all(np.isfinite(scalar)):
        for row in range(3):  # first moments of terms on both sides of 0 cancel: an absolute part per chain
            assert_allclose(blocked[row], scalar[row], rtol=1e-12, atol=1e-14 * np.abs(scalar[row]).max())
        if abs(end - start) < 8:  # too short for either to stop early
            assert jb == js == end


# ---------------------------------------------------------------------- odds ratio: the node path
# Tables whose X has a standard deviation of 7.2 or more (cells of a few hundred and up) are solved
# from every h-th weight (Poisson summation, sinc-kernel tails), the nodes moved exactly from one
# table to the next; smaller ones, one-sided and very high levels by the walk.
def _roots_from_nodes(a, b, c, d, level):
    """The three roots of one table from freshly anchored nodes (the node path alone)."""
    from statistics import NormalDist

    from evalcore.stats import noncentral as nc
    x, m, n, k = float(a), float(a + c), float(b + d), float(a + b)
    lo, hi = max(0.0, k - n), min(k, m)
    tail = (1 - level) / 2
    log_tail, z = math.log(tail), NormalDist().inv_cdf(1 - tail)
    starts = np.array(nc._woolf(x, float(b), float(c), float(d), z, z))
    sd = 1 / math.sqrt(sum(1 / (v + 0.5) for v in (a, b, c, d)))
    assert sd >= nc._NODE_MIN_SD
    cap = nc._NODE_CAP
    grid, nodes, tilt, sums, out = np.zeros(12), np.zeros(cap), np.empty(cap), np.empty(8), np.empty(3)
    atab = np.empty(2 * int((cap + 24) * max(2.0, math.floor(nc._NODE_SHARE * sd))) + 3)
    assert nc._anchor(x, m, n, k, lo, hi, starts[0], sd, z, z, grid, nodes, atab)
    assert nc._nodes_solve(x, lo, hi, m, n, k, log_tail, log_tail, z, z, starts, grid, nodes, atab, tilt, sums,
                           out) == 0
    return np.exp(out)


@pytest.mark.parametrize("cells, level", [((115, 4000, 110, 4100), 0.95), ((140, 900, 110, 1000), 0.9)])
def test_node_path_equals_mpmath(cells, level):
    expected = _mp_odds_ratio(*cells, level)
    assert_allclose(_roots_from_nodes(*cells, level), expected, rtol=1e-9)
    assert_allclose([float(v) for v in odds_ratio(*cells, level)], expected, rtol=1e-9)


def test_node_path_along_a_curve_equals_the_walk():
    # A curve of 4,000 n with a standard deviation of X of about 30: nodes moved from table to
    # table (and anchored again now and then) against the walk on each table alone, cold.
    from statistics import NormalDist

    from evalcore.stats import noncentral as nc
    cells = _curve_of_regions(np.random.default_rng(8), 4_000, 12_000)
    together = np.log(np.column_stack([np.asarray(v, dtype=float) for v in odds_ratio(*cells)]))
    a, b, c, d = (v.astype(float) for v in cells)
    z = NormalDist().inv_cdf(0.975)
    walk, starts, scratch = np.empty((len(a), 3)), np.full(3, math.nan), np.empty((2, 3, 4))
    for i in range(len(a)):
        nc._odds_ratio_one(a[i], a[i] + c[i], b[i] + d[i], a[i] + b[i], math.log(0.025), math.log(0.025), z, z,
                           True, True, starts, walk[i], scratch)
    assert np.all(np.isfinite(walk))
    assert np.abs(together - walk).max() < 1e-12 * (1 + np.abs(walk).max())


def test_tables_in_a_curves_order_are_told_from_shuffled_ones():
    # Along a curve the kernel copies recurring tables itself; out of that order they are sorted out first.
    from evalcore.stats import noncentral as nc
    cells = [v.astype(float) for v in _curve_of_regions(np.random.default_rng(4), 3_000, 5_000)]
    assert nc._along_a_curve(*cells)
    order = np.random.default_rng(5).permutation(3_000)
    assert not nc._along_a_curve(*(v[order] for v in cells))
