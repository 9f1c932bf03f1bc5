"""The command line's ``systems`` command: compare systems on a test set, and reproduce its signature.

::

    python -m evalcore systems --refs REFS.txt --hyps A.txt B.txt [C.txt ...] --metric {bleu,chrf,ter,wer} \\
        --resamples R --seed S --json OUT.json
    python -m evalcore systems ITEMS.csv --metric f1 --resamples R --seed S --json OUT.json
    python -m evalcore systems --refs REFS.txt --hyps A.txt B.txt --metric rougeL [--rouge-tokenizer unicode ...]
    python -m evalcore systems SCORES.csv --metric mean [--tests ttest wilcoxon tukey]
    python -m evalcore systems --qrels QRELS --runs A.run B.run ... --metric nDCG@10 [--missing omit --ties rank]

System names are the file stems (text) or the column prefixes (table); the first system is the baseline. OUT.json
holds ``{"metric", "n_items", "systems": [{"name", "score", "ci_low", "ci_high"}], "pairs": [{"a", "b", "delta",
"p_bootstrap", "p_randomization", "p_adjusted"}]}``: BLEU, chrF and TER on sacrebleu's 0-100 scale, WER and the
table metrics as fractions; every pair in input order ((1, 2), (1, 3), ..., (2, 3), ...; the earlier system as
``a``, ``delta`` = score(b) − score(a)); ``p_bootstrap`` by the chosen rule, ``p_adjusted`` Holm's over the pairs'
``p_bootstrap``; with ``--tests``, also ``p_ttest``, ``p_ttest_adjusted``, ``p_wilcoxon``, ``p_wilcoxon_adjusted``
(Holm's over the pairs) and ``p_tukey`` (the randomized Tukey HSD, one family). ``n_items`` counts the segments,
documents, items or topics. Standard output gets the same as a readable table (or the JSON, with ``--json -``); ``--out``
writes the pairs with every column (the gain's interval, significance, similarity), ``--sizes`` the test-set-size
curves. The parser is built without numerical imports, so that ``--help`` answers at once.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
import math
import sys
from pathlib import Path
from typing import Callable, Sequence

from ..errors import ParameterError
from ..extras import require
from ..text import shown
from .names import (DEFAULT_RESAMPLES, DEFAULT_SEED, METRICS, PAIR_TESTS, ROUGE_METRICS, ROUGE_REFERENCES, ROUGE_SPLITS,
                    ROUGE_STATS, ROUGE_TOKENIZERS, RULES, TABLE_METRICS, TEXT_METRICS, TOKENIZERS, TREC_MISSING,
                    TREC_TIES, WILCOXON_METHODS, WILCOXON_ZERO_METHODS)

__all__ = ["add_parser", "cmd_systems", "reproduce_digest", "run_comparison"]


def add_parser(sub, limit_argument: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``systems`` to the command line's subcommands."""
    p = sub.add_parser("systems", help="compare systems on a test set with a corpus metric (BLEU, chrF, TER, WER, "
                                       "ROUGE, F1, accuracy, UAS, AER, any per-item score, a TREC measure): paired "
                                       "bootstrap and approximate randomization for every pair, Holm's correction "
                                       "(Berg-Kirkpatrick et al. 2012)")
    p.add_argument("table", nargs="?", metavar="ITEMS",
                   help="a per-item table (CSV, TSV, Parquet, .xlsx, .rda): a column item and <system>.<count> columns "
                        "(tp, fp, fn for F1; correct, total for accuracy and UAS; a_s, a_p, a, s for AER; score for "
                        "--metric mean); instead of --refs and --hyps")
    p.add_argument("--refs", nargs="+", action="extend", metavar="REFS",
                   help="references, one segment per line, UTF-8 (repeat, or give several, for several references "
                        "per segment)")
    p.add_argument("--hyps", nargs="+", metavar="HYP", help="one hypotheses file per system, the baseline first")
    p.add_argument("--qrels", metavar="QRELS", help="TREC qrels (qid 0 docno rel; gzip too), with --runs")
    p.add_argument("--runs", nargs="+", metavar="RUN", help="TREC run files (qid Q0 docno rank score tag; gzip too), "
                                                            "the baseline first")
    p.add_argument("--metric", metavar="METRIC",
                   help="text: bleu (default), chrf, ter, wer, rouge1, rouge2, rougeL, rougeLsum; a table: f1, "
                        "accuracy, uas, aer, mean (default: the one whose columns it has); runs: a measure of "
                        "ir-measures such as nDCG@10 (default), AP, P@10, R@1000, RR, Rprec, Bpref")
    p.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                   help=f"bootstrap resamples and randomizations (default {DEFAULT_RESAMPLES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"seed of numpy's default_rng (default {DEFAULT_SEED}, sacrebleu's: the same resamples as "
                        "sacrebleu's --paired-bs and --paired-ar)")
    p.add_argument("--rule", choices=list(RULES), default="bk",
                   help="the bootstrap's p-value: bk (default, Berg-Kirkpatrick et al. 2012: one-sided, 2δ rule) or "
                        "sacrebleu (its --paired-bs, the Moses rule); they agree below p ≈ 0.05, differ above 0.1")
    # (its own dest: evalcore.cli.main checks a confidence_level with the binomial kernels' module, which this
    # command does not need; ResamplingSettings checks the level)
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="LEVEL", dest="level",
                   help="of the intervals; alpha = 1 - LEVEL for significance (default 0.95)")
    p.add_argument("--tokenize", choices=list(TOKENIZERS), default="13a", help="BLEU's tokenizer (default 13a)")
    p.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU and chrF, lowercased WER")
    p.add_argument("--chrf-word-order", type=int, choices=[0, 1, 2], default=0,
                   help="chrF's word n-gram order (2: chrF++; default 0)")
    p.add_argument("--ter-case-sensitive", action="store_true", help="case-sensitive TER (sacrebleu's default: not)")
    rouge = p.add_argument_group("ROUGE (rouge-score)")
    rouge.add_argument("--rouge-tokenizer", choices=list(ROUGE_TOKENIZERS), default="rouge_score",
                       help="rouge_score (default: a-z and 0-9 only) or unicode (letters and digits of any script)")
    rouge.add_argument("--stemmer", action=argparse.BooleanOptionalAction, default=None,
                       help="nltk's Porter stemmer (default: on with rouge-score's tokenizer, off with unicode)")
    rouge.add_argument("--rouge-refs", choices=list(ROUGE_REFERENCES), default="max",
                       help="several references: max (rouge-score's score_multi; default) or mean")
    rouge.add_argument("--rouge-split", choices=list(ROUGE_SPLITS), default="newline",
                       help="rougeLsum's sentences: at \\n in a line (default) or also after sentence punctuation")
    rouge.add_argument("--rouge-stat", choices=list(ROUGE_STATS), default="f",
                       help="f (default), recall or precision of each document, averaged; or corpus (ROUGE-N: "
                            "summed matches over summed reference n-grams)")
    trec = p.add_argument_group("TREC runs (ir-measures)")
    trec.add_argument("--missing", choices=list(TREC_MISSING), default="zero",
                      help="a topic of the qrels a run lacks: zero (trec_eval -c; default) or omit (left out for "
                           "every run)")
    trec.add_argument("--ties", choices=list(TREC_TIES), default="trec_eval",
                      help="equal scores: trec_eval (by document id, decreasing; default), rank (the rank column) or "
                           "random (--tie-seed)")
    trec.add_argument("--tie-seed", type=int, default=0, help="seed of random ties (default 0)")
    tests = p.add_argument_group("tests besides the bootstrap and randomization")
    tests.add_argument("--tests", nargs="+", choices=list(PAIR_TESTS), default=[], metavar="TEST",
                       help="ttest, wilcoxon (means of item scores: ROUGE, TREC, mean; Holm over the pairs), tukey "
                            "(the randomized Tukey HSD, one family)")
    tests.add_argument("--zero-method", choices=list(WILCOXON_ZERO_METHODS), default="wilcox",
                       help="scipy's wilcoxon zero_method (default wilcox)")
    tests.add_argument("--wilcoxon-method", choices=list(WILCOXON_METHODS), default="auto",
                       help="scipy's wilcoxon method (default auto)")
    tests.add_argument("--wilcoxon-correction", action="store_true", help="scipy's wilcoxon continuity correction")
    p.add_argument("--json", metavar="OUT.json", help="write the result as JSON here ('-': standard output)")
    p.add_argument("--out", metavar="PAIRS.csv", help="write every pair with every column here (CSV; Parquet or TSV "
                                                      "by the ending)")
    p.add_argument("--sizes", metavar="CSV", help="also compute the test-set-size curves (10%% to 400%% of the "
                                                  "items) and write them here")
    p.add_argument("--workers", type=int, help="processes extracting sacrebleu's statistics or scoring rouge-score "
                                               "(default: both cores for large inputs)")
    p.add_argument("--signature", nargs="?", const="-", metavar="FILE",
                   help="print the result's signature to standard error, or write it to FILE")
    limit_argument(p)
    from ..report.parsers import add_work_budget

    add_work_budget(p)  # the resampling within the work budget (evalcore.work)


