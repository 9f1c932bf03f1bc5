"""One big draw and the annotators clicking meanwhile (issue 19): how long a click waits while another user draws a
sample of 1,000,000 candidates, and how large the annotation database grows.

In a temporary folder on the disk of the repository (``--dir`` to choose another), in this one run:

1. a candidate set of ``--candidates`` (default 1,000,000: two float scores, 16 MB, the issue's data set) and a
   sample of 20,000 for the annotators;
2. ``--annotators`` processes (default 2) click as fast as a person at a keyboard can (one click every 20 ms), each
   click doing what a key press on the Annotate page does in the database: the mark, then what the page's run reads
   (progress, the next candidates, the recent changes, the annotator table for agreement);
3. baseline: 3 s of clicks with nothing else going on; then a third process draws ``--size`` candidates (default
   1,000,000, the largest the page offers) the way the page does (``AnnotationStore.draw``); the clicks go on until
   the draw is stored;
4. reports, for the clicks whose time overlaps the draw and for the baseline: median, 99th percentile and maximum
   click time, as seconds and as a ratio to the baseline's median; the draw's time; the database's size after it,
   per million candidates drawn.

The script works against the annotation database of evalcore up to 04183db too (one row per sampled candidate, one
transaction per draw), whose clicks found the next candidate by a join over the whole sample: run it in a checkout
of that commit for the "before" numbers.

Usage: python bench/bench_annotate.py [--candidates 1000000] [--size 1000000] [--annotators 2] [--dir PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.annotations import AnnotationStore  # noqa: E402
from evalcore.candidates import CandidateSet  # noqa: E402

DATASET = "be" * 32
SMALL = 20_000
CLICK_EVERY = 0.02


def click(store: AnnotationStore, who: str, position: int, small: np.ndarray) -> float:
    """One key press on the Annotate page, as far as the database is concerned; the seconds its write took."""
    label = "TP" if position % 3 else "FP"
    start = time.perf_counter()
    if hasattr(store, "mark"):  # today: the mark of the candidate shown, then the page's run reads
        store.mark(DATASET, "small", position, int(small[position]), who, label)
        write = time.perf_counter() - start
        store.progress(DATASET, "small", who)
        store.upcoming(DATASET, "small", who, 60)
        store.recent(DATASET, "small", who, 20)
    else:  # evalcore up to 04183db: evalcore_app.annotate.mark, then the page's run
        nxt = store.next_position(DATASET, "small", who)
        if nxt is not None and int(store.sample(DATASET, "small").candidates[nxt]) == int(small[position]):
            store.annotate(DATASET, "small", int(small[position]), who, label)
        write = time.perf_counter() - start
        store.progress(DATASET, "small", who)
        nxt = store.next_position(DATASET, "small", who)
        store.sample(DATASET, "small")
    store.table(DATASET, "small")
    return write


def annotator(path: str, who: str, small: np.ndarray, stop, out) -> None:
    store = AnnotationStore(path)
    times = []
    position = 0
    while not stop.is_set() and position < SMALL:
        start = time.perf_counter()
        try:
            write, failed = click(store, who, position, small), False
        except Exception:  # (evalcore up to 04183db: "database is locked" after 30 s; the page showed a traceback)
            write, failed = time.perf_counter() - start, True
        end = time.perf_counter()
        times.append((time.time() - (end - start), end - start, write, failed))  # (wall clock at the start, ...)
        position += 1
        time.sleep(max(0.0, CLICK_EVERY - (end - start)))
    out.put((who, times))


def drawer(path: str, n: int, size: int, out) -> None:
    rng = np.random.default_rng(1)
    candidates = CandidateSet(labels=np.zeros(n, bool), scores={"a": rng.random(n), "b": rng.random(n)},
                              directions={})
    store = AnnotationStore(path)
    start = time.time()
    try:
        store.draw(DATASET, "big", candidates, size, seed=7)
    finally:
        out.put(("draw", (start, time.time())))


def summary(durations: list[float], base: float, failed: int = 0) -> str:
    if not durations:
        return "no clicks"
    q = np.quantile(durations, [0.5, 0.99])
    top = max(durations)
    return (f"{len(durations):5d} clicks: median {q[0]:.3f} s ({q[0] / base:.1f}x), p99 {q[1]:.3f} s "
            f"({q[1] / base:.1f}x), max {top:.3f} s ({top / base:.1f}x)"
            + (f"; {failed} failed (database is locked)" if failed else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=1_000_000)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--annotators", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=ROOT)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(dir=args.dir, prefix="bench-annotate-"))
    try:
        path = str(folder / "annotations.sqlite3")
        small = np.random.default_rng(2).permutation(args.candidates)[:SMALL]
        AnnotationStore(path).create_sample(DATASET, "small", small, seed=2)
        ctx = mp.get_context("fork")
        stop, out = ctx.Event(), ctx.Queue()
        clickers = [ctx.Process(target=annotator, args=(path, f"annotator{i}", small, stop, out))
                    for i in range(args.annotators)]
        for p in clickers:
            p.start()
        time.sleep(3.0)  # baseline: clicks alone
        draw = ctx.Process(target=drawer, args=(path, args.candidates, args.size, out))
        draw.start()
        results = {}
        while "draw" not in results:
            who, value = out.get()
            results[who] = value
        time.sleep(0.5)
        stop.set()
        while len(results) < args.annotators + 1:
            who, value = out.get()
            results[who] = value
        for p in clickers + [draw]:
            p.join()
        begin, end = results["draw"]
        baseline, during = [], []
        for who in (f"annotator{i}" for i in range(args.annotators)):
            for start, duration, write, failed in results[who]:
                if start + duration < begin - 0.2:
                    baseline.append((duration, write, failed))
                elif start < end and start + duration > begin:
                    during.append((duration, write, failed))
        files = {f.name: f.stat().st_size for f in folder.glob("annotations.sqlite3*")}
        db = sum(files.values())
        print(f"annotation database: {'today' if hasattr(AnnotationStore, 'mark') else 'evalcore up to 04183db'}")
        print(f"draw of {args.size:,} of {args.candidates:,} candidates: {end - begin:.2f} s")
        for i, what in enumerate(("the whole click (the mark and the page's reads)", "the mark (the write)")):
            base = statistics.median(d[i] for d in baseline)
            print(f"{what}:")
            print(f"  alone (baseline)   {summary([d[i] for d in baseline], base, sum(d[2] for d in baseline))}")
            print(f"  during the draw    {summary([d[i] for d in during], base, sum(d[2] for d in during))}")
        print(f"database after the draw: {db / 1e6:.1f} MB ({', '.join(f'{k} {v / 1e6:.1f} MB' for k, v in files.items())})"
              f", {db / (args.size + SMALL):.1f} bytes per candidate drawn")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
