"""The charts drawn in place (evalcore_app/components/plot) use plotly.js's basic bundle, vendored: it must be the
plotly.js version of the installed plotly package (the version its figures are written for), and hold every trace
type those figures use (issue 34)."""

from __future__ import annotations

import re

from figure_gallery import screen_figures

from evalcore_app.components import plot

#: The trace types of plotly.js's basic bundle (its README: "Contains trace modules bar, pie and scatter").
BASIC_TRACES = {"scatter", "bar", "pie"}
#: The figures of tests/figure_gallery.py the pages draw in place: Precision's, Confidence's, Significance's.
IN_PLACE = ("precision", "precision_panels", "confidence", "significance", "difference")


def _version(path) -> str:
    head = path.read_text(encoding="utf-8", errors="replace")[:300]
    found = re.search(r"plotly\.js(?: \([a-z -]+\))? v(\d+\.\d+\.\d+)", head)
    assert found, f"no plotly.js version in the first lines of {path}"
    return found.group(1)


def test_the_bundle_is_the_plotly_js_of_the_installed_plotly():
    bundle, package = _version(plot.BUNDLE), _version(plot.PACKAGE_PLOTLY)
    assert bundle == package, (
        f"{plot.BUNDLE.name} is plotly.js {bundle}, the plotly package ships {package}: put the basic bundle of "
        f"{package} there (npm pack plotly.js-basic-dist-min@{package}; its plotly-basic.min.js and LICENSE)")


def test_the_in_place_figures_use_only_the_bundles_traces():
    figures = screen_figures()
    for name in IN_PLACE:
        types = {trace.type for trace in figures[name].data}
        assert types and types <= BASIC_TRACES, (name, types)
