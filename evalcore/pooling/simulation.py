"""How pooled designs behave over many seeds: coverage and width of their intervals, against a random sample.

:func:`design_simulation` draws a design's random part with many seeds, exactly as :func:`~evalcore.pooling.draw_design`
draws it (:func:`evalcore.estimates.draw_sample` of the candidates outside the pool), and alongside it a simple
random sample of the same number of annotations from the whole set; for every seed, measure and list size n it
computes both intervals from the counts those draws leave (the estimators of :mod:`evalcore.pooling.estimators` and
:func:`evalcore.estimates.precision_estimates`, on counts) and whether they cover the list's true precision. The
exact hypergeometric bounds are computed once per distinct (k, m, list) triple: over many seeds the triples repeat.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..estimates import draw_sample, hypergeometric_interval, sample_interval
from ..ranking import Ranking
from ..stats.intervals import check_confidence_level

SIMULATION_COLUMNS = ("measure", "n", "design", "seeds", "coverage", "mean_width", "median_width", "pooled",
                      "rest", "mean_rest_m")


def count_bounds(k, m, size, confidence_level: float = 0.95, interval: str = "hypergeometric"):
    """Bounds on the TPs of ``size`` candidates from k TPs among m of them sampled, for many triples at once,
    each distinct triple computed once. Returns (low, high) as counts (floats for Clopper-Pearson)."""
    k, m, size = (np.asarray(x, dtype=np.int64).ravel() for x in np.broadcast_arrays(k, m, size))
    triples, inverse = np.unique(np.stack([k, m, size]), axis=1, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    low = np.zeros(triples.shape[1])
    high = np.zeros(triples.shape[1])
    some = triples[2] > 0
    if some.any():
        tk, tm, ts = triples[:, some]
        if interval == "hypergeometric":
            ci = hypergeometric_interval(tk, tm, ts, confidence_level)
            low[some], high[some] = np.atleast_1d(ci.low_count), np.atleast_1d(ci.high_count)
        else:
            lo, hi = sample_interval(tk, tm, ts, confidence_level, interval)
            low[some], high[some] = lo * ts, hi * ts
    return low[inverse], high[inverse]


def _sampled(n_candidates: int, draws: list[np.ndarray]) -> np.ndarray:
    out = np.zeros((len(draws), n_candidates), dtype=bool)
    for i, d in enumerate(draws):
        out[i, d] = True
    return out


def design_simulation(labels: np.ndarray, rankings: Mapping[str, Ranking] | Iterable[Ranking], pool: np.ndarray | None,
                      size: int, seeds: Iterable[int], sizes, *, random_size: int | None = None,
                      confidence_level: float = 0.95, interval: str = "hypergeometric") -> tuple[pd.DataFrame,
                                                                                                pd.DataFrame]:
    """Coverage and width of a pooled design's intervals over many seeds, against a random sample.

    Parameters
    ----------
    labels : ndarray of bool
        The true labels of every candidate (the simulation hides all but the design's).
    rankings : mapping or iterable of Ranking
        Rankings of the fully labelled candidate set, one per measure to evaluate.
    pool : ndarray of bool or None
        The design's pool (None: no pool, the design is a random sample of ``size`` from the whole set).
    size : int
        m, the random sample of the rest (``pool+sample``).
    seeds : iterable of int
        One draw per seed (the design's seed).
    sizes : array_like of int
        The list sizes n.
    random_size : int, optional
        The comparison: a simple random sample of this many from the whole set (default: the design's
        annotations, pool + m), drawn with the same seeds.
    confidence_level, interval
        As :func:`evalcore.pooling.pooled_precision`.

    Returns
    -------
    summary : DataFrame
        Columns :data:`SIMULATION_COLUMNS`, one row per measure, n and design ("pooled", "random"): the share of
        seeds whose interval covers the true precision, and the mean and median width.
    per_seed : DataFrame
        ``measure, n, seed, pooled_width, random_width, pooled_covers, random_covers`` for every seed.
    """
    level = check_confidence_level(confidence_level)
    rankings = list(rankings.values()) if isinstance(rankings, Mapping) else list(rankings)
    labels = np.asarray(labels, dtype=bool)
    n_total = labels.size
    pool = np.zeros(n_total, dtype=bool) if pool is None else np.asarray(pool, dtype=bool)
    seeds = [int(s) for s in seeds]
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.int64))
    if sizes.min() < 1 or sizes.max() > n_total:
        raise ParameterError(f"`sizes` must be in 1..{n_total}")
    budget = int(pool.sum()) + int(size) if random_size is None else int(random_size)
    pooled_draw = _sampled(n_total, [draw_sample(~pool, size, s) for s in seeds])
    random_draw = _sampled(n_total, [draw_sample(n_total, budget, s) for s in seeds])
    rows, per_seed = [], []
    for r in rankings:
        truth = np.cumsum(labels[r.order])
        for n in sizes:
            top = r.order[:n]
            true_tp = int(truth[n - 1])
            outside = top[~pool[top]]
            pooled, pooled_tp = n - outside.size, int(labels[top[pool[top]]].sum())
            rest = outside.size
            rest_m = pooled_draw[:, outside].sum(axis=1)
            rest_k = pooled_draw[:, outside[labels[outside]]].sum(axis=1)
            lo, hi = count_bounds(rest_k, rest_m, rest, level, interval) if rest else (np.zeros(len(seeds)),) * 2
            p_low, p_high = pooled_tp + lo, pooled_tp + hi
            m = random_draw[:, top].sum(axis=1)
            k = random_draw[:, top[labels[top]]].sum(axis=1)
            r_low, r_high = count_bounds(k, m, n, level, interval)
            tol = 1e-9 * n
            p_cov = (p_low <= true_tp + tol) & (true_tp <= p_high + tol)
            r_cov = (r_low <= true_tp + tol) & (true_tp <= r_high + tol)
            p_width, r_width = (p_high - p_low) / n, (r_high - r_low) / n
            for design, cov, width, extra in (("pooled", p_cov, p_width, rest_m), ("random", r_cov, r_width, m)):
                rows.append({"measure": r.measure, "n": int(n), "design": design, "seeds": len(seeds),
                             "coverage": float(cov.mean()), "mean_width": float(width.mean()),
                             "median_width": float(np.median(width)), "pooled": pooled if design == "pooled" else 0,
                             "rest": rest if design == "pooled" else int(n), "mean_rest_m": float(extra.mean())})
            per_seed.append(pd.DataFrame({"measure": r.measure, "n": int(n), "seed": seeds, "pooled_width": p_width,
                                          "random_width": r_width, "pooled_covers": p_cov, "random_covers": r_cov}))
    return pd.DataFrame(rows, columns=list(SIMULATION_COLUMNS)), pd.concat(per_seed, ignore_index=True)


def width_ratios(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per measure and n: the median over seeds of the pooled design's width divided by the random sample's, and
    the ratio of the median widths."""
    ratio = per_seed["pooled_width"] / per_seed["random_width"].where(per_seed["random_width"] > 0)
    out = per_seed.assign(ratio=ratio).groupby(["measure", "n"], sort=False).agg(
        median_ratio=("ratio", "median"), pooled_median=("pooled_width", "median"),
        random_median=("random_width", "median"))
    out["ratio_of_medians"] = out["pooled_median"] / out["random_median"]
    return out.reset_index()
