"""Who marked which candidate: the annotation database (SQLite, beside the data set store).

One row per (data set, sample, candidate, annotator) with the label (TP, FP or unsure) and the
time. Samples are seeded random draws (:func:`evalcore.estimates.draw_sample`) kept with their
seed, frame and annotation order, so a link naming the data set and the sample reopens the same
state for anyone.

Storage and durability
----------------------
The database is one SQLite file, ``annotations.sqlite3`` in the store folder
(``EVALCORE_STORE``, else ``data/store``; see :func:`evalcore.io.store.default_root`), opened with
the standard library's :mod:`sqlite3`:

* WAL journal mode: readers never block the writer and the writer never blocks readers, so
  annotators in different threads, browser sessions or processes work at once; a writer waits
  up to ``timeout`` seconds for another's short transaction instead of failing;
* every click is one ``BEGIN IMMEDIATE ... COMMIT`` transaction with ``synchronous=FULL``, so
  a click is on disk when :meth:`AnnotationStore.annotate` returns: a process killed at any
  moment loses at most the click it was writing (SQLite rolls an unfinished transaction back
  on the next open), never an earlier one, and the file stays consistent;
* a connection is opened per operation (cheap for SQLite), so a store object can be shared by
  threads and survives forks.

Tables
------
``samples(dataset, sample, seed, frame, size, created)``: ``frame`` is the JSON of a
:class:`~evalcore.estimates.SamplingFrame`; ``sample_candidates(dataset, sample, position,
candidate)``: the draw in annotation order (0-based candidate indices of the data set);
``annotations(dataset, sample, candidate, annotator, label, time)`` (primary key the first four);
``events``: every change with the label it replaced, for :meth:`AnnotationStore.undo`.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .candidates import CandidateSet
from .errors import EvalcoreError, ParameterError
from .estimates import SamplingFrame, draw_sample
from .stats.agreement import KappaResult, cohens_kappa, fleiss_kappa
from .io.store import default_root, validate_id

DB_FILE = "annotations.sqlite3"
LABELS = ("TP", "FP", "unsure")
ANNOTATOR_PREFIX = "annotator:"
EXPORT_FORMATS = ("csv", "tsv", "parquet")
PARQUET_METADATA_KEY = b"evalcore.annotations"
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_MAX_ANNOTATOR = 100

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
    dataset TEXT NOT NULL, sample TEXT NOT NULL, seed INTEGER, frame TEXT NOT NULL, size INTEGER NOT NULL,
    created TEXT NOT NULL, PRIMARY KEY (dataset, sample));
CREATE TABLE IF NOT EXISTS sample_candidates (
    dataset TEXT NOT NULL, sample TEXT NOT NULL, position INTEGER NOT NULL, candidate INTEGER NOT NULL,
    PRIMARY KEY (dataset, sample, position), UNIQUE (dataset, sample, candidate));
CREATE TABLE IF NOT EXISTS annotations (
    dataset TEXT NOT NULL, sample TEXT NOT NULL, candidate INTEGER NOT NULL, annotator TEXT NOT NULL,
    label TEXT NOT NULL CHECK (label IN ('TP', 'FP', 'unsure')), time TEXT NOT NULL,
    PRIMARY KEY (dataset, sample, candidate, annotator));
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL, sample TEXT NOT NULL, candidate INTEGER NOT NULL,
    annotator TEXT NOT NULL, label TEXT, previous_label TEXT, previous_time TEXT, time TEXT NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS events_by_annotator ON events (dataset, sample, annotator, undone, id);
"""


class AnnotationError(EvalcoreError):
    """An annotation request that cannot be carried out (unknown sample, candidate outside it, ...)."""


@dataclass(frozen=True)
class SampleInfo:
    """A stored sample: its draw (candidate indices in annotation order), seed and frame."""

    dataset: str
    name: str
    seed: int | None
    frame: SamplingFrame
    candidates: np.ndarray
    created: str

    @property
    def size(self) -> int:
        return int(self.candidates.size)


