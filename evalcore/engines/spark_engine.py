"""The Spark engine (pyspark): the same count tables from a local or remote Spark session.

No window over one partition: per measure Spark sorts by the sort key (a range partitioning, so a tie group never
spans two partitions), the sorted data are persisted so that both passes see the same partitions, one pass counts
the rows of each partition, the driver turns the counts into offsets (prefix sums), and a second pass puts each tie
group in the policy's order (:mod:`evalcore.engines.tieorder`, in the Python workers) and numbers the ranks from the
partition's offset. The driver collects only what the count tables hold: the ranks of the TPs and of the annotated
candidates, and the tie groups. A pair of rankings is joined on the row; each partition of ``max(rank_a, rank_b)``
(range-partitioned) comes back as one row of bytes, its steps of the overlap.

Tests run Spark in local mode (Debian's Java 17); to use a cluster, pass its session (``session=``) or set
``EVALCORE_SPARK_MASTER`` (README), with evalcore installed on the workers.
"""

from __future__ import annotations

import functools
import io
import os
import sys
from itertools import combinations
from typing import Callable, Sequence

import numpy as np

from ..errors import ParameterError
from ..extras import require
from ..text import shown
from ..ranking import resolve_seed
from . import source as src
from .counts import CountTables, PairCounts, RankCounts, assemble
from .sampleranks import SampleCounter, SampleRanks
from .tieorder import check_policy

DIALECT = src.Dialect("spark")
_SESSION = []


def local_session(cores: int | None = None, memory: str | None = None):
    """One Spark session per process: ``EVALCORE_SPARK_MASTER`` (default ``local[2]``), Arrow on, the workers on
    this Python (``PYSPARK_PYTHON``)."""
    if _SESSION:
        return _SESSION[0]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    require("spark", "the Spark engine (on Java 17)")
    from pyspark.sql import SparkSession
    master = os.environ.get("EVALCORE_SPARK_MASTER", f"local[{cores or 2}]")
    session = (SparkSession.builder.master(master).appName("evalcore")
               .config("spark.driver.memory", memory or os.environ.get("EVALCORE_SPARK_MEMORY", "2g"))
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "200000")
               .config("spark.sql.shuffle.partitions", os.environ.get("EVALCORE_SPARK_PARTITIONS", "8"))
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.ansi.enabled", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    _SESSION.append(session)
    return session


def _in_words(method):
    """``method(self, source, ...)`` with Spark's, the JVM's and pyarrow's failures to read ``source`` as messages in
    words (:func:`evalcore.engines.source.read_error`: the file by its name, no path, no query)."""
    @functools.wraps(method)
    def wrapped(self, source, *args, **kwargs):
        try:
            return method(self, source, *args, **kwargs)
        except Exception as exc:
            if type(exc).__module__.split(".")[0] not in ("pyspark", "py4j", "pyarrow"):
                raise
            raise src.read_error(source, exc) from None
    return wrapped


def _bytes(a: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(a), allow_pickle=False)
    return buffer.getvalue()


def _array(b: bytes) -> np.ndarray:
    return np.load(io.BytesIO(b), allow_pickle=False)


