"""Check evalcore's interval and Fisher-test functions against values from R.

The reference values in ``tests/reference/r_reference.json`` were produced by
``tests/r/generate_reference.R`` (base R only: ``binom.test``, ``prop.test``,
``fisher.test``, ``phyper``/``dhyper``).  To regenerate them, run from the
repository root::

    Rscript tests/r/generate_reference.R

The tests themselves only read the JSON file; they do not need R.

What is compared
----------------
* ``binomial_interval(k, n, confidence_level, method, alternative)``

  - ``method="clopper_pearson"`` against ``binom.test(k, n, conf.level,
    alternative)$conf.int``;
  - ``method="wilson"`` against ``prop.test(k, n, conf.level, alternative,
    correct=FALSE)$conf.int``;
  - ``method="wilson_cc"`` against ``prop.test(..., correct=TRUE)$conf.int``.
    Note that R caps the continuity correction at ``|k - n/2|``, so for
    ``k == n/2`` the corrected and uncorrected intervals coincide.

  R's alternative names ``two.sided``/``less``/``greater`` map to
  ``"two-sided"``/``"less"``/``"greater"``.  Bounds are compared with
  ``rtol=1e-10, atol=0`` (so bounds that R gives as exactly 0 or 1 must be
  exactly 0 or 1).

* ``fisher_exact(a, b, c, d, alternative)`` for the table ``[[a, b], [c, d]]``
  against ``fisher.test(matrix(c(a, c, b, d), 2), alternative)$p.value``:

  - R p-values in (0, 1): ``rtol=1e-10, atol=0``;
  - R p-values of 1 (R does not clip 2x2 p-values, one is 1 + 2**-52):
    absolute difference at most 1e-12;
  - R p-values of exactly 0 (underflow): the project's ``pvalue`` must be 0
    and its ``log10_pvalue`` finite and below -300.

  ``log10_pvalue`` is further compared, for every table, with ``log10_p`` from
  the JSON file: log10 of the same p-value computed by the R script in log
  space (one-sided: ``phyper(..., log.p=TRUE)``, exactly what ``fisher.test``
  evaluates; two-sided: ``fisher.test``'s ``relErr = 1 + 1e-7`` rule with
  log-sum-exp).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

REFERENCE_PATH = Path(__file__).parent / "reference" / "r_reference.json"
REF = json.loads(REFERENCE_PATH.read_text(encoding="utf-8"))

R_ALTERNATIVES = {"two.sided": "two-sided", "less": "less", "greater": "greater"}

RTOL = 1e-10
P_ONE_ATOL = 1e-12
# |d log10 p| = |dp / p| / ln 10: the same relative accuracy as RTOL on p,
# plus a relative term for the huge |log10 p| of underflowing p-values.
LOG10_ATOL = RTOL / math.log(10)
LOG10_RTOL = 1e-9


def _floats(values) -> np.ndarray:
    """JSON list -> float64 array; null -> NaN, "Inf"/"-Inf" -> +-inf."""
    special = {None: np.nan, "Inf": np.inf, "-Inf": -np.inf, "NaN": np.nan}
    return np.array([special[v] if v is None or isinstance(v, str) else v
                     for v in values], dtype=np.float64)


def _ints(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _check_close(actual, desired, *, rtol, atol, labels, what):
    """assert_allclose, with the failing cases listed by name."""
    actual = np.asarray(actual, dtype=np.float64)
    desired = np.asarray(desired, dtype=np.float64)
    assert actual.shape == desired.shape, (what, actual.shape, desired.shape)
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(actual - desired) <= atol + rtol * np.abs(desired))
    bad &= ~(np.isnan(actual) & np.isnan(desired))
    msg = ""
    if bad.any():
        idx = np.flatnonzero(bad)
        lines = [f"  {labels[i]}: got {actual[i]!r}, R {desired[i]!r}" for i in idx[:15]]
        more = f"\n  ... and {idx.size - 15} more" if idx.size > 15 else ""
        msg = f"{what}: {idx.size} of {bad.size} cases differ\n" + "\n".join(lines) + more
    assert_allclose(actual, desired, rtol=rtol, atol=atol, err_msg=msg)


# ------------------------------------------------------------------ intervals

_BINOM = REF["binom_test"]
_PROP = REF["prop_test"]
K = _ints(_BINOM["k"])
N = _ints(_BINOM["n"])
KN_LABELS = [f"k={k}, n={n}" for k, n in zip(K, N)]
assert _PROP["k"] == _BINOM["k"] and _PROP["n"] == _BINOM["n"]

_INTERVAL_CASES = []
for _method, _blocks in (
    ("clopper_pearson", _BINOM["results"]),
    ("wilson", _PROP["correct_false"]),
    ("wilson_cc", _PROP["correct_true"]),
):
    for _block in _blocks:
        _INTERVAL_CASES.append(pytest.param(
            _method, _block,
            id=f"{_method}-{R_ALTERNATIVES[_block['alternative']]}-{_block['conf_level']:g}",
        ))


@pytest.mark.parametrize("method, block", _INTERVAL_CASES)
def test_binomial_interval_matches_r(method, block):
    from evalcore.stats.intervals import binomial_interval

    level = block["conf_level"]
    alternative = R_ALTERNATIVES[block["alternative"]]
    result = binomial_interval(K, N, confidence_level=level, method=method,
                               alternative=alternative)
    ref_low = _floats(block["low"])
    ref_high = _floats(block["high"])
    ok = ~(np.isnan(ref_low) | np.isnan(ref_high))  # null: R raised an error
    low = np.asarray(result.low, dtype=np.float64)
    high = np.asarray(result.high, dtype=np.float64)
    assert low.shape == K.shape and high.shape == K.shape
    labels = [lab for lab, keep in zip(KN_LABELS, ok) if keep]
    where = f"{method}, {alternative}, confidence_level={level:g}"
    _check_close(low[ok], ref_low[ok], rtol=RTOL, atol=0, labels=labels,
                 what=f"low ({where})")
    _check_close(high[ok], ref_high[ok], rtol=RTOL, atol=0, labels=labels,
                 what=f"high ({where})")


def _ref_interval(blocks, level, r_alternative, k, n):
    i = next(j for j in range(len(K)) if K[j] == k and N[j] == n)
    block = next(b for b in blocks
                 if b["conf_level"] == level and b["alternative"] == r_alternative)
    return block["low"][i], block["high"][i]


@pytest.mark.parametrize("method, blocks", [
    ("clopper_pearson", _BINOM["results"]),
    ("wilson", _PROP["correct_false"]),
    ("wilson_cc", _PROP["correct_true"]),
])
def test_binomial_interval_scalar_input(method, blocks):
    """Scalar k, n give scalar bounds equal to the vectorised ones."""
    from evalcore.stats.intervals import binomial_interval

    result = binomial_interval(200, 500, confidence_level=0.95, method=method,
                               alternative="two-sided")
    assert np.ndim(result.low) == 0 and np.ndim(result.high) == 0
    low, high = _ref_interval(blocks, 0.95, "two.sided", 200, 500)
    assert_allclose([float(result.low), float(result.high)], [low, high],
                    rtol=RTOL, atol=0)


def test_clopper_pearson_evert_2004_example():
    """Evert (2004, sec. 3.2): binom.test(200, 500) gives 35.7% -- 44.4%."""
    from evalcore.stats.intervals import binomial_interval

    low, high = _ref_interval(_BINOM["results"], 0.95, "two.sided", 200, 500)
    assert (round(100 * low, 1), round(100 * high, 1)) == (35.7, 44.4)
    result = binomial_interval(200, 500)  # defaults: 0.95, Clopper-Pearson, two-sided
    assert_allclose([float(result.low), float(result.high)], [low, high],
                    rtol=RTOL, atol=0)


# --------------------------------------------------------------------- Fisher

_FISHER = REF["fisher_test"]
FA, FB, FC, FD = (_ints(_FISHER[key]) for key in "abcd")
TABLE_LABELS = [f"[[{a}, {b}], [{c}, {d}]] ({g})"
                for a, b, c, d, g in zip(FA, FB, FC, FD, _FISHER["group"])]

_FISHER_CASES = [pytest.param(block, id=R_ALTERNATIVES[block["alternative"]])
                 for block in _FISHER["results"]]


@pytest.mark.parametrize("block", _FISHER_CASES)
def test_fisher_exact_pvalue_matches_r(block):
    from evalcore.stats.fisher import fisher_exact

    alternative = R_ALTERNATIVES[block["alternative"]]
    result = fisher_exact(FA, FB, FC, FD, alternative=alternative)
    p = np.asarray(result.pvalue, dtype=np.float64)
    log10_p = np.asarray(result.log10_pvalue, dtype=np.float64)
    assert p.shape == FA.shape and log10_p.shape == FA.shape
    ref = _floats(block["p_value"])
    assert not np.isnan(ref).any()

    zero = ref == 0
    one = ref >= 1
    inner = ~zero & ~one
    labels = np.array(TABLE_LABELS, dtype=object)

    _check_close(p[inner], ref[inner], rtol=RTOL, atol=0, labels=labels[inner],
                 what=f"pvalue, {alternative}, R p in (0, 1)")
    _check_close(p[one], ref[one], rtol=0, atol=P_ONE_ATOL, labels=labels[one],
                 what=f"pvalue, {alternative}, R p = 1")

    # R's p underflows to 0 here (true p < 1e-300 in every such case)
    bad = ~(np.isfinite(log10_p[zero]) & (log10_p[zero] < -300))
    assert not bad.any(), (
        f"log10_pvalue, {alternative}, R p = 0: expected finite and < -300 for\n"
        + "\n".join(f"  {lab}: got {v!r}"
                    for lab, v in zip(labels[zero][bad], log10_p[zero][bad])))
    assert_array_equal(p[zero], 0.0,
                       err_msg=f"pvalue, {alternative}: R p = 0 (true p < 1e-300)")


@pytest.mark.parametrize("block", _FISHER_CASES)
def test_fisher_exact_log10_pvalue_matches_r(block):
    from evalcore.stats.fisher import fisher_exact

    alternative = R_ALTERNATIVES[block["alternative"]]
    result = fisher_exact(FA, FB, FC, FD, alternative=alternative)
    ref = _floats(block["log10_p"])
    assert np.isfinite(ref).all()
    _check_close(result.log10_pvalue, ref, rtol=LOG10_RTOL, atol=LOG10_ATOL,
                 labels=TABLE_LABELS, what=f"log10_pvalue, {alternative}")


# ---------------------------------------------------------- reference sanity

def test_reference_file_is_consistent():
    """The JSON file is complete; this test does not touch evalcore."""
    header = REF["header"]
    assert "generate_reference.R" in header["generated_by"]
    n_kn = len(K)
    assert len(N) == n_kn and np.all((K >= 0) & (K <= N) & (N >= 1))
    for blocks in (_BINOM["results"], _PROP["correct_false"], _PROP["correct_true"]):
        assert len(blocks) == 15
        assert {(b["conf_level"], b["alternative"]) for b in blocks} == {
            (lv, alt) for lv in (0.8, 0.9, 0.95, 0.99, 0.999) for alt in R_ALTERNATIVES}
        for b in blocks:
            low, high = _floats(b["low"]), _floats(b["high"])
            assert low.shape == high.shape == (n_kn,)
            assert np.all((0 <= low) & (low <= high) & (high <= 1))
    n_tab = len(FA)
    assert all(len(x) == n_tab for x in (FB, FC, FD, _FISHER["group"]))
    assert {b["alternative"] for b in _FISHER["results"]} == set(R_ALTERNATIVES)
    for b in _FISHER["results"]:
        p = _floats(b["p_value"])
        assert p.shape == (n_tab,) and np.all((p >= 0) & (p <= 1 + 1e-15))
