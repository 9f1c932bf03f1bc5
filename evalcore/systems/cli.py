"""The command line's ``systems`` command: compare systems on a test set, and reproduce its signature.

::

    python -m evalcore systems --refs REFS.txt --hyps A.txt B.txt [C.txt ...] --metric {bleu,chrf,ter,wer} \\
        --resamples R --seed S --json OUT.json
    python -m evalcore systems ITEMS.csv --metric f1 --resamples R --seed S --json OUT.json

System names are the file stems (text) or the column prefixes (table); the first system is the baseline. OUT.json
holds ``{"metric", "n_items", "systems": [{"name", "score", "ci_low", "ci_high"}], "pairs": [{"a", "b", "delta",
"p_bootstrap", "p_randomization", "p_adjusted"}]}``: BLEU, chrF and TER on sacrebleu's 0-100 scale, WER and the
table metrics as fractions; every pair in input order ((1, 2), (1, 3), ..., (2, 3), ...; the earlier system as
``a``, ``delta`` = score(b) − score(a)); ``p_bootstrap`` by the chosen rule, ``p_adjusted`` Holm's over the pairs'
``p_bootstrap``. Standard output gets the same as a readable table (or the JSON, with ``--json -``); ``--out``
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
from .names import DEFAULT_RESAMPLES, DEFAULT_SEED, METRICS, RULES, TABLE_METRICS, TOKENIZERS

__all__ = ["add_parser", "cmd_systems", "reproduce_digest", "run_comparison"]


def add_parser(sub, limit_argument: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``systems`` to the command line's subcommands."""
    p = sub.add_parser("systems", help="compare systems on a test set with a corpus metric (BLEU, chrF, TER, WER, F1, "
                                       "accuracy, UAS, AER): paired bootstrap and approximate randomization for every "
                                       "pair, Holm's correction (Berg-Kirkpatrick et al. 2012)")
    p.add_argument("table", nargs="?", metavar="ITEMS",
                   help="a per-item table (CSV, TSV, Parquet, .xlsx, .rda): a column item and <system>.<count> columns "
                        "(tp, fp, fn for F1; correct, total for accuracy and UAS; a_s, a_p, a, s for AER); instead of "
                        "--refs and --hyps")
    p.add_argument("--refs", nargs="+", action="extend", metavar="REFS",
                   help="references, one segment per line, UTF-8 (repeat, or give several, for several references "
                        "per segment)")
    p.add_argument("--hyps", nargs="+", metavar="HYP", help="one hypotheses file per system, the baseline first")
    p.add_argument("--metric", choices=list(METRICS),
                   help="bleu, chrf, ter, wer (text; default bleu) or f1, accuracy, uas, aer (table; default: the one "
                        "whose columns the table has)")
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
    p.add_argument("--json", metavar="OUT.json", help="write the result as JSON here ('-': standard output)")
    p.add_argument("--out", metavar="PAIRS.csv", help="write every pair with every column here (CSV; Parquet or TSV "
                                                      "by the ending)")
    p.add_argument("--sizes", metavar="CSV", help="also compute the test-set-size curves (10%% to 400%% of the "
                                                  "items) and write them here")
    p.add_argument("--workers", type=int, help="processes extracting sacrebleu's statistics (default: both cores "
                                               "for large inputs)")
    p.add_argument("--signature", nargs="?", const="-", metavar="FILE",
                   help="print the result's signature to standard error, or write it to FILE")
    limit_argument(p)
    from ..report.parsers import add_work_budget

    add_work_budget(p)  # the resampling within the work budget (evalcore.work)


def _note(message: str) -> None:
    print(f"evalcore: {message}", file=sys.stderr)


def _files(args) -> tuple[list[str], list[str]]:
    refs, hyps = list(args.refs or []), list(args.hyps or [])
    if args.table is not None:
        if refs or hyps:
            raise ParameterError("systems: give either a per-item table or --refs and --hyps, not both")
        return [], []
    if not refs or not hyps:
        raise ParameterError("systems: give --refs REFS.txt and --hyps A.txt B.txt ... (one file per system), or a "
                             "per-item table")
    return refs, hyps


