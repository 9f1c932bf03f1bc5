"""Across samples: two measures' precision sample by sample, with paired and unpaired tests."""

import streamlit as st

from evalcore.figures import samples as samplefigures
from evalcore.errors import EvalcoreError
from evalcore import format as fmt
from evalcore.text import markdown_text as esc
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP
from evalcore_app import cached, common, guards, present, widgets

common.ensure_router()

st.header("Two measures across the samples: paired tests")
data = guards.require_experiment()
candidates = data.candidates
c1, c2, c3 = st.columns(3)
pair = widgets.measure_pair(data, (c1, c2))
with c3:
    widgets.bound(st.slider, "Confidence level (alpha = 1 - level)", "level", min_value=LEVEL_MIN,
                 max_value=LEVEL_MAX, step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))
v = common.view()
a, b = pair
name_a, name_b = esc(widgets.shown(a)), esc(widgets.shown(b))
cuts = widgets.cut_controls(candidates, pair, {m: cached.gamma_positions(data, m) for m in pair},
                            cached.default_gammas(data, pair, common.view().cut_n))
try:
    res = cached.across(data, v.ranking, a, b, cuts[a], cuts[b], v.level)
except EvalcoreError as exc:
    st.warning(esc(exc))
    common.stop()

t = res.tests.set_index("test")
paired = t.iloc[0]
alpha = 1 - v.level
wins = int((res.table["difference"] > 0).sum())
losses = int((res.table["difference"] < 0).sum())
st.markdown(
    f"Over **{len(res.table) - len(res.dropped)} samples**, {name_a} is more precise than {name_b} in **{wins}** "
    f"and less in **{losses}**; the mean difference is **{fmt.points(paired.estimate)} points** "
    f"({fmt.level(v.level)} interval "
    f"{fmt.points(paired.low)} to {fmt.points(paired.high)}; Cohen's d_z = {fmt.number(res.cohens_dz)}). "
    + ("The paired tests " + ("agree: significant" if (res.tests["p_value"].iloc[:3] < alpha).all() else
                              "agree: not significant" if (res.tests["p_value"].iloc[:3] >= alpha).all() else
                              "disagree") + f" at alpha = {alpha:.3g}."))
if res.dropped:
    st.caption(f"Left out, because a measure accepted nothing there: samples {esc(', '.join(res.dropped))}.")
present.table("across", "tests", res.tests)
st.caption("Paired tests use each sample's pair of precisions; Welch's t-test treats them as two independent "
           "groups and is shown for contrast: it ignores that both measures face the same sample.")
fig = samplefigures.differences_figure(res.table.dropna(subset=["difference"]), a=widgets.shown(a),
                                       b=widgets.shown(b),
                                       estimate=paired.estimate, low=paired.low, high=paired.high,
                                       confidence_level=v.level)
st.plotly_chart(fig, key="across_chart", theme=None)
present.downloads(fig, present.pair_named(res.table, *pair), "across_samples", shows=(a, b),
                  options={"cut": (cuts[a], cuts[b])})
with st.expander("Per sample"):
    present.table("across", "per sample", res.table, pair=pair)