class SparkEngine:
    """Count tables and sample ranks with Spark; ``session`` defaults to :func:`local_session`."""

    name = "spark"

    def __init__(self, session=None) -> None:
        require("spark", "the Spark engine (on Java 17)")  # before anything imports pyspark
        self._session = session

    @property
    def session(self):
        if self._session is None:
            self._session = local_session()
        return self._session

    # ------------------------------------------------------------------ reading
    def frame(self, source: src.TableSource):
        """The data as a Spark DataFrame with :data:`~evalcore.engines.source.ROW` (0-based row in file order)."""
        from pyspark.sql import functions as F

        spark = self.session
        files = [str(f) for f in source.files]
        if source.format == "parquet":
            df = spark.read.parquet(*files)
            index = F.col("_metadata.row_index")
            if len(files) == 1:
                return df.withColumn(src.ROW, index)
            import pyarrow.parquet as pq

            offsets, total = {}, 0
            for f in source.files:
                offsets[f.name] = total
                try:
                    total += pq.ParquetFile(f).metadata.num_rows
                except Exception as exc:  # (pyarrow's words do not name the part: read_error names it by this)
                    raise src.read_error(source, RuntimeError(f"{f}: {exc}")) from None
            base = F.element_at(F.split(F.col("_metadata.file_path"), "/"), -1)
            offset = F.lit(None).cast("long")
            for name, value in offsets.items():
                offset = F.when(base == F.lit(name), F.lit(value)).otherwise(offset)
            return df.withColumn(src.ROW, index + offset)
        reader = spark.read.option("header", True).option("inferSchema", True)
        if source.delimiter:
            reader = reader.option("sep", source.delimiter)
        df = reader.csv(files[0])
        indexed = df.rdd.zipWithIndex().map(lambda pair: (*pair[0], pair[1]))
        return spark.createDataFrame(indexed, df.schema.add(src.ROW, "long"))

    @_in_words
    def resolve_roles(self, source: src.TableSource, df=None) -> src.Roles:
        """The roles of ``source``'s columns (its default scores less the keys: ``Roles.left_out``)."""
        df = self.frame(source) if df is None else df
        schema = {f.name: src.schema_kind(f.dataType.simpleString()) for f in df.schema.fields if f.name != src.ROW}
        ids = src.id_candidates(source, {f.name: f.dataType.simpleString() for f in df.schema.fields})
        keys = src.distinct_integers(ids, df.selectExpr(*src.distinct_sql(ids, DIALECT)).collect()[0]) if ids else {}
        return src.resolve(source, schema, keys)

    def _prepare(self, source: src.TableSource):
        df = self.frame(source)
        roles = self.resolve_roles(source, df)
        kept = src.kept_sql(source, roles, DIALECT)
        checks = src.check_sql(roles, DIALECT, kept)
        row = df.selectExpr(*(f"{sql} AS `c{i}`" for i, (_, sql) in enumerate(checks))).collect()[0]
        counts = {name: (None if row[i] is None else int(row[i])) for i, (name, _) in enumerate(checks)}
        counts = src.check_counts(source, roles, counts)
        base = df.selectExpr(*src.base_columns(roles, DIALECT))
        return roles, counts, base if kept == "TRUE" else base.filter("annotated")  # (annotated: has a label)

    # ------------------------------------------------------------------ count tables
    def _ranked(self, base, i: int, ties: str, seed: int | None):
        """(row, rank, label, annotated, tie_start, tie_end) of one measure: sort, count per partition, offsets,
        second pass over the same (persisted) partitions."""
        from pyspark import StorageLevel
        from pyspark.sql import functions as F

        ordered = base.select(F.col(f"k{i}").alias("k"), src.ROW, "label", "annotated").orderBy("k") \
            .persist(StorageLevel.MEMORY_AND_DISK)

        def count(batches):  # pass 1: rows per partition (of the persisted sort)
            import pyarrow as pa
            from pyspark import TaskContext

            size = sum(b.num_rows for b in batches)
            yield pa.RecordBatch.from_arrays([pa.array([TaskContext.get().partitionId()]), pa.array([size])],
                                             names=["pid", "size"])

        sizes = {r["pid"]: r["size"] for r in ordered.mapInArrow(count, "pid long, size long").toArrow().to_pylist()}
        offsets, total = {}, 0
        for pid in range(max(sizes, default=-1) + 1):  # prefix sums: the rank before each partition
            offsets[pid] = total
            total += sizes.get(pid, 0)
        row_name = src.ROW

        def number(batches):  # pass 2: tie order and ranks from the partition's offset
            import pyarrow as pa
            from pyspark import TaskContext

            from evalcore.engines.tieorder import order_groups as order

            tables = list(batches)
            if not tables:
                return
            table = pa.Table.from_batches(tables)
            keys = table.column("k").to_numpy()
            rows = table.column(row_name).to_numpy()
            labels = table.column("label").to_numpy(zero_copy_only=False)
            annotated = table.column("annotated").to_numpy(zero_copy_only=False)
            perm = order(keys, rows, labels, ties, seed)
            keys, rows, labels, annotated = keys[perm], rows[perm], labels[perm], annotated[perm]
            start = offsets[TaskContext.get().partitionId()]
            ranks = np.arange(start + 1, start + keys.size + 1, dtype=np.int64)
            new = np.r_[True, keys[1:] != keys[:-1]]
            first = np.flatnonzero(new)
            group = np.cumsum(new) - 1
            g_start = first[group] + start
            g_end = np.r_[first[1:], keys.size][group] + start
            single = g_end - g_start == 1
            yield pa.RecordBatch.from_arrays(
                [pa.array(rows), pa.array(ranks), pa.array(labels), pa.array(annotated),
                 pa.array(np.where(single, -1, g_start)), pa.array(np.where(single, -1, g_end))],
                names=[row_name, "rank", "label", "annotated", "tie_start", "tie_end"])

        schema = f"`{row_name}` long, rank long, label boolean, annotated boolean, tie_start long, tie_end long"
        ranked = ordered.mapInArrow(number, schema).persist(StorageLevel.MEMORY_AND_DISK)

        def summarise(batches):  # what the count table holds, one row of bytes per partition
            import pyarrow as pa

            tables = list(batches)
            if not tables:
                return
            t = pa.Table.from_batches(tables)
            ranks = t.column("rank").to_numpy()
            labels = t.column("label").to_numpy(zero_copy_only=False)
            annotated = t.column("annotated").to_numpy(zero_copy_only=False)
            starts = t.column("tie_start").to_numpy()
            ends = t.column("tie_end").to_numpy()
            tied = np.unique(np.column_stack([starts, ends])[starts >= 0], axis=0).reshape(-1, 2)
            yield pa.RecordBatch.from_arrays(
                [pa.array([_bytes(np.sort(ranks[labels & annotated]))]), pa.array([_bytes(np.sort(ranks[annotated]))]),
                 pa.array([_bytes(tied)])], names=["tp", "ann", "ties"])

        parts = ranked.mapInArrow(summarise, "tp binary, ann binary, ties binary").toArrow().to_pylist()
        ordered.unpersist()
        tp = np.sort(np.concatenate([_array(p["tp"]) for p in parts])) if parts else np.zeros(0, np.int64)
        ann = np.sort(np.concatenate([_array(p["ann"]) for p in parts])) if parts else np.zeros(0, np.int64)
        tied = np.concatenate([_array(p["ties"]) for p in parts]) if parts else np.zeros((0, 2), np.int64)
        tied = tied[np.argsort(tied[:, 0])]
        return ranked, total, tp, ann, tied

    @_in_words
    def count_tables(self, source: src.TableSource, measures: Sequence[str] | None = None, *, ties: str = "hash",
                     seed: int | None = None, pairs: bool = True,
                     progress: Callable[[int, int], None] | None = None) -> CountTables:
        check_policy(ties, self.name)
        seed = resolve_seed(ties, seed)
        from pyspark.sql import functions as F

        roles, counts, base = self._prepare(source)
        chosen = src.measures_in(roles, measures)
        n = counts["rows"]
        partial = bool(counts["missing"])
        if partial and ties in ("optimistic", "pessimistic"):
            raise ParameterError(f"`ties` {ties!r} orders tied candidates by their labels, which are unknown for the "
                                 "unannotated candidates; use 'hash' or 'stable'")
        steps_total = len(chosen) + (len(chosen) * (len(chosen) - 1) // 2 if pairs else 0)
        ranked, tables = {}, {}
        for j, m in enumerate(chosen):
            i = roles.measures.index(m)
            df, total, tp, ann, tied = self._ranked(base, i, ties, seed)
            if total != n:
                raise ParameterError(f"Spark ranked {total:,} of {n:,} candidates by {shown(m)}")
            ranked[m] = df
            table = RankCounts(measure=m, n_candidates=n, tp_ranks=tp, tie_start=tied[:, 0], tie_end=tied[:, 1],
                               ties=ties, seed=seed, n_nonfinite=counts[f"nonfinite:{m}"],
                               higher_is_better=roles.higher[m], annotated_ranks=ann if partial else None, column=m,
                               engine=self.name)
            if partial:
                sample = df.filter("annotated").select(src.ROW, "rank", "label").orderBy(src.ROW).toArrow()
                from dataclasses import replace

                table = replace(table, sample_rows=sample.column(src.ROW).to_numpy(),
                                sample_ranks=sample.column("rank").to_numpy(),
                                sample_labels=sample.column("label").to_numpy(zero_copy_only=False))
            tables[m] = table
            if progress:
                progress(j + 1, steps_total)
        pair_tables = {}
        if pairs:
            done = len(chosen)
            for a, b in combinations(chosen, 2):
                joined = ranked[a].select(src.ROW, F.col("rank").alias("ra"), "label", "annotated").join(
                    ranked[b].select(src.ROW, F.col("rank").alias("rb")), src.ROW)
                both = joined.select(F.greatest("ra", "rb").alias("both"), "label", "annotated") \
                    .repartitionByRange("both")
                pair_tables[(a, b)] = self._pair(a, b, n, both, partial)
                done += 1
                if progress:
                    progress(done, steps_total)
        for df in ranked.values():
            df.unpersist()
        return assemble(tables, pair_tables, n, self.name, roles.label, source.name, counts["excluded"])

    def _pair(self, a: str, b: str, n: int, both_df, partial: bool) -> PairCounts:
        """Each partition's steps of the overlap over its range of ``both`` as one row of bytes."""
        def summarise(batches):
            import pyarrow as pa

            tables = list(batches)
            if not tables:
                return
            t = pa.Table.from_batches(tables)
            both = t.column("both").to_numpy()
            labels = t.column("label").to_numpy(zero_copy_only=False)
            annotated = t.column("annotated").to_numpy(zero_copy_only=False)
            lo, hi = int(both.min()), int(both.max())
            steps = np.bincount(both - lo, minlength=hi - lo + 1).astype(np.uint8)
            tp = np.sort(both[labels & annotated])
            ann = np.sort(both[annotated])
            yield pa.RecordBatch.from_arrays(
                [pa.array([lo]), pa.array([_bytes(steps)]), pa.array([_bytes(tp)]), pa.array([_bytes(ann)])],
                names=["lo", "steps", "tp", "ann"])

        parts = both_df.mapInArrow(summarise, "lo long, steps binary, tp binary, ann binary").toArrow().to_pylist()
        steps = np.zeros(n + 1, dtype=np.uint8)
        tp, ann = [], []
        for part in parts:
            s = _array(part["steps"])
            steps[part["lo"]:part["lo"] + s.size] += s
            tp.append(_array(part["tp"]))
            ann.append(_array(part["ann"]))
        cat = lambda xs: np.sort(np.concatenate(xs)) if xs else np.zeros(0, np.int64)  # noqa: E731
        return PairCounts(a, b, n, steps, cat(tp), cat(ann) if partial else None)

    # ------------------------------------------------------------------ sample ranks in one pass
    @_in_words
    def sample_ranks(self, source: src.TableSource, measures: Sequence[str] | None = None, *, ties: str = "hash",
                     seed: int | None = None, progress: Callable[[int, int], None] | None = None) -> SampleRanks:
        check_policy(ties, self.name)
        seed = resolve_seed(ties, seed)
        roles, counts, base = self._prepare(source)
        chosen = src.measures_in(roles, measures)
        keys = [f"k{roles.measures.index(m)}" for m in chosen]
        sample = base.filter("annotated").select(src.ROW, "label", *keys).orderBy(src.ROW).toArrow()
        rows = sample.column(src.ROW).to_numpy()
        labels = sample.column("label").to_numpy(zero_copy_only=False)
        sample_keys = np.column_stack([sample.column(k).to_numpy() for k in keys])
        row_name = src.ROW

        def count(batches):
            import pyarrow as pa

            from evalcore.engines.sampleranks import SampleCounter as Counter

            counter = Counter(sample_keys, rows, labels, ties, seed)
            for batch in batches:
                cols = [batch.column(k).to_numpy(zero_copy_only=False) for k in keys]
                counter.add(np.column_stack(cols), batch.column(row_name).to_numpy(),
                            batch.column("label").to_numpy(zero_copy_only=False))
            hist, within, seen = counter.state()
            yield pa.RecordBatch.from_arrays(
                [pa.array([_bytes(np.concatenate(hist))]), pa.array([_bytes(within)]), pa.array([seen])],
                names=["hist", "within", "seen"])

        parts = base.select(*keys, src.ROW, "label").mapInArrow(count, "hist binary, within binary, seen long") \
            .toArrow().to_pylist()
        counter = SampleCounter(sample_keys, rows, labels, ties, seed)
        sizes = np.cumsum([h.size for h in counter.hist])[:-1]
        for part in parts:
            counter.add_state(np.split(_array(part["hist"]), sizes), _array(part["within"]), part["seen"])
        ranks = counter.ranks()
        return SampleRanks(rows=rows, labels=labels, ranks={m: ranks[:, j] for j, m in enumerate(chosen)},
                           n_candidates=counts["rows"], ties=ties, seed=seed, engine=self.name,
                           higher={m: roles.higher[m] for m in chosen},
                           nonfinite={m: counts[f"nonfinite:{m}"] for m in chosen})
