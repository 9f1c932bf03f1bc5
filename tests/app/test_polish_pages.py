"""What a researcher meets (issue 10), on the pages: numbers written one way (evalcore.format) in tables and
sentences, the Threshold page's exact γ, size-keeping switch and log axes, the Significance page's warnings, the
ties help, captions under exported figures, display names on the multi-sample pages and their downloads, and the
report's share link carrying the display names. tests/test_format.py has the evalcore side."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pandas as pd
import plotly.io
import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from evalcore import analysis, names
from evalcore import format as fmt
from evalcore.figures import style
from evalcore.io import load_candidates
from evalcore.io.store import DatasetStore
from evalcore.ranking import rank
from evalcore.report import ReportSettings, build_report
from evalcore.report.build import share_link
from evalcore.viewstate import from_query, to_query
from shown_charts import specs
from shown_tables import page_tables

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
KRENN = REPO.parent / "shared" / "data" / "krenn_ppv.tsv"
EXPERIMENT = "sample:experiment_sim"
P_TEXT = re.compile(r"^(1|0\.\d{1,4}|\d\.\de-\d+|< 1e-300( \(log10 p = -\d+\.\d\))?|–)$")


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture()
def downloads(monkeypatch):
    """The downloads of the last run, by file name: their deferred callables, as a click would call them; an
    image export returns the figure's JSON instead of rendering it (what is drawn, not how)."""
    found: dict = {}
    original = MediaFileManager.add_deferred

    def add_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        found[file_name] = data_callable
        return original(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", add_deferred)
    monkeypatch.setattr(style, "export", lambda fig, fmt_: fig.to_json().encode())
    monkeypatch.setattr("evalcore_app.report.embed_signature", lambda raw, fmt_, signature: raw)
    return found


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def tables(at: AppTest) -> list[pd.DataFrame]:
    """Every table as it reads, grids and typeset (tests/shown_tables.py)."""
    return page_tables(at)


def table_with(at: AppTest, column: str) -> pd.DataFrame:
    return next(t for t in tables(at) if column in t.columns)


def texts(at: AppTest) -> list[str]:
    """Every sentence, caption, message and metric of the page, and every cell of its tables."""
    out = [e.value for kind in (at.markdown, at.caption, at.warning, at.info, at.error) for e in kind]
    out += [f"{m.label} {m.value}" for m in at.metric]
    for t in tables(at):
        out += [str(c) for c in t.columns] + [str(x) for x in t.astype(str).to_numpy().ravel()]
    return out


def metrics(at: AppTest) -> dict:
    return {m.label: m.value for m in at.metric}


# ---------------------------------------------------------------------------------------------- number formats

def test_pairwise_shows_precision_in_percent_and_short_p_values(krenn_id):
    measures = ["log.like", "chisq", "t.score", "freq"]
    at = app({"dataset": krenn_id, "ties": "stable", "m": measures, "pw_n": "1000"}, "pages/pairwise.py")
    precision = table_with(at, "precision")
    assert precision["precision"].str.endswith("%").all() and precision["lower"].str.endswith("%").all()
    pairs = table_with(at, "p_value")
    assert all(P_TEXT.match(p) for p in pairs["p_value"]), list(pairs["p_value"])
    assert any("e-" in p for p in pairs["p_value"])  # Krenn's n = 1,000: p-values far below 0.001
    cs = load_candidates(KRENN, label="is.colloc")
    expected = analysis.pairwise({m: rank(cs, m, ties="stable") for m in measures}, 1000).pairs
    assert list(pairs["p_value"]) == list(fmt.page_table("pairwise", "pairs", expected)["p_value"])
    assert list(precision["precision"]) == [fmt.percent(p) for p in
                                            analysis.pairwise({m: rank(cs, m, ties="stable") for m in measures},
                                                              1000).precision["precision"]]
    assert "diff (points)" in pairs.columns


@pytest.mark.parametrize("page", ["pages/data.py", "pages/precision.py", "pages/significance.py",
                                  "pages/threshold.py", "pages/pairwise.py", "pages/roc.py"])
def test_no_none_nan_or_strings_of_zeros_on_krenn(krenn_id, page):
    at = app({"dataset": krenn_id, "ties": "stable"}, page)
    shown = texts(at)
    assert tables(at), "the page shows a table"
    for text in shown:
        assert "None" not in text and "0.0000000" not in text and text.lower() != "nan", text


def test_significance_sentence_and_tables_use_the_formats(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "sig_n": "1000"},
             "pages/significance.py")
    assert any(re.search(r"\*\*p (=|<) [^*]+\*\*", m.value) for m in at.markdown)
    two = table_with(at, "TPs")
    assert all(re.fullmatch(r"[\d,]+", x) for x in two["TPs"])
    effects = table_with(at, "effect")
    assert effects["low"].iloc[-1] == "–"  # the MDD has no interval


