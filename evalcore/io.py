"""Reading candidate tables and turning them into a validated :class:`CandidateSet`.

Formats
-------
The format comes from the file extension (case-insensitive); when the extension is
unknown, the content decides (magic bytes, else text):

- ``.csv``, ``.tsv``, ``.tab``, ``.txt``: delimited text; the delimiter is detected
  among comma, tab, semicolon and ``|``. Gzip compression (``.gz``) is recognised
  by its magic bytes, whatever the name says.
- ``.parquet``, ``.pq``: Apache Parquet.
- ``.xlsx``, ``.xlsm``: Excel workbook; the first sheet unless ``sheet`` is given.
- ``.rda``, ``.RData``: R data file; its only data frame, or the one named by ``sheet``.
- ``.rds``: R single-object file holding a data frame.

Text files are read as UTF-8 (a byte-order mark is removed; UTF-16 is recognised by
its byte-order mark); if the bytes are not valid UTF-8, the whole file is read as
Latin-1 instead, unless an explicit ``encoding`` is given. In text files (and text
cells of workbooks) an empty or blank field and the exact string ``NA`` (as R writes
it) are missing values; everything else is kept as written. A column whose every
non-missing value is a plain number (``12``, ``-3.5``, ``1e-5``, also ``NaN``,
``Inf``, ``-Inf``) becomes numeric; all other columns stay strings, so ``TRUE``,
``T``, ``+`` or ``007`` in a text column are never reinterpreted while reading.
Blank lines and rows whose fields are all empty hold no candidate and are skipped;
they still count for row numbers. Duplicate column names are an error; nameless
columns are called ``Unnamed: i`` (0-based position, as pandas does), and a header
one field short of every data row (R's ``write.table`` with row names) gets a first
column ``row.names``.

Row numbers
-----------
Every message and :attr:`CandidateSet.rows` use one convention: **row N is the
N-th data row, counted from 1, header not counted**, blank lines and empty rows
included in the count. In a text file with its header on line 1, row N is the
record that starts on line N + 1 (also when values span several lines); in a
spreadsheet, row N is shown as row N + 1; in Parquet and R files it is the N-th
row. Messages about the layout of a text file add the line, e.g. ``row 4 (line 5)``.
:func:`read_table` returns these numbers as the index of the DataFrame (named
``"row"``); the other functions use that index when they get a Series or
DataFrame carrying it, and positions 1..N otherwise.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import csv
import gzip
import io as _io
import lzma
import os
import re
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Callable, Iterable, Iterator, Sequence, Union

import numpy as np
import pandas as pd

from .candidates import HIGHER, LOWER, CandidateSet
from .errors import ColumnError, FileFormatError, LabelError, ParameterError, ScoreError

__all__ = [
    "ROW_INDEX",
    "ColumnRoles",
    "read_table",
    "suggest_roles",
    "parse_labels",
    "parse_scores",
    "build_candidate_set",
    "load_candidates",
]

Source = Union[str, "os.PathLike[str]", bytes]

ROW_INDEX = "row"
"""Name of the index :func:`read_table` gives its DataFrame: 1-based data row numbers."""

MAX_EXAMPLES = 5
_DELIMITERS = (",", "\t", ";", "|")
_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}

# ---------------------------------------------------------------------------
# Vocabularies
# ---------------------------------------------------------------------------

_TRUE_WORDS = frozenset({"true", "t", "yes", "y", "tp", "+", "1"})
_FALSE_WORDS = frozenset({"false", "f", "no", "n", "fp", "-", "0"})
LABEL_VOCABULARY = "TRUE/FALSE, T/F, 1/0, yes/no, y/n, TP/FP, +/- (any letter case)"
_LABEL_NAMES = ("label", "is_tp", "is.tp", "tp", "gold", "is.colloc")
_ROW_NAME_COLUMNS = ("row.names", "Unnamed: 0")  # R row names, a pandas index written to CSV: keys

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_SPECIAL_FLOATS = {
    "nan": np.nan, "na": np.nan, "inf": np.inf, "+inf": np.inf, "infinity": np.inf,
    "+infinity": np.inf, "-inf": -np.inf, "-infinity": -np.inf,
}
# Numbers, also with decimal commas or thousands separators: text columns mostly of these are scores.
_NUMBERISH = re.compile(r"[+-]?[\d.,' ]*\d[\d.,' ]*(?:[eE][+-]?\d+)?")
_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")

_MISSING = object()  # result of the label/score cell parsers for a missing value
_BAD = object()  # ... for a value outside the vocabulary


# ---------------------------------------------------------------------------
# Small helpers shared by the messages
# ---------------------------------------------------------------------------


def _is_missing(v: Any) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    return isinstance(v, (float, np.floating)) and bool(np.isnan(v))


def _row_numbers(values: Any, n: int, rows: Any = None) -> np.ndarray:
    """Row numbers for messages: explicit ``rows``, else a ``row`` index, else 1..n."""
    if rows is not None:
        out = np.asarray(rows, dtype=np.int64)
        if out.shape != (n,):
            raise ParameterError(f"rows has {out.shape[0]} entries but there are {n} values")
        return out
    if isinstance(values, (pd.Series, pd.DataFrame)):
        index = values.index
        if index.name == ROW_INDEX and pd.api.types.is_integer_dtype(index):
            return index.to_numpy(dtype=np.int64)
    return np.arange(1, n + 1, dtype=np.int64)


def _examples(rows: np.ndarray, values: Sequence[Any], total: int) -> str:
    """``row 3: 'x', row 8: 'y' (and 4 more)`` for the first offending cells."""
    parts = [f"row {r}: {v!r}" for r, v in zip(rows[:MAX_EXAMPLES], values[:MAX_EXAMPLES])]
    more = f" (and {total - MAX_EXAMPLES} more)" if total > MAX_EXAMPLES else ""
    return ", ".join(parts) + more


def _row_list(rows: np.ndarray) -> str:
    text = ", ".join(str(r) for r in rows[:MAX_EXAMPLES])
    return text + (f" (and {len(rows) - MAX_EXAMPLES} more)" if len(rows) > MAX_EXAMPLES else "")


def _columns_text(columns: Iterable[Any]) -> str:
    return ", ".join(repr(c) for c in columns) or "(none)"


def _plain(v: Any) -> Any:
    """A cell value as users wrote it (numpy scalars shown as Python values)."""
    return v.item() if isinstance(v, np.generic) else v


# ---------------------------------------------------------------------------
# Reading files
# ---------------------------------------------------------------------------

_EXTENSIONS = {
    ".csv": "text", ".tsv": "text", ".tab": "text", ".txt": "text",
    ".parquet": "parquet", ".pq": "parquet",
    ".xlsx": "xlsx", ".xlsm": "xlsx",
    ".rda": "rda", ".rdata": "rda", ".rds": "rds",
}
_SUPPORTED = ".csv, .tsv, .txt (optionally .gz), .parquet, .xlsx, .rda/.RData, .rds"
_GZIP = b"\x1f\x8b"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_RDA_MAGIC = (b"RDX2\n", b"RDX3\n", b"RDA2\n", b"RDA3\n")
_RDS_MAGIC = (b"X\n", b"B\n")
_COMPRESSED: dict[bytes, Callable[[Any], Any]] = {  # magic -> opener of a decompressing stream
    _GZIP: lambda f: gzip.GzipFile(fileobj=f), b"BZh": bz2.BZ2File, b"\xfd7zXZ\x00": lzma.LZMAFile,
}


def _sniff_format(data: bytes) -> str | None:
    """Format from content alone; None for binary content of an unknown kind."""
    if data.startswith(b"PAR1"):
        return "parquet"
    if data.startswith(b"PK\x03\x04"):
        return "xlsx"
    for magic, opener in _COMPRESSED.items():
        if data.startswith(magic):  # R compresses its files; other compressed content is unknown here
            try:
                data = opener(_io.BytesIO(data)).read(5)
            except (OSError, EOFError, lzma.LZMAError):
                return None
            return "rda" if data in _RDA_MAGIC else "rds" if data[:2] in _RDS_MAGIC else None
    if data[:5] in _RDA_MAGIC:
        return "rda"
    if data[:2] in _RDS_MAGIC:
        return "rds"
    return "text" if data.startswith(_UTF16_BOMS) or b"\x00" not in data[:8192] else None


def _extension(name: str) -> str:
    """Lower-case extension, looking through a final ``.gz``."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _detect(data: bytes, name: str) -> tuple[str, bytes]:
    """(format, bytes to read); gzip-compressed text, Parquet or xlsx is decompressed here."""
    ext = _extension(name)
    fmt = _EXTENSIONS.get(ext)
    if fmt in ("rda", "rds"):  # rdata reads gzip, bzip2 and xz compressed files itself
        sniffed = _sniff_format(data)
        return (sniffed if sniffed in ("rda", "rds") else fmt), data  # an .rds saved as .rda works too
    if data.startswith(_GZIP):  # whatever the name says: the content decides
        sniffed = _sniff_format(data) if fmt is None else None
        if sniffed in ("rda", "rds"):
            return sniffed, data
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise FileFormatError(
                f"{name}: gzip-compressed but cannot be decompressed ({e}); the file may be truncated"
            ) from None
        if not data:
            raise FileFormatError(f"{name}: the file is empty (after gzip decompression)")
    fmt = fmt or _sniff_format(data)
    if fmt is None:
        old_excel = data.startswith(b"\xd0\xcf\x11\xe0")
        hint = " It looks like an old Excel .xls file: save it as .xlsx or CSV." if old_excel else ""
        raise FileFormatError(
            f"{name}: unknown file format (extension {ext or '(none)'!r}, binary content).{hint} "
            f"Supported formats: {_SUPPORTED}."
        )
    return fmt, data


