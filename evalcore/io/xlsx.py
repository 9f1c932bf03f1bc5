"""Excel ``.xlsx`` workbooks, read within limits.

Before a cell is read, the archive's members are checked (declared uncompressed size
against ``max_bytes``, ratio against ``max_expansion``) and so is the size the sheet
declares (``<dimension ref="A1:XFD1048576"/>``) against ``max_rows``, ``max_columns`` and
``max_cells``. The cells are then read as they are in the sheet, whatever the stored
dimension says (files written by some programs carry a stale one, e.g. ``A1:B2`` over 50
rows), with the real rows and columns checked against the same limits as they come.
"""

from __future__ import annotations

import io as _io
import zipfile
from typing import Any

import numpy as np
import pandas as pd

from ..errors import FileFormatError, ParameterError
from ..text import cut, shown
from .cells import frame
from .limits import EXPANSION_GRACE, Limits, Handover
from .messages import columns_text, row_list

__all__ = ["read_xlsx"]


def read_xlsx(
    content: Handover, source: str, ext: str, encoding: str | None, sheet: Any, limits: Limits
) -> pd.DataFrame:
    """The sheet ``sheet`` (default the first) as a typed DataFrame; the first non-empty row is the header."""
    data = content.take()
    import openpyxl

    _check_archive(data, source, limits)
    try:
        book = openpyxl.load_workbook(_io.BytesIO(data), read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises many types for broken files
        raise FileFormatError(f"{source}: cannot read as an Excel .xlsx workbook ({type(e).__name__}: {cut(e, 200)})") from None
    try:
        names = book.sheetnames
        if sheet is None:
            sheet = 0
        if isinstance(sheet, int) and not isinstance(sheet, bool) and -len(names) <= sheet < len(names):
            ws = book.worksheets[sheet]
        elif isinstance(sheet, str) and sheet in names:
            ws = book[sheet]
        else:
            raise ParameterError(
                f"{source}: no sheet {shown(sheet)}; the sheets are {columns_text(names)} (or give a 0-based index)"
            )
        _check_declared(ws, source, limits)
        try:
            records = _records(book, ws, source, limits)
        except (FileFormatError, ParameterError):
            raise
        except Exception as e:  # a damaged sheet: XML, zip or CRC errors
            raise FileFormatError(f"{source}: sheet {shown(ws.title)} cannot be read ({type(e).__name__}: "
                                  f"{cut(e, 200)})") from None
    finally:
        book.close()
    if not records:
        raise FileFormatError(f"{source}: sheet {shown(ws.title)} is empty; it needs a header row and one row per candidate")
    (header_index, header), body = records[0], records[1:]
    header = dict(header)
    width = max(header, default=0)
    rows = np.array([index - header_index for index, _ in body], dtype=np.int64)
    beyond = [i for i, (_, cells) in enumerate(body) if cells and cells[-1][0] > width]
    if beyond:
        raise FileFormatError(
            f"{source}: sheet {shown(ws.title)}: {len(beyond)} row(s) have values right of the last named column "
            f"(column {width}): rows {row_list(rows[beyond])}. Give those columns a name in the header row "
            "or delete the values."
        )
    columns = [[None] * len(body) for _ in range(width)]
    for i, (_, cells) in enumerate(body):
        for column, value in cells:
            if not (isinstance(value, str) and (value == "NA" or not value.strip())):
                columns[column - 1][i] = value
    names = ["" if header.get(j) is None else str(header[j]) for j in range(1, width + 1)]
    df = frame(names, [pd.Series(c, dtype=object) for c in columns], rows, source)
    df.attrs.update(format="xlsx", sheet=ws.title)
    return df


def _check_archive(data: bytes, source: str, limits: Limits) -> None:
    """Refuse members whose declared size passes ``max_bytes`` or that expand like a bomb."""
    try:
        members = zipfile.ZipFile(_io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise FileFormatError(f"{source}: cannot read as an Excel .xlsx workbook (BadZipFile: {cut(e, 200)})") from None
    for m in members:
        if m.file_size > limits.max_bytes:
            raise limits.refuse(source, "max_bytes", f"its part {shown(m.filename)} declares {m.file_size:,} bytes "
                                                     "uncompressed")
        if m.file_size > EXPANSION_GRACE and m.file_size > limits.max_expansion * max(m.compress_size, 1):
            raise limits.refuse(
                source, "max_expansion",
                f"its part {shown(m.filename)} expands {m.file_size / max(m.compress_size, 1):,.0f}-fold "
                f"({m.compress_size:,} to {m.file_size:,} bytes), as a decompression bomb does",
            )


def _check_declared(ws: Any, source: str, limits: Limits) -> None:
    """Refuse a sheet whose stored dimension passes the limits, before reading a cell."""
    rows, columns = ws.max_row, ws.max_column
    if rows is None or columns is None:
        return
    what = f"sheet {shown(ws.title)} declares {rows:,} rows x {columns:,} columns (its stored dimension)"
    hint = "If the sheet is really smaller, open and save it again in Excel or LibreOffice to correct that."
    for name, value in (("max_columns", columns), ("max_rows", rows - 1), ("max_cells", rows * columns)):
        if value > getattr(limits, name):
            raise limits.refuse(source, name, what, hint)


def _records(book: Any, ws: Any, source: str, limits: Limits) -> list[tuple[int, list[tuple[int, Any]]]]:
    """Every row that has a value, as (sheet row number, [(column number, value), ...]) from the
    first such row on, read as the sheet holds them (the stored dimension is not trusted)."""
    from openpyxl.worksheet._reader import WorkSheetParser

    out: list[tuple[int, list[tuple[int, Any]]]] = []
    cells_seen = 0
    with ws._get_source() as src:  # what openpyxl's read-only sheets do, without padding rows to a width
        parser = WorkSheetParser(src, ws._shared_strings, data_only=True, epoch=book.epoch,
                                 date_formats=book._date_formats, timedelta_formats=book._timedelta_formats)
        for index, cells in parser.parse():
            values = [(c["column"], c["value"]) for c in cells if c["value"] is not None]
            if not values:
                continue
            values.sort(key=lambda cv: cv[0])
            last = values[-1][0]
            where = f"sheet {shown(ws.title)}, row {index:,}"
            if last > limits.max_columns:
                raise limits.refuse(source, "max_columns", f"{where} has a value in column {last:,}")
            if out and index - out[0][0] > limits.max_rows:
                raise limits.refuse(source, "max_rows", f"{where} is data row {index - out[0][0]:,}")
            cells_seen += last
            if cells_seen > limits.max_cells:
                raise limits.refuse(source, "max_cells", f"{where}: the rows up to it span {cells_seen:,} cells")
            out.append((index, values))
    return out
