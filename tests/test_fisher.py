"""Fisher's exact test against exact rational arithmetic (tests/oracles.py) and by hand.

R reference values are checked separately in test_r_reference.py (from tests/r/generate_reference.R).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from evalcore.errors import ParameterError
from evalcore.stats.fisher import fisher_exact
from oracles import fisher_exact_fraction, log10_fraction

ALTERNATIVES = ("two-sided", "less", "greater")


def test_hand_worked_example():
    # margins 4/4/4/4: weights C(4,x) C(4,4-x) = 1, 16, 36, 16, 1 (sum 70); the observed x = 3 has
    # weight 16, so two-sided p = (1 + 16 + 16 + 1) / 70, "greater" p = (16 + 1) / 70.
    assert fisher_exact(3, 1, 1, 3).pvalue == pytest.approx(34 / 70, rel=1e-14)
    assert fisher_exact(3, 1, 1, 3, "greater").pvalue == pytest.approx(17 / 70, rel=1e-14)
    assert fisher_exact(3, 1, 1, 3, "less").pvalue == pytest.approx(69 / 70, rel=1e-14)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_every_small_table_equals_exact_fractions(alternative):
    cells = np.array(list(itertools.product(range(7), repeat=4)))
    result = fisher_exact(*cells.T, alternative=alternative)
    expected = np.array([float(fisher_exact_fraction(*map(int, t), alternative)) for t in cells])
    np.testing.assert_allclose(result.pvalue, expected, rtol=1e-12, atol=0)


LARGE_TABLES = [
    (1200, 3800, 1300, 3700),   # equal row sums, as two n-best lists give
    (2000, 500, 500, 2000),     # p far below 1e-300
    (44, 113, 26, 131),         # Krenn G2 vs X2 at n = 1,250
    (36, 115, 26, 125),         # ... and at n = 1,300 (p = 0.1995, issue 2)
    (30, 70, 150, 250),         # row sums differ: acceptance sets of different sizes
    (5000, 1, 4000, 1001),      # extreme odds
    (2500, 2500, 2500, 2500),   # at the mode: p = 1
    (2501, 2499, 2499, 2501),   # next to the mode
    (0, 3000, 3000, 0),
    (17, 4983, 3, 4997),
    (3176, 19, 12, 4),          # 17-point support, small p: once lost 9 digits to a complement
]


@pytest.mark.parametrize("table", LARGE_TABLES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_large_tables_equal_exact_integer_sums(table, alternative):
    exact = fisher_exact_fraction(*table, alternative)
    result = fisher_exact(*table, alternative=alternative)
    assert float(result.log10_pvalue) == pytest.approx(log10_fraction(exact), rel=1e-12, abs=1e-13)
    if float(exact) > 1e-300:
        assert float(result.pvalue) == pytest.approx(float(exact), rel=1e-12)


def test_tiny_p_values_keep_their_logarithm():
    result = fisher_exact(2000, 500, 500, 2000)
    assert result.pvalue == 0.0  # underflows, as in R
    assert -1000 < result.log10_pvalue < -300


@pytest.mark.parametrize("table", [(0, 0, 3, 4), (0, 3, 0, 4), (5, 0, 0, 0), (0, 0, 0, 0), (2, 3, 0, 0)])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_zero_margin_gives_p_one(table, alternative):
    assert fisher_exact(*table, alternative=alternative).pvalue == 1.0


def test_two_sided_is_symmetric_and_one_sided_swap():
    rng = np.random.default_rng(7)
    a, b, c, d = rng.integers(0, 300, size=(4, 2000))
    p = fisher_exact(a, b, c, d).pvalue
    np.testing.assert_allclose(fisher_exact(c, d, a, b).pvalue, p, rtol=1e-12)
    np.testing.assert_allclose(fisher_exact(b, a, d, c).pvalue, p, rtol=1e-12)
    np.testing.assert_allclose(fisher_exact(c, d, a, b, "less").pvalue, fisher_exact(a, b, c, d, "greater").pvalue,
                               rtol=1e-12)


def test_broadcasts_and_keeps_shape():
    result = fisher_exact(np.array([[1, 2], [3, 4]]), 5, 6, 7)
    assert result.pvalue.shape == (2, 2)


@pytest.mark.parametrize("args, match", [
    ((-1, 2, 3, 4), "non-negative whole counts"),
    ((1.5, 2, 3, 4), "non-negative whole counts"),
    ((np.nan, 2, 3, 4), "non-negative whole counts"),
])
def test_bad_counts_are_rejected(args, match):
    with pytest.raises(ParameterError, match=match):
        fisher_exact(*args)


def test_bad_alternative_is_rejected():
    with pytest.raises(ParameterError, match="`alternative` must be one of two-sided, less, greater; got 'both'"):
        fisher_exact(1, 2, 3, 4, alternative="both")


CONCURRENT_CALLS = """
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from evalcore.stats.fisher import fisher_exact
from evalcore.stats.intervals import binomial_interval
rng = np.random.default_rng(5)
a, b, c, d = rng.integers(0, 500, size=(4, 30_000))
n = np.arange(1, 30_001)
expected = fisher_exact(a, b, c, d).pvalue
for _ in range(3):
    with ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(fisher_exact, a, b, c, d) for _ in range(4)]
        futures += [pool.submit(binomial_interval, n // 9, n) for _ in range(4)]
        results = [f.result() for f in futures]
    assert all(np.array_equal(r.pvalue, expected) for r in results[:4])
print("ok")
"""


def test_parallel_kernels_can_be_called_from_several_threads_at_once():
    # A web server computes for several sessions in threads. numba's fallback threading layer
    # (workqueue, used where no OpenMP or TBB is installed) aborts the process on concurrent
    # parallel launches; evalcore serialises them. Force that layer in a fresh process.
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-c", CONCURRENT_CALLS], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