def test_across_samples_df_is_a_dash_and_names_are_display_names(downloads):
    at = app({"dataset": EXPERIMENT, "a": "sharp", "b": "good", "name": ["sharp=Sharp A", "good=Good B"]},
             "pages/across.py")
    tests = table_with(at, "df")
    assert "None" not in tests.astype(str).to_numpy().ravel()
    assert (tests["df"] == "–").any()
    per_sample = table_with(at, "sample")
    assert {"size (Sharp A)", "precision (Good B)", "difference (points)"} <= set(per_sample.columns)
    assert per_sample["precision (Sharp A)"].str.endswith("%").all()
    csv = downloads["across_samples.csv"]()
    header = (csv.decode() if isinstance(csv, bytes) else csv).splitlines()[0]
    assert "precision (Sharp A)" in header and "size_a" not in header


def test_validation_and_uir_name_measures_by_display_names(downloads):
    at = app({"dataset": EXPERIMENT, "v_m": "sharp", "name": ["sharp=Sharp A"]}, "pages/validation.py")
    per_sample = table_with(at, "covers")
    assert per_sample["precision"].str.endswith("%").all()
    csv = downloads["validation.csv"]()
    assert "Sharp A" in (csv.decode() if isinstance(csv, bytes) else csv)
    fig = plotly.io.from_json(specs(at)[0])
    assert "Sharp A" in fig.layout.xaxis.title.text
    downloads.clear()
    at = app({"dataset": EXPERIMENT, "a": "sharp", "b": "good", "name": ["sharp=Sharp A"]}, "pages/uir.py")
    csv = downloads["uir.csv"]()
    text = csv.decode() if isinstance(csv, bytes) else csv
    assert "Sharp A" in text and "sharp," not in text
    matrix = plotly.io.from_json(specs(at)[1])
    assert "Sharp A" in list(matrix.data[0].x)


# ---------------------------------------------------------------------------------------------- threshold page

def test_gamma_typed_exactly_is_kept_and_in_the_link(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "t_measure": "t.score"}, "pages/threshold.py")
    at.number_input(key="w_gamma_typed").set_value(2.09).run()
    ok(at)
    assert at.session_state["view"].gamma == 2.09 and to_query(at.session_state["view"])["gamma"] == "2.09"
    assert at.select_slider(key="w_gamma").value == 2.09  # the slider shows it among the quantiles
    t = rank(load_candidates(KRENN, label="is.colloc"), "t.score", ties="stable")
    assert metrics(at)["Accepted"] == fmt.count(analysis.acceptance_size(t, 2.09))
    for gamma in ("1.65", "32.5"):  # from a link: kept as given, not moved to a slider position
        at = app({"dataset": krenn_id, "t_measure": "t.score" if gamma == "1.65" else "freq", "gamma": gamma},
                 "pages/threshold.py")
        assert at.session_state["view"].gamma == float(gamma) and not at.warning
        assert at.number_input(key="w_gamma_typed").value == float(gamma)


def test_switching_measure_keeps_the_acceptance_size(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "t_measure": "freq", "gamma": "50"}, "pages/threshold.py")
    assert metrics(at)["Accepted"] == "2,340"
    at.selectbox(key="w_threshold_measure").set_value("t.score").run()
    ok(at)
    assert at.session_state["view"].threshold_measure == "t.score"
    assert metrics(at)["Accepted"] == "2,340"
    assert 1 < at.session_state["view"].gamma < 50  # a t-score, not freq's 50 carried over


