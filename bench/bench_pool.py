"""Pooled designs on Krenn's data (issue 22): coverage, width against a random sample, the test's level, the plan.

Labels are hidden except for the design's candidates: the pool (the union of the top-K lists of G2 = log.like and
t = t.score, stable ties, K the deepest pool within ``--pool-size`` candidates: K = 228, 299 candidates) and a seeded
simple random sample of the rest, ``--budget`` - 299 = 201 of the other 4,803. For each of ``--seeds`` seeds:

1. Coverage: the 95% intervals (exact hypergeometric on the sampled stratum) of every measure's n-best precision at
   n = 100, 500, 1,000, 2,000, 5,000, against the full-data precision; the share of seeds covering it (nominal 95%,
   the check is >= 93.5%, three standard errors of 2,000 seeds).
2. Width: the same intervals against those of a simple random sample of ``--budget`` (500) candidates of the whole
   set drawn with the same seeds (today's design): the median over seeds of the width ratio pooled / random.
3. Fisher's test on effective counts at the level: two exchangeable measures (a common signal plus fresh noise
   each repetition), the pool of their top-K lists, a random sample of the rest; the rejection rate per n at
   alpha = 0.05 (``--test-reps`` repetitions).
4. The plan: the depth K and sample size m the planner picks at B = 500 for the pool of G2 and t, at several n.

Usage: python bench/bench_pool.py [--seeds 2000] [--test-reps 1000] [--budget 500] [--pool-size 300]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.estimates import SamplingFrame, draw_sample  # noqa: E402
from evalcore.io import load_candidates  # noqa: E402
from evalcore.pooling import Design, deepest_pool, pool_sizes, pooled_compare  # noqa: E402
from evalcore.pooling.planning import plan_pool  # noqa: E402
from evalcore.pooling.simulation import design_simulation, width_ratios  # noqa: E402
from evalcore.ranking import rank, rank_scores  # noqa: E402

KRENN = ROOT.parent / "shared" / "data" / "krenn_ppv.tsv"
SIZES = (100, 500, 1000, 2000, 5000)
POOL = ("log.like", "t.score")


def markdown(table: pd.DataFrame) -> str:
    cols = [str(c) for c in table.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in table.itertuples(index=False):
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else f"{v}" for v in row) + " |")
    return "\n".join(lines)


def fisher_level(labels: np.ndarray, base: np.ndarray, pool_budget: int, budget: int, reps: int, sizes, seed: int):
    """Per n: the share of repetitions where the pooled test rejects for two exchangeable measures."""
    rng = np.random.default_rng(seed)
    sizes = np.asarray(sizes)
    rejections = np.zeros(sizes.size)
    exact = np.zeros(sizes.size)
    for r in range(reps):
        sa, sb = base + rng.normal(size=labels.size), base + rng.normal(size=labels.size)
        full = [rank_scores(labels, s, ties="stable", measure=m) for s, m in ((sa, "A"), (sb, "B"))]
        k = deepest_pool(full, pool_budget)
        pool = np.zeros(labels.size, dtype=bool)
        for f in full:
            pool[f.order[:k]] = True
        annotated = pool.copy()
        annotated[draw_sample(~pool, budget - int(pool.sum()), seed + r)] = True
        a = rank_scores(labels, sa, ties="stable", measure="A", annotated=annotated)
        b = rank_scores(labels, sb, ties="stable", measure="B", annotated=annotated)
        table = pooled_compare(a, b, sizes, pool=pool, confidence_level=0.95, min_annotated=0)
        rejections += table["significant"].to_numpy()
        exact += (table["regime"] == "exact").to_numpy()
    return rejections / reps, exact / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--test-reps", type=int, default=1000)
    ap.add_argument("--budget", type=int, default=500)
    ap.add_argument("--pool-size", type=int, default=300)
    ap.add_argument("--skip-test", action="store_true")
    ap.add_argument("--skip-plan", action="store_true")
    args = ap.parse_args()
    c = load_candidates(KRENN, label="is.colloc")
    rankings = {m: rank(c, m, ties="stable") for m in c.measures}
    k = deepest_pool([rankings[m] for m in POOL], args.pool_size)
    design = Design("pool+sample", SamplingFrame(POOL, k, ties="stable"), size=0, seed=0)
    pool = design.pool_mask(c, rankings)
    m = args.budget - int(pool.sum())
    print(f"Krenn: N = {c.n_candidates:,}, {c.n_tp} TPs; pool of the top {k} of {', '.join(POOL)}: "
          f"{int(pool.sum())} candidates (+1 at K = {k + 1}: {pool_sizes([rankings[x] for x in POOL])[k + 1]}); "
          f"sample of the rest m = {m}; budget {args.budget}; {args.seeds:,} seeds")
    t0 = time.perf_counter()
    summary, per_seed = design_simulation(c.labels, rankings, pool, m, range(args.seeds), SIZES,
                                          random_size=args.budget)
    print(f"simulation: {time.perf_counter() - t0:.1f} s")
    cov = summary.pivot_table(index=["measure", "n"], columns="design", values="coverage", sort=False).reset_index()
    cov.columns.name = None
    se = np.sqrt(0.95 * 0.05 / args.seeds)
    print(f"\n## Coverage of the 95% intervals ({args.seeds:,} seeds; floor 95% - 1.5 points = 93.5%, "
          f"1 SE = {se:.2%})\n")
    wide = cov.pivot(index="measure", columns="n", values="pooled").reindex(list(c.measures))
    print(markdown(wide.reset_index().rename(columns=lambda x: f"n = {x}" if isinstance(x, (int, np.integer))
                                             else x)))
    print(f"\nlowest pooled coverage: {cov['pooled'].min():.3%}; lowest random-sample coverage: "
          f"{cov['random'].min():.3%}; every pooled >= 93.5%: {bool((cov['pooled'] >= 0.935).all())}")
    ratios = width_ratios(per_seed)
    print(f"\n## Median width ratio pooled / random sample of {args.budget} (per seed; < 1: the pooled design is "
          "narrower)\n")
    rw = ratios.pivot(index="measure", columns="n", values="median_ratio").reindex(list(c.measures))
    print(markdown(rw.reset_index().rename(columns=lambda x: f"n = {x}" if isinstance(x, (int, np.integer)) else x)))
    print("\n## Median widths (pooled | random)\n")
    mw = ratios.assign(cell=[f"{p:.3f} / {r:.3f}" for p, r in zip(ratios["pooled_median"], ratios["random_median"])])
    print(markdown(mw.pivot(index="measure", columns="n", values="cell").reindex(list(c.measures)).reset_index()))
    inside = summary[(summary["design"] == "pooled") & (summary["rest"] == 0)]
    print(f"\nlists inside the pool (zero width): {', '.join(f'{a} n={b}' for a, b in zip(inside.measure, inside.n))}")
    pooled = summary[summary["design"] == "pooled"][["measure", "n", "rest", "pooled"]]
    beyond = ratios.merge(pooled, on=["measure", "n"])
    beyond = beyond[beyond["rest"] > 0]
    print(f"beyond the pool: median ratio < 1 in {int((beyond['median_ratio'] < 1).sum())} of {len(beyond)} "
          f"(measure, n) cells")
    if not args.skip_test:
        sizes = np.array([100, 200, 500, 1000, 2000])
        base = stats.rankdata(c.scores["log.like"]) / c.n_candidates * 3
        t0 = time.perf_counter()
        rate, exact = fisher_level(c.labels, base, args.pool_size, args.budget, args.test_reps, sizes, seed=7)
        ceiling = stats.binom.isf(1e-3 / sizes.size, args.test_reps, 0.05) / args.test_reps
        print(f"\n## Fisher's test on effective counts, two exchangeable measures, alpha = 0.05 "
              f"({args.test_reps} repetitions, {time.perf_counter() - t0:.0f} s; ceiling at 1e-3: {ceiling:.3f})\n")
        print(markdown(pd.DataFrame({"n": sizes, "rejection rate": rate, "share of reps in the exact regime": exact})))
    if not args.skip_plan:
        pr = [rankings[x] for x in POOL]
        print(f"\n## The plan at B = {args.budget} for the pool of {', '.join(POOL)} (TP rate guess: the baseline "
              f"{c.baseline:.4f})\n")
        rows = []
        for n in (100, 200, 300, 500, 1000, 2000):
            t0 = time.perf_counter()
            plan = plan_pool(pr, pr, args.budget, n, guess=c.baseline)
            dt = time.perf_counter() - t0
            k0 = plan.table[plan.table["depth"] == 0]["objective"].iloc[0]
            rows.append({"n": n, "K": plan.depth, "pool size": plan.pool_size, "m": plan.sample_size,
                         "expected width (max of G2, t)": plan.width, "random sample of B (K = 0)": float(k0),
                         "seconds": round(dt, 1)})
        print(markdown(pd.DataFrame(rows)))


if __name__ == "__main__":
    main()
