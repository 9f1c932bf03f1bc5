"""A widget bound to the view (evalcore_app/widgets.py's ``bound``) declares the view's value as its own starting value,
so that a browser or a Streamlit run without the widget's value falls back to the user's choice, never to the first
option or the minimum.

Seen in Chromium after a Cancel on Significance at load 13-18 (a session's stopped run and its next run overlapping):
Measure B back on its first option, the confidence level at its minimum, and the link then read ``b=a&level=0.8``.
The likely path (the browser's trigger was not reproduced in 15 Cancels at load 10-14): the browser held no value for
those widgets while the server held one (and so sent none), so it showed what the element declared (Streamlit's
default: index 0, ``min_value``), and its next message sent that as the user's change. Here the browser's fallback is
made directly: each widget is set to the value its element declares.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.stats.multitest import CORRECTIONS
from evalcore.stats.pairtests import PAIR_TESTS

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)

#: A link whose choices are none of the widgets' defaults: B is not the first option of the measures (ordered by
#: average precision), the level is not the slider's minimum, the test and correction are not the first.
LINK = {"ties": "stable", "a": "t.score", "b": "chisq", "level": "0.9", "test": "mcnemar", "correction": "holm",
        "n_min": "200", "n_max": "1200"}


def opened(krenn_id, page: str, params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"dataset": krenn_id, **params})
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def declared(widget):
    """What the widget's element declares as its starting value (what a browser without a value for it shows), in
    the form of what it shows: an index for a selectbox or radio, indices for a multiselect or select slider, a
    list of numbers for a slider, the value otherwise."""
    default = widget.proto.default
    if type(widget).__name__ == "NumberInput" and not widget.proto.HasField("default"):
        return None  # (an empty number input)
    return list(default) if hasattr(default, "__len__") and not isinstance(default, str) else default


def shown(widget):
    kind = type(widget).__name__
    if kind in ("Selectbox", "Radio"):
        return widget.index
    if kind == "Multiselect":
        return list(widget.indices)
    if kind == "SelectSlider":
        values = widget.value if isinstance(widget.value, tuple) else (widget.value,)
        return [list(widget.options).index(widget.format_func(v)) for v in values]
    if kind == "Slider":
        return [float(v) for v in (widget.value if isinstance(widget.value, tuple) else (widget.value,))]
    if kind == "NumberInput":
        return None if widget.value is None else float(widget.value)
    return widget.value


KINDS = ("selectbox", "radio", "multiselect", "select_slider", "slider", "number_input", "checkbox", "toggle",
         "text_input")


def bound_widgets(at: AppTest):
    """The page's widgets bound to the view (keys ``w_<field>``) of the kinds above."""
    for kind in KINDS:
        for widget in getattr(at, kind):
            if widget.key and widget.key.startswith("w_"):
                yield widget


@pytest.mark.parametrize("page", ["pages/significance.py", "pages/confidence.py", "pages/precision.py"])
def test_every_bound_widget_declares_the_value_it_shows(krenn_id, page):
    at = opened(krenn_id, page, LINK)
    widgets = list(bound_widgets(at))
    assert len(widgets) >= 3, [w.key for w in widgets]
    wrong = {w.key: (declared(w), shown(w)) for w in widgets if declared(w) != shown(w)}
    assert not wrong, wrong  # key: (declared, shown)


def test_a_browser_falling_back_to_what_the_widgets_declare_changes_no_choice(krenn_id):
    at = opened(krenn_id, "pages/significance.py", LINK)
    view = at.session_state["view"]
    assert (view.a, view.b, view.level, view.test, view.correction) == ("t.score", "chisq", 0.9, "mcnemar", "holm")
    measure_b, level = at.selectbox(key="w_b"), at.slider(key="w_level")
    assert measure_b.index != 0 and level.value != level.min  # (else the fallback could not be told from the choice)
    # the browser has no value for these widgets, the server sends none: it shows the declared one, and sends it
    measure_b.select_index(measure_b.proto.default)
    level.set_value(level.proto.default[0])
    for key, options in (("w_test", list(PAIR_TESTS)), ("w_correction", list(CORRECTIONS))):
        box = at.selectbox(key=key)
        box.set_value(options[box.proto.default])
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    view = at.session_state["view"]
    assert (view.a, view.b, view.level, view.test, view.correction) == ("t.score", "chisq", 0.9, "mcnemar", "holm")
    assert at.selectbox(key="w_b").value == "chisq" and at.slider(key="w_level").value == 0.9


@pytest.mark.parametrize("widget, value, kwargs, expected", [
    ("selectbox", "b", {"options": ["a", "b"]}, {"index": 1}),
    ("radio", "z", {"options": ["a", "b"]}, {}),  # not an option: Streamlit's own handling, the page's checks
    ("multiselect", ("b",), {"options": ["a", "b"], "max_selections": 1}, {"default": ["b"]}),
    ("multiselect", ("a", "b"), {"options": ["a", "b"], "max_selections": 1}, {}),  # more than it takes
    ("slider", 0.9, {"min_value": 0.8, "max_value": 0.999}, {"value": 0.9}),
    ("slider", 0.5, {"min_value": 0.8, "max_value": 0.999}, {}),  # outside the range: Streamlit would raise
    ("number_input", 5, {"min_value": 1.0, "step": 0.5}, {"value": 5.0}),  # of its bounds' type
    ("number_input", 2.5, {"min_value": 1, "step": 1}, {}),  # not an int for int bounds
    ("select_slider", (1, 3), {"options": [1, 2, 3]}, {"value": (1, 3)}),
    ("toggle", 1, {}, {"value": True}),
    ("expander", True, {}, {}),  # its `expanded` is part of its identity, and it always sends the server's value
    ("selectbox", None, {"options": ["a"]}, {}),
])
def test_declared_values_are_ones_the_widget_takes(widget, value, kwargs, expected):
    import streamlit as st

    from evalcore_app.widgets import declared as declared_value

    assert declared_value(getattr(st, widget), value, kwargs) == expected
