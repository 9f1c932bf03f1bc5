"""Every page under streamlit.testing.v1.AppTest: empty, with data, widgets set by key, URL -> widgets.

(AppTest does not update the URL after widget changes; widgets -> URL is tested in the browser.)
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import plotly.io

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.io.store import DatasetStore
from hostile import plain
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["pages/precision.py", "pages/confidence.py", "pages/significance.py", "pages/threshold.py"]


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def app(params: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()  # the router (app.py) runs first, as in the browser
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="module")
def krenn_bytes():
    path = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"
    assert path.exists(), f"expected the paper's data at {path}"
    return path.read_bytes()


@pytest.fixture()
def krenn_id(krenn_bytes):
    return DatasetStore().put(krenn_bytes, "krenn_ppv.tsv")


@pytest.mark.parametrize("page", PAGES)
def test_pages_without_data_point_to_the_data_page(page):
    at = app(page=page)
    assert any("No data loaded yet" in i.value for i in at.info)


def test_data_page_without_data_invites_an_upload():
    at = app()
    assert at.file_uploader and any("Upload a file" in i.value for i in at.info)
    assert "up to 500 MB" in at.file_uploader[0].label


def test_upload_through_the_data_page(krenn_bytes):
    at = app()
    at.file_uploader[0].set_value(("krenn_ppv.tsv", krenn_bytes, "text/tab-separated-values")).run()
    assert not at.exception and not at.error
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Candidates N"] == "5,102" and metrics["Baseline precision"] == "11.09%"
    assert at.selectbox(key="w_label").value == "is.colloc"
    assert "log.like" in at.multiselect(key="w_scores").value
    assert at.session_state["view"].dataset == DatasetStore().ids()[0]


def _values(array) -> np.ndarray:
    """Trace data as numbers (plotly 7 stores arrays as base64 with a dtype)."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)


def _figure(at: AppTest):
    charts = specs(at)
    assert charts, "no figure on the page"
    return plotly.io.from_json(charts[0])


