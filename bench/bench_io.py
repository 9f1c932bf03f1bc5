"""Speed of reading candidate tables (evalcore.io) against pandas' own reader.

Generates, seeded and in a temporary directory, a TSV and a CSV with N = 100,000 and
1,000,000 candidates -- two short key columns, a TRUE/FALSE label (about 11% TRUE) and
four score columns with 2 to 4 decimals (with ties) -- and a Parquet file with 1,000,000.
For each file it times, in this one run:

* ``load_candidates(path)``: read, suggest roles, parse labels and scores, build the set;
* ``read_table(path)``: reading alone (typed DataFrame with the row-number index);
* the baseline: ``pandas.read_csv(path, sep=...)`` (``pandas.read_parquet`` for Parquet)
  on the same file;

at 1,000,000 rows also for a CSV with quoted keys and labels, as R's ``write.csv`` writes
them (quotes take the reader's slower, quote-aware path);

best of 3 for 100,000 rows, a single run for 1,000,000, and reports each as a ratio to
the baseline.

Usage: python bench/bench_io.py [--sizes 100000,1000000] [--repeat-large 1] [--io path/to/other/io.py]

``--repeat-large`` takes the best of that many runs for files of more than 100,000 rows
(useful on a busy machine); ``--io`` times another version of the reader in place of the
``evalcore.io`` package: a single-module copy such as ``git show a483f66:evalcore/io.py``
(the reader before it became a package). Peak memory and hostile files: bench_limits.py.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import evalcore  # noqa: E402
from bench_core import best_of  # noqa: E402


def load_module(path: str | None):
    if path is None:
        import evalcore.io as module

        return module
    spec = importlib.util.spec_from_file_location("evalcore._io_under_test", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = evalcore.__name__
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def synthetic(n: int, seed: int = 1) -> pd.DataFrame:
    """Candidates: keys like ``in:w123``/``v45``, ~11% TRUE labels, four scores with ties."""
    rng = np.random.default_rng(seed)
    preps = np.array(["in", "an", "auf", "mit", "zu", "unter", "vor", "aus"])
    latent = rng.normal(size=n)
    labels = rng.random(n) < 1 / (1 + np.exp(-(2.2 * latent - 3.2)))
    pp = np.char.add(np.char.add(preps[rng.integers(0, len(preps), n)], ":w"), rng.integers(0, 5000, n).astype(str))
    verb = np.char.add("v", rng.integers(0, 2000, n).astype(str))
    frame = {"PP": pp, "verb": verb, "is.colloc": np.where(labels, "TRUE", "FALSE")}
    for name, scale, decimals in (("log.like", 40.0, 2), ("t.score", 3.0, 3), ("Dice", 0.01, 4), ("chisq", 300, 2)):
        values = np.round(np.abs(latent + rng.normal(scale=0.8, size=n)) * scale, decimals)
        frame[name] = np.char.mod(f"%.{decimals}f", values)  # as written by R: fixed decimals, ties
    return pd.DataFrame(frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--repeat-large", type=int, default=1, help="best of this many runs above 100,000 rows")
    parser.add_argument("--io", default=None, help="time this copy of io.py instead of the evalcore.io package")
    args = parser.parse_args()
    io = load_module(args.io)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"module: {io.__file__}; {os.cpu_count()} CPUs, load average {load} (other processes slow the timings)")
    print(f"{'file':<33} {'baseline':>10} {'read_table':>18} {'load_candidates':>20}   (ratio to baseline)")
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            df = synthetic(n)
            repeat = 3 if n <= 100_000 else args.repeat_large
            files = [(Path(tmp) / f"cands_{n}.tsv", "\t"), (Path(tmp) / f"cands_{n}.csv", ",")]
            for path, sep in files:
                df.to_csv(path, sep=sep, index=False)
            if n >= 1_000_000:
                quoted = df.copy()
                for c in ("PP", "verb", "is.colloc"):
                    quoted[c] = '"' + quoted[c] + '"'
                files.append((Path(tmp) / f"cands_{n}_quoted.csv", ","))
                quoted.to_csv(files[-1][0], index=False, quoting=csv.QUOTE_NONE)
                pq = Path(tmp) / f"cands_{n}.parquet"
                pd.read_csv(files[0][0], sep="\t", dtype={"PP": str, "verb": str}).to_parquet(pq, index=False)
                files.append((pq, None))
            for path, sep in files:
                if sep is None:
                    baseline_name, baseline = "read_parquet", lambda p=path: pd.read_parquet(p)
                else:
                    baseline_name, baseline = "read_csv", lambda p=path, s=sep: pd.read_csv(p, sep=s)
                baseline()  # each once untimed: warms up imports and caches
                cs = io.load_candidates(path)  # ... and checks the result
                assert cs.n_candidates == n and cs.measures == ("log.like", "t.score", "Dice", "chisq"), cs.measures
                assert 0.08 < cs.baseline < 0.14, cs.baseline
                base = best_of(baseline, repeat)
                read = best_of(lambda p=path: io.read_table(p), repeat)
                load = best_of(lambda p=path: io.load_candidates(p), repeat)
                size = path.stat().st_size / 1e6
                label = f"{path.name} ({size:.0f} MB)"
                print(f"{label:<33} {base:>8.3f} s {read:>8.3f} s {read / base:>5.2f}x {load:>10.3f} s "
                      f"{load / base:>5.2f}x   [{baseline_name}, best of {repeat}]", flush=True)


if __name__ == "__main__":
    main()
