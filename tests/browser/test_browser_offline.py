"""Nothing a page shows is fetched off the host (issue 18, item 11): the page icon was a Material icon, which
Streamlit's front end loads from fonts.gstatic.com, so an offline server's pages logged console errors. In
Chromium, every request of a page with figures is recorded (and any to another host is refused, as offline), and
the console must show no failed load.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from urllib.parse import urlsplit

from test_browser import wait_for_app

_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)


def test_no_request_leaves_the_host(browser, app_url):
    assert browser is not None, browser_conftest.MISSING_CHROMIUM
    host = urlsplit(app_url).hostname
    off_host: list[str] = []
    errors: list[str] = []
    context = browser.new_context(viewport=browser_conftest.VIEWPORT)
    context.add_init_script(browser_conftest.RUN_COUNTER)

    def route(r):
        url = r.request.url
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname != host:
            off_host.append(url)
            return r.abort()
        return r.continue_()

    context.route("**/*", route)
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        failed: list[str] = []
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(f"{app_url}/precision?dataset=sample:collocations_sim&ties=stable")
        wait_for_app(page)
        icon = page.evaluate("document.querySelector(\"link[rel='shortcut icon']\").href")
        assert icon.startswith("data:") or urlsplit(icon).hostname == host, icon
        assert off_host == [], off_host
        # Streamlit's front end, opened on a page's path, first looks for its server one folder up
        # (/precision/_stcore/health and host-config: 404) and then finds it at /_stcore/: not a failed load
        probes = [f for f in failed if f.startswith("404 ") and "/precision/_stcore/" in f]
        assert len([e for e in errors if "Failed to load" in e or "ERR_" in e]) == len(probes), (errors, failed)
        assert len(failed) == len(probes), failed
    finally:
        context.close()
