"""A Significance level key sends only what changed (issue 18: the level key at most 1.5x the floor app's).

Streamlit keeps every message of 10 KB or more that it sent to a browser and sends a reference instead when the same
bytes come again (``global.minCachedMessageSize``, streamlit/runtime/forward_msg_cache.py); an element whose bytes
did not change is not drawn again. pandas names every ``Styler`` by a random uuid, which Streamlit sends with the
table, so on main (c180f1b) every table with formatted cells was new bytes on every rerun: the members of D1 and D2
on Significance, 97 KB of the 128 KB a level key sent (bench/bench_browser.py counts the bytes per key).

An element sent again by reference still costs its run on the server (the table's formatting and Arrow bytes) and a
new element in the browser (Streamlit's frontend makes a new element node for every delta, and parses a table's
Arrow data again), so the two boxes of details, the counts of every test and correction and the candidates of D1
and D2, are computed and drawn only while open (the view's ``sig_counts`` and ``sig_members``, in the link).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.proto.ArrowData_pb2 import ArrowData as ArrowProto
from streamlit.elements.lib.pandas_styler_utils import marshall_styler
from streamlit.testing.v1 import AppTest

from shown_charts import specs
from shown_tables import markdown_tables, page_tables
from evalcore_app import tables

APP = str(Path(__file__).resolve().parents[2] / "app.py")
pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def _marshalled(values: pd.DataFrame, texts: pd.DataFrame) -> bytes:
    proto = ArrowProto()
    marshall_styler(proto, tables.styled(values, texts), "default-uuid")
    return proto.SerializeToString(deterministic=True)


def test_the_same_table_is_the_same_bytes_on_every_rerun():
    values = pd.DataFrame({"n": [9, 10, 1000], "p": [0.0431, 0.0, 2.1e-29]})
    texts = pd.DataFrame({"n": ["9", "10", "1,000"], "p": ["0.0431", "< 1e-300", "2.1e-29"]})
    first, second = _marshalled(values, texts), _marshalled(values, texts)
    assert first == second  # main: the Styler's random uuid differed ("91f8a", "189c4")
    assert b"1,000" in first and b"< 1e-300" in first  # the texts are still what is shown


def _elements(at: AppTest) -> dict[str, list[bytes]]:
    """The grids' and the typeset tables' bytes as sent, and the figures'."""
    return {"tables": [e.proto.SerializeToString(deterministic=True) for e in at.dataframe]
            + [e.proto.SerializeToString(deterministic=True) for e in at.markdown if markdown_tables(e.value)],
            "figures": [spec.encode() for spec in specs(at)]}


COUNTS_BOX = "How many n each test and correction calls significant"
MEMBERS_BOX = "The candidates of D1 and D2 at this n"


def _significance(krenn_id, **link) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", **link}.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/significance.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_level_key_and_back_sends_the_same_tables_and_figures(krenn_id):
    at = _significance(krenn_id, sig_counts="1", sig_members="1")  # (both boxes open: every table drawn)
    before = _elements(at)
    assert len(before["figures"]) == 2 and len(before["tables"]) >= 4
    members = max(before["tables"], key=len)
    at.slider(key="w_level").set_value(0.951).run()
    moved = _elements(at)
    # the level moved by one step and the boundary n (and so the n looked at) stayed: D1 and D2 are the same
    # candidates, the same bytes; the figures show the new level
    assert members in moved["tables"]
    assert moved["figures"] != before["figures"]
    at.slider(key="w_level").set_value(0.95).run()
    assert _elements(at) == before  # back at 0.95: every table and figure is the bytes the browser already holds


def test_the_boxes_of_details_are_computed_and_drawn_only_when_open(krenn_id):
    at = _significance(krenn_id)
    boxes = {e.label: e for e in at.expander}
    assert set(boxes) == {COUNTS_BOX, MEMBERS_BOX}
    assert not list(boxes[COUNTS_BOX].children.values()) and not list(boxes[MEMBERS_BOX].children.values())
    # on main (2deaec6) four tables: the counts and the members were drawn (and sent) on every rerun, closed or not;
    # the 2x2 view's two are typeset (no grid: 2479e2f drew both as grids)
    assert not at.dataframe
    assert [list(t.columns) for t in page_tables(at)] == [["", "TPs", "FPs"], ["effect", "estimate", "low", "high"]]
    link = at.sidebar.code[0].value
    assert "sig_counts" not in link and "sig_members" not in link

    at = _significance(krenn_id, sig_counts="1", sig_members="1")
    boxes = {e.label: e for e in at.expander}
    counts, = boxes[COUNTS_BOX].dataframe
    assert "Holm (family-wise error)" in counts.value.columns  # the counts, in their box
    members, = boxes[MEMBERS_BOX].dataframe
    assert {"row", "region"} <= set(members.value.columns) and len(members.value) > 100  # D1 and D2 at n = 1,268
    link = at.sidebar.code[0].value
    assert "&sig_counts=1" in link and "&sig_members=1" in link  # the screen, in the link
