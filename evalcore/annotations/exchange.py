"""The annotated set as a file and back: export to CSV, TSV or Parquet, and import of such a file, checked.

An export is the data set's own table, every column under its own name and type, with the label column filled
from the annotations (in the file's own spelling of TRUE and FALSE), and beside it the bookkeeping columns:

``evalcore:candidate``        the candidate's 0-based index in the data set
``evalcore:sample_position``  its place in the sample's annotation order (empty outside the sample)
``evalcore:design``           the sample's design as a JSON record in the first row (data set, sample name,
                              seed, frame, size, creation time and any further fields of the design, e.g. a
                              pool's): an extensible record that CSV, TSV and Parquet carry alike
``annotator:<name>``          each annotator's labels (TP, FP, unsure or empty): the annotator-by-candidate table

So export then import gives back the same sample (name, seed, frame, order: importing it where it exists adds
nothing) and the same table (columns, types, names): :func:`read_export` returns both.

CSV and TSV are for spreadsheets: every text cell (and column name) that a spreadsheet would run as a formula
(``=``, ``+``, ``-``, ``@``, tab, carriage return first) gets a leading ``'`` (:func:`evalcore.text.spreadsheet_safe`),
and so does a text cell that already starts with quotes before such a character, so the import can take exactly
one quote off each cell that starts with quotes and a formula character, and nothing else (:func:`unguard`).

Imports are hostile until checked: the file's size against what an export of this data set can be, a Parquet
file's declared rows against the data set's before a value is read, then the reading limits of
:mod:`evalcore.io`; the candidate ids, places, design and labels are checked one by one. Every refusal is one
:class:`~evalcore.annotations.store.AnnotationError` of at most :data:`MESSAGE_CHARS` characters.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import EvalcoreError, ParameterError
from ..estimates import SamplingFrame
from ..io.annotated import ANNOTATOR_PREFIX, BOOKKEEPING_PREFIX, guard, unguard
from ..io.cells import FALSE_WORDS, TRUE_WORDS
from ..io.store import format_size
from ..ranking import TIE_POLICIES
from ..text import listed, shown, spreadsheet_csv
from .combine import combine_labels
from .store import (LABELS, MAX_ANNOTATOR, AnnotationError, AnnotationStore, ImportCounts, SampleInfo,
                    check_annotator, check_sample_name)

EXPORT_FORMATS = ("csv", "tsv", "parquet")
CANDIDATE_COLUMN = "evalcore:candidate"
POSITION_COLUMN = "evalcore:sample_position"
DESIGN_COLUMN = "evalcore:design"
LEGACY_COLUMNS = ("candidate", "row", "sample_position")  # exports of evalcore up to 04183db
PARQUET_METADATA_KEY = b"evalcore.annotations"  # where those kept the design in Parquet
MESSAGE_CHARS = 300
BYTES_PER_CELL = 64  # room an export may take per candidate and column beyond the data set's own bytes


def _limited(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def refuse(text: str) -> AnnotationError:
    """An import refused with one message of at most :data:`MESSAGE_CHARS` characters."""
    return AnnotationError(_limited(text))


def is_bookkeeping(column: object, legacy: bool = False) -> bool:
    """A column an export adds to the data set's own (``legacy``: also the old exports' names)."""
    name = str(column)
    return name.startswith((BOOKKEEPING_PREFIX, ANNOTATOR_PREFIX)) or (legacy and name in LEGACY_COLUMNS)


def is_export(columns) -> bool:
    """Whether a table's columns are those of an export (this version's, or an older one's)."""
    names = [str(c) for c in columns]
    return CANDIDATE_COLUMN in names or (any(n.startswith(ANNOTATOR_PREFIX) for n in names)
                                          and "candidate" in names and "sample_position" in names)


# ------------------------------------------------------------------------------------------ export
def _data_of(candidates: CandidateSet) -> pd.DataFrame:
    """A data table from the candidate set alone (keys and scores), for callers without the file's table."""
    out = pd.DataFrame(index=range(candidates.n_candidates))
    if candidates.keys is not None:
        out = pd.concat([out, candidates.keys.reset_index(drop=True)], axis=1)
    for name, values in candidates.scores.items():
        out[name] = values
    return out


