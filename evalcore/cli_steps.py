"""The steps the commands of the command line share (:mod:`evalcore.cli` and the wings' own commands,
:mod:`evalcore.pooling.cli`): the reading limits, a note on standard error, the rankings of the measures, a table
written to ``--out``, and a partly annotated sample with its sampling frame.

Light at import (argparse is not even needed): each step imports the numerical modules when it runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from . import names
from .errors import ParameterError
from .text import shown

if TYPE_CHECKING:
    import pandas as pd

    from .candidates import CandidateSet
    from .ranking import Ranking


def check_work(estimate, args) -> None:
    """Refuse work past the command line's budget before it starts: ``--work-budget``, else
    ``EVALCORE_WORK_BUDGET``, else none (:func:`evalcore.work.command_budget`; ``reproduce`` sets one on ``args``),
    in the command line's words (:data:`evalcore.work.budget.ON_THE_COMMAND_LINE`)."""
    from .work import check_work as check, command_budget
    from .work.budget import ON_THE_COMMAND_LINE

    check(estimate, command_budget(getattr(args, "work_budget", None)), where=ON_THE_COMMAND_LINE)


def read(source, args, *, kind: str | None = None) -> None:
    """Refuse reading ``source`` past the budget (:func:`evalcore.work.commands.reading_estimate`) before it is
    read."""
    from .work.commands import reading_estimate

    check_work(reading_estimate(source, kind=kind), args)


def sample_work(args, n_candidates: int, measures: int, sizes: int, interval: str) -> None:
    """Refuse the estimates from an annotated sample past the budget before they are computed."""
    from .work.commands import sample_estimate

    check_work(sample_estimate(n_candidates, measures, sizes, interval), args)


def limits(args):
    """The reading limits, the defaults with the --limit options applied."""
    from .io.limits import parse_limit_options

    return parse_limit_options(getattr(args, "limit", []))


def note(message: str) -> None:
    print(f"evalcore: {message}", file=sys.stderr)


def left_out_note(file: str, keys) -> None:
    """Name the numeric key columns not taken as scores by default (a key's name, distinct integers), if any."""
    from .io.roles import left_out_note as text, numeric_keys

    found = text(file, numeric_keys(keys), "name it with --measure")
    if found:
        note(found)


#: Tests that resample (their seed is the ranking's: the dashboard's too).
RESAMPLING_TESTS = ("bootstrap", "randomization")


def uses_seed(args) -> bool:
    """Whether a command's numbers depend on its --seed: random ties, a resampling test, or bootstrapped intervals
    of AUC and average precision (``curves --kind auc``)."""
    return (getattr(args, "ties", None) in names.SEEDED_TIES or getattr(args, "test", None) in RESAMPLING_TESTS
            or getattr(args, "kind", None) == "auc")


def data_sha256(args) -> str:
    """The SHA-256 of a command's data, as the dashboard names the same data: of a file's bytes (an upload's store
    id); of the table several files make, one sample each (:func:`evalcore.io.combine_samples`, what the Data page
    stores when they are uploaded together); of a folder of Parquet parts, of the list of its parts' names and
    SHA-256s (one per line, ``name<TAB>sha256``, in name order)."""
    import hashlib

    from .report.signature import file_sha256

    files = list(getattr(args, "files", None) or [args.file])
    if len(files) > 1:
        from .io import combine_samples

        combined, _ = combine_samples([(f, Path(f).name) for f in files], limits=limits(args))
        return hashlib.sha256(combined).hexdigest()
    path = Path(files[0])
    if path.is_dir():
        from .engines.source import PARQUET_SUFFIXES

        parts = sorted(p for p in path.iterdir() if p.name.lower().endswith(PARQUET_SUFFIXES) and p.is_file())
        listing = "".join(f"{p.name}\t{file_sha256(p)}\n" for p in parts)
        return hashlib.sha256(listing.encode("utf-8")).hexdigest()
    return file_sha256(path)


def default_seed(args) -> None:
    """Where a command's numbers depend on a seed and none is given: the data's own (:func:`evalcore.ranking.
    data_seed` of :func:`data_sha256`), the seed the dashboard uses for the same file, kept in ``args.seed`` (so the
    signature names it; the commands' notes name the seed they used)."""
    from .ranking import data_seed

    if getattr(args, "seed", 0) is not None or not uses_seed(args):
        return
    try:
        sha = data_sha256(args)
    except OSError:  # a file that cannot be read: the command's reader says so in its own words
        return
    args.seed = data_seed(sha)


