"""A billion-candidate path at 10^8: DuckDB ranks, counts and tests out of core (issue 21).

Generates (DuckDB, in a temporary folder, deterministic) a Parquet file of N candidates (default 100,000,000): a
label with 11% TPs and two correlated scores with ties (``a`` to 4 decimals, ``b`` to 3), and a copy where only
2,000 candidates keep their label (an annotated random sample). Then, each step in its own process (its time and
its peak memory, ``ru_maxrss``, measured there):

1. ``floor``: DuckDB's plain ``ORDER BY a DESC`` of the same file, written to Parquet (the issue's reference point)
   -- the floor every ratio below is taken against, measured in the same run;
2. ``floor_stream``: the same sort streamed to Python and dropped (what the engine reads);
3. ``count``: the count tables of both measures and their pair (TP ranks, tie groups, the overlap at every n), ties
   hashed at random with a seed (``evalcore.engines.count_tables``, DuckDB with ``--memory-limit``);
4. ``statistics``: from those tables, precision and the Clopper-Pearson interval at every n of both measures and
   Fisher's exact test on D1/D2 at every n, chunk by chunk (``evalcore.engines.chunked``), summarised;
5. ``sample``: the ranks of the 2,000 annotated candidates among all N under both measures, counted inside DuckDB
   (``evalcore.engines.sample_ranks``: a grid aggregation and a join on the tie groups, no sort);
6. ``sample_floor``: the issue's reference for step 5, plain DuckDB bucketing every candidate by the sample's scores
   (``histogram(score, boundaries)`` of both measures, one scan; no ties broken, no labels), its floor;
7. ``cli_curves`` and ``cli_compare`` (issue 34): the command line as a user runs it, whole process,
   ``evalcore curves FILE --engine duckdb --n all --out curves.parquet`` (no ``--measure``: the file's integer
   ``key`` column must not be taken as a score) and ``evalcore compare ... --measure a --measure b`` with Fisher's
   test at every n to Parquet; with ``--before DIR`` (a copy of an earlier tree, e.g. ``git archive``) each runs
   on that tree too, interleaved with this one, so that both are measured against the same floor.

The file has a ``key`` column (distinct integers, the candidate's id), as real sets do; steps 3-6 name their
measures.

Goals (issue 21): steps 3 + 4 under 10 minutes and 4 GB; step 5 under 30 s. Issue 34: steps 7 together under
10 minutes and at most 6 times the floor. The load average of the machine is
printed before and after (it is shared).

Usage: python bench/bench_engines.py [--rows 100000000] [--folder DIR] [--keep] [--memory-limit 1500MB]
       [--steps floor,cli_curves,cli_compare] [--before /tmp/evalcore-before]
"""

from __future__ import annotations

import argparse
import json
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

SAMPLE_EVERY = 50_000  # one annotated candidate in 50,000: 2,000 of 10^8


def generate(folder: Path, rows: int) -> None:
    import duckdb

    con = duckdb.connect(config={"memory_limit": "2GB", "temp_directory": str(folder / "spill")})
    con.execute("SET enable_progress_bar = false")
    # deterministic pseudo-random parts from multiplicative hashes of the row i; s is shared by both scores
    body = f"""SELECT
        ((i * 2654435761) % 1000) < 110 AS label,
        ((i * 7919) % 1000003) / 1000003.0 AS s,
        ((i * 104729) % 999983) / 999983.0 AS e1,
        ((i * 15485863) % 999979) / 999979.0 AS e2, i
      FROM range({rows}) t(i)"""
    scores = """round(s + 0.35 * label::INT + 0.30 * e1, 4) AS a, round(s + 0.30 * label::INT + 0.35 * e2, 3) AS b"""
    con.execute(f"COPY (SELECT i AS key, label, {scores} FROM ({body})) TO '{folder / 'full.parquet'}' "
                "(FORMAT parquet)")
    con.execute(f"""COPY (SELECT CASE WHEN i % {SAMPLE_EVERY} = 17 THEN label END AS label, {scores} FROM ({body}))
                    TO '{folder / 'sample.parquet'}' (FORMAT parquet)""")
    con.close()


CLI = {  # the command lines of steps 7, as a user types them (the data file and the output added)
    "cli_curves": ["curves", "--engine", "duckdb", "--n", "all", "--ties", "hash"],
    "cli_compare": ["compare", "--engine", "duckdb", "--n", "all", "--ties", "hash", "--measure", "a", "--measure", "b"],
}


def cli_step(name: str, folder: Path, seed: int, tree: Path) -> dict:
    """A command line of :data:`CLI` in its own process on ``tree``: wall and CPU time, peak memory, rows written."""
    import pyarrow.parquet as pq

    out = folder / f"{name}.parquet"
    argv = [sys.executable, "-m", "evalcore", CLI[name][0], str(folder / "full.parquet"), *CLI[name][1:],
            "--seed", str(seed), "--out", str(out)]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)})
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = {"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
              "rows": pq.ParquetFile(out).metadata.num_rows, "mb_written": round(out.stat().st_size / 1e6),
              "notes": [line for line in done.stderr.splitlines() if line.startswith("evalcore:")][:4]}
    os.remove(out)
    return result


