"""The command line, run in-process through evalcore.cli.main and once as `python -m evalcore`."""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.errors import ParameterError
from evalcore.nspec import parse_n_spec


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def small_tsv(tmp_path):
    path = tmp_path / "small.tsv"
    path.write_text("key\tgold\tscore_a\tscore_b\tpval\n"
                    "w1\tTRUE\t5\t1\t0.01\nw2\tFALSE\t4\t2\t0.2\nw3\tTRUE\t3\t3\t0.03\n"
                    "w4\tFALSE\t2\t4\t0.5\nw5\tFALSE\t1\t5\t0.9\n")
    return path


def test_curves_writes_the_documented_columns(small_tsv):
    code, out, err = run("curves", small_tsv, "--label", "gold", "--ties", "stable", "--n", "1,5")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["measure", "n", "tp", "fp", "precision", "recall", "lower", "upper"]
    assert table["measure"].unique().tolist() == ["score_a", "score_b", "pval"]
    row = table[(table.measure == "score_a") & (table.n == 5)].iloc[0]
    assert (row.tp, row.precision) == (2, 0.4)


def test_lower_is_better_and_random_seed_is_reported(small_tsv, tmp_path):
    out_path = tmp_path / "c.csv"
    code, _, err = run("curves", small_tsv, "--label", "gold", "--measure", "pval", "--lower-is-better", "pval",
                       "--seed", "7", "--n", "2", "--out", out_path)
    assert code == 0 and "seed 7" in err
    # lower is better: the 2-best list is w1 (0.01, TP) and w3 (0.03, TP)
    assert pd.read_csv(out_path)["tp"].tolist() == [2]


def test_compare_writes_the_documented_columns(small_tsv):
    code, out, err = run("compare", small_tsv, "--label", "gold", "--measure", "score_a", "--measure", "score_b",
                         "--ties", "stable")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["n", "tp_a", "tp_b", "overlap", "tp_d1", "fp_d1", "tp_d2", "fp_d2", "p_value",
                                   "log10_p", "p_adjusted", "significant", "diff", "diff_low", "diff_high",
                                   "odds_ratio", "or_low", "or_high"]
    assert len(table) == 5 and "significant at" in err
    d = table["tp_d1"] + table["fp_d1"]  # |D1| = |D2| = n - |A ∩ B|
    assert (table["overlap"] == table["n"] - d).all() and (d == table["tp_d2"] + table["fp_d2"]).all()
    assert (table["p_adjusted"] == table["p_value"]).all()  # no correction by default, as the paper