def _note(message: str) -> None:
    print(f"evalcore: {message}", file=sys.stderr)


def _files(args) -> tuple[list[str], list[str]]:
    refs, hyps = list(args.refs or []), list(args.hyps or [])
    trec = getattr(args, "qrels", None) is not None or getattr(args, "runs", None)
    if trec:
        if refs or hyps or args.table is not None:
            raise ParameterError("systems: give either --qrels and --runs, or --refs and --hyps, or a per-item table")
        if not args.qrels or not args.runs:
            raise ParameterError("systems: TREC runs need --qrels QRELS and --runs A.run B.run ... (the baseline "
                                 "first)")
        return [], []
    if args.table is not None:
        if refs or hyps:
            raise ParameterError("systems: give either a per-item table or --refs and --hyps, not both")
        return [], []
    if not refs or not hyps:
        raise ParameterError("systems: give --refs REFS.txt and --hyps A.txt B.txt ... (one file per system), or a "
                             "per-item table")
    return refs, hyps


def options_of(args):
    """The scorer's options the arguments give: rouge-score's for ROUGE, the runs' for TREC, sacrebleu's else."""
    from .metrics import TextOptions
    from .rouge import RougeOptions
    from .trec import TrecOptions

    if getattr(args, "qrels", None) is not None or getattr(args, "runs", None):
        return TrecOptions(missing=args.missing, ties=args.ties, tie_seed=args.tie_seed)
    if args.metric in ROUGE_METRICS:
        return RougeOptions(tokenizer=args.rouge_tokenizer, stemmer=args.stemmer, references=args.rouge_refs,
                            split=args.rouge_split, stat=args.rouge_stat).for_metric(args.metric)
    return TextOptions(tokenize=args.tokenize, lowercase=args.lowercase, chrf_word_order=args.chrf_word_order,
                       ter_case_sensitive=args.ter_case_sensitive)


