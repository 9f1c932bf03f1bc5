"""One way to write numbers for people: the dashboard, its tables, hovers, and generated text.

Every number a page shows goes through these functions, so that a p-value, a precision or a
count reads the same in a sentence, a table cell and a figure's hover:

* p-values: ``0.0431``, ``0.253``, ``1`` (three significant digits) down to 0.001, then
  ``2.1e-29``; never a string of zeros; below 1e-300 (where a double underflows) ``< 1e-300``,
  with ``log10 p = -412.3`` when the log is known; in a sentence or a hover :func:`p_statement`
  (``p = 2.1e-29``, ``p < 1e-300 (log10 p = -412.3)``);
* precision, recall, baselines, interval bounds: percent with two decimals, ``11.09%``;
* differences of precision: signed percentage points with two decimals, ``+5.80``; a non-zero value that
  rounds to zero at two decimals with up to four (``-0.0004``), so that a reader can tell whether an interval
  holds zero; an exact zero as ``0.00``, without a sign (:func:`signed`);
* counts: thousands separators, ``5,102``;
* AUC, average precision, kappa: three decimals, ``0.798``;
* scores (a measure's own values, thresholds γ): six significant digits, ``32.5``;
* confidence levels: ``95%``, ``99.9%``;
* anything missing (None, NaN): an en dash, ``–``;
* one minus sign everywhere: the ASCII hyphen-minus :data:`MINUS` (``-0.36``, ``-∞``), which plotly's hovers
  (d3-format) write too.

Tables: :data:`PAGE_TABLES` lists every table the dashboard's pages show, with the kind of each
column; :func:`page_table` formats one (:func:`effect_table` and :func:`across_tests_table` those
whose unit changes from row to row), and :func:`page_cells` gives its typed values beside those
texts, so that a table can show the text and sort by the number. Figures: :data:`D3` and :func:`hover` give the plotly
hover formats (d3-format) that write the same digits as these functions, so a hover reads as the
table beside it. Downloads (CSV) and the command line keep exact numbers (:mod:`evalcore.output`).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

__all__ = ["MISSING", "MINUS", "signed", "p_value", "p_values", "p_statement", "percent", "points", "count", "level", "number",
           "decimal", "score", "formatted_table", "FORMATTERS", "D3", "hover", "TableSpec", "PAGE_TABLES",
           "page_table", "page_cells", "effect_table", "across_tests_table"]

MISSING = "–"
MINUS = "-"  # the one minus sign: Python's and d3-format's (plotly hovers), so a table reads as its figure's hover
P_FLOOR = 1e-300  # below this a double has lost its digits (and fisher_exact reports log10 p instead)
PERCENT_DIGITS = 2  # decimals of a percentage: 11.09%
POINTS_DIGITS = 2  # decimals of a difference in percentage points: +5.80
DECIMAL_DIGITS = 3  # decimals of an AUC, an average precision, a kappa: 0.798
NUMBER_DIGITS = 3  # significant digits of any other statistic: 2.09
SCORE_DIGITS = 6  # significant digits of a score or threshold (as the γ slider): 32.5, 0.0123457


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


def p_statement(p: float | None, log10_p: float | None = None) -> str:
    """A p-value in a sentence or a hover: ``p = 0.0431``, ``p = 2.1e-29``, ``p < 1e-300 (log10 p = -412.3)``.

    Examples
    --------
    >>> p_statement(2.1e-29), p_statement(0.0, -412.34), p_statement(None)
    ('p = 2.1e-29', 'p < 1e-300 (log10 p = -412.3)', 'p = –')
    """
    text = p_value(p, log10_p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def p_values(p: Any, log10_p: Any = None) -> np.ndarray:
    """:func:`p_value` over an array (``log10_p``, if given, of the same shape); an object array of text."""
    p = np.asarray(p, dtype=np.float64)
    logs = np.full(p.shape, np.nan) if log10_p is None else np.asarray(log10_p, dtype=np.float64)
    out = np.empty(p.shape, dtype=object)
    for index in np.ndindex(p.shape):
        out[index] = p_value(p[index], logs[index])
    return out


def percent(x: float | None, digits: int = PERCENT_DIGITS) -> str:
    """A proportion in percent: ``percent(0.110937) == '11.09%'``; ``–`` when missing."""
    if _missing(x):
        return MISSING
    return f"{100 * float(x):.{digits}f}%"


def count(x: int | None) -> str:
    """A whole number with thousands separators: ``count(5102) == '5,102'``; ``–`` when missing."""
    if _missing(x):
        return MISSING
    return f"{int(x):,}"


ZERO_TOLERANCE = 1e-12  # |x| below this is written as the exact zero it stands for (floating-point noise)
EXTRA_DIGITS = 2  # a non-zero value that rounds to zero gets up to this many more decimals


def signed(x: float | None, digits: int = POINTS_DIGITS) -> str:
    """A number with its sign and ``digits`` decimals, never a signed zero.

    A non-zero value that rounds to zero at ``digits`` decimals is written with up to ``digits`` +
    :data:`EXTRA_DIGITS` decimals, as many as show its first digit (``-0.004``, ``-0.0004``; ``-0.0000`` below
    that), so that an interval bound tells on which side of zero it lies; an exact zero (within
    :data:`ZERO_TOLERANCE`) is ``0.00``, without a sign. The minus sign is :data:`MINUS`.

    Examples
    --------
    >>> [signed(x) for x in (1.1, -0.0004, -0.004, 0.0, -0.0, 2e-5, -1e-7, -1.234)]
    ['+1.10', '-0.0004', '-0.004', '0.00', '0.00', '+0.0000', '-0.0000', '-1.23']
    >>> signed(0.04, digits=1), signed(float("nan"))
    ('+0.04', '–')
    """
    if _missing(x):
        return MISSING
    x = float(x)
    if math.isinf(x):
        return "+∞" if x > 0 else MINUS + "∞"
    if abs(x) < ZERO_TOLERANCE:
        return f"{0:.{digits}f}"
    for shown in range(digits, digits + EXTRA_DIGITS + 1):
        text = f"{x:+.{shown}f}"
        if text.strip("+-0.") != "":
            return text
    return text


def points(x: float | None) -> str:
    """A difference of two proportions in signed percentage points: ``points(0.058) == '+5.80'``; ``–`` when missing.

    Written by :func:`signed`: a bound that rounds to zero keeps up to four decimals (``points(-4e-6) ==
    '-0.0004'``), an exact zero is ``0.00``. Write the unit beside it (a column header "(points)", "… points" in a
    sentence).
    """
    if _missing(x):
        return MISSING
    return signed(100 * float(x), POINTS_DIGITS)


def decimal(x: float | None) -> str:
    """An AUC, average precision or kappa, three decimals: ``decimal(0.797741) == '0.798'``; ``–`` when missing."""
    if _missing(x):
        return MISSING
    return f"{float(x):.{DECIMAL_DIGITS}f}"


def score(x: float | None) -> str:
    """A score or threshold γ, six significant digits as the γ slider: ``score(32.5) == '32.5'``."""
    if _missing(x):
        return MISSING
    return f"{float(x):.{SCORE_DIGITS}g}"


def level(x: float) -> str:
    """A confidence level: ``level(0.95) == '95%'``, ``level(0.999) == '99.9%'``."""
    return f"{100 * float(x):.10g}%"


def number(x: float | None, digits: int = NUMBER_DIGITS) -> str:
    """Any other statistic, ``digits`` significant digits (``number(2.0871) == '2.09'``); ``–`` when missing."""
    if _missing(x):
        return MISSING
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else MINUS + "∞"
    if x == 0:  # (also -0.0: never a signed zero)
        return "0"
    return f"{x:.{digits}g}"


FORMATTERS: dict[str, Callable[[Any], str]] = {
    "p": p_value,
    "percent": percent,
    "points": points,
    "count": count,
    "number": number,
    "decimal": decimal,
    "score": score,
    "text": lambda x: MISSING if _missing(x) else str(x),
}

#: The column holding log10 of a p-value column, used below 1e-300 (only the raw p-value has one:
#: an adjusted p-value is not the raw one's log).
P_LOG_COLUMNS = {"p_value": "log10_p"}


def _columns(table: pd.DataFrame, pattern: str) -> list:
    """The columns a kinds key names: itself, or those matching it as a shell pattern (``"rank by *"``)."""
    if pattern in table.columns:
        return [pattern]
    if any(ch in pattern for ch in "*?["):
        return [c for c in table.columns if fnmatch.fnmatchcase(str(c), pattern)]
    return []


def formatted_table(table: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """A copy of ``table`` for display, the columns named in ``kinds`` written by :data:`FORMATTERS`.

    ``kinds`` maps a column (or a shell pattern of column names, ``"rank by *"``) to a key of
    :data:`FORMATTERS`: ``"p"``, ``"percent"``, ``"points"``, ``"count"``, ``"number"``,
    ``"decimal"``, ``"score"`` or ``"text"``. The ``p_value`` column uses the table's ``log10_p``
    where there is one (:data:`P_LOG_COLUMNS`). Columns not named are kept as they are; named
    columns the table lacks are skipped.
    """
    unknown = sorted(set(kinds.values()) - set(FORMATTERS))
    if unknown:
        raise ValueError(f"`kinds` names unknown format(s) {', '.join(map(repr, unknown))}; "
                         f"the formats are {', '.join(FORMATTERS)}")
    shown = table.copy()
    for pattern, kind in kinds.items():
        for column in _columns(table, pattern):
            log_column = P_LOG_COLUMNS.get(column)
            if kind == "p" and log_column in table:
                shown[column] = p_values(table[column], table[log_column])
            else:
                shown[column] = [FORMATTERS[kind](v) for v in table[column]]
    return shown


# ---------------------------------------------------------------------------------------------
# hovers: the same digits in plotly's d3-format

#: d3-format specifiers (plotly ``hovertemplate``) that write what the formatter of the same kind
#: writes. ``"percent"`` is for a value the figure already draws in percent (``11.09`` then
#: ``%``); ``"proportion"`` for a proportion in [0, 1] that d3 turns into percent itself. Python's
#: format mini-language reads these specifiers alike (``tests/test_format.py`` checks it).
D3: dict[str, str] = {
    "percent": f".{PERCENT_DIGITS}f",
    "proportion": f".{PERCENT_DIGITS}%",
    "points": f"+.{POINTS_DIGITS}f",
    "count": ",",
    "decimal": f".{DECIMAL_DIGITS}f",
}
_HOVER_SUFFIX = {"percent": "%"}


def hover(field: str, kind: str) -> str:
    """A hovertemplate placeholder writing ``field`` as the formatter of ``kind`` does.

    Examples
    --------
    >>> hover("y", "percent"), hover("customdata[1]", "points"), hover("x", "count")
    ('%{y:.2f}%', '%{customdata[1]:+.2f}', '%{x:,}')
    """
    if kind not in D3:
        raise ValueError(f"`kind` must be one of {', '.join(D3)} (p-values and scores go into hovers as text); "
                         f"got {kind!r}")
    return f"%{{{field}:{D3[kind]}}}{_HOVER_SUFFIX.get(kind, '')}"


# ---------------------------------------------------------------------------------------------
# every table the pages show


@dataclass(frozen=True)
class TableSpec:
    """How one table of a page is shown: the kind of each column (see :func:`formatted_table`) and
    the headers that carry a unit the cells leave out (``{"diff": "diff (points)"}``)."""

    kinds: Mapping[str, str]
    headers: Mapping[str, str] = field(default_factory=dict)


_COUNTS = ("n", "tp", "fp")
_PERCENTS = ("precision", "recall", "f_beta", "lower", "upper")
_PAIR_COUNTS = ("n", "tp_a", "tp_b", "overlap", "tp_d1", "fp_d1", "tp_d2", "fp_d2")

#: Every table the dashboard shows, by (page, table), with the functions that build it:
#:
#: - data / "summary": the metrics over the table (N, TPs, baseline, measures);
#: - data / "per sample": :func:`evalcore.samples.sample_table`;
#: - data / "ties": :func:`evalcore.analysis.data_summary`;
#: - precision / "values at n": :func:`evalcore.analysis.precision_at` of the curves;
#: - precision / "estimates at n": the Precision page's estimates from a sample (:mod:`evalcore.estimates`);
#: - significance / "counts": :attr:`evalcore.analysis.PairResult.counts` (tests by corrections);
#: - significance / "2x2": the difference regions at one n (TPs and FPs of D1 and D2);
#: - significance / "members": :func:`evalcore.analysis.difference_members`;
#: - significance / "effect at n": :func:`evalcore.analysis.effect_at`, see :func:`effect_table`;
#: - threshold / "result": :func:`evalcore.analysis.threshold_result` (the metrics);
#: - threshold / "neighbours": :func:`evalcore.analysis.threshold_neighbours`;
#: - pairwise / "precision" and "pairs": :class:`evalcore.analysis.PairwiseResult`;
#: - roc / "areas": :func:`evalcore.roc.roc_table`;
#: - validation / "per sample": :attr:`evalcore.validate.Validation.table`;
#: - across / "per sample": :attr:`evalcore.analysis.AcrossResult.table`;
#: - across / "tests": :attr:`evalcore.analysis.AcrossResult.tests`, see :func:`across_tests_table`.
#:
#: The Unanimous improvement page shows figures only; the data preview shows the user's file as read.
PAGE_TABLES: dict[tuple[str, str], TableSpec] = {
    ("data", "summary"): TableSpec({"Candidates N": "count", "True positives": "count",
                                    "Baseline precision": "percent", "Measures": "count"}),
    ("data", "per sample"): TableSpec({"N": "count", "TPs": "count", "baseline": "percent"}),
    ("data", "ties"): TableSpec({"tie groups": "count", "tied candidates": "count", "largest tie": "count",
                                 "missing/infinite": "count", "cut-offs in * inside a tie": "count"}),
    ("precision", "values at n"): TableSpec({**dict.fromkeys(_COUNTS, "count"), **dict.fromkeys(_PERCENTS, "percent")}),
    ("precision", "estimates at n"): TableSpec({**dict.fromkeys(("n", "m", "k"), "count"),
                                                **dict.fromkeys(("estimate", "lower", "upper"), "percent")}),
    ("significance", "counts"): TableSpec({"*": "count"}),
    ("significance", "2x2"): TableSpec({"TPs": "count", "FPs": "count"}),
    ("significance", "members"): TableSpec({"row": "count", "rank by *": "count"}),
    ("threshold", "result"): TableSpec({"gamma": "score", "size": "count", "tp": "count", "fp": "count",
                                        "precision": "percent", "recall": "percent", "lower": "percent",
                                        "upper": "percent"}),
    ("threshold", "neighbours"): TableSpec({"row": "count", "rank": "count"}),
    ("pairwise", "precision"): TableSpec({"n": "count", "tp": "count", "precision": "percent", "lower": "percent",
                                          "upper": "percent"}),
    ("pairwise", "pairs"): TableSpec(
        {**dict.fromkeys(_PAIR_COUNTS, "count"), "p_value": "p", "p_adjusted": "p",
         **dict.fromkeys(("diff", "diff_low", "diff_high"), "points"),
         **dict.fromkeys(("odds_ratio", "or_low", "or_high"), "number")},
        headers={"diff": "diff (points)", "diff_low": "diff_low (points)", "diff_high": "diff_high (points)"}),
    ("roc", "areas"): TableSpec(dict.fromkeys(("auc", "auc_low", "auc_high", "ap", "ap_low", "ap_high"), "decimal")),
    ("validation", "per sample"): TableSpec({**dict.fromkeys(("N", "TPs", "size", "tp"), "count"),
                                             **dict.fromkeys(("precision", "recall", "lower", "upper"), "percent")}),
    ("across", "per sample"): TableSpec(
        {**dict.fromkeys(("size_a", "tp_a", "size_b", "tp_b"), "count"), "precision_a": "percent",
         "precision_b": "percent", "difference": "points"}, headers={"difference": "difference (points)"}),
    ("across", "tests"): TableSpec({"statistic": "number", "df": "number", "p_value": "p"}),
}


def page_table(page: str, table: str, data: pd.DataFrame | Mapping) -> pd.DataFrame:
    """A page's table as it is shown: :data:`PAGE_TABLES` ``[(page, table)]`` applied to ``data``.

    Parameters
    ----------
    page, table : str
        A key of :data:`PAGE_TABLES`, e.g. ``("pairwise", "pairs")``.
    data : DataFrame or mapping
        The table the evalcore function returned (a mapping such as a threshold result is one row).

    Returns
    -------
    DataFrame
        A copy with the named columns as text, and the headers of :attr:`TableSpec.headers`.
        ``("significance", "effect at n")`` and ``("across", "tests")`` go through
        :func:`effect_table` and :func:`across_tests_table`, whose units change by row.
    """
    if (page, table) == ("significance", "effect at n"):
        return effect_table(data)
    if (page, table) == ("across", "tests"):
        return across_tests_table(data)
    try:
        spec = PAGE_TABLES[(page, table)]
    except KeyError:
        raise ValueError(f"no table {table!r} on page {page!r}; the tables are "
                         f"{', '.join(f'{p}/{t}' for p, t in PAGE_TABLES)}") from None
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame([dict(data)])
    return formatted_table(frame, spec.kinds).rename(columns=dict(spec.headers))


def page_cells(page: str, table: str, data: pd.DataFrame | Mapping) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A page's table twice: its values, typed, and the text every cell shows.

    Parameters
    ----------
    page, table : str
        A key of :data:`PAGE_TABLES` (or one of the tables :func:`page_table` formats by row).
    data : DataFrame or mapping
        As for :func:`page_table`.

    Returns
    -------
    values : DataFrame
        ``data`` as it is (numbers stay numbers, so that a column sorts as numbers: 9 before 10), under the
        headers of :func:`page_table`.
    texts : DataFrame of str
        The same shape, index and headers: what each cell shows. Columns of :data:`PAGE_TABLES` as
        :func:`page_table` writes them (``5,102``, ``11.09%``, ``< 1e-300``, ``–``); any other cell as
        ``str`` of its value, and ``–`` where it is missing (never ``nan`` or ``None``).

    Examples
    --------
    >>> values, texts = page_cells("precision", "values at n", pd.DataFrame({"n": [9, 10, 1000],
    ...                                                                     "precision": [0.5, None, 0.111]}))
    >>> values["n"].tolist(), texts["n"].tolist(), texts["precision"].tolist()
    ([9, 10, 1000], ['9', '10', '1,000'], ['50.00%', '–', '11.10%'])
    """
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame([dict(data)])
    shown = page_table(page, table, frame)
    values = frame.copy()
    values.columns = shown.columns  # (page_table keeps the columns' order; it renames some)
    texts = pd.DataFrame({i: _texts(shown.iloc[:, i]) for i in range(shown.shape[1])}, index=shown.index,
                         dtype=object)
    texts.columns = shown.columns
    return values, texts


