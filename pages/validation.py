"""Validation (Evert 2004, §4, Figure 4): do the precisions over the samples follow the binomial model?"""

from dataclasses import replace

import streamlit as st

from evalcore.figures import samples as samplefigures
from evalcore.errors import EvalcoreError
from evalcore import format as fmt
from evalcore.text import markdown_text as esc
from evalcore.stats.intervals import INTERVAL_LABELS
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP
from evalcore_app import cached, common, guards, present, widgets

common.ensure_router()

st.header("Does the binomial model hold over the samples? (Evert 2004, Figure 4)")
data = guards.require_experiment()
candidates = data.candidates
v = common.view()
measures = list(cached.quality(data, v.ranking))  # best first by average precision
if v.v_measure is None:
    common.update(v_measure=measures[0])
c1, c2 = st.columns(2)
with c1:
    widgets.bound(st.selectbox, "Measure", "v_measure", options=measures, format_func=widgets.shown,
                  help="Measures ordered by average precision (best first)")
with c2:
    widgets.bound(st.slider, "Confidence level of the intervals", "level", min_value=LEVEL_MIN, max_value=LEVEL_MAX,
                 step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))
v = common.view()
m = v.v_measure
cuts = widgets.cut_controls(candidates, [m], {m: cached.gamma_positions(data, m)},
                            cached.default_gammas(data, (m,), common.view().cut_n))
try:
    res = cached.validation(data, v.ranking, m, cuts[m], v.level, v.interval)
except EvalcoreError as exc:
    st.warning(esc(exc))
    common.stop()

level = fmt.level(v.level)
k1, k2, k3, k4 = st.columns(4)
k1.metric("Samples used", f"{res.k}", help=f"{res.empty} sample(s) accepted nothing" if res.empty else None)
k2.metric("Mean precision π", fmt.percent(res.mean_precision), help=f"average acceptance size N̄ = {res.mean_size:.1f}")
k3.metric("SD observed / predicted", f"{res.sd_ratio:.2f}",
          help=f"s = {res.sd_observed:.4f} against σ = √(π(1−π)/N̄) = {res.sd_predicted:.4f}")
k4.metric(f"{level} intervals missing π", f"{res.misses} of {res.k}",
          help=f"expected {res.expected_misses:.1f}; binomial test {fmt.p_statement(res.coverage_test.p_value)}")
st.markdown(
    f"Over **{res.k} samples** the precision of {cuts[m].label(esc(widgets.shown(m)), candidates.higher_is_better(m))} has standard "
    f"deviation **{res.sd_observed:.4f}**, **{res.sd_ratio:.2f} times** the {res.sd_predicted:.4f} the binomial "
    f"model predicts (Evert 2004 found 1.2 to 1.4 times on real data). Kolmogorov-Smirnov test of the fit: "
    f"D = {res.ks.statistic:.3f}, **{fmt.p_statement(res.ks.p_value)}** ({esc(res.ks.method)}). The {level} "
    f"{INTERVAL_LABELS[v.interval]} interval (set on the Confidence page) missed π in **{res.misses}** samples where "
    f"{res.expected_misses:.1f} are expected (two-sided binomial test "
    f"**{fmt.p_statement(res.coverage_test.p_value)}**).")
tabs = st.tabs(["Histogram and model (Figure 4)", "Q-Q plot", "Intervals per sample"])
named = replace(res, measure=widgets.shown(m))  # the figures and the download name the measure by its display name
figs = [samplefigures.validation_histogram(named), samplefigures.qq_figure(named), samplefigures.coverage_figure(named)]
for tab, fig, name in zip(tabs, figs, ("histogram", "qq", "coverage")):
    with tab:
        st.plotly_chart(fig, key=f"validation_{name}", theme=None)
        if name == "histogram":  # (Figure 4, whose table is the samples')
            present.downloads(fig, res.table.assign(measure=named.measure), "validation", shows=(m,),
                              options={"cut": (cuts[m],)})
with st.expander("Per sample"):
    present.table("validation", "per sample", res.table)