def default_path() -> Path:
    """``annotations.sqlite3`` in the store folder (``EVALCORE_STORE``, else ``data/store``)."""
    return default_root() / DB_FILE


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def check_sample_name(name: object) -> str:
    if isinstance(name, str) and _SAMPLE_NAME.fullmatch(name):
        return name
    raise ParameterError(f"sample name {name!r} is not allowed: use 1 to 64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (e.g. 'sample-1')")


def check_annotator(name: object) -> str:
    text = name.strip() if isinstance(name, str) else ""
    if not text or len(text) > _MAX_ANNOTATOR or any(ord(c) < 32 for c in text):
        raise ParameterError(f"annotator name {name!r} is not allowed: give 1 to {_MAX_ANNOTATOR} printable "
                             "characters (e.g. your initials)")
    return text


def check_label(label: object) -> str:
    if label not in LABELS:
        raise ParameterError(f"`label` must be one of {', '.join(LABELS)}; got {label!r}")
    return label


class AnnotationStore:
    """The annotation database at ``path`` (default :func:`default_path`), created on first use.

    Parameters
    ----------
    path : path-like, optional
        The SQLite file.
    timeout : float
        Seconds a writer waits for another writer's transaction before giving up.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 30.0) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.timeout = float(timeout)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)

    def __repr__(self) -> str:
        return f"AnnotationStore({str(self.path)!r})"

    # ------------------------------------------------------------------------- connections
    def _connect(self) -> "_Closing":
        con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
        con.execute("PRAGMA synchronous=FULL")
        con.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
        return _Closing(con)

    def _write(self, fn: Callable[[sqlite3.Connection], object]):
        """Run ``fn`` in one immediate transaction: all of it is on disk when this returns, or none of it."""
        with self._connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                result = fn(con)
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            return result

    # ------------------------------------------------------------------------------ samples
    def create_sample(self, dataset: str, name: str, candidates: Iterable[int], *, seed: int | None,
                      frame: SamplingFrame = SamplingFrame()) -> SampleInfo:
        """Store a drawn sample (candidate indices in annotation order).

        Storing the same sample again is a no-op; storing a longer draw whose beginning is the
        stored one extends it (a larger size with the same seed, see
        :func:`evalcore.estimates.draw_sample`). Anything else under an existing name is an error.
        """
        dataset, name = validate_id(dataset), check_sample_name(name)
        idx = np.asarray(list(candidates) if not isinstance(candidates, np.ndarray) else candidates, dtype=np.int64)
        if idx.ndim != 1 or idx.size == 0 or idx.min() < 0 or np.unique(idx).size != idx.size:
            raise ParameterError("`candidates` must be distinct, non-negative candidate indices, at least one")

        def write(con):
            row = con.execute("SELECT seed, frame, size FROM samples WHERE dataset=? AND sample=?",
                              (dataset, name)).fetchone()
            if row is not None:
                old = self._sample_candidates(con, dataset, name)
                same_design = row[0] == seed and SamplingFrame.from_dict(json.loads(row[1])) == frame
                if not same_design or idx.size < old.size or not np.array_equal(idx[:old.size], old):
                    raise AnnotationError(
                        f"a sample named {name!r} already exists for this data set with another draw (seed "
                        f"{row[0]}, {row[2]} candidates); choose another name or open that sample")
                start = old.size
                con.execute("UPDATE samples SET size=? WHERE dataset=? AND sample=?", (int(idx.size), dataset, name))
            else:
                start = 0
                con.execute("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?)",
                            (dataset, name, seed, json.dumps(frame.to_dict()), int(idx.size), _now()))
            con.executemany("INSERT INTO sample_candidates VALUES (?, ?, ?, ?)",
                            ((dataset, name, int(p), int(c)) for p, c in enumerate(idx[start:], start)))

        self._write(write)
        return self.sample(dataset, name)

    def draw(self, dataset: str, name: str, candidates: CandidateSet, size: int, seed: int,
             frame: SamplingFrame = SamplingFrame(), rankings=None) -> SampleInfo:
        """Draw a seeded simple random sample of ``size`` from the frame and store it (see :meth:`create_sample`)."""
        mask = frame.mask(candidates, rankings)
        pool = candidates.n_candidates if mask is None else mask
        return self.create_sample(dataset, name, draw_sample(pool, size, seed), seed=seed, frame=frame)

    @staticmethod
    def _sample_candidates(con, dataset: str, name: str) -> np.ndarray:
        rows = con.execute("SELECT candidate FROM sample_candidates WHERE dataset=? AND sample=? ORDER BY position",
                           (dataset, name)).fetchall()
        return np.array([r[0] for r in rows], dtype=np.int64)

    def sample(self, dataset: str, name: str) -> SampleInfo:
        """The stored sample ``name`` of ``dataset`` (an :class:`AnnotationError` naming the samples if unknown)."""
        dataset, name = validate_id(dataset), check_sample_name(name)
        with self._connect() as con:
            row = con.execute("SELECT seed, frame, created FROM samples WHERE dataset=? AND sample=?",
                              (dataset, name)).fetchone()
            if row is None:
                known = [r[0] for r in con.execute("SELECT sample FROM samples WHERE dataset=? ORDER BY created",
                                                   (dataset,))]
                raise AnnotationError(f"there is no sample {name!r} for this data set; "
                                      + (f"its samples are {', '.join(known)}" if known else "draw one first"))
            idx = self._sample_candidates(con, dataset, name)
        return SampleInfo(dataset=dataset, name=name, seed=row[0], frame=SamplingFrame.from_dict(json.loads(row[1])),
                          candidates=idx, created=row[2])

    def samples(self, dataset: str) -> pd.DataFrame:
        """The samples of a data set: ``sample, seed, size, frame, created``."""
        dataset = validate_id(dataset)
        with self._connect() as con:
            rows = con.execute("SELECT sample, seed, size, frame, created FROM samples WHERE dataset=? "
                               "ORDER BY created", (dataset,)).fetchall()
        return pd.DataFrame(rows, columns=["sample", "seed", "size", "frame", "created"])

    # -------------------------------------------------------------------------- annotating
    def _check_member(self, con, dataset: str, name: str, candidate: int) -> None:
        if con.execute("SELECT 1 FROM sample_candidates WHERE dataset=? AND sample=? AND candidate=?",
                       (dataset, name, candidate)).fetchone() is None:
            if con.execute("SELECT 1 FROM samples WHERE dataset=? AND sample=?", (dataset, name)).fetchone() is None:
                raise AnnotationError(f"there is no sample {name!r} for this data set; draw one first")
            raise AnnotationError(f"candidate {candidate} is not in sample {name!r}")

    def _change(self, dataset: str, name: str, candidate: int, annotator: str, label: str | None) -> None:
        dataset, name = validate_id(dataset), check_sample_name(name)
        annotator = check_annotator(annotator)
        if label is not None:
            check_label(label)
        candidate = int(candidate)
        now = _now()

        def write(con):
            self._check_member(con, dataset, name, candidate)
            old = con.execute("SELECT label, time FROM annotations WHERE dataset=? AND sample=? AND candidate=? "
                              "AND annotator=?", (dataset, name, candidate, annotator)).fetchone()
            old_label, old_time = old if old else (None, None)
            if old_label == label:
                return
            if label is None:
                con.execute("DELETE FROM annotations WHERE dataset=? AND sample=? AND candidate=? AND annotator=?",
                            (dataset, name, candidate, annotator))
            else:
                con.execute("INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dataset, sample, "
                            "candidate, annotator) DO UPDATE SET label=excluded.label, time=excluded.time",
                            (dataset, name, candidate, annotator, label, now))
            con.execute("INSERT INTO events (dataset, sample, candidate, annotator, label, previous_label, "
                        "previous_time, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (dataset, name, candidate, annotator, label, old_label, old_time, now))

        self._write(write)

    def annotate(self, dataset: str, sample: str, candidate: int, annotator: str, label: str) -> None:
        """Record ``annotator``'s label (TP, FP or unsure) for a candidate of the sample; on disk on return."""
        self._change(dataset, sample, candidate, annotator, label)

    def clear(self, dataset: str, sample: str, candidate: int, annotator: str) -> None:
        """Remove ``annotator``'s label of a candidate (undoable like a click)."""
        self._change(dataset, sample, candidate, annotator, None)

    def undo(self, dataset: str, sample: str, annotator: str) -> int | None:
        """Take back ``annotator``'s last change in the sample (repeatable); the candidate concerned, or None."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)

        def write(con):
            row = con.execute("SELECT id, candidate, previous_label, previous_time FROM events WHERE dataset=? AND "
                              "sample=? AND annotator=? AND undone=0 ORDER BY id DESC LIMIT 1",
                              (dataset, sample, annotator)).fetchone()
            if row is None:
                return None
            event, candidate, label, time = row
            if label is None:
                con.execute("DELETE FROM annotations WHERE dataset=? AND sample=? AND candidate=? AND annotator=?",
                            (dataset, sample, candidate, annotator))
            else:
                con.execute("INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dataset, sample, "
                            "candidate, annotator) DO UPDATE SET label=excluded.label, time=excluded.time",
                            (dataset, sample, candidate, annotator, label, time))
            con.execute("UPDATE events SET undone=1 WHERE id=?", (event,))
            return int(candidate)

        return self._write(write)

    # ------------------------------------------------------------------------------- reading
    def annotations(self, dataset: str, sample: str) -> pd.DataFrame:
        """Every annotation of the sample: ``candidate, annotator, label, time`` (sorted by time)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        with self._connect() as con:
            rows = con.execute("SELECT candidate, annotator, label, time FROM annotations WHERE dataset=? AND "
                               "sample=? ORDER BY time, candidate, annotator", (dataset, sample)).fetchall()
        table = pd.DataFrame(rows, columns=["candidate", "annotator", "label", "time"])
        table["candidate"] = table["candidate"].astype(np.int64)
        return table

    def table(self, dataset: str, sample: str) -> pd.DataFrame:
        """The annotator-by-candidate table: one row per annotated candidate (index ``candidate``), one
        column per annotator (sorted), labels TP/FP/unsure and None where that annotator has not marked it."""
        return annotator_table(self.annotations(dataset, sample))

    def progress(self, dataset: str, sample: str, annotator: str) -> tuple[int, int]:
        """(candidates of the sample ``annotator`` has marked, sample size)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        with self._connect() as con:
            done = con.execute("SELECT COUNT(*) FROM annotations WHERE dataset=? AND sample=? AND annotator=?",
                               (dataset, sample, check_annotator(annotator))).fetchone()[0]
            total = con.execute("SELECT size FROM samples WHERE dataset=? AND sample=?", (dataset, sample)).fetchone()
        if total is None:
            raise AnnotationError(f"there is no sample {sample!r} for this data set; draw one first")
        return int(done), int(total[0])

    def next_position(self, dataset: str, sample: str, annotator: str) -> int | None:
        """Position (0-based, annotation order) of the first candidate ``annotator`` has not marked; None when done."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        with self._connect() as con:
            row = con.execute(
                "SELECT MIN(s.position) FROM sample_candidates s LEFT JOIN annotations a ON a.dataset=s.dataset AND "
                "a.sample=s.sample AND a.candidate=s.candidate AND a.annotator=? WHERE s.dataset=? AND s.sample=? "
                "AND a.label IS NULL", (check_annotator(annotator), dataset, sample)).fetchone()
        return None if row[0] is None else int(row[0])

    def import_table(self, dataset: str, sample: str, table: pd.DataFrame) -> int:
        """Write annotations (``candidate, annotator, label`` and optionally ``time``) in one transaction.

        The candidates must be in the sample. Existing labels of the same annotator are replaced.
        Returns the number of rows written.
        """
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        rows = []
        for rec in table.itertuples(index=False):
            rows.append((dataset, sample, int(rec.candidate), check_annotator(rec.annotator), check_label(rec.label),
                         getattr(rec, "time", None) or _now()))

        def write(con):
            for r in rows:
                self._check_member(con, dataset, sample, r[2])
            con.executemany("INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dataset, sample, "
                            "candidate, annotator) DO UPDATE SET label=excluded.label, time=excluded.time", rows)
            return len(rows)

        return self._write(write)


