"""Delimited text (CSV, TSV, ...): from UTF-8 bytes to columns of cells, within limits.

The delimiter is detected among comma, tab, semicolon and ``|``. Text is parsed by
pyarrow's CSV reader; where needed, the layout (fields per record, the line each record
starts on) is found on the raw bytes with numpy. The few files that reader cannot read
exactly as Python's :mod:`csv` module does (a quote inside an unquoted value or right after
a closing quote, NUL bytes, one-column tables, ...) are read by the :mod:`csv` module
itself: results and messages are the same either way.

Before anything is parsed, :func:`check_lines` refuses text with more lines than
``max_rows`` or a line longer than ``max_line_bytes``, and the header is refused if it has
more than ``max_columns`` fields; after parsing, no value may be longer than
``max_field_bytes``.
"""

from __future__ import annotations

import csv
import io as _io
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from ..errors import FileFormatError
from ..text import cut, shown
from .cells import INTEGER, PLAIN, check_fields, frame
from .encodings import sniff_utf16, to_utf8
from .formats import FORMATS, OLD_EXCEL, SUPPORTED, UTF16_BOMS, sniff_format
from .limits import Limits, Handover
from .messages import DELIMITER_NAMES, MAX_EXAMPLES

DELIMITERS = (",", "\t", ";", "|")
# pyarrow parses blocks of a sixteenth of the text, from 1 MB (a record longer than a block fails there
# and goes to the csv module: a block holds any line the default limits allow) to 16 MB.
_BLOCKS = (1 << 20, 16 << 20)


