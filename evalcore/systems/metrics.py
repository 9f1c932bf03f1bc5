"""Corpus metrics as functions of summed per-item statistics: one table of metrics, each vectorised.

Every metric here is a *ratio of sums*: the corpus score is a function of the per-item sufficient statistics
summed over the items (never a mean of item scores). That is what makes resampling cheap: a bootstrap resample
or a randomization is a weighted sum of the items' statistics (:mod:`.resample`), and the score of many
resamples is one vectorised call of :attr:`Metric.score` on an array ``(..., statistics)``.

=========  ==========================================  =====================================================
metric     per-item statistics                         corpus score
=========  ==========================================  =====================================================
bleu       hyp_len, ref_len, correct_1..4, total_1..4  sacrebleu's BLEU (exp smoothing, 4-grams), 0-100
chrf       hyp, ref, match per character (and word)    sacrebleu's chrF (beta 2, effective order), 0-100
           n-gram order
ter        edits, ref_len (mean over references)       100 * sum(edits) / sum(ref_len) (sacrebleu's TER)
wer        errors (S + D + I), ref_words                sum(errors) / sum(ref_words) (jiwer's WER)
f1         tp, fp, fn                                  2 TP / (2 TP + FP + FN)
accuracy   correct, total                              correct / total
uas        correct, total                              correct / total (attachment score)
aer        a_s, a_p, a, s                              1 - (|A∩S| + |A∩P|) / (|A| + |S|) (Och & Ney 2003)
rouge*     score, n (n = 1 per document)               the mean of the documents' ROUGE (rouge-score), or
           matched, reference n-grams (corpus ROUGE-N)  summed matches / summed reference n-grams
mean       score, n (n = 1 per item)                   the mean of any per-item score
TREC       score, n (n = 1 per topic)                  the mean over topics of an ir-measures measure
=========  ==========================================  =====================================================

A mean of per-item values is the ratio of sums of (score, 1) (:func:`mean_metric`): it resamples as every other
metric, and its items' values also take the paired t-test and the Wilcoxon signed-rank test (:mod:`.meantests`).

The text metrics' statistics are sacrebleu's own (``_extract_corpus_statistics``); their observed corpus scores
come from sacrebleu's ``_compute_score_from_stats`` (:func:`exact_score`), so they equal sacrebleu's to the
last bit. The vectorised scores of the resamples follow the same formulas operation by operation and agree with
sacrebleu's function to about 1e-13 relative (``tests/test_systems.py`` checks every metric on random
statistics).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

from ..errors import ParameterError
from ..extras import require
from .names import METRIC_NAMES, METRICS, ROUGE_METRICS, TABLE_METRICS, TEXT_METRICS

__all__ = ["Metric", "TextOptions", "METRIC_TABLE", "get_metric", "exact_score", "sacrebleu_metric",
           "BLEU_ORDER", "CHRF_CHAR_ORDER", "format_score", "format_gain", "mean_metric", "MEAN_STATISTICS",
           "item_values"]

BLEU_ORDER = 4          # sacrebleu's default max n-gram order
CHRF_CHAR_ORDER = 6     # sacrebleu's default character n-gram order
CHRF_BETA = 2           # sacrebleu's default beta of chrF
_LOG_ZERO = -9999999999.0  # sacrebleu.utils.my_log(0)


@dataclass(frozen=True)
class TextOptions:
    """sacrebleu's options that change the numbers (as its command line names them).

    Attributes
    ----------
    tokenize : str
        BLEU's tokenizer (``--tokenize``; default ``13a``).
    lowercase : bool
        Case-insensitive BLEU and chrF (sacrebleu's ``lowercase`` of each metric), and lowercased text for WER.
    chrf_word_order : int
        chrF's word n-gram order (``--chrf-word-order``): 0 is chrF, 2 is chrF++.
    ter_case_sensitive : bool
        TER is case-insensitive by default in sacrebleu (``--ter-case-sensitive`` turns case on).
    """

    tokenize: str = "13a"
    lowercase: bool = False
    chrf_word_order: int = 0
    ter_case_sensitive: bool = False

    def __post_init__(self) -> None:
        from .names import TOKENIZERS

        if self.tokenize not in TOKENIZERS:
            raise ParameterError(f"`tokenize` must be one of {', '.join(TOKENIZERS)}; got {self.tokenize!r}")
        if self.chrf_word_order not in (0, 1, 2):
            raise ParameterError(f"`chrf_word_order` must be 0, 1 or 2 (2 is chrF++); got {self.chrf_word_order!r}")

    def for_metric(self, metric: str) -> "TextOptions":
        """The options that matter for ``metric``, the others at their defaults (a cache key, a signature)."""
        default = TextOptions()
        keep = {"bleu": ("tokenize", "lowercase"), "chrf": ("lowercase", "chrf_word_order"),
                "ter": ("ter_case_sensitive",), "wer": ("lowercase",)}.get(metric, ())
        return TextOptions(**{name: getattr(self if name in keep else default, name)
                              for name in ("tokenize", "lowercase", "chrf_word_order", "ter_case_sensitive")})


@dataclass(frozen=True)
class Metric:
    """One corpus metric: its per-item statistics and its score as a function of their sums.

    Attributes
    ----------
    name : str
        The key (``bleu``, ``f1``, ...).
    label : str
        How tables and figures name it (``BLEU``, ``F1``).
    kind : {"text", "table"}
        Computed from text files, or from a per-item table of counts.
    percent : bool
        On sacrebleu's 0-100 scale (BLEU, chrF, TER); else a fraction (WER, F1, accuracy, UAS, AER).
    higher_is_better : bool
    statistics : tuple of str
        Names of the per-item statistics (for a table: the column suffixes ``<system>.<statistic>``).
    score : callable
        ``score(sums)``: the corpus score of statistics summed over items, vectorised over leading axes:
        an array ``(..., len(statistics))`` gives ``(...)``. NaN where the score is undefined (a zero
        denominator).
    cites : tuple of str
        Bibliography keys of the metric (:mod:`evalcore.report.bib`).
    unit : str
        What an item is, in the plural: ``segments`` (translations), ``documents`` (summaries), ``items``,
        ``topics`` (TREC).
    mean : bool
        The corpus score is the mean of per-item values (statistics ``score, n``): the paired t-test and the
        Wilcoxon signed-rank test apply (:mod:`.meantests`).
    """

    name: str
    label: str
    kind: str
    percent: bool
    higher_is_better: bool
    statistics: tuple[str, ...]
    score: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)
    cites: tuple[str, ...] = ()
    unit: str = "segments"
    mean: bool = False

    @property
    def description(self) -> str:
        return METRICS.get(self.name, f"{self.label}: the mean over {self.unit} (ir-measures)")


# ------------------------------------------------------------------------------------------ vectorised scores

def _bleu(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` with its defaults (smooth_method="exp", effective_order=False, 4-grams).

    sacrebleu stops at the first n-gram order with no n-grams (its precision and the later ones stay 0, whose log
    it floors at -9999999999), and with "exp" smoothing doubles a factor at each order without a match before
    using 100 / (factor · total) for it: here ``alive`` marks the orders before the stop and the factor is
    2^(orders without a match so far). The logs are added in sacrebleu's order, ((l1 + l2) + l3) + l4.
    """
    s = np.asarray(s, dtype=np.float64)
    sys_len, ref_len = s[..., 0], s[..., 1]
    correct, total = s[..., 2:2 + BLEU_ORDER], s[..., 2 + BLEU_ORDER:2 + 2 * BLEU_ORDER]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1.0 - ref_len / sys_len), 0.0), 1.0)
        alive = np.logical_and.accumulate(total > 0, axis=-1)
        zero = correct == 0
        factor = np.ldexp(1.0, np.cumsum(alive & zero, axis=-1))
        precision = np.where(zero, 100.0 / (factor * total), 100.0 * correct / total)
        logs = np.where(alive, np.log(precision), _LOG_ZERO)
        summed = logs[..., 0]
        for n in range(1, BLEU_ORDER):
            summed = summed + logs[..., n]
        score = bp * np.exp(summed / BLEU_ORDER)
    return np.where((correct > 0).any(axis=-1), score, 0.0)


