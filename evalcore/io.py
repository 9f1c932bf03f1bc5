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

Text is parsed by pyarrow's CSV reader and typed with vectorised pyarrow/numpy code;
where needed, the layout (fields per record, the line each record starts on) is
found on the raw bytes with numpy. The few files that reader cannot read exactly as
Python's :mod:`csv` module does (a quote inside an unquoted value or right after a
closing quote, NUL bytes, one-column tables, ...) are read by the :mod:`csv` module
itself: results and messages are the same either way.

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
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

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
# _NUMBER with ASCII digits only (what pyarrow parses; Unicode digits are left to Python),
# and patterns for pyarrow's regular expressions (RE2), whose \d is ASCII (Python's: \p{Nd}).
_PLAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PLAIN_RE2 = f"^{_PLAIN.pattern}$"
_NUMBERISH_RE2 = "^" + _NUMBERISH.pattern.replace(r"\d", r"\p{Nd}") + "$"
_SPECIALS = pa.array(list(_SPECIAL_FLOATS))
# Exactly the characters str.strip() removes (str.isspace), for pyarrow's trim.
_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

_MISSING = object()  # result of the label/score cell parsers for a missing value
_BAD = object()  # ... for a value outside the vocabulary
_LABEL_STATES = {False: 0, True: 1, _MISSING: 2, _BAD: 3}  # _label_cell's results as small codes


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


def _series(values: Any) -> pd.Series:
    """Cells as a Series: kept as given, arrays in their dtype, anything else as Python objects."""
    if isinstance(values, pd.Series):
        return values
    return pd.Series(values) if isinstance(values, np.ndarray) else pd.Series(values, dtype=object)


# ---------------------------------------------------------------------------
# Detecting the format
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


# ---------------------------------------------------------------------------
# Text files
# ---------------------------------------------------------------------------


def _utf8(data: bytes, source: str, encoding: str | None) -> tuple[bytes, str]:
    """The text as UTF-8 bytes without a byte-order mark, and the encoding it was read as:
    the explicit one, else UTF-16 (by its byte-order mark), UTF-8 or Latin-1."""
    if encoding is None:
        if data.startswith(_UTF16_BOMS):  # Excel's "Unicode text"
            encoding = "utf-16"
        elif data.isascii():
            return data, "utf-8"
        else:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                encoding = "latin-1"
            else:
                return data.removeprefix(codecs.BOM_UTF8), "utf-8"
    try:
        codec = codecs.lookup(encoding).name
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
    if codec == "utf-8":
        return data.removeprefix(codecs.BOM_UTF8), encoding
    return text.removeprefix("\ufeff").encode("utf-8"), encoding


def _sniff_delimiter(data: bytes, ext: str) -> str:
    """The delimiter that splits the first lines into the most fields, consistently."""
    head = data[: 4 * 65536].decode("utf-8", "ignore")[:65536]  # the first 65,536 characters
    lines = head.splitlines()
    if len(data) > 4 * 65536 or len(head) < len(data.decode("utf-8")):
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


def _fields(record: bytes, delimiter: str) -> list[str]:
    """The fields of one record (raw bytes, line break included or not), as the csv module splits them."""
    return next(csv.reader(_io.StringIO(record.decode("utf-8"), newline=""), delimiter=delimiter), [])


def _check_widths(
    header: list[str], widths: np.ndarray, rows: np.ndarray, lines: np.ndarray, header_line: int,
    delimiter: str, source: str,
) -> list[str]:
    """The header, with ``row.names`` in front if every row has one field more; else every row must fit it."""
    if len(widths) and (widths == len(header) + 1).all():
        header = ["row.names", *header]  # R's write.table: no header field over the row names
    bad = np.flatnonzero(widths != len(header))
    if len(bad):
        where = ", ".join(f"row {rows[i]} (line {lines[i]}) has {widths[i]}" for i in bad[:MAX_EXAMPLES])
        more = f" (and {len(bad) - MAX_EXAMPLES} more rows)" if len(bad) > MAX_EXAMPLES else ""
        raise FileFormatError(
            f"{source}: {len(bad)} row(s) have a wrong number of fields: the header (line {header_line}) has "
            f"{len(header)} fields, but {where}{more}. The delimiter was detected as {_DELIMITER_NAMES[delimiter]}; "
            "check for a missing or extra delimiter, and quote values that contain it."
        )
    return header


