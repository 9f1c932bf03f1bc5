"""What the rest of the command line's work costs, estimated before it starts: reading a file, ranking, the curves
and tables written at every n, the estimates from an annotated sample, the DuckDB and Spark engines, and the
commands that compute no resampling (power, simulate, auc-test, accept, summary, validate, across, uir,
pool-plan).

The resampling tests, the ROC bootstrap, a report's numbers and systems on a test set have their models in
:mod:`.cost`, scoring text in :mod:`.scoring`. Each function here returns a :class:`~evalcore.work.cost.WorkEstimate`
whose seconds are CPU seconds of the project's reference machine (2 cores, shared), measured by
``bench/bench_work.py`` (the coefficients below, with a margin of about 1.5 over what it measured).

============================  ==============================================================  ==================
work                          cost                                                            model
============================  ==============================================================  ==================
reading a file                per byte, by format (text 12 ns, CSV/TSV 25 ns, Parquet 6 ns,   :func:`reading_estimate`
                              Excel 5 us, R 200 ns), compressed files at 20 times their
                              size (the reading limits stop more); and per call 5 ms for a
                              table (detection, sniffing), 50 us for text lines
ranking                       0.15 us per candidate and measure                               :func:`ranking_estimate`
a table at every n            3 us per row written (n x measures: the exact decimal           :func:`table_estimate`
                              numbers and the intervals), 1 us per row computed in chunks
estimates from a sample       60 us per (n, measure) with the hypergeometric interval, 10     :func:`sample_estimate`
                              us with Clopper-Pearson; Fisher on the annotated D1, D2: 25 us
DuckDB, Spark                 0.6 us (DuckDB) or 3 us (Spark) per row and measure counted,    :func:`engine_estimate`
                              and 1 s (DuckDB) or 30 s (Spark: its JVM) to start
============================  ==============================================================  ==================
"""

from __future__ import annotations

import os
from pathlib import Path

from .cost import WorkEstimate, WorkModel

__all__ = ["reading_estimate", "ranking_estimate", "table_estimate", "sample_estimate", "engine_estimate",
           "per_item_estimate", "READ_PER_BYTE"]

#: Seconds per byte read, by how the file is read (evalcore.io): text lines, delimited text, Parquet, Excel, R.
READ_PER_BYTE = {"text": 1.2e-8, "csv": 2.5e-8, "parquet": 6e-9, "xlsx": 5e-6, "r": 2e-7}
#: Seconds of one call of the reader whatever the size: a table (the format and encoding detected, the delimiter
#: sniffed, pandas' or pyarrow's set-up: 4.2 ms measured for a 2-line CSV) and a file of text lines (40 us).
READ_CALL = {"text": 5e-5, "table": 5e-3}
#: A compressed file is estimated at this many times its size (real tables compress 3- to 20-fold; the reading
#: limit ``max_expansion`` stops a file that expands more).
COMPRESSED_EXPANSION = 20
_COMPRESSED = (".gz", ".bz2", ".xz")
_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx", ".xlsm": "xlsx", ".rda": "r", ".rdata": "r",
            ".rds": "r"}
RANK_PER_CANDIDATE = 1.5e-7
ROW_WRITTEN = 3e-6
ROW_CHUNKED = 1e-6
SAMPLE_PER_SIZE = {"hypergeometric": 6e-5, "clopper_pearson": 1e-5, "fisher": 2.5e-5}
ENGINE_PER_ROW = {"duckdb": (1.0, 6e-7), "spark": (30.0, 3e-6)}


def _size(source) -> int:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return len(source)
    try:
        path = Path(source)
        if path.is_dir():  # a folder of Parquet parts
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size
    except (OSError, TypeError, ValueError):
        return 0


