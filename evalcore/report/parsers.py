"""The command line's ``report`` and ``reproduce`` parsers and the ``--signature`` option.

Light on purpose (no numerical imports), so that ``evalcore --help`` answers at once; the
commands themselves are in :mod:`.commands`.
"""

from __future__ import annotations

from typing import Callable

from .. import names

SIGNATURE_HELP = ("print the result's signature (version, data SHA-256, settings, digest of the numbers) to "
                  "standard error, or write it to FILE")
# The commands whose table --signature signs (the report signs itself).
TABLE_COMMANDS = ("curves", "compare", "accept", "validate", "across", "uir")


def _budget(text: str) -> float:
    import argparse

    from ..work import parse_budget
    from ..errors import ParameterError

    try:
        return parse_budget(text, parameter="--work-budget")
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_work_budget(p) -> None:
    """``--work-budget SECONDS``: the estimated CPU seconds a run may start (evalcore.work), past which it is refused
    with what fits; default ``$EVALCORE_WORK_BUDGET``, else no limit (``reproduce``: 60 seconds)."""
    p.add_argument("--work-budget", type=_budget, metavar="SECONDS",
                   help="refuse work estimated to take longer, before it starts (default: EVALCORE_WORK_BUDGET if "
                        "set, else no limit; reproduce: 60 seconds); e.g. 600, 90min, 2h or unlimited")


def add_parsers(sub, data_arguments: Callable, ranking_arguments: Callable) -> None:
    """Add ``report`` and ``reproduce`` to the command line's subcommands."""
    p = sub.add_parser("report", help="a ZIP for a paper: figures (print and screen), LaTeX and Markdown tables, "
                                      "methods paragraph, references, signature, data.json")
    data_arguments(p)
    p.add_argument("--n", metavar="LIST", help="list sizes of the tables, e.g. 100,500,1000,2000 (default: both "
                                               "ends of --range and 1, 5, 10, 50, ... between them)")
    p.add_argument("--range", metavar="FIRST:LAST", help="n of the figures, every n tested for Figure 3 (default: "
                                                          "the --n list's ends, else 100:2000 cut to the data)")
    p.add_argument("--pair", nargs=2, metavar=("A", "B"), help="the measures of Figures 2 and 3 (default: the "
                                                               "first two)")
    p.add_argument("--name", action="append", default=[], metavar="M=NAME",
                   help="display name of measure M in text, tables and figures, e.g. log.like=G² (repeat)")
    p.add_argument("--test", choices=list(names.PAIR_TESTS), default="fisher", help="as for compare (default fisher)")
    p.add_argument("--correction", choices=list(names.CORRECTIONS), default="none",
                   help="over the tests of the pairwise table, and separately over Figure 3's n (default none)")
    p.add_argument("--resamples", type=int, default=1000, help="for bootstrap and randomization (default 1000)")
    p.add_argument("--step", type=int, default=1, metavar="K",
                   help="Figure 3 tests every K-th n of --range, both ends included (default 1: every n)")
    p.add_argument("--interval", choices=list(names.INTERVAL_LABELS), default="clopper_pearson")
    p.add_argument("--difference-interval", choices=list(names.DIFFERENCE_INTERVALS), default="newcombe",
                   help="interval of a difference of precision: newcombe (default, Newcombe 1998, method 10) or "
                        "agresti_caffo (Agresti & Caffo 2000)")
    p.add_argument("--power", type=float, default=names.DEFAULT_POWER,
                   help="power of the minimum detectable difference in the pairwise table (default 0.8; for "
                        "Fisher's test on D1/D2, McNemar's with --test mcnemar, at alpha = 1 - level)")
    p.add_argument("--annotated-sample", action="store_true",
                   help="the label column is empty for unannotated candidates: estimate precision from the annotated "
                        "ones, taken as a simple random sample (of the whole set, or of --sample-frame), and compare "
                        "by Fisher's test on the annotated candidates of D1 and D2 (Evert & Krenn 2005)")
    p.add_argument("--sample-frame", metavar="M1,M2:K",
                   help="with --annotated-sample: the sample was drawn from the union of the top K of these measures "
                        "(ranked with --ties/--seed); default: from the whole candidate set")
    p.add_argument("--sample-interval", choices=list(names.SAMPLE_INTERVAL_LABELS), default="hypergeometric",
                   help="with --annotated-sample: hypergeometric (default) or clopper_pearson")
    p.add_argument("--min-annotated", type=int, default=10, metavar="M",
                   help="with --annotated-sample: test an n only where D1 and D2 each hold at least M annotated "
                        "candidates (default 10)")
    p.add_argument("--sample-seed", type=int, metavar="S",
                   help="with --annotated-sample: the seed the sample was drawn with, for the methods text (it "
                        "changes no number)")
    from ..pooling import cli as pool_cli  # (argparse only)

    pool_cli.add_arguments(p)  # --pool M1,M2:K [--pool-sample M]: a pooled design (issue 22)
    p.add_argument("--sample-column", help="the column naming the samples of an experiment (default: none)")
    p.add_argument("--sample", help="report on this sample only (default: all samples pooled)")
    p.add_argument("--link-base", default="http://localhost:8501", metavar="URL",
                   help="the dashboard's address for the share link (default http://localhost:8501)")
    p.add_argument("--no-figures", action="store_true", help="leave the figures out (no browser needed)")
    p.add_argument("--engine", choices=list(names.ENGINES), default="memory",
                   help="where the rankings are counted (as for curves and compare): memory, duckdb or spark")
    ranking_arguments(p)

    p = sub.add_parser("reproduce", help="recompute the numbers of a signature from the data file(s) and say "
                                         "whether they match")
    p.add_argument("signature_text", metavar="SIGNATURE", help="the whole signature, quoted")
    p.add_argument("files", nargs="+", metavar="FILE", help="the data file(s) the signature names")
    add_work_budget(p)