def _chrf(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``CHRF._compute_f_score`` with its defaults (beta 2, effective-order smoothing)."""
    s = np.asarray(s, dtype=np.float64)
    order = s.shape[-1] // 3
    factor = float(CHRF_BETA ** 2)
    avg_prec = np.zeros(s.shape[:-1])
    avg_rec = np.zeros(s.shape[:-1])
    effective = np.zeros(s.shape[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(order):
            hyp, ref, match = s[..., 3 * i], s[..., 3 * i + 1], s[..., 3 * i + 2]
            both = (hyp > 0) & (ref > 0)
            avg_prec = avg_prec + np.where(both, match / np.where(hyp > 0, hyp, 1.0), 0.0)
            avg_rec = avg_rec + np.where(both, match / np.where(ref > 0, ref, 1.0), 0.0)
            effective = effective + both
        avg_prec = np.where(effective > 0, avg_prec / np.where(effective > 0, effective, 1.0), 0.0)
        avg_rec = np.where(effective > 0, avg_rec / np.where(effective > 0, effective, 1.0), 0.0)
        denominator = factor * avg_prec + avg_rec
        score = 100.0 * ((1.0 + factor) * avg_prec * avg_rec / np.where(denominator != 0, denominator, 1.0))
    return np.where(avg_prec + avg_rec != 0, score, 0.0)


def _ter(s: np.ndarray) -> np.ndarray:
    """sacrebleu's ``TER._compute_score_from_stats``: 100 * edits / reference length (1 if the references are
    empty and there are edits, 0 if both are empty)."""
    s = np.asarray(s, dtype=np.float64)
    edits, length = s[..., 0], s[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(length > 0, edits / np.where(length > 0, length, 1.0), np.where(edits > 0, 1.0, 0.0))
    return 100.0 * ratio


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def _wer(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=np.float64)
    return _ratio(s[..., 0], s[..., 1])


def _f1(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=np.float64)
    tp, fp, fn = s[..., 0], s[..., 1], s[..., 2]
    return _ratio(2.0 * tp, 2.0 * tp + fp + fn)


def _accuracy(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=np.float64)
    return _ratio(s[..., 0], s[..., 1])


def _aer(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=np.float64)
    a_s, a_p, a, sure = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    return 1.0 - _ratio(a_s + a_p, a + sure)


def _mean(s: np.ndarray) -> np.ndarray:
    """The mean of per-item values: sum(score) / sum(n)."""
    s = np.asarray(s, dtype=np.float64)
    return _ratio(s[..., 0], s[..., 1])


#: The statistics of a mean of per-item values: the item's value and 1.
MEAN_STATISTICS = ("score", "n")


def mean_metric(name: str, label: str, kind: str, unit: str, *, higher_is_better: bool = True,
                cites: tuple[str, ...] = ()) -> Metric:
    """A metric whose corpus score is the mean of per-item values, as the ratio of sums of (score, 1)."""
    return Metric(name, label, kind, False, higher_is_better, MEAN_STATISTICS, _mean, cites, unit, True)


def item_values(values: np.ndarray) -> np.ndarray:
    """The per-item values of a mean metric's statistics ``(items, (score, n), systems)``: ``(items, systems)``."""
    return values[:, 0, :] / values[:, 1, :]


