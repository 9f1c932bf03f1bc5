"""Figures of paper quality (issue 18, item 9), drawn by plotly.js in Chromium and measured: no legend over the
plotting area, every tick label of every x axis drawn inside the figure (the n axis's "2,000" was hidden at the
edge of the print figure), and in print a legend that takes less than a quarter of the height. The figures are
those of tests/figure_gallery.py, drawn with the plotly.js that plotly ships (no server, no network)."""

from __future__ import annotations

import json
from pathlib import Path

import plotly
import pytest

from figure_gallery import print_figures, screen_figures

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
SCREEN_SIZES = {"export": (900, 560), "page": (1200, 450)}  # a PNG download; a chart on a wide page

# Draw a figure at a size; wait for plotly's promise (the figure is drawn when it resolves); measure the plot
# area, the legend's box and every tick label of every axis (text, box, whether plotly hid it).
DRAW_AND_MEASURE = """async ([fig, width, height]) => {
  const gd = document.getElementById('gd');
  Plotly.purge(gd);
  await Plotly.newPlot(gd, fig.data, Object.assign({}, fig.layout, {width, height}), {staticPlot: true});
  const svg = gd.querySelector('.main-svg').getBoundingClientRect();
  const box = r => ({x: r.left - svg.left, y: r.top - svg.top, w: r.width, h: r.height});
  const size = gd._fullLayout._size;
  const legend = gd.querySelector('.legend');
  const axes = {};
  for (const name of Object.keys(gd._fullLayout)) {
    const m = name.match(/^(x|y)axis(\\d*)$/);
    if (!m) continue;
    const id = m[1] + m[2];
    const axis = gd._fullLayout[name];
    axes[id] = {range: axis.range, showticklabels: axis.showticklabels, values: (axis._vals || []).map(v => v.x),
                labels: Array.from(gd.querySelectorAll('g.' + id + 'tick > text')).map(t => ({
                  text: t.textContent, box: box(t.getBoundingClientRect()),
                  shown: getComputedStyle(t).display !== 'none' && t.getAttribute('display') !== 'none'
                         && t.style.opacity !== '0'}))};
  }
  return {width: svg.width, height: svg.height, plot: {x: size.l, y: size.t, w: size.w, h: size.h},
          legend: legend ? box(legend.getBoundingClientRect()) : null, axes};
}"""


@pytest.fixture(scope="module")
def draw(browser):
    """A page with plotly.js; ``draw(fig, width, height)`` returns the measures of the drawn figure."""
    if browser is None:
        pytest.fail("the browser tests need Debian's Chromium at /usr/bin/chromium", pytrace=False)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_content("<html><body style='margin:0'><div id='gd'></div></body></html>")
    page.add_script_tag(path=str(PLOTLY_JS))

    def measure(fig, width: int, height: int) -> dict:
        return page.evaluate(DRAW_AND_MEASURE, [json.loads(fig.to_json()), width, height])

    yield measure
    context.close()


def _overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    return (a["x"] + slack < b["x"] + b["w"] and b["x"] + slack < a["x"] + a["w"]
            and a["y"] + slack < b["y"] + b["h"] and b["y"] + slack < a["y"] + a["h"])


def _check(name: str, drawn: dict) -> None:
    """No legend over the plot; every tick label of every x axis with labels drawn, inside the figure."""
    if drawn["legend"] is not None:
        assert not _overlap(drawn["legend"], drawn["plot"]), f"{name}: the legend covers the plot: {drawn}"
        assert drawn["legend"]["x"] >= 0 and drawn["legend"]["x"] + drawn["legend"]["w"] <= drawn["width"] + 1
    for axis_id, axis in drawn["axes"].items():
        if not axis_id.startswith("x") or not axis["showticklabels"] or not axis["labels"]:
            continue
        hidden = [label["text"] for label in axis["labels"] if not label["shown"]]
        assert not hidden, f"{name}: {axis_id} hides the tick labels {hidden}"
        for label in axis["labels"]:
            assert -0.5 <= label["box"]["x"] and label["box"]["x"] + label["box"]["w"] <= drawn["width"] + 0.5, (
                f"{name}: {axis_id}'s label {label['text']!r} crosses the figure's edge: {label['box']}")
        assert len(axis["labels"]) == len(axis["values"]), f"{name}: {axis_id} has ticks without labels"
        if axis["range"] == [100, 2000]:  # the n axis of the paper's range: its end is labelled
            assert "2,000" in [label["text"] for label in axis["labels"]], f"{name}: no 2,000 on {axis_id}"


@pytest.mark.parametrize("size", list(SCREEN_SIZES))
def test_screen_figures_keep_legends_off_the_plot_and_label_every_tick(draw, size):
    width, height = SCREEN_SIZES[size]
    for name, fig in screen_figures().items():
        _check(name, draw(fig, width, height))


def test_print_figures_label_2000_and_keep_the_legend_small(draw):
    for name, fig in print_figures().items():
        drawn = draw(fig, fig.layout.width, fig.layout.height)
        _check(f"print {name}", drawn)
        x_labels = [label["text"] for label in drawn["axes"]["x"]["labels"]]
        assert x_labels == ["500", "1,000", "1,500", "2,000"], x_labels
        legend, plot = drawn["legend"], drawn["plot"]
        assert legend["y"] + legend["h"] <= plot["y"] + 1  # above the plot
        assert legend["h"] <= 0.25 * drawn["height"], f"print {name}: legend {legend['h']} of {drawn['height']} px"
        assert plot["h"] >= 0.6 * drawn["height"], f"print {name}: plot {plot['h']} of {drawn['height']} px"
        y_labels = [label for label in drawn["axes"]["y"]["labels"]]
        assert y_labels and all(label["shown"] and label["box"]["y"] >= 0 for label in y_labels)
