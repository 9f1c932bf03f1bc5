"""Ranks of an annotated sample among all N candidates, in one pass over the data (no sort of the N).

For a sampled candidate x with sort key K and tie value t (the tie policy's order, see
:mod:`evalcore.engines.tieorder`):

    rank(x) = #{y : key(y) < K} + #{y : key(y) = K and t(y) < t(x)} + 1.

The first count is a histogram of the N keys over the k distinct sample keys (a binary search each, O(N log k)),
cumulated; the second needs only the candidates whose key equals a sample key, ordered with the sample by (group,
t) in one merge per chunk. Every engine feeds its chunks (DuckDB's record batches, Spark's partitions) into
:class:`SampleCounter`; the counters of several partitions add up (:meth:`SampleCounter.merge`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..ranking import tie_hash
from .counts import RankCounts

#: Up to this many sampled candidates in one tie group, their tie counts compare each row with them in turn (a pass
#: over the chunk each); past it, one sort of the chunk with the sample.
FEW_PER_GROUP = 16


def _tie_columns(ties: str, seed: int | None, rows: np.ndarray, labels: np.ndarray) -> list[np.ndarray]:
    """The tie value t as sort columns, most significant first (ties between rows never remain)."""
    if ties == "stable":
        return [rows]
    if ties == "hash":
        return [tie_hash(seed, rows), rows]
    if ties in ("optimistic", "pessimistic"):
        first = labels if ties == "optimistic" else ~labels
        return [(~first).astype(np.int64), rows]
    raise ParameterError(f"no one-pass sample ranks for `ties` {ties!r}; use 'hash' or 'stable'")


class SampleCounter:
    """Counts, for each sampled candidate and measure, the candidates ranked above it.

    Parameters
    ----------
    sample_keys : ndarray of float, shape (k, M)
        Sort keys of the sample (ascending = better; non-finite as +inf), one column per measure.
    sample_rows : ndarray of int64, shape (k,)
        Their 0-based rows.
    sample_labels : ndarray of bool, shape (k,)
    ties, seed
        The tie policy (``stable``, ``hash``, ``optimistic``, ``pessimistic``) and its seed.
    """

    def __init__(self, sample_keys: np.ndarray, sample_rows: np.ndarray, sample_labels: np.ndarray, ties: str,
                 seed: int | None) -> None:
        self.keys = np.asarray(sample_keys, dtype=np.float64).reshape(len(sample_rows), -1)
        self.rows = np.asarray(sample_rows, dtype=np.int64)
        self.labels = np.asarray(sample_labels, dtype=bool)
        self.ties, self.seed = ties, seed
        k, n_measures = self.keys.shape
        self.unique = [np.unique(self.keys[:, j]) for j in range(n_measures)]
        self.group = [np.searchsorted(u, self.keys[:, j]) for j, u in enumerate(self.unique)]
        self.hist = [np.zeros(u.size + 1, dtype=np.int64) for u in self.unique]
        self.within = np.zeros((k, n_measures), dtype=np.int64)
        self.seen = 0
        self.t_sample = _tie_columns(ties, seed, self.rows, self.labels)
        # per measure: the sample ordered by (group, t), where each group starts in that order, its size
        self.order, self.start, self.size = [], [], []
        for g, unique in zip(self.group, self.unique):
            order = np.lexsort((*reversed(self.t_sample), g))
            self.order.append(order)
            self.start.append(np.searchsorted(g[order], np.arange(unique.size)))
            self.size.append(np.bincount(g, minlength=unique.size))

    def add(self, keys: np.ndarray, rows: np.ndarray, labels: np.ndarray) -> None:
        """Count one chunk of candidates: ``keys`` of shape (c, M), their rows and (annotated TP) labels."""
        keys = np.asarray(keys, dtype=np.float64).reshape(len(rows), -1)
        rows = np.asarray(rows, dtype=np.int64)
        labels = np.asarray(labels, dtype=bool)
        self.seen += rows.shape[0]
        for j, unique in enumerate(self.unique):
            column = keys[:, j]
            right = np.searchsorted(unique, column, side="right")  # sample keys <= key(y)
            self.hist[j] += np.bincount(right, minlength=unique.size + 1)
            equal = np.flatnonzero((right > 0) & (unique[np.maximum(right - 1, 0)] == column))
            if equal.size:
                self.count_ties(j, right[equal] - 1, rows[equal], labels[equal])

    def count_ties(self, j: int, group: np.ndarray, rows: np.ndarray, labels: np.ndarray) -> None:
        """Add #{y in the chunk: key(y) = key(x), t(y) < t(x)} for every sampled x of measure j, for rows whose tie
        group among the sample's keys is known: ``group`` (an index into the sample's unique keys of measure j), as
        :meth:`add` finds it or an engine's join on the score gives it (:mod:`evalcore.engines.samplesql`)."""
        t_rows = _tie_columns(self.ties, self.seed, rows, labels)
        if self.size[j].max(initial=0) <= FEW_PER_GROUP:
            self._count_ties_few(j, group, t_rows)
        else:
            self._count_ties_merged(j, group, t_rows)

    def _count_ties_few(self, j: int, group: np.ndarray, t_rows: list[np.ndarray]) -> None:
        """:meth:`count_ties` where each tie group holds few sampled candidates: no sort of the chunk. For each
        row y, p(y) = #{x in its group : t(x) < t(y)} by comparing with the group's sampled candidates in turn;
        then t(y) < t(x_i) (x_i the i-th of its group by t, y not x_i) exactly when p(y) <= i."""
        order, start, size = self.order[j], self.start[j][group], self.size[j][group]
        t_sorted = [column[order] for column in self.t_sample]
        k = order.size
        below = np.zeros(group.size, dtype=np.int64)  # p(y)
        itself = np.zeros(group.size, dtype=bool)  # y is a sampled candidate (all of t equal: the same row)
        for q in range(int(size.max(initial=0))):
            active = q < size
            at = np.minimum(start + q, k - 1)
            less, equal = np.zeros(group.size, dtype=bool), np.ones(group.size, dtype=bool)
            for ts, tr in zip(t_sorted, t_rows):
                sample_t = ts[at]
                less |= equal & (sample_t < tr)
                equal &= sample_t == tr
            below += active & less
            itself |= active & equal
        below += itself  # a sampled candidate counts for those after it, not for itself
        counted = below < size  # p(y) = size: above every sampled candidate of its group
        hist = np.bincount((start + below)[counted], minlength=k)
        cumulative = np.r_[0, np.cumsum(hist)]
        group_start = self.start[j][self.group[j][order]]
        self.within[order, j] += cumulative[np.arange(1, k + 1)] - cumulative[group_start]

    def _count_ties_merged(self, j: int, group: np.ndarray, t_rows: list[np.ndarray]) -> None:
        """:meth:`count_ties` by one sort of the chunk's rows with the sample (any number per group)."""
        sample_group = self.group[j]
        rows = t_rows[-1]
        k = sample_group.size
        # samples (flag 0) before chunk rows (flag 1) of equal (group, t): x itself is not counted
        flag = np.r_[np.zeros(k, np.int8), np.ones(rows.size, np.int8)]
        columns = [np.r_[a, b] for a, b in zip(self.t_sample, t_rows)]
        groups = np.r_[sample_group, group]
        merged = np.lexsort((flag, *reversed(columns), groups))
        is_row = flag[merged] == 1
        rows_before = np.cumsum(is_row) - is_row  # chunk rows before each merged position
        at = np.empty(merged.size, dtype=np.int64)
        at[merged] = np.arange(merged.size)
        before_x = rows_before[at[:k]]
        sorted_groups = np.sort(group)
        in_earlier_groups = np.searchsorted(sorted_groups, sample_group, side="left")
        self.within[:, j] += before_x - in_earlier_groups

    def merge(self, other: "SampleCounter") -> None:
        for j in range(len(self.hist)):
            self.hist[j] += other.hist[j]
        self.within += other.within
        self.seen += other.seen

    def state(self) -> tuple[list[np.ndarray], np.ndarray, int]:
        return self.hist, self.within, self.seen

    def add_state(self, hist, within, seen) -> None:
        for j in range(len(self.hist)):
            self.hist[j] += hist[j]
        self.within += within
        self.seen += seen

    def ranks(self) -> np.ndarray:
        """1-based ranks, shape (k, M)."""
        out = np.empty(self.within.shape, dtype=np.int64)
        for j, hist in enumerate(self.hist):
            below = np.cumsum(hist)  # below[g] = #{y : key(y) < unique[g]}
            out[:, j] = below[self.group[j]] + self.within[:, j] + 1
        return out


