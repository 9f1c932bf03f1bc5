"""Pairwise: Fisher's exact test on D1/D2 for every pair of measures at one n, corrected across the pairs."""

import streamlit as st

from evalcore import format as fmt
from evalcore import names
from evalcore.figures import pairwise as pairfigures
from evalcore.stats.multitest import CORRECTIONS
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, MAX_MEASURES
from evalcore_app import cached, common, guards, present, widgets

common.ensure_router()

st.header("Every pair of measures at one n")
data = guards.require_data()
candidates = data.candidates
c1, c2 = st.columns([2, 1])
with c1:
    measures = widgets.measures_select(f"Measures (2 to {MAX_MEASURES})", data, prompt="Choose at least two measures.",
                                       least=2)
with c2:
    widgets.bound(st.selectbox, "Correction across the pairs", "correction", options=list(CORRECTIONS),
                 format_func=CORRECTIONS.get)
c3, c4, c5 = st.columns(3)
if common.view().pairs_n is None:
    common.update(pairs_n=min(1000, candidates.n_candidates))
with c3:
    n = widgets.bound(st.number_input, "n-best lists of size n", "pairs_n", min_value=1,
                     max_value=candidates.n_candidates, step=50, convert=int)
with c4:
    widgets.bound(st.slider, "Confidence level (alpha = 1 - level)", "level", min_value=LEVEL_MIN,
                 max_value=LEVEL_MAX, step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))
with c5:
    widgets.bound(st.selectbox, "Interval of the difference", "difference_method",
                  options=list(names.DIFFERENCE_INTERVALS), format_func=names.DIFFERENCE_INTERVALS.get)
v = common.view()
result = cached.pairwise(data, v.ranking, v.display, measures, n, v.level, v.correction, v.interval,
                         v.difference_method)
alpha = 1 - v.level
pairs = result.pairs
st.markdown(f"At n = {n:,}, **{int(pairs['significant'].sum())} of {len(pairs)}** pairs differ significantly "
            f"(alpha = {alpha:.3g}, correction: {CORRECTIONS[v.correction]}).")
fig = pairfigures.pvalue_heatmap(result.matrix, alpha=alpha, n=n, correction_label=CORRECTIONS[v.correction])
st.plotly_chart(fig, key="pairwise_chart", theme=None)
present.downloads(fig, pairs.assign(difference_interval=v.difference_method), "pairwise", shows=tuple(measures), at=n)
left, right = st.columns([1, 1])
with left:
    st.markdown(f"**Precision of each {n:,}-best list** ({fmt.level(v.level)} interval)")
    present.table("pairwise", "precision", result.precision)
with right:
    labels = [f"{a} vs {b}" for a, b in zip(pairs["a"], pairs["b"])]
    focus = st.selectbox("Look at a pair at every n", range(len(labels)), format_func=labels.__getitem__,
                         key="w_focus_pair")
    if st.button("Open it on the Significance page", key="w_open_pair"):
        by_shown = {v.display.of(m): m for m in measures}  # the table names measures by their display names
        common.update(a=by_shown[pairs["a"].iloc[focus]], b=by_shown[pairs["b"].iloc[focus]])
        st.switch_page(common.PAGES["significance"])
present.table("pairwise", "pairs", pairs[["a", "b", "tp_a", "tp_b", "tp_d1", "fp_d1", "tp_d2", "fp_d2",
                                          "p_value", "p_adjusted", "significant", "diff", "diff_low", "diff_high",
                                          "odds_ratio", "or_low", "or_high"]])
st.caption(f"diff = Π\\_A − Π\\_B with its {100 * v.level:g}% interval "
           f"({names.DIFFERENCE_INTERVALS[v.difference_method]}, scaled by d/n); odds ratio of "
           "TPs in D1 against D2 (conditional MLE) with its exact interval, as R's fisher.test. Intervals are not "
           "corrected across the pairs.")
