"""Confidence (Figure 2): binomial confidence bands for the true precision of one to three measures."""

import streamlit as st

from evalcore.figures import paper as figures
from evalcore.stats.intervals import INTERVAL_LABELS, INTERVAL_METHODS
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, MAX_BANDS
from evalcore_app import cached, common, figcache, guards, present, sample, sample_pages, widgets
from evalcore_app.components import plot

common.ensure_router()

st.header("Confidence intervals for precision (Evert 2004, Figure 2)")
if sample.mode(common.view()) != "full":  # a partly annotated set: intervals from the sample annotated so far
    sample_pages.curves_section("confidence")
    common.stop()
data = guards.require_data()
candidates = data.candidates
N = candidates.n_candidates
chosen = widgets.measures_select(f"Measures (bands for the first {MAX_BANDS})", data)
n_min, n_max = widgets.n_range_slider("Range of n (n-best list size)", N)
c1, c2 = st.columns(2)
with c1:
    widgets.bound(st.slider, "Confidence level", "level", min_value=LEVEL_MIN, max_value=LEVEL_MAX, step=LEVEL_STEP,
                 format="%.3f", convert=lambda x: round(float(x), 3))
with c2:
    widgets.bound(st.selectbox, "Interval method", "interval", options=list(INTERVAL_METHODS),
                 format_func=INTERVAL_LABELS.get)
v = common.view()
if len(chosen) > MAX_BANDS:
    st.caption(f"Bands of the first {MAX_BANDS} of the {len(chosen)} chosen measures (more would hide each other).")
table = cached.curves(data, v.ranking, v.display, chosen[:MAX_BANDS], (n_min, n_max), v.level, v.interval)
# built once per cached table (evalcore_app/figcache.py) and drawn in place: a level key redraws one figure, once
fig = figcache.memo(table, lambda: figures.confidence_figure(table, baseline=candidates.baseline, level=v.level,
                                                             method_label=INTERVAL_LABELS[v.interval]),
                    "fig2", candidates.baseline, v.level, v.interval)
plot.chart(fig, key="confidence_chart")
present.downloads(fig, table, "confidence", shows=chosen[:MAX_BANDS])
widgets.bands_note(data, chosen[:MAX_BANDS], (n_min, n_max))  # two bands on each other: said in words
st.caption("Each band is an interval for the average precision of the acceptance region that holds the n "
           "best candidates here; in a repetition of the experiment that region may hold more or fewer "
           "candidates (Evert 2004, §3.2).")
