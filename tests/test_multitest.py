"""Corrections for many tests against R's p.adjust, and their properties.

Reference values: ``tests/reference/r_pairtests_reference.json`` (section ``p_adjust``), written by
``tests/r/generate_pairtests_reference.R`` with R 4.2.2's ``p.adjust(p, "holm")`` and
``p.adjust(p, "BH")``; NA there is null, NaN here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from evalcore.errors import ParameterError
from evalcore.stats.multitest import CORRECTIONS, adjust_pvalues

CASES = json.loads((Path(__file__).parent / "reference" / "r_pairtests_reference.json")
                   .read_text(encoding="utf-8"))["p_adjust"]["cases"]


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


@pytest.mark.parametrize("method", ["holm", "bh"])
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_equals_r_p_adjust(case, method):
    p = _floats(case["p"])
    expected = _floats(case[method])
    got = adjust_pvalues(p, method)
    assert_array_equal(np.isnan(got), np.isnan(expected))  # NaN kept in place
    assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_missing_values_are_not_counted():
    # R: p.adjust(c(0.01, NA, 0.02), "holm") is 0.02 NA 0.02 (a family of 2, not 3)
    got = adjust_pvalues([0.01, np.nan, 0.02], "holm")
    assert_array_equal(got, [0.02, np.nan, 0.02])


def test_none_returns_the_p_values():
    p = np.array([0.3, np.nan, 0.001])
    got = adjust_pvalues(p, "none")
    assert_array_equal(got, p)
    assert got is not p


def test_by_hand():
    # sorted 0.01, 0.03, 0.04: Holm 3 x 0.01, 2 x 0.03, max(0.06, 0.04); BH min over (3/i) p_(i) from the top
    assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "holm"), [0.03, 0.06, 0.06], rtol=1e-15)
    assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "bh"), [0.03, 0.04, 0.04], rtol=1e-15)


families = st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1e-300, 0.05, 1.0])), min_size=1, max_size=60)


@given(families)
def test_adjusted_is_at_least_raw_and_holm_at_least_bh(p):
    p = np.array(p)
    holm, bh = adjust_pvalues(p, "holm"), adjust_pvalues(p, "bh")
    assert np.all(bh >= p) and np.all(holm >= bh)
    assert np.all(holm <= 1) and np.all(bh <= 1)


@given(families, st.sampled_from(["holm", "bh"]))
def test_adjusted_is_monotone_in_the_raw_p_value(p, method):
    p = np.array(p)
    adjusted = adjust_pvalues(p, method)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)


def test_unknown_method_names_the_choices():
    with pytest.raises(ParameterError, match="`method` must be one of none, holm, bh; got 'BH'"):
        adjust_pvalues([0.1, 0.2], "BH")
    assert set(CORRECTIONS) == {"none", "holm", "bh"}


@pytest.mark.parametrize("p", [[0.1, 1.5], [-0.01], [np.inf]])
def test_values_outside_0_1_are_refused(p):
    with pytest.raises(ParameterError, match=r"`p` must hold p-values in \[0, 1\]"):
        adjust_pvalues(p, "holm")


def test_two_dimensional_input_is_refused():
    with pytest.raises(ParameterError, match="one-dimensional"):
        adjust_pvalues([[0.1, 0.2]], "bh")
