"""Pieces of the messages every reader and check shares: row numbers, examples, column lists.

Every message names the file, the column and rows, the offending values and what to do.
Rows are numbered as data rows from 1, the header not counted (see :mod:`evalcore.io`).
What the input gives a message is bounded (:func:`evalcore.text.shown`, :func:`evalcore.text.listed`): each name or
value cut to 60 characters, each list to 5 items and "(and N more)".
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..text import SHOWN_ITEMS, cut, listed, shown

ROW_INDEX = "row"
"""Name of the index :func:`read_table` gives its DataFrame: 1-based data row numbers."""

MAX_EXAMPLES = SHOWN_ITEMS
DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}


def is_missing(v: Any) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    return isinstance(v, (float, np.floating)) and bool(np.isnan(v))


def row_numbers(values: Any, n: int, rows: Any = None) -> np.ndarray:
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


def examples(rows: np.ndarray, values: Sequence[Any], total: int) -> str:
    """``row 3: 'x', row 8: 'y' (and 4 more)`` for the first offending cells (each value cut: :func:`shown`)."""
    parts = [f"row {r}: {_cell(v)}" for r, v in zip(rows[:MAX_EXAMPLES], values[:MAX_EXAMPLES])]
    return listed(parts, str, total=total)


def _cell(v: Any) -> str:
    """A cell quoted in a message: text quoted and cut (:func:`shown`), other values as their repr, cut."""
    v = plain(v)
    return shown(v) if isinstance(v, str) else cut(repr(v))


def row_list(rows: np.ndarray) -> str:
    return listed(rows[:MAX_EXAMPLES], str, total=len(rows))


def columns_text(columns: Iterable[Any]) -> str:
    """``'a', 'b', 'c', 'd', 'e' (and 12 more)``: the columns quoted and cut (:func:`evalcore.text.listed`)."""
    return listed(columns)


def plain(v: Any) -> Any:
    """A cell value as users wrote it (numpy scalars shown as Python values)."""
    return v.item() if isinstance(v, np.generic) else v


def series(values: Any) -> pd.Series:
    """Cells as a Series: kept as given, arrays in their dtype, anything else as Python objects."""
    if isinstance(values, pd.Series):
        return values
    return pd.Series(values) if isinstance(values, np.ndarray) else pd.Series(values, dtype=object)


# What non-numeric score cells often are, and what to do: (pattern of a stripped cell, sentence).
SCORE_HINTS = (
    (re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?"),
     "Some look like numbers with a decimal comma: write them with a decimal point (e.g. 2.5, not 2,5)."),
    (re.compile(r"[+-]?\d{1,3}(?:(?:,\d{3})+(?:\.\d+)?|(?:\.\d{3})+(?:,\d+)?|(?:[' \u00a0\u202f]\d{3})+(?:[.,]\d+)?)"),
     "Some look like numbers with thousands separators (e.g. 1,234.5): write them without separators "
     "(1234.5)."),
    (re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)\s*%"),
     "Some are percentages (e.g. 50%): write them as plain numbers without the % sign (50 or 0.5)."),
)


def score_hints(values: Iterable[Any]) -> str:
    """The sentences of :data:`SCORE_HINTS` that fit some of ``values`` (the first 1,000 looked at)."""
    texts = [v.strip() for v, _ in zip((v for v in values if isinstance(v, str)), range(1000))]
    return "".join(f" {sentence}" for pattern, sentence in SCORE_HINTS if any(pattern.fullmatch(t) for t in texts))


def label_number_hint(uniques: Sequence[Any], counts: Sequence[int]) -> str:
    """For a label column of numbers: which values other than 0 and 1 it holds, and how often."""
    values = listed([f"{_cell(v)} ({c:,} row{'s' if c != 1 else ''})" for v, c in
                     zip(uniques[:MAX_EXAMPLES * 2], counts[:MAX_EXAMPLES * 2])], str, total=len(uniques),
                    limit=MAX_EXAMPLES * 2)
    return (f" The column holds numbers other than 0 and 1: {values}. A numeric label must be 1 for a true "
            "positive and 0 for a false positive; if the numbers are grades or counts, make a 0/1 column from them "
            "(e.g. 1 where the grade is high enough).")


# ------------------------------------------------------------ what to do about labels, where it is read
WHERE = ("page", "cli")
"""Where a message is shown: ``"page"`` (the dashboard, and Python: no command line options named)
or ``"cli"`` (the command line: its options named)."""

_UNLABELLED_ADVICE = {
    "page": "fill them in; or leave out the rows with an empty label; or, if the labelled rows are a random "
            "sample of the candidates, estimate from that sample (annotate it, or more of it, on the Annotate "
            "page)",
    "cli": "fill them in; or leave those rows out (--exclude-unlabelled); or, if the labelled rows are a random "
           "sample of the candidates, estimate from that sample (--annotated-sample)",
}
_NOTHING_ANNOTATED_ADVICE = {
    "page": "nothing is annotated yet. Annotate a random sample of the candidates on the Annotate page: the "
            "estimates then come from the sample",
    "cli": "nothing is annotated yet. Annotate a random sample of the candidates (the dashboard's Annotate page "
           "draws one and exports it), then read the export with --annotated-sample",
}
_NO_LABEL_COLUMN_ADVICE = {
    "page": "Choose the label column; if the candidates are not annotated yet, annotate a random sample of them "
            "on the Annotate page",
    "cli": "Name the label column with --label; if the candidates are not annotated yet, annotate a random "
           "sample of them (the dashboard's Annotate page) and read its export with --annotated-sample",
}


def check_where(where: str) -> str:
    if where not in WHERE:
        raise ParameterError(f"`where` must be one of {', '.join(WHERE)}; got {where!r}")
    return where


def unlabelled_advice(where: str) -> str:
    """What to do about rows with an empty label, in the words of ``where`` ("page" or "cli")."""
    return _UNLABELLED_ADVICE[check_where(where)]


def nothing_annotated_advice(where: str) -> str:
    """What to do when the label column is empty in every row (nothing annotated)."""
    return _NOTHING_ANNOTATED_ADVICE[check_where(where)]


def no_label_column_advice(where: str) -> str:
    """What to do when no column holds TP/FP labels."""
    return _NO_LABEL_COLUMN_ADVICE[check_where(where)]
