"""The three engines give identical count tables on 10,000,000 candidates, and one-pass sample ranks equal a full
sort's (issue 21, "Done means"); with the time each engine took.

The data (NumPy, seeded, in a temporary folder): 10,000,000 candidates, two scores with heavy ties (``a``: 12
values; ``b``: two decimals with a 20% block of zeros, some -0.0, NaN and +-inf) and a label with about 11% TPs; a
fully annotated Parquet file and a partly annotated one (70% of the labels empty). For ties in file order and
hashed at random (seed 2026) the memory, DuckDB and Spark (local mode) engines count both files; every array of the
count tables must be equal. The ranks of the annotated candidates, by DuckDB's and Spark's one pass, must equal the
memory engine's full sort.

Usage: python bench/bench_engines_equal.py [--rows 10000000] [--engines memory,duckdb,spark]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--engines", default="memory,duckdb,spark")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--files", default="full,partial", help="which files to count (full, partial)")
    parser.add_argument("--ties", default="stable,hash", help="which tie policies")
    parser.add_argument("--sample-only", action="store_true", help="only the sample ranks of the partial file")
    args = parser.parse_args()
    from test_engines import _heavy_ties_frame, assert_same_tables

    from evalcore.engines import TableSource, count_tables, sample_ranks

    engines = args.engines.split(",")
    print(f"load average before: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench_engines_equal_") as folder:
        folder = Path(folder)
        t = time.perf_counter()
        if "full" in args.files:
            _heavy_ties_frame(args.rows, 1, partial=False).to_parquet(folder / "full.parquet")
        if "partial" in args.files:
            _heavy_ties_frame(args.rows, 2, partial=True).to_parquet(folder / "partial.parquet")
        print(f"generated 2 x {args.rows:,} rows in {time.perf_counter() - t:.0f} s", flush=True)
        rows = []
        for name, partial in (("full", False), ("partial", True)):
            if name not in args.files.split(","):
                continue
            source = TableSource(folder / f"{name}.parquet", annotated_sample=partial)
            for ties in ([] if args.sample_only else args.ties.split(",")):
                tables = {}
                for engine in engines:
                    t = time.perf_counter()
                    tables[engine] = count_tables(source, ["a", "b"], engine=engine, ties=ties, seed=args.seed)
                    rows.append((name, ties, "count tables", engine, time.perf_counter() - t))
                    print(f"{name} {ties} {engine}: {rows[-1][-1]:.1f} s", flush=True)
                reference = tables[engines[0]]
                for engine in engines[1:]:
                    assert_same_tables(reference, tables[engine])
                print(f"{name} {ties}: {', '.join(engines)} identical "
                      f"(largest tie group {reference['b'].tie_summary()['largest_group']:,}, "
                      f"{reference['a'].n_annotated:,} annotated)", flush=True)
            if partial:
                full = None
                for engine in engines:
                    t = time.perf_counter()
                    ranks = sample_ranks(source, ["a", "b"], engine=engine, ties="hash", seed=args.seed)
                    rows.append((name, "hash", "sample ranks", engine, time.perf_counter() - t))
                    if full is None:
                        full = ranks
                    else:
                        assert np.array_equal(full.rows, ranks.rows)
                        for m in ("a", "b"):
                            assert np.array_equal(full.ranks[m], ranks.ranks[m]), (engine, m)
                print(f"sample ranks of {full.rows.size:,} annotated: {', '.join(engines)} equal "
                      f"({engines[0]}: full sort)", flush=True)
        print(f"\n| rows | file | ties | what | engine | time (s) |\n|---:|---|---|---|---|---:|")
        for name, ties, what, engine, seconds in rows:
            print(f"| {args.rows:,} | {name} | {ties} | {what} | {engine} | {seconds:.1f} |")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
