"""What scoring a test set will cost, estimated before it starts: one entry per metric, from what drives that
metric's cost in each segment.

Scoring is the per-segment statistics of every system's output against the references
(:func:`evalcore.systems.statistics.text_statistics`: sacrebleu for BLEU, chrF and TER, jiwer for WER), each
distinct output once. Its cost is not the number of segments: it grows with the text, and for TER faster than the
text and with how different the texts are. :data:`SCORING_COSTS` holds one :class:`ScoringCost` per metric, a
function from the segments to the CPU seconds of each (hypothesis, references) pair, calibrated by
``bench/bench_work.py --scoring`` on named texts (a realistic pair of translations and unrelated text, 10 to
2,000 words a segment) to lie at or above the measured CPU time and at most twice it. A new metric is one entry.

=======  ====================================================================================================
metric   what drives the cost of one hypothesis against its references
=======  ====================================================================================================
bleu     characters and tokens: 13a tokenization of the hypothesis, its n-grams (up to 4) counted and matched
         against each reference's (the references' n-grams counted once per segment)
chrf     characters: character n-grams up to 6 (and word n-grams up to the word order) of the hypothesis,
         matched against each reference's
ter      words of each pair, and how many of them match out of place: sacrebleu's TER tries shifts of matching
         word sequences (at most 1,000 per pair), each costing a beam edit distance over the words after the
         shift; for long or unrelated texts that is 1,000 edit distances, so the time grows with the words
         squared over a thousand
wer      words of each pair: jiwer's alignment (rapidfuzz's Levenshtein on words) and the alignment's chunks
rouge*   words of each summary and reference (rouge-score's tokens and n-grams); for ROUGE-L and ROUGE-Lsum also
         their product (the table of the longest common subsequence)
=======  ====================================================================================================
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .cost import WorkEstimate, WorkModel

__all__ = ["ScoringCost", "SCORING_COSTS", "estimating_estimate", "scoring_estimate", "scoring_jobs",
           "segment_seconds", "ter_candidates"]

#: The most shift candidates sacrebleu's TER tries for one pair (its ``_MAX_SHIFT_CANDIDATES``), and the distance
#: within which it shifts (``_MAX_SHIFT_DIST``).
TER_MAX_CANDIDATES = 1000
TER_SHIFT_DISTANCE = 50
#: Above this many word pairs (hypothesis words x reference words) the alignment is not computed for the
#: estimate: the pair is taken at sacrebleu's most candidates (an upper bound).
TER_ALIGN_PAIRS = 25_000_000


@dataclass(frozen=True)
class ScoringCost:
    """How one metric's scoring costs: ``seconds(hypotheses, references, options)`` gives the CPU seconds of each
    hypothesis against its references (``references[k]``: the references of hypothesis ``k``).

    Attributes
    ----------
    drivers : str
        What drives the cost, in words (for messages and the documentation).
    seconds : callable
        ``(hypotheses, references, options) -> ndarray`` of seconds, one per hypothesis.
    per_reference : callable or None
        ``(references, options) -> float``: seconds of preparing one segment's references once (sacrebleu's
        reference cache), or None where nothing is prepared.
    """

    drivers: str
    seconds: Callable[[Sequence[str], Sequence[Sequence[str]], object], np.ndarray]
    per_reference: Callable[[Sequence[str], object], float] | None = None


def _chars(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter((len(t) for t in texts), dtype=np.float64, count=len(texts))


def _words(texts: Sequence[str]) -> np.ndarray:
    return np.fromiter((len(t.split()) for t in texts), dtype=np.float64, count=len(texts))


# ------------------------------------------------------------------------------------------------ the models
# Seconds per unit on the project's reference machine (2 cores, shared); bench/bench_work.py --scoring measures
# them again against sacrebleu and jiwer on named texts.

#: BLEU: per hypothesis, per character and per token of the hypothesis, times the references.
BLEU_COST = (5e-5, 3.3e-7, 6.6e-6)
#: chrF: per hypothesis, per character of the hypothesis (times the references, and 1 + word order / 2).
CHRF_COST = (5.6e-5, 3.25e-6)
#: TER: per pair, per word of the pair, and per (word x word) of each round's scan for shifts.
TER_COST = (1.5e-5, 1.5e-6, 8e-8)
#: TER: seconds per row of the beam edit distance: a constant, per cell of the beam (up to 2 x 25) and per word of
#: the reference (the row sacrebleu allocates and caches whole).
TER_ROW = (5e-6, 1.1e-6, 6e-8)
#: Rows of the edit distance per shift candidate, as a share of the hypothesis' words (where the shift starts):
#: measured 0.43 to 0.48 where the shifts are found over several rounds, 0.58 where the first round tries 1,000.
TER_ROWS_SHARE = (0.5, 0.6)
#: Shift candidates tried per pair of equal words out of place (:func:`ter_candidates`): each such pair is tried
#: at up to 11 places (a run of up to 10 words), and again in later rounds, more of them in longer segments:
#: ``a (ln(words) - b)``, at most 13 (measured: 5.5 at 10 words, 10.4 at 30, 12.1 at 100 for a translation;
#: about 0.6 times that for unrelated text).
TER_TRIES = (4.5, 1.1, 13.0)
#: WER: per pair, per word of the pair, per (word x word) / 64 of rapidfuzz's bit-parallel alignment.
WER_COST = (4.3e-5, 1.5e-6, 1.4e-8)


def _bleu_seconds(hypotheses, references, options) -> np.ndarray:
    refs = np.fromiter((len(r) for r in references), dtype=np.float64, count=len(references))
    each, per_char, per_token = BLEU_COST
    return each + per_char * _chars(hypotheses) + per_token * _words(hypotheses) * np.maximum(refs, 1)


def _bleu_references(references, options) -> float:
    chars = sum(len(r) for r in references)
    words = sum(len(r.split()) for r in references)
    each, per_char, per_token = BLEU_COST
    return each + per_char * chars + per_token * words


def _chrf_seconds(hypotheses, references, options) -> np.ndarray:
    refs = np.fromiter((len(r) for r in references), dtype=np.float64, count=len(references))
    order = getattr(options, "chrf_word_order", 0)
    each, per_char = CHRF_COST
    return each + per_char * _chars(hypotheses) * np.maximum(refs, 1) * (1 + order / 2)


def _chrf_references(references, options) -> float:
    order = getattr(options, "chrf_word_order", 0)
    each, per_char = CHRF_COST
    return each + per_char * sum(len(r) for r in references) * (1 + order / 2)


def ter_candidates(hypothesis: Sequence[str], reference: Sequence[str]) -> int:
    """About how many shifts sacrebleu's TER tries in its first round for one pair of tokenized segments: pairs
    of equal words within its shift distance (50) that the words' alignment leaves unmatched on both sides (the
    shifts it may try), at most its limit of 1,000. The alignment is rapidfuzz's Levenshtein alignment on words
    (where sacrebleu's beam search finds about the same); for a pair past :data:`TER_ALIGN_PAIRS` word pairs the
    limit is taken (an upper bound)."""
    n_h, n_r = len(hypothesis), len(reference)
    if not n_h or not n_r:
        return 0
    if n_h * n_r > TER_ALIGN_PAIRS:
        return TER_MAX_CANDIDATES
    from rapidfuzz.distance import Levenshtein

    vocabulary: dict[str, int] = {}
    h = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in hypothesis), dtype=np.int64, count=n_h)
    r = np.fromiter((vocabulary.setdefault(w, len(vocabulary)) for w in reference), dtype=np.int64, count=n_r)
    h_ok = np.zeros(n_h, dtype=bool)
    r_ok = np.zeros(n_r, dtype=bool)
    for block in Levenshtein.opcodes(h.tolist(), r.tolist()):
        if block.tag == "equal":
            h_ok[block.src_start:block.src_end] = True
            r_ok[block.dest_start:block.dest_end] = True
    h_pos, r_pos = np.flatnonzero(~h_ok), np.flatnonzero(~r_ok)
    if not len(h_pos) or not len(r_pos):
        return 0
    if len(h_pos) <= TER_SHIFT_DISTANCE and len(r_pos) <= TER_SHIFT_DISTANCE and max(n_h, n_r) <= TER_SHIFT_DISTANCE:
        hc, rc = Counter(h[h_pos].tolist()), Counter(r[r_pos].tolist())
        count = sum(k * rc[w] for w, k in hc.items())
    else:  # equal words within the shift distance: by word, positions sorted, a window on each
        count = 0
        order_r = np.lexsort((r_pos, r[r_pos]))
        words_r, places_r = r[r_pos][order_r], r_pos[order_r]
        for w, i in zip(h[h_pos].tolist(), h_pos.tolist()):
            lo, hi = np.searchsorted(words_r, w, "left"), np.searchsorted(words_r, w, "right")
            if hi > lo:
                places = places_r[lo:hi]
                count += int(np.searchsorted(places, i + TER_SHIFT_DISTANCE, "right")
                             - np.searchsorted(places, i - TER_SHIFT_DISTANCE, "left"))
            if count >= TER_MAX_CANDIDATES:
                break
    return int(min(count, TER_MAX_CANDIDATES))


def _ter_words(text: str, options) -> list[str]:
    """sacrebleu's TER tokenization with its defaults (tercom, not normalized): lowercased unless case-sensitive,
    split at white space."""
    return (text if getattr(options, "ter_case_sensitive", False) else text.lower()).split()


def _ter_pair_seconds(hypothesis: list[str], reference: list[str]) -> float:
    n_h, n_r = len(hypothesis), len(reference)
    each, per_word, per_scan = TER_COST
    if not n_r:
        return each + per_word * n_h
    candidates = ter_candidates(hypothesis, reference)
    rounds = 1 + min(candidates, 10)  # one scan for shifts per round
    tries = min(TER_TRIES[2], max(1.0, TER_TRIES[0] * (math.log(max(n_h, 1)) - TER_TRIES[1])))
    shifts = tries * candidates
    calls = min(TER_MAX_CANDIDATES, shifts) + 1 + rounds
    share = TER_ROWS_SHARE[1] if shifts >= TER_MAX_CANDIDATES else TER_ROWS_SHARE[0]
    row = TER_ROW[0] + TER_ROW[1] * min(n_r, 50) + TER_ROW[2] * n_r
    return (each + per_word * (n_h + n_r) + per_scan * rounds * n_h * n_r + calls * max(1.0, share * n_h) * row)


def _ter_seconds(hypotheses, references, options) -> np.ndarray:
    out = np.empty(len(hypotheses))
    for k, (hyp, refs) in enumerate(zip(hypotheses, references)):
        words = _ter_words(hyp, options)
        out[k] = sum(_ter_pair_seconds(words, _ter_words(ref, options)) for ref in refs)
    return out


def _wer_seconds(hypotheses, references, options) -> np.ndarray:
    h = _words(hypotheses)
    r = np.array([sum(len(x.split()) for x in refs) for refs in references], dtype=np.float64)
    each, per_word, per_cell = WER_COST
    return each + per_word * (h + r) + per_cell * h * np.ceil(r / 64)


#: ROUGE (rouge-score, evalcore.systems.rouge on the branch of issue 31): per (document, system, reference) scored,
#: per word of the summary and the reference (tokenizing, n-grams), and for ROUGE-L and ROUGE-Lsum per product of
#: their words (the table of the longest common subsequence). The constants of issue 31's ``rouge_estimate``
#: (evalcore.work.cost.ROUGE_COSTS there, measured on one core for summaries of 20 to 150 words), not yet checked
#: by ``bench/bench_work.py --scoring`` (rouge-score is not installed where this was written).
ROUGE_COST = (3e-5, 5e-6, 6e-7)


def _rouge_seconds(lcs: bool):
    def seconds(hypotheses, references, options) -> np.ndarray:
        each, per_word, per_product = ROUGE_COST
        out = np.empty(len(hypotheses))
        for k, (hyp, refs) in enumerate(zip(hypotheses, references)):
            h = len(hyp.split())
            r = np.fromiter((len(x.split()) for x in refs), dtype=np.float64, count=len(refs))
            out[k] = each * len(refs) + per_word * float((h + r).sum()) + (per_product * h * float(r.sum())
                                                                             if lcs else 0.0)
        return out
    return seconds


#: One entry per metric: what drives its cost, and the cost (see the module's docstring).
SCORING_COSTS: dict[str, ScoringCost] = {
    "bleu": ScoringCost("characters and tokens of each hypothesis, times its references", _bleu_seconds,
                        _bleu_references),
    "chrf": ScoringCost("characters of each hypothesis, times its references", _chrf_seconds, _chrf_references),
    "ter": ScoringCost("words of each hypothesis and reference, and how many match out of place (the shifts "
                       "TER tries)", _ter_seconds),
    "wer": ScoringCost("words of each hypothesis and reference", _wer_seconds),
    **{metric: ScoringCost("words of each summary and reference" + (", and their product (the longest common "
                                                                     "subsequence)" if lcs else ""),
                           _rouge_seconds(lcs))
       for metric, lcs in (("rouge1", False), ("rouge2", False), ("rougeL", True), ("rougeLsum", True))},
}


def scoring_jobs(hypotheses: Sequence[Sequence[str]]) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The outputs scored, each distinct one once: ``codes[i, s]``, the first system whose output on item ``i``
    equals system ``s``'s, and the (item, system) jobs where ``codes[i, s] == s``
    (:func:`evalcore.systems.statistics.text_statistics` scores exactly these)."""
    n_systems = len(hypotheses)
    n_items = len(hypotheses[0]) if n_systems else 0
    codes = np.empty((n_items, n_systems), dtype=np.int64)
    for i in range(n_items):
        first: dict = {}
        for s in range(n_systems):
            codes[i, s] = first.setdefault(hypotheses[s][i], s)
    jobs = [(i, s) for s in range(n_systems) for i in range(n_items) if codes[i, s] == s]
    return codes, jobs


def segment_seconds(metric: str, references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]],
                    options=None) -> np.ndarray:
    """The estimated seconds of each scored output (the jobs of :func:`scoring_jobs`, in their order), with the
    references' preparation shared out over each item's jobs."""
    cost = SCORING_COSTS[metric]
    _, jobs = scoring_jobs(hypotheses)
    hyps = [hypotheses[s][i] for i, s in jobs]
    refs = [[r[i] for r in references] for i, _ in jobs]
    seconds = np.asarray(cost.seconds(hyps, refs, options), dtype=np.float64)
    if cost.per_reference is not None and len(jobs):
        per_item = Counter(i for i, _ in jobs)
        prepared = {i: cost.per_reference([r[i] for r in references], options) for i in per_item}
        seconds = seconds + np.array([prepared[i] / per_item[i] for i, _ in jobs])
    return seconds


