"""``curves`` and ``compare`` on the DuckDB or Spark engine (``--engine``): count tables, then the statistics chunk
by chunk of n to the output (:mod:`evalcore.engines.chunked`), with a progress bar on standard error.

The numbers are those of the memory engine for the same data, ties and seed; what needs single candidates
(ROC curves, the resampling tests, a sampling frame of top-k lists) or every p-value at once (Holm, BH) says so.
"""

from __future__ import annotations

import sys

import numpy as np

from .. import names
from ..errors import ParameterError
from ..extras import require
from ..nspec import parse_n_spec
from .progress import ProgressBar

CURVE_COLUMNS = ["measure", "n", "tp", "fp", "precision", "recall", "lower", "upper"]
#: Tests of two n-best lists computed from the D1/D2 counts alone, so from count tables.
COUNT_TESTS = ("fisher", "mcnemar", "mcnemar_decisions", "mcnemar_chi2", "chi2", "chi2_yates")


def _note(message: str) -> None:
    print(f"evalcore: {message}", file=sys.stderr)


def source_of(args):
    """The command's data file as a :class:`~evalcore.engines.source.TableSource`."""
    from .source import TableSource

    if args.engine == "spark":  # before anything else is said or read
        require("spark", "the Spark engine (on Java 17)")
    for option, value in (("--encoding", args.encoding), ("--sheet", args.sheet), ("--limit", args.limit or None)):
        if value:
            raise ParameterError(f"{option} applies to the memory engine's readers; the {args.engine} engine reads "
                                 "Parquet and CSV as they are")
    annotated = bool(getattr(args, "annotated_sample", 0))
    if args.exclude_unlabelled and annotated:
        raise ParameterError("--exclude-unlabelled leaves the rows with an empty label out, --annotated-sample "
                             "keeps them as unannotated candidates of a random sample; choose one")
    # --exclude-unlabelled: one SQL filter (evalcore.engines.source.kept_sql), the rows kept keep their numbers
    source = TableSource(args.file, label=args.label, scores=tuple(args.measure or ()),
                         lower=tuple(args.lower_is_better), annotated_sample=annotated,
                         exclude_unlabelled=bool(args.exclude_unlabelled),
                         name=str(args.file))  # named as given, as the memory engine's readers name it
    if not source.scores:  # the default scores, less the keys (a key's name, distinct integers), named in a note
        from ..io.roles import left_out_note
        from . import engine

        roles = engine(args.engine).resolve_roles(source)
        found = left_out_note(source.name, roles.left_out, "name it with --measure")
        if found:
            _note(found)
        source = source.with_roles(scores=roles.measures)
    return source


def _seed(args):
    from ..ranking import resolve_seed

    if args.ties == "random":
        raise ParameterError(f"--ties random is a NumPy permutation of the whole set, which only the memory engine "
                             f"computes; with --engine {args.engine} use --ties hash (a random order every engine "
                             "computes alike from the seed and the row)")
    seed = resolve_seed(args.ties, args.seed)
    if args.ties in names.SEEDED_TIES:
        _note(f"ties broken at random (hash of seed and row) with seed {seed} (pass --seed {seed} to repeat)")
    return seed


def _shape(source) -> tuple[int, int]:
    """(rows, columns) of the source without reading its data: Parquet's metadata, or a CSV's first line and its
    size (at least 16 bytes a row)."""
    import pyarrow.parquet as pq

    if source.format == "parquet":
        rows = columns = 0
        for f in source.files:
            meta = pq.ParquetFile(f).metadata
            rows, columns = rows + meta.num_rows, meta.num_columns
        return rows, columns
    size = source.size_bytes() * (20 if source.files[0].name.lower().endswith(".gz") else 1)
    return size // 16, 8


def check_work(args, source, *, what: str, measures: int | None = None) -> None:
    """Refuse the engine's work past the command line's budget before it starts (evalcore.work.commands)."""
    from .. import cli_steps as steps
    from ..work.commands import engine_estimate

    rows, columns = _shape(source)
    measures = measures or len(args.measure or ()) or max(1, columns - 1)
    spec = getattr(args, "n", "all")
    if spec is None:  # a report's tables (its --n) and figures (its --range, 100:2000 by default)
        sizes = min(rows, 2_000)
    else:
        sizes = rows if str(spec).strip().lower() == "all" else len(parse_n_spec(spec, max(rows, 1)))
    steps.check_work(engine_estimate(args.engine, rows, measures, sizes, what=what), args)


