"""A server-side data set in Chromium (issue 21): the host's folder (EVALCORE_DATA_DIR) is listed on the Data page,
a set of 20,000,000 candidates is opened there (DuckDB ranks it out of memory, once: the Confidence page's order of
the measures and its bands read the same count tables), the Confidence page draws its bands and the level slider
moves them; the link reopens the view in a fresh session (the counts come back at once).

The figure of such a set over every n (chunk by chunk, thinned, every extreme and significance boundary kept) is
checked against every point of its curves in tests/test_engines.py and bench/bench_serverdata.py; the page's
default range of n is the paper's, 100 to 2,000, as for a small set (issue 30). ``EVALCORE_BROWSER_SERVER_ROWS`` (a multiple of 1,000) sets another size
(``bench/bench_serverdata.py --browser`` times the test at its ``--rows``).

A hostile file in the same folder (a truncated Parquet file: a copy in progress) opened by a link gives a message
naming it, with no path of the server and no traceback (issue 29; every hostile file on every page is checked under
AppTest in tests/app/test_serverdata_pages.py).

The data set is written once per test session by DuckDB straight to Parquet (three columns;
:func:`evalcore.engines.synthetic.write_parquet`, as the benchmark's) in the session's temporary folder; this module
starts its own dashboard server, whose environment names that folder.
"""

from __future__ import annotations

import importlib.util
import os
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import expect

from evalcore.ranking import data_seed
from evalcore_app.serverdata import THIN_ABOVE, content_id, identity

from test_browser import (click_for_run, figure, go_to, metric, param, press, settled_link, slider_thumb,
                          slider_values, wait_for_app, wait_for_figure, wait_for_figures)

# this folder's conftest by its path (the name "conftest" may be the tests folder's in sys.modules)
_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)
CHROMIUM, MISSING_CHROMIUM = browser_conftest.CHROMIUM, browser_conftest.MISSING_CHROMIUM
RUN_COUNTER, VIEWPORT, serve = browser_conftest.RUN_COUNTER, browser_conftest.VIEWPORT, browser_conftest.serve

ROWS = int(os.environ.get("EVALCORE_BROWSER_SERVER_ROWS", "20000000"))  # a multiple of 1,000: 11% TPs exactly
COUNTING_MS = 600_000  # the first opening ranks the candidates by two measures (20,000,000 on a loaded machine: minutes)


@pytest.fixture(scope="session")
def server_data(tmp_path_factory):
    """A folder with big.parquet: ROWS rows, label (11% TPs) and two scores with heavy ties."""
    from evalcore.engines.synthetic import write_parquet

    folder = tmp_path_factory.mktemp("server_data")
    write_parquet(folder / "big.parquet", ROWS)
    (folder / ".hidden.parquet").write_bytes(b"")  # not listed
    small = folder / ".small.parquet"
    write_parquet(small, 1000)
    (folder / "truncated.parquet").write_bytes(small.read_bytes()[:600])  # a copy in progress
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
        store = tmp_path_factory.mktemp("serverdata_store")
        with serve(["-m", "streamlit", "run", "app.py"], store, log) as url:
            yield url, store
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


def test_open_a_large_server_data_set_and_move_the_level_slider(browser, server_url, server_data):
    assert CHROMIUM.exists(), MISSING_CHROMIUM
    assert ROWS > THIN_ABOVE and ROWS % 1000 == 0
    if browser is None:
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    url, store = server_url
    # the set's own seed: of the identity its count tables are keyed by (issue 30)
    own_seed = data_seed(content_id("server:big.parquet", identity(server_data / "big.parquet")))
    with fresh_page(browser, url + "/") as page:
        wait_for_app(page)
        click_for_run(page, page.get_by_role("button", name="Use this sample"))  # a sample first, as in the issue
        expect(metric(page, "Candidates N")).to_have_text("6,348", timeout=COUNTING_MS)
        expect(page.get_by_text("Loaded: sample collocations_sim")).to_be_visible()
        page.get_by_text("Large data sets on this server (2)").click()
        click_for_run(page, page.get_by_role("button", name="Open this data set"), timeout=COUNTING_MS)
        expect(metric(page, "Candidates N")).to_have_text(f"{ROWS:,}", timeout=COUNTING_MS)
        expect(metric(page, "True positives")).to_have_text(f"{ROWS * 11 // 100:,}")
        expect(page).to_have_url(param("dataset", "server%3Abig.parquet"))
        expect(page).to_have_url(param("ties", "hash"))  # said on the page: the engines' random order
        expect(page.get_by_text("instead of 'random order'")).to_be_visible()
        # the Data page says which set is loaded now (main still named the one before: issue 30)
        expect(page.get_by_text("Loaded: big.parquet (on the server)")).to_be_visible()
        expect(page.get_by_text("Loaded: sample collocations_sim")).to_have_count(0)
        expect(page).to_have_url(param("seed", str(own_seed)))  # not the sample's: the set's own

        go_to(page, "Confidence")
        wait_for_figures(page, timeout=COUNTING_MS)
        # the paper's range, as for a small set (main opened on one n: 2,000 to 2,000 in steps of 2,000)
        expect(slider_values(page, "Range of n (n-best list size)")).to_have_text(["100", "2,000"])
        assert figure(page)["xrange"] == [100, 2000]
        level = slider_thumb(page, "Confidence level")
        press(page, level, "ArrowLeft")
        expect(page).to_have_url(param("level", "0.949"))
        expect(slider_values(page, "Confidence level")).to_have_text(["0.949"])
        wait_for_figure(page, "gd.data.some(t => (t.name || '').includes(': 94.9% '))")
        link = settled_link(page)

    from evalcore.io.store import DatasetStore

    kept = [DatasetStore(store).get(i).name for i in DatasetStore(store).ids()]
    assert any(name.startswith("counts-") for name in kept), kept  # the count tables, in the store

    with fresh_page(browser, link) as shared:  # a colleague's session: the counts come back at once
        wait_for_app(shared, timeout=120_000)
        wait_for_figure(shared, "gd.data.some(t => (t.name || '').includes(': 94.9% '))", timeout=120_000)
        expect(slider_values(shared, "Confidence level")).to_have_text(["0.949"])



def test_a_truncated_file_in_the_folder_is_a_message_in_words(browser, server_url):
    if browser is None:
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    url, _ = server_url
    with fresh_page(browser, url + "/precision?dataset=server%3Atruncated.parquet&ties=hash") as page:
        wait_for_app(page)
        error = page.get_by_test_id("stAlertContentError")
        expect(error).to_contain_text("truncated.parquet is not a complete Parquet file", timeout=120_000)
        text = error.inner_text()
        assert "/" not in text.replace("CSV/TSV", "") and "SELECT" not in text, text  # no path, no SQL
