"""Figures of experiments with several samples: Evert (2004) Figure 4, coverage, differences, UIR.

As in :mod:`evalcore.figures`, each function takes results evalcore computed and returns a
:class:`plotly.graph_objects.Figure`; the same palette, fonts and template are used, so the
figures sit beside the single-sample ones in a paper.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy import stats

from .. import format as fmt
from ..errors import ParameterError
from ..text import plotly_text
from .style import PALETTE, REFERENCE_GREY, _layout, _percent
from ..validate import Validation

__all__ = ["validation_histogram", "qq_figure", "coverage_figure", "differences_figure", "f_sweep_figure",
           "uir_heatmap"]
MISS_COLOUR = PALETTE[1]


def _bin_edges(values: np.ndarray, centre: float, spread: float) -> np.ndarray:
    """Bins for a histogram of k precisions: Sturges' number over the data and the model's +-3 sd."""
    lo = min(values.min(), centre - 3 * spread)
    hi = max(values.max(), centre + 3 * spread)
    if hi <= lo:
        lo, hi = lo - 0.005, hi + 0.005
    count = int(np.clip(np.ceil(np.log2(values.size) + 1) * 1.5, 6, 40))
    return np.linspace(lo, hi, count + 1)


def validation_histogram(result: Validation, *, title: str | None = None) -> go.Figure:
    """Evert (2004) Figure 4: the precisions over the samples against the model N(pi, pi (1 - pi) / N).

    Returns
    -------
    plotly.graph_objects.Figure
        ``data[0]``: bars of the histogram as a density (per percentage point), x = bin centres
        in percent, ``customdata`` = counts; ``data[1]``: the model's normal density; ``data[2]``:
        a line at pi. The areas of bars and curve are both 1 (per percent on the x axis).
    """
    precision = result.table.loc[result.table["size"] > 0, "precision"].to_numpy(float)
    pi, sigma = result.mean_precision, result.sd_predicted
    edges = _bin_edges(precision, pi, sigma)
    counts, _ = np.histogram(precision, bins=edges)
    widths = np.diff(edges) * 100
    density = counts / (counts.sum() * widths)
    fig = go.Figure(go.Bar(
        x=_percent((edges[:-1] + edges[1:]) / 2), y=density, width=widths, customdata=counts,
        name=f"observed ({result.k} samples)", marker_color=PALETTE[0], opacity=0.55,
        marker_line=dict(color="#1F3B57", width=1),
        hovertemplate=f"%{{customdata}} samples<br>precision {fmt.hover('x', 'percent')}<extra></extra>"))
    x = np.linspace(edges[0], edges[-1], 241)
    model = stats.norm.pdf(x, loc=pi, scale=sigma) / 100 if sigma > 0 else np.zeros_like(x)
    fig.add_trace(go.Scatter(
        x=_percent(x), y=model, mode="lines", line=dict(color=PALETTE[1], width=2.5),
        name=f"model N(π, π(1−π)/N̄): σ = {100 * sigma:.2f}%",
        hovertemplate="model density %{y:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=_percent([pi, pi]), y=[0, max(density.max(), model.max()) * 1.05], mode="lines",
        line=dict(color=REFERENCE_GREY, dash="dash", width=1.5), name=f"π = {100 * pi:.2f}% (mean)",
        hovertemplate=f"mean precision {100 * pi:.2f}%<extra></extra>"))
    _layout(fig, title=title)
    fig.update_layout(bargap=0)
    fig.update_xaxes(title_text=f"precision of {plotly_text(result.measure)} (%), one value per sample")
    fig.update_yaxes(title_text="density (per percentage point)", rangemode="tozero")
    return fig


def qq_figure(result: Validation, *, title: str | None = None) -> go.Figure:
    """Normal Q-Q plot: the sorted precisions against the model's quantiles, with the identity line.

    ``data[0]``: the samples (x = model quantile, y = observed, both in percent, ``text`` = sample id);
    ``data[1]``: the line y = x, where the points lie if the model holds.
    """
    qq = result.qq
    x = _percent(qq["theoretical"])
    y = _percent(qq["observed"])
    fig = go.Figure(go.Scatter(
        x=x, y=y, mode="markers", text=[plotly_text(s) for s in qq["sample"]], name="samples",
        marker=dict(color=PALETTE[0], size=7), hovertemplate=f"sample %{{text}}<br>model {fmt.hover('x', 'percent')}, "
                                                              f"observed {fmt.hover('y', 'percent')}<extra></extra>"))
    lo, hi = float(min(x.min(), y.min())), float(max(x.max(), y.max()))
    fig.add_trace(go.Scatter(x=[lo, hi], y=[lo, hi], mode="lines", line=dict(color=REFERENCE_GREY, dash="dash"),
                             name="model holds (y = x)", hoverinfo="skip"))
    _layout(fig, title=title)
    fig.update_xaxes(title_text="quantile of the model N(π, π(1−π)/N̄) (%)")
    fig.update_yaxes(title_text="observed precision (%)")
    return fig


def coverage_figure(result: Validation, *, title: str | None = None) -> go.Figure:
    """Each sample's precision with its confidence interval, sorted, and the mean precision pi.

    ``data[0]``: samples whose interval contains pi; ``data[1]``: those whose interval misses it
    (drawn in vermillion); x = position after sorting by precision, ``text`` = sample id.
    """
    table = result.table[result.table["size"] > 0].sort_values("precision", kind="stable").reset_index(drop=True)
    position = np.arange(1, len(table) + 1)
    level = f"{100 * result.confidence_level:.10g}%"
    fig = go.Figure()
    for covers, name, colour in ((True, "interval contains π", PALETTE[0]),
                                 (False, f"interval misses π ({result.misses} of {result.k})", MISS_COLOUR)):
        part = table["covers"].astype(bool) == covers
        p = table.loc[part, "precision"].to_numpy(float)
        fig.add_trace(go.Scatter(
            x=position[part.to_numpy()], y=_percent(p), mode="markers", name=name,
            text=[plotly_text(s) for s in table.loc[part, "sample"]],
            customdata=np.column_stack([_percent(table.loc[part, "lower"]), _percent(table.loc[part, "upper"]),
                                        table.loc[part, "size"]]),
            marker=dict(color=colour, size=6),
            error_y=dict(type="data", symmetric=False, array=_percent(table.loc[part, "upper"].to_numpy() - p),
                         arrayminus=_percent(p - table.loc[part, "lower"].to_numpy()), color=colour, thickness=1.2,
                         width=0),
            hovertemplate=f"sample %{{text}}: {fmt.hover('y', 'percent')} of {fmt.hover('customdata[2]', 'count')}<br>"
                          + level + f" interval {fmt.hover('customdata[0]', 'percent')} to "
                          f"{fmt.hover('customdata[1]', 'percent')}<extra></extra>"))
    fig.add_hline(y=100 * result.mean_precision, line=dict(color=REFERENCE_GREY, dash="dash", width=1.5),
                  annotation=dict(text=f"π = {100 * result.mean_precision:.2f}%", font=dict(size=12)),
                  annotation_position="top left")
    _layout(fig, title=title, legend="above")
    fig.update_xaxes(title_text="samples, sorted by precision")
    fig.update_yaxes(title_text=f"precision with {level} interval (%)")
    return fig


def differences_figure(table: pd.DataFrame, *, a: str, b: str, estimate: float, low: float, high: float,
                       confidence_level: float, title: str | None = None) -> go.Figure:
    """Per-sample differences of precision, A minus B, with their mean and its interval.

    Parameters
    ----------
    table : DataFrame
        Columns ``sample`` and ``difference`` (proportions), one row per sample.
    estimate, low, high : float
        The mean difference and its confidence interval (paired t-test).

    Returns
    -------
    plotly.graph_objects.Figure
        ``data[0]``: one point per sample (x = sample in table order, y = difference in
        percentage points); the mean and its interval are a line and a band (shapes).
    """
    diff = table["difference"].to_numpy(float)
    colours = np.where(diff > 0, PALETTE[0], np.where(diff < 0, PALETTE[1], REFERENCE_GREY))
    fig = go.Figure(go.Bar(
        x=[plotly_text(s) for s in table["sample"]], y=_percent(diff), marker_color=colours, name="A − B per sample",
        customdata=[fmt.points(d) for d in diff],  # (as the tables write it: a zero without a sign)
        hovertemplate="sample %{x}<br>difference %{customdata} points<extra></extra>", showlegend=False))
    level = f"{100 * confidence_level:.10g}%"
    if np.isfinite(low) and np.isfinite(high):
        fig.add_hrect(y0=100 * low, y1=100 * high, fillcolor="rgba(0,0,0,0.08)", line_width=0)
    fig.add_hline(y=100 * estimate, line=dict(color="#222222", width=1.5),
                  annotation=dict(text=f"mean {fmt.points(estimate)} points, {level} interval "
                                       f"{fmt.points(low)} to {fmt.points(high)}", font=dict(size=12),
                                  bgcolor="rgba(255,255,255,0.8)"),
                  annotation_position="top left")
    fig.add_hline(y=0, line=dict(color=REFERENCE_GREY, width=1))
    _layout(fig, title=title)
    fig.update_xaxes(title_text="sample", type="category")
    fig.update_yaxes(title_text=f"precision of {plotly_text(a)} − {plotly_text(b)} (points)")
    return fig


def f_sweep_figure(sweep: pd.DataFrame, flips, *, a: str, b: str, title: str | None = None) -> go.Figure:
    """Mean F_alpha of A and B over the samples for alpha from 0 (recall) to 1 (precision).

    ``data[0]`` and ``data[1]``: the curves of A and B (y in percent); a vertical line at each
    alpha where the better measure changes.
    """
    fig = go.Figure()
    for i, (column, name) in enumerate((("f_a", a), ("f_b", b))):
        fig.add_trace(go.Scatter(
            x=sweep["alpha"], y=_percent(sweep[column]), mode="lines", name=plotly_text(name),
            line=dict(color=PALETTE[i], width=2.5, dash="solid" if i == 0 else "dash"),
            hovertemplate=(f"<b>{plotly_text(name)}</b><br>α = %{{x:.2f}}<br>mean F_α = {fmt.hover('y', 'percent')}"
                           "<extra></extra>")))
    for alpha in flips:
        fig.add_vline(x=float(alpha), line=dict(color=REFERENCE_GREY, dash="dot", width=1.5),
                      annotation=dict(text=f"flip at α = {alpha:.3f}", font=dict(size=12)),
                      annotation_position="top")
    _layout(fig, title=title, legend="above")
    fig.update_xaxes(title_text="α: weight of precision in F_α (0 = recall only, 0.5 = F1, 1 = precision only)",
                     range=[0, 1])
    fig.update_yaxes(title_text="mean F_α over samples (%)")
    return fig


def uir_heatmap(matrix: pd.DataFrame, *, threshold: float, title: str | None = None) -> go.Figure:
    """The pairwise UIR matrix: row measure against column measure, blue where the row improves.

    ``data[0]`` is a heatmap with ``z`` = UIR (row vs column) and the values written in the cells,
    a star marking |UIR| >= threshold.
    """
    if list(matrix.index) != list(matrix.columns):
        raise ParameterError("`matrix` must be square with the same measures as index and columns")
    z = matrix.to_numpy(float)
    text = np.vectorize(lambda v: fmt.signed(v) + (" *" if abs(v) >= threshold else ""))(z)
    np.fill_diagonal(text, "")
    names = [plotly_text(m) for m in matrix.index]  # tick labels and hover: text, not HTML
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, text=text, texttemplate="%{text}", zmin=-1, zmax=1, zmid=0,
        colorscale=[[0, PALETTE[1]], [0.5, "#FFFFFF"], [1, PALETTE[0]]],
        colorbar=dict(title=dict(text="UIR"), len=0.8),
        hovertemplate="UIR(%{y}, %{x}) = %{z:+.3f}<extra></extra>"))
    _layout(fig, title=title)
    fig.update_xaxes(title_text="compared with (B)", showgrid=False, side="bottom", automargin=True)
    fig.update_yaxes(title_text="measure (A)", showgrid=False, autorange="reversed", automargin=True,
                     title_standoff=12)
    return fig
