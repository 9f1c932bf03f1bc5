"""The command line's pooled designs: ``--pool M1,M2:K [--pool-sample m]`` with ``--annotated-sample`` on ``curves``
and ``compare``, and the ``pool-plan`` command.

Light at import (argparse only): ``python -m evalcore --help`` must not load numpy. The commands import what they
need when they run, and the shared helpers of :mod:`evalcore.cli` (loading, ranking, writing, notes).
"""

from __future__ import annotations

import argparse
from typing import Callable

from ..text import cut, listed, shown
from . import stratified_cli  # (argparse only: --strata, strata-plan)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--pool`` and ``--pool-sample`` beside the sample options of ``curves`` and ``compare``."""
    p.add_argument("--pool", metavar="M1,M2:K",
                   help="with --annotated-sample: a pooled design: the union of the top K of these measures (ranked "
                        "with --ties/--seed) is annotated whole (estimates exact for every n <= K); the annotated "
                        "candidates outside it are not used unless --pool-sample says they are a random sample")
    p.add_argument("--pool-sample", type=int, metavar="M",
                   help="with --pool: the annotated candidates outside the pool are a simple random sample of M of "
                        "them (a pool + sample design: estimates for every n, unbiased beyond the pool)")
    stratified_cli.add_arguments(p)  # --strata, --strata-sample (issue 33)


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
    stratified_cli.add_parser(sub, data_arguments, ranking_arguments)  # strata-plan (issue 33)


def _check(args, measures) -> None:
    from ..errors import ParameterError

    stratified_cli.check(args)

    if args.pool_sample is not None and not args.pool:
        raise ParameterError("--pool-sample needs --pool (the pool whose rest the sample is of)")
    if args.pool and args.sample_frame:
        raise ParameterError("--pool and --sample-frame describe two designs; give one: --sample-frame for a random "
                             "sample of the top-K frame, --pool for the frame annotated whole")
    if args.pool_sample is not None and args.pool_sample < 0:
        raise ParameterError(f"--pool-sample must be a whole number >= 0; got {args.pool_sample}")


def read(args):
    """The file of ``--annotated-sample`` (read once), and the design its ``evalcore:`` columns carry (an
    :class:`~evalcore.pooling.exported.ExportedDesign`; None for a plain file)."""
    from .. import cli_steps as steps
    from ..io import read_table
    from .exported import design_of_export

    steps.read(args.file, args)  # (its cost, before it is read)
    table = read_table(args.file, encoding=args.encoding, sheet=args.sheet, limits=steps.limits(args))
    return table, design_of_export(table, label=str(args.file))


def pooled(args, exported) -> bool:
    """Whether the run is of a pooled or stratified design: stated (``--pool``, ``--strata``), or carried by the
    export read."""
    return (bool(args.pool) or args.pool_sample is not None or bool(getattr(args, "strata", None))
            or getattr(args, "strata_sample", None) is not None
            or (exported is not None and exported.design.pooled))


