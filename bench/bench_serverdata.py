"""A server data set of 20,000,000 candidates, as the dashboard draws it (issue 21).

Generates (DuckDB, deterministic, in a temporary folder; :mod:`evalcore.engines.synthetic`) the Parquet file of
tests/browser/test_browser_serverdata.py
at N rows (default 20,000,000: label with 11% TPs, two scores with heavy ties), then:

1. ``count``: the count tables of both measures (DuckDB, ties hashed at random), time and peak memory;
2. ``figure``: the Confidence page's curves (``evalcore_app.serverdata.curves``: precision, recall, F and the Clopper-Pearson
   interval at every n, chunk by chunk, thinned for drawing) checked against every point of the same curves: in
   each of the thinned figure's parts of the n axis, for each measure and series, the smallest and the largest value
   and the first and the last n are drawn;
3. ``boundary``: Fisher's test at every n of the two measures, thinned with its significance flag, checked against
   every n: both sides of each change of significance, the end of the significant run, and each part's extremes of
   the p-value are kept;
4. with ``--browser``: the Chromium test (open the set on the Data page, move the level slider on the Confidence
   page, reopen the link) run on these N rows, timed (the suite runs it on 20,000,000).

Usage: python bench/bench_serverdata.py [--rows 20000000] [--browser] [--folder DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def generate(path: Path, rows: int) -> None:
    """The browser test's data set (the same generator, :func:`evalcore.engines.synthetic.write_parquet`)."""
    from evalcore.engines.synthetic import write_parquet

    write_parquet(path, rows)


class Extremes:
    """Per part of the n axis (a Thinner's buckets) and per curve: min, max, first and last n, chunk by chunk."""

    def __init__(self, thinner, series):
        self.thinner, self.series = thinner, list(series)
        self.parts: dict = {}

    def add(self, key, table) -> None:
        n = table["n"].to_numpy()
        part = self.thinner.bucket(n)
        starts = np.flatnonzero(np.r_[True, part[1:] != part[:-1]])
        ends = np.r_[starts[1:], n.size] - 1
        for i, (s, e) in enumerate(zip(starts, ends)):
            k = (key, int(part[s]))
            got = self.parts.setdefault(k, {"first": int(n[s]), "last": int(n[e])})
            got["last"] = int(n[e])
            for column in self.series:
                v = table[column].to_numpy(dtype=np.float64)[s:e + 1]
                v = v[np.isfinite(v)]
                if v.size:
                    got[column] = (min(got.get(column, (np.inf,))[0], v.min()),
                                   max(got.get(column, (0, -np.inf))[1], v.max()))

    def check(self, kept, by: str | None) -> int:
        """Asserts every part's extremes and ends are in ``kept``; returns the parts checked."""
        other = Extremes(self.thinner, self.series)
        groups = kept.groupby(by, observed=True) if by else [(None, kept)]
        for key, group in groups:
            other.add(key, group)
        assert set(other.parts) == set(self.parts), "a part of the n axis is missing from the figure"
        for k, want in self.parts.items():
            got = other.parts[k]
            assert got["first"] == want["first"] and got["last"] == want["last"], (k, got, want)
            for column in self.series:
                assert got.get(column) == want.get(column), (k, column, got.get(column), want.get(column))
        return len(self.parts)


def timed(what: str, results: list, rows: int, fn):
    loads = os.getloadavg()[0]
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    results.append((what, time.perf_counter() - start, time.process_time() - cpu,
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, loads, os.getloadavg()[0]))
    print(f"{what}: {results[-1][1]:.1f} s", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--folder", help="a folder to keep the generated file in (default: a temporary one)")
    parser.add_argument("--browser", action="store_true", help="also run the Chromium test on these rows")
    args = parser.parse_args()

    import pandas as pd

    from evalcore.engines import TableSource, count_tables
    from evalcore.engines.chunked import SignificantRun, comparison_chunks, curve_chunks
    from evalcore.engines.thin import Thinner
    from evalcore_app import serverdata

    with tempfile.TemporaryDirectory(prefix="bench_serverdata_") as tmp:
        folder = Path(args.folder or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "big.parquet"
        results: list = []
        print(f"load average before: {os.getloadavg()}", flush=True)
        if not path.exists():
            timed("generate", results, args.rows, lambda: generate(path, args.rows))
        tables = timed("count", results, args.rows,
                       lambda: count_tables(TableSource(path), ["a", "b"], engine="duckdb", ties="hash", seed=0,
                                            temp_directory=folder))
        rankings = tables.rankings
        n = tables.n_candidates
        series = ["precision", "lower", "upper", "recall", "f_beta"]

        def figure():
            kept = serverdata.curves(rankings, (1, n), 0.95, "clopper_pearson", 1.0)
            reference = Extremes(Thinner((1, n), series), series)
            for chunk in curve_chunks(rankings, confidence_level=0.95, interval="clopper_pearson"):
                for key, group in chunk.groupby("measure", sort=False, observed=True):
                    reference.add(key, group)
            return len(kept), 2 * n, reference.check(kept, "measure")

        drawn, points, parts = timed("figure", results, args.rows, figure)
        print(f"  figure: {drawn:,} of {points:,} points drawn; every extreme and end of {parts:,} parts kept")

        def boundary():
            thinner = Thinner((1, n), ["log10_p"], ["significant"])
            reference = Extremes(thinner, ["log10_p"])
            run = SignificantRun()
            changes, last = [], None
            for chunk in comparison_chunks(rankings["a"], rankings["b"]):
                run.add(chunk)
                thinner.add(chunk)
                reference.add(None, chunk)
                sig, cn = chunk["significant"].to_numpy(), chunk["n"].to_numpy()
                if last is not None and last != sig[0]:
                    changes.append(int(cn[0]) - 1)
                changes.extend(cn[np.flatnonzero(sig[1:] != sig[:-1])].tolist())
                last = bool(sig[-1])
            kept = thinner.result()
            kept_n = set(kept["n"].tolist())
            missing = [c for c in changes if c not in kept_n or c + 1 not in kept_n]
            assert not missing, f"significance boundaries not drawn: {missing[:10]}"
            assert run.up_to == 0 or run.up_to in kept_n
            return len(kept), len(changes), run.up_to, reference.check(kept, None)

        drawn, changes, up_to, parts = timed("boundary", results, args.rows, boundary)
        print(f"  Fisher at every n: {drawn:,} of {n:,} points drawn; both sides of all {changes:,} changes of "
              f"significance kept (significant up to n = {up_to:,}); every extreme of {parts:,} parts kept")

        if args.browser:
            env = dict(os.environ, EVALCORE_BROWSER_SERVER_ROWS=str(args.rows))
            timed("browser", results, args.rows, lambda: subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                 "tests/browser/test_browser_serverdata.py"], cwd=ROOT, env=env, check=True))

        print(f"\n| rows | step | time (s) | CPU of this process (s) | peak memory (MB) | load avg (start, end) |")
        print("|---:|---|---:|---:|---:|---|")
        for what, seconds, cpu, peak, l0, l1 in results:
            print(f"| {args.rows:,} | {what} | {seconds:.1f} | {cpu:.0f} | {peak:.0f} | {l0:.1f}, {l1:.1f} |")
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
