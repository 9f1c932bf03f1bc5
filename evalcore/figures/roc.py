"""ROC, DET and precision-recall curves of several measures (the lecture in shared/papers), one figure each.

Each function takes the stacked curve tables of :mod:`evalcore.roc` (one per measure, with a ``measure``
column) and the table of :func:`evalcore.roc.roc_table`, and returns a Plotly figure; a curve of a million
points is cut down by :func:`evalcore.figures.downsample` to about ``max_points`` vertices that keep its shape.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy import special

from .. import format as fmt
from ..errors import ParameterError
from ..text import plotly_text
from .style import REFERENCE_GREY, _layout, downsample, style

__all__ = ["CURVE_KINDS", "roc_figure", "det_figure", "pr_figure", "curve_figure"]
CURVE_KINDS = {"roc": "ROC (true against false positive rate)", "det": "DET (miss against false alarm rate, "
               "normal-deviate axes)", "pr": "precision against recall"}
# neighbours at least 0.36 normal deviates apart (0.1% and 0.2% were 0.21 apart, and their labels overlapped)
DET_TICKS = np.array([0.001, 0.01, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 0.99])


# what the hover names each drawn rate: the rate in percent, as the pages' tables write precision and recall
HOVER_NAMES = {"fpr": "false positive rate", "tpr": "true positive rate", "fnr": "miss rate",
               "precision": "precision", "recall": "recall"}


def _lines(fig: go.Figure, curves: pd.DataFrame, x: str, y: str, label, max_points: int, styles,
           shown: tuple[str, str] | None = None) -> None:
    """One line per measure; the hover writes the rates ``shown`` (default: x and y) in percent."""
    drawn = shown is None  # the rates are the drawn x and y: no customdata (half the payload)
    shown = shown or (x, y)
    fields = ("x", "y") if drawn else ("customdata[0]", "customdata[1]")
    hover = "<br>".join(f"{HOVER_NAMES[c]} {fmt.hover(f, 'proportion')}" for f, c in zip(fields, shown))
    for i, (measure, part) in enumerate(curves.groupby("measure", sort=False, observed=True)):
        xs, ys = part[x].to_numpy(float), part[y].to_numpy(float)
        ok = np.isfinite(xs) & np.isfinite(ys)
        xs, ys = xs[ok], ys[ok]
        idx = downsample(np.arange(xs.size), xs, ys, max_points=max_points) if xs.size > max_points else slice(None)
        rates = None if drawn else part[list(shown)].to_numpy(np.float32)[ok][idx]
        colour, dash = style(styles.get(measure, i) if styles else i)
        fig.add_trace(go.Scatter(x=xs[idx], y=ys[idx], customdata=rates, mode="lines",
                                 name=label(str(measure)),  # label() escapes
                                 line=dict(color=colour, dash=dash, width=2),
                                 hovertemplate=f"<b>{plotly_text(measure)}</b><br>{hover}<extra></extra>"))


def _auc_label(table: pd.DataFrame | None, column: str, level: float):
    rows = {} if table is None else table.set_index("measure").to_dict("index")

    def label(measure: str) -> str:
        r = rows.get(measure)
        if r is None:
            return plotly_text(measure)
        return (f"{plotly_text(measure)}: {column.upper()} {fmt.decimal(r[column])} "
                f"[{fmt.decimal(r[column + '_low'])}, {fmt.decimal(r[column + '_high'])}]")
    return label


def roc_figure(curves: pd.DataFrame, table: pd.DataFrame | None = None, *, level: float = 0.95,
               max_points: int = 2000, measure_styles=None, title: str | None = None) -> go.Figure:
    """ROC curves (columns measure, fpr, tpr) with the chance diagonal; legend names carry AUC and interval."""
    fig = go.Figure()
    _lines(fig, curves, "fpr", "tpr", _auc_label(table, "auc", level), max_points, measure_styles)
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance (AUC 0.5)",
                             line=dict(color=REFERENCE_GREY, dash="dash", width=1.5), hoverinfo="skip"))
    _layout(fig, title=title)
    fig.update_xaxes(title_text="false positive rate (FPs accepted / all FPs)", range=[0, 1])
    fig.update_yaxes(title_text="true positive rate = recall", range=[0, 1.01])
    return fig


def det_figure(curves: pd.DataFrame, *, max_points: int = 2000, measure_styles=None,
               title: str | None = None) -> go.Figure:
    """DET curves on normal-deviate axes (columns measure, fpr_probit, fnr_probit), ticks labelled in percent."""
    fig = go.Figure()
    _lines(fig, curves, "fpr_probit", "fnr_probit", plotly_text, max_points, measure_styles, shown=("fpr", "fnr"))
    ticks = special.ndtri(DET_TICKS)
    text = [f"{100 * t:g}%" for t in DET_TICKS]
    _layout(fig, title=title)
    lo, hi = float(ticks[0]), float(ticks[-1])
    fig.update_xaxes(title_text="false alarm rate (FPs accepted / all FPs)", tickvals=ticks, ticktext=text,
                     range=[lo, hi])
    fig.update_yaxes(title_text="miss rate (TPs rejected / all TPs)", tickvals=ticks, ticktext=text, range=[lo, hi])
    return fig


def pr_figure(curves: pd.DataFrame, table: pd.DataFrame | None = None, *, baseline: float, level: float = 0.95,
              max_points: int = 2000, measure_styles=None, title: str | None = None) -> go.Figure:
    """Precision against recall (columns measure, recall, precision), the baseline, AP in the legend."""
    if not 0 <= baseline <= 1:
        raise ParameterError(f"`baseline` must be a proportion; got {baseline!r}")
    fig = go.Figure()
    _lines(fig, curves, "recall", "precision", _auc_label(table, "ap", level), max_points, measure_styles)
    fig.add_trace(go.Scatter(x=[0, 1], y=[baseline, baseline], mode="lines", name=f"baseline {fmt.percent(baseline)}",
                             line=dict(color=REFERENCE_GREY, dash="dash", width=1.5), hoverinfo="skip"))
    _layout(fig, title=title)
    fig.update_xaxes(title_text="recall (TPs accepted / all TPs)", range=[0, 1])
    fig.update_yaxes(title_text="precision", range=[0, 1.01])
    return fig


def curve_figure(kind: str, curves: pd.DataFrame, table: pd.DataFrame | None, *, baseline: float,
                 level: float = 0.95) -> go.Figure:
    """The figure of one kind (see ``CURVE_KINDS``)."""
    if kind == "roc":
        return roc_figure(curves, table, level=level)
    if kind == "det":
        return det_figure(curves)
    if kind == "pr":
        return pr_figure(curves, table, baseline=baseline, level=level)
    raise ParameterError(f"`kind` must be one of {', '.join(CURVE_KINDS)}; got {kind!r}")
