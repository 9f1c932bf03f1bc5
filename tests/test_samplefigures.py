"""Figures of experiments with several samples, tested through their data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore import uir
from evalcore.figures import samples as samplefigures
from evalcore.errors import ParameterError
from evalcore.stats.intervals import binomial_interval
from evalcore.samples import Cut
from evalcore.validate import validation_from_table


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(4)
    size = rng.integers(80, 120, size=80)
    tp = rng.binomial(size, 0.4)
    ci = binomial_interval(tp, size, 0.95)
    table = pd.DataFrame({"sample": [f"s{i:02d}" for i in range(80)], "N": 2000, "TPs": 200, "size": size, "tp": tp,
                          "precision": tp / size, "recall": tp / 200, "lower": ci.low, "upper": ci.high})
    return validation_from_table(table, "G2", Cut("gamma", 32.5), 0.95)


def test_histogram_is_a_density_with_the_model_curve(result):
    fig = samplefigures.validation_histogram(result)
    bars, model, mean = fig.data
    widths = np.asarray(bars.width, dtype=float)
    assert np.sum(np.asarray(bars.y) * widths) == pytest.approx(1.0)  # a density over percent
    assert bars.marker.line.width >= 1 and bars.marker.line.color  # outlined bars (issue 10)
    assert np.asarray(bars.customdata).sum() == 80
    x, y = np.asarray(model.x, dtype=float), np.asarray(model.y, dtype=float)
    assert np.trapezoid(y, x) == pytest.approx(1.0, abs=0.01)  # the curve covers +-3 sd and more
    assert x[np.argmax(y)] == pytest.approx(100 * result.mean_precision, abs=0.2)
    assert f"σ = {100 * result.sd_predicted:.2f}%" in model.name
    assert np.allclose(np.asarray(mean.x, dtype=float), 100 * result.mean_precision)


def test_qq_points_and_identity_line(result):
    fig = samplefigures.qq_figure(result)
    points = fig.data[0]
    np.testing.assert_allclose(np.asarray(points.y, dtype=float), 100 * np.sort(result.table["precision"]), rtol=1e-6)
    assert np.all(np.diff(np.asarray(points.x, dtype=float)) > 0)
    assert fig.data[1].x == fig.data[1].y


def test_coverage_figure_splits_hits_and_misses(result):
    fig = samplefigures.coverage_figure(result)
    hits, misses = fig.data
    assert len(hits.x) + len(misses.x) == 80 and len(misses.x) == result.misses
    assert f"({result.misses} of 80)" in misses.name
    # every miss's error bar really misses the mean
    y = np.asarray(misses.y, dtype=float)
    low = y - np.asarray(misses.error_y.arrayminus, dtype=float)
    high = y + np.asarray(misses.error_y.array, dtype=float)
    pi = 100 * result.mean_precision
    assert np.all((high < pi + 1e-4) | (low > pi - 1e-4))


def test_differences_figure():
    table = pd.DataFrame({"sample": ["a", "b", "c"], "difference": [0.02, -0.01, 0.0]})
    fig = samplefigures.differences_figure(table, a="G2", b="X2", estimate=0.00333, low=-0.03, high=0.04,
                                           confidence_level=0.95)
    np.testing.assert_allclose(np.asarray(fig.data[0].y, dtype=float), [2, -1, 0], rtol=1e-6)
    assert list(fig.data[0].marker.color) == ["#0072B2", "#D55E00", "#7F7F7F"]
    assert "G2 − X2" in fig.layout.yaxis.title.text


def test_f_sweep_figure_marks_the_flip():
    p_a, r_a, p_b, r_b = [0.8] * 3, [0.2] * 3, [0.4] * 3, [0.4] * 3
    sweep = uir.f_alpha_sweep(p_a, r_a, p_b, r_b)
    flips = uir.sweep_flips(sweep)
    fig = samplefigures.f_sweep_figure(sweep, flips, a="A", b="B")
    assert [t.name for t in fig.data] == ["A", "B"]
    assert len(fig.layout.shapes) == 1 and fig.layout.shapes[0].x0 == pytest.approx(2 / 3)


def test_uir_heatmap():
    m = pd.DataFrame([[0, 0.5, -0.1], [-0.5, 0, 0.25], [0.1, -0.25, 0]], index=list("abc"), columns=list("abc"))
    fig = samplefigures.uir_heatmap(m, threshold=0.25)
    heat = fig.data[0]
    np.testing.assert_array_equal(np.asarray(heat.z), m.to_numpy())
    assert heat.text[0][1] == "+0.50 *" and heat.text[0][2] == "-0.10" and heat.text[1][2] == "+0.25 *"
    assert heat.text[0][0] == ""
    with pytest.raises(ParameterError, match="square"):
        samplefigures.uir_heatmap(m.iloc[:2], threshold=0.25)
