"""The sidebar's Report (ZIP) for a pooled design (issue 22, under AppTest): with a pool + sample design annotated
whole, the sidebar offers the report, its signature names the pool and m, and the ZIP it builds holds the design
(methods text, data.json) and the pooled estimates the pages show: inside the pool the full data's exact precision.
"""

from __future__ import annotations

import functools
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.annotations import AnnotationStore
from evalcore.estimates import SamplingFrame
from evalcore.io import load_annotated_sample
from evalcore.io.store import DatasetStore
from evalcore.pooling import Design, Strata, draw_design
from evalcore.ranking import rank
from evalcore.report.signature import parse_signature
from evalcore_app import annotate

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SIM = REPO / "sample_data" / "collocations_sim.tsv"
POOL = ("log_like", "t_score")

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def test_the_sidebar_report_of_a_pooled_design(monkeypatch):
    table = pd.read_csv(SIM, sep="\t")
    hidden = table["is_tp"].to_numpy(bool)
    table["is_tp"] = ""
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "unlabelled.tsv")
    base = load_annotated_sample(table, label="is_tp", name="unlabelled.tsv").candidates
    design = Design("pool+sample", SamplingFrame(POOL, 40, ties="stable"), size=30, seed=7)
    pool = design.pool_mask(base)
    order = draw_design(design, base)
    store, db, name = AnnotationStore(), annotate.db_id(dataset), annotate.pooled_name(7, design)
    store.create_sample(db, name, order, seed=7, frame=design.frame, design=design.record(int(pool.sum())))
    for position, c in enumerate(order):  # the pool and the sample of the rest, annotated
        store.mark(db, name, position, int(c), "ann", "TP" if hidden[c] else "FP")

    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"dataset": dataset, "ann": name, "ties": "stable", "m": ["log_like", "MI"], "a": "MI",
                       "b": "log_like", "n_min": "10", "n_max": "300"}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/precision.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Report (ZIP)" in {b.proto.label for b in at.get("download_button")}
    (text,) = [t.value for t in at.sidebar.text]
    signature = parse_signature(text)
    assert signature.get("pool") == "log_like,t_score:40" and signature.get("pool-sample") == "30"
    assert signature.get("sample-seed") == "7" and signature.get("annotations").startswith(name)

    from evalcore.report import build_report
    from evalcore_app import report, sample

    v = at.session_state["view"]
    candidates, numbers = report.sample_results(v, sample.labels_key(v))
    sha = report.data_sha256(dataset)
    monkeypatch.setattr(report, "build_report", functools.partial(build_report, figures=False))
    archive = zipfile.ZipFile(io.BytesIO(report._zip(v.data, numbers.settings, v.ranking, {}, sha, "link", v)))
    # the sidebar names the settings; the report's signature adds the digest of its numbers, computed for the ZIP
    assert str(parse_signature(archive.read("signature.txt").decode()).with_numbers(None)) == text
    methods = archive.read("methods.md").decode()
    assert f"(the pool, depth K = 40, {int(pool.sum())} candidates) was annotated whole" in methods
    assert "[@yilmaz2006; @aslam2006]" in methods
    data = json.loads(archive.read("data.json"))
    assert data["numbers"]["data"]["design"] == {"kind": "pool+sample", "measures": list(POOL), "depth": 40,
                                                 "pool_size": int(pool.sum()), "sample_size": 30, "seed": 7}
    # the pages' pooled estimates; inside the pool the full data's precision
    strata = Strata.of(design, candidates)
    for row in numbers.precision.itertuples():
        want = strata.precision(rank(candidates, row.measure, ties="stable"), [row.n]).iloc[0]
        assert (row.m, row.k, row.regime) == (want["m"], want["k"], want["regime"])
        np.testing.assert_array_equal([row.estimate, row.lower, row.upper],
                                      [want["estimate"], want["lower"], want["upper"]])
        if row.measure in POOL and row.n <= 40:
            top = rank(base.with_annotations(np.arange(base.n_candidates), hidden), row.measure, ties="stable")
            assert row.regime == "exact" and row.estimate == row.lower == top.tp[row.n] / row.n
    assert (numbers.precision["regime"] == "exact").any()
