"""Files in the server's folder of large data sets (EVALCORE_DATA_DIR) are input like any upload (issue 29, §3):
every hostile file of tests/serverdata_hostile.py opened by a link (``dataset=server:<name>``) on the Data,
Precision, Confidence and Significance pages gives a message in the page's words that names the file by its name in
the folder, with no path of the server, no SQL and no traceback; the good files of the folder open; and a file
replaced after it was opened is shown as it is now, never from the state of the old file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from hostile import plain
from serverdata_hostile import GOOD_FILES, HOSTILE_FILES, write_folder
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ("pages/data.py", "pages/precision.py", "pages/confidence.py", "pages/significance.py")
ABSOLUTE_PATH = re.compile(r"(?:^|[\s(\['\"=:])/(?:[\w.~-]+/)*[\w.~-]+")
SQL = re.compile(r"\bSELECT\b|\bFROM \(|read_parquet|read_csv|__evalcore_row|LINE 1", re.IGNORECASE)

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory):
    return write_folder(tmp_path_factory.mktemp("serverdata") / "data")


@pytest.fixture()
def folder(hostile_folder, serve_data_dir):
    return serve_data_dir(hostile_folder)


def open_link(page: str, name: str, **params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = f"server:{name}"
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    return at


def messages(at: AppTest) -> list[str]:
    return [plain(m.value) for kind in ("error", "warning", "info") for m in getattr(at, kind)]


@pytest.mark.parametrize("page", PAGES)
def test_every_hostile_file_is_a_message_on_the_page(folder, page):
    """Before: 11 of the 16 files gave a traceback on each page (44 in all), DuckDB's with the server's paths."""
    problems = []
    for name in sorted(HOSTILE_FILES):
        at = open_link(page, name, ties="hash")
        shown = messages(at)
        if at.exception:
            problems.append(f"{name}: traceback {at.exception[0].value[:200]!r}")
            continue
        if not any(name in text for text in shown):
            problems.append(f"{name}: no message names it: {shown}")
        for text in shown:
            if ABSOLUTE_PATH.search(text) or str(folder) in text:
                problems.append(f"{name}: a path in {text!r}")
            if SQL.search(text):
                problems.append(f"{name}: SQL in {text!r}")
            if len(text) > 600:
                problems.append(f"{name}: a message of {len(text):,} characters")
        if specs(at):
            problems.append(f"{name}: a figure drawn")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", GOOD_FILES)
def test_the_good_files_of_the_folder_open(folder, name):
    at = open_link("pages/data.py", name, ties="hash")
    assert not at.exception and not at.error, [e.value for e in at.exception] + messages(at)
    assert {m.label: m.value for m in at.metric}["Candidates N"] == "400"
    at = open_link("pages/precision.py", name, ties="hash")
    assert not at.exception and not at.error, messages(at)
    assert len(specs(at)) == 1


def test_a_replaced_file_is_shown_as_it_is_now(tmp_path, serve_data_dir):
    """Before: the Data page kept showing the old file's columns and N after the file was replaced (the preview and
    every page's cache were keyed by the set's name)."""
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(3)
    pd.DataFrame({"label": rng.random(400) < 0.3, "a": rng.normal(size=400), "b": rng.normal(size=400)}) \
        .to_parquet(data / "set.parquet")
    serve_data_dir(data)
    at = open_link("pages/data.py", "set.parquet", ties="hash")
    assert {m.label: m.value for m in at.metric}["Candidates N"] == "400"
    new = pd.DataFrame({"label": rng.random(700) < 0.5, "a": rng.normal(size=700), "c": rng.normal(size=700)})
    new.to_parquet(data / ".incoming.parquet")
    os.replace(data / ".incoming.parquet", data / "set.parquet")  # as a copy tool replaces a file
    at = open_link("pages/data.py", "set.parquet", ties="hash")  # (a colleague's link: the same server, its caches)
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Candidates N"] == "700" and metrics["True positives"] == f"{int(new['label'].sum()):,}"
    assert "c" in at.multiselect[0].options  # the new file's columns, from its own preview


def test_an_upload_with_a_200000_character_column_name_gets_a_short_message():
    """§4 on the page: before, the Data page's message quoted the name whole (200,370 characters)."""
    from serverdata_hostile import LONG_NAME

    # two columns of 200,000-character names that are not quite numbers: no score column, and the message lists
    # the columns there are
    content = (f"label,{LONG_NAME},x{LONG_NAME}\nTRUE,1,2\nFALSE,3,4\nTRUE,abc,5\nFALSE,6,def\n").encode()
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.file_uploader[0].set_value(("long.csv", content, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    shown = messages(at)
    assert shown and all(len(text) < 1_500 for text in shown), [len(text) for text in shown]
    assert any("long.csv" in text and "…" in text for text in shown), shown


@pytest.mark.parametrize("page", ["pages/data.py", "pages/significance.py"])
def test_counting_a_server_set_past_the_budget_says_who_can_raise_it(folder, monkeypatch, page):
    """Counting a server data set counts every candidate whatever the n: past the budget, the page says so in its
    own words (who can raise the budget), not the command line's ("--n with a step"). Before: a 10^8-row set on
    Significance was refused with "test fewer n (-⁠-n with a step), or fewer measures" (bench_browser, issue 34)."""
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.01")
    at = open_link(page, "good.parquet", ties="hash", a="a", b="b")
    said = " ".join(plain(e.value) for e in at.error)
    assert not at.exception, [e.value for e in at.exception]
    assert "it was not started. Nothing smaller of this kind fits; whoever runs this server can raise its budget " \
           "(EVALCORE_WORK_BUDGET) for data sets this large" in said, said
    assert "--n" not in said and "-\u2060-n" not in said