def design(args, measures, exported=None):
    """The design ``--pool``/``--pool-sample`` describe, or the export's (None without either).

    A design stated on the command line for a plain file has no seed (``seed unknown``). An export's design is
    used as it is (its pool ranked with its own ties); options that state another are refused. Taken from the
    export, it is written into ``args.pool`` and ``args.pool_sample``, so the signature names it."""
    from ..errors import ParameterError
    from ..estimates import SamplingFrame
    from .design import Design, parse_pool

    _check(args, measures)
    if exported is not None and exported.design.pooled:
        d = exported.design
        if args.sample_frame:
            raise ParameterError(f"--sample-frame {args.sample_frame!r}: {args.file} is an export of a pooled design "
                                 f"({d.short()}), not of a random sample of a frame: give one design, or leave "
                                 "--sample-frame out to use the export's")
        if args.pool:
            chosen, k = parse_pool(args.pool)
            if sorted(chosen) != sorted(d.frame.measures) or k != d.depth:
                raise ParameterError(f"--pool {args.pool!r}: {args.file} is an export whose design is "
                                     f"{d.short()}; leave --pool out to use it")
        if args.pool_sample is not None and args.pool_sample != d.size and d.rest_sampled:
            raise ParameterError(f"--pool-sample {args.pool_sample}: the export's design has a sample of "
                                 f"m = {d.size:,} of the candidates outside the pool; leave --pool-sample out")
        if args.pool and args.pool_sample is None and d.rest_sampled:
            d = Design("pool", d.frame, seed=d.seed)  # (the pool alone, as asked: its sample left unused)
        elif args.pool_sample is not None and not d.rest_sampled:
            raise ParameterError(f"--pool-sample {args.pool_sample}: the export's design is the pool alone "
                                 f"({d.short()}); it has no sample of the rest")
        if not args.pool:
            args.pool = f"{','.join(d.frame.measures)}:{d.depth}"
            args.pool_sample = d.size if d.rest_sampled else None
        return d
    if exported is not None and args.pool:
        raise ParameterError(f"--pool {args.pool!r}: {args.file} is an export whose design is "
                             f"{exported.design.describe()}, not a pool; leave --pool out")
    if not args.pool:
        return None
    chosen, k = parse_pool(args.pool)
    unknown = [m for m in chosen if m not in measures]
    if unknown:
        raise ParameterError(f"--pool {shown(args.pool)}: {listed(unknown, cut)} is not among the measures "
                             f"{listed(measures, cut)}")
    frame = SamplingFrame(measures=chosen, k=k, ties=args.ties, seed=args.seed)
    if args.pool_sample is None:
        return Design("pool", frame, seed=None)
    return Design("pool+sample", frame, size=args.pool_sample, seed=None)


def pool_measures(args, exported) -> tuple[str, ...]:
    """The measures of the pool (stated, or the export's), which must be read whatever ``--measure`` names."""
    from .design import parse_pool

    if exported is not None and exported.design.pooled:
        return tuple(exported.design.frame.measures)
    if getattr(args, "strata", None):  # (the bands' measures: --strata M1,M2:widths)
        listed = str(args.strata).rpartition(":")[0]
        return tuple(m.strip() for m in listed.split(",") if m.strip())
    return parse_pool(args.pool)[0] if args.pool else ()


def _sample(args, table, exported):
    """The partly annotated set, its pool's measures read too when ``--measure`` leaves them out."""
    from .. import cli_steps as steps

    extra = [m for m in pool_measures(args, exported) if args.measure and m not in args.measure]
    if getattr(args, "strata", None):  # (a band's measure that is no column: --strata's own message says so)
        extra = [m for m in extra if m in getattr(table, "columns", ())]
    if extra:
        what = "bands" if getattr(args, "strata", None) else "pool"
        steps.note(f"the {what}'s measures {', '.join(extra)} are read to find the {what} (--measure does not name "
                   "them; their estimates are not written)")
    scores = [*args.measure, *extra] if args.measure else None
    return steps.annotated_sample(args, frame=False, table=table, scores=scores)


def _strata(args, sample, rankings, exported):
    """The design over the candidates, with notes on the pool and its sample; raises where the annotated set does
    not match the design (:func:`~evalcore.pooling.exported.check_annotated`) or while the pool is incomplete.
    A stratified design (--strata): :func:`evalcore.pooling.stratified_cli.strata`."""
    if getattr(args, "strata", None):
        return stratified_cli.strata(args, sample, rankings)
    from .. import cli_steps as steps
    from .estimators import PoolIncomplete
    from .exported import check_annotated
    from .strata import Strata

    d = design(args, sample.candidates.measures, exported)
    strata = Strata.of(d, sample.candidates, {r.measure: r for r in rankings})
    used = exported if exported is not None and exported.design.pooled else None
    if used is not None:  # (an export's own pool, when it is not the one here, says why before "to go")
        partial = check_annotated(d, sample.candidates, strata.pool, used, source=str(args.file))
    progress = strata.progress(sample.candidates)
    if not progress.complete:
        raise PoolIncomplete(f"--pool {args.pool}: {progress.describe()}")
    if used is None:
        partial = check_annotated(d, sample.candidates, strata.pool, None, source=str(args.file))
    outside = sample.n_annotated - strata.pool_size
    if used is not None:
        steps.note(f"the design of {used.describe()}")
    steps.note(f"pooled design: {d.describe(strata.pool_size)}")
    if d.rest_sampled:
        steps.note(f"{outside:,} candidates annotated outside the pool (the sample of m = {d.size:,}, "
                   f"{d.seed_words}), taken as a simple random sample of the other candidates")
        if partial:
            steps.note(partial)
    elif outside:
        steps.note(f"{outside:,} annotated candidates outside the pool are not used (a pool design; give "
                   "--pool-sample M if they are a random sample of the rest)")
    return strata


