"""TREC runs with qrels: a measure of every run on every topic by ``ir-measures`` (and so by trec_eval, through
pytrec_eval), the mean over topics as the corpus score.

Files
-----
A run holds lines ``qid Q0 docno rank score tag`` (white space between the fields), qrels lines ``qid 0 docno
rel``; both UTF-8 (gzip, bzip2 or xz are decompressed), read within the reading limits (:mod:`evalcore.io.limits`).
A run's name is its file's stem. Refused, with the file and line named: a line of another number of fields, a
score that is not a finite number, a document twice in one topic of a run (trec_eval would count it twice), a
relevance that is not a whole number (trec_eval reads ``1.5`` as 1 without a word), a document judged twice for
one topic, a file without lines; for the whole set (:func:`trec_statistics`): fewer than two runs, a run without a
topic in common with the qrels, and (with ``missing="omit"``) no topic that every run has.

Topics and ties
---------------
The topics are the qrels' (in the order they first appear). A topic of the qrels that a run lacks scores 0 for
that run (trec_eval's ``-c``, ir-measures' mean), or, with ``missing="omit"``, the topics some run lacks are left
out for every run, so that every pair is compared on the same topics (trec_eval without ``-c`` averages each run
over its own topics instead, which a paired comparison cannot). Topics of a run that the qrels lack are ignored,
as trec_eval ignores them; a note counts them. Ties of equal scores within a topic are broken as trec_eval breaks
them (``ties="trec_eval"``: in decreasing order of the document id, which changes AP or nDCG with nothing but
the names of the documents), by the run's rank column (``ties="rank"``; then as trec_eval), or at random with a
seed (``ties="random"``: ``numpy.random.default_rng(seed).random`` per line of each run, so identical runs stay
identical); for the last two the run is given to ir-measures with scores that decrease along that order.

Measures
--------
Any measure ir-measures names and computes with an installed provider whose aggregate over topics is the mean:
``nDCG@10``, ``AP``, ``P@10``, ``R@1000``, ``RR``, ``Rprec``, ``Bpref``, ``P(rel=2)@5``, ...; also in
trec_eval's spelling (``ndcg_cut_10``, ``map``, ``P_10``, ``recip_rank``) and in any case (``ndcg@10``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from ..errors import FileFormatError, ParameterError
from ..extras import require
from ..text import shown
from ..io.limits import Limits, limits_from
from .inputs import _lines_list, read_segments, read_text_bytes, system_name, unique_names
from .metrics import Metric, mean_metric, mean_score
from .names import MAX_SYSTEMS, TREC_MISSING, TREC_TIES
from .statistics import ItemStatistics, _codes

__all__ = ["TrecOptions", "Qrels", "Run", "read_qrels", "read_run", "trec_measure", "trec_metric",
           "trec_statistics", "run_dict"]


@dataclass(frozen=True)
class TrecOptions:
    """How missing topics and ties are handled (see the module's docstring)."""

    missing: str = "zero"
    ties: str = "trec_eval"
    tie_seed: int = 0

    def __post_init__(self) -> None:
        if self.missing not in TREC_MISSING:
            raise ParameterError(f"`missing` (topics a run lacks) must be one of {', '.join(TREC_MISSING)}; got "
                                 f"{shown(self.missing, 40)}")
        if self.ties not in TREC_TIES:
            raise ParameterError(f"`ties` must be one of {', '.join(TREC_TIES)}; got {shown(self.ties, 40)}")
        if isinstance(self.tie_seed, bool) or not isinstance(self.tie_seed, (int, np.integer)) \
                or not 0 <= self.tie_seed < 2**32:
            raise ParameterError(f"the seed of random ties must be a whole number from 0 to 2^32 - 1; got "
                                 f"{shown(self.tie_seed)}")
        if self.ties != "random" and self.tie_seed != 0:
            object.__setattr__(self, "tie_seed", 0)  # (it changes nothing then: one cache key)


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments: ``judgments[topic][docno]`` = relevance; ``topics`` in the order they first appear."""

    name: str
    topics: tuple[str, ...]
    judgments: dict

    @property
    def n_lines(self) -> int:
        return sum(len(d) for d in self.judgments.values())


@dataclass(frozen=True, eq=False)
class Run:
    """A run's lines: topic, document, rank (NaN where it is not a number) and score, in file order."""

    name: str
    topics: np.ndarray
    docnos: np.ndarray
    ranks: np.ndarray
    scores: np.ndarray
    lines: np.ndarray  # each entry's line number in the file

    @property
    def n_lines(self) -> int:
        return len(self.topics)


def _display(source: Any, name: str | None) -> str:
    return name or (str(source) if isinstance(source, (str, os.PathLike)) else "<upload>")


def _bytes(source: Any, display: str, limits: Limits | None, what: str) -> bytes:
    """The file's bytes, checked (UTF-8, decompressed, within the limits: :func:`.inputs.read_text_bytes`)."""
    try:
        return read_text_bytes(source, name=display, limits=limits_from(limits))
    except FileFormatError as exc:
        if "the file is empty" in str(exc):
            raise FileFormatError(f"{display}: the file is empty (0 bytes); {what}") from None
        raise


def _lines(data: bytes) -> list[str]:
    text = data.decode("utf-8")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return [line.rstrip() for line in lines]


def _table(data: bytes, width: int, floats: dict):
    """The file's fields by pandas' C parser (white space between fields), or None where a line is not plain: a
    different number of fields, a float column that does not parse, a quote (the line-by-line reader then names the
    line). Blank lines are skipped, as the line-by-line reader skips them."""
    import csv
    import io

    import pandas as pd

    if b'"' in data or b"\r" in data.replace(b"\r\n", b"\n") or b"\x0b" in data or b"\x0c" in data:
        return None
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=r"\s+", header=None, names=list(range(width)), engine="c",
                            quoting=csv.QUOTE_NONE, dtype={k: (float if k in floats else str) for k in range(width)},
                            na_filter=False, skip_blank_lines=True, index_col=False)
    except (ValueError, pd.errors.ParserError):
        return None
    if frame.shape[1] != width or len(frame) == 0 or (frame[width - 1].astype(str) == "").any():
        return None
    return frame


