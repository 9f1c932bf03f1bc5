"""Work that one link can start, on the pages (issue 19): the expensive Significance link ends at once with a
message that offers what fits; a link within the budget computes its result; a step between the tested n from a
link; the ROC page's bootstrap under the same budget; a data set a page uses survives six other uploads."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import analysis
from evalcore.io.store import DatasetStore
from evalcore.work import check_work, pair_estimate
from shown_charts import specs
from evalcore_app import jobs

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SAMPLE_LINK = {"dataset": "sample:collocations_sim", "ties": "stable", "a": "log_like", "b": "MI"}


def app(params, page, timeout=120):
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(elements) -> str:
    """The text of messages as a person reads it (Markdown escapes and word joiners taken out)."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in elements)).replace("\u2060", "")


def big_tsv(n: int, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.11
    table = pd.DataFrame({"gold": np.where(labels, "TP", "FP"),
                          "score_a": np.round(labels * 1.0 + rng.normal(size=n), 6),
                          "score_b": np.round(labels * 0.8 + rng.normal(size=n), 6)})
    return table.to_csv(sep="\t", index=False).encode()


@pytest.fixture(scope="module")
def big_data() -> bytes:
    return big_tsv(200_000)


def test_the_expensive_link_of_issue_19_ends_with_a_message(store_root, big_data, monkeypatch):
    """200,000 candidates, the bootstrap with 100,000 resamples at every n from 200 to 200,000 (hours on main):
    the page says what it would cost and what fits, within 90 s, computing nothing of it."""
    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    dataset = DatasetStore().put(big_data, "big.tsv")
    link = {"dataset": dataset, "label": "gold", "score": ["score_a", "score_b"], "a": "score_a", "b": "score_b",
            "ties": "stable", "seed": "1", "n_min": "200", "n_max": "200000", "test": "bootstrap",
            "resamples": "100000"}
    start = time.monotonic()
    at = app(link, "pages/significance.py", timeout=90)
    elapsed = time.monotonic() - start
    errors = shown(at.error)
    assert elapsed <= 90
    assert "This would take about 43 minutes of computing (the paired bootstrap with 100,000 resamples" in errors
    assert "What fits: 2,200 resamples" in errors and "(EVALCORE_WORK_BUDGET, set by whoever runs this server)" in errors
    assert not specs(at)  # nothing computed, nothing drawn
    assert at.session_state["view"].resamples == 100_000  # the link's choice is not changed silently
    assert [b.label for b in at.button] == ["Use 2,200 resamples"]
    assert jobs.waiting_sessions(("pair",)) == set()


def test_a_link_within_the_budget_computes_its_result(store_root):
    link = {**SAMPLE_LINK, "test": "bootstrap", "resamples": "300", "n_max": "1500"}
    at = app(link, "pages/significance.py")
    assert not at.error
    assert len(specs(at)) == 2  # Figure 3 and the difference panel
    assert "paired bootstrap over candidates" in " ".join(m.value for m in at.markdown)
    assert jobs._JOBS == {}  # the job ended with the run


def test_the_budget_from_the_environment_and_an_offer_that_fits(store_root, monkeypatch):
    """With a budget of 2 s, 20,000 resamples of the sample are refused; the offered number fits and computes."""
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "2")
    link = {**SAMPLE_LINK, "test": "randomization", "resamples": "100000", "n_max": "1500"}
    at = app(link, "pages/significance.py")
    message = shown(at.error)
    assert "more than the 2 seconds one request may use" in message and "What fits: " in message
    offer = at.button[0].label
    fits = int(offer.removeprefix("Use ").removesuffix(" resamples").replace(",", ""))
    at.query_params["resamples"] = str(fits)  # what the offer's button sets (AppTest does not click in this router)
    again = app({**link, "resamples": str(fits)}, "pages/significance.py")
    assert not again.error and len(specs(again)) == 2


def test_a_step_between_the_tested_n_from_a_link(store_root, monkeypatch):
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    link = {**SAMPLE_LINK, "n_step": "50", "n_max": "1500", "sig_n": "333"}
    at = app(link, "pages/significance.py")
    assert at.number_input(key="w_n_step").value == 50
    cs = load_candidates(REPO / "sample_data" / "collocations_sim.tsv")
    a, b = (rank(cs, m, ties="stable") for m in ("log_like", "MI"))
    expected = analysis.pair_comparison(a, b, (100, 1500), n_step=50)
    text = " ".join(m.value for m in at.markdown)
    assert f"**{expected.n_significant:,} of 29** n from 100 to 1,500" in text and "a step of 50" in text
    assert at.session_state["view"].look_n == 350  # 333 is not tested: the nearest tested n, said so
    assert any("333 for the 2x2 table is not among the tested n" in w.value for w in at.warning)


