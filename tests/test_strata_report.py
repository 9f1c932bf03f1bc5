"""The report of a stratified design (issue 33): on Krenn's data with every label hidden but the design's, the
report's numbers are the pages' stratified estimates (evalcore.pooling.Strata), the full annotation's where a band is
annotated whole; ``evalcore report --annotated-sample --strata ... --strata-sample ...`` writes the design into the
signature, the methods text (citing its interval and its test) and data.json, and ``evalcore reproduce`` reproduces
it (a signature with other bands does not)."""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.io import load_candidates
from evalcore.pooling import Strata, StratifiedDesign
from evalcore.ranking import rank
from evalcore.report import ReportSettings, report_results
from evalcore.report.commands import load_report_candidates
from evalcore.report.settings import SampleDesign, settings_from_signature
from evalcore.report.signature import parse_signature
from evalcore.report.tables import pairwise_table, precision_table

MEASURES = ("log.like", "t.score", "MI")
COLUMNS = ["PP", "verb", "is.colloc", *MEASURES]
DESIGN = StratifiedDesign.of(["log.like"], (100, 400, 1500), (100, 75, 130, 195), seed=33)  # band 1 whole


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc", scores=list(MEASURES))


@pytest.fixture(scope="module")
def hidden_tsv(krenn_tsv, krenn, tmp_path_factory):
    table = pd.read_csv(krenn_tsv, sep="\t", usecols=COLUMNS)
    keep = np.zeros(len(table), dtype=bool)
    keep[DESIGN.draw(krenn)] = True
    table["is.colloc"] = np.where(keep, table["is.colloc"].astype(str), "")
    path = tmp_path_factory.mktemp("strata_report") / "krenn_hidden.tsv"
    table.to_csv(path, sep="\t", index=False)
    return path


def _settings() -> ReportSettings:
    return ReportSettings(MEASURES, "is.colloc", sizes=(50, 100, 500, 2000), n_range=(20, 1000), ties="stable",
                          correction="holm", design=SampleDesign(frame=("log.like",), frame_k=2000, kind="stratified",
                                                                 bands=(100, 400, 1500),
                                                                 band_sizes=DESIGN.sizes, draw_seed=33))


def test_a_stratified_report_holds_the_pages_estimates(hidden_tsv, krenn):
    settings = _settings()
    candidates = load_report_candidates(str(hidden_tsv), settings)
    results = report_results(candidates, settings)
    rankings = {m: rank(candidates, m, ties="stable") for m in MEASURES}
    strata = Strata.of(DESIGN, candidates, rankings)
    assert results.strata.stratified and results.strata.bands.counts.tolist() == [100, 400, 1500, 3102]
    sizes = np.array(settings.sizes)
    for m in MEASURES:
        got = results.precision[results.precision["measure"] == m].reset_index(drop=True)
        want = strata.precision(rankings[m], sizes)
        for column in ("m", "k", "estimate", "lower", "upper"):
            np.testing.assert_array_equal(got[column].to_numpy(), want[column].to_numpy(), err_msg=f"{m} {column}")
    full = rank(krenn, "log.like", ties="stable")
    inside = results.precision[(results.precision["measure"] == "log.like") & (results.precision["n"] <= 100)]
    assert set(inside["regime"]) == {"exact"}
    for row in inside.itertuples():
        assert row.estimate == row.lower == row.upper == full.tp[row.n] / row.n
    a, b = MEASURES[:2]
    got = results.pairs[(results.pairs["a"] == a) & (results.pairs["b"] == b)].reset_index(drop=True)
    want = strata.with_difference(strata.compare(rankings[a], rankings[b], sizes), 0.95, "newcombe")
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=0, atol=0)
    comparison = strata.compare(rankings[a], rankings[b], np.arange(20, 1001))
    np.testing.assert_allclose(results.comparison["p_value"], comparison["p_value"], rtol=0, atol=0)
    assert "Korn-Graubard" in precision_table(results).markdown()
    assert "score test on the effective counts" in pairwise_table(results).markdown()


def _run(argv) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue() + err.getvalue()


def test_the_command_line_report_of_a_stratified_design_reproduces(hidden_tsv, tmp_path):
    out, sig = tmp_path / "report.zip", tmp_path / "signature.txt"
    code, text = _run(["report", hidden_tsv, "--annotated-sample", "--strata", "log.like:100,400,1500,rest",
                       "--strata-sample", "100,75,130,195", "--sample-seed", 33, "--label", "is.colloc",
                       *sum((["--measure", m] for m in MEASURES), []), "--ties", "stable", "--n", "50,100,500",
                       "--range", "20:600", "--no-figures", "--out", out, "--signature", sig])
    assert code == 0, text
    signature = parse_signature(sig.read_text())
    assert signature.get("strata") == "log.like:100,400,1500,rest"
    assert signature.get("strata-sample") == "100,75,130,195"
    settings = settings_from_signature(signature.settings)
    assert (settings.design.kind, settings.design.bands, settings.design.band_sizes) == (
        "stratified", (100, 400, 1500), (100, 75, 130, 195))
    archive = zipfile.ZipFile(out)
    methods = archive.read("methods.md").decode()
    assert "a stratified sample with seed 33, the candidates cut into 4 bands by the rank of log.like" in methods
    assert "100 of 100, 75 of 400, 130 of 1,500 and 195 of 3,102 drawn" in methods
    assert "Korn, E. L. and Graubard, B. I. (1998)" in methods and "Rao, J. N. K. and Scott, A. J. (1992)" in methods
    assert "the stratified estimator of a domain [@cochran1977]" in methods
    assert "Cochran, W. G. (1977). *Sampling Techniques*" in methods
    assert "Newcombe, R. G. (1998). Interval estimation for the difference between independent proportions" in methods
    assert "@article{raoscott1992" in archive.read("references.bib").decode()
    data = json.loads(archive.read("data.json"))
    assert data["numbers"]["data"]["design"] == {"kind": "stratified", "measures": ["log.like"],
                                                 "bands": [100, 400, 1500], "band_candidates": [100, 400, 1500, 3102],
                                                 "band_sizes": [100, 75, 130, 195], "seed": 33}
    code, text = _run(["reproduce", str(signature), hidden_tsv])
    assert code == 0 and "reproduced" in text, text
    changed = str(signature).replace("log.like:100,400,1500,rest", "log.like:100,400,1400,rest")
    assert changed != str(signature)
    code, text = _run(["reproduce", changed, hidden_tsv])
    assert code == 1 and "NOT reproduced" in text, text


def test_strata_options_on_a_report_are_checked(hidden_tsv):
    code, text = _run(["report", hidden_tsv, "--strata", "log.like:100,rest", "--label", "is.colloc",
                       "--no-figures"])
    assert code != 0 and "--strata describe(s) an annotated sample; add --annotated-sample" in text
    code, text = _run(["report", hidden_tsv, "--annotated-sample", "--strata", "log.like:100,rest", "--pool",
                       "log.like:10", "--label", "is.colloc", "--no-figures"])
    assert code != 0 and "without --pool" in text
    code, text = _run(["report", hidden_tsv, "--annotated-sample", "--strata", "log.like:100,rest",
                       "--strata-sample", "all,20", "--label", "is.colloc", "--no-figures"])
    assert code != 0 and "whole number" in text