class _Closing:
    """A sqlite3 connection that closes when its ``with`` block ends (sqlite3's own only commits)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con

    def __enter__(self) -> sqlite3.Connection:
        return self._con

    def __exit__(self, *exc) -> None:
        self._con.close()


# ------------------------------------------------------------------------------ combining labels
def annotator_table(annotations: pd.DataFrame) -> pd.DataFrame:
    """Long annotations (``candidate, annotator, label``) as an annotator-by-candidate table."""
    if annotations.empty:
        return pd.DataFrame(index=pd.Index([], name="candidate", dtype=np.int64))
    wide = annotations.pivot(index="candidate", columns="annotator", values="label")
    wide = wide.reindex(columns=sorted(wide.columns)).astype(object)
    wide = wide.where(wide.notna(), None)
    wide.columns.name = None
    return wide.sort_index()


def _one(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    if annotator not in table.columns:
        raise ParameterError(f"annotator {annotator!r} has no annotations here; the annotators are "
                             f"{', '.join(map(str, table.columns)) or 'none yet'}")
    return table[annotator]


def _majority(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    values = table.to_numpy(dtype=object)
    out = []
    for row in values:
        given = [v for v in row if v is not None]
        counts = {lab: given.count(lab) for lab in LABELS}
        best = max(counts, key=counts.get)
        out.append(best if counts[best] * 2 > len(given) else None)
    return pd.Series(out, index=table.index, dtype=object)


def _agreed(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    values = table.to_numpy(dtype=object)
    out = [None if len(set(v for v in row if v is not None)) != 1 else next(v for v in row if v is not None)
           for row in values]
    return pd.Series(out, index=table.index, dtype=object)


COMBINATIONS: dict[str, Callable[[pd.DataFrame, str | None], pd.Series]] = {
    "annotator": _one,
    "majority": _majority,
    "agreed": _agreed,
}

COMBINATION_LABELS = {
    "annotator": "one annotator's labels",
    "majority": "the label more than half of a candidate's annotators gave",
    "agreed": "only candidates whose annotators all gave the same label",
}


def combine_labels(table: pd.DataFrame, rule: str = "majority", annotator: str | None = None) -> pd.Series:
    """One label per candidate from the annotator-by-candidate table.

    Parameters
    ----------
    table : DataFrame
        From :meth:`AnnotationStore.table` (index candidate, one column per annotator).
    rule : {"annotator", "majority", "agreed"}
        "annotator": that annotator's labels; "majority": the label more than half of the
        candidate's annotators gave (no majority: none); "agreed": the label if every annotator
        of the candidate gave it (a candidate marked by one annotator counts as agreed).
    annotator : str, optional
        For ``rule="annotator"``.

    Returns
    -------
    Series
        Indexed by candidate: "TP", "FP", "unsure" or None (no usable label). For estimates,
        only TP and FP count as annotated (:func:`annotated_candidate_set`).
    """
    if rule not in COMBINATIONS:
        raise ParameterError(f"`rule` must be one of {', '.join(COMBINATIONS)}; got {rule!r}")
    return COMBINATIONS[rule](table, annotator)


def annotated_candidate_set(candidates: CandidateSet, table: pd.DataFrame, rule: str = "majority",
                            annotator: str | None = None) -> CandidateSet:
    """The candidate set annotated with the combined labels: TP and FP count, unsure and no label do not.

    Leaving out "unsure" candidates is a form of non-response: the estimates then assume the
    unsure candidates are like the others of their lists (say so wherever they are many).
    """
    labels = combine_labels(table, rule, annotator)
    usable = labels.isin(["TP", "FP"]).to_numpy()
    return candidates.with_annotations(labels.index.to_numpy(np.int64)[usable], (labels[usable] == "TP").to_numpy())


# ----------------------------------------------------------------------------- export and import
def export_table(candidates: CandidateSet, table: pd.DataFrame, sample: SampleInfo | None = None, *,
                 rule: str = "majority", annotator: str | None = None, label_column: str = "label") -> pd.DataFrame:
    """The annotated candidate set as one table: every candidate, its combined label, and every annotator's.

    Columns: ``candidate`` (0-based index in the data set), ``row`` (data row in the source
    file), the key columns, the score columns, ``label_column`` (TRUE/FALSE from the combined
    labels, empty where not annotated: read back, a partly annotated candidate set),
    ``sample_position`` (0-based place in the sample's annotation order, empty outside it) and
    one ``annotator:<name>`` column per annotator (TP, FP, unsure or empty): the
    annotator-by-candidate table.
    """
    n = candidates.n_candidates
    out = pd.DataFrame({"candidate": np.arange(n, dtype=np.int64), "row": candidates.rows})
    if candidates.keys is not None:
        out = pd.concat([out, candidates.keys.reset_index(drop=True)], axis=1)
    for name, values in candidates.scores.items():
        out[name] = values
    combined = combine_labels(table, rule, annotator) if len(table.columns) else pd.Series(dtype=object)
    label = pd.Series(pd.NA, index=range(n), dtype="boolean")
    usable = combined[combined.isin(["TP", "FP"])]
    label.iloc[usable.index.to_numpy(np.int64)] = (usable == "TP").to_numpy()
    out[label_column] = label
    position = pd.Series(pd.NA, index=range(n), dtype="Int64")
    if sample is not None:
        position.iloc[sample.candidates] = np.arange(sample.size)
    out["sample_position"] = position
    for name in table.columns:
        column = pd.Series(None, index=range(n), dtype=object)
        column.iloc[table.index.to_numpy(np.int64)] = table[name].to_numpy(dtype=object)
        out[f"{ANNOTATOR_PREFIX}{name}"] = column
    return out


def write_export(frame: pd.DataFrame, fmt: str, sample: SampleInfo | None = None) -> bytes:
    """The export table as CSV, TSV or Parquet bytes (Parquet keeps the sample's seed and frame)."""
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"`fmt` must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    if fmt in ("csv", "tsv"):
        text = frame.to_csv(sep="," if fmt == "csv" else "\t", index=False, na_rep="", lineterminator="\n")
        return text.encode("utf-8")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if sample is not None:
        meta = {"dataset": sample.dataset, "sample": sample.name, "seed": sample.seed, "frame": sample.frame.to_dict(),
                "created": sample.created}
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               PARQUET_METADATA_KEY: json.dumps(meta).encode()})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