def _spelling(column: pd.Series) -> tuple[str, str]:
    """How the file spells TRUE and FALSE in its label column (TRUE and FALSE when it has neither)."""
    yes = no = None
    for value in column.dropna().astype(str).unique()[:1000]:
        word = value.strip().lower()
        yes = yes or (value.strip() if word in TRUE_WORDS else None)
        no = no or (value.strip() if word in FALSE_WORDS else None)
    return yes or "TRUE", no or "FALSE"


def _with_labels(column: pd.Series | None, at: np.ndarray, is_tp: np.ndarray, n: int) -> pd.Series:
    """The label column with the annotations written in, in the column's own type and spelling."""
    if column is None:
        column = pd.Series([pd.NA] * n, dtype=object)
    column = column.reset_index(drop=True)
    if not at.size:
        return column
    kind = column.dtype
    if pd.api.types.is_bool_dtype(kind):
        out = column.astype("boolean")
        out.iloc[at] = is_tp
        return out.astype(bool) if kind == bool and not out.isna().any() else out
    if pd.api.types.is_numeric_dtype(kind) and column.notna().any():
        out = column.copy()
        out.iloc[at] = is_tp.astype(np.int64)
        return out
    yes, no = _spelling(column)
    out = column.astype(object)
    out.iloc[at] = np.where(is_tp, yes, no)
    return out.astype(kind) if pd.api.types.is_string_dtype(kind) and kind != object else out


def export_table(candidates: CandidateSet, table: pd.DataFrame, sample: SampleInfo | None = None, *,
                 data: pd.DataFrame | None = None, rule: str = "majority", annotator: str | None = None,
                 label_column: str | None = None) -> pd.DataFrame:
    """The annotated set as one table: the data set's table with its labels, and the bookkeeping columns.

    Parameters
    ----------
    candidates : CandidateSet
        The data set's candidates (one per row of ``data``, in its order).
    table : DataFrame
        The annotator-by-candidate table (:meth:`AnnotationStore.table`).
    sample : SampleInfo, optional
        The sample: its order and design go into the export.
    data : DataFrame, optional
        The data set's table as read (:func:`evalcore.io.read_table`): every column is exported under its name
        and type. Without it, the candidate set's keys and scores.
    rule, annotator
        How several annotators' labels combine into the label column (:func:`combine_labels`).
    label_column : str, optional
        The data set's label column (default: the candidate set's, else a new column ``label``): the combined
        TP/FP labels are written into it where there are any; its other cells stay as they were.

    Returns
    -------
    DataFrame
        ``data``'s columns, then ``evalcore:candidate``, ``evalcore:sample_position``, ``evalcore:design`` and
        one ``annotator:<name>`` column per annotator (see the module's docstring).
    """
    n = candidates.n_candidates
    if data is None:
        data = _data_of(candidates)
    elif len(data) != n:
        raise ParameterError(f"`data` has {len(data):,} rows, the candidate set {n:,}; pass the table it was read "
                             "from")
    elif is_export(data.columns):  # a data set that is itself an export: its own table, as the file held it
        data = unguard(data.drop(columns=[c for c in data.columns if is_bookkeeping(c, legacy=True)]))
    out = data.reset_index(drop=True).copy()
    clash = [c for c in out.columns if is_bookkeeping(c)]
    if clash:
        raise ParameterError(f"the data set's column {shown(clash[0])} has a name an export uses for its own "
                             "columns; rename it to export")
    label_column = label_column or candidates.label_column or next(
        name for name in ("label", "evalcore:label") if name not in out.columns)
    combined = combine_labels(table, rule, annotator) if len(table.columns) else pd.Series(dtype=object)
    usable = combined[combined.isin(["TP", "FP"])]
    out[label_column] = _with_labels(out[label_column] if label_column in out.columns else None,
                                     usable.index.to_numpy(np.int64), (usable == "TP").to_numpy(), n)
    out[CANDIDATE_COLUMN] = np.arange(n, dtype=np.int64)
    position = pd.Series(pd.NA, index=range(n), dtype="Int64")
    design = pd.Series(pd.NA, index=range(n), dtype=object)
    if sample is not None:
        position.iloc[sample.candidates] = np.arange(sample.size)
        design.iloc[0] = json.dumps(sample.record(), sort_keys=True, ensure_ascii=False)
    out[POSITION_COLUMN] = position
    out[DESIGN_COLUMN] = design
    for name in table.columns:
        column = pd.Series(pd.NA, index=range(n), dtype=object)
        column.iloc[table.index.to_numpy(np.int64)] = table[name].to_numpy(dtype=object)
        out[f"{ANNOTATOR_PREFIX}{name}"] = column.where(column.notna(), pd.NA)
    return out


