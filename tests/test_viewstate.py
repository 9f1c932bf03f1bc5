"""View settings <-> URL: round trip, and every bad value in a link is reported and replaced."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.viewstate import (DEFAULTS, ViewSettings, check_against_data, default_n_range, from_query, n_step,
                                to_query)

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
    a=st.one_of(st.none(), names), interval=st.sampled_from(["clopper_pearson", "wilson", "jeffreys"])))
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
