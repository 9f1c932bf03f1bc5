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

from .phrases import (CORRECTION_NAMES, DIFFERENCE_NAMES, INTERVAL_NAMES, POWER_NAMES, SAMPLE_INTERVAL_NAMES,
                      TEST_NAMES, alpha_text, level_text, percent, power_text)
from .results import ReportResults
from ..format import MINUS, signed
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
        wide = len(self.columns) > 8  # the pairwise table with its effect sizes: smaller, to fit the text width
        out = [r"\begin{table*}[tbp]", r"\centering", r"\footnotesize" if wide else r"\small",
               r"\setlength{\tabcolsep}{%dpt}" % (3 if wide else 4),
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
        first, second = ((row.estimate_d1, row.estimate_d2) if results.sample is not None else (row.tp_a, row.tp_b))
        if not row.significant or first == second:
            continue
        winner, loser = (row.a, row.b) if first > second else (row.b, row.a)
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
            if results.sample is not None:
                text = _estimate_cell(r, results.settings.design.stratified)
            else:
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
    if results.sample is not None:
        return Table(PRECISION_LABEL, table_number, _sample_precision_caption(results), columns, rows)
    caption = ("Precision (%) of the n-best lists on " + plain(number(results.n_candidates)) + " candidates ("
               + plain(number(results.n_tp)) + " true positives, baseline " + percent(results.baseline) + "), with "
               + level_text(s.level) + " " + plain(INTERVAL_NAMES[s.interval]) + " confidence intervals in brackets. "
               + "A superscript letter names each measure that this measure is significantly better than at the "
               + "same n (" + TEST_NAMES[s.test](s) + ", " + alpha_text(s.alpha) + ", " + _correction_words(results)
               + ").")
    return Table(PRECISION_LABEL, table_number, caption, columns, rows)


def _estimate_cell(r, stratified: bool = False) -> Rich:
    """An estimated precision ``44.4 [24.0, 67.0] (8/18)`` in percent, with k TPs of m annotated; where there is no
    estimate, why, in words."""
    regime = getattr(r, "regime", None)  # (a pooled design: exact inside the pool, estimated beyond it)
    if not r.in_frame:
        if stratified:
            return plain("a band with none annotated")
        return plain("beyond the pool" if regime is not None else "outside the frame")
    if regime == "exact":
        return plain(f"{100 * r.estimate:.1f} exact ({int(r.k)}/{int(r.m)})")
    if r.m == 0:
        return plain("none annotated")
    numbers = f"{100 * r.estimate:.1f} [{100 * r.lower:.1f}, {100 * r.upper:.1f}] ({int(r.k)}/{int(r.m)})"
    return plain(numbers)


def _sample_precision_caption(results: ReportResults) -> Rich:
    s = results.settings
    d = s.design
    sample = results.sample
    if d.stratified:
        return ("Precision (%) of the n-best lists from " + plain(sample.frame) + " (" + plain(number(sample.m))
                + " annotated of " + plain(number(results.n_candidates)) + " candidates, " + plain(number(sample.k))
                + " true positives among them), estimated band by band: 'exact' where every candidate of the list is "
                + "annotated, else with " + level_text(s.level) + " Korn-Graubard confidence intervals (Clopper-"
                + "Pearson at the effective sample size) in brackets; in parentheses the TPs among the list's "
                + "annotated candidates (k/m); 'a band with none annotated': the list reaches a band of which no "
                + "candidate is annotated. A superscript letter names each measure that this measure is "
                + "significantly better than at the same n (the score test on the regions' effective counts, "
                + alpha_text(s.alpha) + ", " + _correction_words(results) + ").")
    if d.pooled:
        return ("Precision (%) of the n-best lists from " + plain(sample.frame) + " (" + plain(number(sample.m))
                + " annotated of " + plain(number(results.n_candidates)) + " candidates, " + plain(number(sample.k))
                + " true positives among them): 'exact' where the list lies inside the pool, beyond it the pooled "
                + "part's count plus the rest estimated from the sample of the candidates outside the pool, with "
                + level_text(s.level) + " " + plain(SAMPLE_INTERVAL_NAMES[d.interval]) + " confidence intervals of "
                + "the sampled stratum in brackets; in parentheses the TPs among the list's annotated candidates "
                + "(k/m); 'beyond the pool': no estimate there (no sample of the rest). A superscript letter names "
                + "each measure that this measure is significantly better than at the same n (" + TEST_NAMES[s.test](s)
                + " on the pooled and sampled counts, " + alpha_text(s.alpha) + ", " + _correction_words(results)
                + ").")
    return ("Precision (%) of the n-best lists estimated from " + plain(number(sample.m)) + " annotated of "
            + plain(number(results.n_candidates)) + " candidates (" + plain(number(sample.k))
            + " true positives among them, estimated baseline " + percent(sample.estimate) + "), taken as "
            + plain(sample.frame) + ", with " + level_text(s.level) + " " + plain(SAMPLE_INTERVAL_NAMES[d.interval])
            + " confidence intervals in brackets and the annotated TPs of the list's annotated candidates (k/m) in "
            + "parentheses; 'none annotated': the list holds no annotated candidate, 'outside the frame': it reaches "
            + "past the candidates the sample was drawn from. A superscript letter names each measure that this "
            + "measure is significantly better than at the same n (" + TEST_NAMES[s.test](s) + " on the annotated "
            + "candidates, " + alpha_text(s.alpha) + ", " + _correction_words(results) + ").")


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
def _value(x: float, spec: str | Callable[[float], str]) -> Rich:
    """A number by ``spec`` (a format string, or a function such as :func:`_signed`); ∞ and – where it is infinite
    or undefined."""
    if x != x:  # NaN: the estimate is undefined (a zero margin)
        return sym("–", "--")
    if math.isinf(x):
        return sym("∞", r"$\infty$") if x > 0 else sym(MINUS + "∞", r"$-\infty$")
    return plain(spec(x) if callable(spec) else spec.format(x))


def _signed(x: float) -> str:
    """A difference in points, one decimal: never ``-0.0`` (:func:`evalcore.format.signed`)."""
    return signed(x, 1)


def _interval_cell(estimate: float, low: float, high: float, spec: str | Callable[[float], str]) -> Rich:
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
        100 * row["diff"], 100 * row["diff_low"], 100 * row["diff_high"], _signed)),
    Column(plain("odds ratio [CI]"), lambda row, c: _interval_cell(row["odds_ratio"], row["or_low"], row["or_high"],
                                                                   "{:.2f}")),
    Column(plain("MDD"), lambda row, c: _value(100 * row["mdd"], "±{:.1f}")),
)


