"""From a table to a validated :class:`CandidateSet`: labels, scores, the candidate set.

:func:`parse_labels` and :func:`parse_scores` turn a column into booleans or floats and
stop at the first problem with a message naming the file, the column, the rows and the
values (and what they look like: numbers with thousands separators, percentages, a 0/1
label column with other numbers). :func:`build_candidate_set` checks the roles of the
columns, :func:`load_candidates` reads a file and does both, :func:`combine_samples`
makes one table of several files, one sample each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..candidates import HIGHER, LOWER, CandidateSet
from ..errors import ColumnError, FileFormatError, LabelError, ParameterError, ScoreError
from ..text import cut, listed, shown
from .cells import (
    BAD, LABEL_STATES, LABEL_VOCABULARY, MISSING, as_strings, floats, label_cell, map_cells,
    score_cell, trim,
)
from .limits import Limits, limits_from
from .messages import (
    MAX_EXAMPLES, check_where, columns_text, examples, label_number_hint, no_label_column_advice,
    nothing_annotated_advice, plain, row_list, row_numbers, score_hints, series, unlabelled_advice,
)
from .read import Source, display_name, read_table
from .roles import ColumnRoles, suggest_roles

__all__ = ["parse_labels", "parse_scores", "build_candidate_set", "load_candidates", "combine_samples"]


def parse_labels(
    values: Any,
    *,
    column: str,
    source: str,
    exclude_unlabelled: bool = False,
    rows: Any = None,
    where: str = "page",
) -> tuple[np.ndarray, np.ndarray]:
    """Turn a label column into booleans (True = TP).

    Accepted values, any letter case, surrounding whitespace ignored: TRUE/FALSE,
    T/F, 1/0 (also as numbers such as 1.0), yes/no, y/n, TP/FP, +/-, and booleans.
    Missing values are None/NaN/NA, empty or blank strings and the string ``NA``.

    Parameters
    ----------
    values : array-like or Series
        The label cells.
    column, source : str
        Column and file name, for messages.
    exclude_unlabelled : bool
        Leave rows with a missing label out instead of raising.
    rows : array-like of int, optional
        Row numbers for messages; default the ``row`` index of a Series from
        :func:`read_table`, else 1..N.
    where : {"page", "cli"}
        Whose words the advice in a message uses: the dashboard's (also for Python) or the
        command line's options (:data:`evalcore.io.messages.WHERE`).

    Returns
    -------
    labels : ndarray of bool
        Labels of the kept rows only (length ``kept.sum()``).
    kept : ndarray of bool
        Which of the input rows are kept (all, unless unlabelled rows are excluded).

    Raises
    ------
    LabelError
        A value outside the vocabulary, or missing labels without ``exclude_unlabelled``.
    """
    cells = series(values)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)  # a label column has a few distinct values
    states = np.array([LABEL_STATES[label_cell(u)] for u in uniques] + [LABEL_STATES[MISSING]], dtype=np.int8)
    state = states[codes]
    numbers = row_numbers(values, len(state), rows)
    bad = np.flatnonzero(state == LABEL_STATES[BAD])
    if len(bad):
        bad_cells = [plain(v) for v in cells.iloc[bad[:MAX_EXAMPLES]]]
        raise LabelError(
            f"{source}: label column {shown(column)} has {len(bad)} value(s) that are not TP/FP labels: "
            f"{examples(numbers[bad], bad_cells, len(bad))}.{_numeric_label_hint(codes, uniques, states)} "
            f"Accepted labels: {LABEL_VOCABULARY}. Correct these cells, or choose another label column."
        )
    check_where(where)
    missing = state == LABEL_STATES[MISSING]
    if missing.any() and not exclude_unlabelled:
        empty = numbers[missing]
        raise LabelError(
            f"{source}: label column {shown(column)} is empty in {len(empty)} row(s): rows {row_list(empty)}. "
            f"A candidate with an empty label is not annotated: {unlabelled_advice(where)}."
        )
    kept = ~missing
    return state[kept] == LABEL_STATES[True], kept


def _numeric_label_hint(codes: np.ndarray, uniques: Any, states: np.ndarray) -> str:
    """If every value of a label column that is not a label is a number: which numbers, how often."""
    bad = np.flatnonzero(states[:-1] == LABEL_STATES[BAD])
    values = [uniques[i] for i in bad]
    if not all(score_cell(v) is not BAD and not isinstance(v, (bool, np.bool_)) for v in values):
        return ""
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))[bad]
    order = np.argsort([score_cell(v) for v in values], kind="stable")
    return label_number_hint([values[i] for i in order], counts[order])


def parse_scores(values: Any, *, column: str, source: str, rows: Any = None, copy: bool = True) -> np.ndarray:
    """Turn a score column into float64.

    Numbers, booleans (as 0/1) and number strings are accepted; missing cells,
    ``NA`` and ``NaN`` give NaN, ``Inf``/``-Inf`` (also ``Infinity``) give
    infinities, all kept as they are. Decimal commas and thousands separators
    are not guessed at: they are errors.

    Parameters
    ----------
    values : array-like or Series
        The score cells.
    column, source : str
        Column and file name, for messages.
    rows : array-like of int, optional
        Row numbers for messages (default as in :func:`parse_labels`).
    copy : bool
        With False, a float64 column is returned without a copy (a read-only view of it).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ScoreError
        Any value that is not a number.
    """
    dtype = getattr(values, "dtype", None)
    if dtype is not None and (pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)) \
            and not pd.api.types.is_complex_dtype(dtype):
        if not copy and isinstance(values, pd.Series) and values.dtype == np.float64:
            return values.to_numpy()
        return pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)
    strings = as_strings(values)
    if strings is not None:  # text: vectorised
        out, bad = floats(trim(strings))
    else:  # mixed Python objects: one by one
        parsed, _ = map_cells(values, score_cell)
        bad = np.fromiter((p is BAD for p in parsed), dtype=bool, count=len(parsed))
        out = np.where(bad, np.nan, parsed).astype(np.float64)
    bad = np.flatnonzero(bad)
    if len(bad):
        numbers = row_numbers(values, len(out), rows)
        bad_cells = [plain(v) for v in series(values).iloc[bad]]
        hint = score_hints(bad_cells)
        raise ScoreError(
            f"{source}: score column {shown(column)} has {len(bad)} non-numeric value(s): "
            f"{examples(numbers[bad], bad_cells, len(bad))}. Scores must be numbers "
            f"(empty, NA, NaN, Inf and -Inf are allowed).{hint} Correct these cells, or do not use "
            f"{shown(column)} as a score (make it a key column instead)."
        )
    return out



def _names(value: Any) -> tuple[Any, ...]:
    """A column list argument as a tuple; a single string is one name."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _require(df: pd.DataFrame, names: Iterable[Any], role: str, source: str) -> None:
    for n in names:
        if n not in df.columns:
            close = [c for c in df.columns if str(c).strip().lower() == str(n).strip().lower()]
            hint = f" Did you mean {columns_text(close)}?" if close else ""
            raise ColumnError(
                f"{source}: no column {shown(n)} (asked for as {role}).{hint} The columns are: {columns_text(df.columns)}."
            )


