"""Tables that read as the formatter writes and sort as numbers (issue 18, item 10): evalcore.format.page_cells and
evalcore_app/tables.py under AppTest. On main the pages' tables were text (``page_table``): a column of counts held
"1,000", "10", "9", which sort as text. tests/browser/test_browser_tables.py clicks a header in Chromium."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import format as fmt
from shown_tables import shown

PAIRS = pd.DataFrame({"a": ["G2", "G2", "t"], "b": ["t", "X2", "X2"], "tp_a": [9, 1000, 10],
                      "p_value": [0.0431, 0.0, 2.1e-29], "log10_p": [-1.37, -412.34, -28.68],
                      "p_adjusted": [0.0862, 0.0, np.nan], "diff": [0.058, -0.0123, np.nan],
                      "odds_ratio": [2.0871, np.inf, 1.0], "significant": [True, True, False]})


def test_page_cells_keep_the_numbers_and_write_the_texts_of_page_table():
    values, texts = fmt.page_cells("pairwise", "pairs", PAIRS)
    table = fmt.page_table("pairwise", "pairs", PAIRS)
    assert list(values.columns) == list(texts.columns) == list(table.columns)  # "diff (points)": the headers
    assert values["tp_a"].tolist() == [9, 1000, 10] and values["tp_a"].dtype.kind == "i"
    assert values.sort_values("tp_a")["tp_a"].tolist() == [9, 10, 1000]  # numbers sort as numbers
    assert sorted(table["tp_a"]) == ["1,000", "10", "9"]  # the text of main sorted as text
    assert texts["tp_a"].tolist() == ["9", "1,000", "10"]
    assert texts["p_value"].tolist() == ["0.0431", "< 1e-300 (log10 p = -412.3)", "2.1e-29"]
    assert texts["p_adjusted"].tolist() == ["0.0862", "< 1e-300", "–"]  # missing: a dash, never nan
    assert texts["diff (points)"].tolist() == ["+5.80", "-1.23", "–"]
    assert texts["odds_ratio"].tolist() == ["2.09", "∞", "1"]
    assert texts["significant"].tolist() == ["True", "True", "False"] and texts["a"].tolist() == ["G2", "G2", "t"]
    for column in texts.columns:  # every formatted cell is what page_table writes
        assert [fmt.FORMATTERS["text"](x) for x in table[column]] == texts[column].tolist()


def _script():
    import numpy as np
    import pandas as pd
    import streamlit as st

    from evalcore import format as fmt
    from evalcore_app import tables

    frame = pd.DataFrame({"n": [9, 1000, 10], "tp": [3, 250, 4], "fp": [6, 750, 6],
                          "precision": [1 / 3, 0.25, np.nan]})
    tables.dataframe(*fmt.page_cells("precision", "values at n", frame), hide_index=True, key="small")
    big = pd.DataFrame({"n": np.arange(1, tables.STYLED_CELLS + 2)})
    tables.dataframe(*fmt.page_cells("precision", "values at n", big), hide_index=True, key="big")
    st.text("done")


@pytest.fixture(scope="module")
def run():
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception
    return at


def test_a_table_holds_numbers_and_shows_the_formatters_text(run):
    small = run.dataframe[0]
    values = small.value
    assert values["n"].dtype.kind == "i" and values["precision"].dtype.kind == "f"  # typed: sorts as numbers
    assert values.sort_values("n")["n"].tolist() == [9, 10, 1000]
    texts = shown(small)
    assert texts["n"].tolist() == ["9", "1,000", "10"]
    assert texts["precision"].tolist() == ["33.33%", "25.00%", "–"]
    assert small.proto.placeholder == fmt.MISSING  # a missing number reads "–" in the grid, not "None"


def test_a_table_too_big_to_style_keeps_its_numbers(run):
    big = run.dataframe[1]
    assert not big.proto.arrow_data.styler.display_values  # Streamlit's own number format past STYLED_CELLS
    assert big.proto.placeholder == fmt.MISSING


def test_a_small_table_is_typeset_with_the_texts_of_page_table_and_data_as_text():
    from shown_tables import markdown_tables
    from evalcore_app import present

    frame = pd.DataFrame({"": ["D1: only | a | b |", "D2: only *X²* <b>"], "TPs": [1000, 9], "FPs": [0, 12]})
    source = present.small_table("significance", "2x2", frame)
    header, rule = source.splitlines()[:2]
    assert rule == "| :-- | --: | --: |"  # the names to the left, the counts to the right
    table, = markdown_tables(source)
    assert table.equals(fmt.page_table("significance", "2x2", frame))  # each cell as the formatter writes it
    assert table["TPs"].tolist() == ["1,000", "9"] and table[""].tolist() == frame[""].tolist()
    assert "\\| a \\| b \\|" in source and "\\*X²\\* \\<b\\>" in source  # data stays in its cell, as text
