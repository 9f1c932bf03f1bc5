"""What each dashboard page shows, computed from a candidate set and view settings.

The pages only draw what these functions return; each function is pure, so the
dashboard can cache it on (dataset id, settings) and the command line and notebooks can
call it too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import uir
from .stats import sampletests
from .candidates import CandidateSet
from .compare import compare_rankings, compare_sets, pair_test, significant_up_to
from .curves import acceptance_sets, checked_curve, level_free_curve, precision_curve, with_interval
from .stats.intervals import binomial_interval, check_confidence_level
from .stats.effect import EFFECT_COLUMNS, effect_sizes
from .stats.fisher import fisher_exact
from .stats.multitest import CORRECTIONS, adjust_pvalues, check_correction
from .stats.pairtests import mcnemar_exact, pearson_chi2_independent
from .stats.power import POWER_TESTS, detectable_differences
from .errors import ColumnError, ParameterError
from .format import p_value as p_value_text
from .nspec import grid_sizes
from .ranking import Ranking, rank
from .samples import Cut, per_sample


def data_summary(candidates: CandidateSet, rankings: dict[str, Ranking], n_range: tuple[int, int]) -> pd.DataFrame:
    """One row per measure: direction, ties, non-finite scores, cut-offs in ``n_range`` that split a tie."""
    low, high = n_range
    sizes = np.arange(low, high + 1)
    rows = []
    for measure, ranking in rankings.items():
        summary = ranking.tie_summary()
        straddled = sizes[ranking.straddles(sizes)]
        rows.append({
            "measure": measure,
            "better": "lower" if candidates.directions[measure] == "lower" else "higher",
            "tie groups": summary["tie_groups"],
            "tied candidates": summary["tied_candidates"],
            "largest tie": summary["largest_group"],
            "missing/infinite": summary["nonfinite"],
            f"cut-offs in {low:,}..{high:,} inside a tie": int(straddled.size),
            "first such n": ", ".join(f"{n:,}" for n in straddled[:5]) + (" ..." if straddled.size > 5 else ""),
        })
    return pd.DataFrame(rows)


def curves(rankings: dict[str, Ranking], n=None, *, confidence_level: float = 0.95,
           interval: str = "clopper_pearson", beta: float = 1.0) -> pd.DataFrame:
    """n-best curves with intervals of several measures, concatenated (see :func:`precision_curve`)."""
    tables = [precision_curve(r, n, beta=beta, confidence_level=confidence_level, interval=interval)
              for r in rankings.values()]
    return pd.concat(tables, ignore_index=True)


@dataclass(frozen=True)
class PairResult:
    """Figure 3 for two measures: their curves, the test at every n, and the boundary.

    ``comparison`` holds the chosen test's ``p_value`` at every n, ``p_adjusted`` after the
    correction across the tested n, and ``significant`` (on the adjusted p), and the effect
    sizes of :func:`evalcore.stats.effect.effect_sizes` (``diff, diff_low, diff_high,
    odds_ratio, or_low, or_high``) at the same level. ``counts``: how many n each test calls
    significant under each correction (one row per test, one column per correction), for the
    cheap tests and the chosen one. ``detectable``: the minimum detectable difference
    (:func:`evalcore.stats.power.detectable_differences`, columns ``n, size, pooled, mdd_pi,
    mdd``) at ``power``, at every n of a range of up to ``MDD_EVERY_N`` n and at ``MDD_POINTS``
    n spread over a longer one, for Fisher's test (McNemar's where that is the chosen test).
    """

    curve_a: pd.DataFrame
    curve_b: pd.DataFrame
    comparison: pd.DataFrame
    up_to: int                 # largest n up to which every tested n-best list differs significantly
    n_significant: int
    test: str = "fisher"
    correction: str = "none"
    counts: pd.DataFrame | None = None
    detectable: pd.DataFrame | None = None
    power: float = 0.8
    confidence_level: float = 0.95
    difference_method: str = "newcombe"  # the interval of Pi_A - Pi_B (a key of names.DIFFERENCE_INTERVALS)
    tests: "PairTests | None" = None  # the level-free tests it read (one object for every level of a cached pair)

    def table(self) -> pd.DataFrame:
        """``comparison`` with the minimum detectable difference (``mdd_pi, mdd``; NaN at n it was not computed at)."""
        if self.detectable is None:
            return self.comparison
        return self.comparison.merge(self.detectable[["n", "mdd_pi", "mdd"]], on="n", how="left")


FAST_TESTS = ("fisher", "mcnemar", "chi2")
MDD_EVERY_N = 2001  # the minimum detectable difference is computed at every n of a range this short ...
MDD_POINTS = 201  # ... and at this many n spread over a longer one (a smooth line; the 2x2 view computes its n)


_FAST_PVALUES = {
    "fisher": lambda t: fisher_exact(t["tp_d1"], t["fp_d1"], t["tp_d2"], t["fp_d2"]).pvalue,
    "mcnemar": lambda t: mcnemar_exact(t["tp_d1"], t["tp_d2"]),
    "chi2": lambda t: pearson_chi2_independent(t["tp_a"], t["n"], t["tp_b"], t["n"]),
}


def mdd_grid(sizes: np.ndarray, points: int = MDD_POINTS) -> np.ndarray:
    """The list sizes to compute the minimum detectable difference at: all of up to ``MDD_EVERY_N``,
    else `points` of them evenly spread, both ends included."""
    if sizes.size <= max(points, MDD_EVERY_N):
        return sizes
    return sizes[np.unique(np.linspace(0, sizes.size - 1, points).round().astype(np.int64))]


def significance_counts(tables: dict[str, pd.DataFrame], alpha: float) -> pd.DataFrame:
    """Number of tested n significant at ``alpha`` per test (rows) and correction (columns)."""
    return pd.DataFrame({c: [int((adjust_pvalues(t["p_value"].to_numpy(), c) < alpha).sum()) for t in tables.values()]
                         for c in CORRECTIONS}, index=pd.Index(list(tables), name="test"))


def _tested_counts(tested: "PairTests", alpha: float) -> pd.DataFrame:
    """:func:`significance_counts` of a :class:`PairTests`, its adjusted p-values computed once for every level."""
    return pd.DataFrame({c: [int((tested.adjusted(t, c) < alpha).sum()) for t in tested.p_values] for c in CORRECTIONS},
                        index=pd.Index(list(tested.p_values), name="test"))


@dataclass(frozen=True, eq=False)
class PairTests:
    """What a comparison of two rankings at every n does not owe to the confidence level: the counts of the
    difference regions and the chosen test's p-values (``comparison``: the columns of
    :func:`evalcore.compare.pair_test` but ``significant``), and the p-values of the cheap tests
    (``p_values``: test -> array over the same n, the chosen test first). A key that changes only the level
    reuses them (:func:`pair_comparison`'s ``tested``)."""

    comparison: pd.DataFrame
    p_values: dict
    test: str = "fisher"
    _adjusted: dict = field(default_factory=dict, repr=False)

    def adjusted(self, test: str, correction: str) -> np.ndarray:
        """``test``'s p-values adjusted by ``correction`` (:func:`evalcore.stats.multitest.adjust_pvalues`), computed
        once: they do not depend on the level either (read-only; a level compares them with its alpha)."""
        key = (test, correction)
        found = self._adjusted.get(key)
        if found is None:
            found = adjust_pvalues(self.p_values[test], correction)
            found.setflags(write=False)
            self._adjusted[key] = found  # (two threads may both compute it: the same numbers)
        return found


def pair_tests(a: Ranking, b: Ranking, n_range: tuple[int, int], *, test: str = "fisher", resamples: int = 1000,
               seed: int = 0, progress=None, n_step: int = 1) -> PairTests:
    """The level-free part of :func:`pair_comparison`: ``test`` on the difference regions of the n-best lists at
    every n of ``n_range`` (Evert 2004, §3.3), and the cheap tests' p-values from the same table of regions (no
    second pass over the rankings); every ``n_step``-th n as :func:`pair_comparison`."""
    return pair_tests_at(a, b, grid_sizes(n_range, n_step), test=test, resamples=resamples, seed=seed,
                         progress=progress)


def pair_tests_at(a: Ranking, b: Ranking, sizes: np.ndarray, *, test: str = "fisher", resamples: int = 1000,
                  seed: int = 0, progress=None) -> PairTests:
    """:func:`pair_tests` at the list sizes ``sizes`` (ascending): what the store of p-values computes a chunk of n
    with (:mod:`evalcore.engines.pvalues`)."""
    comparison = pair_test(a, b, sizes, test, resamples=resamples, seed=seed, progress=progress)
    comparison = comparison.drop(columns=["significant"])
    p_values = {t: comparison["p_value"].to_numpy() if t == test else np.asarray(_FAST_PVALUES[t](comparison),
                                                                                    dtype=np.float64)
                for t in dict.fromkeys((test, *FAST_TESTS))}
    return PairTests(comparison=comparison, p_values=p_values, test=test)


def pair_comparison(a: Ranking, b: Ranking, n_range: tuple[int, int], *, confidence_level: float = 0.95,
                    interval: str = "clopper_pearson", test: str = "fisher", correction: str = "none",
                    resamples: int = 1000, seed: int = 0, progress=None, power: float = 0.8,
                    difference_method: str = "newcombe", tested: PairTests | None = None,
                    n_step: int = 1, curves: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> PairResult:
    """A test of the two n-best lists at every n in ``n_range`` (Fisher on D1/D2: Evert 2004, §3.3), with both
    curves, corrected for testing many n (see :mod:`evalcore.stats.pairtests` and :mod:`evalcore.stats.multitest`),
    the effect sizes with intervals at every n and the minimum detectable difference at `power`
    (:mod:`evalcore.stats.effect`, :mod:`evalcore.stats.power`). The rankings are compared once; the
    cheap tests' p-values for ``counts`` come from that one table. `difference_method` (a key of
    ``names.DIFFERENCE_INTERVALS``) and `power` (e.g. one of ``names.POWER_LEVELS``) are the page's choices; the
    result records both. `n_step` > 1 tests every `n_step`-th n of the range instead (both ends included:
    :func:`evalcore.nspec.grid_sizes`), for work that every n would make too long (:mod:`evalcore.work`).
    ``tested``: :func:`pair_tests` of the same rankings, range, step, test and resamples, computed before (e.g.
    cached across levels); without it they are computed here. ``curves``: :func:`pair_curves` of the same rankings,
    range and step, computed before (cached across levels as well); only their intervals are computed here."""
    check_correction(correction)
    check_confidence_level(confidence_level)
    sizes = grid_sizes(n_range, n_step)
    alpha = 1 - confidence_level
    if tested is None:
        tested = pair_tests(a, b, n_range, test=test, resamples=resamples, seed=seed, progress=progress, n_step=n_step)
    elif tested.test != test or not np.array_equal(tested.comparison["n"].to_numpy(), sizes):
        raise ParameterError(f"`tested` holds {tested.test!r} at {len(tested.comparison)} n; the comparison asks for "
                             f"{test!r} at n = {n_range[0]:,} to {n_range[1]:,}: compute it with pair_tests")
    # (the sizes were checked against N once, by the tests of `tested`, whose n they equal; what is shown first:
    # the curves, then the tests' reading)
    if curves is None:
        curves = pair_curves(a, b, sizes)
    elif not all(np.array_equal(c["n"].to_numpy(), sizes) for c in curves):
        raise ParameterError(f"`curves` are not at the n of the comparison (n = {n_range[0]:,} to {n_range[1]:,}, "
                             f"a step of {n_step:,}): compute them with pair_curves")
    curve_a, curve_b = (with_interval(c, confidence_level, interval) for c in curves)
    # (a cached PairTests is shared: never changed here. Copy-on-write, pandas 3: a shallow copy's new columns are
    # its own; a deep one copied and consolidated every column, a tenth of a level key at 600,000 n)
    comparison = tested.comparison.copy(deep=False)
    comparison["p_adjusted"] = tested.adjusted(test, correction).copy()
    # (where pair_test puts it: after log10_p)
    comparison.insert(comparison.columns.get_loc("log10_p") + 1, "significant", comparison["p_adjusted"] < alpha)
    effects = effect_sizes(comparison, confidence_level, difference_method)
    for column in EFFECT_COLUMNS:
        comparison[column] = effects[column].to_numpy()
    grid = comparison[comparison["n"].isin(mdd_grid(sizes))]
    detectable = detectable_differences(grid, alpha, power, test if test in POWER_TESTS else "fisher")
    return PairResult(
        curve_a=curve_a, curve_b=curve_b, comparison=comparison,
        up_to=significant_up_to(comparison),
        n_significant=int(comparison["significant"].sum()),
        test=test, correction=correction, counts=_tested_counts(tested, alpha),
        detectable=detectable, power=power, confidence_level=confidence_level, difference_method=difference_method,
        tests=tested,
    )


def pair_curves(a: Ranking, b: Ranking, sizes: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The curves of :func:`pair_comparison` as far as they owe nothing to the level (:func:`evalcore.curves.level_free_curve`
    of ``a`` and ``b`` at ``sizes``, checked before, e.g. :func:`evalcore.nspec.grid_sizes`): computed once for every
    level a slider visits, the level adds only the intervals."""
    return level_free_curve(a, sizes), level_free_curve(b, sizes)


def _smallest_fisher_p(n_tp: int, n_fp: int) -> float:
    k = min(n_tp, n_fp)
    return float(fisher_exact(k, 0, 0, k).pvalue)


def _smallest_mcnemar_p(n_tp: int, n_fp: int) -> float:
    return float(mcnemar_exact(min(n_tp, n_fp), 0))


#: The smallest p-value a test of two n-best lists can reach on data with T TPs and F FPs, for the tests where
#: that bound depends on T and F alone (see :func:`smallest_p_value`).
SMALLEST_P = {"fisher": _smallest_fisher_p, "mcnemar": _smallest_mcnemar_p}


def smallest_p_value(test: str, n_tp: int, n_fp: int) -> float | None:
    """The smallest p-value ``test`` can give for two n-best lists of any size on data with ``n_tp`` TPs and
    ``n_fp`` FPs; None for a test whose bound is not known from these counts alone.

    Notes
    -----
    Fisher's exact test on ``[[T_D1, F_D1], [T_D2, F_D2]]`` with ``|D1| = |D2| = d`` (Evert 2004,
    §3.3): with m TPs among the 2d candidates of D1 and D2, the most extreme table puts them all in
    one region, and its two-sided p-value ``2 C(d, m) / C(2d, m)`` (for m <= d) grows with d and falls
    with m; by the symmetry of TPs and FPs the same holds for the FPs. So the smallest p over all
    tables is that of ``[[k, 0], [0, k]]``, ``k = min(T, F)``: ``2 / C(2k, k)``, e.g. 1 for k = 1,
    0.33 for k = 2, 0.1 for k = 3, 0.029 for k = 4 (checked against every table in
    ``tests/test_significance_warnings.py``). The exact McNemar test on the discordant TPs compares
    ``T_D1`` with ``T_D2``; a table needs ``|T_D1 - T_D2| <= F`` (the larger region's surplus of TPs is
    matched by FPs in the other), and for a given difference more discordant TPs give a larger
    p-value, so its best is ``T_D1 = k, T_D2 = 0``: ``2^(1 - k)``, again with ``k = min(T, F)``.
    """
    if test not in SMALLEST_P:
        return None
    return SMALLEST_P[test](int(n_tp), int(n_fp))


def significance_warnings(n_candidates: int, n_tp: int, *, test: str = "fisher", alpha: float = 0.05,
                          comparison: pd.DataFrame | None = None, names: tuple[str, str] = ("A", "B"),
                          ) -> tuple[str, ...]:
    """What the Significance page should say before its counts when the data cannot show a difference.

    Parameters
    ----------
    n_candidates, n_tp : int
        The candidate set's size N and number of TPs T.
    test : str
        The test of the page (a key of :data:`evalcore.stats.pairtests.PAIR_TESTS`).
    alpha : float
        The significance level.
    comparison : DataFrame, optional
        :attr:`PairResult.comparison` (columns ``n, tp_a, tp_b, tp_d1, fp_d1``), for the warnings
        about the tested range.
    names : (str, str)
        The measures A and B, named in the messages (plain text: the page escapes it).

    Returns
    -------
    tuple of str
        Plain-text warnings, in the page's words, none when the data can show a difference:

        - no TP, or no FP, in the data: precision is the same for every list, the test can never
          reject ("0 of 50" is then no finding about the measures);
        - too few TPs (or FPs) for the test ever to reach ``p < alpha`` (:func:`smallest_p_value`);
        - A and B select the same candidates at every tested n (D1 and D2 empty);
        - neither list holds a TP anywhere in the tested range.
    """
    n_fp = int(n_candidates) - int(n_tp)
    check = "Check the label column on the Data page."
    if n_tp == 0:
        return (f"No candidate is labelled a TP (all {n_candidates:,} are FPs): every n-best list has precision 0, "
                "D1 and D2 hold only FPs, and no test can find a difference between the measures. " + check,)
    if n_fp == 0:
        return (f"Every candidate is labelled a TP (all {n_candidates:,}): every n-best list has precision 100%, "
                "D1 and D2 hold only TPs, and no test can find a difference between the measures. " + check,)
    found = []
    smallest = smallest_p_value(test, n_tp, n_fp)
    if smallest is not None and smallest >= alpha:
        what = f"{n_tp:,} TP{'s' if n_tp != 1 else ''}" if n_tp <= n_fp else f"{n_fp:,} FP{'s' if n_fp != 1 else ''}"
        found.append(f"With only {what} in the data, this test cannot reach p < {alpha:g} at any n: the smallest "
                     f"p-value it can give is {p_value_text(smallest)}. It takes more annotated candidates to tell the "
                     "measures apart.")
    if comparison is not None and len(comparison):
        a, b = names
        first, last = int(comparison["n"].min()), int(comparison["n"].max())
        if ((comparison["tp_d1"] + comparison["fp_d1"]) == 0).all():
            found.append(f"{a} and {b} select the same candidates in every n-best list from {first:,} to {last:,} "
                         "(D1 and D2 are empty): there is nothing to test.")
        elif comparison["tp_a"].max() == 0 and comparison["tp_b"].max() == 0:
            found.append(f"Neither {a} nor {b} puts a TP in an n-best list from {first:,} to {last:,}: both have "
                         "precision 0 there, and no test can find a difference. Widen the range of n.")
    return tuple(found)


def effect_at(result: PairResult, n: int) -> pd.DataFrame:
    """The effect sizes at one n of a :class:`PairResult`, one row each, for the 2x2 view.

    Rows: ``Pi_A - Pi_B`` (percentage points), ``pi_D1 - pi_D2`` (percentage points), the odds
    ratio, and the minimum detectable ``Pi_A - Pi_B`` at ``result.power`` (computed at this n if
    the grid of ``result.detectable`` missed it); columns ``effect, estimate, low, high``.
    """
    row = result.comparison.loc[result.comparison["n"] == n]
    if row.empty:
        raise ColumnError(f"n = {n} is not among the tested list sizes "
                          f"{int(result.comparison['n'].min())}..{int(result.comparison['n'].max())}")
    row = row.iloc[0]
    d = int(row["tp_d1"] + row["fp_d1"])
    scale = 100.0 * n / d if d else np.nan
    detectable = result.detectable
    at = detectable.loc[detectable["n"] == n] if detectable is not None else detectable
    if at is None or at.empty:
        test = result.test if result.test in POWER_TESTS else "fisher"
        at = detectable_differences(result.comparison.loc[result.comparison["n"] == n],
                                    1 - result.confidence_level, result.power, test)
    mdd = float(at["mdd"].iloc[0])
    return pd.DataFrame({
        "effect": ["Π_A − Π_B (points)", "π_D1 − π_D2 (points)", "odds ratio", f"MDD at {result.power:.0%} power (points)"],
        "estimate": [100 * row["diff"], row["diff"] * scale, row["odds_ratio"], 100 * mdd],
        "low": [100 * row["diff_low"], row["diff_low"] * scale, row["or_low"], np.nan],
        "high": [100 * row["diff_high"], row["diff_high"] * scale, row["or_high"], np.nan],
    })


def _candidate_rows(candidates: CandidateSet, idx: np.ndarray, extra: dict) -> pd.DataFrame:
    table = pd.DataFrame({"row": candidates.rows[idx]})
    if candidates.keys is not None:
        keys = candidates.keys.iloc[idx].reset_index(drop=True)
        table = pd.concat([table, keys], axis=1)
    table["label"] = np.where(candidates.labels[idx], "TP", "FP")
    for name, values in extra.items():
        table[name] = values
    return table


def difference_members(candidates: CandidateSet, a: Ranking, b: Ranking, n: int) -> pd.DataFrame:
    """The candidates in D1 = A \\ B and D2 = B \\ A of the two n-best lists, with keys, labels and ranks."""
    in_a = a.ranks <= n
    in_b = b.ranks <= n
    idx = np.flatnonzero(in_a ^ in_b)
    region = np.where(in_a[idx], f"D1 (only {a.measure})", f"D2 (only {b.measure})")
    table = _candidate_rows(candidates, idx, {
        "region": region, f"rank by {a.measure}": a.ranks[idx], f"rank by {b.measure}": b.ranks[idx],
        a.measure: candidates.scores[a.measure][idx], b.measure: candidates.scores[b.measure][idx]})
    return table.sort_values(["region", f"rank by {a.measure}"], kind="stable").reset_index(drop=True)


def gamma_for_n(ranking: Ranking, n: int) -> float:
    """The n-best threshold gamma_g(n): the score of the candidate at rank n (Evert 2004, §2)."""
    return float(ranking.sorted_scores[n - 1])


def acceptance_size(ranking: Ranking, gamma: float) -> int:
    """How many candidates the gamma-acceptance set {g >= gamma} holds ({g <= gamma} where lower is better)."""
    return int(acceptance_sets(ranking, [gamma], confidence_level=None)["size"].iloc[0])


def gamma_for_size(ranking: Ranking, size: int) -> float:
    """The threshold whose acceptance set is as close as possible in size to ``size``.

    Parameters
    ----------
    ranking : Ranking
    size : int
        The wanted acceptance size, ``0 <= size <= N``.

    Returns
    -------
    float
        A score of the ranking whose acceptance set holds k candidates, k nearest to ``size``
        among the sizes a threshold can give; for ``size == 0``, the next float beyond the best
        score (nothing accepted).

    Notes
    -----
    A threshold never splits a tie group (Evert 2004, §2: the set {g >= gamma} takes all
    candidates of equal score or none), so it can only accept k candidates where k is the end
    of a tie group: with the scores 9, 7, 7, 7, 5 the sizes are 0, 1, 4 and 5, never 2 or 3. For
    a size in between, the nearer attainable size is taken, and of two equally near ones the
    smaller (a tie group is kept out rather than let in: the set does not grow beyond the one
    asked for by more than it shrinks). Non-finite scores are never accepted, so the largest
    attainable size is the number of finite scores. The result does not depend on the tie
    policy of the ranking.

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> r = rank_scores(np.ones(5, bool), np.array([9.0, 7, 7, 7, 5]), ties="stable")
    >>> [gamma_for_size(r, k) for k in (1, 2, 3, 4)]
    [9.0, 9.0, 7.0, 7.0]
    """
    n_finite = ranking.n_candidates - ranking.n_nonfinite
    if not isinstance(size, (int, np.integer)) or not 0 <= size <= ranking.n_candidates:
        raise ParameterError(f"`size` must be a whole number from 0 to {ranking.n_candidates:,}; got {size!r}")
    if n_finite == 0:
        raise ColumnError(f"{ranking.measure} has no finite score (all are NaN or infinite): no threshold cuts it. "
                          "Choose another measure.")
    ends = np.unique(ranking.group_end[:n_finite])  # the sizes a threshold can give, besides 0
    candidates = np.r_[0, ends]
    k = int(candidates[np.argmin(np.abs(candidates - int(size)))])  # argmin: the first (smaller) of equals
    best = float(ranking.sorted_scores[0])
    if k == 0:
        return float(np.nextafter(best, np.inf if ranking.higher_is_better else -np.inf))
    return float(ranking.sorted_scores[k - 1])


def gamma_keeping_size(old: Ranking, old_gamma: float, new: Ranking) -> float:
    """The threshold of ``new`` whose acceptance set is as large as that of ``old`` at ``old_gamma``.

    When the Threshold page switches from one measure to another, the acceptance size stays (as
    near as the new measure's ties allow: :func:`gamma_for_size`), instead of the old number
    gamma being carried over to a scale where it means something else (freq's gamma 50 accepts
    2,340 of Krenn's candidates; as a t-score it would accept one).

    Examples
    --------
    >>> from evalcore.ranking import rank_scores
    >>> labels = np.array([True, False, True, False])
    >>> freq = rank_scores(labels, np.array([300.0, 120, 60, 30]), measure="freq", ties="stable")
    >>> t = rank_scores(labels, np.array([9.1, 2.0, 4.5, 1.2]), measure="t", ties="stable")
    >>> gamma_keeping_size(freq, 60.0, t)  # freq >= 60 accepts 3 candidates; so does t >= 2.0
    2.0
    """
    return gamma_for_size(new, acceptance_size(old, old_gamma))


def threshold_result(ranking: Ranking, gamma: float, *, confidence_level: float = 0.95,
                     interval: str = "clopper_pearson") -> dict:
    """Size, TPs, precision with its interval, and recall of the gamma-acceptance set."""
    row = acceptance_sets(ranking, [gamma], confidence_level=confidence_level, interval=interval).iloc[0]
    return {key: row[key] for key in ("gamma", "size", "tp", "fp", "precision", "recall", "lower", "upper")}


def threshold_neighbours(candidates: CandidateSet, ranking: Ranking, size: int, width: int = 5) -> pd.DataFrame:
    """The candidates just above and just below the cut-off after rank ``size``."""
    lo, hi = max(0, size - width), min(ranking.n_candidates, size + width)
    idx = ranking.order[lo:hi]
    side = np.where(np.arange(lo, hi) < size, "accepted", "rejected")
    return _candidate_rows(candidates, idx, {"rank": np.arange(lo + 1, hi + 1), ranking.measure:
                                             candidates.scores[ranking.measure][idx], "side": side})


def threshold_quantiles(ranking: Ranking, points: int = 201) -> np.ndarray:
    """Distinct finite scores at evenly spaced quantiles: slider positions that reach the whole range."""
    finite = ranking.sorted_scores[np.isfinite(ranking.sorted_scores)]
    if finite.size == 0:
        return finite
    q = np.quantile(finite, np.linspace(0, 1, points), method="inverted_cdf")
    return np.unique(q)


def compare_thresholds(a: Ranking, gamma_a: float, b: Ranking, gamma_b: float, *,
                       confidence_level: float = 0.95) -> dict:
    """Fisher's test for two gamma-acceptance sets, with a flag when their sizes differ much.

    Evert (2004), footnote 13: comparing sets of very different sizes by precision is unfair,
    because the smaller set tends to win; the flag is raised when one is over 20% larger.
    """
    size_a = int(acceptance_sets(a, [gamma_a], confidence_level=None)["size"].iloc[0])
    size_b = int(acceptance_sets(b, [gamma_b], confidence_level=None)["size"].iloc[0])
    if size_a == 0 or size_b == 0:
        return {"size_a": size_a, "size_b": size_b, "unequal": False, "p_value": float("nan"), "row": None}
    row = compare_sets(a, [size_a], b, [size_b], confidence_level=confidence_level).iloc[0]
    unequal = max(size_a, size_b) > 1.2 * min(size_a, size_b)
    return {"size_a": size_a, "size_b": size_b, "unequal": unequal, "p_value": float(row["p_value"]), "row": row}


def precision_at(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """The rows of a curves table at one n (the value table of the Precision page)."""
    return table[table["n"] == n].reset_index(drop=True)


def interval_at(tp: int, n: int, confidence_level: float, method: str) -> tuple[float, float]:
    ci = binomial_interval(tp, n, confidence_level, method=method)
    return float(ci.low), float(ci.high)


def rankings_for(candidates: CandidateSet, measures, *, ties: str, seed: int | None) -> dict[str, Ranking]:
    """Rank by each measure with one tie policy and seed."""
    return {m: rank(candidates, m, ties=ties, seed=seed) for m in measures}


def measure_quality(candidates: CandidateSet, rankings: dict[str, Ranking] | None = None) -> pd.DataFrame:
    """Every measure's average precision and ROC AUC, best first: the order pages start from.

    Parameters
    ----------
    candidates : CandidateSet
    rankings : dict, optional
        Rankings of the measures already made, under any ties (by measure name; a measure missing from it is
        ranked here): both numbers are the same for every tie policy, so a caller that holds the rankings its
        pages use does not rank again (on 1,000,000 candidates, 0.6 s a measure).

    Returns
    -------
    DataFrame
        ``measure, average_precision, auc``, sorted by average precision (descending; file order
        among equals). Neither number depends on how ties are broken (both are taken at the end
        of each tie group, :mod:`evalcore.roc`), so the order is the same for every tie policy.
        Measures that cannot be scored (no TP, or no FP) get NaN and come last.

    Notes
    -----
    Average precision is the mean of the n-best precisions at the ranks of the TPs: it weighs the
    top of the ranking, where the n-best lists a paper shows live. On Krenn's PP-verb data the
    order is G² (log.like), Fisher, t, X² with continuity correction, X², z, MI, frequency, Dice.
    """
    from .errors import ParameterError
    from .roc import auc, average_precision

    rows = []
    for m in candidates.measures:
        r = rankings[m] if rankings is not None and m in rankings else rank(candidates, m, ties="stable")
        try:
            rows.append((m, average_precision(r), auc(r)))
        except ParameterError:  # no TP or no FP: nothing to order by
            rows.append((m, np.nan, np.nan))
    table = pd.DataFrame(rows, columns=["measure", "average_precision", "auc"])
    return table.sort_values("average_precision", ascending=False, kind="stable", na_position="last",
                             ignore_index=True)


# ---------------------------------------------------------------- experiments with several samples

@dataclass(frozen=True)
class AcrossResult:
    """Two measures compared over the samples of an experiment.

    ``table``: per sample ``sample, size_a, tp_a, precision_a, size_b, tp_b, precision_b, difference``
    (A minus B); ``tests``: one row per test (:func:`evalcore.stats.sampletests.across_samples`) on the
    samples where both acceptance sets are non-empty; ``dropped``: the other samples.
    """

    a: str
    b: str
    table: pd.DataFrame
    tests: pd.DataFrame
    cohens_dz: float
    dropped: tuple[str, ...]


def across_samples(candidates: CandidateSet, a: str, b: str, cut_a: Cut, cut_b: Cut, *, ties: str = "random",
                   seed: int | None = None, confidence_level: float = 0.95) -> AcrossResult:
    """Per-sample precision of A and B and the paired (and, for contrast, unpaired) tests of their difference."""
    ta = per_sample(candidates, a, cut_a, ties=ties, seed=seed, confidence_level=confidence_level)
    tb = per_sample(candidates, b, cut_b, ties=ties, seed=seed, confidence_level=confidence_level)
    table = pd.DataFrame({"sample": ta["sample"], "size_a": ta["size"], "tp_a": ta["tp"],
                          "precision_a": ta["precision"], "size_b": tb["size"], "tp_b": tb["tp"],
                          "precision_b": tb["precision"]})
    table["difference"] = table["precision_a"] - table["precision_b"]
    used = table.dropna(subset=["difference"])
    if len(used) < 2:
        raise ColumnError(f"only {len(used)} sample(s) have non-empty acceptance sets for both {a} and {b}; the "
                          "tests need at least 2. Lower the thresholds or raise n.")
    pa, pb = used["precision_a"].to_numpy(float), used["precision_b"].to_numpy(float)
    return AcrossResult(a=a, b=b, table=table, tests=sampletests.across_samples(pa, pb, confidence_level),
                        cohens_dz=sampletests.cohens_dz(pa, pb),
                        dropped=tuple(table.loc[table["difference"].isna(), "sample"]))


@dataclass(frozen=True)
class UIRAnalysis:
    """The Unanimous Improvement Ratio of every pair of measures, and A against B in detail.

    ``metrics``: per measure a DataFrame (one row per sample used): precision and recall, the
    metrics compared, and F-beta for each beta asked for; ``matrix``: UIR of row against
    column; ``pair``: UIR(A, B); ``sweep`` and ``flips``: mean F_alpha of A and B over alpha
    and where their order changes; ``dropped``: samples left out because some measure accepted
    nothing there (its precision is undefined).
    """

    metrics: dict
    matrix: pd.DataFrame
    pair: uir.UIRResult
    sweep: pd.DataFrame
    flips: list
    dropped: tuple[str, ...]


def uir_analysis(candidates: CandidateSet, measures, cuts: dict[str, Cut], a: str, b: str, *, betas=(),
                 threshold: float = uir.UIR_THRESHOLD, ties: str = "random", seed: int | None = None) -> UIRAnalysis:
    """UIR over the samples (test cases) on precision and recall (Amigó et al. 2011).

    ``betas`` add each sample's F-beta to the ``metrics`` tables (the command line's ``--per-sample``); they are
    not compared: F-beta never changes a UIR. F-beta is non-decreasing in precision and in recall (van
    Rijsbergen's monotonicity, which Amigó et al. ground unanimous improvement on), so a sample where A >= B on
    precision and recall has A >= B on every F-beta, one tied on both is tied on it, and one where each is better on
    one of them stays mixed: the sets T_{A >=∀ B} and T_{B >=∀ A} are the same with or without it.
    """
    tables = {m: per_sample(candidates, m, cuts[m], ties=ties, seed=seed, confidence_level=0.95) for m in measures}
    first = tables[measures[0]]
    undefined = np.zeros(len(first), dtype=bool)
    for t in tables.values():
        undefined |= t["precision"].isna().to_numpy() | t["recall"].isna().to_numpy()
    if (~undefined).sum() < 1:
        raise ColumnError("no sample has a non-empty acceptance set (and TPs) for every measure; lower the "
                          "thresholds or raise n.")
    metrics = {}
    for m, t in tables.items():
        t = t[~undefined]
        frame = pd.DataFrame({"sample": t["sample"].to_numpy(), "precision": t["precision"].to_numpy(float),
                              "recall": t["recall"].to_numpy(float)})
        for beta in betas:
            frame[f"F{beta:g}"] = uir.f_alpha(frame["precision"], frame["recall"], uir.f_beta_to_alpha(beta))
        metrics[m] = frame
    values = {m: f[["precision", "recall"]].to_numpy(float) for m, f in metrics.items()}
    sweep = uir.f_alpha_sweep(metrics[a]["precision"], metrics[a]["recall"], metrics[b]["precision"],
                              metrics[b]["recall"])
    return UIRAnalysis(metrics=metrics, matrix=uir.uir_matrix(values, threshold=threshold),
                       pair=uir.unanimous_improvement_ratio(values[a], values[b], threshold=threshold),
                       sweep=sweep, flips=list(uir.sweep_flips(sweep)),
                       dropped=tuple(first.loc[undefined, "sample"]))


@dataclass(frozen=True)
class PairwiseResult:
    """Every pair of measures at one n: Fisher's test on D1/D2, corrected across the pairs.

    ``pairs``: one row per pair (A before B in the order given) with the columns of
    :func:`evalcore.compare.compare_rankings` plus ``a, b, p_adjusted``, ``significant`` on
    the adjusted p, and the effect sizes ``diff, diff_low, diff_high, odds_ratio, or_low,
    or_high`` (:func:`evalcore.stats.effect.effect_sizes`, intervals at the confidence level,
    not corrected across the pairs); ``matrix``: the adjusted p-values as a symmetric DataFrame (diagonal NaN);
    ``precision``: each measure's n-best precision with its interval.
    """

    n: int
    correction: str
    pairs: pd.DataFrame
    matrix: pd.DataFrame
    precision: pd.DataFrame


def pairwise(rankings: dict[str, Ranking], n: int, *, confidence_level: float = 0.95, correction: str = "none",
             interval: str = "clopper_pearson", difference_method: str = "newcombe") -> PairwiseResult:
    """Fisher's exact test on the difference regions of every pair of measures at one n (Evert 2004, §3.3), with
    the effect sizes (the interval of the difference of precision by `difference_method`, a key of
    ``names.DIFFERENCE_INTERVALS``)."""
    check_correction(correction)
    names = list(rankings)
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            row = compare_rankings(rankings[a], rankings[b], [n], confidence_level=confidence_level).iloc[0]
            rows.append({"a": a, "b": b, **row.to_dict()})
    pairs = pd.DataFrame(rows)
    if len(pairs):
        pairs["p_adjusted"] = adjust_pvalues(pairs["p_value"].to_numpy(float), correction)
        pairs["significant"] = pairs["p_adjusted"] < 1 - confidence_level
        effects = effect_sizes(pairs, confidence_level, difference_method)
        for column in EFFECT_COLUMNS:
            pairs[column] = effects[column].to_numpy()
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for row in pairs.itertuples():
        matrix.loc[row.a, row.b] = matrix.loc[row.b, row.a] = row.p_adjusted
    precision = curves(rankings, [n], confidence_level=confidence_level, interval=interval)
    return PairwiseResult(n=n, correction=correction, pairs=pairs, matrix=matrix,
                          precision=precision[["measure", "n", "tp", "precision", "lower", "upper"]])
