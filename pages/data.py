"""Data: upload a candidate set or pick the sample, map its columns, see N, TPs, baseline and ties."""

import streamlit as st

from evalcore import analysis, names
from evalcore import format as fmt
from evalcore.errors import EvalcoreError
from evalcore.io import ENCODING_CHOICES
from evalcore.io.roles import left_out_note
from evalcore.samples import sample_table
from evalcore.text import markdown_text as esc
from evalcore.ranking import TIE_POLICIES
from evalcore.viewstate import SAMPLE_PREFIX, default_n_range
from evalcore_app import cached, common, guards, prepare, present, serverdata, widgets
from evalcore_app.sample import data_section, mode as annotation_mode
from evalcore_app.uploads import show_refusal

common.ensure_router()

LIMIT_MB = st.get_option("server.maxUploadSize")

st.header("Data")
common.show_link_problems()
upload_col, sample_col = st.columns([3, 1])
with upload_col:
    uploads = st.file_uploader(
        f"Upload an annotated candidate set: CSV, TSV (also gzip), Parquet, Excel .xlsx, R .rda/.RData/.rds; "
        f"up to {LIMIT_MB} MB. Several files with the same columns are read as one experiment, one sample "
        "per file.", key="w_upload", accept_multiple_files=True)
    file_ids = tuple(u.file_id for u in uploads or ())
    if file_ids and st.session_state.get("uploaded") != file_ids:
        st.session_state["uploaded"] = file_ids
        with st.spinner(f"Storing and reading {esc(', '.join(u.name for u in uploads))} ..."):
            try:
                if len(uploads) == 1:
                    content, name = uploads[0].getvalue(), uploads[0].name
                else:
                    content, name = cached.combined([(u.getvalue(), u.name) for u in uploads])
                dataset_id = cached.ingest(content, name)  # read first; stored only if it reads
            except EvalcoreError as exc:
                st.session_state["upload_error"] = str(exc)
            else:
                st.session_state.pop("upload_error", None)
                common.load_dataset(dataset_id, keep=("w_upload",))
    show_refusal()  # a file refused for what this tab holds already, in words
    if "upload_error" in st.session_state:
        st.error(esc(st.session_state["upload_error"]))
    loaded_note = st.empty()  # filled below, once the sample's and the server's buttons have had their say
with sample_col:
    sample = st.selectbox("Or start from a sample", list(cached.SAMPLES), key="w_sample_dataset")
    if st.button("Use this sample", key="w_use_sample"):
        st.session_state.pop("upload_error", None)
        common.load_dataset(SAMPLE_PREFIX + sample, keep=("w_upload", "w_sample_dataset"))
serverdata.data_page_section(lambda d: common.load_dataset(d, keep=("w_upload", "w_sample_dataset", "w_server_dataset")))
if "upload_error" not in st.session_state and common.view().dataset is not None and not uploads:
    # back with data loaded, or a sample or server set just opened: say which (the one loaded now)
    loaded_note.caption(f"Loaded: {esc(cached.dataset_label(common.view().dataset))}. Upload another file to "
                        "replace it.")

v = common.view()
if v.dataset is None:
    st.info("Upload a file above, or use the sample, to start.")
    common.stop()
try:
    table, name = cached.raw_table(v.dataset)
except EvalcoreError as exc:
    st.error(esc(exc))
    common.stop()

guards.apply_roles(table)  # the link's column roles checked, a fresh data set's suggested
v = common.view()
columns = [str(c) for c in table.columns]

st.subheader(f"Columns of {esc(name)}")
if "encoding" in table.attrs:  # text: the encoding it was read as, and a choice of another
    origin, chosen = st.session_state.setdefault("recoded", {}).get(v.dataset, (v.dataset, table.attrs["encoding"]))
    options = list(dict.fromkeys([chosen, *ENCODING_CHOICES]))
    picked = st.selectbox("Text encoding (detected from the file; choose another if letters look wrong)", options,
                          format_func=lambda e: ENCODING_CHOICES.get(e, e), key=f"w_encoding_{v.dataset}")
    if picked != chosen:
        try:
            recoded = cached.reencoded(origin, picked)
        except EvalcoreError as exc:
            st.error(esc(exc))
        else:
            st.session_state["recoded"][recoded] = (origin, picked)
            seed = common.view().seed
            common.load_dataset(recoded)
            common.update(seed=seed)  # the same file read in another encoding: its seed (the command line's too)
            st.rerun()
