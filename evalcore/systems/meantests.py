"""Tests of every pair besides the paired bootstrap and approximate randomization: the paired t-test and the
Wilcoxon signed-rank test for metrics that are a mean of item values, and the randomized Tukey HSD for any metric.

- **paired t-test** (Student 1908): scipy's ``ttest_rel`` of the two systems' item values, two-sided (ranx's
  default test, and many papers' habit); **Wilcoxon signed-rank test** (Wilcoxon 1945): scipy's ``wilcoxon`` of
  the same values with its options that change the p-value as settings (``zero_method``: retrieval has many
  topics where two runs score the same; ``method``; ``correction``). Each is adjusted by Holm over the pairs,
  like the bootstrap. A pair whose values are equal on every item gets p = 1 from both (scipy gives NaN for the
  t-test there). Only for metrics whose score is the mean of item values (:attr:`.metrics.Metric.mean`: ROUGE's
  means, TREC measures, any per-item score); a ratio of sums (BLEU, F1, corpus ROUGE-N) has no item values.
- **randomized Tukey HSD** (Carterette 2012): R times, on every item the k systems' statistics are permuted
  among the systems (one random permutation per item), and the largest difference between the pseudo-systems'
  scores is recorded; ``p(a, b) = (1 + #{max − min ≥ |δ_ab|}) / (R + 1)``. One family for all pairs: the
  p-values are already adjusted for the k(k − 1)/2 comparisons (no Holm). For a mean this is Carterette's test;
  for a ratio of sums the permuted items' statistics are summed and scored as the metric does. The gains'
  bootstrap intervals beside it are not simultaneous intervals.

The permutations are ``rng.permuted(np.tile(np.arange(k), (rows, n, 1)), axis=2)`` of
``numpy.random.default_rng(seed)``, in blocks of rows, so that :func:`tukey_pvalues` equals a plain loop over the
same draws (``tests/test_systems_means.py``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import ParameterError
from ..text import shown
from .names import PAIR_TESTS, WILCOXON_METHODS, WILCOXON_ZERO_METHODS

__all__ = ["PairTests", "ttest_pvalues", "wilcoxon_pvalues", "tukey_pvalues", "tukey_block_rows"]


@dataclass(frozen=True)
class PairTests:
    """Which tests besides the bootstrap and randomization, and scipy's options of the Wilcoxon test.

    Attributes
    ----------
    tests : tuple of str
        Some of ``ttest``, ``wilcoxon``, ``tukey`` (kept in that order, each once).
    zero_method, method, correction
        ``scipy.stats.wilcoxon``'s options (defaults as scipy's: ``wilcox``, ``auto``, no correction).
    """

    tests: tuple[str, ...] = ()
    zero_method: str = "wilcox"
    method: str = "auto"
    correction: bool = False

    def __post_init__(self) -> None:
        tests = tuple(self.tests) if not isinstance(self.tests, str) else (self.tests,)
        unknown = [t for t in tests if t not in PAIR_TESTS]
        if unknown:
            raise ParameterError(f"`tests` must be some of {', '.join(PAIR_TESTS)}; got {shown(unknown[0], 40)}")
        object.__setattr__(self, "tests", tuple(t for t in PAIR_TESTS if t in tests))
        if self.zero_method not in WILCOXON_ZERO_METHODS:
            raise ParameterError(f"Wilcoxon's `zero_method` must be one of {', '.join(WILCOXON_ZERO_METHODS)}; got "
                                 f"{shown(self.zero_method, 40)}")
        if self.method not in WILCOXON_METHODS:
            raise ParameterError(f"Wilcoxon's `method` must be one of {', '.join(WILCOXON_METHODS)}; got "
                                 f"{shown(self.method, 40)}")
        if not isinstance(self.correction, (bool, np.bool_)):
            raise ParameterError(f"Wilcoxon's `correction` must be yes or no; got {shown(self.correction)}")
        object.__setattr__(self, "correction", bool(self.correction))
        if "wilcoxon" not in self.tests:  # (the options change nothing then: one cache key, one signature)
            object.__setattr__(self, "zero_method", "wilcox")
            object.__setattr__(self, "method", "auto")
            object.__setattr__(self, "correction", False)

    def check(self, metric) -> "PairTests":
        """Refuse the t-test and the Wilcoxon test for a metric that is not a mean of item values."""
        means = [t for t in self.tests if t in ("ttest", "wilcoxon")]
        if means and not metric.mean:
            names = " and ".join({"ttest": "the paired t-test", "wilcoxon": "the Wilcoxon signed-rank test"}[t]
                                 for t in means)
            raise ParameterError(f"{names} compare{'s' if len(means) == 1 else ''} item values, and {metric.label} "
                                 "here is a ratio of sums over the items, not a mean of item scores; use the "
                                 "bootstrap, randomization or Tukey's HSD")
        return self


def _equal(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(np.array_equal(x, y))


def ttest_pvalues(values: np.ndarray, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """scipy's ``ttest_rel(values[:, b], values[:, a])`` p-value of every pair (1 where the values are equal)."""
    from scipy.stats import ttest_rel

    out = np.empty(len(pairs))
    for p, (a, b) in enumerate(pairs):
        if _equal(values[:, a], values[:, b]):
            out[p] = 1.0
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (scipy's warning about nearly identical data)
            out[p] = float(ttest_rel(values[:, b], values[:, a]).pvalue)
    return out


def wilcoxon_pvalues(values: np.ndarray, pairs: Sequence[tuple[int, int]], tests: PairTests) -> np.ndarray:
    """scipy's ``wilcoxon(values[:, b], values[:, a], zero_method, correction, method=...)`` p-value of every pair
    (1 where the values are equal on every item)."""
    from scipy.stats import wilcoxon

    out = np.empty(len(pairs))
    for p, (a, b) in enumerate(pairs):
        if _equal(values[:, a], values[:, b]):
            out[p] = 1.0
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (RuntimeWarning, UserWarning))
            out[p] = float(wilcoxon(values[:, b], values[:, a], zero_method=tests.zero_method,
                                    correction=tests.correction, method=tests.method).pvalue)
    return out


