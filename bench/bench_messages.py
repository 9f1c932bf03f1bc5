"""The largest websocket message the dashboard sends, page by page, on a large set (issue 29 §1): what
``server.maxMessageSize`` in .streamlit/config.toml must let through, and why it is set where it is.

``server.maxMessageSize`` bounds both directions of the websocket: a message the server would send above it is
replaced by an error on the page, and uvicorn closes a connection whose browser sends a frame above it (so it also
bounds what a visitor who is not signed in can make the server buffer). The dashboard is served as ``./dev run``
serves it (``python -m evalcore_app.serve``) with the limit raised to 200 MB (Streamlit's default, so that nothing is cut
here); a Chromium tab uploads a set of ``--candidates`` candidates (default 1,000,000: a key, a label and two scores,
Parquet) and visits every page of one candidate set, the Significance page also with the candidates of D1 and D2
open at an n where they are just below Streamlit's 150,000 rows (a table with more rows is sent in pieces, on
demand). Each step prints the largest message the tab received, in bytes, and the largest of all.

Usage: python bench/bench_messages.py [--candidates 1000000] [--members-n 125000] [--text-keys]
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_browser import CHROMIUM_ARGS, DONE, RUN_COUNTER, STARTED, Server  # noqa: E402
from bench_core import synthetic  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

WAIT_MS = 900_000  # a loaded machine and a million candidates: generous


def settle(page, before: int) -> None:
    page.wait_for_function(DONE, arg=before, timeout=WAIT_MS, polling=200)


def runs(page) -> int:
    return page.evaluate("window.__stRuns.finished")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=1_000_000)
    parser.add_argument("--members-n", type=int, default=125_000,
                        help="the n of the Significance page's candidates of D1 and D2 (default 125,000: about "
                             "140,000 of them for the default set)")
    parser.add_argument("--text-keys", action="store_true",
                        help="two keys of 12 letters each (as a pair of words) instead of one number")
    args = parser.parse_args()
    labels, a, b = synthetic(args.candidates)
    buffer = io.BytesIO()
    ids = np.arange(args.candidates)
    keys = ({"w1": [f"left{i:08d}" for i in ids], "w2": [f"rght{i:08d}" for i in ids]} if args.text_keys
            else {"id": ids})
    pd.DataFrame({**keys, "tp": labels, "score_a": a, "score_b": b}).to_parquet(buffer)
    sizes: list[int] = []
    largest: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench_messages_") as tmp:
        data = Path(tmp) / "large.parquet"
        data.write_bytes(buffer.getvalue())
        os.environ["STREAMLIT_SERVER_MAX_MESSAGE_SIZE"] = "200"  # Streamlit's default: nothing is cut while measuring
        server = Server(ROOT / "app.py", Path(tmp) / "store")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                page.add_init_script(RUN_COUNTER)
                page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: sizes.append(
                    len(payload) if isinstance(payload, (bytes, bytearray)) else len(payload.encode()))))

                def step(name: str, action, navigates: bool = True) -> None:
                    sizes.clear()
                    before = 0 if navigates else runs(page)  # a new page counts its runs from 0
                    action()
                    settle(page, before)
                    largest[name] = max(sizes, default=0)
                    print(f"{name:<44} largest message {largest[name]:>12,} bytes", flush=True)

                step("Data page, first visit", lambda: page.goto(server.url + "/"))
                def upload() -> None:
                    page.get_by_test_id("stFileUploader").locator("input[type=file]").set_input_files(str(data))
                    page.get_by_role("heading", name="Columns of large.parquet").wait_for(timeout=WAIT_MS)

                step(f"upload of {args.candidates:,} candidates", upload, navigates=False)
                link = page.get_by_test_id("stSidebar").get_by_test_id("stCode").inner_text().strip()
                dataset = dict(parse_qsl(urlsplit(link).query))["dataset"]
                query = [("dataset", dataset), ("label", "tp"), ("score", "score_a"), ("score", "score_b"),
                         *[("key", k) for k in keys], ("seed", "1")]
                for path in ("", "precision", "confidence", "significance", "threshold", "pairwise", "roc"):
                    step(f"/{path}", lambda path=path: page.goto(f"{server.url}/{path}?{urlencode(query)}"))
                members = [*query, ("a", "score_a"), ("b", "score_b"), ("n_min", "1000"),
                           ("n_max", str(2 * args.members_n)), ("sig_n", str(args.members_n)), ("sig_members", "1")]
                step(f"/significance, D1 and D2 at n = {args.members_n:,}",
                     lambda: page.goto(f"{server.url}/significance?{urlencode(members)}"))
                browser.close()
        finally:
            for started in STARTED:
                started.proc.terminate()
    name, size = max(largest.items(), key=lambda item: item[1])
    print(f"largest of all: {size:,} bytes ({size / 1e6:.1f} MB), {name}")


if __name__ == "__main__":
    main()
