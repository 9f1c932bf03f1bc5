"""Dashboard latency: server time of a page rerun after a slider change (issue 3).

Runs the app headless with streamlit.testing.v1.AppTest (the script run only, no browser)
on the paper's data set (5,102 candidates, read from ../shared) and on a synthetic set of
1,000,000 candidates, and prints per page: the first run (reading, ranking, computing) and
the median of reruns after moving a slider (the confidence level or the n range), which
are served from the cache of (dataset id, settings) where the setting allows.

Usage: python bench/bench_app.py [--repeat 5] [--million]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import synthetic  # noqa: E402

PAGES = {
    "pages/precision.py": ("w_n_range", [(100, 2000), (200, 1500), (100, 1000), (300, 2000)]),
    "pages/confidence.py": ("w_level", [0.9, 0.95, 0.99, 0.8]),
    "pages/significance.py": ("w_level", [0.9, 0.95, 0.99, 0.8]),
    "pages/threshold.py": ("w_threshold_n", [500, 1000, 1500, 800]),
}


def million_parquet() -> bytes:
    labels, a, b = synthetic(1_000_000)
    frame = pd.DataFrame({"id": np.arange(1_000_000), "tp": labels, "score_a": a, "score_b": b})
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def page_times(params: dict, page: str, sliders: dict, repeat: int) -> tuple[float, dict]:
    """Server time of a page's first run (after the router's) and the median rerun after moving each slider.

    ``params``: the link's query parameters; ``sliders``: widget key -> values to set in turn.
    """
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page)
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    assert not at.exception, [e.value for e in at.exception]
    medians = {}
    for key, values in sliders.items():
        times = []
        for i in range(repeat):
            widget = at.slider(key=key)
            t0 = time.perf_counter()
            widget.set_value(values[i % len(values)]).run()
            times.append(time.perf_counter() - t0)
            assert not at.exception, [e.value for e in at.exception]
        medians[key] = statistics.median(times)
    return first, medians


def measure(dataset_id: str, params: dict, repeat: int) -> list[tuple[str, float, float]]:
    rows = []
    for page, (key, values) in PAGES.items():
        link = {"dataset": dataset_id, "ties": "stable", "t_mode": "n", "t_measure": params["a"], **params}
        first, medians = page_times(link, page, {key: values}, repeat)
        rows.append((page, first, medians[key]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--million", action="store_true", help="also the 1,000,000-candidate set")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        os.environ["EVALCORE_STORE"] = root
        from evalcore.io.store import DatasetStore

        store = DatasetStore()
        sets = []
        krenn = ROOT.parent / "shared" / "data" / "krenn_ppv.tsv"
        if krenn.exists():
            sets.append(("Krenn PP-verb, N = 5,102", store.put(krenn.read_bytes(), krenn.name),
                         {"a": "log.like", "b": "chisq", "label": "is.colloc"}))
        if args.million:
            sets.append(("synthetic, N = 1,000,000", store.put(million_parquet(), "million.parquet"),
                         {"a": "score_a", "b": "score_b", "label": "tp"}))
        print(f"{'data':28} {'page':24} {'first run':>10} {'rerun after a slider (median)':>30}")
        for name, dataset_id, params in sets:
            for page, first, rerun in measure(dataset_id, params, args.repeat):
                print(f"{name:28} {page:24} {first:>8.2f} s {rerun * 1000:>27.0f} ms", flush=True)


if __name__ == "__main__":
    main()