def curves(args, table=None, exported=None) -> None:
    """``curves --annotated-sample --pool ...`` (or of an export of a pooled design): pooled precision estimates."""
    import pandas as pd

    from .. import cli_steps as steps
    from ..errors import ParameterError
    from ..estimates import SAMPLE_INTERVAL_LABELS
    from ..nspec import parse_n_spec

    if args.kind != "precision":
        raise ParameterError(f"--kind {args.kind} is not available with --annotated-sample; use --kind precision")
    if table is None:
        table, exported = read(args)
    sample = _sample(args, table, exported)
    sizes = parse_n_spec(args.n, sample.candidates.n_candidates)
    steps.sample_work(args, sample.candidates.n_candidates, len(sample.candidates.measures), len(sizes),
                      args.sample_interval)
    rankings = steps.rankings_of(sample.candidates, args.measure or sample.candidates.measures, args)
    strata = _strata(args, sample, rankings, exported)
    base = strata.baseline(rankings[0], confidence_level=args.confidence_level, interval=args.sample_interval)
    steps.note(f"baseline estimated from the design: {base.estimate:.4f} [{base.lower:.4f}, {base.upper:.4f}] "
               f"({SAMPLE_INTERVAL_LABELS[args.sample_interval]} on the sample of the rest)")
    table = pd.concat([strata.precision(r, sizes, confidence_level=args.confidence_level,
                                        interval=args.sample_interval) for r in rankings], ignore_index=True)
    exact = table["regime"] == "exact"
    if strata.stratified:
        counts = table["regime"].astype(str).value_counts()
        steps.note("rows by regime: " + "; ".join(f"{name} {int(counts.get(name, 0))}" for name in
                                                   ("exact", "estimated", "band ratio", "uncovered")))
    else:
        steps.note(f"{int(exact.sum())} rows are n-best lists inside the pool (exact); "
                   f"{int((table['regime'] == 'estimated').sum())} reach beyond it (the rest estimated from the "
                   f"sample); {int((~table['in_frame']).sum())} are not estimated")
    steps.write(table, args.out)


def compare(args, table=None, exported=None) -> None:
    """``compare --annotated-sample --pool ...`` (or of an export of a pooled design): Fisher's test from the pooled
    design, with the difference interval chosen (``--strata``: the score test on the effective counts)."""
    from .. import cli_steps as steps
    from ..compare import significant_up_to
    from ..errors import ParameterError
    from ..nspec import parse_n_spec

    if args.test != "fisher":
        raise ParameterError(f"--test {args.test} is not available with --annotated-sample; Fisher's test (the "
                             "default) runs on the pooled and sampled candidates of D1 and D2"
                             + ("; with --strata the test is the score test on the regions' effective counts"
                                if getattr(args, "strata", None) else ""))
    if table is None:
        table, exported = read(args)
    sample = _sample(args, table, exported)
    sizes = parse_n_spec(args.n, sample.candidates.n_candidates)
    steps.sample_work(args, sample.candidates.n_candidates, 2, len(sizes), "fisher")
    a, b = steps.rankings_of(sample.candidates, args.measure, args)
    strata = _strata(args, sample, [a, b], exported)
    table = strata.compare(a, b, sizes, confidence_level=args.confidence_level, alternative=args.alternative)
    table = strata.with_difference(table, args.confidence_level, args.difference_interval)
    tested = steps.adjust_in_frame(table, args)
    regimes = table["regime"].value_counts()
    if strata.stratified:
        steps.note(f"{a.measure} vs {b.measure} from the stratified design (the score test on the effective counts "
                   f"of D1 and D2, Rao & Scott 1992; Pearson's chi-square on the full counts where both are "
                   f"annotated whole, {int(regimes.get('exact', 0))} n; correction {args.correction}): significant at "
                   f"{int(tested['significant'].sum())} of {len(tested)} list sizes; at every tested n up to "
                   f"{significant_up_to(tested) if len(tested) else 0}")
        steps.write(table, args.out)
        return
    steps.note(f"{a.measure} vs {b.measure} from the pooled design (Fisher's exact test on D1/D2: on the full "
               f"counts inside the pool, {int(regimes.get('exact', 0))} n; on the effective counts of the pool and "
               f"the sample beyond it, {int(regimes.get('estimated', 0))} n; correction {args.correction}): "
               f"significant at {int(tested['significant'].sum())} of {len(tested)} list sizes; at every tested n up "
               f"to {significant_up_to(tested) if len(tested) else 0}")
    steps.write(table, args.out)


