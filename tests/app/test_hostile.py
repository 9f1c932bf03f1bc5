"""User text is shown as text on every page: a data set whose file, column, measure, sample and key names are
hostile (tests/hostile.py), and links whose values are, walked page by page under AppTest.

Everything Streamlit renders as Markdown (sentences, captions, headers, messages, widget labels and help, metric
labels, tab and expander labels, radio options, select-slider values) is parsed as CommonMark with Streamlit's
extensions (tests/hostile.py: markup_problems): no link, image, formula, tag, emphasis or code may come from data,
and every hostile string in it must be shown whole. Every figure's text (trace names, titles, ticks, hover
templates, text arrays) must hold no hostile string unescaped. The walk must have shown every hostile name, in
text and in a figure. The rendered page itself is checked in Chromium (tests/browser/test_browser_hostile.py).
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hostile import (FILE_NAME, HOSTILE, KEY_COLUMNS, LABEL, MEASURES, SAMPLE_COLUMN, SAMPLE_IDS, hostile_csv,
                     hostile_link_values, markup_problems, plain)
from shown_charts import specs
from evalcore_app import preload

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["pages/data.py", "pages/precision.py", "pages/confidence.py", "pages/significance.py",
         "pages/threshold.py", "pages/pairwise.py", "pages/roc.py", "pages/validation.py", "pages/across.py",
         "pages/uir.py"]
MARKDOWN_FIELDS = {"body", "label", "help", "text"}
PLAIN_ELEMENTS = {"Code", "Text", "PlotlyChart", "Dataframe", "Arrow"}  # shown as plain text (or drawn)
MARKDOWN_OPTIONS = {"Radio", "Slider"}  # their options are rendered as Markdown (select_slider: the values)
# Our own texts that Streamlit rewrites on purpose: the cut-off label "γ >= 2.5" of the Validation page.
OWN_REWRITES = (" >= ", " <= ")
PLOTLY_SPECIAL = [h for h in HOSTILE if re.search(r"[<>&]|%\{", h)]  # what Plotly would render if unescaped


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def markdown_sources(at: AppTest) -> list[str]:
    """Every string on the page that Streamlit renders as Markdown."""
    out: list[str] = []

    def collect(message, element: str) -> None:
        for field, value in message.ListFields():
            if field.type == field.TYPE_MESSAGE:
                for item in (value if field.is_repeated else [value]):
                    collect(item, element)
            elif field.type == field.TYPE_STRING:
                if field.is_repeated:
                    if field.name == "options" and element in MARKDOWN_OPTIONS:
                        out.extend(value)
                elif field.name in MARKDOWN_FIELDS and value:
                    out.append(value)

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and type(proto).__name__ not in PLAIN_ELEMENTS:
            collect(proto, type(proto).__name__)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def figure_strings(at: AppTest) -> list[str]:
    """Every string of every figure on the page (data and layout)."""
    out: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for chart in specs(at):
        spec = json.loads(chart)
        walk(spec.get("data"))
        walk(spec.get("layout"))
    return out


class Walk:
    """What the walk checked and saw: problems, and how often each hostile string was shown as text."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.in_text: Counter = Counter()
        self.in_figures: Counter = Counter()
        self.runs = 0
        self.sources = 0

    def check(self, at: AppTest, where: str) -> None:
        self.runs += 1
        if at.exception:
            self.problems.append(f"{where}: {[e.value for e in at.exception]}")
        if at.table:  # st.table renders Markdown in its cells; tables of data are st.dataframe (plain text)
            self.problems.append(f"{where}: {len(at.table)} st.table")
        own_script = preload.html()  # (the app's own script block, the same on every page: no data in it)
        for source in markdown_sources(at):
            if source == own_script:
                continue
            self.sources += 1
            self.problems += [f"{where}: {p}" for p in markup_problems(source, OWN_REWRITES)]
            shown = plain(source)
            self.in_text.update({h: shown.count(h) for h in HOSTILE if h in shown})
        for text in figure_strings(at):
            self.problems += [f"{where}: figure text {text!r} holds {h!r} unescaped" for h in PLOTLY_SPECIAL
                              if h in text]
            drawn = html.unescape(text.replace("%&#123;", "%{"))
            self.in_figures.update({h: drawn.count(h) for h in HOSTILE if h in drawn})


def open_link(page: str, query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    return at


def upload_hostile() -> tuple[AppTest, str]:
    """The hostile file uploaded on the Data page (its name, columns and values); returns the app and its id."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.file_uploader[0].set_value((FILE_NAME, hostile_csv(), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at, at.session_state["view"].dataset


def name_links(dataset: str) -> list[dict]:
    """Links that put every hostile measure on every page: the measures in groups of up to 10; the single-sample
    pages on one (hostile) sample, or all pooled."""
    groups = [MEASURES[i:i + 10] for i in range(0, len(MEASURES), 10)]
    links = []
    for k, group in enumerate(groups):
        a, b = group[0], group[1 % len(group)]
        links.append({"dataset": dataset, "sample_col": SAMPLE_COLUMN, "key": list(KEY_COLUMNS), "m": list(group),
                      "band": list(group[:3]), "a": a, "b": b, "t_measure": group[-1], "t_compare": b,
                      "v_m": group[len(group) // 2]})
        if k < len(SAMPLE_IDS) - 1:
            links[-1]["sample"] = SAMPLE_IDS[k]
    return links


def values_link(dataset: str) -> dict:
    """A link that sends every hostile string as the value of some parameter (all wrong, all reported), and a
    parameter with a hostile name."""
    return {"dataset": dataset, "sample_col": SAMPLE_COLUMN, **hostile_link_values(), HOSTILE[0]: "1"}


def test_every_page_shows_hostile_names_and_links_as_text():
    walk = Walk()
    at, dataset = upload_hostile()
    walk.check(at, "data page after the upload")
    links = name_links(dataset) + [values_link(dataset)]
    for page in PAGES:
        for k, query in enumerate(links):
            walk.check(open_link(page, query), f"{page} link {k}")
    for value in HOSTILE:  # a link to a data set that does not exist
        for query in ({"dataset": value}, {"dataset": "sample:" + value}):
            walk.check(open_link("pages/precision.py", query), f"dataset={value!r}")
    assert walk.problems == [], "\n".join(walk.problems[:40])
    # the walk showed every hostile name as text, and in a figure
    missing_text = [h for h in HOSTILE if not walk.in_text[h]]
    missing_figures = [h for h in HOSTILE if not walk.in_figures[h]]
    assert missing_text == [] and missing_figures == [], (missing_text, missing_figures)
    print(f"\nhostile walk: {walk.runs} page runs, {walk.sources} Markdown texts checked, "
          f"{sum(walk.in_text.values())} hostile strings shown as text and {sum(walk.in_figures.values())} in "
          f"figures; {len(links)} links with hostile names or values per page, {2 * len(HOSTILE)} dataset links")


def test_the_check_finds_raw_names():
    """The walk's checks can fail: a raw name in Markdown and in a figure is caught."""
    assert markup_problems(f"**Data:** {FILE_NAME}")
    walk = Walk()

    spec = json.dumps({"data": [{"name": LABEL, "hovertemplate": "%{y} %{x}"}], "layout": {}})
    chart = type("Chart", (), {"type": "plotly_chart", "children": {}, "proto": type("P", (), {"spec": spec})()})()

    class Fake:
        exception = table = []
        _tree = None
        main = type("Main", (), {"type": "main", "children": {0: chart}})()

        @staticmethod
        def get(kind):
            return [chart]

    walk.check(Fake(), "fake")
    assert any("unescaped" in p for p in walk.problems)
