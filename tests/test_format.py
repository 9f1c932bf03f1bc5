"""One number format for the app (issue 10): p-values never as a string of zeros, precision in percent."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore import format as fmt


@pytest.mark.parametrize("p, text", [
    (1.0, "1"), (0.5, "0.5"), (0.25285439418811095, "0.253"), (0.0431, "0.0431"), (0.001, "0.001"),
    (0.000999, "1.0e-03"), (2.1e-29, "2.1e-29"), (1e-300, "1.0e-300"), (0.0, "< 1e-300"), (None, "–"),
    (float("nan"), "–"),
])
def test_p_values(p, text):
    assert fmt.p_value(p) == text


def test_pairwise_p_value_of_the_issue_is_short():
    # Pairwise showed 0.00000000000000000000000000001 (issue 10)
    assert fmt.p_value(1e-29) == "1.0e-29"
    assert fmt.p_value(0.0, -412.34) == "< 1e-300 (log10 p = -412.3)"
    assert fmt.p_value(1e-310, -309.99) == "< 1e-300 (log10 p = -310.0)"


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1))
def test_a_p_value_reads_back_within_its_digits(p):
    text = fmt.p_value(p)
    assert "0.0000" not in text and len(text) <= 9
    if p >= 1e-300:
        assert float(text) == pytest.approx(p, rel=0.051)  # 2 significant digits at worst
    else:
        assert text == "< 1e-300"


def test_vectorised_p_values_match_the_scalar():
    p = np.array([0.5, 1e-5, 0.0, np.nan])
    logs = np.array([-0.3, -5.0, -400.0, np.nan])
    assert fmt.p_values(p, logs).tolist() == [fmt.p_value(a, b) for a, b in zip(p, logs)]


def test_percent_count_level_number():
    assert fmt.percent(566 / 5102) == "11.09%" and fmt.percent(None) == "–" and fmt.percent(1) == "100.00%"
    assert fmt.count(5102) == "5,102" and fmt.count(float("nan")) == "–"
    assert fmt.level(0.95) == "95%" and fmt.level(0.999) == "99.9%" and fmt.level(0.9) == "90%"
    assert fmt.number(2.0871) == "2.09" and fmt.number(None) == "–" and fmt.number(math.inf) == "∞"


def test_formatted_table_uses_log10_p_and_leaves_other_columns():
    table = pd.DataFrame({"n": [100, 2000], "precision": [0.42, 0.1109], "p_value": [0.0, 0.3],
                          "log10_p": [-350.0, math.log10(0.3)], "df": [None, 3.0], "measure": ["a", "b"]})
    shown = fmt.formatted_table(table, {"n": "count", "precision": "percent", "p_value": "p", "df": "number"})
    assert shown["p_value"].tolist() == ["< 1e-300 (log10 p = -350.0)", "0.3"]
    assert shown["precision"].tolist() == ["42.00%", "11.09%"]
    assert shown["n"].tolist() == ["100", "2,000"] and shown["df"].tolist() == ["–", "3"]
    assert shown["measure"].tolist() == ["a", "b"] and table["n"].tolist() == [100, 2000]  # the input is untouched