def scoring_estimate(metric: str, references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]],
                     options=None, *, label: str | None = None) -> WorkEstimate:
    """The cost of scoring every system's output against the references with ``metric`` (each distinct output
    once), before any is scored.

    Parameters
    ----------
    metric : str
        A key of :data:`SCORING_COSTS`.
    references : sequence of sequences of str
        One sequence per references file, one string per segment.
    hypotheses : sequence of sequences of str
        One sequence per system, one string per segment.
    options : optional
        The metric's options (:class:`evalcore.systems.metrics.TextOptions`): case, word order.
    label : str, optional
        The metric's name in the message (default the key).

    Examples
    --------
    >>> e = scoring_estimate("bleu", [["a b c"] * 1000], [["a b c"] * 1000, ["a b d"] * 1000])
    >>> e.what
    'scoring 2,000 segments of 2 systems with bleu (6,000 words)'
    """
    if metric not in SCORING_COSTS:
        raise KeyError(f"no scoring cost for the metric {metric!r}; add one to evalcore.work.scoring.SCORING_COSTS")
    seconds = segment_seconds(metric, references, hypotheses, options)
    words = sum(len(t.split()) for lines in hypotheses for t in lines)
    what = (f"scoring {len(seconds):,} segments of {len(hypotheses)} system{'s' if len(hypotheses) != 1 else ''} "
            f"with {label or metric} ({words:,} words)")
    return WorkEstimate(what, WorkModel(fixed=float(seconds.sum()) if len(seconds) else 0.0))


