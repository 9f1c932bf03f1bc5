"""A value the browser sends for a widget whose key a page switch has just dropped (evalcore_app/common.py's
forget_widgets_on_page_change) is no error. In Chromium (the Annotate browser test, 1 in 3 whole runs under load):
the sample size typed on the Annotate page before the switch's run had drawn the sidebar again; Streamlit called the
sidebar caption toggle's change callback, whose key was gone, and the page showed
``KeyError: 'st.session_state has no key "w_caption"'``. Here the same state is made directly: the key dropped,
the browser's value for it still sent with the next run."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def test_a_value_for_a_widget_dropped_by_a_page_switch_is_no_error(krenn_id):
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = krenn_id
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    toggle = at.sidebar.toggle(key="w_caption")
    shown = toggle.value
    del at.session_state["w_caption"]  # what a page switch does, before its run draws the sidebar again
    toggle.set_value(shown).run()  # the browser still sends the toggle's value (unchanged)
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.toggle(key="w_caption").value == shown == at.session_state["view"].caption
