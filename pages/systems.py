"""Systems: compare whole systems on a test set with a corpus metric, ROUGE, a TREC measure or any per-item score
by paired resampling (Berg-Kirkpatrick et al. 2012): scores with intervals, every pair tested, Holm, the tests
for means and Tukey's HSD when chosen, the gains' distribution, the test-set size needed."""

import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.systems.names import RULE_NAMES
from evalcore.text import markdown_text as esc
from evalcore_app import common, jobs, widgets
from evalcore_app import systems as ui
from evalcore_app import systems_inputs as sysui

common.ensure_router()

st.header("Compare systems on a test set")
common.show_link_problems()
ui.inputs_section()
ui.settings_section()
inp, why = ui.current()
if inp is None:
    st.info(why)
    common.stop()
v = common.view()
settings = ui.resampling_of(v)
tests = ui.tests_of(v, inp)
try:
    ui.within_scoring_budget(inp)  # scoring past the work budget: a message, and the page stops before it starts
    with st.spinner("Scoring every segment of every system ..."):  # (in a child process that a closed tab ends;
        ui.statistics(inp)  # two pages asking share it)
    ui.within_budget(inp, settings, tests=tests)  # past the budget: a message, fewer resamples offered; the page stops
    with jobs.attend(("systems", inp, settings, tests)) as job:  # a closed tab stops it; two pages asking share it
        result = ui.comparison(inp, settings, tests, _progress=job.progress())
    similar = ui.similar(inp)
except EvalcoreError as exc:
    st.error(esc(exc))
    common.stop()
signature = ui.signature_text(inp, result)
names = list(result.statistics.systems)
ui.baseline_choice(names)
m, alpha = result.metric, settings.alpha
unit = m.unit
sysui.notes(result.statistics)
st.markdown(f"**{esc(m.label)}** on {result.n_items:,} {unit}, {len(names)} systems: **{result.n_significant} of "
            f"{len(result.pairs)}** pairs differ significantly (paired bootstrap by the rule of {RULE_NAMES[settings.rule]}, "
            f"{settings.resamples:,} resamples, seed {settings.seed}; Holm over the pairs, alpha = {alpha:g}).")

st.subheader("Scores")
scores = ui.figure(result, "scores")
st.plotly_chart(scores, key="sys_scores_chart", theme=None)
ui.downloads(scores, result.systems, "systems_scores", signature)
st.dataframe(ui.scores_table(result), hide_index=True, key="sys_scores_table")

st.subheader("p-values of every pair")
choices = ui.matrix_choices(result)
if v.sys_matrix not in choices:
    common.correct(f"The link shows {v.sys_matrix}, a test not chosen; the bootstrap's are shown.",
                   sys_matrix="p_adjusted")
column = widgets.bound(st.radio, "p-values shown", "sys_matrix", horizontal=True, options=choices,
                       format_func=ui.TEST_LABELS.get)
pvalues = ui.figure(result, "pvalues", column)
st.plotly_chart(pvalues, key="sys_pvalue_chart", theme=None)
ui.downloads(pvalues, result.pvalue_matrix(column).reset_index(names="system"), "systems_pvalues", signature)

st.subheader("Every pair")
st.dataframe(ui.pairs_table(result, similar), hide_index=True, key="sys_pairs_table")
st.caption("gain = score(B) − score(A) with its bootstrap percentile interval; p bootstrap one-sided in the direction "
           "of the gain (Berg-Kirkpatrick's 2δ rule) or sacrebleu's, p randomization two-sided; identical outputs: "
           "the share of items where A and B agree exactly; correlation: of the items' contributions to the score "
           "(similar systems need smaller gains). The two bootstrap rules agree below p ≈ 0.05 and differ above 0.1."
           + (" Tukey's HSD is one family for all pairs (no further correction); the gains' intervals are not "
              "simultaneous." if "tukey" in tests.tests else ""))

st.subheader("Resampled gains of one pair")
if v.sys_pair >= len(result.pairs):
    common.correct(f"The link shows pair {v.sys_pair + 1}; there are {len(result.pairs)}, so the first is shown.",
                   sys_pair=0)
labels = [f"{b} − {a}" for a, b in zip(result.pairs["a"], result.pairs["b"])]
pair = widgets.bound(st.selectbox, "Pair", "sys_pair", options=list(range(len(labels))), format_func=labels.__getitem__)
gains = ui.figure(result, "gains", pair)
st.plotly_chart(gains, key="sys_gains_chart", theme=None)
ui.downloads(gains, result.pairs.iloc[[pair]], "systems_gains", signature)

st.subheader("How big a test set? (Berg-Kirkpatrick et al. 2012)")
st.caption(f"The smallest gain significant at alpha = {alpha:g} for test sets of 10% to 400% of these {unit} (beyond "
           "100%: drawn with replacement), each with its own bootstrap; dotted: each pair's observed gain. Where a "
           "curve lies below its dotted line, a test set of that size finds the gain.")
ui.within_budget(inp, settings, curves=True)  # (test sets up to four times as large: more work)
try:
    with jobs.attend(("systems_curves", inp, settings)) as job:
        curves = ui.curves(inp, settings, _progress=job.progress())
except EvalcoreError as exc:
    st.info(esc(exc))
    common.stop()
sizes = ui.sizes_figure(curves, result)
st.plotly_chart(sizes, key="sys_sizes_chart", theme=None)
ui.downloads(sizes, curves, "systems_test_set_size", signature)
st.dataframe(ui.needed_table(curves, result), hide_index=True, key="sys_needed_table")
st.caption(f"How many {unit} a gain of this size needs: the smallest test set from which on the curve lies below "
           "the observed gain (read off the curves above, at the sizes tested).")