_Parsed = tuple[list[str], list[Any], np.ndarray]  # header, columns of cells, row numbers


def _float_columns(body: memoryview, delimiter: str, width: int) -> list[int]:
    """Columns whose first values are all plain decimal numbers, not all integers: the reader
    may parse them as float64 (checked by :func:`_arrow_columns`)."""
    head = bytes(body[:65536])
    head = head[: head.rfind(b"\n") + 1] or head  # whole lines
    lines = head.decode("utf-8", "ignore").splitlines()[:200]
    records = [r for r in csv.reader(lines, delimiter=delimiter) if len(r) == width]
    floats = []
    for j in range(width):
        values = [r[j].strip(" ") for r in records if r[j] not in ("", "NA")]
        if values and all(_PLAIN.fullmatch(v) for v in values) and not all(_INTEGER.fullmatch(v) for v in values):
            floats.append(j)
    return floats


def _arrow_columns(
    body: memoryview, delimiter: str, width: int, *, quoted: bool, multiline: bool = False, strict: bool = False
) -> list[Any] | None:
    """The records of ``body`` as ``width`` pyarrow columns: strings ("" and NA null), or float64
    where every value is a plain number (:func:`_float_columns`); None if pyarrow fails.

    ``quoted``: values may be in quotes; ``multiline``: and hold line breaks. ``strict``: one row per
    line, an empty line gives an empty row, and no line may have another number of fields. Else
    empty lines and records of another width (blank lines with spaces: the caller has checked that
    there are no others) are skipped."""
    if not len(body):
        return [pa.chunked_array([], pa.string())] * width
    names = [f"f{i}" for i in range(width)]
    floats = _float_columns(body, delimiter, width)
    for typed in ([floats, []] if floats else [[]]):
        types = {name: pa.float64() if j in typed else pa.string() for j, name in enumerate(names)}
        try:
            table = pa_csv.read_csv(
                pa.py_buffer(body),
                read_options=pa_csv.ReadOptions(column_names=names),
                parse_options=pa_csv.ParseOptions(
                    delimiter=delimiter, quote_char='"' if quoted else False, double_quote=True,
                    newlines_in_values=multiline, ignore_empty_lines=not strict,
                    invalid_row_handler=lambda row: "error" if strict else "skip",
                ),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types, null_values=["", "NA"], strings_can_be_null=True,
                    quoted_strings_can_be_null=True, check_utf8=False,
                ),
            )
        except pa.ArrowInvalid:  # (a value that is not a plain number, or a ragged row)
            continue
        # pyarrow's numbers are Python's (correctly rounded) and its spellings of them are
        # Python's after stripping spaces, except for NaN ('-nan', 'nan(1)'): read those as text.
        if not any(pc.any(pc.is_nan(table.column(j))).as_py() for j in typed):
            return table.columns
    return None


def _line_end(data: bytes, start: int) -> tuple[int, int]:
    """End of the line that begins at ``start``, and the start of the next: a line ends with LF,
    CR LF or CR, as the csv module (and pyarrow) see it."""
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    cr = data.find(b"\r", start, end)
    end = end if cr < 0 else cr
    return end, end + (2 if data.startswith(b"\r\n", end) else 1)


def _parse_simple(data: bytes, delimiter: str) -> _Parsed | None:
    """The common case, read without a look at the layout: no quotes, header on line 1, every line
    as wide as the first data line (empty lines are empty rows); None otherwise."""
    if b'"' in data:
        return None
    end, start = _line_end(data, 0)
    header = _fields(data[:end], delimiter)
    if len(header) < 2:
        return None
    width = data.count(delimiter.encode(), start, _line_end(data, start)[0]) + 1
    if width != len(header) + 1:
        width = len(header)  # (else R's row names, if every row has them)
    columns = _arrow_columns(memoryview(data)[start:], delimiter, width, quoted=False, strict=True)
    if columns is None:
        return None  # ragged rows or lines of spaces: the layout tells which
    rows = np.arange(1, len(columns[0]) + 1, dtype=np.int64)  # one row per line, header on line 1
    return (["row.names", *header] if width > len(header) else header), columns, rows


