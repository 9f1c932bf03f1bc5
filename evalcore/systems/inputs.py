"""Reading the systems' input: text files (one segment per line) and per-item tables of counts, within limits.

Text
----
A references file and one hypotheses file per system, UTF-8, one segment per line, all with the same number of
lines. Lines are read as sacrebleu's command line reads them: split at ``\\n`` only, each line's trailing white
space removed (``str.rstrip``, so a CRLF file reads like an LF file), a final line break ending the last line
rather than starting an empty one. A UTF-8 byte-order mark at the start is not text and is dropped; gzip, bzip2
and xz files are decompressed within the limits. Refused, with a message naming the file (and the line): an
empty file, bytes that are not UTF-8 (also UTF-16), NUL bytes, line ends of carriage returns only (old Mac
files), more lines or longer lines than the reading limits allow (:mod:`evalcore.io.limits`); for the whole set
(:func:`check_text_input`): files of different line counts, fewer than two systems, and for WER an empty
reference line or more than one reference file (jiwer takes one reference per segment).

Per-item table
--------------
CSV, TSV, Parquet, Excel or R files, read by :func:`evalcore.io.read_table` with the same readers and limits as
candidate sets: a column ``item`` naming the items (each once), and for every system the counts the metric needs,
named ``<system>.<count>`` (``sysA.tp``, ``sysA.fp``, ``sysA.fn`` for F1; see :mod:`.metrics`), or for
``mean`` any per-item score named ``<system>.score`` (COMET, BERTScore, a rating: any finite number, negative too;
the corpus score is the mean). The systems are the column prefixes in the order of their first column. Refused, with the column, row and value named: no
``item`` column, a repeated item, a system missing one of the metric's count columns, no system at all, text or
missing values among the counts or scores, negative counts, infinite values, and counts that contradict each other
(``correct > total``; for AER ``|A∩S| > |A∩P|``, ``|A∩P| > |A|`` or ``|A∩S| > |S|``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..errors import ColumnError, FileFormatError, ParameterError
from ..io.compression import decompress
from ..io.limits import Limits, limits_from
from ..io.read import _raw_bytes
from ..io.text import check_lines
from ..text import cut, listed, shown
from .metrics import get_metric
from .names import MAX_SYSTEMS, TABLE_METRICS

__all__ = ["read_segments", "read_text_bytes", "system_name", "unique_names", "TextInput", "check_text_input",
           "ItemTable", "read_item_table", "table_from_frame", "suggest_table_metric", "table_columns"]

SHOWN = 5  # at most this many rows or lines are listed in a message
_UTF8_BOM = b"\xef\xbb\xbf"


def read_text_bytes(source: Any, *, name: str | None = None, limits: Limits | None = None) -> bytes:
    """A text file's bytes, checked as :func:`read_segments` checks them (decompressed, no byte-order mark, UTF-8,
    no NUL, line feeds, within the limits), not yet split into lines."""
    limits = limits_from(limits)
    display = name or (str(source) if isinstance(source, (str, os.PathLike)) else "<upload>")
    data = bytes(_raw_bytes(source, display, limits))  # (refused by its size before it is read, as every reader)
    if not data:
        raise FileFormatError(f"{display}: the file is empty (0 bytes); a references or hypotheses file holds one "
                              "segment per line")
    data, _ = decompress(data, display, limits)
    data = bytes(data)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FileFormatError(f"{display}: the file is UTF-16 text; save it as UTF-8 (segments are read as UTF-8)")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
        if not data:
            raise FileFormatError(f"{display}: the file holds only a byte-order mark, no text")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise FileFormatError(f"{display}: line {line:,} holds a NUL byte: this is not a text file of one segment "
                              "per line")
    if b"\n" not in data and data.count(b"\r") > 1:
        raise FileFormatError(f"{display}: the lines end in carriage returns only (an old Mac file); save it with "
                              "line feeds (LF or CRLF) so that each segment is one line")
    check_lines(data, display, limits)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise FileFormatError(f"{display}: line {line:,} is not UTF-8 (the byte {data[e.start]:#04x} at position "
                              f"{e.start:,} of the file); save the file as UTF-8") from None
    return data


def read_segments(source: Any, *, name: str | None = None, limits: Limits | None = None) -> list[str]:
    """The segments of a text file, one per line, as sacrebleu's command line reads them.

    Parameters
    ----------
    source : str, path-like or bytes
        A path, or the file's bytes (an upload).
    name : str, optional
        The file's name in messages (default: the path).
    limits : Limits, optional
        Reading limits (default: :class:`evalcore.io.Limits` with the environment's ``EVALCORE_MAX_*``).

    Returns
    -------
    list of str
        One string per line, trailing white space removed (``"\\r"`` of CRLF files too).

    Raises
    ------
    FileFormatError
        Empty, not UTF-8 (the line and byte are named), NUL bytes, CR-only line ends.
    LimitError
        Larger, or with more or longer lines, than the limits allow.
    """
    text = read_text_bytes(source, name=name, limits=limits).decode("utf-8")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [line.rstrip() for line in lines]


def system_name(path_or_name: str) -> str:
    """A system's name: the file's stem (``out/sysA.de.txt`` -> ``sysA.de``)."""
    stem = PurePath(str(path_or_name).replace("\\", "/")).name
    for suffix in (".gz", ".bz2", ".xz"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    head, dot, _ = stem.rpartition(".")
    return head if dot and head else stem


def unique_names(names: Sequence[str]) -> list[str]:
    """The names made unique: the second ``a`` becomes ``a (2)``, and so on."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for n in names:
        n = n or "system"
        candidate, k = n, seen.get(n, 0)
        while candidate in out:
            k += 1
            candidate = f"{n} ({k + 1})"
        seen[n] = k
        out.append(candidate)
    return out


def _lines_list(numbers: Sequence[int]) -> str:
    return listed(numbers, lambda n: f"{n:,}", limit=SHOWN)


@dataclass(frozen=True)
class TextInput:
    """References and hypotheses, checked: ``references[r][i]`` is line i of reference file r, ``hypotheses[s][i]``
    line i of system s."""

    references: tuple[tuple[str, ...], ...]
    hypotheses: tuple[tuple[str, ...], ...]
    systems: tuple[str, ...]
    reference_names: tuple[str, ...]

    @property
    def n_items(self) -> int:
        return len(self.references[0])


def check_text_input(references: Sequence[tuple[str, Sequence[str]]], hypotheses: Sequence[tuple[str, Sequence[str]]],
                     metric: str, *, names: Sequence[str] | None = None) -> TextInput:
    """Check a set of text files against each other and the metric.

    Parameters
    ----------
    references : sequence of (file name, lines)
        One or more reference files (several references per segment for BLEU, chrF and TER).
    hypotheses : sequence of (file name, lines)
        One file per system; the first is the baseline.
    metric : str
        ``bleu``, ``chrf``, ``ter`` or ``wer``.
    names : sequence of str, optional
        The systems' names (default: the files' stems, made unique).

    Raises
    ------
    ParameterError
        Fewer than two systems or more than :data:`~.names.MAX_SYSTEMS`, no references, several references for WER.
    FileFormatError
        Files with different numbers of lines; for WER an empty reference line.
    """
    get_metric(metric)
    if not references:
        raise ParameterError("give a references file (one reference segment per line)")
    if len(hypotheses) < 2:
        raise ParameterError(f"comparing systems needs at least two hypotheses files (one per system, the first is "
                             f"the baseline); got {len(hypotheses)}")
    if len(hypotheses) > MAX_SYSTEMS:
        raise ParameterError(f"at most {MAX_SYSTEMS} systems can be compared at once; got {len(hypotheses)}")
    if metric == "wer" and len(references) > 1:
        raise ParameterError(f"WER (jiwer) takes one reference per segment; got {len(references)} reference files. "
                             "Give one, or use BLEU, chrF or TER for several references")
    first_name, first = references[0]
    count = len(first)
    if count == 0:
        raise FileFormatError(f"{first_name}: the file holds no lines")
    for file_name, lines in list(references[1:]) + list(hypotheses):
        if len(lines) != count:
            raise FileFormatError(
                f"{file_name} has {len(lines):,} lines, the references {first_name} {count:,}: every file needs one "
                "segment per line, in the same order (a missing or extra line shifts every segment after it)")
    if metric == "wer":
        empty = [i + 1 for i, line in enumerate(first) if not line.split()]
        if empty:
            raise FileFormatError(
                f"{first_name}: {'line' if len(empty) == 1 else 'lines'} {_lines_list(empty)} of the references "
                f"{'is' if len(empty) == 1 else 'are'} empty; WER divides by the words of the reference, and jiwer "
                "refuses an empty reference. Remove those segments from every file, or fill in the references")
    system_names = unique_names(list(names) if names is not None else [system_name(n) for n, _ in hypotheses])
    return TextInput(references=tuple(tuple(lines) for _, lines in references),
                     hypotheses=tuple(tuple(lines) for _, lines in hypotheses), systems=tuple(system_names),
                     reference_names=tuple(n for n, _ in references))


# ------------------------------------------------------------------------------------------ per-item tables

@dataclass(frozen=True)
class ItemTable:
    """A per-item table, checked: ``counts[i, k, s]`` is statistic k of system s on item i."""

    metric: str
    items: tuple[str, ...]
    systems: tuple[str, ...]
    counts: np.ndarray

    @property
    def n_items(self) -> int:
        return len(self.items)


def table_columns(metric: str) -> tuple[str, ...]:
    """The column suffixes a table has per system for ``metric`` (a mean: ``score`` alone)."""
    m = get_metric(metric)
    return ("score",) if m.mean else m.statistics


def suggest_table_metric(columns: Sequence[str]) -> str | None:
    """The table metric whose columns some system has complete (F1, accuracy, AER, then a mean score), or None."""
    names = [str(c) for c in columns]
    for metric in ("f1", "accuracy", "aer", "mean"):
        suffixes = table_columns(metric)
        prefixes = {c.rsplit(".", 1)[0] for c in names if "." in c and c.rsplit(".", 1)[1] in suffixes}
        if any(all(f"{p}.{s}" in names for s in suffixes) for p in prefixes):
            return metric
    return None


def _row_numbers(frame: pd.DataFrame, mask: np.ndarray) -> list[int]:
    index = frame.index
    rows = index[mask] if index.name == "row" else np.flatnonzero(mask) + 1
    return [int(r) for r in rows]


def read_item_table(source: Any, metric: str | None = None, *, name: str | None = None,
                    limits: Limits | None = None, encoding: str | None = None, sheet=None) -> ItemTable:
    """Read and check a per-item table of counts (the module's docstring says what it holds).

    Parameters
    ----------
    source : str, path-like or bytes
    metric : str, optional
        ``f1``, ``accuracy``, ``uas``, ``aer`` or ``mean`` (default: :func:`suggest_table_metric`).
    name, limits, encoding, sheet
        As for :func:`evalcore.io.read_table`.
    """
    from ..io import read_table

    display = name or (str(source) if isinstance(source, (str, os.PathLike)) else "<upload>")
    frame = read_table(source, name=display, limits=limits, encoding=encoding, sheet=sheet)
    return table_from_frame(frame, metric, name=display)


def table_from_frame(frame: pd.DataFrame, metric: str | None, *, name: str = "the table") -> ItemTable:
    """Check a per-item table already read (:func:`evalcore.io.read_table`) and take its counts."""
    columns = [str(c) for c in frame.columns]
    if "item" not in columns:
        raise ColumnError(f"{name}: no column 'item'; a per-item table has a column item naming each item (a "
                          f"sentence, a document) and count columns <system>.<count>; found {listed(columns, cut)}")
    if metric is None:
        metric = suggest_table_metric(columns)
        if metric is None:
            raise ColumnError(f"{name}: no system has the count columns of a metric: <system>.tp, .fp, .fn (F1), "
                              "<system>.correct, .total (accuracy, UAS), <system>.a_s, .a_p, .a, .s (AER) or "
                              "<system>.score (any per-item score, compared by its mean)")
    if metric not in TABLE_METRICS:
        raise ParameterError(f"{shown(metric)} is not a metric of a per-item table; choose one of "
                             f"{', '.join(TABLE_METRICS)}")
    suffixes = table_columns(metric)
    mean = get_metric(metric).mean
    prefixes: list[str] = []
    for c in columns:
        head, dot, tail = c.rpartition(".")
        if dot and head and tail in suffixes and head not in prefixes:
            prefixes.append(head)
    if not prefixes:
        wanted = ", ".join(f"<system>.{s}" for s in suffixes)
        raise ColumnError(f"{name}: no system has a count column of {get_metric(metric).label} ({wanted})")
    for p in prefixes:
        missing = [f"{p}.{s}" for s in suffixes if f"{p}.{s}" not in columns]
        if missing:
            raise ColumnError(f"{name}: system {shown(p)} lacks the column{'s' if len(missing) > 1 else ''} "
                              f"{listed(missing)}; {get_metric(metric).label} needs "
                              f"{', '.join(f'{cut(p)}.{s}' for s in suffixes)}")
    if len(prefixes) < 2:
        raise ColumnError(f"{name}: comparing systems needs at least two; found only {shown(prefixes[0])}")
    if len(prefixes) > MAX_SYSTEMS:
        raise ColumnError(f"{name}: at most {MAX_SYSTEMS} systems can be compared at once; found {len(prefixes)}")
    if len(frame) == 0:
        raise FileFormatError(f"{name}: the table has no rows")
    items = frame[frame.columns[columns.index("item")]]
    missing_item = items.isna().to_numpy()
    if missing_item.any():
        raise ColumnError(f"{name}: column 'item' is empty in row {_lines_list(_row_numbers(frame, missing_item))}; "
                          "every item needs a name")
    item_text = items.astype(str)
    repeated = item_text.duplicated(keep=False).to_numpy()
    if repeated.any():
        first = item_text[repeated].iloc[0]
        rows = _row_numbers(frame, (item_text == first).to_numpy())
        raise ColumnError(f"{name}: item {shown(first)} appears in rows {_lines_list(rows)}; each item must appear once "
                          "(sum its counts into one row)")
    counts = np.empty((len(frame), len(suffixes), len(prefixes)), dtype=np.float64)
    for s_index, p in enumerate(prefixes):
        for k, suffix in enumerate(suffixes):
            column = f"{p}.{suffix}"
            series = frame[frame.columns[columns.index(column)]]
            values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            bad = np.isnan(values) & series.notna().to_numpy()
            what = "a score" if mean else "a count"
            if bad.any():
                rows = _row_numbers(frame, bad)
                raise ColumnError(f"{name}: column {shown(column)} holds text where {what} belongs: row {rows[0]:,} "
                                  f"has {shown(series[bad].iloc[0])}")
            gaps = np.isnan(values)
            if gaps.any():
                rows = _lines_list(_row_numbers(frame, gaps))
                raise ColumnError(f"{name}: column {shown(column)} is empty in row {rows}; "
                                  + ("every item needs a score of every system (a mean over the items each system "
                                     "has would compare different items): fill it in, or remove the item"
                                     if mean else "give a count (0 if there is none)"))
            infinite = ~np.isfinite(values)
            if infinite.any():
                rows = _row_numbers(frame, infinite)
                raise ColumnError(f"{name}: column {shown(column)} holds {values[infinite][0]} in row {rows[0]:,}; "
                                  f"{'scores' if mean else 'counts'} are finite")
            negative = values < 0 if not mean else np.zeros(len(values), dtype=bool)
            if negative.any():
                rows = _row_numbers(frame, negative)
                raise ColumnError(f"{name}: column {shown(column)} holds a negative count, {values[negative][0]:g}, in row "
                                  f"{_lines_list(rows)}; counts are 0 or more")
            counts[:, k, s_index] = values
    _check_consistent(frame, metric, counts, prefixes, name)
    if mean:  # a mean is the ratio of sums of (score, 1)
        counts = np.concatenate([counts, np.ones_like(counts)], axis=1)
    return ItemTable(metric=metric, items=tuple(item_text), systems=tuple(prefixes), counts=counts)


def _check_consistent(frame, metric: str, counts: np.ndarray, systems: Sequence[str], name: str) -> None:
    """Counts that contradict each other: more correct than total; for AER, sure links inside possible ones."""
    if metric in ("accuracy", "uas"):
        rules = [(0, 1, "correct", "total")]
    elif metric == "aer":
        rules = [(0, 1, "a_s", "a_p"), (1, 2, "a_p", "a"), (0, 3, "a_s", "s")]
    else:
        return
    for s_index, system in enumerate(systems):
        for low, high, low_name, high_name in rules:
            bad = counts[:, low, s_index] > counts[:, high, s_index]
            if bad.any():
                rows = _row_numbers(frame, bad)
                raise ColumnError(f"{name}: {cut(system)}.{low_name} is larger than {cut(system)}.{high_name} in row "
                                  f"{_lines_list(rows)}; {low_name} counts a part of {high_name}")
