"""Slow, obviously right implementations that the fast ones are checked against."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

REL_ERR = Fraction(1) + Fraction(1, 10**7)  # R's fisher.test tolerance


def nbest_sets(labels, scores_a, scores_b, order_a, order_b):
    """Per n: (|A|, T_A, T_B, T_D1, F_D1, T_D2, F_D2) by plain set operations."""
    rows = []
    for n in range(1, len(labels) + 1):
        a, b = set(order_a[:n].tolist()), set(order_b[:n].tolist())
        d1, d2 = a - b, b - a
        t = lambda s: sum(bool(labels[i]) for i in s)  # noqa: E731
        rows.append((n, t(a), t(b), t(d1), len(d1) - t(d1), t(d2), len(d2) - t(d2)))
    return np.array(rows)


@lru_cache(maxsize=64)
def _hypergeometric_weights(m: int, n: int, k: int) -> tuple[int, dict[int, int]]:
    """C(m, x) C(n, k - x) for every x in the support, by exact integer recurrences."""
    lo, hi = max(0, k - n), min(k, m)
    c1, c2 = comb(m, lo), comb(n, k - lo)
    weights = {}
    for x in range(lo, hi + 1):
        weights[x] = c1 * c2
        c1 = c1 * (m - x) // (x + 1)
        j = k - x  # C(n, j - 1) = C(n, j) j / (n - j + 1)
        c2 = c2 * j // (n - j + 1) if j > 0 else 0
    return comb(m + n, k), weights


def fisher_exact_fraction(a: int, b: int, c: int, d: int, alternative: str = "two-sided") -> Fraction:
    """Fisher's exact p-value in exact rational arithmetic, following R's definition."""
    total, weights = _hypergeometric_weights(a + c, b + d, a + b)
    if alternative == "less":
        return Fraction(sum(w for x, w in weights.items() if x <= a), total)
    if alternative == "greater":
        return Fraction(sum(w for x, w in weights.items() if x >= a), total)
    observed = weights[a]
    return Fraction(sum(w for w in weights.values() if w <= observed * REL_ERR), total)


def log10_fraction(p: Fraction) -> float:
    """log10 of a positive fraction, exact to double precision even below 1e-300."""
    num, den = p.numerator, p.denominator
    shift = num.bit_length() - den.bit_length()
    scaled = Fraction(num, den) / Fraction(2) ** shift
    return float(np.log10(float(scaled))) + shift * float(np.log10(2.0))


def clopper_pearson_bisect(k: int, n: int, level: float) -> tuple[float, float]:
    """Clopper-Pearson bounds by bisection on exact binomial tails (floats, 200 halvings)."""
    from scipy.stats import binom

    alpha = (1 - level) / 2

    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(lambda p: binom.sf(k - 1, n, p) < alpha)
    high = 1.0 if k == n else solve(lambda p: binom.cdf(k, n, p) > alpha)
    return low, high
