"""How a stratified design behaves over many seeds: coverage and width of its intervals, against a random sample.

:func:`stratified_simulation` draws the design with many seeds exactly as :func:`~evalcore.pooling.stratified.
draw_stratified` draws it, and beside it a simple random sample of the same budget (today's design,
:func:`evalcore.estimates.draw_sample`); for every seed, measure and list size it counts the cells each draw leaves
and computes the intervals with the estimators' own functions (:mod:`.stratified_estimators`): precision, recall
and the difference of two measures' regions, and whether they cover the full data's values. The random sample's
interval is today's exact hypergeometric one. Everything is vectorised over the seeds (one array of draws x
annotated candidates), so 2,000 seeds of Krenn's 5,102 candidates take seconds.

:func:`exchangeable_rejections` measures the level of the design-based test: two measures that are the same signal
plus fresh noise each repetition, a stratified design by one of them, the rejection rate at every n.

:func:`declining_set` is the generated candidate set of the checks: a TP rate falling from about 40% at the top of
the latent order to 5% at the bottom, and measures that see the order through more or less noise.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..estimates import draw_sample
from ..ranking import Ranking
from ..stats.intervals import check_confidence_level
from .estimators import DIFFERENCE_METHODS
from .simulation import count_bounds
from .stratified import Bands, StratifiedDesign, draw_stratified
from .stratified_estimators import cell_totals, difference_bounds, mover_share, score_test, total_bounds

SUMMARY_COLUMNS = ("what", "measure", "n", "design", "seeds", "coverage", "mean_width", "median_width")
DECLINING_MEASURES = {"sharp": 0.35, "good": 0.7, "fair": 1.0, "weak": 2.0}  # noise sd around the latent score


def declining_set(n: int = 5000, top: float = 0.40, bottom: float = 0.05, seed: int = 33) -> CandidateSet:
    """A generated candidate set whose TP rate falls from ``top`` at the head of a latent order to ``bottom`` at
    its tail.

    The latent score of the candidate at quantile q (0 best) is ``-Phi^-1(q)``; its TP probability
    ``bottom + (top - bottom) (1 - q)^2``; the measures ``sharp, good, fair, weak`` are the latent score plus normal
    noise of sd 0.35, 0.7, 1 and 2, and ``rounded`` is ``fair`` rounded to one decimal (ties). Deterministic in
    ``seed``.
    """
    from scipy import special

    rng = np.random.default_rng(seed)
    q = (np.arange(n) + 0.5) / n
    latent = -special.ndtri(q)
    p = bottom + (top - bottom) * (1 - q) ** 2
    labels = rng.random(n) < p
    scores = {name: latent + rng.normal(scale=sd, size=n) for name, sd in DECLINING_MEASURES.items()}
    scores["rounded"] = np.round(scores["fair"], 1)
    perm = rng.permutation(n)  # no information in the file order
    return CandidateSet(labels=labels[perm], scores={k: v[perm] for k, v in scores.items()},
                        directions={k: "higher" for k in scores}, source="declining set")


# ------------------------------------------------------------------------------------------ draws
def _draws(design: StratifiedDesign, bands: Bands, seeds: Sequence[int]) -> np.ndarray:
    """(seeds, annotated) candidate indices of the design's draw at each seed."""
    out = np.empty((len(seeds), design.size), dtype=np.int64)
    for i, s in enumerate(seeds):
        d = StratifiedDesign(frame=design.frame, widths=design.widths, sizes=design.sizes, seed=int(s))
        out[i] = draw_stratified(d, bands)
    return out


def _cells(ranks: np.ndarray, n: int, band_s: np.ndarray, lab_s: np.ndarray, H: int):
    """m_c and k_c (seeds, H) of the n-best list from the sampled candidates' ranks (seeds, B)."""
    inside = ranks <= n
    m = np.stack([(inside & (band_s == h)).sum(1) for h in range(H)], axis=1)
    k = np.stack([(inside & (band_s == h) & lab_s).sum(1) for h in range(H)], axis=1)
    return m, k