@dataclass(frozen=True, eq=False)
class SampleRanks:
    """The ranks of the annotated candidates under each measure, among all N candidates.

    Attributes
    ----------
    rows : ndarray of int64, shape (k,)
        0-based file rows of the annotated candidates, ascending.
    labels : ndarray of bool, shape (k,)
    ranks : dict of str to ndarray of int64, shape (k,)
        1-based rank of each annotated candidate under each measure, with the tie policy.
    n_candidates : int
    ties, seed, engine
    higher : dict of str to bool
    nonfinite : dict of str to int
    """

    rows: np.ndarray
    labels: np.ndarray
    ranks: dict
    n_candidates: int
    ties: str
    seed: int | None
    engine: str
    higher: dict
    nonfinite: dict

    def rank_counts(self) -> dict[str, RankCounts]:
        """A :class:`RankCounts` per measure for the sample-estimate statistics (m(n), k(n), D1/D2 counts of the
        annotated candidates); the tie groups of the other candidates are not known (``ties_known=False``)."""
        out = {}
        for m, ranks in self.ranks.items():
            out[m] = RankCounts(
                measure=m, n_candidates=self.n_candidates, tp_ranks=np.sort(ranks[self.labels]),
                tie_start=np.zeros(0, np.int64), tie_end=np.zeros(0, np.int64), ties=self.ties, seed=self.seed,
                n_nonfinite=self.nonfinite.get(m, 0), higher_is_better=self.higher.get(m, True),
                annotated_ranks=np.sort(ranks), column=m, engine=self.engine, ties_known=False,
                sample_rows=self.rows, sample_ranks=ranks, sample_labels=self.labels)
        return out
