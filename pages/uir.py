"""Unanimous improvement (Amigó et al.): does A beat B whatever the weight of precision against recall?"""

import streamlit as st

from evalcore.figures import samples as samplefigures
from evalcore import format as fmt
from evalcore.errors import EvalcoreError
from evalcore.text import markdown_text as esc
from evalcore_app import cached, common, guards, present, widgets

common.ensure_router()

st.header("Unanimous Improvement Ratio over the samples")
data = guards.require_experiment()
candidates = data.candidates
measures = list(candidates.measures)
c1, c2, c3 = st.columns(3)
a, b = widgets.measure_pair(data, (c1, c2))
with c3:
    widgets.bound(st.slider, "Robustness threshold", "uir_threshold", min_value=0.05, max_value=1.0, step=0.05,
                 convert=lambda x: round(float(x), 2), help="Amigó et al.: |UIR| ≥ 0.25 is a robust improvement")
v = common.view()
with st.expander("Cut-offs: where each measure's ranking is cut in every sample", expanded=True):
    cuts = widgets.cut_controls(candidates, measures, {m: cached.gamma_positions(data, m) for m in measures},
                                cached.default_gammas(data, tuple(measures), common.view().cut_n))
try:
    res = cached.uir(data, v.ranking, tuple(cuts.items()), a, b, v.uir_threshold)
except EvalcoreError as exc:
    st.warning(esc(exc))
    common.stop()

p = res.pair
name_a, name_b = esc(widgets.shown(a)), esc(widgets.shown(b))
st.markdown(f"On precision and recall: {name_a} is at least as good as {name_b} on both in **{p.a_unanimous}** of "
            f"{p.k} samples, {name_b} in **{p.b_unanimous}** ({p.all_tied} tied on all). "
            f"**UIR({name_a}, {name_b}) = {fmt.signed(p.uir, 3)}**: {p.verdict}.")
if res.flips:
    st.markdown("Mean F_α over the samples ranks them differently depending on α: the order flips at α = "
                + ", ".join(f"**{a:.3f}**" for a in res.flips) + ". A fixed F would hide this.")
else:
    better = name_a if res.sweep["difference"].mean() > 0 else name_b
    st.markdown(f"Mean F_α ranks **{better}** first for every α from 0 to 1.")
if res.dropped:
    st.caption(f"Left out, because a measure accepted nothing or a sample has no TPs: {esc(', '.join(res.dropped))}.")
sweep_fig = samplefigures.f_sweep_figure(res.sweep, res.flips, a=widgets.shown(a), b=widgets.shown(b))
st.plotly_chart(sweep_fig, key="uir_sweep", theme=None)
st.subheader("Every pair: UIR of the row measure against the column measure")
matrix = present.matrix_named(res.matrix)  # display names, in the figure and the download
matrix_fig = samplefigures.uir_heatmap(matrix, threshold=v.uir_threshold)
st.plotly_chart(matrix_fig, key="uir_matrix", theme=None)
present.downloads(matrix_fig, matrix.reset_index(names="measure"), "uir", shows=tuple(cuts),
                  options={"cut": tuple(cuts.values()), "uir-threshold": v.uir_threshold})
st.caption(f"\\* marks |UIR| ≥ {v.uir_threshold:g}: a robust improvement whatever the weight of the metrics (a "
           "sample where a measure is at least as good on precision and on recall is so on every F-β).")
