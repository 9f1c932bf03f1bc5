"""Resampling as weights: a bootstrap resample or a randomization is a weighted sum of the items' statistics.

A bootstrap resample of the n items is a vector of counts c (how often each item was drawn, summing to the
resample's size); its summed statistics are ``c @ S`` for the items' statistics ``S`` (items x columns). R resamples
are one matrix product, ``C @ S`` with ``C`` of shape (R, items), done in blocks of :data:`BLOCK` resamples so that
memory stays at a few tens of megabytes whatever R. Approximate randomization swaps two systems' statistics on the
items where a coin says so: with the swap mask M (R x items, 0 or 1), the pseudo-systems' sums are
``M @ S_a + (1 - M) @ S_b = T_b + M @ S_a - M @ S_b`` and ``T_a + T_b`` minus that (T the totals), so one product
``M @ S`` serves every pair of systems at once.

The random draws are numpy's, in the order sacrebleu makes them: ``default_rng(seed).choice(n, size=(R, n))`` for
the bootstrap (``sacrebleu.significance._paired_bs_test``) and ``default_rng(seed).integers(2, size=(R, n),
dtype=bool)`` for the randomization (``_paired_ar_test``), so with sacrebleu's seed (12345) the resamples are the
ones sacrebleu draws. The bootstrap's indices are drawn as ``integers(0, n, dtype=int32)``, which gives the same
numbers as ``choice(n)`` (both draw bounded 32-bit integers one after another; ``tests/test_systems.py`` checks it)
at less than half the cost, and in blocks, which gives the same indices as one draw; the randomization's mask is
drawn whole (R x items bytes).

Where the statistics are whole numbers and no resampled sum can reach 2^24, the products are computed in float32:
every partial sum is then a whole number below 2^24, which float32 holds exactly, so the sums are exact and the
product takes about half the time of float64 (else float64, exact below 2^53).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from ..errors import ParameterError

__all__ = ["BLOCK", "bootstrap_counts", "bootstrap_sums", "randomization_sums", "counts_of", "check_resamples",
           "product_dtype"]

BLOCK = 1000  # resamples per block: (1000 x items) float64 counts, 24 MB at 3,000 items


def check_resamples(resamples: int) -> int:
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise ParameterError(f"`resamples` must be a whole number of at least 1; got {resamples!r}")
    return int(resamples)


def counts_of(indices: np.ndarray, n_items: int, dtype=np.float64) -> np.ndarray:
    """The counts matrix of drawn indices: ``indices`` (rows, draws) of items in 0..n_items-1 -> (rows, n_items),
    ``counts[r, i]`` = how often row r drew item i.

    One ``np.bincount`` per row: each row's counts (a few kilobytes) stay in the cache while its draws are counted,
    about three times faster than one ``bincount`` over offset indices, which converts and copies them twice (7 ms
    against 21 ms for 1,000 rows of 3,000 draws).
    """
    out = np.empty((indices.shape[0], n_items), dtype=dtype)
    for r in range(indices.shape[0]):
        out[r] = np.bincount(indices[r], minlength=n_items)
    return out


def product_dtype(values: np.ndarray, draws: int):
    """float32 where the products ``counts @ values`` are exact in it (whole numbers, every sum below 2^24: at most
    ``draws`` items counted per resample), else float64."""
    if values.size == 0:
        return np.float64
    largest = float(np.abs(values).max())
    if largest * draws < 2**24 and np.array_equal(values, np.round(values)):
        return np.float32
    return np.float64


def bootstrap_counts(n_items: int, resamples: int, rng: np.random.Generator, *, size: int | None = None,
                     pool: np.ndarray | None = None, dtype=np.float64) -> Iterator[np.ndarray]:
    """Blocks of bootstrap counts, (rows, n_items) each, for ``resamples`` resamples in all.

    Each resample draws ``size`` items (default: n_items) with replacement, uniformly from ``pool`` (item indices,
    repeats allowed: a test set that is itself a resample) or from all items; the draws are
    ``rng.integers(0, len(pool), size=(rows, size), dtype=int32)`` (the numbers ``rng.choice(len(pool), ...)``
    draws), block after block.
    """
    size = n_items if size is None else int(size)
    for start in range(0, resamples, BLOCK):
        rows = min(BLOCK, resamples - start)
        drawn = rng.integers(0, n_items if pool is None else len(pool), size=(rows, size), dtype=np.int32)
        yield counts_of(drawn if pool is None else pool[drawn], n_items, dtype)


def bootstrap_sums(values: np.ndarray, resamples: int, seed: int | None, *, size: int | None = None,
                   pool: np.ndarray | None = None, rng: np.random.Generator | None = None) -> np.ndarray:
    """The summed statistics of ``resamples`` bootstrap resamples.

    Parameters
    ----------
    values : ndarray, shape (items, columns)
        The items' statistics (every system's side by side).
    resamples : int
    seed : int or None
        Seed of ``numpy.random.default_rng`` (ignored when ``rng`` is given).
    size, pool : optional
        As for :func:`bootstrap_counts`.

    Returns
    -------
    ndarray, shape (resamples, columns)
    """
    resamples = check_resamples(resamples)
    rng = np.random.default_rng(seed) if rng is None else rng
    dtype = product_dtype(values, values.shape[0] if size is None else int(size))
    typed = values.astype(dtype, copy=False)
    out = np.empty((resamples, values.shape[1]), dtype=np.float64)
    start = 0
    for counts in bootstrap_counts(values.shape[0], resamples, rng, size=size, pool=pool, dtype=dtype):
        out[start:start + len(counts)] = counts @ typed
        start += len(counts)
    return out


def randomization_sums(values: np.ndarray, resamples: int, seed: int | None) -> np.ndarray:
    """``M @ values`` for ``resamples`` random swap masks M (each item swapped with probability 1/2).

    Returns
    -------
    ndarray, shape (resamples, columns)
        Row r: the statistics summed over the items that randomization r swaps.
    """
    resamples = check_resamples(resamples)
    mask = np.random.default_rng(seed).integers(2, size=(resamples, values.shape[0]), dtype=bool)
    dtype = product_dtype(values, values.shape[0])
    typed = values.astype(dtype, copy=False)
    out = np.empty((resamples, values.shape[1]), dtype=np.float64)
    for start in range(0, resamples, BLOCK):
        block = mask[start:start + BLOCK]
        out[start:start + len(block)] = block.astype(dtype) @ typed
    return out