def _decode(data: bytes, source: str, encoding: str | None) -> tuple[str, str]:
    """Decode text: explicit encoding, else UTF-8, else Latin-1. Removes a BOM."""
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ParameterError(f"unknown encoding {encoding!r}; use e.g. 'utf-8' or 'latin-1'") from None
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise FileFormatError(
                f"{source}: line {line} is not valid {encoding} (byte {data[e.start:e.start + 1]!r}); "
                "give the file's real encoding (e.g. 'latin-1', 'cp1252'), or none to detect UTF-8/Latin-1"
            ) from None
    elif data.startswith(_UTF16_BOMS):  # Excel's "Unicode text"
        text, encoding = _decode(data, source, "utf-16")
    else:
        try:
            text, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, encoding = data.decode("latin-1"), "latin-1"
    return text.removeprefix("\ufeff"), encoding


def _sniff_delimiter(text: str, ext: str) -> str:
    """The delimiter that splits the first lines into the most fields, consistently."""
    head = text[:65536]
    lines = head.splitlines()
    if len(head) < len(text):
        lines.pop()  # cut off
    lines = [line for line in lines[:50] if line.strip()]
    preferred = {".tsv": "\t", ".tab": "\t"}.get(ext, ",")
    order = (preferred,) + tuple(d for d in _DELIMITERS if d != preferred)

    def score(d: str) -> tuple[bool, int, int]:
        counts = [len(r) for r in csv.reader(lines, delimiter=d)]
        data = counts[1:] or counts
        width = max(set(data), key=data.count)
        consistent = all(c == width for c in data) and counts[0] in (width, width - 1)
        return consistent and width > 1, width, -order.index(d)

    return max(order, key=score) if lines else preferred


