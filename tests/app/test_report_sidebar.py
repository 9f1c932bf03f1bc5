"""The sidebar's signature under AppTest: shown on every page, the settings the command line's report names for the
same analysis, with the digest of that report's numbers `evalcore reproduce` accepts it with the data file; a visit
computes none of the report's numbers. (The report button and a page's downloads are clicked in the browser:
tests/browser/test_browser_report.py.)"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.cli import main
from evalcore.report.commands import load_report_candidates
from evalcore.report.results import report_results, results_digest
from evalcore.report.settings import settings_from_signature
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


def with_report_numbers(signature: str) -> str:
    """The sidebar's signature with the digest of its report's numbers (as the report's ZIP carries it)."""
    parsed = parse_signature(signature)
    settings = settings_from_signature(parsed.settings)
    numbers = report_results(load_report_candidates(str(SAMPLE), settings), settings)
    return str(parsed.with_numbers(results_digest(numbers)))


def test_the_sidebar_signature_reproduces_from_the_file():
    link = {**LINK, "a": "log_like", "b": "MI", "test": "mcnemar", "correction": "holm", "level": "0.99",
            "interval": "wilson", "n_min": "200", "n_max": "1500"}
    signature = sidebar_signature(app(link, "pages/significance.py"))
    parsed = parse_signature(signature)
    assert parsed.numbers is None  # (the report's numbers are computed when the report is asked for)
    assert (parsed.get("test"), parsed.get("corr"), parsed.get("level"), parsed.get("interval"),
            parsed.get("range"), parsed.get("n")) == ("mcnemar", "holm", "0.99", "wilson", "200:1500",
                                                      "200,500,1000,1500")
    signature = with_report_numbers(signature)
    code, out = reproduce(signature, SAMPLE)
    assert code == 0 and "numbers: match" in out, out
    code, out = reproduce(signature.replace("|corr holm|", "|corr none|"), SAMPLE)
    assert code == 1 and "DO NOT match" in out


def test_random_ties_put_the_links_seed_in_the_signature():
    signature = sidebar_signature(app({"dataset": "sample:collocations_sim", "ties": "random", "seed": "42"},
                                      "pages/precision.py"))
    assert "|ties random|seed 42|" in signature
    assert reproduce(with_report_numbers(signature), SAMPLE)[0] == 0


def test_an_upload_is_named_by_its_store_id(tmp_path):
    data = SAMPLE.read_bytes()
    dataset = DatasetStore().put(data, "mine.tsv")
    signature = sidebar_signature(app({"dataset": dataset, "ties": "stable"}, "pages/precision.py"))
    assert parse_signature(signature).data == (dataset,)


def test_without_data_the_sidebar_says_how_to_get_a_signature():
    at = app({})
    assert not at.sidebar.text
    assert any("Load a data set to get a report" in c.value for c in at.sidebar.caption)


def test_a_visit_computes_none_of_the_reports_numbers(monkeypatch):
    """The sidebar names the view's settings without numbers: a first visit, a page switch and a level key compute
    no report (on main every new view computed the whole report for the sidebar's digest: issue 34)."""
    from evalcore_app import cached, report, sample

    calls = []

    def counted(real):
        def call(*args, **kwargs):
            calls.append(args)
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(report, "report_results", counted(report.report_results))
    monkeypatch.setattr(sample, "report_results", counted(sample.report_results))
    report.results.clear()
    report._current.cache_clear()
    at = app({**LINK, "a": "log_like", "b": "MI"}, "pages/significance.py")
    for page in ("pages/precision.py", "pages/confidence.py", "pages/data.py", "pages/significance.py"):
        at.switch_page(page).run()
        assert not at.exception, [e.value for e in at.exception]
        assert parse_signature(sidebar_signature(at)).numbers is None
    at.slider(key="w_level").set_value(0.99).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "|level 0.99|" in sidebar_signature(at)
    assert calls == []
    # the report's numbers are computed when the report is asked for (what the ZIP button's click calls first)
    v = at.session_state["view"]
    settings = settings_from_signature(parse_signature(sidebar_signature(at)).settings)
    numbers = report.results(cached.load(v.data), settings, v.ranking)
    assert numbers.settings == settings and len(calls) == 1
