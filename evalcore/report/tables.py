"""The report's tables as LaTeX (booktabs) and Markdown: precision with intervals, and the pairwise tests.

A table is built from :class:`Column` specifications, each a header and a function from a row of a
result DataFrame to a :class:`~.text.Rich` cell, so adding a column (an effect size, say) is adding one
specification: pass ``columns=PAIR_COLUMNS + (my_column,)`` to :func:`pairwise_table`, or extend
:data:`PAIR_COLUMNS` once :mod:`evalcore.stats.effect` provides the numbers (they enter the pairs table
through :data:`evalcore.report.results.PAIR_EFFECTS`).

Significance is marked as ranx does: in the precision table a superscript letter after a measure's value
names each measure it is significantly better than at that n (letters a, b, c, ... are given to the
measures in the table's first column); in the pairwise table a dagger follows every significant p-value.
Captions say which test, level and correction the marks mean.
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import pandas as pd

from .phrases import (CORRECTION_NAMES, INTERVAL_NAMES, TEST_NAMES, alpha_text, level_text, percent)
from .results import ReportResults
from .text import Rich, capitalized, number, plain, sym

__all__ = ["Column", "Table", "TableContext", "precision_table", "pairwise_table", "PAIR_COLUMNS", "format_p",
           "measure_letters", "PRECISION_LABEL", "PAIRWISE_LABEL"]

PRECISION_LABEL = "tab:evalcore-precision"
PAIRWISE_LABEL = "tab:evalcore-pairwise"
DAGGER = sym("†", r"$^\dagger$")


@dataclass(frozen=True)
class TableContext:
    """What cells and captions need besides a row: the results, display names and measure letters."""

    results: ReportResults
    names: Mapping[str, str]
    letters: Mapping[str, str]

    def name(self, measure: str) -> Rich:
        return plain(self.names[measure])


@dataclass(frozen=True)
class Column:
    """One column: its header (Markdown and LaTeX), alignment, and the cell of a row."""

    header: Rich
    cell: Callable[[pd.Series, TableContext], Rich]
    align: str = "r"


@dataclass(frozen=True)
class Table:
    """A built table: caption, header, rows of cells, and the rows before which a rule separates groups."""

    label: str
    number: int
    caption: Rich
    columns: tuple[Column, ...]
    rows: tuple[tuple[Rich, ...], ...]
    group_starts: tuple[int, ...] = field(default=())

    def markdown(self) -> str:
        """A pipe table (GitHub, pandoc) with its caption above."""
        def line(cells):
            return "| " + " | ".join(c.replace("\n", " ") for c in cells) + " |"
        aligns = {"l": ":---", "r": "---:", "c": ":---:"}
        out = [f"**Table {self.number}.** {self.caption.md}", "", line(c.header.md for c in self.columns),
               "|" + "|".join(aligns[c.align] for c in self.columns) + "|"]
        out += [line(cell.md for cell in row) for row in self.rows]
        return "\n".join(out) + "\n"

    def latex(self) -> str:
        """A ``table*`` float (both columns of a two-column paper, the text width of a one-column one) with a
        booktabs ``tabular`` (needs ``\\usepackage{booktabs}``)."""
        spec = "".join(c.align for c in self.columns)
        out = [r"\begin{table*}[tbp]", r"\centering", r"\small", r"\setlength{\tabcolsep}{4pt}",
               rf"\caption{{{self.caption.tex}}}", rf"\label{{{self.label}}}",
               rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
               " & ".join(c.header.tex for c in self.columns) + r" \\", r"\midrule"]
        for i, row in enumerate(self.rows):
            if i in self.group_starts and i > 0:
                out.append(r"\midrule")
            out.append(" & ".join(cell.tex for cell in row) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table*}"]
        return "\n".join(out) + "\n"

    @property
    def cites(self) -> tuple[str, ...]:
        return self.caption.cites


def measure_letters(measures: Sequence[str]) -> dict[str, str]:
    """a, b, c, ... for the measures in order (aa, ab, ... beyond 26)."""
    letters = string.ascii_lowercase
    out = {}
    for i, m in enumerate(measures):
        out[m] = letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26]
    return out


def format_p(p_value: float, log10_p: float) -> Rich:
    """A p-value for a table: three decimals from 0.001 up, else two significant digits times a power of ten
    (from ``log10_p`` where p underflows to 0)."""
    p = float(p_value)
    if math.isnan(p):
        return plain("–")
    if p >= 0.001:
        return plain(f"{p:.3f}")
    if p > 0:
        mantissa, exponent = f"{p:.1e}".split("e")
        exponent = int(exponent)
    else:
        log = float(log10_p)
        exponent = math.floor(log)
        mantissa = f"{10 ** (log - exponent):.1f}"
    return sym(f"{mantissa}e{exponent:+03d}", rf"${mantissa} \cdot 10^{{{exponent}}}$")


def _sizes_header(n: int) -> Rich:
    return sym(f"n = {number(n)}", f"$n = {n:,}$".replace(",", "{,}"))


def _context(results: ReportResults, names: Mapping[str, str] | None) -> TableContext:
    measures = results.settings.measures
    shown = {m: (names or {}).get(m, m) for m in measures}
    return TableContext(results=results, names=shown, letters=measure_letters(measures))


def _better_than(results: ReportResults) -> dict[tuple[str, int], list[str]]:
    """(measure, n) -> measures it is significantly better than at n (more TPs, significant pair test)."""
    out: dict[tuple[str, int], list[str]] = {}
    for row in results.pairs.itertuples(index=False):
        if not row.significant or row.tp_a == row.tp_b:
            continue
        winner, loser = (row.a, row.b) if row.tp_a > row.tp_b else (row.b, row.a)
        out.setdefault((winner, int(row.n)), []).append(loser)
    return out


def _correction_words(results: ReportResults) -> Rich:
    s = results.settings
    if s.correction == "none":
        return plain(CORRECTION_NAMES["none"])
    return (plain(f"{CORRECTION_NAMES[s.correction]} over the {number(results.n_tests)} tests of ")
            + sym("Table 2", rf"Table~\ref{{{PAIRWISE_LABEL}}}"))


def precision_table(results: ReportResults, names: Mapping[str, str] | None = None, *, table_number: int = 1) -> Table:
    """Table 1: precision (%) of each measure at each table size, its interval, and significance letters.

    Parameters
    ----------
    results : ReportResults
    names : mapping of str to str, optional
        Display name per measure (the measure's own name by default).
    table_number : int
        The table's number in the report (names it in the Markdown caption).

    Returns
    -------
    Table
        Rows: measures in the settings' order; columns: letter, measure, one per n with
        ``precision [lower, upper]`` in percent and one decimal, then superscript letters.
    """
    ctx = _context(results, names)
    s = results.settings
    better = _better_than(results)
    by_key = {(r.measure, int(r.n)): r for r in results.precision.itertuples(index=False)}

    def cell_at(n: int) -> Callable[[pd.Series, TableContext], Rich]:
        def cell(row, c):
            r = by_key[(row["measure"], n)]
            numbers = f"{100 * r.precision:.1f} [{100 * r.lower:.1f}, {100 * r.upper:.1f}]"
            text = sym(numbers, numbers)
            marks = sorted(c.letters[m] for m in better.get((row["measure"], n), []))
            if marks:
                text = text + sym(f"<sup>{','.join(marks)}</sup>", rf"\textsuperscript{{{','.join(marks)}}}")
            return text
        return cell

    columns = (Column(plain(""), lambda row, c: plain(c.letters[row["measure"]]), "l"),
               Column(plain("measure"), lambda row, c: c.name(row["measure"]), "l"),
               *(Column(_sizes_header(n), cell_at(n)) for n in s.sizes))
    frame = pd.DataFrame({"measure": list(s.measures)})
    rows = tuple(tuple(col.cell(row, ctx) for col in columns) for _, row in frame.iterrows())
    caption = ("Precision (%) of the n-best lists on " + plain(number(results.n_candidates)) + " candidates ("
               + plain(number(results.n_tp)) + " true positives, baseline " + percent(results.baseline) + "), with "
               + level_text(s.level) + " " + plain(INTERVAL_NAMES[s.interval]) + " confidence intervals in brackets. "
               + "A superscript letter names each measure that this measure is significantly better than at the "
               + "same n (" + TEST_NAMES[s.test](s) + ", " + alpha_text(s.alpha) + ", " + _correction_words(results)
               + ").")
    return Table(PRECISION_LABEL, table_number, caption, columns, rows)


def _counts(tp: str, fp: str) -> Callable[[pd.Series, TableContext], Rich]:
    return lambda row, c: plain(f"{int(row[tp]):,} / {int(row[fp]):,}")


def _p_cell(row, c: TableContext) -> Rich:
    text = format_p(row["p_value"], row["log10_p"])
    return text + DAGGER if c.results.settings.correction == "none" and row["significant"] else text


def _p_adjusted_cell(row, c: TableContext) -> Rich:
    text = format_p(row["p_adjusted"], math.log10(row["p_adjusted"]) if row["p_adjusted"] > 0 else row["log10_p"])
    return text + DAGGER if row["significant"] else text


# The pairwise table's columns; a correction adds "p adjusted" after "p" (see pairwise_table). Effect sizes go
# at the end, e.g. Column(sym("Δ precision", r"$\Delta$ precision"), lambda row, c: plain(f"{row.diff:.3f}")).
def _value(x: float, spec: str) -> Rich:
    if x != x:  # NaN: the estimate is undefined (a zero margin)
        return sym("–", "--")
    if math.isinf(x):
        return sym("∞", r"$\infty$") if x > 0 else sym("−∞", r"$-\infty$")
    return plain(spec.format(x))


def _interval_cell(estimate: float, low: float, high: float, spec: str) -> Rich:
    """``estimate [low, high]``, with ∞ and – where the numbers are infinite or undefined."""
    return _value(estimate, spec) + " [" + _value(low, spec) + ", " + _value(high, spec) + "]"


PAIR_COLUMNS: tuple[Column, ...] = (
    Column(plain("A"), lambda row, c: c.name(row["a"]), "l"),
    Column(plain("B"), lambda row, c: c.name(row["b"]), "l"),
    Column(plain("n"), lambda row, c: plain(number(row["n"]))),
    Column(sym("TP / FP in D1", r"TP / FP in $D_1$"), _counts("tp_d1", "fp_d1")),
    Column(sym("TP / FP in D2", r"TP / FP in $D_2$"), _counts("tp_d2", "fp_d2")),
    Column(plain("p"), _p_cell),
    Column(sym("Δ precision [CI]", r"$\Delta$ precision [CI]"), lambda row, c: _interval_cell(
        100 * row["diff"], 100 * row["diff_low"], 100 * row["diff_high"], "{:+.1f}")),
    Column(plain("odds ratio [CI]"), lambda row, c: _interval_cell(row["odds_ratio"], row["or_low"], row["or_high"],
                                                                   "{:.2f}")),
)


def pairwise_table(results: ReportResults, names: Mapping[str, str] | None = None, *,
                   columns: Sequence[Column] = PAIR_COLUMNS, table_number: int = 2) -> Table:
    """Table 2: every pair of measures at every table size: difference-region counts, p-value, marks.

    Parameters
    ----------
    results : ReportResults
    names : mapping of str to str, optional
        Display names.
    columns : sequence of Column
        The columns (:data:`PAIR_COLUMNS`; append effect-size columns here). With a correction, a
        column "p adjusted" follows the one headed "p".
    table_number : int

    Returns
    -------
    Table
        One row per pair and n (pairs in the settings' order, a rule between pairs). "TP / FP in D1"
        counts the candidates only A's n-best list holds, "in D2" those only B's holds.
    """
    ctx = _context(results, names)
    s = results.settings
    columns = list(columns)
    if s.correction != "none":
        at = next((i for i, c in enumerate(columns) if c.header.md == "p"), len(columns) - 1)
        columns.insert(at + 1, Column(plain("p adjusted"), _p_adjusted_cell))
    columns = tuple(columns)
    rows, starts, previous = [], [], None
    for i, (_, row) in enumerate(results.pairs.iterrows()):
        if (row["a"], row["b"]) != previous:
            starts.append(i)
            previous = (row["a"], row["b"])
        rows.append(tuple(col.cell(row, ctx) for col in columns))
    marked = "an adjusted p" if s.correction != "none" else "p"
    caption = (capitalized(TEST_NAMES[s.test](s)) + " for every pair of measures A and B at each n: true and false positives "
               + "only in A's n-best list (D1) and only in B's (D2), and the p-value. " + DAGGER + " marks "
               + plain(marked) + " below " + alpha_text(s.alpha) + " (" + _correction_words(results) + ").")
    return Table(PAIRWISE_LABEL, table_number, caption, columns, tuple(rows), tuple(starts))


def tables_markdown(tables: Sequence[Table]) -> str:
    return "\n".join(t.markdown() for t in tables)
