"""The command line's stratified design: ``--strata M1[,M2]:W1,W2,...,rest [--strata-sample S1,S2,...]`` with
``--annotated-sample`` on ``curves``, ``compare`` and ``report``, and the ``strata-plan`` command.

Light at import (argparse only), as :mod:`evalcore.pooling.cli`: the commands import what they need when they run.
"""

from __future__ import annotations

import argparse
from typing import Callable

STRATA_HELP = ("with --annotated-sample: a stratified design: rank bands of these measures (of their best rank with "
               "several; ranked with --ties/--seed: stable, random or hash) of the widths given, the last band the "
               "rest, e.g. log.like:100,400,1500,rest; the annotated candidates of each band are taken as a simple "
               "random sample of the band")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--strata`` and ``--strata-sample`` beside ``--pool`` and ``--pool-sample``."""
    p.add_argument("--strata", metavar="M1,M2:W1,W2,...,rest", help=STRATA_HELP)
    p.add_argument("--strata-sample", metavar="S1,S2,...",
                   help="with --strata: the sample size drawn in each band, e.g. 50,75,180,195 ('all': the band "
                        "whole), for the record and the methods text; the estimates use the annotated candidates of "
                        "each band, whatever their number (default: those numbers)")


def add_parser(sub, data_arguments: Callable, ranking_arguments: Callable) -> None:
    """The ``strata-plan`` command."""
    p = sub.add_parser("strata-plan", help="plan a stratified design: the sample size of each rank band that spends a "
                                           "budget of annotations best, with its expected widths against a random "
                                           "sample of the same budget")
    data_arguments(p)
    p.add_argument("--strata", required=True, metavar="M1,M2:W1,W2,...,rest",
                   help="the bands: measures and widths, e.g. log.like:100,400,1500,rest")
    p.add_argument("--budget", type=int, required=True, metavar="B", help="annotations to spend")
    p.add_argument("--n", required=True, metavar="N1,N2,...",
                   help="the list sizes whose intervals matter, e.g. 100,500,1000,2000,5000")
    p.add_argument("--target", action="append", metavar="M",
                   help="a measure whose precision matters (repeat; default: the bands' measures)")
    p.add_argument("--guess", metavar="P[,P...]",
                   help="the TP rate of each band (or one for all) to plan with; default: the annotated candidates "
                        "as a pilot (a random sample of the whole set, or of --pilot-pool's design)")
    p.add_argument("--pilot-pool", metavar="M1,M2:K",
                   help="the pilot is a pooled design: the union of the top K of these measures annotated whole, and "
                        "the annotated candidates outside it a random sample of the rest (read with its own weights)")
    p.add_argument("--table", action="store_true", help="write the predicted widths of every measure and n, not only "
                                                        "the allocation")
    ranking_arguments(p)


def check(args) -> None:
    """--strata excludes the other designs' options."""
    from ..errors import ParameterError

    if getattr(args, "strata_sample", None) is not None and not getattr(args, "strata", None):
        raise ParameterError("--strata-sample needs --strata (the bands whose sizes it gives)")
    if getattr(args, "strata", None) and (getattr(args, "pool", None) or getattr(args, "pool_sample", None) is not None
                                         or getattr(args, "sample_frame", None)):
        raise ParameterError("--strata describes a design of its own; give it without --pool, --pool-sample and "
                             "--sample-frame")


def parse_strata(text: str, measures, n_candidates: int | None = None):
    """``M1,M2:W1,W2,...,rest`` as (measures, widths), the measures checked against the data's."""
    from ..errors import ParameterError
    from .stratified import parse_widths

    listed, sep, spec = str(text).rpartition(":")
    chosen = tuple(m.strip() for m in listed.split(",") if m.strip())
    if not sep or not chosen:
        raise ParameterError(f"--strata is MEASURE[,MEASURE...]:W1,W2,...,rest, e.g. log.like:100,400,1500,rest; got "
                             f"{str(text)[:80]!r}")
    unknown = [m for m in chosen if m not in measures]
    if unknown:
        raise ParameterError(f"--strata {str(text)[:80]!r}: {', '.join(unknown)} is not among the measures "
                             f"{', '.join(measures)}")
    return chosen, parse_widths(spec, n_candidates)


def design_for(args, candidates, rankings):
    """The design --strata/--strata-sample describe over these candidates (its band sizes from --strata-sample, or
    the annotated candidates of each band), and its bands."""
    import numpy as np

    from ..errors import ParameterError
    from .stratified import Bands, StratifiedDesign, best_rank, parse_sizes

    check(args)
    measures, widths = parse_strata(args.strata, candidates.measures, candidates.n_candidates)
    if args.ties not in ("stable", "random", "hash"):
        raise ParameterError(f"--strata cuts its bands with --ties stable, random or hash (orders that do not look at "
                             f"the labels); got --ties {args.ties}")
    by_name = {r.measure: r for r in rankings}
    probe = StratifiedDesign.of(measures, widths, (1,) * (len(widths) + 1), ties=args.ties,
                                tie_seed=args.seed if args.ties in ("random", "hash") else None)
    bands = Bands.of(best_rank(probe.rankings(candidates, by_name)), widths)
    annotated = np.ones(candidates.n_candidates, bool) if candidates.annotated is None else candidates.annotated
    if args.strata_sample:
        sizes = parse_sizes(args.strata_sample, bands.counts)
    else:
        sizes = tuple(int(x) for x in np.bincount(bands.band[annotated], minlength=bands.n_bands))
    design = StratifiedDesign(frame=probe.frame, widths=widths, sizes=sizes, seed=0)
    design.check_counts(bands.counts)
    return design, bands


