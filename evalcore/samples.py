"""Experiments with several samples: per-sample acceptance sets at an n or a score threshold.

Evert (2004, §4) repeats one evaluation experiment on 80 samples (80 parts of a corpus) to
see how much the precision of the same acceptance region varies. A candidate set with a
sample column is such an experiment; this module splits it and computes, per sample, the
size, TPs, precision, recall and confidence interval of an acceptance set, which the
validation (Figure 4), the across-sample tests and the Unanimous Improvement Ratio use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .candidates import CandidateSet
from .errors import ColumnError, ParameterError
from .text import shown
from .stats.intervals import binomial_interval
from .ranking import rank_scores

CUT_KINDS = ("n", "gamma")
PER_SAMPLE_COLUMNS = ("sample", "N", "TPs", "size", "tp", "precision", "recall", "lower", "upper")


@dataclass(frozen=True)
class Cut:
    """Where a ranking is cut in every sample: the n-best list, or the gamma-acceptance set.

    ``Cut("n", 100)`` takes the 100 best candidates of each sample; ``Cut("gamma", 32.5)``
    takes every candidate scoring at least 32.5 (at most, where lower is better), so the
    size varies between samples as in Evert (2004, §4).
    """

    kind: str
    value: float

    def __post_init__(self) -> None:
        if self.kind not in CUT_KINDS:
            raise ParameterError(f"a cut-off is 'n' or 'gamma'; got {self.kind!r}")
        value = float(self.value)
        if not np.isfinite(value):
            raise ParameterError(f"the cut-off {self.kind} must be a finite number; got {self.value!r}")
        if self.kind == "n":
            if value < 1 or value != int(value):
                raise ParameterError(f"the list size n must be a whole number >= 1; got {self.value!r}")
            value = int(value)
        object.__setattr__(self, "value", value)

    def label(self, measure: str, higher_is_better: bool = True) -> str:
        if self.kind == "n":
            return f"{measure}: {self.value:,}-best list per sample"
        return f"{measure} {'>=' if higher_is_better else '<='} {self.value:.6g}"


def require_samples(candidates: CandidateSet, minimum: int = 2) -> tuple[str, ...]:
    """The sample ids; a ColumnError saying what to do when there are fewer than ``minimum``."""
    ids = candidates.sample_ids
    if candidates.samples is None:
        raise ColumnError(f"{candidates.source} has no sample column. An experiment with several samples needs a "
                          "column saying which sample each candidate comes from (e.g. 'sample'): choose it as the "
                          "Sample column on the Data page, or upload one file per sample together.")
    if len(ids) < minimum:
        raise ColumnError(f"{candidates.source}: the sample column has {len(ids)} distinct value(s); comparing "
                          f"samples needs at least {minimum}. Check that the right column is the sample column.")
    return ids


def _codes(candidates: CandidateSet) -> tuple[np.ndarray, tuple[str, ...]]:
    ids = require_samples(candidates, 1)
    return candidates.sample_codes, ids


def sample_table(candidates: CandidateSet) -> pd.DataFrame:
    """One row per sample: its id, N (candidates), TPs and baseline precision, in order of appearance."""
    codes, ids = _codes(candidates)
    size = np.bincount(codes, minlength=len(ids))
    tps = np.bincount(codes, weights=candidates.labels, minlength=len(ids)).astype(np.int64)
    return pd.DataFrame({"sample": list(ids), "N": size, "TPs": tps, "baseline": tps / size})


def split(candidates: CandidateSet) -> dict[str, CandidateSet]:
    """One candidate set per sample, keyed by sample id."""
    codes, ids = _codes(candidates)
    return {s: candidates.subset(codes == i, source=f"{candidates.source}, sample {s}") for i, s in enumerate(ids)}


def _accept_key(candidates: CandidateSet, measure: str) -> np.ndarray:
    """Scores turned so that higher is better, non-finite scores at -inf (never accepted)."""
    scores = candidates.scores[measure]
    key = scores if candidates.higher_is_better(measure) else -scores
    return np.where(np.isfinite(key), key, -np.inf)


def gamma_for_mean_size(candidates: CandidateSet, measure: str, n: int) -> float:
    """The threshold whose acceptance sets hold ``n`` candidates per sample on average.

    Evert (2004, §4) chose gamma for G² and t "so that N = 100 candidates are accepted on
    average": the (n k)-th best score of the pooled samples (k samples). Ties at that score
    are all accepted, so the average can be a little above n.
    """
    k = len(require_samples(candidates, 1))
    key = np.sort(_accept_key(candidates, measure))[::-1]
    finite = key[np.isfinite(key)]
    if finite.size == 0:
        raise ColumnError(f"{candidates.source}: measure {shown(measure)} has no finite score")
    value = finite[min(int(n) * k, finite.size) - 1]
    return float(value if candidates.higher_is_better(measure) else -value)


def per_sample(candidates: CandidateSet, measure: str, cut: Cut, *, ties: str = "random", seed: int | None = None,
               confidence_level: float = 0.95, interval: str = "clopper_pearson") -> pd.DataFrame:
    """The acceptance set of one measure in every sample.

    Parameters
    ----------
    candidates : CandidateSet
        With a sample column.
    measure : str
    cut : Cut
        The n-best list of each sample (n larger than a sample takes the whole sample), or the
        gamma-acceptance set.
    ties, seed
        Tie policy of the n-best lists, as in :func:`evalcore.ranking.rank_scores`; each
        sample is ranked on its own with the same seed, as the single-sample pages rank a
        chosen sample. A threshold never splits a tie, so gamma cuts ignore them.
    confidence_level, interval
        The interval of each sample's precision (:func:`evalcore.stats.intervals.binomial_interval`).

    Returns
    -------
    DataFrame
        Columns ``sample, N, TPs, size, tp, precision, recall, lower, upper`` in sample order:
        N and TPs of the sample, then size and TPs of its acceptance set. Precision and the
        interval are NaN for an empty acceptance set, recall for a sample without TPs.
    """
    codes, ids = _codes(candidates)
    k = len(ids)
    labels = candidates.labels
    counts = np.bincount(codes, minlength=k)
    tps = np.bincount(codes, weights=labels, minlength=k).astype(np.int64)
    if cut.kind == "gamma":
        key = _accept_key(candidates, measure)
        threshold = cut.value if candidates.higher_is_better(measure) else -cut.value
        accepted = key >= threshold
        size = np.bincount(codes, weights=accepted, minlength=k).astype(np.int64)
        tp = np.bincount(codes, weights=accepted & labels, minlength=k).astype(np.int64)
    else:
        size = np.minimum(counts, int(cut.value))
        tp = np.empty(k, dtype=np.int64)
        scores = candidates.scores[measure]
        higher = candidates.higher_is_better(measure)
        by_sample = np.argsort(codes, kind="stable")  # each sample's candidates in file order
        bounds = np.r_[0, np.cumsum(counts)]
        for i in range(k):
            members = by_sample[bounds[i]:bounds[i + 1]]
            ranking = rank_scores(labels[members], scores[members], higher_is_better=higher, ties=ties, seed=seed,
                                  measure=measure)
            tp[i] = ranking.tp[size[i]]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(size > 0, tp / np.maximum(size, 1), np.nan)
        recall = np.where(tps > 0, tp / np.maximum(tps, 1), np.nan)
    lower = np.full(k, np.nan)
    upper = np.full(k, np.nan)
    nonempty = size > 0
    if nonempty.any():
        ci = binomial_interval(tp[nonempty], size[nonempty], confidence_level, method=interval)
        lower[nonempty] = ci.low
        upper[nonempty] = ci.high
    return pd.DataFrame({"sample": list(ids), "N": counts, "TPs": tps, "size": size, "tp": tp,
                         "precision": precision, "recall": recall, "lower": lower, "upper": upper})


def cuts_for(candidates: CandidateSet, measures, mode: str, n: int, gammas=None) -> dict[str, Cut]:
    """The cut-off of each measure on the multi-sample pages.

    ``mode="n"``: the n-best list of every sample, for every measure. ``mode="gamma"``: each
    measure's threshold from ``gammas`` (measure -> gamma), or, for a measure not in it, the
    threshold accepting n candidates per sample on average (:func:`gamma_for_mean_size`).
    """
    if mode not in CUT_KINDS:
        raise ParameterError(f"`mode` must be 'n' or 'gamma'; got {mode!r}")
    gammas = dict(gammas or {})
    if mode == "n":
        return {m: Cut("n", n) for m in measures}
    return {m: Cut("gamma", gammas[m] if m in gammas else gamma_for_mean_size(candidates, m, n)) for m in measures}


def min_sample_size(candidates: CandidateSet) -> int:
    """The number of candidates in the smallest sample."""
    codes, ids = _codes(candidates)
    return int(np.bincount(codes, minlength=len(ids)).min())


def default_cut_n(candidates: CandidateSet) -> int:
    """100 (the paper's average acceptance size, §4), or the smallest sample's size if that is smaller."""
    return max(1, min(100, min_sample_size(candidates)))
