"""Hostile files for the reading limits, made small on disk (shared by tests/test_io_limits.py and
bench/bench_limits.py).

Each maker writes one file into a folder and returns its path. The compressed bombs repeat one
compressed block of 64 MB of ``0`` characters as concatenated streams (valid gzip, bzip2 and xz),
so a file of kilobytes to a few megabytes expands 1,000-fold or more to 4.5 GB, and takes a
fraction of a second to make.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import zipfile
from pathlib import Path

BLOCK = 64 << 20  # bytes of one compressed block
REPEATS = 70  # blocks: 4.7 GB decompressed
RDS_HEADER = b"X\n\x00\x00\x00\x03\x00\x04\x02\x02\x00\x03\x05\x00\x00\x00\x00\x05UTF-8"

_COMPRESS = {
    "gzip": lambda b: gzip.compress(b, 6),
    "bzip2": lambda b: bz2.compress(b, 9),
    "xz": lambda b: lzma.compress(b, preset=1),
}


def compressed_bomb(folder: Path, kind: str, name: str, head: bytes = b"a,b\n") -> Path:
    """``head`` then 4.7 GB of ``0``, compressed with ``kind`` as concatenated streams."""
    compress = _COMPRESS[kind]
    block = compress(b"0" * BLOCK)
    path = folder / name
    with open(path, "wb") as f:
        f.write(compress(head))
        for _ in range(REPEATS):
            f.write(block)
    return path


def xlsx_declaring(folder: Path, ref: str, rows: int = 3, name: str = "declared.xlsx") -> Path:
    """A small workbook (label and score columns, ``rows`` data rows) whose stored dimension is ``ref``."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["PP", "label", "score"])
    for i in range(rows):
        sheet.append([f"k{i}", "TRUE" if i % 3 == 0 else "FALSE", i / 4])
    buffer = io.BytesIO()
    book.save(buffer)
    return _rewrite_sheet(folder / name, buffer.getvalue(),
                          lambda xml: re.sub(rb'<dimension ref="[^"]*"', f'<dimension ref="{ref}"'.encode(), xml))


def xlsx_wide_row(folder: Path, name: str = "wide.xlsx") -> Path:
    """A small workbook with one value in the last column Excel has (XFD, column 16,384) of row 3, and a
    stored dimension (A1:C3) that does not say so."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["PP", "label", "score"])
    sheet.append(["a", "TRUE", 1.0])
    sheet.cell(row=3, column=16384, value="far")
    buffer = io.BytesIO()
    book.save(buffer)
    return _rewrite_sheet(folder / name, buffer.getvalue(),  # a stale dimension: only the real row tells
                          lambda xml: re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="A1:C3"', xml))


def _rewrite_sheet(path: Path, data: bytes, change) -> Path:
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            content = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                content = change(content)
            dst.writestr(item, content)
    return path


def parquet_declaring(folder: Path, rows: int, name: str = "declared.parquet") -> Path:
    """A Parquet file of ``rows`` rows of one all-null column: a few hundred kilobytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / name
    pq.write_table(pa.table({"x": pa.nulls(rows, pa.int8())}), path)
    return path


def long_line(folder: Path, size: int = 50_000_000, name: str = "long.csv") -> Path:
    """A text file whose second line is one field of ``size`` bytes."""
    path = folder / name
    with open(path, "wb") as f:
        f.write(b"PP,label,score\n")
        for _ in range(size // (1 << 20)):
            f.write(b"x" * (1 << 20))
        f.write(b"x" * (size % (1 << 20)) + b",TRUE,1\n")
    return path


def long_quoted_field(folder: Path, size: int = 50_000_000, name: str = "field.csv") -> Path:
    """A quoted value of ``size`` bytes spread over short lines (no line is long, the field is)."""
    path = folder / name
    line = b"y" * 99 + b"\n"
    with open(path, "wb") as f:
        f.write(b'PP,label,score\n"')
        for _ in range(size // len(line)):
            f.write(line)
        f.write(b'",TRUE,1\n')
    return path


def wide_header(folder: Path, columns: int = 100_000, name: str = "wide.csv") -> Path:
    """A header of ``columns`` columns and one data row."""
    path = folder / name
    path.write_text(",".join(f"c{i}" for i in range(columns)) + "\n" + ",".join("1" for _ in range(columns)) + "\n")
    return path