def tukey_block_rows(n_items: int, n_systems: int, n_statistics: int) -> int:
    """Permutations per block: about 4 million gathered statistics (32 MB) at a time."""
    return max(1, min(1000, 4_000_000 // max(1, n_items * n_systems * n_statistics)))


def tukey_pvalues(values: np.ndarray, score: Callable[[np.ndarray], np.ndarray], pairs: Sequence[tuple[int, int]],
                  observed: np.ndarray, resamples: int, seed: int, tol: float = 0.0) -> np.ndarray:
    """The randomized Tukey HSD's p-value of every pair (see the module's docstring).

    Parameters
    ----------
    values : ndarray, shape (items, statistics, systems)
    score : callable
        The metric's vectorised score of summed statistics ``(..., statistics)``.
    pairs : sequence of (a, b)
    observed : ndarray, shape (pairs,)
        The observed gains δ (by the same formula as the permutations' scores).
    resamples, seed : int
    tol : float
        A permuted range within ``tol`` of |δ| counts as reaching it.
    """
    n_items, n_stats, n_systems = values.shape
    by_system = np.ascontiguousarray(values.transpose(0, 2, 1))  # (items, systems, statistics)
    rng = np.random.default_rng(seed)
    rows = tukey_block_rows(n_items, n_systems, n_stats)
    ranges = np.empty(resamples)
    item_index = np.arange(n_items)[None, :, None]
    for start in range(0, resamples, rows):
        block = min(rows, resamples - start)
        perm = rng.permuted(np.tile(np.arange(n_systems), (block, n_items, 1)), axis=2)
        sums = by_system[item_index, perm].sum(axis=1)  # (block, systems, statistics)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an undefined score: left out of the range
            scores = score(sums)
            ranges[start:start + block] = np.nanmax(scores, axis=1) - np.nanmin(scores, axis=1)
    out = np.empty(len(pairs))
    for p in range(len(pairs)):
        delta = abs(float(observed[p]))
        if delta == 0 or not np.isfinite(delta):
            out[p] = 1.0
        else:
            out[p] = (1 + np.count_nonzero(ranges >= delta - tol)) / (resamples + 1)
    return out