def _regular_quotes(a: np.ndarray, quotes: np.ndarray, delimiter: int) -> bool:
    """Whether every quote opens a value (at its start), closes it (at its end) or is doubled
    inside one: then quotes alternate between opening and closing, and the reader agrees with
    the csv module. (A quote inside an unquoted value is a plain character to the csv module.)"""
    if len(quotes) % 2:
        return False  # a value is not closed: the csv module reports it
    before = a[quotes - 1]  # (a[-1] for a quote at the start: fixed below)
    after = a[np.minimum(quotes + 1, len(a) - 1)]
    edge_before = (before == delimiter) | (before == 10)
    edge_after = (after == delimiter) | (after == 10) | (after == 13)
    edge_before[0] |= quotes[0] == 0
    edge_after[-1] |= quotes[-1] == len(a) - 1
    doubled = np.zeros(len(quotes), dtype=bool)  # "" inside a quoted value: a closing quote and an opening one
    doubled[1:-1:2] = np.diff(quotes)[1::2] == 1
    open_ok, close_ok = edge_before[0::2], edge_after[1::2] | doubled[1::2]
    open_ok[1:] |= doubled[1:-1:2]
    return bool(open_ok.all() and close_ok.all())


def _parse_layout(data: bytes, delimiter: str, source: str) -> _Parsed | None:
    """Any text the csv module would read the same way: records, their widths and first lines
    found on the raw bytes with numpy (quotes respected); None if that is not possible."""
    a = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(a == 10)
    ends, delims = newlines, np.flatnonzero(a == ord(delimiter))
    returns = np.flatnonzero(a == 13) if b"\r" in data else []
    if len(returns) and (returns[-1] == len(a) - 1 or (a[returns + 1] != 10).any()):
        return None  # a lone carriage return ends a line for the csv module: it reads the file
    quoted = b'"' in data
    if quoted:
        quotes = np.flatnonzero(a == 34)
        if not _regular_quotes(a, quotes, ord(delimiter)):
            return None
        ends = newlines[np.searchsorted(quotes, newlines) % 2 == 0]  # line breaks outside quoted values
    multiline = quoted and len(ends) < len(newlines)  # quoted values with line breaks (pyarrow is faster without)
    starts = np.concatenate(([0], ends + 1))
    ends = np.append(ends, len(a))
    if starts[-1] == len(a):  # the file ends with a line break
        starts, ends = starts[:-1], ends[:-1]
    # the line on which each record starts
    lines = np.searchsorted(newlines, starts) + 1 if multiline else np.arange(1, len(starts) + 1)
    length = ends - starts - ((ends > starts) & (a[np.maximum(ends - 1, 0)] == 13))
    # Delimiters inside quoted values are rare and costly to find: first count them all, and
    # only if that does not fit (or a value holds one) leave out those inside quotes.
    for exact in (False, True) if quoted else (True,):
        if exact and quoted:
            delims = delims[np.searchsorted(quotes, delims) % 2 == 0]
        widths = np.diff(np.searchsorted(delims, ends), prepend=0) + 1
        # Blank records (no field with content) are skipped: empty lines, and one-field records checked one by one.
        blank = (widths == 1) & (length == 0)
        check = np.flatnonzero((widths == 1) & (length > 0))
        if len(check) > 1000:
            return None  # a one-column table, or nearly: the csv module reads it
        for i in check:
            blank[i] = not "".join(_fields(data[starts[i] : ends[i]], delimiter)).strip()
        filled = np.flatnonzero(~blank)
        if not len(filled):
            return None  # nothing but blanks: the csv module says whether the file is empty
        first, body = filled[0], filled[1:]
        header_line = int(lines[first])
        rows = lines[body] - header_line
        header = _fields(data[starts[first] : ends[first]], delimiter)
        if not exact and not ((widths[body] == len(header)).all() or (widths[body] == len(header) + 1).all()):
            continue
        header = _check_widths(header, widths[body], rows, lines[body], header_line, delimiter, source)
        if len(header) < 2:
            return None
        body_bytes = memoryview(data)[ends[first] + 1 :]
        columns = _arrow_columns(body_bytes, delimiter, len(header), quoted=quoted, multiline=multiline)
        if columns is None:
            return None
        if len(columns[0]) == len(body) and (exact or not any(
            pc.any(pc.match_substring(c, delimiter)).as_py() for c in columns if _is_text(c)
        )):
            return header, columns, rows
    return None


