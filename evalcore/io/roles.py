"""Suggested column roles: which column is the label, which are scores, keys, the sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .cells import (
    LABEL_NAMES, MISSING, NUMBERISH, NUMBERISH_RE2, ROW_NAME_COLUMNS, SPECIAL_FLOATS, SPECIALS, key_like_name, label_cell,
    trim,
)

__all__ = ["ColumnRoles", "KEY_REASONS", "key_reason", "left_out_note", "numeric_keys", "suggest_roles",
           "unfilled_label"]

#: From this many cells on, distinct integers are an id (an integer score of so many candidates has ties).
ID_MIN_ROWS = 1000
#: Why a numeric column is a key and not a score by default (:func:`key_reason`).
KEY_REASONS = {"name": "named like a key", "distinct": "distinct integers, as a candidate's id"}


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
    left_out : tuple of (str, str)
        Numeric columns made keys rather than scores, each with its reason (a key of :data:`KEY_REASONS`):
        named like a key, or holding distinct integers. Whoever shows the roles names them (:func:`left_out_note`).
    """

    label: str | None
    scores: tuple[str, ...]
    keys: tuple[str, ...]
    sample: str | None
    left_out: tuple[tuple[str, str], ...] = ()


def _distinct_integers(s: pd.Series) -> bool:
    """An integer column of at least :data:`ID_MIN_ROWS` cells with no value twice (missing cells aside): it numbers
    the candidates. (Distinct integers on a handful of candidates are as likely a score: 1, 2, 3 in a test file.)
    The count and range first (fewer possible values than cells settles it), then a hash of the values."""
    if not pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return False
    present = s.dropna() if s.hasnans else s
    if len(present) < ID_MIN_ROWS or int(present.max()) - int(present.min()) + 1 < len(present):
        return False
    return bool(present.is_unique)


def key_reason(name: Any, s: pd.Series | None = None) -> str | None:
    """Why the numeric column ``name`` (values ``s``) is a key rather than a score by default: ``"name"`` (named
    like a key, :func:`evalcore.io.cells.key_like_name`), ``"distinct"`` (distinct integers), or None."""
    if key_like_name(name):
        return "name"
    if s is not None and _distinct_integers(s):
        return "distinct"
    return None


def numeric_keys(keys: pd.DataFrame | None) -> list[tuple[str, str]]:
    """The numeric columns of a candidate set's keys (:attr:`evalcore.candidates.CandidateSet.keys`) that would be
    scores but for :func:`key_reason`, each with its reason: what :func:`left_out_note` names."""
    if keys is None:
        return []
    found = []
    for c in keys.columns:
        s = keys[c]
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            why = key_reason(c, s)
            if why:
                found.append((str(c), why))
    return found


def left_out_note(source: str, left_out: Sequence[tuple[str, str]], how: str = "name it as a score") -> str | None:
    """The note that names the numeric columns not taken as scores (and why), or None if there are none."""
    if not left_out:
        return None
    listed = "; ".join(f"{c!r} ({KEY_REASONS.get(why, why)})" for c, why in left_out)
    one = len(left_out) == 1
    return f"{source}: not taken as {'a score' if one else 'scores'}: {listed}; to rank by {'it' if one else 'one'}, {how}"




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
    parsed = {label_cell(u) for u in uniques} - {MISSING}
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
        text = trim(uniques)
        numeric = pc.or_(pc.match_substring_regex(text, NUMBERISH_RE2), pc.is_in(pc.ascii_lower(text), SPECIALS))
        if not pc.any(numeric).as_py() or pc.all(numeric).as_py():
            return pc.all(numeric).as_py()
        counts = pc.value_counts(strings)
        numeric = pc.is_in(counts.field("values"), pc.filter(uniques, numeric))
        return pc.sum(pc.filter(counts.field("counts"), numeric)).as_py() / len(present) > 0.5
    text = present.astype(str).str.strip()
    numeric = text.str.fullmatch(NUMBERISH.pattern) | text.str.lower().isin(SPECIAL_FLOATS)
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


# First bytes of what may strip to a number (NUMBERISH) or NaN/Inf: whitespace, non-ASCII (Unicode digits).
_MAY_START_A_NUMBER = np.array(
    [chr(b) in "+-.,' 0123456789nNiI" or chr(b).isspace() or b >= 0x80 for b in range(256)], dtype=bool
)


def _label_priority(name: Any) -> int:
    n = str(name).lower()
    if n in LABEL_NAMES:
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
    starting with ``is_``/``is.``), else a numeric column named exactly like one
    (``label`` holding 0, 1 and 2), is the label anyway, so that building the
    candidate set reports its offending cells. Row names (``row.names``,
    ``Unnamed: 0``) are keys, whatever they hold. A column named
    ``sample`` (any case) is the sample column. Numeric columns, and text columns
    most of whose values look like numbers, are scores, except a column named like a
    key (``id``, ``key``, ``doc_id``, ...: :func:`evalcore.io.cells.key_like_name`) or
    holding distinct integers (a candidate's id), which is a key, listed in ``left_out``.
    Everything else is a key.

    Parameters
    ----------
    df : DataFrame
        The table, e.g. from :func:`read_table`.

    Returns
    -------
    ColumnRoles
    """
    sample = next((c for c in df.columns if str(c).lower() == "sample"), None)
    booleans, scores, keys, left_out = [], [], [], []
    for c in df.columns:
        if c == sample:
            continue
        if str(c) in ROW_NAME_COLUMNS:
            keys.append(c)
        elif _is_boolean_like(df[c]):
            booleans.append(c)
        elif _looks_numeric(df[c]):
            why = key_reason(c, df[c]) if _label_priority(c) else None  # (a numeric label named so stays below)
            if why:
                left_out.append((c, why))
                keys.append(c)
            else:
                scores.append(c)
        else:
            keys.append(c)
    label = min(booleans, key=_label_priority) if booleans else None  # min keeps the first of equals
    if label is None:  # no clean TP/FP column: one named like a label, so that its bad cells get reported
        label = next((c for c in keys if _label_priority(c) <= 1), None)
        if label is None:  # ... also a column of numbers named exactly like one (0/1/2, grades)
            label = next((c for c in scores if _label_priority(c) == 0), None)
            scores = [c for c in scores if c != label]
    keys = [c for c in df.columns if c != label and (c in keys or c in booleans)]
    return ColumnRoles(label=label, scores=tuple(scores), keys=tuple(keys), sample=sample,
                       left_out=tuple((c, why) for c, why in left_out if c != label))



def unfilled_label(df: pd.DataFrame, label: Any) -> Any | None:
    """A column named like a label column and empty in every row that would have been the label, before ``label``
    (the suggested one, e.g. ``suggest_roles(df).label``), had it held labels: the label column the file means,
    still to be filled in (by annotating). None if there is none.

    An emptied ``is.colloc`` beside ``is.SVC`` and ``is.figur`` (Krenn's data) gives ``is.colloc``: suggesting
    ``is.SVC`` instead would silently change what the user's file calls its labels.
    """
    order = list(df.columns)

    def rank(c) -> tuple[int, int]:
        return _label_priority(c), order.index(c)

    if label is not None and label not in order:
        return None
    for c in order:
        if c == label or _label_priority(c) > 1:
            continue
        if label is not None and rank(c) > rank(label):
            continue
        cells = df[c]
        if cells.isna().all() or bool((cells.dropna().astype(str).str.strip() == "").all()):
            return c
    return None