def write_export(frame: pd.DataFrame, fmt: str, sample: SampleInfo | None = None) -> bytes:
    """The export table as CSV, TSV (guarded for spreadsheets, see :func:`guard`) or Parquet bytes.

    ``sample`` is not needed (the design travels in the table's ``evalcore:design`` column); it is accepted for
    callers of earlier versions.
    """
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"`fmt` must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    if fmt in ("csv", "tsv"):
        return spreadsheet_csv(guard(frame), sep="," if fmt == "csv" else "\t", na_rep="").encode("utf-8")
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buffer)
    return buffer.getvalue()


# ------------------------------------------------------------------------------------------ import
@dataclass(frozen=True)
class ImportedAnnotations:
    """What :func:`read_export` found.

    ``table`` is the data set's own table as the file holds it (bookkeeping columns removed, the guard's quotes
    undone, rows in candidate order); ``annotations`` the labels, long (``candidate, annotator, label``);
    ``sample_candidates`` the sample's order; ``seed``, ``frame``, ``name``, ``dataset``, ``created`` and
    ``design`` (its further fields) from the design record (None, the whole set and {} without one).
    """

    annotations: pd.DataFrame
    sample_candidates: np.ndarray
    seed: int | None
    frame: SamplingFrame
    name: str | None
    table: pd.DataFrame | None = None
    dataset: str | None = None
    design: dict = field(default_factory=dict)
    created: str | None = None


def _check_design(record, where: str) -> dict:
    """The design record's fields, checked: a refusal names what is wrong."""
    if not isinstance(record, dict):
        raise refuse(f"{where} is not a record of the sample's design (it is a {type(record).__name__}); "
                     "import a file exported by evalcore")
    out = {}
    name = record.get("sample")
    if name is not None:
        try:
            out["sample"] = check_sample_name(name)
        except ParameterError as exc:
            raise refuse(f"{where}: {exc}") from None
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise refuse(f"{where}: the seed {shown(seed)} is not a whole number in 0..2^63-1")
    out["seed"] = seed
    dataset = record.get("dataset")
    if dataset is not None and not (isinstance(dataset, str) and re.fullmatch(r"[0-9a-f]{64}", dataset)):
        raise refuse(f"{where}: the data set id {shown(dataset)} is not one")
    out["dataset"] = dataset
    created = record.get("created")
    out["created"] = created if isinstance(created, str) and len(created) <= 64 else None
    frame = record.get("frame", {})
    if not isinstance(frame, dict):
        raise refuse(f"{where}: the sampling frame {shown(frame)} is not a record (measures, k, ties, seed)")
    measures, k, ties, frame_seed = (frame.get("measures", []), frame.get("k", 0), frame.get("ties", "stable"),
                                     frame.get("seed"))
    if (not isinstance(measures, list) or len(measures) > 100 or not all(isinstance(m, str) and len(m) <= 200
                                                                         for m in measures)
            or isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < 2**63 or ties not in TIE_POLICIES
            or (frame_seed is not None and (isinstance(frame_seed, bool) or not isinstance(frame_seed, int)))):
        raise refuse(f"{where}: the sampling frame {shown(json.dumps(frame))} is not one (measures: a list of "
                     f"names, k: a whole number, ties: one of {', '.join(TIE_POLICIES)})")
    try:
        out["frame"] = SamplingFrame(measures=tuple(measures), k=k, ties=ties, seed=frame_seed)
    except EvalcoreError as exc:
        raise refuse(f"{where}: {exc}") from None
    out["design"] = {key: value for key, value in record.items()
                     if key not in {"dataset", "sample", "seed", "frame", "size", "created"}}
    return out