def _parse_csv(text: str, delimiter: str, source: str) -> _Parsed:
    """Read with the csv module: any text, exact messages for broken quoting."""
    if not text.strip():
        raise FileFormatError(f"{source}: the file is empty; it needs a header line and one line per candidate")
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
    header = _check_widths(header, widths, rows, starts, header_line, delimiter, source)
    cells = zip(*records) if records else [()] * len(header)
    columns = [pa.array([None if v in ("", "NA") else v for v in c], pa.string()) for c in cells]
    return header, columns, rows


def _read_text(data: bytes, source: str, ext: str, encoding: str | None, sheet: Any) -> pd.DataFrame:
    if encoding is None and b"\x00" in data[:8192] and not data.startswith(_UTF16_BOMS):
        actual = _sniff_format(data)
        hint = f" It looks like a {actual} file: give it the matching extension." if actual != "text" and actual else ""
        raise FileFormatError(f"{source}: binary content, not a text table.{hint} Supported formats: {_SUPPORTED}.")
    data, encoding = _utf8(data, source, encoding)
    delimiter = _sniff_delimiter(data, ext)
    parsed = None
    if b"\x00" not in data:  # (the csv module rejects NUL bytes)
        parsed = _parse_simple(data, delimiter) or _parse_layout(data, delimiter, source)
    header, columns, rows = parsed or _parse_csv(data.decode("utf-8"), delimiter, source)
    df = _frame(header, columns, rows, source)
    df.attrs.update(format="text", encoding=encoding, delimiter=delimiter)
    return df


# ---------------------------------------------------------------------------
# Other formats
# ---------------------------------------------------------------------------


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
    cells = [
        [None if isinstance(v, str) and (v == "NA" or not v.strip()) else v for v in (r + [None] * width)[:width]]
        for r in records
    ]
    columns = [pd.Series([r[j] for r in cells], dtype=object) for j in range(width)]
    df = _frame(["" if h is None else str(h) for h in header], columns, rows, source)
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


# ---------------------------------------------------------------------------
# From cells to typed columns
# ---------------------------------------------------------------------------


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


def _trim(strings: Any) -> Any:
    """pyarrow strings with surrounding whitespace removed, as str.strip() does."""
    return pc.utf8_trim(strings, _WHITESPACE)


