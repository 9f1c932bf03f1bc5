"""The ranking behind the estimates at scale: evalcore.ranking.rank_scores orders by (key, t) with one
unstable argsort and, where scores tie, one sort of packed words (issue 12, "Scale"). These tests hold it
to a plain-Python oracle: sort the candidates by (key, place in the tie policy's order). Speed is measured
in bench/bench_estimates.py, not here."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.ranking import TIE_POLICIES, rank_scores


def oracle(labels, scores, higher_is_better, ties, seed):
    """Order, ranks, cumulative TPs and tie groups by a plain sort of (key, t) and loops."""
    n = len(scores)
    key = [(-s if higher_is_better else s) if np.isfinite(s) else np.inf for s in scores]
    if ties == "random":
        pre = list(np.random.default_rng(seed).permutation(n))  # the documented tie order: this permutation
    elif ties == "stable":
        pre = list(range(n))
    elif ties == "hash":  # by (SplitMix64 output, row), in Python integers (Steele, Lea & Flood 2014)
        def splitmix(i):
            z = (seed + (i + 1) * 0x9E3779B97F4A7C15) % 2**64
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
            return (z ^ (z >> 31)) >> 1
        pre = sorted(range(n), key=lambda i: (splitmix(i), i))
    else:
        assert ties in ("optimistic", "pessimistic"), ties
        first = [bool(lab) == (ties == "optimistic") for lab in labels]
        pre = [i for i in range(n) if first[i]] + [i for i in range(n) if not first[i]]
    place = {c: p for p, c in enumerate(pre)}
    order = sorted(range(n), key=lambda c: (key[c], place[c]))
    ranks = [0] * n
    for r, c in enumerate(order, 1):
        ranks[c] = r
    tp = [0]
    for c in order:
        tp.append(tp[-1] + bool(labels[c]))
    start, end = [], []
    for i, c in enumerate(order):
        same = [j for j in range(n) if key[order[j]] == key[c]]
        start.append(min(same))
        end.append(max(same) + 1)
    return order, ranks, tp, start, end


scores_lists = st.lists(st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0, np.nan, np.inf, -np.inf, 7.0]) |
                        st.floats(-5, 5), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(scores_lists, st.data(), st.sampled_from(list(TIE_POLICIES)), st.booleans(), st.integers(0, 2**32 - 1))
def test_rank_scores_equals_a_plain_sort_by_key_and_tie_order(scores, data, ties, higher, seed):
    labels = np.array(data.draw(st.lists(st.booleans(), min_size=len(scores), max_size=len(scores))))
    r = rank_scores(labels, np.array(scores), higher_is_better=higher, ties=ties, seed=seed)
    order, ranks, tp, start, end = oracle(labels, scores, higher, ties, seed)
    assert r.order.tolist() == order
    assert r.ranks.tolist() == ranks
    assert r.tp.tolist() == tp
    assert r.group_start.tolist() == start and r.group_end.tolist() == end
    assert np.array_equal(r.sorted_scores, np.array(scores)[order], equal_nan=True)


def test_large_tie_groups_and_no_ties_agree_with_the_stable_sort_of_the_permuted_key():
    # 200,000 candidates: rounded scores (large tie groups) and continuous ones (no ties); the previous
    # algorithm, a stable argsort of the key in the tie policy's order, is the reference
    rng = np.random.default_rng(5)
    labels = rng.random(200_000) < 0.1
    for scores in (np.round(rng.normal(size=labels.size), 1), rng.normal(size=labels.size)):
        for ties, seed in (("random", 11), ("stable", None), ("optimistic", None), ("pessimistic", None)):
            key = -scores
            if ties == "random":
                pre = np.random.default_rng(seed).permutation(labels.size)
            elif ties == "stable":
                pre = np.arange(labels.size)
            else:
                pre = np.argsort(labels if ties == "pessimistic" else ~labels, kind="stable")
            expected = pre[np.argsort(key[pre], kind="stable")]
            r = rank_scores(labels, scores, ties=ties, seed=seed)
            assert np.array_equal(r.order, expected), (ties, scores[:3])


def test_the_annotated_candidates_are_located_at_their_ranks():
    rng = np.random.default_rng(2)
    scores = np.round(rng.normal(size=50_000), 2)
    labels = rng.random(scores.size) < 0.2
    annotated = np.zeros(scores.size, bool)
    annotated[rng.choice(scores.size, 300, replace=False)] = True
    full = rank_scores(labels, scores, ties="random", seed=4)
    part = rank_scores(labels, scores, ties="random", seed=4, annotated=annotated)
    assert np.array_equal(part.order, full.order)
    assert np.array_equal(part.annotated_ranks, np.sort(full.ranks[annotated]))
    n = np.array([0, 1, 100, 5_000, scores.size])
    m, k = part.annotated_counts(n)
    assert m.tolist() == [int((full.ranks[annotated] <= x).sum()) for x in n]
    assert k.tolist() == [int((full.ranks[annotated & labels] <= x).sum()) for x in n]