def _sizes(args, n_candidates: int):
    return None if str(args.n).strip().lower() == "all" else parse_n_spec(args.n, n_candidates)


def _tables(args, measures=None, pairs: bool = False):
    from . import count_tables

    source = source_of(args)
    seed = _seed(args)
    check_work(args, source, what="counting and testing at every n", measures=len(measures) if measures else None)
    with ProgressBar(f"{args.engine}: ranking") as bar:
        tables = count_tables(source, measures, engine=args.engine, ties=args.ties, seed=seed, pairs=pairs,
                              progress=bar)
    _note_excluded(args, tables)
    for r in tables:
        if r.n_nonfinite:
            _note(f"{r.measure}: {r.n_nonfinite} candidates have a missing or infinite score; they rank last")
    return tables


def _note_excluded(args, tables) -> None:
    if tables.excluded_unlabelled:  # (as the memory engine's note)
        _note(f"{args.file}: left out {tables.excluded_unlabelled} rows with an empty label (--exclude-unlabelled)")


def _sample(args, measures=None):
    from . import sample_ranks

    if args.sample_frame:
        raise ParameterError(f"--sample-frame needs the top-k lists of whole rankings; with --engine {args.engine} "
                             "the sample is taken as a simple random sample of the whole set")
    source = source_of(args)
    seed = _seed(args)
    check_work(args, source, what="the ranks of the annotated sample and the estimates at every n",
               measures=len(measures) if measures else None)
    with ProgressBar(f"{args.engine}: ranks of the annotated sample") as bar:
        ranks = sample_ranks(source, measures, engine=args.engine, ties=args.ties, seed=seed, progress=bar)
    _note(f"{args.file}: {ranks.rows.size:,} of {ranks.n_candidates:,} candidates annotated "
          f"({int(ranks.labels.sum()):,} TPs), ranked among all in one pass (--engine {args.engine})")
    return ranks


def curves(args) -> None:
    """``evalcore curves --engine duckdb|spark``: every n (or --n) of every measure, chunk by chunk."""
    from .chunked import curve_chunks, size_chunks, write_chunks

    if args.kind != "precision":
        raise ParameterError(f"--kind {args.kind} needs every candidate's score; with --engine {args.engine} use "
                             "--kind precision")
    if args.annotated_sample:
        from .. import estimates

        counted = _sample(args).rank_counts()
        sizes = _sizes(args, next(iter(counted.values())).n_candidates)

        def chunks():
            for r in counted.values():
                for part in size_chunks(sizes, r.n_candidates):
                    yield estimates.precision_estimates(r, part, confidence_level=args.confidence_level,
                                                        interval=args.sample_interval)
        write_chunks(chunks(), args.out or sys.stdout)
        return
    tables = _tables(args)
    sizes = _sizes(args, tables.n_candidates)
    straddled = {}

    def counted(chunks):
        for table in chunks:
            for measure, count in table.groupby("measure", sort=False, observed=True)["tie_straddled"].sum().items():
                straddled[measure] = straddled.get(measure, 0) + int(count)
            yield table

    with ProgressBar(f"{args.engine}: curves and intervals") as bar:
        rows = write_chunks(counted(curve_chunks(tables.rankings, sizes, confidence_level=args.confidence_level,
                                                 interval=args.interval, progress=bar)),
                            args.out or sys.stdout, CURVE_COLUMNS)
    per_measure = rows // max(1, len(tables.rankings))
    for measure, count in straddled.items():
        if count:
            _note(f"{measure}: at {count} of the {per_measure} list sizes the cut-off splits a tie group "
                  f"(--ties {args.ties} decides which candidates are in)")