def rankings_of(candidates: CandidateSet, measures: Sequence[str], args, *, ties_matter: bool = True) -> list[Ranking]:
    """Rank by each measure; ``ties_matter=False`` for results that do not depend on the tie order (ROC, AUC)."""
    from .ranking import rank, resolve_seed

    seed = resolve_seed(args.ties, args.seed)
    rankings = [rank(candidates, m, ties=args.ties, seed=seed) for m in measures]
    if args.ties in names.SEEDED_TIES and ties_matter:
        note(f"ties broken at random with seed {seed} (pass --seed {seed} to repeat)")
    for r in rankings:
        if r.n_nonfinite:
            note(f"{r.measure}: {r.n_nonfinite} candidates have a missing or infinite score; they rank last")
    return rankings


def write(table: pd.DataFrame, out: str | None) -> None:
    from .output import write_table

    write_table(table, out if out else sys.stdout)


def annotated_sample(args, frame: bool = True, *, table=None, scores=None, exported=None):
    """The partly annotated candidate set and its sampling frame (evalcore.io.load_annotated_sample).

    The seed of random ties is fixed here (and kept in ``args.seed``), so that the rankings and
    the frame's top-k lists use the same one. ``table`` is the file already read (``scores``: the
    score columns, default ``--measure``); ``exported``, the design an export of a random sample
    carries (:func:`evalcore.pooling.exported.design_of_export`): its frame is the sampling frame,
    and its labels must lie in its sample.
    """
    import dataclasses

    from .io import load_annotated_sample
    from .ranking import resolve_seed

    if args.exclude_unlabelled:
        raise ParameterError("--exclude-unlabelled leaves the rows with an empty label out, --annotated-sample "
                             "keeps them as unannotated candidates of a random sample; choose one")
    args.seed = resolve_seed(args.ties, args.seed)
    if table is None:
        read(args.file, args)
    sample = load_annotated_sample(args.file if table is None else table, label=args.label,
                                   scores=args.measure if scores is None else scores,
                                   lower_is_better=tuple(args.lower_is_better), min_annotated=1,
                                   encoding=args.encoding, sheet=args.sheet, limits=limits(args), where="cli",
                                   name=None if table is None else str(args.file))
    if frame:  # (a pooled design, --pool, describes itself: evalcore.pooling.cli)
        sample = dataclasses.replace(sample, frame=sample_frame(args, sample.candidates.measures, exported))
    note(f"{args.file}: {sample.n_annotated:,} of {sample.candidates.n_candidates:,} candidates annotated "
          f"({sample.n_annotated_tp:,} TPs); the others are unannotated (--annotated-sample)")
    if frame and exported is not None:
        from .pooling.exported import check_annotated

        check_annotated(exported.design, sample.candidates, None, exported, source=str(args.file))
        note(f"the design of {exported.describe()}: {exported.design.describe()}")
    elif frame:
        note(f"assumed: the annotated candidates are {sample.frame.describe()}")
    return sample


def sample_frame(args, measures: Sequence[str], exported=None):
    """The sampling frame --sample-frame describes (the whole set without it), or the one of the export's design
    (``exported``: --sample-frame must then name the same or be left out)."""
    from . import estimates

    if exported is not None and not exported.design.pooled:
        given = sample_frame(args, measures) if args.sample_frame else None
        own = exported.design.frame
        if given is not None and (sorted(given.measures) != sorted(own.measures) or given.k != own.k):
            raise ParameterError(f"--sample-frame {args.sample_frame!r}: {args.file} is an export whose sample was "
                                 f"drawn as {own.describe()}; leave --sample-frame out to use it")
        missing = [m for m in own.measures if m not in measures]
        if missing:
            raise ParameterError(f"{args.file} is an export whose sample was drawn as {own.describe()}: add "
                                 f"{' '.join(f'--measure {m}' for m in missing)} (its frame is ranked by them)")
        return own
    if not args.sample_frame:
        return estimates.SamplingFrame()
    listed, sep, k = args.sample_frame.rpartition(":")
    chosen = tuple(m for m in listed.split(",") if m)
    try:
        frame = estimates.SamplingFrame(measures=chosen, k=int(k), ties=args.ties, seed=args.seed)
    except ValueError:
        sep = ""
    if not sep or not chosen or any(m not in measures for m in chosen):
        raise ParameterError(f"--sample-frame {shown(args.sample_frame)}: give MEASURE[,MEASURE...]:K with measures "
                             f"among {', '.join(measures)}, e.g. {measures[0]}:1000")
    return frame


def adjust_in_frame(table: pd.DataFrame, args) -> pd.DataFrame:
    """Adjust the p-values of the n the sample covers (``in_frame``) by ``--correction``, in place (a column
    ``p_adjusted`` before ``significant``, which it then decides); the rows tested."""
    import numpy as np

    from .stats.multitest import adjust_pvalues

    inside = table["in_frame"].to_numpy()
    adjusted = np.full(len(table), np.nan)
    adjusted[inside] = adjust_pvalues(table.loc[inside, "p_value"].to_numpy(), args.correction)
    table.insert(table.columns.get_loc("significant"), "p_adjusted", adjusted)
    table["significant"] = inside & (adjusted < 1 - args.confidence_level)
    return table[inside]
