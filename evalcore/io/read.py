"""Reading a table: from a path, bytes or an upload to a typed DataFrame, within limits.

:func:`read_table` gets the bytes (a file larger than ``max_bytes`` is refused by its
size, unread), decompresses them within the limits, finds the format
(:mod:`evalcore.io.formats`) and hands them to that format's reader (:data:`READERS`).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Union

import pandas as pd

from ..errors import FileFormatError, ParameterError
from .compression import decompress
from .encodings import to_utf8
from .formats import detect, extension
from .limits import Handover, LimitError, Limits, limits_from
from .parquet import read_parquet
from .rfiles import read_rda, read_rds
from .text import read_text
from .xlsx import read_xlsx

__all__ = ["read_table", "text_as_utf8", "READERS"]

Source = Union[str, "os.PathLike[str]", bytes]


def display_name(source: Any, name: str | None) -> str:
    if name:
        return str(name)
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return str(getattr(source, "name", "") or "<upload>")


def read_table(
    source: Source | Any,
    *,
    name: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = None,
    limits: Limits | None = None,
) -> pd.DataFrame:
    """Read a candidate table from a file or from uploaded bytes.

    Parameters
    ----------
    source : str, path-like, bytes or binary file object
        A path, or the content of an uploaded file (bytes or an object with
        ``read()``, whose ``name`` attribute is used when ``name`` is not given).
    name : str, optional
        File name used to detect the format and in messages (default: the path).
    encoding : str, optional
        Encoding of a text file. Default: detected among UTF-8 (with or without
        byte-order mark), UTF-16, Windows-1252 and Latin-1
        (:mod:`evalcore.io.encodings`); the one used is in ``attrs["encoding"]``.
        Only for text files.
    sheet : str or int, optional
        Worksheet (name or 0-based index) of an ``.xlsx`` file, or the name of the
        data frame in an ``.rda`` file holding several. Only for those formats.
    limits : Limits, optional
        Bounds checked while reading (:class:`evalcore.io.Limits`); default: the
        defaults with the environment's ``EVALCORE_MAX_*`` variables applied.

    Returns
    -------
    DataFrame
        One column per field, index ``row`` = 1-based data row numbers (see the
        module docstring). ``attrs`` records the format and, for text, the
        encoding and delimiter used.

    Raises
    ------
    FileFormatError
        Empty or unreadable file, unknown format, parse errors, rows with a wrong
        number of fields, a header without data rows.
    ColumnError
        Duplicate column names.
    LimitError
        The file passes one of the limits (its message names the limit and how to raise it).
    ParameterError
        Unknown encoding or sheet, or an option that does not apply to the format.
    """
    limits = limits_from(limits)
    display = display_name(source, name)
    raw = _raw_bytes(source, display, limits)
    if not raw:
        raise FileFormatError(f"{display}: the file is empty (0 bytes)")
    data, _ = decompress(raw, display, limits)
    del raw  # (the compressed bytes, if they were)
    fmt = detect(data, display)
    if encoding is not None and fmt != "text":
        raise ParameterError(f"{display}: an encoding applies only to text files, not to {fmt} files; leave it unset")
    if sheet is not None and fmt not in ("xlsx", "rda"):
        raise ParameterError(
            f"{display}: a sheet applies only to .xlsx and .rda files, not to {fmt} files; leave it unset"
        )
    content = Handover(data)
    del data  # the reader holds the only reference: it frees the bytes once they are parsed
    try:
        df = READERS[fmt](content, display, extension(display), encoding, sheet, limits)
    except MemoryError:  # within the limits, but more than this machine has free now
        raise LimitError(
            f"{display}: there is not enough free memory to read this file now. Try again later, or lower the "
            "limits where evalcore runs (EVALCORE_MAX_BYTES, EVALCORE_MAX_ROWS; see evalcore.io.limits) so that "
            "such files are refused at once."
        ) from None
    _check_shape(df, display, limits)
    return df


def text_as_utf8(
    source: Source | Any, *, name: str | None = None, encoding: str | None = None, limits: Limits | None = None
) -> bytes:
    """The text of a (possibly compressed) text file as UTF-8 bytes, read as ``encoding``
    (default: detected). The Data page stores this as a new data set when a user overrides
    the detected encoding, so every page and every link then reads the same letters.

    Raises
    ------
    ParameterError
        The file is not a text file.
    FileFormatError, LimitError
        As :func:`read_table`.
    """
    limits = limits_from(limits)
    display = display_name(source, name)
    raw = _raw_bytes(source, display, limits)
    if not raw:
        raise FileFormatError(f"{display}: the file is empty (0 bytes)")
    data, _ = decompress(raw, display, limits)
    del raw
    fmt = detect(data, display)
    if fmt != "text":
        raise ParameterError(f"{display}: an encoding applies only to text files, not to {fmt} files")
    text, _ = to_utf8(data, display, encoding)
    return bytes(text)


def _raw_bytes(source: Any, display: str, limits: Limits) -> bytes | bytearray:
    """The file's bytes, refused by its size (``max_bytes``) before they are read where it is known."""
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size > limits.max_bytes:
                    raise limits.refuse(display, "max_bytes", f"the file has {size:,} bytes")
                return f.read()
        except OSError as e:
            raise FileFormatError(f"{display}: cannot open the file ({e.strerror or e})") from None
    if isinstance(source, (bytes, bytearray)):
        data = source
    elif isinstance(source, memoryview):
        data = source.tobytes()
    elif hasattr(source, "read"):
        data = source.read(limits.max_bytes + 1)
        if not isinstance(data, (bytes, bytearray)):
            raise ParameterError(f"cannot read a {type(source).__name__} opened as text; open the file in binary "
                                 "mode ('rb')")
    else:
        raise ParameterError(
            f"cannot read a {type(source).__name__}; give a path, the file's bytes or a binary file object"
        )
    if len(data) > limits.max_bytes:
        raise limits.refuse(display, "max_bytes", f"the file has {len(data):,} bytes" if not hasattr(source, "read")
                            else "the file is larger")
    return data


def _check_shape(df: pd.DataFrame, source: str, limits: Limits) -> None:
    """The table as read, against the limits (for formats whose readers cannot check while reading)."""
    rows, columns = df.shape
    if columns > limits.max_columns:
        raise limits.refuse(source, "max_columns", f"has {columns:,} columns")
    if rows > limits.max_rows:
        raise limits.refuse(source, "max_rows", f"has {rows:,} rows")
    if rows * columns > limits.max_cells:
        raise limits.refuse(source, "max_cells", f"has {rows:,} rows x {columns:,} columns")


READERS: dict[str, Callable[..., pd.DataFrame]] = {
    "text": read_text,
    "xlsx": read_xlsx,
    "parquet": read_parquet,
    "rda": read_rda,
    "rds": read_rds,
}
"""The reader of each format of :data:`evalcore.io.formats.FORMATS`:
``reader(content, source, extension, encoding, sheet, limits) -> DataFrame``, where ``content``
is a :class:`~evalcore.io.limits.Handover` of the (decompressed) bytes."""
