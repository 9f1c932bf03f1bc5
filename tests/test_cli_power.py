"""The command line's effect sizes (compare), minimum detectable difference (compare --mdd) and planner (power)."""

from __future__ import annotations

import io
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.compare import compare_rankings
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.stats.effect import effect_sizes
from evalcore.stats.power import (detectable_differences, exact_power, paired_t_power, paired_t_samples,
                                  plan_experiment)


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def krenn_compare(krenn_tsv):
    code, out, err = run("compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                         "--ties", "stable", "--n", "100,500,1000,1268,2000", "--mdd")
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def test_compare_has_effect_sizes_and_mdd(krenn_compare, krenn_tsv):
    cs = load_candidates(krenn_tsv, label="is.colloc")
    table = compare_rankings(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"),
                             [100, 500, 1000, 1268, 2000])
    effects = effect_sizes(table)
    for column in ("diff", "diff_low", "diff_high", "odds_ratio", "or_low", "or_high"):
        np.testing.assert_allclose(krenn_compare[column], effects[column], rtol=1e-12)
    mdd = detectable_differences(table)
    np.testing.assert_allclose(krenn_compare["mdd"], mdd["mdd"], rtol=1e-12)
    assert list(krenn_compare.columns)[-2:] == ["mdd_pi", "mdd"]
    # at n = 2,000 (not significant) the difference is far below what the test would find
    last = krenn_compare.iloc[-1]
    assert not last["significant"] and abs(last["diff"]) < last["mdd"]


def test_compare_agresti_caffo_and_one_sided(krenn_tsv):
    code, out, _ = run("compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                       "--ties", "stable", "--n", "100", "--alternative", "greater",
                       "--difference-interval", "agresti_caffo")
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert code == 0 and row["or_high"] == math.inf and row["diff_high"] == pytest.approx(68 / 100)
    assert row["diff_low"] > 0 and row["or_low"] > 1


def test_power_plans_an_experiment():
    code, out, err = run("power", "--precision-a", "0.30", "--precision-b", "0.25", "--overlap", "0.8")
    assert code == 0, err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    plan = plan_experiment(0.30, 0.25, 0.8)
    assert (row["n"], row["size"], row["candidates"]) == (plan.n, plan.size, plan.candidates)
    assert row["power"] >= 0.8 and "annotate" in err


def test_power_at_given_n():
    code, out, _ = run("power", "--precision-a", "0.30", "--precision-b", "0.25", "--overlap", "0.8",
                       "--n", "100,1000", "--test", "mcnemar", "--confidence-level", "0.99")
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and table["size"].tolist() == [20, 200]
    assert table["power"].iloc[1] == pytest.approx(exact_power(0.4, 0.15, 200, 0.01, "mcnemar"))


def test_power_for_samples_is_r_power_t_test():
    code, out, _ = run("power", "--delta", "1", "--sd", "2")
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert code == 0 and row["samples"] == 34  # R: power.t.test(delta = 1, sd = 2, power = 0.8, type = "paired"): 33.37
    assert row["samples_exact"] == pytest.approx(paired_t_samples(1, 2))
    code, out, _ = run("power", "--delta", "1", "--sd", "2", "--n", "20")
    assert pd.read_csv(io.StringIO(out))["power"].iloc[0] == pytest.approx(paired_t_power(20, 1, 2))


@pytest.mark.parametrize("argv, message", [
    (["power", "--precision-a", "0.3"], "power needs --precision-a, --precision-b and --overlap"),
    (["power", "--precision-a", "0.3", "--delta", "1", "--sd", "1"], "not both"),
    (["power", "--precision-a", "0.3", "--precision-b", "0.3", "--overlap", "0.5"], "equal"),
    (["power", "--precision-a", "0.3", "--precision-b", "0.2", "--overlap", "0.5", "--n", "a,b"], "whole numbers"),
    (["power", "--delta", "1", "--sd", "2", "--power", "1.5"], "`power` must be in (0, 1)"),
])
def test_power_errors_are_one_line(argv, message):
    code, out, err = run(*argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
