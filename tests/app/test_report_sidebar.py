"""The sidebar's signature under AppTest: shown on every page, the same as the command line gives for the same
analysis, and `evalcore reproduce` accepts it with the data file. (The report button is clicked in the browser:
tests/browser/test_browser_report.py.)"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.cli import main
from evalcore.report.signature import parse_signature
from evalcore.io.store import DatasetStore

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SAMPLE = REPO / "sample_data" / "collocations_sim.tsv"
LINK = {"dataset": "sample:collocations_sim", "ties": "stable"}


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def app(params, page=None):
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sidebar_signature(at) -> str:
    texts = [t.value for t in at.sidebar.text]
    assert len(texts) == 1, texts
    return texts[0]


def reproduce(signature: str, path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["reproduce", signature, str(path)])
    return code, out.getvalue() + err.getvalue()


def test_every_page_shows_the_same_signature():
    at = app({**LINK, "a": "log_like", "b": "MI"})
    signatures = {}
    for page in ("pages/data.py", "pages/precision.py", "pages/confidence.py", "pages/significance.py",
                 "pages/threshold.py", "pages/pairwise.py", "pages/roc.py"):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        signatures[page] = sidebar_signature(at)
    assert len(set(signatures.values())) == 1, signatures
    parsed = parse_signature(signatures["pages/data.py"])
    assert parsed.command == "report" and parsed.get("pair") == "log_like,MI" and parsed.get("ties") == "stable"
    assert parsed.get("n") == "100,500,1000,2000" and parsed.get("range") == "100:2000"


def test_the_sidebar_signature_reproduces_from_the_file():
    link = {**LINK, "a": "log_like", "b": "MI", "test": "mcnemar", "correction": "holm", "level": "0.99",
            "interval": "wilson", "n_min": "200", "n_max": "1500"}
    signature = sidebar_signature(app(link, "pages/significance.py"))
    parsed = parse_signature(signature)
    assert (parsed.get("test"), parsed.get("corr"), parsed.get("level"), parsed.get("interval"),
            parsed.get("range"), parsed.get("n")) == ("mcnemar", "holm", "0.99", "wilson", "200:1500",
                                                      "200,500,1000,1500")
    code, out = reproduce(signature, SAMPLE)
    assert code == 0 and "numbers: match" in out, out
    code, out = reproduce(signature.replace("|corr holm|", "|corr none|"), SAMPLE)
    assert code == 1 and "DO NOT match" in out


def test_random_ties_put_the_links_seed_in_the_signature():
    signature = sidebar_signature(app({"dataset": "sample:collocations_sim", "ties": "random", "seed": "42"},
                                      "pages/precision.py"))
    assert "|ties random|seed 42|" in signature
    assert reproduce(signature, SAMPLE)[0] == 0


def test_an_upload_is_named_by_its_store_id(tmp_path):
    data = SAMPLE.read_bytes()
    dataset = DatasetStore().put(data, "mine.tsv")
    signature = sidebar_signature(app({"dataset": dataset, "ties": "stable"}, "pages/precision.py"))
    assert parse_signature(signature).data == (dataset,)


def test_without_data_the_sidebar_says_how_to_get_a_signature():
    at = app({})
    assert not at.sidebar.text
    assert any("Load a data set to get a report" in c.value for c in at.sidebar.caption)
