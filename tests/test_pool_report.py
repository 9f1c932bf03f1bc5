"""The report of a pooled design (issue 22, "the report works for pooled designs"): on Krenn's data with every label
hidden but a pool + sample design's, the report's numbers are the pages' pooled estimates (evalcore.pooling.Strata),
equal to the full annotation's exact values inside the pool; ``evalcore report --annotated-sample --pool ...
--pool-sample m`` writes the design into the signature, the methods text and data.json, and ``evalcore reproduce``
reproduces it (and a signature whose design is changed does not).
"""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore import names
from evalcore.cli import main
from evalcore.compare import compare_rankings
from evalcore.estimates import SamplingFrame
from evalcore.io import load_candidates
from evalcore.pooling import Design, Strata, deepest_pool, draw_design
from evalcore.pooling.design import DESIGN_KINDS
from evalcore.ranking import rank
from evalcore.report import ReportSettings, report_results
from evalcore.report.commands import load_report_candidates
from evalcore.report.settings import SampleDesign, settings_from_signature
from evalcore.report.signature import parse_signature

POOL = ("log.like", "t.score")
MEASURES = ("log.like", "t.score", "MI")
COLUMNS = ["PP", "verb", "is.colloc", *MEASURES]


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc", scores=list(MEASURES))


@pytest.fixture(scope="module")
def full(krenn):
    return {m: rank(krenn, m, ties="stable") for m in MEASURES}


@pytest.fixture(scope="module")
def design(full):
    k = deepest_pool([full[m] for m in POOL], 300)  # (228: the B = 500, about 300 of them in the pool)
    return Design("pool+sample", SamplingFrame(POOL, k, ties="stable"), size=201, seed=22)


@pytest.fixture(scope="module")
def hidden_tsv(krenn_tsv, krenn, design, tmp_path_factory):
    """Krenn's data (a temporary copy, outside the project) with the label of every candidate left empty but the
    design's: the pool and the sample of the rest."""
    table = pd.read_csv(krenn_tsv, sep="\t", usecols=COLUMNS)
    keep = np.zeros(len(table), dtype=bool)
    keep[draw_design(design, krenn)] = True
    table["is.colloc"] = np.where(keep, table["is.colloc"].astype(str), "")
    path = tmp_path_factory.mktemp("pool_report") / "krenn_hidden.tsv"
    table.to_csv(path, sep="\t", index=False)
    return path


def _settings(design: Design, kind: str | None = None) -> ReportSettings:
    kind = kind or design.kind
    return ReportSettings(MEASURES, "is.colloc", sizes=(50, design.depth, 500, 2000), n_range=(20, 1000),
                          ties="stable", correction="holm",
                          design=SampleDesign(frame=POOL, frame_k=design.depth, kind=kind, draw_seed=design.seed,
                                              pool_sample=design.size if kind == "pool+sample" else None))


def test_the_settings_name_the_core_designs():
    assert tuple(names.ANNOTATION_DESIGNS) == tuple(DESIGN_KINDS)


def test_a_pooled_report_holds_the_pages_estimates_exact_inside_the_pool(hidden_tsv, full, design):
    settings = _settings(design)
    candidates = load_report_candidates(str(hidden_tsv), settings)
    results = report_results(candidates, settings)
    rankings = {m: rank(candidates, m, ties="stable") for m in MEASURES}
    strata = Strata.of(design, candidates, rankings)
    assert results.strata.pool_size == strata.pool_size == 299 and candidates.n_annotated == 500
    sizes = np.array(settings.sizes)
    for m in MEASURES:  # the report's table is the pages' estimate (evalcore_app/sample.py: Sample.strata.precision)
        got = results.precision[results.precision["measure"] == m].reset_index(drop=True)
        want = strata.precision(rankings[m], sizes)
        for column in ("m", "k", "estimate", "lower", "upper", "pooled", "rest_m"):
            np.testing.assert_array_equal(got[column].to_numpy(), want[column].to_numpy(), err_msg=f"{m} {column}")
        assert list(got["regime"]) == list(want["regime"].astype(str))
    inside = results.precision[results.precision["measure"].isin(POOL) & (results.precision["n"] <= design.depth)]
    assert len(inside) == 4 and set(inside["regime"]) == {"exact"}
    for row in inside.itertuples():  # the full annotation's precision, as a point
        exact = full[row.measure].tp[row.n] / row.n
        assert row.estimate == row.lower == row.upper == exact
    # the pairs: the pages' pooled comparison (Significance page), Holm over the tested rows
    a, b = POOL
    got = results.pairs[(results.pairs["a"] == a) & (results.pairs["b"] == b)].reset_index(drop=True)
    want = strata.with_difference(strata.compare(rankings[a], rankings[b], sizes), 0.95, "newcombe")
    np.testing.assert_allclose(got["p_value"], want["p_value"], rtol=0, atol=0)
    np.testing.assert_allclose(got["difference_low"], want["difference_low"], rtol=0, atol=0)
    full_test = compare_rankings(full[a], full[b], sizes[:2])  # inside the pool: the full-data Fisher test
    np.testing.assert_allclose(got["p_value"][:2], full_test["p_value"], rtol=1e-12)
    assert list(got["regime"][:2]) == ["exact", "exact"]
    # Figure 3: every n of the range, corrected over the tested n
    comparison = strata.compare(rankings[a], rankings[b], np.arange(20, 1001))
    np.testing.assert_allclose(results.comparison["p_value"], comparison["p_value"], rtol=0, atol=0)
    assert results.n_figure_tests == int(comparison["enough"].sum())
    base = strata.baseline(rankings[MEASURES[0]])
    assert (results.sample.m, results.sample.k, results.sample.estimate) == (base.m, base.k, base.estimate)


