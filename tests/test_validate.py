"""Validation of the binomial model over samples (Evert 2004, §4, Figure 4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.errors import ColumnError
from evalcore.stats.intervals import binomial_interval
from evalcore.io import load_candidates
from evalcore.samples import Cut, gamma_for_mean_size
from evalcore.simulate import simulate
from evalcore.validate import ppoints, validate, validation_from_table


def table_of(tp, size, level=0.95):
    tp, size = np.asarray(tp), np.asarray(size)
    ci = binomial_interval(tp, size, level)
    return pd.DataFrame({"sample": [f"s{i}" for i in range(tp.size)], "N": 1000, "TPs": 100, "size": size,
                         "tp": tp, "precision": tp / size, "recall": tp / 100, "lower": ci.low, "upper": ci.high})


def test_ppoints_as_r():
    # R 4.2.2: print(ppoints(5), digits=17)
    # [1] 0.11904761904761904 0.30952380952380953 0.50000000000000000 0.69047619047619047 0.88095238095238093
    np.testing.assert_allclose(ppoints(5), [0.11904761904761904, 0.30952380952380953, 0.5, 0.69047619047619047,
                                            0.88095238095238093], rtol=1e-15)
    # ppoints(12)[c(1, 12)]: 0.041666666666666664 0.958333333333333370 (a = 1/2 above 10 points)
    np.testing.assert_allclose(ppoints(12)[[0, 11]], [0.041666666666666664, 0.95833333333333337], rtol=1e-15)


def test_numbers_by_hand():
    tp = np.array([12, 8, 15, 11, 9, 13, 10, 14])
    size = np.array([100, 100, 100, 100, 100, 100, 100, 100])
    v = validation_from_table(table_of(tp, size), "g", Cut("gamma", 1.0), 0.95)
    p = tp / size
    assert v.k == 8 and v.empty == 0
    assert v.mean_precision == pytest.approx(p.mean(), rel=1e-15)  # 0.115
    assert v.mean_size == 100
    assert v.sd_predicted == pytest.approx(np.sqrt(0.115 * 0.885 / 100), rel=1e-15)
    assert v.sd_observed == pytest.approx(np.std(p, ddof=1), rel=1e-15)
    assert v.sd_ratio == pytest.approx(np.std(p, ddof=1) / np.sqrt(0.115 * 0.885 / 100), rel=1e-14)
    # every interval of 8 to 15 TPs in 100 contains 0.115
    assert v.misses == 0 and v.expected_misses == pytest.approx(0.4)
    assert v.table["covers"].all()
    np.testing.assert_allclose(v.qq["observed"], np.sort(p))
    assert list(v.qq["sample"][:2]) == ["s1", "s4"]  # 8% then 9%
    # R 4.2.2: ks.test(c(0.12,0.08,0.15,0.11,0.09,0.13,0.10,0.14), "pnorm", 0.115, 0.03)$p.value
    # is 0.99844861315703137 for sd 0.03; here sd is sqrt(0.115*0.885/100), checked against scipy's exact
    # one-sample distribution (no ties, n < 100: R's exact branch)
    from scipy import stats
    exact = stats.kstest(p, "norm", args=(p.mean(), v.sd_predicted), method="exact")
    assert v.ks.statistic == pytest.approx(exact.statistic, rel=1e-12)
    assert v.ks.p_value == pytest.approx(exact.pvalue, rel=1e-10)


def test_coverage_count_and_the_papers_binomial_test():
    # Evert (2004, §4): t-score's 95% interval missed pi in 12 of 80 samples, "significantly more than can
    # be explained by chance (p < .001, binomial test)". R 4.2.2: binom.test(12, 80, 0.05)$p.value
    # = 0.00061362249170136482.
    size = np.full(80, 100)
    tp = np.full(80, 11)
    tp[:6], tp[6:12] = 1, 25  # 12 samples far from the mean of about 11.5%
    v = validation_from_table(table_of(tp, size), "t", Cut("gamma", 2.09), 0.95)
    manual = ~((v.table["lower"] <= v.mean_precision) & (v.mean_precision <= v.table["upper"]))
    assert v.misses == int(manual.sum()) == 12
    assert v.expected_misses == pytest.approx(4.0)
    assert v.coverage_test.p_value == pytest.approx(0.00061362249170136482, rel=1e-10)


def test_empty_samples_are_left_out_and_counted():
    t = table_of(np.array([5, 6, 7]), np.array([50, 60, 70]))
    t.loc[3] = ["s3", 1000, 100, 0, 0, np.nan, 0.0, np.nan, np.nan]
    v = validation_from_table(t, "g", Cut("gamma", 1.0), 0.95)
    assert v.k == 3 and v.empty == 1 and v.mean_size == 60
    assert pd.isna(v.table["covers"].iloc[3])
    with pytest.raises(ColumnError, match="only 1 sample"):
        validation_from_table(t.iloc[[0, 3]], "g", Cut("gamma", 1.0), 0.95)


def test_all_precisions_zero_is_reported_not_raised():
    v = validation_from_table(table_of(np.zeros(5, int), np.full(5, 10)), "g", Cut("n", 10), 0.95)
    assert v.sd_predicted == 0 and np.isnan(v.sd_ratio) and np.isnan(v.ks.p_value)
    assert "not defined" in v.ks.method


def test_binomial_model_holds_on_the_simulator_and_extra_variation_shows():
    # The simulator follows the model exactly when sample_sd = 0: SD ratio near 1, coverage near nominal.
    pure = simulate(k=400, n=1000, baseline=0.11, seed=11)
    data = pure.data
    c = load_candidates(data.to_csv(sep="\t", index=False).encode(), name="pure.tsv", label="is_tp",
                        sample="sample", keys=["candidate"])
    measure = c.measures[0]
    v = validate(c, measure, Cut("gamma", gamma_for_mean_size(c, measure, 100)))
    assert v.k == 400 and 95 <= v.mean_size <= 105
    assert 0.88 < v.sd_ratio < 1.12  # sd of a sample sd from 400 values is about 3.5%
    assert v.misses <= 400 * 0.05 + 3 * np.sqrt(400 * 0.05 * 0.95)
    # Between-sample variation of the TP rate (as in real data, Evert 2004 §4) inflates the SD ratio.
    extra = simulate(k=400, n=1000, baseline=0.11, sample_sd=0.5, seed=11).data
    c2 = load_candidates(extra.to_csv(sep="\t", index=False).encode(), name="extra.tsv", label="is_tp",
                         sample="sample", keys=["candidate"])
    v2 = validate(c2, measure, Cut("gamma", gamma_for_mean_size(c2, measure, 100)))
    assert v2.sd_ratio > 1.15 and v2.misses > v.misses


def test_n_cut_has_constant_size():
    data = simulate(k=30, n=500, seed=3).data
    c = load_candidates(data.to_csv(sep="\t", index=False).encode(), name="e.tsv", label="is_tp", sample="sample",
                        keys=["candidate"])
    v = validate(c, c.measures[0], Cut("n", 50), ties="stable")
    assert (v.table["size"] == 50).all() and v.mean_size == 50
    assert v.summary()["k"] == 30 and v.summary()["cut"] == "n"
