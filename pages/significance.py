"""Significance (Figure 3): Fisher's exact test on the difference regions of two measures, at every n."""

import streamlit as st

from evalcore import analysis, figures
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, default_n_range, n_grid
from pages import cached, common, guards, widgets

common.ensure_router()

st.header("Significant differences between two measures (Evert 2004, Figure 3)")
candidates = guards.require_data()
v = common.view()
N = candidates.n_candidates
measures = list(candidates.measures)

c1, c2, c3 = st.columns(3)
widgets.measure_pair(measures, (c1, c2))
with c3:
    widgets.bound(st.slider, "Confidence level (alpha = 1 - level)", "level", min_value=LEVEL_MIN,
                 max_value=LEVEL_MAX, step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))
low, high, step = n_grid(N)
n_min, n_max = widgets.n_range_slider("Range of n (every n in it is tested)", low, high, step, default_n_range(N))
v = common.view()

result = cached.pair(cached.roles(v), v.a, v.b, v.ties, v.seed, (n_min, n_max), v.level, v.interval)
tested = len(result.comparison)
st.markdown(f"Fisher's exact test (two-sided) on D1 = A \\ B and D2 = B \\ A: significant at "
            f"**{result.n_significant:,} of {tested:,}** n from {n_min:,} to {n_max:,}; "
            + (f"every n-best list from {n_min:,} **up to n = {result.up_to:,}** differs significantly."
               if result.up_to else f"not significant at n = {n_min:,}."))
fig = figures.significance_figure(result.curve_a, result.curve_b, result.comparison, up_to=result.up_to,
                                  alpha=1 - v.level, max_markers=None)
st.plotly_chart(fig, key="significance_chart", theme=None)

if v.n_at is None or not n_min <= v.n_at <= n_max:
    common.update(n_at=n_min)
    st.session_state.pop("w_n_at", None)
at = widgets.bound(st.slider, "Look at the n-best lists for n =", "n_at", min_value=n_min, max_value=n_max,
                  step=1, convert=int)
row = result.comparison[result.comparison["n"] == at].iloc[0]
t1, t2 = st.columns([1, 2])
with t1:
    st.dataframe({"": [f"D1: only {v.a}", f"D2: only {v.b}"], "TPs": [row.tp_d1, row.tp_d2],
                  "FPs": [row.fp_d1, row.fp_d2]}, hide_index=True)
    p_text = f"{row.p_value:.4g}" if row.p_value > 0 else f"10^{row.log10_p:.1f}"
    st.markdown(f"p = **{p_text}**: " + ("significant" if row.significant else "not significant")
                + f" at alpha = {1 - v.level:.3g}")
with t2:
    ranked = cached.rankings(cached.roles(v), (v.a, v.b), v.ties, v.seed)
    st.dataframe(analysis.difference_members(candidates, ranked[v.a], ranked[v.b], at), hide_index=True,
                 height=240)
cached.downloads(fig, result.comparison, "significance")
