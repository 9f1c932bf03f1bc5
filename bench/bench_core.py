"""Speed of the core against the naive loop a user writes today (issue 2).

For N = 5,102, 100,000 and 1,000,000 synthetic candidates (11% TPs, two correlated
measures with ties), measured in one run on this machine:

* evalcore: rank two measures, their n-best curves with Clopper-Pearson intervals, and
  Fisher's exact test on the difference regions, for every n = 1..N (and for a plotting
  grid of 2,000 n);
* naive: per n, ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")`` for both
  measures and ``scipy.stats.fisher_exact`` on the difference-region table (the tables
  themselves are given to it for free), timed on a random subset of n and scaled to N;
* the cold start of the compiled (numba) kernel: first import and call with an empty
  cache, then with the on-disk cache filled.

Usage: python bench/bench_core.py [--sizes 5102,100000,1000000] [--naive-samples 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.compare import compare_rankings  # noqa: E402
from evalcore.curves import precision_curve  # noqa: E402
from evalcore.ranking import rank_scores  # noqa: E402


def synthetic(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Labels with 11% TPs and two measures of different quality, rounded to make ties."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=n)
    labels = rng.random(n) < 1 / (1 + np.exp(-(2.2 * latent - 3.2)))
    score_a = np.round(latent + rng.normal(scale=0.6, size=n), 2)
    score_b = np.round(latent + rng.normal(scale=0.9, size=n), 1)
    return labels, score_a, score_b


def evalcore_run(labels, score_a, score_b, sizes=None):
    a = rank_scores(labels, score_a, ties="random", seed=1, measure="a")
    b = rank_scores(labels, score_b, ties="random", seed=2, measure="b")
    curve_a = precision_curve(a, sizes)
    curve_b = precision_curve(b, sizes)
    comparison = compare_rankings(a, b, sizes)
    return a, b, curve_a, curve_b, comparison


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def naive_per_n(curve_a, curve_b, comparison, sample: np.ndarray) -> float:
    """Seconds per n of the naive loop, timed on the list sizes in `sample`."""
    ka, kb = curve_a["tp"].to_numpy(), curve_b["tp"].to_numpy()
    tab = comparison[["tp_d1", "fp_d1", "tp_d2", "fp_d2"]].to_numpy()
    t0 = time.perf_counter()
    for i in sample:
        n = i + 1
        stats.binomtest(int(ka[i]), n).proportion_ci(method="exact")
        stats.binomtest(int(kb[i]), n).proportion_ci(method="exact")
        stats.fisher_exact([[int(tab[i, 0]), int(tab[i, 1])], [int(tab[i, 2]), int(tab[i, 3])]])
    return (time.perf_counter() - t0) / sample.size


def cold_start() -> tuple[float, float]:
    """Import + first Fisher call in a fresh process: with an empty numba cache, then a filled one."""
    code = ("import time; t=time.perf_counter(); from evalcore.stats.fisher import fisher_exact; "
            "fisher_exact([3, 40], [1, 50], [1, 41], [3, 49]); print(time.perf_counter()-t)")
    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": root}
        run = lambda: float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,  # noqa: E731
                                           text=True, check=True).stdout)
        return run(), run()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5102,100000,1000000")
    parser.add_argument("--naive-samples", type=int, default=200)
    args = parser.parse_args()
    cold, warm = cold_start()
    print(f"numba kernel start-up in a fresh process: {cold:.2f} s with an empty cache (compiles), "
          f"{warm:.2f} s with the on-disk cache")
    evalcore_run(*synthetic(1000))  # compile/load kernels outside the timings
    print(f"{'N':>9} {'evalcore all n':>15} {'naive all n (scaled)':>21} {'ratio':>8} "
          f"{'grid 2000 n':>12} {'grid, rankings cached':>22}")
    for n_total in (int(s) for s in args.sizes.split(",")):
        data = synthetic(n_total)
        repeat = 5 if n_total <= 10_000 else (3 if n_total <= 100_000 else 1)
        ours = best_of(lambda: evalcore_run(*data), repeat)
        _, _, curve_a, curve_b, comparison = evalcore_run(*data)
        rng = np.random.default_rng(0)
        sample = rng.choice(n_total, size=min(args.naive_samples, n_total), replace=False)
        naive = naive_per_n(curve_a, curve_b, comparison, sample) * n_total
        grid = np.unique(np.linspace(1, n_total, 2000).round().astype(np.int64))
        grid_time = best_of(lambda: evalcore_run(*data, sizes=grid), repeat)
        a = rank_scores(data[0], data[1], ties="random", seed=1)
        b = rank_scores(data[0], data[2], ties="random", seed=2)
        cached = best_of(lambda: (precision_curve(a, grid), precision_curve(b, grid), compare_rankings(a, b, grid)),
                         repeat)
        print(f"{n_total:>9} {ours:>13.3f} s {naive:>19.1f} s {naive / ours:>7.0f}x {grid_time:>10.3f} s "
              f"{cached:>20.3f} s", flush=True)


if __name__ == "__main__":
    main()
