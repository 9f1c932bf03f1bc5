"""The report's figures (Evert 2004, Figures 1-3) in the screen and the print style, and their image files.

The figures are the dashboard's own (:mod:`evalcore.figures.paper`), drawn from the report's results with
display names; :func:`evalcore.figures.style.for_print` turns each into the print style (8.5 cm, greyscale).
:func:`render` draws many figures in one browser session of kaleido, which is several times faster than
one :func:`evalcore.figures.style.export` per image (each of those starts a browser).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

from ..errors import EvalcoreError
from ..figures import paper
from ..figures.style import PRINT_DPI, for_print
from .phrases import CORRECTION_NAMES, INTERVAL_NAMES, SAMPLE_INTERVAL_NAMES, TEST_NAMES, alpha_text, level_text
from .results import ReportResults, report_curves
from .text import Rich, number, plain

__all__ = ["FIGURES", "FORMATS", "report_figures", "figure_captions", "render", "SCREEN_SIZE"]

FIGURES = ("precision", "confidence", "significance")
FORMATS = ("pdf", "svg", "png")
SCREEN_SIZE = (900, 560)
PRINT_MAX_TRIANGLES = 30  # Figure 3 in print: at most 30 triangles over the range (the rug marks every n)


def _named(table, names: Mapping[str, str]):
    out = table.copy()
    out["measure"] = out["measure"].astype(str).map(lambda m: names.get(m, m))
    return out


def report_figures(results: ReportResults, names: Mapping[str, str] | None = None, *, look: str = "screen",
                   curves: pd.DataFrame | None = None) -> dict[str, go.Figure]:
    """Figures 1-3 of a report: precision of every measure, the pair's confidence bands, the pair's test.

    Parameters
    ----------
    results : ReportResults
    names : mapping of str to str, optional
        Display names of the measures (legends).
    look : {"screen", "print"}
        The dashboard's look, or :func:`evalcore.figures.style.for_print` (8.5 cm wide, greyscale,
        Figure 3 with about 40 grey triangles).
    curves : DataFrame, optional
        :func:`evalcore.report.results.report_curves` of these results, if already computed.

    Returns
    -------
    dict of str to plotly.graph_objects.Figure
        Keys ``precision``, ``confidence``, ``significance``.
    """
    if look not in ("screen", "print"):
        raise EvalcoreError(f"`look` must be 'screen' or 'print'; got {look!r}")
    s = results.settings
    shown = {m: (names or {}).get(m, m) for m in s.measures}
    styles = {shown[m]: i for i, m in enumerate(s.measures)}
    curves = _named(report_curves(results) if curves is None else curves, shown)
    pair = [shown[m] for m in s.pair]
    comparison = results.comparison if results.sample is None else _sample_comparison(results, curves, pair)
    figs = {
        "precision": paper.precision_figure(curves, baseline=results.baseline, n_range=s.n_range,
                                            measure_styles=styles),
        "confidence": paper.confidence_figure(curves[curves["measure"].isin(pair)], baseline=results.baseline,
                                              level=s.level, method_label=_interval_name(results),
                                              n_range=s.n_range, measure_styles=styles),
        "significance": paper.significance_figure(
            curves[curves["measure"] == pair[0]], curves[curves["measure"] == pair[1]], comparison,
            up_to=results.up_to, alpha=s.alpha, max_triangles=80 if look == "screen" else PRINT_MAX_TRIANGLES,
            measure_styles=styles),
    }
    if look == "print":
        figs = {k: for_print(f, measure_styles=styles) for k, f in figs.items()}
    return figs


def _interval_name(results: ReportResults) -> str:
    s = results.settings
    if results.sample is None:
        return INTERVAL_NAMES[s.interval]
    return f"{SAMPLE_INTERVAL_NAMES[s.design.interval]}, from the sample"


def _sample_comparison(results: ReportResults, curves: pd.DataFrame, pair) -> pd.DataFrame:
    """Figure 3's test with a sample, as the significance figure draws it: the estimated TPs of each list (its
    estimated precision times n), and p = 1 where an n was not tested."""
    comparison = results.comparison
    sizes = comparison["n"].to_numpy()
    est = {m: curves[curves["measure"] == m].set_index("n")["precision"].reindex(sizes).fillna(0.0).to_numpy()
           for m in pair}
    return comparison.assign(tp_a=est[pair[0]] * sizes, tp_b=est[pair[1]] * sizes).fillna(
        {"p_value": 1.0, "log10_p": 0.0})


def figure_captions(results: ReportResults, names: Mapping[str, str] | None = None) -> dict[str, Rich]:
    """A caption for each figure, saying what its lines, bands and markers are."""
    s = results.settings
    shown = {m: (names or {}).get(m, m) for m in s.measures}
    a, b = (plain(shown[m]) for m in s.pair)
    lo, hi = (number(v) for v in s.n_range)
    interval = level_text(s.level) + " " + plain(_interval_name(results)) + " confidence intervals"
    correction = plain(CORRECTION_NAMES[s.correction])
    if s.correction != "none":
        correction = correction + plain(f" over the {number(results.n_figure_tests)} tested n")
    up_to = results.up_to
    line = (plain(f"; the vertical line: every n from {lo} up to {number(up_to)} differs significantly")
            if up_to else plain(""))
    estimated = plain("Estimated precision" if results.sample is not None else "Precision")
    tested = plain("")
    if results.sample is not None:
        tested = plain(f" (at the n where D1 and D2 each hold at least {number(s.design.min_annotated)} annotated "
                       "candidates)")
    return {
        "precision": (estimated + " of the n-best lists of every measure for n from " + plain(lo) + " to "
                      + plain(hi) + "; the horizontal line is the baseline (the precision of a random selection)."),
        "confidence": (estimated + " of " + a + " and " + b + " with " + interval + " (shaded), n from " + plain(lo)
                       + " to " + plain(hi) + "."),
        "significance": (estimated + " of " + a + " and " + b + " with " + interval + "; grey triangles mark list "
                         + "sizes n where the " + TEST_NAMES[s.test](s) + " is significant" + tested + " ("
                         + alpha_text(s.alpha) + ", " + correction + ")" + line + "."),
    }


def _png_scale(look: str) -> float:
    return PRINT_DPI / 96 if look == "print" else 2.0


async def _render_all(jobs: Sequence[tuple[go.Figure, str, int, int, float]]) -> list[bytes]:
    import kaleido  # imported here: the package is optional for everything but images

    out = []
    async with kaleido.Kaleido(n=1) as k:
        for fig, fmt, width, height, scale in jobs:
            out.append(await k.calc_fig(fig.to_dict(), opts=dict(format=fmt, width=width, height=height,
                                                                 scale=scale)))
    return out


def render(figures: Mapping[str, tuple[go.Figure, str]], *, formats: Sequence[str] = FORMATS) -> dict[str, bytes]:
    """Image files of several figures, drawn in one kaleido session.

    Parameters
    ----------
    figures : mapping of str to (Figure, look)
        Name (a path without extension, e.g. ``print/precision``) to the figure and its look, "print" or
        "screen".
    formats : sequence of {"pdf", "svg", "png"}

    Returns
    -------
    dict of str to bytes
        ``{"print/precision.pdf": b"%PDF...", ...}``. Print figures are drawn at their layout size (8.5 cm:
        321 CSS px wide, so the PDF page is 8.5 cm wide) with PNG at 600 dpi; screen figures at 900 x 560 px
        with PNG at twice that.

    Raises
    ------
    EvalcoreError
        When kaleido or a Chrome/Chromium for it is missing (HTML export works without).
    """
    jobs, names = [], []
    for name, (fig, look) in figures.items():
        width = fig.layout.width or SCREEN_SIZE[0]
        height = fig.layout.height or SCREEN_SIZE[1]
        for fmt in formats:
            jobs.append((fig, fmt, int(width), int(height), _png_scale(look) if fmt == "png" else 1.0))
            names.append(f"{name}.{fmt}")
    result: dict[str, object] = {}

    def run() -> None:  # a thread of its own, so that a running event loop (Streamlit, Jupyter) is no obstacle
        try:
            result["images"] = asyncio.run(_render_all(jobs))
        except BaseException as error:  # noqa: BLE001 - re-raised below in the caller's thread
            result["error"] = error

    thread = threading.Thread(target=run, name="evalcore-render")
    thread.start()
    thread.join()
    if "error" in result:
        error = result["error"]
        raise EvalcoreError("PDF, SVG and PNG figures need the kaleido package and Chrome or Chromium (pip install "
                            f"kaleido; apt-get install chromium). Kaleido said: {error}") from error
    return dict(zip(names, result["images"]))