def _blank(values: pd.Series) -> np.ndarray:
    """Which cells are strings of whitespace only."""
    if isinstance(values.dtype, pd.StringDtype):
        return pc.fill_null(pc.equal(trim(pa.array(values)), ""), False).to_numpy(zero_copy_only=False)
    return np.array([isinstance(v, str) and not v.strip() for v in values], dtype=bool)


def build_candidate_set(
    df: pd.DataFrame,
    *,
    label: str,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    sample: str | None = None,
    lower_is_better: Sequence[str] = (),
    exclude_unlabelled: bool = False,
    source: str = "<data>",
    where: str = "page",
) -> CandidateSet:
    """Validate a table and build a :class:`CandidateSet` from it.

    Parameters
    ----------
    df : DataFrame
        The table; row numbers come from a ``row`` index (as :func:`read_table`
        makes it), else positions 1..N.
    label : str
        The TP/FP label column.
    scores : sequence of str, optional
        Score columns, in this order. Default: every column
        :func:`suggest_roles` calls a score, except ``label``, ``sample`` and ``keys``.
    keys : sequence of str, optional
        Key columns. Default: every column not used otherwise that is not a
        suggested score. Pass ``()`` for none.
    sample : str, optional
        Sample-id column; default none.
    lower_is_better : sequence of str
        Score columns for which a lower score is better.
    exclude_unlabelled : bool
        Leave out rows with an empty label (counted in
        :attr:`CandidateSet.excluded_unlabelled`) instead of raising.
    source : str
        File name for messages.
    where : {"page", "cli"}
        Whose words the advice in messages uses (see :func:`parse_labels`).

    Returns
    -------
    CandidateSet

    Raises
    ------
    ColumnError
        Unknown or duplicate columns, a column in two incompatible roles, no score
        column, a direction for a column that is not a score, empty sample ids.
    LabelError, ScoreError
        Bad label or score values (see :func:`parse_labels`, :func:`parse_scores`).
    FileFormatError
        The table has no rows.
    """
    return _build(df, None, label=label, scores=scores, keys=keys, sample=sample, lower_is_better=lower_is_better,
                  exclude_unlabelled=exclude_unlabelled, source=source, where=where)


