"""Typing of cells: from the strings (or workbook cells) a reader found to typed columns.

A column whose every non-missing value is a plain number (``12``, ``-3.5``, ``1e-5``, also
``NaN``, ``Inf``, ``-Inf``) becomes numeric (int64 if all are integers and none is missing,
else float64); every other column keeps its strings as written. Empty or blank cells and
the exact string ``NA`` are missing. The same cell parsers decide what a label or a score
cell means (:func:`label_cell`, :func:`score_cell`), so reading and validating agree.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import ColumnError, FileFormatError
from ..text import listed, shown
from .limits import Limits
from .messages import ROW_INDEX, is_missing, series

TRUE_WORDS = frozenset({"true", "t", "yes", "y", "tp", "+", "1"})
FALSE_WORDS = frozenset({"false", "f", "no", "n", "fp", "-", "0"})
LABEL_VOCABULARY = "TRUE/FALSE, T/F, 1/0, yes/no, y/n, TP/FP, +/- (any letter case)"
LABEL_NAMES = ("label", "is_tp", "is.tp", "tp", "gold", "is.colloc")
ROW_NAME_COLUMNS = ("row.names", "Unnamed: 0")  # R row names, a pandas index written to CSV: keys
#: Names of a candidate's identifier (any letter case), besides those ending in ``_id``/``.id``/``-id`` or ``_key``:
#: keys, not scores, even when they hold numbers (a score of its own must be named: ``--measure``, the Data page).
KEY_NAMES = ("id", "key", "index", "idx", "row", "rowid", "row_id", "row_number", "rownum", "uid", "uuid", "pk")
KEY_SUFFIXES = ("_id", ".id", "-id", " id", "_key", ".key")


def key_like_name(name: Any) -> bool:
    """Whether a column's name says it identifies candidates (:data:`KEY_NAMES`, :data:`KEY_SUFFIXES`)."""
    n = str(name).strip().lower()
    return n in KEY_NAMES or n.endswith(KEY_SUFFIXES)

NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
INTEGER = re.compile(r"[+-]?\d+")
SPECIAL_FLOATS = {
    "nan": np.nan, "na": np.nan, "inf": np.inf, "+inf": np.inf, "infinity": np.inf,
    "+infinity": np.inf, "-inf": -np.inf, "-infinity": -np.inf,
}
# Numbers, also with decimal commas or thousands separators: text columns mostly of these are scores.
NUMBERISH = re.compile(r"[+-]?[\d.,' ]*\d[\d.,' ]*(?:[eE][+-]?\d+)?(?: ?%)?")  # (percentages too)
DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
# NUMBER with ASCII digits only (what pyarrow parses; Unicode digits are left to Python),
# and patterns for pyarrow's regular expressions (RE2), whose \d is ASCII (Python's: \p{Nd}).
PLAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
PLAIN_RE2 = f"^{PLAIN.pattern}$"
NUMBERISH_RE2 = "^" + NUMBERISH.pattern.replace(r"\d", r"\p{Nd}") + "$"
SPECIALS = pa.array(list(SPECIAL_FLOATS))
# Exactly the characters str.strip() removes (str.isspace), for pyarrow's trim.
WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

MISSING = object()  # result of the label/score cell parsers for a missing value
BAD = object()  # ... for a value outside the vocabulary
LABEL_STATES = {False: 0, True: 1, MISSING: 2, BAD: 3}  # label_cell's results as small codes


def column_names(names: Sequence[Any], source: str) -> list[Any]:
    """Header names; nameless columns become ``Unnamed: i`` (as pandas does); no duplicates."""
    names = [f"Unnamed: {i}" if n is None or (isinstance(n, str) and not n.strip()) else n for i, n in enumerate(names)]
    seen: dict[Any, list[int]] = {}
    for i, n in enumerate(names):
        seen.setdefault(n, []).append(i + 1)
    dups = {n: pos for n, pos in seen.items() if len(pos) > 1}
    if dups:
        what = listed(dups.items(), lambda item: f"{shown(item[0])} is column {listed(item[1], str, sep=' and ')}",
                      sep="; ")
        raise ColumnError(
            f"{source}: duplicate column names: {what}. Column names must be unique: rename the duplicates."
        )
    return names


