"""The stratified design (issue 33) by simulation: coverage, widths against a random sample, the test's level, the plan.

Two candidate sets, labels hidden but for the design's candidates:

* Krenn's data (5,102 candidates, 566 TPs), bands of G2 (log.like) ranks 100,400,1500,rest;
* the generated declining set (:func:`evalcore.pooling.stratified_simulation.declining_set`, 6,000 candidates, TP rate
  40% at the head of the latent order falling to 5% at its tail), bands of ``sharp``'s ranks 100,400,1500,2000,rest
  (one more band than Krenn's: its rate keeps falling beyond rank 2,000, Krenn's does not).

For each: a pilot of 100 random candidates (seed 0) plans the allocation of a budget of 500 over the bands for the
bands' measure and two others at n = 100, 500, 1,000, 2,000, 5,000 (:func:`evalcore.pooling.stratified_planning.
plan_strata`); the planned design is then drawn ``--seeds`` times (2,000) and every interval computed from each draw:

1. Coverage of the 95% intervals of precision and recall of every measure and of the difference of the regions' TP
   rates of every pair of measures, at every n (the check: >= 93.5%; a draw with an empty cell counts like any
   other), and the intervals compared for the choice: Korn & Graubard's (used), Wilson's and Jeffreys' at the same
   effective size.
2. Width: the median over draws of the design's precision interval against that of a random sample of 500 (today's
   exact hypergeometric interval) drawn with the same seeds; the check: <= 1 for the bands' measure and the two
   others at every n, <= 0.5 at n = 100 for the bands' measure.
3. The planner's predicted widths and ratios against the simulated ones (the check: within 10%), twice: planned from
   the pilot (its error is mostly the pilot's: a 100-candidate pilot has a handful of candidates in a top band), and
   planned from the bands' true TP rates given as its guess (the planner's width model alone, its design simulated
   with the same seeds).
4. The design-based test (the score test on Rao & Scott's effective counts) for two exchangeable measures (a common
   signal plus fresh noise each repetition, bands cut by one of them, the planned sizes): its rejection rate at
   alpha = 0.05 (the check: <= 6%), ``--test-reps`` repetitions.
5. ``--pilots`` other pilots (seeds 1, 2, ...): how often their plans meet the width checks (``--pilot-seeds`` draws
   each), and their ratio predictions' errors.

Usage: python bench/bench_strata.py [--seeds 2000] [--test-reps 2000] [--pilots 20] [--pilot-seeds 400]
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.estimates import draw_sample  # noqa: E402
from evalcore.io import load_candidates  # noqa: E402
from evalcore.pooling.stratified_planning import plan_strata  # noqa: E402
from evalcore.pooling.stratified_simulation import (declining_set, exchangeable_rejections,  # noqa: E402
                                                    stratified_simulation, width_ratios)
from evalcore.ranking import rank  # noqa: E402

KRENN = ROOT.parent / "shared" / "data" / "krenn_ppv.tsv"
SIZES = (100, 500, 1000, 2000, 5000)
SETS = {"Krenn": ("log.like", ("t.score", "chisq"), (100, 400, 1500)),
        "declining": ("sharp", ("good", "fair"), (100, 400, 1500, 2000))}
BUDGET = 500
FLOOR = 0.935


def markdown(table: pd.DataFrame, digits: int = 3) -> str:
    cols = [str(c) for c in table.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in table.itertuples(index=False):
        lines.append("| " + " | ".join(f"{v:.{digits}f}" if isinstance(v, float) else f"{v}" for v in row) + " |")
    return "\n".join(lines)


def wide(table: pd.DataFrame, values: str, index: str = "measure", order=None) -> pd.DataFrame:
    out = table.pivot_table(index=index, columns="n", values=values, sort=False)
    if order is not None:
        out = out.reindex([o for o in order if o in out.index])
    out.columns = [f"n = {c:,}" for c in out.columns]
    return out.reset_index()


def candidates(name: str):
    c = load_candidates(KRENN, label="is.colloc") if name == "Krenn" else declining_set(n=6000)
    return c, {m: rank(c, m, ties="stable") for m in c.measures}


def plan_for(c, full, name: str, pilot_seed: int):
    measure, others, widths = SETS[name]
    pilot = draw_sample(c.n_candidates, 100, pilot_seed)
    weights = np.full(c.n_candidates, np.nan)
    weights[pilot] = 1.0
    targets = [full[measure]] + [full[m] for m in others]
    return plan_strata([full[measure]], targets, widths, BUDGET, SIZES, labels=c.labels, weights=weights)


def one_set(name: str, args) -> dict:
    c, full = candidates(name)
    measure, others, widths = SETS[name]
    targets = (measure, *others)
    t0 = time.perf_counter()
    plan = plan_for(c, full, name, 0)
    design = plan.design([measure])
    bands = design.bands(c, full)
    print(f"\n# {name}: N = {c.n_candidates:,}, {int(c.labels.sum()):,} TPs; bands of {measure}'s ranks "
          f"{','.join(map(str, widths))},rest: {', '.join(f'{x:,}' for x in bands.counts)} candidates "
          f"(TP rates {', '.join(f'{x:.3f}' for x in np.bincount(bands.band, weights=c.labels) / bands.counts)})\n")
    print(f"Plan from a 100-candidate random pilot (seed 0; {time.perf_counter() - t0:.1f} s): {plan.describe()}")
    print(f"pilot's band rates: {', '.join(f'{x:.3f}' for x in plan.band_rates)}; sizes {plan.sizes}")
    for line in plan.warnings():
        print(f"  warning: {line}")
    pairs = list(combinations(c.measures, 2))
    t0 = time.perf_counter()
    summary, per_seed = stratified_simulation(c.labels, full, design, bands, range(args.seeds), SIZES, pairs=pairs,
                                              random_size=BUDGET, methods=("korn_graubard", "wilson", "jeffreys"))
    print(f"simulation: {args.seeds:,} draws, {len(c.measures)} measures, {len(pairs)} pairs, "
          f"{time.perf_counter() - t0:.0f} s")
    ours = summary[summary["design"] == "stratified"]
    se = np.sqrt(0.95 * 0.05 / args.seeds)
    for what in ("precision", "recall"):
        print(f"\n## Coverage of the 95% intervals of {what} ({args.seeds:,} draws; 1 SE = {se:.2%})\n")
        print(markdown(wide(ours[ours["what"] == what], "coverage", order=list(c.measures))))
    diff = ours[ours["what"] == "difference"]
    print(f"\n## Coverage of the 95% interval of the difference of the regions' TP rates ({len(pairs)} pairs; the "
          "lowest five cells, and the lowest per n)\n")
    print(markdown(diff.nsmallest(5, "coverage")[["measure", "n", "coverage", "median_width"]]))
    print(markdown(diff.groupby("n", as_index=False)["coverage"].min().rename(columns={"coverage": "lowest"})))
    print("\n## The interval of precision at the effective sample size, compared (lowest coverage over the "
          "measures and n; median width relative to Korn & Graubard's)\n")
    prec = summary[summary["what"] == "precision"]
    kg = prec[prec["design"] == "stratified"].set_index(["measure", "n"])["median_width"]
    rows = []
    for design_name, label in (("stratified", "Korn & Graubard (Clopper-Pearson at n*), used"),
                               ("stratified:wilson", "Wilson at n*"), ("stratified:jeffreys", "Jeffreys at n*"),
                               ("random", "random sample of 500, hypergeometric")):
        part = prec[prec["design"] == design_name]
        rel = part.set_index(["measure", "n"])["median_width"] / kg
        rows.append({"interval": label, "lowest coverage": part["coverage"].min(),
                     "cells below 94.5%": int((part["coverage"] < 0.945).sum()), "cells": len(part),
                     "median width / K&G (median over cells)": float(rel.median())})
    print(markdown(pd.DataFrame(rows)))
    ratios = width_ratios(per_seed)
    print(f"\n## Median width relative to a random sample of {BUDGET} (stratified / random)\n")
    print(markdown(wide(ratios, "ratio", order=list(c.measures))))
    got = ratios.set_index(["measure", "n"])["ratio"]
    width_ok = all(got[(m, n)] <= 1 for m in targets for n in SIZES)
    half_ok = got[(measure, 100)] <= 0.5
    cov_ok = bool((ours["coverage"] >= FLOOR).all())
    compared = plan.table.merge(ratios, on=["measure", "n"], suffixes=("_planned", "_simulated"))
    compared = compared.assign(width_error=compared["stratified_width"] / compared["stratified_median"] - 1,
                               random_error=compared["random_width"] / compared["random_median"] - 1,
                               ratio_error=compared["ratio_planned"] / compared["ratio_simulated"] - 1)
    print("\n## The plan's predictions against the simulation (targets)\n")
    print(markdown(compared[["measure", "n", "stratified_width", "stratified_median", "width_error", "random_width",
                             "random_median", "random_error", "ratio_planned", "ratio_high", "ratio_simulated",
                             "ratio_error"]]))
    t0 = time.perf_counter()
    true_rates = np.bincount(bands.band, weights=c.labels) / bands.counts
    known = plan_strata([full[measure]], [full[m] for m in targets], widths, BUDGET, SIZES, guess=tuple(true_rates))
    _, ks = stratified_simulation(c.labels, {m: full[m] for m in targets}, known.design([measure]), bands,
                                  range(args.seeds), SIZES, random_size=BUDGET, recall=False)
    model = known.table.merge(width_ratios(ks), on=["measure", "n"], suffixes=("_planned", "_simulated"))
    model = model.assign(width_error=model["stratified_width"] / model["stratified_median"] - 1,
                         random_error=model["random_width"] / model["random_median"] - 1,
                         ratio_error=model["ratio_planned"] / model["ratio_simulated"] - 1)
    print(f"\n## The planner's width model at the bands' true TP rates (a guess of "
          f"{', '.join(f'{x:.3f}' for x in true_rates)}; sizes {known.sizes}; {args.seeds:,} draws, "
          f"{time.perf_counter() - t0:.0f} s)\n")
    print(markdown(model[["measure", "n", "stratified_width", "stratified_median", "width_error", "random_width",
                          "random_median", "random_error", "ratio_planned", "ratio_simulated", "ratio_error"]]))
    t0 = time.perf_counter()
    signal = 3 * np.argsort(np.argsort(c.scores[measure])) / c.n_candidates
    level = exchangeable_rejections(c.labels, signal, design.widths, design.sizes, args.test_reps, SIZES, seed=7)
    ceiling = 0.06
    print(f"\n## The design-based test, two exchangeable measures, alpha = 0.05 ({args.test_reps:,} repetitions, "
          f"{time.perf_counter() - t0:.0f} s; check <= {ceiling:.0%})\n")
    print(markdown(level[["n", "rejection", "exact"]]))
    results = {"coverage >= 93.5% (precision, recall, difference; every measure, n)": cov_ok,
               f"median width <= random for {', '.join(targets)} at every n": width_ok,
               f"median width <= 0.5 x random for {measure} at n = 100": half_ok,
               "test's rejection <= 6% at every n": bool((level["rejection"] <= ceiling).all()),
               "planned widths within 10% of the simulated (pilot)": bool((compared["width_error"].abs() <= 0.1).all()),
               "planned ratios within 10% of the simulated (pilot)": bool((compared["ratio_error"].abs() <= 0.1).all()),
               "planned widths within 10% of the simulated (true band rates)":
                   bool((model[["width_error", "random_error"]].abs() <= 0.1).all().all()),
               "planned ratios within 10% of the simulated (true band rates)":
                   bool((model["ratio_error"].abs() <= 0.1).all())}
    if args.pilots:
        rows = []
        t0 = time.perf_counter()
        for seed in range(1, args.pilots + 1):
            other = plan_for(c, full, name, seed)
            d = other.design([measure])
            _, ps = stratified_simulation(c.labels, {m: full[m] for m in targets}, d, bands, range(args.pilot_seeds),
                                          SIZES, random_size=BUDGET, recall=False)
            r = width_ratios(ps).set_index(["measure", "n"])
            planned = other.table.set_index(["measure", "n"])
            err = (planned["ratio"] / r["ratio"] - 1).abs().max()
            width_err = (planned["stratified_width"] / r["stratified_median"] - 1).abs().max()
            rows.append({"pilot": seed, "sizes": str(other.sizes), f"{measure} n=100": float(r.loc[(measure, 100),
                                                                                                     "ratio"]),
                         "largest ratio": float(r["ratio"].max()), "largest ratio error": float(err),
                         "largest width error": float(width_err),
                         "warned": len(other.warnings())})
        pilots = pd.DataFrame(rows)
        print(f"\n## {args.pilots} other pilots (seeds 1-{args.pilots}; {args.pilot_seeds} draws each, "
              f"{time.perf_counter() - t0:.0f} s)\n")
        print(markdown(pilots))
        print(f"\nplans meeting <= 0.5 at n = 100: {int((pilots[f'{measure} n=100'] <= 0.5).sum())} of {len(pilots)}; "
              f"<= 1 everywhere: {int((pilots['largest ratio'] <= 1).sum())}; both: "
              f"{int(((pilots[f'{measure} n=100'] <= 0.5) & (pilots['largest ratio'] <= 1)).sum())}; ratio "
              f"predictions within 10%: {int((pilots['largest ratio error'] <= 0.1).sum())}; width predictions "
              f"within 10%: {int((pilots['largest width error'] <= 0.1).sum())}")
    print("\n## Checks\n")
    for what, ok in results.items():
        print(f"- {what}: {'yes' if ok else 'NO'}")
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--test-reps", type=int, default=2000)
    ap.add_argument("--pilots", type=int, default=20)
    ap.add_argument("--pilot-seeds", type=int, default=400)
    ap.add_argument("--only", choices=list(SETS))
    args = ap.parse_args()
    for name in SETS:
        if args.only in (None, name):
            one_set(name, args)


if __name__ == "__main__":
    main()