def tests_of(args):
    from .meantests import PairTests

    return PairTests(tuple(getattr(args, "tests", None) or ()), zero_method=getattr(args, "zero_method", "wilcox"),
                     method=getattr(args, "wilcoxon_method", "auto"),
                     correction=bool(getattr(args, "wilcoxon_correction", False)))


def _trec(args, limits):
    require("text", "systems on TREC runs (ir-measures)")  # before a file is read
    from .trec import read_qrels, read_run, trec_statistics

    from ..cli_steps import check_work, read
    from ..work import trec_estimate

    for f in [args.qrels, *args.runs]:  # (the cost of reading each, before it is read)
        read(f, args, kind="text")
    qrels = read_qrels(args.qrels, limits=limits)
    runs = [read_run(f, limits=limits) for f in args.runs]
    check_work(trec_estimate(sum(r.n_lines for r in runs), len(qrels.topics), len(runs)), args)
    return trec_statistics(qrels, runs, args.metric or "nDCG@10", options_of(args))


def run_comparison(args, *, with_curves: bool = False):
    """Read the inputs the arguments name and compare the systems: ``(statistics, result, curves or None,
    data files in signature order, number of reference files or None)``."""
    from ..io.limits import parse_limit_options
    from . import inputs
    from .compare import ResamplingSettings, compare_systems
    from .sizes import size_curves
    from .statistics import table_statistics, text_statistics

    from ..cli_steps import check_work, read
    from ..work import systems_estimate
    from ..work.scoring import scoring_estimate

    limits = parse_limit_options(getattr(args, "limit", []) or [])
    settings = ResamplingSettings(resamples=args.resamples, seed=args.seed, rule=args.rule,
                                  level=args.level)
    tests = tests_of(args)
    refs, hyps = _files(args)
    if getattr(args, "qrels", None) is not None:
        statistics = _trec(args, limits)
        files, n_refs = [args.qrels] + list(args.runs), None
    elif args.table is not None:
        if args.metric is not None and args.metric not in TABLE_METRICS:
            kind = "is a metric of text" if args.metric in METRICS else "is not a metric evalcore knows"
            raise ParameterError(f"--metric {str(args.metric)[:40]} {kind}; a per-item table takes "
                                 f"{', '.join(TABLE_METRICS)}")
        read(args.table, args)
        table = inputs.read_item_table(args.table, args.metric, name=args.table, limits=limits)
        from ..work import mean_estimate

        check_work(mean_estimate(table.n_items, len(table.systems)), args)
        statistics = table_statistics(table)
        files, n_refs = [args.table], None
    else:
        metric = args.metric = args.metric or "bleu"
        if metric in TABLE_METRICS:
            raise ParameterError(f"--metric {metric} takes a per-item table (ITEMS.csv), not text files")
        if metric not in TEXT_METRICS:
            raise ParameterError(f"--metric {str(metric)[:40]} is not a metric of text files; choose one of "
                                 f"{', '.join(TEXT_METRICS)} (a TREC measure takes --qrels and --runs)")
        require("text", "systems on text files (bleu, chrf, ter, wer, rouge)")  # before a file is read
        for f in refs + hyps:
            read(f, args, kind="text")
        data = inputs.check_text_input([(f, inputs.read_segments(f, limits=limits)) for f in refs],
                                       [(f, inputs.read_segments(f, limits=limits)) for f in hyps], metric)
        options = options_of(args)
        estimate = scoring_estimate(metric, data.references, data.hypotheses, options, label=METRICS[metric])
        check_work(replace(estimate, advice="use fewer or shorter segments"), args)  # before a segment is scored
        if metric in ROUGE_METRICS:
            from .rouge import rouge_statistics

            statistics = rouge_statistics(data, metric, options, workers=args.workers)
        else:
            statistics = text_statistics(data, metric, options, workers=args.workers)
        files, n_refs = refs + hyps, len(refs)
    from ..work import tukey_estimate, wilcoxon_estimate

    tests.check(statistics.metric)
    estimate = systems_estimate(statistics.n_items, statistics.n_systems, settings.resamples, curves=with_curves)
    pairs = statistics.n_systems * (statistics.n_systems - 1) // 2
    if "tukey" in tests.tests:
        extra = tukey_estimate(statistics.n_items, statistics.n_systems, len(statistics.metric.statistics),
                               settings.resamples)
        estimate = type(estimate)(estimate.what + " and " + extra.what, estimate.model + extra.model,
                                  estimate.resamples)
    if "wilcoxon" in tests.tests:
        extra = wilcoxon_estimate(statistics.n_items, pairs, tests.method)
        estimate = type(estimate)(estimate.what + " and " + extra.what, estimate.model + extra.model,
                                  estimate.resamples)
    check_work(estimate, args)
    result = compare_systems(statistics, settings, tests=tests)
    curves = size_curves(statistics, settings) if with_curves else None
    return statistics, result, curves, files, n_refs


