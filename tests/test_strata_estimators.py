"""Estimates from a stratified design (issue 33) against plain loops over the strata, R's survey package, and the
full annotation where a band is annotated whole.

The slow, obviously right version: for every n a loop over the bands with sets (the list's part of the band, the
annotated candidates in it, their TPs): the list's TPs are the sum over the bands of the part's size times its
annotated candidates' TP rate (a band's part with none annotated: the band's rate); where the list holds whole
bands, that is each band's annotated TPs in the list times the band's size over its annotated candidates (the
expansion estimator, "domain totals x band sizes / band samples").
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalcore.candidates import CandidateSet
from evalcore.compare import compare_rankings
from evalcore.errors import ParameterError
from evalcore.estimates import hypergeometric_interval, newcombe_difference_interval
from evalcore.pooling import Strata, StratifiedDesign
from evalcore.pooling.stratified_estimators import (cell_totals, effective_clopper_pearson, mover_share, score_test,
                                                    stratified_baseline, stratified_compare,
                                                    stratified_difference_interval, stratified_precision,
                                                    stratified_recall)
from evalcore.ranking import rank

REFERENCE = json.loads((Path(__file__).parent / "reference" / "r_strata_reference.json").read_text())


def _set(n=60, seed=0):
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=n)
    labels = rng.random(n) < 1 / (1 + np.exp(-(1.5 * signal - 1)))
    scores = {"A": signal + rng.normal(scale=0.5, size=n), "B": signal + rng.normal(scale=0.8, size=n),
              "C": rng.normal(size=n)}
    return CandidateSet(labels=labels, scores=scores, directions={m: "higher" for m in scores})


def _drawn(c, design):
    idx = design.draw(c)
    return c.with_annotations(idx, c.labels[idx]), idx


def _plain(order, labels, band, sampled, n):
    """The list's estimated TPs by a loop over the bands (None where a band the list reaches has no sample)."""
    top = set(order[:n].tolist())
    total = Fraction(0)
    for h in sorted(set(band.tolist())):
        members = set(np.flatnonzero(band == h).tolist())
        part = top & members
        if not part:
            continue
        seen = part & sampled
        if seen:
            total += Fraction(len(part) * sum(int(labels[i]) for i in seen), len(seen))
        else:
            band_seen = members & sampled
            if not band_seen:
                return None
            total += Fraction(len(part) * sum(int(labels[i]) for i in band_seen), len(band_seen))
    return total


@pytest.mark.parametrize("seed", range(6))
def test_the_estimate_equals_a_plain_loop_over_the_strata(seed):
    c = _set(seed=seed)
    rng = np.random.default_rng(100 + seed)
    widths = (int(rng.integers(3, 9)), int(rng.integers(5, 15)))
    counts = (widths[0], widths[1], c.n_candidates - sum(widths))
    sizes = tuple(int(rng.integers(1, k + 1)) for k in counts)
    design = StratifiedDesign.of(["A"], widths, sizes, seed=seed)
    part, idx = _drawn(c, design)
    strata = Strata.of(design, part)
    band = strata.bands.band
    for measure in ("A", "B", "C"):
        r = rank(part, measure, ties="stable")
        table = strata.precision(r, min_annotated=0)
        order = rank(c, measure, ties="stable").order
        for n, row in zip(range(1, c.n_candidates + 1), table.itertuples()):
            want = _plain(order, c.labels, band, set(idx.tolist()), n)
            assert row.estimate == pytest.approx(float(want) / n, abs=1e-12)
            assert row.lower <= row.estimate + 1e-12 <= row.upper + 2e-12
            assert row.m == len(set(order[:n].tolist()) & set(idx.tolist()))


def test_lists_of_whole_bands_are_domain_totals_times_band_sizes_over_band_samples():
    c = _set(n=80, seed=9)
    design = StratifiedDesign.of(["A"], (10, 25), (4, 9, 20), seed=3)
    part, idx = _drawn(c, design)
    strata = Strata.of(design, part)
    band, counts = strata.bands.band, strata.bands.counts
    r = rank(part, "A", ties="stable")
    for n, h_top in ((10, 0), (35, 1), (80, 2)):
        table = strata.precision(r, [n]).iloc[0]
        want = Fraction(0)
        for h in range(h_top + 1):
            sampled = [i for i in idx if band[i] == h]
            want += Fraction(sum(int(c.labels[i]) for i in sampled) * int(counts[h]), len(sampled))
        assert table["estimate"] == pytest.approx(float(want) / n, abs=1e-12)