def _strings(values: Any) -> Any:
    """Cells that are all strings or missing as a pyarrow array (missing = null); None for other cells."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
        return pa.array(values)
    cells = values.to_numpy(dtype=object) if isinstance(values, pd.Series) else np.asarray(values, dtype=object)
    if cells.ndim != 1 or pd.api.types.infer_dtype(cells, skipna=True) not in ("string", "empty"):
        return None
    return pa.array(cells, type=pa.string(), from_pandas=True)


def _floats(trimmed: Any, *, infer: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """Trimmed number strings as float64 (NaN where missing or bad) and the mask of bad cells,
    exactly as :func:`_score_cell` parses them; with ``infer``, None at the first bad cell.

    pyarrow parses the plain numbers (correctly rounded, as ``float()``); the rest -- NaN and
    infinity spellings, Unicode digits, non-numbers -- goes through :func:`_score_cell`, once
    per distinct value."""
    values = None
    if infer:  # expect numbers only: one cast, then check the spelling of what became NaN or infinite
        try:
            values = pc.cast(trimmed, pa.float64())
            check = pc.invert(pc.is_finite(values))
        except pa.ArrowInvalid:  # not all plain numbers
            pass
    if values is None:
        plain = pc.match_substring_regex(trimmed, _PLAIN_RE2)
        values = pc.cast(pc.if_else(plain, trimmed, pa.scalar(None, trimmed.type)), pa.float64())
        check = pc.invert(plain)
    out = np.array(values.to_numpy(zero_copy_only=False), dtype=np.float64)
    bad = np.zeros(len(out), dtype=bool)
    where = np.flatnonzero(pc.fill_null(check, False).to_numpy(zero_copy_only=False))
    if len(where):
        odd = trimmed.take(pa.array(where))
        odd = (odd.combine_chunks() if isinstance(odd, pa.ChunkedArray) else odd).dictionary_encode()
        parsed = []
        for u in odd.dictionary.to_pylist():
            p = _score_cell(u)
            if p is _BAD and infer:
                return None
            parsed.append(p)
        codes = odd.indices.to_numpy(zero_copy_only=False)
        is_bad = np.array([p is _BAD for p in parsed], dtype=bool)
        out[where] = np.array([np.nan if p is _BAD else p for p in parsed], dtype=np.float64)[codes]
        bad[where] = is_bad[codes]
    return out, bad


def _integers(trimmed: Any) -> np.ndarray | None:
    """Trimmed number strings (none missing) as int64; None if some are not integers or too large."""
    if pc.all(pc.ascii_is_decimal(pc.utf8_ltrim(trimmed, "+-"))).as_py():  # (a failing cast is slow)
        try:
            return pc.cast(pc.utf8_ltrim(trimmed, "+"), pa.int64()).to_numpy(zero_copy_only=False)
        except pa.ArrowInvalid:  # beyond int64
            return None
    if pc.all(pc.string_is_ascii(trimmed)).as_py():
        return None
    text = np.array(trimmed.to_pylist(), dtype=object)  # Unicode digits: Python decides
    if not all(_INTEGER.fullmatch(t) for t in text):
        return None
    try:
        return text.astype(np.int64)
    except (OverflowError, ValueError):
        return None


def _numeric(strings: Any) -> np.ndarray | None:
    """A column of strings (missing = null, none blank) whose every value is a number, as int64
    (all integers, none missing) or float64; None if some value is not a number."""
    sample = pc.drop_null(strings.slice(0, 200)).to_pylist()  # most text columns show it at once
    if any(_score_cell(v) is _BAD for v in sample):
        return None
    trimmed = _trim(strings)
    ints = _integers(trimmed) if trimmed.null_count == 0 else None
    if ints is not None:
        return ints
    parsed = _floats(trimmed, infer=True)
    return None if parsed is None else parsed[0]


def _no_blanks(cells: Any) -> Any:
    """A column of cells from the reader (pyarrow strings, "" and NA null) with blank cells made
    null too; a column the reader has parsed as numbers as it is."""
    if _is_text(cells):
        blank = pc.utf8_is_space(cells)  # (pyarrow's whitespace is exactly Python's)
        if pc.any(blank).as_py():
            return pc.if_else(blank, pa.scalar(None, cells.type), cells)
    return cells


def _is_text(column: Any) -> bool:
    return pa.types.is_string(column.type) or pa.types.is_large_string(column.type)


def _infer_text(cells: Any) -> Any:
    """Typed values of a column from :func:`_no_blanks`: int64/float64 if every value is a
    number (all missing: float NaN), else the strings as written."""
    if not _is_text(cells):
        return cells.to_numpy(zero_copy_only=False)
    numbers = _numeric(cells)
    return numbers if numbers is not None else cells.to_pandas().array


def _infer_objects(s: pd.Series) -> pd.Series | np.ndarray:
    """Typed values of a column of workbook cells (missing = None): bool, numbers as for text, str, else objects."""
    s = s.reset_index(drop=True)
    given = s.notna().to_numpy()
    kinds = set(map(type, s[given]))
    if not kinds:
        return s.astype(object)
    if kinds <= {bool, np.bool_}:
        return s.astype(bool if given.all() else "boolean")
    if kinds <= {str, int, float}:
        numbers = _numeric(pa.array([str(v) if g else None for v, g in zip(s, given)], pa.string()))
        if numbers is not None:
            return numbers
    return s.astype("str") if kinds == {str} else s


def _frame(header: Sequence[Any], columns: list[Any], rows: np.ndarray, source: str) -> pd.DataFrame:
    """DataFrame from columns of cells, all pyarrow strings (text: "" and NA null; blank cells
    become null here) or all object Series (workbooks: missing = None): typed columns, empty rows
    dropped, row-number index."""
    names = _column_names(header, source)
    text = isinstance(columns[0], (pa.Array, pa.ChunkedArray))
    if text:
        columns = [_no_blanks(c) for c in columns]
        present = [pc.is_valid(c).to_numpy(zero_copy_only=False) for c in columns if c.null_count]
    else:
        present = [p for p in (c.notna().to_numpy() for c in columns) if not p.all()]
    if len(present) == len(columns):  # every column has missing cells: some rows may be empty
        keep = np.logical_or.reduce(present)
        if not keep.all():
            mask = pa.array(keep)
            columns = [c.filter(mask) if text else c[keep] for c in columns]
            rows = rows[keep]
    if not len(rows):
        raise FileFormatError(f"{source}: has a header but no data rows; add one row per candidate")
    infer = _infer_text if text else _infer_objects
    df = pd.DataFrame({name: infer(c) for name, c in zip(names, columns)})
    df.index = pd.Index(rows, name=ROW_INDEX)
    return df


def _tidy(df: pd.DataFrame, source: str, fmt: str, index_name: str) -> pd.DataFrame:
    """Typed frames (Parquet, R): meaningful index -> column, categoricals -> values, row index."""
    idx = df.index
    default = isinstance(idx, pd.RangeIndex) and idx.step == 1 and idx.start in (0, 1)
    if not default:
        df = df.reset_index(names=idx.name if idx.name is not None else index_name)
    df = df.copy(deep=False)  # (copy on write: the caller's frame stays as it is)
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


def _score_cell(v: Any) -> Any:
    """The float value of one score cell (NaN if missing), or _BAD."""
    if _is_missing(v):
        return np.nan
    if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
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


def _map_cells(values: Any, parse: Callable[[Any], Any]) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``parse`` once per distinct value; returns (results, cells) as object arrays."""
    cells = _series(values).to_numpy(dtype=object)
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
        return present.iloc[0] in (0, 1) and bool(present.isin([0, 1]).all()) and present.nunique() == 2
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
    if isinstance(s.dtype, pd.StringDtype):
        strings = pa.array(present)
        if 2 * _MAY_START_A_NUMBER[_first_bytes(strings)].sum() <= len(present):
            return False  # (most key columns: decided by the first characters)
        uniques = pc.unique(strings)  # each distinct value once
        text = _trim(uniques)
        numeric = pc.or_(pc.match_substring_regex(text, _NUMBERISH_RE2), pc.is_in(pc.ascii_lower(text), _SPECIALS))
        if not pc.any(numeric).as_py() or pc.all(numeric).as_py():
            return pc.all(numeric).as_py()
        counts = pc.value_counts(strings)
        numeric = pc.is_in(counts.field("values"), pc.filter(uniques, numeric))
        return pc.sum(pc.filter(counts.field("counts"), numeric)).as_py() / len(present) > 0.5
    text = present.astype(str).str.strip()
    numeric = text.str.fullmatch(_NUMBERISH.pattern) | text.str.lower().isin(_SPECIAL_FLOATS)
    return bool(numeric.mean() > 0.5)


