"""Estimates from a random sample: counts against set-based oracles, intervals against R, coverage by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from evalcore.candidates import CandidateSet
from evalcore.curves import precision_curve
from evalcore.errors import ColumnError, ParameterError
from evalcore.estimates import (SamplingFrame, acceptance_estimates, baseline_estimate, compare_estimates,
                                draw_sample, expected_difference_width, expected_precision_width, frame_limit,
                                hypergeometric_interval, newcombe_difference_interval, precision_estimates,
                                recall_estimates, sample_interval, top_k_frame)
from evalcore.ranking import rank, rank_scores
from evalcore.stats.fisher import fisher_exact

REF = json.loads((Path(__file__).parent / "reference" / "r_estimates_reference.json").read_text("utf-8"))
R_ALTERNATIVES = {"two.sided": "two-sided", "less": "less", "greater": "greater"}


# ------------------------------------------------------------------------------- R references
@pytest.mark.parametrize("block", REF["hypergeometric_interval"]["results"],
                         ids=lambda b: f"{b['conf_level']}-{b['alternative']}")
def test_hypergeometric_interval_equals_r_phyper_scan(block):
    """Bounds are integers, so they must be equal, not close (tests/r/generate_estimates_reference.R)."""
    ref = REF["hypergeometric_interval"]
    ci = hypergeometric_interval(ref["k"], ref["m"], ref["n"], block["conf_level"],
                                 R_ALTERNATIVES[block["alternative"]])
    assert_array_equal(ci.low_count, block["low_count"])
    assert_array_equal(ci.high_count, block["high_count"])
    assert_allclose(ci.low, np.array(block["low_count"]) / np.array(ref["n"]), rtol=0, atol=0)


def test_scipy_hypergeometric_tails_equal_r_phyper():
    """The tails the interval bisects on, against phyper (far tails included).

    rtol 5e-10, not 1e-10: for populations of several 10^5 scipy's (Boost's) hypergeometric cdf
    errs by up to about 1e-10 relative where R's is right to 1e-13 (checked in exact rational
    arithmetic: x=466217, D=466438, n=666515, m=666222 gives relative errors 1.04e-10 and 4e-14).
    The interval's bounds are integers compared exactly above, and its tie fuzz (1e-7) dwarfs this.
    """
    ref = REF["phyper"]
    x, d, n, m = (np.array(ref[c]) for c in ("x", "D", "n", "m"))
    for got, want in ((stats.hypergeom.cdf(x, n, d, m), ref["cdf"]), (stats.hypergeom.sf(x, n, d, m), ref["sf"])):
        want = np.array(want, dtype=float)
        tiny = want < 1e-300
        assert_allclose(got[~tiny], want[~tiny], rtol=5e-10, atol=0)
        assert np.all(got[tiny] < 1e-290)


def test_hypergeometric_interval_by_hand():
    # k = 0 of m = n - 1: the one unseen candidate may be a TP -> [0, 1] TPs of n
    ci = hypergeometric_interval(0, 9, 10)
    assert (int(ci.low_count), int(ci.high_count)) == (0, 1)
    # the whole list annotated: the precision is known
    ci = hypergeometric_interval(7, 20, 20)
    assert float(ci.low) == float(ci.high) == 7 / 20
    # nothing annotated: [0, 1]
    ci = hypergeometric_interval(0, 0, 50)
    assert (float(ci.low), float(ci.high)) == (0.0, 1.0)


def test_hypergeometric_interval_rejects_impossible_counts():
    with pytest.raises(ParameterError, match="0 <= k <= m <= n"):
        hypergeometric_interval(5, 4, 10)
    with pytest.raises(ParameterError, match="whole numbers"):
        hypergeometric_interval(1.5, 4, 10)
    with pytest.raises(ParameterError, match="confidence_level"):
        hypergeometric_interval(1, 4, 10, confidence_level=1.5)
    with pytest.raises(ParameterError, match="interval"):
        sample_interval(1, 4, 10, method="wald")


@pytest.mark.parametrize("n, m", [(12, 4), (30, 10), (40, 39)])
@pytest.mark.parametrize("method", ["hypergeometric", "clopper_pearson"])
def test_exact_coverage_of_a_finite_list_is_at_least_nominal_for_every_d(n, m, method):
    """Sum P(k | D) over the k whose interval covers D / n: exact, for every D in 0..n."""
    k = np.arange(m + 1)
    low, high = sample_interval(k, np.full(k.size, m), np.full(k.size, n), 0.9, method)
    for d in range(n + 1):
        p = stats.hypergeom.pmf(k, n, d, m)
        covered = (low <= d / n + 1e-12) & (d / n - 1e-12 <= high)
        assert p[covered].sum() >= 0.9 - 1e-12, (d, p[covered].sum())


def test_a_too_narrow_interval_fails_the_coverage_check():
    """The coverage check above can fail: an 80% interval does not cover 90% of the time."""
    n, m = 30, 10
    k = np.arange(m + 1)
    low, high = sample_interval(k, np.full(k.size, m), np.full(k.size, n), 0.8, "hypergeometric")
    worst = min(stats.hypergeom.pmf(k, n, d, m)[(low <= d / n) & (d / n <= high)].sum() for d in range(n + 1))
    assert worst < 0.9


def test_newcombe_difference_interval_reproduces_the_published_example():
    # Newcombe (1998), Statistics in Medicine 17, 873-890, Table II, example (a): 56/70 - 48/80,
    # method 10 (hybrid score): 0.0524 to 0.3339.
    low, high = newcombe_difference_interval(56, 70, 48, 80, 0.95)
    assert_allclose([low, high], [0.0524, 0.3339], atol=5e-5)


# --------------------------------------------------------------------- counts: set-based oracles
partly_annotated_sets = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),        # labels
    st.lists(st.booleans(), min_size=n, max_size=n),        # annotated
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),   # scores a (heavy ties)
    st.lists(st.integers(-3, 3), min_size=n, max_size=n),   # scores b
    st.sampled_from(["stable", "random"]),
    st.integers(0, 1000)))


def _partly(data):
    labels, annotated, sa, sb, ties, seed = data
    labels, annotated = np.array(labels), np.array(annotated)
    cs = CandidateSet(labels=labels, scores={"a": np.array(sa, float), "b": np.array(sb, float)}, directions={},
                      annotated=annotated)
    return cs, labels & annotated, annotated, rank(cs, "a", ties=ties, seed=seed), rank(cs, "b", ties=ties,
                                                                                          seed=seed + 1)


@given(partly_annotated_sets)
def test_annotated_counts_equal_counting_the_top_n(data):
    cs, labels, annotated, a, _ = _partly(data)
    est = precision_estimates(a, interval="clopper_pearson")
    for n in range(1, cs.n_candidates + 1):
        top = a.order[:n]
        assert est["m"].iloc[n - 1] == annotated[top].sum()
        assert est["k"].iloc[n - 1] == labels[top].sum()
    assert a.n_annotated == annotated.sum()


@given(partly_annotated_sets)
def test_difference_region_counts_equal_set_operations(data):
    cs, labels, annotated, a, b = _partly(data)
    got = compare_estimates(a, b)
    for n in range(1, cs.n_candidates + 1):
        top_a, top_b = set(a.order[:n].tolist()), set(b.order[:n].tolist())
        d1 = [i for i in top_a - top_b if annotated[i]]
        d2 = [i for i in top_b - top_a if annotated[i]]
        row = got.iloc[n - 1]
        assert (row["size_d"], row["m_d1"], row["k_d1"], row["m_d2"], row["k_d2"]) == (
            len(top_a - top_b), len(d1), labels[d1].sum(), len(d2), labels[d2].sum())
    p = fisher_exact(got["k_d1"], got["m_d1"] - got["k_d1"], got["k_d2"], got["m_d2"] - got["k_d2"]).pvalue
    assert_allclose(got["p_value"], p, rtol=0, atol=0)


@given(partly_annotated_sets, st.integers(1, 10))
def test_frame_limit_is_the_longest_list_inside_the_frame(data, k):
    cs, labels, annotated, a, b = _partly(data)
    k = min(k, cs.n_candidates)
    frame = top_k_frame([a, b], k)
    limit = frame_limit(b, frame)
    assert all(frame[b.order[:limit]])
    assert limit == cs.n_candidates or not frame[b.order[limit]]
    assert frame_limit(a, frame) >= k


def test_fully_annotated_set_gives_the_full_data_precision_as_a_point():
    rng = np.random.default_rng(3)
    labels = rng.random(200) < 0.2
    r = rank_scores(labels, rng.normal(size=200), ties="stable")
    est = precision_estimates(r)
    curve = precision_curve(r)
    assert_array_equal(est["m"], est["n"])
    assert_allclose(est["estimate"], curve["precision"])
    assert_allclose(est["lower"], curve["precision"], rtol=0, atol=1e-15)
    assert_allclose(est["upper"], curve["precision"], rtol=0, atol=1e-15)


# ---------------------------------------------------------------------- candidate set and ranking
def test_candidate_set_from_partial_labels_keeps_unknown_labels_out_of_counts_and_hash():
    scores = {"g": np.array([4.0, 3.0, 2.0, 1.0])}
    cs = CandidateSet.from_partial_labels([True, None, np.nan, False], scores, directions={})
    assert cs.annotated.tolist() == [True, False, False, True] and cs.n_annotated == 2
    same = CandidateSet(labels=np.array([True, True, True, False]), scores=scores, directions={},
                        annotated=np.array([True, False, False, True]))
    assert same.content_hash == cs.content_hash  # labels of unannotated candidates do not count
    full = CandidateSet(labels=np.array([True, False, False, False]), scores=scores, directions={})
    assert full.content_hash != cs.content_hash
    assert CandidateSet(labels=full.labels, scores=scores, directions={},
                        annotated=np.ones(4, bool)).annotated is None  # all annotated = fully annotated
    with pytest.raises(ColumnError, match="only 2 of the 4"):
        cs.n_tp
    with pytest.raises(ColumnError, match="only 2 of the 4"):
        cs.baseline
    nothing = CandidateSet.from_partial_labels(None, scores, directions={})
    assert nothing.n_annotated == 0
    r = rank(cs, "g", ties="stable")
    assert r.annotated_ranks.tolist() == [1, 4] and r.partly_annotated
    with pytest.raises(ParameterError, match="unknown"):
        r.n_tp
    with pytest.raises(ParameterError, match="labels"):
        rank(cs, "g", ties="optimistic")
    assert cs.subset(np.array([True, True, False, False])).annotated.tolist() == [True, False]
    with pytest.raises(ColumnError, match="True/False"):
        CandidateSet.from_partial_labels(["TP", None, None, None], scores, directions={})


def test_with_annotations_replaces_the_labels():
    cs = CandidateSet(labels=np.array([True, False, True]), scores={"g": np.array([1.0, 2.0, 3.0])}, directions={})
    part = cs.with_annotations([2, 0], [False, True])
    assert part.annotated.tolist() == [True, False, True] and part.labels.tolist() == [True, False, False]
    with pytest.raises(ColumnError, match="outside"):
        cs.with_annotations([3], [True])


def test_draw_sample_is_seeded_and_prefix_closed():
    a = draw_sample(1000, 50, seed=7)
    assert_array_equal(a, draw_sample(1000, 50, seed=7))
    assert_array_equal(draw_sample(1000, 80, seed=7)[:50], a)
    assert len(set(a.tolist())) == 50
    frame = np.zeros(1000, bool)
    frame[100:200] = True
    assert set(draw_sample(frame, 100, seed=1).tolist()) == set(range(100, 200))
    with pytest.raises(ParameterError, match="size"):
        draw_sample(frame, 101, seed=1)
    with pytest.raises(ParameterError, match="seed"):
        draw_sample(frame, 10, seed=-1)


def test_sampling_frame_masks_and_round_trips():
    rng = np.random.default_rng(0)
    cs = CandidateSet(labels=rng.random(100) < 0.3, scores={"a": rng.normal(size=100), "b": rng.normal(size=100)},
                      directions={})
    frame = SamplingFrame(measures=("a", "b"), k=10, ties="stable")
    mask = frame.mask(cs)
    assert 10 <= mask.sum() <= 20
    assert SamplingFrame.from_dict(frame.to_dict()) == frame
    assert SamplingFrame().mask(cs) is None and "whole" in SamplingFrame().describe()
    with pytest.raises(ParameterError, match="k"):
        SamplingFrame(measures=("a",), k=0)


def test_estimates_outside_the_frame_are_nan_and_a_sample_outside_the_frame_is_refused():
    rng = np.random.default_rng(1)
    n_total = 300
    labels = rng.random(n_total) < 0.3
    scores = {"a": rng.normal(size=n_total), "b": rng.normal(size=n_total)}
    full = CandidateSet(labels=labels, scores=scores, directions={})
    a_full = rank(full, "a", ties="stable")
    frame = top_k_frame([a_full, rank(full, "b", ties="stable")], 50)
    idx = draw_sample(frame, 40, seed=2)
    part = full.with_annotations(idx, labels[idx])
    a, b = rank(part, "a", ties="stable"), rank(part, "b", ties="stable")
    est = precision_estimates(a, frame=frame)
    limit = frame_limit(a, frame)
    assert limit >= 50
    assert est["in_frame"].to_numpy().tolist() == [n <= limit for n in range(1, n_total + 1)]
    assert est.loc[~est["in_frame"], ["estimate", "lower", "upper"]].isna().all().all()
    cmp = compare_estimates(a, b, frame=frame)
    assert cmp.loc[~cmp["in_frame"], "p_value"].isna().all()
    assert baseline_estimate(a, frame=frame).population == frame.sum()
    outside = part.with_annotations(np.r_[idx, np.flatnonzero(~frame)[:1]], np.r_[labels[idx], False])
    with pytest.raises(ParameterError, match="outside the sampling frame"):
        precision_estimates(rank(outside, "a", ties="stable"), frame=frame)


def test_acceptance_estimates_equal_the_list_of_the_same_size():
    rng = np.random.default_rng(4)
    labels = rng.random(500) < 0.2
    cs = CandidateSet(labels=labels, scores={"g": np.round(rng.normal(size=500), 1)}, directions={},
                      annotated=rng.random(500) < 0.3)
    r = rank(cs, "g", ties="random", seed=1)
    acc = acceptance_estimates(r, [0.5, 1.0, 10.0])
    by_n = precision_estimates(r, acc["size"][acc["size"] > 0])
    assert_array_equal(acc.loc[acc["size"] > 0, ["m", "k"]].to_numpy(), by_n[["m", "k"]].to_numpy())
    assert_allclose(acc.loc[acc["size"] > 0, "lower"], by_n["lower"])
    assert acc.loc[acc["size"] == 0, "estimate"].isna().all()


def test_baseline_estimate_intervals():
    cs = CandidateSet(labels=np.r_[np.ones(30, bool), np.zeros(170, bool)], scores={"g": np.arange(200.0)},
                      directions={}, annotated=np.r_[np.ones(10, bool), np.zeros(20, bool), np.ones(40, bool),
                                                     np.zeros(130, bool)])
    r = rank(cs, "g", ties="stable")
    base = baseline_estimate(r, interval="hypergeometric")
    assert (base.m, base.k, base.population) == (50, 10, 200)
    ci = hypergeometric_interval(10, 50, 200)
    assert (base.lower, base.upper) == (float(ci.low), float(ci.high))
    cp = baseline_estimate(r, interval="clopper_pearson")
    assert cp.lower < base.lower or cp.upper > base.upper  # the finite set makes the exact interval narrower


# -------------------------------------------------------------------------------------- recall
def _exact_recall_quantiles(k_r, m_r, n_r, k_u, m_u, n_u, prior, probs):
    """The posterior of recall enumerated exactly: the beta-binomial yields of both segments."""
    y_r = np.arange(n_r - m_r + 1)
    y_u = np.arange(n_u - m_u + 1)
    p_r = stats.betabinom.pmf(y_r, n_r - m_r, k_r + prior, m_r - k_r + prior)
    p_u = stats.betabinom.pmf(y_u, n_u - m_u, k_u + prior, m_u - k_u + prior)
    tr, tu = np.meshgrid(k_r + y_r, k_u + y_u, indexing="ij")
    w = np.outer(p_r, p_u)
    ok = (tr + tu) > 0
    recall, w = (tr / np.where(ok, tr + tu, 1))[ok], w[ok]
    order = np.argsort(recall)
    cdf = np.cumsum(w[order]) / w.sum()
    return [recall[order][np.searchsorted(cdf, p)] for p in probs]


def test_recall_interval_matches_the_exactly_enumerated_posterior():
    labels = np.zeros(60, bool)
    labels[[0, 2, 3, 7, 20, 31, 44, 50]] = True
    annotated = np.zeros(60, bool)
    annotated[[0, 1, 2, 5, 9, 12, 20, 25, 33, 40, 44, 51, 57]] = True
    cs = CandidateSet(labels=labels, scores={"g": -np.arange(60.0)}, directions={}, annotated=annotated)
    r = rank(cs, "g", ties="stable")
    got = recall_estimates(r, [10, 30], draws=200_000, seed=5).set_index("n")
    for n in (10, 30):
        top = np.arange(n)
        k_r, m_r = int((labels & annotated)[top].sum()), int(annotated[top].sum())
        k_u, m_u = int((labels & annotated).sum()) - k_r, int(annotated.sum()) - m_r
        low, high = _exact_recall_quantiles(k_r, m_r, n, k_u, m_u, 60 - n, 0.5, [0.025, 0.975])
        # Monte Carlo quantiles of a discrete posterior: equal to the exact ones or one atom away
        assert abs(got.loc[n, "lower"] - low) < 0.03 and abs(got.loc[n, "upper"] - high) < 0.03
    assert_allclose(got.loc[10, "estimate"], (10 * 2 / 5) / (10 * 2 / 5 + 50 * 2 / 8))  # ratio of estimated yields
    again = recall_estimates(r, [10, 30], draws=200_000, seed=5)
    assert_array_equal(again["lower"], got["lower"].to_numpy())  # seeded


def test_recall_of_the_whole_set_is_one():
    cs = CandidateSet(labels=np.array([True, False, True, False]), scores={"g": np.arange(4.0)}, directions={},
                      annotated=np.array([True, True, False, False]))
    got = recall_estimates(rank(cs, "g", ties="stable"), [4], draws=500)
    assert got["lower"].iloc[0] == got["upper"].iloc[0] == got["estimate"].iloc[0] == 1.0


def test_recall_rejects_bad_parameters():
    cs = CandidateSet(labels=np.array([True, False]), scores={"g": np.arange(2.0)}, directions={})
    r = rank(cs, "g", ties="stable")
    with pytest.raises(ParameterError, match="prior"):
        recall_estimates(r, prior=0)
    with pytest.raises(ParameterError, match="draws"):
        recall_estimates(r, draws=10)


# ------------------------------------------------------------------------------ how many more
def _brute_expected_width(k, m, n, unannotated, extra, prior, level, method):
    total = 0.0
    for dm in range(0, min(extra, n - m) + 1):
        p_dm = stats.hypergeom.pmf(dm, unannotated, n - m, extra)
        for dk in range(dm + 1):
            p_dk = stats.betabinom.pmf(dk, dm, k + prior, m - k + prior)
            low, high = sample_interval(k + dk, m + dm, n, level, method)
            total += p_dm * p_dk * float(high[0] - low[0])
    return total


@pytest.mark.parametrize("method", ["hypergeometric", "clopper_pearson"])
def test_expected_precision_width_equals_the_plain_double_sum(method):
    rng = np.random.default_rng(8)
    labels = rng.random(120) < 0.3
    annotated = np.zeros(120, bool)
    annotated[draw_sample(120, 15, seed=3)] = True
    cs = CandidateSet(labels=labels, scores={"g": rng.normal(size=120)}, directions={}, annotated=annotated)
    r = rank(cs, "g", ties="stable")
    got = expected_precision_width(r, 40, [0, 5, 25], interval=method)
    m, k = (int(x[0]) for x in r.annotated_counts([40]))
    for extra, width in zip(got["extra"], got["expected_width"]):
        assert_allclose(width, _brute_expected_width(k, m, 40, 105, int(extra), 0.5, 0.95, method), rtol=1e-8)
    assert got["expected_width"].iloc[0] == pytest.approx(got["current_width"].iloc[0])
    assert got["expected_width"].is_monotonic_decreasing


def test_expected_difference_width_shrinks_and_takes_another_interval():
    rng = np.random.default_rng(9)
    labels = rng.random(400) < 0.2
    annotated = np.zeros(400, bool)
    annotated[draw_sample(400, 60, seed=1)] = True
    cs = CandidateSet(labels=labels, scores={"a": rng.normal(size=400), "b": rng.normal(size=400)}, directions={},
                      annotated=annotated)
    a, b = rank(cs, "a", ties="stable"), rank(cs, "b", ties="stable")
    got = expected_difference_width(a, b, 100, [0, 50, 340])
    assert got["expected_width"].is_monotonic_decreasing
    row = compare_estimates(a, b, [100]).iloc[0]
    assert got["expected_m_d1"].iloc[0] == row["m_d1"]
    assert_allclose(got["expected_m_d1"].iloc[-1], row["size_d"])  # everything annotated
    wald = lambda k1, m1, k2, m2, level: (k1 / m1 - k2 / m2 - 1.0, k1 / m1 - k2 / m2 + 1.0)  # noqa: E731
    assert_allclose(expected_difference_width(a, b, 100, [10], difference_interval=wald)["expected_width"], 2.0)
    with pytest.raises(ParameterError, match="extra"):
        expected_difference_width(a, b, 100, [341])


@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60), st.integers(-80, 140)), min_size=1, max_size=30))
def test_bisection_finds_the_same_bound_from_any_guess(cases):
    """The guess only speeds the search up: galloping from anywhere gives the plain bisection's answer."""
    from evalcore.estimates import _first_true

    lo = np.array([min(a, b) for a, b, _ in cases], dtype=np.int64)
    hi = np.array([max(a, b) for a, b, _ in cases], dtype=np.int64)
    threshold = lo + (hi - lo) // 3  # predicate: x >= threshold (true at hi)
    guess = np.array([g for _, _, g in cases], dtype=np.int64)
    calls = []

    def predicate(x, active):
        calls.append(int(active.sum()))
        assert np.all(x[active] >= lo[active]) and np.all(x[active] <= hi[active])
        return x[active] >= threshold[active]

    assert_array_equal(_first_true(predicate, lo, hi, guess), threshold)
    assert_array_equal(_first_true(predicate, lo, hi), threshold)


def test_full_data_comparison_refuses_a_partly_annotated_set():
    """Unannotated candidates must not be counted as FPs by the full-data test (compare_rankings)."""
    from evalcore.candidates import CandidateSet
    from evalcore.compare import compare_rankings
    from evalcore.errors import ParameterError
    from evalcore.ranking import rank

    cs = CandidateSet.from_partial_labels([True, None, True, False, None, True],
                                          {"a": np.arange(6.0), "b": np.arange(6.0)[::-1]},
                                          directions={"a": "higher", "b": "higher"})
    assert cs.partly_annotated
    with pytest.raises(ParameterError, match="only partly annotated"):
        compare_rankings(rank(cs, "a", ties="stable"), rank(cs, "b", ties="stable"), [2, 3])
