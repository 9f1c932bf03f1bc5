"""The command line's pooled designs: ``--pool M1,M2:K [--pool-sample m]`` with ``--annotated-sample`` on ``curves``
and ``compare``, and the ``pool-plan`` command.

Light at import (argparse only): ``python -m evalcore --help`` must not load numpy. The commands import what they
need when they run, and the shared helpers of :mod:`evalcore.cli` (loading, ranking, writing, notes).
"""

from __future__ import annotations

import argparse
from typing import Callable


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--pool`` and ``--pool-sample`` beside the sample options of ``curves`` and ``compare``."""
    p.add_argument("--pool", metavar="M1,M2:K",
                   help="with --annotated-sample: a pooled design: the union of the top K of these measures (ranked "
                        "with --ties/--seed) is annotated whole (estimates exact for every n <= K); the annotated "
                        "candidates outside it are not used unless --pool-sample says they are a random sample")
    p.add_argument("--pool-sample", type=int, metavar="M",
                   help="with --pool: the annotated candidates outside the pool are a simple random sample of M of "
                        "them (a pool + sample design: estimates for every n, unbiased beyond the pool)")


def add_parser(sub, data_arguments: Callable, ranking_arguments: Callable) -> None:
    """The ``pool-plan`` command."""
    p = sub.add_parser("pool-plan", help="plan a pooled design: the depth K of the pool of chosen measures and the "
                                         "size m of the random sample of the rest that give the narrowest precision "
                                         "intervals at one n for a budget of annotations")
    data_arguments(p)
    p.add_argument("--pool-measures", required=True, metavar="M1,M2",
                   help="the measures whose top-K lists make the pool")
    p.add_argument("--budget", type=int, required=True, metavar="B", help="annotations to spend")
    p.add_argument("--n", type=int, required=True, help="the list size whose intervals matter")
    p.add_argument("--target", action="append", metavar="M",
                   help="a measure whose width at n counts (repeat; default: the pool's measures)")
    p.add_argument("--guess", type=float, metavar="P",
                   help="the TP rate to plan with (default: the annotated candidates' rate, a pilot, or the "
                        "baseline of a fully labelled file)")
    p.add_argument("--table", action="store_true", help="write every depth considered, not only the plan")
    ranking_arguments(p)


def _check(args, measures) -> None:
    from ..errors import ParameterError

    if args.pool_sample is not None and not args.pool:
        raise ParameterError("--pool-sample needs --pool (the pool whose rest the sample is of)")
    if args.pool and args.sample_frame:
        raise ParameterError("--pool and --sample-frame describe two designs; give one: --sample-frame for a random "
                             "sample of the top-K frame, --pool for the frame annotated whole")
    if args.pool_sample is not None and args.pool_sample < 0:
        raise ParameterError(f"--pool-sample must be a whole number >= 0; got {args.pool_sample}")


def design(args, measures):
    """The design ``--pool``/``--pool-sample`` describe (None without ``--pool``)."""
    from ..errors import ParameterError
    from ..estimates import SamplingFrame
    from .design import Design, parse_pool

    _check(args, measures)
    if not args.pool:
        return None
    chosen, k = parse_pool(args.pool)
    unknown = [m for m in chosen if m not in measures]
    if unknown:
        raise ParameterError(f"--pool {args.pool!r}: {', '.join(unknown)} is not among the measures "
                             f"{', '.join(measures)}")
    frame = SamplingFrame(measures=chosen, k=k, ties=args.ties, seed=args.seed)
    if args.pool_sample is None:
        return Design("pool", frame, seed=0)
    return Design("pool+sample", frame, size=args.pool_sample, seed=0)


def _strata(args, sample, rankings):
    """The design over the candidates, with notes on the pool and its sample; raises while the pool is
    incomplete."""
    from .. import cli_steps as steps
    from .estimators import PoolIncomplete
    from .strata import Strata

    d = design(args, sample.candidates.measures)
    strata = Strata.of(d, sample.candidates, {r.measure: r for r in rankings})
    progress = strata.progress(sample.candidates)
    if not progress.complete:
        raise PoolIncomplete(f"--pool {args.pool}: {progress.describe()}")
    outside = sample.n_annotated - strata.pool_size
    steps.note(f"pooled design: {d.describe(strata.pool_size)}")
    if d.rest_sampled:
        steps.note(f"{outside:,} candidates annotated outside the pool (of the sample of {d.size:,}), taken as a "
                   "simple random sample of the other candidates")
    elif outside:
        steps.note(f"{outside:,} annotated candidates outside the pool are not used (a pool design; give "
                   "--pool-sample M if they are a random sample of the rest)")
    return strata


def curves(args) -> None:
    """``curves --annotated-sample --pool ...``: pooled precision estimates."""
    import pandas as pd

    from .. import cli_steps as steps
    from ..errors import ParameterError
    from ..estimates import SAMPLE_INTERVAL_LABELS
    from ..nspec import parse_n_spec

    if args.kind != "precision":
        raise ParameterError(f"--kind {args.kind} is not available with --annotated-sample; use --kind precision")
    sample = steps.annotated_sample(args, frame=False)
    sizes = parse_n_spec(args.n, sample.candidates.n_candidates)
    steps.sample_work(args, sample.candidates.n_candidates, len(sample.candidates.measures), len(sizes),
                      args.sample_interval)
    rankings = steps.rankings_of(sample.candidates, sample.candidates.measures, args)
    strata = _strata(args, sample, rankings)
    base = strata.baseline(rankings[0], confidence_level=args.confidence_level, interval=args.sample_interval)
    steps.note(f"baseline estimated from the design: {base.estimate:.4f} [{base.lower:.4f}, {base.upper:.4f}] "
               f"({SAMPLE_INTERVAL_LABELS[args.sample_interval]} on the sample of the rest)")
    table = pd.concat([strata.precision(r, sizes, confidence_level=args.confidence_level,
                                        interval=args.sample_interval) for r in rankings], ignore_index=True)
    exact = table["regime"] == "exact"
    steps.note(f"{int(exact.sum())} rows are n-best lists inside the pool (exact); "
               f"{int((table['regime'] == 'estimated').sum())} reach beyond it (the rest estimated from the "
               f"sample); {int((~table['in_frame']).sum())} are not estimated")
    steps.write(table, args.out)


def compare(args) -> None:
    """``compare --annotated-sample --pool ...``: Fisher's test from the pooled design, with the difference
    interval chosen."""
    from .. import cli_steps as steps
    from ..compare import significant_up_to
    from ..errors import ParameterError
    from ..nspec import parse_n_spec

    if args.test != "fisher":
        raise ParameterError(f"--test {args.test} is not available with --annotated-sample; Fisher's test (the "
                             "default) runs on the pooled and sampled candidates of D1 and D2")
    sample = steps.annotated_sample(args, frame=False)
    sizes = parse_n_spec(args.n, sample.candidates.n_candidates)
    steps.sample_work(args, sample.candidates.n_candidates, 2, len(sizes), "fisher")
    a, b = steps.rankings_of(sample.candidates, args.measure, args)
    strata = _strata(args, sample, [a, b])
    table = strata.compare(a, b, sizes, confidence_level=args.confidence_level, alternative=args.alternative)
    table = strata.with_difference(table, args.confidence_level, args.difference_interval)
    tested = steps.adjust_in_frame(table, args)
    regimes = table["regime"].value_counts()
    steps.note(f"{a.measure} vs {b.measure} from the pooled design (Fisher's exact test on D1/D2: on the full "
               f"counts inside the pool, {int(regimes.get('exact', 0))} n; on the effective counts of the pool and "
               f"the sample beyond it, {int(regimes.get('estimated', 0))} n; correction {args.correction}): "
               f"significant at {int(tested['significant'].sum())} of {len(tested)} list sizes; at every tested n up "
               f"to {significant_up_to(tested) if len(tested) else 0}")
    steps.write(table, args.out)


def cmd_pool_plan(args) -> None:
    """``pool-plan``: the depth and sample size for a budget, from the data's exact pool sizes."""
    import pandas as pd

    from .. import cli_steps as steps
    from ..errors import ParameterError
    from ..io import load_annotated_sample
    from ..ranking import resolve_seed
    from .planning import plan_pool

    args.seed = resolve_seed(args.ties, args.seed)
    steps.read(args.file, args)
    sample = load_annotated_sample(args.file, label=args.label, scores=args.measure,
                                   lower_is_better=tuple(args.lower_is_better), encoding=args.encoding,
                                   sheet=args.sheet, limits=steps.limits(args), where="cli")
    c = sample.candidates
    pool = tuple(m.strip() for m in args.pool_measures.split(",") if m.strip())
    targets = tuple(args.target or pool)
    unknown = [m for m in (*pool, *targets) if m not in c.measures]
    if not pool or unknown:
        raise ParameterError(f"--pool-measures/--target: {', '.join(unknown) or 'none given'} not among the "
                             f"measures {', '.join(c.measures)}")
    from ..work.commands import ranking_estimate

    steps.check_work(ranking_estimate(c.n_candidates, 4 * len(set(pool) | set(targets)),
                                      what="planning the pool of"), args)
    rankings = {r.measure: r for r in steps.rankings_of(c, sorted(set(pool) | set(targets)), args)}
    guess = args.guess
    pilot = c.n_annotated > 0 and c.partly_annotated
    if guess is None and not pilot:
        if c.n_annotated == 0:
            raise ParameterError("nothing is annotated: give --guess, the TP rate to plan with (e.g. the baseline "
                                 "you expect)")
        guess = c.baseline  # a fully labelled file: its baseline
    plan = plan_pool([rankings[m] for m in pool], [rankings[m] for m in targets], args.budget, args.n, guess=guess,
                     pilot=pilot, confidence_level=args.confidence_level)
    steps.note(plan.describe())
    if args.table:
        steps.write(plan.table, args.out)
        return
    row = {"budget": plan.budget, "n": plan.n, "depth": plan.depth, "pool_size": plan.pool_size,
           "sample_size": plan.sample_size, "expected_width": plan.width, "rate_from": plan.source,
           **{f"width_{m}": w for m, w in plan.widths.items()}, **{f"rate_{m}": p for m, p in plan.rates.items()}}
    steps.write(pd.DataFrame([row]), args.out)
