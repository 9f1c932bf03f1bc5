"""Data sets too large to upload, in a folder the host names on the server (``EVALCORE_DATA_DIR``).

The Data page lists them; a link names one as ``dataset=server:<name>``. Only the folder's own entries can be
opened (a plain name, no path): each is resolved and must lie inside the folder, so a symbolic link that leads out,
``..`` or an absolute path opens nothing. The folder has its own reading limits (``EVALCORE_DATA_MAX_BYTES``,
default 200 GB; ``EVALCORE_DATA_MAX_ROWS``, default 2,000,000,000), apart from the upload limits.

A set is never read into memory: DuckDB (:mod:`evalcore.engines`) counts its rankings, and the count tables are
kept in the data set store under a key of (file identity, roles, ties, seed), within the store's quota, so that a
link reopens the set in seconds. The pages get a :class:`ServerCandidates` (the set's size, TPs and measures) and
the engine's :class:`~evalcore.engines.RankCounts` in place of rankings; what needs single candidates says so.

The folder's files come from many hands (copies in progress, other tools' outputs) and are read as input like any
upload: a file that does not read, or not to its end, is a :class:`ServerDataError` in words, named by its name in
the folder, with no path of the server and no SQL (:func:`evalcore.engines.source.read_error`). Whatever is kept of
a set (its preview, its summary, its count tables, every page's cache) is keyed by the file's identity (the size,
modification time and inode of the file or its parts, :func:`identity`), so a file replaced or grown after it was
opened is read again, never shown from the old state; and a file that changes while it is read is refused
(:func:`unchanged`), never read as a mixture of two versions.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import streamlit as st

from evalcore import names
from evalcore.candidates import HIGHER, LOWER
from evalcore.engines import CountTables, TableSource
from evalcore.engines import pvalues
from evalcore.engines.duckdb_engine import DuckDBEngine
from evalcore.engines.source import PARQUET_SUFFIXES, ROW, TEXT_SUFFIXES, quote, schema_kind
from evalcore.engines.tieorder import CHUNK_POLICIES
from evalcore.errors import EvalcoreError, ParameterError
from evalcore.io.limits import limits_from
from evalcore.io.store import DatasetStore, StoreError, parse_size
from evalcore.text import cut, listed, shown
from evalcore.viewstate import SERVER_NAME, SERVER_PREFIX
from evalcore_app import costs, jobs

DEFAULT_MAX_BYTES = 200 * 10**9
DEFAULT_MAX_ROWS = 2 * 10**9
PREVIEW_ROWS = 1000
PREVIEW_CHARS = 200  # characters of a text cell the preview keeps (it is shown, and suggests the roles)
COUNTS_VERSION = "1"
_LAST: OrderedDict = OrderedDict()  # (dataset, file identity, label, scores, lower) -> count tables of some tie
LAST_ENTRIES = 4  # policy (their AP orders the measures); the last few, as count_tables' cache
_log = logging.getLogger(__name__)


class ServerDataError(EvalcoreError):
    """A server data set that cannot be opened: the message says why, never with a path of the server."""


def root() -> Path | None:
    """The host's folder of large data sets, resolved; None when ``EVALCORE_DATA_DIR`` is unset."""
    folder = os.environ.get("EVALCORE_DATA_DIR")
    if not folder:
        return None
    path = Path(folder).resolve()
    return path if path.is_dir() else None


def max_bytes() -> int:
    return parse_size(os.environ.get("EVALCORE_DATA_MAX_BYTES", str(DEFAULT_MAX_BYTES)),
                      parameter="EVALCORE_DATA_MAX_BYTES")


def max_rows() -> int:
    return int(float(os.environ.get("EVALCORE_DATA_MAX_ROWS", str(DEFAULT_MAX_ROWS))))


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve(strict=True).relative_to(folder)
    except (OSError, ValueError):
        return False
    return True


