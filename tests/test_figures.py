"""Figures, tested through their data (traces' x/y/names, layout shapes), on result tables that
evalcore computed from synthetic candidate sets (and, for the paper's labels, Krenn's data)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.figures import paper as figures
from evalcore.figures import style as figure_style
from evalcore.compare import compare_rankings, significant_up_to
from evalcore.curves import precision_curve
from evalcore.errors import ColumnError, ParameterError
from evalcore.figures.paper import (confidence_figure, precision_figure, pvalue_figure, significance_figure,
                                    threshold_histogram)
from evalcore.figures.style import DASHES, PALETTE, downsample, style
from evalcore.ranking import rank_scores

BIG = 1_000_000
PAYLOAD_LIMIT = 200_000  # characters of JSON


def _candidates(n_total: int, strengths: dict[str, float], seed: int = 7):
    """Labels (about 10% TPs) and one score column per measure: label * strength + noise."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n_total) < 0.1
    scores = {m: labels * s + rng.normal(0.0, 1.0, n_total) for m, s in strengths.items()}
    return labels, scores


def _rank(labels, scores, measure, seed=1):
    return rank_scores(labels, scores[measure], ties="random", seed=seed, measure=measure)


@pytest.fixture(scope="module")
def small():
    """5,000 candidates, four measures: rankings, curves (with 95% Clopper-Pearson bounds), G2 vs X2."""
    labels, scores = _candidates(5_000, {"G2": 1.6, "t": 1.5, "X2": 1.0, "f": 0.5})
    rankings = {m: _rank(labels, scores, m) for m in scores}
    curves = {m: precision_curve(r) for m, r in rankings.items()}
    comparison = compare_rankings(rankings["G2"], rankings["X2"])
    return dict(labels=labels, scores=scores, rankings=rankings, curves=curves, comparison=comparison,
                baseline=labels.mean())


@pytest.fixture(scope="module")
def big():
    """1,000,000 candidates, three measures, every n: the size the figures must stay small at."""
    labels, scores = _candidates(BIG, {"G2": 1.2, "X2": 1.0, "t": 1.1}, seed=11)
    rankings = {m: _rank(labels, scores, m) for m in scores}
    curves = {m: precision_curve(r) for m, r in rankings.items()}
    comparison = compare_rankings(rankings["G2"], rankings["X2"])
    return dict(labels=labels, scores=scores, curves=curves, comparison=comparison, baseline=labels.mean())


def _at(table: pd.DataFrame, n: np.ndarray, column: str) -> np.ndarray:
    """`column` of a single-measure table at list sizes `n`."""
    return table.set_index("n").loc[np.asarray(n), column].to_numpy()


def _trace(fig: go.Figure, name: str):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, f"expected one trace named {name!r}; have {[t.name for t in fig.data]}"
    return found[0]


# ------------------------------------------------------------------------------------------ downsample

def test_downsample_returns_every_index_of_a_short_curve():
    x = np.arange(50)
    np.testing.assert_array_equal(downsample(x, np.sin(x), max_points=100), x)


@given(n_points=st.integers(1, 3000), max_points=st.integers(6, 400), n_keep=st.integers(0, 60),
       seed=st.integers(0, 2**16), ties_in_x=st.booleans())
