"""ROC, DET and precision-recall: each measure's whole ranking, with AUC and average precision and their intervals."""

import streamlit as st

from evalcore import format as fmt, work
from evalcore.figures import roc as rocfigures
from evalcore.errors import EvalcoreError
from evalcore.text import markdown_text as esc
from evalcore.roc import AUC_INTERVAL_LABELS
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, MAX_MEASURES, RESAMPLES_MAX, RESAMPLES_MIN
from evalcore_app import cached, common, guards, jobs, present, widgets

common.ensure_router()

st.header("ROC, DET and precision-recall curves")
data = guards.require_data()
candidates = data.candidates
c1, c2 = st.columns([2, 1])
with c1:
    measures = widgets.measures_select(f"Measures (up to {MAX_MEASURES})", data)
with c2:
    kind = widgets.bound(st.radio, "Curve", "curve_kind", options=list(rocfigures.CURVE_KINDS),
                         format_func=rocfigures.CURVE_KINDS.get)
c3, c4, c5 = st.columns(3)
with c3:
    widgets.bound(st.selectbox, "AUC interval", "auc_method", options=list(AUC_INTERVAL_LABELS),
                 format_func=AUC_INTERVAL_LABELS.get)
with c4:
    widgets.bound(st.number_input, "Bootstrap resamples (AP, and AUC if chosen)", "resamples",
                 min_value=RESAMPLES_MIN, max_value=RESAMPLES_MAX, step=1000, convert=int)
with c5:
    widgets.bound(st.slider, "Confidence level", "level", min_value=LEVEL_MIN, max_value=LEVEL_MAX, step=LEVEL_STEP,
                 format="%.3f", convert=lambda x: round(float(x), 3))
v = common.view()
jobs.within_budget(work.roc_estimate(candidates.n_candidates, len(v.measures or ()), v.resamples), "roc")
try:
    curves = cached.roc_curves(data, v.ranking, v.display, measures, kind)
    table = cached.roc_table(data, v.ranking, v.display, measures, v.level, v.auc_method, v.resamples)
except EvalcoreError as exc:
    st.warning(esc(exc))
    common.stop()
fig = rocfigures.curve_figure(kind, curves, table, baseline=candidates.baseline, level=v.level)
st.plotly_chart(fig, key="roc_chart", theme=None)
present.downloads(fig, table, f"{kind}_curves", shows=tuple(measures),
                  options={"auc-interval": v.auc_method, "bootstrap": v.resamples,
                           "bootstrap-seed": cached.roc_seed(v.ranking)})
st.markdown(f"**Area under the ROC curve and average precision** ({fmt.level(v.level)} intervals; AUC: "
            f"{AUC_INTERVAL_LABELS[v.auc_method]}, AP: bootstrap of {v.resamples:,} resamples, seeded)")
present.table("roc", "areas", table)
st.caption("A threshold never splits a tie, so these curves and areas do not depend on the tie policy. The AUC is "
           "the chance that a random TP outranks a random FP (ties count half); average precision is the mean "
           "precision at the ranks of the TPs. Unlike n-best precision they summarise the whole ranking.")