def test_log_axes(krenn_id):
    """Issue 18: heavy-tailed scores (G² on Krenn's data: 71% in one bin of the linear axis) get a log score axis
    by default, signed where scores are negative; the user's switch is kept, across measures, and in the link."""
    at = app({"dataset": krenn_id, "t_measure": "log.like"}, "pages/threshold.py")
    assert at.toggle(key="w_log_score").value is True and at.session_state["view"].log_score is None
    assert "t_log_score" not in to_query(at.session_state["view"])  # a default: nothing in the link
    fig = plotly.io.from_json(specs(at)[0])
    assert fig.layout.xaxis.title.text == "score (log.like), signed log scale" and "10⁴" in fig.layout.xaxis.ticktext
    at.selectbox(key="w_threshold_measure").set_value("t.score").run()  # t spreads over the linear axis
    ok(at)
    assert at.toggle(key="w_log_score").value is False
    fig = plotly.io.from_json(specs(at)[0])
    assert fig.layout.shapes[0].x0 == at.session_state["view"].gamma  # a linear score axis: γ itself
    at.toggle(key="w_log_count").set_value(True).run()
    at.toggle(key="w_log_score").set_value(True).run()  # the user's choice: a log axis for t too
    ok(at)
    fig = plotly.io.from_json(specs(at)[0])
    assert fig.layout.yaxis.type == "log" and "signed log scale" in fig.layout.xaxis.title.text
    assert {"t_log_count", "t_log_score"} <= set(to_query(at.session_state["view"]))
    at.selectbox(key="w_threshold_measure").set_value("freq").run()
    at.toggle(key="w_log_score").set_value(False).run()  # switched off for heavy-tailed frequencies: kept off
    ok(at)
    assert at.session_state["view"].log_score is False and to_query(at.session_state["view"])["t_log_score"] in ("0",
                                                                                                               "false")
    fig = plotly.io.from_json(specs(at)[0])
    assert fig.layout.xaxis.title.text == "score (freq)"


# ---------------------------------------------------------------------------------------------- warnings, ties help

def test_all_fp_file_warns_on_the_significance_page():
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"word": [f"w{i}" for i in range(300)], "s1": rng.normal(size=300),
                          "s2": rng.normal(size=300), "label": ["FALSE"] * 300})
    dataset = DatasetStore().put(table.to_csv(index=False).encode(), "all_fp.csv")
    at = app({"dataset": dataset, "n_min": "10", "n_max": "60"}, "pages/significance.py")
    assert any(" of " in m.value and "**0 of" in m.value for m in at.markdown)
    assert any("No candidate is labelled a TP" in w.value for w in at.warning)


def test_ties_choice_explains_itself_without_optimistic_or_pessimistic(krenn_id):
    at = app({"dataset": krenn_id}, "pages/data.py")
    assert at.selectbox(key="w_ties").help == names.TIE_HELP
    shown = " ".join(texts(at) + [s.help or "" for s in at.selectbox] + list(at.selectbox(key="w_ties").options))
    assert "optimistic" not in shown.lower() and "pessimistic" not in shown.lower()
    sources = [p for d in ("pages", "evalcore_app") for p in (REPO / d).glob("*.py")]
    for path in sources:
        for line in path.read_text().splitlines():
            strings = re.findall(r"\"[^\"]*\"|'[^']*'", line)
            assert not any(re.search(r"optimistic|pessimistic", s, re.I) for s in strings), (path, line)


# ---------------------------------------------------------------------------------------------- captions

def test_caption_under_exported_figures_only_when_asked(krenn_id, downloads):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/precision.py")
    plain = plotly.io.from_json(downloads["precision.png"]())
    assert not [a for a in plain.layout.annotations if a.name == style.CAPTION_NAME]
    downloads.clear()
    at.toggle(key="w_caption").set_value(True).run()
    ok(at)
    assert at.session_state["view"].caption and to_query(at.session_state["view"])["caption"] == "1"
    for name in ("precision.png", "precision.svg"):
        fig = plotly.io.from_json(downloads[name]())
        caption = [a for a in fig.layout.annotations if a.name == style.CAPTION_NAME]
        assert len(caption) == 1
        assert caption[0].text == ("Data: krenn_ppv.tsv · ties: file order · level 95% · n = 100 to 2,000")
    html = plotly.io.from_json(downloads["precision.html"]())  # the interactive figure stays as on screen
    assert not [a for a in html.layout.annotations if a.name == style.CAPTION_NAME]


# ---------------------------------------------------------------------------------------------- the report's link

def test_report_share_link_carries_display_names():
    settings = ReportSettings(measures=("log.like", "chisq"), label="is.colloc", sizes=(100, 1000),
                              n_range=(100, 1000), pair=("log.like", "chisq"), ties="stable")
    link = share_link(settings, "a" * 64, names={"log.like": "G²", "chisq": "X²"})
    params = parse_qs(urlsplit(link).query)
    assert params["name"] == ["log.like=G²", "chisq=X²"]
    view, problems = from_query(params)
    assert not problems and view.display.of("log.like") == "G²" and view.display.of("chisq") == "X²"
    assert "name" not in parse_qs(urlsplit(share_link(settings, "a" * 64)).query)
    cs = load_candidates(KRENN, label="is.colloc", scores=["log.like", "chisq"])
    report = build_report(cs, settings, data_sha256="a" * 64, names={"log.like": "G²"}, figures=False)
    link = report.files["link.txt"].decode().strip()
    assert parse_qs(urlsplit(link).query)["name"] == ["log.like=G²"]
    assert json.loads(report.files["data.json"])["link"] == link
