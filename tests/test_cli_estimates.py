"""The command line's --annotated-sample mode for curves and compare, on Krenn's data with 90% of the labels hidden."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.estimates import compare_estimates, draw_sample, precision_estimates, top_k_frame
from evalcore.io import load_candidates
from evalcore.ranking import rank


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


def _hide(krenn_tsv, tmp_path, idx) -> str:
    table = pd.read_csv(krenn_tsv, sep="\t")
    label = pd.Series([""] * len(table), dtype=object)
    label[idx] = np.where(table["is.colloc"].to_numpy()[idx], "TRUE", "FALSE")
    table["is.colloc"] = label
    path = tmp_path / "krenn_sample.tsv"
    table.to_csv(path, sep="\t", index=False)
    return path


def test_curves_and_compare_from_a_10_percent_sample(krenn, krenn_tsv, tmp_path):
    idx = draw_sample(krenn.n_candidates, 510, seed=1)
    path = _hide(krenn_tsv, tmp_path, idx)
    part = krenn.with_annotations(idx, krenn.labels[idx])
    code, out, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                         "--n", "100:2000:100", "--ties", "stable")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    want = precision_estimates(rank(part, "log.like", ties="stable"), np.arange(100, 2001, 100))
    assert got[["n", "m", "k"]].to_numpy().tolist() == want[["n", "m", "k"]].to_numpy().tolist()
    np.testing.assert_allclose(got["lower"], want["lower"])
    assert "510 of 5,102 candidates annotated (53 TPs)" in err and "simple random sample of the whole" in err
    assert "baseline estimated from the sample: 53/510" in err

    code, out, err = run("compare", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                         "--measure", "chisq", "--n", "100:2000:100", "--ties", "stable",
                         "--sample-interval", "clopper_pearson")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    want = compare_estimates(rank(part, "log.like", ties="stable"), rank(part, "chisq", ties="stable"),
                             np.arange(100, 2001, 100))
    assert got[["m_d1", "k_d1", "m_d2", "k_d2"]].to_numpy().tolist() == \
        want[["m_d1", "k_d1", "m_d2", "k_d2"]].to_numpy().tolist()
    np.testing.assert_allclose(got["p_value"], want["p_value"])
    assert "annotated candidates of D1 and D2" in err


def test_a_sample_of_the_top_k_is_estimated_inside_its_frame_only(krenn, krenn_tsv, tmp_path):
    frame = top_k_frame([rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")], 800)
    path = _hide(krenn_tsv, tmp_path, draw_sample(frame, 150, seed=3))
    code, out, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                         "--measure", "chisq", "--sample-frame", "log.like,chisq:800", "--n", "700,800,900",
                         "--ties", "stable")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert got.loc[got["n"] <= 800, "in_frame"].all()
    assert got.loc[~got["in_frame"], "estimate"].isna().all() and not got["in_frame"].all()
    assert "union of the top 800 candidates of log.like, chisq" in err
    code, _, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--measure", "log.like",
                       "--sample-frame", "log.like:100", "--ties", "stable")
    assert code == 2 and "outside the sampling frame" in err


@pytest.mark.parametrize("argv, message", [
    (["curves", "--kind", "roc"], "not available with --annotated-sample"),
    (["compare", "--measure", "log.like", "--measure", "chisq", "--test", "mcnemar"], "not available"),
    (["curves", "--sample-frame", "nope:10"], "--sample-frame"),
    (["curves", "--sample-frame", "log.like:x"], "--sample-frame"),
])
def test_bad_sample_options_stop_with_a_message(krenn, krenn_tsv, tmp_path, argv, message):
    path = _hide(krenn_tsv, tmp_path, draw_sample(krenn.n_candidates, 100, seed=2))
    code, _, err = run(argv[0], path, "--label", "is.colloc", "--annotated-sample", "--ties", "stable", *argv[1:])
    assert code == 2 and message in err


def test_without_the_mode_empty_labels_still_stop(krenn, krenn_tsv, tmp_path):
    path = _hide(krenn_tsv, tmp_path, draw_sample(krenn.n_candidates, 100, seed=2))
    code, _, err = run("curves", path, "--label", "is.colloc", "--ties", "stable")
    assert code == 2 and "is empty in 5002 row(s)" in err


def test_the_mode_and_excluding_unlabelled_rows_are_not_combined(krenn, krenn_tsv, tmp_path):
    path = _hide(krenn_tsv, tmp_path, draw_sample(krenn.n_candidates, 100, seed=2))
    code, _, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--exclude-unlabelled")
    assert code == 2 and "choose one" in err
    code, out, err = run("curves", path, "--label", "is.colloc", "--exclude-unlabelled", "--measure", "log.like",
                         "--n", "10", "--ties", "stable")  # still: the 100 annotated rows only, full-data curves
    assert code == 0 and "left out 5002 rows with an empty label" in err
    assert pd.read_csv(io.StringIO(out))["n"].tolist() == [10]


def test_nothing_annotated_says_how_to_annotate_a_sample(krenn_tsv, tmp_path):
    table = pd.read_csv(krenn_tsv, sep="\t")
    table["is.colloc"] = ""
    path = tmp_path / "unannotated.tsv"
    table.to_csv(path, sep="\t", index=False)
    code, _, err = run("curves", path, "--label", "is.colloc", "--annotated-sample", "--ties", "stable")
    assert code == 2 and "label column 'is.colloc' is empty in every row: nothing is annotated yet" in err
    assert "Annotate page" in err and "--annotated-sample" in err
    code, _, err = run("curves", path, "--label", "is.colloc", "--ties", "stable")
    assert code == 2 and "--exclude-unlabelled" in err and "--annotated-sample" in err