@dataclass(frozen=True)
class ImportedAnnotations:
    """What :func:`read_export` found: long annotations, the sample's order, and its design if the file kept it.

    ``table`` is the file as read (CSV and TSV cells as text), for :func:`export_mismatches`;
    ``dataset`` the data set id a Parquet export names (None for CSV and TSV).
    """

    annotations: pd.DataFrame
    sample_candidates: np.ndarray
    seed: int | None
    frame: SamplingFrame
    name: str | None
    table: pd.DataFrame | None = None
    dataset: str | None = None


def read_export(data: bytes, fmt: str) -> ImportedAnnotations:
    """Read an export back: the ``annotator:<name>`` columns as long annotations, and the sample order."""
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"`fmt` must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    meta = {}
    if fmt == "parquet":
        table = pq.read_table(io.BytesIO(data))
        raw = (table.schema.metadata or {}).get(PARQUET_METADATA_KEY)
        meta = json.loads(raw) if raw else {}
        frame = table.to_pandas()
    else:
        frame = pd.read_csv(io.BytesIO(data), sep="," if fmt == "csv" else "\t", dtype=str, keep_default_na=False)
    for column in ("candidate", "sample_position"):
        if column not in frame.columns:
            raise ParameterError(f"the file has no {column!r} column; import a file exported by evalcore")
    candidate = pd.to_numeric(frame["candidate"]).to_numpy(np.int64)
    position = pd.to_numeric(frame["sample_position"].replace("", None)).astype("Float64")
    in_sample = position.notna().to_numpy()
    order = np.argsort(position[in_sample].to_numpy(float), kind="stable")
    annotator_columns = [c for c in frame.columns if str(c).startswith(ANNOTATOR_PREFIX)]
    rows = []
    for column in annotator_columns:
        values = frame[column].astype(object).where(frame[column].notna(), None).to_numpy(dtype=object)
        for cand, value in zip(candidate, values):
            if value not in (None, ""):
                rows.append((int(cand), column[len(ANNOTATOR_PREFIX):], check_label(value)))
    return ImportedAnnotations(
        annotations=pd.DataFrame(rows, columns=["candidate", "annotator", "label"]),
        sample_candidates=candidate[in_sample][order], seed=meta.get("seed"),
        frame=SamplingFrame.from_dict(meta["frame"]) if "frame" in meta else SamplingFrame(), name=meta.get("sample"),
        table=frame, dataset=meta.get("dataset"))


