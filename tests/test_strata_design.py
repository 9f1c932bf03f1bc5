"""The stratified design (issue 33): its bands, its draw in annotation order, its record in the annotation database."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.candidates import CandidateSet
from evalcore.errors import ParameterError
from evalcore.estimates import SamplingFrame
from evalcore.pooling import Design, StratifiedDesign, parse_sizes, parse_widths
from evalcore.pooling.stratified import Bands, draw_stratified, format_widths, stratified_name
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(33)
    n = 500
    scores = {"A": rng.normal(size=n), "B": rng.normal(size=n), "C": np.round(rng.normal(size=n), 1)}
    return CandidateSet(labels=rng.random(n) < 0.2, scores=scores, directions={m: "higher" for m in scores})


def test_widths_and_sizes_are_read_as_written():
    assert parse_widths("100,400,1500,rest") == (100, 400, 1500)
    assert parse_widths("100, 400 ,1500") == (100, 400, 1500)  # the rest left out
    assert parse_widths("100,400,1500,3102", 5102) == (100, 400, 1500)  # the last written out: the rest
    assert parse_widths([100, 400]) == (100, 400)
    assert parse_widths("100,400", 500) == (100,)  # 100 + 400 = N: the 400 are the rest
    assert format_widths((100, 400, 1500)) == "100,400,1500,rest"
    assert parse_sizes("50,75,180,195") == (50, 75, 180, 195)
    assert parse_sizes("all,35,140,225", counts=(100, 400, 1500, 3102)) == (100, 35, 140, 225)
    for bad in ("", "rest", "100,-4,rest", "1e3,rest", "100,abc"):
        with pytest.raises(ParameterError, match="band|width"):
            parse_widths(bad)
    with pytest.raises(ParameterError, match="would be empty"):
        parse_widths("100,400,50", 500)
    with pytest.raises(ParameterError, match="sizes"):
        parse_sizes("50,x")
    with pytest.raises(ParameterError, match="needs the band"):
        parse_sizes("all,3")


def test_bands_of_several_measures_are_those_of_the_best_rank(small):
    design = StratifiedDesign.of(["A", "B"], (20, 60), (5, 10, 20), ties="random", tie_seed=4)
    bands = design.bands(small)
    ra, rb = (rank(small, m, ties="random", seed=4).ranks for m in ("A", "B"))
    for i in range(small.n_candidates):
        best = min(ra[i], rb[i])
        want = 0 if best <= 20 else 1 if best <= 80 else 2
        assert bands.band[i] == want
    assert bands.counts.tolist() == np.bincount(bands.band, minlength=3).tolist()
    assert 20 <= bands.counts[0] <= 40  # the union of two top-20 lists
    assert "best ranks 21-80" in design.describe(bands.counts)


def test_the_draw_samples_each_band_at_its_size_in_a_random_order(small):
    design = StratifiedDesign.of(["C"], (50, 150), (20, 15, 30), seed=9)
    bands = design.bands(small)
    order = design.draw(small)
    assert order.size == 65 and np.unique(order).size == 65
    assert np.bincount(bands.band[order], minlength=3).tolist() == [20, 15, 30]
    assert np.array_equal(order, draw_stratified(design, bands))  # the same seed, the same draw
    again = StratifiedDesign.of(["C"], (50, 150), (20, 15, 30), seed=10).draw(small)
    assert not np.array_equal(np.sort(again), np.sort(order))
    # annotators see no rank order: the first 20 places mix the bands
    assert len(set(bands.band[order[:20]].tolist())) == 3
    # a larger band size extends each band's own draw (its seeded permutation), not the interleaving
    larger = StratifiedDesign.of(["C"], (50, 150), (25, 15, 30), seed=9).draw(small)
    first = set(order[bands.band[order] == 0].tolist())
    assert first <= set(larger.tolist())


def test_a_band_sampled_whole_is_the_band(small):
    design = StratifiedDesign.of(["A"], (40,), (40, 25))
    bands = design.bands(small)
    order = design.draw(small)
    assert set(order[bands.band[order] == 0].tolist()) == set(np.flatnonzero(bands.band == 0).tolist())
    assert "ranks 1-40: all 40 of 40" in design.describe(bands.counts)


def test_sizes_beyond_a_band_and_bad_designs_are_refused(small):
    with pytest.raises(ParameterError, match="band 1 .* holds 40 candidates"):
        StratifiedDesign.of(["A"], (40,), (41, 25)).bands(small)
    with pytest.raises(ParameterError, match="one sample size per band"):
        StratifiedDesign.of(["A"], (40, 100), (10, 25))
    with pytest.raises(ParameterError, match="ties"):
        StratifiedDesign.of(["A"], (40,), (10, 25), ties="optimistic")
    with pytest.raises(ParameterError, match="measures"):
        StratifiedDesign(frame=SamplingFrame(), widths=(10,), sizes=(1, 1))
    with pytest.raises(ParameterError, match="at least one above 0"):
        StratifiedDesign.of(["A"], (40,), (0, 0))
    with pytest.raises(ParameterError, match="kind"):
        Design(kind="stratified", frame=SamplingFrame(("A",), 40))


def test_the_record_round_trips_and_hostile_records_are_refused():
    design = StratifiedDesign.of(["A", "B"], (100, 400, 1500), (50, 75, 180, 195), ties="hash", tie_seed=12, seed=7)
    record = design.record()
    assert record == {"kind": "stratified", "widths": [100, 400, 1500], "sizes": [50, 75, 180, 195]}
    assert Design.from_record(design.frame.to_dict(), record, 7, 500) == design
    assert Design.from_dict(design.to_dict()) == design
    assert design.short() == "stratified A,B 100,400,1500,rest sizes 50,75,180,195 ties hash tie-seed 12 seed 7"
    for bad, match in (({**record, "widths": "100"}, "band widths"), ({**record, "sizes": [1, 2, True, 4]}, "sizes"),
                       ({**record, "widths": [100] * 60}, "band widths"), ({**record, "sizes": [-1, 2, 3, 4]}, "sizes"),
                       ({**record, "sizes": [1, 2]}, "one sample size per band")):
        with pytest.raises(ParameterError, match=match):
            Design.from_record(design.frame, bad, 7, None)
    with pytest.raises(ParameterError, match="holds 499"):
        Design.from_record(design.frame, record, 7, 499)
    with pytest.raises(ParameterError, match="cuts 2,000 ranks"):
        Design.from_record(SamplingFrame(("A", "B"), 100, ties="hash", seed=12), record, 7, 500)
    name = stratified_name(design)
    assert name.startswith("strat7-4b-") and name != stratified_name(StratifiedDesign.of(
        ["A", "B"], (100, 400, 1500), (50, 75, 180, 196), ties="hash", tie_seed=12, seed=7))


def test_bands_from_a_best_rank_array():
    bands = Bands.of(np.array([1, 5, 6, 11, 20, 3]), (5, 5))
    assert bands.band.tolist() == [0, 0, 1, 2, 2, 0] and bands.counts.tolist() == [3, 1, 2]
