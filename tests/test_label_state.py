"""evalcore_app/sample.empty_cells (issue 34): a label column's empty cells as the text of every cell says them (missing, or
blank text), without writing a column of numbers or booleans as text."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore_app.sample import empty_cells


def _every_cell_as_text(cells: pd.Series) -> pd.Series:  # the slow, obviously right reading
    return cells.isna() | (cells.astype(str).str.strip() == "")


@pytest.mark.parametrize("cells", [
    pd.Series([1.0, np.nan, 0.0, 1.0]), pd.Series([1, 0, 1]), pd.Series([True, False]),
    pd.Series([True, None, False], dtype="boolean"), pd.Series([1, None, 0], dtype="Int64"),
    pd.Series(["TP", "", "  ", None, "FP"]), pd.Series(["TP", "", None], dtype="string"),
    pd.Series(["TP", " ", "FP"], dtype="category"), pd.Series([1, "", "FP", None], dtype=object),
])
def test_empty_cells_are_those_whose_text_is_blank(cells):
    assert empty_cells(cells).tolist() == _every_cell_as_text(cells).tolist()
