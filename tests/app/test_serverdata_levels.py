"""A level never visited before on a server data set's Significance page (issue 34): the level-free parts of the pair
(the p-values, the curves' counts) are kept across levels (evalcore_app/cached.py ``pair_tests``, ``pair_curves``),
and what the page shows after a key to a new level (its figures, drawn from 58,001 n thinned to a few thousand
points, its text, its tables, its downloads' table) is exactly what a fresh computation at that level shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from evalcore import analysis
from evalcore.curves import precision_curve
from evalcore.nspec import grid_sizes
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ROWS = 200_000
RANGE = (2_000, 60_000)  # 58,001 n: the figures draw a few thousand of them (evalcore.figures.style.downsample)

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    from evalcore.engines.synthetic import write_parquet

    folder = tmp_path_factory.mktemp("levels_data")
    write_parquet(folder / "big.parquet", ROWS)
    return folder


@pytest.fixture()
def server(data_dir, serve_data_dir):
    return serve_data_dir(data_dir)


def open_page(level: float) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in dict(dataset="server:big.parquet", ties="hash", seed="0", a="a", b="b", n_min=str(RANGE[0]),
                           n_max=str(RANGE[1]), level=f"{level:g}").items():
        at.query_params[key] = value
    at.switch_page("pages/significance.py")
    return at.run()


def level_slider(at: AppTest):
    return next(s for s in at.slider if s.label.startswith("Confidence level"))


def shown(at: AppTest) -> dict:
    """Everything the page shows: text, tables, the figures' JSON (their data at the drawn n)."""
    assert not at.exception, [e.value for e in at.exception]
    return {"markdown": [m.value for m in at.markdown], "caption": [c.value for c in at.caption],
            "warning": [w.value for w in at.warning], "error": [e.value for e in at.error],
            "tables": [t.value for t in at.dataframe], "figures": specs(at)}


def test_a_new_level_shows_what_a_fresh_computation_at_that_level_shows(server):
    at = open_page(0.95)
    before = shown(at)
    assert len(before["figures"]) == 2
    for level in (0.97, 0.99):  # keys to levels never visited: the p-values and the curves' counts are kept
        level_slider(at).set_value(level)
        at.run()
        after = shown(at)
        st.cache_resource.clear()
        fresh = shown(open_page(level))  # nothing kept: everything computed at this level
        assert after["markdown"] == fresh["markdown"] and after["caption"] == fresh["caption"]
        assert after["warning"] == fresh["warning"] and after["error"] == fresh["error"] == []
        assert len(after["tables"]) == len(fresh["tables"])
        for got, want in zip(after["tables"], fresh["tables"]):
            pd.testing.assert_frame_equal(got, want, check_exact=True)
        assert after["figures"] == fresh["figures"]
        assert after["figures"] != before["figures"]  # (the level does change the bands and the figures)


def test_the_kept_curves_serve_every_level_unchanged_and_equal_a_fresh_computation(server):
    """The pair's level-free curves are computed once; each level adds its own intervals (the kept table is never
    changed), and the page's result at every level, its downloads' table too, equals the full computation."""
    from evalcore_app import cached
    from evalcore.viewstate import Display, RankingChoice, Roles

    roles = Roles(dataset="server:big.parquet", label="label", scores=("a", "b"))
    choice = RankingChoice("hash", 0)
    data = cached.load(roles)
    args = dict(data=data, ranking=choice, display=Display(), a="a", b="b", n_range=RANGE, interval="clopper_pearson")
    kept = cached.pair_curves(data, choice, Display(), "a", "b", RANGE)
    kept_copy = tuple(c.copy(deep=True) for c in kept)
    assert "lower" not in kept[0].columns
    ra, rb = (cached.ranking_of(data, m, choice) for m in ("a", "b"))
    sizes = grid_sizes(RANGE, 1)
    results = {}
    for level in (0.95, 0.9, 0.999):
        results[level] = cached.pair(level=level, **args)
        assert cached.pair_curves(data, choice, Display(), "a", "b", RANGE) is kept  # (one computation)
    for level, result in results.items():
        full = analysis.pair_comparison(ra, rb, RANGE, confidence_level=level)  # nothing kept
        for got, ranking, want in ((result.curve_a, ra, full.curve_a), (result.curve_b, rb, full.curve_b)):
            pd.testing.assert_frame_equal(got, want, check_exact=True)
            pd.testing.assert_frame_equal(got, precision_curve(ranking, sizes, confidence_level=level),
                                          check_exact=True)
        pd.testing.assert_frame_equal(result.comparison, full.comparison, check_exact=True)
        pd.testing.assert_frame_equal(result.detectable, full.detectable, check_exact=True)
        pd.testing.assert_frame_equal(result.table(), full.table(), check_exact=True)
    for got, want in zip(kept, kept_copy):  # no level wrote into the kept curves
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert not np.array_equal(results[0.9].curve_a["lower"], results[0.999].curve_a["lower"])
