"""Time and peak memory of reading large files and refusing hostile ones (issue 9), each against a
named baseline measured in the same run.

Every measurement runs in a fresh Python process, which reports its own peak resident memory
(``VmHWM``; ``ru_maxrss`` would include the memory of this process copied by fork) and the time of the call alone (imports not counted; the peak includes the
interpreter with numpy, pandas and pyarrow, about 110 MB).

* Loading (each peak also as a multiple of the file's size; issue 34's goal for ``evalcore summary`` of
  10,000,000 rows: at most 4 times, and ``--before DIR`` runs it on an earlier tree too; the DuckDB engine's
  out-of-core count tables of the same file beside it): CSV files of N rows x 5 columns (a key, a TRUE/FALSE label, three scores with two
  decimals: 10,000,000 rows make 303 MB, the issue's case), for N = 1,000,000 and 10,000,000:
  ``read_table``, ``load_candidates`` and ``evalcore summary`` now; baselines
  ``pyarrow.csv.read_csv`` of the same file and ``load_candidates`` of the previous reader
  (``evalcore/io.py`` at commit a483f66, before the package). ``--quoted`` adds the same files
  with quoted keys and labels (R's ``write.csv``), ``--wide`` a file of 10,000,000 rows x 20
  columns (1.7 GB), which must load within the default limits.
* Refusing: the bombs of ``tests/io_bombs.py`` (compressed 1,000-fold to 4.7 GB, an .xlsx
  declaring 1,048,576 x 16,384, Parquet declaring 10^8 rows, a 50 MB line, 100,000 columns);
  baseline: the previous reader on the same file, in a process limited to 4 GB of address space
  and 120 s (``MemoryError`` or ``timeout`` say it did not finish).

Usage: python bench/bench_limits.py [--sizes 1000000,10000000] [--quoted] [--wide] [--no-previous]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import io_bombs  # noqa: E402

PREVIOUS = "a483f66"  # the last commit with evalcore/io.py as one module

RUNNER = r"""
import importlib.util, json, sys, time
def peak_mb():  # VmHWM: this process's peak; ru_maxrss would count the parent's memory copied by fork
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
mode, path, previous = sys.argv[1], sys.argv[2], sys.argv[3]
import evalcore
if mode.startswith("previous"):
    spec = importlib.util.spec_from_file_location("evalcore._io_previous", previous)
    io = importlib.util.module_from_spec(spec)
    io.__package__ = "evalcore"
    sys.modules[spec.name] = io
    spec.loader.exec_module(io)
else:
    import evalcore.io as io
import pyarrow.csv
from evalcore.errors import EvalcoreError
calls = {
    "pyarrow.csv.read_csv": lambda: pyarrow.csv.read_csv(path),
    "read_table": lambda: io.read_table(path),
    "load_candidates": lambda: io.load_candidates(path),
    "previous load_candidates": lambda: io.load_candidates(path),
    "previous read_table": lambda: io.read_table(path),
    "evalcore summary": lambda: __import__("evalcore.cli", fromlist=["main"]).main(["summary", path]),
    "duckdb engine (out of core)": lambda: __import__("evalcore.engines", fromlist=["count_tables"]).count_tables(
        __import__("evalcore.engines", fromlist=["TableSource"]).TableSource(path), engine="duckdb", ties="stable",
        pairs=False),
}
start = time.perf_counter()
try:
    calls[mode]()
    outcome = "done"
except EvalcoreError as e:
    outcome = type(e).__name__ + ": " + str(e).split(":")[1].strip()[:60]
except MemoryError:
    outcome = "MemoryError"
print(json.dumps({"seconds": time.perf_counter() - start, "outcome": outcome,
                  "peak_mb": peak_mb()}), file=sys.stderr)
