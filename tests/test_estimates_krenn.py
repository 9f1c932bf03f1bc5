"""Issue 12's checks on Krenn's data: labels hidden except for a seeded 10% sample, many samples.

The 95% intervals from the sample must cover the full-data precision of each n-best list at no
less than the nominal rate within Monte Carlo error, for both interval kinds, and Fisher's test on
two exchangeable measures must reject at no more than alpha. "Within Monte Carlo error": with R
samples, the count of covering samples is Binomial(R, >= 0.95) if the intervals are right; the
check fails if it falls below that binomial's quantile at 1e-3 / (number of checks) (a Bonferroni
bound over all n, measures and methods checked), so a correct method fails it with probability
below 1e-3 and the seeds are fixed. A longer run is bench/bench_estimates.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalcore.estimates import draw_sample, precision_estimates
from evalcore.io import load_candidates
from evalcore.ranking import rank
from sample_simulation import coverage, exact_coverage, fisher_rejections, sample_counts

SIZES = np.r_[20, 50, np.arange(100, 2001, 100)]
SAMPLE = 510  # 10% of 5,102
REPS = 300
CHECKS = 2 * 2 * SIZES.size  # measures x interval kinds x n


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


@pytest.fixture(scope="module")
def rankings(krenn):
    return {m: rank(krenn, m, ties="stable") for m in ("log.like", "chisq")}


def _lowest_acceptable(reps: int, level: float, checks: int) -> float:
    return stats.binom.ppf(1e-3 / checks, reps, level) / reps


def test_sample_counts_equal_ranking_the_partly_annotated_set(krenn, rankings):
    m, k = sample_counts(rankings["log.like"], SAMPLE, 3, SIZES, seed=11)
    for r in range(3):
        idx = draw_sample(krenn.n_candidates, SAMPLE, 11 + r)
        part = krenn.with_annotations(idx, krenn.labels[idx])
        est = precision_estimates(rank(part, "log.like", ties="stable"), SIZES)
        assert est["m"].tolist() == m[r].tolist() and est["k"].tolist() == k[r].tolist()


@pytest.mark.parametrize("interval", ["hypergeometric", "clopper_pearson"])
@pytest.mark.parametrize("measure", ["log.like", "chisq"])
def test_intervals_from_a_10_percent_sample_cover_the_full_data_precision(rankings, measure, interval):
    rate = coverage(rankings[measure], SAMPLE, REPS, SIZES, seed=2024, interval=interval)
    floor = _lowest_acceptable(REPS, 0.95, CHECKS)
    assert rate.min() >= floor, dict(zip(SIZES.tolist(), rate.round(3).tolist()))
    assert rate.mean() >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / (REPS * SIZES.size))  # pooled: not below nominal


def test_the_coverage_check_fails_intervals_that_are_too_narrow(rankings):
    """An 80% interval passed off as 95% is caught: the check above can fail."""
    rate = coverage(rankings["log.like"], SAMPLE, REPS, SIZES, seed=2024, confidence_level=0.8)
    assert rate.min() < _lowest_acceptable(REPS, 0.95, CHECKS)


@pytest.mark.parametrize("interval", ["hypergeometric", "clopper_pearson"])
def test_exact_coverage_probability_is_at_least_nominal(rankings, interval):
    """The coverage itself, summed over m ~ Hypergeom(N, n, M) and k | m (no Monte Carlo error)."""
    r = rankings["log.like"]
    for n in (20, 300, 1268):
        assert exact_coverage(r.n_candidates, SAMPLE, n, int(r.tp[n]), 0.95, interval) >= 0.95 - 1e-9


def test_fisher_on_the_sample_rejects_at_most_alpha_for_exchangeable_measures(krenn):
    sizes = np.array([100, 300, 500, 1000, 2000])
    base = stats.rankdata(krenn.scores["log.like"]) / krenn.n_candidates * 3  # a common signal
    reps = 200
    rate = fisher_rejections(krenn.labels, base, SAMPLE, reps, sizes, seed=7, noise=1.0)
    ceiling = stats.binom.isf(1e-3 / sizes.size, reps, 0.05) / reps
    assert rate.max() <= ceiling, dict(zip(sizes.tolist(), rate.tolist()))