def test_downsample_keeps_ends_envelope_and_every_kept_point(n_points, max_points, n_keep, seed, ties_in_x):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.integers(0, n_points // 3 + 1, n_points)) if ties_in_x else np.arange(n_points) + 100
    y1 = np.cumsum(rng.normal(size=n_points))
    y2 = rng.standard_cauchy(n_points)  # spikes
    keep = np.zeros(n_points, dtype=bool)
    keep[rng.integers(0, n_points, n_keep)] = True
    idx = downsample(x, y1, y2, max_points=max_points, keep=keep)
    assert idx.dtype == np.int64
    assert np.all(np.diff(idx) > 0)  # sorted and unique
    assert idx.size <= max(max_points, keep.sum() + max(max_points // 2, 6))
    assert idx[0] == 0 and idx[-1] == n_points - 1
    assert set(np.flatnonzero(keep)) <= set(idx.tolist())
    for y in (y1, y2):
        assert y[idx].min() == y.min() and y[idx].max() == y.max()


def test_downsample_keeps_a_confidence_band_shape_at_a_million_points(big):
    curve = big["curves"]["G2"]
    n = curve["n"].to_numpy()
    lower, upper = curve["lower"].to_numpy(), curve["upper"].to_numpy()
    idx = downsample(n, lower, upper, max_points=2000)
    assert idx.size <= 2000
    for y in (lower, upper):
        assert np.nanmin(y[idx]) == np.nanmin(y) and np.nanmax(y[idx]) == np.nanmax(y)
        # past the first 1% of n (a single pixel column, where the band is steep), the drawn
        # polyline stays within 0.5% of the band's range of the full one
        drawn = np.interp(n, n[idx], y[idx])
        past = n > BIG // 100
        assert np.max(np.abs(drawn - y)[past]) < 0.005 * (y.max() - y.min())


def test_downsample_keeps_every_marker_even_beyond_the_budget():
    rng = np.random.default_rng(3)
    x = np.arange(BIG)
    keep = np.zeros(BIG, dtype=bool)
    keep[rng.choice(BIG, 5_000, replace=False)] = True
    idx = downsample(x, rng.random(BIG), max_points=2000, keep=keep)
    assert np.isin(np.flatnonzero(keep), idx).all()
    assert 5_000 < idx.size <= 1000 + 5_000  # the rest keeps half the budget


def test_downsample_with_every_x_equal_and_nan_in_y():
    x = np.zeros(10_000)
    y = np.random.default_rng(0).normal(size=10_000)
    y[:100] = np.nan  # recall is NaN where a set has no TPs
    idx = downsample(x, y, max_points=100)
    assert idx.size <= 100 and np.nanmax(y[idx]) == np.nanmax(y) and np.nanmin(y[idx]) == np.nanmin(y)


@pytest.mark.parametrize("call, message", [
    (lambda: downsample(np.arange(5000)[::-1], max_points=100), "sorted"),
    (lambda: downsample(np.arange(5000), np.zeros(4), max_points=100), "match"),
    (lambda: downsample(np.arange(5000), np.zeros(5000), max_points=3), "at least 4"),
    (lambda: downsample(np.arange(5000), keep=np.zeros(5000, int)), "boolean mask"),
    (lambda: downsample(np.arange(5000), keep=np.zeros(10, bool)), "boolean mask"),
])
def test_downsample_rejects_bad_input_naming_it(call, message):
    with pytest.raises(ParameterError, match=message):
        call()


# ------------------------------------------------------------------------------------------ styles

def test_palette_and_dashes_are_ten_distinct_styles():
    assert len(PALETTE) == len(set(PALETTE)) == 10
    assert all(re.fullmatch(r"#[0-9A-F]{6}", c) for c in PALETTE)
    assert len(DASHES) == len(set(DASHES)) == 10
    assert style(0) == (PALETTE[0], "solid")
    assert len({style(i) for i in range(100)}) == 100  # pairs do not repeat before 100
    with pytest.raises(ParameterError, match="`i`"):
        style(-1)


# ------------------------------------------------------------------------------------------ Figure 1

def test_precision_figure_draws_one_line_per_measure_and_the_baseline(small):
    curves = pd.concat(small["curves"].values(), ignore_index=True)
    fig = precision_figure(curves, baseline=small["baseline"])
    names = [t.name for t in fig.data]
    assert names == ["G2", "t", "X2", "f", f"baseline {100 * small['baseline']:.2f}%"]
    for i, measure in enumerate(["G2", "t", "X2", "f"]):
        trace = fig.data[i]
        assert trace.type == "scatter" and trace.mode == "lines"
        assert (trace.line.color, trace.line.dash) == style(i)
        assert len(trace.x) <= 2000
        table = small["curves"][measure]
        np.testing.assert_allclose(trace.y, 100 * _at(table, trace.x, "precision"), rtol=1e-6)
        np.testing.assert_array_equal(trace.customdata, _at(table, trace.x, "tp"))
        assert "%{y:.2f}%" in trace.hovertemplate and measure in trace.hovertemplate  # as the tables: 11.09%
        assert "TPs" in trace.hovertemplate
    base = fig.data[-1]
    np.testing.assert_allclose(base.y, [100 * small["baseline"]] * 2)
    assert base.line.dash == "dash"
    assert fig.layout.xaxis.title.text == "n-best list size n"
    assert fig.layout.yaxis.title.text == "precision (%)"
    assert fig.layout.font.size == 14


def test_precision_figure_n_range_cuts_before_downsampling(small):
    fig = precision_figure(small["curves"]["G2"], baseline=small["baseline"], n_range=(100, 2000))
    line = fig.data[0]
    np.testing.assert_array_equal(line.x, np.arange(100, 2001))  # 1,901 <= max_points: every n kept
    assert tuple(fig.layout.xaxis.range) == (100, 2000)
    np.testing.assert_allclose(fig.data[1].x, [100, 2000])  # the baseline spans the range
    with pytest.raises(ParameterError, match="n_range"):
        precision_figure(small["curves"]["G2"], baseline=0.1, n_range=(6000, 7000))


def test_precision_figure_recall_and_f_panels(small):
    curves = pd.concat([small["curves"]["G2"], small["curves"]["X2"]])
    fig = precision_figure(curves, baseline=small["baseline"], show_recall=True, show_f=True)
    assert [t.name for t in fig.data] == ["G2"] * 3 + ["X2"] * 3 + [f"baseline {100 * small['baseline']:.2f}%"]
    assert [t.showlegend for t in fig.data[:3]] == [True, False, False]
    assert [fig.data[i].yaxis for i in range(3)] == ["y", "y2", "y3"]
    assert fig.layout.yaxis2.title.text == "recall (%)" and fig.layout.yaxis3.title.text == "F1 (%)"
    recall, f1 = fig.data[1], fig.data[2]
    table = small["curves"]["G2"]
    np.testing.assert_allclose(recall.y, 100 * _at(table, recall.x, "recall"), rtol=1e-6)
    np.testing.assert_allclose(f1.y, 100 * _at(table, f1.x, "f_beta"), rtol=1e-6)
    assert fig.layout.xaxis3.title.text == "n-best list size n"


def test_precision_figure_keeps_a_measure_style_across_figures(small):
    fig = precision_figure(small["curves"]["X2"], baseline=0.1, measure_styles={"G2": 0, "X2": 2})
    assert (fig.data[0].line.color, fig.data[0].line.dash) == style(2)
    with pytest.raises(ParameterError, match="measure_styles"):
        precision_figure(small["curves"]["t"], baseline=0.1, measure_styles={"G2": 0})


def test_precision_figure_names_missing_columns(small):
    with pytest.raises(ColumnError, match="precision"):
        precision_figure(small["curves"]["G2"].drop(columns="precision"), baseline=0.1)
    with pytest.raises(ParameterError, match="metric"):
        precision_figure(small["curves"]["G2"], baseline=0.1, metric="accuracy")


# ------------------------------------------------------------------------------------------ Figure 2

def test_confidence_figure_band_traces_carry_the_bounds(small):
    curves = pd.concat([small["curves"]["G2"], small["curves"]["X2"]])
    fig = confidence_figure(curves, baseline=small["baseline"], level=0.95, method_label="Clopper-Pearson")
    assert len(fig.data) == 2 * 3 + 1
    for k, measure in enumerate(["G2", "X2"]):
        low, high, line = fig.data[3 * k: 3 * k + 3]
        table = small["curves"][measure]
        np.testing.assert_allclose(low.y, 100 * _at(table, low.x, "lower"), rtol=1e-6)
        np.testing.assert_allclose(high.y, 100 * _at(table, high.x, "upper"), rtol=1e-6)
        assert high.fill == "tonexty" and low.fill is None  # the band fills down to the lower bound
        assert high.name == f"{measure}: 95% Clopper-Pearson" and low.showlegend is False
        assert high.fillcolor.startswith("rgba(") and high.fillcolor.endswith(",0.2)")
        assert line.name == measure
        np.testing.assert_allclose(line.y, 100 * _at(table, line.x, "precision"), rtol=1e-6)
        np.testing.assert_allclose(line.customdata[:, 1], 100 * _at(table, line.x, "lower"), rtol=1e-6)
        np.testing.assert_allclose(line.customdata[:, 2], 100 * _at(table, line.x, "upper"), rtol=1e-6)
        assert np.all(high.y >= low.y)


def test_confidence_figure_refuses_more_than_three_bands_and_curves_without_bounds(small):
    with pytest.raises(ParameterError, match="at most 3"):
        confidence_figure(pd.concat(small["curves"].values()), baseline=0.1, level=0.95, method_label="Wilson")
    without = precision_curve(small["rankings"]["G2"], confidence_level=None)
    with pytest.raises(ColumnError, match="lower, upper"):
        confidence_figure(without, baseline=0.1, level=0.95, method_label="Wilson")
    with pytest.raises(ParameterError, match="level"):
        confidence_figure(small["curves"]["G2"], baseline=0.1, level=95, method_label="Wilson")


# ------------------------------------------------------------------------------------------ Figure 3

def _markers(fig: go.Figure):
    return _trace(fig, "significant (p < 0.05)")


def rug_runs(fig: go.Figure) -> list[tuple[float, float]]:
    """The bars of the rug "every significant n": (first - 0.5, last + 0.5) per run."""
    x = np.asarray(_trace(fig, "every significant n (p < 0.05)").x, dtype=np.float64)
    assert np.isnan(x[2::3]).all()
    return list(zip(x[0::3], x[1::3]))


def rug_covers(fig: go.Figure, n: np.ndarray) -> np.ndarray:
    """Which of the tested `n` lie under a bar of the rug."""
    covered = np.zeros(n.size, dtype=bool)
    for lo, hi in rug_runs(fig):
        covered |= (n > lo) & (n < hi)
    return covered


def test_significance_figure_marks_every_scattered_significant_n_at_a_million(big):
    """5,000 significant n scattered over 1,000,000 (a real comparison table, its
    `significant` column replaced): with every triangle drawn (max_triangles=None) each one is
    marked, each line keeps ~2,000 vertices plus the marked n, and the rug has a bar at each."""
    comparison = big["comparison"].copy()
    rng = np.random.default_rng(17)
    chosen = rng.choice(BIG, 5_000, replace=False)
    significant = np.zeros(BIG, dtype=bool)
    significant[chosen] = True
    comparison["significant"] = significant
    fig = significance_figure(big["curves"]["G2"], big["curves"]["X2"], comparison, up_to=0, alpha=0.05,
                              max_triangles=None)
    markers = _markers(fig)
    assert markers.marker.symbol == "triangle-up"
    expected_n = np.sort(comparison["n"].to_numpy()[chosen])
    np.testing.assert_array_equal(markers.x, expected_n)
    better = np.maximum(comparison["tp_a"], comparison["tp_b"]).to_numpy()[np.sort(chosen)]
    np.testing.assert_allclose(markers.y, 100 * better / expected_n, rtol=1e-6)  # on the better curve
    for name in ("G2", "X2"):
        line = _trace(fig, name)
        assert len(line.x) <= 1000 + 5_000  # kept points and half the budget
        assert np.isin(expected_n, line.x).all()  # a vertex under every marker
    assert len(fig.layout.shapes) == 0  # up_to = 0: no vertical line
    n = comparison["n"].to_numpy()
    np.testing.assert_array_equal(rug_covers(fig, n), significant)  # every significant n, nothing else


def test_significance_figure_on_a_real_million_point_comparison(big):
    """Issue 10: hundreds of thousands of significant n. The triangles are thinned so that
    neighbours stay at least 1/80 of the range apart (readable at any zoom), while the rug
    marks every significant n exactly, run by run."""
    comparison = big["comparison"]
    significant = comparison["significant"].to_numpy()
    n = comparison["n"].to_numpy()
    assert significant.sum() > 2000
    fig = significance_figure(big["curves"]["G2"], big["curves"]["X2"], comparison,
                              up_to=significant_up_to(comparison), alpha=0.05)
    marked = np.asarray(_markers(fig).x)
    assert np.isin(marked, n[significant]).all()  # only significant n
    assert 0 < marked.size <= 80
    assert (np.diff(marked) >= (n.max() - n.min()) / 80 / 2).all()  # no two triangles in one slice's reach
    for name in ("G2", "X2"):
        assert np.isin(marked, _trace(fig, name).x).all()  # each triangle sits on a vertex
    np.testing.assert_array_equal(rug_covers(fig, n), significant)
    assert fig.data[-1].name == "significant (p < 0.05)"  # triangles on top of everything
    every = significance_figure(big["curves"]["G2"], big["curves"]["X2"], comparison, up_to=0, alpha=0.05,
                                max_triangles=None, show_bands=False)
    np.testing.assert_array_equal(_markers(every).x, n[significant])


def test_significance_figure_bands_baseline_and_trace_order(small):
    a, b, comparison = small["curves"]["G2"], small["curves"]["X2"], small["comparison"]
    fig = significance_figure(a, b, comparison, up_to=significant_up_to(comparison), alpha=0.05)
    names = [t.name for t in fig.data]
    assert names[:4] == ["G2: confidence band (lower)", "G2: confidence band",
                         "X2: confidence band (lower)", "X2: confidence band"]
    assert f"baseline {100 * small['baseline']:.2f}%" in names
    high = fig.data[1]
    np.testing.assert_allclose(high.y, 100 * _at(a, high.x, "upper"), rtol=1e-6)
    assert high.fillcolor.endswith(",0.12)")  # lighter than in the confidence figure
    plain = significance_figure(a, b, comparison, up_to=0, alpha=0.05, show_bands=False)
    assert not any("band" in t.name for t in plain.data)
    sparse = compare_rankings(small["rankings"]["G2"], small["rankings"]["X2"], np.arange(100, 2001, 50))
    on_top = significance_figure(a, b, sparse, up_to=0, alpha=0.05)
    assert on_top.data[-1].name == "significant (p < 0.05)"  # the triangles are drawn over the lines
    np.testing.assert_array_equal(_markers(on_top).x, sparse["n"][sparse["significant"]])  # 39 n: all marked
    np.testing.assert_array_equal(rug_covers(on_top, sparse["n"].to_numpy()), sparse["significant"])


def test_significance_figure_vertical_line_at_up_to(small):
    comparison = compare_rankings(small["rankings"]["G2"], small["rankings"]["X2"], np.arange(100, 2001))
    up_to = significant_up_to(comparison)
    assert up_to > 0
    fig = significance_figure(small["curves"]["G2"], small["curves"]["X2"], comparison, up_to=up_to, alpha=0.05)
    (line,) = fig.layout.shapes
    assert line.type == "line" and line.x0 == line.x1 == up_to
    assert fig.layout.annotations[0].text == f"significant up to n = {up_to:,}"
    assert fig.layout.annotations[0].x == up_to


def test_significance_figure_hover_text_uses_log10_p_where_p_underflows():
    """A perfect ranking against the reversed one: at n = T the difference regions are all TPs
    against all FPs, and p underflows to 0 (Fisher's log10 p is still exact)."""
    rng = np.random.default_rng(0)
    labels = np.zeros(20_000, dtype=bool)
    labels[:3_000] = True
    score = labels + rng.random(labels.size) * 0.5
    good = rank_scores(labels, score, measure="perfect", ties="stable")
    bad = rank_scores(labels, -score, measure="reversed", ties="stable")
    sizes = np.array([3, 30, 3_000])
    comparison = compare_rankings(good, bad, sizes)
    assert comparison["p_value"].iloc[-1] == 0.0 and np.isfinite(comparison["log10_p"].iloc[-1])
    fig = significance_figure(precision_curve(good, sizes), precision_curve(bad, sizes), comparison,
                              up_to=significant_up_to(comparison), alpha=0.05)
    text = list(_markers(fig).text)
    p_small, log_zero = comparison["p_value"].iloc[1], comparison["log10_p"].iloc[-1]
    assert text[-2] == f"p = {p_small:.1e}" and re.fullmatch(r"p = \d\.\de-\d\d", text[-2])
    assert text[-1] == f"p < 1e-300 (log10 p = {log_zero:.1f})"
    assert "%{text}" in _markers(fig).hovertemplate and "%{x:,}" in _markers(fig).hovertemplate


def test_significance_figure_markers_on_the_axis_row(small):
    fig = significance_figure(small["curves"]["G2"], small["curves"]["X2"], small["comparison"], up_to=0,
                              alpha=0.05, markers_at="axis")
    assert set(np.asarray(_markers(fig).y).tolist()) == {0.5}
    with pytest.raises(ParameterError, match="markers_at"):
        significance_figure(small["curves"]["G2"], small["curves"]["X2"], small["comparison"], up_to=0,
                            alpha=0.05, markers_at="top")


def test_significance_figure_wants_one_measure_per_curve(small):
    both = pd.concat([small["curves"]["G2"], small["curves"]["X2"]])
    with pytest.raises(ParameterError, match="one measure"):
        significance_figure(both, small["curves"]["X2"], small["comparison"], up_to=0, alpha=0.05)
    with pytest.raises(ColumnError, match="significant"):
        significance_figure(small["curves"]["G2"], small["curves"]["X2"],
                            small["comparison"].drop(columns="significant"), up_to=0, alpha=0.05)


# ------------------------------------------------------------------------------------------ p-values

def test_pvalue_figure(small):
    comparison = small["comparison"]
    fig = pvalue_figure(comparison, alpha=0.05)
    (line,) = fig.data
    np.testing.assert_allclose(line.y, -_at(comparison, line.x, "log10_p"), rtol=1e-6, atol=1e-6)
    (threshold,) = fig.layout.shapes
    assert threshold.y0 == threshold.y1 == pytest.approx(-np.log10(0.05))


# ------------------------------------------------------------------------------------------ histogram

def test_threshold_histogram_counts_every_finite_score_per_class(small):
    labels = small["labels"]
    scores = small["scores"]["G2"].copy()
    scores[:7] = np.nan
    scores[7:9] = np.inf
    fig = threshold_histogram(scores, labels, gamma=1.5, measure="G2", bins=40)
    fp, tp = fig.data
    assert fp.type == tp.type == "bar" and fig.layout.barmode == "overlay"
    assert tp.opacity == fp.opacity == 0.6
    finite = np.isfinite(scores)
    assert np.sum(tp.y) == np.sum(finite & labels) and np.sum(fp.y) == np.sum(finite & ~labels)
    assert len(tp.x) == len(fp.x) == 40
    np.testing.assert_array_equal(tp.x, fp.x)  # shared bin edges
    n_out_tp, n_out_fp = np.sum(~finite & labels), np.sum(~finite & ~labels)
    assert tp.name.startswith(f"TP ({np.sum(finite & labels):,}")
    if n_out_fp:
        assert f"{n_out_fp:,} non-finite not shown" in fp.name
    if n_out_tp:
        assert f"{n_out_tp:,} non-finite not shown" in tp.name
    (line,) = fig.layout.shapes
    assert line.x0 == line.x1 == 1.5
    assert fig.layout.annotations[0].text.startswith("γ = 1.5")


def test_threshold_histogram_score_range_and_bad_input(small):
    labels, scores = small["labels"], small["scores"]["G2"]
    fig = threshold_histogram(scores, labels, gamma=0.0, measure="G2", score_range=(-1, 1), higher_is_better=False)
    inside = (scores >= -1) & (scores <= 1)
    assert sum(np.sum(t.y) for t in fig.data) == inside.sum()
    assert "outside the range" in fig.data[0].name
    assert "← accepted" in fig.layout.annotations[0].text
    with pytest.raises(ParameterError, match="no finite"):
        threshold_histogram(np.full(10, np.nan), np.ones(10, bool), gamma=0, measure="G2")
    with pytest.raises(ParameterError, match="boolean"):
        threshold_histogram(scores, labels.astype(int), gamma=0, measure="G2")


# ------------------------------------------------------------------------------------------ payload

def test_every_figure_stays_small_at_a_million_candidates(big):
    curves = big["curves"]
    comparison = big["comparison"]
    built = {
        "precision": precision_figure(pd.concat(curves.values()), baseline=big["baseline"]),
        "precision, recall, F": precision_figure(pd.concat(curves.values()), baseline=big["baseline"],
                                                 show_recall=True, show_f=True),
        "confidence": confidence_figure(pd.concat(curves.values()), baseline=big["baseline"], level=0.95,
                                        method_label="Clopper-Pearson"),
        "significance": significance_figure(curves["G2"], curves["X2"], comparison,
                                            up_to=significant_up_to(comparison), alpha=0.05),
        "p-values": pvalue_figure(comparison, alpha=0.05),
        "histogram": threshold_histogram(big["scores"]["G2"], big["labels"], gamma=1.0, measure="G2"),
    }
    sizes = {name: len(fig.to_json()) for name, fig in built.items()}
    assert all(size < PAYLOAD_LIMIT for size in sizes.values()), sizes
    for fig in built.values():
        assert all(t.type in ("scatter", "bar") for t in fig.data)  # never scattergl


def test_figures_module_does_not_import_streamlit():
    source = open(figures.__file__, encoding="utf-8").read()
    assert "import streamlit" not in source and "Scattergl" not in source


# ------------------------------------------------------------------------------------------ the paper

def test_figures_1_and_3_on_krenns_data_carry_the_papers_labels(krenn_tsv):
    """Evert (2004): baseline 11.09% (§1, Figure 1); G2 vs X2 significant for every n up to
    1,268 when every n from 100 is tested (tests/test_paper.py)."""
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    krenn = load_candidates(krenn_tsv, label="is.colloc")
    g2, x2 = rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable")
    curve_g2, curve_x2 = precision_curve(g2), precision_curve(x2)
    fig1 = precision_figure(pd.concat([curve_g2, curve_x2]), baseline=krenn.baseline, n_range=(100, 2000))
    assert fig1.data[-1].name == "baseline 11.09%"
    comparison = compare_rankings(g2, x2, np.arange(100, 2001))
    fig3 = significance_figure(curve_g2, curve_x2, comparison, up_to=significant_up_to(comparison), alpha=0.05,
                               n_range=(100, 2000))
    assert fig3.layout.shapes[0].x0 == 1268
    assert fig3.layout.annotations[0].text == "significant up to n = 1,268"
    n = comparison["n"].to_numpy()
    assert rug_runs(fig3)[0] == (99.5, 1268.5) and rug_covers(fig3, n)[n <= 1268].all()  # every n up to 1,268
    assert np.isin(_markers(fig3).x, n[comparison["significant"]]).all() and len(_markers(fig3).x) <= 80


# ------------------------------------------------------------------------------------------ export

def test_export_html_is_self_contained(small):
    fig = precision_figure(small["curves"]["G2"], baseline=small["baseline"])
    html = figure_style.export(fig, "html")
    assert b"<html>" in html[:100] and b"plotly.js" in html and len(html) > 1_000_000  # plotly.js inside
    with pytest.raises(ParameterError, match="fmt"):
        figure_style.export(fig, "gif")


def test_export_png_and_svg_with_kaleido_and_debians_chromium(small):
    # kaleido is pinned in requirements.txt and drives /usr/bin/chromium, which ./dev test installs
    fig = confidence_figure(small["curves"]["G2"], baseline=small["baseline"], level=0.95,
                            method_label="Clopper-Pearson")
    png = figure_style.export(fig, "png", width=400, height=300, scale=1)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == 400 and int.from_bytes(png[20:24], "big") == 300
    svg = figure_style.export(fig, "svg", width=400, height=300, scale=1)
    assert svg.lstrip().startswith(b"<svg") and b"G2" in svg