_MAX_SHOWN = 3  # mismatching candidates shown per column


def _cell_text(values) -> np.ndarray:
    """Cells as comparable text: missing (None, NaN, NA, empty) as "", numbers in their shortest form."""
    out = []
    for v in values:
        if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) or v == "":
            out.append("")
        elif isinstance(v, (float, np.floating)):
            out.append(repr(float(v)))
        else:
            out.append(str(v))
    return np.array(out, dtype=object)


def _numbers(values) -> np.ndarray:
    text = pd.Series(values, dtype=object).where(pd.Series(values, dtype=object).notna(), None)
    return pd.to_numeric(text.replace("", None), errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def _shown(value) -> str:
    """A cell in a message: numbers in their shortest form (whole ones without ".0"), text quoted."""
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return "empty" if np.isnan(v) else str(int(v)) if v.is_integer() and abs(v) < 2**53 else repr(v)
    return "empty" if value == "" else repr(str(value))


def _differing(column: str, got: np.ndarray, want: np.ndarray, candidate: np.ndarray, equal: np.ndarray) -> str | None:
    bad = np.flatnonzero(~equal)
    if not bad.size:
        return None
    shown = ", ".join(f"candidate {int(candidate[i])}: {_shown(got[i])} in the file, {_shown(want[i])} in the data set"
                      for i in bad[:_MAX_SHOWN])
    return f"column {column!r} differs at {bad.size:,} candidate(s) ({shown}{', ...' if bad.size > _MAX_SHOWN else ''})"


def export_mismatches(found: ImportedAnnotations, candidates: CandidateSet, dataset: str | None = None) -> list[str]:
    """What in a read export does not match the data set it is imported into; empty when it matches.

    Checked: the data set id a Parquet export names (against ``dataset``); the number of
    candidates; the ``candidate`` column (each of 0..N-1 once); and, candidate by candidate,
    the ``row`` column, every score column (numbers, exactly: exports write them in their
    shortest exact form) and every key column (as text). A column of the data set missing from
    the file is reported too.
    """
    problems = []
    if dataset is not None and found.dataset is not None and found.dataset != dataset:
        problems.append(f"the file was exported from data set {found.dataset!r}, not {dataset!r}")
    table = found.table
    if table is None:
        return problems + ["the file's columns were not kept; read it with read_export"]
    n = candidates.n_candidates
    if len(table) != n:
        return problems + [f"the file has {len(table):,} candidates, the data set {n:,}"]
    candidate = _numbers(table["candidate"].to_numpy(dtype=object))
    if np.isnan(candidate).any() or not np.array_equal(np.sort(candidate), np.arange(n)):
        return problems + [f"its 'candidate' column does not hold each of 0..{n - 1} once"]
    candidate = candidate.astype(np.int64)
    missing = [c for c in ("row", *candidates.scores, *(candidates.keys.columns if candidates.keys is not None
                                                         else ())) if c not in table.columns]
    if missing:
        problems.append(f"the file lacks the data set's column(s) {', '.join(map(repr, map(str, missing)))}")
    if "row" in table.columns:
        got = _numbers(table["row"].to_numpy(dtype=object))
        want = candidates.rows[candidate].astype(np.float64)
        problems.append(_differing("row", got, want, candidate, got == want))
    for name, values in candidates.scores.items():
        if name in table.columns:
            got, want = _numbers(table[name].to_numpy(dtype=object)), values[candidate]
            problems.append(_differing(name, got, want, candidate, (got == want) | (np.isnan(got) & np.isnan(want))))
    if candidates.keys is not None:
        for name in candidates.keys.columns:
            if name in table.columns:
                got = _cell_text(table[name].to_numpy(dtype=object))
                want = _cell_text(candidates.keys[name].to_numpy(dtype=object)[candidate])
                problems.append(_differing(str(name), got, want, candidate, got == want))
    return [p for p in problems if p]


def import_export(store: AnnotationStore, dataset: str, data: bytes, fmt: str, *, name: str | None = None,
                  seed: int | None = None, frame: SamplingFrame | None = None,
                  candidates: CandidateSet | None = None) -> SampleInfo:
    """Re-import an export into the database: the sample (created or checked) and every annotation.

    ``name``, ``seed`` and ``frame`` default to what a Parquet export kept; CSV and TSV keep the
    sample's order but not its seed or frame (give them, or the frame is taken as the whole set).

    With ``candidates`` (the data set's candidate set, as the export was made from it), the
    file is first checked against it and ``dataset`` (:func:`export_mismatches`): if anything
    differs, nothing is written and an :class:`AnnotationError` lists what does not match.
    Without it, only the candidate indices are checked against nothing: pass it.
    """
    found = read_export(data, fmt)
    if candidates is not None:
        problems = export_mismatches(found, candidates, dataset)
        if problems:
            raise AnnotationError("the file does not match this data set, so its annotations were not imported: "
                                  + "; ".join(problems) + ". Import it into the data set it was exported from.")
    name = name or found.name
    if name is None:
        raise ParameterError("give the sample a name (CSV and TSV exports do not keep it)")
    if found.sample_candidates.size == 0:
        raise ParameterError("the file marks no candidate as part of a sample (column 'sample_position' is empty)")
    info = store.create_sample(dataset, name, found.sample_candidates, seed=seed if seed is not None else found.seed,
                               frame=frame or found.frame)
    store.import_table(dataset, name, found.annotations)
    return info


# ------------------------------------------------------------------------------------ agreement
def annotator_agreement(table: pd.DataFrame, *, confidence_level: float = 0.95) -> KappaResult | None:
    """Agreement on the candidates marked by more than one annotator (TP, FP and unsure as categories).

    Two annotators: Cohen's kappa on the candidates both marked; more: Fleiss' kappa on the
    candidates at least two marked (see :mod:`evalcore.stats.agreement`). None with fewer than
    two annotators.
    """
    if table.shape[1] < 2:
        return None
    values = table.to_numpy(dtype=object)
    if table.shape[1] == 2:
        return cohens_kappa(values[:, 0], values[:, 1], confidence_level=confidence_level)
    return fleiss_kappa(values, confidence_level=confidence_level)