def step(name: str, folder: Path, memory_limit: str, seed: int, tree: Path | None = None) -> dict:
    """One step in this process; returns its numbers."""
    if name in CLI:
        return cli_step(name, folder, seed, tree or ROOT)
    from evalcore.engines import CountTables, TableSource, count_tables, sample_ranks
    from evalcore.engines.duckdb_engine import DuckDBEngine

    start = time.perf_counter()
    out: dict = {}
    if name == "floor":
        import duckdb

        con = duckdb.connect(config={"memory_limit": memory_limit, "temp_directory": str(folder / "spill")})
        con.execute(f"COPY (SELECT a FROM '{folder / 'full.parquet'}' ORDER BY a DESC) TO '{folder / 'sorted.parquet'}'"
                    " (FORMAT parquet)")
        con.close()
        os.remove(folder / "sorted.parquet")
    elif name == "floor_stream":
        out["rows"] = DuckDBEngine(memory_limit=memory_limit, temp_directory=folder).order_by_floor(
            TableSource(folder / "full.parquet", scores=("a", "b")), "a")
    elif name == "count":
        tables = count_tables(TableSource(folder / "full.parquet", scores=("a", "b")), engine="duckdb", ties="hash", seed=seed,
                              memory_limit=memory_limit, temp_directory=folder)
        (folder / "tables.npz").write_bytes(tables.to_bytes())
        out["tps"] = tables["a"].n_tp
        out["tie_groups"] = {m: int(r.tie_start.size) for m, r in tables.rankings.items()}
        out["tables_mb"] = round(tables.nbytes() / 1e6, 1)
    elif name == "statistics":
        from evalcore.engines.chunked import SignificantRun, comparison_chunks, curve_chunks

        tables = CountTables.from_bytes((folder / "tables.npz").read_bytes())
        upper_sum = 0.0
        for chunk in curve_chunks(tables.rankings, confidence_level=0.95, interval="clopper_pearson"):
            upper_sum += float(chunk["upper"].sum())
        out["curve_rows"] = 2 * tables.n_candidates
        run = SignificantRun()
        for chunk in comparison_chunks(tables["a"], tables["b"], confidence_level=0.95):
            run.add(chunk)
        out.update(tested=run.tested, n_significant=run.n_significant, up_to=run.up_to,
                   mean_upper=upper_sum / out["curve_rows"])
    elif name == "statistics_slices":  # a machine too loaded for the whole step: CPU per n on three slices
        from evalcore.engines.chunked import comparison_chunks, curve_chunks

        tables = CountTables.from_bytes((folder / "tables.npz").read_bytes())
        n = tables.n_candidates
        width = max(1, n // 100)
        cpu = 0.0
        for lo in (1, n // 2, n - width + 1):
            sizes = np.arange(lo, lo + width, dtype=np.int64)
            before = resource.getrusage(resource.RUSAGE_SELF)
            for _ in curve_chunks(tables.rankings, sizes):
                pass
            for _ in comparison_chunks(tables["a"], tables["b"], sizes):
                pass
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu += after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        out["slices"] = f"3 x {width:,} n (first, middle, last)"
        out["cpu_seconds_per_n"] = cpu / (3 * width)
        out["cpu_seconds_extrapolated"] = cpu / (3 * width) * n
    elif name == "sample":
        ranks = sample_ranks(TableSource(folder / "sample.parquet", scores=("a", "b"), annotated_sample=True), engine="duckdb",
                             ties="hash", seed=seed, memory_limit=memory_limit, temp_directory=folder)
        out["annotated"] = int(ranks.rows.size)
        out["first_ranks"] = {m: r[:3].tolist() for m, r in ranks.ranks.items()}
    elif name == "sample_floor":  # the reference: plain DuckDB buckets every candidate by the sample's scores
        import duckdb

        con = duckdb.connect(config={"memory_limit": memory_limit, "temp_directory": str(folder / "spill")})
        con.execute("SET enable_progress_bar = false")
        file = folder / "sample.parquet"
        bounds = {m: sorted(set(v for (v,) in con.execute(f"SELECT {m} FROM '{file}' WHERE label IS NOT NULL")
                                .fetchall())) for m in ("a", "b")}
        found = con.execute(f"SELECT histogram(-a, $1::DOUBLE[]), histogram(-b, $2::DOUBLE[]) FROM '{file}'",
                            [[-x for x in reversed(bounds["a"])], [-x for x in reversed(bounds["b"])]]).fetchall()[0]
        con.close()
        out["buckets"] = {m: len(h) for m, h in zip(("a", "b"), found)}
    else:
        raise SystemExit(f"unknown step {name}")
    out["seconds"] = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_seconds"] = usage.ru_utime + usage.ru_stime  # less sensitive to the other users of the machine
    out["peak_mb"] = usage.ru_maxrss / 1024
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000_000)
    parser.add_argument("--folder")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--memory-limit", default="1500MB", help="DuckDB's memory_limit (default 1500MB)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--before", help="also run the cli_* steps on this tree (e.g. main unpacked by git archive), "
                                         "interleaved with this one")
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--steps", default="floor,floor_stream,count,statistics,sample")
    args = parser.parse_args()
    if args.step:
        print(json.dumps(step(args.step, Path(args.folder), args.memory_limit, args.seed,
                              Path(args.tree) if args.tree else None)))
        return
    folder = Path(args.folder or tempfile.mkdtemp(prefix="bench_engines_"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {os.getloadavg()}", flush=True)
    if not (folder / "full.parquet").exists():
        t = time.perf_counter()
        generate(folder, args.rows)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - t:.0f} s: "
              f"{(folder / 'full.parquet').stat().st_size / 1e9:.2f} GB", flush=True)
    results = {}
    runs = []
    for name in args.steps.split(","):
        if name in CLI and args.before:
            runs += [(f"{name} (before)", name, args.before), (name, name, str(ROOT))]
        else:
            runs.append((name, name, None))
    for tree in {tree for _, _, tree in runs if tree}:  # each tree's compiled kernels in its own cache, not timed
        subprocess.run([sys.executable, "-c", "from evalcore.warm import warm; warm()"], cwd=tree, check=True,
                       env={**os.environ, "PYTHONPATH": tree}, capture_output=True)
    for label, name, tree in runs:
        loads = os.getloadavg()
        done = subprocess.run([sys.executable, __file__, "--step", name, "--folder", str(folder), "--memory-limit",
                               args.memory_limit, "--seed", str(args.seed)] + (["--tree", tree] if tree else []),
                              capture_output=True, text=True)
        if done.returncode:
            print(done.stderr[-3000:], file=sys.stderr)
            raise SystemExit(f"step {name} failed")
        results[label] = json.loads(done.stdout.strip().splitlines()[-1])
        results[label]["load"] = [round(x, 1) for x in (loads[0], os.getloadavg()[0])]
        print(f"{label}: {json.dumps(results[label])}", flush=True)
    floor = results.get("floor", {}).get("seconds")
    print(f"\n| rows | engine | step | time (s) | CPU (s) | peak memory (MB) | ratio to floor | load avg (start, end) |")
    print("|---:|---|---|---:|---:|---:|---:|---|")
    for name, r in results.items():
        ratio = f"{r['seconds'] / floor:.2f}" if floor else ""
        print(f"| {args.rows:,} | duckdb | {name} | {r['seconds']:.1f} | {r['cpu_seconds']:.0f} | {r['peak_mb']:.0f} | "
              f"{ratio} | {r['load'][0]}, {r['load'][1]} |")
    if "count" in results and "statistics" in results:
        total = results["count"]["seconds"] + results["statistics"]["seconds"]
        peak = max(results["count"]["peak_mb"], results["statistics"]["peak_mb"])
        print(f"\ncurves, Clopper-Pearson and Fisher at every n: {total:.0f} s ({'meets' if total < 600 else 'misses'} "
              f"< 600 s), peak {peak:.0f} MB ({'meets' if peak < 4096 else 'misses'} < 4 GB)"
              + (f", {total / floor:.1f} times the floor" if floor else ""))
    if "sample" in results:
        s = results["sample"]["seconds"]
        print(f"sample ranks of {results['sample']['annotated']:,}: {s:.1f} s ({'meets' if s < 30 else 'misses'} < 30 s)"
              + (f", {s / results['sample_floor']['seconds']:.2f} times plain DuckDB bucketing"
                 if "sample_floor" in results else ""))
    for suffix in (" (before)", ""):
        cli = [results.get(f"{name}{suffix}") for name in CLI]
        if all(cli):
            total, cpu = sum(r["seconds"] for r in cli), sum(r["cpu_seconds"] for r in cli)
            floor_cpu = results["floor"]["cpu_seconds"] if floor else None
            print(f"command line{suffix or ' (this tree)'}: curves ({cli[0]['rows']:,} rows) + compare "
                  f"({cli[1]['rows']:,} rows) to Parquet: {total:.0f} s ({'meets' if total < 600 else 'misses'} < 600 s)"
                  f", CPU {cpu:.0f} s, peak {max(r['peak_mb'] for r in cli):.0f} MB"
                  + (f"; {total / floor:.1f} times the floor's wall time, {cpu / floor_cpu:.1f} times its CPU time "
                     "(goal <= 6)" if floor else ""))
    print(f"load average after: {os.getloadavg()}")
    if not args.keep and not args.folder:
        import shutil

        if folder.name.startswith("bench_engines_") and folder.parent == Path(tempfile.gettempdir()):
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