def strata(args, sample, rankings):
    """The stratified design over the annotated candidates (a :class:`~evalcore.pooling.Strata`), with notes."""
    import numpy as np

    from .. import cli_steps as steps
    from .strata import Strata

    c = sample.candidates
    design, bands = design_for(args, c, rankings)
    annotated = np.ones(c.n_candidates, bool) if c.annotated is None else c.annotated
    per_band = np.bincount(bands.band[annotated], minlength=bands.n_bands)
    steps.note(f"stratified design: {design.describe(bands.counts)}")
    steps.note("annotated per band: " + ", ".join(f"{int(m):,} of {int(n):,}" for m, n in zip(per_band,
                                                                                             bands.counts))
               + "; each band's annotated candidates are taken as a simple random sample of the band")
    if args.strata_sample and any(int(m) > s for m, s in zip(per_band, design.sizes)):
        steps.note("more candidates are annotated in some band than --strata-sample says were drawn; the estimates "
                   "use every annotated candidate of the band")
    return Strata(design=design, pool=None, frame=None, bands=bands)


def cmd_strata_plan(args) -> None:
    """``strata-plan``: the allocation of a budget over the bands, and its expected widths against a random sample."""
    import numpy as np
    import pandas as pd

    from .. import cli_steps as steps
    from ..errors import ParameterError
    from ..io import load_annotated_sample
    from ..ranking import resolve_seed
    from .design import Design
    from .stratified_planning import pilot_weights, plan_strata

    args.seed = resolve_seed(args.ties, args.seed)
    steps.read(args.file, args)  # (its cost, before it is read: evalcore.work)
    sample = load_annotated_sample(args.file, label=args.label, scores=args.measure,
                                   lower_is_better=tuple(args.lower_is_better), encoding=args.encoding,
                                   sheet=args.sheet, limits=steps.limits(args), where="cli")
    c = sample.candidates
    measures, widths = parse_strata(args.strata, c.measures, c.n_candidates)
    targets = tuple(args.target or measures)
    unknown = [m for m in targets if m not in c.measures]
    if unknown:
        raise ParameterError(f"--target: {', '.join(unknown)} not among the measures {', '.join(c.measures)}")
    try:
        ns = [int(x) for x in str(args.n).split(",") if x.strip()]
    except ValueError:
        raise ParameterError(f"--n is a list of list sizes, e.g. 100,500,1000; got {args.n!r}") from None
    rankings = {r.measure: r for r in steps.rankings_of(c, sorted(set(measures) | set(targets)), args)}
    guess = weights = None
    if args.guess is not None:
        try:
            guess = [float(x) for x in str(args.guess).split(",")]
        except ValueError:
            raise ParameterError(f"--guess is a TP rate per band (or one), e.g. 0.4,0.2,0.1,0.05; got {args.guess!r}") \
                from None
    elif c.n_annotated == 0:
        raise ParameterError("nothing is annotated: give --guess, the TP rate of each band to plan with (or annotate a "
                             "random pilot)")
    else:
        pool = None
        pilot_design = Design()
        if args.pilot_pool:
            from ..estimates import SamplingFrame
            from .design import parse_pool

            chosen, k = parse_pool(args.pilot_pool)
            pilot_design = Design("pool+sample", SamplingFrame(chosen, k, ties=args.ties, seed=args.seed))
            pool = pilot_design.pool_mask(c, rankings)
        weights = pilot_weights(pilot_design, c, pool=pool)
        steps.note(f"pilot: {c.n_annotated:,} annotated candidates ({int(c.labels[c.annotated].sum()) if c.annotated is not None else int(c.labels.sum()):,} TPs), read as "
                   + ("a random sample of the whole set" if pool is None else pilot_design.describe(int(pool.sum()))))
    plan = plan_strata([rankings[m] for m in measures], [rankings[m] for m in targets], widths, args.budget, ns,
                       labels=c.labels, weights=weights, guess=guess, confidence_level=args.confidence_level)
    steps.note(plan.describe())
    for line in plan.warnings():
        steps.note(f"warning: {line}")
    if args.table:
        steps.write(plan.table, args.out)
        return
    rows = [{"band": h + 1, "ranks": plan.design(measures, ties=args.ties).band_label(h), "candidates": n,
             "sample_size": s, "rate_assumed": p, "rate_from": plan.source}
            for h, (n, s, p) in enumerate(zip(plan.counts, plan.sizes, plan.band_rates))]
    sizes = ",".join(map(str, plan.sizes))
    steps.note(f"draw this allocation on the Annotate page (sample size of each band: {sizes}); --strata-sample "
               f"{sizes} names it on curves, compare and report")
    steps.write(pd.DataFrame(rows), args.out)