def _check_kind(record: dict, size: int, label: str) -> None:
    """A design record that names a kind (a pooled or stratified design) is read as the design it says, with the
    sample's size: a record it cannot be (an unknown kind, a pool larger than the sample, band sizes that do not add
    up to it, widths that are not whole numbers) is refused here, before anything is stored."""
    design = record.get("design") or {}
    if "kind" not in design:
        return
    from ..pooling.design import Design

    try:
        Design.from_record(record.get("frame"), design, record.get("seed"), size)
    except EvalcoreError as exc:
        raise refuse(f"{label}: {exc}") from None


def _upper_bound(expected_rows: int | None, source_bytes: int | None) -> int | None:
    if expected_rows is None:
        return None
    return 4 * (source_bytes or 0) + BYTES_PER_CELL * 16 * expected_rows + (1 << 20)


def _read_frame(data: bytes, fmt: str, label: str, expected_rows: int | None, limit: int | None):
    """The file as a table (and a Parquet file's old-style metadata), within bounds set by the data set."""
    from ..io import Limits, read_table
    from ..io.limits import limits_from

    if limit is not None and len(data) > limit:
        raise refuse(f"{label} has {format_size(len(data))}; an export of this data set ({expected_rows:,} "
                     f"candidates) is at most about {format_size(limit)}. Import a file exported from this data set.")
    meta = None
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(pa.BufferReader(data))
            rows = parquet.metadata.num_rows
            raw = (parquet.schema_arrow.metadata or {}).get(PARQUET_METADATA_KEY)
        except Exception:  # pyarrow raises ArrowInvalid, OSError, ...: not Parquet at all
            raise refuse(f"{label} cannot be read as a Parquet file. Import a file exported here as Parquet, or "
                         "choose its CSV or TSV.") from None
        if expected_rows is not None and rows != expected_rows:
            raise refuse(f"{label} declares {rows:,} rows; an export of this data set has {expected_rows:,} "
                         "(one per candidate). Import a file exported from this data set.")
        if raw is not None:
            try:
                meta = json.loads(raw)
            except ValueError:
                raise refuse(f"{label}: its evalcore metadata is not JSON. Import a file exported by evalcore.") \
                    from None
    limits = limits_from(None)
    if limit is not None:  # (a text file's lines are not its rows: a value may hold line breaks)
        limits = limits.replace(max_bytes=min(limits.max_bytes, limit))
    if expected_rows is not None and fmt == "parquet":
        limits = limits.replace(max_rows=max(expected_rows, 1))
    try:
        frame = read_table(io.BytesIO(data), name=f"export.{fmt}", limits=limits)
    except EvalcoreError as exc:
        raise refuse(str(exc).replace("export." + fmt, label, 1)) from None
    except (ValueError, OSError, MemoryError) as exc:
        raise refuse(f"{label} cannot be read as an exported annotated set ({type(exc).__name__}).") from None
    return frame, meta