def _kind(path: Path, folder: Path) -> str | None:
    """"parquet", "parts" (a folder of Parquet parts), "text", or None for anything else or anything that leads out
    of the folder (a symbolic link to elsewhere, a part that does)."""
    if path.name.startswith(".") or not _inside(path, folder):
        return None
    lower = path.name.lower()
    if path.is_file():
        if lower.endswith(PARQUET_SUFFIXES):
            return "parquet"
        return "text" if lower.endswith(TEXT_SUFFIXES) else None
    if path.is_dir():  # (a part that is no symbolic link lies in the folder that was just found inside)
        with os.scandir(path) as entries:
            parts = [e for e in entries if e.name.lower().endswith(PARQUET_SUFFIXES)]
        if parts and all(e.is_file() and (not e.is_symlink() or _inside(Path(e.path), folder)) for e in parts):
            return "parts"
    return None


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir() if p.name.lower().endswith(PARQUET_SUFFIXES))
    return path.stat().st_size


def listing() -> list[dict]:
    """The folder's data sets: ``name, kind, size`` (bytes), by name; empty without a folder."""
    folder = root()
    if folder is None:
        return []
    out = []
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:  # (the folder gone or unreadable now: nothing to list)
        return []
    for entry in entries:
        if not SERVER_NAME.fullmatch(entry.name):
            continue
        try:
            kind = _kind(entry, folder)
            if kind is not None:
                out.append({"name": entry.name, "kind": kind, "size": _size(entry)})
        except OSError:  # removed, or unreadable, while the folder was listed: not listed
            continue
    return out


def path_of(dataset: str) -> Path:
    """The checked path of ``server:<name>``: a plain name of the folder's own, inside it, within its limits."""
    name = dataset[len(SERVER_PREFIX):]
    folder = root()
    if folder is None:
        raise ServerDataError("This server has no folder of large data sets (EVALCORE_DATA_DIR is not set); upload "
                              "the file on the Data page instead.")
    if not SERVER_NAME.fullmatch(name) or ".." in name:
        raise ServerDataError("The link names a server data set whose name is not allowed.")
    path = folder / name
    gone = ServerDataError(f"There is no data set {shown(name)} in the server's folder of large data sets; the Data "
                           "page lists those there are.")
    if not path.exists() and not path.is_symlink():
        raise gone
    try:
        if _kind(path, folder) is None:
            raise ServerDataError(f"{shown(name)} in the server's folder is not a data set that can be opened here (a "
                                  "Parquet file, a folder of Parquet parts, or CSV/TSV, lying inside the folder).")
        size = _size(path)
    except OSError:  # removed (or made unreadable) as it was looked at
        raise gone from None
    if size == 0:
        raise ServerDataError(f"{shown(name)} in the server's folder is empty (0 bytes): a copy may have just begun. "
                              "Open it again once it is complete.")
    if size > max_bytes():
        raise ServerDataError(f"{shown(name)} has {size:,} bytes, more than this server's limit for its folder of "
                              f"large data sets ({max_bytes():,} bytes, EVALCORE_DATA_MAX_BYTES).")
    return path


def identity(path: Path) -> str:
    """What changes when the data change: the size, modification time and inode of the file or of each of its
    parts (a part added or removed changes it too). A file that goes as it is looked at is a
    :class:`ServerDataError`."""
    try:
        if path.is_dir():
            with os.scandir(path) as entries:
                stats = sorted((e.name, e.stat()) for e in entries
                               if e.name.lower().endswith(PARQUET_SUFFIXES + TEXT_SUFFIXES))
        else:
            stats = [(path.name, path.stat())]
    except OSError:
        raise ServerDataError(f"{shown(path.name)} is no longer in the server's folder of large data sets (it was "
                              "removed or replaced as it was read); the Data page lists those there are.") from None
    return ";".join(f"{name}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}" for name, st in stats)


def version(dataset: str | None) -> str:
    """What keys every cache of ``dataset`` besides its name: the :func:`identity` of a server data set's file
    (never an error: a file that cannot be looked at gets a key of its own, and the read says why), "" for any
    other data set (an upload's id is its content's hash; a sample does not change)."""
    if not is_server(dataset):
        return ""
    name, folder = dataset[len(SERVER_PREFIX):], root()
    if folder is None or not SERVER_NAME.fullmatch(name) or ".." in name:
        return "(not readable)"
    try:  # (only the key: the read checks the name, the folder and the limits, path_of)
        return identity(folder / name)
    except EvalcoreError:
        return "(not readable)"


def _read_failures() -> tuple:
    """What the readers raise on a file they cannot read (pyarrow's errors are these built-in kinds too; DuckDB's
    have their own base): not a programming error such as an AssertionError, which stays one."""
    import duckdb

    return (ValueError, TypeError, LookupError, ArithmeticError, NotImplementedError, OSError, RuntimeError,
            duckdb.Error)