def test_significance_page_reproduces_figure_3(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq"}, "pages/significance.py")
    text = " ".join(m.value for m in at.markdown)
    assert "up to n = 1,268" in text
    fig = _figure(at)
    rug = next(t for t in fig.data if t.name.startswith("every significant n"))
    x = np.asarray(_values(rug.x), dtype=float)
    runs = list(zip(x[0::3], x[1::3]))
    assert runs[0] == (99.5, 1268.5)  # every n from 100 to 1,268 is marked, in one run
    triangles = next(t for t in fig.data if t.name.startswith("significant ("))
    assert 0 < len(_values(triangles.x)) <= 80 and min(_values(triangles.x)) == 100


def test_url_restores_the_widgets(krenn_id):
    params = {"dataset": krenn_id, "ties": "stable", "m": ["log.like", "chisq"], "n_min": "200", "n_max": "1000",
              "recall": "1"}
    at = app(params, "pages/precision.py")
    assert at.multiselect(key="w_measures").value == ["log.like", "chisq"]
    assert at.select_slider(key="w_n_range").value == (200, 1000)
    assert at.toggle(key="w_show_recall").value is True


def test_any_n_in_the_url_is_kept_and_one_outside_the_data_is_reported(krenn_id):
    at = app({"dataset": krenn_id, "n_min": "333"})  # any n can be chosen (typed: issue 30), so a link's too
    assert not at.warning
    at.switch_page("pages/precision.py")
    at.run()
    assert at.select_slider(key="w_n_range").value == (333, 2000)
    at = app({"dataset": krenn_id, "n_max": "9000"})
    assert any("n = 9,000 is outside 1 to 5,102" in plain(w.value) for w in at.warning)


def test_widgets_set_by_key_change_the_view(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/confidence.py")
    at.slider(key="w_level").set_value(0.9).run()
    assert at.session_state["view"].level == 0.9
    at.selectbox(key="w_interval").set_value("wilson").run()
    assert at.session_state["view"].interval == "wilson" and not at.exception


def test_threshold_page_moves_the_cut_off(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "t_measure": "t.score", "t_mode": "n", "t_n": "500"},
             "pages/threshold.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Accepted"] == "500"


@pytest.mark.parametrize("name, content, message", [
    ("ragged.csv", b"a,b,label\n1,2,TRUE\n3,FALSE\n", "row"),
    ("bad_labels.csv", b"word,score,label\nx,1,TRUE\ny,2,maybe\n", "maybe"),
    ("text_scores.csv", b"word,score,label\nx,1,TRUE\ny,high,FALSE\nz,3,TRUE\nw,4,FALSE\n", "high"),
    ("empty.csv", b"", "empty"),
])
def test_bad_files_get_a_message_next_to_the_uploader(name, content, message):
    at = app()
    at.file_uploader[0].set_value((name, content, "text/csv")).run()
    assert not at.exception
    assert any(message in e.value for e in at.error), [e.value for e in at.error]


def test_a_file_without_labels_points_to_the_annotate_page():
    """No label column: nothing annotated yet, which the Annotate page is for (not an error)."""
    at = app()
    at.file_uploader[0].set_value(("no_label.csv", b"word,score\nx,1\ny,2\n", "text/csv")).run()
    assert not at.exception and not at.error
    assert any("No candidate is annotated" in i.value and "no label column" in i.value for i in at.info)
    assert any("annotate" in link.proto.page for link in at.get("page_link"))


def test_all_fp_labels_warn():
    at = app()
    at.file_uploader[0].set_value(("all_fp.csv", b"word,score,label\nx,1,FALSE\ny,2,FALSE\n", "text/csv")).run()
    assert any("same label" in w.value for w in at.warning)


@pytest.mark.parametrize("forged", ["../../etc/passwd", "A" * 64, "0" * 64])
def test_forged_dataset_ids_show_a_message_and_touch_nothing(forged, store_root):
    at = app({"dataset": forged})  # a link with a bad id: the message, and the Data page
    assert at.file_uploader
    shown = " ".join([w.value for w in at.warning] + [e.value for e in at.error] + [i.value for i in at.info])
    assert ("not a data set id" in shown) or ("No data set with id" in shown)
    assert not store_root.exists() or not any(store_root.rglob("*passwd*"))


SAMPLE = "sample:collocations_sim"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_draws_its_figure_on_the_sample_data(page):
    at = app({"dataset": SAMPLE}, page)
    assert not at.error and specs(at)


def test_dev_run_opens_on_the_sample(monkeypatch):
    monkeypatch.setenv("EVALCORE_DEFAULT_DATASET", SAMPLE)
    at = app()
    assert {m.label: m.value for m in at.metric}["Baseline precision"] == "11.81%"


def test_a_link_to_an_unknown_sample_is_refused():
    at = app({"dataset": "sample:nope"})
    assert any("no sample data set 'nope'" in plain(e.value) for e in at.error)


def test_a_latin1_file_is_read_with_its_umlauts():
    at = app()
    content = "PP,verb,score,label\nin:Mädchen,gehen,1.5,TRUE\nan:Straße,fahren,0.5,FALSE\n".encode("latin-1")
    at.file_uploader[0].set_value(("latin1.csv", content, "text/csv")).run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Candidates N"] == "2"
    assert "in:Mädchen" in at.dataframe[-1].value.to_string()


def test_a_binary_file_gets_a_message():
    at = app()
    at.file_uploader[0].set_value(("noise.csv", bytes(range(256)) * 8, "text/csv")).run()
    assert not at.exception and at.error


@pytest.mark.parametrize("page", PAGES)
def test_a_single_candidate_does_not_break_any_page(page):
    at = app()
    at.file_uploader[0].set_value(("one.csv", b"word,score,other,label\nx,1.5,2,TRUE\n", "text/csv")).run()
    assert not at.exception
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("at least 2" in w.value for w in at.warning)
