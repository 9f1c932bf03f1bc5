"""Streamlit glue shared by the pages: the view in session state and the URL, widgets bound to
it, and cached calls into evalcore keyed on (dataset id, settings).

The canonical state is one frozen ``ViewSettings`` in ``st.session_state["view"]``, read from
the URL once per session and written back to the URL after every run (``sync_url``), so a
link copied on any page carries every setting. Widgets keep their own keys (``w_<field>``) and
copy their value into the view when changed.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from evalcore import analysis, figures
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.io import load_candidates, read_table, suggest_roles
from evalcore.ranking import resolve_seed
from evalcore.store import DatasetStore
from evalcore.viewstate import SAMPLE_PREFIX, ViewSettings, check_against_data, from_query, to_query

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
SAMPLES = {"collocations_sim": "collocations_sim.tsv"}
PAGES = {}  # filled by app.py: name -> st.Page


def store() -> DatasetStore:
    return DatasetStore()


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


def bound(widget, label: str, field: str, *, convert=None, **kwargs):
    """A widget whose value is the view's ``field``; changing it updates the view."""
    key = f"w_{field}"
    current = getattr(view(), field)
    # The same key on another page is another widget to Streamlit, and a value left from that
    # page would win over the view: refill where they differ (only then, so that a value the
    # browser is sending is not overwritten during quick input).
    wanted = list(current) if isinstance(current, tuple) and widget is st.multiselect else current
    if key not in st.session_state or st.session_state[key] != wanted:
        st.session_state[key] = wanted

    def changed() -> None:
        value = st.session_state[key]
        update(**{field: convert(value) if convert else (tuple(value) if isinstance(value, list) else value)})

    return widget(label, key=key, on_change=changed, **kwargs)


def n_range_slider(label: str, low: int, high: int, step: int, default: tuple[int, int]) -> tuple[int, int]:
    """The n-range slider, bound to the view's n_min and n_max."""
    v = view()
    key = "w_n_range"
    wanted = (v.n_min or default[0], v.n_max or default[1])
    if tuple(st.session_state.get(key, ())) != wanted:  # see bound()
        st.session_state[key] = wanted

    def changed() -> None:
        n_min, n_max = st.session_state[key]
        update(n_min=int(n_min), n_max=int(n_max))

    return st.slider(label, min_value=low, max_value=high, step=step, key=key, on_change=changed)


# ---------------------------------------------------------------- data, cached on ids

def dataset_label(dataset: str) -> str:
    """A name to show for a dataset reference."""
    if dataset.startswith(SAMPLE_PREFIX):
        return f"sample {dataset[len(SAMPLE_PREFIX):]}"
    try:
        return store().get(dataset).name
    except EvalcoreError:
        return f"unknown data set {dataset[:12]}..."


def _source(dataset: str):
    if dataset.startswith(SAMPLE_PREFIX):
        name = dataset[len(SAMPLE_PREFIX):]
        if name not in SAMPLES:
            raise EvalcoreError(f"There is no sample data set {name!r}; the samples are {', '.join(SAMPLES)}.")
        return SAMPLE_DIR / SAMPLES[name], SAMPLES[name]
    stored = store().get(dataset)
    return stored.path.read_bytes(), stored.name


@st.cache_resource(max_entries=4, show_spinner="Reading the data set ...")
def raw_table(dataset: str):
    source, name = _source(dataset)
    return read_table(source, name=name), name


@st.cache_resource(max_entries=4, show_spinner="Checking labels and scores ...")
def candidates_for(dataset: str, label, scores, keys, lower, exclude) -> CandidateSet:
    source, name = _source(dataset)
    return load_candidates(source, name=name, label=label, scores=list(scores) or None, keys=list(keys) or None,
                           lower_is_better=lower, exclude_unlabelled=exclude)


def roles(v: ViewSettings) -> tuple:
    return (v.dataset, v.label, v.scores, v.keys, v.lower, v.exclude_unlabelled)


@st.cache_resource(max_entries=16, show_spinner="Ranking ...")
def rankings(role_key: tuple, measures: tuple, ties: str, seed):
    return analysis.rankings_for(candidates_for(*role_key), measures, ties=ties, seed=seed)


@st.cache_resource(max_entries=32, show_spinner="Computing the curves ...")
def curves(role_key: tuple, measures: tuple, ties: str, seed, level: float, interval: str, beta: float,
           n_range: tuple):
    sizes = range(n_range[0], n_range[1] + 1)
    return analysis.curves(rankings(role_key, measures, ties, seed), sizes, confidence_level=level,
                           interval=interval, beta=beta)


@st.cache_resource(max_entries=32, show_spinner="Testing every n ...")
def pair(role_key: tuple, a: str, b: str, ties: str, seed, n_range: tuple, level: float, interval: str):
    r = rankings(role_key, (a, b), ties, seed)
    return analysis.pair_comparison(r[a], r[b], n_range, confidence_level=level, interval=interval)


def require_data(link_to_data: bool = True) -> CandidateSet:
    """The loaded candidate set; without one, say where to get it and stop the page."""
    v = view()
    show_link_problems()
    if v.dataset is None:
        st.info("No data loaded yet. Upload a candidate set or pick the sample on the Data page.")
        st.page_link(PAGES["data"], label="Go to the Data page", icon=":material/upload:")
        stop()
    try:
        candidates = candidates_for(*roles(v))
    except EvalcoreError as exc:
        st.error(str(exc))
        if link_to_data:
            st.page_link(PAGES["data"], label="Fix it on the Data page", icon=":material/upload:")
        stop()
    fixed, problems = check_against_data(v, columns=[], measures=candidates.measures,
                                         n_candidates=candidates.n_candidates)
    if fixed != v:
        st.session_state["view"] = fixed
    for problem in problems:
        st.warning(problem)
    return candidates


def downloads(fig, table, stem: str) -> None:
    """Download buttons: the figure as PNG, SVG and self-contained HTML, the table as CSV.

    Images are rendered only when clicked (deferred data), since that takes a second.
    """
    cols = st.columns(4)
    cols[0].download_button("Figure as PNG", data=lambda: figures.export(fig, "png"), file_name=f"{stem}.png",
                            mime="image/png", on_click="ignore", key=f"dl_png_{stem}")
    cols[1].download_button("Figure as SVG", data=lambda: figures.export(fig, "svg"), file_name=f"{stem}.svg",
                            mime="image/svg+xml", on_click="ignore", key=f"dl_svg_{stem}")
    cols[2].download_button("Figure as HTML", data=lambda: figures.export(fig, "html"),
                            file_name=f"{stem}.html", mime="text/html", on_click="ignore", key=f"dl_html_{stem}")
    cols[3].download_button("Table as CSV", data=lambda: table.to_csv(index=False), file_name=f"{stem}.csv",
                            mime="text/csv", on_click="ignore", key=f"dl_csv_{stem}")