def _changed(name: str) -> ServerDataError:
    return ServerDataError(f"{shown(name)} changed while it was read (it is being written or copied into the server's "
                           "folder): nothing of it is shown. Open it again once it is complete.")


@contextmanager
def unchanged(path: Path, name: str, expected: str = ""):
    """Read the file at ``path`` inside the block only if it stays the same throughout: its :func:`identity` (or
    ``expected``, the one a cache key holds) before and after the block must agree, else a :class:`ServerDataError`
    says it changed while read. An error of the read itself becomes a message in words too: an
    :class:`~evalcore.errors.EvalcoreError` as it is, anything else (logged for the host) as one sentence naming
    the file, never a traceback, a path of the server or SQL. Yields the identity."""
    before = identity(path)
    if expected and before != expected:
        raise _changed(name)
    try:
        yield before
    except EvalcoreError:
        if identity(path) != before:  # (a half-written file reads as a broken one: say what happened)
            raise _changed(name) from None
        raise
    except _read_failures() as exc:  # pyarrow, pandas, the engine: whatever a hostile file makes them raise
        if identity(path) != before:
            raise _changed(name) from None
        _log.warning("server data set %s could not be read", name, exc_info=exc)
        raise ServerDataError(f"{shown(name)} in the server's folder of large data sets cannot be read "
                              f"({type(exc).__name__}); the host's log has the details.") from None
    if identity(path) != before:
        raise _changed(name)


def content_id(dataset: str, file_identity: str | None = None) -> str:
    """The set's identity as a SHA-256 (64 hexadecimal digits): of its name and :func:`identity`, what its count
    tables are keyed by. Its default seed of random ties is derived from it (:func:`evalcore.ranking.data_seed`)."""
    if file_identity is None:
        file_identity = identity(path_of(dataset))
    return hashlib.sha256(f"{dataset}|{file_identity}".encode()).hexdigest()


def engine() -> DuckDBEngine:
    return DuckDBEngine(memory_limit=os.environ.get("EVALCORE_DUCKDB_MEMORY", "1GB"), threads=2)


def _preview_column(name: str, type_name: str) -> str:
    """A column of the preview: booleans and numbers as they are (decimals as doubles), anything else as text cut
    to :data:`PREVIEW_CHARS` (a list, a structure or an interval is shown, never taken for a label or a score)."""
    kind, q = schema_kind(type_name), quote(name)
    if kind == "bool" or (kind == "number" and not type_name.lower().startswith(("decimal", "numeric", "hugeint",
                                                                                  "uhugeint", "bignum", "varint"))):
        return q
    if kind == "number":
        return f"CAST({q} AS DOUBLE) AS {q}"
    return f"left(CAST({q} AS VARCHAR), {PREVIEW_CHARS}) AS {q}"


def preview(dataset: str, file_identity: str = "") -> tuple:
    """The first :data:`PREVIEW_ROWS` rows as a table (what the Data page shows and suggests roles from) and the
    set's name in the folder; ``file_identity`` (:func:`identity`) is the version a cache key holds."""
    from evalcore.io.cells import tidy

    path = path_of(dataset)
    with unchanged(path, path.name, file_identity):
        source = TableSource(path, name=path.name)
        with engine().session(source, prepare=False) as (con, *_):
            scan = engine().scan(source, con)
            described = [(n, t) for n, t, *_ in con.execute(f"DESCRIBE SELECT * FROM ({scan})").fetchall() if n != ROW]
            most = limits_from(None).max_columns
            if len(described) > most:
                raise ServerDataError(f"{path.name} has {len(described):,} columns, more than the {most:,} this server "
                                      "reads of a table (EVALCORE_MAX_COLUMNS).")
            columns = ", ".join(_preview_column(n, t) for n, t in described)
            table = con.sql(f"SELECT {columns} FROM ({scan}) ORDER BY {ROW} LIMIT {PREVIEW_ROWS}").to_arrow_table()
        frame = tidy(table.to_pandas(), path.name, "parquet", "index")
    return frame, path.name