def test_a_pool_design_reports_the_pool_only(hidden_tsv, full, design):
    settings = _settings(design, "pool")
    results = report_results(load_report_candidates(str(hidden_tsv), settings), settings)
    beyond = results.precision[results.precision["n"] > design.depth]
    assert not beyond[beyond["measure"].isin(POOL)]["in_frame"].any()
    assert results.sample.frame_size == 299  # the baseline is the pool's precision
    from evalcore.report.tables import precision_table

    assert "beyond the pool" in precision_table(results).markdown()


def _run(argv) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue() + err.getvalue()


def test_the_command_line_report_of_a_pool_and_sample_design_reproduces(hidden_tsv, design, tmp_path):
    out, sig = tmp_path / "report.zip", tmp_path / "signature.txt"
    pool = f"{','.join(POOL)}:{design.depth}"
    code, text = _run(["report", hidden_tsv, "--annotated-sample", "--pool", pool, "--pool-sample", design.size,
                       "--sample-seed", design.seed, "--label", "is.colloc", *sum((["--measure", m] for m in MEASURES),
                                                                                  []),
                       "--ties", "stable", "--n", "50,228,500", "--range", "20:600", "--no-figures", "--out", out,
                       "--signature", sig])
    assert code == 0, text
    signature = parse_signature(sig.read_text())
    assert signature.get("pool") == pool and signature.get("pool-sample") == str(design.size)
    assert "sample-frame" not in dict(signature.settings)
    settings = settings_from_signature(signature.settings)
    assert (settings.design.kind, settings.design.frame_k, settings.design.pool_sample) == ("pool+sample", 228, 201)
    archive = zipfile.ZipFile(out)
    methods = archive.read("methods.md").decode()
    assert "(the pool, depth K = 228, 299 candidates) was annotated whole" in methods
    assert "simple random sample with seed 22 of m = 201 of the other candidates (201 of them annotated)" in methods
    assert "[@yilmaz2006; @aslam2006]" in methods and "Yilmaz, E. and Aslam, J. A. (2006)" in methods
    assert "https://doi.org/10.1145/1183614.1183633" in methods
    assert "@inproceedings{aslam2006" in archive.read("references.bib").decode()
    data = json.loads(archive.read("data.json"))
    assert data["numbers"]["data"]["design"] == {"kind": "pool+sample", "measures": list(POOL), "depth": 228,
                                                 "pool_size": 299, "sample_size": 201, "seed": 22}
    assert data["settings"]["design"]["kind"] == "pool+sample" and data["settings"]["design"]["pool_sample"] == 201
    assert "exact (" in archive.read("tables/precision.md").decode()
    code, text = _run(["reproduce", str(signature), hidden_tsv])
    assert code == 0 and "reproduced" in text, text
    # the same labels read as a pool design (no sample of the rest): other numbers, so not reproduced
    changed = str(signature).replace(f"|pool-sample {design.size}", "").replace(f"pool-sample={design.size}|", "")
    assert changed != str(signature)
    code, text = _run(["reproduce", changed, hidden_tsv])
    assert code == 1 and "NOT reproduced" in text, text


def test_pool_options_are_checked(hidden_tsv):
    code, text = _run(["report", hidden_tsv, "--pool", "log.like:10", "--label", "is.colloc", "--no-figures"])
    assert code != 0 and "--pool describe(s) an annotated sample; add --annotated-sample" in text
    code, text = _run(["report", hidden_tsv, "--annotated-sample", "--pool", "log.like:10", "--sample-frame",
                       "log.like:10", "--label", "is.colloc", "--no-figures"])
    assert code != 0 and "--pool and --sample-frame describe two designs" in text