"""


DASHBOARD = r"""
import json, os, sys, time
def peak_mb():  # VmHWM: this process's peak; ru_maxrss would count the parent's memory copied by fork
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
from streamlit.testing.v1 import AppTest
app, path = sys.argv[1], sys.argv[2]
at = AppTest.from_file(app, default_timeout=1800)
at.run()
data = open(path, "rb").read()
start = time.perf_counter()
at.file_uploader[0].set_value((os.path.basename(path), data, "text/csv")).run()
errors = [e.value for e in at.error] + [str(e.value) for e in at.exception]
metrics = {m.label: m.value for m in at.metric}
outcome = "done, N = " + metrics.get("Candidates N", "?") if not errors else "error: " + errors[0][:50]
print(json.dumps({"seconds": time.perf_counter() - start, "outcome": outcome,
                  "peak_mb": peak_mb()}), file=sys.stderr)
"""


def measure_dashboard(tree: Path, path: Path, store: Path) -> dict:
    """Upload ``path`` on the Data page of the app in ``tree`` (AppTest), until its numbers are shown."""
    env = {**os.environ, "PYTHONPATH": str(tree), "EVALCORE_STORE": str(store)}
    env.pop("EVALCORE_DEFAULT_DATASET", None)
    done = subprocess.run([sys.executable, "-c", DASHBOARD, str(tree / "app.py"), str(path)], capture_output=True,
                          text=True, env=env, timeout=3600, cwd=tree)
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    if not lines:
        return {"seconds": float("nan"), "outcome": "crashed: " + done.stderr[-60:], "peak_mb": float("nan")}
    return json.loads(lines[-1])


def measure(mode: str, path: Path, previous: Path, *, address_space: int | None = None, timeout: int = 1800,
            tree: str | Path = ROOT) -> dict:
    def limit() -> None:
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    env = {**os.environ, "PYTHONPATH": str(tree)}
    try:
        done = subprocess.run([sys.executable, "-c", RUNNER, mode, str(path), str(previous)], capture_output=True,
                              text=True, env=env, timeout=timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return {"seconds": float(timeout), "outcome": f"timeout ({timeout} s)", "peak_mb": float("nan")}
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    if not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["?"]
        return {"seconds": float("nan"), "outcome": f"crashed: {tail[0][:60]}", "peak_mb": float("nan")}
    return json.loads(lines[-1])


def write_candidates(path: Path, n: int, columns: int = 5, quoted: bool = False, seed: int = 1) -> Path:
    """A key, a TRUE/FALSE label (about 11% TRUE) and ``columns - 2`` scores with two decimals."""
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        names = ["PP", "is.colloc", *(f"s{j}" for j in range(columns - 2))]
        f.write((",".join(names) + "\n").encode())
        for start in range(0, n, 1_000_000):
            m = min(1_000_000, n - start)
            latent = rng.normal(size=m)
            labels = rng.random(m) < 1 / (1 + np.exp(-(2.2 * latent - 3.2)))
            cols = {"PP": pa.array(np.char.add("w", rng.integers(0, 50000, m).astype(str))),
                    "is.colloc": pa.array(np.where(labels, "TRUE", "FALSE"))}
            for j in range(columns - 2):
                values = np.round(np.abs(latent + rng.normal(scale=0.8, size=m)) * 40, 2)
                cols[f"s{j}"] = pa.array(values) if quoted else pa.array(np.char.mod("%.2f", values))
            # Arrow quotes every string with "needed" and nothing with "none": quoted keys and labels,
            # unquoted numbers (as R's write.csv), or nothing quoted.
            pa_csv.write_csv(pa.table(cols), f, pa_csv.WriteOptions(include_header=False,
                                                                    quoting_style="needed" if quoted else "none"))
    return path


def show(label: str, what: str, result: dict, base: dict | None = None, size_mb: float | None = None) -> None:
    ratio = f"{result['peak_mb'] / size_mb:5.2f}x file  " if size_mb and result["outcome"] == "done" else ""
    if base and base["outcome"] == "done" and result["outcome"] == "done":
        ratio += f"{result['seconds'] / base['seconds']:6.2f}x time {result['peak_mb'] / base['peak_mb']:5.2f}x memory"
    print(f"{label:<34} {what:<26} {result['seconds']:8.2f} s {result['peak_mb']:8.0f} MB  "
          f"{result['outcome'][:46]:<46} {ratio}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--quoted", action="store_true", help="also files with quoted keys and labels")
    parser.add_argument("--wide", action="store_true", help="also 10,000,000 rows x 20 columns (1.7 GB)")
    parser.add_argument("--no-previous", action="store_true", help="skip the previous reader")
    parser.add_argument("--no-bombs", action="store_true")
    parser.add_argument("--before", help="also run evalcore summary on this earlier tree (issue 34: peak memory as a "
                                         "multiple of the file)")
    parser.add_argument("--dashboard", action="store_true",
                        help="also upload each file on the Data page (AppTest), this tree and the previous commit's")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load}; time of the call, peak RSS of its process")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        previous = tmp / "io_previous.py"
        previous.write_bytes(subprocess.run(["git", "show", f"{PREVIOUS}:evalcore/io.py"], cwd=ROOT,
                                            capture_output=True, check=True).stdout)
        files = []
        for n in (int(s) for s in args.sizes.split(",")):
            files.append((f"{n:,} rows x 5 columns", write_candidates(tmp / f"c{n}.csv", n)))
            if args.quoted:
                files.append((f"{n:,} x 5, quoted", write_candidates(tmp / f"q{n}.csv", n, quoted=True)))
        if args.wide:
            files.append(("10,000,000 rows x 20 columns", write_candidates(tmp / "wide.csv", 10_000_000, 20)))
        for label, path in files:
            size_mb = path.stat().st_size / 2**20  # (peaks are in MiB too)
            label = f"{label} ({path.stat().st_size / 1e6:.0f} MB)"
            base = measure("pyarrow.csv.read_csv", path, previous)
            show(label, "pyarrow.csv.read_csv", base, size_mb=size_mb)
            if not args.no_previous and "20 columns" not in label:
                show("", "previous load_candidates", measure("previous load_candidates", path, previous), base, size_mb)
            for mode in ("read_table", "load_candidates", "evalcore summary", "duckdb engine (out of core)"):
                show("", mode, measure(mode, path, previous), base, size_mb)
            if args.before:  # the same summary on an earlier tree, right after this one's
                show("", "evalcore summary, before", measure("evalcore summary", path, previous, tree=args.before),
                     base, size_mb)
            if args.dashboard:
                old = tmp / "previous_tree"
                if not old.exists():
                    old.mkdir()
                    archive = subprocess.run(["git", "archive", PREVIOUS], cwd=ROOT, capture_output=True, check=True)
                    subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
                upload = measure_dashboard(old, path, tmp / "store_previous")
                show("", "Data page upload, previous", upload)
                show("", "Data page upload", measure_dashboard(ROOT, path, tmp / "store"), upload)
                for store in ("store", "store_previous"):
                    subprocess.run(["rm", "-rf", str(tmp / store)], check=True)
            path.unlink()
        if args.no_bombs:
            return
        bombs = {
            "gzip, 1,000-fold to 4.7 GB": io_bombs.compressed_bomb(tmp, "gzip", "bomb.csv.gz"),
            "bzip2 to 4.7 GB": io_bombs.compressed_bomb(tmp, "bzip2", "bomb.csv.bz2"),
            "xz to 4.7 GB": io_bombs.compressed_bomb(tmp, "xz", "bomb.csv.xz"),
            "xz inside .rds to 4.7 GB": io_bombs.compressed_bomb(tmp, "xz", "bomb.rds", head=io_bombs.RDS_HEADER),
            ".xlsx declaring 1,048,576 x 16,384": io_bombs.xlsx_declaring(tmp, "A1:XFD1048576"),
            "Parquet declaring 10^8 rows": io_bombs.parquet_declaring(tmp, 10**8),
            "a 50 MB line": io_bombs.long_line(tmp),
            "100,000 columns": io_bombs.wide_header(tmp),
        }
        for label, path in bombs.items():
            label = f"{label} ({path.stat().st_size / 1e6:.2f} MB)"
            show(label, "read_table", measure("read_table", path, previous))
            if not args.no_previous:
                show("", "previous read_table (4 GB AS)",
                     measure("previous read_table", path, previous, address_space=4 << 30, timeout=120))


if __name__ == "__main__":
    main()
