"""Who marked which candidate: the annotation database (SQLite, beside the data set store).

Samples are seeded random draws (:func:`evalcore.estimates.draw_sample`) kept with their seed, frame and design
and their annotation order; a mark is (sample, annotator, position in the sample, label, time). A link naming the
data set and the sample reopens the same sample for anyone; each annotator goes through it under their own name.

Storage and durability
----------------------
The database is one SQLite file, ``annotations.sqlite3`` in the store folder (``EVALCORE_STORE``, else
a clone's ``data/store`` or the user's data folder; see :func:`evalcore.io.store.default_root`), opened with the standard library's :mod:`sqlite3`;
its tables are in :mod:`evalcore.annotations.schema` (a database of an earlier schema is migrated when opened):

* WAL journal mode: readers never block the writer and the writer never blocks readers, so annotators in
  different threads, browser sessions or processes work at once; a writer waits up to ``timeout`` seconds for
  another's transaction instead of failing;
* every transaction is short: a click is one ``BEGIN IMMEDIATE ... COMMIT`` of a few indexed reads and writes
  (no scan of the sample: the next place to annotate is kept per annotator); a draw is stored compactly
  (4 bytes a candidate, :data:`~evalcore.annotations.schema.CHUNK` per row) one chunk per transaction, so a
  draw of a million candidates never holds the write lock for long; an import is written in pieces too;
* ``synchronous=FULL``: a click is on disk when :meth:`AnnotationStore.mark` returns: a process killed at any
  moment loses at most the click it was writing (SQLite rolls an unfinished transaction back on the next open),
  never an earlier one, and the file stays consistent;
* a connection is opened per operation (cheap for SQLite), so a store object can be shared by threads and
  survives forks.

Two windows, one name
---------------------
A mark applies only if that annotator has not marked that place yet: one conditional write
(``INSERT ... ON CONFLICT DO NOTHING``) in one transaction, and the row count says who won. The loser gets a
:class:`Mark` saying what is there ("already marked FP"), nothing is replaced; changing a mark is explicit
(``replace=True``) or an undo.

Failures
--------
A database the server cannot write (a read-only file or folder, a full disk) or open raises
:class:`AnnotationDatabaseError`, whose message says so in words and that nothing was saved: a mark counts only
once its transaction has committed. Writes that add to the store (a draw, an import) first reserve their bytes
against the store's quota when the store gives a ``reserve`` (see :class:`AnnotationStore`): one that cannot fit
is refused before anything is written; annotations are never evicted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Callable, ContextManager, Iterable

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import EvalcoreError, ParameterError
from ..estimates import SamplingFrame, draw_sample
from ..io.store import default_root, format_size, validate_id
from ..text import listed, shown
from . import schema
from .schema import CHUNK, LABELS

DB_FILE = "annotations.sqlite3"
MAX_ANNOTATOR = 100
IMPORT_PIECE = 20_000  # marks written per transaction by an import
_LOCK_POLL_MS = 2  # a writer waiting for the lock tries again this often (plus a millisecond's sleep)
_GAP_S = 0.005  # a draw or an import leaves at least this long (or its last transaction's length) between pieces
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

Reserve = Callable[..., ContextManager]
"""``reserve(nbytes, what=...)``: a context manager that holds ``nbytes`` of the store's quota while a write runs
(:meth:`evalcore.io.store.DatasetStore.reserve`), raising the store's quota error if they do not fit."""


class AnnotationError(EvalcoreError):
    """An annotation request that cannot be carried out (unknown sample, candidate outside it, ...)."""