#: The estimate's own cost (:func:`estimating_estimate`): per output scored, per character of the text, and for
#: TER per word of each pair (its words matched out of place, found one by one) and per pair of words aligned.
ESTIMATE_COST = (3e-6, 6.5e-8, 3e-6, 3e-10)


def estimating_estimate(metric: str, references: Sequence[Sequence[str]],
                        hypotheses: Sequence[Sequence[str]]) -> WorkEstimate:
    """What :func:`scoring_estimate` itself costs: a pass over the text (each output's words and characters), and
    for TER an alignment of the words of every pair (:func:`ter_candidates`, at most :data:`TER_ALIGN_PAIRS` word
    pairs each). Linear in the text but for TER's alignments, which the reading limits bound."""
    each, per_char, per_word, per_pair = ESTIMATE_COST
    characters = sum(len(t) for lines in (*references, *hypotheses) for t in lines)
    outputs = sum(len(lines) for lines in hypotheses)
    seconds = each * outputs + per_char * characters
    if metric == "ter":
        ref_words = [[len(r[i].split()) for r in references] for i in range(len(references[0]) if references else 0)]
        for lines in hypotheses:
            for i, text in enumerate(lines):
                n_h = len(text.split())
                for n_r in ref_words[i]:
                    seconds += per_word * (n_h + n_r) + per_pair * min(n_h * n_r, TER_ALIGN_PAIRS)
    return WorkEstimate(f"estimating the scoring of {outputs:,} segments ({characters:,} characters)",
                        WorkModel(fixed=seconds), advice="use fewer or shorter segments")


assert all(math.isfinite(v) for costs in (BLEU_COST, CHRF_COST, TER_COST, WER_COST, ROUGE_COST, ESTIMATE_COST) for v in costs)
