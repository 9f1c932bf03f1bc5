"""The data set store at its quota (issue 9): what it holds, and what a put costs there.

For each configuration (a quota and a file size), in a temporary folder on the disk of the
repository (``--dir`` to choose another), in this one run:

1. fill the store with distinct files until one has to evict, timing each put below the
   quota (a write with nothing to evict);
2. keep uploading new files: each put at the quota scans the store and evicts the least
   recently opened data set(s); one data set is opened after every put and must survive;
3. report the entries and bytes held, the median put below and at the quota, and as the
   baseline the same bytes written with a plain ``open``/``write``/``fsync`` to a new file
   (what any store on disk pays), each put as a ratio to it;
4. the checked read (``DatasetStore.open``: read + SHA-256 against the id) against a plain
   ``Path.read_bytes`` of the same file, both from the page cache, best of 3.

Usage: python bench/bench_store.py [--configs 100MB:50kB,1GB:100MB] [--puts 20] [--dir PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.io.store import DatasetStore, format_size, parse_size  # noqa: E402


def content(i: int, size: int) -> bytes:
    """Distinct bytes of the given size (random, so the file system cannot compress or deduplicate)."""
    return f"{i}\n".encode() + os.urandom(size - len(f"{i}\n"))


def plain_write(folder: Path, data: bytes, i: int) -> float:
    path = folder / f"plain-{i}.bin"
    t0 = time.perf_counter()
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    elapsed = time.perf_counter() - t0
    path.unlink()
    return elapsed


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(quota: int, size: int, puts: int, base: Path) -> dict:
    root = Path(tempfile.mkdtemp(dir=base, prefix="bench-store-"))
    try:
        store = DatasetStore(root / "store", quota=quota)
        plain_dir = root / "plain"
        plain_dir.mkdir()
        hot = store.put(content(-1, size), "in use.bin")
        below, plain = [], []
        evicted_dir = root / "store" / ".evicted"
        i = 0
        while True:  # fill up to the quota: until a put has to evict
            data = content(i, size)
            plain_time = plain_write(plain_dir, data, i)
            t0 = time.perf_counter()
            store.put(data, f"{i}.bin")
            elapsed = time.perf_counter() - t0
            store.get(hot)
            i += 1
            if evicted_dir.exists():
                break
            below.append(elapsed)
            plain.append(plain_time)
        full = store.usage()
        at_quota = []
        for _ in range(puts):
            data = content(i, size)
            plain.append(plain_write(plain_dir, data, i))
            t0 = time.perf_counter()
            store.put(data, f"{i}.bin")
            at_quota.append(time.perf_counter() - t0)
            store.get(hot)  # the data set in use
            i += 1
        after = store.usage()
        assert store.exists(hot), "the data set in use was evicted"
        assert after.total_bytes <= quota
        evicted = len(list((root / "store" / ".evicted").iterdir()))
        path = root / "store" / hot[:2] / hot / "data.bin"
        raw = path.read_bytes()  # both from the page cache
        open_time = min(timed(lambda: store.open(hot)) for _ in range(3))
        read_time = min(timed(path.read_bytes) for _ in range(3))
        assert store.open(hot)[1] == raw
        return {
            "quota": quota, "size": size, "entries": full.datasets, "bytes": full.total_bytes,
            "uploads": i + 1, "evicted": evicted, "entries_after": after.datasets,
            "below": statistics.median(below), "at": statistics.median(at_quota),
            "plain": statistics.median(plain), "open": open_time, "read": read_time,
        }
    finally:
        shutil.rmtree(root)  # the benchmark's own temporary folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="100MB:50kB,1GB:100MB",
                        help="comma-separated quota:file-size pairs (default %(default)s)")
    parser.add_argument("--puts", type=int, default=20, help="puts at the quota per configuration")
    parser.add_argument("--dir", default=str(ROOT / "bench"), help="where to make the temporary stores")
    args = parser.parse_args()
    print(f"{'quota':>8} {'file':>8} {'entries':>8} {'bytes held':>11} {'uploads':>8} {'evicted':>8} "
          f"{'put below':>10} {'put at':>10} {'plain write':>11} {'at/plain':>9} {'at/below':>9} "
          f"{'open':>8} {'read':>8} {'open/read':>9}")
    for config in args.configs.split(","):
        quota, size = (parse_size(x) for x in config.split(":"))
        r = run(quota, size, args.puts, Path(args.dir))
        print(f"{format_size(r['quota']):>8} {format_size(r['size']):>8} {r['entries']:>8,} "
              f"{format_size(r['bytes']):>11} {r['uploads']:>8,} {r['evicted']:>8,} "
              f"{r['below'] * 1e3:>8.1f}ms {r['at'] * 1e3:>8.1f}ms {r['plain'] * 1e3:>9.1f}ms "
              f"{r['at'] / r['plain']:>9.2f} {r['at'] / r['below']:>9.2f} "
              f"{r['open'] * 1e3:>6.0f}ms {r['read'] * 1e3:>6.0f}ms {r['open'] / r['read']:>9.2f}")


if __name__ == "__main__":
    main()