def _sniff_delimiter(data: bytes, ext: str) -> str:
    """The delimiter that splits the first lines into the most fields, consistently."""
    head = data[: 4 * 65536].decode("utf-8", "ignore")[:65536]  # the first 65,536 characters
    lines = head.splitlines()
    if len(data) > 4 * 65536 or len(head) < len(data.decode("utf-8")):
        lines.pop()  # cut off
    lines = [line for line in lines[:50] if line.strip()]
    preferred = {".tsv": "\t", ".tab": "\t"}.get(ext, ",")
    order = (preferred,) + tuple(d for d in DELIMITERS if d != preferred)

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
    header: list[str], widths: np.ndarray, rows: np.ndarray, lines: np.ndarray | None, header_line: int,
    delimiter: str, source: str,
) -> list[str]:
    """The header, with ``row.names`` in front if every row has one field more; else every row must fit it.
    ``lines``: the line each row starts on (None: the header's line + the row number)."""
    if len(widths) and (widths == len(header) + 1).all():
        header = ["row.names", *header]  # R's write.table: no header field over the row names
    bad = np.flatnonzero(widths != len(header))
    if len(bad):
        line = (lambda i: lines[i]) if lines is not None else (lambda i: rows[i] + header_line)
        where = ", ".join(f"row {rows[i]} (line {line(i)}) has {widths[i]}" for i in bad[:MAX_EXAMPLES])
        more = f" (and {len(bad) - MAX_EXAMPLES} more rows)" if len(bad) > MAX_EXAMPLES else ""
        raise FileFormatError(
            f"{source}: {len(bad)} row(s) have a wrong number of fields: the header (line {header_line}) has "
            f"{len(header)} fields, but {where}{more}. The delimiter was detected as {DELIMITER_NAMES[delimiter]}; "
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
        if values and all(PLAIN.fullmatch(v) for v in values) and not all(INTEGER.fullmatch(v) for v in values):
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
    block = min(max(len(body) // 16, _BLOCKS[0]), _BLOCKS[1])
    floats = _float_columns(body, delimiter, width)
    for typed in ([floats, []] if floats else [[]]):
        types = {name: pa.float64() if j in typed else pa.string() for j, name in enumerate(names)}
        try:
            table = pa_csv.read_csv(
                pa.py_buffer(body),
                read_options=pa_csv.ReadOptions(column_names=names, block_size=block),
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
        except pa.ArrowException:  # (a value that is not a plain number, a ragged row, a record too long)
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


_LAYOUT_PIECE = 1 << 22  # bytes looked at per step of the layout scan (4 MB: temporaries stay small)


def _scan_layout(data: Any, delimiter: str) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """Ends of the records (line breaks outside quoted values, and the end of the data),
    their numbers of fields, and whether a quoted value holds a line break; None where the
    csv module must read the file: a lone carriage return, or quotes that do not open or
    close a value (a quote inside an unquoted value is a plain character to the csv module,
    but not to pyarrow).

    The bytes are scanned in pieces of 4 MB, carrying the number of quotes seen (inside or
    outside a quoted value) and the fields of the record still open, so the temporaries stay
    small whatever the size of the file: the result is 12 bytes per record.
    """
    a = np.frombuffer(data, dtype=np.uint8)
    n = len(a)
    d = ord(delimiter)
    quoted = b'"' in data
    cr = b"\r" in data
    quotes_seen = 0
    open_fields = 0  # delimiters (outside quotes) of the record that the last piece left open
    multiline = False
    ends_parts, width_parts = [], []
    edges_before = np.array([d, 10, 34], dtype=np.uint8)
    edges_after = np.array([d, 10, 13, 34], dtype=np.uint8)
    for s in range(0, n, _LAYOUT_PIECE):
        piece = a[s : s + _LAYOUT_PIECE]
        newlines = np.flatnonzero(piece == 10)
        delims = np.flatnonzero(piece == d)
        if cr:
            returns = np.flatnonzero(piece == 13) + s
            if len(returns) and (returns[-1] == n - 1 or (a[np.minimum(returns + 1, n - 1)] != 10).any()):
                return None  # a lone carriage return ends a line for the csv module: it reads the file
        if quoted:
            quotes = np.flatnonzero(piece == 34)
            if len(quotes):
                at = quotes + s
                opening = (quotes_seen + np.arange(len(quotes))) % 2 == 0
                before = np.isin(a[np.maximum(at - 1, 0)], edges_before) | (at == 0)
                after = np.isin(a[np.minimum(at + 1, n - 1)], edges_after) | (at == n - 1)
                if not (before[opening].all() and after[~opening].all()):
                    return None
            inside = (quotes_seen + np.searchsorted(quotes, newlines)) % 2 == 1
            multiline |= bool(inside.any())
            newlines = newlines[~inside]
            delims = delims[(quotes_seen + np.searchsorted(quotes, delims)) % 2 == 0]
            quotes_seen += len(quotes)
        before_each = np.searchsorted(delims, newlines)
        widths = np.diff(before_each, prepend=0) + 1
        if len(widths):
            widths[0] += open_fields
            open_fields = len(delims) - int(before_each[-1])
        else:
            open_fields += len(delims)
        ends_parts.append(newlines + s)
        width_parts.append(widths.astype(np.int32))
    if quotes_seen % 2:
        return None  # a value is not closed: the csv module reports it
    ends = np.concatenate(ends_parts) if ends_parts else np.zeros(0, np.int64)
    widths = np.concatenate(width_parts) if width_parts else np.zeros(0, np.int32)
    if not len(ends) or ends[-1] != n - 1:  # a last record without a line break
        ends = np.append(ends, n)
        widths = np.append(widths, np.int32(open_fields + 1))
    return ends, widths, multiline


def _record_lines(data: Any, ends: np.ndarray) -> np.ndarray:
    """The line on which each record starts (counting every line break, also those inside quotes)."""
    a = np.frombuffer(data, dtype=np.uint8)
    starts = np.concatenate(([0], ends[:-1] + 1))
    lines = np.empty(len(starts), dtype=np.int64)
    seen = 0
    done = 0
    for s in range(0, len(a), _LAYOUT_PIECE):
        newlines = np.flatnonzero(a[s : s + _LAYOUT_PIECE] == 10) + s
        upto = np.searchsorted(starts, s + _LAYOUT_PIECE)
        lines[done:upto] = seen + np.searchsorted(newlines, starts[done:upto]) + 1
        done = upto
        seen += len(newlines)
    lines[done:] = seen + 1
    return lines


def _parse_layout(data: bytes, delimiter: str, source: str) -> _Parsed | None:
    """Any text the csv module would read the same way: records, their widths and first lines
    found on the raw bytes with numpy (quotes respected, :func:`_scan_layout`); None if that is
    not possible."""
    scanned = _scan_layout(data, delimiter)
    if scanned is None:
        return None
    ends, widths, multiline = scanned
    a = np.frombuffer(data, dtype=np.uint8)

    def record(i: int) -> bytes:
        start = int(ends[i - 1]) + 1 if i else 0
        end = int(ends[i])
        return bytes(data[start : end - (end > start and a[end - 1] == 13)])

    # Blank records (no field with content) are skipped: empty lines, and one-field records checked one by one.
    single = np.flatnonzero(widths == 1)
    starts = np.where(single > 0, ends[np.maximum(single - 1, 0)] + 1, 0)
    empty = ends[single] - starts - (a[np.maximum(ends[single] - 1, 0)] == 13) <= 0
    if (~empty).sum() > 1000:
        return None  # a one-column table, or nearly: the csv module reads it
    blank = [i for i, e in zip(single, empty) if e or not "".join(_fields(record(i), delimiter)).strip()]
    if len(blank) == len(ends):
        return None  # nothing but blanks: the csv module says whether the file is empty
    lines = _record_lines(data, ends) if multiline else None
    keep = np.ones(len(ends), dtype=bool)
    keep[blank] = False
    first = int(np.argmax(keep))
    keep[first] = False
    body = keep if len(blank) else slice(first + 1, None)
    header_line = int(lines[first]) if multiline else first + 1
    rows = (lines[body] if multiline else np.arange(1, len(ends) + 1, dtype=np.int64)[body]) - header_line
    header = _fields(record(first), delimiter)
    header = _check_widths(header, widths[body], rows, None if lines is None else lines[body], header_line,
                           delimiter, source)
    if len(header) < 2:
        return None
    del widths, lines, keep
    body_bytes = memoryview(data)[int(ends[first]) + 1 :]
    columns = _arrow_columns(body_bytes, delimiter, len(header), quoted=b'"' in data, multiline=multiline)
    if columns is None or len(columns[0]) != len(rows):
        return None
    return header, columns, rows


class _ViewReader(_io.RawIOBase):
    """Bytes as a readable stream without copying them."""

    def __init__(self, data: Any) -> None:
        self._view = memoryview(data)
        self._position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), len(self._view) - self._position)
        buffer[:n] = self._view[self._position : self._position + n]
        self._position += n
        return n


_CSV_CHUNK = 1 << 16  # records turned into pyarrow columns at a time


def _csv_fields_within(limits: Limits) -> None:
    """Let the csv module read any field of a line the limits allow (its own default stops at 131,072
    characters, with a traceback): the limits (:func:`check_lines`, :func:`evalcore.io.cells.check_fields`)
    decide, with a message. Only ever raised (the setting is the process's)."""
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_line_bytes + 1, limits.max_field_bytes + 1))


