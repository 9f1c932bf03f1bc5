"""plotly.js's basic bundle (evalcore_app/components/plot/vendor, what the charts drawn in place load) draws
Precision's, Confidence's and Significance's figures exactly as the whole plotly.js of the plotly package does: the
same SVG, element by element, once the ids plotly draws at random are named alike (issue 34)."""

from __future__ import annotations

import json
import re

import pytest
from figure_gallery import screen_figures
from test_plot_bundle import IN_PLACE

from evalcore_app.components import plot

# Draw at a fixed size as the component does (Plotly.react, not static), and return the SVG with plotly's random
# ids (the layout's uid in clip paths, each trace's uid in its class) named by their place.
DRAW = """async ([fig, width, height]) => {
  const gd = document.getElementById('gd');
  Plotly.purge(gd);
  await Plotly.react(gd, fig.data, Object.assign({}, fig.layout, {width, height}), {displaylogo: false});
  let svg = Array.from(gd.querySelectorAll('svg')).map(s => s.outerHTML).join('\\n');
  const ids = [gd._fullLayout._uid, ...gd._fullData.map(t => t.uid)];
  ids.forEach((id, i) => { if (id) svg = svg.split(id).join('UID' + i); });
  return svg;
}"""


@pytest.fixture(scope="module")
def drawn(browser):
    """``drawn(script)``: every in-place figure of tests/figure_gallery.py drawn with that plotly.js, by name."""
    if browser is None:
        pytest.fail("the browser tests need Debian's Chromium at /usr/bin/chromium", pytrace=False)
    figures = screen_figures()

    def draw(script) -> dict[str, str]:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.set_content("<html><body style='margin:0'><div id='gd'></div></body></html>")
            page.add_script_tag(path=str(script))
            return {name: page.evaluate(DRAW, [json.loads(figures[name].to_json()), 1200, 450]) for name in IN_PLACE}
        finally:
            context.close()

    return draw


def test_the_basic_bundle_draws_the_pages_figures_as_the_whole_plotly_js(drawn):
    whole, basic = drawn(plot.PACKAGE_PLOTLY), drawn(plot.BUNDLE)
    for name in IN_PLACE:
        assert len(re.findall(r"<path", whole[name])) > 3, name  # (drawn: lines, bands, axes)
        assert basic[name] == whole[name], name
