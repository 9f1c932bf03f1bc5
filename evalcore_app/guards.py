"""Guards at the top of a page: the data it needs, checked against the view, or a message saying where to get
it (and the page stops)."""

from __future__ import annotations

import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.io import unfilled_label
from evalcore.samples import default_cut_n, min_sample_size
from evalcore.io.store import UnknownDatasetError
from evalcore.text import markdown_text as esc
from evalcore.viewstate import check_against_data, check_columns, check_samples, with_roles
from evalcore_app.cached import Loaded, load, raw_table, suggested, whole
from evalcore_app.common import PAGES, show_link_problems, stop, view
from evalcore_app import sample


def dataset_view():
    """The view, the link's problems shown; without a data set, say where to get one and stop the page."""
    v = view()
    show_link_problems()
    if v.dataset is None:
        st.info("No data loaded yet. Upload a candidate set or pick the sample on the Data page.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        stop()
    return v


def apply_roles(table) -> None:
    """Check the view's column roles against the data set's table (``table``: :func:`evalcore_app.cached.raw_table`'s of the
    view's data set; a message for each column a link names wrongly) and fill the roles still open with the
    suggested ones (:func:`evalcore_app.cached.suggested`).

    A column named like the label and empty in every row stays the label (:func:`evalcore.io.unfilled_label`):
    nothing is annotated yet, and the Data page says so and offers the Annotate page or another label column;
    another TP/FP column is never put in its place without a word."""
    v, problems = check_columns(view(), [str(c) for c in table.columns])
    if v.label is None and not v.scores:  # a fresh data set (or a link naming only it): suggested roles
        roles_ = suggested(v.dataset)  # (``table`` is its raw_table: suggested once per data set)
        label = unfilled_label(table, roles_.label) or roles_.label
        keys = [c for c in roles_.keys if c != label]
        v = with_roles(v, label=label, scores=roles_.scores, keys=keys, sample=roles_.sample)
    v, more = check_columns(v, [str(c) for c in table.columns])
    st.session_state["view"] = v
    for problem in problems + more:
        st.warning(esc(problem))


def require_data(link_to_data: bool = True, min_candidates: int = 2) -> Loaded:
    """The candidate set of the view's roles, loaded (:func:`evalcore_app.cached.load`) and the view checked against it, to
    pass down to the page's calls; without one, say where to get it and stop the page."""
    v = dataset_view()
    try:
        apply_roles(raw_table(v.dataset)[0])
        v = view()
        sample.not_here(v)  # a partly annotated set: this page needs every candidate annotated (says so, stops)
        full = whole(v)
        v, problems = check_samples(v, full.sample_ids, min_sample_size(full) if full.samples is not None else 0,
                                    default_cut_n(full) if full.samples is not None else 0)
        st.session_state["view"] = v
        for problem in problems:
            st.warning(esc(problem))
        data = load(v.data)
        candidates = data.candidates
    except EvalcoreError as exc:
        st.error(esc(exc))
        if link_to_data:
            gone = isinstance(exc, UnknownDatasetError)  # removed, set aside as damaged, or never stored here
            st.page_link(PAGES["data"], label="Upload it again on the Data page" if gone else "Fix it on the Data page",
                         icon=":material/upload:")
        stop()
    if v.sample is not None:
        st.caption(f"Sample **{esc(v.sample)}** of {len(full.sample_ids)} (choose another, or all pooled, on the Data "
                   "page).")
    if candidates.n_candidates < min_candidates:
        st.warning(f"The data set has {candidates.n_candidates} candidate; curves and tests need at least "
                   f"{min_candidates} (in practice hundreds). Upload a larger candidate set on the Data page.")
        stop()
    fixed, problems = check_against_data(v, measures=candidates.measures, n_candidates=candidates.n_candidates)
    if fixed != v:
        st.session_state["view"] = fixed
    for problem in problems:
        st.warning(esc(problem))
    if fixed.data != data.roles:  # (a link's lower-is-better measure that is no score column, left out)
        data = load(fixed.data)
    return data


def require_experiment() -> Loaded:
    """The whole experiment (every sample), loaded; without a sample column or with one sample, say what to do and
    stop."""
    require_data()
    data = load(view().data.whole)
    candidates = data.candidates
    if candidates.samples is None or len(candidates.sample_ids) < 2:
        found = "one sample" if candidates.samples is not None else "no sample column"
        st.info(f"This page compares the samples of an experiment; the data set has {found}. On the Data page, "
                "choose the column that says which sample each candidate comes from, upload one file per "
                "sample together, or pick the sample experiment 'experiment_sim' (80 simulated samples).")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        stop()
    return data