def _read_text(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    if encoding is None and b"\x00" in data[:8192] and not data.startswith(_UTF16_BOMS):
        actual = _sniff_format(data)
        hint = f" It looks like a {actual} file: give it the matching extension." if actual != "text" and actual else ""
        raise FileFormatError(f"{source}: binary content, not a text table.{hint} Supported formats: {_SUPPORTED}.")
    text, encoding = _decode(data, source, encoding)
    if not text.strip():
        raise FileFormatError(f"{source}: the file is empty; it needs a header line and one line per candidate")
    delimiter = _sniff_delimiter(text, ext)
    reader = csv.reader(_io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        records = list(reader)
    except csv.Error as e:
        lines = text.splitlines()
        header_line = next(i for i, line in enumerate(lines, 1) if line.strip())
        line = reader.line_num
        where = f"row {line - header_line}" if line > header_line else "the header"
        raise FileFormatError(
            f"{source}: cannot parse line {line} ({where}): {e}. A value that contains "
            f"the delimiter ({_DELIMITER_NAMES[delimiter]}), a quote or a line break must be enclosed in "
            'double quotes, with quotes inside it doubled ("").'
        ) from None
    if reader.line_num == len(records):  # one record per line: record i starts on line i + 1
        starts = np.arange(1, len(records) + 1, dtype=np.int64)
    else:  # some values span lines: each record starts after the line where the one before ends
        again = csv.reader(_io.StringIO(text, newline=""), delimiter=delimiter)
        ends = np.fromiter((again.line_num for _ in again), dtype=np.int64, count=len(records))
        starts = np.concatenate(([1], ends[:-1] + 1))
    filled = np.fromiter((bool(r) and (len(r) > 1 or bool(r[0].strip())) for r in records), bool, len(records))
    first = int(np.argmax(filled))  # the header: the first line that is not blank
    header, header_line = records[first], int(starts[first])
    body = np.flatnonzero(filled[first + 1 :]) + first + 1
    records = [records[i] for i in body]
    rows, starts = starts[body] - header_line, starts[body]
    widths = np.fromiter(map(len, records), dtype=np.int64, count=len(records))
    if len(records) and (widths == len(header) + 1).all():
        header = ["row.names", *header]  # R's write.table: no header field over the row names
    bad = np.flatnonzero(widths != len(header))
    if len(bad):
        where = ", ".join(f"row {rows[i]} (line {starts[i]}) has {widths[i]}" for i in bad[:MAX_EXAMPLES])
        more = f" (and {len(bad) - MAX_EXAMPLES} more rows)" if len(bad) > MAX_EXAMPLES else ""
        raise FileFormatError(
            f"{source}: {len(bad)} row(s) have a wrong number of fields: the header (line {header_line}) has "
            f"{len(header)} fields, but {where}{more}. The delimiter was detected as {_DELIMITER_NAMES[delimiter]}; "
            "check for a missing or extra delimiter, and quote values that contain it."
        )
    cells = pd.DataFrame(records, columns=range(len(header)), dtype=object).astype("str")
    for j in cells.columns:
        cells[j] = cells[j].mask(cells[j].eq("NA") | cells[j].str.strip().eq(""))
    df = _frame(header, cells, rows, source)
    df.attrs.update(format="text", encoding=encoding, delimiter=delimiter)
    return df


def _read_xlsx(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    import openpyxl

    try:
        book = openpyxl.load_workbook(_io.BytesIO(data), read_only=True, data_only=True)
    except Exception as e:  # openpyxl raises many types for broken files
        raise FileFormatError(f"{source}: cannot read as an Excel .xlsx workbook ({type(e).__name__}: {e})") from None
    names = book.sheetnames
    if sheet is None:
        sheet = 0
    if isinstance(sheet, int) and not isinstance(sheet, bool) and -len(names) <= sheet < len(names):
        ws = book.worksheets[sheet]
    elif isinstance(sheet, str) and sheet in names:
        ws = book[sheet]
    else:
        raise ParameterError(
            f"{source}: no sheet {sheet!r}; the sheets are {_columns_text(names)} (or give a 0-based index)"
        )
    try:
        table = [list(r) for r in ws.iter_rows(values_only=True)]
    finally:
        book.close()
    start = next((i for i, r in enumerate(table) if any(v is not None for v in r)), None)
    if start is None:
        raise FileFormatError(f"{source}: sheet {ws.title!r} is empty; it needs a header row and one row per candidate")
    header = table[start]
    while header and header[-1] is None:
        header.pop()
    width = len(header)
    records = table[start + 1 :]
    rows = np.arange(1, len(records) + 1, dtype=np.int64)
    beyond = [i for i, r in enumerate(records) if any(v is not None for v in r[width:])]
    if beyond:
        raise FileFormatError(
            f"{source}: sheet {ws.title!r}: {len(beyond)} row(s) have values right of the last named column "
            f"(column {width}): rows {_row_list(rows[beyond])}. Give those columns a name in the header row "
            "or delete the values."
        )
    cells = pd.DataFrame(
        [
            [None if isinstance(v, str) and (v == "NA" or not v.strip()) else v for v in (r + [None] * width)[:width]]
            for r in records
        ],
        columns=range(width),
        dtype=object,
    )
    df = _frame(["" if h is None else str(h) for h in header], cells, rows, source)
    df.attrs.update(format="xlsx", sheet=ws.title)
    return df


def _read_parquet(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    try:
        df = pd.read_parquet(_io.BytesIO(data))
    except Exception as e:  # pyarrow raises ArrowInvalid, OSError, ...
        raise FileFormatError(f"{source}: cannot read as a Parquet file ({type(e).__name__}: {e})") from None
    return _tidy(df, source, "parquet", "index")


@contextlib.contextmanager
def _quiet_rdata() -> Iterator[None]:
    """Silence rdata's notes that a subclass (tibble, data.table) is read as its data.frame base."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Missing constructor for R class", category=UserWarning)
        yield


def _read_rdata(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    import rdata

    try:
        with _quiet_rdata():
            objects = rdata.read_rda(_io.BytesIO(data))
    except Exception as e:  # rdata raises many types for broken or unsupported files
        raise FileFormatError(
            f"{source}: cannot read as an R data file (.rda/.RData) ({type(e).__name__}: {e})"
        ) from None
    frames = [k for k, v in objects.items() if isinstance(v, pd.DataFrame)]
    kinds = ", ".join(f"{k!r} ({'data frame' if k in frames else type(v).__name__})" for k, v in objects.items())
    if sheet is not None:
        if sheet not in frames:
            raise ParameterError(f"{source}: no data frame named {sheet!r}; the file holds {kinds or 'nothing'}")
        name = sheet
    elif len(frames) == 1:
        name = frames[0]
    elif not frames:
        raise FileFormatError(
            f"{source}: holds no data frame, only {kinds or 'nothing'}; save the candidate table as a data frame"
        )
    else:
        raise FileFormatError(
            f"{source}: holds {len(frames)} data frames ({_columns_text(frames)}); "
            "choose one by name with the sheet option"
        )
    df = _tidy(objects[name], source, "rda", "row.names")
    df.attrs["object"] = name
    return df


def _read_rds(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    import rdata

    try:
        with _quiet_rdata():
            obj = rdata.read_rds(_io.BytesIO(data))
    except Exception as e:  # rdata raises many types for broken or unsupported files
        raise FileFormatError(f"{source}: cannot read as an R .rds file ({type(e).__name__}: {e})") from None
    if not isinstance(obj, pd.DataFrame):
        raise FileFormatError(
            f"{source}: holds a {type(obj).__name__}, not a data frame; save the candidate table as a data frame"
        )
    return _tidy(obj, source, "rds", "row.names")


_READERS: dict[str, Callable[[bytes, str, str, str | None, Any], pd.DataFrame]] = {
    "text": _read_text,
    "xlsx": _read_xlsx,
    "parquet": _read_parquet,
    "rda": _read_rdata,
    "rds": _read_rds,
}


def _column_names(names: Sequence[Any], source: str) -> list[Any]:
    """Header names; nameless columns become ``Unnamed: i`` (as pandas does); no duplicates."""
    names = [f"Unnamed: {i}" if n is None or (isinstance(n, str) and not n.strip()) else n for i, n in enumerate(names)]
    seen: dict[Any, list[int]] = {}
    for i, n in enumerate(names):
        seen.setdefault(n, []).append(i + 1)
    dups = {n: pos for n, pos in seen.items() if len(pos) > 1}
    if dups:
        what = "; ".join(f"{n!r} is column {' and '.join(map(str, pos))}" for n, pos in dups.items())
        raise ColumnError(
            f"{source}: duplicate column names: {what}. Column names must be unique: rename the duplicates."
        )
    return names


def _infer(s: pd.Series) -> pd.Series:
    """One column of cells (missing = None/NaN) as bool, int64, float64, str or object."""
    given = s.notna().to_numpy()
    present = s[given]
    kinds = {str} if isinstance(s.dtype, pd.StringDtype) else set(map(type, present))
    if not kinds:
        return s.astype(object)
    if kinds <= {bool, np.bool_}:
        return s.astype(bool if given.all() else "boolean")
    if kinds <= {str, int, float}:
        text = present.astype("str").str.strip()
        lower = text.str.lower()
        if (text.str.fullmatch(_NUMBER.pattern) | lower.isin(_SPECIAL_FLOATS)).all():
            if given.all() and text.str.fullmatch(_INTEGER.pattern).all():
                try:
                    return pd.Series(text.to_numpy(dtype=object).astype(np.int64), index=s.index)
                except (OverflowError, ValueError):
                    pass
            out = np.full(len(s), np.nan)
            out[given] = text.where(lower != "na", "nan").to_numpy(dtype=object).astype(np.float64)
            return pd.Series(out, index=s.index)
    return s.astype("str") if kinds == {str} else s


def _frame(header: Sequence[Any], cells: pd.DataFrame, rows: np.ndarray, source: str) -> pd.DataFrame:
    """DataFrame from parsed cells (missing = None/NaN): typed columns, empty rows dropped, row-number index."""
    names = _column_names(header, source)
    keep = cells.notna().any(axis=1).to_numpy()
    if not keep.any():
        raise FileFormatError(f"{source}: has a header but no data rows; add one row per candidate")
    cells = cells[keep]
    df = pd.DataFrame({j: _infer(cells[j]) for j in cells.columns})
    df.columns = names
    df.index = pd.Index(rows[keep], name=ROW_INDEX)
    return df


def _tidy(df: pd.DataFrame, source: str, fmt: str, index_name: str) -> pd.DataFrame:
    """Typed frames (Parquet, R): meaningful index -> column, categoricals -> values, row index."""
    idx = df.index
    default = isinstance(idx, pd.RangeIndex) and idx.step == 1 and idx.start in (0, 1)
    if not default:
        df = df.reset_index(names=idx.name if idx.name is not None else index_name)
    df = df.copy()
    df.columns = _column_names(list(df.columns), source)
    for c in df.columns:
        if isinstance(df[c].dtype, pd.CategoricalDtype):
            df[c] = df[c].astype(df[c].cat.categories.dtype)
    if df.shape[1] == 0:
        raise FileFormatError(f"{source}: the table has no columns")
    if len(df) == 0:
        raise FileFormatError(f"{source}: the table has columns but no data rows; add one row per candidate")
    df.index = pd.Index(np.arange(1, len(df) + 1, dtype=np.int64), name=ROW_INDEX)
    df.attrs["format"] = fmt
    return df


def _display_name(source: Any, name: str | None) -> str:
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
        Encoding of a text file. Default: UTF-8, or Latin-1 if the bytes are not
        valid UTF-8. Only for text files.
    sheet : str or int, optional
        Worksheet (name or 0-based index) of an ``.xlsx`` file, or the name of the
        data frame in an ``.rda`` file holding several. Only for those formats.

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
    ParameterError
        Unknown encoding or sheet, or an option that does not apply to the format.
    """
    display = _display_name(source, name)
    if isinstance(source, (str, os.PathLike)):
        try:
            data = Path(source).read_bytes()
        except OSError as e:
            raise FileFormatError(f"{display}: cannot open the file ({e.strerror or e})") from None
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif hasattr(source, "read") and isinstance(data := source.read(), bytes):
        pass
    else:
        raise ParameterError(
            f"cannot read a {type(source).__name__}; give a path, the file's bytes or a binary file object"
        )
    if not data:
        raise FileFormatError(f"{display}: the file is empty (0 bytes)")
    fmt, data = _detect(data, display)
    if encoding is not None and fmt != "text":
        raise ParameterError(f"{display}: an encoding applies only to text files, not to {fmt} files; leave it unset")
    if sheet is not None and fmt not in ("xlsx", "rda"):
        raise ParameterError(
            f"{display}: a sheet applies only to .xlsx and .rda files, not to {fmt} files; leave it unset"
        )
    return _READERS[fmt](data, display, _extension(display), encoding, sheet)


# ---------------------------------------------------------------------------
# Column roles
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnRoles:
    """Which column plays which part in a candidate table.

    Attributes
    ----------
    label : str or None
        The TP/FP label column, None if no column qualifies.
    scores : tuple of str
        Score columns (one per ranking method), in table order.
    keys : tuple of str
        Columns that identify candidates for people (e.g. ``PP``, ``verb``).
    sample : str or None
        The column named ``sample`` (any letter case), if present.
    """

    label: str | None
    scores: tuple[str, ...]
    keys: tuple[str, ...]
    sample: str | None


def _label_cell(v: Any) -> Any:
    """True / False / _MISSING / _BAD for one label cell."""
    if _is_missing(v):
        return _MISSING
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True if v == 1 else False if v == 0 else _BAD
    if isinstance(v, str):
        t = v.strip()
        if t in ("", "NA"):
            return _MISSING
        t = t.lower()
        if t in _TRUE_WORDS or t in _FALSE_WORDS:
            return t in _TRUE_WORDS
        if _NUMBER.fullmatch(t) and float(t) in (0.0, 1.0):
            return float(t) == 1.0
    return _BAD


def _map_cells(values: Any, parse: Callable[[Any], Any]) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``parse`` once per distinct value; returns (results, cells) as object arrays."""
    series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=object)
    cells = series.to_numpy(dtype=object)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    parsed = np.empty(len(uniques) + 1, dtype=object)
    parsed[:-1] = [parse(u) for u in uniques]
    parsed[-1] = parse(None)
    return parsed[codes], cells


def _is_boolean_like(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s.dtype):
        return True
    present = s.dropna()
    if present.empty:
        return False
    if pd.api.types.is_numeric_dtype(s.dtype):
        return bool(present.isin([0, 1]).all()) and present.nunique() == 2
    uniques = present.head(1000).unique()  # a label column has few distinct values: stop early otherwise
    if len(uniques) > 64 or len(uniques := present.unique()) > 64:
        return False
    parsed = {_label_cell(u) for u in uniques} - {_MISSING}
    return parsed == {True, False}


def _looks_numeric(s: pd.Series) -> bool:
    """Numeric column, or text most of whose values look like numbers (so that
    a stray non-number or a decimal comma surfaces as a score error, not silently)."""
    present = s.dropna()
    if present.empty or pd.api.types.is_bool_dtype(s.dtype):
        return False
    if pd.api.types.is_numeric_dtype(s.dtype):
        return True
    text = present.astype(str).str.strip()
    numeric = text.str.fullmatch(_NUMBERISH.pattern) | text.str.lower().isin(_SPECIAL_FLOATS)
    return bool(numeric.mean() > 0.5)


def _label_priority(name: Any) -> int:
    n = str(name).lower()
    if n in _LABEL_NAMES:
        return 0
    if n.startswith(("is_", "is.")):
        return 1
    if n.startswith("is"):
        return 2
    return 3


def suggest_roles(df: pd.DataFrame) -> ColumnRoles:
    """Guess the role of every column of a candidate table.

    Boolean-like columns (bool dtype, 0/1 numbers, or text whose values are all
    label words such as TRUE/FALSE with both values present) are label candidates:
    the label is the first whose name looks like one (``label``, ``is_tp``, ``tp``,
    ``gold``, ``is.colloc``, then names starting with ``is_``/``is.``, then ``is``),
    else the first boolean-like column; the others become keys. Without any
    boolean-like column, a text column named like a label (the names above, or
    starting with ``is_``/``is.``) is the label anyway, so that building the
    candidate set reports its offending cells. Row names (``row.names``,
    ``Unnamed: 0``) are keys, whatever they hold. A column named
    ``sample`` (any case) is the sample column. Numeric columns, and text columns
    most of whose values look like numbers, are scores. Everything else is a key.

    Parameters
    ----------
    df : DataFrame
        The table, e.g. from :func:`read_table`.

    Returns
    -------
    ColumnRoles
    """
    sample = next((c for c in df.columns if str(c).lower() == "sample"), None)
    booleans, scores, keys = [], [], []
    for c in df.columns:
        if c == sample:
            continue
        if str(c) in _ROW_NAME_COLUMNS:
            keys.append(c)
        elif _is_boolean_like(df[c]):
            booleans.append(c)
        elif _looks_numeric(df[c]):
            scores.append(c)
        else:
            keys.append(c)
    label = min(booleans, key=_label_priority) if booleans else None  # min keeps the first of equals
    if label is None:  # no clean TP/FP column: one named like a label, so that its bad cells get reported
        label = next((c for c in keys if _label_priority(c) <= 1), None)
    keys = [c for c in df.columns if c != label and (c in keys or c in booleans)]
    return ColumnRoles(label=label, scores=tuple(scores), keys=tuple(keys), sample=sample)


# ---------------------------------------------------------------------------
# Labels and scores
# ---------------------------------------------------------------------------


def parse_labels(
    values: Any,
    *,
    column: str,
    source: str,
    exclude_unlabelled: bool = False,
    rows: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Turn a label column into booleans (True = TP).

    Accepted values, any letter case, surrounding whitespace ignored: TRUE/FALSE,
    T/F, 1/0 (also as numbers such as 1.0), yes/no, y/n, TP/FP, +/-, and booleans.
    Missing values are None/NaN/NA, empty or blank strings and the string ``NA``.

    Parameters
    ----------
    values : array-like or Series
        The label cells.
    column, source : str
        Column and file name, for messages.
    exclude_unlabelled : bool
        Leave rows with a missing label out instead of raising.
    rows : array-like of int, optional
        Row numbers for messages; default the ``row`` index of a Series from
        :func:`read_table`, else 1..N.

    Returns
    -------
    labels : ndarray of bool
        Labels of the kept rows only (length ``kept.sum()``).
    kept : ndarray of bool
        Which of the input rows are kept (all, unless unlabelled rows are excluded).

    Raises
    ------
    LabelError
        A value outside the vocabulary, or missing labels without ``exclude_unlabelled``.
    """
    parsed, cells = _map_cells(values, _label_cell)
    row_numbers = _row_numbers(values, len(cells), rows)
    bad = np.flatnonzero([p is _BAD for p in parsed])
    if len(bad):
        raise LabelError(
            f"{source}: label column {column!r} has {len(bad)} value(s) that are not TP/FP labels: "
            f"{_examples(row_numbers[bad], [_plain(cells[i]) for i in bad], len(bad))}. "
            f"Accepted labels: {LABEL_VOCABULARY}. Correct these cells, or choose another label column."
        )
    missing = np.fromiter((p is _MISSING for p in parsed), dtype=bool, count=len(parsed))
    if missing.any() and not exclude_unlabelled:
        where = row_numbers[missing]
        raise LabelError(
            f"{source}: label column {column!r} is empty in {len(where)} row(s): rows {_row_list(where)}. "
            "Every candidate needs a TP/FP label: fill them in, or exclude unannotated rows "
            "(option exclude_unlabelled; --exclude-unlabelled on the command line)."
        )
    kept = ~missing
    return np.array([bool(p) for p in parsed[kept]], dtype=bool), kept


def _score_cell(v: Any) -> Any:
    if _is_missing(v):
        return np.nan
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    if isinstance(v, str):
        t = v.strip()
        if not t:
            return np.nan
        special = _SPECIAL_FLOATS.get(t.lower())
        if special is not None:
            return special
        if _NUMBER.fullmatch(t):
            return float(t)
    return _BAD


def parse_scores(values: Any, *, column: str, source: str, rows: Any = None) -> np.ndarray:
    """Turn a score column into float64.

    Numbers, booleans (as 0/1) and number strings are accepted; missing cells,
    ``NA`` and ``NaN`` give NaN, ``Inf``/``-Inf`` (also ``Infinity``) give
    infinities, all kept as they are. Decimal commas and thousands separators
    are not guessed at: they are errors.

    Parameters
    ----------
    values : array-like or Series
        The score cells.
    column, source : str
        Column and file name, for messages.
    rows : array-like of int, optional
        Row numbers for messages (default as in :func:`parse_labels`).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ScoreError
        Any value that is not a number.
    """
    dtype = getattr(values, "dtype", None)
    if dtype is not None and (pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)) \
            and not pd.api.types.is_complex_dtype(dtype):
        return pd.Series(values).to_numpy(dtype=np.float64, na_value=np.nan)
    parsed, cells = _map_cells(values, _score_cell)
    bad = np.flatnonzero([p is _BAD for p in parsed])
    if len(bad):
        row_numbers = _row_numbers(values, len(cells), rows)
        shown = [_plain(cells[i]) for i in bad]
        hint = ""
        if any(isinstance(v, str) and _DECIMAL_COMMA.fullmatch(v.strip()) for v in shown):
            hint = " Some look like numbers with a decimal comma: write them with a decimal point (e.g. 2.5, not 2,5)."
        raise ScoreError(
            f"{source}: score column {column!r} has {len(bad)} non-numeric value(s): "
            f"{_examples(row_numbers[bad], shown, len(bad))}. Scores must be numbers "
            f"(empty, NA, NaN, Inf and -Inf are allowed).{hint} Correct these cells, or do not use "
            f"{column!r} as a score (make it a key column instead)."
        )
    return parsed.astype(np.float64)


# ---------------------------------------------------------------------------
# Building the candidate set
# ---------------------------------------------------------------------------


def _names(value: Any) -> tuple[Any, ...]:
    """A column list argument as a tuple; a single string is one name."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _require(df: pd.DataFrame, names: Iterable[Any], role: str, source: str) -> None:
    for n in names:
        if n not in df.columns:
            close = [c for c in df.columns if str(c).strip().lower() == str(n).strip().lower()]
            hint = f" Did you mean {_columns_text(close)}?" if close else ""
            raise ColumnError(
                f"{source}: no column {n!r} (asked for as {role}).{hint} The columns are: {_columns_text(df.columns)}."
            )


def build_candidate_set(
    df: pd.DataFrame,
    *,
    label: str,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    sample: str | None = None,
    lower_is_better: Sequence[str] = (),
    exclude_unlabelled: bool = False,
    source: str = "<data>",
) -> CandidateSet:
    """Validate a table and build a :class:`CandidateSet` from it.

    Parameters
    ----------
    df : DataFrame
        The table; row numbers come from a ``row`` index (as :func:`read_table`
        makes it), else positions 1..N.
    label : str
        The TP/FP label column.
    scores : sequence of str, optional
        Score columns, in this order. Default: every column
        :func:`suggest_roles` calls a score, except ``label``, ``sample`` and ``keys``.
    keys : sequence of str, optional
        Key columns. Default: every column not used otherwise that is not a
        suggested score. Pass ``()`` for none.
    sample : str, optional
        Sample-id column; default none.
    lower_is_better : sequence of str
        Score columns for which a lower score is better.
    exclude_unlabelled : bool
        Leave out rows with an empty label (counted in
        :attr:`CandidateSet.excluded_unlabelled`) instead of raising.
    source : str
        File name for messages.

    Returns
    -------
    CandidateSet

    Raises
    ------
    ColumnError
        Unknown or duplicate columns, a column in two incompatible roles, no score
        column, a direction for a column that is not a score, empty sample ids.
    LabelError, ScoreError
        Bad label or score values (see :func:`parse_labels`, :func:`parse_scores`).
    FileFormatError
        The table has no rows.
    """
    if df.columns.duplicated().any():
        dups = df.columns[df.columns.duplicated()].unique()
        raise ColumnError(f"{source}: duplicate column names {_columns_text(dups)}; rename them")
    if len(df) == 0:
        raise FileFormatError(f"{source}: the table has no data rows; add one row per candidate")
    _require(df, [label], "label", source)
    if sample is not None:
        _require(df, [sample], "sample", source)
        if sample == label:
            raise ColumnError(f"{source}: column {label!r} cannot be both the label and the sample column")
    key_names = _names(keys)
    _require(df, key_names, "key", source)
    roles = suggest_roles(df) if scores is None or keys is None else None
    if scores is None:
        assert roles is not None
        score_names = tuple(c for c in roles.scores if c not in (label, sample) and c not in key_names)
        if not score_names:
            raise ColumnError(
                f"{source}: no numeric score column found besides the label; the columns are "
                f"{_columns_text(df.columns)}. Name the score columns explicitly."
            )
    else:
        score_names = _names(scores)
        _require(df, score_names, "score", source)
        dup = sorted({str(c) for c in score_names if score_names.count(c) > 1})
        if dup:
            raise ColumnError(f"{source}: score column(s) {', '.join(map(repr, dup))} given more than once")
        for c, role in ((label, "label"), (sample, "sample")):
            if c is not None and c in score_names:
                raise ColumnError(
                    f"{source}: column {c!r} cannot be both the {role} and a score; remove it from the scores"
                )
    if keys is None:
        assert roles is not None
        used = {label, sample, *score_names}
        key_names = tuple(c for c in df.columns if c not in used and c not in roles.scores)
    lower = _names(lower_is_better)
    unknown = [c for c in lower if c not in score_names]
    if unknown:
        raise ColumnError(
            f"{source}: lower-is-better given for {_columns_text(unknown)}, which "
            f"{'is' if len(unknown) == 1 else 'are'} not among the score columns {_columns_text(score_names)}"
        )

    all_rows = _row_numbers(df, len(df))
    labels, kept = parse_labels(
        df[label], column=str(label), source=source, exclude_unlabelled=exclude_unlabelled, rows=all_rows
    )
    if not kept.any():
        raise LabelError(f"{source}: label column {label!r} is empty in every row; no annotated candidate is left")
    rows = all_rows[kept]
    score_arrays = {
        str(c): parse_scores(df[c][kept], column=str(c), source=source, rows=rows) for c in score_names
    }
    samples = None
    if sample is not None:
        samples = df[sample][kept].to_numpy()
        blank = np.array([isinstance(v, str) and not v.strip() for v in samples], dtype=bool)
        empty = np.flatnonzero(pd.isna(samples) | blank)
        if len(empty):
            raise ColumnError(
                f"{source}: sample column {sample!r} is empty in {len(empty)} row(s): rows {_row_list(rows[empty])}. "
                "Give every candidate a sample id, or do not use a sample column."
            )
    return CandidateSet(
        labels=labels,
        scores=score_arrays,
        directions={str(c): (LOWER if c in lower else HIGHER) for c in score_names},
        keys=df.loc[kept, list(key_names)].reset_index(drop=True) if key_names else None,
        samples=samples,
        source=source,
        label_column=str(label),
        rows=rows,
        excluded_unlabelled=int((~kept).sum()),
    )


def load_candidates(
    source: Source | Any,
    *,
    label: str | None = None,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    sample: str | None = None,
    lower_is_better: Sequence[str] = (),
    exclude_unlabelled: bool = False,
    encoding: str | None = None,
    sheet: str | int | None = None,
    name: str | None = None,
) -> CandidateSet:
    """Read a file and build its :class:`CandidateSet` in one step.

    Roles not given are suggested by :func:`suggest_roles` (label, sample) or
    defaulted by :func:`build_candidate_set` (scores, keys). To do without a
    suggested sample column, call :func:`read_table` and
    :func:`build_candidate_set` yourself.

    Parameters
    ----------
    source, encoding, sheet, name
        As for :func:`read_table`.
    label, scores, keys, sample, lower_is_better, exclude_unlabelled
        As for :func:`build_candidate_set`.

    Returns
    -------
    CandidateSet

    Raises
    ------
    EvalcoreError
        Any subclass, with a message naming the file and what to do.
    """
    df = read_table(source, name=name, encoding=encoding, sheet=sheet)
    display = _display_name(source, name)
    roles = suggest_roles(df)
    if label is None:
        label = roles.label
        if label is None:
            raise ColumnError(
                f"{display}: no label column found: no column holds only TP/FP values ({LABEL_VOCABULARY}). "
                f"The columns are: {_columns_text(df.columns)}. Name the label column explicitly "
                "(--label on the command line)."
            )
    if sample is None and roles.sample not in (label, *_names(scores), *_names(keys)):
        sample = roles.sample
    return build_candidate_set(
        df,
        label=label,
        scores=scores,
        keys=keys,
        sample=sample,
        lower_is_better=lower_is_better,
        exclude_unlabelled=exclude_unlabelled,
        source=display,
    )
