"""Tests across the samples of an experiment (evalcore.stats.sampletests) against R 4.2.2.

Reference values: ``tests/reference/r_samples_reference.json``, written by
``tests/r/generate_samples_reference.R`` (base R only; the input vectors are stored in the JSON
too, so evalcore sees exactly R's doubles). Regenerate from the repository root with::

    Rscript tests/r/generate_samples_reference.R

The tests only read the JSON; they do not need R.

Tolerances
----------
* ``RTOL = 1e-10`` (``atol = 0``) for every statistic, df, p-value, estimate and interval bound,
  including the Wilcoxon normal-approximation estimate and interval, which R finds with
  ``uniroot(tol = 1e-4)``: evalcore replays R's root finder and R's ``qnorm`` step by step, so it
  returns R's numbers, not just numbers within 1e-4 of them (observed agreement: about 1e-13).
* The exact Kolmogorov-Smirnov p-value additionally gets ``KS_EXACT_ATOL = 1e-14``: R computes it
  as ``1 - K(n, D)``, so R's own value has an absolute error of a few ulp of 1 and is pure
  rounding noise below about 1e-15 (R gives 8.9e-16 and 0 for two cases here). evalcore repeats
  the computation in the same order and agrees exactly on this machine; the atol only keeps the
  test meaningful where a different libm rounds ``pow`` differently.
* R's asymptotic KS p-value is R's truncated series (``tol = 1e-6``); it is matched at RTOL, and
  ``test_ks_asymptotic_truncation_matches_r_not_the_limit`` documents its distance (up to 4e-5)
  from the true Kolmogorov limit.
* binom.test p-values that R gives as exactly 1 or 1 + a few ulp (R does not clip): evalcore's
  value must be 1 within ``P_ONE_ATOL = 1e-12``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import special, stats

from evalcore.errors import ParameterError
from evalcore.stats.sampletests import (COLUMNS, TestResult, across_samples, binom_test, cohens_dz, ks_normal,
                                  paired_t, sign_test, welch_t, wilcoxon_paired)

REFERENCE_PATH = Path(__file__).parent / "reference" / "r_samples_reference.json"
REF = json.loads(REFERENCE_PATH.read_text(encoding="utf-8"))

RTOL = 1e-10
KS_EXACT_ATOL = 1e-14
P_ONE_ATOL = 1e-12
TOL_ROOT = 1e-4  # wilcox.test's tol.root
R_ALTERNATIVES = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
FIELDS = ("statistic", "df", "p_value", "estimate", "low", "high")


def _f(value) -> float:
    """JSON number -> float; null (R's NA/NaN) -> nan; "Inf"/"-Inf" -> +-inf."""
    if value is None:
        return math.nan
    if isinstance(value, str):
        return {"Inf": math.inf, "-Inf": -math.inf}[value]
    return float(value)


def _close(actual: float, desired, *, what: str, rtol: float = RTOL, atol: float = 0.0) -> None:
    desired = _f(desired)
    if math.isnan(desired):
        assert math.isnan(actual), f"{what}: R gives NaN, got {actual!r}"
        return
    assert_allclose(actual, desired, rtol=rtol, atol=atol, err_msg=what)


def _ids(cases):
    return [c["name"] for c in cases]


PAIRED = REF["paired"]
WELCH = REF["welch"]
KS = REF["ks"]
BINOM = REF["binom"]


# ------------------------------------------------------------------------------- the reference

def test_reference_file_header_and_coverage():
    header = REF["header"]
    assert "generate_samples_reference.R" in header["generated_by"] and "do not edit" in header["generated_by"]
    assert header["r_version"].startswith("R version 4.2.2")
    sizes = [c["n"] for c in PAIRED]
    # the Wilcoxon paths: exact (n < 50), the boundary 49 / 50, normal approximation, n >= 100
    assert {2, 3, 49, 50}.issubset(sizes) and any(50 < n < 100 for n in sizes) and any(n >= 100 for n in sizes)
    assert any(c["wilcoxon"]["method"].endswith("exact test") for c in PAIRED)
    assert any("ties" in " ".join(c["wilcoxon"]["warnings"]) for c in PAIRED)
    assert any("zeroes" in " ".join(c["wilcoxon"]["warnings"]) for c in PAIRED)
    assert any(c["paired_t"]["error"] for c in PAIRED) and any(c["sign"]["error"] for c in PAIRED)
    ks_n = [c["n"] for c in KS]
    assert 99 in ks_n and 100 in ks_n and any(c["ties"] and c["n"] < 100 for c in KS)
    assert {c["method"] for c in KS} == {"Exact one-sample Kolmogorov-Smirnov test",
                                         "Asymptotic one-sample Kolmogorov-Smirnov test"}
    for c in KS:  # R warns about ties exactly when there are some
        assert c["ties"] == any("ties" in w for w in c["warnings"])


# ------------------------------------------------------------------------------------- t-tests

@pytest.mark.parametrize("case", PAIRED, ids=_ids(PAIRED))
def test_paired_t_matches_r(case):
    r = case["paired_t"]
    result = paired_t(case["a"], case["b"], case["conf_level"])
    assert result.test == "paired t-test"
    if r["error"] is not None:  # R: "data are essentially constant"
        assert "essentially constant" in r["error"]
        assert math.isnan(result.statistic) and math.isnan(result.low) and math.isnan(result.high)
        assert math.isnan(result.p_value) and "not defined" in result.method
        return
    if math.isnan(_f(r["p_value"])):  # all differences zero: R gives t = NaN, p = NA
        assert result.p_value == 1.0 and math.isnan(result.statistic) and result.estimate == 0.0
        assert result.method.startswith("degenerate")
        return
    assert result.method == "t distribution"
    for field in FIELDS:
        _close(getattr(result, field), r[field], what=f"{case['name']}: {field}")


@pytest.mark.parametrize("case", PAIRED, ids=_ids(PAIRED))
def test_welch_t_matches_r_on_paired_cases(case):
    r = case["welch_t"]
    result = welch_t(case["a"], case["b"], case["conf_level"])
    assert result.test == "Welch t-test"
    if r["error"] is not None or math.isnan(_f(r["p_value"])):
        assert math.isnan(result.statistic) and result.method.startswith(("degenerate", "not defined"))
        return
    for field in FIELDS:
        _close(getattr(result, field), r[field], what=f"{case['name']}: {field}")


@pytest.mark.parametrize("case", WELCH, ids=_ids(WELCH))
def test_welch_t_matches_r_unequal_lengths(case):
    result = welch_t(case["a"], case["b"], case["conf_level"])
    for field in FIELDS:
        _close(getattr(result, field), case[field], what=f"{case['name']}: {field}")


def test_paired_t_by_hand():
    # d = 1, 2, 3: mean 2, sd 1, t = 2 / (1 / sqrt 3), df 2
    r = paired_t([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    assert r.statistic == pytest.approx(2 * math.sqrt(3), rel=1e-14) and r.df == 2
    assert r.p_value == pytest.approx(2 * stats.t.sf(2 * math.sqrt(3), 2), rel=1e-12)
    q = stats.t.ppf(0.975, 2)
    assert (r.low, r.high) == pytest.approx((2 - q / math.sqrt(3), 2 + q / math.sqrt(3)), rel=1e-12)
    assert r.estimate == 2.0


# ------------------------------------------------------------------------------------ Wilcoxon

@pytest.mark.parametrize("case", PAIRED, ids=_ids(PAIRED))
def test_wilcoxon_paired_matches_r(case):
    r = case["wilcoxon"]
    level = case["conf_level"]
    result = wilcoxon_paired(case["a"], case["b"], level)
    assert result.test == "Wilcoxon signed-rank test" and math.isnan(result.df)
    assert result.statistic == r["statistic"]
    if r["p_value"] is None:  # all differences zero: R gives NA
        assert result.p_value == 1.0 and result.method.startswith("degenerate")
        assert math.isnan(result.estimate) and math.isnan(result.low)
        return
    if r["method"].endswith("exact test"):
        assert result.method.startswith("exact")
    else:
        assert result.method.startswith("normal approximation with continuity correction")
    for field in ("p_value", "estimate", "low", "high"):
        _close(getattr(result, field), r[field], what=f"{case['name']}: {field}")
    achieved = _f(r["conf_level_achieved"])
    if r["estimate_name"] == "midrange":  # R: no interval when all nonzero differences are equal
        assert "no interval" in result.method
    elif achieved != level:  # R widened the interval ("requested conf.level not achievable")
        assert f"achievable level {achieved:.4g}," in result.method
    else:
        assert "achievable" not in result.method


def test_wilcoxon_exact_by_hand():
    # five positive differences: V = 15 = n (n + 1) / 2, P(V >= 15) = 1/32, p = 2/32;
    # R 4.2.2: wilcox.test(c(3,5,7,9,4)/10, c(1,3,5,7,3)/10, paired = TRUE) -> V = 15,
    # p-value = 0.0625, "Wilcoxon signed rank exact test"
    r = wilcoxon_paired(np.array([3, 5, 7, 9, 4]) / 10, np.array([1, 3, 5, 7, 3]) / 10)
    assert (r.statistic, r.p_value, r.method) == (15.0, 0.0625, "exact")


def test_wilcoxon_floating_point_ties_as_in_r():
    """0.3 - 0.1 and 0.5 - 0.3 are both 0.2 on paper, not in floating point: R (digits.rank = Inf)
    ranks them as distinct, so the exact test is used; evalcore does the same."""
    a, b = np.array([3, 5, 7, 9]) / 10, np.array([1, 3, 5, 7]) / 10
    assert np.unique(a - b).size == 4
    assert wilcoxon_paired(a, b).method.startswith("exact")


# ------------------------------------------------------------------------------------ sign test

@pytest.mark.parametrize("case", PAIRED, ids=_ids(PAIRED))
def test_sign_test_matches_r(case):
    r = case["sign"]
    result = sign_test(case["a"], case["b"], case["conf_level"])
    assert result.test == "sign test" and result.statistic == r["x"]
    if r["error"] is not None:  # binom.test(0, 0): "'n' must be a positive integer >= 'x'"
        assert r["n"] == 0 and result.p_value == 1.0 and math.isnan(result.estimate)
        assert result.method.startswith("degenerate")
        return
    for field in ("p_value", "estimate", "low", "high"):
        desired = min(1.0, _f(r[field])) if field == "p_value" else r[field]
        _close(getattr(result, field), desired, what=f"{case['name']}: {field}",
               atol=P_ONE_ATOL if field == "p_value" and _f(r[field]) >= 1 else 0.0)


def test_sign_test_seven_of_ten_is_binom_test_7_10():
    # 7 positive of 10: p = 2 (C(10,7) + C(10,8) + C(10,9) + C(10,10)) / 2^10 = 352/1024;
    # R 4.2.2: binom.test(7, 10) -> p-value 0.34375000000000011, CI 0.34754714994000269 0.93326048882226553
    result = sign_test([3, 3, 3, 3, 3, 3, 3, 1, 1, 1, 2], [2] * 11)  # plus one zero difference, dropped
    assert result.statistic == 7 and result.estimate == 0.7
    assert result.p_value == pytest.approx(352 / 1024, rel=1e-14)
    assert (result.low, result.high) == pytest.approx((0.34754714994000269, 0.93326048882226553), rel=RTOL)
    reference = binom_test(7, 10, 0.5)
    assert (result.p_value, result.low, result.high) == (reference.p_value, reference.low, reference.high)
    assert result.method == "exact (1 zero difference(s) dropped)"


# ------------------------------------------------------------------------------------ binomial

BINOM_CASES = [(BINOM["x"][i], BINOM["n"][i], BINOM["p"][i], BINOM["alternative"][i], BINOM["conf_level"][i])
               for i in range(len(BINOM["x"]))]


def test_binom_test_matches_r():
    bad = []
    for i, (x, n, p, alternative, level) in enumerate(BINOM_CASES):
        result = binom_test(x, n, p, R_ALTERNATIVES[alternative], level)
        r_p = _f(BINOM["p_value"][i])
        ok_p = (abs(result.p_value - 1) <= P_ONE_ATOL if r_p >= 1
                else abs(result.p_value - r_p) <= RTOL * r_p)
        ok_ci = all(abs(v - _f(BINOM[k][i])) <= RTOL * abs(_f(BINOM[k][i]))
                    for v, k in ((result.low, "low"), (result.high, "high")))
        if not (ok_p and ok_ci and result.statistic == x and result.estimate == x / n):
            bad.append(f"binom.test({x}, {n}, {p}, {alternative}, {level}): got {result}, R p = {r_p!r}, "
                       f"CI {BINOM['low'][i]!r} {BINOM['high'][i]!r}")
    assert not bad, f"{len(bad)} of {len(BINOM_CASES)} cases differ:\n" + "\n".join(bad[:10])


def test_binom_test_agrees_with_scipy_binomtest():
    """SciPy's binomtest implements R's two-sided rule (relative tolerance 1 + 1e-7) with a binary search."""
    for x, n, p, alternative, _ in BINOM_CASES:
        ours = binom_test(x, n, p, R_ALTERNATIVES[alternative]).p_value
        theirs = stats.binomtest(x, n, p, alternative=R_ALTERNATIVES[alternative]).pvalue
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-300), (x, n, p, alternative)


@pytest.mark.parametrize("x, p_value, low, high", [
    # R 4.2.2, binom.test(x, 80, 0.05): the paper's coverage test (x of 80 95% intervals miss)
    (12, 0.00061362249170136482, 0.079981561309713817, 0.24736411159289762),
    (9, 0.018403094505885748, 0.052751513145687511, 0.20284659191699006),
    (4, 1.0, 0.013789393976461816, 0.12309873644315295),  # x = n p: p = 1
])
def test_binom_test_coverage_of_80_intervals(x, p_value, low, high):
    result = binom_test(x, 80, 0.05)
    assert result.p_value == pytest.approx(p_value, rel=RTOL)
    assert (result.low, result.high) == pytest.approx((low, high), rel=RTOL)
    assert result.method == "exact" and math.isnan(result.df)


def test_binom_test_one_sided_intervals_and_boundary_p():
    less = binom_test(3, 20, 0.3, "less")
    greater = binom_test(3, 20, 0.3, "greater")
    assert less.low == 0.0 and greater.high == 1.0
    assert less.p_value == pytest.approx(stats.binom.cdf(3, 20, 0.3), rel=1e-14)
    assert greater.p_value == pytest.approx(stats.binom.sf(2, 20, 0.3), rel=1e-14)
    assert binom_test(0, 10, 0.0).p_value == 1.0 and binom_test(1, 10, 0.0).p_value == 0.0
    assert binom_test(10, 10, 1.0).p_value == 1.0 and binom_test(9, 10, 1.0).p_value == 0.0


# ------------------------------------------------------------------------------ Kolmogorov-Smirnov

@pytest.mark.parametrize("case", KS, ids=_ids(KS))
def test_ks_normal_matches_r(case):
    result = ks_normal(case["x"], case["mean"], case["sd"])
    assert result.test == "Kolmogorov-Smirnov test"
    _close(result.statistic, case["statistic"], what=f"{case['name']}: D")
    if case["exact"]:
        assert result.method == "exact"
        _close(result.p_value, case["p_value"], what=f"{case['name']}: p (exact)", atol=KS_EXACT_ATOL)
    else:
        assert result.method == ("asymptotic (ties)" if case["ties"] else "asymptotic")
        _close(result.p_value, case["p_value"], what=f"{case['name']}: p (asymptotic)")
    assert all(math.isnan(v) for v in (result.df, result.estimate, result.low, result.high))


def test_ks_exact_agrees_with_scipy_where_p_is_not_tiny():
    """SciPy's exact one-sample distribution (Simard & L'Ecuyer) is an independent check."""
    for case in KS:
        if case["exact"] and _f(case["p_value"]) > 1e-6:
            ours = ks_normal(case["x"], case["mean"], case["sd"])
            theirs = stats.kstest(case["x"], "norm", args=(case["mean"], case["sd"]), method="exact")
            assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
            assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9), case["name"]


def test_ks_single_value_by_hand():
    # n = 1: D = max(F, 1 - F) and P(D_1 < d) = 2 d - 1, so F = 0.9 gives p = 0.2
    result = ks_normal([0.3 + 0.05 * special.ndtri(0.9)], 0.3, 0.05)
    assert result.statistic == pytest.approx(0.9, rel=1e-12)
    assert result.p_value == pytest.approx(0.2, rel=1e-10)


def test_ks_asymptotic_truncation_matches_r_not_the_limit():
    """R keeps one term of the small-t series (k_max = int(sqrt(2 - log(1e-6))) = 3): just below
    sqrt(n) D = 1 its p-value is 3.7e-5 above Kolmogorov's limit; from 1 on the two agree."""
    from evalcore.stats.sampletests import _kolmogorov_limit_cdf

    t = np.linspace(0.3, 2.5, 221)
    ours = np.array([1 - _kolmogorov_limit_cdf(v) for v in t])
    gap = np.abs(ours - special.kolmogorov(t))
    assert gap[t < 1].max() < 4e-5 and gap[t < 1].max() > 1e-5
    assert gap[t >= 1].max() < 1e-13


# ------------------------------------------------------------------------------------ properties

SWAP_CASES = [c for c in PAIRED if c["paired_t"]["error"] is None]


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))


