"""Threshold: a gamma-acceptance set {g >= gamma} with its precision, interval, recall and neighbours."""

import numpy as np
import streamlit as st

from evalcore import analysis
from evalcore import format as fmt
from evalcore.figures import paper as figures
from evalcore.text import markdown_text as esc
from evalcore_app import cached, common, guards, present, sample, sample_pages, widgets
from evalcore_app import threshold as controls

common.ensure_router()

st.header("Score thresholds: gamma-acceptance sets")
if sample.mode(common.view()) != "full":  # a partly annotated set: estimates from the sample annotated so far
    sample_pages.threshold_section()
    common.stop()
data = guards.require_data()
candidates = data.candidates
v = common.view()
measures = list(cached.quality(data, v.ranking))  # best first by average precision
if v.threshold_measure is None:
    common.update(threshold_measure=measures[0])
c1, c2 = st.columns(2)
with c1:
    controls.measure_select(data, measures)
with c2:
    widgets.bound(st.radio, "Set the cut-off by", "threshold_mode", options=["gamma", "n"], horizontal=True,
                 format_func={"gamma": "score threshold gamma", "n": "list size n"}.get)
v = common.view()
ranking = cached.ranking_of(data, v.threshold_measure, v.ranking)
shown = widgets.shown(v.threshold_measure)
positions = analysis.threshold_quantiles(ranking)
if not len(positions):
    st.warning(f"{esc(shown)} has no finite score (all are NaN or infinite): no threshold cuts it. "
               "Choose another measure.")
    common.stop()
if v.threshold_mode == "n":
    if v.threshold_n is None:
        common.update(threshold_n=min(1000, candidates.n_candidates))
    n = widgets.bound(st.slider, "n", "threshold_n", min_value=1, max_value=candidates.n_candidates, convert=int)
    gamma = analysis.gamma_for_n(ranking, n)
else:
    if v.gamma is None:
        common.update(gamma=float(positions[np.argmin(np.abs(positions - np.median(positions)))]))
    gamma = controls.gamma_controls(positions)  # any γ, typed exactly or slid over the quantiles
res = analysis.threshold_result(ranking, gamma, confidence_level=common.view().level,
                                interval=common.view().interval)
m1, m2, m3, m4 = st.columns(4)
level = fmt.level(common.view().level)
m1.metric("Accepted", fmt.count(res["size"]))
m2.metric("TPs", fmt.count(res["tp"]))
m3.metric("Precision", fmt.percent(res["precision"]) if res["size"] else fmt.MISSING,
          help=f"{level} interval: {fmt.percent(res['lower'])} to {fmt.percent(res['upper'])}" if res["size"] else None)
m4.metric("Recall", fmt.percent(res["recall"]))
if res["size"]:
    st.caption(f"{level} confidence interval for the precision: {fmt.percent(res['lower'])} to "
               f"{fmt.percent(res['upper'])}")
scores = candidates.scores[v.threshold_measure]
log_count, log_score = controls.axis_toggles(scores)
fig = figures.threshold_histogram(scores, candidates.labels, gamma=gamma, measure=shown,
                                  higher_is_better=ranking.higher_is_better, log_count=log_count,
                                  log_score=log_score)
neighbours = widgets.displayed(analysis.threshold_neighbours(candidates, ranking, int(res["size"])),
                               (v.threshold_measure,))
st.plotly_chart(fig, key="threshold_chart", theme=None)
present.downloads(fig, neighbours, "threshold", shows=(v.threshold_measure,), at=int(res["size"]))
st.markdown("**Candidates next to the cut-off**")
present.table("threshold", "neighbours", neighbours)

with st.expander("Compare with another measure at its own threshold"):
    other = widgets.bound(st.selectbox, "Second measure", "compare_measure", options=[None] + measures,
                         format_func=lambda m: "(none)" if m is None else widgets.shown(m))
    other_ranking = None if other is None else cached.ranking_of(data, other, v.ranking)
    other_positions = [] if other is None else [float(p) for p in analysis.threshold_quantiles(other_ranking)]
    if other is not None and not other_positions:
        st.warning(f"{esc(widgets.shown(other))} has no finite score: no threshold cuts it. Choose another measure.")
    if other_positions:
        if common.view().compare_gamma is None:
            common.update(compare_gamma=other_positions[len(other_positions) // 2])
        elif common.view().compare_gamma not in other_positions:
            common.correct(f"gamma = {common.view().compare_gamma:.6g} is not a position of the slider of "
                           f"{widgets.shown(other)}; "
                           "using its median.", compare_gamma=other_positions[len(other_positions) // 2])
        gamma_b = widgets.bound(st.select_slider, "its gamma", "compare_gamma", options=other_positions,
                               format_func=fmt.score, convert=float)
        cmp = analysis.compare_thresholds(ranking, gamma, other_ranking, gamma_b, confidence_level=v.level)
        st.markdown(f"Acceptance sets: {fmt.count(cmp['size_a'])} ({esc(shown)}) and {fmt.count(cmp['size_b'])} "
                    f"({esc(widgets.shown(other))}); Fisher's exact test on the difference regions: "
                    f"{fmt.p_statement(cmp['p_value'])}")
        if cmp["unequal"]:
            st.warning("The two acceptance sets differ much in size. Comparing their precision is unfair: the "
                       "smaller set tends to win whatever the measures are worth (Evert 2004, footnote 13). "
                       "Compare n-best lists of equal size, or take recall into account.")
