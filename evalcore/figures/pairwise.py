"""The pairwise view: p-values of every pair of measures at one n, as a heatmap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .. import format as fmt
from ..errors import ParameterError
from ..text import plotly_text
from .style import PALETTE, _layout

__all__ = ["pvalue_heatmap"]


def _p_text(p: float, alpha: float) -> str:
    if not np.isfinite(p):
        return ""
    return fmt.p_value(p) + (" *" if p < alpha else "")


def pvalue_heatmap(matrix: pd.DataFrame, *, alpha: float, n: int, correction_label: str = "none",
                   title: str | None = None) -> go.Figure:
    """Heatmap of the (adjusted) p-values of every pair of measures; darker where smaller, * where p < alpha.

    Parameters
    ----------
    matrix : DataFrame
        Symmetric, measures as index and columns, NaN on the diagonal (see
        :func:`evalcore.analysis.pairwise`).
    alpha : float
        Significance level; the colour scale is -log10 p capped at 10, with alpha marked in the colour bar.

    Returns
    -------
    plotly.graph_objects.Figure
        ``data[0]``: a heatmap with ``z`` = -log10 p (NaN on the diagonal), ``text`` = p as written in
        the cells (:func:`evalcore.format.p_value`, `` *`` where p < alpha) and ``customdata`` the hover's
        ``p = ...`` (:func:`evalcore.format.p_statement`).
    """
    if list(matrix.index) != list(matrix.columns):
        raise ParameterError("`matrix` must be square with the same measures as index and columns")
    if not 0 < alpha < 1:
        raise ParameterError(f"`alpha` must be in (0, 1); got {alpha!r}")
    p = matrix.to_numpy(float)
    with np.errstate(divide="ignore"):
        z = np.minimum(-np.log10(p), 10.0)
    text = [[_p_text(v, alpha) for v in row] for row in p]
    hover = [[fmt.p_statement(v) for v in row] for row in p]
    names = [plotly_text(m) for m in matrix.index]  # tick labels and hover: text, not HTML
    threshold = -np.log10(alpha)
    fig = go.Figure(go.Heatmap(
        z=z, x=names, y=names, customdata=hover, text=text, texttemplate="%{text}", zmin=0, zmax=10,
        colorscale=[[0, "#FFFFFF"], [threshold / 10, "#DCE9F5"], [min(1, threshold / 10 + 0.01), PALETTE[5]],
                    [1, PALETTE[0]]],
        colorbar=dict(title=dict(text="−log₁₀ p"), tickvals=[0, threshold, 5, 10],
                      ticktext=["0", f"α = {alpha:g}", "5", "≥ 10"]),
        hovertemplate="%{y} vs %{x}<br>%{customdata}<extra></extra>"))
    _layout(fig, title=title)
    fig.update_xaxes(showgrid=False, automargin=True,
                     title_text=f"Fisher's exact test on D1/D2 at n = {n:,}; "
                                f"correction: {plotly_text(correction_label)}")
    fig.update_yaxes(showgrid=False, autorange="reversed", automargin=True)
    return fig