@pytest.mark.parametrize("case", SWAP_CASES, ids=_ids(SWAP_CASES))
def test_swapping_a_and_b(case):
    """Swapping the measures negates t, the estimates and the intervals, and keeps every p-value."""
    a, b, level = case["a"], case["b"], case["conf_level"]
    for test in (paired_t, welch_t):
        ab, ba = test(a, b, level), test(b, a, level)
        assert _same(ba.p_value, ab.p_value) and _same(ba.estimate, -ab.estimate)
        if not math.isnan(ab.statistic):
            assert ba.statistic == -ab.statistic and (ba.low, ba.high) == (-ab.high, -ab.low)
    ab, ba = wilcoxon_paired(a, b, level), wilcoxon_paired(b, a, level)
    n = int(np.sum(np.asarray(a) != np.asarray(b)))
    assert ba.statistic == n * (n + 1) / 2 - ab.statistic and ba.p_value == pytest.approx(ab.p_value, rel=1e-14)
    if not math.isnan(ab.low):
        assert (ba.low, ba.high) == pytest.approx((-ab.high, -ab.low), rel=1e-12)
    ties = np.unique(np.abs(np.subtract(a, b))).size < len(a)
    if ab.method.startswith("exact") or math.isnan(ab.low):
        assert _same(ba.estimate, -ab.estimate)
    elif not ties:
        # R's estimate is a uniroot result (tol 1e-4) started from the other end after the swap;
        # with ties it can be any point of an interval where z = 0, so no bound is asserted there
        assert abs(ba.estimate + ab.estimate) <= 2 * TOL_ROOT
    ab, ba = sign_test(a, b, level), sign_test(b, a, level)
    assert ba.p_value == pytest.approx(ab.p_value, rel=1e-14)
    assert ba.estimate == pytest.approx(1 - ab.estimate, rel=1e-14, nan_ok=True)
    assert (ba.low, ba.high) == pytest.approx((1 - ab.high, 1 - ab.low), rel=1e-12, nan_ok=True)