@dataclass(frozen=True, eq=False)
class ServerCandidates:
    """What the pages ask of a candidate set, for a set that stays on the server (no single candidate)."""

    n_candidates: int
    n_tp: int
    measures: tuple[str, ...]
    directions: dict
    source: str
    label_column: str
    content_hash: str
    keys: None = None
    samples: None = None
    annotated: None = None
    excluded_unlabelled: int = 0
    sample_ids: tuple = ()
    rows: None = None
    scores: dict = field(default_factory=dict)

    @property
    def baseline(self) -> float:
        return self.n_tp / self.n_candidates if self.n_candidates else float("nan")

    @property
    def partly_annotated(self) -> bool:
        return False

    @property
    def n_annotated(self) -> int:
        return self.n_candidates

    def higher_is_better(self, measure: str) -> bool:
        if measure not in self.directions:
            raise ParameterError(f"{self.source}: no score column {shown(measure)}; the score columns are "
                                 f"{listed(self.measures, cut)}")
        return self.directions[measure] == HIGHER

    @property
    def labels(self):
        raise _too_large(self, "the label of each candidate")


def _too_large(candidates, what: str):
    from evalcore.engines import TooLargeError

    return TooLargeError(f"{candidates.source} ({candidates.n_candidates:,} candidates) stays on the server and is "
                         f"counted by DuckDB, not held in memory: {what} is not available for a set this large.")


def _source(path: Path, label, scores: tuple, lower: tuple, annotated_sample: bool = False) -> TableSource:
    return TableSource(path, label=label, scores=tuple(scores), lower=tuple(lower), name=path.name,
                       annotated_sample=annotated_sample)


@jobs.cache(work=costs.server_summary, max_entries=8, show_spinner="Counting the server data set ...")
def summary(dataset: str, label, scores: tuple, lower: tuple, file_identity: str = "") -> ServerCandidates:
    """N, the TPs and the measures of a server data set, one DuckDB pass (checks labels and scores too);
    ``file_identity`` (:func:`identity`) makes a changed file another cache entry, and a file that is not that
    version (or changes as it is read) is refused (:func:`unchanged`)."""
    path = path_of(dataset)
    with unchanged(path, path.name, file_identity) as file_identity:
        # (empty labels are counted, not refused by the engine in the command line's words: said below)
        source = _source(path, label, scores, lower, annotated_sample=True)
        with engine().session(source) as (con, roles, counts, _):
            tps = con.execute("SELECT count(*) FILTER (WHERE label) FROM base").fetchall()[0][0]
    if counts["missing"]:
        raise ServerDataError(f"{source.name}: {counts['missing']:,} labels are empty; server data sets are counted "
                              "whole, so every candidate needs a label (or leave the label column out of the roles).")
    if counts["rows"] > max_rows():
        raise ServerDataError(f"{source.name} has {counts['rows']:,} rows, more than this server's limit for its "
                              f"folder of large data sets ({max_rows():,} rows, EVALCORE_DATA_MAX_ROWS).")
    return ServerCandidates(
        n_candidates=int(counts["rows"]), n_tp=int(tps), measures=roles.measures,
        directions={m: HIGHER if roles.higher[m] else LOWER for m in roles.measures}, source=source.name,
        label_column=roles.label, content_hash=content_id(dataset, file_identity))


def candidates(roles) -> ServerCandidates:
    """The :class:`ServerCandidates` of ``roles`` (a :class:`evalcore.viewstate.Roles`)."""
    return summary(roles.dataset, roles.label, tuple(roles.scores), tuple(roles.lower),
                   file_identity=identity(path_of(roles.dataset)))


def _key(dataset: str, file_identity: str, label, scores: tuple, lower: tuple, ties: str, seed) -> str:
    text = json.dumps({"v": COUNTS_VERSION, "dataset": dataset, "identity": file_identity, "label": label,
                       "scores": list(scores), "lower": list(lower), "ties": ties, "seed": seed})
    return hashlib.sha256(text.encode()).hexdigest()


def _stored(store: DatasetStore, name: str) -> bytes | None:
    for dataset_id in store.ids():
        try:
            if store.peek(dataset_id).name == name:  # a look at each (not an open); the one read is opened
                return store.open(dataset_id)[1]
        except StoreError:
            continue
    return None


@jobs.cache(work=costs.server_counts, max_entries=4,
            show_spinner="Ranking the server data set with DuckDB (once; then from the store) ...")
