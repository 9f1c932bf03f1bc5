"""What a table of the app shows, read from an AppTest element: the text of every cell.

Pages show typed values (so that columns sort as numbers) with the formatter's text in each cell
(ui/tables.py): ``element.value`` is the typed table, :func:`shown` the text a person reads."""

from __future__ import annotations

import pandas as pd
from streamlit import dataframe_util


def shown(element) -> pd.DataFrame:
    """The display text of every cell of an ``at.dataframe`` element, as strings, under the table's columns."""
    raw = element.proto.arrow_data.styler.display_values
    assert raw, "the table carries no display text (a table of the pages goes through ui.tables)"
    texts = dataframe_util.convert_arrow_bytes_to_pandas_df(raw)
    texts.columns = element.value.columns
    return texts.astype(str)


def reads(element) -> pd.DataFrame:
    """What a table reads: :func:`shown` for the tables of the pages, the values for one shown as it is (the data
    preview, which shows the user's file)."""
    return shown(element) if element.proto.arrow_data.styler.display_values else element.value
