"""Figures of paper quality (issue 18, item 9), through their layout: legends outside the plotting area, confidence
bands of a print figure told apart in greyscale, every major tick of a print figure labelled and inside the figure,
the legend's rows added to a print figure's height instead of taken from its plot. tests/browser/
test_browser_figures.py draws the same figures in Chromium and measures them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from evalcore.figures.style import (LEGENDS, PRINT_BAND_FILLS, PRINT_FONT, _has_legend, _text_px, nice_ticks,
                                    print_size, print_style, tick_labels)
from figure_gallery import N_RANGE, REPORT_STYLES, band_pairs, print_figures, screen_figures

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def screen():
    return screen_figures()


@pytest.fixture(scope="module")
def printed():
    return print_figures()


def _outside(legend) -> bool:
    """A legend box anchored outside the [0, 1] paper domain of the plotting area: to its right or above it."""
    right = legend.x is not None and legend.x > 1 and legend.xanchor == "left"
    above = legend.y is not None and legend.y >= 1 and legend.yanchor == "bottom"
    return right or above


def test_every_legend_lies_outside_the_plotting_area(screen, printed):
    with_legend = 0
    for name, fig in {**screen, **{f"print {k}": f for k, f in printed.items()}}.items():
        if not _has_legend(fig):
            continue
        with_legend += 1
        assert _outside(fig.layout.legend), f"{name}: the legend is drawn over the plot ({fig.layout.legend})"
    assert with_legend >= 12  # every figure but the heatmaps, the p-value curve and the per-sample bars


def test_screen_legends_beside_the_plot_leave_it_the_same_width(screen):
    # Figure 3 and the difference panel under it: legends on the right in equal margins, so their n axes line up
    for name in ("significance", "difference", "precision", "confidence", "roc"):
        legend = screen[name].layout.legend
        assert (legend.x, legend.xanchor, legend.orientation) == (LEGENDS["right"]["x"], "left", "v")
    assert screen["significance"].layout.margin.r == screen["difference"].layout.margin.r >= 200
    assert screen["pvalue"].layout.margin.r < 100  # no legend: no empty margin


def test_print_bands_differ_in_greyscale(printed):
    """The report's pair G2 and X2 has style indices 0 and 2 (REPORT_STYLES): on main both bands got the same grey,
    rgba(0,0,0,0.1), and read as one band on paper."""
    for name in ("confidence", "significance"):
        fig = printed[name]
        bands = band_pairs(fig)
        assert len(bands) == 2
        looks = [(upper.fillcolor, upper.fillpattern.shape or "") for _, upper in bands]
        assert looks[0] != looks[1] and looks == [(f["fillcolor"], f.get("fillpattern", {}).get("shape", ""))
                                                  for f in PRINT_BAND_FILLS[:2]]
        assert looks[0][1] == "" and looks[1][1] == "/"  # a light grey, then a hatching
        # each band's edges are drawn, in the dash of its measure's line
        lines = {t.legendgroup: t for t in fig.data if t.mode == "lines+markers" and t.legendgroup in ("G2", "X2")}
        for lower, upper in bands:
            measure = upper.legendgroup
            assert lower.line.width == upper.line.width > 0
            assert lower.line.dash == upper.line.dash == lines[measure].line.dash == print_style(
                REPORT_STYLES[measure])[1]
        assert bands[0][1].line.dash != bands[1][1].line.dash


def _greys(colour: str) -> float:
    """The darkness an rgba black of alpha a gives on white paper: a."""
    return float(colour.rsplit(",", 1)[1].rstrip(")"))


def test_print_band_fills_are_distinct_grey_levels_or_hatchings():
    looks = {(f["fillcolor"], f.get("fillpattern", {}).get("shape")) for f in PRINT_BAND_FILLS}
    assert len(looks) == len(PRINT_BAND_FILLS) == 3
    assert _greys(PRINT_BAND_FILLS[0]["fillcolor"]) >= 2 * _greys(PRINT_BAND_FILLS[1]["fillcolor"])


def _axes(fig):
    return [key for key in fig.layout.to_plotly_json() if key.startswith(("xaxis", "yaxis"))]


def test_print_axes_label_every_major_tick_across_the_range(printed):
    for name, fig in printed.items():
        for axis_name in _axes(fig):
            axis = fig.layout[axis_name]
            lo, hi = axis.range
            ticks = np.asarray(axis.tickvals, dtype=float)
            assert axis.tickmode == "array" and len(ticks) >= 3, f"{name} {axis_name}"
            assert list(axis.ticktext) == tick_labels(ticks)  # every tick has its label
            np.testing.assert_allclose(ticks, nice_ticks(lo, hi, 4 if axis_name.startswith("x") else 5))
            step = ticks[1] - ticks[0]
            assert lo <= ticks[0] < lo + step and hi - step < ticks[-1] <= hi  # the ticks cover the range
        x = fig.layout.xaxis
        assert tuple(x.range) == N_RANGE and list(x.ticktext) == ["500", "1,000", "1,500", "2,000"]
        # the label at the end of the range fits inside the figure (plotly hid "2,000" beyond its edge on main)
        assert fig.layout.margin.r >= _text_px("2,000", PRINT_FONT["size"] - 1) / 2


def test_print_legend_rows_add_to_the_height_and_leave_the_plot_its_size(printed):
    width, height = print_size()
    plot_height = height - 4 - 34  # the print margins above and below the plot without a legend
    for name, fig in printed.items():
        legend = fig.layout.legend
        assert legend.orientation == "h" and legend.y == 1.0 and legend.yanchor == "bottom"  # above the plot
        assert fig.layout.width == width
        assert fig.layout.height - fig.layout.margin.t - fig.layout.margin.b == plot_height
        legend_px = fig.layout.margin.t - 4
        assert legend_px <= 0.25 * fig.layout.height, f"{name}: the legend takes {legend_px} of {fig.layout.height}"
    # Figure 3 in print: two measures, the baseline, the triangles and the rug in two rows
    assert printed["significance"].layout.margin.t - 4 == 2 * 19 + 18


def test_nice_ticks_are_round_and_cover_any_range():
    rng = np.random.default_rng(3)
    for _ in range(500):
        lo = float(rng.uniform(-1e4, 1e4)) * 10.0 ** rng.integers(-4, 4)
        hi = lo + float(rng.uniform(1e-3, 1e5)) * 10.0 ** rng.integers(-3, 3)
        target = int(rng.integers(3, 9))
        ticks = nice_ticks(lo, hi, target)
        step = ticks[1] - ticks[0]
        mantissa = step / 10.0 ** np.floor(np.log10(step))
        assert any(np.isclose(mantissa, m) for m in (1, 2, 2.5, 5, 10))
        assert lo - 1e-9 * abs(hi - lo) <= ticks[0] < lo + step and hi - step < ticks[-1] <= hi + 1e-9 * abs(hi - lo)
        assert 2 <= len(ticks) <= target + 2
        np.testing.assert_allclose(np.diff(ticks), step, rtol=1e-6)
    assert tick_labels([-5000, 0, 5000]) == ["\u22125,000", "0", "5,000"]
    assert tick_labels([0.0, 0.25, 0.5]) == ["0.00", "0.25", "0.50"]


# ---------------------------------------------------------------------------------------------- downloads

PAGE_FILES = sorted((REPO / "pages").glob("*.py")) + [REPO / "evalcore_app" / "sample_pages.py"]


def _call(node, owner, name: str):
    """The call ``owner.name(...)`` that the statement ``node`` is (any owner when ``owner`` is None), or None."""
    value = node.value if isinstance(node, ast.Expr) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == name \
            and isinstance(value.func.value, ast.Name) and owner in (None, value.func.value.id):
        return value
    return None


def _first_arg(call) -> str:
    return ast.unparse(call.args[0])


def test_every_download_follows_its_chart_directly():
    """Issue 18: Figure 3's downloads sat far below it (after the 2x2 view, the members and the effect table). In
    every page, the download buttons of a figure are the statement right after its ``st.plotly_chart`` or
    ``plot.chart`` (or the
    first inside an ``if`` there); the AppTest and Chromium tests check what is drawn."""
    pairs = 0
    for path in PAGE_FILES:
        tree = ast.parse(path.read_text())
        downloaded = {_first_arg(c) for c in ast.walk(tree) if isinstance(c, ast.Call)
                      and isinstance(c.func, ast.Attribute) and c.func.attr == "downloads"}
        for block in ast.walk(tree):
            for field in ("body", "orelse"):
                statements = getattr(block, field, None)
                if not isinstance(statements, list):
                    continue
                for i, statement in enumerate(statements):
                    chart = _call(statement, "st", "plotly_chart") or _call(statement, "plot", "chart")  # (drawn in place)
                    if chart is None or _first_arg(chart) not in downloaded:
                        continue
                    following = statements[i + 1] if i + 1 < len(statements) else None
                    if isinstance(following, ast.If):
                        following = following.body[0]
                    call = _call(following, None, "downloads") if following is not None else None
                    assert call is not None and _first_arg(call) == _first_arg(chart), (
                        f"{path.name}:{statement.lineno}: the downloads of {_first_arg(chart)} do not follow its chart")
                    pairs += 1
    assert pairs == 16  # ten pages' figures, the two sample-mode figures and the Systems page's four