def count_tables(dataset: str, label, scores: tuple, lower: tuple, ties: str, seed,
                 file_identity: str = "") -> CountTables:
    """Count tables of every measure and pair, from the store when counted before, else counted and stored
    (``file_identity``, :func:`identity`, makes a changed file another cache entry; the store's key holds it too)."""
    if ties == "random":
        raise ServerDataError(f"Server data sets are ranked by DuckDB, which breaks ties by "
                              f"'{names.TIE_SHORT['hash']}' (a hash of the seed and the row), not by "
                              f"'{names.TIE_SHORT['random']}'; choose it under Ties on the Data page.")
    file_identity = file_identity or identity(path_of(dataset))
    name = f"counts-{_key(dataset, file_identity, label, scores, lower, ties, seed)}.npz"
    store = DatasetStore()
    tables = None
    data = _stored(store, name)
    if data is not None:
        try:
            tables = CountTables.from_bytes(data)
        except (ValueError, OSError, KeyError, EvalcoreError):
            tables = None  # another version's tables: count again
    if tables is None:
        path = path_of(dataset)
        with unchanged(path, path.name, file_identity):  # (the version the keys name, throughout the count)
            tables = engine().count_tables(_source(path, label, scores, lower), None, ties=ties, seed=seed, pairs=True)
        try:
            store.put(tables.to_bytes(), name)
        except StoreError:  # over the quota or the disk: the tables still serve this server's sessions
            pass
    _LAST[(dataset, file_identity, label, tuple(scores), tuple(lower))] = tables
    while len(_LAST) > LAST_ENTRIES:
        _LAST.popitem(last=False)
    return tables


def ranking(roles, measure: str, choice):
    """The engine's :class:`~evalcore.engines.RankCounts` of one measure (with its pair tables)."""
    ties, seed = choice.key
    return count_tables(roles.dataset, roles.label, tuple(roles.scores), tuple(roles.lower), ties, seed,
                        identity(path_of(roles.dataset)))[measure]


def _pair_args(roles, choice, a: str, b: str):
    ties, seed = choice.key
    file_identity = identity(path_of(roles.dataset))
    columns = (roles.label, tuple(roles.scores), tuple(roles.lower))
    tables = count_tables(roles.dataset, *columns, ties, seed, file_identity)
    return tables[a], tables[b], _key(roles.dataset, file_identity, *columns, ties, seed)


def pair_tests(roles, choice, a: str, b: str, n_range: tuple, test: str, n_step: int = 1, progress=None):
    """The level-free tests of measures ``a`` and ``b`` (:func:`evalcore.analysis.pair_tests`) with their p-values
    kept in the store chunk by chunk (:mod:`evalcore.engines.pvalues`), under the count tables' key: computed once
    per pair and lattice of n, then read for every level, correction, range on the same lattice and session."""
    ra, rb, key = _pair_args(roles, choice, a, b)
    return pvalues.pair_pvalues(ra, rb, n_range, key=key, test=test, n_step=n_step, progress=progress)


def pvalue_chunks_to_compute(roles, choice, a: str, b: str, n_range: tuple, test: str, n_step: int = 1) -> int:
    """How many chunks of p-values :func:`pair_tests` would compute (0 where the store holds them all), so that the
    page shows a progress bar and a way to cancel before it starts."""
    if not pvalues.cacheable(test):
        return 0
    ra, rb, key = _pair_args(roles, choice, a, b)
    return pvalues.chunks_to_compute(ra, rb, n_range, key=key, test=test, n_step=n_step)


def quality(roles, choice=None) -> tuple[str, ...]:
    """The measures by average precision, best first (as :func:`evalcore.analysis.measure_quality`). AP is taken at
    the end of each tie group, the same under any ties: the count tables are those of the ranking ``choice`` (a
    :class:`~evalcore.viewstate.RankingChoice`, which the page ranks by next) where it is one the engine counts, so
    that the set is counted once."""
    file_identity = identity(path_of(roles.dataset))
    columns = (roles.label, tuple(roles.scores), tuple(roles.lower))
    tables = _LAST.get((roles.dataset, file_identity, *columns))
    if tables is None:
        ties, seed = choice.key if choice is not None and choice.ties in CHUNK_POLICIES else ("stable", None)
        tables = count_tables(roles.dataset, *columns, ties, seed, file_identity)
    scored = [(m, r.average_precision()) for m, r in tables.rankings.items()]
    return tuple(m for m, ap in sorted(scored, key=lambda x: (np.isnan(x[1]), -np.nan_to_num(x[1]))))