def _build(
    df: pd.DataFrame,
    roles: ColumnRoles | None,
    *,
    label: str,
    scores: Sequence[str] | None,
    keys: Sequence[str] | None,
    sample: str | None,
    lower_is_better: Sequence[str],
    exclude_unlabelled: bool,
    source: str,
    where: str = "page",
) -> CandidateSet:
    """:func:`build_candidate_set`, with the table's suggested roles if already known."""
    if df.columns.duplicated().any():
        dups = df.columns[df.columns.duplicated()].unique()
        raise ColumnError(f"{source}: duplicate column names {columns_text(dups)}; rename them")
    if len(df) == 0:
        raise FileFormatError(f"{source}: the table has no data rows; add one row per candidate")
    _require(df, [label], "label", source)
    if sample is not None:
        _require(df, [sample], "sample", source)
        if sample == label:
            raise ColumnError(f"{source}: column {shown(label)} cannot be both the label and the sample column")
    key_names = _names(keys)
    _require(df, key_names, "key", source)
    if roles is None and (scores is None or keys is None):
        roles = suggest_roles(df)
    if scores is None:
        assert roles is not None
        score_names = tuple(c for c in roles.scores if c not in (label, sample) and c not in key_names)
        if not score_names:
            raise ColumnError(
                f"{source}: no numeric score column found besides the label; the columns are "
                f"{columns_text(df.columns)}. Name the score columns explicitly."
            )
    else:
        score_names = _names(scores)
        _require(df, score_names, "score", source)
        dup = sorted({str(c) for c in score_names if score_names.count(c) > 1})
        if dup:
            raise ColumnError(f"{source}: score column(s) {listed(dup)} given more than once")
        for c, role in ((label, "label"), (sample, "sample")):
            if c is not None and c in score_names:
                raise ColumnError(
                    f"{source}: column {shown(c)} cannot be both the {role} and a score; remove it from the scores"
                )
    if keys is None:
        assert roles is not None
        used = {label, sample, *score_names}
        key_names = tuple(c for c in df.columns if c not in used and c not in roles.scores)
    lower = _names(lower_is_better)
    unknown = [c for c in lower if c not in score_names]
    if unknown:
        raise ColumnError(
            f"{source}: lower-is-better given for {columns_text(unknown)}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not among the score columns {columns_text(score_names)}"
        )

    all_rows = row_numbers(df, len(df))
    labels, kept = parse_labels(
        df[label], column=str(label), source=source, exclude_unlabelled=exclude_unlabelled, rows=all_rows,
        where=where,
    )
    if not kept.any():
        raise LabelError(f"{source}: label column {shown(label)} is empty in every row: "
                         f"{nothing_annotated_advice(where)}.")
    rows = all_rows if kept.all() else all_rows[kept]
    table = df if kept.all() else df[kept]
    score_arrays = {str(c): parse_scores(table[c], column=str(c), source=source, rows=rows, copy=False)
                    for c in score_names}
    samples = None
    if sample is not None:
        empty = np.flatnonzero(table[sample].isna().to_numpy() | _blank(table[sample]))
        if len(empty):
            raise ColumnError(
                f"{source}: sample column {shown(sample)} is empty in {len(empty)} row(s): rows {row_list(rows[empty])}. "
                "Give every candidate a sample id, or do not use a sample column."
            )
        samples = table[sample].to_numpy()
    return CandidateSet(
        labels=labels,
        scores=score_arrays,
        directions={str(c): (LOWER if c in lower else HIGHER) for c in score_names},
        keys=table[list(key_names)].reset_index(drop=True) if key_names else None,
        samples=samples,
        source=source,
        label_column=str(label),
        rows=rows,
        excluded_unlabelled=int((~kept).sum()),
    )