def test_a_band_annotated_whole_gives_the_full_annotations_exact_values():
    c = _set(n=90, seed=4)
    full = {m: rank(c, m, ties="stable") for m in c.measures}
    design = StratifiedDesign.of(["A"], (30, 20), (30, 8, 12), seed=1)  # the first band whole: a pool of 30
    part, _ = _drawn(c, design)
    strata = Strata.of(design, part)
    a, b = rank(part, "A", ties="stable"), rank(part, "B", ties="stable")
    sizes = np.arange(1, 31)
    table = strata.precision(a, sizes)
    exact = full["A"].tp[sizes] / sizes
    assert (table["regime"] == "exact").all()
    assert np.array_equal(table["estimate"].to_numpy(), exact)
    assert np.array_equal(table["lower"].to_numpy(), exact) and np.array_equal(table["upper"].to_numpy(), exact)
    assert np.isinf(table["effective"]).all()
    # D1 and D2 of A and B inside the first band: the full data's difference, interval and Pearson chi-square test
    inside = [n for n in range(1, 31) if (full["A"].ranks[full["B"].ranks <= n] <= 30).all()]
    assert len(inside) >= 5
    mine = stratified_difference_interval(strata.compare(a, b, inside), 0.95, "newcombe")
    want = compare_rankings(full["A"], full["B"], inside)
    assert (mine["regime"] == "exact").all()
    assert np.allclose(mine["effective_d1"], mine["size_d"]) and np.allclose(mine["effective_tp_d1"], want["tp_d1"])
    low, high = newcombe_difference_interval(want["tp_d1"], mine["size_d"], want["tp_d2"], mine["size_d"])
    some = mine["size_d"].to_numpy() > 0
    assert np.allclose(mine["difference_low"][some], low[some]) and np.allclose(mine["difference_high"][some],
                                                                                 high[some])
    for row, w in zip(mine.itertuples(), want.itertuples()):
        if row.size_d == 0 or w.tp_d1 + w.tp_d2 in (0, 2 * row.size_d):
            assert row.p_value == 1.0
            continue
        table2 = [[w.tp_d1, row.size_d - w.tp_d1], [w.tp_d2, row.size_d - w.tp_d2]]
        assert row.p_value == pytest.approx(stats.chi2_contingency(table2, correction=False)[1], rel=1e-9)


def test_a_list_with_one_partly_annotated_band_gets_that_bands_exact_interval():
    c = _set(n=70, seed=5)
    design = StratifiedDesign.of(["A"], (15, 25), (15, 10, 12), seed=2)  # band 1 whole, band 2 sampled
    part, idx = _drawn(c, design)
    strata = Strata.of(design, part)
    r = rank(part, "A", ties="stable")
    order = rank(c, "A", ties="stable").order
    for n in (20, 28, 40):
        row = strata.precision(r, [n]).iloc[0]
        top = order[:n]
        known = int(c.labels[top[:15]].sum())
        rest = top[15:]
        m = int(np.isin(rest, idx).sum())
        k = int(c.labels[rest[np.isin(rest, idx)]].sum())
        ci = hypergeometric_interval(k, m, rest.size)
        assert row["lower"] == pytest.approx((known + ci.low_count) / n)
        assert row["upper"] == pytest.approx((known + ci.high_count) / n)
        cp = strata.precision(r, [n], interval="clopper_pearson").iloc[0]
        assert cp["upper"] - cp["lower"] >= row["upper"] - row["lower"] - 1e-12  # the binomial bound is wider