def is_server(dataset: str | None) -> bool:
    return bool(dataset) and dataset.startswith(SERVER_PREFIX)


#: Past this many n, a server set's curves are computed chunk by chunk and thinned for drawing
#: (:mod:`evalcore.engines.thin`); the tests of two measures take at most this many n at once.
THIN_ABOVE = 250_000


def curves(rankings: dict, n_range: tuple, level: float, interval: str, beta: float):
    """The curves of ``rankings`` over ``n_range``: whole up to :data:`THIN_ABOVE` n, else chunk by chunk and
    thinned (every part's extremes of precision and the interval, and both ends, kept)."""
    import pandas as pd

    from evalcore.engines.chunked import curve_chunks
    from evalcore.engines.thin import Thinner

    lo, hi = int(n_range[0]), int(n_range[1])
    sizes = np.arange(lo, hi + 1, dtype=np.int64)
    if sizes.size <= THIN_ABOVE:
        return pd.concat(list(curve_chunks(rankings, sizes, confidence_level=level, interval=interval, beta=beta)),
                         ignore_index=True)
    thinner = Thinner((lo, hi), ["precision", "lower", "upper", "recall", "f_beta"], by="measure", also=(lo, hi))
    for chunk in curve_chunks(rankings, sizes, confidence_level=level, interval=interval, beta=beta):
        thinner.add(chunk)
    table = thinner.result()
    table.attrs["thinned"] = f"drawn from {len(table):,} of the {sizes.size * len(rankings):,} points"
    return table


def check_pair_range(n_range: tuple) -> None:
    if n_range[1] - n_range[0] + 1 > THIN_ABOVE:
        raise ServerDataError(f"On a server data set the tests of two measures take at most {THIN_ABOVE:,} n at once "
                             f"(the range holds {n_range[1] - n_range[0] + 1:,}); narrow the range of n, or run "
                             "`python -m evalcore compare --engine duckdb` for every n.")


def data_page_section(load) -> None:
    """The Data page's list of the server's large data sets, with a button to open one (``load(dataset)``)."""
    sets = listing()
    if not sets:
        return
    from evalcore import format as fmt

    with st.expander(f"Large data sets on this server ({len(sets)})", expanded=False):
        st.caption("Too large to upload: they stay on the server, DuckDB ranks them out of memory, and their counts "
                   "are kept so that a link reopens them in seconds.")
        sizes = {s["name"]: s["size"] for s in sets}
        chosen = st.selectbox("Server data set", list(sizes), key="w_server_dataset",
                              format_func=lambda n: f"{n} ({fmt.count(sizes[n])} bytes)")
        if st.button("Open this data set", key="w_open_server"):
            load(SERVER_PREFIX + chosen)
            from evalcore_app import common

            if common.view().ties == "random":  # said on the page: the engine's random order is the hashed one
                common.update(ties="hash")
                st.session_state["server_ties_note"] = True
    if st.session_state.pop("server_ties_note", False):
        st.info(f"Ties: '{names.TIE_SHORT['hash']}' instead of '{names.TIE_SHORT['random']}': DuckDB ranks a server "
                "data set out of memory, and breaks ties at random by a hash of the seed and the row, which every "
                "engine computes alike.")


#: Pages that show single candidates (scores, members, thresholds, the annotation queue): not for a server set.
SINGLE_CANDIDATE_PAGES = {"threshold": "score thresholds need every candidate's score",
                          "roc": "ROC, DET and precision-recall curves need every candidate's score",
                          "annotate": "annotation shows single candidates"}


def guard(page: str, dataset: str | None) -> None:
    """Before a page runs: for a server data set on a page that needs single candidates, say so (a
    :class:`ServerDataError`, shown as a message) instead of counting the set for nothing."""
    if is_server(dataset) and page in SINGLE_CANDIDATE_PAGES:
        raise ServerDataError(f"{dataset[len(SERVER_PREFIX):]} stays on the server and is counted by DuckDB, not "
                              f"held in memory: {SINGLE_CANDIDATE_PAGES[page]}, which is not available for a set this "
                              "large. The Precision, Confidence, Significance and Pairwise pages work on it.")
