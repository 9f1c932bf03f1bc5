"""The annotation database's tables, and the migration of a database of an earlier schema.

Schema 2 (``PRAGMA user_version = 2``)
--------------------------------------
``samples(id, dataset, sample, seed, frame, design, size, target, width, created, version)``
    One row per sample. ``frame`` is the JSON of a :class:`~evalcore.estimates.SamplingFrame`, ``design`` a JSON
    object of further fields of the sample's design (extensible: a pool's measures and depth, ...). ``size`` is
    the number of positions drawn and committed (readers see those); ``target`` the size a draw in progress is
    writing (``target > size``: a draw in progress, or one interrupted: the next draw of the same design finishes
    it). ``width`` is the bytes per stored candidate index (4: uint32, 8: int64). ``version`` grows with every
    change of the sample's marks: a cache key for what the marks decide (estimates, agreement).
``sample_chunks(sample_id, chunk, candidates)``
    The draw in annotation order, :data:`CHUNK` positions per row as a little-endian array (the candidate at
    position p is item ``p % CHUNK`` of chunk ``p // CHUNK``): 4 bytes a candidate instead of a row each.
``marks(sample_id, annotator, position, candidate, label, time)``
    Who marked which place of the sample; primary key (sample, annotator, position).
``progress(sample_id, annotator, next_position, done)``
    Per annotator: the first position not yet marked and how many are, kept with every mark, so a click needs
    no scan of the sample.
``mark_events``
    Every change with the label it replaced, for undo.

Schema 1 (evalcore up to 04183db, ``user_version`` 0): ``samples(dataset, sample, seed, frame, size, created)``,
``sample_candidates`` (one row per sampled candidate), ``annotations`` and ``events`` keyed by candidate.
:func:`migrate` turns it into schema 2 in one transaction: every sample, mark and event is kept (positions from
``sample_candidates``), then the old tables are dropped and the file is compacted.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

SCHEMA_VERSION = 2
LABELS = ("TP", "FP", "unsure")  # a mark's label (the marks table's CHECK)
CHUNK = 65_536  # positions per stored chunk (256 KB as uint32): one short transaction each

SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
    id INTEGER PRIMARY KEY, dataset TEXT NOT NULL, sample TEXT NOT NULL, seed INTEGER, frame TEXT NOT NULL,
    design TEXT NOT NULL DEFAULT '{}', size INTEGER NOT NULL, target INTEGER NOT NULL,
    width INTEGER NOT NULL CHECK (width IN (4, 8)), created TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0,
    UNIQUE (dataset, sample));
CREATE TABLE IF NOT EXISTS sample_chunks (
    sample_id INTEGER NOT NULL, chunk INTEGER NOT NULL, candidates BLOB NOT NULL, PRIMARY KEY (sample_id, chunk));
CREATE TABLE IF NOT EXISTS marks (
    sample_id INTEGER NOT NULL, annotator TEXT NOT NULL, position INTEGER NOT NULL, candidate INTEGER NOT NULL,
    label TEXT NOT NULL CHECK (label IN ('TP', 'FP', 'unsure')), time TEXT NOT NULL,
    PRIMARY KEY (sample_id, annotator, position));
CREATE TABLE IF NOT EXISTS progress (
    sample_id INTEGER NOT NULL, annotator TEXT NOT NULL, next_position INTEGER NOT NULL, done INTEGER NOT NULL,
    PRIMARY KEY (sample_id, annotator));
CREATE TABLE IF NOT EXISTS mark_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, sample_id INTEGER NOT NULL, annotator TEXT NOT NULL,
    position INTEGER NOT NULL, candidate INTEGER NOT NULL, label TEXT, previous_label TEXT, previous_time TEXT,
    time TEXT NOT NULL, undone INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS mark_events_by_annotator ON mark_events (sample_id, annotator, undone, id);
"""

V1_TABLES = ("samples", "sample_candidates", "annotations", "events")


def dtype(width: int) -> np.dtype:
    """The stored type of candidate indices: uint32 (4 bytes) or int64 (8), little-endian."""
    return np.dtype("<u4") if width == 4 else np.dtype("<i8")


def width_for(largest: int) -> int:
    """4 bytes a candidate when every index fits in uint32, else 8."""
    return 4 if largest < 2**32 else 8


def pack(candidates: np.ndarray, width: int) -> bytes:
    return np.ascontiguousarray(candidates, dtype=dtype(width)).tobytes()


def unpack(blob: bytes, width: int) -> np.ndarray:
    return np.frombuffer(blob, dtype=dtype(width)).astype(np.int64)


