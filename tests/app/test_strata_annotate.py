"""A stratified design on the Annotate page and the estimate pages, under AppTest (issue 33): rank bands and their
sizes are drawn and stored with the design record in annotation order; half annotated, the Precision, Significance
and Threshold pages show the stratified estimates (evalcore.pooling.Strata on the labels so far) and name the
design's test; the planner proposes sizes from guessed rates and 'Use this allocation' takes them; a link's
malformed sizes are corrected with a message.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.annotations import AnnotationStore, annotated_candidate_set
from evalcore.io.store import DatasetStore
from evalcore.pooling import Strata, StratifiedDesign
from evalcore.pooling.stratified_planning import plan_strata
from evalcore.ranking import rank
from evalcore_app import annotate, sample

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SIM = REPO / "sample_data" / "collocations_sim.tsv"
SCORES = ("freq", "log_like", "t_score", "chisq", "MI")

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture()
def unlabelled():
    table = pd.read_csv(SIM, sep="\t")
    hidden = table["is_tp"].to_numpy(bool)
    table["is_tp"] = ""
    return DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "unlabelled.tsv"), hidden


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def app(params: dict, page: str = "pages/annotate.py") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    return ok(at.run())


def texts(at: AppTest) -> str:
    """Every text element, Markdown's escapes taken out (the page escapes user and number text)."""
    return "\n".join([t.value for t in at.text] + [c.value for c in at.caption] + [i.value for i in at.info]
                     + [s.value for s in at.success] + [w.value for w in at.warning]).replace("\\", "")


def test_a_stratified_design_is_drawn_annotated_and_estimated(unlabelled):
    dataset, hidden = unlabelled
    params = {"dataset": dataset, "ann_design": "stratified", "ann_m": ["log_like"], "ann_bands": "50,200,rest",
              "ann_bsizes": "all,30,60", "ann_seed": "5", "ties": "stable"}
    at = app(params)
    at.text_input(key="w_annotator_name").set_value("ann")
    ok(at.run())
    assert "ranks 1-50: all 50 of 50; ranks 51-250: 30 of 200; ranks above 250: 60 of 6,098" in texts(at)
    at.button(key="draw_sample").click()
    ok(at.run())
    view = at.session_state["view"]
    name = view.ann_sample
    db, store = annotate.db_id(dataset), AnnotationStore()
    info = store.sample(db, name)
    base = sample.annotated_sample(dataset, "is_tp", SCORES, ("w1", "w2"), ()).candidates
    design = StratifiedDesign.of(["log_like"], (50, 200), (50, 30, 60), ties="stable", seed=5)
    assert info.design == {"kind": "stratified", "widths": [50, 200], "sizes": [50, 30, 60]}
    np.testing.assert_array_equal(info.candidates, design.draw(base))
    assert annotate.stored_design(info) == design
    assert "0 of the 140 annotated TP or FP" in at.get("progress")[0].proto.text

    order = info.candidates
    for position, c in enumerate(order[:70]):  # half of it, as any prefix: a random sample of each band
        store.mark(db, name, position, int(c), "ann", "TP" if hidden[c] else "FP")
    link = {k: at.query_params[k] for k in at.query_params}
    precision = app({**link, "m": ["log_like", "MI"], "n_min": "10", "n_max": "2000", "n": "300"},
                    "pages/precision.py")
    assert any("stratified design" in i.value for i in precision.info)
    shown = precision.dataframe[0].value.set_index("measure")
    labelled = annotated_candidate_set(base, store.table(db, name), "majority")
    strata = Strata.of(design, labelled)
    for measure in ("log_like", "MI"):
        want = strata.precision(rank(labelled, measure, ties="stable"), [300]).iloc[0]
        got = shown.loc[measure]
        assert (got["m"], got["k"], got["regime"]) == (want["m"], want["k"], want["regime"])
        np.testing.assert_allclose([got["estimate"], got["lower"], got["upper"]],
                                   [want["estimate"], want["lower"], want["upper"]], rtol=1e-12)
    significance = app({**link, "a": "log_like", "b": "t_score", "n_min": "10", "n_max": "300"},
                       "pages/significance.py")
    assert "score test" in texts(significance) and "no odds ratio" in texts(significance)
    rows = significance.dataframe[-1].value
    a, b = (rank(labelled, m, ties="stable") for m in ("log_like", "t_score"))
    want = strata.compare(a, b, rows["n"].to_numpy())
    np.testing.assert_allclose(rows["p_value"].to_numpy(float), want["p_value"].to_numpy(float), rtol=1e-12)
    threshold = app({**link, "t_measure": "log_like", "t_mode": "n", "t_n": "300"}, "pages/threshold.py")
    assert any("stratified design" in i.value for i in threshold.info)
    assert "Sample " + name in texts(app(link))


def test_the_planner_proposes_band_sizes_and_the_page_takes_them(unlabelled):
    dataset, _ = unlabelled
    at = app({"dataset": dataset, "ann_design": "stratified", "ann_m": ["log_like"], "ann_bands": "50,200,rest",
              "ties": "stable", "ann_budget": "200", "ann_plan_ns": "50,250,1000", "ann_bguess": "0.5,0.3,0.05",
              "ann_plan": "1", "m": ["log_like", "MI"]})
    assert "Give the sample size of each of the 3 bands" in texts(at)
    base = sample.annotated_sample(dataset, "is_tp", SCORES, ("w1", "w2"), ()).candidates
    r = {m: rank(base, m, ties="stable") for m in ("log_like", "MI")}
    plan = plan_strata([r["log_like"]], [r["log_like"], r["MI"]], (50, 200), 200, (50, 250, 1000),
                       guess=(0.5, 0.3, 0.05))
    assert plan.describe() in texts(at)
    at.button(key="use_strata_plan").click()
    ok(at.run())
    view = at.session_state["view"]
    assert view.ann_band_sizes == ",".join(map(str, plan.sizes)) and view.ann_design == "stratified"
    assert "Give the sample size" not in texts(at)


def test_a_links_malformed_band_sizes_are_corrected_with_a_message(unlabelled):
    dataset, _ = unlabelled
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"dataset": dataset, "ann_design": "stratified", "ann_m": ["log_like"],
                       "ann_bsizes": "<b>x</b>", "ann_bands": "50,rest"}.items():
        at.query_params[key] = value
    ok(at.run())  # (the first page shown says what the link could not give)
    assert any("band sizes" in w.value and "not numbers" in w.value for w in at.warning), [w.value for w in at.warning]
    assert at.session_state["view"].ann_band_sizes == ""
    at.switch_page("pages/annotate.py")
    assert "Give the sample size of each of the 2 bands" in texts(ok(at.run()))