def _fields(lines: list[str], display: str, width: int, what: str) -> tuple[list[list[str]], list[int]]:
    rows, numbers = [], []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != width:
            raise FileFormatError(f"{display}: line {number:,} has {len(fields)} field{'s' if len(fields) != 1 else ''}"
                                  f" ({shown(line)}); {what}")
        rows.append(fields)
        numbers.append(number)
    if not rows:
        raise FileFormatError(f"{display}: the file holds no lines; {what}")
    return rows, numbers


def _scores(texts: list[str], display: str, numbers: list[int]) -> np.ndarray:
    """The scores as numbers; the first that is not a finite number is named with its line."""
    try:
        values = np.array(texts, dtype=np.float64)
    except ValueError:
        values = None
    if values is not None and np.isfinite(values).all():
        return values
    for text, number in zip(texts, numbers):
        try:
            ok = bool(np.isfinite(float(text)))
        except ValueError:
            ok = False
        if not ok:
            raise FileFormatError(f"{display}: line {number:,}: the score {shown(text, 40)} is not a finite number")
    raise FileFormatError(f"{display}: a score is not a finite number")  # pragma: no cover - found above


def read_run(source: Any, *, name: str | None = None, limits: Limits | None = None) -> Run:
    """Read and check a TREC run (``qid Q0 docno rank score tag`` per line; see the module's docstring).

    Plain files are parsed by pandas' C parser and checked as a whole; a file with anything to say about it is read
    line by line, so that the message names the line.
    """
    display = _display(source, name)
    what = "a run line is: topic Q0 document rank score tag"
    data = _bytes(source, display, limits, what)
    frame = _table(data, 6, {4})
    if frame is not None:
        scores = frame[4].to_numpy(np.float64)
        duplicated = frame.duplicated([0, 2]).to_numpy()
        if np.isfinite(scores).all() and not duplicated.any():
            n_lines = data.count(b"\n") + (not data.endswith(b"\n"))
            lines = np.arange(1, n_lines + 1) if n_lines == len(frame) else np.flatnonzero(_nonblank(data)) + 1
            return Run(name=display, topics=frame[0].to_numpy(object), docnos=frame[2].to_numpy(object),
                       ranks=pd_numeric(frame[3]), scores=scores, lines=lines)
    rows, numbers = _fields(_lines(data), display, 6, what)
    topics = np.array([r[0] for r in rows], dtype=object)
    docnos = np.array([r[2] for r in rows], dtype=object)
    scores = _scores([r[4] for r in rows], display, numbers)
    ranks = np.array([_rank(r[3]) for r in rows], dtype=np.float64)
    seen: dict = {}
    for k, key in enumerate(zip(topics, docnos)):
        first = seen.setdefault(key, k)
        if first != k:
            raise FileFormatError(f"{display}: document {shown(key[1])} appears twice for topic {shown(key[0], 40)} "
                                  f"(lines {numbers[first]:,} and {numbers[k]:,}); trec_eval would count it twice. "
                                  "Keep each document once per topic")
    return Run(name=display, topics=topics, docnos=docnos, ranks=ranks, scores=scores,
               lines=np.array(numbers, dtype=np.int64))