def _not_tested(row, c: TableContext) -> Rich:
    """Why a sample comparison at an n was not tested, in words."""
    if not row["in_frame"]:
        if c.results.settings.design.stratified:
            return plain("a band with none annotated")
        return plain("beyond the pool" if "regime" in row.index else "outside the frame")
    return plain(f"too few annotated (< {c.results.settings.design.min_annotated})")


def _sample_p_cell(row, c: TableContext) -> Rich:
    if not row["enough"]:
        return _not_tested(row, c)
    return _p_cell(row, c)


def _sample_p_adjusted_cell(row, c: TableContext) -> Rich:
    if not row["enough"]:
        return sym("–", "--")
    return _p_adjusted_cell(row, c)


def _sample_difference(row, c: TableContext) -> Rich:
    if row["m_d1"] == 0 or row["m_d2"] == 0:
        empty = " and ".join(r for r, m in (("D1", row["m_d1"]), ("D2", row["m_d2"])) if m == 0)
        return plain(f"none annotated in {empty}")
    return _interval_cell(100 * row["difference"], 100 * row["difference_low"], 100 * row["difference_high"],
                          _signed)


#: The pairwise table's columns with an annotated sample: annotated TPs of annotated candidates in D1 and D2, the
#: test's p (or why it was not tested) and the difference of the regions' TP rates with its interval.
SAMPLE_PAIR_COLUMNS: tuple[Column, ...] = (
    Column(plain("A"), lambda row, c: c.name(row["a"]), "l"),
    Column(plain("B"), lambda row, c: c.name(row["b"]), "l"),
    Column(plain("n"), lambda row, c: plain(number(row["n"]))),
    Column(sym("TP / annotated in D1", r"TP / annotated in $D_1$"),
           lambda row, c: plain(f"{int(row['k_d1']):,} / {int(row['m_d1']):,}")),
    Column(sym("TP / annotated in D2", r"TP / annotated in $D_2$"),
           lambda row, c: plain(f"{int(row['k_d2']):,} / {int(row['m_d2']):,}")),
    Column(plain("p"), _sample_p_cell),
    Column(sym("Δ TP rate D1 − D2 [CI]", r"$\Delta$ TP rate $D_1 - D_2$ [CI]"), _sample_difference),
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
    sample = results.sample is not None
    if sample and columns is PAIR_COLUMNS:
        columns = SAMPLE_PAIR_COLUMNS
    columns = list(columns)
    if s.correction != "none":
        at = next((i for i, c in enumerate(columns) if c.header.md == "p"), len(columns) - 1)
        columns.insert(at + 1, Column(plain("p adjusted"), _sample_p_adjusted_cell if sample else _p_adjusted_cell))
    columns = tuple(columns)
    rows, starts, previous = [], [], None
    for i, (_, row) in enumerate(results.pairs.iterrows()):
        if (row["a"], row["b"]) != previous:
            starts.append(i)
            previous = (row["a"], row["b"])
        rows.append(tuple(col.cell(row, ctx) for col in columns))
    marked = "an adjusted p" if s.correction != "none" else "p"
    if sample and s.design.stratified:
        caption = ("The score test on the effective counts of the difference regions (Rao and Scott's design-effect "
                   + "adjustment) for every pair of measures A and B at each n, from the stratified design: the "
                   + "annotated TPs among the annotated candidates only in A's n-best list (D1) and only in B's (D2), "
                   + "and the p-value (Pearson's chi-square on the full counts where both regions are annotated "
                   + "whole), where each region holds at least " + plain(number(s.design.min_annotated))
                   + " annotated candidates (the n tested). " + DAGGER + " marks " + plain(marked) + " below "
                   + alpha_text(s.alpha) + " (" + _correction_words(results) + "). Δ TP rate: the difference of the "
                   + "regions' estimated TP rates in percentage points, with its " + level_text(s.level) + " "
                   + plain(DIFFERENCE_NAMES[s.difference_interval]) + " interval on the effective counts (widened "
                   + "where needed to cover this candidate set's own difference).")
    elif sample and s.design.pooled:
        caption = (capitalized(TEST_NAMES[s.test](s)) + " for every pair of measures A and B at each n, from the "
                   + "pooled design: the annotated TPs among the annotated candidates only in A's n-best list (D1) and "
                   + "only in B's (D2), pooled and sampled, and the p-value (on the full counts where both regions lie "
                   + "inside the pool, beyond it on the effective counts of the pooled part and the sampled rest), "
                   + "where each region holds at least " + plain(number(s.design.min_annotated))
                   + " annotated candidates (the n tested). " + DAGGER + " marks " + plain(marked) + " below "
                   + alpha_text(s.alpha) + " (" + _correction_words(results) + "). Δ TP rate: the difference of the "
                   + "regions' estimated TP rates in percentage points, with its " + level_text(s.level) + " "
                   + plain(DIFFERENCE_NAMES[s.difference_interval]) + " interval on the same counts.")
    elif sample:
        caption = (capitalized(TEST_NAMES[s.test](s)) + " on the annotated candidates, for every pair of measures A "
                   + "and B at each n: the annotated TPs among the annotated candidates only in A's n-best list (D1) "
                   + "and only in B's (D2), and the p-value, where each region holds at least "
                   + plain(number(s.design.min_annotated)) + " annotated candidates (the n tested). " + DAGGER
                   + " marks " + plain(marked) + " below " + alpha_text(s.alpha) + " (" + _correction_words(results)
                   + "). Δ TP rate: the difference of the TP rates of the annotated candidates of D1 and D2 in "
                   + "percentage points, with its " + level_text(s.level) + " "
                   + plain(DIFFERENCE_NAMES[s.difference_interval]) + " interval.")
    else:
        caption = (capitalized(TEST_NAMES[s.test](s)) + " for every pair of measures A and B at each n: true and "
                   + "false positives only in A's n-best list (D1) and only in B's (D2), and the p-value. " + DAGGER
                   + " marks " + plain(marked) + " below " + alpha_text(s.alpha) + " (" + _correction_words(results)
                   + "). Δ precision: " + sym("Π_A − Π_B", r"$\Pi_A - \Pi_B$") + " in percentage points with its "
                   + level_text(s.level) + " " + plain(DIFFERENCE_NAMES[s.difference_interval])
                   + " interval; odds ratio of TPs in D1 against D2 with its exact conditional interval; MDD: the "
                   + "smallest difference of precision (points) that " + plain(POWER_NAMES[s.power_test])
                   + " finds with "
                   + power_text(s.power) + " power at " + alpha_text(s.alpha) + ".")
    return Table(PAIRWISE_LABEL, table_number, caption, columns, tuple(rows), tuple(starts))


def tables_markdown(tables: Sequence[Table]) -> str:
    return "\n".join(t.markdown() for t in tables)
