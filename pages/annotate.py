"""Annotate: draw a seeded random sample, mark its candidates TP, FP or unsure one at a time, see agreement, export."""

import streamlit as st

from evalcore.annotations import COMBINATION_LABELS, EXPORT_FORMATS
from evalcore.pooling import DESIGN_KINDS
from evalcore.ranking import resolve_seed
from evalcore_app import annotate, cached, common, sample, strata, uploads, widgets

common.ensure_router()

st.header("Annotate a random sample")
common.show_link_problems()
annotate.show_draw_error()
v = common.view()
if v.dataset is None:
    st.info("No data loaded yet. Upload a candidate set (a label column with empty cells, or none) on the Data page.")
    st.page_link(common.PAGES["data"], label="Go to the Data page", icon=":material/upload:")
    common.stop()
table, name = annotate.safe(cached.raw_table, v.dataset)
annotate.safe(sample.apply_roles, table)  # the link's roles checked; a fresh data set's allow an empty label column
candidates = annotate.safe(annotate.base, common.view())
sample.check_view(candidates)
if common.view().ann_seed is None:
    common.update(ann_seed=resolve_seed("random", None))
v = common.view()
st.caption(f"{candidates.n_candidates:,} candidates, {candidates.n_annotated:,} labelled in the file; the labels "
           "made here are kept in the annotation database beside the data store.")

who = annotate.annotator_field()
with st.expander("Sample to annotate", expanded=v.ann_sample is None):
    widgets.bound(st.radio, "Design", "ann_design", options=list(DESIGN_KINDS), format_func=DESIGN_KINDS.get,
                  horizontal=True, help="A pool is the union of the top-K lists of the measures below, annotated "
                  "whole: exact for every n <= K. Pool and sample adds a random sample of the other candidates "
                  "(its size: 'Candidates to annotate'): exact inside the pool, unbiased beyond. Rank bands cut the "
                  "candidates by the measures' rank and sample each band at its own size (plan them below).")
    c1, c2, c3 = st.columns(3)
    stratified = common.view().ann_design == "stratified"
    with c1:
        if stratified:
            widgets.bound(st.text_input, "Band widths in ranks (the last band: the rest)", "ann_bands", max_chars=200,
                          help="e.g. 100,400,1500,rest: ranks 1-100, 101-500, 501-2,000 and the rest")
        else:
            widgets.bound(st.number_input, "Candidates to annotate", "ann_size", min_value=1,
                          max_value=candidates.n_candidates, step=10, convert=int)
        widgets.bound(st.number_input, "Seed", "ann_seed", min_value=0, max_value=2**32 - 1, step=1, convert=int)
    with c2:
        if stratified:
            widgets.bound(st.text_input, "Sample size of each band ('all': the band whole)", "ann_band_sizes",
                          max_chars=200, help="e.g. 50,75,180,195; the planner below proposes them")
            widgets.bound(st.multiselect, "Measures whose (best) rank makes the bands", "ann_measures",
                          options=list(candidates.measures))
        else:
            widgets.bound(st.number_input, "Draw from the top K of the measures (0: the whole set)", "ann_k",
                          min_value=0, max_value=candidates.n_candidates, step=100, convert=int)
        if v.ann_k and not stratified:
            widgets.bound(st.multiselect, "Measures whose top K make up the frame", "ann_measures",
                          options=list(candidates.measures))
    with c3:
        columns = [c for c in map(str, table.columns) if c != v.label]
        if v.ann_context is not None and v.ann_context not in columns:
            common.correct(f"The data set has no column {v.ann_context[:60]!r} to show as context; showing none.",
                           ann_context=None)
        widgets.bound(st.selectbox, "Context column shown with each candidate", "ann_context",
                      options=[None] + columns, format_func=lambda c: "(none)" if c is None else c)
    annotate.design_caption(common.view(), candidates)
    st.button("Draw the sample", key="draw_sample", type="primary", on_click=annotate.draw_clicked, args=(v,))
v = common.view()
if v.ann_design == "stratified":  # (its planner: evalcore_app/strata.py)
    widgets.bound(st.toggle, "Plan the bands: the sample size of each for a budget", "ann_plan")
    if common.view().ann_plan:
        with st.container(border=True):
            strata.planner(common.view(), candidates)
    v = common.view()
elif v.ann_design != "sample":
    # (computed only when asked for: with the annotations so far as its pilot it would be planned anew at every mark)
    widgets.bound(st.toggle, "Plan the pooled design: depth K and sample size m for a budget", "ann_plan")
    if common.view().ann_plan:
        with st.container(border=True):
            annotate.planner(common.view(), candidates)
    v = common.view()
with st.expander("Import an exported annotated set"):
    st.file_uploader("An annotated set exported here (CSV, TSV or Parquet) of this data set", key=annotate.IMPORT_KEY,
                     type=list(EXPORT_FORMATS), on_change=annotate.reimport, args=(v,))
uploads.show_refusal()  # outside the expander, which may be closed
annotate.show_import_message()
if v.ann_sample is None:
    st.info("Choose the sample size and where to draw from, then draw the sample.")
    common.stop()
dataset = annotate.db_id(v.dataset)
store = annotate.safe(annotate.db)
info = annotate.safe(store.sample, dataset, v.ann_sample)
if who is not None:
    annotate.apply_presses(v, info.name, who)
annotate.follow(dataset, info.name)  # (every few seconds: the others' marks since, if any, run the page again)
annotate.safe(annotate.pool_status, v, info, candidates, annotate.safe(store.table, dataset, info.name))
if who is None:
    st.info("Enter your name above to annotate; your labels are kept under it.")
    common.stop()

annotate.show_notices()
annotate.safe(annotate.marking, v, info, who, candidates, table)

labels = annotate.safe(store.table, dataset, info.name)
st.subheader("Agreement")
st.caption(f"This page follows every annotator's marks: it looks every {annotate.FOLLOW_S:g} seconds and shows "
           "what they have marked since.")
kappa = annotate.agreement(labels, v.level)
if kappa is None:
    st.caption("Agreement appears when two or more annotators have marked the same candidates.")
else:
    st.metric(f"{kappa.method} on {kappa.subjects} candidates, {kappa.raters} annotators", f"{kappa.kappa:.3f}")
    st.text(f"{v.level:.0%} interval: {kappa.low:.3f} to {kappa.high:.3f}; observed agreement "
            f"{kappa.observed_agreement:.1%}, by chance {kappa.chance_agreement:.1%}")
if st.session_state.get("w_ann_rule") != v.ann_rule:
    st.session_state["w_ann_rule"] = v.ann_rule
st.radio("Labels for the estimates and the export", options=list(COMBINATION_LABELS), key="w_ann_rule",
         on_change=annotate.rule_changed, format_func=COMBINATION_LABELS.get)
if labels.shape[1]:
    if v.ann_rule == "annotator":
        annotate.whose_select(v, labels)
    st.dataframe(labels.reset_index().astype(str), hide_index=True, height=200)
    for col, fmt in zip(st.columns(len(EXPORT_FORMATS)), EXPORT_FORMATS):
        col.download_button(f"Annotated set as {fmt.upper()}", key=f"export_{fmt}", on_click="ignore",
                            data=lambda fmt=fmt: annotate.export_file(v, info.name, candidates, table, fmt),
                            file_name=f"annotated-{info.name}.{fmt}")
    st.page_link(common.PAGES["precision"], label="Estimated precision from these labels",
                 icon=":material/show_chart:")