def run_comparison(args, *, with_curves: bool = False):
    """Read the inputs the arguments name and compare the systems: ``(statistics, result, curves or None,
    data files in signature order, number of reference files or None)``."""
    from ..io.limits import parse_limit_options
    from . import inputs
    from .compare import ResamplingSettings, compare_systems
    from .metrics import TextOptions
    from .sizes import size_curves
    from .statistics import table_statistics, text_statistics

    from ..cli_steps import check_work, read
    from ..work import systems_estimate
    from ..work.scoring import scoring_estimate

    limits = parse_limit_options(getattr(args, "limit", []) or [])
    settings = ResamplingSettings(resamples=args.resamples, seed=args.seed, rule=args.rule,
                                  level=args.level)
    refs, hyps = _files(args)
    if args.table is not None:
        if args.metric is not None and args.metric not in TABLE_METRICS:
            kind = "is a metric of text" if args.metric in METRICS else "is not a metric evalcore knows"
            raise ParameterError(f"--metric {str(args.metric)[:40]} {kind}; a per-item table takes "
                                 f"{', '.join(TABLE_METRICS)}")
        read(args.table, args)
        table = inputs.read_item_table(args.table, args.metric, name=args.table, limits=limits)
        statistics = table_statistics(table)
        files, n_refs = [args.table], None
    else:
        metric = args.metric or "bleu"
        if metric in TABLE_METRICS:
            raise ParameterError(f"--metric {metric} takes a per-item table (ITEMS.csv), not text files")
        for f in refs + hyps:
            read(f, args, kind="text")
        data = inputs.check_text_input([(f, inputs.read_segments(f, limits=limits)) for f in refs],
                                       [(f, inputs.read_segments(f, limits=limits)) for f in hyps], metric)
        options = TextOptions(tokenize=args.tokenize, lowercase=args.lowercase, chrf_word_order=args.chrf_word_order,
                              ter_case_sensitive=args.ter_case_sensitive).for_metric(metric)
        estimate = scoring_estimate(metric, data.references, data.hypotheses, options, label=METRICS[metric])
        check_work(replace(estimate, advice="use fewer or shorter segments"), args)  # before a segment is scored
        statistics = text_statistics(data, metric, options, workers=args.workers)
        files, n_refs = refs + hyps, len(refs)
    check_work(systems_estimate(statistics.n_items, statistics.n_systems, settings.resamples, curves=with_curves),
               args)
    result = compare_systems(statistics, settings)
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
    pairs = [{"a": str(r.a), "b": str(r.b), "delta": _clean(float(r.delta)), "p_bootstrap": float(r.p_bootstrap),
              "p_randomization": float(r.p_randomization), "p_adjusted": float(r.p_adjusted)}
             for r in result.pairs.itertuples(index=False)]
    return {"metric": result.metric.name, "n_items": int(result.n_items), "systems": systems, "pairs": pairs}


def _summary(result) -> str:
    from .metrics import format_gain, format_score

    m, s = result.metric, result.settings
    level = f"{100 * s.level:g}%"
    unit = "items" if m.kind == "table" else "segments"
    lines = [f"{m.label} on {result.n_items:,} {unit}, {len(result.systems)} systems (the first is the baseline); "
             f"{s.resamples:,} resamples, seed {s.seed}, rule {s.rule}, {level} intervals, Holm over "
             f"{len(result.pairs)} pairs, alpha {s.alpha:g}"]
    width = max(len(str(n)) for n in result.systems["name"]) + 2
    lines.append(f"{'system':<{width}}{m.label:>10}  {level} interval")
    for r in result.systems.itertuples(index=False):
        lines.append(f"{str(r.name):<{width}}{format_score(m, r.score):>10}  "
                     f"[{format_score(m, r.ci_low)}, {format_score(m, r.ci_high)}]")
    lines.append("")
    lines.append(f"{'A':<{width}}{'B':<{width}}{'delta':>9}  {level + ' interval':<22}{'p boot':>9}{'p AR':>9}"
                 f"{'p Holm':>9}")
    for r in result.pairs.itertuples(index=False):
        interval = f"[{format_gain(m, r.delta_low)}, {format_gain(m, r.delta_high)}]"
        lines.append(f"{str(r.a):<{width}}{str(r.b):<{width}}{format_gain(m, r.delta):>9}  {interval:<22}"
                     f"{r.p_bootstrap:>9.4g}{r.p_randomization:>9.4g}{r.p_adjusted:>9.4g}"
                     f"{'  *' if r.significant else ''}")
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
        raise ParameterError(f"the signature's {key!r} must be yes or no; got {value[:40]!r}")
    return value == "yes"


def reproduce_digest(signature, files: Sequence[str], work_budget: float | None = None) -> str:
    """Recompute the numbers' digest of a ``systems`` signature from its files (in the signature's order), within the
    work budget (``work_budget`` seconds, default ``EVALCORE_WORK_BUDGET``)."""
    from .report import systems_digest

    given = signature.mapping
    lowercase, ter_case = _yes_no(given, "lowercase"), _yes_no(given, "ter-case-sensitive")
    try:
        metric = given["metric"][0]
        n_refs = int(given["refs"][0]) if "refs" in given else None
        args = argparse.Namespace(
            metric=metric, resamples=int(given["resamples"][0]), seed=int(given["seed"][0]), rule=given["rule"][0],
            level=float(given["level"][0]), tokenize=given.get("tokenize", ("13a",))[0],
            lowercase=lowercase,
            chrf_word_order=int(given.get("chrf-word-order", ("0",))[0]),
            ter_case_sensitive=ter_case, workers=None, limit=[],
            work_budget=work_budget)
    except (KeyError, ValueError, IndexError):
        raise ParameterError("this systems signature lacks a setting or holds one this evalcore cannot read "
                             "(metric, resamples, seed, rule, level); copy the whole signature") from None
    if n_refs is None:
        args.table, args.refs, args.hyps = files[0], None, None
    else:
        if not 0 < n_refs < len(files):
            raise ParameterError(f"the signature names {n_refs} reference file(s) and systems after them; got "
                                 f"{len(files)} files")
        args.table, args.refs, args.hyps = None, list(files[:n_refs]), list(files[n_refs:])
    _, result, _, _, _ = run_comparison(args)
    return systems_digest(result)