def _clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def result_json(result) -> dict:
    """The JSON of the command-line contract (see the module's docstring)."""
    systems = [{"name": str(r.name), "score": _clean(float(r.score)), "ci_low": _clean(float(r.ci_low)),
                "ci_high": _clean(float(r.ci_high))} for r in result.systems.itertuples(index=False)]
    from .compare import TEST_COLUMNS

    extra = [c for test in result.tests.tests for c in TEST_COLUMNS[test]]
    pairs = [{"a": str(r.a), "b": str(r.b), "delta": _clean(float(r.delta)), "p_bootstrap": float(r.p_bootstrap),
              "p_randomization": float(r.p_randomization), "p_adjusted": float(r.p_adjusted),
              **{c: _clean(float(getattr(r, c))) for c in extra}}
             for r in result.pairs.itertuples(index=False)]
    return {"metric": result.metric.name, "n_items": int(result.n_items), "systems": systems, "pairs": pairs}


def _summary(result) -> str:
    from .metrics import format_gain, format_score

    from .compare import TEST_COLUMNS

    m, s = result.metric, result.settings
    level = f"{100 * s.level:g}%"
    unit = m.unit
    lines = [f"{m.label} on {result.n_items:,} {unit}, {len(result.systems)} systems (the first is the baseline); "
             f"{s.resamples:,} resamples, seed {s.seed}, rule {s.rule}, {level} intervals, Holm over "
             f"{len(result.pairs)} pairs, alpha {s.alpha:g}"]
    width = max(len(str(n)) for n in result.systems["name"]) + 2
    lines.append(f"{'system':<{width}}{m.label:>10}  {level} interval")
    for r in result.systems.itertuples(index=False):
        lines.append(f"{str(r.name):<{width}}{format_score(m, r.score):>10}  "
                     f"[{format_score(m, r.ci_low)}, {format_score(m, r.ci_high)}]")
    lines.append("")
    lines.append(f"{'A':<{width}}{'B':<{width}}{'delta':>9}  {level + ' interval':<22}{'p boot':>10}{'p AR':>10}"
                 f"{'p Holm':>10}")
    for r in result.pairs.itertuples(index=False):
        interval = f"[{format_gain(m, r.delta_low)}, {format_gain(m, r.delta_high)}]"
        lines.append(f"{str(r.a):<{width}}{str(r.b):<{width}}{format_gain(m, r.delta):>9}  {interval:<22}"
                     f"{r.p_bootstrap:>10.4g}{r.p_randomization:>10.4g}{r.p_adjusted:>10.4g}"
                     f"{'  *' if r.significant else ''}")
    extra = [c for test in result.tests.tests for c in TEST_COLUMNS[test]]
    if extra:
        lines.append("")
        lines.append(f"{'A':<{width}}{'B':<{width}}" + "".join(f"{c.removeprefix('p_'):>20}" for c in extra))
        for r in result.pairs.itertuples(index=False):
            lines.append(f"{str(r.a):<{width}}{str(r.b):<{width}}"
                         + "".join(f"{getattr(r, c):>20.4g}" for c in extra))
    return "\n".join(lines) + "\n"


