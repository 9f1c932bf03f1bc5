"""The order within tie groups of a ranking an engine sorted by key alone (evalcore.engines.tieorder), against a
slow, obviously right order: Python's sort of each group by (tie key, row)."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.engines.tieorder import order_groups
from evalcore.ranking import SPLITMIX_GAMMA, SPLITMIX_M1, SPLITMIX_M2, tie_hash

MASK = 2**64 - 1


def slow_order(keys, rows, labels, ties, seed):
    """Positions in (key, tie key, row) order, group by group, with Python's sort."""
    order = []
    start = 0
    for end in range(1, len(keys) + 1):
        if end == len(keys) or keys[end] != keys[start]:
            group = list(range(start, end))
            if ties == "stable":
                group.sort(key=lambda i: rows[i])
            elif ties == "hash":
                group.sort(key=lambda i: (int(tie_hash(seed, [rows[i]])[0]), rows[i]))
            else:
                first = labels if ties == "optimistic" else ~labels
                group.sort(key=lambda i: (not first[i], rows[i]))
            order += group
            start = end
    return np.array(order, dtype=np.int64)


@pytest.mark.parametrize("ties", ["stable", "hash", "optimistic", "pessimistic"])
@pytest.mark.parametrize("levels", [3, 40, 10**6])
def test_order_groups_equals_a_sort_of_each_group(ties, levels):
    rng = np.random.default_rng(levels)
    for size in (0, 1, 2, 700):
        keys = np.sort(np.round(rng.random(size) * levels))
        rows = rng.permutation(3 * size + 1)[:size].astype(np.int64) + (2**40 if levels == 40 else 0)
        labels = rng.random(size) < 0.3
        seed = int(rng.integers(0, 2**63))
        perm = order_groups(keys, rows, labels, ties, seed)
        np.testing.assert_array_equal(perm, slow_order(keys, rows, labels, ties, seed))


def _unmix(z: int) -> int:
    """The inverse of SplitMix64's finaliser (each step is a bijection of 64-bit words)."""
    z ^= (z >> 31) ^ (z >> 62)
    z = (z * pow(SPLITMIX_M2, -1, 2**64)) & MASK
    z ^= (z >> 27) ^ (z >> 54)
    z = (z * pow(SPLITMIX_M1, -1, 2**64)) & MASK
    z ^= (z >> 30) ^ (z >> 60)
    return z


def test_equal_hashes_are_ordered_by_row():
    # two rows whose 64-bit hashes differ in the last bit only share the 63-bit tie key: then by row
    seed, rows = 2026, None
    for r1 in range(1, 100):
        h1 = int(tie_hash(seed, [r1])[0])
        mixed = (h1 << 1) | (1 - _full_low_bit(seed, r1))
        r2 = (((_unmix(mixed) - seed) * pow(SPLITMIX_GAMMA, -1, 2**64)) & MASK) - 1
        if 0 <= r2 < 2**62:
            rows = [r1, r2]
            break
    assert rows is not None and int(tie_hash(seed, [rows[0]])[0]) == int(tie_hash(seed, [rows[1]])[0])
    for r in (rows, rows[::-1]):
        r = np.array(r + [5, 9], dtype=np.int64)
        keys = np.zeros(4)
        perm = order_groups(keys, r, np.zeros(4, bool), "hash", seed)
        np.testing.assert_array_equal(perm, slow_order(keys, r, np.zeros(4, bool), "hash", seed))
        pair = [i for i in perm if r[i] in rows]
        assert r[pair[0]] < r[pair[1]]


def _full_low_bit(seed: int, row: int) -> int:
    """The bit tie_hash drops: the lowest of SplitMix64's output."""
    z = (seed + (row + 1) * SPLITMIX_GAMMA) & MASK
    z = ((z ^ (z >> 30)) * SPLITMIX_M1) & MASK
    z = ((z ^ (z >> 27)) * SPLITMIX_M2) & MASK
    return (z ^ (z >> 31)) & 1