def test_krenn_figure3_through_the_command_line(krenn_tsv, tmp_path):
    out_path = tmp_path / "g2_x2.csv"
    done = subprocess.run([sys.executable, "-m", "evalcore", "compare", str(krenn_tsv), "--label", "is.colloc",
                           "--measure", "log.like", "--measure", "chisq", "--ties", "stable",
                           "--n", "100:2000:50", "--out", str(out_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(out_path).set_index("n")
    assert table.loc[100:1250, "significant"].all() and not table.loc[1300:, "significant"].any()
    assert table.loc[1300, "p_value"] == pytest.approx(0.1995, abs=5e-5)
    assert "significant at 24 of 39 list sizes; at every tested n from 100 up to 1250" in done.stderr


def test_compare_says_not_significant_at_the_first_n(krenn_tsv):
    code, out, err = run("compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                         "--ties", "stable", "--n", "1300:1400:50")
    assert code == 0 and "significant at 0 of 3 list sizes; not significant at n = 1300, the first tested" in err
    assert "up to 0" not in err


@pytest.mark.parametrize("suffix, read", [(".parquet", pd.read_parquet), (".tsv", lambda p: pd.read_csv(p, sep="\t")),
                                          (".csv", pd.read_csv)])
def test_out_format_follows_the_extension_and_numbers_are_exact(krenn_tsv, tmp_path, suffix, read):
    from evalcore.compare import compare_rankings
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    out_path = tmp_path / f"table{suffix}"
    code, _, _ = run("compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                     "--ties", "stable", "--n", "all", "--out", out_path)
    assert code == 0
    if suffix == ".parquet":
        assert out_path.read_bytes()[:4] == b"PAR1"
    table = read(out_path)
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    core = compare_rankings(rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable"), None)
    assert len(table) == 5102
    for column in ("n", "overlap", "tp_d1", "fp_d2", "p_value", "log10_p"):  # every double read back bit for bit
        assert np.array_equal(table[column].to_numpy(), core[column].to_numpy()), column
    assert table["significant"].dtype == bool


def test_auc_says_which_bootstrap_seed_and_not_the_tie_seed(krenn_tsv):
    from evalcore.io import load_candidates
    from evalcore.ranking import data_seed, rank
    from evalcore.report.signature import file_sha256
    from evalcore.roc import roc_table

    argv = ["curves", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--kind", "auc", "--resamples", "200"]
    code, out, err = run(*argv)
    own = data_seed(file_sha256(krenn_tsv))  # the data's own seed, as the dashboard's ROC page uses (issue 30)
    assert code == 0 and f"200 bootstrap resamples with seed {own}" in err and "ties broken" not in err
    code, out5, err = run(*argv, "--seed", "5")
    assert code == 0 and "with seed 5" in err
    krenn = load_candidates(krenn_tsv, label="is.colloc", scores=["log.like"])
    rankings = {"log.like": rank(krenn, "log.like", ties="stable")}
    for text, seed in ((out, own), (out5, 5)):
        core = roc_table(rankings, resamples=200, seed=seed)
        assert pd.read_csv(io.StringIO(text))["ap_low"].tolist() == core["ap_low"].tolist()
    assert out5 != out


def test_auc_test_is_delongs_test_of_every_pair(krenn_tsv):
    from evalcore.io import load_candidates
    from evalcore.ranking import rank
    from evalcore.roc import delong_test

    code, out, err = run("auc-test", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure",
                         "chisq", "--measure", "t.score", "--correction", "holm")
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out))
    assert table[["measure_a", "measure_b"]].values.tolist() == [["log.like", "chisq"], ["log.like", "t.score"],
                                                                 ["chisq", "t.score"]]
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    z, p = delong_test(rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable"))
    assert table.loc[0, "z"] == z and table.loc[0, "p_value"] == p  # pROC-checked in tests/test_roc.py
    assert (table["p_adjusted"] >= table["p_value"]).all()


@pytest.mark.parametrize("test", ["mcnemar_decisions", "mcnemar_chi2", "chi2_yates"])
def test_the_other_tests_from_the_command_line(small_tsv, test):
    from evalcore.compare import pair_test
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    code, out, err = run("compare", small_tsv, "--label", "gold", "--measure", "score_a", "--measure", "score_b",
                         "--ties", "stable", "--test", test)
    assert code == 0, err
    cs = load_candidates(small_tsv, label="gold")
    core = pair_test(rank(cs, "score_a", ties="stable"), rank(cs, "score_b", ties="stable"), None, test)
    assert np.array_equal(pd.read_csv(io.StringIO(out))["p_value"].to_numpy(), core["p_value"].to_numpy())


def test_help_imports_no_numerical_module():
    code = ("import sys; from evalcore.cli import build_parser; build_parser().format_help(); "
            "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'numba', 'pyarrow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "evalcore", "compare", "--help"], capture_output=True, text=True)
    text = " ".join(done.stdout.split())  # argparse wraps the help
    assert done.returncode == 0 and "mcnemar_decisions" in text and "b = T_D1 + F_D2" in text


@pytest.mark.parametrize("argv, message", [
    (["compare", "{f}", "--label", "gold", "--measure", "score_a"], "compare needs exactly two measures"),
    (["curves", "{f}", "--label", "nope"], "nope"),
    (["curves", "{f}", "--label", "gold", "--n", "0:10:2"], "list size 0 is outside 1..5"),
    (["curves", "{f}", "--label", "gold", "--n", "10:x"], "is not understood"),
    (["curves", "{f}", "--label", "gold", "--confidence-level", "95"], "`confidence_level` must be in (0, 1)"),
    (["curves", "{d}/missing.tsv", "--label", "gold"], "missing.tsv"),
    (["accept", "{f}", "--label", "gold", "--gamma", "a,b"], "give numbers separated by commas"),
])
def test_errors_are_one_line_on_stderr_with_exit_code_2(small_tsv, argv, message):
    argv = [a.format(f=small_tsv, d=small_tsv.parent) for a in argv]
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("evalcore: error: ") and message in err and err.count("\n") == 1


def test_accept_and_summary(small_tsv):
    code, out, _ = run("accept", small_tsv, "--label", "gold", "--measure", "score_a", "--gamma", "3,10")
    table = pd.read_csv(io.StringIO(out))
    assert code == 0 and table["size"].tolist() == [3, 0] and table["tp"].tolist() == [2, 0]
    code, out, _ = run("summary", small_tsv, "--label", "gold")
    assert code == 0 and "baseline precision: 40.0000%" in out


@pytest.mark.parametrize("spec, expected", [("all", [1, 2, 3, 4, 5]), ("2,4,2", [2, 4]), ("1:5:2", [1, 3, 5]),
                                            ("2:4", [2, 3, 4])])
def test_n_spec(spec, expected):
    assert parse_n_spec(spec, 5).tolist() == expected


@pytest.mark.parametrize("spec", ["5:1:1", "1:5:0", "1:2:3:4", "x", "7"])
def test_bad_n_spec(spec):
    with pytest.raises(ParameterError, match="--n"):
        parse_n_spec(spec, 5)