def version(con: sqlite3.Connection) -> int:
    """The schema of the open database: 2, 1 (the tables of evalcore up to 04183db) or 0 (empty)."""
    number = con.execute("PRAGMA user_version").fetchone()[0]
    if number:
        return int(number)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return 1 if "sample_candidates" in tables else 0


def create(con: sqlite3.Connection) -> None:
    """Create schema 2 (inside the caller's transaction)."""
    for statement in SCHEMA.split(";"):
        if statement.strip():
            con.execute(statement)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def migrate(con: sqlite3.Connection) -> dict:
    """Turn a schema-1 database into schema 2, inside the caller's transaction; what was moved, as counts.

    Every sample keeps its name, seed, frame, creation time and order; every annotation its label and time;
    every event (with what it replaced and whether it was undone) its order, so undo goes on where it was.
    """
    for table in V1_TABLES:
        con.execute(f"ALTER TABLE {table} RENAME TO v1_{table}")
    con.execute("DROP INDEX IF EXISTS events_by_annotator")
    create(con)
    moved = {"samples": 0, "candidates": 0, "marks": 0, "events": 0}
    samples = con.execute("SELECT dataset, sample, seed, frame, size, created FROM v1_samples ORDER BY created, "
                          "dataset, sample").fetchall()
    for dataset, name, seed, frame, size, created in samples:
        rows = con.execute("SELECT position, candidate FROM v1_sample_candidates WHERE dataset=? AND sample=? "
                           "ORDER BY position", (dataset, name)).fetchall()
        candidates = np.array([c for _, c in rows], dtype=np.int64)
        positions = {int(c): p for p, (_, c) in enumerate(rows)}
        width = width_for(int(candidates.max()) if candidates.size else 0)
        cur = con.execute("INSERT INTO samples (dataset, sample, seed, frame, design, size, target, width, created) "
                          "VALUES (?, ?, ?, ?, '{}', ?, ?, ?, ?)",
                          (dataset, name, seed, json.dumps(json.loads(frame)), len(rows), len(rows), width, created))
        sample_id = cur.lastrowid
        for chunk, start in enumerate(range(0, len(rows), CHUNK)):
            con.execute("INSERT INTO sample_chunks VALUES (?, ?, ?)",
                        (sample_id, chunk, pack(candidates[start:start + CHUNK], width)))
        marks = con.execute("SELECT candidate, annotator, label, time FROM v1_annotations WHERE dataset=? AND "
                            "sample=?", (dataset, name)).fetchall()
        con.executemany("INSERT INTO marks VALUES (?, ?, ?, ?, ?, ?)",
                        [(sample_id, who, positions[int(c)], int(c), label, time) for c, who, label, time in marks])
        events = con.execute("SELECT candidate, annotator, label, previous_label, previous_time, time, undone FROM "
                             "v1_events WHERE dataset=? AND sample=? ORDER BY id", (dataset, name)).fetchall()
        con.executemany("INSERT INTO mark_events (sample_id, annotator, position, candidate, label, previous_label, "
                        "previous_time, time, undone) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [(sample_id, who, positions[int(c)], int(c), *rest) for c, who, *rest in events])
        for (who,) in con.execute("SELECT DISTINCT annotator FROM marks WHERE sample_id=?", (sample_id,)).fetchall():
            recount(con, sample_id, who)
        moved["samples"] += 1
        moved["candidates"] += len(rows)
        moved["marks"] += len(marks)
        moved["events"] += len(events)
    for table in V1_TABLES:
        con.execute(f"DROP TABLE v1_{table}")
    return moved


def recount(con: sqlite3.Connection, sample_id: int, annotator: str) -> None:
    """Set an annotator's progress (marks made, first position not marked) from the marks themselves."""
    done = con.execute("SELECT COUNT(*) FROM marks WHERE sample_id=? AND annotator=?",
                       (sample_id, annotator)).fetchone()[0]
    con.execute("INSERT INTO progress VALUES (?, ?, ?, ?) ON CONFLICT (sample_id, annotator) DO UPDATE SET "
                "next_position=excluded.next_position, done=excluded.done",
                (sample_id, annotator, first_unmarked(con, sample_id, annotator, 0), int(done)))


def first_unmarked(con: sqlite3.Connection, sample_id: int, annotator: str, start: int) -> int:
    """The first position >= ``start`` the annotator has not marked: a walk along the index over the run of
    marked positions that begins at ``start`` (nothing to walk in the usual case, one mark after another)."""
    position = start
    while True:
        rows = con.execute("SELECT position FROM marks WHERE sample_id=? AND annotator=? AND position >= ? "
                           "ORDER BY position LIMIT 4096", (sample_id, annotator, position)).fetchall()
        for (p,) in rows:
            if p != position:
                return position
            position += 1
        if len(rows) < 4096:
            return position
