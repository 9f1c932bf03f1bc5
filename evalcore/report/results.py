"""The numbers of a report, computed once from a candidate set and :class:`ReportSettings`.

Everything here is a call into the core (:mod:`evalcore.curves`, :mod:`evalcore.stats.pairtests`,
:mod:`evalcore.stats.multitest`), so a report's tables hold exactly the numbers the dashboard and the command
line show for the same settings. Only what the tables, the text and the signature need is computed here; the
figures' curves at every n come from :func:`report_curves` when they are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..analysis import curves, rankings_for
from ..compare import significant_up_to
from ..candidates import CandidateSet
from ..curves import precision_curve
from ..errors import ColumnError, ParameterError
from ..nspec import check_sizes, grid_sizes
from ..stats.multitest import adjust_pvalues
from ..compare import pair_test
from ..work import check_work, report_estimate
from .settings import ReportSettings
from .signature import numbers_digest

__all__ = ["ReportResults", "report_results", "report_curves", "report_numbers", "pair_comparison_table",
           "PAIR_EFFECTS", "PRECISION_COLUMNS", "PAIR_COLUMNS_BASE", "check_candidates", "SampleSummary",
           "design_frame", "pooled_design"]

PRECISION_COLUMNS = ("measure", "n", "tp", "fp", "precision", "lower", "upper")
PAIR_COLUMNS_BASE = ("a", "b", "n", "tp_a", "tp_b", "tp_d1", "fp_d1", "tp_d2", "fp_d2", "p_value", "log10_p",
                     "p_adjusted", "significant")

# Effect sizes of a pair at each n, added as columns of the pairs table (and so to data.json, the digest and,
# through evalcore.report.tables.PAIR_COLUMNS, to the pairwise table). Each entry maps a name to a function
# ``(pairs, settings) -> DataFrame`` with one row per row of ``pairs`` (which has the counts tp_d1, fp_d1, tp_d2,
# fp_d2 and tp_a, tp_b, n) and new, documented columns: the difference of precision (diff, diff_low, diff_high;
# the settings' difference_interval) and the odds ratio of TPs in D1 against D2 (odds_ratio, or_low, or_high;
# conditional MLE, exact interval), evalcore.stats.effect.effect_sizes; the minimum detectable difference at the
# settings' power and alpha (mdd_pi, mdd), evalcore.stats.power.detectable_differences.
EffectFunction = Callable[[pd.DataFrame, ReportSettings], pd.DataFrame]


def _effects(pairs: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
    from ..stats.effect import EFFECT_COLUMNS, effect_sizes

    return effect_sizes(pairs, settings.level, settings.difference_interval)[list(EFFECT_COLUMNS)].reset_index(
        drop=True)


def _detectable(pairs: pd.DataFrame, settings: ReportSettings) -> pd.DataFrame:
    from ..stats.power import detectable_differences

    found = detectable_differences(pairs, settings.alpha, settings.power, settings.power_test)
    return pd.DataFrame({"mdd_pi": found["mdd_pi"].to_numpy(), "mdd": found["mdd"].to_numpy()})


PAIR_EFFECTS: tuple[tuple[str, EffectFunction], ...] = (("effect sizes", _effects),
                                                        ("minimum detectable difference", _detectable))


@dataclass(frozen=True, eq=False)
class ReportResults:
    """The numbers of one report.

    Attributes
    ----------
    settings : ReportSettings
    n_candidates, n_tp, excluded_unlabelled : int
        Size N of the candidate set, its TPs, and rows left out for an empty label.
    precision : DataFrame
        One row per measure and table size: ``measure, n, tp, fp, precision, lower, upper``
        (:func:`evalcore.curves.precision_curve`).
    pairs : DataFrame
        One row per pair (A before B) and table size: ``a, b, n, tp_a, tp_b, tp_d1, fp_d1, tp_d2,
        fp_d2, p_value, log10_p`` (:func:`evalcore.compare.pair_test`), ``p_adjusted`` (the
        correction over every row of this table), ``significant`` (``p_adjusted < 1 - level``), then the
        columns of any effect sizes (:data:`PAIR_EFFECTS`).
    comparison : DataFrame
        The pair's test at every n of the range (Figure 3): the columns of
        :func:`evalcore.compare.pair_test`, ``p_adjusted`` (the correction over these n) and
        ``significant``, as :func:`evalcore.analysis.pair_comparison` computes them.
    rankings : mapping of str to Ranking
        The measures' rankings, for the figures' curves (:func:`report_curves`).
    sample : SampleSummary or None
        With an annotated sample (``settings.design``): the sample's size and frame and the baseline
        estimated from it. ``precision`` then has the columns of
        :func:`evalcore.estimates.precision_estimates` (``measure, n, m, k, estimate, lower, upper, in_frame,
        enough``), and ``pairs`` and ``comparison`` those of :func:`evalcore.estimates.tested_comparison`
        (with ``a, b`` in ``pairs``); ``n_tp`` counts the annotated TPs.
    frame : ndarray of bool or None
        The sampling frame over the candidates (None: the whole set, or no sample); with a pooled design, the pool.
    strata : evalcore.pooling.Strata or None
        With a pooled design (``settings.design.pooled``): the design over the candidates, whose estimates the
        tables hold (``precision`` then has :data:`evalcore.pooling.POOLED_COLUMNS`, ``pairs`` and ``comparison``
        those of :func:`evalcore.pooling.pooled_compare` with the difference interval, ``p_adjusted`` and
        ``significant``), as the dashboard's pages show them.
    """

    settings: ReportSettings
    n_candidates: int
    n_tp: int
    excluded_unlabelled: int
    precision: pd.DataFrame
    pairs: pd.DataFrame
    comparison: pd.DataFrame
    rankings: Mapping
    sample: "SampleSummary | None" = None
    frame: np.ndarray | None = None
    strata: object = None  # a pooled design over the candidates (evalcore.pooling.Strata), else None

    @property
    def baseline(self) -> float:
        """TPs / N, or with a sample the proportion of TPs among the annotated candidates (the estimate)."""
        return self.sample.estimate if self.sample is not None else self.n_tp / self.n_candidates

    @property
    def n_tests(self) -> int:
        """Tests in the pairwise table (pairs times table sizes; with a sample, those with enough annotated
        candidates): the family of its correction."""
        return int(self.pairs["enough"].sum()) if self.sample is not None else len(self.pairs)

    @property
    def n_figure_tests(self) -> int:
        """Tests behind Figure 3 (every n of the range; with a sample, those with enough annotated candidates):
        the family of its correction."""
        return int(self.comparison["enough"].sum()) if self.sample is not None else len(self.comparison)

    @property
    def up_to(self) -> int:
        """Largest n up to which the pair differs significantly at every tested n (Figure 3's line)."""
        return significant_up_to(self.comparison)

    @property
    def n_significant(self) -> int:
        return int(self.comparison["significant"].sum())


@dataclass(frozen=True)
class SampleSummary:
    """An annotated sample in numbers: where it was drawn (the frame's size, and how it is described), how
    many candidates are annotated (m) and TPs (k), and the baseline estimated from them with its interval."""

    frame_size: int
    frame: str
    m: int
    k: int
    estimate: float
    lower: float
    upper: float


def check_candidates(candidates: CandidateSet, settings: ReportSettings) -> None:
    """The candidate set has the report's measures, label and sizes (errors say what to change)."""
    missing = [m for m in settings.measures if m not in candidates.measures]
    if missing:
        raise ColumnError(f"{candidates.source}: no score column {', '.join(map(repr, missing))}; the score columns "
                          f"are {', '.join(candidates.measures)}")
    wrong_direction = [m for m in settings.measures if candidates.higher_is_better(m) == (m in settings.lower)]
    if wrong_direction:
        raise ParameterError(f"the candidate set's directions of {', '.join(wrong_direction)} differ from the "
                             "settings' `lower`; load the data with the same lower-is-better measures")
    if candidates.label_column != settings.label:
        raise ParameterError(f"the candidate set's label column is {candidates.label_column!r}, the settings name "
                             f"{settings.label!r}")
    n = candidates.n_candidates
    check_sizes(np.array(settings.sizes), n, what="the report's list sizes")
    check_sizes(np.array(settings.n_range), n, what="the figures' range of n")


def _pairs_table(rankings, settings: ReportSettings, sizes: np.ndarray,
                 effects: Sequence[tuple[str, EffectFunction]]) -> pd.DataFrame:
    tables = [pair_test(rankings[a], rankings[b], sizes, settings.test, confidence_level=settings.level,
                        resamples=settings.resamples, seed=settings.seed or 0) for a, b in settings.pairs]
    pairs = pd.concat(tables, ignore_index=True)
    pairs["a"] = np.repeat([a for a, _ in settings.pairs], sizes.size)
    pairs["b"] = np.repeat([b for _, b in settings.pairs], sizes.size)
    pairs["p_adjusted"] = adjust_pvalues(pairs["p_value"].to_numpy(float), settings.correction)
    pairs["significant"] = pairs["p_adjusted"] < settings.alpha
    pairs = pairs[list(PAIR_COLUMNS_BASE)]
    for name, effect in effects:
        extra = effect(pairs, settings)
        if len(extra) != len(pairs) or set(extra.columns) & set(pairs.columns):
            raise ParameterError(f"effect size {name!r} must give one row per pair and new column names; got "
                                 f"{len(extra)} rows and columns {', '.join(map(str, extra.columns))}")
        pairs = pd.concat([pairs, extra.reset_index(drop=True)], axis=1)
    return pairs


def pair_comparison_table(rankings: Mapping, settings: ReportSettings) -> pd.DataFrame:
    """Figure 3's numbers: the settings' test of the pair at every n of the range, corrected over those n.

    The same computation as :func:`evalcore.analysis.pair_comparison` (its ``comparison``), without the
    other tests and curves that the dashboard's page shows beside it.
    """
    a, b = settings.pair
    comparison = pair_test(rankings[a], rankings[b], grid_sizes(settings.n_range, settings.n_step), settings.test,
                           confidence_level=settings.level, resamples=settings.resamples, seed=settings.seed or 0)
    comparison["p_adjusted"] = adjust_pvalues(comparison["p_value"].to_numpy(), settings.correction)
    comparison["significant"] = comparison["p_adjusted"] < settings.alpha
    return comparison


def report_results(candidates: CandidateSet, settings: ReportSettings, *,
                   effects: Sequence[tuple[str, EffectFunction]] = PAIR_EFFECTS, rankings: Mapping | None = None,
                   comparison: pd.DataFrame | None = None, frame=None, budget: float | None = None,
                   where: tuple[str, str] | None = None) -> ReportResults:
    """Compute a report's numbers: precision with intervals, pairwise tests, Figure 3's tests.

    Parameters
    ----------
    candidates : CandidateSet
        Loaded with the settings' label, measures and directions (and sample, if any).
    settings : ReportSettings
    effects : sequence of (name, function)
        Effect sizes added to the pairs table (:data:`PAIR_EFFECTS` by default).
    rankings, comparison : optional
        Parts already computed for exactly these settings (the dashboard's caches): the rankings of the
        measures (:func:`evalcore.analysis.rankings_for`) and Figure 3's :func:`pair_comparison_table`
        (or :func:`evalcore.analysis.pair_comparison`'s ``comparison``).
    frame : SamplingFrame, optional
        With ``settings.design``: the frame the sample was drawn from, when known better than the design
        says (the Annotate page's, with its own ties and seed); by default the design's.
    budget : float, optional
        Estimated CPU seconds the numbers may cost (default :func:`evalcore.work.work_budget`); past it,
        :class:`evalcore.work.WorkTooLargeError` before anything is computed.
    where : (str, str), optional
        How the refusal words whose budget it is (:data:`evalcore.work.budget.ON_THE_SERVER`, the default, or
        ``ON_THE_COMMAND_LINE``).

    Returns
    -------
    ReportResults

    Notes
    -----
    The n-best lists come from :func:`evalcore.ranking.rank` with the settings' tie policy and seed;
    precision is ``tp / n`` with a binomial interval at ``level`` (Evert 2004, §3.2); two measures are
    compared by the settings' test on their n-best lists (Fisher's exact test on the difference regions
    D1 = A \\ B and D2 = B \\ A by default; Evert 2004, §3.3). The correction treats all tests of the
    pairwise table as one family and, separately, the tests of Figure 3 at every n of the range.

    With an annotated sample (``settings.design``), precision is estimated from the annotated candidates of
    each list with the design's interval, and pairs are compared by Fisher's exact test on the annotated
    candidates of D1 and D2 (Evert & Krenn 2005), at the n where both hold at least ``min_annotated``.
    """
    check_candidates(candidates, settings)
    from ..work.budget import ON_THE_SERVER

    where = where or ON_THE_SERVER
    check_work(report_estimate(candidates.n_candidates, settings.n_range, len(settings.sizes), len(settings.pairs),
                               settings.test, settings.resamples, settings.n_step), budget, where=where)
    if settings.design is not None:  # estimates from the sample: the figures' range and the tables' sizes
        from ..work.commands import sample_estimate
        from ..work.cost import grid_size

        sizes = grid_size(settings.n_range, settings.n_step) + len(settings.sizes)
        check_work(sample_estimate(candidates.n_candidates, len(settings.measures) + len(settings.pairs), sizes,
                                   settings.design.interval), budget, where=where)
    if rankings is None:
        rankings = rankings_for(candidates, settings.measures, ties=settings.ties, seed=settings.seed)
    rankings = {m: rankings[m] for m in settings.measures}
    if settings.design is not None:
        return _sample_results(candidates, settings, rankings, frame)
    sizes = np.array(settings.sizes, dtype=np.int64)
    precision = pd.concat([precision_curve(rankings[m], sizes, confidence_level=settings.level,
                                           interval=settings.interval) for m in settings.measures],
                          ignore_index=True)
    precision["measure"] = precision["measure"].astype(str)
    if comparison is None:
        comparison = pair_comparison_table(rankings, settings)
    return ReportResults(settings=settings, n_candidates=candidates.n_candidates, n_tp=candidates.n_tp,
                         excluded_unlabelled=candidates.excluded_unlabelled,
                         precision=precision[list(PRECISION_COLUMNS)],
                         pairs=_pairs_table(rankings, settings, sizes, effects), comparison=comparison,
                         rankings=rankings)


def design_frame(settings: ReportSettings):
    """The :class:`evalcore.estimates.SamplingFrame` of a report's sample design (its frame ranked with the
    design's ties and seed, else the report's)."""
    from ..estimates import SamplingFrame

    d = settings.design
    if not d.frame:
        return SamplingFrame()
    ties = d.frame_ties or settings.ties
    seed = d.frame_seed if d.frame_ties is not None else settings.seed
    return SamplingFrame(measures=d.frame, k=d.frame_k, ties=ties, seed=seed if ties == "random" else None)


def _sample_results(candidates: CandidateSet, settings: ReportSettings, rankings: Mapping, frame) -> ReportResults:
    from .. import estimates

    d = settings.design
    frame = design_frame(settings) if frame is None else frame
    if d.stratified:
        return _pooled_results(candidates, settings, rankings, frame, None,
                               strata=stratified_strata(settings, candidates, rankings, frame))
    mask = frame.mask(candidates, rankings)
    if d.pooled:
        return _pooled_results(candidates, settings, rankings, frame, mask)
    sizes = np.array(settings.sizes, dtype=np.int64)
    level = settings.level
    precision = pd.concat([estimates.precision_estimates(rankings[m], sizes, frame=mask, confidence_level=level,
                                                         interval=d.interval, min_annotated=d.min_annotated)
                           for m in settings.measures], ignore_index=True)
    precision["measure"] = precision["measure"].astype(str)

    def tested(a: str, b: str, n) -> pd.DataFrame:
        return estimates.tested_comparison(rankings[a], rankings[b], n, frame=mask, confidence_level=level,
                                           correction="none", min_annotated=d.min_annotated,
                                           difference_method=settings.difference_interval)

    pairs = pd.concat([tested(a, b, sizes).assign(a=a, b=b) for a, b in settings.pairs], ignore_index=True)
    pairs = pairs[["a", "b", *[c for c in pairs.columns if c not in ("a", "b")]]]
    _correct(pairs, settings)
    lo, hi = settings.n_range
    comparison = tested(*settings.pair, grid_sizes((lo, hi), settings.n_step))
    _correct(comparison, settings)
    base = estimates.baseline_estimate(rankings[settings.measures[0]], frame=mask, confidence_level=level,
                                       interval=d.interval)
    summary = SampleSummary(frame_size=base.population, frame=frame.describe(), m=base.m, k=base.k,
                            estimate=base.estimate, lower=base.lower, upper=base.upper)
    return ReportResults(settings=settings, n_candidates=candidates.n_candidates, n_tp=base.k,
                         excluded_unlabelled=candidates.excluded_unlabelled, precision=precision, pairs=pairs,
                         comparison=comparison, rankings=rankings, sample=summary, frame=mask)


def pooled_design(settings: ReportSettings, frame):
    """The :class:`evalcore.pooling.Design` of a report's pooled design (its pool the frame, m and the seed)."""
    from ..pooling.design import Design

    d = settings.design
    return Design(d.kind, frame, size=d.pool_sample or 0, seed=d.draw_seed)  # (None: the seed is not known)


def stratified_strata(settings: ReportSettings, candidates: CandidateSet, rankings: Mapping, frame=None):
    """A stratified design over the candidates (:class:`evalcore.pooling.Strata`): its bands cut by the frame's
    measures, ties and seed (the design's, else the report's), its band sizes the design's, else the annotated
    candidates of each band."""
    from ..estimates import SamplingFrame
    from ..pooling.strata import Strata
    from ..pooling.stratified import Bands, StratifiedDesign, best_rank
    from ..ranking import SEEDED_TIES

    d = settings.design
    if frame is None or frame.whole:
        ties = d.frame_ties or settings.ties
        seed = d.frame_seed if d.frame_ties is not None else settings.seed
        frame = SamplingFrame(measures=d.frame, k=d.frame_k, ties=ties, seed=seed if ties in SEEDED_TIES else None)
    probe = StratifiedDesign(frame=frame, widths=d.bands, sizes=(1,) * (len(d.bands) + 1), seed=d.draw_seed or 0)
    bands = Bands.of(best_rank(probe.rankings(candidates, rankings)), d.bands)
    annotated = np.ones(candidates.n_candidates, bool) if candidates.annotated is None else candidates.annotated
    sizes = d.band_sizes or tuple(int(x) for x in np.bincount(bands.band[annotated], minlength=bands.n_bands))
    design = StratifiedDesign(frame=frame, widths=d.bands, sizes=sizes, seed=d.draw_seed or 0)
    return Strata(design=design, pool=None, frame=None, bands=bands)


def _pooled_results(candidates: CandidateSet, settings: ReportSettings, rankings: Mapping, frame,
                    pool: np.ndarray | None, strata=None) -> ReportResults:
    """A pooled (or stratified: ``strata``) design's numbers: the estimates of :class:`evalcore.pooling.Strata`, the
    ones the pages show (exact inside the pool; beyond it the pooled counts plus the sampled stratum)."""
    from ..pooling.strata import Strata

    d = settings.design
    if strata is None:
        strata = Strata(design=pooled_design(settings, frame), pool=pool, frame=None)
    sizes = np.array(settings.sizes, dtype=np.int64)
    level = settings.level
    precision = pd.concat([strata.precision(rankings[m], sizes, confidence_level=level, interval=d.interval,
                                            min_annotated=d.min_annotated) for m in settings.measures],
                          ignore_index=True)
    precision["measure"] = precision["measure"].astype(str)
    precision["regime"] = precision["regime"].astype(str)

    def tested(a: str, b: str, n) -> pd.DataFrame:
        table = strata.with_difference(strata.compare(rankings[a], rankings[b], n, confidence_level=level,
                                                      min_annotated=d.min_annotated),
                                       level, settings.difference_interval)
        return table.assign(regime=table["regime"].astype(str))

    pairs = pd.concat([tested(a, b, sizes).assign(a=a, b=b) for a, b in settings.pairs], ignore_index=True)
    pairs = pairs[["a", "b", *[c for c in pairs.columns if c not in ("a", "b")]]]
    _correct(pairs, settings)
    comparison = tested(*settings.pair, grid_sizes(settings.n_range, settings.n_step))
    _correct(comparison, settings)
    base = strata.baseline(rankings[settings.measures[0]], confidence_level=level, interval=d.interval)
    summary = SampleSummary(frame_size=base.population, frame=strata.describe(), m=base.m,
                            k=base.k, estimate=base.estimate, lower=base.lower, upper=base.upper)
    return ReportResults(settings=settings, n_candidates=candidates.n_candidates, n_tp=base.k,
                         excluded_unlabelled=candidates.excluded_unlabelled, precision=precision, pairs=pairs,
                         comparison=comparison, rankings=rankings, sample=summary, frame=pool, strata=strata)


def _correct(table: pd.DataFrame, settings: ReportSettings) -> None:
    """The settings' correction over the tested rows of a sample comparison (``enough``), in place."""
    tested = table["enough"].to_numpy(bool)
    adjusted = np.full(len(table), np.nan)
    adjusted[tested] = adjust_pvalues(table.loc[tested, "p_value"].to_numpy(float), settings.correction)
    table["p_adjusted"] = adjusted
    with np.errstate(invalid="ignore"):
        table["significant"] = tested & (adjusted < settings.alpha)


def report_curves(results: ReportResults) -> pd.DataFrame:
    """Every measure at every n of the range with its interval: the data of Figures 1-3
    (:func:`evalcore.analysis.curves`); with a sample, the estimates (``precision`` = k / m, ``tp`` = k) at the
    n inside the frame where the list holds an annotated candidate."""
    s = results.settings
    lo, hi = s.n_range
    if s.design is None:
        return curves(results.rankings, range(lo, hi + 1), confidence_level=s.level, interval=s.interval)
    from .. import estimates

    sizes = np.arange(lo, hi + 1)
    if results.strata is not None:  # a pooled design: the pages' pooled estimates
        table = pd.concat([results.strata.precision(results.rankings[m], sizes, confidence_level=s.level,
                                                    interval=s.design.interval, min_annotated=s.design.min_annotated)
                           for m in s.measures], ignore_index=True)
    else:
        table = pd.concat([estimates.precision_estimates(results.rankings[m], sizes, frame=results.frame,
                                                         confidence_level=s.level, interval=s.design.interval,
                                                         min_annotated=s.design.min_annotated)
                           for m in s.measures], ignore_index=True)
    table = table[table["in_frame"]].dropna(subset=["estimate"])
    return table.assign(measure=table["measure"].astype(str), precision=table["estimate"], tp=table["k"])


def figure_summary(results: ReportResults) -> dict:
    """Figure 3 in numbers: the pair, the tested range, how many n are tested and significant, and up to which n
    all are."""
    comparison = results.comparison
    a, b = results.settings.pair
    return {"a": a, "b": b, "first_n": int(comparison["n"].iloc[0]), "last_n": int(comparison["n"].iloc[-1]),
            "tested": results.n_figure_tests, "significant": results.n_significant,
            "significant_up_to": results.up_to}


def report_numbers(results: ReportResults) -> dict[str, object]:
    """The tables of numbers a report holds (``data.json``) and its signature's digest covers.

    Returns
    -------
    dict
        ``data`` (N, TPs, baseline, rows excluded; with a sample: N, the frame's size, the annotated
        candidates and TPs, and the baseline estimated with its interval), ``precision`` and ``pairs`` (the
        DataFrames of :class:`ReportResults`), ``figure3`` (:func:`figure_summary`).
    """
    if results.sample is not None:
        sample = results.sample
        data = {"candidates": results.n_candidates, "frame": sample.frame_size, "annotated": sample.m,
                "annotated_true_positives": sample.k, "baseline": sample.estimate,
                "baseline_lower": sample.lower, "baseline_upper": sample.upper}
        if results.strata is not None and results.strata.stratified:  # bands, their candidates, sizes, annotated
            strata = results.strata
            design = strata.design
            data["design"] = {"kind": design.kind, "measures": list(design.frame.measures),
                              "bands": list(design.widths), "band_candidates": [int(x) for x in strata.bands.counts],
                              "band_sizes": list(design.sizes), "seed": results.settings.design.draw_seed}
        elif results.strata is not None:  # the pooled design: kind, measures, depth K, pool size, m, seed
            design = results.strata.design
            data["design"] = {"kind": design.kind, "measures": list(design.frame.measures), "depth": design.depth,
                              "pool_size": results.strata.pool_size, "sample_size": design.size,
                              "seed": results.settings.design.draw_seed}
        return {
            "data": data,
            "precision": results.precision,
            "pairs": results.pairs,
            "figure3": figure_summary(results),
        }
    return {
        "data": {"candidates": results.n_candidates, "true_positives": results.n_tp,
                 "baseline": results.baseline, "excluded_unlabelled": results.excluded_unlabelled},
        "precision": results.precision,
        "pairs": results.pairs,
        "figure3": figure_summary(results),
    }


def results_digest(results: ReportResults) -> str:
    """The ``numbers`` field of a report's signature (:func:`evalcore.report.signature.numbers_digest`)."""
    return numbers_digest(report_numbers(results))


def numbers_json(numbers: Mapping[str, object]) -> dict:
    """:func:`report_numbers` as plain JSON values (DataFrames as lists of records; NaN as null)."""
    def plain(value):
        if isinstance(value, pd.DataFrame):
            return [{k: plain(v) for k, v in row.items()} for row in value.to_dict(orient="records")]
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (np.bool_, bool)):
            return bool(value)
        if isinstance(value, (np.integer, int)):
            return int(value)
        if isinstance(value, (np.floating, float)):
            return None if not np.isfinite(value) else float(value)
        return value
    return plain(numbers)
