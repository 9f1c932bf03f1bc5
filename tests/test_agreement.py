"""Cohen's and Fleiss' kappa against R (vcd, irr, irrCAC), Fleiss (1971), and properties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from evalcore.annotations import annotator_agreement
from evalcore.errors import ParameterError
from evalcore.stats.agreement import cohens_kappa, fleiss_kappa

REF = json.loads((Path(__file__).parent / "reference" / "r_agreement_reference.json").read_text("utf-8"))


def _codes(values):
    return np.array([None if v is None else int(v) for v in values], dtype=object)


@pytest.mark.parametrize("case", REF["cohen"], ids=lambda c: f"n{len(c['a'])}")
def test_cohens_kappa_equals_vcd(case):
    """vcd::Kappa (value, ASE) and confint(..., level) at rtol 1e-10."""
    for level, low, high in zip(case["conf_level"], case["low"], case["high"]):
        got = cohens_kappa(_codes(case["a"]), _codes(case["b"]), confidence_level=level)
        if case["se"] is None or case["se"] == 0:
            # one annotator used one label: the variance is 0 - 0, which R rounds to 0 or a tiny negative
            # (se 0 or NaN by chance); evalcore says NaN in both cases
            assert got.kappa == pytest.approx(case["kappa"], abs=1e-12)
            assert np.isnan(got.standard_error) and np.isnan(got.low) and np.isnan(got.high)
            continue
        assert_allclose([got.kappa, got.standard_error], [case["kappa"], case["se"]], rtol=1e-10)
        assert_allclose([got.low, got.high], [low, high], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("case", REF["fleiss"], ids=lambda c: c["source"][:12])
def test_fleiss_kappa_equals_irr_and_irrcac(case):
    ratings = np.array(_codes(case["ratings"]), dtype=object).reshape(-1, case["raters"])
    for level, low, high in zip(case["conf_level"], case["low_rounded"], case["high_rounded"]):
        got = fleiss_kappa(ratings, confidence_level=level)
        assert_allclose([got.kappa, got.observed_agreement, got.chance_agreement],
                        [case["kappa"], case["pa"], case["pe"]], rtol=1e-10)
        if case["irr_kappa"] is not None:  # complete ratings: irr::kappam.fleiss, Fleiss' own formula
            assert_allclose(got.kappa, case["irr_kappa"], rtol=1e-10)
        assert_allclose(got.standard_error, case["se"], rtol=1e-10)  # irrCAC's variance, unrounded
        assert abs(got.standard_error - case["se_rounded"]) <= 5e-6  # irrCAC prints 5 digits
        # irrCAC prints the bounds to 3 digits and clips only the upper one
        assert abs(got.low - max(-1.0, low)) <= 5e-4 + 1e-12 and abs(got.high - high) <= 5e-4 + 1e-12
        t = stats.t.ppf(1 - (1 - level) / 2, got.subjects - 1)
        assert_allclose(got.high, min(1.0, got.kappa + t * got.standard_error), rtol=1e-12)


def test_fleiss_1971_published_value():
    """Fleiss (1971), Psychological Bulletin 76, p. 381: kappa = .430 for Table 1."""
    case = REF["fleiss"][0]
    ratings = np.array(_codes(case["ratings"]), dtype=object).reshape(-1, 6)
    got = fleiss_kappa(ratings)
    assert round(got.kappa, 3) == 0.430 and (got.subjects, got.raters) == (30, 6)


def test_cohens_kappa_by_hand():
    # 2x2 table [[20, 5], [10, 15]]: p_o = .7, p_c = .5 * .6 + .5 * .4 = .5, kappa = .4
    a = ["TP"] * 25 + ["FP"] * 25
    b = ["TP"] * 20 + ["FP"] * 5 + ["TP"] * 10 + ["FP"] * 15
    got = cohens_kappa(a, b)
    assert got.kappa == pytest.approx(0.4) and got.subjects == 50
    assert cohens_kappa(a, a).kappa == 1.0


def test_two_raters_fleiss_is_not_cohen_but_close_on_balanced_margins():
    rng = np.random.default_rng(2)
    a = rng.choice(["TP", "FP"], 400)
    b = np.where(rng.random(400) < 0.8, a, rng.choice(["TP", "FP"], 400))
    assert fleiss_kappa(np.c_[a, b]).kappa == pytest.approx(cohens_kappa(a, b).kappa, abs=0.01)


@given(st.lists(st.tuples(st.sampled_from(["TP", "FP", "unsure", None]), st.sampled_from(["TP", "FP", "unsure", None]),
                          st.sampled_from(["TP", "FP", None])), min_size=3, max_size=40))
def test_kappas_are_symmetric_in_the_annotators_and_bounded(rows):
    table = np.array(rows, dtype=object)
    try:
        k = fleiss_kappa(table)
    except ParameterError:
        return
    assert fleiss_kappa(table[:, ::-1]).kappa == pytest.approx(k.kappa, nan_ok=True)
    if np.isfinite(k.kappa):
        assert k.kappa <= 1 + 1e-12
    if np.isfinite(k.standard_error):
        assert -1 <= k.low <= k.high <= 1
    else:  # NaN for a single subject (n - 1 = 0) or a single category (kappa is 0 / 0)
        assert (k.subjects == 1 or k.chance_agreement == 1) and np.isnan(k.low) and np.isnan(k.high)
    try:
        c = cohens_kappa(table[:, 0], table[:, 1])
    except ParameterError:
        return
    assert cohens_kappa(table[:, 1], table[:, 0]).kappa == pytest.approx(c.kappa, nan_ok=True)


def test_degenerate_and_bad_input():
    same = cohens_kappa(["TP"] * 5, ["TP"] * 5)
    assert np.isnan(same.kappa)  # every rating in one category: 0 / 0
    assert np.isnan(same.low) and np.isnan(same.high)
    with pytest.raises(ParameterError, match="none"):
        cohens_kappa(["TP", None], [None, "FP"])
    with pytest.raises(ParameterError, match="equal length"):
        cohens_kappa(["TP"], ["TP", "FP"])
    with pytest.raises(ParameterError, match="at least two annotators"):
        fleiss_kappa(np.array([["TP"], ["FP"]], dtype=object))
    with pytest.raises(ParameterError, match="categories"):
        cohens_kappa(["TP", "maybe"], ["TP", "FP"], categories=["TP", "FP"])


def test_annotator_agreement_picks_cohen_or_fleiss():
    table = pd.DataFrame({"a": ["TP", "FP", "TP", None, "FP"], "b": ["TP", "FP", "FP", "TP", "FP"]},
                         index=pd.Index([0, 3, 5, 8, 9], name="candidate"), dtype=object)
    two = annotator_agreement(table)
    assert two.method.startswith("Cohen") and two.subjects == 4
    table["c"] = ["TP", None, "TP", "TP", None]
    three = annotator_agreement(table)
    assert three.method.startswith("Fleiss") and three.subjects == 5
    assert annotator_agreement(table[["a"]]) is None
