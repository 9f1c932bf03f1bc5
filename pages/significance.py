"""Significance (Figure 3): Fisher's exact test on the difference regions of two measures, at every n."""

import pandas as pd
import streamlit as st

from evalcore import analysis, names, work
from evalcore.engines import TooLargeError, pvalues
from evalcore.figures import paper as figures
from evalcore.stats.multitest import CORRECTIONS
from evalcore.stats.pairtests import PAIR_TESTS
from evalcore.format import p_statement, p_value
from evalcore.text import markdown_text as esc
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, N_STEP_MAX, RESAMPLES_MAX, RESAMPLES_MIN
from evalcore_app import cached, common, figcache, guards, jobs, present, sample, sample_pages, widgets
from evalcore_app.components import plot

common.ensure_router()
NOTES = (names.MCNEMAR_NOTE + " Fisher's test on D1/D2 uses the TPs and the FPs of both regions. "
         "Pearson's chi-squared treats the two lists as independent samples, as Krenn (2000) did; they share "
         "most candidates, so it misses differences Fisher finds (Evert 2004, §3.3). The bootstrap resamples "
         "candidates (Berg-Kirkpatrick et al. 2012), the randomization test swaps list memberships (Yeh 2000). "
         "Holm controls the chance of any false marker, Benjamini-Hochberg the expected share of false markers.")
DIFFERENCE_SHORT = {"newcombe": "Newcombe", "agresti_caffo": "Agresti-Caffo"}  # the band's name in the legend

st.header("Significant differences between two measures (Evert 2004, Figure 3)")
if sample.mode(common.view()) != "full":  # a partly annotated set: Fisher's test on the annotated candidates
    sample_pages.significance_section()
    common.stop()
data = guards.require_data()
candidates = data.candidates
N = candidates.n_candidates

c1, c2, c3 = st.columns(3)
a, b = widgets.measure_pair(data, (c1, c2))
with c3:
    widgets.bound(st.slider, "Confidence level (alpha = 1 - level)", "level", min_value=LEVEL_MIN,
                 max_value=LEVEL_MAX, step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))
n_min, n_max = widgets.n_range_slider("Range of n (every n in it is tested)", N)
c4, c5, c6 = st.columns(3)
with c4:
    test = widgets.bound(st.selectbox, "Test", "test", options=list(PAIR_TESTS), format_func=PAIR_TESTS.get)
with c5:
    widgets.bound(st.selectbox, "Correction for testing every n", "correction", options=list(CORRECTIONS),
                 format_func=CORRECTIONS.get)
with c6:
    if test in ("bootstrap", "randomization"):
        widgets.bound(st.number_input, "Resamples (seeded by the ties seed)", "resamples", min_value=RESAMPLES_MIN,
                     max_value=RESAMPLES_MAX, step=1000, convert=int)
    widgets.bound(st.number_input, "Step between the tested n (1: every n)", "n_step", min_value=1,
                  max_value=N_STEP_MAX, step=1, convert=int)
v = common.view()

jobs.within_budget(work.pair_estimate(N, (n_min, n_max), test, v.resamples, n_step=v.n_step), "significance")
# a server set's p-values are kept in the store chunk by chunk: their first computation shows its progress and a
# Cancel button (what is done stays kept); a level, a correction or a narrower range reads them
pvalue_key = ("pvalues", v.data, v.ranking, a, b, (n_min, n_max), test, v.n_step)
todo = cached.pvalue_chunks_to_compute(data, v.ranking, a, b, (n_min, n_max), test, v.n_step)
if todo and jobs.cancelled(pvalue_key):
    st.info(f"Testing every n from {n_min:,} to {n_max:,} was cancelled; the parts already tested are kept "
            f"({todo:,} part{'s' if todo != 1 else ''} of up to {pvalues.CHUNK:,} n left).")
    st.button("Test every n of the range", key="w_pvalues_resume", on_click=jobs.resume)
    common.stop()
if todo:  # (outside the cached call below: Streamlit replays what a cached function drew, and a bar is gone then)
    what = f"Testing every n of the range, in parts of up to {pvalues.CHUNK:,} n kept for every level and session"
    bar = st.progress(0.0, text=f"{what}: 0 of {todo:,} parts done ...")
    cancel = st.empty()
    cancel.button("Cancel", key="w_pvalues_cancel", on_click=jobs.cancel, args=(pvalue_key,))
    with jobs.attend((*pvalue_key, jobs.session_id())) as job:  # (this session's: a closed tab or Cancel stops it)
        cached.fill_pvalues(data, v.ranking, a, b, (n_min, n_max), test, v.n_step, _progress=job.progress(
            lambda done, total: bar.progress(done / total, text=f"{what}: {done:,} of {total:,} parts done ...")))
    bar.empty()
    cancel.empty()
bar = st.progress(0.0, text="Resampling ...") if test in ("bootstrap", "randomization") else None
pair_args = (data, v.ranking, v.display, a, b, (n_min, n_max), v.level, v.interval, test, v.correction,
             v.resamples)
# (the job's key names the data by its roles: the same computation for every session and rerun)
with jobs.attend(("pair", v.data, *pair_args[1:], v.power, v.difference_method, v.n_step)) as job:
    # a closed tab stops it; two pages asking for it share it
    result = cached.pair(*pair_args, power=v.power, difference_method=v.difference_method, n_step=v.n_step,
                         _progress=job.progress((lambda done, total: bar.progress(done / total)) if bar else None))
name_a, name_b = v.display.of(a), v.display.of(b)
if bar:
    bar.empty()