def test_cohens_dz():
    assert cohens_dz([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == 2.0  # d = 1, 2, 3: mean 2, sd 1
    # R 4.2.2: d <- c(0.30, 0.25, 0.41, 0.28) - c(0.26, 0.24, 0.35, 0.27); mean(d) / sd(d) -> 1.224745
    assert cohens_dz([0.30, 0.25, 0.41, 0.28], [0.26, 0.24, 0.35, 0.27]) == pytest.approx(1.224745, rel=1e-6)
    for case in SWAP_CASES:  # t = d_z sqrt(k)
        if case["paired_t"]["statistic"] is None:  # all differences zero
            continue
        dz = cohens_dz(case["a"], case["b"])
        assert dz * math.sqrt(case["n"]) == pytest.approx(_f(case["paired_t"]["statistic"]), rel=1e-12)
    assert math.isnan(cohens_dz([0.5, 0.25], [0.5, 0.25]))
    assert cohens_dz([0.5, 0.25], [0.25, 0.0]) == math.inf
    assert cohens_dz([0.25, 0.0], [0.5, 0.25]) == -math.inf


def test_result_is_frozen_and_unpacks():
    result = paired_t([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    statistic, p_value = result
    assert (statistic, p_value) == (result.statistic, result.p_value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.p_value = 0.0  # type: ignore[misc]
    assert all(type(getattr(result, f)) is float for f in FIELDS)
    assert tuple(f.name for f in dataclasses.fields(TestResult)) == COLUMNS


# ------------------------------------------------------------------------------- across_samples

def test_across_samples_table():
    case = next(c for c in PAIRED if c["name"] == "precision_k20_N50")
    table = across_samples(case["a"], case["b"], 0.9)
    assert isinstance(table, pd.DataFrame) and tuple(table.columns) == COLUMNS
    assert list(table["test"]) == ["paired t-test", "Wilcoxon signed-rank test", "sign test", "Welch t-test"]
    for row, test in zip(table.itertuples(index=False), (paired_t, wilcoxon_paired, sign_test, welch_t)):
        expected = test(case["a"], case["b"], 0.9)
        assert tuple(row) == pytest.approx(tuple(dataclasses.astuple(expected)), nan_ok=True)


def test_across_samples_all_differences_zero():
    a = [0.5, 0.25, 0.75, 0.125, 0.375]
    table = across_samples(a, a)
    assert list(table["p_value"]) == [1.0, 1.0, 1.0, 1.0]
    assert table["method"].iloc[:3].str.startswith("degenerate").all()
    # paired t: 0/0; V = 0; no positive difference; Welch (unpaired, a varies): t = 0
    assert table["statistic"].fillna(-1).tolist() == [-1, 0.0, 0.0, 0.0]
    assert table["method"].iloc[3] == "t distribution"


def test_degenerate_differences():
    a = [0.5, 0.25, 0.75, 0.125, 0.375]
    b = [v - 0.125 for v in a]  # every difference exactly 0.125: R's t.test stops
    t = paired_t(a, b)
    assert math.isnan(t.p_value) and t.estimate == 0.125 and "essentially constant" in t.method
    w = wilcoxon_paired(a, b)  # R: V = 15, p from the normal approximation, midrange estimate
    assert w.statistic == 15 and 0 < w.p_value < 1 and w.estimate == 0.125 and math.isnan(w.low)
    s = sign_test(a, b)
    assert s.statistic == 5 and s.p_value == 0.0625 and s.estimate == 1.0
    same = welch_t([0.25, 0.25], [0.25, 0.25])  # both groups constant and equal
    assert same.p_value == 1.0 and math.isnan(same.statistic)
    apart = welch_t([0.25, 0.25], [0.5, 0.5])
    assert math.isnan(apart.p_value) and apart.estimate == -0.25


# ------------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("test", [paired_t, wilcoxon_paired, sign_test, cohens_dz, across_samples])
def test_paired_input_errors(test):
    with pytest.raises(ParameterError, match=r"`a` and `b` must have the same length .* got 3 and 2"):
        test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ParameterError, match=r"`a` needs at least 2 value\(s\); got 1"):
        test([0.1], [0.2])
    with pytest.raises(ParameterError, match=r"`b` must hold finite numbers; got nan at position 1"):
        test([0.1, 0.2], [0.1, float("nan")])
    with pytest.raises(ParameterError, match=r"`a` must hold finite numbers; got inf"):
        test([0.1, float("inf")], [0.1, 0.2])
    with pytest.raises(ParameterError, match=r"`a` must be a sequence of numbers"):
        test(["x", "y"], [0.1, 0.2])
    with pytest.raises(ParameterError, match=r"`a` must be one-dimensional"):
        test([[0.1, 0.2]], [0.1, 0.2])


@pytest.mark.parametrize("test", [paired_t, welch_t, wilcoxon_paired, sign_test, across_samples])
@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.1])
def test_confidence_level_errors(test, level):
    with pytest.raises(ParameterError, match=r"`confidence_level` must be in \(0, 1\)"):
        test([0.1, 0.2, 0.3], [0.2, 0.1, 0.0], level)


def test_welch_accepts_unequal_lengths_but_needs_two_values_each():
    assert welch_t([0.1, 0.2], [0.1, 0.3, 0.2]).df > 0
    with pytest.raises(ParameterError, match=r"`b` needs at least 2 value\(s\); got 1"):
        welch_t([0.1, 0.2], [0.3])


@pytest.mark.parametrize("kwargs, message", [
    (dict(x=3, n=0, p=0.5), r"`n` must be a whole number >= 1; got 0"),
    (dict(x=3, n=2.5, p=0.5), r"`n` must be a whole number >= 1; got 2.5"),
    (dict(x=11, n=10, p=0.5), r"`x` must be a whole number with 0 <= x <= n = 10; got 11"),
    (dict(x=-1, n=10, p=0.5), r"`x` must be a whole number"),
    (dict(x=1.5, n=10, p=0.5), r"`x` must be a whole number"),
    (dict(x=1, n=10, p=1.5), r"`p` must be a probability in \[0, 1\]; got 1.5"),
    (dict(x=1, n=10, p=float("nan")), r"`p` must be a probability"),
    (dict(x=1, n=10, p=0.5, alternative="two.sided"), r"`alternative` must be one of two-sided, less, greater"),
    (dict(x=1, n=10, p=0.5, confidence_level=95), r"`confidence_level` must be in \(0, 1\)"),
    (dict(x="a", n=10, p=0.5), r"`x`, `n` and `p` must be numbers"),
])
def test_binom_test_errors(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        binom_test(**kwargs)


@pytest.mark.parametrize("args, message", [
    (([], 0.3, 0.05), r"`x` needs at least 1 value\(s\); got 0"),
    (([0.3, float("nan")], 0.3, 0.05), r"`x` must hold finite numbers; got nan at position 1"),
    (([0.3], 0.3, 0.0), r"`sd` must be a finite number > 0; got 0.0"),
    (([0.3], 0.3, -1), r"`sd` must be a finite number > 0"),
    (([0.3], float("inf"), 0.05), r"`mean` must be a finite number; got inf"),
    (([0.3], "a", 0.05), r"`mean` and `sd` must be numbers"),
])
def test_ks_normal_errors(args, message):
    with pytest.raises(ParameterError, match=message):
        ks_normal(*args)