c1, c2, c3 = st.columns(3)
with c1:
    widgets.bound(st.selectbox, "Label (TP/FP annotation)", "label", options=columns,
                 help="TRUE/FALSE, T/F, 1/0, yes/no, y/n, TP/FP or +/-")
    widgets.bound(st.checkbox, "Leave out rows with an empty label", "exclude_unlabelled")
    widgets.bound(st.selectbox, "Sample (for experiments with several samples)", "sample_column",
                 options=[None] + [c for c in columns if c != v.label],
                 format_func=lambda c: "(none: one sample)" if c is None else c)
with c2:
    widgets.bound(st.multiselect, "Scores (one per ranking method)", "scores",
                 options=[c for c in columns if c != v.label])
    widgets.bound(st.multiselect, "Lower is better for", "lower", options=list(v.scores),
                 help="p-values, ranks and other scores where a lower value ranks first")
    keys_note = left_out_note(name, [(c, why) for c, why in cached.left_out(v.dataset) if c not in v.scores],
                              "add it to the scores above")
    if keys_note:
        st.caption(esc(keys_note))
with c3:
    widgets.bound(st.multiselect, "Keys (shown to identify candidates)", "keys",
                 options=[c for c in columns if c != v.label])
    widgets.bound(st.selectbox, "Ties", "ties", options=list(TIE_POLICIES), format_func=lambda t: TIE_POLICIES[t],
                  help=names.TIE_HELP)
    if v.ties in names.SEEDED_TIES:
        widgets.bound(st.number_input, "Seed for random tie-breaking", "seed", min_value=0, max_value=2**32 - 1,
                     step=1, convert=int, help=names.SEED_HELP)
        if common.view().seed == common.default_seed(v.dataset):
            st.caption("The data's own seed (from its SHA-256): everyone who opens this file sees these numbers.")

state = annotation_mode(common.view())
if state != "full":  # empty labels: the Annotate page, and the pages that estimate
    other = cached.suggested(v.dataset).label  # a column of TP/FP labels, if the file has one besides the empty label
    if state == "unannotated" and common.view().label is not None and other not in (None, common.view().label):
        st.warning(f"The label column {esc(common.view().label)} is empty in every row: no candidate is annotated. "
                   f"Annotate a random sample on the Annotate page (below), or choose another label column above: "
                   f"{esc(other)} holds TP/FP labels.", icon=":material/help:")
    data_section(table)
    common.stop()
data = guards.require_data(link_to_data=False, min_candidates=1)
candidates = data.candidates
v = common.view()
m1, m2, m3, m4 = st.columns(4)
m1.metric("Candidates N", fmt.count(candidates.n_candidates))
m2.metric("True positives", fmt.count(candidates.n_tp))
m3.metric("Baseline precision", fmt.percent(candidates.baseline))
m4.metric("Measures", fmt.count(len(candidates.measures)))
if v.sample_column is not None:
    full = cached.whole(v)
    per_sample = sample_table(full)
    st.markdown(f"**{len(per_sample):,} samples** in column {esc(v.sample_column)}: N from {per_sample['N'].min():,} "
                f"to {per_sample['N'].max():,}, TPs from {per_sample['TPs'].min():,} to {per_sample['TPs'].max():,}. "
                "The Validation, Across samples and Unanimous improvement pages compare them.")
    widgets.bound(st.selectbox, "The single-sample pages (Precision to Threshold) use", "sample",
                 options=[None] + list(per_sample["sample"]),
                 format_func=lambda s: "all samples pooled" if s is None else f"sample {s}")
    with st.expander("Candidates and TPs per sample"):
        present.table("data", "per sample", per_sample)
if candidates.excluded_unlabelled:
    st.info(f"{candidates.excluded_unlabelled:,} rows with an empty label were left out.")
if candidates.n_tp == 0 or candidates.n_tp == candidates.n_candidates:
    st.warning("Every candidate has the same label, so precision cannot tell the measures apart. "
               "Check the label column.")
widgets.display_names_editor(candidates.measures)
ranked = cached.rankings(data, candidates.measures, v.ranking)
st.subheader("Ties per measure")
st.caption("Where an n-best cut-off falls inside a group of equal scores, the tie policy decides which "
           "candidates are in. 'TPs first' and 'FPs first' bound the effect.")
summary = analysis.data_summary(candidates, ranked, default_n_range(candidates.n_candidates))
present.table("data", "ties", summary.assign(measure=summary["measure"].map(v.display.of)))
st.subheader("Preview")
st.dataframe(table.head(200))
prepare.start(data, common.view())  # what Precision opens on, computed once this run has ended (evalcore_app/prepare.py)
