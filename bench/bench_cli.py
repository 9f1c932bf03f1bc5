"""The command line as a batch user feels it (issue 10).

1. ``evalcore curves FILE --n all`` on 1,000,000 candidates with two measures, end to end in a
   fresh process (import, read, rank, curves, write the CSV), against the computing part of the
   same work measured in-process with warm imports (read + rank + curves with intervals). Goal:
   end to end <= 3x computing.
2. Writing that table (2,000,000 rows x 8 columns): evalcore.output.write_table (pyarrow) against
   pandas' ``DataFrame.to_csv``, the writer it replaced; and Parquet by the ``--out`` extension.
3. ``python -m evalcore --help`` against a bare ``python -c "import evalcore"``: goal within 0.5 s.
4. Issue 34: ``evalcore curves`` and ``evalcore compare`` (Fisher) at every n of the same file, each written to
   CSV, whole processes, against the naive loop of scipy calls for the same numbers (per n: ``binomtest(k,
   n).proportion_ci("exact")`` for both measures and ``fisher_exact`` on D1/D2, timed on 200 n and scaled to N),
   in wall and in CPU time (the machine is shared: CPU time is the steadier); goal at least 1,000 times. With
   ``--before DIR`` (an earlier tree, e.g. main unpacked by ``git archive``) the same commands run on it too,
   alternating with this tree. Then where the seconds go: each step of the two commands in one process (imports,
   reading, ranking, intervals, Fisher, effect sizes, writing), wall and CPU.

Every time is the best of ``--repeat`` runs in this process's run, so ratios compare like with like.

Usage: python bench/bench_cli.py [--n 1000000] [--repeat 3] [--before DIR] [--only-issue34]
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
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import best_of, synthetic  # noqa: E402


def timed_process(argv: list[str], repeat: int) -> float:
    def run():
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return best_of(run, repeat)


def run_counted(argv: list[str], tree: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, all threads) of one process on ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def naive_per_n(data: Path, n_total: int, samples: int = 200) -> tuple[float, float]:
    """Wall and CPU seconds per n of the loop of scipy calls a user writes for the same numbers (the counts given)."""
    from scipy import stats

    from evalcore.compare import compare_rankings
    from evalcore.curves import precision_curve
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    cs = load_candidates(data, label="is_tp")
    a, b = (rank(cs, m, ties="random", seed=1) for m in ("a", "b"))
    sample = np.sort(np.random.default_rng(0).choice(n_total, size=min(samples, n_total), replace=False)) + 1
    ka, kb = precision_curve(a, sample)["tp"].to_numpy(), precision_curve(b, sample)["tp"].to_numpy()
    tab = compare_rankings(a, b, sample)[["tp_d1", "fp_d1", "tp_d2", "fp_d2"]].to_numpy()
    wall, cpu = time.perf_counter(), time.process_time()
    for i, n in enumerate(sample):
        stats.binomtest(int(ka[i]), int(n)).proportion_ci(method="exact")
        stats.binomtest(int(kb[i]), int(n)).proportion_ci(method="exact")
        stats.fisher_exact([[int(tab[i, 0]), int(tab[i, 1])], [int(tab[i, 2]), int(tab[i, 3])]])
    return (time.perf_counter() - wall) / sample.size, (time.process_time() - cpu) / sample.size


STEPS = r"""
import sys, time
marks, t = [], [time.perf_counter(), time.process_time()]
def mark(name):
    w, c = time.perf_counter(), time.process_time()
    marks.append((name, w - t[0], c - t[1])); t[:] = [w, c]
import numpy as np, pandas as pd
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.curves import precision_curve
from evalcore.compare import compare_rankings
from evalcore.stats.effect import EFFECT_COLUMNS, effect_sizes
from evalcore.output import write_table
mark("imports (numpy, pandas, pyarrow, scipy.special, numba, evalcore)")
data, out = sys.argv[1], sys.argv[2]
cs = load_candidates(data, label="is_tp", where="cli"); mark("read and check the file (load_candidates)")
a, b = (rank(cs, m, ties="random", seed=1) for m in ("a", "b")); mark("rank both measures (random ties)")
from evalcore.stats.kernels import _log_add
_log_add(0.0, 0.0); mark("numba's start (registries; each process once)")
curves = pd.concat([precision_curve(r) for r in (a, b)], ignore_index=True); mark("curves with Clopper-Pearson")
write_table(curves[["measure", "n", "tp", "fp", "precision", "recall", "lower", "upper"]], out + "/c.csv")
mark(f"write the curves, {2 * cs.n_candidates:,} rows, CSV")
table = compare_rankings(a, b); mark("D1/D2 counts and Fisher's test")
effects = effect_sizes(table); mark("effect sizes (difference, odds ratio)")
table = pd.concat([table, effects[list(EFFECT_COLUMNS)]], axis=1)
write_table(table, out + "/t.csv"); mark(f"write the tests, {cs.n_candidates:,} rows, CSV")
for name, wall, cpu in marks:
    print(f"  {name:<66} {wall:7.2f} s wall {cpu:7.2f} s CPU")
