"""Widgets bound to the view: each shows a field of the view and writes its changes back."""

from __future__ import annotations

import streamlit as st

from evalcore import format as fmt
from evalcore.samples import Cut, min_sample_size
from evalcore.text import markdown_text as esc
from evalcore.viewstate import MAX_DISPLAY_CHARS, MAX_MEASURES, cut_gammas, n_options, widened, with_cut_gamma

from evalcore_app import cached
from evalcore_app.common import correct, forgotten, stop, update, view


#: The arguments that make a widget of the same key a new widget to Streamlit (st.slider's identity holds them):
#: when they change, the new widget starts from its own default, not from the value under its key.
IDENTITY = ("min_value", "max_value", "step")


def bound(widget, label: str, field: str, *, convert=None, default=None, **kwargs):
    """A widget whose value is the view's ``field`` (``default`` where the field is None: shown, not written);
    changing it updates the view. Returns the widget's value, which is the view's."""
    key = f"w_{field}"
    current = getattr(view(), field)
    if current is None:
        current = default
    # The same key on another page is another widget to Streamlit, and a value left from that
    # page would win over the view: refill where they differ (only then, so that a value the
    # browser is sending is not overwritten during quick input), and where the widget is new to
    # Streamlit because its range changed (it would start from its minimum, not the view's value).
    if widget is st.multiselect:
        current = () if current is None else current
    wanted = list(current) if isinstance(current, tuple) and widget is st.multiselect else current
    identity = tuple(kwargs.get(name) for name in IDENTITY)
    renewed = st.session_state.get(f"_identity_{key}", identity) != identity
    st.session_state[f"_identity_{key}"] = identity
    if key not in st.session_state or st.session_state[key] != wanted or renewed:
        st.session_state[key] = wanted

    def changed() -> None:
        if forgotten(key):
            return
        value = st.session_state[key]
        update(**{field: convert(value) if convert else (tuple(value) if isinstance(value, list) else value)})

    return widget(label, key=key, on_change=changed, **declared(widget, wanted, kwargs), **kwargs)