def _emit_signature(text: str, target: str) -> None:
    if target == "-":
        print(f"evalcore: signature: {text}", file=sys.stderr)
    else:
        Path(target).write_text(text + "\n", encoding="utf-8")
        print(f"evalcore: signature written to {target}", file=sys.stderr)


def cmd_systems(args) -> None:
    """``evalcore systems``: see the module's docstring."""
    import pandas as pd

    from ..output import write_table
    from ..report.signature import file_sha256
    from .report import systems_signature
    from .similarity import similarity

    statistics, result, curves, files, n_refs = run_comparison(args, with_curves=bool(args.sizes))
    for note in statistics.notes:
        _note(note)
    document = result_json(result)
    if args.json == "-":
        sys.stdout.write(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    else:
        if args.json:
            Path(args.json).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        sys.stdout.write(_summary(result))
    if args.out:
        similar = similarity(statistics)
        write_table(pd.concat([result.pairs, similar[["identical", "correlation"]]], axis=1), args.out)
    if curves is not None:
        write_table(curves, args.sizes)
    _note(f"{result.settings.resamples:,} resamples with seed {result.settings.seed} (--seed); no p-value can be "
          f"below 1/{result.settings.resamples + 1:,}")
    if args.signature is not None:
        signature = systems_signature(result, [file_sha256(f) for f in files], n_references=n_refs)
        _emit_signature(str(signature), args.signature)


# ----------------------------------------------------------------------------------------------- reproduce

def _yes_no(given, key: str) -> bool:
    """A signature's yes/no setting (``no`` where it is absent); anything else is refused, never read as ``no``."""
    value = given.get(key, ("no",))[0]
    if value not in ("yes", "no"):
        raise ParameterError(f"the signature's {shown(key)} must be yes or no; got {shown(value, 40)}")
    return value == "yes"


def reproduce_digest(signature, files: Sequence[str], work_budget: float | None = None) -> str:
    """Recompute the numbers' digest of a ``systems`` signature from its files (in the signature's order), within the
    work budget (``work_budget`` seconds, default ``EVALCORE_WORK_BUDGET``)."""
    from .report import systems_digest

    given = signature.mapping
    lowercase, ter_case = _yes_no(given, "lowercase"), _yes_no(given, "ter-case-sensitive")
    correction = _yes_no(given, "wilcoxon-correction")
    stemmer = _yes_no(given, "stemmer") if "stemmer" in given else None
    try:
        metric = given["metric"][0]
        n_refs = int(given["refs"][0]) if "refs" in given else None
        args = argparse.Namespace(
            metric=metric, resamples=int(given["resamples"][0]), seed=int(given["seed"][0]), rule=given["rule"][0],
            level=float(given["level"][0]), tokenize=given.get("tokenize", ("13a",))[0],
            lowercase=lowercase,
            chrf_word_order=int(given.get("chrf-word-order", ("0",))[0]),
            ter_case_sensitive=ter_case, workers=None, limit=[],
            work_budget=work_budget,
            rouge_tokenizer=given.get("rouge-tokenizer", ("rouge_score",))[0], stemmer=stemmer,
            rouge_refs=given.get("rouge-refs", ("max",))[0], rouge_split=given.get("rouge-split", ("newline",))[0],
            rouge_stat=given.get("rouge-stat", ("f",))[0], missing=given.get("missing", ("zero",))[0],
            ties=given.get("ties", ("trec_eval",))[0], tie_seed=int(given.get("tie-seed", ("0",))[0]),
            tests=list(given.get("tests", ())), zero_method=given.get("zero-method", ("wilcox",))[0],
            wilcoxon_method=given.get("wilcoxon-method", ("auto",))[0], wilcoxon_correction=correction,
            qrels=None, runs=None)
    except (KeyError, ValueError, IndexError):
        raise ParameterError("this systems signature lacks a setting or holds one this evalcore cannot read "
                             "(metric, resamples, seed, rule, level); copy the whole signature") from None
    if "qrels" in given:
        if len(files) < 3:
            raise ParameterError(f"the signature is of TREC runs: give the qrels and then two or more runs, in its "
                                 f"order; got {len(files)} files")
        args.table, args.refs, args.hyps = None, None, None
        args.qrels, args.runs = files[0], list(files[1:])
    elif n_refs is None:
        args.table, args.refs, args.hyps = files[0], None, None
    else:
        if not 0 < n_refs < len(files):
            raise ParameterError(f"the signature names {n_refs} reference file(s) and systems after them; got "
                                 f"{len(files)} files")
        args.table, args.refs, args.hyps = None, list(files[:n_refs]), list(files[n_refs:])
    _, result, _, _, _ = run_comparison(args)
    return systems_digest(result)
