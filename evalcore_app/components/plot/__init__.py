"""A Plotly figure drawn in place: a changed figure updates the chart on screen, an unchanged one costs nothing.

``st.plotly_chart`` (Streamlit 1.67) gives a chart an identity from a hash of its figure: any change to the figure
throws the chart away and draws a new one, and its theme effect then draws it a second time (``Plotly.react``
with a copy of the same figure). A level key on Significance changes Figure 3 and the difference panel, so the
browser drew four figures from scratch per key, about 200 ms of JavaScript against the floor app's 40 ms
(bench/bench_browser.py; Streamlit's PR #16052, not in a release, would keep keyed charts). :func:`chart` keeps
one Plotly graph per key on the page instead and hands it the next figure with ``Plotly.react``: drawn once, in
place, and not at all when the figure is the one already drawn (same hash).

plotly.js is its basic bundle (scatter, bar and pie traces: every trace of Figures 1, 2 and 3) of the version the
plotly package ships (the version its figures are written for; :data:`BUNDLE`, from npm's
``plotly.js-basic-dist-min``, MIT), served by Streamlit's route for component files
(``/component/<name>/plotly-basic.min.js``, cached by the browser) and loaded once per tab. The whole plotly.js
(4.8 MB) took the browser 2.3 to 4.3 s to evaluate on the loaded 2-core machine, the basic bundle (1.2 MB) 0.5 to
1.1 s, and a switch to Precision that came before it was in waited for it (issue 34); both draw these figures alike
(tests/browser/test_browser_plotly_bundle.py), and a plotly of another plotly.js fails tests/test_plot_bundle.py
until the bundle of its version is put here.
The figure travels as JSON text (``fig.to_json()``, as ``st.plotly_chart`` sends it) and is parsed, never put
into the page as HTML.

The chart is marked for the page's tests and benchmarks as ``st.plotly_chart``'s is (``data-testid
="stPlotlyChart"`` around a ``.js-plotly-plot``), with ``aria-busy="true"`` while a figure is being drawn and
``data-draws`` counting its draws.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import plotly
import streamlit as st
import streamlit.components.v1 as components_v1
import streamlit.components.v2 as components_v2

from evalcore_app import figcache

__all__ = ["chart", "spec_of", "COMPONENT", "BUNDLE"]

COMPONENT = "evalcore_plot"  # its name in the page's messages (tests/shown_charts.py reads figures by it)

_ASSETS: list = []  # plotly.js served as a component's asset, declared at the first figure of a run (see _assets)
_HERE = Path(__file__).parent
#: The plotly.js the charts are drawn with: the basic bundle of the plotly package's plotly.js version.
BUNDLE = _HERE / "vendor" / "plotly-basic.min.js"
#: The whole plotly.js of the plotly package (what tests/test_plot_bundle.py checks :data:`BUNDLE`'s version against).
PACKAGE_PLOTLY = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def _assets():
    """Streamlit registers a declared (v1) component only where a script runs: one declared at import by the
    server's warm-up (evalcore_app.serve.import_app) would never be served, so it is declared at its first use."""
    if not _ASSETS:
        _ASSETS.append(components_v1.declare_component("plotly_assets", path=str(BUNDLE.parent)))
    return _ASSETS[0]
_component = components_v2.component(COMPONENT, js=(_HERE / "plot.js").read_text(),
                                     css=(_HERE / "plot.css").read_text(), isolate_styles=False)


def spec_of(fig) -> tuple[str, str]:
    """The figure's JSON and its SHA-1, once per figure object (:func:`evalcore_app.figcache.memo`: figures are built once per
    cached result, shared, and never changed after)."""
    def encode() -> tuple[str, str]:
        spec = fig.to_json()
        return spec, hashlib.sha1(spec.encode()).hexdigest()

    return figcache.memo(fig, encode, "plot.spec")


def plotly_url() -> str:
    """Where the page loads plotly.js from (also :mod:`evalcore_app.preload`, which loads it before a figure needs it)."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    return ("/" + base if base else "") + f"/component/{_assets().name}/{BUNDLE.name}"


def chart(fig, *, key: str) -> None:
    """Show ``fig`` as the chart ``key`` of the page, updating in place the figure this key showed before."""
    spec, digest = spec_of(fig)
    _component(key=key, data={"spec": spec, "hash": digest, "src": plotly_url()})