@pytest.mark.parametrize("case", range(len(REFERENCE["stratified"]["cases"])))
def test_the_design_based_variance_and_interval_equal_rs_survey_package(case):
    """R 4.2.2, survey 4.1.1 (tests/r/generate_strata_reference.R): svytotal with the cells as strata and svymean
    with the bands as strata; Korn & Graubard's bounds from R's estimate and variance."""
    ref = REFERENCE["stratified"]["cases"][case]
    Nin, Nout = np.array(ref["N_in"]), np.array(ref["N_out"])
    min_, kin, mout, kout = (np.array(ref[k]) for k in ("m_in", "k_in", "m_out", "k_out"))
    Nh, mh, kh = Nin + Nout, min_ + mout, kin + kout
    listed = cell_totals(Nin, min_, kin, Nh, mh, kh, prior_weight=0.0)
    assert listed.total == pytest.approx(ref["list_total"], rel=1e-12)
    assert listed.variance * Nin.sum() ** 2 == pytest.approx(ref["list_total_variance"], rel=1e-10)
    whole = cell_totals(Nh, mh, kh, Nh, mh, kh, prior_weight=0.0)
    assert whole.estimate == pytest.approx(ref["proportion"], rel=1e-12)
    assert whole.variance == pytest.approx(ref["proportion_variance"], rel=1e-10)
    low, high = effective_clopper_pearson(whole.estimate, whole.effective, 0.95)
    assert low == pytest.approx(ref["korn_graubard"][0], rel=1e-9)
    assert high == pytest.approx(ref["korn_graubard"][1], rel=1e-9)
    assert abs(low - ref["svyciprop_beta"][0]) < 1e-4  # (R's own scales n.eff by a ratio of t quantiles near 1)


def test_the_score_test_is_pearsons_chi_square_of_two_proportions():
    """prop.test(correct = FALSE) in R 4.2.2 (tests/reference/r_strata_reference.json)."""
    ref = REFERENCE["score_test"]
    x1, n1, x2, n2 = (np.array(ref[k], dtype=float) for k in ("x1", "n1", "x2", "n2"))
    _, p, log10_p = score_test(x1 / n1, n1, x2 / n2, n2)
    assert np.allclose(p, ref["p_value"], rtol=1e-10)
    assert np.allclose(log10_p, np.log10(ref["p_value"]), rtol=1e-10)
    z, greater, _ = score_test(x1 / n1, n1, x2 / n2, n2, "greater")
    assert np.allclose(greater, stats.norm.sf(z)) and np.allclose(p, 2 * stats.norm.sf(np.abs(z)))


def test_korn_graubards_interval_is_clopper_pearson_at_the_effective_counts():
    for k, n in ((0, 20), (3, 20), (20, 20), (7, 41)):
        low, high = effective_clopper_pearson(k / n, float(n), 0.9)
        want = stats.binomtest(k, n).proportion_ci(0.9, method="exact")
        assert low == pytest.approx(want.low, abs=1e-12) and high == pytest.approx(want.high, abs=1e-12)
    assert effective_clopper_pearson(0.3, np.inf) == (0.3, 0.3)
    low, high = effective_clopper_pearson(0.3, 50.0, 0.95, "less")
    assert low == 0 and high == pytest.approx(stats.beta.ppf(0.95, 16, 35))


def test_mover_share_solves_the_mover_condition_on_a_grid():
    """theta = t1 / t2 is in the MOVER-R interval where the MOVER interval of t1 - theta t2 holds 0 (Newcombe 2016):
    scan theta on a fine grid and compare the ends."""
    cases = [(30.0, 20.0, 45.0, 60.0, 40.0, 85.0), (5.0, 1.0, 12.0, 200.0, 150.0, 260.0), (8.0, 6.0, 9.0, 3.0, 0.5, 9.0)]
    for t1, l1, u1, t2, l2, u2 in cases:
        theta = np.linspace(0, 40, 400001)
        d = t1 - theta * t2
        lo = d - np.sqrt((t1 - l1) ** 2 + (theta * (u2 - t2)) ** 2)
        hi = d + np.sqrt((u1 - t1) ** 2 + (theta * (t2 - l2)) ** 2)
        inside = theta[(lo <= 0) & (hi >= 0)]
        low, high = mover_share(t1, l1, u1, t2, l2, u2)
        assert low == pytest.approx(inside.min() / (1 + inside.min()), abs=1e-4)  # (the grid: 1e-4 in theta)
        assert high == pytest.approx(inside.max() / (1 + inside.max()), abs=1e-4)
    assert mover_share(5.0, 2.0, 9.0, 0.0, 0.0, 0.0) == (1.0, 1.0)  # no TP outside for sure: recall 1
    assert mover_share(0.0, 0.0, 0.0, 5.0, 2.0, 9.0) == (0.0, 0.0)


