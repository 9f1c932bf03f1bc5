"""Per-item sufficient statistics: the array ``items x statistics x systems`` every test works on.

From text, the statistics are the libraries' own: sacrebleu's per-segment statistics of BLEU, chrF and TER
(``Metric._extract_corpus_statistics``, the references cached once), and for WER jiwer's alignment of each segment
(``jiwer.process_words``: substitutions + deletions + insertions, and the reference's words). From a per-item
table they are its count columns. With them come the observed corpus scores, from the defining library
(:func:`.metrics.exact_score`), and which systems' outputs are identical on each item (for the similarity of
two systems).

Each distinct output is scored once: a system's hypothesis identical to an earlier system's on the same segment
takes that one's statistics (the statistics are a function of the hypothesis and the segment's references).
Extracting sacrebleu's statistics costs a fraction of a millisecond per segment and system for BLEU (more for
chrF, and about 1.3 ms for TER); with ``workers`` > 1 the (segment, system) jobs are shared among that many
processes (forked, so the references are cached once).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..extras import require
from ..work.child import report
from ..work.scoring import scoring_jobs
from .inputs import ItemTable, TextInput
from .metrics import Metric, TextOptions, exact_score, get_metric, mean_score, sacrebleu_metric

__all__ = ["ItemStatistics", "text_statistics", "table_statistics", "default_workers", "text_jobs"]

# What the forked workers read: set in the parent just before the pool starts (fork copies it).
_JOB: dict = {}


@dataclass(frozen=True, eq=False)
class ItemStatistics:
    """The per-item statistics of every system on one test set.

    Attributes
    ----------
    metric : Metric
    options : TextOptions, RougeOptions, TrecOptions or None
        The options of the library that scored the items (sacrebleu's, rouge-score's, TREC runs'), None for a
        table.
    systems : tuple of str
        Names, the baseline first.
    values : ndarray, shape (items, statistics, systems), float64
        ``values[i, k, s]``: statistic k of system s on item i.
    outputs : ndarray, shape (items, systems), int64
        Equal codes on an item mark systems with identical output there (the same hypothesis line, or the same
        counts): ``outputs[i, s]`` is the first system with the same output as s on item i.
    scores : ndarray, shape (systems,)
        The observed corpus scores by the defining library (:func:`.metrics.exact_score`).
    items : tuple of str or None
        The items' names (a table's ``item`` column, TREC's topics), None for text (items are line numbers).
    notes : tuple of str
        What the input does to the numbers, in words (text a tokenizer drops, topics left out, ...).
    """

    metric: Metric
    options: TextOptions | None
    systems: tuple[str, ...]
    values: np.ndarray
    outputs: np.ndarray
    scores: np.ndarray
    items: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()

    @property
    def n_items(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def totals(self) -> np.ndarray:
        """The statistics summed over the items, shape (statistics, systems)."""
        return self.values.sum(axis=0)


def default_workers(n_systems: int, n_items: int) -> int:
    """Processes for extracting sacrebleu's statistics: both cores (or as many as there are) for a large job, one
    for a small one (a process costs more than it saves below about 20,000 segments)."""
    if sys.platform == "win32" or n_systems * n_items < 20_000:
        return 1
    return max(1, min(os.cpu_count() or 1, n_systems, 4))


def _sacrebleu_jobs(chunk: int) -> np.ndarray:
    """sacrebleu's statistics of one chunk of (item, system) jobs, as its ``_extract_corpus_statistics`` computes
    them segment by segment (the hypothesis preprocessed, then scored against the item's cached references); how
    many are done is reported (:func:`evalcore.work.child.report`) for the page's progress."""
    metric, cache, hypotheses = _JOB["metric"], _JOB["metric"]._ref_cache, _JOB["hypotheses"]
    jobs = _JOB["chunks"][chunk]
    out = np.zeros((len(jobs), len(_JOB["statistics"])), dtype=np.float64)
    for k, (i, s) in enumerate(jobs):
        out[k] = metric._compute_segment_statistics(metric._preprocess_segment(hypotheses[s][i]), cache[i])
        report(k + 1)
    return out


def _wer_jobs(chunk: int) -> np.ndarray:
    """jiwer's alignment of one chunk of (item, system) jobs: errors (S + D + I) and the reference's words."""
    import jiwer

    jobs = _JOB["chunks"][chunk]
    out = np.zeros((len(jobs), 2), dtype=np.float64)
    for start in range(0, len(jobs), 256):  # (in pieces, to report progress)
        piece_jobs = jobs[start:start + 256]
        references = [_JOB["references"][i] for i, _ in piece_jobs]
        hypotheses = [_JOB["hypotheses"][s][i] for i, s in piece_jobs]
        if _JOB["lowercase"]:
            hypotheses = [h.lower() for h in hypotheses]
        output = jiwer.process_words(references, hypotheses)
        for k, chunks in enumerate(output.alignments):
            errors = 0
            for piece in chunks:
                if piece.type in ("substitute", "delete"):
                    errors += piece.ref_end_idx - piece.ref_start_idx
                elif piece.type == "insert":
                    errors += piece.hyp_end_idx - piece.hyp_start_idx
            out[start + k] = (errors, len(output.references[k]))
        report(start + len(piece_jobs))
    return out


def _run(worker, n_chunks: int, workers: int) -> list[np.ndarray]:
    if workers <= 1 or n_chunks < 2:
        return [worker(c) for c in range(n_chunks)]
    context = multiprocessing.get_context("fork")
    with context.Pool(min(workers, n_chunks)) as pool:
        return pool.map(worker, range(n_chunks), chunksize=1)


def _codes(outputs: Sequence[Sequence], n_items: int) -> np.ndarray:
    """``codes[i, s]``: the first system whose output on item i equals system s's."""
    n_systems = len(outputs)
    codes = np.empty((n_items, n_systems), dtype=np.int64)
    for i in range(n_items):
        first: dict = {}
        for s in range(n_systems):
            codes[i, s] = first.setdefault(outputs[s][i], s)
    return codes


def text_jobs(data: TextInput) -> int:
    """How many outputs :func:`text_statistics` scores (each distinct one once): the unit of its progress."""
    return len(scoring_jobs(data.hypotheses)[1])


def text_statistics(data: TextInput, metric: str, options: TextOptions | None = None, *,
                    workers: int | None = None) -> ItemStatistics:
    """The per-item statistics of every system from text (see the module's docstring).

    Parameters
    ----------
    data : TextInput
        References and hypotheses, checked (:func:`.inputs.check_text_input`).
    metric : {"bleu", "chrf", "ter", "wer"}
    options : TextOptions, optional
        sacrebleu's options (tokenizer, lowercase, chrF word order, TER case); only those of ``metric`` count.
    workers : int, optional
        Processes to share the segments' scoring among (default :func:`default_workers`).
    """
    require("text", f"the metric {metric}")  # sacrebleu and jiwer: the [text] extra
    options = (options or TextOptions()).for_metric(metric)
    m = get_metric(metric, options)
    n_items, n_systems = data.n_items, len(data.systems)
    workers = default_workers(n_systems, n_items) if workers is None else workers
    codes, jobs = scoring_jobs(data.hypotheses)  # each output once (as the estimate counts them)
    bounds = np.linspace(0, len(jobs), max(1, workers) + 1).round().astype(int)
    chunks = [jobs[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if metric == "wer":
        references = [r.lower() for r in data.references[0]] if options.lowercase else list(data.references[0])
        _JOB.update(references=references, hypotheses=data.hypotheses, lowercase=options.lowercase, chunks=chunks)
        worker = _wer_jobs
    else:
        scorer = sacrebleu_metric(metric, options)
        scorer._ref_cache = scorer._cache_references([list(r) for r in data.references])
        _JOB.update(metric=scorer, hypotheses=data.hypotheses, chunks=chunks, statistics=m.statistics)
        worker = _sacrebleu_jobs
    try:
        computed = [part for part in _run(worker, len(chunks), workers) if len(part)]
    finally:
        _JOB.clear()
    values = np.zeros((n_items, len(m.statistics), n_systems), dtype=np.float64)
    rows = np.concatenate(computed) if computed else np.zeros((0, len(m.statistics)))
    items = np.array([i for i, _ in jobs], dtype=int)
    systems = np.array([s for _, s in jobs], dtype=int)
    values[items, :, systems] = rows
    for s in range(n_systems):  # an output identical to an earlier system's has its statistics
        same = codes[:, s] != s
        values[same, :, s] = values[same, :, codes[same, s]]
    scores = np.array([exact_score(m, values[:, :, s].sum(axis=0), options) for s in range(n_systems)])
    return ItemStatistics(metric=m, options=options, systems=data.systems, values=values, outputs=codes,
                          scores=scores)


def table_statistics(table: ItemTable) -> ItemStatistics:
    """The per-item statistics of a per-item table (its counts)."""
    m = get_metric(table.metric)
    values = np.ascontiguousarray(table.counts, dtype=np.float64)
    rows = [[tuple(values[i, :, s]) for i in range(table.n_items)] for s in range(len(table.systems))]
    if m.mean:
        scores = np.array([mean_score(values[:, 0, s]) for s in range(len(table.systems))])
    else:
        scores = np.array([exact_score(m, values[:, :, s].sum(axis=0)) for s in range(len(table.systems))])
    return ItemStatistics(metric=m, options=None, systems=table.systems, values=values,
                          outputs=_codes(rows, table.n_items), scores=scores, items=table.items)