def test_the_roc_page_is_under_the_budget_too(store_root, monkeypatch):
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.5")
    at = app({**SAMPLE_LINK, "m": ["log_like", "MI", "t_score"], "resamples": "100000"}, "pages/roc.py")
    message = shown(at.error)
    assert "bootstrap of average precision with 100,000 resamples for 3 measures" in message
    assert not specs(at)


def test_a_page_keeps_its_data_while_six_others_upload(store_root, monkeypatch):
    """Issue 19: a data set a page uses was removed when six other people uploaded, and the next slider move said
    "removed from this server". The session pins it: six uploads evict others; a seventh that cannot fit is
    refused with a message."""
    mine = big_tsv(2_000, seed=1)
    quota = 4 * len(mine) + 2_000  # room for four such data sets
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", str(quota))
    store = DatasetStore()
    dataset = store.put(mine, "mine.tsv")
    link = {"dataset": dataset, "label": "gold", "score": ["score_a", "score_b"], "a": "score_a", "b": "score_b",
            "ties": "stable", "n_max": "1000"}
    at = app(link, "pages/significance.py")
    assert not at.error and dataset in store.pinned()
    others = [store.put(big_tsv(2_000, seed=10 + k), f"other{k}.tsv") for k in range(6)]
    assert store.exists(dataset) and store.usage().total_bytes <= quota
    assert sum(store.exists(o) for o in others) == 3
    at.query_params["n_max"] = "800"
    again = app({**link, "n_max": "800"}, "pages/significance.py")  # the page again, as a slider move reruns it
    assert not again.error, [e.value for e in again.error]
    for other in others[-3:]:
        store.pin(other, "someone-else")
    from evalcore.io.store import StoreFullError

    with pytest.raises(StoreFullError, match="open in someone's session"):
        store.put(big_tsv(2_000, seed=99), "seventh.tsv")
    assert store.exists(dataset)
    check_work(pair_estimate(2_000, (1, 1_000), "fisher"))  # (the page's own work was small)


def test_the_systems_resampling_is_bounded_by_the_work_budget(store_root, monkeypatch):
    """The Systems page (issue 20) under the same budget: a link asking 100,000 resamples of 1,000 items (3
    estimated seconds) past a 1-second budget is refused before anything resamples, offering the slider's largest
    choice that fits; taken, the comparison computes, and the test-set-size curves (17 times the work) are refused
    in turn with their own offer; taken, the whole page computes."""
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "1")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"item": [f"i{k}" for k in range(1_000)]})
    for name, rate in (("base", 0.6), ("new", 0.7)):
        total = rng.integers(5, 20, 1_000)
        frame[f"{name}.correct"], frame[f"{name}.total"] = rng.binomial(total, rate), total
    table = DatasetStore().put(frame.to_csv(index=False).encode(), "items.csv")
    at = app({"sys_mode": "table", "sys_table": table, "sys_metric": "accuracy", "sys_r": "100000"},
             "pages/systems.py")
    said = shown(at.error)
    assert "This would take about 3 seconds of computing (resampling 1,000 items 100,000 times for 2 systems)" in said
    assert "more than the 1 second one request may use on this server (EVALCORE_WORK_BUDGET" in said
    assert "it was not started. What fits: 20,000 resamples." in said  # (33,000 fit; the slider's choice below)
    assert not at.dataframe and [b.label for b in at.button] == ["Use 20,000 resamples"]
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["view"].sys_resamples == 20_000 and at.query_params["sys_r"] == "20000"
    assert at.dataframe[0].value["system"].tolist() == ["base", "new"]  # the comparison computed
    said = shown(at.error)
    assert "about 10 seconds of computing (resampling 1,000 items 20,000 times for 2 systems and the test-set-size " \
           "curves)" in said
    assert "What fits: 1,000 resamples." in said
    assert len(specs(at)) == 3  # scores, p-values and gains; not the test-set sizes
    at.button(key="offer_systems_curves_0").click().run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    assert at.session_state["view"].sys_resamples == 1_000
    assert len(specs(at)) == 4  # scores, p-values, gains and the test-set sizes
