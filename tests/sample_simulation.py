"""Repeated random samples of a fully annotated candidate set: the checks of issue 12.

Used by tests/test_estimates_krenn.py (a fast version) and bench/bench_estimates.py (long runs).
Labels are hidden except for a seeded simple random sample; the estimates from the sample are
compared with the full-data truth.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from evalcore.estimates import compare_estimates, draw_sample, sample_interval
from evalcore.ranking import Ranking, rank_scores


def sample_counts(ranking: Ranking, sample_size: int, repetitions: int, sizes: np.ndarray,
                  seed: int) -> tuple[np.ndarray, np.ndarray]:
    """m(n) and k(n) of ``repetitions`` seeded samples (one row each) in a fully annotated ranking.

    The order of a ranking does not depend on the labels under the stable and random policies, so
    the annotated candidates of a sample sit at their ranks of the full ranking: this is what
    ranking the partly annotated set gives (checked in the tests), without re-ranking each time.
    """
    labels_by_rank = np.diff(ranking.tp) > 0
    m = np.empty((repetitions, sizes.size), dtype=np.int64)
    k = np.empty_like(m)
    for r in range(repetitions):
        ranks = np.sort(ranking.ranks[draw_sample(ranking.n_candidates, sample_size, seed + r)])
        m[r] = np.searchsorted(ranks, sizes, side="right")
        k[r] = np.searchsorted(ranks[labels_by_rank[ranks - 1]], sizes, side="right")
    return m, k


def coverage(ranking: Ranking, sample_size: int, repetitions: int, sizes: np.ndarray, seed: int,
             confidence_level: float = 0.95, interval: str = "hypergeometric") -> np.ndarray:
    """Per n: the share of samples whose interval covers the full-data precision tp(n) / n."""
    m, k = sample_counts(ranking, sample_size, repetitions, sizes, seed)
    n = np.broadcast_to(sizes, m.shape)
    low, high = sample_interval(k.ravel(), m.ravel(), n.ravel(), confidence_level, interval)
    truth = np.broadcast_to(ranking.tp[sizes] / sizes, m.shape).ravel()
    eps = 1e-12  # bounds that equal the truth exactly (D / n) count as covering it
    return ((low <= truth + eps) & (truth - eps <= high)).reshape(m.shape).mean(axis=0)


def exact_coverage(n_total: int, sample_size: int, n: int, tps: int, confidence_level: float = 0.95,
                   interval: str = "hypergeometric", tol: float = 1e-13) -> float:
    """The coverage probability itself, by summation: m ~ Hypergeom(N, n, M), k | m ~ Hypergeom(n, D, m).

    Terms of m with probability below ``tol`` are left out (their total is reported as covered
    nowhere, so the value is a lower bound, low by at most the mass left out).
    """
    m = np.arange(0, min(n, sample_size) + 1)
    p_m = stats.hypergeom.pmf(m, n_total, n, sample_size)
    m, p_m = m[p_m > tol], p_m[p_m > tol]
    truth = tps / n
    ks = [np.arange(max(0, mi - (n - tps)), min(mi, tps) + 1) for mi in m]
    kk = np.concatenate(ks)
    mm = np.concatenate([np.full(k.size, mi) for k, mi in zip(ks, m)])
    weight = np.concatenate([np.full(k.size, pm) for k, pm in zip(ks, p_m)]) * stats.hypergeom.pmf(kk, n, tps, mm)
    low, high = sample_interval(kk, mm, np.full(kk.size, n), confidence_level, interval)
    total = weight[(low <= truth + 1e-12) & (truth - 1e-12 <= high)].sum()
    return float(total)


def fisher_rejections(labels: np.ndarray, base: np.ndarray, sample_size: int, repetitions: int,
                      sizes: np.ndarray, seed: int, noise: float = 1.0, alpha: float = 0.05) -> np.ndarray:
    """Per n: the share of repetitions where Fisher's test on the sample rejects for two exchangeable measures.

    Each repetition draws fresh noise for two measures ``base + noise * N(0, 1)`` (so A and B are
    exchangeable: neither is better) and a fresh sample, and tests the n-best lists on the
    annotated candidates of D1 and D2.
    """
    rng = np.random.default_rng(seed)
    out = np.zeros(sizes.size)
    for r in range(repetitions):
        annotated = np.zeros(labels.size, dtype=bool)
        annotated[draw_sample(labels.size, sample_size, seed + r)] = True
        a = rank_scores(labels, base + noise * rng.normal(size=labels.size), ties="stable", annotated=annotated)
        b = rank_scores(labels, base + noise * rng.normal(size=labels.size), ties="stable", annotated=annotated)
        result = compare_estimates(a, b, sizes, confidence_level=1 - alpha)
        out += result["significant"].to_numpy()
    return out / repetitions
