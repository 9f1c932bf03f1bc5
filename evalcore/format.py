"""One way to write numbers for people: the dashboard, its tables, hovers, and generated text.

Every number a page shows goes through these functions, so that a p-value, a precision or a
count reads the same in a sentence, a table cell and a figure's hover:

* p-values: ``0.0431``, ``0.253``, ``1`` (three significant digits) down to 0.001, then
  ``2.1e-29``; never a string of zeros; below 1e-300 (where a double underflows) ``< 1e-300``,
  with ``log10 p = -412.3`` when the log is known;
* precision, recall, baselines: percent with two decimals, ``11.09%``;
* counts: thousands separators, ``5,102``;
* confidence levels: ``95%``, ``99.9%``;
* anything missing (None, NaN): an en dash, ``–``.

The command line writes exact numbers instead (:mod:`evalcore.output`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Callable

import numpy as np
import pandas as pd

__all__ = ["MISSING", "p_value", "p_values", "percent", "count", "level", "number", "formatted_table",
           "FORMATTERS"]

MISSING = "–"
P_FLOOR = 1e-300  # below this a double has lost its digits (and fisher_exact reports log10 p instead)


def _missing(x: Any) -> bool:
    if x is None or x is pd.NA:
        return True
    try:
        return bool(np.isnan(x))
    except (TypeError, ValueError):
        return False


def p_value(p: float | None, log10_p: float | None = None) -> str:
    """A p-value as text: three significant digits from 0.001 up, ``2.1e-29`` below, ``< 1e-300`` at the floor.

    Examples
    --------
    >>> [p_value(x) for x in (1.0, 0.25285, 0.04312, 0.00123, 2.1e-29, 0.0)]
    ['1', '0.253', '0.0431', '0.00123', '2.1e-29', '< 1e-300']
    >>> p_value(0.0, log10_p=-412.34)
    '< 1e-300 (log10 p = -412.3)'
    """
    if _missing(p):
        return MISSING
    p = float(p)
    if p < P_FLOOR:
        if log10_p is not None and not _missing(log10_p) and math.isfinite(log10_p):
            return f"< 1e-300 (log10 p = {float(log10_p):.1f})"
        return "< 1e-300"
    if p >= 0.001:
        return f"{p:.3g}"
    return f"{p:.1e}"


def p_values(p: Any, log10_p: Any = None) -> np.ndarray:
    """:func:`p_value` over an array (``log10_p``, if given, of the same shape); an object array of text."""
    p = np.asarray(p, dtype=np.float64)
    logs = np.full(p.shape, np.nan) if log10_p is None else np.asarray(log10_p, dtype=np.float64)
    out = np.empty(p.shape, dtype=object)
    for index in np.ndindex(p.shape):
        out[index] = p_value(p[index], logs[index])
    return out


def percent(x: float | None, digits: int = 2) -> str:
    """A proportion in percent: ``percent(0.110937) == '11.09%'``; ``–`` when missing."""
    if _missing(x):
        return MISSING
    return f"{100 * float(x):.{digits}f}%"


def count(x: int | None) -> str:
    """A whole number with thousands separators: ``count(5102) == '5,102'``; ``–`` when missing."""
    if _missing(x):
        return MISSING
    return f"{int(x):,}"


def level(x: float) -> str:
    """A confidence level: ``level(0.95) == '95%'``, ``level(0.999) == '99.9%'``."""
    return f"{100 * float(x):.10g}%"


def number(x: float | None, digits: int = 3) -> str:
    """Any other statistic, ``digits`` significant digits (``number(2.0871) == '2.09'``); ``–`` when missing."""
    if _missing(x):
        return MISSING
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.{digits}g}"


FORMATTERS: dict[str, Callable[[Any], str]] = {
    "p": p_value,
    "percent": percent,
    "count": count,
    "number": number,
    "text": lambda x: MISSING if _missing(x) else str(x),
}


def formatted_table(table: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """A copy of ``table`` for display, the columns named in ``kinds`` written by :data:`FORMATTERS`.

    ``kinds`` maps a column to ``"p"``, ``"percent"``, ``"count"``, ``"number"`` or ``"text"``;
    a ``"p"`` column uses the ``log10_p`` column of the table where there is one. Other columns
    are kept as they are.
    """
    shown = table.copy()
    for column, kind in kinds.items():
        if column not in shown:
            continue
        if kind == "p" and "log10_p" in table:
            shown[column] = p_values(table[column], table["log10_p"])
        else:
            shown[column] = [FORMATTERS[kind](v) for v in table[column]]
    return shown
