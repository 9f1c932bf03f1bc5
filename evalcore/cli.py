"""The command line: ``python -m evalcore curves|compare|accept|summary|validate|across|uir|simulate|power ...``.

Tables go to ``--out`` (or standard output) as CSV; notes (the seed of random tie
breaking, excluded rows, non-finite scores) go to standard error; an input error is
one line on standard error and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .candidates import CandidateSet
from .compare import COMPARE_COLUMNS, compare_rankings, significant_up_to
from .curves import acceptance_sets, precision_curve
from .errors import EvalcoreError, ParameterError
from .stats.intervals import INTERVAL_METHODS, check_confidence_level
from .analysis import across_samples, uir_analysis
from .io import combine_samples, load_candidates
from .stats.effect import DIFFERENCE_METHODS, EFFECT_COLUMNS, effect_sizes
from .stats.multitest import CORRECTIONS, adjust_pvalues
from .stats.pairtests import PAIR_TESTS, pair_test
from .stats.power import (POWER_TESTS, detectable_differences, exact_power, paired_t_power, paired_t_samples,
                          plan_experiment, region_precisions)
from .roc import AUC_INTERVAL_METHODS, CURVE_FUNCTIONS, curves_table, roc_table
from .nspec import parse_n_spec
from .ranking import TIE_POLICIES, Ranking, rank, resolve_seed
from .samples import Cut, cuts_for, default_cut_n, require_samples
from .simulate import simulate, to_tsv, write_tsv
from .validate import validate

CURVE_CSV_COLUMNS = ["measure", "n", "tp", "fp", "precision", "recall", "lower", "upper"]


def _data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="candidate set: CSV, TSV, gzip text, Parquet, .xlsx, .rda/.RData/.rds")
    p.add_argument("--label", help="the TP/FP label column (suggested automatically if omitted)")
    p.add_argument("--measure", action="append", metavar="M", help="a score column (repeat; default: all)")
    p.add_argument("--lower-is-better", action="append", default=[], metavar="M",
                   help="a measure where lower scores are better, e.g. p-values or ranks (repeat)")
    p.add_argument("--exclude-unlabelled", action="store_true",
                   help="leave out rows with an empty label (reported) instead of stopping")
    p.add_argument("--encoding", help="text encoding, e.g. latin-1 (default: UTF-8, Latin-1 detected)")
    p.add_argument("--sheet", help="Excel sheet or R object to read (default: the first / only one)")


def _ranking_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ties", choices=list(TIE_POLICIES), default="random",
                   help="how to order candidates with equal scores (default: random, as the paper's jitter)")
    p.add_argument("--seed", type=int, help="seed for --ties random (default: a fresh one, reported)")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL", help="default 0.95")
    p.add_argument("--out", help="write the CSV here instead of standard output")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalcore",
        description="Significance tests for the evaluation of ranking methods (Evert 2004).")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("curves", help="n-best precision, recall and confidence intervals per measure")
    _data_arguments(p)
    p.add_argument("--n", default="all", metavar="SPEC", help="all | 100,500,1000 | 100:2000:50 (stop included)")
    p.add_argument("--interval", choices=list(INTERVAL_METHODS), default="clopper_pearson")
    p.add_argument("--kind", choices=["precision", *CURVE_FUNCTIONS, "auc"], default="precision",
                   help="precision (n-best curves, default), roc, det or pr (curves at every threshold), or auc "
                        "(AUC and average precision with intervals, one row per measure)")
    p.add_argument("--auc-interval", choices=list(AUC_INTERVAL_METHODS), default="delong",
                   help="for --kind auc: delong (default) or bootstrap")
    p.add_argument("--resamples", type=int, default=2000, help="for --kind auc: bootstrap resamples (default 2000)")
    _ranking_arguments(p)

    p = sub.add_parser("compare", help="Fisher's exact test on the difference regions of two measures")
    _data_arguments(p)
    p.add_argument("--n", default="all", metavar="SPEC", help="all | 100,500,1000 | 100:2000:50 (stop included)")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"], default="two-sided",
                   help="for Fisher's test only (the other tests are two-sided)")
    p.add_argument("--test", choices=list(PAIR_TESTS), default="fisher",
                   help="fisher (default, Evert 2004), mcnemar (exact), chi2 (lists as independent samples, "
                        "Krenn 2000), bootstrap (paired, over candidates), randomization (Yeh 2000)")
    p.add_argument("--correction", choices=list(CORRECTIONS), default="none",
                   help="for testing many n: none (default, as the paper), holm, bh (Benjamini-Hochberg)")
    p.add_argument("--resamples", type=int, default=1000, help="for bootstrap and randomization (default 1000)")
    p.add_argument("--difference-interval", choices=list(DIFFERENCE_METHODS), default="newcombe",
                   help="interval of diff = precision of A minus B: newcombe (default, Newcombe 1998 method 10) or "
                        "agresti_caffo")
    p.add_argument("--mdd", action="store_true",
                   help="add mdd_pi and mdd: the smallest difference the test finds with --power at each n")
    p.add_argument("--power", type=float, default=0.8, help="for --mdd (default 0.8)")
    _ranking_arguments(p)

    p = sub.add_parser("accept", help="gamma-acceptance sets {g >= gamma} of one measure")
    _data_arguments(p)
    p.add_argument("--gamma", required=True, help="thresholds, comma-separated, e.g. 10.83,3.84")
    p.add_argument("--interval", choices=list(INTERVAL_METHODS), default="clopper_pearson")
    _ranking_arguments(p)

    p = sub.add_parser("summary", help="N, TPs, baseline and ties per measure")
    _data_arguments(p)

    p = sub.add_parser("validate", help="Evert (2004) §4: does precision over the samples follow the binomial "
                                        "model? (SD ratio, Kolmogorov-Smirnov, interval coverage)")
    _experiment_arguments(p)
    p.add_argument("--interval", choices=list(INTERVAL_METHODS), default="clopper_pearson")

    p = sub.add_parser("across", help="two measures over the samples: paired t, Wilcoxon, sign and Welch tests")
    _experiment_arguments(p)

    p = sub.add_parser("uir", help="Unanimous Improvement Ratio of every pair of measures over the samples")
    _experiment_arguments(p)
    p.add_argument("--beta", type=float, action="append", default=[], metavar="B",
                   help="also compare F-beta (repeat for several)")
    p.add_argument("--threshold", type=float, default=0.25, help="robustness threshold of |UIR| (default 0.25)")

    p = sub.add_parser("power", help="plan an experiment: the n-best list size (or number of samples) needed to "
                                     "detect a difference with a given power")
    p.add_argument("--precision-a", type=float, metavar="P", help="hypothesised precision of A's n-best lists")
    p.add_argument("--precision-b", type=float, metavar="P", help="hypothesised precision of B's n-best lists")
    p.add_argument("--overlap", type=float, metavar="O", help="expected share |A ∩ B| / n of the n-best lists")
    p.add_argument("--shared-precision", type=float, metavar="P",
                   help="precision of the candidates both lists hold (default: the mean of A's and B's)")
    p.add_argument("--n", metavar="LIST", help="instead of solving for n: the power at these n, e.g. 500,1000,2000")
    p.add_argument("--test", choices=list(POWER_TESTS), default="fisher", help="fisher (default) or mcnemar")
    p.add_argument("--delta", type=float, help="several samples: the mean per-sample difference of precision")
    p.add_argument("--sd", type=float, help="several samples: the standard deviation of that difference")
    p.add_argument("--strict", action="store_true", help="paired t-test: count the wrong tail too (R's strict)")
    p.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL",
                   help="default 0.95: the test's level alpha is 1 - LEVEL")
    p.add_argument("--out", help="write the CSV here instead of standard output")

    p = sub.add_parser("simulate", help="generate an experiment from the random model of Evert (2004) §3.1")
    p.add_argument("--k", type=int, default=80, help="number of samples (default 80)")
    p.add_argument("--n", type=int, default=2000, help="candidates per sample (default 2000)")
    p.add_argument("--baseline", type=float, default=0.11, help="proportion of TPs (default 0.11)")
    p.add_argument("--n-sd", type=float, default=0.0, help="relative spread of the sample sizes (default 0)")
    p.add_argument("--sample-sd", type=float, default=0.0,
                   help="extra variation between samples (sd of a per-sample shift of the TP logit; default 0: "
                        "the pure binomial model)")
    p.add_argument("--population", type=int, help="hypothetical candidates in the population (default 50 n)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the TSV here instead of standard output")
    return parser


def _experiment_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="one file with a sample column, or one file per sample (same columns)")
    p.add_argument("--label", help="the TP/FP label column (suggested automatically if omitted)")
    p.add_argument("--measure", action="append", metavar="M", help="a score column (repeat; default: all)")
    p.add_argument("--lower-is-better", action="append", default=[], metavar="M",
                   help="a measure where lower scores are better (repeat)")
    p.add_argument("--sample-column", help="the column naming each candidate's sample (default: 'sample')")
    p.add_argument("--exclude-unlabelled", action="store_true", help="leave out rows with an empty label")
    p.add_argument("--cut", choices=["gamma", "n"], default="gamma",
                   help="cut each sample's ranking at a score threshold (default, as the paper's §4) or at n")
    p.add_argument("--n", type=int, help="list size, or for --cut gamma the average acceptance size that sets "
                                         "the default thresholds (default 100, as the paper)")
    p.add_argument("--gamma", action="append", default=[], metavar="M=G",
                   help="threshold of measure M (repeat; others accept n per sample on average)")
    p.add_argument("--per-sample", metavar="CSV", help="also write the per-sample acceptance sets here")
    _ranking_arguments(p)


def _load(args) -> CandidateSet:
    candidates = load_candidates(
        args.file, label=args.label, scores=args.measure, lower_is_better=tuple(args.lower_is_better),
        exclude_unlabelled=args.exclude_unlabelled, encoding=args.encoding, sheet=args.sheet)
    if candidates.excluded_unlabelled:
        _note(f"{args.file}: left out {candidates.excluded_unlabelled} rows with an empty label "
              f"(--exclude-unlabelled)")
    return candidates


def _note(message: str) -> None:
    print(f"evalcore: {message}", file=sys.stderr)


def _rankings(candidates: CandidateSet, measures: Sequence[str], args) -> list[Ranking]:
    seed = resolve_seed(args.ties, args.seed)
    rankings = [rank(candidates, m, ties=args.ties, seed=seed) for m in measures]
    if args.ties == "random":
        _note(f"ties broken at random with seed {seed} (pass --seed {seed} to repeat)")
    for r in rankings:
        if r.n_nonfinite:
            _note(f"{r.measure}: {r.n_nonfinite} candidates have a missing or infinite score; they rank last")
    return rankings


def _write(table: pd.DataFrame, out: str | None) -> None:
    if out:
        table.to_csv(out, index=False)
    else:
        table.to_csv(sys.stdout, index=False)


def _cmd_curves(args) -> None:
    candidates = _load(args)
    if args.kind != "precision":
        rankings = {r.measure: r for r in _rankings(candidates, candidates.measures, args)}
        if args.kind == "auc":
            table = roc_table(rankings, confidence_level=args.confidence_level, method=args.auc_interval,
                              resamples=args.resamples, seed=args.seed if args.seed is not None else 0)
        else:
            table = curves_table(rankings, args.kind)
        _write(table, args.out)
        return
    sizes = parse_n_spec(args.n, candidates.n_candidates)
    tables = [precision_curve(r, sizes, confidence_level=args.confidence_level, interval=args.interval)
              for r in _rankings(candidates, candidates.measures, args)]
    table = pd.concat(tables, ignore_index=True)
    straddled = table.groupby("measure", sort=False)["tie_straddled"].sum()
    for measure, count in straddled[straddled > 0].items():
        _note(f"{measure}: at {count} of the {sizes.size} list sizes the cut-off splits a tie group "
              f"(--ties {args.ties} decides which candidates are in)")
    _write(table[CURVE_CSV_COLUMNS], args.out)


def _cmd_compare(args) -> None:
    if not args.measure or len(args.measure) != 2:
        raise ParameterError("compare needs exactly two measures: --measure A --measure B")
    candidates = _load(args)
    sizes = parse_n_spec(args.n, candidates.n_candidates)
    a, b = _rankings(candidates, args.measure, args)
    if args.test == "fisher":
        table = compare_rankings(a, b, sizes, confidence_level=args.confidence_level, alternative=args.alternative)
    elif args.alternative != "two-sided":
        raise ParameterError(f"--alternative {args.alternative} applies to --test fisher; the other tests are "
                             "two-sided")
    else:
        seed = args.seed if args.seed is not None else 0
        table = pair_test(a, b, sizes, args.test, confidence_level=args.confidence_level, resamples=args.resamples,
                          seed=seed)
        if args.test in ("bootstrap", "randomization"):
            _note(f"{args.resamples} resamples, seed {seed} (--seed); no p-value can be below "
                  f"1/{args.resamples + 1}")
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), args.correction)
    table["significant"] = table["p_adjusted"] < 1 - args.confidence_level
    _note(f"{a.measure} vs {b.measure} ({PAIR_TESTS[args.test]}, correction {args.correction}): significant at "
          f"{int(table['significant'].sum())} of {len(table)} list sizes; at every tested n up to "
          f"{significant_up_to(table)}")
    effects = effect_sizes(table, args.confidence_level, args.difference_interval, args.alternative)
    columns = [*COMPARE_COLUMNS[:-1], "p_adjusted", "significant", *EFFECT_COLUMNS]
    table = pd.concat([table, effects[list(EFFECT_COLUMNS)]], axis=1)
    if args.mdd:
        test = args.test if args.test in POWER_TESTS else "fisher"
        mdd = detectable_differences(table, 1 - args.confidence_level, args.power, test)
        table["mdd_pi"], table["mdd"] = mdd["mdd_pi"].to_numpy(), mdd["mdd"].to_numpy()
        columns += ["mdd_pi", "mdd"]
        if test != args.test:
            _note(f"--mdd is for Fisher's exact test (power of --test {args.test} is not computed exactly)")
    _write(table[columns], args.out)


def _cmd_power(args) -> None:
    alpha = 1 - args.confidence_level
    lists = [args.precision_a, args.precision_b, args.overlap]
    samples = [args.delta, args.sd]
    if any(v is not None for v in samples):
        if any(v is not None for v in lists) or None in samples:
            raise ParameterError("power: give either --precision-a, --precision-b and --overlap (n-best lists) or "
                                 "--delta and --sd (several samples, paired t-test), not both")
        if args.n:
            values = [float(v) for v in _number_list(args.n, "--n")]
            rows = [{"samples": v, "delta": args.delta, "sd": args.sd,
                     "power": paired_t_power(v, args.delta, args.sd, alpha, strict=args.strict)} for v in values]
        else:
            exact = paired_t_samples(args.delta, args.sd, alpha, args.power, strict=args.strict)
            rows = [{"samples": int(np.ceil(exact - 1e-9)), "samples_exact": exact, "delta": args.delta, "sd": args.sd,
                     "power": paired_t_power(np.ceil(exact - 1e-9), args.delta, args.sd, alpha, strict=args.strict)}]
        _write(pd.DataFrame(rows), args.out)
        return
    if None in lists:
        raise ParameterError("power needs --precision-a, --precision-b and --overlap (or --delta and --sd)")
    if args.n:
        p1, p2 = region_precisions(args.precision_a, args.precision_b, args.overlap, args.shared_precision)
        rows = []
        for n in _number_list(args.n, "--n"):
            size = int(round(n * (1 - args.overlap)))
            rows.append({"n": int(n), "size": size, "candidates": int(n) + size, "pi_d1": p1, "pi_d2": p2,
                         "power": exact_power(p1, p2, size, alpha, args.test)})
        _write(pd.DataFrame(rows), args.out)
        return
    plan = plan_experiment(args.precision_a, args.precision_b, args.overlap, shared_precision=args.shared_precision,
                           alpha=alpha, power=args.power, test=args.test)
    _note(f"difference regions of d = {plan.size:,} candidates each, TP rates {plan.pi_d1:.4g} and {plan.pi_d2:.4g}: "
          f"n = {plan.n:,} (annotate {plan.candidates:,} candidates) for power {plan.power:.3f}")
    _write(pd.DataFrame([plan.as_dict()]), args.out)


def _number_list(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"{option} {text!r}: give whole numbers separated by commas, e.g. 500,1000") from None
    if not values or min(values) < 1:
        raise ParameterError(f"{option} {text!r}: give whole numbers of at least 1, e.g. 500,1000")
    return values


def _cmd_accept(args) -> None:
    try:
        gammas = [float(g) for g in args.gamma.split(",") if g.strip()]
    except ValueError:
        raise ParameterError(f"--gamma {args.gamma!r}: give numbers separated by commas, e.g. 10.83,3.84") from None
    candidates = _load(args)
    tables = [acceptance_sets(r, gammas, confidence_level=args.confidence_level, interval=args.interval)
              for r in _rankings(candidates, candidates.measures, args)]
    _write(pd.concat(tables, ignore_index=True), args.out)


def _cmd_summary(args) -> None:
    candidates = _load(args)
    print(f"file: {args.file}\ncandidates: {candidates.n_candidates}\nlabel: {candidates.label_column}\n"
          f"TPs: {candidates.n_tp}\nbaseline precision: {candidates.baseline:.4%}")
    rows = []
    for m in candidates.measures:
        r = rank(candidates, m, ties="stable")
        rows.append({**r.tie_summary(), "direction": candidates.directions[m],
                     "straddled_cutoffs": int(r.straddles(np.arange(1, r.n_candidates)).sum())})
    print(pd.DataFrame(rows).to_string(index=False))


def _load_experiment(args) -> CandidateSet:
    sample = args.sample_column
    if len(args.files) > 1:
        source, name = combine_samples([(f, Path(f).name) for f in args.files])
        sample = sample or "sample"
    else:
        source, name = args.files[0], None
    candidates = load_candidates(source, name=name, label=args.label, scores=args.measure, sample=sample,
                                 lower_is_better=tuple(args.lower_is_better),
                                 exclude_unlabelled=args.exclude_unlabelled)
    require_samples(candidates)
    args.file = name or args.files[0]
    return candidates


def _cuts(candidates: CandidateSet, measures: Sequence[str], args) -> dict[str, Cut]:
    gammas = {}
    for entry in args.gamma:
        measure, sep, value = entry.rpartition("=")
        try:
            gammas[measure] = float(value)
        except ValueError:
            sep = ""
        if not sep or measure not in candidates.measures:
            raise ParameterError(f"--gamma {entry!r}: give MEASURE=NUMBER with one of the measures "
                                 f"{', '.join(candidates.measures)}")
    if gammas and args.cut == "n":
        raise ParameterError("--gamma applies to --cut gamma, not --cut n")
    n = args.n if args.n is not None else default_cut_n(candidates)
    if n < 1:
        raise ParameterError(f"--n must be at least 1; got {n}")
    cuts = cuts_for(candidates, measures, args.cut, n, gammas)
    for m, cut in cuts.items():
        _note(f"cut-off: {cut.label(m, candidates.higher_is_better(m))}")
    return cuts


def _seed(args) -> int | None:
    seed = resolve_seed(args.ties, args.seed)
    if args.ties == "random" and args.cut == "n":
        _note(f"ties broken at random with seed {seed} (pass --seed {seed} to repeat)")
    return seed


def _cmd_validate(args) -> None:
    candidates = _load_experiment(args)
    measures = list(candidates.measures)
    cuts = _cuts(candidates, measures, args)
    seed = _seed(args)
    results = [validate(candidates, m, cuts[m], ties=args.ties, seed=seed, confidence_level=args.confidence_level,
                        interval=args.interval) for m in measures]
    if args.per_sample:
        pd.concat([r.table.assign(measure=r.measure) for r in results], ignore_index=True).to_csv(
            args.per_sample, index=False)
    _write(pd.DataFrame([r.summary() for r in results]), args.out)


def _cmd_across(args) -> None:
    if not args.measure or len(args.measure) != 2:
        raise ParameterError("across needs exactly two measures: --measure A --measure B")
    candidates = _load_experiment(args)
    a, b = args.measure
    cuts = _cuts(candidates, [a, b], args)
    result = across_samples(candidates, a, b, cuts[a], cuts[b], ties=args.ties, seed=_seed(args),
                            confidence_level=args.confidence_level)
    if result.dropped:
        _note(f"left out samples where a measure accepted nothing: {', '.join(result.dropped)}")
    _note(f"Cohen's d_z = {result.cohens_dz:.4g}")
    if args.per_sample:
        result.table.to_csv(args.per_sample, index=False)
    _write(result.tests, args.out)


def _cmd_uir(args) -> None:
    candidates = _load_experiment(args)
    measures = list(candidates.measures)
    if len(measures) < 2:
        raise ParameterError("uir needs at least two measures")
    cuts = _cuts(candidates, measures, args)
    result = uir_analysis(candidates, measures, cuts, measures[0], measures[1], betas=tuple(args.beta),
                          threshold=args.threshold, ties=args.ties, seed=_seed(args))
    if result.dropped:
        _note(f"left out samples where a measure accepted nothing or there are no TPs: {', '.join(result.dropped)}")
    if args.per_sample:
        pd.concat([t.assign(measure=m) for m, t in result.metrics.items()], ignore_index=True).to_csv(
            args.per_sample, index=False)
    _write(result.matrix.reset_index(names="measure"), args.out)


def _cmd_simulate(args) -> None:
    experiment = simulate(k=args.k, n=args.n, baseline=args.baseline, n_sd=args.n_sd, sample_sd=args.sample_sd,
                          population=args.population, seed=args.seed)
    data = experiment.data
    if args.out:
        write_tsv(experiment, args.out)
    else:
        sys.stdout.write(to_tsv(experiment))
    _note(f"{args.k} samples, {len(data):,} candidates, {data['is_tp'].mean():.2%} TPs, seed {args.seed}")


COMMANDS = {"curves": _cmd_curves, "compare": _cmd_compare, "accept": _cmd_accept, "summary": _cmd_summary,
            "validate": _cmd_validate, "across": _cmd_across, "uir": _cmd_uir, "simulate": _cmd_simulate,
            "power": _cmd_power}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "confidence_level"):
            check_confidence_level(args.confidence_level)
        COMMANDS[args.command](args)
    except (EvalcoreError, OSError) as exc:
        where = getattr(args, "file", None) or ", ".join(getattr(args, "files", []) or [])
        message = str(exc) if isinstance(exc, EvalcoreError) else f"{where}: {exc.strerror or exc}"
        print(f"evalcore: error: {message}", file=sys.stderr)
        return 2
    return 0
