"""The command line: ``python -m evalcore curves|compare|auc-test|accept|summary|validate|across|uir|simulate|power|report|reproduce|systems|app``.

Tables go to ``--out`` (or standard output) as CSV, or as Parquet or TSV when ``--out``
ends in ``.parquet`` or ``.tsv``; numbers are written exactly (shortest round-trip form),
with no spreadsheet-formula escaping. Notes (the seed of random tie breaking, excluded
rows, non-finite scores) go to standard error; an input error is one line on standard
error and exit code 2. Each command imports the numerical modules it needs when it runs,
so that ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from . import cli_steps as steps
from . import names
from .errors import EvalcoreError, ParameterError
from .text import shown
from .pooling import cli as pool_cli
from .report import parsers as report_parsers
from .systems import cli as systems_cli
from .warm import load_kernels_meanwhile

if TYPE_CHECKING:  # the numerical modules are imported by the command that needs them
    import pandas as pd

    from .candidates import CandidateSet
    from .samples import Cut

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
    _limit_argument(p)


def _limit_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", action="append", default=[], metavar="NAME=N",
                   help="raise or lower a reading limit (repeat): bytes, expansion, rows, columns, cells, line, "
                        "field, e.g. --limit rows=50M (defaults and EVALCORE_MAX_* variables: evalcore.io.limits)")


def _engine_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=list(names.ENGINES), default="memory",
                   help="where the rankings are counted: memory (default; every tie policy), duckdb (out of core: "
                        "Parquet, a folder of Parquet parts, CSV; ties stable, hash, optimistic, pessimistic) or spark "
                        "(EVALCORE_SPARK_MASTER, default local[2]); tables at every n are written chunk by chunk")


def _ranking_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ties", choices=list(names.TIE_POLICIES), default="random",
                   help="how to order candidates with equal scores (default: random, as the paper's jitter)")
    p.add_argument("--seed", type=int, help="seed for --ties random or hash and the resampling tests (default: the "
                                            "data's own, the first 32 bits of its SHA-256, as on the dashboard)")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL", help="default 0.95")
    p.add_argument("--out", help="write the table here instead of standard output (CSV; Parquet or TSV when "
                                 "the name ends in .parquet or .tsv)")
    p.add_argument("--signature", nargs="?", const="-", metavar="FILE", help=report_parsers.SIGNATURE_HELP)
    report_parsers.add_work_budget(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalcore",
        description="Significance tests for the evaluation of ranking methods (Evert 2004).")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("curves", help="n-best precision, recall and confidence intervals per measure")
    _data_arguments(p)
    p.add_argument("--n", default="all", metavar="SPEC", help="all | 100,500,1000 | 100:2000:50 (stop included)")
    p.add_argument("--interval", choices=list(names.INTERVAL_LABELS), default="clopper_pearson")
    p.add_argument("--kind", choices=["precision", *names.CURVE_KINDS, "auc"], default="precision",
                   help="precision (n-best curves, default), roc, det or pr (curves at every threshold), or auc "
                        "(AUC and average precision with intervals, one row per measure)")
    p.add_argument("--auc-interval", choices=list(names.AUC_INTERVAL_LABELS), default="delong",
                   help="for --kind auc: delong (default) or bootstrap")
    p.add_argument("--resamples", type=int, default=2000, help="for --kind auc: bootstrap resamples (default 2000)")
    _sample_arguments(p)
    _engine_argument(p)
    _ranking_arguments(p)

    p = sub.add_parser("compare", help="Fisher's exact test on the difference regions of two measures")
    _data_arguments(p)
    p.add_argument("--n", default="all", metavar="SPEC", help="all | 100,500,1000 | 100:2000:50 (stop included)")
    p.add_argument("--alternative", choices=list(names.ALTERNATIVES), default="two-sided",
                   help="for Fisher's test only (the other tests are two-sided)")
    p.add_argument("--test", choices=list(names.PAIR_TESTS), default="fisher",
                   help="fisher (default, Evert 2004); mcnemar (exact, on the discordant TPs); mcnemar_decisions "
                        "(exact, on each candidate's right or wrong decision); mcnemar_chi2 (R's mcnemar.test on "
                        "the discordant TPs); chi2 (lists as independent samples, Krenn 2000, no continuity "
                        "correction); chi2_yates (the same with Yates' correction, R's chisq.test default); "
                        "bootstrap (paired, over candidates); randomization (Yeh 2000). "
                        + names.MCNEMAR_NOTE.replace("%", "%%"))
    p.add_argument("--correction", choices=list(names.CORRECTIONS), default="none",
                   help="for testing many n: none (default, as the paper), holm, bh (Benjamini-Hochberg)")
    p.add_argument("--resamples", type=int, default=1000, help="for bootstrap and randomization (default 1000)")
    _sample_arguments(p)
    p.add_argument("--difference-interval", choices=list(names.DIFFERENCE_INTERVALS), default="newcombe",
                   help="interval of diff = precision of A minus B: newcombe (default, Newcombe 1998 method 10) or "
                        "agresti_caffo")
    p.add_argument("--mdd", action="store_true",
                   help="add mdd_pi and mdd: the smallest difference the test finds with --power at each n")
    p.add_argument("--power", type=float, default=0.8, help="for --mdd (default 0.8)")
    _engine_argument(p)
    _ranking_arguments(p)

    p = sub.add_parser("auc-test", help="DeLong's test of two correlated AUCs, for every pair of measures")
    _data_arguments(p)
    p.add_argument("--correction", choices=list(names.CORRECTIONS), default="none",
                   help="across the pairs: none (default), holm, bh")
    p.add_argument("--out", help="write the table here (CSV; .parquet or .tsv by the extension)")
    report_parsers.add_work_budget(p)

    p = sub.add_parser("accept", help="gamma-acceptance sets {g >= gamma} of one measure")
    _data_arguments(p)
    p.add_argument("--gamma", required=True, help="thresholds, comma-separated, e.g. 10.83,3.84")
    p.add_argument("--interval", choices=list(names.INTERVAL_LABELS), default="clopper_pearson")
    _ranking_arguments(p)

    p = sub.add_parser("summary", help="N, TPs, baseline and ties per measure")
    _data_arguments(p)
    report_parsers.add_work_budget(p)

    p = sub.add_parser("validate", help="Evert (2004) §4: does precision over the samples follow the binomial "
                                        "model? (SD ratio, Kolmogorov-Smirnov, interval coverage)")
    _experiment_arguments(p)
    p.add_argument("--interval", choices=list(names.INTERVAL_LABELS), default="clopper_pearson")

    p = sub.add_parser("across", help="two measures over the samples: paired t, Wilcoxon, sign and Welch tests")
    _experiment_arguments(p)

    p = sub.add_parser("uir", help="Unanimous Improvement Ratio of every pair of measures over the samples")
    _experiment_arguments(p)
    p.add_argument("--beta", type=float, action="append", default=[], metavar="B",
                   help="add each sample's F-beta to --per-sample (repeat for several); the UIR is the same with "
                        "or without it: A at least as good on precision and recall is so on every F-beta")
    p.add_argument("--threshold", type=float, default=0.25, help="robustness threshold of |UIR| (default 0.25)")

    p = sub.add_parser("power", help="plan an experiment: the n-best list size (or number of samples) needed to "
                                     "detect a difference with a given power")
    p.add_argument("--precision-a", type=float, metavar="P", help="hypothesised precision of A's n-best lists")
    p.add_argument("--precision-b", type=float, metavar="P", help="hypothesised precision of B's n-best lists")
    p.add_argument("--overlap", type=float, metavar="O", help="expected share |A ∩ B| / n of the n-best lists")
    p.add_argument("--shared-precision", type=float, metavar="P",
                   help="precision of the candidates both lists hold (default: the mean of A's and B's)")
    p.add_argument("--n", metavar="LIST", help="instead of solving for n: the power at these n, e.g. 500,1000,2000")
    p.add_argument("--test", choices=list(names.POWER_TESTS), default="fisher", help="fisher (default) or mcnemar")
    p.add_argument("--delta", type=float, help="several samples: the mean per-sample difference of precision")
    p.add_argument("--sd", type=float, help="several samples: the standard deviation of that difference")
    p.add_argument("--strict", action="store_true", help="paired t-test: count the wrong tail too (R's strict)")
    p.add_argument("--power", type=float, default=0.8, help="the power wanted (default 0.8)")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL",
                   help="default 0.95: the test's level alpha is 1 - LEVEL")
    p.add_argument("--out", help="write the CSV here instead of standard output")
    report_parsers.add_work_budget(p)

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
    report_parsers.add_work_budget(p)
    report_parsers.add_parsers(sub, _data_arguments, _ranking_arguments)
    systems_cli.add_parser(sub, _limit_argument)
    pool_cli.add_parser(sub, _data_arguments, _ranking_arguments)
    sub.add_parser("app", add_help=False, help="the dashboard, warmed, behind the upload guard (the [app] extra; "
                                               "evalcore app --help for Streamlit's options)")  # (main passes on)
    return parser


def _sample_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--annotated-sample", action="store_true",
                   help="the label column is empty for unannotated candidates: estimate from the annotated ones, "
                        "taken as a simple random sample (of the whole set, or of --sample-frame)")
    p.add_argument("--sample-frame", metavar="M1,M2:K",
                   help="with --annotated-sample: the sample was drawn from the union of the top K of these measures "
                        "(ranked with --ties/--seed); default: from the whole candidate set")
    p.add_argument("--sample-interval", choices=list(names.SAMPLE_INTERVAL_LABELS), default="hypergeometric",
                   help="with --annotated-sample: hypergeometric (default; exact for the finite n-best list) or "
                        "clopper_pearson (on the annotated candidates)")
    pool_cli.add_arguments(p)


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
    _limit_argument(p)
    _ranking_arguments(p)


def _load(args) -> CandidateSet:
    from .io import load_candidates

    steps.read(args.file, args)
    candidates = load_candidates(
        args.file, label=args.label, scores=args.measure, lower_is_better=tuple(args.lower_is_better),
        exclude_unlabelled=args.exclude_unlabelled, encoding=args.encoding, sheet=args.sheet,
        limits=steps.limits(args), where="cli")
    if candidates.excluded_unlabelled:
        steps.note(f"{args.file}: left out {candidates.excluded_unlabelled} rows with an empty label "
              f"(--exclude-unlabelled)")
    if not args.measure:
        steps.left_out_note(args.file, candidates.keys)
    return candidates


def _check_work(estimate, args) -> None:
    """Refuse work past the budget (``--work-budget``, else ``EVALCORE_WORK_BUDGET``, else none) before it starts."""
    steps.check_work(estimate, args)


def _cmd_curves(args) -> None:
    load_kernels_meanwhile()
    if args.engine != "memory":
        from .engines import cli as engine_cli

        return engine_cli.curves(args)
    if args.annotated_sample:
        return _curves_from_sample(args)
    candidates = _load(args)
    if args.kind != "precision":
        from .roc import curves_table, roc_table
        from .work.commands import table_estimate

        n_measures = len(candidates.measures)
        if args.kind == "auc":
            from .work import roc_estimate

            _check_work(roc_estimate(candidates.n_candidates, n_measures, args.resamples), args)
        _check_work(table_estimate(candidates.n_candidates, n_measures,
                                   1 if args.kind == "auc" else candidates.n_candidates,
                                   what=f"the {args.kind} curves" if args.kind != "auc" else "AUC and AP",
                                   chunked=True), args)  # (a row of a ROC table: no interval to compute)
        rankings = {r.measure: r for r in steps.rankings_of(candidates, candidates.measures, args, ties_matter=False)}
        if args.kind == "auc":
            seed = args.seed if args.seed is not None else 0
            table = roc_table(rankings, confidence_level=args.confidence_level, method=args.auc_interval,
                              resamples=args.resamples, seed=seed)
            bootstrapped = "AUC and average precision" if args.auc_interval == "bootstrap" else "average precision"
            steps.note(f"{bootstrapped} intervals from {args.resamples} bootstrap resamples with seed {seed} "
                  f"(--seed); AUC and the curves do not depend on how ties are broken")
        else:
            table = curves_table(rankings, args.kind)
        steps.write(table, args.out)
        return
    import pandas as pd

    from .curves import precision_curve
    from .nspec import parse_n_spec

    from .work.commands import table_estimate

    sizes = parse_n_spec(args.n, candidates.n_candidates)
    _check_work(table_estimate(candidates.n_candidates, len(candidates.measures), len(sizes),
                               what="the curves and intervals"), args)
    tables = [precision_curve(r, sizes, confidence_level=args.confidence_level, interval=args.interval)
              for r in steps.rankings_of(candidates, candidates.measures, args)]
    table = pd.concat(tables, ignore_index=True)
    straddled = table.groupby("measure", sort=False, observed=True)["tie_straddled"].sum()
    for measure, count in straddled[straddled > 0].items():
        steps.note(f"{measure}: at {count} of the {sizes.size} list sizes the cut-off splits a tie group "
              f"(--ties {args.ties} decides which candidates are in)")
    steps.write(table[CURVE_CSV_COLUMNS], args.out)


def _significance_note(table: pd.DataFrame, up_to: int | None) -> str:
    """Where the difference is significant, in words: up to which n, or not at the first n."""
    first = int(table["n"].iloc[0]) if len(table) else None
    count = f"significant at {int(table['significant'].sum())} of {len(table)} list sizes"
    if first is None:
        return count
    if up_to:
        return f"{count}; at every tested n from {first} up to {up_to}"
    return f"{count}; not significant at n = {first}, the first tested"


def _cmd_compare(args) -> None:
    if not args.measure or len(args.measure) != 2:
        raise ParameterError("compare needs exactly two measures: --measure A --measure B")
    load_kernels_meanwhile()
    if args.engine != "memory":
        from .engines import cli as engine_cli

        return engine_cli.compare(args)
    if args.annotated_sample:
        return _compare_from_sample(args)
    from .compare import COMPARE_COLUMNS, compare_rankings, significant_up_to
    from .nspec import parse_n_spec
    from .stats.multitest import adjust_pvalues
    from .compare import pair_test
    from .work import sizes_estimate

    candidates = _load(args)
    sizes = parse_n_spec(args.n, candidates.n_candidates)
    from .work.commands import table_estimate

    _check_work(table_estimate(candidates.n_candidates, 2, len(sizes), what="the tests and effects"), args)
    _check_work(sizes_estimate(candidates.n_candidates, sizes, args.test, args.resamples, mdd=args.mdd), args)
    a, b = steps.rankings_of(candidates, args.measure, args)
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
            steps.note(f"{args.resamples} resamples, seed {seed} (--seed); no p-value can be below "
                  f"1/{args.resamples + 1}")
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), args.correction)
    table["significant"] = table["p_adjusted"] < 1 - args.confidence_level
    steps.note(f"{a.measure} vs {b.measure} ({names.PAIR_TESTS[args.test]}, correction {args.correction}): "
          + _significance_note(table, significant_up_to(table)))
    import pandas as pd

    from .stats.effect import EFFECT_COLUMNS, effect_sizes

    effects = effect_sizes(table, args.confidence_level, args.difference_interval, args.alternative)
    columns = [*COMPARE_COLUMNS[:3], "overlap", *COMPARE_COLUMNS[3:-1], "p_adjusted", "significant", *EFFECT_COLUMNS]
    table = pd.concat([table, effects[list(EFFECT_COLUMNS)]], axis=1)
    if args.mdd:
        from .stats.power import POWER_TESTS, detectable_differences

        test = args.test if args.test in POWER_TESTS else "fisher"
        mdd = detectable_differences(table, 1 - args.confidence_level, args.power, test)
        table["mdd_pi"], table["mdd"] = mdd["mdd_pi"].to_numpy(), mdd["mdd"].to_numpy()
        columns += ["mdd_pi", "mdd"]
        if test != args.test:
            steps.note(f"--mdd is for Fisher's exact test (power of --test {args.test} is not computed exactly)")
    steps.write(table[columns], args.out)


def _cmd_auc_test(args) -> None:
    if args.measure is not None and len(args.measure) < 2:
        raise ParameterError("auc-test needs at least two measures: --measure A --measure B")
    import pandas as pd

    from .roc import auc, delong_test
    from .stats.multitest import adjust_pvalues

    candidates = _load(args)
    if len(candidates.measures) < 2:
        raise ParameterError(f"{args.file}: auc-test needs at least two score columns; found "
                             f"{len(candidates.measures)}")
    from .work.commands import per_item_estimate

    k = len(candidates.measures)
    _check_work(per_item_estimate(candidates.n_candidates * (k + k * (k - 1) // 2), 3.5e-7,
                                  what=f"DeLong's test of {k * (k - 1) // 2} pairs of {candidates.n_candidates:,} "
                                       "candidates"), args)
    args.ties, args.seed = "stable", None  # AUCs do not depend on the order within ties
    rankings = steps.rankings_of(candidates, candidates.measures, args, ties_matter=False)
    rows = []
    for i, a in enumerate(rankings):
        for b in rankings[i + 1:]:
            z, p = delong_test(a, b)
            rows.append({"measure_a": a.measure, "measure_b": b.measure, "auc_a": auc(a), "auc_b": auc(b),
                         "difference": auc(a) - auc(b), "z": z, "p_value": p})
    table = pd.DataFrame(rows)
    table["p_adjusted"] = adjust_pvalues(table["p_value"].to_numpy(), args.correction)
    steps.note(f"DeLong et al. (1988) for {len(rows)} pairs, correction {args.correction} across the pairs")
    steps.write(table, args.out)


# ------------------------------------------------------------------ estimates from an annotated sample
def _curves_from_sample(args) -> None:
    import pandas as pd

    from . import estimates
    from .nspec import parse_n_spec

    table, exported = pool_cli.read(args)  # (the design an export carries, a pooled one included)
    if pool_cli.pooled(args, exported):
        return pool_cli.curves(args, table, exported)
    if args.kind != "precision":
        raise ParameterError(f"--kind {args.kind} is not available with --annotated-sample; use --kind precision")
    sample = steps.annotated_sample(args, table=table, exported=exported)
    candidates = sample.candidates
    sizes = parse_n_spec(args.n, candidates.n_candidates)
    steps.sample_work(args, candidates.n_candidates, len(candidates.measures), len(sizes), args.sample_interval)
    rankings = steps.rankings_of(candidates, candidates.measures, args)
    mask = sample.frame_mask({r.measure: r for r in rankings})
    base = estimates.baseline_estimate(rankings[0], frame=mask, confidence_level=args.confidence_level,
                                       interval=args.sample_interval)
    steps.note(f"baseline estimated from the sample: {base.k}/{base.m} = {base.estimate:.4f} "
          f"[{base.lower:.4f}, {base.upper:.4f}] ({estimates.SAMPLE_INTERVAL_LABELS[args.sample_interval]})")
    table = pd.concat([estimates.precision_estimates(r, sizes, frame=mask, confidence_level=args.confidence_level,
                                                     interval=args.sample_interval) for r in rankings],
                      ignore_index=True)
    outside = int((~table["in_frame"]).sum())
    if outside:
        steps.note(f"{outside} rows are n-best lists reaching outside the sampling frame: no estimate there")
    steps.write(table, args.out)


def _compare_from_sample(args) -> None:
    from . import estimates
    from .compare import significant_up_to
    from .nspec import parse_n_spec

    table, exported = pool_cli.read(args)  # (the design an export carries, a pooled one included)
    if pool_cli.pooled(args, exported):
        return pool_cli.compare(args, table, exported)
    if args.test != "fisher":
        raise ParameterError(f"--test {args.test} is not available with --annotated-sample; Fisher's test (the "
                             "default) runs on the annotated candidates of D1 and D2")
    sample = steps.annotated_sample(args, table=table, exported=exported)
    candidates = sample.candidates
    sizes = parse_n_spec(args.n, candidates.n_candidates)
    steps.sample_work(args, candidates.n_candidates, 2, len(sizes), "fisher")
    a, b = steps.rankings_of(candidates, args.measure, args)
    mask = sample.frame_mask({a.measure: a, b.measure: b})
    table = estimates.compare_estimates(a, b, sizes, frame=mask, confidence_level=args.confidence_level,
                                        alternative=args.alternative)
    tested = steps.adjust_in_frame(table, args)
    steps.note(f"{a.measure} vs {b.measure} on the annotated sample (Fisher's exact test on D1/D2, correction "
          f"{args.correction}): significant at {int(tested['significant'].sum())} of {len(tested)} list sizes; at "
          f"every tested n up to {significant_up_to(tested) if len(tested) else 0}; the test rests on "
          f"{int(tested['annotated'].min()) if len(tested) else 0} to {int(tested['annotated'].max()) if len(tested) else 0} "
          "annotated candidates of D1 and D2")
    steps.write(table, args.out)


def _cmd_power(args) -> None:
    import numpy as np
    import pandas as pd

    from .stats.power import exact_power, paired_t_power, paired_t_samples, plan_experiment, region_precisions

    from .work.commands import per_item_estimate

    alpha = 1 - args.confidence_level
    if args.n:
        sizes = _number_list(args.n, "--n")
        _check_work(per_item_estimate(len(sizes) + sum(sizes) // 1000, 2e-3,
                                      what=f"the power at {len(sizes):,} n up to {max(sizes):,}"), args)
    else:
        _check_work(per_item_estimate(1, 2.0, what="solving for the n of the power wanted"), args)
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
        steps.write(pd.DataFrame(rows), args.out)
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
        steps.write(pd.DataFrame(rows), args.out)
        return
    plan = plan_experiment(args.precision_a, args.precision_b, args.overlap, shared_precision=args.shared_precision,
                           alpha=alpha, power=args.power, test=args.test)
    steps.note(f"difference regions of d = {plan.size:,} candidates each, TP rates {plan.pi_d1:.4g} and {plan.pi_d2:.4g}: "
          f"n = {plan.n:,} (annotate {plan.candidates:,} candidates) for power {plan.power:.3f}")
    steps.write(pd.DataFrame([plan.as_dict()]), args.out)


def _number_list(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ParameterError(f"{option} {shown(text)}: give whole numbers separated by commas, e.g. 500,1000") from None
    if not values or min(values) < 1:
        raise ParameterError(f"{option} {shown(text)}: give whole numbers of at least 1, e.g. 500,1000")
    return values


def _cmd_accept(args) -> None:
    try:
        gammas = [float(g) for g in args.gamma.split(",") if g.strip()]
    except ValueError:
        raise ParameterError(f"--gamma {shown(args.gamma)}: give numbers separated by commas, e.g. 10.83,3.84") from None
    import pandas as pd

    from .curves import acceptance_sets

    from .work.commands import table_estimate

    candidates = _load(args)
    _check_work(table_estimate(candidates.n_candidates, len(candidates.measures), len(gammas),
                               what="the acceptance sets"), args)
    tables = [acceptance_sets(r, gammas, confidence_level=args.confidence_level, interval=args.interval)
              for r in steps.rankings_of(candidates, candidates.measures, args)]
    steps.write(pd.concat(tables, ignore_index=True), args.out)


def _cmd_summary(args) -> None:
    import pandas as pd

    from .ranking import score_ties

    from .work.commands import ranking_estimate

    candidates = _load(args)
    _check_work(ranking_estimate(candidates.n_candidates, 2 * len(candidates.measures),
                                 what="the tie groups of"), args)
    print(f"file: {args.file}\ncandidates: {candidates.n_candidates}\nlabel: {candidates.label_column}\n"
          f"TPs: {candidates.n_tp}\nbaseline precision: {candidates.baseline:.4%}")
    rows = []
    for m in candidates.measures:  # the ties of each ranking from a sort of its scores, no ranking built
        ties = score_ties(candidates.scores[m], higher_is_better=candidates.higher_is_better(m), measure=m)
        straddled = ties.pop("straddled_cutoffs")
        rows.append({**ties, "direction": candidates.directions[m], "straddled_cutoffs": straddled})
    print(pd.DataFrame(rows).to_string(index=False))


def _load_experiment(args) -> CandidateSet:
    from .io import combine_samples, load_candidates
    from .samples import require_samples

    sample = args.sample_column
    for f in args.files:
        steps.read(f, args)
    if len(args.files) > 1:
        source, name = combine_samples([(f, Path(f).name) for f in args.files], limits=steps.limits(args))
        sample = sample or "sample"
    else:
        source, name = args.files[0], None
    candidates = load_candidates(source, name=name, label=args.label, scores=args.measure, sample=sample,
                                 lower_is_better=tuple(args.lower_is_better),
                                 exclude_unlabelled=args.exclude_unlabelled, limits=steps.limits(args), where="cli")
    try:
        require_samples(candidates)
    except EvalcoreError as exc:  # the core's message speaks for the page and the command line; add the option
        if candidates.samples is not None:
            raise
        raise type(exc)(f"{exc} On the command line: --sample-column NAME, or give one file per sample.") from None
    args.file = name or args.files[0]
    from .work.commands import ranking_estimate

    measures = len(candidates.measures)  # each sample ranked by each measure, the pairs of UIR counted
    _check_work(ranking_estimate(candidates.n_candidates, 2 * measures + measures * (measures - 1) // 4,
                                 what=f"the {args.command} of"), args)
    return candidates


def _cuts(candidates: CandidateSet, measures: Sequence[str], args) -> dict[str, Cut]:
    from .samples import cuts_for, default_cut_n

    gammas = {}
    for entry in args.gamma:
        measure, sep, value = entry.rpartition("=")
        try:
            gammas[measure] = float(value)
        except ValueError:
            sep = ""
        if not sep or measure not in candidates.measures:
            raise ParameterError(f"--gamma {shown(entry)}: give MEASURE=NUMBER with one of the measures "
                                 f"{', '.join(candidates.measures)}")
    if gammas and args.cut == "n":
        raise ParameterError("--gamma applies to --cut gamma, not --cut n")
    n = args.n if args.n is not None else default_cut_n(candidates)
    if n < 1:
        raise ParameterError(f"--n must be at least 1; got {n}")
    cuts = cuts_for(candidates, measures, args.cut, n, gammas)
    for m, cut in cuts.items():
        steps.note(f"cut-off: {cut.label(m, candidates.higher_is_better(m))}")
    return cuts


def _seed(args) -> int | None:
    from .ranking import resolve_seed

    seed = resolve_seed(args.ties, args.seed)
    if args.ties in names.SEEDED_TIES and args.cut == "n":
        steps.note(f"ties broken at random with seed {seed} (pass --seed {seed} to repeat)")
    return seed


def _cmd_validate(args) -> None:
    import pandas as pd

    from .validate import validate

    candidates = _load_experiment(args)
    measures = list(candidates.measures)
    cuts = _cuts(candidates, measures, args)
    seed = _seed(args)
    results = [validate(candidates, m, cuts[m], ties=args.ties, seed=seed, confidence_level=args.confidence_level,
                        interval=args.interval) for m in measures]
    if args.per_sample:
        steps.write(pd.concat([r.table.assign(measure=r.measure) for r in results], ignore_index=True), args.per_sample)
    steps.write(pd.DataFrame([r.summary() for r in results]), args.out)


def _cmd_across(args) -> None:
    if not args.measure or len(args.measure) != 2:
        raise ParameterError("across needs exactly two measures: --measure A --measure B")
    from .analysis import across_samples

    candidates = _load_experiment(args)
    a, b = args.measure
    cuts = _cuts(candidates, [a, b], args)
    result = across_samples(candidates, a, b, cuts[a], cuts[b], ties=args.ties, seed=_seed(args),
                            confidence_level=args.confidence_level)
    if result.dropped:
        steps.note(f"left out samples where a measure accepted nothing: {', '.join(result.dropped)}")
    steps.note(f"Cohen's d_z = {result.cohens_dz:.4g}")
    if args.per_sample:
        steps.write(result.table, args.per_sample)
    steps.write(result.tests, args.out)


def _cmd_uir(args) -> None:
    import pandas as pd

    from .analysis import uir_analysis

    candidates = _load_experiment(args)
    measures = list(candidates.measures)
    if len(measures) < 2:
        raise ParameterError("uir needs at least two measures")
    cuts = _cuts(candidates, measures, args)
    result = uir_analysis(candidates, measures, cuts, measures[0], measures[1], betas=tuple(args.beta),
                          threshold=args.threshold, ties=args.ties, seed=_seed(args))
    if result.dropped:
        steps.note(f"left out samples where a measure accepted nothing or there are no TPs: {', '.join(result.dropped)}")
    if args.per_sample:
        steps.write(pd.concat([t.assign(measure=m) for m, t in result.metrics.items()], ignore_index=True),
               args.per_sample)
    steps.write(result.matrix.reset_index(names="measure"), args.out)


def _cmd_simulate(args) -> None:
    from .simulate import simulate, to_tsv, write_tsv
    from .work.commands import per_item_estimate

    _check_work(per_item_estimate(args.k * args.n if args.population is None else args.k * args.n + args.population,
                                  1.8e-5, what=f"simulating {args.k:,} samples of {args.n:,} candidates"), args)

    experiment = simulate(k=args.k, n=args.n, baseline=args.baseline, n_sd=args.n_sd, sample_sd=args.sample_sd,
                          population=args.population, seed=args.seed)
    data = experiment.data
    if args.out:
        write_tsv(experiment, args.out)
    else:
        sys.stdout.write(to_tsv(experiment))
    steps.note(f"{args.k} samples, {len(data):,} candidates, {data['is_tp'].mean():.2%} TPs, seed {args.seed}")


def _cmd_report(args) -> int | None:
    from .report import commands as report_commands

    return report_commands.cmd_report(args)


def _cmd_reproduce(args) -> int:
    from .report import commands as report_commands

    return report_commands.cmd_reproduce(args, parser=build_parser(), commands=COMMANDS)


def _cmd_systems(args) -> None:
    systems_cli.cmd_systems(args)


COMMANDS = {"curves": _cmd_curves, "compare": _cmd_compare, "auc-test": _cmd_auc_test, "accept": _cmd_accept,
            "summary": _cmd_summary, "validate": _cmd_validate, "across": _cmd_across, "uir": _cmd_uir,
            "simulate": _cmd_simulate, "power": _cmd_power, "report": _cmd_report, "reproduce": _cmd_reproduce,
            "systems": _cmd_systems, "pool-plan": pool_cli.cmd_pool_plan,
            "strata-plan": pool_cli.stratified_cli.cmd_strata_plan}


def run(argv: Sequence[str] | None = None) -> None:
    """``python -m evalcore`` and the ``evalcore`` script: :func:`main`, then a clean end of the process.

    The output is flushed and the process ends at once (``os._exit``), without Python's interpreter teardown:
    native thread pools (pyarrow's CPU and I/O pools, numba's OpenMP threads) may still hold work when a
    command ends early on a bad input, and a pool thread that needs the interpreter while it is being torn down
    is ended by it in the middle of C++ code, which aborts the process ("terminate called without an active
    exception", exit code 134) instead of the command's message and exit code 2.
    """
    import logging
    import os

    code = main(argv)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (``| head``) or stream: nothing more can be said
            pass
    logging.shutdown()
    os._exit(code)


def _cmd_app(options: list[str]) -> int:
    """``evalcore app [streamlit options]``: the server ``./dev run`` starts (:mod:`evalcore_app.serve`); its options
    are Streamlit's, passed on as they are. The core never imports Streamlit: this command imports the app."""
    import os

    from .extras import require

    require("app", "the dashboard (evalcore app)")
    from evalcore_app.serve import main as serve

    os.environ.setdefault("EVALCORE_DEFAULT_DATASET", "sample:collocations_sim")  # a page without a data set in
    # its link opens the shipped sample, as ./dev run's (EVALCORE_DEFAULT_DATASET= for none)
    return serve(options)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["app"]:  # Streamlit's options are not ours to parse
        try:
            return _cmd_app(argv[1:])
        except EvalcoreError as exc:
            print(f"evalcore: error: {exc}", file=sys.stderr)
            return 2
    args = build_parser().parse_args(argv)
    code = None
    try:
        if hasattr(args, "confidence_level"):
            from .stats.intervals import check_confidence_level

            check_confidence_level(args.confidence_level)
        steps.default_seed(args)  # no --seed where one counts: the data's own, as on the dashboard
        if getattr(args, "signature", None) is not None and args.command in report_parsers.TABLE_COMMANDS:
            from .report import commands as report_commands

            report_commands.run_signed(args, COMMANDS, build_parser())
        else:
            code = COMMANDS[args.command](args)
    except (EvalcoreError, OSError) as exc:
        where = getattr(args, "file", None) or ", ".join(getattr(args, "files", []) or [])
        message = str(exc) if isinstance(exc, EvalcoreError) else f"{where}: {exc.strerror or exc}"
        print(f"evalcore: error: {message}", file=sys.stderr)
        return 2
    return int(code or 0)