def pd_numeric(column) -> np.ndarray:
    """Whole-number ranks as floats, NaN where a rank is not a whole number."""
    try:
        return column.astype(np.int64).to_numpy(np.float64)
    except (ValueError, OverflowError):
        return np.array([_rank(t) for t in column], dtype=np.float64)


def _nonblank(data: bytes) -> np.ndarray:
    """Which lines of the file hold more than white space (their numbers are the entries' line numbers)."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return np.fromiter((bool(line.strip()) for line in lines), dtype=bool, count=len(lines))


def _rank(text: str) -> float:
    try:
        return float(int(text))
    except ValueError:
        return float("nan")


def read_qrels(source: Any, *, name: str | None = None, limits: Limits | None = None) -> Qrels:
    """Read and check TREC qrels (``qid 0 docno rel`` per line; see the module's docstring)."""
    display = _display(source, name)
    what = "a qrels line is: topic 0 document relevance"
    data = _bytes(source, display, limits, what)
    rows, numbers = _fields(_lines(data), display, 4, what)
    judgments: dict[str, dict[str, int]] = {}
    where: dict = {}
    for (topic, _, docno, rel), number in zip(rows, numbers):
        try:
            value = int(rel)
        except ValueError:
            raise FileFormatError(f"{display}: line {number:,}: the relevance {shown(rel, 40)} is not a whole number "
                                  "(0 not relevant, 1, 2, ... relevant; trec_eval would read 1.5 as 1)") from None
        docs = judgments.setdefault(topic, {})
        if docno in docs:
            raise FileFormatError(f"{display}: document {shown(docno)} is judged twice for topic {shown(topic, 40)} "
                                  f"(lines {where[topic, docno]:,} and {number:,}); keep one judgment")
        docs[docno] = value
        where[topic, docno] = number
    return Qrels(name=display, topics=tuple(judgments), judgments=judgments)


@lru_cache(maxsize=64)
def trec_measure(text: str):
    """ir-measures' measure for ``text`` (its syntax in any case, or trec_eval's name), checked: one measure, the
    mean over topics its aggregate, a provider installed that computes it."""
    require("text", "the TREC measures")  # ir-measures: the [text] extra
    import ir_measures

    raw = str(text).strip()
    if not raw or len(raw) > 80:
        raise ParameterError(f"give a measure of ir-measures such as nDCG@10, AP, P@10, RR; got {shown(raw, 80)}")
    measure = None
    for attempt in (raw, _canonical_case(raw)):
        try:
            measure = ir_measures.parse_measure(attempt)
            break
        except Exception:  # noqa: BLE001 - ir-measures raises several kinds for text it does not read
            continue
    if measure is None:
        try:
            parsed = ir_measures.parse_trec_measure(raw)
            measure = parsed[0] if len(parsed) == 1 else None
        except Exception:  # noqa: BLE001
            measure = None
    if measure is None:
        raise ParameterError(f"{shown(raw, 80)} is not a measure ir-measures knows; give one such as nDCG@10, AP, P@10, "
                             "R@1000, RR, Rprec, Bpref (or trec_eval's name: map, ndcg_cut_10, P_10)")
    if type(measure.aggregator()).__name__ != "MeanAgg":
        raise ParameterError(f"{measure} is not a mean over topics (ir-measures aggregates it otherwise); choose a "
                             "measure such as nDCG@10, AP, P@10")
    try:
        evaluator = ir_measures.evaluator([measure], {"q": {"d": 1}})
        list(evaluator.iter_calc({"q": {"d": 1.0}}))
    except Exception:  # noqa: BLE001 - no provider installed computes it
        raise ParameterError(f"{measure}: no installed provider of ir-measures computes it with these parameters; "
                             "choose a measure trec_eval computes, such as nDCG@10, AP, P@10, RR") from None
    return measure


def _canonical_case(text: str) -> str:
    """``ndcg@10`` -> ``nDCG@10``: the measure's name as ir-measures spells it."""
    import ir_measures

    cut = min((i for i in (text.find("@"), text.find("(")) if i >= 0), default=len(text))
    head, tail = text[:cut], text[cut:]
    names = {n.lower(): n for n in ir_measures.measures.registry}
    return names.get(head.lower(), head) + tail


def trec_metric(text: str) -> Metric:
    """The metric of a TREC measure: the mean over topics of ir-measures' per-topic values."""
    measure = trec_measure(text)
    return mean_metric(str(measure), str(measure), "trec", "topics")


def run_dict(run: Run, options: TrecOptions) -> dict:
    """``{topic: {docno: score}}`` for ir-measures, with the ties broken as ``options.ties`` says."""
    scores = run.scores
    if options.ties != "trec_eval":
        if options.ties == "rank":
            bad = np.flatnonzero(np.isnan(run.ranks))
            if len(bad):
                raise FileFormatError(f"{run.name}: line {int(run.lines[bad[0]]):,}: the rank is not a whole number; "
                                      "ties broken by the rank column need one on every line")
            second = run.ranks
        else:
            second = np.random.default_rng(options.tie_seed).random(run.n_lines)
        # trec_eval's own order last: the document ids in decreasing order
        _, doc_order = np.unique(run.docnos.astype(str), return_inverse=True)
        _, topic_codes = np.unique(run.topics.astype(str), return_inverse=True)
        order = np.lexsort((-doc_order, second, -scores, topic_codes))
        position = np.empty(run.n_lines, dtype=np.float64)
        position[order] = np.arange(run.n_lines, dtype=np.float64)
        scores = run.n_lines - position  # decreasing along the order, no ties
    out: dict[str, dict[str, float]] = {}
    for topic, docno, score in zip(run.topics.tolist(), run.docnos.tolist(), scores.tolist()):
        docs = out.get(topic)
        if docs is None:
            docs = out[topic] = {}
        docs[docno] = score
    return out


def trec_statistics(qrels: Qrels, runs: Sequence[Run], measure: str, options: TrecOptions | None = None, *,
                    names: Sequence[str] | None = None) -> ItemStatistics:
    """The per-topic values of ``measure`` for every run, by ir-measures (see the module's docstring).

    Parameters
    ----------
    qrels : Qrels
    runs : sequence of Run
        Two or more runs, the baseline first.
    measure : str
        A measure of ir-measures (:func:`trec_measure`).
    options : TrecOptions, optional
    names : sequence of str, optional
        The runs' names (default: the files' stems, made unique).

    Returns
    -------
    ItemStatistics
        Statistics ``(score, n)`` per topic (``items`` the topics); each run's observed score is the mean of its
        topics' values; ``notes`` count the topics left out, scored 0 or ignored.
    """
    require("text", "the TREC measures")
    import ir_measures

    options = options or TrecOptions()
    metric = trec_metric(measure)
    if len(runs) < 2:
        raise ParameterError(f"comparing runs needs at least two run files (the first is the baseline); got "
                             f"{len(runs)}")
    if len(runs) > MAX_SYSTEMS:
        raise ParameterError(f"at most {MAX_SYSTEMS} runs can be compared at once; got {len(runs)}")
    system_names = unique_names(list(names) if names is not None else [system_name(r.name) for r in runs])
    judged = set(qrels.topics)
    notes: list[str] = []
    present = []
    for run, name in zip(runs, system_names):
        topics = set(run.topics.tolist())
        if not topics & judged:
            raise FileFormatError(f"{run.name}: no topic of the run is in the qrels {qrels.name} (the run's topics "
                                  f"are {', '.join(sorted(topics)[:3])}...; the qrels' {', '.join(qrels.topics[:3])}"
                                  "...); are these the qrels of this collection?")
        extra = len(topics - judged)
        if extra:
            notes.append(f"run {name}: {extra:,} topic{'s' if extra != 1 else ''} not in the qrels, ignored (as "
                         "trec_eval ignores them)")
        present.append(topics)
    if options.missing == "omit":
        items = [t for t in qrels.topics if all(t in p for p in present)]
        left = len(qrels.topics) - len(items)
        if not items:
            raise FileFormatError("no topic of the qrels is in every run; compare runs of the same topics, or score "
                                  "a topic a run lacks as 0")
        if left:
            notes.append(f"{left:,} topic{'s' if left != 1 else ''} of the qrels that some run lacks "
                         f"{'are' if left != 1 else 'is'} left out for every run ({len(items):,} compared)")
    else:
        items = list(qrels.topics)
        for name, topics in zip(system_names, present):
            lacking = sum(1 for t in items if t not in topics)
            if lacking:
                notes.append(f"run {name} lacks {lacking:,} topic{'s' if lacking != 1 else ''} of the qrels, scored 0 "
                             "(trec_eval -c)")
    index = {t: k for k, t in enumerate(items)}
    evaluator = ir_measures.evaluator([trec_measure(measure)], {t: qrels.judgments[t] for t in items})
    values = np.zeros((len(items), 2, len(runs)), dtype=np.float64)
    values[:, 1, :] = 1.0
    for s, run in enumerate(runs):
        for m in evaluator.iter_calc(run_dict(run, options)):
            k = index.get(m.query_id)
            if k is not None:
                values[k, 0, s] = float(m.value)
    columns = [[tuple(values[i, :, s]) for i in range(len(items))] for s in range(len(runs))]
    scores = np.array([mean_score(values[:, 0, s]) for s in range(len(runs))])
    return ItemStatistics(metric=metric, options=options, systems=tuple(system_names), values=values,
                          outputs=_codes(columns, len(items)), scores=scores, items=tuple(items), notes=tuple(notes))
