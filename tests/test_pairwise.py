"""The Significance page's test and correction choice, and the pairwise view, on the paper's data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore import analysis
from evalcore.compare import compare_rankings
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.stats.multitest import adjust_pvalues
from evalcore.figures.pairwise import pvalue_heatmap
from evalcore.compare import pair_test
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    cs = load_candidates(krenn_tsv, label="is.colloc")
    return {m: rank(cs, m, ties="stable") for m in ("log.like", "t.score", "chisq", "freq")}


def test_pair_comparison_counts_every_test_and_correction(krenn):
    result = analysis.pair_comparison(krenn["log.like"], krenn["chisq"], (100, 2000), test="mcnemar",
                                      correction="holm")
    sizes = np.arange(100, 2001)
    for test in ("fisher", "mcnemar", "chi2"):
        p = pair_test(krenn["log.like"], krenn["chisq"], sizes, test)["p_value"].to_numpy()
        for correction in ("none", "holm", "bh"):
            assert result.counts.loc[test, correction] == int((adjust_pvalues(p, correction) < 0.05).sum())
    # Evert (2004) §3.3: Fisher on D1/D2 finds G2 and X2 different at every n up to 1,268 (1,250 on his grid);
    # treating the lists as independent samples (Krenn 2000) finds far fewer
    fisher = analysis.pair_comparison(krenn["log.like"], krenn["chisq"], (100, 2000))
    assert fisher.up_to == 1268 and fisher.test == "fisher"
    assert fisher.counts.loc["chi2", "none"] < fisher.counts.loc["fisher", "none"]
    # the chosen test's markers are its adjusted p-values
    assert result.n_significant == result.counts.loc["mcnemar", "holm"]
    assert (result.comparison["p_adjusted"] >= result.comparison["p_value"]).all()


def test_pairwise_matrix_holds_each_pairs_fisher_test(krenn):
    result = analysis.pairwise(krenn, 1000, correction="bh")
    assert len(result.pairs) == 6
    for row in result.pairs.itertuples():
        p = compare_rankings(krenn[row.a], krenn[row.b], [1000])["p_value"].iloc[0]
        assert row.p_value == p
        assert result.matrix.loc[row.a, row.b] == result.matrix.loc[row.b, row.a] == row.p_adjusted
    np.testing.assert_array_equal(result.pairs["p_adjusted"], adjust_pvalues(result.pairs["p_value"], "bh"))
    assert np.isnan(np.diag(result.matrix.to_numpy())).all()
    assert list(result.precision["measure"]) == list(krenn)
    assert result.precision.set_index("measure").loc["log.like", "tp"] == krenn["log.like"].tp[1000]


def test_pvalue_heatmap_through_its_data():
    m = pd.DataFrame([[np.nan, 0.01, 0.5], [0.01, np.nan, 1e-12], [0.5, 1e-12, np.nan]], index=list("abc"),
                     columns=list("abc"))
    fig = pvalue_heatmap(m, alpha=0.05, n=500)
    heat = fig.data[0]
    # cells and hovers write p as every table does (evalcore.format.p_value, issue 10)
    assert heat.text[0][1] == "0.01 *" and heat.text[0][2] == "0.5" and heat.text[1][2] == "1.0e-12 *"
    assert heat.text[0][0] == ""
    assert heat.customdata[1][2] == "p = 1.0e-12" and "%{customdata}" in heat.hovertemplate
    np.testing.assert_allclose(np.asarray(heat.z, dtype=float)[0, 1], 2.0)
    assert np.asarray(heat.z, dtype=float)[1, 2] == 10.0  # capped
    assert "n = 500" in fig.layout.xaxis.title.text
    with pytest.raises(ParameterError, match="alpha"):
        pvalue_heatmap(m, alpha=1.5, n=500)


def test_unknown_correction_names_the_choices(krenn):
    with pytest.raises(ParameterError, match="none, holm, bh"):
        analysis.pairwise(krenn, 100, correction="bonferroni")