def _check_header_fields(header: list[str], source: str, limits: Limits) -> None:
    """Refuse a header field (a column name) longer than ``max_field_bytes``, as any other value."""
    for i, name in enumerate(header):
        size = len(name.encode("utf-8"))
        if size > limits.max_field_bytes:
            raise limits.refuse(source, "max_field_bytes", f"the header's field {i + 1} (a column name "
                                                           f"starting {shown(name)}) is {size:,} bytes long")


def _parse_csv(data: Any, delimiter: str, source: str, limits: Limits) -> _Parsed:
    """Read with the csv module: any text, exact messages for broken quoting. Streams the text
    and turns every 65,536 records into pyarrow columns, so memory stays near the file's size."""
    _csv_fields_within(limits)
    text = _io.TextIOWrapper(_io.BufferedReader(_ViewReader(data), 1 << 20), encoding="utf-8", newline="")
    reader = csv.reader(text, delimiter=delimiter, strict=True)
    header: list[str] | None = None
    header_line = 0
    starts: list[int] = []
    widths: list[int] = []
    chunks: list[list[Any]] = []
    pending: list[list[str]] = []
    width = -1  # fields of the first data record: records of another width are an error (see _check_widths)

    def flush() -> None:
        cells = zip(*pending) if pending else [()] * width
        for j, c in enumerate(cells):
            chunks[j].append(pa.array([None if v in ("", "NA") else v for v in c], pa.string()))
        pending.clear()

    end = 0
    try:
        for record in reader:
            start, end = end + 1, reader.line_num  # the lines of this record
            if not record or (len(record) == 1 and not record[0].strip()):
                continue  # blank: no candidate
            if header is None:
                header, header_line = record, start
                continue
            starts.append(start)
            widths.append(len(record))
            if width < 0:
                width = len(record)
                chunks = [[] for _ in range(width)]
            if len(record) == width and chunks:
                pending.append(record)
                if len(pending) >= _CSV_CHUNK:
                    flush()
            else:
                chunks, pending = [], []  # the layout is wrong: only the widths matter now
    except csv.Error as e:
        line = reader.line_num
        if "field larger than field limit" in str(e):
            raise limits.refuse(source, "max_field_bytes", f"a value ending on line {line:,} is longer than "
                                                           f"{limits.max_field_bytes:,} bytes") from None
        where = f"row {line - header_line}" if header is not None and line > header_line else "the header"
        raise FileFormatError(
            f"{source}: cannot parse line {line} ({where}): {cut(e, 200)}. A value that contains "
            f"the delimiter ({DELIMITER_NAMES[delimiter]}), a quote or a line break must be enclosed in "
            'double quotes, with quotes inside it doubled ("").'
        ) from None
    if header is None or (len(data) < (1 << 20) and not bytes(data).decode("utf-8").strip()):
        raise FileFormatError(f"{source}: the file is empty; it needs a header line and one line per candidate")
    starts_array = np.array(starts, dtype=np.int64)
    rows = starts_array - header_line
    header = _check_widths(header, np.array(widths, dtype=np.int64), rows, starts_array, header_line, delimiter,
                           source)
    if width < 0:
        width, chunks = len(header), [[] for _ in header]
    flush()
    columns = [pa.chunked_array(c, pa.string()) for c in chunks]
    return header, columns, rows


