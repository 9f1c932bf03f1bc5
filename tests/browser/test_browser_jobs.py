"""A closed tab's work stops (issue 19): a Significance link starts a long bootstrap in Chromium, the page is closed,
and the server's CPU time stops growing within 10 s. On main the work went on (its only checkpoint was every 5% of
the resamples: half a minute here, an hour in the issue's case).

The server is this module's own (the work budget set to unlimited, so that the long work starts at all); its CPU
time is read from /proc by its PID, found from its port."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from evalcore.io.store import DatasetStore

from conftest import MISSING_CHROMIUM, RUN_COUNTER, VIEWPORT, serve

N = 50_000


def _server_pid(port: int) -> int:
    """The PID of the process started with ``--server.port <port>`` (our own server)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                args = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"--server.port" in args and args[args.index(b"--server.port") + 1] == str(port).encode():
                return int(entry)
    raise AssertionError(f"no server process on port {port}")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process (all its threads), from /proc/<pid>/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rate(pid: int, seconds: float = 1.0) -> float:
    """CPU seconds per second over the next ``seconds``."""
    start, t0 = _cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (_cpu_seconds(pid) - start) / (time.monotonic() - t0)


@pytest.fixture(scope="module")
def busy_server(browser, tmp_path_factory):
    if browser is None:
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    store = tmp_path_factory.mktemp("jobs_store")
    rng = np.random.default_rng(0)
    labels = rng.random(N) < 0.11
    table = pd.DataFrame({"gold": np.where(labels, "TP", "FP"),
                          "score_a": np.round(labels * 1.0 + rng.normal(size=N), 6),
                          "score_b": np.round(labels * 0.8 + rng.normal(size=N), 6)})
    dataset = DatasetStore(store).put(table.to_csv(sep="\t", index=False).encode(), "big.tsv")
    saved = os.environ.get("EVALCORE_WORK_BUDGET")
    os.environ["EVALCORE_WORK_BUDGET"] = "unlimited"  # serve() hands the environment to the server
    try:
        with serve(["-m", "streamlit", "run", "app.py"], store,
                   tmp_path_factory.mktemp("jobs_log") / "streamlit.log") as url:
            yield url, dataset, _server_pid(int(url.rsplit(":", 1)[1]))
    finally:
        if saved is None:
            os.environ.pop("EVALCORE_WORK_BUDGET", None)
        else:
            os.environ["EVALCORE_WORK_BUDGET"] = saved


def test_a_closed_tab_stops_its_work_within_10_seconds(browser, busy_server):
    url, dataset, pid = busy_server
    link = (f"{url}/significance?dataset={dataset}&label=gold&score=score_a&score=score_b&a=score_a&b=score_b"
            f"&ties=stable&seed=1&n_min=50&n_max={N}&test=bootstrap&resamples=100000")
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(RUN_COUNTER)
    page = context.new_page()
    page.goto(link)
    expect(page.get_by_test_id("stProgress")).to_be_visible(timeout=60_000)  # the bootstrap runs
    busy = _rate(pid)  # (on a machine shared with other work the server gets a fraction of a core)
    assert busy > 0.05, f"the server does not seem to compute ({busy:.2f} CPU s/s)"
    idle = min(0.03, busy / 3)  # an idle server: a few clock ticks a second at most
    context.close()  # the tab is closed
    closed = time.monotonic()
    while True:
        rate = _rate(pid, 1.0)
        if rate < idle:
            break
        assert time.monotonic() - closed < 20, f"still computing {time.monotonic() - closed:.0f} s after the close"
    stopped_after = time.monotonic() - closed
    print(f"busy at {busy:.2f} CPU s/s; stopped {stopped_after:.1f} s after the tab was closed")
    assert stopped_after <= 10
