"""Speed of the effect sizes and of power (issue 11), against Fisher's p-values measured in the same run.

* Effect sizes at every n of N = 1,000,000 synthetic candidates (bench_core's two correlated measures with
  ties, 11% TPs): the difference of precision with Newcombe's interval, and the conditional MLE odds ratio
  with its exact interval, each timed against Fisher's exact test on the same 1,000,000 tables of
  difference regions (``fisher_exact``); also the same for Krenn's data if it is beside the repository
  (5,102 candidates, every n).
* Power: ``exact_power`` of Fisher's test for one n with d = 100, 1,000 and 10,000 candidates per difference
  region (the bar: under a second at d = 10,000), the minimum detectable difference at such an n, and the
  minimum detectable difference at every n of Krenn's data.

Times are the best of a few runs on this machine (2 cores, shared); compare ratios, not seconds. The runs are
interleaved (each repeat times every function once, in turn), so that a change of load hits all alike; on a
loaded machine the wall-clock ratio still moves with the load, so the ratio of the processor time both take
(all threads; every kernel runs with the same two threads) is printed too.

``--before REV`` also times the odds ratio of the kernels at git revision REV (its
``evalcore/stats/noncentral.py``, loaded beside today's) in the same interleaved runs, and prints the largest
difference of the two in log odds ratio over every table.

Usage: python bench/bench_effect.py [--size 1000000] [--repeat 5] [--before main]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
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


def interleaved(runs: dict, repeat: int) -> tuple[dict, dict]:
    """Least wall-clock and least processor time (all threads) of each function over `repeat` rounds, each round
    calling every function once in turn."""
    wall = {key: [] for key in runs}
    cpu = {key: [] for key in runs}
    for _ in range(repeat):
        for key, fn in runs.items():
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            wall[key].append(time.perf_counter() - w0)
            cpu[key].append(time.process_time() - c0)
    return {k: min(v) for k, v in wall.items()}, {k: min(v) for k, v in cpu.items()}


def kernels_at(rev: str):
    """evalcore/stats/noncentral.py at git revision `rev`, loaded as a module of its own beside today's."""
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:evalcore/stats/noncentral.py"], check=True,
                          capture_output=True, text=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="bench_effect_"))  # numba caches the old kernels' builds there
    path = folder / "noncentral_before.py"
    path.write_text(text.replace("from .kernels import", "from evalcore.stats.kernels import"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("noncentral_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def odds_ratio_with(kernels):
    """odds_ratio of today's effect.py on the kernels of `kernels` (a module with log_odds_ratios)."""
    from evalcore.stats import effect

    def run(a, b, c, d):
        today = effect.log_odds_ratios
        effect.log_odds_ratios = kernels.log_odds_ratios
        try:
            return odds_ratio(a, b, c, d)
        finally:
            effect.log_odds_ratios = today
    return run


def effect_times(name: str, table, repeat: int, before=None, before_rev: str = "") -> None:
    a, b, c, d = cells_of(table)
    n = table["n"].to_numpy()
    runs = {"fisher": lambda: fisher_exact(a, b, c, d), "diff": lambda: precision_difference(a, c, a + b, n),
            "ratio": lambda: odds_ratio(a, b, c, d)}
    if before is not None:
        runs["before"] = lambda: before(a, b, c, d)
    wall, cpu = interleaved(runs, repeat)
    p = fisher_exact(a, b, c, d).pvalue
    print(f"{name}: {len(table):,} tables (median p = {np.median(p):.2g}), best of {repeat}, interleaved")
    print("                                    wall          x Fisher   processor time x Fisher")
    rows = [("Fisher's p-values", ("fisher",)), ("difference + Newcombe CI", ("diff",)),
            ("odds ratio + exact CI", ("ratio",)), ("effect sizes together", ("diff", "ratio"))]
    if before is not None:
        rows.append((f"odds ratio + exact CI at {before_rev}", ("before",)))
    for label, keys in rows:
        w = sum(wall[k] for k in keys)
        c_ = sum(cpu[k] for k in keys)
        print(f"  {label:<33} {w:8.3f} s   {w / wall['fisher']:6.2f}      {c_:8.3f} s   {c_ / cpu['fisher']:6.2f}",
              flush=True)
    if before is not None:
        now = np.log(np.column_stack([np.asarray(v, dtype=float) for v in odds_ratio(a, b, c, d)]))
        then = np.log(np.column_stack([np.asarray(v, dtype=float) for v in before(a, b, c, d)]))
        finite = np.isfinite(then)
        same = np.array_equal(finite, np.isfinite(now)) and np.array_equal(np.isnan(then), np.isnan(now))
        diff = np.abs(np.where(finite, now, 0.0) - np.where(finite, then, 0.0)).max(axis=0)
        print(f"  against {before_rev}: the same infinite and undefined values: {same}; largest difference in log "
              f"odds ratio: estimate {diff[0]:.2g}, lower bound {diff[1]:.2g}, upper bound {diff[2]:.2g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", default="", help="also time the odds ratio's kernels at this git revision")
    parser.add_argument("--no-power", action="store_true", help="only the effect sizes")
    args = parser.parse_args()

    # compile / load every kernel outside the timings
    fisher_exact([3, 40], [1, 50], [1, 41], [3, 49])
    odds_ratio([3, 40], [1, 50], [1, 41], [3, 49])
    exact_power(0.3, 0.2, 50)
    before = odds_ratio_with(kernels_at(args.before)) if args.before else None
    if before is not None:
        before([3, 40], [1, 50], [1, 41], [3, 49])
    rng = np.random.default_rng(0)  # and the parallel builds (25,000 tables; the node path's cells)
    warm = [rng.integers(200, 400, 25_000) for _ in range(4)]
    for fn in (fisher_exact, odds_ratio) + ((before,) if before is not None else ()):
        fn(*warm)

    labels, score_a, score_b = synthetic(args.size)
    ra = rank_scores(labels, score_a, ties="random", seed=1, measure="a")
    rb = rank_scores(labels, score_b, ties="random", seed=2, measure="b")
    effect_times(f"synthetic N = {args.size:,}, every n", difference_regions(ra, rb), args.repeat, before,
                 args.before)

    krenn = None
    if KRENN.exists():
        from evalcore.io import load_candidates
        from evalcore.ranking import rank
        cs = load_candidates(KRENN, label="is.colloc")
        krenn = compare_rankings(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"))
        effect_times("Krenn's data, G2 vs X2, every n", krenn, args.repeat, before, args.before)

    if args.no_power:
        return
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