def stratified_simulation(labels: np.ndarray, rankings: Mapping[str, Ranking] | Iterable[Ranking],
                          design: StratifiedDesign, bands: Bands, seeds: Iterable[int], sizes, *,
                          random_size: int | None = None, pairs: Sequence[tuple[str, str]] = (),
                          confidence_level: float = 0.95, interval: str = "hypergeometric",
                          difference_method: str = "newcombe", recall: bool = True,
                          methods: Sequence[str] = ("korn_graubard",)) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Coverage and width of a stratified design's intervals over many seeds, against a random sample.

    Parameters
    ----------
    labels : ndarray of bool, shape (N,)
        The true labels (the simulation hides all but the design's).
    rankings : mapping or iterable of Ranking
        Rankings of the fully labelled set, one per measure.
    design : StratifiedDesign
        The design (its seed is replaced by each of ``seeds``).
    bands : Bands
        Its bands over the candidates (:meth:`StratifiedDesign.bands`).
    seeds : iterable of int
    sizes : array_like of int
        The list sizes n.
    random_size : int, optional
        The random sample's size (default: the design's).
    pairs : sequence of (str, str)
        Pairs of measures whose difference interval (``difference_method`` on the effective counts) is checked
        against the full data's difference of the regions' TP rates.
    confidence_level, interval
        As :func:`evalcore.pooling.stratified_estimators.stratified_precision`.
    recall : bool
        Also recall (MOVER-R), against the full data's recall.
    methods : sequence of str
        Intervals of a proportion at the effective sample size
        (:data:`~evalcore.pooling.stratified_estimators.PROPORTION_INTERVALS`): the first is the design's
        ("stratified"), the others are reported as "stratified:<name>" for precision, to compare them.

    Returns
    -------
    summary : DataFrame
        :data:`SUMMARY_COLUMNS`: per ``what`` ("precision", "recall", "difference"), measure (or pair "A|B"), n
        and design ("stratified", "random"; the random sample and the other ``methods`` for precision only).
    per_seed : DataFrame
        ``what, measure, n, seed, design, width, covers`` for every seed.
    """
    level = check_confidence_level(confidence_level)
    rankings = list(rankings.values()) if isinstance(rankings, Mapping) else list(rankings)
    by_name = {r.measure: r for r in rankings}
    labels = np.asarray(labels, dtype=bool)
    N = labels.size
    seeds = [int(s) for s in seeds]
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.int64))
    if sizes.min() < 1 or sizes.max() > N:
        raise ParameterError(f"`sizes` must be in 1..{N:,}")
    if difference_method not in DIFFERENCE_METHODS:
        raise ParameterError(f"`difference_method` must be one of {', '.join(DIFFERENCE_METHODS)}")
    H = bands.n_bands
    Nh = bands.counts
    idx = _draws(design, bands, seeds)
    band_s, lab_s = bands.band[idx], labels[idx]
    mh = np.stack([(band_s == h).sum(1) for h in range(H)], axis=1)
    kh = np.stack([((band_s == h) & lab_s).sum(1) for h in range(H)], axis=1)
    budget = design.size if random_size is None else int(random_size)
    ridx = np.stack([draw_sample(N, budget, s) for s in seeds])
    rlab = labels[ridx]
    total_tp = int(labels.sum())
    tol = 1e-9
    rows, per_seed = [], []

    def record(what, name, n, design_name, covers, width):
        rows.append({"what": what, "measure": name, "n": int(n), "design": design_name, "seeds": len(seeds),
                     "coverage": float(np.mean(covers)), "mean_width": float(np.mean(width)),
                     "median_width": float(np.median(width))})
        per_seed.append(pd.DataFrame({"what": what, "measure": name, "n": int(n), "seed": seeds,
                                      "design": design_name, "width": width, "covers": covers}))

    for r in rankings:
        truth = np.concatenate([[0], np.cumsum(labels[r.order])])
        ranks_s = r.ranks[idx]
        rranks = r.ranks[ridx]
        band_in_order = bands.band[r.order]
        for n in sizes:
            Nc = np.bincount(band_in_order[:n], minlength=H)
            mc, kc = _cells(ranks_s, n, band_s, lab_s, H)
            NcD = np.broadcast_to(Nc, mc.shape)
            found, low, high = total_bounds(NcD, mc, kc, Nh, mh, kh, confidence_level=level, interval=interval,
                                            method=methods[0])
            tp = truth[n]
            record("precision", r.measure, n, "stratified", (low <= tp + tol) & (tp <= high + tol),
                   (high - low) / n)
            for other in methods[1:]:
                _, lo2, hi2 = total_bounds(NcD, mc, kc, Nh, mh, kh, confidence_level=level, interval=interval,
                                           method=other)
                record("precision", r.measure, n, f"stratified:{other}", (lo2 <= tp + tol) & (tp <= hi2 + tol),
                       (hi2 - lo2) / n)
            inside = rranks <= n
            m, k = inside.sum(1), (inside & rlab).sum(1)
            rl, rh = count_bounds(k, m, n, level, interval)
            record("precision", r.measure, n, "random", (rl <= tp + tol) & (tp <= rh + tol), (rh - rl) / n)
            if recall:
                outside, l2, u2 = total_bounds(Nh - NcD, mh - mc, kh - kc, Nh, mh, kh, confidence_level=level,
                                               method=methods[0])
                lo, hi = mover_share(found.total, low, high, outside.total, l2, u2)
                known = (found.regime == 0) & (outside.regime == 0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    point = found.total / (found.total + outside.total)
                lo, hi = np.where(known, point, lo), np.where(known, point, hi)
                rec = tp / total_tp
                record("recall", r.measure, n, "stratified", (lo <= rec + tol) & (rec <= hi + tol), hi - lo)
    for a_name, b_name in pairs:
        a, b = by_name[a_name], by_name[b_name]
        ra_s, rb_s = a.ranks[idx], b.ranks[idx]
        for n in sizes:
            d1_all = (a.ranks <= n) & (b.ranks > n)
            d2_all = (b.ranks <= n) & (a.ranks > n)
            d = int(d1_all.sum())
            if d == 0:
                continue
            truth = labels[d1_all].mean() - labels[d2_all].mean()
            counts = []
            for region, in_s in ((d1_all, (ra_s <= n) & (rb_s > n)), (d2_all, (rb_s <= n) & (ra_s > n))):
                Nc = np.broadcast_to(np.bincount(bands.band[region], minlength=H), mh.shape)
                mc = np.stack([(in_s & (band_s == h)).sum(1) for h in range(H)], axis=1)
                kc = np.stack([(in_s & (band_s == h) & lab_s).sum(1) for h in range(H)], axis=1)
                _, low, high = total_bounds(Nc, mc, kc, Nh, mh, kh, confidence_level=level)
                counts.append((cell_totals(Nc, mc, kc, Nh, mh, kh, finite=False), low / d, high / d))
            (c1, l1, u1), (c2, l2, u2) = counts
            e1, e2 = c1.estimate, c2.estimate
            lo, hi = difference_bounds(e1, c1.effective, e2, c2.effective, l1, u1, l2, u2, level, difference_method,
                                       size=d)
            record("difference", f"{a_name}|{b_name}", n, "stratified",
                   (lo <= truth + tol) & (truth <= hi + tol), hi - lo)
    return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS)), pd.concat(per_seed, ignore_index=True)


def width_ratios(per_seed: pd.DataFrame) -> pd.DataFrame:
    """Per measure and n (precision): the stratified design's median width, the random sample's, their ratio."""
    p = per_seed[(per_seed["what"] == "precision") & per_seed["design"].isin(["stratified", "random"])]
    out = p.pivot_table(index=["measure", "n"], columns="design", values="width", aggfunc="median", sort=False)
    out = out.rename(columns={"stratified": "stratified_median", "random": "random_median"}).reset_index()
    out.columns.name = None
    out["ratio"] = out["stratified_median"] / out["random_median"]
    return out


# ------------------------------------------------------------------------------------- the test's level
def exchangeable_rejections(labels: np.ndarray, signal: np.ndarray, widths: Sequence[int], sizes_per_band,
                            reps: int, sizes, *, seed: int = 0, noise: float = 1.0, by: str = "A",
                            confidence_level: float = 0.95) -> pd.DataFrame:
    """The design-based test's rejection rate for two exchangeable measures.

    In each repetition, measures A and B are ``signal`` plus fresh normal noise of sd ``noise`` each (so neither
    is better: their difference regions have the same expected TP rate), the bands are cut by A's ranks (``by``
    "A") or B's, each band is sampled at its size, and :func:`score_test` on the regions' effective counts is run at
    every n (as :func:`evalcore.pooling.stratified_estimators.stratified_compare` computes it, from the same
    cells).

    Returns
    -------
    DataFrame
        ``n, rejection, exact`` (the share of repetitions whose regions were annotated whole) and ``reps``.
    """
    level = check_confidence_level(confidence_level)
    labels = np.asarray(labels, dtype=bool)
    N = labels.size
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.int64))
    widths = tuple(int(w) for w in widths)
    band_sizes = tuple(int(s) for s in sizes_per_band)
    H = len(widths) + 1
    rng = np.random.default_rng(seed)
    rejected = np.zeros(sizes.size)
    exact = np.zeros(sizes.size)
    edges = np.cumsum(widths)
    for rep in range(reps):
        sa = signal + rng.normal(scale=noise, size=N)
        sb = signal + rng.normal(scale=noise, size=N)
        ra = np.empty(N, np.int64)
        ra[np.argsort(-sa, kind="stable")] = np.arange(1, N + 1)
        rb = np.empty(N, np.int64)
        rb[np.argsort(-sb, kind="stable")] = np.arange(1, N + 1)
        band = np.searchsorted(edges, ra if by == "A" else rb, side="left")
        Nh = np.bincount(band, minlength=H)
        picked = np.concatenate([rng.permutation(np.flatnonzero(band == h))[:band_sizes[h]] for h in range(H)])
        sampled = np.zeros(N, bool)
        sampled[picked] = True
        mh = np.bincount(band[sampled], minlength=H)
        kh = np.bincount(band[sampled & labels], minlength=H)
        regions = []
        for first, second in ((ra, rb), (rb, ra)):
            inside = (first[None, :] <= sizes[:, None]) & (second[None, :] > sizes[:, None])  # (sizes, N)
            Nc = np.stack([(inside & (band == h)).sum(1) for h in range(H)], axis=1)
            mc = np.stack([(inside & (band == h) & sampled).sum(1) for h in range(H)], axis=1)
            kc = np.stack([(inside & (band == h) & sampled & labels).sum(1) for h in range(H)], axis=1)
            regions.append(cell_totals(Nc, mc, kc, Nh, mh, kh, finite=False))
        c1, c2 = regions
        _, p, _ = score_test(c1.estimate, c1.effective, c2.estimate, c2.effective)
        rejected += np.where(c1.size > 0, p < 1 - level, False)
        exact += (c1.regime == 0) & (c2.regime == 0)
    return pd.DataFrame({"n": sizes, "rejection": rejected / reps, "exact": exact / reps, "reps": reps})
