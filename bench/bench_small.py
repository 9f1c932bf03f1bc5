"""Speed of two small steps the dashboard runs often, each as a ratio to a named numpy floor in the same run
(these used to be timed tests; speed is measured here, not asserted in the suite):

* downsampling a 1,000,000-point curve with three y series and 0.1% kept markers to 2,000 points
  (evalcore.figures.style.downsample) against one ``np.argsort`` of 1,000,000 doubles;
* the default simulated experiment, 80 samples of 5,000 candidates (evalcore.simulate.simulate), against drawing
  the same 400,000 binomial labels with numpy.

Usage: python bench/bench_small.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.figures.style import downsample  # noqa: E402
from evalcore.simulate import simulate  # noqa: E402


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    big = 1_000_000
    x = np.arange(big)
    ys = [np.cumsum(rng.normal(size=big)) for _ in range(3)]
    keep = rng.random(big) < 0.001
    downsample(x, *ys, keep=keep)  # warm caches
    ours = best_of(lambda: downsample(x, *ys, max_points=2000, keep=keep), args.repeat)
    floor = best_of(lambda: np.argsort(ys[0]), args.repeat)
    print(f"downsample 1,000,000 points x 3 ys: {ours:.3f} s; floor np.argsort of 1,000,000: {floor:.3f} s; "
          f"ratio {ours / floor:.2f}x")
    simulate(k=2, n=100)  # warm
    ours = best_of(lambda: simulate(k=80, n=5000), args.repeat)
    floor = best_of(lambda: np.random.default_rng(0).random(400_000) < 0.11, args.repeat)
    print(f"simulate(k=80, n=5000): {ours:.3f} s; floor: 400,000 numpy binomial labels {floor:.4f} s; "
          f"ratio {ours / floor:.0f}x")


if __name__ == "__main__":
    main()
