"""The command line: ``python -m evalcore curves|compare|accept|summary FILE ...``.

Tables go to ``--out`` (or standard output) as CSV; notes (the seed of random tie
breaking, excluded rows, non-finite scores) go to standard error; an input error is
one line on standard error and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import numpy as np
import pandas as pd

from .candidates import CandidateSet
from .compare import COMPARE_COLUMNS, compare_rankings, significant_up_to
from .curves import acceptance_sets, precision_curve
from .errors import EvalcoreError, ParameterError
from .intervals import INTERVAL_METHODS, check_confidence_level
from .io import load_candidates
from .nspec import parse_n_spec
from .ranking import TIE_POLICIES, Ranking, rank, resolve_seed

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
    _ranking_arguments(p)

    p = sub.add_parser("compare", help="Fisher's exact test on the difference regions of two measures")
    _data_arguments(p)
    p.add_argument("--n", default="all", metavar="SPEC", help="all | 100,500,1000 | 100:2000:50 (stop included)")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"], default="two-sided")
    _ranking_arguments(p)

    p = sub.add_parser("accept", help="gamma-acceptance sets {g >= gamma} of one measure")
    _data_arguments(p)
    p.add_argument("--gamma", required=True, help="thresholds, comma-separated, e.g. 10.83,3.84")
    p.add_argument("--interval", choices=list(INTERVAL_METHODS), default="clopper_pearson")
    _ranking_arguments(p)

    p = sub.add_parser("summary", help="N, TPs, baseline and ties per measure")
    _data_arguments(p)
    return parser


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
    table = compare_rankings(a, b, sizes, confidence_level=args.confidence_level, alternative=args.alternative)
    _note(f"{a.measure} vs {b.measure}: significant at {int(table['significant'].sum())} of {len(table)} "
          f"list sizes; at every tested n up to {significant_up_to(table)}")
    _write(table[list(COMPARE_COLUMNS)], args.out)


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


COMMANDS = {"curves": _cmd_curves, "compare": _cmd_compare, "accept": _cmd_accept, "summary": _cmd_summary}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "confidence_level"):
            check_confidence_level(args.confidence_level)
        COMMANDS[args.command](args)
    except (EvalcoreError, OSError) as exc:
        message = str(exc) if isinstance(exc, EvalcoreError) else f"{args.file}: {exc.strerror or exc}"
        print(f"evalcore: error: {message}", file=sys.stderr)
        return 2
    return 0