def _bleu_statistics() -> tuple[str, ...]:
    return ("hyp_len", "ref_len", *(f"correct_{n}" for n in range(1, BLEU_ORDER + 1)),
            *(f"total_{n}" for n in range(1, BLEU_ORDER + 1)))


def chrf_statistics(word_order: int = 0) -> tuple[str, ...]:
    """The names of chrF's statistics: hyp, ref, match for each character, then word, n-gram order."""
    orders = [f"char{n}" for n in range(1, CHRF_CHAR_ORDER + 1)] + [f"word{n}" for n in range(1, word_order + 1)]
    return tuple(f"{what}_{o}" for o in orders for what in ("hyp", "ref", "match"))


METRIC_TABLE: dict[str, Metric] = {m.name: m for m in (
    Metric("bleu", "BLEU", "text", True, True, _bleu_statistics(), _bleu, ("papineni2002", "post2018")),
    Metric("chrf", "chrF", "text", True, True, chrf_statistics(0), _chrf, ("popovic2015", "post2018")),
    Metric("ter", "TER", "text", True, False, ("edits", "ref_len"), _ter, ("snover2006", "post2018")),
    Metric("wer", "WER", "text", False, False, ("errors", "ref_words"), _wer, ()),
    Metric("f1", "F1", "table", False, True, ("tp", "fp", "fn"), _f1, ()),
    Metric("accuracy", "accuracy", "table", False, True, ("correct", "total"), _accuracy, ()),
    Metric("uas", "UAS", "table", False, True, ("correct", "total"), _accuracy, ()),
    Metric("aer", "AER", "table", False, False, ("a_s", "a_p", "a", "s"), _aer, ("och2003",), "items"),
    *(mean_metric(name, METRIC_NAMES[name], "text", "documents", cites=("lin2004",)) for name in ROUGE_METRICS),
    mean_metric("mean", "mean score", "table", "items"),
)}
for _name in ("f1", "accuracy", "uas"):
    METRIC_TABLE[_name] = replace(METRIC_TABLE[_name], unit="items")
