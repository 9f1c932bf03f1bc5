"""A fresh server's first page (issue 10): the app's own navigation from the first moment the sidebar shows
anything (never the modules of pages/ or evalcore_app/, never Streamlit's file-based page list), and no "Deploy" button.

Its own server: the session's server (conftest.py) has long been warm when this runs, and the sidebar's start-up
state shows only on a server that has not yet run app.py. The sidebar is watched from the page's first script on
(a MutationObserver records every navigation label the page ever shows), and the test waits for the first run
to finish (test_browser.wait_for_app), never for a fixed time.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from playwright.sync_api import expect

from test_browser import PAGES, wait_for_app

_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)

REPO = Path(__file__).resolve().parents[2]
TITLES = set(PAGES) | {"Annotate"}  # app.py's st.Page titles
HELPERS = {p.stem for p in (REPO / "evalcore_app").glob("*.py")} | {"app", "cached", "common", "guards", "widgets"}

# Every label the sidebar's navigation shows, from the document's creation on: recorded on each DOM change.
NAV_WATCH = r"""
(() => {
  const seen = window.__navSeen = [];
  const record = () => {
    for (const link of document.querySelectorAll('[data-testid="stSidebarNav"] a, [data-testid="stSidebarNavLink"]')) {
      // the label is the link's last line (a Material icon's name comes first)
      const lines = (link.innerText || link.textContent || '').split('\n').map(t => t.trim()).filter(Boolean);
      const text = lines.length ? lines[lines.length - 1] : '';
      if (text && !seen.includes(text)) seen.push(text);
    }
  };
  new MutationObserver(record).observe(document, {childList: true, subtree: true, characterData: true});
  record();
})();
"""


@pytest.fixture()
def fresh_url(browser, tmp_path):
    """A server started for this test alone (nothing imported or run yet); its URL once it answers /health."""
    if browser is None:
        pytest.fail(browser_conftest.MISSING_CHROMIUM, pytrace=False)
    # README's `./dev run`; polled often: the page is opened the moment the server answers
    with browser_conftest.serve(["-m", "evalcore_app.serve"], tmp_path / "store", tmp_path / "streamlit.log", 0.05) as url:
        yield url


# Streamlit (1.67) starts in its file-based mode when a folder named pages/ lies beside app.py: until app.py has
# called st.navigation, the sidebar lists app.py and every file in pages/ by file name ("app", "across", ...).
# evalcore_app/serve.py (what `./dev run` starts) leaves that mode before the first visitor; this test fails without it.
@pytest.mark.parametrize("path", ["/", "/significance"])
def test_a_fresh_server_shows_the_apps_navigation_from_the_start(browser, fresh_url, path):
    context = browser.new_context(viewport=browser_conftest.VIEWPORT)
    try:
        context.add_init_script(browser_conftest.RUN_COUNTER)
        context.add_init_script(NAV_WATCH)
        page = context.new_page()
        page.goto(fresh_url + path)  # the first visitor: app.py has not run in this server yet
        wait_for_app(page)
        nav = page.get_by_test_id("stSidebarNav")
        for title in TITLES:
            expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
        seen = page.evaluate("window.__navSeen")
        assert set(seen) <= TITLES, f"the sidebar showed {sorted(set(seen) - TITLES)} during start-up"
        assert not set(seen) & HELPERS
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()


def test_no_deploy_button(new_page):
    page = new_page("/")
    wait_for_app(page)
    expect(page.get_by_test_id("stToolbar")).to_have_count(1)  # the toolbar is there, without the button
    expect(page.get_by_test_id("stAppDeployButton")).to_have_count(0)
    expect(page.get_by_role("button", name="Deploy")).to_have_count(0)
    expect(page.get_by_text("Deploy", exact=True)).to_have_count(0)


def test_the_server_watches_no_source_files(browser, fresh_url):
    """A lab's server does not watch its source files (.streamlit/config.toml: fileWatcherType "none"). Streamlit's
    watcher follows the app's folder recursively, .venv included; when a session ended, the server's event loop
    waited for the watcher's thread, which under load was minutes behind (inotify's queue overflowed): every
    session's clicks went unanswered (CI, tests/browser/test_browser_serverdata.py). After a session has come and
    gone, no thread of the server watches folders (the stacks faulthandler writes on SIGUSR1; Streamlit still polls
    its two config files, config.toml and secrets.toml, one file each, whatever the setting)."""
    context = browser.new_context(viewport=browser_conftest.VIEWPORT)
    try:
        context.add_init_script(browser_conftest.RUN_COUNTER)
        page = context.new_page()
        page.goto(fresh_url + "/")
        wait_for_app(page)
    finally:
        context.close()  # the session ends
    stacks = browser_conftest.server_threads()
    assert "Thread 0x" in stacks or "Current thread 0x" in stacks, stacks[-2000:]
    assert "watchdog" not in stacks and "event_based_path_watcher" not in stacks, stacks[-6000:]