def compare(args) -> None:
    """``evalcore compare --engine duckdb|spark``: the test at every n (or --n), chunk by chunk."""
    from ..compare import COMPARE_COLUMNS
    from ..stats.effect import EFFECT_COLUMNS
    from .chunked import SignificantRun, comparison_chunks, write_chunks

    if args.test not in COUNT_TESTS:
        raise ParameterError(f"--test {args.test} resamples single candidates; with --engine {args.engine} use one of "
                             f"{', '.join(COUNT_TESTS)}")
    if args.correction != "none":
        raise ParameterError(f"--correction {args.correction} adjusts every p-value at once; with --engine "
                             f"{args.engine} the tests are written chunk by chunk: use --correction none")
    if args.annotated_sample:
        return _compare_sample(args)
    if args.alternative != "two-sided" and args.test != "fisher":
        raise ParameterError(f"--alternative {args.alternative} applies to --test fisher; the other tests are "
                             "two-sided")
    tables = _tables(args, args.measure, pairs=True)
    a, b = (tables[m] for m in args.measure)
    sizes = _sizes(args, tables.n_candidates)
    run = SignificantRun()
    columns = [*COMPARE_COLUMNS[:3], "overlap", *COMPARE_COLUMNS[3:-1], "p_adjusted", "significant",
               *EFFECT_COLUMNS] + (["mdd_pi", "mdd"] if args.mdd else [])

    def tested(chunks):
        from ..compare import pair_test

        for table in chunks:
            if args.test != "fisher":
                other = pair_test(a, b, table["n"].to_numpy(), args.test, confidence_level=args.confidence_level)
                table["p_value"] = other["p_value"].to_numpy()
                table["significant"] = table["p_value"] < 1 - args.confidence_level
            table["p_adjusted"] = table["p_value"]
            if args.mdd:  # the minimum detectable difference, row by row as the memory engine's
                from ..stats.power import POWER_TESTS, detectable_differences

                test = args.test if args.test in POWER_TESTS else "fisher"
                mdd = detectable_differences(table, 1 - args.confidence_level, args.power, test)
                table["mdd_pi"], table["mdd"] = mdd["mdd_pi"].to_numpy(), mdd["mdd"].to_numpy()
            yield run.add(table)

    with ProgressBar(f"{args.engine}: tests at every n") as bar:
        write_chunks(tested(comparison_chunks(a, b, sizes, confidence_level=args.confidence_level,
                                              alternative=args.alternative, effects=args.difference_interval,
                                              progress=bar)), args.out or sys.stdout, columns)
    first = "" if run.tested == 0 else (f"; at every tested n up to {run.up_to}" if run.up_to else
                                       "; not significant at the first tested n")
    _note(f"{a.measure} vs {b.measure} ({names.PAIR_TESTS[args.test]}, correction none): significant at "
          f"{run.n_significant} of {run.tested} list sizes{first}")


def _compare_sample(args) -> None:
    from .. import estimates
    from .chunked import SignificantRun, size_chunks, write_chunks

    if args.test != "fisher":
        raise ParameterError(f"--test {args.test} is not available with --annotated-sample; Fisher's test (the "
                             "default) runs on the annotated candidates of D1 and D2")
    counted = _sample(args, args.measure).rank_counts()
    a, b = (counted[m] for m in args.measure)
    sizes = _sizes(args, a.n_candidates)
    run = SignificantRun()

    def chunks():
        for part in size_chunks(sizes, a.n_candidates):
            table = estimates.compare_estimates(a, b, part, confidence_level=args.confidence_level,
                                                alternative=args.alternative)
            table.insert(table.columns.get_loc("significant"), "p_adjusted", table["p_value"])
            yield run.add(table)

    write_chunks(chunks(), args.out or sys.stdout)
    _note(f"{a.measure} vs {b.measure} on the annotated sample (Fisher's exact test on D1/D2): significant at "
          f"{run.n_significant} of {run.tested} list sizes; at every tested n up to {run.up_to}; the size of D1 "
          "and D2 among all candidates (size_d) is not counted by the one-pass sample ranks")


def report_tables(args):
    """``evalcore report --engine duckdb|spark``: the count tables the report's numbers come from (the seed fixed
    here, so that the report's settings name the one used)."""
    from ..ranking import resolve_seed
    from . import count_tables

    if args.sample_column or args.sample:
        raise ParameterError(f"--sample-column and --sample are not available with --engine {args.engine}")
    if args.ties == "random":
        _seed(args)  # says to use --ties hash
    args.seed = resolve_seed(args.ties, args.seed)
    if args.seed is None and args.test in ("bootstrap", "randomization"):
        args.seed = resolve_seed("random", None)
    source = source_of(args)
    check_work(args, source, what="the report's count tables")
    with ProgressBar(f"{args.engine}: ranking") as bar:
        tables = count_tables(source, args.measure or None, engine=args.engine, ties=args.ties, seed=args.seed,
                              pairs=True, progress=bar)
    _note_excluded(args, tables)
    return tables
