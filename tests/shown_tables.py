"""What a table of the app shows, read from an AppTest element: the text of every cell.

Pages show typed values (so that columns sort as numbers) with the formatter's text in each cell
(evalcore_app/tables.py): ``element.value`` is the typed table, :func:`shown` the text a person reads."""

from __future__ import annotations

import re

import pandas as pd
from streamlit import dataframe_util


def shown(element) -> pd.DataFrame:
    """The display text of every cell of an ``at.dataframe`` element, as strings, under the table's columns."""
    raw = element.proto.arrow_data.styler.display_values
    assert raw, "the table carries no display text (a table of the pages goes through evalcore_app.tables)"
    texts = dataframe_util.convert_arrow_bytes_to_pandas_df(raw)
    texts.columns = element.value.columns
    return texts.astype(str)


def reads(element) -> pd.DataFrame:
    """What a table reads: :func:`shown` for the tables of the pages, the values for one shown as it is (the data
    preview, which shows the user's file)."""
    return shown(element) if element.proto.arrow_data.styler.display_values else element.value


def markdown_tables(source: str) -> list[pd.DataFrame]:
    """The tables typeset in a Markdown element's source (evalcore_app.present.small_table): the text of every cell as a
    person reads it (escapes and the invisible word joiners of evalcore.text.markdown_text removed)."""
    tables, block = [], []
    for line in source.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            rows = [[_plain(cell) for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]] for row in block]
            assert all(set(cell) <= set(":- ") for cell in rows[1]), f"not a Markdown table: {block[:2]}"
            tables.append(pd.DataFrame(rows[2:], columns=rows[0]))
            block = []
    return tables


def _plain(cell: str) -> str:
    return re.sub(r"\\(.)", r"\1", cell.strip()).replace("\u2060", "")


def page_tables(at) -> list[pd.DataFrame]:
    """Every table an AppTest page shows, as the text a person reads: the grids (:func:`reads`) and the typeset small
    tables in Markdown (:func:`markdown_tables`)."""
    return [reads(d) for d in at.dataframe] + [t for m in at.markdown for t in markdown_tables(m.value)]


def table_with(at, column: str) -> pd.DataFrame:
    """The one table of the page with ``column``, as it reads."""
    found = [t for t in page_tables(at) if column in t.columns]
    assert len(found) == 1, f"{len(found)} tables with a column {column!r}"
    return found[0]