def _texts(column: pd.Series) -> np.ndarray:
    """``FORMATTERS["text"]`` over a column, vectorised: ``str`` of each value, ``–`` where it is missing."""
    values = column.to_numpy(dtype=object)
    out = np.array([str(v) for v in values.tolist()] or [], dtype=object)
    out[pd.isna(values)] = MISSING
    return out


def _by_row(table: pd.DataFrame, columns, kinds: list[str]) -> pd.DataFrame:
    shown = table.copy()
    for column in columns:
        shown[column] = [FORMATTERS[k](v) for k, v in zip(kinds, table[column])]
    return shown


def effect_table(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`evalcore.analysis.effect_at` as shown: rows "(points)" in points with two decimals (as the
    difference panel's hover), the odds ratio with three significant digits; missing bounds ``–``.

    ``effect_at`` gives points already multiplied by 100, so they are written by :func:`signed` with
    :data:`POINTS_DIGITS` decimals here (not through :func:`points`, which takes proportions).
    """
    in_points = table["effect"].astype(str).str.contains("(points)", regex=False).to_numpy()
    shown = table.copy()
    for column in ("estimate", "low", "high"):
        shown[column] = [MISSING if _missing(v) else (signed(v, POINTS_DIGITS) if pts else number(v))
                         for v, pts in zip(table[column], in_points)]
    return shown


def across_tests_table(table: pd.DataFrame) -> pd.DataFrame:
    """:attr:`evalcore.analysis.AcrossResult.tests` as shown: p-values by :func:`p_value`, statistics and
    degrees of freedom by :func:`number` (``–`` where a test has none), and the estimate with its
    interval in percentage points of ``A - B``, except the sign test's, a share of samples, in percent.
    """
    shown = formatted_table(table, PAGE_TABLES[("across", "tests")].kinds)
    kinds = ["percent" if t == "sign test" else "points" for t in table["test"]]
    shown = _by_row(shown.assign(**{c: table[c] for c in ("estimate", "low", "high")}), ("estimate", "low", "high"),
                    kinds)
    return shown.rename(columns={"estimate": "estimate (points; sign test: share)"})


# ---------------------------------------------------------------------------------------------
# numbers that cannot be estimated: why, in words (never "nan" or "None")


def no_estimate_reason(n: int, m: int, in_frame: bool = True, *, region: str | None = None) -> str | None:
    """Why an estimate from an annotated sample cannot be made, in words; None when it can.

    Parameters
    ----------
    n : int
        The list size.
    m : int
        Annotated candidates in the list (or in the region).
    in_frame : bool
        Whether the list lies inside the part of the candidates the sample was drawn from.
    region : str, optional
        ``"D1"`` or ``"D2"`` for a difference region of two n-best lists.

    Examples
    --------
    >>> no_estimate_reason(40, 0, region="D1")
    'no annotated candidate in D1 at n = 40'
    >>> no_estimate_reason(6000, 12, in_frame=False)
    'the 6,000-best list reaches outside the part of the candidates the sample was drawn from'
    >>> no_estimate_reason(40, 3) is None
    True
    """
    if not in_frame:
        return (f"the {count(n)}-best list{'s reach' if region else ' reaches'} outside the part of the candidates "
                "the sample was drawn from")
    if int(m) == 0:
        return f"no annotated candidate in {region} at n = {count(n)}" if region else \
            f"no annotated candidate in the {count(n)}-best list"
    return None


def comparison_reason(row: Mapping, min_annotated: int = 0) -> str | None:
    """Why Fisher's test on the annotated candidates of D1 and D2 is not made at a row of
    :func:`evalcore.estimates.compare_estimates` (``n, m_d1, m_d2, in_frame``), in words; None when it is.

    Examples
    --------
    >>> comparison_reason({"n": 40, "m_d1": 0, "m_d2": 5, "in_frame": True}, 10)
    'no annotated candidate in D1 at n = 40'
    >>> comparison_reason({"n": 40, "m_d1": 3, "m_d2": 12, "in_frame": True}, 10)
    'too few annotated candidates at n = 40: 3 in D1 and 12 in D2, fewer than 10 in D1'
    """
    n, m1, m2 = int(row["n"]), int(row["m_d1"]), int(row["m_d2"])
    reason = no_estimate_reason(n, 0, bool(row["in_frame"]), region="D1")
    if not bool(row["in_frame"]):
        return reason
    empty = [r for r, m in (("D1", m1), ("D2", m2)) if m == 0]
    if empty:
        return f"no annotated candidate in {' or '.join(empty)} at n = {count(n)}"
    few = [r for r, m in (("D1", m1), ("D2", m2)) if m < min_annotated]
    if few:
        return (f"too few annotated candidates at n = {count(n)}: {count(m1)} in D1 and {count(m2)} in D2, fewer "
                f"than {count(min_annotated)} in {' and '.join(few)}")
    return None


def estimate_with_interval(estimate: float | None, lower: float | None, upper: float | None,
                           reason: str | None = None, *, kind: str = "percent") -> str:
    """``44.44% [24.00%, 67.00%]`` (``kind="points"``: ``+16.67 [-41.12, +56.35]``), or where the estimate or a
    bound is missing, why in words (``reason``; else "cannot be estimated here")."""
    values = (estimate, lower, upper)
    if reason is not None or any(_missing(v) for v in values):
        return f"cannot be estimated: {reason}" if reason else "cannot be estimated here"
    write = FORMATTERS[kind]
    return f"{write(estimate)} [{write(lower)}, {write(upper)}]"


def estimate_notes(table: pd.DataFrame) -> list[str]:
    """For each row of an estimates table (``n, m, in_frame``, :func:`evalcore.estimates.precision_estimates`):
    why it has no estimate, in words, or ``""``."""
    return [no_estimate_reason(n, m, f) or "" for n, m, f in zip(table["n"], table["m"], table["in_frame"])]


def comparison_notes(table: pd.DataFrame, min_annotated: int = 0) -> list[str]:
    """For each row of :func:`evalcore.estimates.compare_estimates`: why it is not tested, in words, or ``""``."""
    return [comparison_reason(row, min_annotated) or "" for row in table.to_dict(orient="records")]


__all__ += ["no_estimate_reason", "comparison_reason", "estimate_with_interval", "estimate_notes", "comparison_notes"]
