"""The command line as a batch user feels it (issue 10).

1. ``evalcore curves FILE --n all`` on 1,000,000 candidates with two measures, end to end in a
   fresh process (import, read, rank, curves, write the CSV), against the computing part of the
   same work measured in-process with warm imports (read + rank + curves with intervals). Goal:
   end to end <= 3x computing.
2. Writing that table (2,000,000 rows x 8 columns): evalcore.output.write_table (pyarrow) against
   pandas' ``DataFrame.to_csv``, the writer it replaced; and Parquet by the ``--out`` extension.
3. ``python -m evalcore --help`` against a bare ``python -c "import evalcore"``: goal within 0.5 s.

Every time is the best of ``--repeat`` runs in this process's run, so ratios compare like with like.

Usage: python bench/bench_cli.py [--n 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

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

    t_import = timed_process([sys.executable, "-c", "import evalcore"], args.repeat + 2)
    t_help = timed_process([sys.executable, "-m", "evalcore", "--help"], args.repeat + 2)
    t_help_compare = timed_process([sys.executable, "-m", "evalcore", "compare", "--help"], args.repeat + 2)
    print(f"import evalcore {t_import:5.2f} s; --help {t_help:5.2f} s (+{t_help - t_import:.2f} s, goal <= 0.5); "
          f"compare --help {t_help_compare:5.2f} s")


if __name__ == "__main__":
    main()