def trim(strings: Any) -> Any:
    """pyarrow strings with surrounding whitespace removed, as str.strip() does."""
    return pc.utf8_trim(strings, WHITESPACE)


def as_strings(values: Any) -> Any:
    """Cells that are all strings or missing as a pyarrow array (missing = null); None for other cells."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
        return pa.array(values)
    cells = values.to_numpy(dtype=object) if isinstance(values, pd.Series) else np.asarray(values, dtype=object)
    if cells.ndim != 1 or pd.api.types.infer_dtype(cells, skipna=True) not in ("string", "empty"):
        return None
    return pa.array(cells, type=pa.string(), from_pandas=True)


def floats(trimmed: Any, *, infer: bool = False) -> tuple[np.ndarray, np.ndarray] | None:
    """Trimmed number strings as float64 (NaN where missing or bad) and the mask of bad cells,
    exactly as :func:`score_cell` parses them; with ``infer``, None at the first bad cell.

    pyarrow parses the plain numbers (correctly rounded, as ``float()``); the rest -- NaN and
    infinity spellings, Unicode digits, non-numbers -- goes through :func:`score_cell`, once
    per distinct value."""
    values = None
    if infer:  # expect numbers only: one cast, then check the spelling of what became NaN or infinite
        try:
            values = pc.cast(trimmed, pa.float64())
            check = pc.invert(pc.is_finite(values))
        except pa.ArrowInvalid:  # not all plain numbers
            pass
    if values is None:
        plain = pc.match_substring_regex(trimmed, PLAIN_RE2)
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
            p = score_cell(u)
            if p is BAD and infer:
                return None
            parsed.append(p)
        codes = odd.indices.to_numpy(zero_copy_only=False)
        is_bad = np.array([p is BAD for p in parsed], dtype=bool)
        out[where] = np.array([np.nan if p is BAD else p for p in parsed], dtype=np.float64)[codes]
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
    if not all(INTEGER.fullmatch(t) for t in text):
        return None
    try:
        return text.astype(np.int64)
    except (OverflowError, ValueError):
        return None


def numeric(strings: Any) -> np.ndarray | None:
    """A column of strings (missing = null, none blank) whose every value is a number, as int64
    (all integers, none missing) or float64; None if some value is not a number."""
    sample = pc.drop_null(strings.slice(0, 200)).to_pylist()  # most text columns show it at once
    if any(score_cell(v) is BAD for v in sample):
        return None
    trimmed = trim(strings)
    ints = _integers(trimmed) if trimmed.null_count == 0 else None
    if ints is not None:
        return ints
    parsed = floats(trimmed, infer=True)
    return None if parsed is None else parsed[0]


def _no_blanks(cells: Any) -> Any:
    """A column of cells from the reader (pyarrow strings, "" and NA null) with blank cells made
    null too; a column the reader has parsed as numbers as it is."""
    if is_text(cells):
        blank = pc.utf8_is_space(cells)  # (pyarrow's whitespace is exactly Python's)
        if pc.any(blank).as_py():
            return pc.if_else(blank, pa.scalar(None, cells.type), cells)
    return cells


def is_text(column: Any) -> bool:
    return pa.types.is_string(column.type) or pa.types.is_large_string(column.type)


def _infer_text(cells: Any) -> Any:
    """Typed values of a column from :func:`_no_blanks`: int64/float64 if every value is a
    number (all missing: float NaN), else the strings as written."""
    if not is_text(cells):
        return cells.to_numpy(zero_copy_only=False)
    numbers = numeric(cells)
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
        numbers = numeric(pa.array([str(v) if g else None for v, g in zip(s, given)], pa.string()))
        if numbers is not None:
            return numbers
    return s.astype("str") if kinds == {str} else s


def frame(header: Sequence[Any], columns: list[Any], rows: np.ndarray, source: str) -> pd.DataFrame:
    """DataFrame from columns of cells, all pyarrow strings (text: "" and NA null; blank cells
    become null here) or all object Series (workbooks: missing = None): typed columns, empty rows
    dropped, row-number index."""
    names = column_names(header, source)
    text = isinstance(columns[0], (pa.Array, pa.ChunkedArray))
    # The list is changed in place, so each column of cells is freed as soon as it is typed.
    if text:
        for i, c in enumerate(columns):
            columns[i] = _no_blanks(c)
        present = [pc.is_valid(c).to_numpy(zero_copy_only=False) for c in columns if c.null_count]
    else:
        present = [p for p in (c.notna().to_numpy() for c in columns) if not p.all()]
    if len(present) == len(columns):  # every column has missing cells: some rows may be empty
        keep = np.logical_or.reduce(present)
        if not keep.all():
            mask = pa.array(keep)
            for i, c in enumerate(columns):
                columns[i] = c.filter(mask) if text else c[keep]
            rows = rows[keep]
    del present
    if not len(rows):
        raise FileFormatError(f"{source}: has a header but no data rows; add one row per candidate")
    infer = _infer_text if text else _infer_objects
    typed = {}
    pool = pa.default_memory_pool()
    for i, name in enumerate(names):
        typed[name] = infer(columns[i])
        columns[i] = None
        if text:
            pool.release_unused()  # (the pool keeps freed memory; numpy and pandas allocate elsewhere)
    df = pd.DataFrame(typed, copy=False)  # (no copy into one block per dtype)
    df.index = pd.Index(rows, name=ROW_INDEX)
    return df


def tidy(df: pd.DataFrame, source: str, fmt: str, index_name: str) -> pd.DataFrame:
    """Typed frames (Parquet, R): meaningful index -> column, categoricals -> values, row index."""
    idx = df.index
    default = isinstance(idx, pd.RangeIndex) and idx.step == 1 and idx.start in (0, 1)
    if not default:
        df = df.reset_index(names=idx.name if idx.name is not None else index_name)
    df = df.copy(deep=False)  # (copy on write: the caller's frame stays as it is)
    df.columns = column_names(list(df.columns), source)
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



def label_cell(v: Any) -> Any:
    """True / False / MISSING / BAD for one label cell."""
    if is_missing(v):
        return MISSING
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return True if v == 1 else False if v == 0 else BAD
    if isinstance(v, str):
        t = v.strip()
        if t in ("", "NA"):
            return MISSING
        t = t.lower()
        if t in TRUE_WORDS or t in FALSE_WORDS:
            return t in TRUE_WORDS
        if NUMBER.fullmatch(t) and float(t) in (0.0, 1.0):
            return float(t) == 1.0
    return BAD


def score_cell(v: Any) -> Any:
    """The float value of one score cell (NaN if missing), or BAD."""
    if is_missing(v):
        return np.nan
    if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
        return float(v)
    if isinstance(v, str):
        t = v.strip()
        if not t:
            return np.nan
        special = SPECIAL_FLOATS.get(t.lower())
        if special is not None:
            return special
        if NUMBER.fullmatch(t):
            return float(t)
    return BAD


def map_cells(values: Any, parse: Callable[[Any], Any]) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``parse`` once per distinct value; returns (results, cells) as object arrays."""
    cells = series(values).to_numpy(dtype=object)
    codes, uniques = pd.factorize(cells, use_na_sentinel=True)
    parsed = np.empty(len(uniques) + 1, dtype=object)
    parsed[:-1] = [parse(u) for u in uniques]
    parsed[-1] = parse(None)
    return parsed[codes], cells



def check_fields(header: Sequence[Any], columns: list[Any], rows: np.ndarray, source: str, limits: Limits) -> None:
    """Refuse a column of pyarrow strings that holds a value longer than ``max_field_bytes``."""
    for name, column in zip(header, columns):
        if not isinstance(column, (pa.Array, pa.ChunkedArray)) or not is_text(column) or not len(column):
            continue
        lengths = pc.binary_length(column)
        longest = pc.max(lengths).as_py()
        if longest is not None and longest > limits.max_field_bytes:
            at = pc.index(lengths, longest).as_py()
            raise limits.refuse(
                source, "max_field_bytes", f"row {rows[at]}, column {shown(name)} holds a value of {longest:,} bytes"
            )