def _whole_numbers(column: pd.Series, what: str, label: str, *, low: int, high: int | None) -> np.ndarray:
    """A column of whole numbers within low..high (None in the column stays None as NaN: the caller decides)."""
    text = column.astype(object).where(column.notna(), None)
    numbers = pd.to_numeric(text.replace("", None), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    given = ~np.isnan(numbers) | text.isna().to_numpy()
    bad = np.flatnonzero(~given | (~np.isnan(numbers) & ((numbers != np.floor(numbers)) | (numbers < low)
                                                          | (numbers > (high if high is not None else 2**62)))))
    if bad.size:
        value = text.iloc[bad[0]]
        top = f"..{high:,}" if high is not None else " or more"
        raise refuse(f"{label}: column {what!r} holds {shown(value, 40)} in data row {bad[0] + 1}, not a whole number "
                     f"in {low}{top}. Import a file exported by evalcore, unchanged.")
    return numbers


def _design_cell(frame: pd.DataFrame, label: str) -> dict:
    """The checked design record of the column ``evalcore:design`` ({} where it is empty)."""
    cells = [c for c in frame[DESIGN_COLUMN].astype(object) if isinstance(c, str) and c.strip()]
    if len(set(cells)) > 1:
        raise refuse(f"{label}: column {DESIGN_COLUMN!r} holds {len(set(cells))} different designs; it should "
                     "hold one, in the first row.")
    if not cells:
        return {}
    try:
        record = json.loads(cells[0])
    except ValueError:
        raise refuse(f"{label}: column {DESIGN_COLUMN!r} does not hold a JSON record of the design.") from None
    return _check_design(record, f"{label}: the sample design")


@dataclass(frozen=True)
class ExportedSample:
    """The sample an export's ``evalcore:`` columns describe (:func:`exported_sample`).

    ``rows`` are the sample's rows of the table (0-based positions, whatever order the rows are in now), in
    annotation order; ``seed``, ``frame``, ``name``, ``dataset``, ``created`` and ``design`` (the design's further
    fields: a pooled design's kind and pool size) are the design record's (:class:`ImportedAnnotations`).
    """

    rows: np.ndarray
    seed: int | None
    frame: SamplingFrame
    name: str | None
    dataset: str | None
    design: dict
    created: str | None


def exported_sample(frame: pd.DataFrame, label: str = "the file") -> ExportedSample | None:
    """The sample and its design record that a table read from an export carries in its ``evalcore:`` columns.

    None for a table without the columns ``evalcore:sample_position`` and ``evalcore:design`` (a plain file, or an
    export of evalcore up to 04183db, whose CSV kept no design), or whose design cell is empty. The places and the
    record are checked as :func:`read_export` checks them (one :class:`AnnotationError` saying what is wrong);
    ``frame`` is the table as :func:`evalcore.io.read_table` gives it (the design's cell is JSON: no spreadsheet
    guard touches it).
    """
    columns = [str(c) for c in frame.columns]
    if POSITION_COLUMN not in columns or DESIGN_COLUMN not in columns:
        return None
    label = shown(label, 60)[1:-1] if label != "the file" else label
    record = _design_cell(frame, label)
    if not record:
        return None
    n = len(frame)
    position = _whole_numbers(frame[POSITION_COLUMN], POSITION_COLUMN, label, low=0, high=max(n - 1, 0))
    at = np.flatnonzero(~np.isnan(position))
    order = np.argsort(position[at], kind="stable")
    if not np.array_equal(position[at][order], np.arange(at.size)):
        raise refuse(f"{label}: column {POSITION_COLUMN!r} must number the sample's candidates 0, 1, 2, ... once "
                     "each; use the file as it was exported.")
    return ExportedSample(rows=at[order].astype(np.int64), seed=record.get("seed"), frame=record.get("frame"),
                          name=record.get("sample"), dataset=record.get("dataset"), design=record.get("design", {}),
                          created=record.get("created"))


def read_export(data: bytes, fmt: str, *, expected_rows: int | None = None, source_bytes: int | None = None,
                label: str = "the file") -> ImportedAnnotations:
    """Read an export back: the data set's table, the sample (order and design) and the annotations.

    Parameters
    ----------
    data : bytes
        The file.
    fmt : {"csv", "tsv", "parquet"}
    expected_rows : int, optional
        The data set's candidates: the file must have as many rows (checked before reading where the format
        declares them), and bounds its size with ``source_bytes`` (the data set's own file size).
    label : str
        The file's name in messages.

    Raises
    ------
    AnnotationError
        One message (at most :data:`MESSAGE_CHARS` characters) saying what is wrong and what to do.
    """
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"`fmt` must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    label = shown(label, 60)[1:-1] if label != "the file" else label
    frame, meta = _read_frame(data, fmt, label, expected_rows, _upper_bound(expected_rows, source_bytes))
    if fmt != "parquet":
        frame = unguard(frame)
    columns = [str(c) for c in frame.columns]
    legacy = CANDIDATE_COLUMN not in columns
    candidate_column, position_column = (("candidate", "sample_position") if legacy else
                                         (CANDIDATE_COLUMN, POSITION_COLUMN))
    for column in (candidate_column, position_column):
        if column not in columns:
            raise refuse(f"{label} has no {CANDIDATE_COLUMN!r} or {POSITION_COLUMN!r} column: it is not an "
                         "annotated set exported by evalcore. Export one on the Annotate page.")
    n = len(frame)
    candidate = _whole_numbers(frame[candidate_column], candidate_column, label, low=0,
                               high=None if expected_rows is None else expected_rows - 1)
    if np.isnan(candidate).any() or np.unique(candidate).size != n:
        raise refuse(f"{label}: column {candidate_column!r} must hold each candidate once (0..{n - 1}); import the "
                     "file as it was exported.")
    candidate = candidate.astype(np.int64)
    position = _whole_numbers(frame[position_column], position_column, label, low=0, high=n - 1)
    in_sample = ~np.isnan(position)
    order = np.argsort(position[in_sample], kind="stable")
    positions = position[in_sample][order].astype(np.int64)
    if not np.array_equal(positions, np.arange(positions.size)):
        raise refuse(f"{label}: column {position_column!r} must number the sample's candidates 0, 1, 2, ... once "
                     "each; import the file as it was exported.")
    record = {}
    if not legacy and DESIGN_COLUMN in columns:
        record = _design_cell(frame, label)
    elif meta is not None:
        record = _check_design(meta, f"{label}: its evalcore metadata")
    rows = []
    for column in [c for c in frame.columns if str(c).startswith(ANNOTATOR_PREFIX)]:
        who = str(column)[len(ANNOTATOR_PREFIX):]
        try:
            who = check_annotator(who)
        except ParameterError:
            raise refuse(f"{label}: column {shown(column)} does not name an annotator (1 to {MAX_ANNOTATOR} "
                         "printable characters).") from None
        values = frame[column].astype(object).where(frame[column].notna(), None).to_numpy(dtype=object)
        for row, (cand, value) in enumerate(zip(candidate, values)):
            if value in (None, ""):
                continue
            if value not in LABELS or not in_sample[row]:
                what = (f"{shown(value, 20)}, not one of {', '.join(LABELS)}" if value not in LABELS
                        else "a label for a candidate outside the sample")
                raise refuse(f"{label}: column {shown(column)} holds {what} in data row {row + 1}.")
            rows.append((int(cand), who, value))
    _check_kind(record, int(in_sample.sum()), label)
    table = frame.drop(columns=[c for c in frame.columns if is_bookkeeping(c, legacy=legacy)])
    table = table.iloc[np.argsort(candidate, kind="stable")]
    table.index = pd.RangeIndex(1, n + 1, name="row")
    return ImportedAnnotations(
        annotations=pd.DataFrame(rows, columns=["candidate", "annotator", "label"]),
        sample_candidates=candidate[in_sample][order], seed=record.get("seed"),
        frame=record.get("frame", SamplingFrame()), name=record.get("sample"), table=table,
        dataset=record.get("dataset"), design=record.get("design", {}), created=record.get("created"))


# ------------------------------------------------------------------------------- checked against the data set
_MAX_SHOWN = 2  # mismatching candidates shown per column


def _cell_text(values) -> np.ndarray:
    """Cells as comparable text: missing (None, NaN, NA, empty) as "", numbers in their shortest form."""
    out = []
    for v in values:
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) or v == "":
            out.append("")
        elif isinstance(v, (float, np.floating)):
            out.append(repr(float(v)))
        else:
            out.append(str(v))
    return np.array(out, dtype=object)


