"""Streamlit glue shared by the pages: the view in session state and the URL, and widgets bound
to it (the data and the cached calls into evalcore are in pages/cached.py).

The canonical state is one frozen ``ViewSettings`` in ``st.session_state["view"]``, read from
the URL once per session and written back to the URL after every run (``sync_url``), so a
link copied on any page carries every setting. Widgets keep their own keys (``w_<field>``) and
copy their value into the view when changed.
"""

from __future__ import annotations

import os
from dataclasses import replace
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.ranking import resolve_seed
from evalcore.viewstate import ViewSettings, check_against_data, from_query, to_query
from evalcore.io import suggest_roles
from evalcore.samples import default_cut_n, min_sample_size
from pages.cached import candidates_for, raw_table, roles, whole

PAGES = {}  # filled by app.py: name -> st.Page


class PageDone(Exception):
    """Raised by :func:`stop` to end a page early; app.py catches it.

    ``st.stop()`` would leave a stop request that also ends app.py's code after the page,
    which writes the URL and the sidebar's link.
    """


def stop():
    raise PageDone


def ensure_router() -> None:
    """Route every run through app.py.

    With a ``pages/`` folder beside app.py, Streamlit starts a process in its old file-based
    mode, which runs a page file directly (no app.py, so no navigation, sidebar or URL sync)
    until app.py has called ``st.navigation`` once. A shared link to /significance can be the
    first request; then this clears that mode and reruns, and app.py routes the same URL.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


# ---------------------------------------------------------------- view <-> URL

def view() -> ViewSettings:
    """The current view; on a session's first run, read from the URL."""
    if "view" not in st.session_state:
        params = {key: st.query_params.get_all(key) for key in st.query_params}
        initial, problems = from_query(params)
        default = os.environ.get("EVALCORE_DEFAULT_DATASET")  # ./dev run: the sample
        if initial.dataset is None and default and "dataset" not in params:
            initial = replace(initial, dataset=default)
        if initial.seed is None:  # always carry a seed, so switching to random ties stays reproducible
            initial = replace(initial, seed=resolve_seed("random", None))
        st.session_state["view"] = initial
        st.session_state["link_problems"] = problems
    return st.session_state["view"]


def forget_widgets_on_page_change(page_id: str) -> None:
    """Drop the widget keys when the page changes, so the new page's widgets start from the view.

    Streamlit treats a key's widget on another page as another widget and ignores the value
    left under that key; the view, not the previous page's widget, must decide.
    """
    if st.session_state.get("_page") != page_id:
        for key in [k for k in st.session_state if str(k).startswith("w_")]:
            del st.session_state[key]
        st.session_state["_page"] = page_id


def update(**changes) -> None:
    st.session_state["view"] = replace(view(), **changes)


def sync_url() -> None:
    """Write the whole view into the URL (a page switch clears the query string)."""
    wanted = to_query(view())
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    normalised = {k: v if isinstance(v, list) else [v] for k, v in wanted.items()}
    if current != normalised:
        st.query_params.from_dict(wanted)


def share_link() -> str:
    base = st.context.url or ""
    query = urlencode(to_query(view()), doseq=True)
    return f"{base}?{query}" if query else base


def show_link_problems() -> None:
    for problem in st.session_state.pop("link_problems", []):
        st.warning(problem)


def require_data(link_to_data: bool = True, min_candidates: int = 2) -> CandidateSet:
    """The loaded candidate set; without one, say where to get it and stop the page."""
    v = view()
    show_link_problems()
    if v.dataset is None:
        st.info("No data loaded yet. Upload a candidate set or pick the sample on the Data page.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        stop()
    try:
        if v.label is None and not v.scores:  # a fresh data set (or a link naming only it): suggested roles
            roles_ = suggest_roles(raw_table(v.dataset)[0])
            update(label=roles_.label, scores=roles_.scores, keys=roles_.keys, sample_column=roles_.sample)
            v = view()
        if v.sample is not None and v.sample not in whole(v).sample_ids:
            st.warning(f"The data set has no sample {v.sample!r}; showing all samples pooled.")
            update(sample=None)
            v = view()
        candidates = candidates_for(*roles(v))
    except EvalcoreError as exc:
        st.error(str(exc))
        if link_to_data:
            st.page_link(PAGES["data"], label="Fix it on the Data page", icon=":material/upload:")
        stop()
    if v.sample is not None:
        st.caption(f"Sample **{v.sample}** of {len(whole(v).sample_ids)} "
                   "(choose another, or all pooled, on the Data page).")
    if candidates.n_candidates < min_candidates:
        st.warning(f"The data set has {candidates.n_candidates} candidate; curves and tests need at least "
                   f"{min_candidates} (in practice hundreds). Upload a larger candidate set on the Data page.")
        stop()
    fixed, problems = check_against_data(v, columns=[], measures=candidates.measures,
                                         n_candidates=candidates.n_candidates)
    if fixed != v:
        st.session_state["view"] = fixed
    for problem in problems:
        st.warning(problem)
    return candidates


def require_experiment() -> CandidateSet:
    """The whole experiment (every sample); without a sample column or with one sample, say what to do and stop."""
    require_data()
    v = view()
    candidates = whole(v)
    if candidates.samples is None or len(candidates.sample_ids) < 2:
        found = "one sample" if candidates.samples is not None else "no sample column"
        st.info(f"This page compares the samples of an experiment; the data set has {found}. On the Data page, "
                "choose the column that says which sample each candidate comes from, upload one file per "
                "sample together, or pick the sample experiment 'experiment_sim' (80 simulated samples).")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        stop()
    if v.cut_n is None or v.cut_n > min_sample_size(candidates):
        update(cut_n=default_cut_n(candidates))
    return candidates
