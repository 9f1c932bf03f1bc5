"""What the pages show is what the user chose (issue 18): one measure selection shared by every page, defaults shown
but not written into the view (items 5), and a label column emptied by the user is never replaced by another
without a word (item 4). Under AppTest; what needs the browser's order of reruns is in
tests/browser/test_browser_screen_link.py."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.report.signature import parse_signature
from hostile import plain
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
KRENN = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"
CHOSEN = ["t.score", "chisq", "freq"]  # not the best by average precision (log.like, Fisher, ...)

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def app(params: dict, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def signature(at: AppTest) -> dict:
    texts = [t.value for t in at.sidebar.text]
    assert len(texts) == 1, texts
    parsed = parse_signature(texts[0])
    return {key: parsed.get(key) for key in ("measures", "pair", "level", "n_range", "numbers")}


def test_significance_opens_on_the_shared_selection_and_changes_no_other_page(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/precision.py")
    chosen = at.multiselect(key="w_measures")
    assert chosen.value == ["log.like", "Fisher", "t.score", "chisq.corr"]  # the four best, shown ...
    assert at.session_state["view"].measures is None  # ... but not a choice of the user's
    chosen.set_value(CHOSEN).run()
    assert at.session_state["view"].measures == tuple(CHOSEN)
    before = signature(at)
    assert before["measures"] == ",".join(CHOSEN) and before["pair"] == "t.score,chisq"

    go(at, "pages/significance.py")
    # A and B: the first two of the shared selection, not the page's own pair (log.like vs Fisher)
    assert (at.selectbox(key="w_a").value, at.selectbox(key="w_b").value) == ("t.score", "chisq")
    assert (at.session_state["view"].a, at.session_state["view"].b) == (None, None)  # shown, not written
    assert signature(at) == before  # the visit changed no setting
    for page in ("pages/precision.py", "pages/confidence.py", "pages/data.py"):
        assert signature(go(at, page)) == before, page

    go(at, "pages/significance.py")
    at.selectbox(key="w_b").set_value("freq").run()  # the user's own choice is a setting, for every page
    assert (at.session_state["view"].a, at.session_state["view"].b) == (None, "freq")
    assert signature(at)["pair"] == "t.score,freq"
    assert signature(go(at, "pages/precision.py"))["pair"] == "t.score,freq"


def test_a_link_without_a_selection_shows_the_same_defaults_on_every_page(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/significance.py")
    # (the first two that differ enough for Fisher's test to reach alpha: not log.like and Fisher, issue 30)
    assert (at.selectbox(key="w_a").value, at.selectbox(key="w_b").value) == ("log.like", "t.score")
    shown = signature(at)
    assert shown["measures"] == "log.like,Fisher,t.score,chisq.corr" and shown["pair"] == "log.like,t.score"
    assert "a" not in at.query_params and "m" not in at.query_params
    # the 2x2 view's n: the boundary shown, not written into the link before the user moves it (main wrote sig_n)
    assert at.session_state["view"].look_n is None and "sig_n" not in at.query_params
    at.slider(key="w_look_n").set_value(150).run()
    assert at.session_state["view"].look_n == 150 and at.query_params["sig_n"] == "150"


@pytest.fixture()
def emptied_label(tmp_path) -> bytes:
    """Krenn's data with the label column is.colloc emptied in every row (is.SVC and is.figur still hold TP/FP)."""
    table = pd.read_csv(KRENN, sep="\t")
    table["is.colloc"] = ""
    buffer = io.StringIO()
    table.to_csv(buffer, sep="\t", index=False)
    return buffer.getvalue().encode()


def test_an_emptied_label_column_is_not_replaced_by_another_without_a_word(emptied_label):
    at = app({})
    at.file_uploader[0].set_value(("krenn_emptied.tsv", emptied_label, "text/tab-separated-values")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["view"].label == "is.colloc"  # the file's label column, not is.SVC
    assert at.selectbox(key="w_label").value == "is.colloc"
    warning = " ".join(plain(w.value) for w in at.warning)
    assert "is.colloc is empty in every row" in warning and "is.SVC holds TP/FP labels" in warning
    assert "Annotate page" in warning
    assert not at.metric or "Annotated" in [m.label for m in at.metric]  # no TP/FP summary of another column

    go(at, "pages/precision.py")  # no curve of is.SVC's labels either: the page says what to do
    assert not specs(at)
    assert any("annotate" in plain(i.value).lower() for i in at.info)

    go(at, "pages/data.py")
    at.selectbox(key="w_label").set_value("is.SVC").run()  # the user's own choice
    assert at.session_state["view"].label == "is.SVC"
    assert {m.label: m.value for m in at.metric}["Candidates N"] == "5,102"