class AnnotationDatabaseError(AnnotationError):
    """The annotation database could not be opened, read or written; nothing of the request was saved."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def default_path() -> Path:
    """``annotations.sqlite3`` in the store folder (:func:`evalcore.io.store.default_root`)."""
    return default_root() / DB_FILE


def check_sample_name(name: object) -> str:
    if isinstance(name, str) and _SAMPLE_NAME.fullmatch(name):
        return name
    raise ParameterError(f"sample name {shown(name)} is not allowed: use 1 to 64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (e.g. 'sample-1')")


def check_annotator(name: object) -> str:
    text = name.strip() if isinstance(name, str) else ""
    if not text or len(text) > MAX_ANNOTATOR or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise ParameterError(f"annotator name {shown(name)} is not allowed: give 1 to {MAX_ANNOTATOR} printable "
                             "characters (e.g. your initials)")
    return text


def check_label(label: object) -> str:
    if label not in LABELS:
        raise ParameterError(f"`label` must be one of {', '.join(LABELS)}; got {shown(label)}")
    return label


# ----------------------------------------------------------------------------------- failures in words
_FAILURES = {
    "SQLITE_READONLY": "the annotation database is read-only on this server (its file or its folder cannot be "
                       "written)",
    "SQLITE_FULL": "the disk that holds the annotation database is full",
    "SQLITE_CANTOPEN": "the annotation database cannot be opened (its folder is missing or cannot be written)",
    "SQLITE_PERM": "the server may not write the annotation database",
    "SQLITE_BUSY": "the annotation database is busy with another write that took too long",
    "SQLITE_LOCKED": "the annotation database is busy with another write that took too long",
    "SQLITE_IOERR": "the disk that holds the annotation database failed to read or write",
    "SQLITE_CORRUPT": "the annotation database is damaged",
    "SQLITE_NOTADB": "the annotation database file is not an SQLite database",
}
_ADVICE = {"SQLITE_BUSY": "try again in a moment", "SQLITE_LOCKED": "try again in a moment"}


def _failure_name(exc: BaseException) -> str:
    name = getattr(exc, "sqlite_errorname", None) or ""
    base = re.sub(r"_[A-Z]+$", "", name) if name not in _FAILURES else name
    if base in _FAILURES:
        return base
    text = str(exc).lower()
    for needle, code in (("readonly", "SQLITE_READONLY"), ("read-only", "SQLITE_READONLY"),
                         ("disk is full", "SQLITE_FULL"), ("unable to open", "SQLITE_CANTOPEN"),
                         ("locked", "SQLITE_BUSY"), ("disk i/o", "SQLITE_IOERR"), ("malformed", "SQLITE_CORRUPT"),
                         ("not a database", "SQLITE_NOTADB")):
        if needle in text:
            return code
    return name or type(exc).__name__


def _disk_full(folder: Path | None) -> bool:
    """Whether the file system of ``folder`` has (almost) no room left: an I/O error there is a full disk."""
    try:
        found = os.statvfs(folder)
    except (OSError, TypeError, AttributeError):
        return False
    return found.f_bavail * found.f_frsize < (256 << 10)


def database_error(exc: BaseException, what: str | None, folder: Path | None = None) -> AnnotationDatabaseError:
    """An SQLite (or OS) error in words: what failed, that ``what`` was not saved (None: a read), what to do.
    ``folder`` (the database's) tells a full disk from another failure to write there."""
    if isinstance(exc, OSError) and not isinstance(exc, sqlite3.Error):
        code = "SQLITE_FULL" if getattr(exc, "errno", None) == 28 else ""
        reason = _FAILURES["SQLITE_FULL"] if code else (
            f"the annotation database's folder cannot be used ({exc.strerror or type(exc).__name__})")
    else:
        code = _failure_name(exc)
        if code in ("SQLITE_IOERR", "SQLITE_CANTOPEN") and _disk_full(folder):
            code = "SQLITE_FULL"
        reason = _FAILURES.get(code, f"the annotation database failed ({code})")
    advice = _ADVICE.get(code, "ask whoever runs this server to fix it; what was saved before is kept")
    if what is None:
        return AnnotationDatabaseError(f"The annotations could not be read: {reason}; {advice}.")
    return AnnotationDatabaseError(f"{what[:1].upper()}{what[1:]} was not saved: {reason}. Nothing was changed; "
                                   f"{advice}.")


# ------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Mark:
    """What a mark did: ``applied`` (False when the place was already marked and nothing was replaced),
    ``label`` (the annotator's label there now) and ``previous`` (the label it had before, None if none)."""

    applied: bool
    label: str | None
    previous: str | None = None
    position: int | None = None

    def message(self, wanted: str) -> str | None:
        """For a mark that lost a race: one sentence for the page; None when the mark applied."""
        if self.applied:
            return None
        where = "" if self.position is None else f"Candidate {self.position + 1} of the sample "
        what = f"is already marked {self.label}" if self.label else "is no longer there to mark"
        return (f"{where or 'This candidate '}{what} (in another tab or window under your name); your {wanted} was "
                "not applied. Use Undo to change it.")


@dataclass(frozen=True, eq=False)
class SampleInfo:
    """A stored sample: its design (seed, frame, further fields) and size; its draw (candidate indices in
    annotation order) is read on first use of :attr:`candidates`."""

    dataset: str
    name: str
    seed: int | None
    frame: SamplingFrame
    size: int
    created: str
    design: dict = field(default_factory=dict)
    version: int = 0
    load: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    @cached_property
    def candidates(self) -> np.ndarray:
        if self.load is None:
            raise AnnotationError(f"sample {shown(self.name)} was described without its draw")
        return self.load()

    def record(self) -> dict:
        """The sample's design as one JSON-able record (exports carry it): data set, name, seed, frame, size,
        creation time and the design's further fields."""
        return {**self.design, "dataset": self.dataset, "sample": self.name, "seed": self.seed,
                "frame": self.frame.to_dict(), "size": self.size, "created": self.created}


@dataclass(frozen=True)
class ImportCounts:
    """What an import did to the marks (:meth:`AnnotationStore.import_table`): labels ``new`` (the annotator had not
    marked that candidate), ``unchanged`` (the same label was there already) and ``replaced`` (the annotator's
    label there was another one, and the import's took its place)."""

    new: int = 0
    unchanged: int = 0
    replaced: int = 0

    @property
    def total(self) -> int:
        return self.new + self.unchanged + self.replaced

    def describe(self) -> str:
        """In words: ``40 labels: 12 new, 28 there already`` (and how many replaced another), or ``40 labels, all
        there already: nothing changed``."""
        head = f"{self.total:,} label{'' if self.total == 1 else 's'}"
        if not self.total:
            return "no labels"
        if self.unchanged == self.total:
            return f"{head}, all there already: nothing changed"
        parts = [f"{self.new:,} new", f"{self.unchanged:,} there already"]
        if self.replaced:
            parts.append(f"{self.replaced:,} replaced the same annotator's different label")
        return f"{head}: {', '.join(parts)}"


def _as_candidates(candidates) -> np.ndarray:
    try:
        idx = np.asarray(list(candidates) if not isinstance(candidates, np.ndarray) else candidates)
        if idx.dtype.kind not in "iu":
            raise TypeError
        idx = idx.astype(np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError("`candidates` must be whole numbers: candidate indices of the data set") from None
    if idx.ndim != 1 or idx.size == 0 or idx.min() < 0 or not _distinct(idx):
        raise ParameterError("`candidates` must be distinct, non-negative candidate indices, at least one")
    return idx


def _distinct(idx: np.ndarray) -> bool:
    """Whether non-negative indices are distinct (a mask where they are small, as candidate indices are)."""
    top = int(idx.max())
    if top < 8 * idx.size + 1024:
        seen = np.zeros(top + 1, dtype=bool)
        seen[idx] = True
        return int(np.count_nonzero(seen)) == idx.size
    ordered = np.sort(idx)
    return not (ordered[1:] == ordered[:-1]).any()


def _design(design) -> dict:
    if design is None:
        return {}
    if not isinstance(design, dict):
        raise ParameterError(f"`design` must be a dict of JSON values; got {type(design).__name__}")
    try:
        text = json.dumps(design, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        raise ParameterError("`design` must hold JSON values only (text, numbers, lists, dicts)") from None
    reserved = {"dataset", "sample", "seed", "frame", "size", "created"} & set(design)
    if reserved:
        raise ParameterError(f"`design` may not set {', '.join(sorted(reserved))}: give them as arguments")
    return json.loads(text)


class _Borrowed:
    """A connection lent for a ``with`` block: the thread's open connection, kept open after it (opening one per
    operation would make each close, when no other connection is open, copy the write-ahead log into the file:
    milliseconds per click, a quarter second per chunk of a draw)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con

    def __enter__(self) -> sqlite3.Connection:
        return self._con

    def __exit__(self, *exc) -> None:
        if self._con.in_transaction:  # (never left open: the next borrower starts clean)
            self._con.execute("ROLLBACK")


class AnnotationStore:
    """The annotation database at ``path`` (default :func:`default_path`), created (or migrated) on first use.

    Parameters
    ----------
    path : path-like, optional
        The SQLite file.
    timeout : float
        Seconds a writer waits for another writer's transaction before giving up.
    reserve : callable, optional
        ``reserve(nbytes, what=...)``, a context manager holding room in the store's quota while a draw or an
        import writes (:meth:`evalcore.io.store.DatasetStore.reserve`); without it, nothing is reserved.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 30.0,
                 reserve: Reserve | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.timeout = float(timeout)
        self.reserve = reserve
        self.migrated: dict | None = None
        self._local = threading.local()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as con:
                current = schema.version(con)
            if current < schema.SCHEMA_VERSION:
                self._upgrade()
        except (sqlite3.Error, OSError) as exc:
            self._forget()
            raise database_error(exc, None, self.path.parent) from None

    def __repr__(self) -> str:
        return f"AnnotationStore({str(self.path)!r})"

    # ------------------------------------------------------------------------- connections
    def _connect(self) -> _Borrowed:
        """This thread's connection (one per store, thread and process; closed when the thread ends or by
        :meth:`close`)."""
        local = self._local
        con = getattr(local, "con", None)
        if con is None or local.pid != os.getpid():
            con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=True)
            try:
                con.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
                con.execute("PRAGMA synchronous=FULL")
                con.execute("PRAGMA journal_size_limit=4194304")  # the WAL shrinks back after a big draw
            except BaseException:
                con.close()
                raise
            local.con, local.pid = con, os.getpid()
        return _Borrowed(con)

    def close(self) -> None:
        """Close this thread's connection (the next operation opens another)."""
        con = getattr(self._local, "con", None)
        self._local.con = None
        if con is not None:
            con.close()

    def _upgrade(self) -> None:
        """Create the tables, or migrate a database of schema 1 (once: another process may have done it)."""
        with self._connect() as con:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            con.execute("BEGIN IMMEDIATE")
            try:
                current = schema.version(con)
                if current == 0:
                    schema.create(con)
                elif current == 1:
                    self.migrated = schema.migrate(con)
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
            if self.migrated is not None:
                con.execute("VACUUM")  # one rows per candidate gave way to 4 bytes each: give the room back

    def _write(self, fn: Callable[[sqlite3.Connection], object], what: str = "the change"):
        """Run ``fn`` in one immediate transaction: all of it is on disk when this returns, or none of it (an
        SQLite failure becomes an :class:`AnnotationDatabaseError` saying ``what`` was not saved)."""
        try:
            with self._connect() as con:
                self._begin(con)
                try:
                    result = fn(con)
                except BaseException:
                    if con.in_transaction:
                        con.execute("ROLLBACK")
                    raise
                con.execute("COMMIT")
                return result
        except (sqlite3.Error, OSError) as exc:
            self._forget()
            raise database_error(exc, what, self.path.parent) from None

    def _begin(self, con: sqlite3.Connection) -> None:
        """Take the write lock, trying again every millisecond while another writer holds it (up to ``timeout``).

        SQLite's own wait backs off to 100 ms between tries, so a writer waiting behind a run of short
        transactions (a draw written chunk by chunk) could miss every gap between them; trying every millisecond,
        it gets the next gap: a click waits for at most one chunk's transaction.
        """
        deadline = time.monotonic() + self.timeout
        con.execute(f"PRAGMA busy_timeout={_LOCK_POLL_MS}")
        try:
            while True:
                try:
                    con.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if _failure_name(exc) not in ("SQLITE_BUSY", "SQLITE_LOCKED") or time.monotonic() > deadline:
                        raise
                time.sleep(0.001)
        finally:
            con.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")

    def _read(self, fn: Callable[[sqlite3.Connection], object]):
        try:
            with self._connect() as con:
                return fn(con)
        except (sqlite3.Error, OSError) as exc:
            self._forget()
            raise database_error(exc, None, self.path.parent) from None

    def _forget(self) -> None:
        """After a failure, the next operation opens a fresh connection (the file may have changed meanwhile)."""
        try:
            self.close()
        except sqlite3.Error:
            self._local.con = None

    def _reserved(self, nbytes: int, what: str) -> ContextManager:
        return contextlib.nullcontext() if self.reserve is None else self.reserve(int(nbytes), what=what)

    @staticmethod
    def _sample_row(con, dataset: str, name: str, *, complete: bool = True) -> tuple:
        row = con.execute("SELECT id, seed, frame, design, size, target, width, created, version FROM samples "
                          "WHERE dataset=? AND sample=?", (dataset, name)).fetchone()
        if row is None or (complete and row[4] == 0):
            if row is not None and row[5] > 0:
                raise AnnotationError(f"sample {shown(name)} is still being drawn; open it again in a moment")
            known = [r[0] for r in con.execute("SELECT sample FROM samples WHERE dataset=? AND size > 0 "
                                               "ORDER BY created", (dataset,))]
            raise AnnotationError(f"there is no sample {shown(name)} for this data set; "
                                  + (f"its samples are {listed(known, str, limit=10)}" if known else "draw one first"))
        return row

    # ------------------------------------------------------------------------------ samples
    def create_sample(self, dataset: str, name: str, candidates: Iterable[int], *, seed: int | None,
                      frame: SamplingFrame = SamplingFrame(), design: dict | None = None) -> SampleInfo:
        """Store a drawn sample (candidate indices in annotation order).

        Storing the same sample again is a no-op; storing a longer draw whose beginning is the stored one
        extends it (a larger size with the same seed, see :func:`evalcore.estimates.draw_sample`). Anything
        else under an existing name is an error. The draw is written :data:`CHUNK` candidates per transaction;
        readers see the sample once the last one has committed (a draw interrupted half-way is finished by the
        next draw of the same design). With a ``reserve``, the bytes are reserved first: a draw that does not
        fit in the store's quota is refused with its message, and nothing is written.
        """
        dataset, name = validate_id(dataset), check_sample_name(name)
        idx = _as_candidates(candidates)
        extra = _design(design)
        frame_text = json.dumps(frame.to_dict())
        width = schema.width_for(int(idx.max()))

        def start(con):
            row = con.execute("SELECT id, seed, frame, design, size, target, width FROM samples WHERE dataset=? "
                              "AND sample=?", (dataset, name)).fetchone()
            if row is None:
                cur = con.execute("INSERT INTO samples (dataset, sample, seed, frame, design, size, target, width, "
                                  "created) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
                                  (dataset, name, seed, frame_text, json.dumps(extra, sort_keys=True),
                                   int(idx.size), width, _now()))
                return cur.lastrowid, 0, width
            sample_id, old_seed, old_frame, old_design, size, target, old_width = row
            same = (old_seed == seed and SamplingFrame.from_dict(json.loads(old_frame)) == frame
                    and json.loads(old_design) == extra)
            if not same or idx.size < size or (width == 8 and old_width == 4):
                raise AnnotationError(
                    f"a sample named {shown(name)} already exists for this data set with another draw (seed {old_seed}, "
                    f"{size:,} candidates); choose another name or open that sample")
            stored = self._read_candidates(con, sample_id, old_width, 0, size)
            if not np.array_equal(idx[:size], stored):
                raise AnnotationError(
                    f"a sample named {shown(name)} already exists for this data set with another draw (seed {old_seed}, "
                    f"{size:,} candidates); choose another name or open that sample")
            if idx.size > target:
                con.execute("UPDATE samples SET target=? WHERE id=?", (int(idx.size), sample_id))
            return sample_id, size, old_width

        what = f"the sample of {idx.size:,} candidates"
        with self._reserved(self.sample_bytes(idx.size, width), what):
            sample_id, size, width = self._write(start, what)
            try:
                self._write_chunks(sample_id, idx, size, width, what)
            except BaseException:
                if size == 0:  # a new sample that could not be written: its pieces go (as far as they can)
                    with contextlib.suppress(EvalcoreError):
                        self._write(lambda con: (
                            con.execute("DELETE FROM sample_chunks WHERE sample_id=?", (sample_id,)),
                            con.execute("DELETE FROM samples WHERE id=? AND size=0", (sample_id,))), what)
                raise
        return self.sample(dataset, name)

    def _write_chunks(self, sample_id: int, idx: np.ndarray, size: int, width: int, what: str) -> None:
        """The positions from ``size`` on, a chunk per transaction with a gap after each, then the new size."""
        if size >= idx.size:
            return
        for chunk in range(size // CHUNK, -(-idx.size // CHUNK)):
            piece = schema.pack(idx[chunk * CHUNK:(chunk + 1) * CHUNK], width)
            started = time.monotonic()
            self._write(lambda con, c=chunk, p=piece: con.execute(
                "INSERT INTO sample_chunks VALUES (?, ?, ?) ON CONFLICT (sample_id, chunk) DO UPDATE SET "
                "candidates=excluded.candidates WHERE length(excluded.candidates) > length(candidates)",
                (sample_id, c, p)), what)
            time.sleep(max(_GAP_S, time.monotonic() - started))  # a gap for the clicks waiting
        self._write(lambda con: con.execute("UPDATE samples SET size=max(size, ?) WHERE id=?",
                                            (int(idx.size), sample_id)), what)

    @staticmethod
    def sample_bytes(size: int, width: int = 4) -> int:
        """Bytes a sample of ``size`` candidates may add to the database while it is written: its chunks (with
        SQLite's pages around them), and the write-ahead log, which holds them until a checkpoint."""
        data = int(size) * width
        return int(data * 1.05) + min(data, 4 << 20) + 2 * CHUNK * width + (64 << 10)

    def draw(self, dataset: str, name: str, candidates: CandidateSet, size: int, seed: int,
             frame: SamplingFrame = SamplingFrame(), rankings=None, design: dict | None = None) -> SampleInfo:
        """Draw a seeded simple random sample of ``size`` from the frame and store it (see :meth:`create_sample`)."""
        mask = frame.mask(candidates, rankings)
        pool = candidates.n_candidates if mask is None else mask
        return self.create_sample(dataset, name, draw_sample(pool, size, seed), seed=seed, frame=frame,
                                  design=design)

    @staticmethod
    def _read_candidates(con, sample_id: int, width: int, start: int, stop: int) -> np.ndarray:
        """The candidates at positions start..stop-1."""
        if stop <= start:
            return np.zeros(0, np.int64)
        first, last = start // CHUNK, (stop - 1) // CHUNK
        rows = con.execute("SELECT chunk, candidates FROM sample_chunks WHERE sample_id=? AND chunk BETWEEN ? AND ? "
                           "ORDER BY chunk", (sample_id, first, last)).fetchall()
        if [r[0] for r in rows] != list(range(first, last + 1)):
            raise AnnotationError("the sample's draw is incomplete in the database; draw it again")
        values = np.concatenate([schema.unpack(blob, width) for _, blob in rows])
        out = values[start - first * CHUNK: stop - first * CHUNK]
        if out.size != stop - start:
            raise AnnotationError("the sample's draw is incomplete in the database; draw it again")
        return out

    @staticmethod
    def _candidate_at(con, sample_id: int, width: int, position: int) -> int:
        offset = (position % CHUNK) * width
        row = con.execute("SELECT substr(candidates, ?, ?) FROM sample_chunks WHERE sample_id=? AND chunk=?",
                          (offset + 1, width, sample_id, position // CHUNK)).fetchone()
        if row is None or row[0] is None or len(row[0]) != width:
            raise AnnotationError("the sample's draw is incomplete in the database; draw it again")
        return int(schema.unpack(row[0], width)[0])

    def _info(self, dataset: str, name: str, row: tuple) -> SampleInfo:
        sample_id, seed, frame, design, size, _, width, created, version = row

        def load() -> np.ndarray:
            return self._read(lambda con: self._read_candidates(con, sample_id, width, 0, size))

        return SampleInfo(dataset=dataset, name=name, seed=seed, frame=SamplingFrame.from_dict(json.loads(frame)),
                          size=int(size), created=created, design=json.loads(design), version=int(version),
                          load=load)

    def sample(self, dataset: str, name: str) -> SampleInfo:
        """The stored sample ``name`` of ``dataset`` (an :class:`AnnotationError` naming the samples if unknown);
        its draw is read when first asked for (:attr:`SampleInfo.candidates`)."""
        dataset, name = validate_id(dataset), check_sample_name(name)
        return self._info(dataset, name, self._read(lambda con: self._sample_row(con, dataset, name)))

    def samples(self, dataset: str) -> pd.DataFrame:
        """The samples of a data set: ``sample, seed, size, frame, created, design`` (frame and design as JSON)."""
        dataset = validate_id(dataset)
        rows = self._read(lambda con: con.execute(
            "SELECT sample, seed, size, frame, created, design FROM samples WHERE dataset=? AND size > 0 "
            "ORDER BY created", (dataset,)).fetchall())
        return pd.DataFrame(rows, columns=["sample", "seed", "size", "frame", "created", "design"])

    def version(self, dataset: str, sample: str) -> int:
        """A number that grows with every change of the sample's marks (for cache keys: a small number, not the
        table)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        return int(self._read(lambda con: self._sample_row(con, dataset, sample))[8])

    def candidates_at(self, dataset: str, sample: str, positions: Iterable[int]) -> np.ndarray:
        """The candidates at these places of the sample (indexed reads of the chunks that hold them)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        wanted = np.asarray(list(positions), dtype=np.int64)

        def read(con):
            sample_id, *_, size, _, width, _, _ = self._sample_row(con, dataset, sample)
            if wanted.size and (wanted.min() < 0 or wanted.max() >= size):
                raise AnnotationError(f"a position outside 0..{size - 1} of sample {shown(sample)}")
            return np.array([self._candidate_at(con, sample_id, width, int(p)) for p in wanted], dtype=np.int64)

        return self._read(read)

    # -------------------------------------------------------------------------- annotating
    def mark(self, dataset: str, sample: str, position: int, candidate: int, annotator: str, label: str | None, *,
             replace: bool = False) -> Mark:
        """Mark the candidate at ``position`` of the sample, as shown to the annotator.

        ``candidate`` is the candidate that was shown; it must be the one at ``position`` (else an
        :class:`AnnotationError`). Without ``replace``, the mark applies only if the annotator has not marked
        that place yet (one conditional write): otherwise nothing changes and the returned :class:`Mark` says
        what is there. ``replace=True`` changes an existing mark (``label`` None removes it). Every applied
        change is kept for :meth:`undo`, and is on disk when this returns.
        """
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)
        if label is not None:
            check_label(label)
        if label is None and not replace:
            raise ParameterError("removing a mark is a change: pass replace=True (or use clear)")
        position, candidate = int(position), int(candidate)
        now = _now()

        def write(con):
            sample_id, *_, size, _, width, _, _ = self._sample_row(con, dataset, sample)
            if not 0 <= position < size:
                raise AnnotationError(f"position {position} is not in sample {shown(sample)} (0..{size - 1})")
            if self._candidate_at(con, sample_id, width, position) != candidate:
                raise AnnotationError(f"candidate {candidate} is not at position {position + 1} of sample "
                                      f"{shown(sample)}; reload the page")
            old = con.execute("SELECT label, time FROM marks WHERE sample_id=? AND annotator=? AND position=?",
                              (sample_id, annotator, position)).fetchone()
            if not replace:
                cur = con.execute("INSERT INTO marks VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                                  (sample_id, annotator, position, candidate, label, now))
                if cur.rowcount != 1:
                    return Mark(False, old[0] if old else None, old[0] if old else None, position)
                old = None
            elif (old[0] if old else None) == label:
                return Mark(True, label, label, position)
            else:
                self._set(con, sample_id, annotator, position, candidate, label, now)
            self._after_change(con, sample_id, annotator, position, old is not None, label is not None)
            con.execute("INSERT INTO mark_events (sample_id, annotator, position, candidate, label, previous_label, "
                        "previous_time, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (sample_id, annotator, position, candidate, label, old[0] if old else None,
                         old[1] if old else None, now))
            return Mark(True, label, old[0] if old else None, position)

        return self._write(write, "your mark" if label is not None else "the removal of your mark")

    @staticmethod
    def _set(con, sample_id: int, annotator: str, position: int, candidate: int, label: str | None,
             time: str | None) -> None:
        if label is None:
            con.execute("DELETE FROM marks WHERE sample_id=? AND annotator=? AND position=?",
                        (sample_id, annotator, position))
        else:
            con.execute("INSERT INTO marks VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (sample_id, annotator, position) DO "
                        "UPDATE SET label=excluded.label, time=excluded.time",
                        (sample_id, annotator, position, candidate, label, time))

    @staticmethod
    def _after_change(con, sample_id: int, annotator: str, position: int, had: bool, has: bool) -> None:
        """Keep the annotator's progress (marks made, first place not marked) and the sample's version."""
        con.execute("UPDATE samples SET version = version + 1 WHERE id=?", (sample_id,))
        if had == has:
            return
        row = con.execute("SELECT next_position, done FROM progress WHERE sample_id=? AND annotator=?",
                          (sample_id, annotator)).fetchone()
        following, done = row if row else (0, 0)
        if has:
            done += 1
            if position == following:
                following = schema.first_unmarked(con, sample_id, annotator, position + 1)
        else:
            done -= 1
            following = min(following, position)
        con.execute("INSERT INTO progress VALUES (?, ?, ?, ?) ON CONFLICT (sample_id, annotator) DO UPDATE SET "
                    "next_position=excluded.next_position, done=excluded.done",
                    (sample_id, annotator, following, done))

    def position_of(self, dataset: str, sample: str, candidate: int) -> int:
        """The place of a candidate in the sample (a scan of the draw: for programs; the page knows the place)."""
        info = self.sample(dataset, sample)
        found = np.flatnonzero(info.candidates == int(candidate))
        if not found.size:
            raise AnnotationError(f"candidate {int(candidate)} is not in sample {shown(sample)}")
        return int(found[0])

    def annotate(self, dataset: str, sample: str, candidate: int, annotator: str, label: str, *,
                 replace: bool = False) -> Mark:
        """Mark a candidate of the sample (found by :meth:`position_of`); see :meth:`mark`."""
        check_annotator(annotator), check_label(label)
        return self.mark(dataset, sample, self.position_of(dataset, sample, candidate), candidate, annotator,
                         label, replace=replace)

    def clear(self, dataset: str, sample: str, candidate: int, annotator: str) -> Mark:
        """Remove ``annotator``'s label of a candidate (undoable like a click)."""
        check_annotator(annotator)
        return self.mark(dataset, sample, self.position_of(dataset, sample, candidate), candidate, annotator, None,
                         replace=True)

    def undo(self, dataset: str, sample: str, annotator: str) -> int | None:
        """Take back ``annotator``'s last change in the sample (repeatable); the candidate concerned, or None."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)

        def write(con):
            sample_id = self._sample_row(con, dataset, sample)[0]
            row = con.execute("SELECT id, position, candidate, previous_label, previous_time FROM mark_events WHERE "
                              "sample_id=? AND annotator=? AND undone=0 ORDER BY id DESC LIMIT 1",
                              (sample_id, annotator)).fetchone()
            if row is None:
                return None
            event, position, candidate, label, time = row
            had = con.execute("SELECT 1 FROM marks WHERE sample_id=? AND annotator=? AND position=?",
                              (sample_id, annotator, position)).fetchone() is not None
            self._set(con, sample_id, annotator, position, candidate, label, time)
            self._after_change(con, sample_id, annotator, position, had, label is not None)
            con.execute("UPDATE mark_events SET undone=1 WHERE id=?", (event,))
            return int(candidate)

        return self._write(write, "the undo")

    # ------------------------------------------------------------------------------- reading
    def annotations(self, dataset: str, sample: str) -> pd.DataFrame:
        """Every annotation of the sample: ``candidate, annotator, label, time`` (sorted by time)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)

        def read(con):
            sample_id = self._sample_row(con, dataset, sample)[0]
            return con.execute("SELECT candidate, annotator, label, time FROM marks WHERE sample_id=? "
                               "ORDER BY time, candidate, annotator", (sample_id,)).fetchall()

        table = pd.DataFrame(self._read(read), columns=["candidate", "annotator", "label", "time"])
        table["candidate"] = table["candidate"].astype(np.int64)
        return table

    def table(self, dataset: str, sample: str) -> pd.DataFrame:
        """The annotator-by-candidate table: one row per annotated candidate (index ``candidate``), one
        column per annotator (sorted), labels TP/FP/unsure and None where that annotator has not marked it."""
        from .combine import annotator_table

        return annotator_table(self.annotations(dataset, sample))

    def progress(self, dataset: str, sample: str, annotator: str) -> tuple[int, int]:
        """(candidates of the sample ``annotator`` has marked, sample size)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)

        def read(con):
            row = self._sample_row(con, dataset, sample)
            done = con.execute("SELECT done FROM progress WHERE sample_id=? AND annotator=?",
                               (row[0], annotator)).fetchone()
            return (int(done[0]) if done else 0), int(row[4])

        return self._read(read)

    def next_position(self, dataset: str, sample: str, annotator: str) -> int | None:
        """Position (0-based, annotation order) of the first candidate ``annotator`` has not marked; None when done."""
        found = self.upcoming(dataset, sample, annotator, 1)
        return int(found[0][0]) if found else None

    def upcoming(self, dataset: str, sample: str, annotator: str, count: int) -> list[tuple[int, int]]:
        """The next ``count`` places the annotator has not marked, in annotation order: (position, candidate)
        pairs, found by indexed reads from the annotator's first unmarked place (no scan of the sample)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)

        def read(con):
            sample_id, *_, size, _, width, _, _ = self._sample_row(con, dataset, sample)
            row = con.execute("SELECT next_position FROM progress WHERE sample_id=? AND annotator=?",
                              (sample_id, annotator)).fetchone()
            position, out = (int(row[0]) if row else 0), []
            while len(out) < count and position < size:
                stop = min(size, position + 2 * count + 64)
                marked = {p for (p,) in con.execute("SELECT position FROM marks WHERE sample_id=? AND annotator=? "
                                                    "AND position >= ? AND position < ?",
                                                    (sample_id, annotator, position, stop))}
                free = [p for p in range(position, stop) if p not in marked][:count - len(out)]
                if free:
                    values = self._read_candidates(con, sample_id, width, free[0], free[-1] + 1)
                    out += [(p, int(values[p - free[0]])) for p in free]
                position = stop
            return out

        return self._read(read)

    def recent(self, dataset: str, sample: str, annotator: str, count: int) -> list[tuple[int, int, bool]]:
        """The annotator's last ``count`` changes that an undo would take back, oldest first: (position,
        candidate, whether undoing it leaves the place unmarked)."""
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        annotator = check_annotator(annotator)

        def read(con):
            sample_id = self._sample_row(con, dataset, sample)[0]
            return con.execute("SELECT position, candidate, label, previous_label FROM mark_events WHERE "
                               "sample_id=? AND annotator=? AND undone=0 ORDER BY id DESC LIMIT ?",
                               (sample_id, annotator, int(count))).fetchall()

        return [(int(p), int(c), label is not None and previous is None)
                for p, c, label, previous in reversed(self._read(read))]

    def import_table(self, dataset: str, sample: str, table: pd.DataFrame) -> ImportCounts:
        """Write annotations (``candidate, annotator, label`` and optionally ``time``).

        The candidates must be in the sample; existing labels of the same annotator are replaced where they
        differ (a label already there is left as it is, with its time). Everything is checked before the first
        write; the marks are then written :data:`IMPORT_PIECE` per transaction (with a ``reserve``, their bytes
        reserved first). Returns how many labels were new, there already, and replaced (:class:`ImportCounts`).
        """
        dataset, sample = validate_id(dataset), check_sample_name(sample)
        info = self.sample(dataset, sample)
        order = np.argsort(info.candidates, kind="stable")
        ranked = info.candidates[order]
        rows = []
        now = _now()
        for rec in table.itertuples(index=False):
            candidate = int(rec.candidate)
            at = int(np.searchsorted(ranked, candidate))
            if at >= ranked.size or ranked[at] != candidate:
                raise AnnotationError(f"candidate {candidate} is not in sample {shown(sample)}")
            rows.append((int(order[at]), candidate, check_annotator(rec.annotator), check_label(rec.label),
                         str(getattr(rec, "time", None) or now)))
        annotators = sorted({r[2] for r in rows})
        what = f"the import of {len(rows):,} labels"

        def piece(part):
            def write(con):
                sample_id = self._sample_row(con, dataset, sample)[0]
                new = con.executemany("INSERT INTO marks VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                                      [(sample_id, who, p, c, label, time) for p, c, who, label, time in part]).rowcount
                replaced = con.executemany("UPDATE marks SET label=?, time=? WHERE sample_id=? AND annotator=? AND "
                                           "position=? AND label != ?",
                                           [(label, time, sample_id, who, p, label) for p, c, who, label, time in part]
                                           ).rowcount
                if new or replaced:  # (a version that grows only with a change: caches stay where nothing did)
                    con.execute("UPDATE samples SET version = version + 1 WHERE id=?", (sample_id,))
                return new, replaced
            return write

        def recount(con):
            sample_id = self._sample_row(con, dataset, sample)[0]
            for who in annotators:
                schema.recount(con, sample_id, who)

        new = replaced = 0
        with self._reserved(sum(64 + len(r[2].encode()) + len(r[4]) for r in rows) * 3, what):
            for start in range(0, len(rows), IMPORT_PIECE):
                began = time.monotonic()
                added, changed = self._write(piece(rows[start:start + IMPORT_PIECE]), what)
                new, replaced = new + added, replaced + changed
                if start + IMPORT_PIECE < len(rows):
                    time.sleep(max(_GAP_S, time.monotonic() - began))
            if new or replaced:
                self._write(recount, what)
        return ImportCounts(new=new, unchanged=len(rows) - new - replaced, replaced=replaced)
