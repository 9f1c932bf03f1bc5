"""Evert (2004) on its own data: Krenn's 5,102 PP-verb candidates (../shared/data, read only).

Numbers cited: baseline 11.09% (§1); G2 and t best, t ahead around n = 800, G2 for n >= 1,500
(§1, Figure 1); G2 vs X2 significant for every n-best list up to n = 1,250 (§3.3, Figure 3, on a
grid of step 50; not from 1,300 on, p = 0.1995 at 1,300, per shared/data/README.md and issue 2);
with every n tested the last n of the unbroken significant run is 1,268 (issue 3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.compare import compare_rankings, significant_up_to
from evalcore.curves import precision_curve
from evalcore.io import load_candidates
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def g2_x2(krenn):
    return rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")


def test_baseline(krenn):
    assert (krenn.n_candidates, krenn.n_tp) == (5102, 566)
    assert round(100 * krenn.baseline, 2) == 11.09


def test_g2_and_t_are_best(krenn):
    sizes = [500, 800, 1000, 1500, 2000]
    p = {m: precision_curve(rank(krenn, m, ties="stable"), sizes, confidence_level=None)["precision"].to_numpy()
         for m in ("log.like", "t.score", "chisq", "freq")}
    best = np.maximum(p["log.like"], p["t.score"])
    assert np.all(best >= p["chisq"]) and np.all(best > p["freq"])
    assert p["t.score"][sizes.index(800)] > p["log.like"][sizes.index(800)]
    assert np.all(p["log.like"][3:] >= p["t.score"][3:])
    assert np.all(p["freq"] > krenn.baseline)  # far worse, yet above the baseline


def test_figure3_g2_vs_x2_on_the_papers_grid(g2_x2):
    result = compare_rankings(*g2_x2, np.arange(100, 2001, 50)).set_index("n")
    assert result.loc[100:1250, "significant"].all()
    assert not result.loc[1300:2000, "significant"].any()
    assert result.loc[1300, "p_value"] == pytest.approx(0.1995, abs=5e-5)
    assert tuple(result.loc[1300, ["tp_d1", "fp_d1", "tp_d2", "fp_d2"]]) == (36, 115, 26, 125)


def test_figure3_every_n_tested(g2_x2):
    result = compare_rankings(*g2_x2, np.arange(100, 2001))
    assert significant_up_to(result) == 1268
    assert result.set_index("n").loc[100:1268, "significant"].all()


def test_rda_from_the_corpora_package_gives_the_same_curves(krenn, krenn_rda):
    from_rda = load_candidates(krenn_rda, label="is.colloc")
    for measure in ("log.like", "chisq", "t.score", "freq"):
        pd.testing.assert_frame_equal(precision_curve(rank(from_rda, measure, ties="stable")),
                                      precision_curve(rank(krenn, measure, ties="stable")))
