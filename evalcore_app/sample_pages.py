"""The sections of the Precision, Confidence, Threshold and Significance pages that estimate from a random sample
of annotations (see :mod:`evalcore_app.sample`): the widgets the full-data pages have, the estimates with the annotated
counts behind them, the random-sample note, and (Precision) how many more candidates to annotate.

Each page calls its section when :func:`evalcore_app.sample.mode` is ``"sample"`` (or ``"unannotated"``) and stops.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import analysis
from evalcore import format as fmt
from evalcore.compare import significant_up_to
from evalcore.figures import paper as figures
from evalcore.names import DIFFERENCE_INTERVALS, PAIR_TESTS, SAMPLE_INTERVAL_LABELS
from evalcore.stats.effect import odds_ratio
from evalcore.stats.multitest import CORRECTIONS
from evalcore.text import markdown_text as esc
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, MAX_BANDS, n_options
from evalcore_app import common, present, sample, widgets

PERCENT = ("estimate", "lower", "upper", "estimate_d1", "estimate_d2", "difference", "difference_low",
           "difference_high")
GREY = "color: #9e9e9e; background-color: #f3f3f3"


def _percent(table: pd.DataFrame) -> dict:
    """Percent columns are shown through the Styler of :func:`_greyed` (its display values)."""
    return {}


def _greyed(table: pd.DataFrame):
    """The table with the rows of too few annotated candidates (``enough`` False) greyed out; percentages as
    ``44.44%``, and where a number cannot be estimated an en dash, the row's ``why`` column saying why in words
    (the cells keep their numbers, so columns sort as numbers)."""
    grey = np.where(table["enough"].to_numpy(bool), "", GREY)
    styled = table.style.apply(lambda t: pd.DataFrame(np.repeat(grey[:, None], t.shape[1], axis=1), index=t.index,
                                                      columns=t.columns), axis=None)
    columns = {c: (fmt.points if c.startswith("difference") else fmt.percent) for c in PERCENT if c in table.columns}
    columns.update({c: fmt.p_value for c in ("p_value", "p_adjusted") if c in table.columns})
    return styled.format(columns, na_rep=fmt.MISSING)


def _level_slider(label: str = "Confidence level") -> None:
    widgets.bound(st.slider, label, "level", min_value=LEVEL_MIN, max_value=LEVEL_MAX, step=LEVEL_STEP,
                  format="%.3f", convert=lambda x: round(float(x), 3))


def _refresh(s: sample.Sample) -> sample.Sample:
    return replace(s, view=common.view())


# ---------------------------------------------------------------- Precision and Confidence

def curves_section(page: str) -> None:
    """Estimated n-best precision with exact intervals ("precision": with the values at one n and how many more;
    "confidence": with the level and the interval method)."""
    s = sample.require()
    chosen = sample.measures_select(s, f"Measures (the first {MAX_BANDS} are estimated)")
    N = s.candidates.n_candidates
    n_min, n_max = widgets.n_range_slider("Range of n (n-best list size)", N)
    if page == "confidence":
        c1, c2 = st.columns(2)
        with c1:
            _level_slider()
        with c2:
            sample.interval_select()
    s = _refresh(s)
    v = s.view
    measures = chosen[:MAX_BANDS]
    if len(chosen) > MAX_BANDS:
        st.caption(f"The estimates of the first {MAX_BANDS} of the {len(chosen)} chosen measures.")
    table = s.curves(measures, (n_min, n_max))
    baseline = s.baseline()
    s.note()
    shown = table[table["in_frame"]].dropna(subset=["precision"])
    fig = figures.confidence_figure(shown, baseline=baseline.estimate if baseline.m else 0.0, level=v.level,
                                    method_label=f"{SAMPLE_INTERVAL_LABELS[v.sample_interval]}, from the sample")
    st.plotly_chart(fig, key=f"{page}_estimates_chart", theme=None)
    present.downloads(fig, table, f"{page}_estimates")
    if s.stratified:
        st.text(f"Baseline from the stratified design ({baseline.k:,} TPs among {baseline.m:,} annotated, estimated "
                "band by band): " + fmt.estimate_with_interval(baseline.estimate, baseline.lower, baseline.upper,
                                                                None if baseline.m else "no candidate is annotated"))
    elif s.pooled:
        st.text(f"Baseline from the pooled design ({baseline.k:,} TPs among {baseline.m:,} annotated, the pool's "
                "known and the sample's a sample of the rest): "
                + fmt.estimate_with_interval(baseline.estimate, baseline.lower, baseline.upper,
                                             None if baseline.m else "no candidate is annotated"))
    else:
        st.text(f"Baseline from the sample: {baseline.k:,} TPs of {baseline.m:,} annotated = "
                + fmt.estimate_with_interval(baseline.estimate, baseline.lower, baseline.upper,
                                             None if baseline.m else "no candidate is annotated"))
    if page == "precision":
        if v.n_at is None:
            common.update(n_at=n_max)
        elif not n_min <= v.n_at <= n_max:
            common.correct(f"n = {v.n_at:,} for the values is outside the range {n_min:,} to {n_max:,}; showing "
                           f"n = {n_max:,}.", n_at=n_max)
        at = int(widgets.bound(st.number_input, "Values at n", "n_at", min_value=n_min, max_value=n_max, step=1,
                               convert=int))
    else:
        at = n_max
    strata = (["pooled", "pooled_tp", "rest", "rest_m", "rest_k", "regime"] if s.pooled else
              ["effective", "regime"] if s.stratified else [])
    rows = table[table["n"] == at][["measure", "n", "m", "k", "estimate", "lower", "upper", "enough", "in_frame"]
                                   + strata]
    rows = rows.assign(why=fmt.estimate_notes(rows)).drop(columns="in_frame")
    if s.stratified:
        st.caption("effective: the effective sample size of the list's estimate (Kish; 'inf' where the list is known "
                   "exactly); regime: exact, estimated band by band, by a band's rate where the list's part of a band "
                   "holds none annotated, or not estimated where a band has none annotated.")
    if s.pooled:
        st.caption("pooled / pooled_tp: the list's candidates in the pool and their TPs (known); rest / rest_m / "
                   "rest_k: its candidates outside the pool, the sampled ones and their TPs; regime: exact (the list "
                   "lies inside the pool) or estimated (beyond it).")
    st.caption(f"At n = {at:,}: m annotated candidates in each n-best list, k of them TPs; greyed out ('enough' "
               f"False) where fewer than {v.min_annotated} annotated candidates carry the estimate; 'why' says why "
               "a number cannot be estimated.")
    st.dataframe(_greyed(rows), hide_index=True, column_config=_percent(rows))
    if page == "precision":
        sample.how_many_more_section(s, measures, at)


# ---------------------------------------------------------------- Threshold

def threshold_section() -> None:
    """A gamma-acceptance set's precision estimated from the sample (:func:`evalcore.estimates.acceptance_estimates`)."""
    s = sample.require()
    measures = list(s.candidates.measures)
    if s.view.threshold_measure not in measures:
        common.update(threshold_measure=measures[0])
    c1, c2, c3 = st.columns(3)
    with c1:
        widgets.bound(st.selectbox, "Measure", "threshold_measure", options=measures, format_func=widgets.shown)
    with c2:
        widgets.bound(st.radio, "Set the cut-off by", "threshold_mode", options=["gamma", "n"], horizontal=True,
                      format_func={"gamma": "score threshold gamma", "n": "list size n"}.get)
    with c3:
        sample.interval_select()
    s = _refresh(s)
    v = s.view
    ranking = s.ranking(v.threshold_measure)
    positions = [float(p) for p in analysis.threshold_quantiles(ranking)]
    if not positions:
        st.warning(f"{esc(widgets.shown(v.threshold_measure))} has no finite score: no threshold cuts it. Choose "
                   "another measure.")
        common.stop()
    if v.threshold_mode == "n":
        if v.threshold_n is None:
            common.update(threshold_n=min(1000, s.candidates.n_candidates))
        n = widgets.bound(st.slider, "n", "threshold_n", min_value=1, max_value=s.candidates.n_candidates,
                          convert=int)
        gamma = analysis.gamma_for_n(ranking, n)
    else:
        middle = positions[len(positions) // 2]
        if v.gamma is None:
            common.update(gamma=middle)
        elif v.gamma not in positions:
            common.correct(f"gamma = {v.gamma:.6g} is not a position of the slider; using the median.", gamma=middle)
        gamma = widgets.bound(st.select_slider, "gamma (positions are score quantiles)", "gamma", options=positions,
                              format_func=lambda g: f"{g:.6g}", convert=float)
    v = common.view()
    row = s.strata.acceptance(ranking, [gamma], confidence_level=v.level, interval=v.sample_interval,
                              min_annotated=v.min_annotated)
    s.note()
    r = row.iloc[0]
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Accepted", f"{int(r['size']):,}")
    m2.metric("Annotated in it", f"{int(r['m']):,}")
    m3.metric("TPs among them", f"{int(r['k']):,}")
    why = fmt.no_estimate_reason(int(r["size"]), int(r["m"]), bool(r["in_frame"]))
    m4.metric("Estimated precision", fmt.percent(r["estimate"]) if why is None else "not estimated")
    if why is not None and r["in_frame"]:
        st.text(f"No estimate for the {int(r['size']):,} accepted candidates: {why}.")
    elif r["in_frame"]:
        st.text(f"{fmt.level(v.level)} interval for the precision of the {int(r['size']):,} accepted candidates: "
                f"{fmt.percent(r['lower'])} to {fmt.percent(r['upper'])}, from {int(r['m']):,} annotated "
                f"({int(r['k']):,} TPs).")
    else:
        st.info("The acceptance set reaches outside the part of the candidates the sample was drawn from: the sample "
                "says nothing about it. Choose a stricter threshold.")
    if not r["enough"]:
        st.caption(f"Fewer than {v.min_annotated} annotated candidates carry this estimate: it is greyed out.")
    shown = row.assign(measure=widgets.shown(v.threshold_measure), n=row["size"])
    shown = shown.assign(why=fmt.estimate_notes(shown)).drop(columns="n")
    st.dataframe(_greyed(shown), hide_index=True, column_config=_percent(row))


# ---------------------------------------------------------------- Significance

def comparison(s: sample.Sample, a: str, b: str, n_range: tuple[int, int]) -> pd.DataFrame:
    """Fisher's test on the annotated candidates of D1 and D2 over the range, as the report computes it
    (:func:`evalcore.estimates.tested_comparison`): the view's correction over the n tested (those with enough
    annotated candidates), the view's interval of the difference of the regions' TP rates."""
    v = s.view
    if s.pooled or s.stratified:  # the design's own test (evalcore.pooling: pooled_compare, stratified_compare)
        return sample.pooled_pair(v.data, s.labels, v.ranking, a, b, tuple(n_range), v.level, v.min_annotated,
                                  v.correction, v.difference_method)
    return sample.sample_pair(v.data, s.labels, v.ranking, a, b, tuple(n_range), v.level, v.min_annotated,
                              v.correction, v.difference_method)


def _grey_runs(fig, n: np.ndarray, enough: np.ndarray, most: int = 40) -> None:
    """Shade the runs of n where too few annotated candidates carry the test (at most ``most`` runs)."""
    bad = ~enough
    starts = np.flatnonzero(bad & ~np.r_[False, bad[:-1]])
    ends = np.flatnonzero(bad & ~np.r_[bad[1:], False])
    for i, (lo, hi) in enumerate(zip(starts[:most], ends[:most])):
        fig.add_vrect(x0=n[lo] - 0.5, x1=n[hi] + 0.5, fillcolor="#bdbdbd", opacity=0.25, line_width=0, layer="below",
                      annotation_text="too few annotated" if i == 0 else None, annotation_position="top left")


def significance_section() -> None:
    """Fisher's exact test on the annotated candidates of D1 and D2 at every n, with the counts behind it."""
    s = sample.require()
    c1, c2, c3 = st.columns(3)
    a, b = sample.pair_select(s, (c1, c2))
    with c3:
        _level_slider("Confidence level (alpha = 1 - level)")
    n_min, n_max = widgets.n_range_slider("Range of n (every n in it is tested)", s.candidates.n_candidates)
    c4, c5, c6 = st.columns(3)
    with c4:
        widgets.bound(st.number_input, "Test only n where D1 and D2 each hold at least this many annotated",
                      "min_annotated", min_value=0, max_value=1000, step=1, convert=int)
    with c5:
        widgets.bound(st.selectbox, "Correction for testing every n", "correction", options=list(CORRECTIONS),
                      format_func=CORRECTIONS.get)
    with c6:
        widgets.bound(st.selectbox, "Interval of the difference", "difference_method",
                      options=list(DIFFERENCE_INTERVALS), format_func=DIFFERENCE_INTERVALS.get)
    s = _refresh(s)
    v = s.view
    test_name = ("the score test on the effective counts of D1 and D2 (Rao and Scott's design-effect adjustment; the "
                 "bands are sampled at different rates, so Fisher's test on the annotated counts would not hold)"
                 if s.stratified else "Fisher's exact test on the annotated candidates of D1 and D2")
    if v.test != "fisher" or s.stratified:
        st.info(f"With a sample of annotations the test is {test_name}, which needs only a sample of each region; "
                + (f"the chosen test ({esc(PAIR_TESTS[v.test])}) needs every candidate annotated and is used on the "
                   "full data. " if v.test != "fisher" else "")
                + "The report and the downloads of this page record the test used.", icon=":material/info:")
    table = comparison(s, a, b, (n_min, n_max))
    name_a, name_b = v.display.of(a), v.display.of(b)
    s.note()
    tested = table[table["enough"]]
    marked = table
    up_to = significant_up_to(marked)
    correction = "" if v.correction == "none" else f" after the {CORRECTIONS[v.correction]} correction over them"
    st.markdown(("The score test (two-sided) on the effective counts of D1 = A \\ B and D2 = B \\ A: "
                 if s.stratified else "Fisher's exact test (two-sided) on the annotated candidates of D1 = A \\ B "
                 "and D2 = B \\ A: ") + f"significant{correction} at **{int(tested['significant'].sum()):,} of {len(tested):,}** n tested "
                f"(n from {n_min:,} to {n_max:,}); {len(table) - len(tested):,} n are greyed out and not tested, with "
                f"fewer than {v.min_annotated} annotated candidates in D1 or D2 (or outside the sampling frame).")
    curves = s.curves((a, b), (n_min, n_max))
    curves = curves[curves["in_frame"]].dropna(subset=["precision"])
    sizes = marked["n"].to_numpy()
    est = {m: curves[curves["measure"] == m].set_index("n")["precision"].reindex(sizes).to_numpy() for m in (name_a, name_b)}
    compared = marked.assign(tp_a=np.nan_to_num(est[name_a]) * sizes, tp_b=np.nan_to_num(est[name_b]) * sizes)
    fig = figures.significance_figure(curves[curves["measure"] == name_a], curves[curves["measure"] == name_b],
                                      compared.fillna({"p_value": 1.0, "log10_p": 0.0}), up_to=up_to,
                                      alpha=1 - v.level)
    _grey_runs(fig, table["n"].to_numpy(), table["enough"].to_numpy(bool))
    st.plotly_chart(fig, key="significance_sample_chart", theme=None)
    present.downloads(fig, table.assign(test="score_effective" if s.stratified else "fisher", correction=v.correction,
                                        difference_interval=v.difference_method), "significance_sample")
    at = widgets.look_n_slider(n_min, n_max, up_to)
    _look_at(table[table["n"] == at].iloc[0], v, name_a, name_b, s.stratified)
    grid = [n for n in n_options(s.candidates.n_candidates) if n_min <= n <= n_max]
    rows = table[table["n"].isin(grid)].drop(columns=["log10_p"])
    rows = rows.assign(why=fmt.comparison_notes(rows, v.min_annotated))
    st.caption("At every n of the slider: the annotated candidates (m) and TPs (k) of D1 and D2 the test rests on; "
               "greyed out where too few, and 'why' says why an n is not tested.")
    st.dataframe(_greyed(rows), hide_index=True, column_config=_percent(rows), height=300)


def _look_at(row, v, name_a: str, name_b: str, stratified: bool = False) -> None:
    """The 2x2 table of the annotated candidates at one n, its p-value and the effect sizes on the same counts; where
    a number cannot be computed, why in words. A stratified design: the regions' effective counts and the score
    test (:func:`_look_at_strata`)."""
    if stratified:
        return _look_at_strata(row, v, name_a, name_b)
    k1, m1, k2, m2 = (int(row[c]) for c in ("k_d1", "m_d1", "k_d2", "m_d2"))
    n = int(row["n"])
    t1, t2 = st.columns([1, 2])
    with t1:
        st.dataframe({"": [f"D1: only {name_a}", f"D2: only {name_b}"], "in the region": [int(row["size_d"])] * 2,
                      "annotated": [m1, m2], "TPs": [k1, k2], "FPs": [m1 - k1, m2 - k2]}, hide_index=True)
    with t2:
        why = fmt.comparison_reason(row, v.min_annotated)
        _test_sentence(row, v, why, f"the test rests on {m1 + m2:,} annotated candidates ({m1:,} in D1, {m2:,} in "
                       "D2)")
        empty = fmt.no_estimate_reason(n, 0, region=" or ".join(r for r, m in (("D1", m1), ("D2", m2)) if m == 0)) \
            if 0 in (m1, m2) else None
        difference, method = _difference(row, v, empty or (None if row["in_frame"] else why))
        if empty is None and row["in_frame"]:
            ratio = odds_ratio(k1, m1 - k1, k2, m2 - k2, confidence_level=v.level)
            odds = fmt.estimate_with_interval(float(ratio.estimate), float(ratio.low), float(ratio.high),
                                              kind="number")
        else:
            odds = f"cannot be estimated: {empty or why}"
        st.text(f"pi_D1 - pi_D2 = {difference} ({method}); odds ratio {odds} (conditional, as Fisher's test), "
                f"{fmt.level(v.level)} intervals.")


def _look_at_strata(row, v, name_a: str, name_b: str) -> None:
    """A stratified design at one n: the annotated and effective counts of D1 and D2, the score test's p-value and the
    difference of the regions' estimated TP rates with its interval; where a number cannot be computed, why."""
    k1, m1, k2, m2 = (int(row[c]) for c in ("k_d1", "m_d1", "k_d2", "m_d2"))
    t1, t2 = st.columns([1, 2])
    with t1:
        st.dataframe({"": [f"D1: only {name_a}", f"D2: only {name_b}"], "in the region": [int(row["size_d"])] * 2,
                      "annotated": [m1, m2], "TPs": [k1, k2],
                      "estimated TP rate": [fmt.percent(row["estimate_d1"]), fmt.percent(row["estimate_d2"])],
                      "effective count": [f"{row['effective_d1']:.1f}", f"{row['effective_d2']:.1f}"]},
                     hide_index=True)
    with t2:
        why = fmt.comparison_reason(row, v.min_annotated)
        _test_sentence(row, v, why, f"the score test on the effective counts of D1 and D2 ({m1:,} and {m2:,} "
                       "annotated)")
        difference, method = _difference(row, v, None if row["in_frame"] else why)
        st.text(f"pi_D1 - pi_D2 = {difference} ({method} on the effective counts), {fmt.level(v.level)} interval; no "
                "odds ratio: the annotated counts of D1 and D2 come from bands sampled at different rates.")


def _test_sentence(row, v, why: str, rests_on: str) -> None:
    """The test at one n in words: no test outside the frame (why), else what it rests on, its p-value (adjusted
    where a correction is chosen) and its verdict at the page's level."""
    n = int(row["n"])
    if not row["in_frame"]:
        st.text(f"At n = {n:,} there is no test: {why}.")
        return
    adjusted = "" if v.correction == "none" or np.isnan(row["p_adjusted"]) else \
        f" (adjusted {fmt.p_value(row['p_adjusted'])})"
    verdict = (f"not tested: {why}" if not row["enough"] else
               ("significant" if row["significant"] else "not significant") + f" at alpha = {1 - v.level:.3g}")
    st.text(f"At n = {n:,} {rests_on}: {fmt.p_statement(row['p_value'], row['log10_p'])}{adjusted}, {verdict}.")


def _difference(row, v, empty: str | None) -> tuple[str, str]:
    """pi_D1 - pi_D2 at one n with its interval in points (or why it cannot be estimated), and the interval's
    method."""
    difference = fmt.estimate_with_interval(row["difference"], row["difference_low"], row["difference_high"], empty,
                                            kind="points")
    if not difference.startswith("cannot"):
        difference += " points"
    return difference, DIFFERENCE_INTERVALS[v.difference_method].split(" (")[0].split(":")[0]
