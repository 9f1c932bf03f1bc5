"""Pooled estimates (issue 22) against a plain enumeration on small sets, and their limits.

The slow, obviously right version: for every n a loop over sets (the n-best list, its pooled part, its rest, the
sampled part of the rest), the exact interval of the rest by trying every number of TPs D with hypergeometric tails
in exact fractions (math.comb), and, over *every* possible sample of the rest, the estimator's mean and its
interval's coverage (no Monte Carlo error).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from evalcore import estimates
from evalcore.candidates import CandidateSet
from evalcore.errors import ParameterError
from evalcore.estimates import SamplingFrame
from evalcore.pooling import (Design, PoolIncomplete, Strata, effective_counts, pooled_acceptance, pooled_baseline,
                              pooled_compare, pooled_difference_interval, pooled_precision, pooled_recall)
from evalcore.ranking import rank

ALPHA = Fraction(1, 20)


def _set(n=12, seed=0):
    rng = np.random.default_rng(seed)
    scores = {"A": rng.permutation(n).astype(float), "B": rng.permutation(n).astype(float)}
    return CandidateSet(labels=rng.random(n) < 0.45, scores=scores, directions={"A": "higher", "B": "higher"})


def _hyper(x, size, d, m):
    return Fraction(math.comb(d, x) * math.comb(size - d, m - x), math.comb(size, m))


def _plain_bounds(k, m, size):
    """Every D not rejected by either one-sided exact test at alpha / 2 (Buonaccorsi 1987), in fractions."""
    kept = [d for d in range(k, size - (m - k) + 1)
            if sum(_hyper(x, size, d, m) for x in range(k, m + 1)) >= ALPHA / 2
            and sum(_hyper(x, size, d, m) for x in range(0, k + 1)) >= ALPHA / 2]
    return min(kept), max(kept)


def _plain_precision(order, labels, pool, sampled, n):
    top = set(order[:n].tolist())
    pooled = top & pool
    rest = top - pool
    seen = rest & sampled
    t = sum(labels[i] for i in pooled)
    k = sum(labels[i] for i in seen)
    if not rest:
        return Fraction(t, n), Fraction(t, n), Fraction(t, n)
    if not seen:
        return None, Fraction(t, n), Fraction(t + len(rest), n)
    low, high = _plain_bounds(k, len(seen), len(rest))
    return (Fraction(t) + Fraction(len(rest) * k, len(seen))) / n, Fraction(t + low, n), Fraction(t + high, n)


def _annotated(c, pool, sample):
    idx = np.r_[np.flatnonzero(pool), np.asarray(sorted(sample), dtype=np.int64)]
    return c.with_annotations(idx, c.labels[idx])


@pytest.mark.parametrize("seed", [0, 1])
def test_precision_equals_a_plain_enumeration_for_every_sample_of_the_rest(seed):
    c = _set(seed=seed)
    design = Design("pool+sample", SamplingFrame(("A", "B"), 2), size=3, seed=0)
    pool_mask = design.pool_mask(c)
    pool, outside = set(np.flatnonzero(pool_mask).tolist()), np.flatnonzero(~pool_mask).tolist()
    order = rank(c, "A", ties="stable").order
    sizes = np.arange(1, c.n_candidates + 1)
    for sample in itertools.combinations(outside, 3):
        table = pooled_precision(rank(_annotated(c, pool_mask, sample), "A", ties="stable"), sizes, pool=pool_mask,
                                 min_annotated=0)
        for n, row in zip(sizes, table.itertuples()):
            est, low, high = _plain_precision(order, c.labels, pool, set(sample), n)
            assert row.lower == pytest.approx(float(low), abs=1e-12) and row.upper == pytest.approx(float(high),
                                                                                                    abs=1e-12)
            assert (est is None and np.isnan(row.estimate)) or row.estimate == pytest.approx(float(est), abs=1e-12)


def test_unbiased_and_covering_over_every_possible_sample():
    """For each n and each number m_r of sampled candidates in the list's rest, the mean estimate over all samples
    with that m_r is the true precision (exactly), and at least 95% of them cover it."""
    c = _set(n=13, seed=3)
    pool_mask = Design("pool", SamplingFrame(("A",), 3)).pool_mask(c)
    pool, outside = set(np.flatnonzero(pool_mask).tolist()), np.flatnonzero(~pool_mask).tolist()
    order = rank(c, "B", ties="stable").order
    truth = np.cumsum(c.labels[order])
    by = {}
    for sample in itertools.combinations(outside, 4):
        for n in range(1, c.n_candidates + 1):
            est, low, high = _plain_precision(order, c.labels, pool, set(sample), n)
            m_r = len(set(order[:n].tolist()) - pool & set(sample))
            by.setdefault((n, m_r), []).append((est, low <= Fraction(int(truth[n - 1]), n) <= high))
    checked = 0
    for (n, m_r), rows in by.items():
        if m_r == 0 and rows[0][0] is None:
            continue
        assert sum(e for e, _ in rows) / len(rows) == Fraction(int(truth[n - 1]), n)
        assert Fraction(sum(cov for _, cov in rows), len(rows)) >= Fraction(95, 100)
        checked += 1
    assert checked > 20


def test_the_fast_path_agrees_with_the_enumeration_through_the_strata():
    c = _set(n=12, seed=4)
    design = Design("pool+sample", SamplingFrame(("A", "B"), 2), size=4, seed=8)
    from evalcore.pooling import draw_design
    idx = draw_design(design, c)
    part = c.with_annotations(idx, c.labels[idx])
    strata = Strata.of(design, part)
    table = strata.precision(rank(part, "B", ties="stable"), min_annotated=0)
    order = rank(c, "B", ties="stable").order
    for n, row in zip(range(1, 13), table.itertuples()):
        est, low, high = _plain_precision(order, c.labels, set(np.flatnonzero(strata.pool).tolist()),
                                          set(idx[strata.pool_size:].tolist()), n)
        assert (row.lower, row.upper) == pytest.approx((float(low), float(high)))


def test_clopper_pearson_on_the_rest_scales_its_bounds_by_the_rest():
    c = _set(n=60, seed=2)
    pool = Design("pool", SamplingFrame(("A",), 10)).pool_mask(c)
    outside = np.flatnonzero(~pool)[:25]
    part = _annotated(c, pool, outside)
    r = rank(part, "B", ties="stable")
    table = pooled_precision(r, [40], pool=pool, interval="clopper_pearson", min_annotated=0).iloc[0]
    low, high = estimates.sample_interval(int(table.rest_k), int(table.rest_m), int(table.rest), 0.95,
                                          "clopper_pearson")
    assert table.lower == pytest.approx((table.pooled_tp + low[0] * table.rest) / 40)
    assert table.upper == pytest.approx((table.pooled_tp + high[0] * table.rest) / 40)


def test_a_pool_design_is_todays_frame_annotated_whole():
    c = _set(n=80, seed=6)
    design = Design("pool", SamplingFrame(("A", "B"), 15))
    pool = design.pool_mask(c)
    part = _annotated(c, pool, [])
    ra, rb = rank(part, "A", ties="stable"), rank(part, "B", ties="stable")
    mine = pooled_precision(ra, pool=pool, rest_sampled=False)
    today = estimates.precision_estimates(ra, frame=pool)
    inside = today["in_frame"].to_numpy()
    assert np.array_equal(mine["in_frame"], inside)
    for col in ("estimate", "lower", "upper", "m", "k"):
        assert np.allclose(mine[col][inside], today[col][inside])
    assert (mine["regime"][~inside] == "uncovered").all() and (mine["regime"][inside] == "exact").all()
    base = pooled_baseline(ra, pool=pool, rest_sampled=False)
    assert (base.population, base.k, base.lower, base.upper) == (int(pool.sum()), int(c.labels[pool].sum()),
                                                                base.estimate, base.estimate)
    cmp_mine = pooled_compare(ra, rb, pool=pool, rest_sampled=False)
    cmp_today = estimates.compare_estimates(ra, rb, frame=pool)
    both = cmp_today["in_frame"].to_numpy()
    assert np.array_equal(cmp_mine["in_frame"].to_numpy()[both], both[both])
    assert np.allclose(cmp_mine["p_value"][both], cmp_today["p_value"][both])
    rec = pooled_recall(ra, pool=pool, rest_sampled=False)
    rec_today = estimates.recall_estimates(ra, frame=pool)
    assert np.allclose(rec["estimate"][inside], rec_today["estimate"][inside])
    assert np.allclose(rec["lower"][inside], rec["estimate"][inside])


def test_recall_point_estimate_is_the_ratio_of_the_yields_of_four_segments():
    c = _set(n=90, seed=7)
    pool = Design("pool", SamplingFrame(("A",), 12)).pool_mask(c)
    sample = np.flatnonzero(~pool)[::3]
    part = _annotated(c, pool, sample)
    r = rank(part, "B", ties="stable")
    table = pooled_recall(r, [5, 30, 60, 90], pool=pool, draws=2000)
    order = rank(c, "B", ties="stable").order
    sampled = set(sample.tolist())
    for n, row in zip((5, 30, 60, 90), table.itertuples()):
        inside, outside = set(order[:n].tolist()), set(order[n:].tolist())

        def yield_(part_set):
            pooled = [i for i in part_set if pool[i]]
            rest = [i for i in part_set if not pool[i]]
            seen = [i for i in rest if i in sampled]
            return sum(c.labels[pooled]) + (len(rest) * sum(c.labels[seen]) / len(seen) if rest else 0.0)

        y_in, y_out = yield_(inside), yield_(outside)
        assert row.estimate == pytest.approx(y_in / (y_in + y_out))
        assert row.lower <= row.estimate + 1e-9 and row.estimate - 1e-9 <= row.upper
    assert table["estimate"].iloc[-1] == 1.0 and table["lower"].iloc[-1] == pytest.approx(1.0)


def test_compare_equals_a_plain_loop_with_effective_counts():
    c = _set(n=40, seed=9)
    pool = Design("pool", SamplingFrame(("A",), 6)).pool_mask(c)
    sample = np.flatnonzero(~pool)[1::2]
    part = _annotated(c, pool, sample)
    ra, rb = rank(part, "A", ties="stable"), rank(part, "B", ties="stable")
    table = pooled_compare(ra, rb, pool=pool, min_annotated=0)
    oa, ob = rank(c, "A", ties="stable").order, rank(c, "B", ties="stable").order
    sampled = set(sample.tolist())
    for n, row in zip(range(1, 41), table.itertuples()):
        A, B = set(oa[:n].tolist()), set(ob[:n].tolist())
        counts = []
        for region in (A - B, B - A):
            pooled = [i for i in region if pool[i]]
            rest = [i for i in region if not pool[i]]
            seen = [i for i in rest if i in sampled]
            d, a, t, m, k = len(region), len(pooled), sum(c.labels[pooled]), len(seen), sum(c.labels[seen])
            if rest and not seen:
                counts = None
                break
            p = (t + (len(rest) * k / m if rest else 0)) / d if d else np.nan
            eff = d if not rest else d * d / (a + len(rest) ** 2 / m)
            counts.append((round(p * eff) if d else 0, round(eff)))
        if counts is None:
            assert not row.in_frame and np.isnan(row.p_value)
            continue
        (x1, n1), (x2, n2) = counts
        want = stats.fisher_exact([[x1, n1 - x1], [x2, n2 - x2]])[1] if n1 and n2 else 1.0
        assert row.p_value == pytest.approx(want, rel=1e-9), n
        assert row.regime == ("exact" if row.rest_d1 == 0 and row.rest_d2 == 0 else "estimated")


def test_effective_counts_are_the_full_counts_in_the_pool_and_the_samples_without_one():
    est, eff, tp = effective_counts(10, 10, 4, 0, 0)  # inside the pool
    assert (est, eff, tp) == (0.4, 10.0, 4.0)
    est, eff, tp = effective_counts(50, 0, 0, 8, 3)  # no pooled part: today's sample counts
    assert (eff, tp) == pytest.approx((8.0, 3.0)) and est == pytest.approx(3 / 8)
    est, eff, tp = effective_counts(50, 20, 10, 6, 2)  # both: Kish's effective size
    assert est == pytest.approx((10 + 30 * 2 / 6) / 50) and eff == pytest.approx(2500 / (20 + 900 / 6))
    assert np.isnan(effective_counts(50, 20, 10, 0, 0)[1])
    assert effective_counts(0, 0, 0, 0, 0)[1] == 0.0


def test_difference_interval_is_the_full_data_one_inside_the_pool_and_todays_sample_one_outside():
    from evalcore.stats.effect import proportion_difference

    c = _set(n=200, seed=11)
    pool = Design("pool", SamplingFrame(("A", "B"), 40)).pool_mask(c)
    part = _annotated(c, pool, np.flatnonzero(~pool)[::4])
    ra, rb = rank(part, "A", ties="stable"), rank(part, "B", ties="stable")
    for method in ("newcombe", "agresti_caffo"):
        table = pooled_difference_interval(pooled_compare(ra, rb, pool=pool), 0.9, method)
        exact = table[(table["regime"] == "exact") & (table["size_d"] > 0)]
        assert len(exact) > 10
        full = proportion_difference(exact["k_d1"], exact["k_d2"], exact["size_d"], 0.9, method)
        assert np.allclose(exact["difference"], full.estimate) and np.allclose(exact["difference_low"], full.low)
        assert np.allclose(exact["difference_high"], full.high)
    # a sample design with a frame: Strata gives today's Newcombe interval
    s = Strata.of(Design("sample", SamplingFrame(), size=50), part)
    sample = _annotated(c, np.zeros(200, bool), np.flatnonzero(~pool)[::4])
    sa, sb = rank(sample, "A", ties="stable"), rank(sample, "B", ties="stable")
    mine = s.with_difference(s.compare(sa, sb), 0.95, "newcombe")
    today = estimates.with_difference_interval(estimates.compare_estimates(sa, sb), 0.95)
    assert np.allclose(mine["difference_low"], today["difference_low"], equal_nan=True)


def test_acceptance_sets_are_the_lists_of_their_size():
    c = _set(n=60, seed=12)
    pool = Design("pool", SamplingFrame(("A",), 10)).pool_mask(c)
    part = _annotated(c, pool, np.flatnonzero(~pool)[::2])
    r = rank(part, "A", ties="stable")
    gammas = [float(r.sorted_scores[9]), float(r.sorted_scores[30]), 1e9]
    table = pooled_acceptance(r, gammas, pool=pool)
    by_n = pooled_precision(r, [10, 31], pool=pool)
    assert table["size"].tolist() == [10, 31, 0]
    assert np.allclose(table[["estimate", "lower", "upper"]].iloc[:2], by_n[["estimate", "lower", "upper"]])


def test_an_incomplete_pool_gives_no_estimate():
    c = _set(n=50, seed=13)
    pool = Design("pool", SamplingFrame(("A",), 8)).pool_mask(c)
    idx = np.flatnonzero(pool)[1:]
    part = c.with_annotations(idx, c.labels[idx])
    with pytest.raises(PoolIncomplete, match="7 of the pool's 8"):
        pooled_precision(rank(part, "A", ties="stable"), pool=pool)
    with pytest.raises(PoolIncomplete):
        pooled_compare(rank(part, "A", ties="stable"), rank(part, "B", ties="stable"), pool=pool)


@pytest.mark.parametrize("pool, match", [(np.zeros(50, bool), "empty"), (np.ones(49, bool), "mask"),
                                         (np.ones(50, int), "mask")])
def test_bad_pools_are_refused(pool, match):
    c = _set(n=50, seed=13)
    with pytest.raises(ParameterError, match=match):
        pooled_precision(rank(c, "A", ties="stable"), pool=pool)


def test_fully_annotated_set_gives_exact_values_everywhere():
    c = _set(n=100, seed=14)
    pool = Design("pool", SamplingFrame(("A",), 5)).pool_mask(c)
    r = rank(c, "A", ties="stable")
    table = pooled_precision(r, pool=pool)
    assert np.allclose(table["estimate"], r.tp[1:] / np.arange(1, 101))
    # every candidate annotated: the rest is "sampled" whole, and its exact interval is the point
    assert np.allclose(table["lower"], table["estimate"]) and np.allclose(table["upper"], table["estimate"])
    assert set(table["regime"]) == {"exact", "estimated"}
