"""Experiments with several samples at the issue's size: k = 80 samples of N = 5,000 (400,000 candidates).

Core (evalcore called directly, best of --repeat runs): simulating the experiment, reading it back from TSV,
the validation of one measure (threshold cut, and n-best cut with random ties: 80 rankings), the across-sample
tests of two measures, and the UIR of all five measures. Baseline in the same run: the same validation written
as a plain per-sample pandas loop (boolean selection of each sample, then scipy), the way a notebook would do it.

Dashboard (streamlit.testing.v1.AppTest, server time of a script run): the first run of each multi-sample page
(reading and computing), and the median rerun after moving the n slider (new thresholds, so new computations,
not a cache hit) and after moving the confidence level.

Usage: python bench/bench_samples.py [--repeat 3] [--k 80] [--n 5000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_app import page_times  # noqa: E402

from evalcore import analysis  # noqa: E402
from evalcore.io import load_candidates  # noqa: E402
from evalcore.samples import Cut, cuts_for, gamma_for_mean_size  # noqa: E402
from evalcore.simulate import simulate, to_tsv  # noqa: E402
from evalcore.validate import validate  # noqa: E402


def best_of(fn, repeat: int):
    """The shortest of ``repeat`` runs, and the result."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def naive_validation(candidates, measure: str, gamma: float, level: float = 0.95) -> tuple[float, int]:
    """The obvious per-sample loop: select each sample's rows, count, then scipy for interval, KS and binomial test."""
    import pandas as pd

    frame = pd.DataFrame({"sample": candidates.samples, "tp": candidates.labels, "score": candidates.scores[measure]})
    precisions, sizes, bounds = [], [], []
    for s in frame["sample"].unique():
        part = frame[frame["sample"] == s]
        accepted = part[part["score"] >= gamma]
        k, n = int(accepted["tp"].sum()), len(accepted)
        ci = stats.binomtest(k, n).proportion_ci(level, method="exact")
        precisions.append(k / n)
        sizes.append(n)
        bounds.append((ci.low, ci.high))
    p = np.array(precisions)
    pi, sigma = p.mean(), np.sqrt(p.mean() * (1 - p.mean()) / np.mean(sizes))
    stats.kstest(p, "norm", args=(pi, sigma))
    misses = sum(not lo <= pi <= hi for lo, hi in bounds)
    stats.binomtest(misses, len(p), 1 - level)
    return p.std(ddof=1) / sigma, misses


def core(k: int, n: int, repeat: int) -> None:
    t_sim, experiment = best_of(lambda: simulate(k=k, n=n, n_sd=0.05, sample_sd=0.25, seed=1), repeat)
    text = to_tsv(experiment).encode()
    t_read, candidates = best_of(lambda: load_candidates(text, name="experiment.tsv"), repeat)
    gamma = gamma_for_mean_size(candidates, "good", 100)
    t_val, result = best_of(lambda: validate(candidates, "good", Cut("gamma", gamma)), repeat)
    t_naive, (ratio, misses) = best_of(lambda: naive_validation(candidates, "good", gamma), repeat)
    assert abs(ratio - result.sd_ratio) < 1e-9 and misses == result.misses
    t_val_n, _ = best_of(lambda: validate(candidates, "good", Cut("n", 100), ties="random", seed=1), repeat)
    cuts = cuts_for(candidates, candidates.measures, "gamma", 100)
    t_across, _ = best_of(lambda: analysis.across_samples(candidates, "good", "noisy", cuts["good"], cuts["noisy"]),
                          repeat)
    t_uir, _ = best_of(lambda: analysis.uir_analysis(candidates, list(candidates.measures), cuts, "good", "noisy",
                                                     betas=(1.0,)), repeat)
    print(f"k = {k}, N = {n:,} per sample: {candidates.n_candidates:,} candidates "
          f"(SD ratio {result.sd_ratio:.2f}, misses {result.misses} of {result.k}, KS p {result.ks.p_value:.3g})")
    for name, t in (("simulate", t_sim), ("read the TSV", t_read), ("validate, gamma cut", t_val),
                    ("validate, n-best with random ties (80 rankings)", t_val_n),
                    ("across-sample tests, 2 measures", t_across), ("UIR, 5 measures + F1 + sweep", t_uir)):
        print(f"  {name:50} {t * 1000:8.1f} ms")
    print(f"  {'naive per-sample pandas/scipy validation':50} {t_naive * 1000:8.1f} ms  "
          f"(evalcore {t_naive / t_val:.1f}x faster, same numbers)")
    return text


PAGES = {"pages/validation.py": ["w_cut_n", "w_level"], "pages/across.py": ["w_cut_n", "w_level"],
         "pages/uir.py": ["w_cut_n", "w_uir_threshold"]}
VALUES = {"w_cut_n": [90, 110, 95, 105, 100], "w_level": [0.9, 0.99, 0.95, 0.8, 0.97],
          "w_uir_threshold": [0.3, 0.5, 0.25, 0.4, 0.2]}


def dashboard(text: bytes, repeat: int) -> None:
    from evalcore.io.store import DatasetStore

    dataset = DatasetStore().put(text, "experiment.tsv")
    print("dashboard (AppTest server time)")
    for page, keys in PAGES.items():
        link = {"dataset": dataset, "a": "good", "b": "noisy", "v_m": "good"}
        first, medians = page_times(link, page, {key: VALUES[key] for key in keys}, max(repeat, 3))
        print(f"  {page:22} first run {first:6.2f} s"
              + "".join(f"; {key[2:]} moved: median {t * 1000:5.0f} ms" for key, t in medians.items()), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--k", type=int, default=80)
    parser.add_argument("--n", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        os.environ["EVALCORE_STORE"] = root
        text = core(args.k, args.n, args.repeat)
        dashboard(text, args.repeat)


if __name__ == "__main__":
    main()