def _numbers(values) -> np.ndarray:
    text = pd.Series(values, dtype=object)
    text = text.where(text.notna(), None)
    return pd.to_numeric(text.replace("", None), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _shown_cell(value) -> str:
    """A cell in a message: numbers in their shortest form (whole ones without ".0"), text quoted."""
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return "empty" if np.isnan(v) else str(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)
    return "empty" if value == "" else shown(value, 24)


def _differing(column: str, got: np.ndarray, want: np.ndarray, equal: np.ndarray) -> str | None:
    bad = np.flatnonzero(~equal)
    if not bad.size:
        return None
    cases = ", ".join(f"candidate {int(i)}: {_shown_cell(got[i])} in the file, {_shown_cell(want[i])} in the data set"
                      for i in bad[:_MAX_SHOWN])
    return (f"column {shown(column, 40)} differs at {bad.size:,} candidate(s) ({cases}"
            f"{', ...' if bad.size > _MAX_SHOWN else ''})")


def export_mismatches(found: ImportedAnnotations, candidates: CandidateSet, dataset: str | None = None) -> list[str]:
    """What in a read export does not match the data set it is imported into; empty when it matches.

    Checked: the data set id the design names (against ``dataset``); the number of candidates; and, candidate
    by candidate, every score column (numbers, exactly: exports write them in their shortest exact form) and
    every key column (as text). A column of the data set missing from the file is reported too.
    """
    problems = []
    if dataset is not None and found.dataset is not None and found.dataset != dataset:
        problems.append(f"the file was exported from another data set ({found.dataset[:12]}…, not {dataset[:12]}…)")
    table = found.table
    if table is None:
        return problems + ["the file's columns were not kept; read it with read_export"]
    n = candidates.n_candidates
    if len(table) != n:
        return problems + [f"the file has {len(table):,} candidates, the data set {n:,}"]
    names = [*candidates.scores, *(candidates.keys.columns if candidates.keys is not None else ())]
    missing = [c for c in names if c not in table.columns]
    if missing:
        problems.append(f"the file lacks the data set's column(s) {listed(missing, lambda c: shown(c, 40), limit=3)}")
    for name, values in candidates.scores.items():
        if name in table.columns:
            got = _numbers(table[name].to_numpy(dtype=object))
            problems.append(_differing(name, got, values, (got == values) | (np.isnan(got) & np.isnan(values))))
    if candidates.keys is not None:
        for name in candidates.keys.columns:
            if name in table.columns:
                got = _cell_text(table[name].to_numpy(dtype=object))
                want = _cell_text(candidates.keys[name].to_numpy(dtype=object))
                problems.append(_differing(str(name), got, want, got == want))
    return [p for p in problems if p]


def mismatch_message(problems: list[str], label: str = "the file") -> str:
    """One message (at most :data:`MESSAGE_CHARS` characters) for :func:`export_mismatches`' findings."""
    first = problems[0] if len(problems[0]) <= 130 else problems[0][:129].rsplit(" ", 1)[0] + " …)"
    more = f"; {len(problems) - 1} more difference(s)" if len(problems) > 1 else ""
    label = "The file" if label == "the file" else label
    return _limited(f"{label} does not match this data set, so nothing was imported: {first}{more}. Import it into "
                    "the data set it was exported from.")


@dataclass(frozen=True, eq=False)
class ImportedSample(SampleInfo):
    """The sample an import stored or found (a :class:`SampleInfo`), and what it did to the marks: ``marks``, the
    labels that were new, there already, or replaced (:class:`ImportCounts`)."""

    marks: ImportCounts = ImportCounts()


def import_export(store: AnnotationStore, dataset: str, data: bytes, fmt: str, *, name: str | None = None,
                  seed: int | None = None, frame: SamplingFrame | None = None,
                  candidates: CandidateSet | None = None, source_bytes: int | None = None,
                  label: str = "the file") -> ImportedSample:
    """Import an export into the database: its sample (created, or found where it already is) and every label.

    The sample's name, seed, frame and design come from the file's design record (``name``, ``seed`` and
    ``frame`` override them, e.g. for an export of an earlier version without one; a sample without any name is
    named by a digest of its draw, so importing the same file twice adds nothing). With ``candidates`` (the
    data set's candidate set), the file is first checked against it, its size against ``source_bytes`` and its
    rows against the candidates (:func:`read_export`, :func:`export_mismatches`): if anything differs, nothing
    is written and an :class:`AnnotationError` of at most :data:`MESSAGE_CHARS` characters says what. The result
    says how many labels were new and how many were there already (``marks``).
    """
    found = read_export(data, fmt, expected_rows=None if candidates is None else candidates.n_candidates,
                        source_bytes=source_bytes, label=label)
    if candidates is not None:
        problems = export_mismatches(found, candidates, dataset)
        if problems:
            raise AnnotationError(mismatch_message(problems, label))
    elif found.dataset is not None and found.dataset != dataset:
        raise refuse(f"{label} was exported from another data set; import it into the data set it came from.")
    if found.sample_candidates.size == 0:
        raise refuse(f"{label} marks no candidate as part of a sample (column {POSITION_COLUMN!r} is empty).")
    name = name or found.name or "imported-" + hashlib.sha256(found.sample_candidates.tobytes()).hexdigest()[:10]
    try:
        info = store.create_sample(dataset, name, found.sample_candidates,
                                   seed=seed if seed is not None else found.seed, frame=frame or found.frame,
                                   design=found.design)
    except AnnotationError as exc:
        raise refuse(f"{label}: {exc}") from None
    marks = store.import_table(dataset, info.name, found.annotations)
    return ImportedSample(**{f.name: getattr(info, f.name) for f in fields(SampleInfo)}, marks=marks)
