"""Fixtures of the real-browser tests: the dashboard served by ``streamlit run`` and Debian's Chromium.

The server is started once per session on a free port, with its own dataset store (``EVALCORE_STORE`` in a
temporary folder) and without ``EVALCORE_DEFAULT_DATASET``; it is stopped by its PID at the end. Every test
gets fresh browser contexts (fresh cookies and storage, so a fresh Streamlit session) from ``new_page``.
Downloading browsers is impossible here, so the tests use /usr/bin/chromium and FAIL (not skip) without it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

import live_servers

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}
STARTUP_TIMEOUT_S = 60

# Counts the app's script runs in the page, from what the server says: every ForwardMsg the page receives on its
# websocket is read for the field ``script_finished`` (ForwardMsg field 6, a varint status: 0 finished, 1 compile
# error; 2, stopped early for another rerun, is no finished run, and 3, a fragment's run, is none of the app: the
# Annotate page's watcher runs one every 2 s, evalcore_app/annotate.py), in the page's own listener.
# ``finished`` counts them; ``frameAtFinish`` is the animation frame it came in, and a run counts as shown once a
# later frame has been drawn (the frontend dispatches the message in the same task, or shows the run as running
# while it waits for a cached element). The attribute data-test-script-state of [data-testid="stApp"] ("running",
# "notRunning", ...) is not enough: a short run whose start and end reach a busy browser in one task is never shown
# as running. Issue 18's "page that never finishes" (the return to the Data page, all from the cache) was such a
# run: finished and drawn, never counted. ``started`` still counts changes of that attribute into "running".
RUN_COUNTER = (Path(__file__).with_name("run_counter.js")).read_text()

# A server started by ``serve`` runs Streamlit with faulthandler listening on SIGUSR1: when a browser test fails, every
# live server writes the stack of each of its threads to its log, and the report shows it (pytest_runtest_makereport
# below), so that a page that waits for a run that never comes says where the server is.
_DUMPING_MAIN = ("import faulthandler, runpy, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
                 "module = sys.argv.pop(1); runpy.run_module(module, run_name='__main__', alter_sys=True)")
_LIVE = live_servers.LIVE

expect.set_options(timeout=30_000)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server by its PID: terminate, then kill."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


MISSING_CHROMIUM = (f"The browser tests need Debian's Chromium at {CHROMIUM} (apt-get install chromium); "
                    "downloading a browser with `playwright install` is not possible here.")


@pytest.fixture(scope="session")
def browser() -> Browser | None:
    """Chromium, or None when it is missing: then every test FAILS (in new_page), none is skipped."""
    if not CHROMIUM.exists():
        yield None
        return
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("evalcore_store")


@contextmanager
def serve(args: list[str], store: Path, log_path: Path, poll_s: float = 0.25):
    """A dashboard server (``sys.executable`` run with ``args``, e.g. ``-m streamlit run app.py``) on a free port,
    with ``store`` as its store; yields its base URL once it answers /health, and stops it afterwards."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "EVALCORE_DEFAULT_DATASET"}
    env["EVALCORE_STORE"] = str(store)
    if args[0] == "-m":  # the same module run as __main__, with its threads' stacks on SIGUSR1
        args = ["-c", _DUMPING_MAIN, *args[1:]]
    cmd = [sys.executable, *args, "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().decode().strip() == "ok":
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer {url}/_stcore/health within {STARTUP_TIMEOUT_S} s:\n"
                                   f"{log_path.read_text()[-3000:]}")
            time.sleep(poll_s)
        _LIVE.append((proc, log_path))
        yield url
    finally:
        if (proc, log_path) in _LIVE:
            _LIVE.remove((proc, log_path))
        _stop(proc)


def server_threads() -> str:
    """Every live server's threads, whole (what it wrote after the signal), after the tail of its log before them
    (for a failed test's report, and for tests that look at a server's threads)."""
    out = []
    for proc, log_path in list(_LIVE):
        if proc.poll() is not None:
            out.append(f"server {proc.pid} exited with {proc.returncode}")
            continue
        before = log_path.stat().st_size
        os.kill(proc.pid, signal.SIGUSR1)
        deadline, size, still = time.monotonic() + 10, before, 0
        while time.monotonic() < deadline and still < 3:  # written at once: until the log stops growing
            time.sleep(0.2)
            now = log_path.stat().st_size
            still = still + 1 if now == size and now > before else 0
            size = now
        text = log_path.read_bytes()
        earlier, stacks = text[:before].decode(errors="replace"), text[before:].decode(errors="replace")
        out.append(f"server {proc.pid} ({log_path}), the end of its log before the signal:\n{earlier[-3000:]}\n"
                   f"its threads (all of them):\n{stacks}")
    return "\n\n".join(out)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and _LIVE:
        try:
            report.sections.append(("dashboard servers' threads at the failure", server_threads()))
        except OSError as exc:  # the report must still say the test failed
            report.sections.append(("dashboard servers' threads at the failure", f"not available: {exc}"))


@pytest.fixture(scope="session")
def app_url(browser, store_dir, tmp_path_factory):
    """The dashboard served by `streamlit run app.py` on a free port; its base URL (no trailing slash)."""
    if browser is None:  # no Chromium: no server either; the tests fail in new_page
        yield None
        return
    log_path = tmp_path_factory.mktemp("streamlit_log") / "streamlit.log"
    with serve(["-m", "streamlit", "run", "app.py"], store_dir, log_path) as url:
        yield url


@pytest.fixture()
def new_page(browser, app_url):
    """Open a path of the app in a NEW browser context (a fresh Streamlit session); returns the page.

    At the end of the test, no page may show a Streamlit traceback (stException).
    """
    contexts = []
    pages: list[Page] = []

    def open_page(path: str = "/", on_websocket=None, route_websocket=None) -> Page:
        """``path`` is a path of the app ("/precision?...") or a whole URL (a shared link); ``on_websocket``, if
        given, is called with the page's websocket (Playwright's "websocket" event) from the start;
        ``route_websocket``, if given, routes the page's websocket to Streamlit (Playwright's
        ``page.route_web_socket``: it gets the WebSocketRoute, and passes or holds each message) from the start."""
        if browser is None:
            pytest.fail(MISSING_CHROMIUM, pytrace=False)
        context = browser.new_context(viewport=VIEWPORT)
        context.add_init_script(RUN_COUNTER)
        contexts.append(context)
        page = context.new_page()
        if on_websocket is not None:
            page.on("websocket", on_websocket)
        if route_websocket is not None:
            page.route_web_socket("**/_stcore/stream", route_websocket)
        pages.append(page)
        # (on a loaded machine the page itself can take more than Playwright's 30 s: issue 30's runs at load 40)
        page.goto(path if path.startswith("http") else app_url + path, timeout=120_000)
        return page

    yield open_page
    try:
        for page in pages:
            expect(page.get_by_test_id("stException")).to_have_count(0, timeout=1_000)
    finally:
        for context in contexts:
            context.close()


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    """Where screenshots go: a temporary folder, or the README's docs/screenshots when
    EVALCORE_UPDATE_SCREENSHOTS=1 (so that a test run leaves the work tree clean)."""
    if os.environ.get("EVALCORE_UPDATE_SCREENSHOTS") == "1":
        path = REPO / "docs" / "screenshots"
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("screenshots")