def cmd_pool_plan(args) -> None:
    """``pool-plan``: the depth and sample size for a budget, from the data's exact pool sizes; a pilot's rates by
    its own design's estimator (the design of an export's ``evalcore:`` columns; a plain file's annotations are
    taken as a simple random sample of the whole set)."""
    import pandas as pd

    from .. import cli_steps as steps
    from ..errors import ParameterError
    from ..io import load_annotated_sample
    from ..ranking import resolve_seed
    from .planning import PilotStrata, plan_pool

    args.seed = resolve_seed(args.ties, args.seed)
    table, exported = read(args)
    pool = tuple(m.strip() for m in args.pool_measures.split(",") if m.strip())
    targets = tuple(args.target or pool)
    pilot_measures = tuple(exported.design.frame.measures) if exported is not None else ()
    scores = None
    if args.measure:  # (the pool's, the targets' and the pilot's design's measures are read whatever it names)
        scores = list(dict.fromkeys([*args.measure, *pool, *targets, *pilot_measures]))
    sample = load_annotated_sample(table, label=args.label, scores=scores,
                                   lower_is_better=tuple(args.lower_is_better), encoding=args.encoding,
                                   sheet=args.sheet, limits=steps.limits(args), where="cli", name=str(args.file))
    c = sample.candidates
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
    strata = None
    if pilot:
        if exported is not None:
            from .exported import check_annotated

            check_annotated(exported.design, c, exported.design.pool_mask(c), exported, source=str(args.file))
            strata = PilotStrata.of(exported.design, c)
            steps.note(f"the pilot: {c.n_annotated:,} annotated candidates of {exported.describe()}, "
                       f"{exported.design.describe()}; its TP rates estimated by that design")
        else:
            strata = PilotStrata.whole_sample(c.n_candidates)
            steps.note(f"the pilot: {c.n_annotated:,} annotated candidates, taken as a simple random sample of the "
                       f"whole set ({args.file} carries no evalcore:design)")
    if guess is None and not pilot:
        if c.n_annotated == 0:
            raise ParameterError("nothing is annotated: give --guess, the TP rate to plan with (e.g. the baseline "
                                 "you expect)")
        guess = c.baseline  # a fully labelled file: its baseline
    plan = plan_pool([rankings[m] for m in pool], [rankings[m] for m in targets], args.budget, args.n, guess=guess,
                     pilot=pilot, confidence_level=args.confidence_level, strata=strata)
    steps.note(plan.describe())
    if args.table:
        steps.write(plan.table, args.out)
        return
    row = {"budget": plan.budget, "n": plan.n, "depth": plan.depth, "pool_size": plan.pool_size,
           "sample_size": plan.sample_size, "expected_width": plan.width, "rate_from": plan.source,
           **{f"width_{m}": w for m, w in plan.widths.items()}, **{f"rate_{m}": p for m, p in plan.rates.items()}}
    steps.write(pd.DataFrame([row]), args.out)
