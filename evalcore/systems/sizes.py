"""How big a test set must be: the smallest significant gain at each test-set size (Berg-Kirkpatrick et al. 2012,
section 4's central figure).

For a pair (a, b) and a test-set size m, a test set of m items is drawn from the n items (:func:`test_set`):
for m ≤ n the first m of one random order of the items (so the sets grow one into the next, as a test set does
when more is annotated), for m > n m items drawn with replacement (the extrapolation beyond the test set at hand).
On it, R bootstrap resamples of size m give the gains δ*; with δ_m the gain on the size-m set itself and s the
sign of the whole test set's gain (+1 if it is 0), the smallest gain that would be significant at α is

    threshold(m) = the (1 − α) quantile of s·(δ* − δ_m),

Berg-Kirkpatrick et al.'s 2δ rule read backwards: a gain δ is significant when s·δ* exceeds 2|δ| in fewer than a
share α of the resamples, that is when |δ| exceeds that quantile of s·(δ* − δ). The observed gain of the whole test
set is drawn against the curve: where the curve lies below it, a test set of that size would have found it. The
curve falls roughly as 1/√m; similar systems (correlated outputs) have lower curves.

The draws are made in a fixed order from ``numpy.random.default_rng(seed)``: the random order of the items
(``rng.permutation(n)``), then for each size in turn the test set (for m > n, ``rng.choice(n, m)``) and its
resamples (``rng.choice(m, size=(R, m))``, in blocks), so :func:`size_curves` equals a plain loop that makes the
same draws (``tests/test_systems.py``).
"""

from __future__ import annotations

import warnings
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..errors import ParameterError
from .compare import ResamplingSettings, pair_indices
from .resample import bootstrap_sums, check_resamples, counts_of
from .statistics import ItemStatistics

__all__ = ["DEFAULT_FRACTIONS", "size_curves", "set_sizes", "SIZE_COLUMNS", "needed_sizes"]

DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.5, 2.0, 3.0, 4.0)
SIZE_COLUMNS = ("a", "b", "size", "fraction", "extrapolated", "gain", "threshold", "observed", "detectable")


def set_sizes(n_items: int, fractions: Sequence[float] = DEFAULT_FRACTIONS) -> list[int]:
    """The sizes m = round(fraction · n), at least 2, each once, in increasing order."""
    if n_items < 2:
        raise ParameterError(f"test-set-size curves need at least 2 items; got {n_items}")
    bad = [f for f in fractions if not (isinstance(f, (int, float)) and np.isfinite(f) and 0 < f <= 100)]
    if bad or not fractions:
        raise ParameterError(f"`fractions` must be numbers in (0, 100] (1 = the whole test set); got {list(fractions)}")
    return sorted({max(2, int(round(f * n_items))) for f in fractions})


def size_curves(statistics: ItemStatistics, settings: ResamplingSettings = ResamplingSettings(), *,
                fractions: Sequence[float] = DEFAULT_FRACTIONS,
                pairs: Sequence[tuple[int, int]] | None = None,
                progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """The smallest significant gain of every pair at every test-set size (see the module's docstring).

    Parameters
    ----------
    statistics : ItemStatistics
    settings : ResamplingSettings
        Resamples per size, seed, and the level (α = 1 − level).
    fractions : sequence of float
        Test-set sizes as shares of the n items (above 1: extrapolated by drawing with replacement).
    pairs : sequence of (int, int), optional
        Pairs of system indices (default: all, in input order).
    progress : callable(done, total), optional
        Called after each test-set size (a checkpoint: an exception it raises stops the work).

    Returns
    -------
    DataFrame
        One row per pair and size: ``a, b, size`` (m), ``fraction`` (m / n), ``extrapolated`` (m > n), ``gain``
        (δ_m, on the size-m test set), ``threshold`` (the smallest significant gain), ``observed`` (the whole
        test set's gain δ, score(b) − score(a)), ``detectable`` (|δ| > threshold).
    """
    check_resamples(settings.resamples)
    metric = statistics.metric
    values = statistics.values
    n_items, n_stats, n_systems = values.shape
    pairs = pair_indices(n_systems) if pairs is None else [tuple(p) for p in pairs]
    ia = np.array([i for i, _ in pairs], dtype=int)
    ib = np.array([j for _, j in pairs], dtype=int)
    flat = np.ascontiguousarray(values.reshape(n_items, n_stats * n_systems))

    def scores(sums: np.ndarray) -> np.ndarray:
        return metric.score(sums.reshape(len(sums), n_stats, n_systems).transpose(0, 2, 1))

    observed = statistics.scores[ib] - statistics.scores[ia]
    sign = np.where(observed < 0, -1.0, 1.0)
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(n_items)
    rows = []
    sizes = set_sizes(n_items, fractions)
    for done, m in enumerate(sizes, 1):
        pool = order[:m] if m <= n_items else rng.choice(n_items, size=m, replace=True)
        base = scores((counts_of(pool[None, :], n_items) @ flat))[0]
        gain_m = base[ib] - base[ia]
        boot = scores(bootstrap_sums(flat, settings.resamples, None, size=m, pool=pool, rng=rng))
        centred = sign * ((boot[:, ib] - boot[:, ia]) - gain_m)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an undefined score on every resample gives NaN
            threshold = np.nanquantile(centred, 1.0 - settings.alpha, axis=0)
        for p in range(len(pairs)):
            rows.append((statistics.systems[ia[p]], statistics.systems[ib[p]], m, m / n_items, m > n_items,
                         gain_m[p], threshold[p], observed[p], bool(abs(observed[p]) > threshold[p])))
        if progress is not None:
            progress(done, len(sizes))
    return pd.DataFrame(rows, columns=list(SIZE_COLUMNS))


def needed_sizes(curves: pd.DataFrame) -> pd.DataFrame:
    """The curves read the other way: for each pair, the smallest tested test-set size from which on the observed
    gain is detectable at every larger size (how many items, documents or topics a gain of this size needs).

    Returns
    -------
    DataFrame
        ``a, b, observed, needed, largest``: ``needed`` NaN where even the largest tested size (``largest``,
        four times the test set) does not find the gain.
    """
    rows = []
    for (a, b), part in curves.groupby(["a", "b"], sort=False):
        part = part.sort_values("size")
        found = part["detectable"].to_numpy(bool)
        sizes = part["size"].to_numpy()
        # the first size after the last one that does not find it
        misses = np.flatnonzero(~found)
        first = 0 if not len(misses) else misses[-1] + 1
        needed = float(sizes[first]) if first < len(sizes) else float("nan")
        rows.append((a, b, float(part["observed"].iloc[0]), needed, int(sizes.max())))
    return pd.DataFrame(rows, columns=["a", "b", "observed", "needed", "largest"])
