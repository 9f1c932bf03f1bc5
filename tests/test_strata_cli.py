"""The command line's stratified design (issue 33): --strata M:W1,W2,...,rest [--strata-sample ...] on curves and
compare, and strata-plan, on Krenn's data with every label hidden but the design's."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from evalcore.io import load_candidates
from evalcore.pooling import Strata, StratifiedDesign
from evalcore.ranking import rank
from test_cli_estimates import _hide, run

DESIGN = StratifiedDesign.of(["log.like"], (100, 400, 1500), (50, 75, 180, 195), seed=6)
STRATA = ("--annotated-sample", "--strata", "log.like:100,400,1500,rest", "--strata-sample", "50,75,180,195",
          "--ties", "stable")


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def drawn(krenn, krenn_tsv, tmp_path_factory):
    idx = DESIGN.draw(krenn)
    return idx, _hide(krenn_tsv, tmp_path_factory.mktemp("strata"), idx)


def test_curves_are_the_stratified_estimates(krenn, drawn):
    idx, path = drawn
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--measure", "MI",
                         "--n", "50,100,500,2000,5102", *STRATA)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    part = krenn.with_annotations(idx, krenn.labels[idx])
    strata = Strata.of(DESIGN, part)
    for measure in ("log.like", "MI"):
        want = strata.precision(rank(part, measure, ties="stable"), [50, 100, 500, 2000, 5102])
        mine = got[got["measure"] == measure]
        np.testing.assert_allclose(mine[["estimate", "lower", "upper", "effective"]],
                                   want[["estimate", "lower", "upper", "effective"]])
        assert mine["regime"].tolist() == want["regime"].astype(str).tolist()
    assert "stratified design: a stratified sample of 500 candidates in 4 bands of the rank of log.like" in err
    assert "annotated per band: 50 of 100, 75 of 400, 180 of 1,500, 195 of 3,102" in err
    assert "rows by regime" in err


def test_compare_is_the_design_based_test(krenn, drawn):
    idx, path = drawn
    code, out, err = run("compare", path, "--label", "is.colloc", "--measure", "log.like", "--measure", "t.score",
                         "--n", "100,500,1000", "--correction", "holm", *STRATA)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    part = krenn.with_annotations(idx, krenn.labels[idx])
    strata = Strata.of(DESIGN, part)
    a, b = (rank(part, m, ties="stable") for m in ("log.like", "t.score"))
    want = strata.with_difference(strata.compare(a, b, [100, 500, 1000]))
    np.testing.assert_allclose(got[["p_value", "statistic", "difference_low", "difference_high"]],
                               want[["p_value", "statistic", "difference_low", "difference_high"]])
    assert "the score test on the effective counts of D1 and D2, Rao & Scott 1992" in err
    assert "p_adjusted" in got.columns


def test_without_strata_sample_the_sizes_are_the_annotated_candidates_of_each_band(drawn):
    _, path = drawn
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--n", "100",
                         "--annotated-sample", "--strata", "log.like:100,400,1500,rest", "--ties", "stable")
    assert code == 0, err
    assert "(ranks 1-100: 50 of 100; ranks 101-500: 75 of 400;" in err


@pytest.mark.parametrize("extra, message", [
    (("--strata", "log.like:100,400,1500,rest", "--pool", "log.like:100"), "without --pool"),
    (("--strata", "nope:100,rest"), "nope is not among the measures"),
    (("--strata", "log.like:100,x"), "band widths"),
    (("--strata", "log.like:100,400,1500,rest", "--strata-sample", "50,75,180"), "one sample size per band"),
    (("--strata", "log.like:100,400,1500,rest", "--strata-sample", "101,75,180,195"), "holds 100 candidates"),
    (("--strata-sample", "1,2"), "needs --strata"),
    (("--strata", "log.like:100,rest", "--ties", "optimistic"), "use 'random', 'hash' or 'stable'"),
])
def test_bad_strata_options_are_one_clear_message(drawn, extra, message):
    _, path = drawn
    ties = () if "--ties" in extra else ("--ties", "stable")
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--n", "100",
                         "--annotated-sample", *ties, *extra)
    assert code != 0 and message in err, err
    assert "Traceback" not in err


def test_strata_plan_from_a_random_pilot(krenn, krenn_tsv, tmp_path):
    pilot = np.random.default_rng(0).permutation(krenn.n_candidates)[:100]
    path = _hide(krenn_tsv, tmp_path, pilot)
    code, out, err = run("strata-plan", path, "--label", "is.colloc", "--strata", "log.like:100,400,1500,rest",
                         "--budget", 500, "--n", "100,500,1000,2000,5000", "--target", "log.like", "--target",
                         "t.score", "--ties", "stable")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert got["sample_size"].sum() == 500 and got["candidates"].tolist() == [100, 400, 1500, 3102]
    assert (got["rate_from"] == "pilot").all()
    assert "pilot: 100 annotated candidates" in err and "--strata-sample" in err
    code, out, err = run("strata-plan", path, "--label", "is.colloc", "--strata", "log.like:100,400,1500,rest",
                         "--budget", 500, "--n", "100,5000", "--guess", "0.4,0.25,0.2,0.03", "--table", "--ties",
                         "stable")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert {"stratified_width", "random_width", "ratio", "wider", "may_be_wider"} <= set(table.columns)
    assert len(table) == 2
    code, out, err = run("strata-plan", path, "--label", "is.colloc", "--strata", "log.like:100,400,1500,rest",
                         "--budget", 500, "--n", "100", "--guess", "0.4,0.2", "--ties", "stable")
    assert code != 0 and "one TP rate in [0, 1] per band" in err
