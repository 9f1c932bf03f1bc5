"""View settings <-> URL: round trip, and every bad value in a link is reported and replaced."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.viewstate import (DEFAULTS, GROUPS, MAX_MEASURES, QUERY_NAMES, ViewSettings, check_against_data,
                                check_columns, check_settings, cut_gammas, default_n_range, from_query, n_grid,
                                link_groups, n_options, n_step, to_query, with_cut_gamma, with_roles)

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(st.builds(
    ViewSettings.of,
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
    v_measure=st.one_of(st.none(), names), uir_threshold=st.integers(1, 20).map(lambda i: round(i * 0.05, 2))))
def test_round_trip_through_the_query_string(view):
    query = to_query(view)
    assert all(isinstance(v, (str, list)) for v in query.values())
    restored, problems = from_query(query)
    assert problems == [] and restored == view


def test_defaults_give_an_empty_query():
    assert to_query(DEFAULTS) == {}


def test_lists_are_repeated_parameters_so_commas_survive():
    query = to_query(ViewSettings.of(measures=("a,b", "c")))
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
    ({"cut_gamma": ["good=2.5", "good", "t=x", "=4"]}, "cut_gammas", ("good=2.5",), "not of the form"),
])
def test_bad_values_in_a_link_are_reported_and_replaced(params, field, expected, message):
    view, problems = from_query(params)
    assert getattr(view, field) == expected
    assert len(problems) == 1 and message in problems[0]


def test_unknown_parameters_are_ignored_with_a_message():
    assert from_query({"utm_source": "mail"}) == (DEFAULTS, ["The link's 'utm_source' is not a setting of this "
                                                             "dashboard; ignored."])


@pytest.mark.parametrize("betas", [["1"], ["0.5", "2"], ["3"], [""]])
def test_an_older_links_uir_betas_are_said_to_change_nothing(betas):
    """The UIR page's F-betas left the link (they never changed a UIR): an older link that gives them opens the
    default view and says why they are not needed, in place of calling them unknown."""
    view, problems = from_query({"uir_beta": betas, "uir_t": "0.5"})
    assert view == DEFAULTS.set(uir_threshold=0.5) and len(problems) == 1
    assert "F-β never changed the UIR" in problems[0] and "not a setting" not in problems[0]
    assert "uir_beta" not in to_query(view)


@pytest.mark.parametrize("n, step", [(50, 1), (1000, 1), (5102, 10), (100_000, 100), (1_000_000, 1000),
                                     (2500, 5)])
def test_n_step(n, step):
    assert n_step(n) == step


def test_default_n_range_is_the_papers():
    assert default_n_range(5102) == (100, 2000)
    assert default_n_range(1500) == (100, 1500)
    assert default_n_range(40) == (1, 40)


def test_check_against_data_keeps_any_n_within_n_and_drops_unknown_measures():
    view = ViewSettings.of(n_min=333, n_max=99999, n_at=0, measures=("log.like", "nope"), a="chisq", b="gone")
    fixed, problems = check_against_data(view, measures=["log.like", "chisq"], n_candidates=5102)
    assert (fixed.n_min, fixed.n_max, fixed.n_at) == (333, 5102, None)  # every n can be chosen (typed: issue 30)
    assert fixed.measures == ("log.like",) and fixed.a == "chisq" and fixed.b is None
    text = " ".join(problems)
    assert "n = 99,999 is outside 1 to 5,102" in text and "nope" in text and "'gone'" in text
    assert "333" not in text


def test_reversed_range_is_swapped():
    fixed, problems = check_against_data(ViewSettings.of(n_min=2000, n_max=100), measures=[], n_candidates=5102)
    assert (fixed.n_min, fixed.n_max) == (100, 2000) and "reversed" in problems[0]


def test_settings_are_hashable_for_cache_keys():
    assert hash(DEFAULTS.set(measures=("a",))) != hash(DEFAULTS)


def test_cut_gammas_set_and_cleared_per_measure():
    view = with_cut_gamma(DEFAULTS, "G2", 32.5)
    view = with_cut_gamma(view, "t=score", 2.09)  # a measure name with "=" survives (the last "=" splits)
    assert cut_gammas(view) == {"G2": 32.5, "t=score": 2.09}
    assert from_query(to_query(view)) == (view, [])
    assert cut_gammas(with_cut_gamma(view, "G2", None)) == {"t=score": 2.09}


def test_thresholds_and_validation_measure_unknown_to_the_data_are_dropped():
    view = with_cut_gamma(DEFAULTS, "nope", 1.0).set(v_measure="gone")
    fixed, problems = check_against_data(view, measures=["G2"], n_candidates=100)
    assert fixed.cut_gammas == () and fixed.v_measure is None
    assert any("thresholds for measures" in p and "nope" in p for p in problems)
    assert any("'gone'" in p for p in problems)


# ---------------------------------------------------------------- every link gives a valid view (issue 9)

link_values = st.one_of(st.text(max_size=8), st.sampled_from(["nan", "inf", "-inf", "1e400", "9" * 40, "9" * 5000,
                                                               "-1", "0", "0.95", "1", "true", "stable", "n"]))
link = st.dictionaries(st.one_of(st.sampled_from(sorted(QUERY_NAMES.values()) + ["n", "band"]), st.text(max_size=5)),
                       st.one_of(link_values, st.lists(link_values, max_size=4)), max_size=12)


@settings(max_examples=300)
@given(link)
def test_any_query_gives_a_view_that_round_trips(params):
    view, problems = from_query(params)
    assert from_query(to_query(view)) == (view, [])
    assert check_settings(view) == (view, [])
    assert all(len(p) < 600 for p in problems)  # a 5,000-digit value is quoted cut short


@settings(max_examples=300)
@given(link, st.integers(2, 20_000))
def test_the_data_checks_correct_once_and_for_good(params, n_candidates):
    view, _ = from_query(params)
    measures = ["good", "flat", "stable", "n", "1"] + [f"m{i}" for i in range(12)]
    fixed, _ = check_against_data(view, measures=measures, n_candidates=n_candidates, columns=measures + ["label"])
    assert check_against_data(fixed, measures=measures, n_candidates=n_candidates, columns=measures + ["label"]) \
        == (fixed, [])
    assert from_query(to_query(fixed)) == (fixed, [])
    lo, hi = fixed.n_min or default_n_range(n_candidates)[0], fixed.n_max or default_n_range(n_candidates)[1]
    assert 1 <= lo < hi <= n_candidates  # a range of two or more n, in order, within the data
    assert fixed.measures is None or len(fixed.measures) <= MAX_MEASURES


@pytest.mark.parametrize("params, expected, message", [
    ({"n_min": "500"}, (500, None), None),
    ({"n_min": "3000"}, (2000, 3000), "3,000 to 2,000 (one end is the default) is reversed"),
    ({"n_max": "50"}, (50, 100), "100 to 50 (one end is the default) is reversed"),
    ({"n_min": "700", "n_max": "700"}, (700, 710), "holds a single n"),
    ({"n_min": "5100", "n_max": "5100"}, (5100, 5102), "holds a single n"),
    ({"n_min": "5102", "n_max": "5102"}, (5100, 5102), "holds a single n"),
    ({"n_max": "5102"}, (None, 5102), None),  # the slider reaches N (issue 10)
    ({"n_max": "5101"}, (None, 5101), None),  # any n: typed on the page (issue 30)
    ({"n_min": "333", "n_max": "1268"}, (333, 1268), None),
    ({"n_min": "900", "n_max": "300"}, (300, 900), "is reversed"),
    ({"n_min": "9" * 40}, (2000, 5102), "is outside 1 to 5,102"),
    ({"n_min": "0"}, (1, None), "n = 0 is outside 1 to 5,102"),
])
def test_n_ranges_from_a_link(params, expected, message):
    view, problems = from_query(params)
    fixed, problems = check_against_data(view, measures=[], n_candidates=5102)
    assert (fixed.n_min, fixed.n_max) == expected
    assert (message is None and problems == []) or any(message in p for p in problems), problems


def test_more_measures_than_a_page_draws_are_cut_with_a_message():
    names = [f"m{i}" for i in range(15)]
    fixed, problems = check_against_data(ViewSettings.of(measures=tuple(names)), measures=names, n_candidates=100)
    assert fixed.measures == tuple(names[:MAX_MEASURES])
    assert any("15 measures" in p for p in problems)


def test_a_key_given_twice_uses_the_last_and_says_so():
    view, problems = from_query({"ties": ["stable", "optimistic"], "m": ["a", "b"]})
    assert view.ties == "optimistic" and view.measures == ("a", "b")
    assert problems == ["The link gives ties 2 times; using the last, 'optimistic'."]


def test_beta_outside_the_input_is_clamped():
    assert from_query({"beta": "50"})[0].beta == 10.0 and from_query({"beta": "0.01"})[0].beta == 0.1
    assert from_query({"beta": "-2"})[0].beta == 1.0


def test_long_values_are_quoted_short():
    view, problems = from_query({"ties": "x" * 10_000, "n_min": "1" * 4000, "seed": "2" * 4000,
                                 "resamples": "3" * 4000, "cut_n": "-" + "4" * 4000})
    assert view.ties == "random" and max(len(p) for p in problems) < 200
    fixed, problems = check_against_data(view, measures=[], n_candidates=100)
    assert max(len(p) for p in problems) < 200


def test_columns_from_a_link_are_checked_against_the_table():
    view = ViewSettings.of(label="nope", scores=("good", "gone", "label"), keys=("label", "word", "x"), lower=("y",),
                        sample_column="label")
    fixed, problems = check_columns(view, ["label", "good", "word", "sample"])
    assert fixed.label is None and fixed.sample_column == "label"
    assert fixed.scores == ("good",) and fixed.keys == ("word",) and fixed.lower == ()
    assert len(problems) == 6


def test_the_label_cannot_be_the_sample_column():
    fixed, problems = check_columns(ViewSettings.of(label="is_tp", sample_column="is_tp"), ["is_tp", "s"])
    assert fixed.sample_column is None and "both the label and the sample column" in problems[0]


def test_suggested_roles_fill_only_what_the_link_left_open():
    view = ViewSettings.of(sample_column="run", keys=("w",))
    filled = with_roles(view, label="is_tp", scores=("good", "run"), keys=("w", "v"), sample=None)
    assert (filled.label, filled.sample_column, filled.scores, filled.keys) == ("is_tp", "run", ("good",), ("w",))


# ---------------------------------------------------------------- the view by concern (issue 10)

def test_every_setting_is_declared_once_with_its_url_name():
    names = [f.name for cls in GROUPS.values() for f in fields(cls)]
    assert len(names) == len(set(names)) == len(QUERY_NAMES)
    assert len(set(QUERY_NAMES.values())) == len(QUERY_NAMES)
    view = ViewSettings.of(level=0.9, a="x", ties="stable", gamma=1.5)
    assert (view.selection.level, view.selection.a, view.ranking.ties, view.threshold.gamma) == (0.9, "x", "stable", 1.5)
    assert view.level == 0.9 and view.set(level=0.8).selection.level == 0.8
    with pytest.raises(TypeError, match="no setting"):
        view.set(levle=0.9)


def test_links_with_the_older_names_open_the_same_view():
    """``band`` (the Confidence page's own measures until issue 10) and ``n`` (the one n of every page)."""
    view, problems = from_query({"band": ["G2", "t"], "n": "500"})
    assert problems == [] and view.measures == ("G2", "t")
    assert (view.n_at, view.look_n, view.pairs_n) == (500, 500, 500)
    assert from_query(to_query(view)) == (view, [])
    assert from_query({"m": ["X2"], "band": ["G2"]})[0].measures == ("X2",)  # the current name wins


def test_an_emptied_selection_stays_empty_through_the_link():
    emptied = ViewSettings.of(measures=())
    assert to_query(emptied) == {"m": [""]}
    assert from_query(to_query(emptied)) == (emptied, [])
    assert DEFAULTS.measures is None and from_query({})[0].measures is None


def test_display_names_round_trip_and_bad_ones_are_dropped():
    view = ViewSettings.of(names=("log.like=G²", "chisq=X²", "a=b=c"))
    assert view.display.mapping == {"log.like": "G²", "chisq": "X²", "a=b": "c"}
    assert from_query(to_query(view)) == (view, [])
    assert view.display.of("log.like") == "G²" and view.display.of("Fisher") == "Fisher"
    fixed, problems = from_query({"name": ["x=G²", "y=G²", "z=", "w"]})
    assert fixed.display.mapping == {"x": "G²"} and "left out" in problems[0]
    checked, problems = check_against_data(view, measures=["log.like", "chisq"], n_candidates=100)
    assert checked.display.mapping == {"log.like": "G²", "chisq": "X²"} and "'a=b'" in problems[0]
    assert view.display.with_name("chisq", None).mapping == {"log.like": "G²", "a=b": "c"}


def test_a_new_data_set_clears_the_settings_that_name_columns():
    view = ViewSettings.of(dataset="a" * 64, label="l", scores=("s",), measures=("s",), a="s", n_min=10, level=0.9,
                           ties="stable", names=("s=S",), gamma=2.0, cut_gammas=("s=1.0",), exclude_unlabelled=True)
    fresh = view.for_dataset("b" * 64)
    assert fresh.dataset == "b" * 64 and (fresh.level, fresh.ties, fresh.exclude_unlabelled) == (0.9, "stable", True)
    assert fresh.flat() == ViewSettings.of(dataset="b" * 64, level=0.9, ties="stable", exclude_unlabelled=True).flat()


def test_the_n_slider_reaches_n():
    assert n_grid(5102) == (10, 5102, 10)
    assert default_n_range(5102) == (100, 2000)
    options = n_options(5102)
    assert options[-2:] == [5100, 5102] and set(range(100, 5101, 10)) <= set(options)  # the grid of issue 10 stays


@pytest.mark.parametrize("n_candidates", [2_000, 5_102, 100_000, 2_000_000, 20_000_000, 10**9])
def test_large_sets_open_on_the_papers_range_and_the_slider_follows_the_scale(n_candidates):
    # issue 30: a 2,000,000-row server set opened on 2,000 to 2,000 (the slider's step was 2,000)
    assert default_n_range(n_candidates) == (100, 2000)
    options = n_options(n_candidates)
    assert options[0] == 1 and options[-1] == n_candidates and options == sorted(set(options))
    assert {1, 2, 10, 20, 50, 100, 200, 500, 1000, 2000} <= set(options)
    assert len(options) <= 1_300  # (a select slider sends every position to the browser)
    steps = np.diff(options)
    assert np.all(steps <= np.maximum(1, np.asarray(options[:-1]) // 10))  # a tenth of n or less: the scale
    for n in (7, 150, 1_234, n_candidates // 3):  # and any n in between, as a link or a typed bound gives it
        view, problems = check_against_data(ViewSettings.of(n_min=n, n_max=n + 1), measures=[],
                                            n_candidates=n_candidates)
        assert (view.n_min, view.n_max, problems) == (n, n + 1, [])


def test_an_older_name_given_beside_the_current_one_is_reported():
    view, problems = from_query({"m": ["G2"], "band": ["`code`"], "n": "5", "p_n": "3"})
    assert view.measures == ("G2",) and (view.n_at, view.look_n, view.pairs_n) == (3, 5, 5)
    assert len(problems) == 1 and "band='`code`'" in problems[0] and "ignored" in problems[0]


def test_a_pages_link_holds_what_its_pages_show():
    # issue 30: the candidate-set report's link.txt carried the Systems page's sys_ref and sys_hyp
    view = ViewSettings.of(dataset="sample:collocations_sim", ties="stable", level=0.99, caption=True,
                           sys_refs=("a" * 64,), sys_hyps=("base=" + "b" * 64,), sys_metric="chrf")
    for page in ("", "precision", "significance", "annotate", "uir"):
        query = to_query(view, link_groups(page))
        assert (query["dataset"], query["ties"], query["caption"]) == ("sample:collocations_sim", "stable", "1")
        assert not {"sys_ref", "sys_hyp", "sys_metric"} & set(query)
    systems = to_query(view, link_groups("systems"))
    assert systems == {"sys_ref": ["a" * 64], "sys_hyp": ["base=" + "b" * 64], "sys_metric": "chrf", "caption": "1"}
    assert from_query(to_query(view)) == (view, [])  # the whole view still round-trips
