"""Pooled designs on the Annotate page and the estimate pages, under AppTest (issue 22): a pool + sample design is
drawn and stored with its design record in annotation order; until the pool is annotated whole the page shows its
progress and the Precision page no estimates; then the Precision page shows the pooled estimates, equal to the full
data's exact precision inside the pool; the planner proposes a design and 'Use this design' takes it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.annotations import AnnotationStore, annotated_candidate_set
from evalcore.estimates import SamplingFrame
from evalcore.io.store import DatasetStore
from evalcore.pooling import Design, draw_design, plan_pool, pooled_precision, rankings_for
from evalcore.ranking import rank
from evalcore_app import annotate, sample

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SIM = REPO / "sample_data" / "collocations_sim.tsv"
POOL = ("log_like", "t_score")
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
    """The app opened by a link on a page (as tests/app/test_annotate.py opens it)."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    return ok(at.run())


def texts(at: AppTest) -> str:
    return "\n".join([t.value for t in at.text] + [c.value for c in at.caption] + [i.value for i in at.info]
                     + [s.value for s in at.success])


def test_a_pool_and_sample_design_is_drawn_annotated_and_estimated(unlabelled):
    dataset, hidden = unlabelled
    params = {"dataset": dataset, "ann_design": "pool+sample", "ann_k": "40", "ann_m": list(POOL),
              "ann_size": "30", "ann_seed": "7", "ties": "stable"}
    at = app(params)
    at.text_input(key="w_annotator_name").set_value("ann")
    ok(at.run())
    assert "and a random sample of 30 of the other candidates" in texts(at).replace("simple random", "random")
    assert "Depth K" not in [m.label for m in at.metric]  # (no plan unless asked for)
    at.button(key="draw_sample").click()
    ok(at.run())
    view = at.session_state["view"]
    name = view.ann_sample
    db, store = annotate.db_id(dataset), AnnotationStore()
    info = store.sample(db, name)
    base = sample.annotated_sample(dataset, "is_tp", SCORES, ("w1", "w2"), ()).candidates
    design = Design("pool+sample", SamplingFrame(POOL, 40, ties="stable", seed=view.seed), size=30, seed=7)
    pool = design.pool_mask(base)
    assert info.design == {"kind": "pool+sample", "pool_size": int(pool.sum())}
    np.testing.assert_array_equal(info.candidates, draw_design(design, base))
    assert annotate.stored_design(info) == design
    assert f"0 of {int(pool.sum())} annotated" in at.get("progress")[0].proto.text

    # all of the pool but one: progress, and no pooled estimates
    order = info.candidates
    for position, c in enumerate(order[:int(pool.sum()) - 1]):
        store.mark(db, name, position, int(c), "ann", "TP" if hidden[c] else "FP")
    link = {k: at.query_params[k] for k in at.query_params}
    precision = app({**link, "m": "log_like", "n_min": "10", "n_max": "2000", "n": "30"}, "pages/precision.py")
    assert any("pool" in i.value and "1 to go" in i.value for i in precision.info)
    assert not precision.dataframe
    # the rest of the pool and the sample of the rest
    for position, c in enumerate(order[int(pool.sum()) - 1:], start=int(pool.sum()) - 1):
        store.mark(db, name, position, int(c), "ann", "TP" if hidden[c] else "FP")
    precision = app({**link, "m": ["log_like", "MI"], "n_min": "10", "n_max": "2000", "n": "30"}, "pages/precision.py")
    assert any("pooled design" in i.value for i in precision.info)
    shown = precision.dataframe[0].value.set_index("measure")
    labelled = annotated_candidate_set(base, store.table(db, name), "majority")
    for measure, display in (("log_like", "log_like"), ("MI", "MI")):
        want = pooled_precision(rank(labelled, measure, ties="stable", seed=view.seed), [30], pool=pool).iloc[0]
        got = shown.loc[display]
        assert (got["m"], got["k"], got["regime"]) == (want["m"], want["k"], want["regime"])
        np.testing.assert_allclose([got["estimate"], got["lower"], got["upper"]],
                                   [want["estimate"], want["lower"], want["upper"]], rtol=1e-12)
    # inside the pool: the full data's exact precision, zero width
    top = np.argsort(-base.scores["log_like"], kind="stable")[:30]
    assert shown.loc["log_like", "regime"] == "exact"
    assert shown.loc["log_like", "estimate"] == shown.loc["log_like", "lower"] == hidden[top].mean()
    annotate_page = app(link)
    assert "The pool is annotated whole" in texts(annotate_page)
    # the other estimate pages: the pooled comparison says each n's regime; the threshold's set is estimated
    significance = app({**link, "a": "log_like", "b": "t_score", "n_min": "10", "n_max": "200"},
                       "pages/significance.py")
    rows = significance.dataframe[-1].value
    inside = rows[rows["n"] <= 40]
    assert set(inside["regime"]) == {"exact"}
    assert set(rows[rows["n"] > 150]["regime"]) <= {"estimated", "uncovered"}  # (uncovered: no sampled candidate)
    a, b = (rank(labelled, m, ties="stable", seed=view.seed) for m in ("log_like", "t_score"))
    full = [rank(base.with_annotations(np.arange(base.n_candidates), hidden), m, ties="stable", seed=view.seed)
            for m in ("log_like", "t_score")]
    from evalcore.pooling import pooled_compare
    from evalcore import estimates
    got = pooled_compare(a, b, inside["n"].to_numpy(), pool=pool)
    want = estimates.compare_estimates(*full, inside["n"].to_numpy())
    np.testing.assert_allclose(inside["p_value"].to_numpy(float), want["p_value"].to_numpy(float), rtol=1e-9)
    np.testing.assert_allclose(got["p_value"].to_numpy(float), want["p_value"].to_numpy(float), rtol=1e-9)
    threshold = app({**link, "t_measure": "log_like", "t_mode": "n", "t_n": "30"}, "pages/threshold.py")
    assert any("pooled design" in i.value for i in threshold.info)
    assert [m.value for m in threshold.metric][:1] == ["30"]


def test_the_planner_proposes_a_design_and_the_page_takes_it(unlabelled):
    dataset, _ = unlabelled
    at = app({"dataset": dataset, "ann_design": "pool+sample", "ann_k": "40", "ann_m": list(POOL),
              "ties": "stable", "ann_budget": "300", "ann_plan_n": "100", "ann_guess": "0.15", "ann_plan": "1"})
    base = sample.annotated_sample(dataset, "is_tp", SCORES, ("w1", "w2"), ()).candidates
    view = at.session_state["view"]
    rankings = rankings_for(base, SamplingFrame(POOL, 1, ties="stable", seed=view.seed))
    plan = plan_pool(list(rankings.values()), rankings, 300, 100, guess=0.15)
    assert plan.describe() in texts(at)
    at.button(key="use_plan").click()
    ok(at.run())
    view = at.session_state["view"]
    want = "sample" if plan.depth == 0 else "pool" if plan.sample_size == 0 else "pool+sample"
    assert (view.ann_design, view.ann_k) == (want, plan.depth)
    if want == "pool+sample":
        assert view.ann_size == plan.sample_size
