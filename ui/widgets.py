"""Widgets bound to the view: each shows a field of the view and writes its changes back."""

from __future__ import annotations

import streamlit as st

from evalcore.samples import Cut, min_sample_size
from evalcore.text import markdown_text as esc
from evalcore.viewstate import cut_gammas, with_cut_gamma

from ui.common import stop, update, view


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


def cut_controls(candidates, measures, positions, defaults) -> dict:
    """Where each sample's ranking is cut: n-best lists, or a threshold per measure.

    ``positions[m]`` are the threshold slider's values for measure m, ``defaults[m]`` its threshold
    accepting n per sample on average. Returns measure -> Cut for ``measures``.
    """
    smallest = min_sample_size(candidates)
    c1, c2 = st.columns([1, 2])
    with c1:
        mode = bound(st.radio, "Cut each sample's ranking at", "cut_mode", options=["gamma", "n"],
                     format_func={"gamma": "a score threshold γ", "n": "the n-best list"}.get)
    with c2:
        label = ("n: the list size in every sample" if mode == "n" else
                 "n: a threshold's default accepts n candidates per sample on average (as the paper's §4)")
        if smallest > 1:
            n = bound(st.slider, label, "cut_n", min_value=1, max_value=smallest, convert=int)
        else:  # a slider needs two values
            n = view().cut_n
            st.caption(f"{label}: n = {n}, since the smallest sample has a single candidate.")
    if mode == "n":
        return {m: Cut("n", n) for m in measures}
    chosen = cut_gammas(view())
    cuts = {}
    columns = st.columns(min(len(measures), 3))
    for i, m in enumerate(measures):
        options = sorted(set(positions[m]) | {defaults[m]} | ({chosen[m]} if m in chosen else set()))
        value = chosen.get(m, defaults[m])
        # a new n brings new options (its default threshold): a new widget, so no stale browser state
        key = f"w_cut_gamma_{m}_{n}"
        if st.session_state.get(key) != value:
            st.session_state[key] = value

        def changed(m=m, key=key):
            new = float(st.session_state[key])
            update(**{"cut_gammas": with_cut_gamma(view(), m, None if new == defaults[m] else new).cut_gammas})

        with columns[i % len(columns)]:
            gamma = st.select_slider(f"γ for {esc(m)}" + (" (default)" if m not in chosen else ""), options=options,
                                     key=key, on_change=changed, format_func=lambda g: f"{g:.6g}")
        cuts[m] = Cut("gamma", float(gamma))
    return cuts


def measure_pair(measures, columns) -> None:
    """Selectboxes for the two measures compared (the view's a and b), in two of the given columns.

    Defaults: the first two measures. The pages that compare a pair share them, so a pair chosen
    on one is the pair on the others.
    """
    if len(measures) < 2:
        st.info("Comparing needs two score columns; choose more on the Data page.")
        stop()
    v = view()
    if v.a is None or v.b is None:
        a = v.a or measures[0]
        update(a=a, b=v.b or next(m for m in measures if m != a))
    with columns[0]:
        bound(st.selectbox, "Measure A", "a", options=measures)
    with columns[1]:
        bound(st.selectbox, "Measure B", "b", options=measures)
    if view().a == view().b:
        st.info("Pick two different measures.")
        stop()
