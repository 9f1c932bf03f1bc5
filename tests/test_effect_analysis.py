"""The Significance page's choices of issue 11 reach the analysis: the interval of the difference and the power.

The numbers themselves are checked in ``test_effect.py`` (statsmodels, mpmath, R) and ``test_power.py``;
here: the analysis computes with the method and the power it is given, and records them.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from evalcore import analysis, names
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.stats.effect import effect_sizes
from evalcore.stats.power import detectable_differences


@pytest.fixture(scope="module")
def g2_x2(krenn_tsv):
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    return rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")


@pytest.fixture(scope="module")
def default_result(g2_x2):
    return analysis.pair_comparison(*g2_x2, (50, 1500))


def test_pair_comparison_uses_the_difference_method_and_power_it_is_given(g2_x2, default_result):
    result = analysis.pair_comparison(*g2_x2, (50, 1500), difference_method="agresti_caffo", power=0.9)
    assert (result.difference_method, result.power) == ("agresti_caffo", 0.9)
    assert (default_result.difference_method, default_result.power) == ("newcombe", names.DEFAULT_POWER)
    table = result.comparison
    expected = effect_sizes(table, 0.95, "agresti_caffo")
    for column in ("diff_low", "diff_high", "odds_ratio", "or_low", "or_high"):
        assert_allclose(table[column].to_numpy(), expected[column].to_numpy(), rtol=1e-14)
    # the methods differ where the regions are not empty; the odds ratio does not depend on them
    some = table["tp_d1"] + table["fp_d1"] > 0
    assert np.all(table.loc[some, "diff_low"].to_numpy() != default_result.comparison.loc[some, "diff_low"].to_numpy())
    assert_allclose(table["or_low"].to_numpy(), default_result.comparison["or_low"].to_numpy(), rtol=1e-14)
    mdd = detectable_differences(table[table["n"].isin(result.detectable["n"])], 0.05, 0.9)
    assert_allclose(result.detectable["mdd"].to_numpy(), mdd["mdd"].to_numpy(), rtol=1e-14)
    # more power needs a larger difference, at every n where one is detectable at all
    both = np.isfinite(result.detectable["mdd"].to_numpy()) & np.isfinite(default_result.detectable["mdd"].to_numpy())
    assert both.sum() > 1000
    assert np.all(result.detectable["mdd"].to_numpy()[both] > default_result.detectable["mdd"].to_numpy()[both])


def test_effect_at_labels_the_power_it_was_computed_at(g2_x2):
    result = analysis.pair_comparison(*g2_x2, (100, 200), power=0.95)
    rows = analysis.effect_at(result, 150)
    assert rows["effect"].iloc[3] == "MDD at 95% power (points)"


def test_pair_comparison_refuses_unknown_choices(g2_x2):
    with pytest.raises(ParameterError, match="method"):
        analysis.pair_comparison(*g2_x2, (100, 120), difference_method="wald")
    with pytest.raises(ParameterError, match="power"):
        analysis.pair_comparison(*g2_x2, (100, 120), power=1.2)


def test_power_levels_and_notes_for_the_page():
    assert names.DEFAULT_POWER == names.POWER_LEVELS[0] == 0.8  # the default
    assert len(set(names.POWER_LEVELS)) == len(names.POWER_LEVELS)
    assert all(0 < p < 1 for p in names.POWER_LEVELS)
    assert inspect.signature(analysis.pair_comparison).parameters["power"].default == names.DEFAULT_POWER
    assert inspect.signature(analysis.pair_comparison).parameters["difference_method"].default == \
        next(iter(names.DIFFERENCE_INTERVALS))
    for note in (names.INTERVAL_AND_TEST_NOTE, names.OBSERVED_POWER_NOTE):
        assert note.endswith(".") and note.count(". ") == 0  # one sentence each, as the issue asks
        assert not re.search(r"[*_`$#\\<>\[\]]", note)  # plain text: nothing Markdown would render
    assert "Fisher" in names.INTERVAL_AND_TEST_NOTE and "odds ratio" in names.INTERVAL_AND_TEST_NOTE
    assert "p-value" in names.OBSERVED_POWER_NOTE
