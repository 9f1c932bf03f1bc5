"""The systems comparison's figures in the house style (:mod:`evalcore.figures.style`): each system's score with
its interval, the p-values of every pair as a matrix, the distribution of one pair's resampled gains, and the
test-set-size curves. Each takes results and returns a ``plotly.graph_objects.Figure``; :func:`for_print` gives
the print look (8.5 cm, greyscale) of any of them. System names are text (shown as written, never as markup).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..errors import ParameterError
from ..figures import style
from ..figures.pairwise import pvalue_heatmap
from ..text import plotly_text
from .compare import SystemsComparison, pvalue_columns
from .metrics import Metric, format_gain, format_score
from .names import RULE_NAMES

__all__ = ["scores_figure", "pvalue_figure", "gains_figure", "size_figure", "for_print", "format_score",
           "format_gain", "SYSTEM_FIGURES"]

SYSTEM_FIGURES = ("scores", "pvalues", "gains", "sizes")


def _axis_title(metric: Metric) -> str:
    direction = "higher is better" if metric.higher_is_better else "lower is better"
    scale = "0–100" if metric.percent else "fraction"
    return f"{metric.label} ({scale}, {direction})"


def scores_figure(result: SystemsComparison, *, title: str | None = None) -> go.Figure:
    """Each system's corpus score (dot) with its bootstrap interval (bar), the baseline's score as a dashed line.

    ``data[0]``: the scores (``y`` = system names, ``x`` = scores, ``error_x`` the interval); ``data[1]``: the
    baseline line.
    """
    metric, table = result.metric, result.systems
    names = [plotly_text(n) for n in table["name"]]
    scores = table["score"].to_numpy(float)
    low, high = table["ci_low"].to_numpy(float), table["ci_high"].to_numpy(float)
    level = style._format_level(result.settings.level)
    text = [f"{format_score(metric, s)} [{format_score(metric, lo)}, {format_score(metric, hi)}]"
            for s, lo, hi in zip(scores, low, high)]
    fig = go.Figure(go.Scatter(
        x=scores, y=names, mode="markers", name=f"score with {level} interval",
        marker=dict(size=10, color=style.PALETTE[0]),
        error_x=dict(type="data", symmetric=False, array=high - scores, arrayminus=scores - low, thickness=2,
                     width=6, color=style.PALETTE[0]),
        customdata=text, hovertemplate="<b>%{y}</b><br>" + metric.label + " %{customdata}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[scores[0], scores[0]], y=[names[0], names[-1]], mode="lines",
                             name=f"baseline ({names[0]})", line=dict(color=style.REFERENCE_GREY, dash="dash", width=1.5),
                             hoverinfo="skip"))
    style._layout(fig, title=title, legend="above")
    fig.update_xaxes(title_text=_axis_title(metric))
    fig.update_yaxes(autorange="reversed", showgrid=False, automargin=True, type="category")
    fig.update_layout(height=max(260, 70 + 46 * len(names)))
    return fig


def pvalue_figure(result: SystemsComparison, *, column: str = "p_adjusted", title: str | None = None) -> go.Figure:
    """The p-values of every pair as a matrix (darker where smaller, * where below α): Holm-adjusted bootstrap
    p-values by default (``column="p_bootstrap"`` or ``"p_randomization"`` for the others, or a chosen test's:
    ``p_ttest``, ``p_ttest_adjusted``, ``p_wilcoxon``, ``p_wilcoxon_adjusted``, ``p_tukey``)."""
    allowed = pvalue_columns(result.tests)
    if column not in allowed:
        raise ParameterError(f"`column` must be one of {', '.join(allowed)}; got {column!r}")
    fig = pvalue_heatmap(result.pvalue_matrix(column), alpha=result.settings.alpha, n=result.n_items, title=title)
    what = {"p_adjusted": f"paired bootstrap ({RULE_NAMES[result.settings.rule]}),<br>Holm-adjusted over the pairs",
            "p_bootstrap": f"paired bootstrap ({RULE_NAMES[result.settings.rule]}),<br>unadjusted",
            "p_randomization": "approximate randomization,<br>unadjusted",
            "p_ttest": "paired t-test,<br>unadjusted", "p_ttest_adjusted": "paired t-test,<br>Holm-adjusted",
            "p_wilcoxon": "Wilcoxon signed-rank test,<br>unadjusted",
            "p_wilcoxon_adjusted": "Wilcoxon signed-rank test,<br>Holm-adjusted",
            "p_tukey": "randomized Tukey HSD,<br>one family for all pairs"}[column]
    unit = result.metric.unit
    fig.update_xaxes(title_text=f"{what}; {result.n_items:,} {unit}, {result.settings.resamples:,} resamples")
    short = {"p_adjusted": "bootstrap p, Holm", "p_bootstrap": "bootstrap p", "p_randomization": "randomization p",
             "p_ttest": "t-test p", "p_ttest_adjusted": "t-test p, Holm", "p_wilcoxon": "Wilcoxon p",
             "p_wilcoxon_adjusted": "Wilcoxon p, Holm", "p_tukey": "Tukey HSD p"}
    fig.update_layout(meta={"print_x": short[column]})
    return fig


def gains_figure(result: SystemsComparison, pair: int = 0, *, bins: int = 60, title: str | None = None) -> go.Figure:
    """The distribution of one pair's bootstrap gains δ*: a histogram, the observed gain δ, its interval, 0 and 2δ.

    ``data[0]`` is the histogram (``x`` the gains); the lines are shapes named ``observed``, ``zero`` and
    ``twice``.
    """
    if not 0 <= pair < len(result.pairs):
        raise ParameterError(f"`pair` must be 0 to {len(result.pairs) - 1}; got {pair!r}")
    metric = result.metric
    row = result.pairs.iloc[pair]
    gains = result.gains[:, pair]
    gains = gains[np.isfinite(gains)]
    label = f"{plotly_text(str(row['b']))} − {plotly_text(str(row['a']))}"
    fig = go.Figure(go.Histogram(x=gains, nbinsx=bins, name="resampled gains δ*", marker=dict(color=style.PALETTE[5]),
                                 hovertemplate="δ* %{x}<br>%{y} resamples<extra></extra>"))
    delta = float(row["delta"])
    lines = [("observed", delta, style.PALETTE[1], "solid", f"δ = {format_gain(metric, delta)}"),
             ("zero", 0.0, style.REFERENCE_GREY, "dash", "0"),
             ("twice", 2 * delta, style.PALETTE[3], "dot", "2δ")]
    for name, x, colour, dash, text in lines:
        fig.add_shape(type="line", name=name, x0=x, x1=x, y0=0, y1=1, yref="paper",
                      line=dict(color=colour, dash=dash, width=2))
        fig.add_annotation(x=x, y=1, yref="paper", text=text, showarrow=False, yanchor="bottom",
                           font=dict(color=colour))
    level = style._format_level(result.settings.level)
    fig.add_shape(type="rect", name="interval", x0=row["delta_low"], x1=row["delta_high"], y0=0, y1=1, yref="paper",
                  fillcolor=style._rgba(style.PALETTE[1], 0.10), line=dict(width=0), layer="below")
    style._layout(fig, title=title)
    fig.update_xaxes(title_text=f"gain of {metric.label}, {label}, over {result.settings.resamples:,} bootstrap "
                                f"resamples (shaded: {level} interval)")
    fig.update_yaxes(title_text="resamples")
    fig.update_layout(showlegend=False, bargap=0.02, meta={"print_x": f"resampled gain of {metric.label}, {label}"})
    return fig


def size_figure(curves: pd.DataFrame, metric: Metric, *, n_items: int, alpha: float,
                title: str | None = None, unit: str = "items") -> go.Figure:
    """The smallest significant gain against the test-set size (log axis), one line per pair
    (:func:`.sizes.size_curves`), each pair's observed |gain| as a dotted line of its colour, the test set's own
    size as a vertical dashed line (a trace named "this test set (n)").

    Line traces are named ``"<b> vs <a>"`` (their ``x`` the sizes, ``y`` the thresholds); the observed gains are
    traces named ``"<b> vs <a>: observed"``, with one legend entry for them all (a trace without points).
    """
    if curves.empty:
        raise ParameterError("`curves` is empty; compute them with evalcore.systems.sizes.size_curves")
    fig = go.Figure()
    pairs = list(dict.fromkeys(zip(curves["a"], curves["b"])))
    for k, (a, b) in enumerate(pairs):
        part = curves[(curves["a"] == a) & (curves["b"] == b)].sort_values("size")
        colour, dash = style.style(k)
        name = f"{plotly_text(str(b))} vs {plotly_text(str(a))}"
        sizes = part["size"].to_numpy(float)
        fig.add_trace(go.Scatter(
            x=sizes, y=part["threshold"].to_numpy(float), mode="lines+markers", name=name, legendgroup=name,
            line=dict(color=colour, dash=dash, width=2), marker=dict(size=6),
            customdata=np.where(part["extrapolated"], "extrapolated", "subsample"),
            hovertemplate=f"<b>{name}</b><br>m = %{{x:,}} (%{{customdata}})<br>smallest significant gain "
                          "%{y:.4g}<extra></extra>"))
        observed = abs(float(part["observed"].iloc[0]))
        fig.add_trace(go.Scatter(
            x=[sizes.min(), sizes.max()], y=[observed, observed], mode="lines", name=f"{name}: observed",
            legendgroup=name, showlegend=False, line=dict(color=colour, dash="dot", width=1.2),
            hovertemplate=f"<b>{name}</b><br>observed |gain| {observed:.4g}<extra></extra>"))
    # (a legend entry for the dotted lines, which carry no legend of their own: one key for them all)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="observed |gain| (dotted, the pair's colour)",
                             line=dict(color=style.REFERENCE_GREY, dash="dot", width=1.2), hoverinfo="skip"))
    top = float(np.nanmax(np.r_[curves["threshold"].to_numpy(float), curves["observed"].abs().to_numpy(float)]))
    top = top * 1.08 if np.isfinite(top) and top > 0 else 1.0
    fig.add_trace(go.Scatter(x=[n_items, n_items], y=[0, top], mode="lines", name=f"this test set ({n_items:,})",
                             line=dict(color=style.REFERENCE_GREY, dash="dash", width=1), hoverinfo="skip"))
    style._layout(fig, title=title)
    sizes = curves["size"].to_numpy(float)
    ticks = sorted({int(m) for m, f in zip(curves["size"], curves["fraction"])
                    if any(abs(f - t) < 1e-9 for t in (0.1, 0.2, 0.5, 1.0, 2.0, 4.0))} | {int(n_items)})
    fig.update_xaxes(title_text=f"test-set size m ({unit}; beyond the dashed line: resampled with replacement)",
                     type="log", tickvals=ticks, ticktext=[f"{t:,}" for t in ticks],
                     range=[np.log10(sizes.min()) - 0.05, np.log10(max(sizes.max(), n_items)) + 0.05])
    fig.update_yaxes(range=[0, top])
    fig.update_yaxes(title_text=f"smallest gain of {metric.label} significant at α = {alpha:g}", rangemode="tozero")
    fig.update_layout(meta={"print_x": "test-set size m", "print_y": f"smallest significant gain ({metric.label})"})
    return fig


def for_print(fig: go.Figure) -> go.Figure:
    """The print look of any of these figures (:func:`evalcore.figures.style.for_print`), with the short axis titles
    an 8.5 cm column has room for (``layout.meta``'s ``print_x``, ``print_y``)."""
    out = style.for_print(fig)
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    if "print_x" in meta:
        out.update_xaxes(title_text=meta["print_x"])
    if "print_y" in meta:
        out.update_yaxes(title_text=meta["print_y"])
    return out
