"""Pooled designs (issue 22): their record, the pool's size at every depth, the draw in annotation order."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.candidates import CandidateSet
from evalcore.errors import ParameterError
from evalcore.estimates import SamplingFrame, draw_sample
from evalcore.pooling import (Design, deepest_pool, draw_design, parse_pool, pool_progress, pool_sizes,
                              rankings_for)
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(5)
    n = 400
    scores = {"A": rng.normal(size=n), "B": rng.normal(size=n), "C": np.round(rng.normal(size=n), 1)}
    return CandidateSet(labels=rng.random(n) < 0.3, scores=scores, directions={m: "higher" for m in scores})


def _frame(k=20, measures=("A", "B"), ties="stable", seed=None):
    return SamplingFrame(measures=measures, k=k, ties=ties, seed=seed)


def test_pool_sizes_are_the_union_sizes_of_the_top_k_lists(small):
    rankings = [rank(small, m, ties="random", seed=3) for m in ("A", "B", "C")]
    sizes = pool_sizes(rankings)
    for k in (0, 1, 2, 17, 100, 399, 400):
        union = set()
        for r in rankings:
            union |= set(r.order[:k].tolist())
        assert sizes[k] == len(union)
    assert deepest_pool(rankings, int(sizes[37])) == 37 or sizes[38] == sizes[37]
    assert sizes[deepest_pool(rankings, 100)] <= 100 < sizes[deepest_pool(rankings, 100) + 1]


def test_the_pool_mask_is_the_frame_of_its_top_k_lists(small):
    design = Design("pool+sample", _frame(ties="random", seed=9), size=30, seed=1)
    rankings = rankings_for(small, design.frame)
    mask = design.pool_mask(small)
    want = np.zeros(small.n_candidates, bool)
    for r in rankings.values():
        want[r.order[:20]] = True
    assert np.array_equal(mask, want)
    assert design.frame_mask(small) is None
    assert Design("sample", _frame(), size=5).pool_mask(small) is None


def test_draw_puts_the_pool_first_then_a_sample_of_the_rest_that_grows_as_a_prefix(small):
    design = Design("pool+sample", _frame(), size=40, seed=12)
    pool = design.pool_mask(small)
    order = draw_design(design, small)
    p = int(pool.sum())
    assert sorted(order[:p].tolist()) == np.flatnonzero(pool).tolist()  # the pool, whole
    assert not pool[order[p:]].any() and order.size == p + 40  # then the sample, outside it
    assert order[p:].tolist() == draw_sample(~pool, 40, 12).tolist()  # as draw_sample draws it
    larger = draw_design(Design("pool+sample", _frame(), size=90, seed=12), small)
    assert larger[:order.size].tolist() == order.tolist()  # the same seed extends the order
    assert not np.array_equal(order[:p], np.sort(order[:p]))  # the pool in a seeded random order
    assert draw_design(Design("pool", _frame(), seed=12), small).tolist() == order[:p].tolist()
    assert np.unique(order).size == order.size


def test_a_sample_design_draws_as_today(small):
    assert draw_design(Design("sample", SamplingFrame(), size=25, seed=4), small).tolist() == \
        draw_sample(small.n_candidates, 25, 4).tolist()
    frame = _frame(k=30)
    assert draw_design(Design("sample", frame, size=25, seed=4), small).tolist() == \
        draw_sample(frame.mask(small), 25, 4).tolist()


def test_the_record_round_trips_and_old_samples_are_sample_designs():
    design = Design("pool+sample", _frame(k=150, measures=("log.like", "t.score"), ties="random", seed=3), size=200,
                    seed=7)
    frame, record = design.frame.to_dict(), design.record(pool_size=299)
    assert record == {"kind": "pool+sample", "pool_size": 299}  # m is the stored size less the pool: it may grow
    assert Design.from_record(frame, record, 7, size=499) == design
    assert Design.from_record(frame, record, 7, size=799).size == 500
    assert Design.from_dict(design.to_dict()) == design
    pool_only = Design("pool", _frame())
    assert Design.from_record(pool_only.frame.to_dict(), pool_only.record(31), 0, size=31) == pool_only
    assert Design("sample", SamplingFrame(), size=4).record(0) == {}
    old = Design.from_record({"measures": [], "k": 0, "ties": "stable", "seed": None}, {}, 11, size=120)
    assert old == Design("sample", SamplingFrame(), size=120, seed=11)
    assert Design.from_record(None, None, None).kind == "sample"
    with pytest.raises(ParameterError, match="kind"):
        Design.from_record(frame, {"kind": "everything"}, 1)
    for bad in (-3, 0, 500, "7", True, None):
        with pytest.raises(ParameterError, match="pool of"):
            Design.from_record(frame, {"kind": "pool+sample", "pool_size": bad}, 1, size=499)


def test_describe_and_short_name_every_setting():
    design = Design("pool+sample", _frame(k=150, measures=("G2", "t"), ties="random", seed=3), size=200, seed=7)
    text = design.describe(pool_size=299)
    for part in ("top 150", "G2, t", "random", "tie seed 3", "299 candidates", "annotated whole", "200", "seed 7"):
        assert part in text
    assert design.short() == "pool+sample G2,t K=150 ties random tie-seed 3 m=200 seed 7"
    assert "random sample" not in Design("pool", _frame()).describe()
    assert "whole candidate set" in Design("sample", SamplingFrame(), size=9, seed=2).describe()


@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="pool"), "needs a pool"),
    (dict(kind="stratified", frame=_frame()), "kind"),
    (dict(kind="pool", frame=_frame(), size=3), "no random sample"),
    (dict(kind="pool+sample", frame=_frame(), size=-1), "size"),
    (dict(kind="pool+sample", frame=_frame(), size=2.5), "size"),
    (dict(kind="pool+sample", frame=_frame(), size=2, seed=-1), "seed"),
])
def test_bad_designs_are_refused_with_the_parameter_named(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        Design(**kwargs)


def test_a_sample_larger_than_the_rest_is_refused(small):
    with pytest.raises(ParameterError, match="outside the pool"):
        draw_design(Design("pool+sample", _frame(k=200), size=400, seed=1), small)


@pytest.mark.parametrize("text, want", [("log.like,t.score:150", (("log.like", "t.score"), 150)),
                                         ("G2:5", (("G2",), 5)), (" a , b :7", (("a", "b"), 7))])
def test_parse_pool(text, want):
    assert parse_pool(text) == want


@pytest.mark.parametrize("text", ["log.like", "G2:0", ":5", "G2:x", "G2:-4"])
def test_parse_pool_refuses(text):
    with pytest.raises(ParameterError, match="MEASURE"):
        parse_pool(text)


def test_pool_progress_counts_tp_and_fp_marks_only(small):
    pool = Design("pool", _frame()).pool_mask(small)
    idx = np.flatnonzero(pool)
    part = small.with_annotations(idx[:-2], small.labels[idx[:-2]])
    progress = pool_progress(part, pool)
    assert (progress.size, progress.annotated, progress.missing, progress.complete) == (idx.size, idx.size - 2, 2,
                                                                                          False)
    assert "2 to go" in progress.describe()
    assert pool_progress(small.with_annotations(idx, small.labels[idx]), pool).complete