assert set(METRIC_TABLE) == set(METRICS) and all(METRIC_TABLE[k].label == v for k, v in METRIC_NAMES.items())
assert {k for k, m in METRIC_TABLE.items() if m.kind == "text"} == set(TEXT_METRICS)
assert {k for k, m in METRIC_TABLE.items() if m.kind == "table"} == set(TABLE_METRICS)


def _corpus_rouge(s: np.ndarray) -> np.ndarray:
    """Corpus ROUGE-N recall: summed matched n-grams over summed reference n-grams (0 where there are none, as
    rouge-score's recall of a document without reference n-grams)."""
    s = np.asarray(s, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s[..., 1] > 0, s[..., 0] / np.where(s[..., 1] > 0, s[..., 1], 1.0), 0.0)


def get_metric(name: str, options=None) -> Metric:
    """The metric ``name`` (chrF with its statistics for ``options.chrf_word_order``; ROUGE-N as the corpus
    ratio of sums with ``options.stat == "corpus"``, :class:`.rouge.RougeOptions`)."""
    if name not in METRIC_TABLE:
        raise ParameterError(f"`metric` must be one of {', '.join(METRIC_TABLE)}; got {name!r}")
    metric = METRIC_TABLE[name]
    if name == "chrf" and options is not None and getattr(options, "chrf_word_order", 0):
        metric = replace(metric, statistics=chrf_statistics(options.chrf_word_order))
    if name in ROUGE_METRICS and getattr(options, "stat", None) == "corpus":
        metric = replace(metric, statistics=("matched", "reference_ngrams"), score=_corpus_rouge, mean=False)
    return metric


def sacrebleu_metric(name: str, options: TextOptions):
    """sacrebleu's metric object for ``name`` with ``options`` (its defaults otherwise)."""
    require("text", f"the metric {name}")
    from sacrebleu.metrics import BLEU, CHRF, TER

    if name == "bleu":
        return BLEU(tokenize=options.tokenize, lowercase=options.lowercase)
    if name == "chrf":
        return CHRF(word_order=options.chrf_word_order, lowercase=options.lowercase)
    if name == "ter":
        return TER(case_sensitive=options.ter_case_sensitive)
    raise ParameterError(f"{name!r} is not one of sacrebleu's metrics (bleu, chrf, ter)")


def exact_score(metric: Metric, sums, options: TextOptions | None = None) -> float:
    """The corpus score of summed statistics by the library that defines the metric.

    BLEU, chrF and TER: sacrebleu's own ``_compute_score_from_stats`` on the sums (as Python numbers, the way
    sacrebleu's ``corpus_score`` passes them), so the score equals sacrebleu's to the last bit. WER: jiwer's
    formula, ``float(S + D + I) / float(H + S + D)``, one division of two whole numbers. The table metrics: the
    vectorised formula on the sums (NaN where the denominator is 0).
    """
    sums = np.asarray(sums, dtype=np.float64)
    if metric.name in ("bleu", "chrf", "ter"):
        values = [float(v) for v in sums] if metric.name == "ter" else [int(round(v)) for v in sums]
        return float(sacrebleu_metric(metric.name, options or TextOptions())._compute_score_from_stats(values).score)
    if metric.name == "wer":
        errors, words = int(round(sums[0])), int(round(sums[1]))
        return float(errors) / float(words) if words else float("nan")
    return float(metric.score(sums))


def mean_score(values: np.ndarray) -> float:
    """The mean of per-item values, their sum correctly rounded (``math.fsum``) over their number."""
    import math

    values = np.asarray(values, dtype=np.float64)
    return math.fsum(values.tolist()) / len(values) if len(values) else float("nan")


def format_score(metric: Metric, value: float | None) -> str:
    """A score as the tables write it: two decimals on the 0-100 scale (38.23), four for a fraction (0.3848)."""
    if value is None or not np.isfinite(value):
        return "–"
    return f"{value:.2f}" if metric.percent else f"{value:.4f}"


def format_gain(metric: Metric, value: float | None) -> str:
    """A gain with its sign: +1.17, -0.0084 (:func:`evalcore.format.signed`: never a signed zero, and a bound that
    rounds to zero with two more decimals)."""
    from ..format import signed

    if value is None or not np.isfinite(value):
        return "–"
    return signed(value, 2 if metric.percent else 4)
