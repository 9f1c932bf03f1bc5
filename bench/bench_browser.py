"""Dashboard latency as a person feels it, in Debian's Chromium (issue 10).

Each step is timed from the user's action (a key on a slider, a click in the sidebar, a file
dropped on the uploader, a link opened) until the Streamlit run it triggers has finished and
every figure on the page is drawn. The floor is a trivial Streamlit app (one slider, one plotly
figure) served and measured in the same run; every step is also reported as a ratio to the
floor's slider step (or, for a first visit, to the floor's first visit).

Steps (the paper's data set from ../shared, 5,102 candidates; and 1,000,000 synthetic ones):

* slider key on Significance (the confidence level) -> Figure 3 and the difference panel redrawn (in place, by
  evalcore_app/components/plot), and on
  Confidence -> the bands redrawn, each key pressed in turn with a key on the floor app (kept open beside it), so
  that both are timed under the same load (the ratio is to those floor keys);
* switch to Precision / Confidence after their first use;
* upload -> the Data page's summary shown (a new file each time, so nothing is cached);
* first visit to a fresh server (a link to the Significance page).

What a person feels first (issue 34), with ``--felt``: each against the floor app in the same run, for the
dashboard of this tree and of each ``--root NAME=DIR`` (e.g. main's code, ``git archive main | tar -x -C DIR``),
each in turn with keys on the floor app so that both meet the same load:

* first visit to a fresh server started as ``./dev run`` starts it (``python -m evalcore_app.serve``, the sample data set as
  the default; the Data page) -> ratio to the floor's first visit to a fresh server;
* upload of Krenn's file (and of 1,000,000 generated rows) -> its summary shown, then the switch to Precision right
  after it (the page's first run on the new data), and a second switch to Precision (via Data) -> ratios to the
  floor's keys pressed in turn with them;
* the same steps in Streamlit's own floor for them, a trivial two-page app (``FLOOR_PAGES_APP``: pandas reads the
  upload and one metric shows its rows; the other page is one slider and one plotly figure). Its first switch loads
  Streamlit's plotly chart code into the browser (8.8x and 12.4x the floor's key in two runs at load 7-19; its
  second switch 0.87x): a first switch to a page with a figure costs that in any Streamlit app that does not load
  it beforehand.

Last run (issue 34, ``--felt --repeat 3 --root main=DIR``, load 0.4 to 11.7; README, "Speed", has three): first
visit 1.31x (main 1.52x); Krenn upload -> summary 4.70x (main 3.78x), switch to Precision after it 3.72x (main
7.75x); 1,000,000 rows upload 9.65x (main 17.23x), switch 3.80x (main 22.12x). The machine's load average over the
steps is printed with the table.


With ``--server-rows`` (issue 34), a generated data set of that many rows in a folder of large data sets
(``EVALCORE_DATA_DIR``; :func:`evalcore.engines.synthetic.write_parquet`, the browser test's) on the Significance
page: its first open (DuckDB counts it, Fisher's test at every n of the range, the p-values kept in the store), a level
key after it (each key in turn with one on the floor app), the same link reopened by a new session and by a
restarted server on the same store (the count tables and the p-values read from it), and keys on the range's
upper end (one step up, a wider range, and back). ``--server-range lo:hi`` opens that range instead of the page's
default; ``--before DIR`` measures the same steps on another checkout's code in the same run (main's:
``git archive main | tar -x -C DIR``), served from DIR with this environment. The server gets the work budget of a
host that serves sets this large (``EVALCORE_WORK_BUDGET`` of this environment, else 1 hour: the first open counts
every candidate, about 60 estimated seconds per 10^8 rows and measure).

Usage: python bench/bench_browser.py [--repeat 5] [--no-million] [--server-rows 1000000,10000000]
       python bench/bench_browser.py --felt [--repeat 5] [--no-million] [--root main=/tmp/i34-visits-main]
       python bench/bench_browser.py --server-only --server-rows 1000000
       [--server-range 2000:602000] [--server-folder DIR] [--before DIR] [--server-only]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import synthetic  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # noqa: E402

KRENN = ROOT.parent / "shared" / "data" / "krenn_ppv.tsv"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
FLOOR_APP = '''
import numpy as np
import plotly.graph_objects as go
import streamlit as st

n = st.slider("Points", 10, 1000, 500, step=10)
x = np.arange(n)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sqrt(x))))
'''
# Streamlit's own floor for the felt steps (``--felt``): the same two steps in a trivial two-page app, so that what
# the framework itself costs for an upload and a page switch is measured beside the dashboard's. Its Data page reads
# the uploaded file with pandas and shows one metric; its Precision page ranks by the first numeric column and draws
# the n-best precision curve in one plotly figure under one slider (the floor app's page).
FLOOR_PAGES_APP = '''
import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st


def data():
    upload = st.file_uploader("Candidates")
    if upload is not None:
        raw = upload.getvalue()
        frame = (pd.read_parquet(io.BytesIO(raw)) if upload.name.endswith(".parquet")
                 else pd.read_csv(io.BytesIO(raw), sep="\\t"))
        st.session_state["frame"] = frame
        st.metric("Candidates", len(frame))


def precision():
    frame = st.session_state.get("frame")
    n = st.slider("Points", 10, 1000, 500, step=10)
    if frame is not None:
        label = next(c for c in frame.columns if c == "tp" or frame[c].dtype == bool)
        score = next(c for c in frame.columns if c not in (label, "id") and pd.api.types.is_float_dtype(frame[c]))
        hits = frame[label].to_numpy()[np.argsort(-frame[score].to_numpy(), kind="stable")][:n]
        x = np.arange(1, len(hits) + 1)
        st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.cumsum(hits) / x)))


st.navigation([st.Page(data, title="Data", default=True), st.Page(precision, title="Precision")]).run()
'''
# Counts finished script runs as tests/browser/conftest.py does: from the script_finished messages on the page's
# websocket (a run too short to be shown as running, the floor app's or one from the cache, is counted too).
RUN_COUNTER = (ROOT / "tests" / "browser" / "run_counter.js").read_text()
# A run has finished since the action, the page shows it (no stale element, no skeleton), and every chart element
# holds a drawn plotly figure (tests/browser/test_browser.py's SETTLED, without a figure count).
DONE = """(runsBefore) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (window.__stRuns.finished <= runsBefore) return false;
  if (window.__stRuns.frame <= window.__stRuns.frameAtFinish) return false;
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.querySelector('[data-testid="stElementContainer"]')) return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')) return false;
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'));
  // a chart's place: st.plotly_chart's, or a chart drawn in place (evalcore_app/components/plot), which is busy while drawing
  const slots = document.querySelectorAll('[data-testid="stElementContainer"].stPrintGraphic, '
                                          + '[data-testid="stElementContainer"]:has(> .stBidiComponent)');
  if (document.querySelector('[data-testid="stPlotlyChart"][aria-busy="true"]')) return false;
  if (charts.length !== slots.length) return false;
  return charts.every(chart => {
    const gd = chart.querySelector('.js-plotly-plot');
    return !!gd && !!gd._fullLayout && !!gd._fullData && gd._fullData.length === gd.data.length
        && !!gd.querySelector('.cartesianlayer .trace, .cartesianlayer .hm');
  });
}"""
# Bytes the page receives on its websocket (every message counted, whichever is the app's): what a key costs in
# transfer, which the load of a shared machine does not change (a Significance level key: 128 KB on main c180f1b,
# 97 KB of it a table whose Styler uuid changed on every rerun; evalcore_app/tables.py).
BYTES_COUNTER = """(() => {
  window.__stBytes = 0;
  const Native = window.WebSocket;
  const Counting = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener('message', event => { window.__stBytes += event.data.byteLength || event.data.size || 0; });
    return socket;
  };
  Counting.prototype = Native.prototype;
  Object.assign(Counting, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Counting;
})();"""
SUMMARY_SHOWN = """(runsBefore) => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning' && window.__stRuns.finished > runsBefore
      && document.querySelectorAll('[data-testid="stMetric"]').length > 0;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