def read_text(
    content: Handover, source: str, ext: str, encoding: str | None, sheet: Any, limits: Limits
) -> pd.DataFrame:
    """A delimited text file as a typed DataFrame (see :mod:`evalcore.io`), within ``limits``."""
    data = content.take()
    if encoding is None and b"\x00" in data[:8192] and not data.startswith(UTF16_BOMS) and sniff_utf16(data) is None:
        actual = sniff_format(data)
        hint = ""
        if actual not in (None, "text"):
            hint = f" It looks like an {FORMATS[actual].title}: rename it to {FORMATS[actual].extensions[0]}."
        elif data.startswith(OLD_EXCEL):
            hint = " It looks like an old Excel .xls file: save it as .xlsx or CSV."
        raise FileFormatError(
            f"{source}: binary content, not a text table (it has NUL bytes, which text never has).{hint} "
            f"Supported formats: {SUPPORTED}."
        )
    data, encoding = to_utf8(data, source, encoding)
    lines = check_lines(data, source, limits)
    _csv_fields_within(limits)  # (a line within the limits may hold one field longer than the csv module's default)
    delimiter = _sniff_delimiter(data, ext)
    _check_header_width(data, delimiter, lines, source, limits)
    parsed = None
    if b"\x00" not in data:  # (the csv module rejects NUL bytes)
        parsed = _parse_simple(data, delimiter) or _parse_layout(data, delimiter, source)
    header, columns, rows = parsed or _parse_csv(data, delimiter, source, limits)
    del data
    _check_header_fields(header, source, limits)
    check_fields(header, columns, rows, source, limits)
    df = frame(header, columns, rows, source)
    df.attrs.update(format="text", encoding=encoding, delimiter=delimiter)
    return df


def _line_breaks(data: Any) -> bytes:
    """What ends a line: LF, or CR in files with no LF at all (old Mac files)."""
    return b"\r" if b"\n" not in data and b"\r" in data else b"\n"


def check_lines(data: Any, source: str, limits: Limits) -> int:
    """Refuse text with more lines than ``max_rows`` (+ the header) or a line longer than ``max_line_bytes``.

    The length check looks at windows of half the limit: only a window with no line break
    in it can lie in a line as long as the limit, and only for such windows is the line
    measured. That is one ``find`` per window, so any file is checked in milliseconds.
    Returns the number of lines.
    """
    eol = _line_breaks(data)
    lines = data.count(eol) + (not data.endswith(eol))
    if lines > limits.max_rows + 1:
        raise limits.refuse(source, "max_rows", f"has {lines:,} lines, so more than {limits.max_rows:,} data rows")
    step = max(limits.max_line_bytes // 2, 1)
    start = 0
    while start < len(data):
        end = min(start + step, len(data))
        if data.find(b"\n", start, end) < 0 and data.find(b"\r", start, end) < 0:
            first = max(data.rfind(b"\n", 0, start), data.rfind(b"\r", 0, start)) + 1
            last = min((p for p in (data.find(b"\n", end), data.find(b"\r", end)) if p >= 0), default=len(data))
            if last - first > limits.max_line_bytes:
                line = data.count(eol, 0, first) + 1
                raise limits.refuse(source, "max_line_bytes", f"line {line:,} is {last - first:,} bytes long")
            start = max(last, end)
            continue
        start = end
    return lines


def _check_header_width(data: Any, delimiter: str, lines: int, source: str, limits: Limits) -> None:
    """Refuse a header line with more than ``max_columns`` fields before anything is parsed."""
    start = 0
    while start < len(data):
        end, following = _line_end(data, start)
        if bytes(data[start:end]).strip():
            break
        start = following
    else:
        return
    width = data.count(delimiter.encode(), start, end) + 1  # (an upper bound: quoted delimiters count too)
    if width > limits.max_columns:
        width = len(_fields(data[start:end], delimiter))
        if width > limits.max_columns:
            line = data.count(b"\n", 0, start) + 1
            raise limits.refuse(source, "max_columns", f"the header (line {line}) has {width:,} columns")
    rows = lines - data.count(_line_breaks(data), 0, start) - 1  # the lines after the header
    if rows * width > limits.max_cells:
        raise limits.refuse(source, "max_cells", f"has {rows:,} rows of {width:,} columns, {rows * width:,} cells")
