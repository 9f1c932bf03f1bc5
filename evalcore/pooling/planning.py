"""Planning a pooled design: the depth K and sample size m that spend a budget of annotations best at one n.

For a budget of B annotations and a pool of chosen measures, every depth K gives a pool of exactly ``P(K)``
candidates (the union of the top-K lists, counted from the data: :func:`~evalcore.pooling.pool_sizes`) and leaves
``m = B - P(K)`` for the random sample of the other ``N - P(K)``; K = 0 is a random sample of B from the whole set.
At the list size n the user cares about, a target measure's n-best list has ``a(K)`` candidates in the pool and
``r = n - a(K)`` outside it; its precision interval is ``(pooled TPs + [D_L, D_U]) / n`` with ``[D_L, D_U]`` the
exact interval of the sampled stratum (:func:`~evalcore.pooling.pooled_precision`), so its expected width is

    E[(D_U - D_L) / n],   m_r ~ Hypergeometric(N - P(K), r, m),   k | m_r ~ Binomial(m_r, p),

summed over both (outcomes below 1e-6 of the likeliest left out). p is the TP rate of the list's part outside the
pool: from the annotations made so far (a pilot), or the baseline guess when there are none. The plan is the K whose
largest expected width over the target measures is smallest.

A pilot is read with its own design's estimator (:class:`PilotStrata`): its candidates fall into strata annotated
whole (a pool), sampled at random (a sample of the rest, or of the whole set) or not at all. The part of the list
outside the planned pool holds ``c_s`` candidates of stratum s, ``a_s`` of them annotated with ``t_s`` TPs; its TP
rate is ``sum_s c_s p_s / sum_s c_s`` with ``p_s = t_s / a_s`` where the stratum is annotated whole there,
``p_s = (t_s + 2 p0) / (a_s + 2)`` where it is sampled (a Beta prior of weight 2 centred on p0), and ``p_s = p0``
where nothing of it was drawn. p0 is the guess, else the design's estimate of the baseline (each stratum's rate
weighted by its size). Counting a pool's candidates as if they were sampled would plan with the pool's TP rate,
far above the rest's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from ..errors import ParameterError
from ..ranking import Ranking
from ..stats.intervals import check_confidence_level
from .design import best_ranks, pool_sizes
from ..estimates import _guess_bounds
from .simulation import count_bounds

PRIOR_WEIGHT = 2.0  # the pilot's rate in the list's rest is shrunk towards its overall rate with this weight
_TAIL = 1e-6


@dataclass(frozen=True)
class Plan:
    """The design a budget affords best, and the table of every depth considered.

    Attributes
    ----------
    budget, n : int
        The budget B and the list size of interest.
    depth, pool_size, sample_size : int
        The chosen K (0: a random sample of the whole set), its pool P(K) and m = B - P(K).
    width : float
        The chosen design's objective: the largest expected width over the targets.
    widths : dict
        The chosen design's expected width for each target measure.
    table : DataFrame
        ``depth, pool_size, sample_size, width_<measure>..., objective`` for each K considered.
    rates : dict
        The TP rate assumed outside the pool (at the chosen K) per target, and where it came from.
    source : str
        "pilot" or "guess".
    """

    budget: int
    n: int
    depth: int
    pool_size: int
    sample_size: int
    width: float
    widths: dict
    table: pd.DataFrame
    rates: dict
    source: str

    def describe(self) -> str:
        what = ("a random sample of the whole set" if self.depth == 0 else
                f"a pool of the top {self.depth:,} ({self.pool_size:,} candidates) and a random sample of "
                f"{self.sample_size:,} of the rest")
        return (f"With {self.budget:,} annotations, {what} gives the narrowest intervals at n = {self.n:,}: expected "
                f"width at most {self.width:.3f} (p outside the pool from the {self.source}).")


def _support(pmf: np.ndarray) -> np.ndarray:
    return pmf > _TAIL * pmf.max() if pmf.size and pmf.max() > 0 else pmf > 0


def expected_rest_width(rest: int, outside: int, m: int, p: float, n: int, confidence_level: float = 0.95,
                        interval: str = "hypergeometric") -> float:
    """E[width] of the n-best list's interval from the sampled stratum alone: the list's ``rest`` candidates lie
    among the ``outside`` candidates outside the pool, m of which are sampled, at TP rate p (see the module's
    notes). Exact: every interval is the one the estimates would show."""
    return float(_expected_widths([(rest, outside, m, p)], n, confidence_level, interval)[0])


def _log_choose(a, b):
    return special.gammaln(a + 1.0) - special.gammaln(b + 1.0) - special.gammaln(a - b + 1.0)


def _hypergeom_pmf(x: np.ndarray, total: int, marked: int, drawn: int) -> np.ndarray:
    """P(X = x) for X ~ Hypergeometric(total, marked, drawn), by log binomial coefficients (scipy's is slow on
    long supports)."""
    x = np.asarray(x, dtype=float)
    return np.exp(_log_choose(marked, x) + _log_choose(total - marked, drawn - x) - _log_choose(total, drawn))


def _approximate_bounds(k, m, size, level: float, interval: str):
    """Clopper-Pearson bounds pulled in by the finite population correction, as counts: within a few percent of
    the exact hypergeometric bounds and never narrower (used to scan many depths; the plan's width is exact)."""
    tail = (1.0 - level) / 2
    low, high = _guess_bounds(k, m, size, tail) if interval == "hypergeometric" else (None, None)
    if low is None:
        return count_bounds(k, m, size, level, interval)
    return np.maximum(low, k).astype(float), np.minimum(high, size - (m - k)).astype(float)


def _expected_widths(cases: Sequence[tuple[int, int, int, float]], n: int, level: float, interval: str,
                     exact: bool = True) -> np.ndarray:
    """Expected widths for many (rest, outside, m, p) at once; exact bounds are computed once per distinct
    triple."""
    ks, ms, rs, ws, owner = [], [], [], [], []
    out = np.zeros(len(cases))
    for i, (rest, outside, m, p) in enumerate(cases):
        if rest == 0:
            continue
        if m == 0 or outside == 0:
            out[i] = rest / n
            continue
        mr = np.arange(max(0, m - (outside - rest)), min(m, rest) + 1)
        pm = _hypergeom_pmf(mr, outside, rest, m)
        keep = _support(pm)
        mr, pm = mr[keep], pm[keep] / pm[keep].sum()
        k = np.arange(int(mr.max()) + 1)
        pk = stats.binom.pmf(k[None, :], mr[:, None], p)  # rows: m_r; columns: k (0 beyond m_r)
        pk = np.where(pk > _TAIL * pk.max(axis=1, keepdims=True), pk, 0.0)
        pk /= pk.sum(axis=1, keepdims=True)
        row, col = np.nonzero(pk)
        ks.append(k[col])
        ms.append(mr[row])
        rs.append(np.full(row.size, rest))
        ws.append(pm[row] * pk[row, col])
        owner.append(np.full(row.size, i))
    if ks:
        k, m, r, w, o = (np.concatenate(x) for x in (ks, ms, rs, ws, owner))
        low, high = count_bounds(k, m, r, level, interval) if exact else _approximate_bounds(k, m, r, level,
                                                                                               interval)
        np.add.at(out, o, w * (high - low) / n)
    return out


def _in_pool_counts(target: Ranking, best: np.ndarray, n: int, depths: np.ndarray) -> np.ndarray:
    """a(K): candidates of the target's n-best list whose best pool rank is <= K, for each K."""
    b = np.sort(best[target.order[:n]])
    return np.searchsorted(b, depths, side="right").astype(np.int64)


STRATUM_KINDS = {
    "complete": "annotated whole (a pool): its TP rate is known where all of it is annotated",
    "sampled": "a simple random sample of it is annotated: its TP rate is estimated from the sample",
    "unknown": "nothing of it was drawn: its labels, if any, are not used, and its TP rate is the guess",
}


@dataclass(frozen=True, eq=False)
class PilotStrata:
    """How a pilot's annotated candidates were drawn: each candidate's stratum, and how each stratum was annotated.

    Attributes
    ----------
    stratum : ndarray of int
        The stratum of each candidate (0, 1, ...).
    kinds : tuple of str
        For each stratum, one of :data:`STRATUM_KINDS`.
    design : str
        The pilot's design in words (for notes).
    """

    stratum: np.ndarray
    kinds: tuple[str, ...]
    design: str = "a simple random sample of the whole candidate set"

    @classmethod
    def whole_sample(cls, n_candidates: int) -> "PilotStrata":
        """A simple random sample of the whole set (a plain file's annotations, by default)."""
        return cls(np.zeros(int(n_candidates), np.int64), ("sampled",))

    @classmethod
    def of(cls, design, candidates, rankings: Mapping[str, Ranking] | None = None) -> "PilotStrata":
        """The strata of a :class:`~evalcore.pooling.Design` over the pilot's candidates: a ``sample`` of the whole
        set is one sampled stratum, of a top-K frame the frame sampled and the rest unknown; a ``pool`` is its pool
        complete and the rest unknown; ``pool+sample`` its pool complete and the rest sampled. (A design read from
        an export: :func:`evalcore.pooling.exported.design_of_export`.)"""
        n = candidates.n_candidates
        if design.pooled:
            inside = design.pool_mask(candidates, rankings)
            kinds = ("complete", "sampled" if design.rest_sampled else "unknown")
        else:
            inside = design.frame_mask(candidates, rankings)
            if inside is None:
                return cls(np.zeros(n, np.int64), ("sampled",), design.describe())
            kinds = ("sampled", "unknown")
        return cls(np.where(inside, 0, 1).astype(np.int64), kinds, design.describe())

    def baseline(self, ranking: Ranking) -> float | None:
        """The design's estimate of the TP rate of the whole set (each stratum's annotated rate weighted by its
        size); None where a stratum with candidates has none annotated or was not drawn."""
        annotated, tp = _annotated(ranking, ranking.n_candidates)
        where = self.stratum[ranking.order]
        total = 0.0
        for s, kind in enumerate(self.kinds):
            size = int((where == s).sum())
            if not size:
                continue
            a, t = int((annotated & (where == s)).sum()), int((tp & (where == s)).sum())
            if kind == "unknown" or a == 0:
                return None
            total += size * t / a
        return total / ranking.n_candidates


def _annotated(target: Ranking, n: int) -> tuple[np.ndarray, np.ndarray]:
    """For ranks 1..n of the target: annotated (TP or FP), and annotated TP."""
    annotated = np.ones(n, bool)
    if target.annotated_ranks is not None:
        annotated[:] = False
        ranks = np.asarray(target.annotated_ranks)
        annotated[ranks[ranks <= n] - 1] = True
    return annotated, (np.diff(target.tp[:n + 1]) > 0) & annotated


def _beyond(values: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """How many of ``values`` exceed each depth."""
    return values.size - np.searchsorted(np.sort(values), depths, side="right")


def _pilot_rates(target: Ranking, best: np.ndarray, n: int, depths: np.ndarray, p0: float,
                 strata: PilotStrata | None = None) -> np.ndarray:
    """The pilot's TP rate of the target's n-best list outside the pool of each depth, by the pilot's design's
    estimator (see the module's notes; ``strata`` None: a simple random sample of the whole set)."""
    if strata is None:
        strata = PilotStrata.whole_sample(target.n_candidates)
    annotated, tp = _annotated(target, n)
    top = target.order[:n]
    b, where = best[top], strata.stratum[top]
    tps, size = np.zeros(depths.size), np.zeros(depths.size)
    for s, kind in enumerate(strata.kinds):
        here = where == s
        c = _beyond(b[here], depths)
        if kind == "unknown":
            rate = np.full(depths.size, p0)
        else:
            a, t = _beyond(b[here & annotated], depths), _beyond(b[here & tp], depths)
            with np.errstate(invalid="ignore", divide="ignore"):
                rate = np.where((kind == "complete") & (a == c) & (c > 0), t / np.maximum(a, 1),
                                (t + PRIOR_WEIGHT * p0) / (a + PRIOR_WEIGHT))
        tps += c * rate
        size += c
    return np.where(size > 0, tps / np.maximum(size, 1), p0)


def plan_pool(pool_rankings: Sequence[Ranking], targets: Mapping[str, Ranking] | Sequence[Ranking], budget: int,
              n: int, *, guess: float | None = None, pilot: bool = False, confidence_level: float = 0.95,
              interval: str = "hypergeometric", depths: Sequence[int] | None = None, grid: int = 40,
              finalists: int = 1, strata: PilotStrata | None = None) -> Plan:
    """The depth K and sample size m that minimise the largest expected interval width at n over the targets.

    Parameters
    ----------
    pool_rankings : sequence of Ranking
        Rankings of the pool's measures, with the design's tie policy (they define the top-K lists).
    targets : mapping or sequence of Ranking
        The measures whose precision at n matters (often the pool's). Rankings of a partly annotated set make a
        pilot of the annotations so far (with ``pilot=True``).
    budget : int
        B, the annotations to spend (at least 1).
    n : int
        The list size of interest.
    guess : float, optional
        The TP rate assumed where the pilot says nothing (the baseline, if known); required without a pilot.
    pilot : bool
        Use the targets' annotated candidates as a pilot.
    strata : PilotStrata, optional
        How the pilot was drawn (:meth:`PilotStrata.of` its design): its rates are estimated by that design's
        estimator. Default: a simple random sample of the whole set.
    confidence_level, interval
        Of the intervals planned for.
    depths : sequence of int, optional
        The depths to consider (default: ``grid`` depths evenly from 0 to the deepest pool within the budget,
        and every depth around the best of them), each scanned with bounds a few percent wider than the exact
        ones; the ``finalists`` best of them then get their exact expected widths, and the plan is the best of
        those (the table's ``exact`` column says which rows are exact).

    Returns
    -------
    Plan
    """
    level = check_confidence_level(confidence_level)
    targets = list(targets.values()) if isinstance(targets, Mapping) else list(targets)
    if not targets:
        raise ParameterError("planning needs at least one target measure")
    n_total = targets[0].n_candidates
    if not isinstance(budget, (int, np.integer)) or not 1 <= budget <= n_total:
        raise ParameterError(f"`budget` must be a whole number in 1..{n_total:,} (the candidates); got {budget!r}")
    if not isinstance(n, (int, np.integer)) or not 1 <= n <= n_total:
        raise ParameterError(f"`n` must be a whole number in 1..{n_total:,}; got {n!r}")
    annotated = [r for r in targets if r.annotated_ranks is None or r.annotated_ranks.size]
    use_pilot = pilot and bool(annotated)
    if use_pilot:
        if strata is not None and strata.stratum.shape != (n_total,):
            raise ParameterError(f"`strata` must give a stratum for each of the {n_total:,} candidates; got "
                                 f"{strata.stratum.shape}")
        p0 = guess if guess is not None else (strata or PilotStrata.whole_sample(n_total)).baseline(targets[0])
        if p0 is None:
            raise ParameterError(f"the pilot's design ({strata.design}) says nothing of the TP rate of the "
                                 "candidates it did not draw from: give `guess`, the TP rate to assume there")
    else:
        if guess is None:
            raise ParameterError("without annotations to learn from (a pilot), give `guess`, the TP rate to assume "
                                 "(e.g. the expected baseline)")
        p0 = guess
    if not 0.0 <= p0 <= 1.0:
        raise ParameterError(f"`guess` must be a TP rate in [0, 1]; got {p0!r}")
    best = best_ranks(pool_rankings)
    sizes = pool_sizes(pool_rankings)
    deepest = int(np.searchsorted(sizes, budget, side="right") - 1)

    def evaluate(ks: np.ndarray, exact: bool) -> pd.DataFrame:
        ks = np.unique(np.clip(ks, 0, deepest))
        cols = {"depth": ks, "pool_size": sizes[ks], "sample_size": budget - sizes[ks]}
        rates = {}
        for t in targets:
            a = _in_pool_counts(t, best, n, ks)
            p = _pilot_rates(t, best, n, ks, p0, strata) if use_pilot else np.full(ks.size, p0)
            rates[t.measure] = p
            cases = [(int(n - ai), int(n_total - s), int(budget - s), float(pi))
                     for ai, s, pi in zip(a, sizes[ks], p)]
            cols[f"width_{t.measure}"] = _expected_widths(cases, n, level, interval, exact)
        table = pd.DataFrame(cols)
        table["objective"] = table[[f"width_{t.measure}" for t in targets]].max(axis=1)
        for t in targets:
            table[f"rate_{t.measure}"] = rates[t.measure]
        return table

    if depths is not None:
        table = evaluate(np.asarray(depths, dtype=np.int64), exact=False)
    else:
        coarse = np.unique(np.round(np.linspace(0, deepest, min(grid, deepest + 1))).astype(np.int64))
        if n <= deepest:
            coarse = np.union1d(coarse, [n])
        table = evaluate(coarse, exact=False)
        i = int(table["objective"].to_numpy().argmin())
        lo = int(table["depth"].iloc[max(i - 1, 0)])
        hi = int(table["depth"].iloc[min(i + 1, len(table) - 1)])
        fine = evaluate(np.arange(lo, hi + 1), exact=False)
        table = pd.concat([table, fine]).drop_duplicates("depth").sort_values("depth", ignore_index=True)
    table["exact"] = False
    # the best by the scan get their exact expected widths
    shortlist = table.nsmallest(min(finalists, len(table)), "objective")["depth"].to_numpy()
    exact = evaluate(shortlist, exact=True).assign(exact=True)
    table = pd.concat([table[~table["depth"].isin(exact["depth"])], exact]).sort_values("depth", ignore_index=True)
    candidates = table[table["exact"]]
    row = candidates.iloc[int(candidates["objective"].to_numpy().argmin())]
    widths = {t.measure: float(row[f"width_{t.measure}"]) for t in targets}
    rates = {t.measure: float(row[f"rate_{t.measure}"]) for t in targets}
    return Plan(budget=int(budget), n=int(n), depth=int(row["depth"]), pool_size=int(row["pool_size"]),
                sample_size=int(row["sample_size"]), width=float(row["objective"]), widths=widths,
                table=table, rates=rates, source="pilot" if use_pilot else "guess")