STARTED: list["Server"] = []  # every server started, stopped at the end even when a step fails


class Server:
    """``streamlit run`` of a script on a free port, with its own dataset store; the dashboard is started
    as ``./dev run`` does, through ``python -m evalcore_app.serve`` (warmed before it accepts anyone)."""

    def __init__(self, script: Path, store: Path, cwd: Path = ROOT, env: dict | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        extra = env or {}
        env = {**os.environ, "EVALCORE_STORE": str(store), "PYTHONUNBUFFERED": "1"}
        env.pop("EVALCORE_DEFAULT_DATASET", None)
        env.update(extra)
        dashboard = script.name == "app.py" and (script.parent / "evalcore_app" / "serve.py").exists()
        if dashboard:  # (another tree's dashboard: its own evalcore and evalcore_app/ first on the path)
            env["PYTHONPATH"] = str(script.parent)
            cwd = script.parent
        # (streamlit through this interpreter: the .venv/bin/streamlit script's first line may name another checkout)
        launcher = [sys.executable, "-m", "evalcore_app.serve"] if dashboard else [sys.executable, "-m", "streamlit", "run",
                                                                         str(script)]
        self.proc = subprocess.Popen(
            [*launcher, "--server.headless", "true", "--server.port", str(self.port),
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=script.parent if dashboard else cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        STARTED.append(self)
        deadline = time.time() + 600  # (a checkout whose compiled kernels are not cached yet compiles them first)
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.url + "/_stcore/health", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{script} did not start")

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


KEY_TIMEOUT_MS = 20_000  # far above any step measured (0.2 to 1 s)


def runs(page) -> int:
    return page.evaluate("window.__stRuns.finished")


def timed(page, action, done=DONE, timeout_ms: float = 120_000) -> float:
    """Seconds from the action until the run it starts has finished and the figures are drawn."""
    before = runs(page)
    t0 = time.perf_counter()
    action()
    page.wait_for_function(done, arg=before, timeout=timeout_ms, polling="raf")
    return time.perf_counter() - t0


def open_page(browser, url: str, timeout_ms: float = 180_000):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.add_init_script(BYTES_COUNTER)
    context.add_init_script(RUN_COUNTER)
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function(DONE, arg=0, timeout=timeout_ms, polling="raf")
    return page, time.perf_counter() - t0


def settle(page, quiet_s: float = 0.5) -> None:
    """Wait until no run has started for ``quiet_s`` (a page may rerun itself once after its first run)."""
    last = (runs(page), time.perf_counter())
    while time.perf_counter() - last[1] < quiet_s:
        time.sleep(0.05)
        now = runs(page)
        if now != last[0] or page.evaluate("window.__stRuns.state") != "notRunning":
            last = (now, time.perf_counter())


class SliderKey:
    """Key presses on one slider, alternately right and left, each timed until its run has finished and the
    figures are drawn; a key that moved the thumb but started no run (Streamlit, now and then, for the floor too)
    is pressed again and counted in ``missed``."""

    def __init__(self, page, label: str):
        self.page, self.label, self.presses, self.missed = page, label, 0, 0
        self.bytes: list[int] = []  # received on the websocket from each timed key to its figures drawn
        self.thumb = page.get_by_test_id("stSlider").filter(has_text=label).locator("input[type=range]").first
        self.thumb.wait_for(state="attached")

    def press(self, limit: int = 20) -> float:
        while True:
            settle(self.page)
            key = "ArrowRight" if self.presses % 2 == 0 else "ArrowLeft"
            self.presses += 1
            self.thumb.focus()
            try:
                before = self.page.evaluate("window.__stBytes")
                seconds = timed(self.page, lambda: self.thumb.press(key), timeout_ms=KEY_TIMEOUT_MS)
                self.bytes.append(self.page.evaluate("window.__stBytes") - before)
                return seconds
            except PlaywrightTimeoutError:
                self.missed += 1
                if self.missed > limit:
                    raise


def slider_steps(page, label: str, repeat: int) -> list[float]:
    """Key presses on a slider, alternately right and left; the first (a warm-up) is not counted."""
    slider = SliderKey(page, label)
    times = [slider.press(repeat) for _ in range(repeat + 1)]
    if slider.missed:
        print(f"({label}: {slider.missed} key(s) started no run and were pressed again)", file=sys.stderr)
    return times[1:]


def interleaved_steps(floor: SliderKey, app: SliderKey, repeat: int) -> tuple[list[float], list[float]]:
    """A key on the floor app's slider, then one on the dashboard's, ``repeat`` times (after one warm-up pair):
    both measured under the same load, which on a shared machine changes from one second to the next."""
    floor_times, app_times = [], []
    for i in range(repeat + 1):
        f, a = floor.press(repeat), app.press(repeat)
        if i:
            floor_times.append(f)
            app_times.append(a)
    for slider in (floor, app):
        if slider.missed:
            print(f"({slider.label}: {slider.missed} key(s) started no run and were pressed again)", file=sys.stderr)
    return floor_times, app_times


def switch_steps(page, titles: list[str], repeat: int) -> dict[str, list[float]]:
    nav = page.get_by_test_id("stSidebarNav")
    for title in titles:  # first use
        settle(page)
        timed(page, lambda: nav.get_by_role("link", name=title).click())
    times = {t: [] for t in titles}
    missed = 0
    for _ in range(repeat):
        for title in titles:
            while True:
                settle(page)
                try:
                    times[title].append(timed(page, lambda: nav.get_by_role("link", name=title).click(),
                                              timeout_ms=KEY_TIMEOUT_MS))
                    break
                except PlaywrightTimeoutError:  # a click that started no run (as keys, now and then): again
                    missed += 1
                    if missed > repeat:
                        raise
    if missed:
        print(f"(page switches: {missed} click(s) started no run and were made again)", file=sys.stderr)
    return times


def upload_steps(browser, url: str, make_file, repeat: int) -> list[float]:
    """Upload a different file each time (so no cache answers) on the Data page; time until the summary shows."""
    page, _ = open_page(browser, url + "/")
    times = []
    for i in range(repeat):
        path = make_file(i)
        settle(page)
        uploader = page.get_by_test_id("stFileUploader").locator("input[type=file]")
        times.append(timed(page, lambda: uploader.set_input_files(str(path)), done=SUMMARY_SHOWN))
        page.context.close()
        page, _ = open_page(browser, url + "/")
    page.context.close()
    return times


def store_dataset(store: Path, data: bytes, name: str) -> str:
    os.environ["EVALCORE_STORE"] = str(store)
    from evalcore.io.store import DatasetStore

    return DatasetStore(store).put(data, name)


def median(values) -> float:
    return statistics.median(values)


LOADS: list[float] = []  # the machine's 1-minute load average, taken at each measured step (printed at the end)


def load_now() -> float:
    LOADS.append(os.getloadavg()[0])
    return LOADS[-1]


def felt(browser, tmp: Path, floor_key: SliderKey, floor_first_visits: list[float], roots: list[tuple[str, Path]],
         repeat: int, million: bool) -> list[tuple]:
    """What a person feels first (see the module's docstring), for each tree in ``roots``."""
    rows = []
    files = [("Krenn, 5,102", KRENN.read_bytes(), ".tsv")]
    if million:
        labels, a, b = synthetic(1_000_000)
        buffer = io.BytesIO()
        pd.DataFrame({"id": np.arange(1_000_000), "tp": labels, "score_a": a, "score_b": b}).to_parquet(
            buffer, index=False)
        files.append(("1,000,000", buffer.getvalue(), ".parquet"))
    floor_first = median(floor_first_visits)
    for name, root in roots:
        firsts = []
        for i in range(repeat):  # a fresh server each time, started as ./dev run starts it
            load_now()
            server = Server(root / "app.py", tmp / f"store_first_{name}_{i}",
                            env={"EVALCORE_DEFAULT_DATASET": "sample:collocations_sim"})
            page, first = open_page(browser, server.url + "/")
            firsts.append(first)
            page.context.close()
            server.stop()
        rows.append((f"[{name}] first visit to a fresh server (./dev run, /)", median(firsts),
                     median(firsts) / floor_first))
        server = Server(root / "app.py", tmp / f"store_up_{name}")
        for title, data, suffix in files:
            ups, switches, agains, floors = [], [], [], []
            for i in range(repeat):
                path = tmp / f"upload_{name}_{i}{suffix}"  # a new file each time: no cache answers
                if suffix == ".parquet":
                    frame = pd.read_parquet(io.BytesIO(data))
                    frame[f"copy_{i}"] = i
                    frame.to_parquet(path, index=False)
                else:
                    frame = pd.read_csv(io.BytesIO(data), sep="\t")
                    frame[f"copy_{i}"] = i
                    frame.to_csv(path, sep="\t", index=False)
                load_now()
                floors.append(floor_key.press(repeat))
                page, _ = open_page(browser, server.url + "/")
                settle(page)
                uploader = page.get_by_test_id("stFileUploader").locator("input[type=file]")
                ups.append(timed(page, lambda: uploader.set_input_files(str(path)), done=SUMMARY_SHOWN))
                settle(page)
                floors.append(floor_key.press(repeat))
                nav = page.get_by_test_id("stSidebarNav")
                switches.append(timed(page, lambda: nav.get_by_role("link", name="Precision").click(),
                                      timeout_ms=300_000))
                settle(page)  # back to Data, then Precision again: a switch whose code the browser has loaded
                timed(page, lambda: nav.get_by_role("link", name="Data", exact=True).click(), timeout_ms=300_000)
                settle(page)
                floors.append(floor_key.press(repeat))
                agains.append(timed(page, lambda: nav.get_by_role("link", name="Precision").click(),
                                    timeout_ms=300_000))
                page.context.close()
            floor = median(floors)
            rows.append((f"[{name}] {title}: upload -> summary shown", median(ups), median(ups) / floor))
            rows.append((f"[{name}] {title}: switch to Precision after the upload", median(switches),
                         median(switches) / floor))
            rows.append((f"[{name}] {title}: switch to Precision again (via Data)", median(agains),
                         median(agains) / floor))
            rows.append((f"[{name}] {title}:   (floor's keys in turn with them)", floor, 1.0))
        server.stop()
    return rows


SERVER_BUDGET = os.environ.get("EVALCORE_WORK_BUDGET", "1h")  # the server sets' host's budget (the count's first open)
FIRST_OPEN_MS = 4 * 3600 * 1000  # a first open counts the whole set (10^8 rows on a loaded machine: many minutes)
RANGE_LABEL = "Range of n (every n in it is tested)"


def shows_no_error(page, step: str) -> None:
    """A step whose page shows an exception or an error measured nothing: say so (DONE holds on a page without
    figures too)."""
    for test_id in ("stException", "stAlertContentError"):
        shown = page.get_by_test_id(test_id)
        if shown.count():
            raise RuntimeError(f"{step}: the page shows {test_id}: {shown.first.inner_text()[:500]}")
    if not page.get_by_test_id("stPlotlyChart").count():
        raise RuntimeError(f"{step}: the page draws no figure")


def server_steps(browser, floor_key, code: Path, tag: str, folder: Path, store: Path, rows: int,
                 n_range: tuple | None, repeat: int) -> list[tuple]:
    """A server data set on Significance, served by the checkout ``code`` (see the module's docstring)."""
    out = []
    # a host serving sets this large gives a request the time to count one (60 s counts about 10^8 rows' worth)
    env = {"EVALCORE_DATA_DIR": str(folder), "PYTHONPATH": str(code), "EVALCORE_WORK_BUDGET": SERVER_BUDGET}
    link = "/significance?dataset=server%3Abig.parquet&ties=hash&seed=0&a=a&b=b"
    if n_range:
        link += f"&n_min={n_range[0]}&n_max={n_range[1]}"
    title = f"{tag}: server {rows:,}" + (f", n {n_range[0]:,}..{n_range[1]:,}" if n_range else "")
    server = Server(code / "app.py", store, env=env)
    page, first = open_page(browser, server.url + link, FIRST_OPEN_MS)
    shows_no_error(page, f"{title}: first open")
    out.append((f"{title}: first open (count, test every n)", first, float("nan")))
    floors, keys = interleaved_steps(floor_key, SliderKey(page, "Confidence level"), repeat)
    shows_no_error(page, f"{title}: level keys")
    out.append((f"{title}: level key on Significance", median(keys), median(keys) / median(floors)))
    out.append((f"{title}:   (floor's keys in turn with it)", median(floors), 1.0))
    floors, keys = [], []
    for _ in range(max(1, repeat // 2)):  # the range's upper end one step up (a wider range), then back
        floors.append(floor_key.press(repeat))
        thumb = page.get_by_role("slider", name=RANGE_LABEL).nth(1)
        for key in ("ArrowRight", "ArrowLeft"):
            settle(page)
            thumb.focus()
            keys.append(timed(page, lambda: thumb.press(key), timeout_ms=FIRST_OPEN_MS))
    shows_no_error(page, f"{title}: range keys")
    out.append((f"{title}: range key (upper end) on Significance", median(keys), median(keys) / median(floors)))
    page.context.close()
    page, again = open_page(browser, server.url + link, FIRST_OPEN_MS)
    shows_no_error(page, f"{title}: the link in a new session")
    out.append((f"{title}: the link in a new session", again, float("nan")))
    page.context.close()
    server.stop()
    server = Server(code / "app.py", store, env=env)  # a restart: nothing but the store
    page, restarted = open_page(browser, server.url + link, FIRST_OPEN_MS)
    shows_no_error(page, f"{title}: the link on a restarted server")
    out.append((f"{title}: the link on a restarted server (same store)", restarted, float("nan")))
    page.context.close()
    server.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-million", action="store_true")
    parser.add_argument("--felt", action="store_true", help="only what a person feels first (issue 34)")
    parser.add_argument("--root", action="append", default=[], metavar="NAME=DIR",
                        help="with --felt: also the dashboard of the tree DIR (e.g. main's code), named NAME")
    parser.add_argument("--server-rows", default="", help="comma-separated sizes of generated server data sets")
    parser.add_argument("--server-range", default="", help="lo:hi, the range of n to open them on")
    parser.add_argument("--server-folder", help="a folder to keep the generated sets in (big_<rows>/big.parquet)")
    parser.add_argument("--before", help="another checkout (main's) to measure the server steps on too")
    parser.add_argument("--server-only", action="store_true", help="only the floor and the server steps")
    args = parser.parse_args()
    roots = [("this tree", ROOT)] + [(n, Path(d).resolve()) for n, _, d in (r.partition("=") for r in args.root)]
    floor_pages = None  # with --felt: Streamlit's own floor for an upload and a page switch (FLOOR_PAGES_APP)
    server_rows = [int(float(r)) for r in args.server_rows.split(",") if r]
    server_range = tuple(int(x) for x in args.server_range.split(":")) if args.server_range else None
    from playwright.sync_api import sync_playwright

    rows = []
    load_now()
    sent: dict[str, float] = {}  # median bytes received per key
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        tmp = Path(tmp)
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        floor_script = tmp / "floor.py"
        floor_script.write_text(FLOOR_APP)

        # the floor: first visit to a fresh server, then slider keys; its server stays up, so that its keys are
        # pressed in turn with the dashboard's (the same load for both)
        floor_server = Server(floor_script, tmp / "floor_store", cwd=tmp)
        floor_page, floor_first = open_page(browser, floor_server.url + "/")
        floor_key = SliderKey(floor_page, "Points")
        floor = median(slider_steps(floor_page, "Points", args.repeat))
        floor_key.bytes.clear()
        rows.append(("floor: slider key -> figure redrawn", floor, 1.0))
        if args.felt:  # the floor's first visit to a fresh server, several times (a median, as the dashboard's)
            firsts = [floor_first]
            for i in range(args.repeat - 1):
                again = Server(floor_script, tmp / f"floor_store_{i}", cwd=tmp)
                page, first = open_page(browser, again.url + "/")
                firsts.append(first)
                page.context.close()
                again.stop()
            floor_first = median(firsts)
        rows.append(("floor: first visit to a fresh server", floor_first, 1.0))
        for rows_n in server_rows:
            from evalcore.engines.synthetic import write_parquet

            folder = Path(args.server_folder or tmp) / f"big_{rows_n}"
            folder.mkdir(parents=True, exist_ok=True)
            if not (folder / "big.parquet").exists():
                write_parquet(folder / "big.parquet", rows_n)
            codes = [("after", ROOT)] + ([("before", Path(args.before).resolve())] if args.before else [])
            for tag, code in codes:
                store = tmp / f"store_server_{rows_n}_{tag}"
                rows.extend(server_steps(browser, floor_key, code, tag, folder, store, rows_n, server_range,
                                         args.repeat))
                shutil.rmtree(store) if store.is_relative_to(tmp) else None
                print(*rows[-6:], sep="\n", flush=True)

        if args.felt:
            floor_pages = tmp / "floor_pages"
            floor_pages.mkdir()
            (floor_pages / "app.py").write_text(FLOOR_PAGES_APP)
            roots.append(("Streamlit floor, two pages", floor_pages))
            rows += felt(browser, tmp, floor_key, firsts, roots, args.repeat, not args.no_million)
            data_sets = []
        else:
            data_sets = [("Krenn, 5,102", KRENN.read_bytes(), "krenn_ppv.tsv", "log.like", "chisq")]
        if args.server_only:
            data_sets = []
        elif not args.no_million and not args.felt:
            labels, a, b = synthetic(1_000_000)
            buffer = io.BytesIO()
            pd.DataFrame({"id": np.arange(1_000_000), "tp": labels, "score_a": a, "score_b": b}).to_parquet(
                buffer, index=False)
            data_sets.append(("1,000,000", buffer.getvalue(), "million.parquet", "score_a", "score_b"))

        for title, data, name, a, b in data_sets:
            store = tmp / f"store_{name}"
            dataset = store_dataset(store, data, name)
            link = f"/significance?dataset={dataset}&ties=stable&a={a}&b={b}"

            server = Server(ROOT / "app.py", store)  # a fresh server: its first visitor
            page, first = open_page(browser, server.url + link)
            rows.append((f"{title}: first visit to a fresh server (Significance link)", first, first / floor_first))
            level_key = SliderKey(page, "Confidence level")
            floors, keys = interleaved_steps(floor_key, level_key, args.repeat)
            rows.append((f"{title}: slider key on Significance -> figure redrawn", median(keys),
                         median(keys) / median(floors)))
            rows.append((f"{title}:   (floor's keys in turn with it)", median(floors), 1.0))
            sent[f"{title}: Significance level key"] = median(level_key.bytes[1:])
            switches = switch_steps(page, ["Precision", "Confidence"], args.repeat)
            for page_title, values in switches.items():
                rows.append((f"{title}: switch to {page_title} after first use", median(values),
                             median(values) / floor))
            level_key = SliderKey(page, "Confidence level")
            floors, keys = interleaved_steps(floor_key, level_key, args.repeat)
            rows.append((f"{title}: slider key on Confidence -> figure redrawn", median(keys),
                         median(keys) / median(floors)))
            sent[f"{title}: Confidence level key"] = median(level_key.bytes[1:])
            rows.append((f"{title}:   (floor's keys in turn with it)", median(floors), 1.0))
            page.context.close()

            suffix = Path(name).suffix

            def make_file(i: int, data=data, suffix=suffix) -> Path:
                path = tmp / f"upload_{i}{suffix}"
                if suffix == ".parquet":
                    frame = pd.read_parquet(io.BytesIO(data))
                    frame[f"copy_{i}"] = i
                    frame.to_parquet(path, index=False)
                else:
                    frame = pd.read_csv(io.BytesIO(data), sep="\t")
                    frame[f"copy_{i}"] = i
                    frame.to_csv(path, sep="\t", index=False)
                return path

            up = upload_steps(browser, server.url, make_file, max(3, args.repeat // 2))
            rows.append((f"{title}: upload -> summary shown", median(up), median(up) / floor))
            server.stop()
            shutil.rmtree(store) if store.is_relative_to(tmp) else None
        floor_page.context.close()
        floor_server.stop()
        browser.close()

    width = max(len(r[0]) for r in rows)
    load_now()
    print(f"machine: {os.cpu_count()} cores, 1-minute load average {min(LOADS):.1f} to {max(LOADS):.1f} over the "
          f"steps (median {median(LOADS):.1f})")
    print(f"{'step':<{width}}  median s  x floor")
    for step, seconds, ratio in rows:
        print(f"{step:<{width}}  {seconds:8.3f}  {ratio:7.2f}")
    print(f"\n{'bytes received per key (median)':<{width}}     bytes  x floor")
    floor_bytes = median(floor_key.bytes) if floor_key.bytes else float("nan")
    print(f"{'floor: slider key':<{width}}  {floor_bytes:8.0f}  {1.0:7.2f}")
    for step, value in sent.items():
        print(f"{step:<{width}}  {value:8.0f}  {value / floor_bytes:7.2f}")


if __name__ == "__main__":
    try:
        main()
    finally:
        for started in STARTED:
            started.stop()
