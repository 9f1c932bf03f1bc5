"""Tables that show the formatter's text and sort by the numbers (issue 18: shown as text, 10 sorted before 9).

``st.dataframe`` sorts a column by the values it holds; it shows, for a number column without a
``column_config`` format, the text a pandas ``Styler`` gives each cell. So the values stay typed
(:func:`evalcore.format.page_cells`) and a ``Styler`` carries the text of
:mod:`evalcore.format` (``5,102``, ``11.09%``, ``p < 1e-300``, ``–`` for a missing value): clicking a
header sorts 9 before 10, and what each cell reads is what every other table, sentence and hover
writes.

Streamlit turns a ``Styler`` into the table's display values by asking pandas to lay out every
cell for HTML (``Styler._translate``), about 0.1 ms a cell: 30 ms for a 300-row table, paid on
every rerun. The texts are known already, so :func:`styled` hands Streamlit those cells directly
(the ``body`` of ``id`` and ``display_value`` that its ``marshall_styler`` reads, and no CSS):
about 1 ms. ``tests/app/test_tables.py`` reads the display values back from the element, and
``tests/browser/test_browser_tables.py`` reads the grid in Chromium, so a change on either side
shows at once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from evalcore.format import MISSING

__all__ = ["styled", "dataframe", "STYLED_CELLS"]

STYLED_CELLS = 50_000  # tables up to this many cells show the formatter's texts (about 30 ms at this size)


def styled(values: pd.DataFrame, texts: pd.DataFrame) -> Styler:
    """A ``Styler`` of ``values`` whose cells show ``texts`` (same shape; strings).

    Only the display values are set (no CSS): Streamlit's ``marshall_styler`` reads the ``body`` of
    ``Styler._translate`` (cells with an ``id`` ``row{i}_col{j}`` and a ``display_value``) over ``str``
    of every value, and this Styler lays out that body from ``texts``, for the cells whose text is
    not ``str`` of the value, instead of formatting every cell through pandas' HTML machinery.
    """
    if values.shape != texts.shape:
        raise ValueError(f"`values` and `texts` must have the same shape; got {values.shape} and {texts.shape}")
    styler = values.style
    # pandas names each Styler by a random uuid, which Streamlit sends with the table: a fixed one keeps an unchanged
    # table byte-identical from one rerun to the next, so that Streamlit does not send it again (its message cache)
    # and the browser does not draw it again (members of D1/D2: 97 KB on every level key; bench/bench_browser.py)
    styler.set_uuid("evalcore")
    shown = texts.to_numpy(dtype=object)
    # Streamlit starts from str() of every value and puts the body's display values over it: the body need only
    # hold the cells whose text differs from that ("1,000", "11.09%", "–"; not "G2" or "93.34")
    plain = np.array([[str(v) for v in row] for row in values.to_numpy(dtype=object).tolist()], dtype=object)
    rows, columns = np.nonzero(shown != plain.reshape(shown.shape))

    def translate(*args, **kwargs) -> dict:
        body = [[{"id": f"row{i}_col{j}", "display_value": str(shown[i, j])}] for i, j in zip(rows.tolist(),
                                                                                              columns.tolist())]
        return {"body": body, "cellstyle": [], "table_styles": []}

    styler._compute = lambda: styler  # no styles to apply
    styler._translate = translate
    return styler


def dataframe(values: pd.DataFrame, texts: pd.DataFrame, **kwargs):
    """``st.dataframe`` of typed ``values`` showing ``texts`` in its cells (see the module's note); a missing value
    reads ``–`` (the element's placeholder). A table of more than :data:`STYLED_CELLS` cells (D1 and D2 of long
    n-best lists) shows its typed values in Streamlit's own number format instead, and loads its rows lazily past
    150,000: pandas refuses to style more than 262,144 cells, and the texts would cost a second."""
    data = styled(values, texts) if values.size <= STYLED_CELLS else values
    return st.dataframe(data, **{"placeholder": MISSING, **kwargs})
