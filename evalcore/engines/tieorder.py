"""The order within tie groups, for a ranking that an engine sorted by score alone.

DuckDB and Spark sort by the sort key only (the floor a ranking cannot go below); the candidates of each tie group
then arrive together, in no particular order. :class:`TieOrder` puts every group in the tie policy's order, chunk by
chunk, holding back the last group of a chunk until the group is complete. The policies are those of
:func:`evalcore.ranking.rank_scores` that do not need the whole set at once:

- ``stable``: by row (file order);
- ``hash``: by (:func:`evalcore.ranking.tie_hash` of the seed and the row, row);
- ``optimistic`` / ``pessimistic``: TPs / FPs first, each part by row.

``random`` (a NumPy permutation of all N) is not among them: it is what :mod:`evalcore.engines.memory` computes,
and ``hash`` is its counterpart on every engine.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from numba import njit

from ..errors import ParameterError
from ..ranking import SPLITMIX_GAMMA, SPLITMIX_M1, SPLITMIX_M2, tie_hash

CHUNK_POLICIES = ("stable", "hash", "optimistic", "pessimistic")


def check_policy(ties: str, engine: str) -> None:
    if ties not in CHUNK_POLICIES:
        raise ParameterError(f"the {engine} engine breaks ties by {', '.join(CHUNK_POLICIES)}; `ties` {ties!r} is a "
                             "NumPy permutation of the whole set, which only the memory engine computes: use 'hash' "
                             "(a random order every engine computes alike)")


def order_groups(keys: np.ndarray, rows: np.ndarray, labels: np.ndarray, ties: str, seed: int | None) -> np.ndarray:
    """The permutation that puts candidates sorted by key into (key, tie policy) order.

    Parameters
    ----------
    keys : ndarray, shape (k,)
        Sort keys, ascending (equal keys adjacent); NaN never occurs (engines map non-finite scores to +inf).
    rows : ndarray of int64
        0-based file rows.
    labels : ndarray of bool
        TP flags (for the optimistic and pessimistic policies).
    ties, seed
        The tie policy and its seed.

    Returns
    -------
    ndarray of int64
        ``perm`` with ``keys[perm]`` still ascending and each tie group in the policy's order.
    """
    size = keys.shape[0]
    perm = np.arange(size, dtype=np.int64)
    if size < 2:
        return perm
    if ties in ("stable", "hash"):  # group by group, the key computed inside (a third of two whole-chunk sorts)
        _order_within_groups(np.ascontiguousarray(keys), np.ascontiguousarray(rows, dtype=np.int64),
                             np.uint64(0 if seed is None else seed % 2**64), ties == "hash", perm)
        return perm
    same = keys[1:] == keys[:-1]
    if not same.any():
        return perm
    tied = np.zeros(size, dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    where = np.flatnonzero(tied)
    group = np.cumsum(np.r_[True, ~same])[where]  # group id of each tied candidate, ascending
    r = rows[where]
    if ties == "stable":
        t_key = r
    elif ties == "hash":
        t_key = tie_hash(seed, r)
    elif ties in ("optimistic", "pessimistic"):
        first = labels[where] if ties == "optimistic" else ~labels[where]
        t_key = np.where(first, 0, np.int64(1) << 62) | r  # first the policy's part, then by row (rows < 2^62)
    else:
        raise ParameterError(f"no chunked order for `ties` {ties!r}")
    by_t = np.argsort(t_key)
    if ties == "hash" and np.any(t_key[by_t][1:] == t_key[by_t][:-1]):  # two equal hashes: then by row
        by_t = np.lexsort((r, t_key))
    # one integer sort of the words (group, place in t order), as evalcore.ranking._order does
    bits = max(1, int(where.size - 1).bit_length())
    t = np.empty(where.size, dtype=np.int64)
    t[by_t] = np.arange(where.size, dtype=np.int64)
    words = (group.astype(np.int64) << bits) | t
    words.sort()
    inner = by_t[words & ((np.int64(1) << bits) - 1)]
    perm[where] = where[inner]
    return perm


_GAMMA, _M1, _M2 = np.uint64(SPLITMIX_GAMMA), np.uint64(SPLITMIX_M1), np.uint64(SPLITMIX_M2)
_ONE, _S1, _S27, _S30, _S31 = np.uint64(1), np.uint64(1), np.uint64(27), np.uint64(30), np.uint64(31)


@njit(cache=True)
def _order_within_groups(keys, rows, seed, hashed, perm):
    """``perm[s:e]`` of each tie group (equal adjacent keys) by (t, row): t = :func:`evalcore.ranking.tie_hash`
    of the row (the same SplitMix64 steps, modulo 2^64) if ``hashed``, else the row."""
    size = keys.shape[0]
    s = 0
    while s < size:
        e = s + 1
        while e < size and keys[e] == keys[s]:
            e += 1
        g = e - s
        if g > 1:
            t = np.empty(g, dtype=np.int64)
            for i in range(g):
                if hashed:
                    z = seed + (np.uint64(rows[s + i]) + _ONE) * _GAMMA
                    z = (z ^ (z >> _S30)) * _M1
                    z = (z ^ (z >> _S27)) * _M2
                    z = z ^ (z >> _S31)
                    t[i] = np.int64(z >> _S1)
                else:
                    t[i] = rows[s + i]
            idx = np.argsort(t)
            i = 0
            while i < g:  # equal hashes (two rows at most share one): by row
                j = i + 1
                while j < g and t[idx[j]] == t[idx[i]]:
                    j += 1
                for a in range(i + 1, j):  # insertion sort of the few by row
                    b = a
                    while b > i and rows[s + idx[b]] < rows[s + idx[b - 1]]:
                        idx[b], idx[b - 1] = idx[b - 1], idx[b]
                        b -= 1
                i = j
            for i in range(g):
                perm[s + i] = s + idx[i]
        s = e


class TieOrder:
    """Chunks of a ranking sorted by key in, chunks in the tie policy's order out (a group never split).

    ``feed(keys, rows, labels, annotated)`` returns the part of the ranking now complete (maybe empty), as a tuple
    of arrays in ranking order; ``finish()`` returns the rest.
    """

    def __init__(self, ties: str, seed: int | None) -> None:
        self.ties, self.seed = ties, seed
        self.held: tuple[np.ndarray, ...] | None = None

    def feed(self, keys, rows, labels, annotated=None) -> tuple[np.ndarray, ...]:
        parts = [np.asarray(keys), np.asarray(rows, dtype=np.int64), np.asarray(labels, dtype=bool),
                 np.ones(len(keys), dtype=bool) if annotated is None else np.asarray(annotated, dtype=bool)]
        if self.held is not None:
            parts = [np.concatenate((h, p)) for h, p in zip(self.held, parts)]
        keys = parts[0]
        if not keys.size:
            self.held = tuple(parts)
            return tuple(p[:0] for p in parts)
        cut = int(np.searchsorted(keys, keys[-1], side="left"))  # the last group may go on in the next chunk
        self.held = tuple(p[cut:] for p in parts)
        return self._ordered([p[:cut] for p in parts])

    def finish(self) -> tuple[np.ndarray, ...]:
        if self.held is None:
            return tuple(np.zeros(0, dtype=t) for t in (np.float64, np.int64, bool, bool))
        held, self.held = self.held, None
        return self._ordered(list(held))

    def _ordered(self, parts: list[np.ndarray]) -> tuple[np.ndarray, ...]:
        perm = order_groups(parts[0], parts[1], parts[2], self.ties, self.seed)
        return tuple(p[perm] for p in parts)


def ordered_chunks(chunks, ties: str, seed: int | None) -> Iterator[tuple[np.ndarray, ...]]:
    """``(keys, rows, labels, annotated)`` chunks sorted by key → the same in (key, tie policy) order."""
    order = TieOrder(ties, seed)
    for chunk in chunks:
        out = order.feed(*chunk)
        if out[0].size:
            yield out
    out = order.finish()
    if out[0].size:
        yield out
