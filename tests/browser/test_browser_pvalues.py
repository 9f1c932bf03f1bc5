"""The first test of a pair on a server data set shows its progress and can be cancelled (issue 34).

A set of 1,000,000 generated rows in the host's folder (EVALCORE_DATA_DIR; the benchmark's generator) opened on the
Significance page over n = 1,000 .. 960,000: Fisher's test at every n in fifteen chunks of 65,536 n, each kept in the store
as it is done (evalcore/engines/pvalues.py). The page shows a progress bar and a Cancel button while it tests; a
click on Cancel stops the work at the end of the chunk under way (the chunks done stay in the store) and the page
says so, offering to go on; going on tests only the chunks left, and the figure is drawn. The equality of the kept
p-values with a fresh computation, eviction and the level are in tests/test_pvalue_store.py.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from test_browser import click_for_run, param, settled_link, wait_for_figures

_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)
CHROMIUM, MISSING_CHROMIUM = browser_conftest.CHROMIUM, browser_conftest.MISSING_CHROMIUM
RUN_COUNTER, VIEWPORT, serve = browser_conftest.RUN_COUNTER, browser_conftest.VIEWPORT, browser_conftest.serve

ROWS = 1_000_000
N_MAX = 960_000  # fifteen chunks of 65,536 n: the Cancel lands before the last (five were all done before it once,
CHUNKS = 15       # on a loaded machine)
SLOW_MS = 900_000  # counting the set and testing 960,000 n with both cores busy: minutes


def stored_chunks(store: Path) -> int:
    from evalcore.engines.pvalues import PREFIX
    from evalcore.io.store import DatasetStore

    kept = DatasetStore(store)
    return sum(kept.get(i).name.startswith(PREFIX) for i in kept.ids())


@pytest.fixture(scope="module")
def server_url(browser, tmp_path_factory):
    if browser is None:
        yield None
        return
    from evalcore.engines.synthetic import write_parquet

    folder = tmp_path_factory.mktemp("pvalue_server_data")
    write_parquet(folder / "big.parquet", ROWS)
    saved = {k: os.environ.get(k) for k in ("EVALCORE_DATA_DIR", "EVALCORE_WORK_BUDGET")}
    os.environ["EVALCORE_DATA_DIR"] = str(folder)
    os.environ["EVALCORE_WORK_BUDGET"] = "unlimited"  # (the host's choice: 960,000 n at once)
    try:
        log = tmp_path_factory.mktemp("pvalue_log") / "streamlit.log"
        store = tmp_path_factory.mktemp("pvalue_store")
        with serve(["-m", "streamlit", "run", "app.py"], store, log) as url:
            yield url, store
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def kept(page) -> None:
    """The link's pair and level are the ones the test chose: a Cancel under load once brought the page back with
    Measure B on its first option and the level at its minimum (``b=a&level=0.8``; see
    tests/app/test_widgets_declared.py)."""
    link = settled_link(page)
    for name, value in (("a", "a"), ("b", "b"), ("level", "0.9")):
        assert param(name, value).search(link), (name, link)


def test_the_first_test_of_a_pair_shows_its_progress_and_can_be_cancelled(browser, server_url):
    assert CHROMIUM.exists(), MISSING_CHROMIUM
    if browser is None:
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    url, store = server_url
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(RUN_COUNTER)
    try:
        page = context.new_page()
        page.goto(url + f"/significance?dataset=server%3Abig.parquet&ties=hash&seed=0&a=a&b=b&level=0.9&n_min=1000"
                  f"&n_max={N_MAX}")
        cancel = page.get_by_role("button", name="Cancel")
        expect(cancel).to_be_visible(timeout=SLOW_MS)  # (after the count: the test of every n has begun)
        expect(page.get_by_test_id("stProgress")).to_contain_text("Testing every n of the range")
        # (a part done before the Cancel: the run it stops has stored one at least)
        expect(page.get_by_test_id("stProgress")).to_contain_text(re.compile(rf"[1-9]\d* of {CHUNKS} parts done"),
                                                                   timeout=SLOW_MS)
        cancel.click()
        expect(page.get_by_text("was cancelled")).to_be_visible(timeout=SLOW_MS)
        done = stored_chunks(store)
        assert 1 <= done < CHUNKS, done  # stopped at the end of a chunk; what was done is kept
        expect(page.get_by_test_id("stPlotlyChart")).to_have_count(0)
        kept(page)  # the user's choices survive the Cancel (the cancelled run and the next one overlap)
        # (the page counts what is left as its run starts; the run that was cancelled may still store the part it is
        # in: Streamlit starts the new run before the old one reaches its checkpoint, where it stops)
        said = page.get_by_text(re.compile(r"\((\d+) parts? of up to 65,536 n left\)"))
        expect(said).to_be_visible()
        left = int(re.search(r"\((\d+) part", said.inner_text()).group(1))
        assert CHUNKS - stored_chunks(store) <= left <= CHUNKS - done + 1, (left, done)

        click_for_run(page, page.get_by_role("button", name="Test every n of the range"), timeout=SLOW_MS)
        wait_for_figures(page, timeout=SLOW_MS)
        # every part kept, each its own entry (the last two hold the same p-values, all 1: once kept as one entry,
        # under one part's name; tests/test_pvalue_store.py)
        assert stored_chunks(store) == CHUNKS
        expect(page.get_by_text(re.compile(rf"of \d[\d,]* n from 1,000 to {N_MAX:,}"))).to_be_visible()
        expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        kept(page)
    finally:
        context.close()
