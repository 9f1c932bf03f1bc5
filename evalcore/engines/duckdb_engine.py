"""The DuckDB engine: embedded, out of core within a memory limit, spilling to a temporary folder.

Per measure, DuckDB sorts the candidates by the sort key alone (``ORDER BY key``: the floor of any ranking) and
streams the sorted (key, row, label, annotated) columns in record batches; NumPy puts each tie group in the tie
policy's order (:mod:`evalcore.engines.tieorder`), numbers the ranks, and keeps what the count tables need: the
ranks of the TPs and of the annotated candidates, the tie groups, and (for the pairs) each row's rank in an int32
array (a file-backed map beside DuckDB's spill files when the set is large). The pair pass then reads those rank
arrays in row chunks. Memory: DuckDB's ``memory_limit`` plus one batch, plus 4 bytes per candidate and measure
(paged to disk for large sets), plus the count tables.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import ParameterError
from ..ranking import resolve_seed
from . import source as src
from .counts import CountTables, PairBuilder, RankBuilder, assemble
from .sampleranks import SampleRanks
from .samplesql import sample_ranks_sql
from .tieorder import TieOrder, check_policy

DIALECT = src.Dialect("duckdb")
BATCH_ROWS = 1 << 20
PAIR_CHUNK = 1 << 22
MAP_ABOVE = 1 << 27  # rank arrays of larger sets are file-backed maps in the spill folder


def _duckdb():
    try:
        import duckdb
    except ImportError as exc:  # pragma: no cover - a dependency in requirements.txt
        raise ParameterError("the DuckDB engine needs the duckdb package: pip install duckdb") from exc
    return duckdb


class DuckDBEngine:
    """Count tables and sample ranks of a :class:`~evalcore.engines.source.TableSource` with DuckDB.

    Parameters
    ----------
    memory_limit : str
        DuckDB's ``memory_limit`` (default ``EVALCORE_DUCKDB_MEMORY`` or 2GB); past it DuckDB spills to
        ``temp_directory``.
    threads : int, optional
        DuckDB's threads (default: DuckDB's, the cores).
    temp_directory : str, optional
        Where DuckDB spills and large rank arrays are mapped (default: a new folder in the system's temp, removed
        afterwards).
    """

    name = "duckdb"

    def __init__(self, memory_limit: str | None = None, threads: int | None = None,
                 temp_directory: str | os.PathLike | None = None, batch_rows: int = BATCH_ROWS) -> None:
        self.memory_limit = memory_limit or os.environ.get("EVALCORE_DUCKDB_MEMORY", "2GB")
        self.threads = threads
        self.temp_directory = temp_directory
        self.batch_rows = int(batch_rows)

    # ------------------------------------------------------------------ connection and scan
    def connect(self, spill: str):
        duckdb = _duckdb()
        con = duckdb.connect(config={"memory_limit": self.memory_limit, "temp_directory": spill})
        con.execute("SET enable_progress_bar = false")
        if self.threads:
            con.execute(f"SET threads = {int(self.threads)}")
        return con

    def scan(self, source: src.TableSource, con) -> str:
        """A SELECT of every column with :data:`~evalcore.engines.source.ROW`, the 0-based row in file order."""
        files = [str(f) for f in source.files]
        if source.format == "parquet":
            listing = "[" + ", ".join(src.literal(f) for f in files) + "]"
            scan = f"read_parquet({listing}, file_row_number = true, filename = true)"
            if len(files) == 1:
                offset = "0"
            else:
                counts = con.execute(f"SELECT file_name, num_rows FROM parquet_file_metadata({listing})").fetchall()
                sizes = {name: int(n) for name, n in counts}
                cases, total = [], 0
                for f in files:
                    cases.append(f"WHEN {src.literal(f)} THEN {total}")
                    total += sizes.get(f, 0)
                offset = f"(CASE filename {' '.join(cases)} END)"
            return (f"SELECT * EXCLUDE (file_row_number, filename), file_row_number + {offset} AS {src.ROW} "
                    f"FROM {scan}")
        delim = f", delim = {src.literal(source.delimiter)}" if source.delimiter else ""
        return (f"SELECT * EXCLUDE (ordinality), ordinality - 1 AS {src.ROW} FROM "
                f"read_csv({src.literal(files[0])}, header = true{delim}) WITH ORDINALITY")

    def roles(self, source: src.TableSource, con, scan: str) -> src.Roles:
        described = con.execute(f"DESCRIBE SELECT * FROM ({scan})").fetchall()
        schema = {row[0]: src.schema_kind(row[1]) for row in described if row[0] != src.ROW}
        ids = src.id_candidates(source, {row[0]: row[1] for row in described})
        keys = src.distinct_integers(ids, con.execute(
            f"SELECT {', '.join(src.distinct_sql(ids, DIALECT))} FROM ({scan})").fetchall()[0]) if ids else {}
        return src.resolve(source, schema, keys)

    def resolve_roles(self, source: src.TableSource) -> src.Roles:
        """The roles of ``source``'s columns (its default scores left out of keys: ``Roles.left_out``), without
        checking its cells; a file that does not read is a message in words (:meth:`session`)."""
        with self.session(source, prepare=False) as (con, _, _, _):
            return self.roles(source, con, self.scan(source, con))

    @contextmanager
    def session(self, source: src.TableSource | None = None, prepare: bool = True):
        """A connection spilling to a temporary folder (removed afterwards); with ``source``, its view ``base``
        checked and made (unless not ``prepare``): yields ``(con, roles, counts, spill folder)``.

        With ``source``, DuckDB's errors inside the session (a file that does not read, or not to its end) are
        :class:`~evalcore.errors.FileFormatError` in words (:func:`evalcore.engines.source.read_error`): named by
        the file's name, with no path and no SQL."""
        duckdb = _duckdb()
        with tempfile.TemporaryDirectory(prefix="evalcore-duckdb-", dir=self.temp_directory) as spill:
            con = self.connect(spill)
            try:
                try:
                    roles, counts = self._prepare(source, con) if source is not None and prepare else (None, None)
                    yield con, roles, counts, spill
                except duckdb.Error as exc:
                    if source is None:
                        raise
                    raise src.read_error(source, exc) from None
            finally:
                con.close()

    def _prepare(self, source: src.TableSource, con):
        scan = self.scan(source, con)
        roles = self.roles(source, con, scan)
        kept = src.kept_sql(source, roles, DIALECT)
        checks = src.check_sql(roles, DIALECT, kept)
        values = con.execute(f"SELECT {', '.join(sql for _, sql in checks)} FROM ({scan})").fetchall()[0]
        counts = {name: (None if v is None else int(v)) for (name, _), v in zip(checks, values)}
        counts = src.check_counts(source, roles, counts)
        con.execute(f"CREATE TEMP VIEW base AS SELECT {', '.join(src.base_columns(roles, DIALECT))} FROM ({scan})"
                    + ("" if kept == "TRUE" else f" WHERE {kept}"))
        return roles, counts

    # ------------------------------------------------------------------ count tables
    def count_tables(self, source: src.TableSource, measures: Sequence[str] | None = None, *, ties: str = "hash",
                     seed: int | None = None, pairs: bool = True,
                     progress: Callable[[int, int], None] | None = None) -> CountTables:
        """Rank by each measure and count (see :func:`evalcore.engines.count_tables`)."""
        check_policy(ties, self.name)
        seed = resolve_seed(ties, seed)
        with self.session(source) as (con, roles, counts, spill):
            if source.annotated_sample and ties in ("optimistic", "pessimistic"):
                raise ParameterError(f"`ties` {ties!r} orders tied candidates by their labels, which are unknown "
                                     "for the unannotated candidates; use 'hash' or 'stable'")
            chosen = src.measures_in(roles, measures)
            n = counts["rows"]
            n_rows = n + counts["excluded"]  # the arrays by row: rows left out (no label) keep their numbers
            partial = bool(counts["missing"])
            keep_ranks = pairs and len(chosen) > 1
            n_pairs = len(chosen) * (len(chosen) - 1) // 2 if keep_ranks else 0
            total = n * (len(chosen) + n_pairs)
            done = 0
            rank_arrays: dict[str, np.ndarray] = {}
            labels_by_row = annotated_by_row = None
            if keep_ranks:
                labels_by_row = _array(n_rows, np.bool_, spill, "labels")
                annotated_by_row = _array(n_rows, np.bool_, spill, "annotated") if partial else None
            tables = {}
            for m in chosen:
                i = roles.measures.index(m)
                builder = RankBuilder(m, n, ties=ties, seed=seed, n_nonfinite=counts[f"nonfinite:{m}"],
                                      higher_is_better=roles.higher[m], partial=partial, column=m,
                                      engine=self.name)
                ranks_by_row = _array(n_rows, np.int32 if n < 2**31 else np.int64, spill, f"r{i}") if keep_ranks \
                    else None
                sample_rows, sample_ranks, sample_labels = [], [], []
                order = TieOrder(ties, seed)
                reader = con.sql(f"SELECT k{i}, {src.ROW}, label, annotated FROM base ORDER BY k{i}") \
                    .to_arrow_reader(self.batch_rows)

                def take(chunk):
                    keys, rows, labels, annotated = chunk
                    ranks = builder.add(labels, keys, annotated if partial else None)
                    if ranks_by_row is not None:
                        ranks_by_row[rows] = ranks
                        if labels_by_row is not None and m == chosen[0]:
                            labels_by_row[rows] = labels
                            if annotated_by_row is not None:
                                annotated_by_row[rows] = annotated
                    if partial:
                        sample_rows.append(rows[annotated])
                        sample_ranks.append(ranks[annotated])
                        sample_labels.append(labels[annotated])

                for batch in reader:
                    columns = [batch.column(j).to_numpy(zero_copy_only=False) for j in range(4)]
                    take(order.feed(*columns))
                    done += batch.num_rows
                    if progress:
                        progress(done, total)
                take(order.finish())
                table = builder.finish()
                if partial:
                    rows = np.concatenate(sample_rows)
                    by_row = np.argsort(rows)
                    table = _with_sample(table, rows[by_row], np.concatenate(sample_ranks)[by_row],
                                         np.concatenate(sample_labels)[by_row])
                tables[m] = table
                if ranks_by_row is not None:
                    rank_arrays[m] = ranks_by_row
            pair_tables = {}
            if keep_ranks:
                for a, b in combinations(chosen, 2):
                    pair = PairBuilder(a, b, n, partial=partial)
                    ra, rb = rank_arrays[a], rank_arrays[b]
                    for lo in range(0, n_rows, PAIR_CHUNK):
                        hi = min(n_rows, lo + PAIR_CHUNK)
                        chunk = slice(lo, hi) if n_rows == n else np.flatnonzero(ra[lo:hi]) + lo  # (rank 0: left out)
                        pair.add(ra[chunk], rb[chunk], labels_by_row[chunk],
                                 None if annotated_by_row is None else annotated_by_row[chunk])
                        done += hi - lo if n_rows == n else chunk.size
                        if progress:
                            progress(done, total)
                    pair_tables[(a, b)] = pair.finish()
            rank_arrays.clear()
            return assemble(tables, pair_tables, n, self.name, roles.label, source.name, counts["excluded"])

    # ------------------------------------------------------------------ sample ranks in one pass
    def sample_ranks(self, source: src.TableSource, measures: Sequence[str] | None = None, *, ties: str = "hash",
                     seed: int | None = None, progress: Callable[[int, int], None] | None = None) -> SampleRanks:
        """The ranks of the annotated candidates among all N, one pass over the data (see
        :func:`evalcore.engines.sample_ranks`)."""
        check_policy(ties, self.name)
        seed = resolve_seed(ties, seed)
        with self.session(source) as (con, roles, counts, _):
            chosen = src.measures_in(roles, measures)
            if counts["missing"] and ties in ("optimistic", "pessimistic"):
                raise ParameterError(f"`ties` {ties!r} needs every label; use 'hash' or 'stable'")
            keys = ", ".join(f"k{roles.measures.index(m)}" for m in chosen)
            sample = con.execute(f"SELECT {src.ROW}, label, {keys} FROM base WHERE annotated "
                                 f"ORDER BY {src.ROW}").fetchnumpy()
            rows = np.asarray(sample[src.ROW], dtype=np.int64)
            labels = np.asarray(sample["label"], dtype=bool)
            sample_keys = np.column_stack([np.asarray(sample[k], dtype=np.float64) for k in keys.split(", ")])
            n = counts["rows"]
            ranks = sample_ranks_sql(con, "base", keys.split(", "), rows, labels, sample_keys, ties, seed, n,
                                     progress=progress)
            return SampleRanks(rows=rows, labels=labels, ranks={m: ranks[:, j] for j, m in enumerate(chosen)},
                               n_candidates=n, ties=ties, seed=seed, engine=self.name,
                               higher={m: roles.higher[m] for m in chosen},
                               nonfinite={m: counts[f"nonfinite:{m}"] for m in chosen})

    def order_by_floor(self, source: src.TableSource, measure: str) -> int:
        """The floor of the benchmarks: DuckDB's plain ``ORDER BY score`` of the same data, streamed and dropped."""
        with self.session(source, prepare=False) as (con, *_):
            scan = self.scan(source, con)
            reader = con.sql(f"SELECT {src.quote(measure)} FROM ({scan}) ORDER BY {src.quote(measure)} DESC") \
                .to_arrow_reader(self.batch_rows)
            return sum(batch.num_rows for batch in reader)


def _array(n: int, dtype, folder: str, name: str) -> np.ndarray:
    """An array of n values: in memory, or for large sets a file-backed map in the spill folder."""
    if n <= MAP_ABOVE:
        return np.zeros(n, dtype=dtype)
    return np.lib.format.open_memmap(Path(folder) / f"{name}.npy", mode="w+", dtype=dtype, shape=(n,))


def _with_sample(table, rows, ranks, labels):
    from dataclasses import replace

    return replace(table, sample_rows=rows, sample_ranks=ranks, sample_labels=labels)
