"""The difference panel (evalcore.figures.paper.difference_figure), tested through its data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore import analysis
from evalcore.errors import ColumnError, ParameterError
from evalcore.figures.paper import difference_figure
from evalcore.io import load_candidates
from evalcore.ranking import rank


@pytest.fixture(scope="module")
def result(krenn_tsv):
    cs = load_candidates(krenn_tsv, label="is.colloc")
    return analysis.pair_comparison(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"), (100, 2000))


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_traces_are_the_difference_its_band_the_mdd_and_the_markers(result):
    fig = difference_figure(result.comparison, alpha=0.05, level=0.95, names=("log.like", "chisq"),
                            detectable=result.detectable, up_to=result.up_to)
    table = result.comparison.set_index("n")
    line = _trace(fig, "Π_A − Π_B")
    n = np.asarray(line.x).astype(int)
    np.testing.assert_allclose(line.y, 100 * table.loc[n, "diff"], rtol=1e-6)
    low = _trace(fig, "95% interval (Newcombe) (lower)")
    high = _trace(fig, "95% interval (Newcombe)")
    assert high.fill == "tonexty" and low.showlegend is False
    np.testing.assert_allclose(low.y, 100 * table.loc[np.asarray(low.x).astype(int), "diff_low"], rtol=1e-6)
    np.testing.assert_allclose(high.y, 100 * table.loc[np.asarray(high.x).astype(int), "diff_high"], rtol=1e-6)
    plus, minus = (t for t in fig.data if t.name and "MDD" in t.name)
    np.testing.assert_allclose(plus.y, -np.asarray(minus.y))
    mdd = result.detectable.set_index("n").loc[np.asarray(plus.x).astype(int), "mdd"]
    np.testing.assert_allclose(plus.y, 100 * mdd, rtol=1e-6)
    markers = _trace(fig, "significant (p < 0.05)")
    marked = {int(v) for v in markers.x}
    assert marked <= set(table.index[table["significant"]]) and 0 < len(marked) <= 80  # thinned as in Figure 3
    assert fig.data[-1] is markers  # readable triangles on top
    assert fig.layout.shapes[0].y0 == 0 and fig.layout.shapes[1].x0 == 1268


def test_sparse_markers_go_on_top_and_names_are_escaped(result):
    table = result.comparison[result.comparison["n"] <= 150]
    fig = difference_figure(table, alpha=0.05, level=0.9, names=("<b>a</b>", "b & c"))
    assert fig.data[-1].name == "significant (p < 0.05)"
    assert "&lt;b&gt;a&lt;/b&gt;" in fig.layout.yaxis.title.text and "<b>" not in fig.layout.yaxis.title.text
    assert "&lt;b&gt;" in _trace(fig, "Π_A − Π_B").hovertemplate
    assert _trace(fig, "90% interval (Newcombe)") is not None
    assert not any(t.name and "MDD" in t.name for t in fig.data)


def test_many_n_are_thinned_and_every_triangle_sits_on_the_line(result):
    fig = difference_figure(result.comparison, alpha=0.05, level=0.95, names=("a", "b"), max_points=300)
    line = _trace(fig, "Π_A − Π_B")
    assert len(line.x) < 1500
    marked = {int(v) for v in _trace(fig, "significant (p < 0.05)").x}
    assert marked <= {int(v) for v in line.x}  # every triangle sits on a drawn vertex
    every = difference_figure(result.comparison, alpha=0.05, level=0.95, names=("a", "b"), max_triangles=None)
    significant = set(result.comparison.loc[result.comparison["significant"], "n"])
    assert {int(v) for v in _trace(every, "significant (p < 0.05)").x} == significant


def test_range_and_errors(result):
    fig = difference_figure(result.comparison, alpha=0.05, level=0.95, names=("a", "b"), n_range=(500, 800),
                            detectable=result.detectable)
    assert list(fig.layout.xaxis.range) == [500, 800]
    assert min(_trace(fig, "Π_A − Π_B").x) == 500
    with pytest.raises(ColumnError, match="diff_low"):
        difference_figure(result.comparison.drop(columns="diff_low"), alpha=0.05, level=0.95, names=("a", "b"))
    with pytest.raises(ParameterError, match="level"):
        difference_figure(result.comparison, alpha=0.05, level=95, names=("a", "b"))
    with pytest.raises(ColumnError, match="mdd"):
        difference_figure(result.comparison, alpha=0.05, level=0.95, names=("a", "b"),
                          detectable=pd.DataFrame({"n": [100]}))


def test_effect_at_one_n(result):
    effects = analysis.effect_at(result, 100)
    row = result.comparison.iloc[0]
    assert effects["estimate"].iloc[0] == pytest.approx(17.0)  # 17 more TPs among 100: 17 points
    assert effects["estimate"].iloc[1] == pytest.approx(100 * 17 / 68)  # pi_D1 - pi_D2 = (32 - 15) / 68
    assert effects["low"].iloc[2] == row["or_low"] and effects["high"].iloc[2] == row["or_high"]
    assert effects["estimate"].iloc[3] == pytest.approx(100 * result.detectable["mdd"].iloc[0])
    with pytest.raises(ColumnError, match="not among"):
        analysis.effect_at(result, 50)


def test_mdd_grid_for_long_ranges(result):
    sizes = np.arange(1, 100_001)
    grid = analysis.mdd_grid(sizes)
    assert grid.size == analysis.MDD_POINTS and grid[0] == 1 and grid[-1] == 100_000
    assert np.array_equal(analysis.mdd_grid(np.arange(5, 2006)), np.arange(5, 2006))  # every n of 2,001
    # an n off the grid gets its MDD computed on demand in the 2x2 view
    thin = analysis.PairResult(**{**result.__dict__, "detectable": result.detectable.iloc[::100]})
    assert analysis.effect_at(thin, 101)["estimate"].iloc[3] == pytest.approx(
        100 * result.detectable.set_index("n").loc[101, "mdd"])
