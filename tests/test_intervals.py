"""Binomial confidence intervals: the paper's example, edge cases, properties, a bisection oracle.

Reference values from R over a grid of cases are checked in test_r_reference.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from evalcore.errors import ParameterError
from evalcore.stats.intervals import INTERVAL_METHODS, binomial_interval
from oracles import clopper_pearson_bisect


def test_paper_example():
    # Evert (2004), §3.2 and footnote 12: binom.test(200, 500) gives 35.7% to 44.4%.
    # R 4.2.2: binom.test(200, 500)$conf.int = 0.3567614 0.4444282
    ci = binomial_interval(200, 500)
    assert float(ci.low) == pytest.approx(0.3567614, abs=5e-8)
    assert float(ci.high) == pytest.approx(0.4444282, abs=5e-8)


def test_edge_cases_as_r():
    # R: binom.test(0, 1)$conf.int = 0 0.975; binom.test(1, 1)$conf.int = 0.025 1;
    #    binom.test(0, 10)$conf.int = 0 0.3084971
    ci = binomial_interval([0, 1, 0], [1, 1, 10])
    np.testing.assert_allclose(ci.low, [0.0, 0.025, 0.0], atol=1e-15)
    np.testing.assert_allclose(ci.high, [0.975, 1.0, 0.3084971], atol=5e-8)


def test_clopper_pearson_equals_bisection_on_exact_tails():
    rng = np.random.default_rng(3)
    n = rng.integers(1, 3000, size=40)
    k = rng.integers(0, n + 1)
    ci = binomial_interval(k, n, 0.9)
    for i in range(n.size):
        low, high = clopper_pearson_bisect(int(k[i]), int(n[i]), 0.9)
        assert ci.low[i] == pytest.approx(low, rel=1e-9, abs=1e-14)
        assert ci.high[i] == pytest.approx(high, rel=1e-9, abs=1e-14)


@pytest.mark.parametrize("method", list(INTERVAL_METHODS))
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_bounds_contain_the_estimate_and_stay_in_unit_interval(method, alternative):
    # statsmodels' test_proportion names this invariant after its bug reports; here for every k <= n <= 60
    n = np.concatenate([np.repeat(np.arange(1, 61), np.arange(2, 62)), [10**6, 10**6, 10**6]])
    k = np.concatenate([np.concatenate([np.arange(0, m + 1) for m in range(1, 61)]), [0, 1, 10**6]])
    ci = binomial_interval(k, n, 0.95, method=method, alternative=alternative)
    p_hat = k / n
    assert np.all(0 <= ci.low) and np.all(ci.high <= 1)
    assert np.all(ci.low <= p_hat + 1e-12) and np.all(p_hat <= ci.high + 1e-12)


@pytest.mark.parametrize("method", list(INTERVAL_METHODS))
def test_higher_level_gives_wider_interval(method):
    k, n = np.array([3, 50, 400]), np.array([10, 100, 5000])
    narrow = binomial_interval(k, n, 0.8, method=method)
    wide = binomial_interval(k, n, 0.99, method=method)
    assert np.all(wide.low <= narrow.low) and np.all(wide.high >= narrow.high)


def test_one_sided_bounds_use_full_alpha():
    two = binomial_interval(30, 100, 0.90)
    less = binomial_interval(30, 100, 0.95, alternative="less")
    greater = binomial_interval(30, 100, 0.95, alternative="greater")
    assert less.low == 0 and greater.high == 1
    assert less.high == pytest.approx(two.high, rel=1e-12)
    assert greater.low == pytest.approx(two.low, rel=1e-12)


@pytest.mark.parametrize("size", [1_500, 120_000])
def test_curves_marched_from_anchors_equal_scipy_everywhere(size):
    # A long n-best curve (n up by 1, k up by 0 or 1) is computed by marching from exact anchors
    # (evalcore.stats.kernels); every point must equal the direct Beta quantile (Boost via scipy).
    rng = np.random.default_rng(11)
    n = np.arange(1, size + 1)
    k = np.cumsum(rng.random(size) < np.linspace(0.6, 0.05, size))
    ci = binomial_interval(k, n)
    low = np.where(k > 0, special.betaincinv(np.maximum(k, 1), n - k + 1, 0.025), 0.0)
    high = np.where(k < n, 1 - special.betaincinv(np.maximum(n - k, 1), k + 1, 0.025), 1.0)
    np.testing.assert_allclose(ci.low, low, rtol=1e-12, atol=0)
    np.testing.assert_allclose(ci.high, high, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kwargs, match", [
    ({"confidence_level": 1.5}, r"`confidence_level` must be in \(0, 1\), e.g. 0.95; got 1.5"),
    ({"confidence_level": 0}, r"`confidence_level` must be in \(0, 1\)"),
    ({"method": "exact"}, "`method` must be one of clopper_pearson, wilson"),
    ({"alternative": "two.sided"}, "`alternative` must be one of"),
])
def test_bad_parameters_are_rejected(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        binomial_interval(3, 10, **kwargs)


@pytest.mark.parametrize("k, n", [(11, 10), (-1, 10), (1, 0), (2.5, 10)])
def test_bad_counts_are_rejected(k, n):
    with pytest.raises(ParameterError, match="whole numbers with 0 <= k <= n and n >= 1"):
        binomial_interval(k, n)


def _wilson_numpy(k, n, z, yates):
    """Wilson's score bounds as NumPy computes them elementwise (the path below 2,000 values): the oracle of the
    compiled pass."""
    p_hat = k / n
    z22n = z * z / (2.0 * n)
    root = lambda p_c: np.sqrt(np.abs(p_c * (1 - p_c)) / n + z22n / (2 * n))  # noqa: E731
    high = np.where(p_hat + yates / n >= 1.0, 1.0,
                    (p_hat + yates / n + z22n + z * root(p_hat + yates / n)) / (1 + 2 * z22n))
    low = np.where(p_hat - yates / n <= 0.0, 0.0,
                   (p_hat - yates / n + z22n - z * root(p_hat - yates / n)) / (1 + 2 * z22n))
    return np.maximum(low, 0.0), np.minimum(high, 1.0)


@pytest.mark.parametrize("method", ["wilson", "wilson_cc"])
@pytest.mark.parametrize("level", [0.5, 0.95, 0.999999])
def test_long_wilson_arrays_equal_numpy_bit_for_bit(method, level):
    # 50,000 values take the compiled pass (evalcore.stats.kernels.wilson_bounds), which must give NumPy's bits
    rng = np.random.default_rng(34)
    n = rng.integers(1, 10 ** rng.integers(1, 8, 50_000) + 1).astype(np.float64)
    k = np.floor(rng.random(n.size) * (n + 1))
    k[:500], k[500:1000] = 0.0, n[500:1000]  # the ends: a bound of 0 or 1
    ci = binomial_interval(k, n, level, method=method)
    z = special.ndtri(1.0 - (1.0 - level) / 2)
    yates = 0.0 if method == "wilson" else np.minimum(0.5, np.abs(k - 0.5 * n))
    low, high = _wilson_numpy(k, n, z, yates)
    assert np.array_equal(ci.low.view(np.int64), low.view(np.int64))
    assert np.array_equal(ci.high.view(np.int64), high.view(np.int64))
