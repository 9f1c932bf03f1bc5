"""Precision (Figure 1): n-best precision of several measures against n, with the baseline."""

import streamlit as st

from evalcore import analysis
from evalcore.viewstate import BETA_MAX, BETA_MIN, MAX_MEASURES
from evalcore_app import common, guards, prepare, present, sample, sample_pages, widgets
from evalcore_app.components import plot

common.ensure_router()

st.header("Precision of n-best lists (Evert 2004, Figure 1)")
if sample.mode(common.view()) != "full":  # a partly annotated set: estimates from the sample annotated so far
    sample_pages.curves_section("precision")
    common.stop()
data = guards.require_data()
candidates = data.candidates
N = candidates.n_candidates
measures = widgets.measures_select(f"Measures (up to {MAX_MEASURES})", data)
n_min, n_max = widgets.n_range_slider("Range of n (n-best list size)", N)
t1, t2, t3 = st.columns(3)
with t1:
    widgets.bound(st.toggle, "Show recall", "show_recall")
with t2:
    widgets.bound(st.toggle, "Show F-beta", "show_f")
with t3:
    if common.view().show_f:
        widgets.bound(st.number_input, "beta", "beta", min_value=BETA_MIN, max_value=BETA_MAX, step=0.5)
v = common.view()
# the figure built once per cached table, drawn in place (evalcore_app/components/plot: st.plotly_chart drew a new
# chart twice, its theme's second draw), and prepared by the Data page after an upload (evalcore_app/prepare.py)
table, fig = prepare.precision_figure(data, v, measures, (n_min, n_max))
plot.chart(fig, key="precision_chart")
present.downloads(fig, table, "precision", shows=measures, beta=v.beta)

if v.n_at is None:
    common.update(n_at=n_max)
elif not n_min <= v.n_at <= n_max:
    common.correct(f"n = {v.n_at:,} for the values is outside the range {n_min:,} to {n_max:,}; showing n = {n_max:,}.",
                   n_at=n_max)
at = widgets.bound(st.number_input, "Values at n", "n_at", min_value=n_min, max_value=n_max, step=1, convert=int)
values = analysis.precision_at(table, int(at))
present.table("precision", "values at n", values[["measure", "n", "tp", "fp", "precision", "recall", "f_beta",
                                                  "lower", "upper", "tie_straddled"]])