tested = len(result.comparison)
name = ("Fisher's exact test (two-sided) on D1 = A \\ B and D2 = B \\ A" if test == "fisher" else PAIR_TESTS[test])
correction = "" if v.correction == "none" else f" after the {CORRECTIONS[v.correction]} correction"
every = "every" if v.n_step == 1 else f"every tested (a step of {v.n_step:,})"
st.markdown(f"{name}: significant{correction} at "
            f"**{result.n_significant:,} of {tested:,}** n from {n_min:,} to {n_max:,}; "
            + (f"{every} n-best list from {n_min:,} **up to n = {result.up_to:,}** differs significantly."
               if result.up_to else f"not significant at n = {n_min:,}."))
widgets.pair_reach_note(result.comparison, a, b, result.tests)  # lists (nearly) the same: said in words
for warning in analysis.significance_warnings(N, candidates.n_tp, test=test, alpha=1 - v.level,
                                              comparison=result.comparison, names=(name_a, name_b)):
    st.warning(esc(warning))
if test in ("bootstrap", "randomization") and v.correction != "none":
    st.caption(f"With {v.resamples:,} resamples no p-value is below 1/{v.resamples + 1:,}; a correction over "
               f"{tested:,} tests needs about {tested / (1 - v.level):,.0f} resamples to mark anything.")
# computed and drawn only while open (the view's sig_counts, in the link): a closed box costs a rerun nothing
counts_box = widgets.bound(st.expander, "How many n each test and correction calls significant", "sig_counts")
if v.sig_counts:
    with counts_box:
        present.table("significance", "counts", result.counts.rename(index=PAIR_TESTS, columns=CORRECTIONS),
                      hide_index=False)
        st.caption(NOTES)
fig = figcache.memo(result, lambda: figures.significance_figure(result.curve_a, result.curve_b, result.comparison,
                                                                up_to=result.up_to, alpha=1 - v.level), "fig3", v.level)
# the downloads' table, once per result (as its figures)
table = figcache.memo(result, lambda: present.with_constants(result.table(), difference_interval=v.difference_method,
                                                             mdd_power=result.power), "table", v.difference_method)
plot.chart(fig, key="significance_chart")
present.downloads(fig, table, "significance", shows=(a, b))
mdd_test = "McNemar's" if test == "mcnemar" else "Fisher's"
st.markdown(f"**How big:** Π\\_A − Π\\_B with its {100 * v.level:g}% interval "
            f"({DIFFERENCE_SHORT[v.difference_method]}), and the smallest "
            f"difference {mdd_test} test finds with {result.power:.0%} power (±MDD).")
c7, c8 = st.columns(2)
with c7:
    widgets.bound(st.selectbox, "Interval of the difference", "difference_method",
                  options=list(names.DIFFERENCE_INTERVALS), format_func=names.DIFFERENCE_INTERVALS.get)
with c8:
    widgets.bound(st.selectbox, "Power of the minimum detectable difference", "power",
                  options=list(names.POWER_LEVELS), format_func=lambda p: f"{p:.0%}")
diff_fig = figcache.memo(result, lambda: figures.difference_figure(
    result.comparison, alpha=1 - v.level, level=v.level, names=(name_a, name_b), detectable=result.detectable,
    power=result.power, up_to=result.up_to, interval_label=DIFFERENCE_SHORT[v.difference_method]),
    "difference", v.level, name_a, name_b, v.difference_method)
plot.chart(diff_fig, key="difference_chart")
present.downloads(diff_fig, table, "difference", shows=(a, b))
st.caption("\n\n".join([esc(names.INTERVAL_AND_TEST_NOTE), esc(names.OBSERVED_POWER_NOTE),  # (one element)
                          "Where a difference is not marked and lies well inside ±MDD the lists perform alike; where "
                          "the MDD is large there are too few candidates in D1 and D2 to tell."]))

at = widgets.look_n_slider(n_min, n_max, result.up_to,  # starts at the boundary: the last n of the significant run
                          step=v.n_step, help="It starts at the boundary n up to which every n differs significantly.")


def at_n() -> tuple[str, str, str]:
    """The 2x2 view at n = ``at``: the difference regions' counts, the test's verdict and the effect sizes; the tables
    small and typeset (present.small_table), written once per result and n."""
    row = result.comparison[result.comparison["n"] == at].iloc[0]
    counts = present.small_table("significance", "2x2", pd.DataFrame(
        {"": [f"D1: only {name_a}", f"D2: only {name_b}"], "TPs": [row.tp_d1, row.tp_d2],
         "FPs": [row.fp_d1, row.fp_d2]}))
    adjusted = "" if v.correction == "none" else f" (adjusted {p_value(row.p_adjusted)})"
    verdict = (f"**{p_statement(row.p_value, row.log10_p)}**{adjusted}: "
               + ("significant" if row.significant else "not significant") + f" at alpha = {1 - v.level:.3g}")
    return counts, verdict, present.small_table("significance", "effect at n", analysis.effect_at(result, at))


counts_at, verdict_at, effects_at = figcache.memo(result, at_n, "at n", at, name_a, name_b)
t1, t2 = st.columns([1, 2])
t1.markdown(counts_at)
t1.markdown(verdict_at)
t2.markdown(effects_at)
# the candidates themselves, computed and drawn only while open (the view's sig_members, in the link)
members_box = widgets.bound(st.expander, "The candidates of D1 and D2 at this n", "sig_members")
if v.sig_members:
    with members_box:
        try:
            members = cached.members(data, v.ranking, a, b, at)
        except TooLargeError as exc:  # a server data set: its candidates are counted, not held
            st.info(esc(exc))
        else:
            present.table("significance", "members", members, (a, b), height=240)