def _first_bytes(strings: Any) -> np.ndarray:
    """The first byte (UTF-8) of every string of a pyarrow string array, 0 for empty strings."""
    out = []
    for chunk in strings.chunks if isinstance(strings, pa.ChunkedArray) else [strings]:
        _, offsets, data = chunk.buffers()
        offsets = np.frombuffer(offsets, np.int64 if pa.types.is_large_string(chunk.type) else np.int32)
        offsets = offsets[chunk.offset : chunk.offset + len(chunk) + 1]
        data = np.frombuffer(data, np.uint8) if data is not None and data.size else np.zeros(1, np.uint8)
        starts = offsets[:-1]
        out.append(np.where(offsets[1:] > starts, data[np.minimum(starts, len(data) - 1)], 0))
    return np.concatenate(out) if out else np.zeros(0, np.uint8)


# First bytes of what may strip to a number (_NUMBERISH) or NaN/Inf: whitespace, non-ASCII (Unicode digits).
_MAY_START_A_NUMBER = np.array(
    [chr(b) in "+-.,' 0123456789nNiI" or chr(b).isspace() or b >= 0x80 for b in range(256)], dtype=bool
)


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
    cells = _series(values)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)  # a label column has a few distinct values
    states = np.array([_LABEL_STATES[_label_cell(u)] for u in uniques] + [_LABEL_STATES[_MISSING]], dtype=np.int8)
    state = states[codes]
    row_numbers = _row_numbers(values, len(state), rows)
    bad = np.flatnonzero(state == _LABEL_STATES[_BAD])
    if len(bad):
        shown = [_plain(v) for v in cells.iloc[bad[:MAX_EXAMPLES]]]
        raise LabelError(
            f"{source}: label column {column!r} has {len(bad)} value(s) that are not TP/FP labels: "
            f"{_examples(row_numbers[bad], shown, len(bad))}. "
            f"Accepted labels: {LABEL_VOCABULARY}. Correct these cells, or choose another label column."
        )
    missing = state == _LABEL_STATES[_MISSING]
    if missing.any() and not exclude_unlabelled:
        where = row_numbers[missing]
        raise LabelError(
            f"{source}: label column {column!r} is empty in {len(where)} row(s): rows {_row_list(where)}. "
            "Every candidate needs a TP/FP label: fill them in, or exclude unannotated rows "
            "(option exclude_unlabelled; --exclude-unlabelled on the command line)."
        )
    kept = ~missing
    return state[kept] == _LABEL_STATES[True], kept


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
    strings = _strings(values)
    if strings is not None:  # text: vectorised
        out, bad = _floats(_trim(strings))
    else:  # mixed Python objects: one by one
        parsed, _ = _map_cells(values, _score_cell)
        bad = np.fromiter((p is _BAD for p in parsed), dtype=bool, count=len(parsed))
        out = np.where(bad, np.nan, parsed).astype(np.float64)
    bad = np.flatnonzero(bad)
    if len(bad):
        row_numbers = _row_numbers(values, len(out), rows)
        shown = [_plain(v) for v in _series(values).iloc[bad]]
        hint = ""
        if any(isinstance(v, str) and _DECIMAL_COMMA.fullmatch(v.strip()) for v in shown):
            hint = " Some look like numbers with a decimal comma: write them with a decimal point (e.g. 2.5, not 2,5)."
        raise ScoreError(
            f"{source}: score column {column!r} has {len(bad)} non-numeric value(s): "
            f"{_examples(row_numbers[bad], shown, len(bad))}. Scores must be numbers "
            f"(empty, NA, NaN, Inf and -Inf are allowed).{hint} Correct these cells, or do not use "
            f"{column!r} as a score (make it a key column instead)."
        )
    return out


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


