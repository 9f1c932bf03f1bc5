"""A server-side data set in Chromium (issue 21): the host's folder (EVALCORE_DATA_DIR) is listed on the Data page,
the set is opened there (DuckDB ranks it out of memory), the Confidence page draws its bands (computed chunk by chunk
and thinned: the set is larger than ``ui.serverdata.THIN_ABOVE``) and the level slider moves them; the link reopens
the view in a fresh session (the counts come from the store).

The suite opens 300,000 candidates: 20,000,000 take minutes on a loaded 2-core machine (two DuckDB sorts, then
precision and a Clopper-Pearson interval at each of 40,000,000 n), past the suite's budget.
``EVALCORE_BROWSER_SERVER_ROWS=20000000`` runs the same test on the issue's 20,000,000 rows
(``bench/bench_serverdata.py --browser`` does, and times it); the thinned figure of a 20,000,000-row set is checked
against every point of its curves in tests/test_engines.py and bench/bench_serverdata.py.

The data set is generated once per test session by DuckDB (three columns, seconds) in the session's temporary
folder; this module starts its own dashboard server, whose environment names that folder.
"""

from __future__ import annotations

import importlib.util
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ui.serverdata import THIN_ABOVE

from test_browser import (go_to, metric, param, press, rerun, settled_link, slider_thumb, slider_values,
                          wait_for_app, wait_for_figure, wait_for_figures)

# this folder's conftest by its path (the name "conftest" may be the tests folder's in sys.modules)
_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)
CHROMIUM, MISSING_CHROMIUM = browser_conftest.CHROMIUM, browser_conftest.MISSING_CHROMIUM
RUN_COUNTER, VIEWPORT, serve = browser_conftest.RUN_COUNTER, browser_conftest.VIEWPORT, browser_conftest.serve

ROWS = int(os.environ.get("EVALCORE_BROWSER_SERVER_ROWS", "300000"))  # a multiple of 1,000: 11% TPs exactly
COUNTING_MS = 600_000  # the first opening ranks the candidates by two measures (20,000,000 on a loaded machine: minutes)


@pytest.fixture(scope="session")
def server_data(tmp_path_factory):
    """A folder with big.parquet: ROWS rows, label (11% TPs) and two scores with heavy ties."""
    import duckdb

    folder = tmp_path_factory.mktemp("server_data")
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT ((i * 2654435761) % 1000) < 110 AS label,
        round(((i * 7919) % 100003) / 100003.0 + CASE WHEN ((i * 2654435761) % 1000) < 110 THEN 0.3 ELSE 0 END, 3)
            AS a,
        round(((i * 104729) % 99991) / 99991.0 + CASE WHEN ((i * 2654435761) % 1000) < 110 THEN 0.2 ELSE 0 END, 2)
            AS b
        FROM range({ROWS}) t(i)) TO '{folder / "big.parquet"}' (FORMAT parquet)""")
    con.close()
    (folder / ".hidden.parquet").write_bytes(b"")  # not listed
    return folder


@pytest.fixture(scope="module")
def server_url(browser, server_data, tmp_path_factory):
    """A dashboard server whose folder of large data sets is ``server_data``."""
    if browser is None:
        yield None
        return
    before = os.environ.get("EVALCORE_DATA_DIR")
    os.environ["EVALCORE_DATA_DIR"] = str(server_data)
    try:
        log = tmp_path_factory.mktemp("serverdata_log") / "streamlit.log"
        with serve(["-m", "streamlit", "run", "app.py"], tmp_path_factory.mktemp("serverdata_store"), log) as url:
            yield url
    finally:
        if before is None:
            os.environ.pop("EVALCORE_DATA_DIR", None)
        else:
            os.environ["EVALCORE_DATA_DIR"] = before


@contextmanager
def fresh_page(browser, url: str):
    if browser is None:
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(RUN_COUNTER)
    try:
        page = context.new_page()
        page.goto(url)
        yield page
        expect(page.get_by_test_id("stException")).to_have_count(0, timeout=1_000)
    finally:
        context.close()


def test_open_a_large_server_data_set_and_move_the_level_slider(browser, server_url):
    assert CHROMIUM.exists(), MISSING_CHROMIUM
    assert ROWS > THIN_ABOVE and ROWS % 1000 == 0
    with fresh_page(browser, server_url + "/") as page:
        wait_for_app(page)
        page.get_by_text("Large data sets on this server (1)").click()
        with rerun(page, timeout=COUNTING_MS):
            page.get_by_role("button", name="Open this data set").click()
        expect(metric(page, "Candidates N")).to_have_text(f"{ROWS:,}", timeout=COUNTING_MS)
        expect(metric(page, "True positives")).to_have_text(f"{ROWS * 11 // 100:,}")
        expect(page).to_have_url(param("dataset", "server%3Abig.parquet"))
        expect(page).to_have_url(param("ties", "hash"))  # said on the page: the engines' random order
        expect(page.get_by_text("instead of 'random order'")).to_be_visible()

        go_to(page, "Confidence")
        wait_for_figures(page, timeout=COUNTING_MS)
        level = slider_thumb(page, "Confidence level")
        press(page, level, "ArrowLeft")
        expect(page).to_have_url(param("level", "0.949"))
        expect(slider_values(page, "Confidence level")).to_have_text(["0.949"])
        wait_for_figure(page, "gd.data.some(t => (t.name || '').includes(': 94.9% '))")
        link = settled_link(page)

    with fresh_page(browser, link) as shared:  # a colleague's session: the counts come back at once
        wait_for_app(shared, timeout=120_000)
        wait_for_figure(shared, "gd.data.some(t => (t.name || '').includes(': 94.9% '))", timeout=120_000)
        expect(slider_values(shared, "Confidence level")).to_have_text(["0.949"])
