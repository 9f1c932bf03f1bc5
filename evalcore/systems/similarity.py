"""How similar two systems are: the share of items with identical output, and the correlation of their items'
contributions to the corpus score.

Berg-Kirkpatrick et al. (2012, section 5) find that similar systems reach significance with smaller gains: the
variance of a paired difference is var(a) + var(b) − 2 cov(a, b), so correlated outputs make the resampled gains
narrower. For a corpus metric (a function of summed statistics) the analogue of an item's value is its
*contribution*, the first-order change of the corpus score that the item's statistics make (the influence
function of the ratio of sums): with T the statistics summed over the n items and g the gradient of the score at
T / n,

    contribution_i = g · (s_i − T / n),

which for accuracy is (correct_i − p · total_i) / mean(total), for F1, WER and TER the item's errors weighed
against its size. ``correlation`` is Pearson's correlation of the two systems' contributions over the items (NaN
when a system's contributions do not vary); ``identical`` the share of items where the two outputs are the same
(the same hypothesis line, or the same counts in a table).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .compare import pair_indices
from .statistics import ItemStatistics

__all__ = ["similarity", "contributions", "SIMILARITY_COLUMNS"]

SIMILARITY_COLUMNS = ("a", "b", "identical", "correlation")


def contributions(statistics: ItemStatistics) -> np.ndarray:
    """Every item's first-order contribution to each system's corpus score, shape (items, systems).

    The gradient is taken by central differences at the mean statistics (a step of 1e-6 of each statistic, at
    least 1e-6), so it needs only the metric's score function.
    """
    metric = statistics.metric
    values = statistics.values
    n_items, n_stats, n_systems = values.shape
    mean = values.mean(axis=0).T  # (systems, statistics)
    steps = 1e-6 * np.maximum(np.abs(mean), 1.0)
    gradient = np.empty_like(mean)
    for k in range(n_stats):
        up, down = mean.copy(), mean.copy()
        up[:, k] += steps[:, k]
        down[:, k] -= steps[:, k]
        gradient[:, k] = (metric.score(up) - metric.score(down)) / (2 * steps[:, k])
    centred = values - mean.T[None, :, :]
    return np.einsum("iks,sk->is", centred, gradient)


def similarity(statistics: ItemStatistics) -> pd.DataFrame:
    """``a, b, identical, correlation`` for every pair of systems in input order (see the module's docstring)."""
    influence = contributions(statistics)
    codes = statistics.outputs
    rows = []
    for i, j in pair_indices(statistics.n_systems):
        x, y = influence[:, i], influence[:, j]
        sx, sy = x.std(), y.std()
        scale = max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0), 1e-300)
        if sx <= 1e-12 * scale or sy <= 1e-12 * scale:
            correlation = float("nan")
        else:
            correlation = float(np.clip(np.mean((x - x.mean()) * (y - y.mean())) / (sx * sy), -1.0, 1.0))
        identical = float(np.mean(codes[:, i] == codes[:, j]))
        rows.append((statistics.systems[i], statistics.systems[j], identical, correlation))
    return pd.DataFrame(rows, columns=list(SIMILARITY_COLUMNS))