def reading_estimate(source, name: str | None = None, *, kind: str | None = None,
                     size: int | None = None) -> WorkEstimate:
    """The cost of reading ``source`` (a path, a folder of Parquet parts, or bytes) by its size and format.

    ``kind``: ``"text"`` for a file of text lines (references, hypotheses); else the format is taken from the
    name's ending (CSV/TSV by default). ``size``: the bytes, where they are known without looking at ``source``
    (a stored data set's record; ``source`` is then only named).

    Examples
    --------
    >>> reading_estimate(b"x" * 1_000_000, "a.tsv").what
    'reading a.tsv (1,000,000 bytes)'
    """
    label = name or (str(source) if not isinstance(source, (bytes, bytearray, memoryview)) else "the upload")
    size = _size(source) if size is None else int(size)
    lower = str(label).lower()
    compressed = lower.endswith(_COMPRESSED)
    if compressed:
        lower = lower.rsplit(".", 1)[0]
    fmt = kind or _FORMATS.get(os.path.splitext(lower)[1], "csv")
    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        fmt = "parquet"
    seconds = (READ_CALL["text" if fmt == "text" else "table"]
               + READ_PER_BYTE.get(fmt, READ_PER_BYTE["csv"]) * size * (COMPRESSED_EXPANSION if compressed else 1))
    return WorkEstimate(f"reading {Path(str(label)).name} ({size:,} bytes)", WorkModel(fixed=seconds),
                        advice="read a smaller file, or raise the budget")


def ranking_estimate(n_candidates: int, measures: int, *, what: str = "ranking") -> WorkEstimate:
    """The cost of ranking ``n_candidates`` by each of ``measures`` (a sort each, ties broken)."""
    return WorkEstimate(f"{what} {n_candidates:,} candidates by {measures} measure{'s' if measures != 1 else ''}",
                        WorkModel(fixed=RANK_PER_CANDIDATE * n_candidates * max(measures, 1)))


def table_estimate(n_candidates: int, measures: int, sizes: int, *, what: str, chunked: bool = False) -> WorkEstimate:
    """The cost of ranking and of a table at ``sizes`` list sizes for each of ``measures`` (curves, acceptance
    sets, the tests at every n): one row per (n, measure), written with exact numbers (``chunked``: computed and
    written chunk by chunk, the engines')."""
    per_row = ROW_CHUNKED if chunked else ROW_WRITTEN
    seconds = RANK_PER_CANDIDATE * n_candidates * max(measures, 1) + per_row * sizes * max(measures, 1)
    return WorkEstimate(f"{what} at {sizes:,} list sizes for {measures} measure{'s' if measures != 1 else ''} of "
                        f"{n_candidates:,} candidates", WorkModel(fixed=seconds),
                        advice="test fewer n (--n with a step, e.g. 100:20000:100)")


def sample_estimate(n_candidates: int, measures: int, sizes: int, interval: str) -> WorkEstimate:
    """The cost of estimates from an annotated sample (``--annotated-sample``) at ``sizes`` list sizes for
    ``measures`` measures (or pairs, with ``interval="fisher"``: Fisher's test on the annotated D1 and D2)."""
    per = SAMPLE_PER_SIZE.get(interval, SAMPLE_PER_SIZE["hypergeometric"]) + ROW_WRITTEN
    seconds = RANK_PER_CANDIDATE * n_candidates * max(measures, 1) + per * sizes * max(measures, 1)
    kind = "Fisher's test on the annotated candidates" if interval == "fisher" else f"{interval} estimates"
    return WorkEstimate(f"{kind} at {sizes:,} list sizes for {measures} measure{'s' if measures != 1 else ''} of "
                        f"{n_candidates:,} candidates", WorkModel(fixed=seconds),
                        advice="test fewer n (--n with a step, e.g. 100:20000:100)")


def engine_estimate(engine: str, rows: int, measures: int, sizes: int, *, what: str) -> WorkEstimate:
    """The cost of counting ``rows`` candidates by ``measures`` measures with DuckDB or Spark (their count tables)
    and the statistics at ``sizes`` list sizes, chunk by chunk."""
    start, per_row = ENGINE_PER_ROW[engine]
    seconds = start + per_row * rows * max(measures, 1) + ROW_CHUNKED * sizes * max(measures, 1)
    return WorkEstimate(f"{what} with {engine}: {rows:,} candidates, {measures} measure"
                        f"{'s' if measures != 1 else ''}, {sizes:,} list sizes", WorkModel(fixed=seconds),
                        advice="test fewer n (--n with a step), or fewer measures")


def per_item_estimate(items: int, seconds_each: float, *, what: str, advice: str = "") -> WorkEstimate:
    """``items`` units of work of ``seconds_each`` seconds (simulated candidates, tested sizes, pairs)."""
    return WorkEstimate(what, WorkModel(fixed=items * seconds_each), advice=advice)
