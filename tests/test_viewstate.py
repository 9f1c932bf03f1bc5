"""View settings <-> URL: round trip, and every bad value in a link is reported and replaced."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.viewstate import (DEFAULTS, ViewSettings, check_against_data, cut_gammas, default_n_range, from_query,
                                n_step, to_query, with_cut_gamma)

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(st.builds(
    ViewSettings,
    dataset=st.one_of(st.none(), st.just("a" * 64), st.just("sample:collocations_sim")),
    label=st.one_of(st.none(), names), scores=st.lists(names, max_size=3, unique=True).map(tuple),
    measures=st.lists(names, max_size=3, unique=True).map(tuple),
    ties=st.sampled_from(["random", "stable", "optimistic", "pessimistic"]),
    seed=st.one_of(st.none(), st.integers(0, 2**32 - 1)),
    n_min=st.one_of(st.none(), st.integers(1, 10**6)), level=st.integers(800, 999).map(lambda i: i / 1000),
    show_recall=st.booleans(), beta=st.floats(0.1, 10), gamma=st.one_of(st.none(), st.floats(-1e6, 1e6)),
    a=st.one_of(st.none(), names), interval=st.sampled_from(["clopper_pearson", "wilson", "jeffreys"]),
    sample_column=st.one_of(st.none(), names), sample=st.one_of(st.none(), names),
    cut_mode=st.sampled_from(["gamma", "n"]), cut_n=st.one_of(st.none(), st.integers(1, 10**5)),
    cut_gammas=st.dictionaries(names, st.floats(-1e6, 1e6), max_size=3).map(
        lambda d: tuple(f"{m}={g!r}" for m, g in d.items())),
    v_measure=st.one_of(st.none(), names), uir_threshold=st.integers(1, 20).map(lambda i: round(i * 0.05, 2)),
    uir_betas=st.lists(st.sampled_from(["0.5", "1", "2"]), unique=True).map(tuple)))
def test_round_trip_through_the_query_string(view):
    query = to_query(view)
    assert all(isinstance(v, (str, list)) for v in query.values())
    restored, problems = from_query(query)
    assert problems == [] and restored == view


def test_defaults_give_an_empty_query():
    assert to_query(DEFAULTS) == {}


def test_lists_are_repeated_parameters_so_commas_survive():
    query = to_query(ViewSettings(measures=("a,b", "c")))
    assert query == {"m": ["a,b", "c"]}


@pytest.mark.parametrize("params, field, expected, message", [
    ({"ties": "jitter"}, "ties", "random", "Unknown tie policy 'jitter'"),
    ({"interval": "exact"}, "interval", "clopper_pearson", "Unknown interval method"),
    ({"level": "0.9557"}, "level", 0.956, "not on the slider"),
    ({"level": "1.5"}, "level", 0.999, "not on the slider"),
    ({"level": "abc"}, "level", 0.95, "not a valid float"),
    ({"seed": "-4"}, "seed", None, "out of range"),
    ({"seed": "1.5"}, "seed", None, "not a valid int"),
    ({"recall": "maybe"}, "show_recall", False, "not a valid bool"),
    ({"beta": "0"}, "beta", 1.0, "beta > 0"),
    ({"dataset": "../../etc/passwd"}, "dataset", None, "is not a data set id"),
    ({"dataset": "A" * 64}, "dataset", None, "is not a data set id"),
    ({"dataset": "sample:../x"}, "dataset", None, "does not exist"),
    ({"cut": "top"}, "cut_mode", "gamma", "Unknown cut-off mode 'top'"),
    ({"cut_n": "0"}, "cut_n", None, "at least 1"),
    ({"uir_t": "0.33"}, "uir_threshold", 0.35, "not on the slider"),
    ({"uir_t": "7"}, "uir_threshold", 1.0, "not on the slider"),
    ({"uir_beta": ["1", "3"]}, "uir_betas", ("1",), "not offered"),
    ({"cut_gamma": ["good=2.5", "good", "t=x", "=4"]}, "cut_gammas", ("good=2.5",), "not of the form"),
])
def test_bad_values_in_a_link_are_reported_and_replaced(params, field, expected, message):
    view, problems = from_query(params)
    assert getattr(view, field) == expected
    assert len(problems) == 1 and message in problems[0]


def test_unknown_parameters_are_ignored():
    assert from_query({"utm_source": "mail"}) == (DEFAULTS, [])


@pytest.mark.parametrize("n, step", [(50, 1), (1000, 1), (5102, 10), (100_000, 100), (1_000_000, 1000),
                                     (2500, 5)])
def test_n_step(n, step):
    assert n_step(n) == step


def test_default_n_range_is_the_papers():
    assert default_n_range(5102) == (100, 2000)
    assert default_n_range(1500) == (100, 1500)
    assert default_n_range(40) == (1, 40)


def test_check_against_data_snaps_n_to_the_slider_and_drops_unknown_measures():
    view = ViewSettings(n_min=333, n_max=99999, n_at=0, measures=("log.like", "nope"), a="chisq", b="gone")
    fixed, problems = check_against_data(view, columns=["x"], measures=["log.like", "chisq"], n_candidates=5102)
    assert (fixed.n_min, fixed.n_max, fixed.n_at) == (330, 5100, None)  # the grid: 10, 20, ..., 5100
    assert fixed.measures == ("log.like",) and fixed.a == "chisq" and fixed.b is None
    text = " ".join(problems)
    assert "n = 333 is not on the n slider" in text and "nope" in text and "'gone'" in text


def test_reversed_range_is_swapped():
    fixed, problems = check_against_data(ViewSettings(n_min=2000, n_max=100), columns=[], measures=[],
                                         n_candidates=5102)
    assert (fixed.n_min, fixed.n_max) == (100, 2000) and "reversed" in problems[0]


def test_settings_are_hashable_for_cache_keys():
    assert hash(replace(DEFAULTS, measures=("a",))) != hash(DEFAULTS)


def test_cut_gammas_set_and_cleared_per_measure():
    view = with_cut_gamma(DEFAULTS, "G2", 32.5)
    view = with_cut_gamma(view, "t=score", 2.09)  # a measure name with "=" survives (the last "=" splits)
    assert cut_gammas(view) == {"G2": 32.5, "t=score": 2.09}
    assert from_query(to_query(view)) == (view, [])
    assert cut_gammas(with_cut_gamma(view, "G2", None)) == {"t=score": 2.09}


def test_thresholds_and_validation_measure_unknown_to_the_data_are_dropped():
    view = replace(with_cut_gamma(DEFAULTS, "nope", 1.0), v_measure="gone")
    fixed, problems = check_against_data(view, columns=[], measures=["G2"], n_candidates=100)
    assert fixed.cut_gammas == () and fixed.v_measure is None
    assert any("thresholds for measures" in p and "nope" in p for p in problems)
    assert any("'gone'" in p for p in problems)
