"""The command line's pooled designs (issue 22): --pool M1,M2:K [--pool-sample m] and pool-plan, on Krenn's data
with every label hidden but the design's."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from evalcore.compare import compare_rankings
from evalcore.estimates import SamplingFrame
from evalcore.io import load_candidates
from evalcore.pooling import Design, Strata, draw_design
from evalcore.ranking import rank
from test_cli_estimates import _hide, run

FRAME = SamplingFrame(("log.like", "t.score"), 120, ties="stable")


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def pooled(krenn, krenn_tsv, tmp_path_factory):
    design = Design("pool+sample", FRAME, size=150, seed=4)
    idx = draw_design(design, krenn)
    return design, idx, _hide(krenn_tsv, tmp_path_factory.mktemp("pool"), idx)


def test_curves_with_a_pool_and_its_sample(krenn, pooled):
    design, idx, path = pooled
    pool = ("--annotated-sample", "--pool", "log.like,t.score:120", "--pool-sample", 150, "--ties", "stable")
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--measure", "t.score",
                         "--n", "1:120:1", *pool)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    inside = got[got["measure"] == "log.like"]
    full = rank(krenn, "log.like", ties="stable")
    assert np.array_equal(inside["estimate"], full.tp[inside["n"]] / inside["n"])  # exact up to K
    assert (inside["lower"] == inside["upper"]).all() and (inside["regime"] == "exact").all()
    assert "the pool, the union of the top 120 candidates of log.like, t.score" in err
    assert "150 candidates annotated outside the pool" in err
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "MI", "--measure", "log.like",
                         "--measure", "t.score", "--n",
                         "500,3000", *pool)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    part = krenn.with_annotations(idx, krenn.labels[idx])
    want = Strata.of(design, part).precision(rank(part, "MI", ties="stable"), [500, 3000])
    np.testing.assert_allclose(got[got["measure"] == "MI"][["estimate", "lower", "upper"]],
                               want[["estimate", "lower", "upper"]])


def test_compare_inside_the_pool_is_the_full_data_test(krenn, pooled):
    _, _, path = pooled
    code, out, err = run("compare", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                         "--measure", "t.score", "--pool", "log.like,t.score:120", "--pool-sample", 150, "--n",
                         "1:120", "--ties", "stable", "--difference-interval", "agresti_caffo")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    want = compare_rankings(rank(krenn, "log.like", ties="stable"), rank(krenn, "t.score", ties="stable"),
                            np.arange(1, 121))
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=1e-12)
    assert (got["regime"] == "exact").all() and "on the full counts inside the pool, 120 n" in err
    assert {"difference", "difference_low", "difference_high", "effective_d1"} <= set(got.columns)


def test_a_pool_design_says_what_it_leaves_out(krenn, pooled):
    _, _, path = pooled
    code, out, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                         "--measure", "t.score", "--pool", "log.like,t.score:120", "--n", "100,121,2000", "--ties",
                         "stable")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert got[got["measure"] == "log.like"]["in_frame"].tolist() == [True, False, False]
    assert "150 annotated candidates outside the pool are not used" in err


@pytest.mark.parametrize("argv, message", [
    (["--pool", "log.like:99999"], "`k` must be in 1..5102"),
    (["--pool", "nosuch:10"], "nosuch is not among the measures"),
    (["--pool", "log.like"], "MEASURE[,MEASURE...]:K"),
    (["--pool-sample", "5"], "--pool-sample needs --pool"),
    (["--pool", "log.like:10", "--sample-frame", "log.like:10"], "give one"),
    (["--pool", "log.like,t.score:200", "--pool-sample", "150"], "to go"),
])
def test_bad_pool_options_stop_with_a_message(pooled, argv, message):
    _, _, path = pooled
    code, out, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--ties", "stable", "--n",
                         "100", *argv)
    assert code == 2 and message in err and out == ""


def test_pool_plan_from_the_pilot_and_from_a_guess(krenn_tsv, pooled):
    _, _, path = pooled
    code, out, err = run("pool-plan", path, "--label", "is.colloc", "--pool-measures", "log.like,t.score",
                         "--budget", 500, "--n", 100, "--ties", "stable")
    assert code == 0, err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert row["depth"] >= 100 and row["pool_size"] <= 500 and row["expected_width"] == 0 and row["rate_from"] == \
        "pilot"
    code, out, err = run("pool-plan", krenn_tsv, "--label", "is.colloc", "--pool-measures", "log.like,t.score",
                         "--budget", 500, "--n", 1000, "--ties", "stable", "--guess", 0.11, "--table")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert {"depth", "pool_size", "sample_size", "objective", "exact"} <= set(table.columns)
    assert "gives the narrowest intervals at n = 1,000" in err


def test_the_signature_carries_the_pooled_design_and_reproduces_it(pooled, tmp_path):
    _, _, path = pooled
    pool = ("--annotated-sample", "--pool", "log.like,t.score:120", "--pool-sample", 150, "--ties", "stable")
    sig = tmp_path / "sig.txt"
    code, out, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--measure", "t.score",
                         "--n", "100,500", *pool, "--signature", sig)
    assert code == 0, err
    line = sig.read_text().strip()
    assert "|pool log.like%2Ct.score:120|" in line and "|pool-sample 150|" in line  # (a comma in an item: %2C)
    code, out, err = run("reproduce", line, path)
    assert code == 0, err
    code, _, err = run("curves", path, "--label", "is.colloc", "--measure", "log.like", "--measure", "t.score",
                       "--n", "100,500", "--annotated-sample", "--pool", "log.like,t.score:120",
                       "--ties", "stable", "--signature", tmp_path / "other.txt")  # (the pool alone: another design)
    assert code == 0, err
    other = (tmp_path / "other.txt").read_text().strip()
    assert other != line and "pool-sample" not in other