"""


def issue34(data: Path, n_total: int, repeat: int, before: Path | None, tmp: Path) -> None:
    wall_n, cpu_n = naive_per_n(data, n_total)
    print(f"\nnaive loop of scipy calls: {wall_n * 1e3:.2f} ms per n wall, {cpu_n * 1e3:.2f} ms CPU; for all "
          f"{n_total:,} n: {wall_n * n_total:,.0f} s wall, {cpu_n * n_total:,.0f} s CPU", flush=True)
    trees = ([("before", before)] if before else []) + [("this tree", ROOT)]
    for _, tree in trees:  # each tree's compiled kernels in its own cache, not timed
        subprocess.run([sys.executable, "-c", "from evalcore.warm import warm; warm()"], cwd=tree, check=True,
                       env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True)
    commands = {
        "curves": ["curves", str(data), "--label", "is_tp", "--n", "all", "--seed", "1", "--out", str(tmp / "c.csv")],
        "compare": ["compare", str(data), "--label", "is_tp", "--measure", "a", "--measure", "b", "--n", "all",
                    "--seed", "1", "--out", str(tmp / "t.csv")],
    }
    best = {(name, label): (float("inf"), float("inf")) for name in commands for label, _ in trees}
    for _ in range(repeat):  # alternating: before, this tree, before, ...
        for name, argv in commands.items():
            for label, tree in trees:
                wall, cpu = run_counted([sys.executable, "-m", "evalcore", *argv], tree)
                old = best[name, label]
                best[name, label] = (min(old[0], wall), min(old[1], cpu))
    for label, _ in trees:
        wall = sum(best[name, label][0] for name in commands)
        cpu = sum(best[name, label][1] for name in commands)
        parts = ", ".join(f"{name} {best[name, label][0]:.1f} s wall / {best[name, label][1]:.1f} s CPU"
                          for name in commands)
        print(f"{label}: curves + compare at every n, whole processes: {wall:.1f} s wall, {cpu:.1f} s CPU ({parts}); "
              f"{wall_n * n_total / wall:,.0f} times the naive loop in wall time, {cpu_n * n_total / cpu:,.0f} times "
              "in CPU time (goal >= 1,000)", flush=True)
    print(f"\nwhere the seconds go (this tree, one process, load average {os.getloadavg()[0]:.1f}):")
    done = subprocess.run([sys.executable, "-c", STEPS, str(data), str(tmp)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    print(done.stdout or done.stderr[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", help="an earlier tree for the issue-34 commands, run alternating with this one")
    parser.add_argument("--only-issue34", action="store_true", help="only the issue-34 figures")
    args = parser.parse_args()
    if args.only_issue34:
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            labels, score_a, score_b = synthetic(args.n)
            data = tmp / "candidates.tsv"
            pd.DataFrame({"is_tp": labels, "a": score_a, "b": score_b}).to_csv(data, sep="\t", index=False)
            print(f"N = {args.n:,} candidates, two measures; best of {args.repeat}; "
                  f"load average {os.getloadavg()[0]:.1f}")
            issue34(data, args.n, args.repeat, Path(args.before) if args.before else None, tmp)
        return

    from evalcore.curves import precision_curve
    from evalcore.io import load_candidates
    from evalcore.output import write_table
    from evalcore.ranking import rank

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        labels, score_a, score_b = synthetic(args.n)
        data = tmp / "candidates.tsv"
        pd.DataFrame({"is_tp": labels, "a": score_a, "b": score_b}).to_csv(data, sep="\t", index=False)
        print(f"N = {args.n:,} candidates, two measures; best of {args.repeat}")

        def compute():
            cs = load_candidates(data, label="is_tp")
            return pd.concat([precision_curve(rank(cs, m, ties="stable"), None) for m in cs.measures],
                             ignore_index=True)
        table = compute()[["measure", "n", "tp", "fp", "precision", "recall", "lower", "upper"]]
        t_compute = best_of(compute, args.repeat)
        out = tmp / "curves.csv"
        t_cli = timed_process([sys.executable, "-m", "evalcore", "curves", str(data), "--label", "is_tp",
                               "--n", "all", "--ties", "stable", "--out", str(out)], args.repeat)
        print(f"curves --n all, end to end: {t_cli:6.2f} s; computing (in-process, warm): {t_compute:6.2f} s; "
              f"ratio {t_cli / t_compute:.2f} (goal <= 3)")

        t_pandas = best_of(lambda: table.to_csv(tmp / "pandas.csv", index=False), args.repeat)
        t_arrow = best_of(lambda: write_table(table, tmp / "arrow.csv"), args.repeat)
        t_parquet = best_of(lambda: write_table(table, tmp / "table.parquet"), args.repeat)
        print(f"writing {len(table):,} rows: pandas to_csv {t_pandas:6.2f} s; write_table CSV {t_arrow:6.2f} s "
              f"({t_pandas / t_arrow:.1f}x faster); Parquet {t_parquet:6.2f} s")
        back = pd.read_csv(tmp / "arrow.csv")
        assert all(np.array_equal(back[c].to_numpy(), table[c].to_numpy()) for c in ("n", "precision", "lower"))
        issue34(data, args.n, args.repeat, Path(args.before) if args.before else None, tmp)

    t_import = timed_process([sys.executable, "-c", "import evalcore"], args.repeat + 2)
    t_help = timed_process([sys.executable, "-m", "evalcore", "--help"], args.repeat + 2)
    t_help_compare = timed_process([sys.executable, "-m", "evalcore", "compare", "--help"], args.repeat + 2)
    print(f"import evalcore {t_import:5.2f} s; --help {t_help:5.2f} s (+{t_help - t_import:.2f} s, goal <= 0.5); "
          f"compare --help {t_help_compare:5.2f} s")


if __name__ == "__main__":
    main()