def load_candidates(
    source: Source | Any,
    *,
    label: str | None = None,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    sample: str | None | bool = None,
    lower_is_better: Sequence[str] = (),
    exclude_unlabelled: bool = False,
    encoding: str | None = None,
    sheet: str | int | None = None,
    name: str | None = None,
    limits: Limits | None = None,
    where: str = "page",
) -> CandidateSet:
    """Read a file and build its :class:`CandidateSet` in one step.

    Roles not given are suggested by :func:`suggest_roles` (label, sample) or
    defaulted by :func:`build_candidate_set` (scores, keys). To do without a
    suggested sample column, pass ``sample=False``.

    Parameters
    ----------
    source, encoding, sheet, name, limits
        As for :func:`read_table`; ``source`` may also be a DataFrame that
        :func:`read_table` returned (it is then not read again).
    label, scores, keys, sample, lower_is_better, exclude_unlabelled, where
        As for :func:`build_candidate_set`. For a label column with empty cells taken as a
        random sample of annotated candidates, see :func:`evalcore.io.load_annotated_sample`.

    Returns
    -------
    CandidateSet

    Raises
    ------
    EvalcoreError
        Any subclass, with a message naming the file and what to do.
    """
    check_where(where)
    if isinstance(source, pd.DataFrame):
        df = source
    else:
        df = read_table(source, name=name, encoding=encoding, sheet=sheet, limits=limits)
    display = display_name(source, name)
    roles = suggest_roles(df)
    if label is None:
        label = roles.label
        if label is None:
            raise ColumnError(
                f"{display}: no label column found: no column holds only TP/FP values ({LABEL_VOCABULARY}). "
                f"The columns are: {columns_text(df.columns)}. {no_label_column_advice(where)}."
            )
    if sample is False:
        sample = None
    elif sample is None and roles.sample not in (label, *_names(scores), *_names(keys)):
        sample = roles.sample
    return _build(
        df,
        roles,
        label=label,
        scores=scores,
        keys=keys,
        sample=sample,
        lower_is_better=lower_is_better,
        exclude_unlabelled=exclude_unlabelled,
        source=display,
        where=where,
    )


def combine_samples(
    sources: Sequence[tuple[Source | Any, str]], *, column: str = "sample", limits: Limits | None = None
) -> tuple[bytes, str]:
    """Several files, one per sample, as one tab-separated table with a sample column.

    Parameters
    ----------
    sources : sequence of (source, name)
        Each file's content (or path) and its name; every file must have the same columns.
    column : str
        Name of the added sample column; its values are the file names without extension
        (the whole names if two share a stem).
    limits : Limits, optional
        As for :func:`read_table`, for each file and for the combined table.

    Returns
    -------
    (bytes, str)
        The combined table as UTF-8 TSV, and a name for it ("k files: a.tsv, b.tsv, ...").
        Floats are written with their shortest exact representation, so nothing is rounded.

    Raises
    ------
    EvalcoreError
        A file that cannot be read (its own message), columns that differ between files
        (naming both files and the columns), or a file that already has the sample column.
    """
    if len(sources) < 2:
        raise ParameterError("combining samples needs at least two files")
    names = [n for _, n in sources]
    stems = [Path(n).name.split(".")[0] or n for n in names]
    ids = stems if len(set(stems)) == len(stems) else names
    if len(set(ids)) != len(ids):
        raise ParameterError(f"two of the files have the same name ({listed(names)}); rename one so each "
                             "sample has its own name")
    limits = limits_from(limits)
    frames = []
    first_columns = None
    rows = 0
    for (source, name), sample_id in zip(sources, ids):
        table = read_table(source, name=name, limits=limits)
        rows += len(table)
        if rows > limits.max_rows:
            raise limits.refuse(f"{len(names)} files", "max_rows", f"together the files up to {name} have {rows:,} rows")
        columns = [str(c) for c in table.columns]
        if column in columns:
            raise ColumnError(f"{name} already has a column {shown(column)}; upload one combined file with that "
                              "column instead, or rename the column")
        if first_columns is None:
            first_columns = columns
        elif set(columns) != set(first_columns):
            missing = [c for c in first_columns if c not in columns]
            extra = [c for c in columns if c not in first_columns]
            raise ColumnError(f"{name} has other columns than {names[0]}"
                              + (f"; it lacks {columns_text(missing)}" if missing else "")
                              + (f"; it has {columns_text(extra)} in addition" if extra else "")
                              + ". Every sample file needs the same columns.")
        table = table.copy()
        table.columns = columns
        table.insert(0, column, sample_id)
        frames.append(table[[column, *first_columns]])
    combined = pd.concat(frames, ignore_index=True)
    text = combined.to_csv(sep="\t", index=False, na_rep="", lineterminator="\n")
    first = ", ".join(cut(n) for n in names[:3]) + (", ..." if len(names) > 3 else "")
    return text.encode("utf-8"), f"{len(names)} files ({first}).tsv"
