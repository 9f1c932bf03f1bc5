"""Speed of the effect sizes and of power (issue 11), against Fisher's p-values measured in the same run.

* Effect sizes at every n of N = 1,000,000 synthetic candidates (bench_core's two correlated measures with
  ties, 11% TPs): the difference of precision with Newcombe's interval, and the conditional MLE odds ratio
  with its exact interval, each timed against Fisher's exact test on the same 1,000,000 tables of
  difference regions (``fisher_exact``); also the same for Krenn's data if it is beside the repository
  (5,102 candidates, every n).
* Power: ``exact_power`` of Fisher's test for one n with d = 100, 1,000 and 10,000 candidates per difference
  region (the bar: under a second at d = 10,000), the minimum detectable difference at such an n, and the
  minimum detectable difference at every n of Krenn's data.

Times are the best of a few runs on this machine (2 cores, shared); compare ratios, not seconds. On a loaded
machine the wall-clock ratio moves with the load between the timings, so the ratio of the processor time both
take (all threads) is printed too.

Usage: python bench/bench_effect.py [--size 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import best_of, synthetic  # noqa: E402
from evalcore.compare import compare_rankings, difference_regions  # noqa: E402
from evalcore.ranking import rank_scores  # noqa: E402
from evalcore.stats.effect import odds_ratio, precision_difference  # noqa: E402
from evalcore.stats.fisher import fisher_exact  # noqa: E402
from evalcore.stats.power import detectable_differences, exact_power, minimum_detectable_difference  # noqa: E402

KRENN = ROOT.parent / "shared" / "data" / "krenn_ppv.tsv"


def cells_of(table):
    return [table[c].to_numpy() for c in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")]


def cpu_best_of(fn, repeat: int) -> float:
    """Least processor time (all threads of this process) of `repeat` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def effect_times(name: str, table, repeat: int) -> None:
    a, b, c, d = cells_of(table)
    n = table["n"].to_numpy()
    runs = {"fisher": lambda: fisher_exact(a, b, c, d), "diff": lambda: precision_difference(a, c, a + b, n),
            "ratio": lambda: odds_ratio(a, b, c, d)}
    wall = {key: best_of(fn, repeat) for key, fn in runs.items()}
    cpu = {key: cpu_best_of(fn, repeat) for key, fn in runs.items()}
    p = fisher_exact(a, b, c, d).pvalue
    print(f"{name}: {len(table):,} tables (median p = {np.median(p):.2g})")
    print("                               wall          x Fisher   processor time x Fisher")
    rows = (("Fisher's p-values", ("fisher",)), ("difference + Newcombe CI", ("diff",)),
            ("odds ratio + exact CI", ("ratio",)), ("effect sizes together", ("diff", "ratio")))
    for label, keys in rows:
        w = sum(wall[k] for k in keys)
        c_ = sum(cpu[k] for k in keys)
        print(f"  {label:<28} {w:8.3f} s   {w / wall['fisher']:6.2f}      {c_:8.3f} s   {c_ / cpu['fisher']:6.2f}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    # compile / load every kernel outside the timings
    fisher_exact([3, 40], [1, 50], [1, 41], [3, 49])
    odds_ratio([3, 40], [1, 50], [1, 41], [3, 49])
    exact_power(0.3, 0.2, 50)

    labels, score_a, score_b = synthetic(args.size)
    ra = rank_scores(labels, score_a, ties="random", seed=1, measure="a")
    rb = rank_scores(labels, score_b, ties="random", seed=2, measure="b")
    effect_times(f"synthetic N = {args.size:,}, every n", difference_regions(ra, rb), args.repeat)

    krenn = None
    if KRENN.exists():
        from evalcore.io import load_candidates
        from evalcore.ranking import rank
        cs = load_candidates(KRENN, label="is.colloc")
        krenn = compare_rankings(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"))
        effect_times("Krenn's data, G2 vs X2, every n", krenn, args.repeat)

    print("power of Fisher's test on D1/D2 for one n (pi_D1 = 0.12, pi_D2 = 0.10):")
    for size in (100, 1_000, 10_000):
        seconds = best_of(lambda: exact_power(0.12, 0.10, size), args.repeat)
        print(f"  d = {size:>6,}: exact power {exact_power(0.12, 0.10, size):.4f} in {seconds * 1000:8.1f} ms")
    seconds = best_of(lambda: minimum_detectable_difference(10_000, 0.11), args.repeat)
    print(f"  minimum detectable difference at d = 10,000, pooled 0.11: "
          f"{minimum_detectable_difference(10_000, 0.11):.5f} in {seconds * 1000:.1f} ms")
    if krenn is not None:
        seconds = best_of(lambda: detectable_differences(krenn), 1)
        print(f"  minimum detectable difference at every n of Krenn's data ({len(krenn):,} n): {seconds:.2f} s")


if __name__ == "__main__":
    main()
