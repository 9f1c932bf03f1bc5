"""Planning a stratified design: how to spend a budget over the bands, and what it buys against a random sample.

The planner takes the bands (widths of one measure's ranks, or of the best rank over several), a budget B, the
measures and list sizes n that matter, and what is known of the TP rates:

* a *pilot*: annotated candidates with the weight each carries under the design that chose them (1 for a random
  pilot; for a pooled or stratified pilot the inverse of its chance to be drawn: :func:`pilot_weights` reads it
  with its own design). Each band's rate is the weighted rate of its pilot candidates, shrunk towards the pilot's
  overall rate and made non-increasing over the bands (:func:`band_rates`). A pilot of 100 random candidates has
  two or three in a top band of 100: a rate per rank (a logistic or isotonic curve) followed its noise, and its
  allocations failed the checks of ``bench/bench_strata.py`` more often than the band rates' did;
* or a *guess* of the TP rate of each band (one number: the same for all).

Every target's n-best list then has its cells (its part of each band, N_c candidates at the band's rate p_c). The
variance of the stratified estimate relative to a random sample's is, with the cells' expected sizes,
``r_L = sum_c N_c N_h p_c (1 - p_c) (1 / s_h - 1 / N_h) / n^2`` against ``p (1 - p) (N / B - 1) / n``; the allocation
minimises the sum of ``log r_L`` over the targets and list sizes (every list's relative gain counts alike: a
weighted Neyman allocation, :func:`allocate`), each band sampled at no less than ``floor`` (2/3) times the overall
rate B / N, so that a list the plan did not name still gets a fair sample of every band, and at most whole.

For the chosen allocation the planner predicts, for every target at every n, the width of the design's interval
and of today's random sample of B: each the median over simulated draws of the list's annotated counts at the
assumed rates, each interval the estimator's own (:func:`expected_widths`, :func:`random_widths`). A pilot is
noisy, so the planner also resamples it (:func:`resampled_rates`, a bootstrap) and gives each list the ratio it
could as well have under the rates another pilot would have shown (``ratio_high``, the 80% quantile). A random pilot
of 100 candidates holds about eleven TPs on Krenn's data, so its TP rate is uncertain by about a quarter (a standard
error of 28%) and a width predicted from it by about an eighth (14%), whatever the model; the ratio to a random
sample's width, which shares that uncertainty, is the steadier prediction (``bench/bench_strata.py`` measures both
over many pilots).

The allocation minimises the objective summed over the pilot's own rates and every resample's (a plan that holds for the
rates another pilot could have shown, not only for this one's). Where a list's ``ratio_high`` reaches
1 - :data:`MARGIN`, the allocation is made again asking less of that list's variance (:data:`ROUNDS` times at most);
the plan is the allocation with the fewest such lists. The first band is sampled at no less than what keeps the
bands' measures' lists within it at :data:`HEAD_TARGET` (a variance ratio of 0.2, a width under half a random sample's)
where the budget allows: their ratio owes nothing to the rates (``(N_1 / s_1 - 1) / (N / B - 1)``: the list is part
of the band, sampled at its own rate), so a pilot that saw few TPs at the top (two or three candidates there) does
not starve the top band. It warns where a list is expected wider (``wider``) and where it may be
(``may_be_wider``).

``bench/bench_strata.py`` checks the plans against simulated widths on Krenn's data and on a generated set, for
many pilots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import ParameterError
from ..ranking import Ranking
from ..stats.intervals import check_confidence_level
from .stratified import Bands, StratifiedDesign, best_rank, format_widths
from .stratified_estimators import total_bounds

FLOOR = 2 / 3     # each band is sampled at no less than this share of the overall rate B / N
TARGET = 0.95     # the variance ratio (stratified / random) the allocation keeps every list under where it can
RATIO_FLOOR = 0.04  # a list's variance ratio counts down to this (width ratio 0.2): no reward for going further
PRIOR = 2.0       # pseudo-candidates shrinking the pilot's block rates towards its overall rate
DRAWS = 400      # simulated draws behind each predicted width
ROUNDS = 6       # allocations tried, each asking less of the lists predicted wider than a random sample
HEAD_TARGET = 0.2  # the variance ratio the first band's size keeps the bands' measures' lists within it at
MARGIN = 0.02    # the allocation aims every list's ratio at 1 - MARGIN or below
RESAMPLES = 40   # bootstrap resamples of the pilot: the band rates it could as well have shown
QUANTILE = 0.8   # a list's ratio "as wide as" is this quantile over the resamples
PLAN_COLUMNS = ("measure", "n", "stratified_width", "random_width", "ratio", "ratio_high", "wider", "may_be_wider",
                "rate")


# ----------------------------------------------------------------------------------------------- the pilot
def pilot_weights(design, candidates, bands: Bands | None = None, pool: np.ndarray | None = None) -> np.ndarray:
    """Each annotated candidate's weight under the design that chose it (the inverse of its chance to be drawn),
    NaN for the others: 1 for a random sample of the whole set; for ``pool+sample``, 1 in the pool and (outside
    candidates) / (annotated outside) beyond; for ``stratified``, N_h / m_h in band h (m_h its annotated
    candidates); for a ``sample`` of a frame, frame size / annotated (the frame's candidates only)."""
    n = candidates.n_candidates
    annotated = np.ones(n, bool) if candidates.annotated is None else np.asarray(candidates.annotated, bool)
    out = np.full(n, np.nan)
    if getattr(design, "stratified", False):
        if bands is None:
            raise ParameterError("a stratified pilot is read with its bands")
        for h in range(bands.n_bands):
            inside = bands.band == h
            m = int((inside & annotated).sum())
            if m:
                out[inside & annotated] = bands.counts[h] / m
        return out
    if getattr(design, "pooled", False):
        if pool is None:
            raise ParameterError("a pooled pilot is read with its pool")
        out[pool & annotated] = 1.0
        rest = ~pool & annotated
        if getattr(design, "rest_sampled", False) and rest.any():
            out[rest] = int((~pool).sum()) / int(rest.sum())
        return out
    out[annotated] = annotated.size / max(int(annotated.sum()), 1)
    return out


def _decreasing(y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighted least-squares non-increasing fit (pool adjacent violators): block means and block weights, one
    value per point."""
    means, weights, lengths = [], [], []
    for value, weight in zip(y, w):
        means.append(float(value))
        weights.append(float(weight))
        lengths.append(1)
        while len(means) > 1 and means[-2] < means[-1]:
            m2, w2, l2 = means.pop(), weights.pop(), lengths.pop()
            total = weights[-1] + w2
            means[-1] = (means[-1] * weights[-1] + m2 * w2) / total
            weights[-1] = total
            lengths[-1] += l2
    return np.repeat(means, lengths), np.repeat(weights, lengths)


def band_rates(bands: Bands, labels: np.ndarray, weights: np.ndarray, prior: float = PRIOR) -> np.ndarray:
    """Each band's TP rate from a pilot: the weighted rate of its pilot candidates, shrunk towards the pilot's
    overall rate with ``prior`` pseudo-candidates, and made non-increasing from the first band to the last (pool
    adjacent violators, weighted by the pilot candidates behind each rate): a band with no pilot candidate takes its
    neighbours' rate.

    Parameters
    ----------
    bands : Bands
    labels : ndarray of bool, shape (N,)
        The labels (only the pilot's, where ``weights`` is finite, are read).
    weights : ndarray of float, shape (N,)
        The pilot's weights (:func:`pilot_weights`), NaN outside the pilot.

    Returns
    -------
    ndarray of float, shape (H,)
    """
    weights = np.asarray(weights, dtype=float)
    pilot = np.isfinite(weights) & (weights > 0)
    if not pilot.any():
        raise ParameterError("the pilot has no annotated candidate: annotate some (a random sample) or give the TP "
                             "rate of each band")
    H = bands.n_bands
    b, w = bands.band[pilot], weights[pilot]
    y = np.asarray(labels, bool)[pilot].astype(float)
    overall = float((w * y).sum() / w.sum())
    seen = np.bincount(b, minlength=H).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.bincount(b, weights=w * y, minlength=H) / np.bincount(b, weights=w, minlength=H)
    shrunk = (np.nan_to_num(rate) * seen + prior * overall) / (seen + prior)
    return _decreasing(shrunk, seen + prior)[0]


def resampled_rates(bands: Bands, labels: np.ndarray, weights: np.ndarray, resamples: int = RESAMPLES,
                    seed: int = 0) -> np.ndarray:
    """:func:`band_rates` of ``resamples`` bootstrap resamples of the pilot (its candidates drawn with
    replacement, seeded): the band rates another pilot of the same design could have shown, shape
    (resamples, H)."""
    weights = np.asarray(weights, dtype=float)
    pilot = np.flatnonzero(np.isfinite(weights) & (weights > 0))
    rng = np.random.default_rng([seed, 2])
    out = np.empty((resamples, bands.n_bands))
    for b in range(resamples):
        counts = np.bincount(rng.integers(0, pilot.size, size=pilot.size), minlength=pilot.size)
        w = np.full(weights.size, np.nan)
        w[pilot] = np.where(counts > 0, weights[pilot] * counts, np.nan)
        out[b] = band_rates(bands, labels, w)
    return out


# ----------------------------------------------------------------------------------------------- the cells
@dataclass(frozen=True)
class _Lists:
    """The cells of every (target, n): candidates N_c (L, H) and their mean probability p_c (L, H)."""

    names: list
    ns: np.ndarray
    Nc: np.ndarray
    pc: np.ndarray

    @property
    def p(self) -> np.ndarray:
        return (self.Nc * self.pc).sum(1) / self.ns


def _lists(targets: Sequence[Ranking], ns: np.ndarray, bands: Bands, rates: np.ndarray) -> _Lists:
    """The cells of every target's lists; ``rates``: each candidate's TP probability."""
    H = bands.n_bands
    names, nn, Nc, pc = [], [], [], []
    for t in targets:
        b_in_order = bands.band[t.order]
        r_in_order = rates[t.order]
        for n in ns:
            counts = np.bincount(b_in_order[:n], minlength=H)
            sums = np.bincount(b_in_order[:n], weights=r_in_order[:n], minlength=H)
            names.append(t.measure)
            nn.append(int(n))
            Nc.append(counts)
            pc.append(np.where(counts > 0, sums / np.maximum(counts, 1), 0.0))
    return _Lists(names=names, ns=np.array(nn, dtype=np.int64), Nc=np.array(Nc, dtype=np.int64),
                  pc=np.array(pc, dtype=float))


def _stacked(many: Sequence[_Lists]) -> _Lists:
    """The lists of several rate assumptions as one set of lists (an objective summed over them)."""
    return _Lists(names=[x for lists in many for x in lists.names], ns=np.concatenate([x.ns for x in many]),
                  Nc=np.concatenate([x.Nc for x in many]), pc=np.concatenate([x.pc for x in many]))


def _random_variance(p: np.ndarray, n: np.ndarray, N: int, budget: int) -> np.ndarray:
    return p * (1 - p) * np.maximum(N / (n * budget) - 1.0 / n, 1e-12)


def _variance_ratios(sizes: np.ndarray, lists: _Lists, counts: np.ndarray, N: int, budget: int) -> np.ndarray:
    """The stratified estimate's variance over a random sample's, with the cells' expected sizes."""
    s = np.maximum(sizes.astype(float), 1e-9)
    pq = lists.pc * (1 - lists.pc)
    strat = (lists.Nc * pq * np.maximum(counts[None, :] / s[None, :] - 1.0, 0.0)).sum(1) / lists.ns ** 2
    return strat / np.maximum(_random_variance(lists.p, lists.ns, N, budget), 1e-300)


def _neyman(a: np.ndarray, budget: int, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Sizes proportional to sqrt(a) within [low, high] summing to the budget (bounds met by fixing the bands that
    hit them and sharing the rest anew)."""
    root = np.sqrt(np.maximum(a, 0.0))
    sizes = np.zeros(a.size)
    free = np.ones(a.size, bool)
    for _ in range(a.size + 1):
        left = budget - sizes[~free].sum()
        weight = root[free].sum()
        sizes[free] = left * root[free] / weight if weight > 0 else left / max(free.sum(), 1)
        over, under = free & (sizes > high), free & (sizes < low)
        if not over.any() and not under.any():
            break
        sizes[over], sizes[under] = high[over], low[under]
        free &= ~(over | under)
        if not free.any():
            break
    return sizes


def _whole(sizes: np.ndarray, budget: int, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Round to whole numbers summing to the budget, within the bounds (largest remainders first)."""
    out = np.clip(np.floor(sizes), low, high).astype(np.int64)
    order = np.argsort(-(sizes - np.floor(sizes)), kind="stable")
    i = 0
    while out.sum() < budget and i < 10 * sizes.size:
        h = order[i % sizes.size]
        if out[h] < high[h]:
            out[h] += 1
        i += 1
    while out.sum() > budget:
        h = int(np.argmax(np.where(out > low, out - sizes, -np.inf)))
        out[h] -= 1
    return out


def allocate(lists: _Lists, counts: np.ndarray, budget: int, *, floor: float = FLOOR,
             target=TARGET, rounds: int = 200, head: int | None = None) -> np.ndarray:
    """The sizes per band: the allocation that minimises the sum over the lists of the logarithm of their variance
    ratio (stratified / random: every list's relative gain counts alike, at n = 100 as at n = 5,000), with the
    lists whose ratio stays above ``target`` (one for all, or one per list) weighted up, within the floor and the
    bands' sizes; with ``head``, the first band at no less than that where the budget allows.

    Notes
    -----
    With ``r_L(s) = sum_h a_Lh / s_h - c_L``, the stationary points of ``sum_L log r_L`` are Neyman allocations
    ``s_h ~ sqrt(sum_L a_Lh / r_L(s))``: the weights 1 / r_L are found by fixed-point iteration (damped), and
    multiplied by a factor that grows while a list's ratio exceeds ``target``.
    """
    N = int(counts.sum())
    low = np.minimum(counts, np.maximum(np.ceil(floor * budget * counts / N), np.minimum(counts, 2))).astype(float)
    high = counts.astype(float)
    if low.sum() > budget:  # the floor alone exceeds the budget: no floor
        low = np.minimum(counts, np.minimum(counts, 1)).astype(float)
    if head is not None and low.sum() - low[0] + head <= budget:  # the first band at no less than ``head``
        low[0] = max(low[0], float(min(head, counts[0])))
    V_rand = _random_variance(lists.p, lists.ns, N, budget)
    per_band = lists.Nc * counts[None, :] * lists.pc * (1 - lists.pc) / lists.ns[:, None] ** 2 / V_rand[:, None]
    usable = per_band.sum(1) > 0  # (a list of known candidates only, or at rate 0 or 1, asks for nothing)
    per_band = per_band[usable]
    target = np.broadcast_to(np.asarray(target, dtype=float), usable.shape)[usable]
    if not usable.any():
        return _whole(budget * counts / N, budget, low.astype(np.int64), high.astype(np.int64))
    sizes = _neyman(per_band.sum(0), budget, low, high)
    penalty = np.ones(per_band.shape[0])
    best, best_score = sizes, np.inf
    for _ in range(rounds):
        ratios = _variance_ratios(sizes, lists, counts, N, budget)[usable]
        over = np.maximum(ratios / target - 1.0, 0.0)
        score = np.log(np.maximum(ratios, RATIO_FLOOR)).sum() + 50.0 * over.sum()
        if score < best_score - 1e-9:
            best, best_score = sizes, score
        penalty = penalty * np.exp(over)
        weights = penalty / np.maximum(ratios, RATIO_FLOOR)
        new = _neyman((weights[:, None] * per_band).sum(0), budget, low, high)
        if np.max(np.abs(new - sizes)) < 1e-6 * budget:
            break
        sizes = 0.5 * sizes + 0.5 * new
    return _whole(best, budget, low.astype(np.int64), high.astype(np.int64))


# ------------------------------------------------------------------------------------- expected widths
def _stratified_widths(Nc: np.ndarray, pc: np.ndarray, band_pc: np.ndarray, counts: np.ndarray, sizes: np.ndarray,
                       n: int, level: float, interval: str, draws: int, rng: np.random.Generator) -> np.ndarray:
    """The design's interval widths for one list over ``draws`` simulated draws: each band's sample falls in the
    list's cell by the hypergeometric law, its TPs by the binomial at the cell's rate (and at the rest of the
    band's rate outside it), and the interval is the estimator's own (:func:`total_bounds`)."""
    H = counts.size
    mc = np.zeros((draws, H), np.int64)
    kc = np.zeros((draws, H), np.int64)
    kh = np.zeros((draws, H), np.int64)
    for h in range(H):
        if sizes[h] == 0:
            continue
        inside = rng.hypergeometric(int(Nc[h]), int(counts[h] - Nc[h]), int(sizes[h]), size=draws) if Nc[h] else \
            np.zeros(draws, np.int64)
        rest = counts[h] - Nc[h]
        p_rest = (band_pc[h] * counts[h] - pc[h] * Nc[h]) / rest if rest else 0.0
        mc[:, h] = inside
        kc[:, h] = rng.binomial(inside, float(np.clip(pc[h], 0, 1)))
        kh[:, h] = kc[:, h] + rng.binomial(sizes[h] - inside, float(np.clip(p_rest, 0, 1)))
    _, low, high = total_bounds(np.broadcast_to(Nc, mc.shape), mc, kc, counts, sizes, kh, confidence_level=level,
                                interval=interval)
    return (high - low) / n


def random_widths(lists: _Lists, N: int, budget: int, confidence_level: float = 0.95,
                  interval: str = "hypergeometric", draws: int = DRAWS, seed: int = 0) -> np.ndarray:
    """The median width of a random sample of ``budget`` candidates' interval (today's design) for every list, over
    ``draws`` simulated draws (the list's annotated count by the hypergeometric law, its TPs by the binomial at the
    list's rate), each exact interval computed once per distinct count (:func:`evalcore.pooling.simulation.
    count_bounds`)."""
    from .simulation import count_bounds

    rng = np.random.default_rng([seed, 1])
    p, n = lists.p, lists.ns
    m = np.stack([rng.hypergeometric(int(x), N - int(x), budget, size=draws) for x in n])
    k = rng.binomial(m, np.clip(p, 0, 1)[:, None])
    low, high = count_bounds(k, m, np.broadcast_to(n[:, None], m.shape), confidence_level, interval)
    return np.median(((high - low).reshape(m.shape)) / n[:, None], axis=1)


def expected_widths(lists: _Lists, counts: np.ndarray, sizes: np.ndarray, band_pc: np.ndarray, random: np.ndarray,
                    confidence_level: float = 0.95, interval: str = "hypergeometric", draws: int = DRAWS,
                    seed: int = 0) -> pd.DataFrame:
    """Predicted widths of the design's precision intervals for every list, against ``random`` (the random
    sample's, :func:`random_widths`): the median over ``draws`` simulated draws of the list's cells (seeded: the
    plan is the same every time)."""
    level = check_confidence_level(confidence_level)
    rng = np.random.default_rng(seed)
    rows = []
    for i, (name, n) in enumerate(zip(lists.names, lists.ns)):
        Nc, pc = lists.Nc[i], lists.pc[i]
        width = float(np.median(_stratified_widths(Nc, pc, band_pc, counts, sizes, int(n), level, interval, draws,
                                                   rng)))
        ratio = width / random[i] if random[i] > 0 else np.nan
        rows.append({"measure": name, "n": int(n), "stratified_width": width, "random_width": float(random[i]),
                     "ratio": ratio, "ratio_high": ratio, "wider": width > random[i], "may_be_wider": width > random[i],
                     "rate": float(lists.p[i])})
    return pd.DataFrame(rows, columns=list(PLAN_COLUMNS))


def _high_ratios(table: pd.DataFrame, sizes: np.ndarray, lists: _Lists, resampled: list, counts: np.ndarray,
                 budget: int) -> np.ndarray:
    """Each list's ratio at the :data:`QUANTILE` over the pilot's resamples: the predicted ratio scaled by the square
    root of the variance ratio under each resample's band rates over that under the plan's."""
    N = int(counts.sum())
    center = _variance_ratios(sizes, lists, counts, N, budget)
    scaled = [np.sqrt(_variance_ratios(sizes, other, counts, N, budget) / np.maximum(center, 1e-300))
              for other in resampled]
    return np.maximum(table["ratio"].to_numpy() * np.quantile(np.array(scaled), QUANTILE, axis=0),
                      table["ratio"].to_numpy())


# ----------------------------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class StrataPlan:
    """An allocation of a budget over the bands, and what it is expected to buy.

    Attributes
    ----------
    budget : int
    widths : tuple of int
        The bands' widths (but the rest).
    counts : tuple of int
        Each band's candidates.
    sizes : tuple of int
        The planned sample size of each band.
    band_rates : tuple of float
        The TP rate the plan assumed in each band.
    source : str
        "pilot" or "guess".
    table : DataFrame
        :data:`PLAN_COLUMNS` for every target and n: the predicted widths of the design's interval and of a random
        sample of the budget, their ratio, ``ratio_high`` (the ratio under the pilot's resamples, 80% quantile; the
        ratio itself for a guess), ``wider`` and ``may_be_wider`` (ratio, ratio_high above 1), the assumed rate.
    """

    budget: int
    widths: tuple
    counts: tuple
    sizes: tuple
    band_rates: tuple
    source: str
    table: pd.DataFrame = field(repr=False)

    @property
    def wider(self) -> pd.DataFrame:
        """The (measure, n) where the design is expected, or may be, wider than a random sample."""
        return self.table[self.table["wider"] | self.table["may_be_wider"]]

    def design(self, measures: Sequence[str], *, ties: str = "stable", tie_seed: int | None = None,
               seed: int = 0) -> StratifiedDesign:
        return StratifiedDesign.of(measures, self.widths, self.sizes, ties=ties, tie_seed=tie_seed, seed=seed)

    def warnings(self) -> list[str]:
        """One line per list where the design is expected (or, with another pilot's rates, may be) wider than a
        random sample of the budget."""
        out = []
        for r in self.wider.itertuples():
            if r.wider:
                out.append(f"{r.measure} at n = {r.n:,}: expected width {r.stratified_width:.3f}, wider than a random "
                           f"sample's {r.random_width:.3f} ({r.ratio:.2f} times)")
            else:
                out.append(f"{r.measure} at n = {r.n:,}: expected width {r.stratified_width:.3f} ({r.ratio:.2f} times a "
                           f"random sample's), but up to {r.ratio_high:.2f} times with the band rates another pilot "
                           "could have shown: it may be wider")
        return out

    def describe(self) -> str:
        bands = format_widths(self.widths)
        sizes = ", ".join(f"{s:,} of {c:,}" for s, c in zip(self.sizes, self.counts))
        ratios = self.table["ratio"]
        wider, maybe = int(self.table["wider"].sum()), int(self.table["may_be_wider"].sum())
        verdict = ("narrower than a random sample of the same budget for every list planned for" if not maybe else
                   f"wider than a random sample at {wider} of the {len(self.table)} lists planned for" if wider else
                   f"narrower for every list planned for, but possibly wider at {maybe} of them with other rates")
        return (f"With {self.budget:,} annotations over the bands {bands}: sample {sizes} (TP rates from the "
                f"{self.source}); expected widths {ratios.min():.2f} to {ratios.max():.2f} times a random sample's, "
                f"{verdict}.")


def plan_strata(strata_rankings: Sequence[Ranking], targets: Sequence[Ranking], widths: Sequence[int],
                budget: int, ns: Sequence[int], *, labels: np.ndarray | None = None,
                weights: np.ndarray | None = None, guess: Sequence[float] | float | None = None,
                floor: float = FLOOR, target: float = TARGET, confidence_level: float = 0.95,
                interval: str = "hypergeometric") -> StrataPlan:
    """The allocation of a budget over rank bands, and its expected widths against a random sample.

    Parameters
    ----------
    strata_rankings : sequence of Ranking
        The rankings whose (best) rank makes the bands (the design's measures, ties and seed).
    targets : sequence of Ranking
        The measures whose precision matters.
    widths : sequence of int
        The bands' widths, but the last (the rest).
    budget : int
        B, the annotations to spend.
    ns : sequence of int
        The list sizes that matter.
    labels, weights : ndarray, optional
        A pilot: the labels (read where ``weights`` is finite) and each pilot candidate's weight
        (:func:`pilot_weights`).
    guess : float or sequence of float, optional
        Without a pilot: the TP rate of each band (one number for all).
    floor : float
        The smallest share of the overall rate B / N any band is sampled at (0 to 1).
    target : float
        The variance ratio the allocation tries to keep every list under.

    Returns
    -------
    StrataPlan
    """
    level = check_confidence_level(confidence_level)
    targets = list(targets)
    if not targets:
        raise ParameterError("planning needs at least one measure whose precision matters")
    N = targets[0].n_candidates
    if isinstance(budget, (bool, np.bool_)) or not isinstance(budget, (int, np.integer)) or not 1 <= budget <= N:
        raise ParameterError(f"`budget` must be a whole number in 1..{N:,} (the candidates); got {budget!r}")
    ns = np.unique(np.asarray(list(ns), dtype=np.int64))
    if not ns.size or ns.min() < 1 or ns.max() > N:
        raise ParameterError(f"the list sizes n must be whole numbers in 1..{N:,}; got {ns.tolist()[:10]}")
    if not 0.0 <= floor <= 1.0:
        raise ParameterError(f"`floor` must be in [0, 1] (a share of the overall sampling rate); got {floor!r}")
    bands = Bands.of(best_rank(strata_rankings), widths)
    counts = bands.counts
    if (counts == 0).any():
        empty = int(np.argmax(counts == 0)) + 1
        raise ParameterError(f"band {empty} of {format_widths(widths)} holds no candidate; choose other widths")
    resampled = []
    if weights is not None:
        if labels is None:
            raise ParameterError("a pilot needs its labels")
        band_pc = band_rates(bands, labels, weights)
        resampled = list(resampled_rates(bands, labels, weights))
        source = "pilot"
    elif guess is not None:
        g = np.atleast_1d(np.asarray(guess, dtype=float))
        if g.size == 1:
            g = np.full(bands.n_bands, g[0])
        if g.size != bands.n_bands or not np.all((g >= 0) & (g <= 1)):
            raise ParameterError(f"give one TP rate in [0, 1] per band ({bands.n_bands}) or one for all; got "
                                 f"{', '.join(f'{x:g}' for x in g)}")
        band_pc = g
        source = "guess"
    else:
        raise ParameterError("give a pilot (annotated candidates) or a guess of the TP rate of each band")
    lists = _lists(targets, ns, bands, band_pc[bands.band])
    others = [_lists(targets, ns, bands, rates[bands.band]) for rates in resampled]
    random = random_widths(lists, N, int(budget), level, interval)
    goal = np.full(len(lists.ns), float(target))
    head = None  # the bands' measures' lists within the first band: their ratio is (N_1 / s_1 - 1) / (N / B - 1)
    if np.isin(lists.names, [r.measure for r in strata_rankings]).any() and ns.min() <= counts[0] and budget < N:
        head = min(int(counts[0]), int(np.ceil(counts[0] / (1 + HEAD_TARGET * (N / budget - 1)))))
    best = None
    for _ in range(ROUNDS):  # where a list may be wider than the random sample, ask less of its variance
        if others:  # every rate another pilot could have shown counts alike with the pilot's own
            sizes = allocate(_stacked([lists, *others]), counts, int(budget), floor=floor,
                             target=np.tile(goal, 1 + len(others)), head=head)
        else:
            sizes = allocate(lists, counts, int(budget), floor=floor, target=goal, head=head)
        table = expected_widths(lists, counts, sizes, band_pc, random, level, interval)
        if others:
            high = _high_ratios(table, sizes, lists, others, counts, int(budget))
            table = table.assign(ratio_high=high, may_be_wider=high > 1)
        high = table["ratio_high"].to_numpy()
        score = (int((high > 1 - MARGIN).sum()), int(table["wider"].sum()), float(np.nanmax(high)))
        if best is None or score < best[0]:
            best = (score, sizes, table)
        if score[0] == 0:
            break
        goal = np.where(high > 1 - MARGIN, goal * ((1 - MARGIN) / high) ** 2, goal)
    _, sizes, table = best
    assumed = tuple(float(x) for x in band_pc)
    return StrataPlan(budget=int(budget), widths=tuple(int(w) for w in widths), counts=tuple(int(c) for c in counts),
                      sizes=tuple(int(s) for s in sizes), band_rates=assumed, source=source, table=table)