def _blank(values: pd.Series) -> np.ndarray:
    """Which cells are strings of whitespace only."""
    if isinstance(values.dtype, pd.StringDtype):
        return pc.fill_null(pc.equal(_trim(pa.array(values)), ""), False).to_numpy(zero_copy_only=False)
    return np.array([isinstance(v, str) and not v.strip() for v in values], dtype=bool)


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
    return _build(df, None, label=label, scores=scores, keys=keys, sample=sample, lower_is_better=lower_is_better,
                  exclude_unlabelled=exclude_unlabelled, source=source)


def _build(
    df: pd.DataFrame,
    roles: ColumnRoles | None,
    *,
    label: str,
    scores: Sequence[str] | None,
    keys: Sequence[str] | None,
    sample: str | None,
    lower_is_better: Sequence[str],
    exclude_unlabelled: bool,
    source: str,
) -> CandidateSet:
    """:func:`build_candidate_set`, with the table's suggested roles if already known."""
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
    if roles is None and (scores is None or keys is None):
        roles = suggest_roles(df)
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
    table = df if kept.all() else df[kept]
    score_arrays = {str(c): parse_scores(table[c], column=str(c), source=source, rows=rows) for c in score_names}
    samples = None
    if sample is not None:
        empty = np.flatnonzero(table[sample].isna().to_numpy() | _blank(table[sample]))
        if len(empty):
            raise ColumnError(
                f"{source}: sample column {sample!r} is empty in {len(empty)} row(s): rows {_row_list(rows[empty])}. "
                "Give every candidate a sample id, or do not use a sample column."
            )
        samples = table[sample].to_numpy()
    return CandidateSet(
        labels=labels,
        scores=score_arrays,
        directions={str(c): (LOWER if c in lower else HIGHER) for c in score_names},
        keys=table[list(key_names)].reset_index(drop=True) if key_names else None,
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
    sample: str | None | bool = None,
    lower_is_better: Sequence[str] = (),
    exclude_unlabelled: bool = False,
    encoding: str | None = None,
    sheet: str | int | None = None,
    name: str | None = None,
) -> CandidateSet:
    """Read a file and build its :class:`CandidateSet` in one step.

    Roles not given are suggested by :func:`suggest_roles` (label, sample) or
    defaulted by :func:`build_candidate_set` (scores, keys). To do without a
    suggested sample column, pass ``sample=False``.

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
    if sample is False:
        sample = None
    elif sample is None and roles.sample not in (label, *_names(scores), *_names(keys)):
        sample = roles.sample
    return _build(
        df,
        roles,
        label=label,
        scores=scores,
        keys=keys,
        sample=sample,
        lower_is_better=lower_is_better,
        exclude_unlabelled=exclude_unlabelled,
        source=display,
    )


def combine_samples(sources: Sequence[tuple[Source | Any, str]], *, column: str = "sample") -> tuple[bytes, str]:
    """Several files, one per sample, as one tab-separated table with a sample column.

    Parameters
    ----------
    sources : sequence of (source, name)
        Each file's content (or path) and its name; every file must have the same columns.
    column : str
        Name of the added sample column; its values are the file names without extension
        (the whole names if two share a stem).

    Returns
    -------
    (bytes, str)
        The combined table as UTF-8 TSV, and a name for it ("k files: a.tsv, b.tsv, ...").
        Floats are written with their shortest exact representation, so nothing is rounded.

    Raises
    ------
    EvalcoreError
        A file that cannot be read (its own message), columns that differ between files
        (naming both files and the columns), or a file that already has the sample column.
    """
    if len(sources) < 2:
        raise ParameterError("combining samples needs at least two files")
    names = [n for _, n in sources]
    stems = [Path(n).name.split(".")[0] or n for n in names]
    ids = stems if len(set(stems)) == len(stems) else names
    if len(set(ids)) != len(ids):
        raise ParameterError(f"two of the files have the same name ({', '.join(names)}); rename one so each "
                             "sample has its own name")
    frames = []
    first_columns = None
    for (source, name), sample_id in zip(sources, ids):
        table = read_table(source, name=name)
        columns = [str(c) for c in table.columns]
        if column in columns:
            raise ColumnError(f"{name} already has a column {column!r}; upload one combined file with that "
                              "column instead, or rename the column")
        if first_columns is None:
            first_columns = columns
        elif set(columns) != set(first_columns):
            missing = [c for c in first_columns if c not in columns]
            extra = [c for c in columns if c not in first_columns]
            raise ColumnError(f"{name} has other columns than {names[0]}"
                              + (f"; it lacks {_columns_text(missing)}" if missing else "")
                              + (f"; it has {_columns_text(extra)} in addition" if extra else "")
                              + ". Every sample file needs the same columns.")
        table = table.copy()
        table.columns = columns
        table.insert(0, column, sample_id)
        frames.append(table[[column, *first_columns]])
    combined = pd.concat(frames, ignore_index=True)
    text = combined.to_csv(sep="\t", index=False, na_rep="", lineterminator="\n")
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    return text.encode("utf-8"), f"{len(names)} files ({shown}).tsv"