def test_recall_is_exact_where_every_cell_is_known_and_covers_elsewhere():
    c = _set(n=50, seed=8)
    design = StratifiedDesign.of(["A"], (20,), (20, 30), seed=0)  # both bands whole: everything known
    part, _ = _drawn(c, design)
    table = stratified_recall(rank(part, "A", ties="stable"), [5, 20, 50], bands=Strata.of(design, part).bands.band)
    full = rank(c, "A", ties="stable")
    assert (table["regime"] == "exact").all()
    assert np.allclose(table["estimate"], full.tp[[5, 20, 50]] / full.tp[-1])
    assert np.allclose(table["lower"], table["estimate"]) and np.allclose(table["upper"], table["estimate"])


def test_a_band_with_nothing_annotated_leaves_the_lists_that_reach_it_unestimated():
    c = _set(n=40, seed=2)
    band = np.where(rank(c, "A", ties="stable").ranks <= 10, 0, 1)
    idx = np.flatnonzero(band == 0)[:6]
    part = c.with_annotations(idx, c.labels[idx])
    table = stratified_precision(rank(part, "A", ties="stable"), [5, 10, 11, 40], bands=band, n_bands=2)
    assert table["regime"].tolist() == ["estimated", "estimated", "uncovered", "uncovered"]
    assert table["in_frame"].tolist() == [True, True, False, False]
    assert table["estimate"].isna().tolist() == [False, False, True, True]
    base = stratified_baseline(rank(part, "A", ties="stable"), bands=band, n_bands=2)
    assert np.isnan(base.estimate)


def test_a_part_of_a_band_with_nothing_annotated_takes_the_bands_ratio():
    c = _set(n=60, seed=6)
    design = StratifiedDesign.of(["A"], (30,), (3, 10), seed=4)
    part, idx = _drawn(c, design)
    strata = Strata.of(design, part)
    r = rank(part, "C", ties="stable")  # C knows nothing of A's bands: its lists cut band 1 (3 of 30 annotated)
    table = strata.precision(r, min_annotated=0)
    assert "band ratio" in set(table["regime"])
    row = table[table["regime"] == "band ratio"].iloc[0]
    order = rank(c, "C", ties="stable").order
    assert row["estimate"] == pytest.approx(float(_plain(order, c.labels, strata.bands.band, set(idx.tolist()),
                                                         int(row["n"]))) / row["n"])


def test_bad_bands_are_refused():
    c = _set(n=20)
    r = rank(c, "A", ties="stable")
    with pytest.raises(ParameterError, match="band"):
        stratified_precision(r, [5], bands=np.zeros(19, np.int64))
    with pytest.raises(ParameterError, match="band"):
        stratified_precision(r, [5], bands=np.full(20, 3), n_bands=2)
    with pytest.raises(ParameterError, match="0 <= k <= m <= N"):
        cell_totals([3], [4], [1], [5], [4], [1])


def test_the_compare_table_has_its_columns_and_the_pages_columns():
    c = _set(n=120, seed=3)
    design = StratifiedDesign.of(["A"], (20, 40), (12, 14, 20), seed=5)
    part, _ = _drawn(c, design)
    strata = Strata.of(design, part)
    a, b = rank(part, "A", ties="stable"), rank(part, "B", ties="stable")
    table = strata.with_difference(strata.compare(a, b, [10, 30, 60, 100]), 0.95, "agresti_caffo")
    from evalcore.pooling.stratified_estimators import STRATIFIED_COMPARE_COLUMNS
    assert list(table.columns[:len(STRATIFIED_COMPARE_COLUMNS)]) == list(STRATIFIED_COMPARE_COLUMNS)
    assert {"difference", "difference_low", "difference_high"} <= set(table.columns)
    ok = table["in_frame"] & (table["size_d"] > 0)
    assert (table.loc[ok, "difference_low"] <= table.loc[ok, "difference"] + 1e-12).all()
    assert (table.loc[ok, "p_value"].between(0, 1)).all()
    again = stratified_compare(a, b, [10, 30, 60, 100], bands=strata.bands.band, alternative="greater")
    assert np.allclose(again["statistic"], table["statistic"])
