"""Streamlit glue shared by the pages: the view in session state and the URL, and widgets bound
to it (the data and the cached calls into evalcore are in evalcore_app/cached.py).

The canonical state is one frozen ``ViewSettings`` (small frozen objects by concern, see
:mod:`evalcore.viewstate`) in ``st.session_state["view"]``, read from the URL once per session and
written back to the URL after every run (``sync_url``), so a link copied on any page carries every
setting, and a choice made on one page (the measures, the pair, the n range, the level, the
interval) is the choice on every other. Widgets keep their own keys (``w_<setting>``) and copy their
value into the view when changed.
"""

from __future__ import annotations

import os
from urllib.parse import urlencode, urlsplit

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from evalcore.text import markdown_text as esc
from evalcore.viewstate import ALIASES, QUERY_NAMES, ViewSettings, from_query, link_groups, to_query

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


#: Paths that open a page served elsewhere: the Data page is the default page, served at ``/``, and Streamlit
#: reserves its ``url_path`` ("data") without serving it, so a link or a typed ``/data`` got Streamlit's "Page not
#: found" modal, which blocks clicks until closed.
PATH_ALIASES = {"data": ""}


def open_aliased_path() -> None:
    """Before ``st.navigation``: a request for an aliased path (:data:`PATH_ALIASES`) runs the page it stands for,
    as a request for ``/`` does (no "Page not found"; the browser's address then shows the page's own path).

    The browser names the page it asks for by its path only on a session's first run (later runs name it by its
    hash); Streamlit's page manager holds that request until ``st.navigation`` resolves it.
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    name = getattr(manager, "intended_page_name", None)
    if name in PATH_ALIASES and not manager.intended_page_script_hash:
        manager.set_script_intent("", PATH_ALIASES[name])


# ---------------------------------------------------------------- view <-> URL

def view() -> ViewSettings:
    """The current view; on a session's first run, read from the URL."""
    if "view" not in st.session_state:
        params = {key: st.query_params.get_all(key) for key in st.query_params}
        initial, problems = from_query(params)
        default = os.environ.get("EVALCORE_DEFAULT_DATASET")  # ./dev run: the sample
        if initial.dataset is None and default and "dataset" not in params:
            initial = initial.set(dataset=default)
        if initial.seed is None:  # the data's own seed (a link's is kept), so switching to random ties is
            initial = initial.set(seed=default_seed(initial.dataset))  # reproducible and alike for everyone
        st.session_state["view"] = initial
        st.session_state["link_problems"] = problems
        st.session_state["link_view"] = initial  # what the link asked for, after the checks that need no data
        st.session_state["link_fields"] = ({f for f, q in QUERY_NAMES.items() if q in params}
                                           | {f for alias, f in ALIASES if alias in params})
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


def forgotten(key: str) -> bool:
    """True if the widget key was dropped by :func:`forget_widgets_on_page_change`: a widget's change callback must
    then do nothing.

    When the browser sends a value (the user types on the new page) before the switch's run has drawn the widgets
    again, Streamlit calls the callbacks of the widgets whose value it sees as changed, the sidebar's among them,
    their keys gone (``st.session_state[key]`` raised a KeyError on the page). Such a value is the page's left
    behind, not a user's change; the widget shows the view when it is drawn again.
    """
    return key not in st.session_state


def update(**changes) -> None:
    st.session_state["view"] = view().set(**changes)


def default_seed(dataset: str | None) -> int | None:
    """The seed of random ties a data set opens with: derived from the data's identity
    (:func:`evalcore_app.cached.default_seed`), so that two people who open the same file see the same numbers; None without a
    data set, or for one that cannot be opened (the page says why)."""
    if dataset is None:
        return None
    from evalcore.errors import EvalcoreError
    from evalcore_app import cached

    try:
        return cached.default_seed(dataset)
    except (EvalcoreError, OSError):
        return None


def load_dataset(dataset: str, keep: tuple[str, ...] = ()) -> None:
    """Switch to another data set: the settings that name its columns or sizes start afresh (the choices of
    method, level, ties stay; a seed the user chose stays, the previous data's own seed becomes the new data's), and
    the widgets (but ``keep``) show the new view."""
    for key in [k for k in st.session_state if str(k).startswith("w_") and k not in keep]:
        del st.session_state[key]
    old = view()
    new = old.for_dataset(dataset)
    if old.seed is None or old.seed == default_seed(old.dataset):
        new = new.set(seed=default_seed(dataset))
    st.session_state["view"] = new


def correct(message: str, **changes) -> None:
    """Change settings that the page cannot show (a value off its slider, outside its range), and say so with
    ``message`` when a changed value is still the one the link gave: a link is corrected with a message, a
    user's own earlier choice that no longer fits (e.g. after narrowing the range) is adjusted quietly."""
    v = view()
    link, given = st.session_state.get("link_view"), st.session_state.get("link_fields", set())
    from_link = link is not None and any(name in given and getattr(link, name) is not None
                                         and getattr(v, name) == getattr(link, name) for name in changes)
    update(**changes)
    for name in changes:  # the widget shows the view again
        st.session_state.pop(f"w_{name}", None)
    if from_link:
        st.warning(esc(message))


def page_query() -> dict:
    """The query of this page's link: the view's settings that the page's family of pages shows
    (:func:`evalcore.viewstate.link_groups`: the Systems page its own, every other page the candidate set's)."""
    return to_query(view(), link_groups(st.session_state.get("_page")))


def sync_url() -> None:
    """Write the view into the URL as the page's link holds it (a page switch clears the query string)."""
    wanted = page_query()
    current = {key: st.query_params.get_all(key) for key in st.query_params}
    normalised = {k: v if isinstance(v, list) else [v] for k, v in wanted.items()}
    if current != normalised:
        st.query_params.from_dict(wanted)


def share_link() -> str:
    """The link to this view: the server, this page's path and the view's query.

    The path is the page that runs, not the one the browser asked for: a link to an unknown page runs the
    Data page (Streamlit says "Page not found"), and its link must name the Data page.
    """
    parts = urlsplit(st.context.url or "")
    base = st.get_option("server.baseUrlPath").strip("/")
    path = "/" + "/".join(p for p in (base, st.session_state.get("_page", "")) if p)
    url = f"{parts.scheme}://{parts.netloc}{path}" if parts.netloc else path
    query = urlencode(page_query(), doseq=True)
    return f"{url}?{query}" if query else url


def show_link_problems() -> None:
    for problem in st.session_state.pop("link_problems", []):
        st.warning(esc(problem))
