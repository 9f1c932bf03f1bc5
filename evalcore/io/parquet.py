"""Apache Parquet files, refused on their declared size before a value is read.

The footer declares the number of rows and columns and each row group's uncompressed
size; these are checked against ``max_rows``, ``max_columns``, ``max_cells`` and
``max_bytes`` first, so a file of a few kilobytes that declares 10^8 rows (a column of
nulls or of one repeated value compresses to almost nothing) is refused in milliseconds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import FileFormatError
from ..text import cut
from .cells import tidy
from .limits import Limits, Handover

__all__ = ["read_parquet"]


def _arrow_copy(pa, data) -> "pa.Buffer":
    """The bytes in a buffer of Arrow's own memory.

    pyarrow's threads read the file: from a Python file object (``BytesIO``) they call into Python, and a
    buffer that wraps Python bytes needs the interpreter to be released. On a broken file the read ends early
    while a pool thread may still hold such a buffer or a pending read; if the process then ends, that thread
    meets an interpreter being torn down and aborts the process (issue 18, "terminate called without an active
    exception"). Arrow's own memory needs no interpreter, and ``pre_buffer=False`` starts no read-ahead on the
    I/O pool: nothing of the read outlives it in Python's hands.
    """
    buffer = pa.allocate_buffer(len(data))
    memoryview(buffer).cast("B")[:] = memoryview(data).cast("B")
    return buffer


def read_parquet(
    content: Handover, source: str, ext: str, encoding: str | None, sheet: Any, limits: Limits
) -> pd.DataFrame:
    """The Parquet file as a typed DataFrame (a stored pandas index becomes a column)."""
    data = content.take()
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        opened = pq.ParquetFile(pa.BufferReader(data))
        meta, schema = opened.metadata, opened.schema_arrow
    except Exception as e:  # pyarrow raises ArrowInvalid, OSError, ...
        raise FileFormatError(f"{source}: cannot read as a Parquet file ({type(e).__name__}: {cut(e, 200)})") from None
    rows, columns = meta.num_rows, meta.num_columns
    declared = f"declares {rows:,} rows x {columns:,} columns"
    if rows > limits.max_rows:
        raise limits.refuse(source, "max_rows", declared)
    if columns > limits.max_columns:
        raise limits.refuse(source, "max_columns", declared)
    if rows * columns > limits.max_cells:
        raise limits.refuse(source, "max_cells", declared)
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if size > limits.max_bytes:
        raise limits.refuse(source, "max_bytes", f"declares {size:,} bytes of uncompressed data")
    try:
        df = pd.read_parquet(pa.BufferReader(_arrow_copy(pa, data)), pre_buffer=False)
    except Exception as e:  # pyarrow raises ArrowInvalid, OSError, ...
        raise FileFormatError(f"{source}: cannot read as a Parquet file ({type(e).__name__}: {cut(e, 200)})") from None
    for name in [f.name for f in schema if not _scalar(pa, f.type) and f.name in df.columns]:
        df[name] = df[name].map(_text, na_action="ignore")  # shown as text: never a label or a score
    return tidy(df, source, "parquet", "index")


def _scalar(pa, t) -> bool:
    """A type whose cells are single values pandas reads as such: booleans, numbers, text, dates and times."""
    kinds = (pa.types.is_boolean, pa.types.is_integer, pa.types.is_floating, pa.types.is_decimal, pa.types.is_string,
             pa.types.is_large_string, pa.types.is_dictionary, pa.types.is_temporal, pa.types.is_null,
             getattr(pa.types, "is_string_view", lambda t: False))
    return any(is_kind(t) for is_kind in kinds)


def _text(value: Any) -> str:
    """A cell of a list, array, struct, map, binary or interval column as text (a list as a Python list)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    return str(value)