def refill(key: str, value) -> None:
    """Show the view's ``value`` in the widget under ``key`` (only where it differs, so that a value the browser is
    sending is not overwritten during quick input): for widgets made outside :func:`bound`."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value


def declared(widget, value, kwargs: dict) -> dict:
    """The widget's own starting value (``index``, ``default``, ``value``) set to ``value``, the view's: what the
    widget shows wherever Streamlit or the browser has no value for it under its key.

    Without it a widget declares its first option or its minimum, and a browser that holds no value for the widget
    while the server holds one (and so sends none) shows that, and sends it with its next message as a change: the
    likely path of a reset seen once after a Cancel under heavy load (Measure B on its first option, the level at its
    minimum, in the link as the user's choice; the browser's trigger not reproduced since). A value the widget cannot
    take (not among its options, outside its range) is not declared; the page's own checks say so.
    ``st.expander`` is left out: its ``expanded`` is part of its identity, and it always sends the server's value.
    """
    if value is None:
        return {}
    options = list(kwargs["options"]) if kwargs.get("options") is not None else []
    if widget in (st.selectbox, st.radio):
        return {"index": options.index(value)} if value in options else {}
    if widget is st.multiselect:
        chosen = list(value)
        most = kwargs.get("max_selections")
        fits = all(v in options for v in chosen) and (most is None or len(chosen) <= most)
        return {"default": chosen} if fits else {}
    if widget is st.select_slider:
        ends = list(value) if isinstance(value, (tuple, list)) else [value]
        return {"value": value} if all(v in options for v in ends) else {}
    if widget in (st.checkbox, st.toggle):
        return {"value": bool(value)}
    if widget is st.text_input:
        return {"value": str(value)}
    if widget in (st.slider, st.number_input):
        return _numeric(value, kwargs)
    return {}


def _numeric(value, kwargs: dict) -> dict:
    """A slider's or number input's ``value``: of the type of its bounds (Streamlit refuses an int beside float
    bounds), and only inside them."""
    ends = list(value) if isinstance(value, (tuple, list)) else [value]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in ends):
        return {}
    bounds = [kwargs.get(name) for name in ("min_value", "max_value", "step") if kwargs.get(name) is not None]
    kind = float if any(isinstance(b, float) for b in bounds) else int if bounds else None
    if kind is int and any(float(v) != int(v) for v in ends):
        return {}
    if kind is not None:
        ends = [kind(v) for v in ends]
    low, high = kwargs.get("min_value"), kwargs.get("max_value")
    if any((low is not None and v < low) or (high is not None and v > high) for v in ends):
        return {}
    return {"value": tuple(ends) if isinstance(value, (tuple, list)) else ends[0]}


def n_range_slider(label: str, n_candidates: int) -> tuple[int, int]:
    """The n-range slider, bound to the view's n_min and n_max, and beside it the two ends typed: any n from 1 to N.

    The slider's positions (:func:`evalcore.viewstate.n_options`) follow the scale below the grid's step and reach N,
    so that 100 to 2,000 is on it for a billion candidates as for five thousand; the chosen ends are positions too,
    whatever they are. Returns the range."""
    v = view()
    key = "w_n_range"
    wanted = v.selection.n_range(n_candidates)
    options = sorted(set(n_options(n_candidates)) | set(wanted))
    if key in st.session_state and tuple(st.session_state[key]) != wanted:  # see bound()
        st.session_state[key] = wanted

    def changed() -> None:
        if forgotten(key):
            return
        n_min, n_max = st.session_state[key]
        if n_min == n_max:  # a range needs two n: keep the one that moved away from the other
            n_min, n_max = widened(n_min, n_candidates)
        update(n_min=int(n_min), n_max=int(n_max))

    slider_column, typed = st.columns([5, 1], vertical_alignment="bottom")
    with slider_column:  # (the value makes it a range slider; the session state's, where set, wins)
        st.select_slider(label, options=options, value=wanted, key=key, on_change=changed,
                         format_func=lambda n: f"{n:,}")
    with typed.popover("Type n", icon=":material/keyboard:", help="Any list sizes from 1 to N, typed"):
        low, high = wanted
        if n_candidates > 1:
            bound(st.number_input, "From n", "n_min", default=low, min_value=1, max_value=high - 1, step=1,
                  convert=int)
            bound(st.number_input, "To n", "n_max", default=high, min_value=low + 1, max_value=n_candidates, step=1,
                  convert=int)
    return view().selection.n_range(n_candidates)


def look_n_slider(n_min: int, n_max: int, up_to: int | None, step: int = 1, **kwargs) -> int:
    """Significance's "look at n" slider (the 2x2 view): it starts at the boundary ``up_to`` (the last n of the
    significant run; ``n_min`` without one), shown and not written into the view (a link without it reopens the
    same boundary) until the user moves it; a chosen n outside the range is corrected to the boundary. With a
    ``step`` between the tested n, it moves over the tested n (an n from a link between them is corrected to the
    nearest)."""
    start = min(max(up_to or n_min, n_min), n_max)
    v = view()
    if v.look_n is not None and not n_min <= v.look_n <= n_max:
        correct(f"n = {v.look_n:,} for the 2x2 table is outside the range {n_min:,} to {n_max:,}; showing "
                f"n = {start:,}.", look_n=start)
    elif v.look_n is not None and step > 1 and (v.look_n - n_min) % step and v.look_n != n_max:
        nearest = min(n_min + round((v.look_n - n_min) / step) * step, n_max)
        correct(f"n = {v.look_n:,} for the 2x2 table is not among the tested n (a step of {step:,} from "
                f"{n_min:,}); showing n = {nearest:,}.", look_n=nearest)
    kwargs.setdefault("format", "%,d")  # 1,268 as everywhere else on the page (sprintf.js's thousands separator)
    return bound(st.slider, "Look at the n-best lists for n =", "look_n", default=start, min_value=n_min,
                 max_value=n_max, step=step, convert=int, **kwargs)


def shown(measure: str) -> str:
    """A measure's display name (the Data page's), as plain text: escape it for Markdown with ``esc``."""
    return view().display.of(measure)


def displayed(table, measures):
    """A table whose column names and text cells name ``measures`` (as analysis functions that need the score
    columns write them), with the display names instead."""
    names = {m: shown(m) for m in measures if shown(m) != m}
    if not names:
        return table
    renamed = table.rename(columns={c: _renamed(c, names) for c in table.columns})
    if "region" in renamed.columns:
        renamed["region"] = renamed["region"].map(lambda x: _renamed(x, names) if isinstance(x, str) else x)
    return renamed


def _renamed(text: str, names: dict) -> str:
    """``text`` with a measure named in it, whole or as ``rank by m`` / ``(only m)``, replaced by its display name."""
    if text in names:
        return names[text]
    for m, t in names.items():
        for pattern in ("rank by {}", "D1 (only {})", "D2 (only {})"):
            if text == pattern.format(m):
                return pattern.format(t)
    return text


def measures_select(label: str, data, *, prompt: str = "Pick at least one measure.", least: int = 1) -> tuple:
    """The one selection of measures shared by every page, as a multiselect: the options ordered by average
    precision (best first), the four best shown while nothing was chosen (and not written into the view: the
    link, the signature and the report name a selection only when the user makes one); an emptied selection
    stays empty and the page stops with ``prompt``. Returns the measures shown."""
    ordered = cached.quality(data, view().ranking)
    chosen = view().selection.effective_measures(ordered)
    bound(st.multiselect, label, "measures", default=chosen, options=list(ordered), max_selections=MAX_MEASURES,
          format_func=shown)
    st.caption("Measures ordered by average precision (best first); the pages start from the four best.")
    chosen = view().selection.effective_measures(ordered)
    if len(chosen) < least:
        st.info(prompt)
        stop()
    return chosen


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
        refill(key, value)

        def changed(m=m, key=key):
            if forgotten(key):
                return
            new = float(st.session_state[key])
            update(**{"cut_gammas": with_cut_gamma(view(), m, None if new == defaults[m] else new).cut_gammas})

        with columns[i % len(columns)]:
            gamma = st.select_slider(f"γ for {esc(shown(m))}" + (" (default)" if m not in chosen else ""), options=options,
                                     value=value, key=key, on_change=changed,  # (declared: see declared())
                                     format_func=lambda g: f"{g:.6g}")
        cuts[m] = Cut("gamma", float(gamma))
    return cuts


def measure_pair(data, columns) -> tuple[str, str]:
    """Selectboxes for the two measures compared (the view's a and b), in two of the given columns; returns them.

    Every page that compares a pair shows the same one: A and B default to the first two measures of the shared
    selection whose n-best lists differ enough for Fisher's test to reach alpha somewhere in the default range
    (:func:`evalcore_app.cached.default_pair`, :func:`evalcore.compare.default_pair`), shown and not written into the view
    until the user picks one.
    """
    measures = data.candidates.measures
    if len(measures) < 2:
        st.info("Comparing needs two score columns; choose more on the Data page.")
        stop()
    ordered = cached.quality(data, view().ranking)
    ordered = [m for m in ordered if m in measures] + [m for m in measures if m not in ordered]

    def pair() -> tuple[str, str]:
        v = view()
        if v.a is not None and v.b is not None:
            return v.a, v.b
        shown_first = v.selection.effective_measures(ordered)
        return cached.default_pair(data, v.ranking, tuple(shown_first), tuple(ordered), round(1 - v.level, 6),
                                   v.a, v.b)

    a, b = pair()
    with columns[0]:
        bound(st.selectbox, "Measure A", "a", default=a, options=ordered, format_func=shown)
    with columns[1]:
        bound(st.selectbox, "Measure B", "b", default=pair()[1], options=ordered, format_func=shown)
    a, b = pair()
    if a == b:
        st.info("Pick two different measures.")
        stop()
    return a, b


def bands_note(data, measures, n_range: tuple[int, int]) -> None:
    """Where two of the measures drawn have the same n-best lists over the range, or nearly so (Fisher's test could
    not tell them apart: :func:`evalcore_app.cached.pair_reach`), say so in words: their bands lie on each other."""
    v = view()
    for i, a in enumerate(measures):
        for b in measures[i + 1:]:
            reach = cached.pair_reach(data, v.ranking, a, b, tuple(n_range), round(1 - v.level, 6))
            if reach.reaches:
                continue
            lo, hi = reach.n_range
            how = ("the same at every n" if reach.identical else
                   f"nearly the same (at most {reach.largest_difference:,} candidates of either are not in the other's)")
            st.caption(f"The n-best lists of {esc(shown(a))} and {esc(shown(b))} are {how} from n = {lo:,} to "
                       f"{hi:,}, so their bands lie on each other: the two measures rank these candidates "
                       f"{'alike' if reach.identical else 'nearly alike'}, and Fisher's test could not tell them "
                       "apart here (Significance).")


def pair_reach_note(comparison, a: str, b: str, source=None) -> None:
    """Where the n-best lists of A and B are identical or nearly so at the n of ``comparison`` (a table of their
    difference regions, the page's own), say so in words: Fisher's test cannot reach alpha on regions that small
    (:func:`evalcore.compare.regions_reach`, once per ``source``: a level-free object the regions come from, e.g.
    a cached pair's tests; the smallest p-value does not depend on the level)."""
    from dataclasses import replace

    from evalcore.compare import regions_reach
    from evalcore_app import figcache

    v = view()
    reach = replace(figcache.memo(comparison if source is None else source, lambda: regions_reach(comparison, 0.5),
                                  "reach"), alpha=1 - v.level)
    if reach.reaches:
        return
    lo, hi = reach.n_range
    names = f"{esc(shown(a))} and {esc(shown(b))}"
    if reach.identical:
        st.info(f"The n-best lists of {names} are the same at every n from {lo:,} to {hi:,}: the two measures rank "
                "these candidates alike, so there is nothing to test. Pick another pair to see a difference.",
                icon=":material/info:")
        return
    st.info(f"The n-best lists of {names} are nearly the same from n = {lo:,} to {hi:,}: each holds at most "
            f"{reach.largest_difference:,} candidates the other does not (D1 and D2), and on so few, with the TPs "
            f"they hold, Fisher's exact test cannot give a p-value below alpha = {1 - v.level:.3g} at any n (the "
            f"smallest it can give is {fmt.p_value(reach.smallest_p)}). The two measures rank these candidates "
            "nearly alike; pick another pair to see a difference.", icon=":material/info:")


def display_names_editor(measures) -> None:
    """The Data page's display names: a text field per measure (empty: the column's own name). The names are
    user text, shown through :mod:`evalcore.text` like every other."""
    display = view().display
    with st.expander("Display names of the measures (in every legend, table, download and the report)",
                     expanded=bool(display.names)):
        columns = st.columns(4)
        for i, m in enumerate(measures):
            key = f"w_name_{m}"
            wanted = display.mapping.get(m, "")
            refill(key, wanted)

            def changed(m=m, key=key) -> None:
                if forgotten(key):
                    return
                update(names=view().display.with_name(m, st.session_state[key]).names)

            with columns[i % 4]:
                st.text_input(esc(m), value=wanted, key=key, on_change=changed, max_chars=MAX_DISPLAY_CHARS,
                              placeholder="e.g. G²")  # (the value declared: see declared())
