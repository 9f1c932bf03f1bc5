"""Widgets bound to the view: each shows a field of the view and writes its changes back."""

from __future__ import annotations

import streamlit as st

from pages.common import update, view


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
