"""The statistics of count tables chunk by chunk of n, so that memory stays bounded at every n.

A curve or a comparison at every n of 10^8 candidates is 10^8 rows; here it is computed and handed on (to a file,
a summary, a downsampled figure) a chunk of n at a time: :func:`curve_chunks` (precision, recall, F, the binomial
interval), :func:`comparison_chunks` (D1/D2 counts, Fisher's test, the effect sizes), :class:`SignificantRun`
(where the significant run ends, however many chunks), :class:`ChunkWriter` (CSV, TSV or Parquet, one chunk at a
time). Each chunk is the same table :func:`evalcore.curves.precision_curve` and
:func:`evalcore.compare.compare_rankings` return for its n: the chunked path changes where the rows go, not a
number in them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from ..compare import compare_rankings
from ..curves import precision_curve
from ..nspec import check_sizes

#: n per chunk: 4 Mi rows of a curve table are about 300 MB in pandas. (The Clopper-Pearson march re-anchors at
#: a chunk's start, so another chunk size would change the bounds' last bits: keep it.)
CHUNK = 1 << 22
#: n per chunk of a comparison (18 columns): 2 Mi rows, about 300 MB, as a curve chunk. Each n's numbers are
#: computed on their own, so the chunk changes no bit; at 4 Mi the peak was 2.1 GB instead of 1.3 at 10^7
#: candidates, and the kernel's page faults of the larger temporaries cost 2 CPU-seconds more.
COMPARE_CHUNK = 1 << 21


def size_chunks(n, n_candidates: int, chunk: int = CHUNK) -> Iterator[np.ndarray]:
    """The list sizes ``n`` (None: 1..N, never built whole) in chunks of at most ``chunk``."""
    if n is None:
        for lo in range(1, n_candidates + 1, chunk):
            yield np.arange(lo, min(n_candidates, lo + chunk - 1) + 1, dtype=np.int64)
        return
    sizes = check_sizes(n, n_candidates)
    for lo in range(0, sizes.size, chunk):
        yield sizes[lo:lo + chunk]


def curve_chunks(rankings, n=None, *, chunk: int = CHUNK, confidence_level: float | None = 0.95,
                 interval: str = "clopper_pearson", beta: float = 1.0,
                 progress: Callable[[int, int], None] | None = None) -> Iterator[pd.DataFrame]:
    """:func:`evalcore.curves.precision_curve` of each ranking, chunk by chunk of n (measure after measure)."""
    rankings = list(rankings.values()) if isinstance(rankings, Mapping) else list(rankings)
    total = sum(r.n_candidates if n is None else np.size(n) for r in rankings)
    done = 0
    for r in rankings:
        for sizes in size_chunks(n, r.n_candidates, chunk):
            yield precision_curve(r, sizes, beta=beta, confidence_level=confidence_level, interval=interval)
            done += sizes.size
            if progress:
                progress(done, total)


def comparison_chunks(a, b, n=None, *, chunk: int = COMPARE_CHUNK, confidence_level: float = 0.95,
                      alternative: str = "two-sided", effects: str | None = None,
                      progress: Callable[[int, int], None] | None = None) -> Iterator[pd.DataFrame]:
    """:func:`evalcore.compare.compare_rankings` chunk by chunk of n; with ``effects`` (a difference interval,
    e.g. ``"newcombe"``) also the effect sizes (:func:`evalcore.stats.effect.effect_sizes`)."""
    total = a.n_candidates if n is None else int(np.size(n))
    done = 0
    for sizes in size_chunks(n, a.n_candidates, chunk):
        table = compare_rankings(a, b, sizes, confidence_level=confidence_level, alternative=alternative)
        if effects:
            from ..stats.effect import EFFECT_COLUMNS, effect_sizes

            found = effect_sizes(table, confidence_level, effects, alternative)
            for column in EFFECT_COLUMNS:
                table[column] = found[column].to_numpy()
        yield table
        done += sizes.size
        if progress:
            progress(done, total)


class SignificantRun:
    """Where the run of significant n from the first tested n ends, and how many n are significant, over chunks
    (as :func:`evalcore.compare.significant_up_to` on the whole table)."""

    def __init__(self) -> None:
        self.up_to = 0
        self.n_significant = 0
        self.tested = 0
        self.open = True  # the run from the first n has not ended yet

    def add(self, table: pd.DataFrame) -> pd.DataFrame:
        sig = table["significant"].to_numpy()
        n = table["n"].to_numpy()
        self.n_significant += int(sig.sum())
        if self.open and sig.size:
            if self.tested == 0 and not sig[0]:
                self.open = False
            else:
                first_not = np.flatnonzero(~sig)
                if first_not.size:
                    if first_not[0] > 0:
                        self.up_to = int(n[first_not[0] - 1])
                    self.open = False
                else:
                    self.up_to = int(n[-1])
        self.tested += sig.size
        return table


class ChunkWriter:
    """Writes a table chunk by chunk: Parquet (one row group per chunk), TSV or CSV (by the file's ending), or CSV
    to a stream; the first chunk fixes the columns."""

    def __init__(self, target) -> None:
        from ..output import table_format

        self.target = target
        self.format = table_format(target) if isinstance(target, (str, os.PathLike)) else "csv"
        self.writer = None
        self.schema = None
        self.rows = 0

    def write(self, table: pd.DataFrame) -> None:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        from ..output import _arrow, parquet_options

        arrow = _arrow(table)
        if self.writer is None:
            self.schema = arrow.schema
            if self.format == "parquet":
                import pyarrow.parquet as pq

                self.writer = pq.ParquetWriter(os.fspath(self.target), arrow.schema, **parquet_options(arrow.schema))
            else:
                sink = self.target
                if not isinstance(sink, (str, os.PathLike)):
                    sink = getattr(sink, "buffer", sink)
                    sink.flush() if hasattr(sink, "flush") else None
                else:
                    sink = os.fspath(sink)
                options = pcsv.WriteOptions(delimiter="\t" if self.format == "tsv" else ",")
                self.writer = pcsv.CSVWriter(sink, arrow.schema, write_options=options)
        self.writer.write_table(arrow.cast(self.schema) if arrow.schema != self.schema else arrow)
        self.rows += table.shape[0]

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def __enter__(self) -> "ChunkWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def write_chunks(chunks: Iterable[pd.DataFrame], target, columns: Sequence[str] | None = None) -> int:
    """Write every chunk (only ``columns``) to ``target``; returns the rows written.

    A chunk is written (converted to Arrow, encoded, compressed, put in the file) in a second thread while the next
    is computed, so that writing every n costs little more than computing it on two cores: at most one chunk waits
    for the writer, the chunks are written in their order, and the file holds the same bytes as a serial write. An
    error of either side stops both and is raised here.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ChunkWriter(target) as writer, ThreadPoolExecutor(1, thread_name_prefix="evalcore-write") as pool:
        pending = None
        try:
            for table in chunks:
                table = table if columns is None else table[list(columns)]
                if pending is not None:
                    pending.result()  # the writer's error, if any, stops the computing here
                pending = pool.submit(writer.write, table)
                del table
            if pending is not None:
                pending.result()
        except BaseException:
            if pending is not None:
                pending.exception()  # the chunk in hand is written, as a serial write would have, then the file closed
            raise
        return writer.rows
