"""Figures of Evert (2004): n-best precision curves, confidence bands, significant differences.

Every function here takes result tables that evalcore computed (the tidy DataFrames of
:mod:`evalcore.curves` and :mod:`evalcore.compare`, or plain arrays) and returns a
:class:`plotly.graph_objects.Figure`; nothing is computed here but what a screen can show.
A curve of a million list sizes is cut down by :func:`downsample` to about
``max_points`` vertices per trace that keep its drawn shape (the envelope of every line
and band), so a figure stays small (well under 200 KB as JSON) whatever N is. Data go
into the figure as numpy arrays, which plotly sends as compact binary (base64) arrays.

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from ..errors import ColumnError, EvalcoreError, ParameterError
from .. import format as fmt
from ..text import plotly_text, shown

from .style import (
    PALETTE,
    REFERENCE_GREY,
    MARKER_GREY,
    X_TITLE,
    CURVE_COLUMNS,
    COMPARISON_COLUMNS,
    METRICS,
    style,
    downsample,
    _require,
    _by_n,
    _in_range,
    _check_range,
    _groups,
    _percent,
    _rgba,
    _format_level,
    _check_alpha,
    _check_max_points,
    _layout,
    _line_trace,
    _baseline_trace,
    _x_extent,
    _n_axis,
)

__all__ = ["precision_figure", "confidence_figure", "significance_figure", "threshold_histogram", "pvalue_figure",
           "difference_figure", "log_score_axis_applicable", "score_scale", "ScoreScale"]


def _format_p(p_value: np.ndarray, log10_p: np.ndarray) -> np.ndarray:
    """p as the pages write it (:func:`evalcore.format.p_statement`): ``p = 0.0431``, ``p = 3.2e-05``; below
    1e-300 (p == 0 after underflow) ``p < 1e-300 (log10 p = -412.3)`` from log10 p."""
    p_value = np.asarray(p_value, dtype=np.float64)
    log10_p = np.asarray(log10_p, dtype=np.float64)
    return np.array([fmt.p_statement(p, lg) for p, lg in zip(p_value.tolist(), log10_p.tolist())], dtype=object)


# ---------------------------------------------------------------------------------------------
# Figure 1


def precision_figure(curves: pd.DataFrame, *, baseline: float, metric: str = "precision",
                     show_recall: bool = False, show_f: bool = False, beta: float = 1.0,
                     n_range: tuple[int, int] | None = None, max_points: int = 2000,
                     measure_styles: Mapping[str, int] | None = None, title: str | None = None) -> go.Figure:
    """n-best precision curves of several measures with the baseline (Evert 2004, Figure 1).

    Parameters
    ----------
    curves : DataFrame
        From :func:`evalcore.curves.precision_curve`, one or several measures concatenated:
        columns ``measure, n, tp, precision`` and ``recall``, ``f_beta`` where shown.
    baseline : float
        Baseline precision T / N (a random selection), drawn as a dashed grey line.
    metric : {"precision", "recall", "f_beta"}
        The quantity of the main panel.
    show_recall, show_f : bool
        Add a panel with recall, or with F-beta, under the main one (same x axis, same
        line styles; clicking a measure in the legend hides it in every panel).
    beta : float
        The beta the curves were computed with; only names the F panel ("F1", "F0.5").
    n_range : (int, int), optional
        Draw list sizes ``n_range[0] <= n <= n_range[1]`` only (the paper: 100 to 2,000).
        The curves are cut before downsampling, so the shown range keeps full detail.
    max_points : int
        Vertices per measure after :func:`downsample` (the envelope of every drawn line).
    measure_styles : mapping of str to int, optional
        Style index (see :func:`style`) per measure; order of appearance by default.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: per measure one line per panel (name = measure, y in percent, customdata =
        TPs), then the baseline (name "baseline 11.09%").

    Notes
    -----
    ``precision = tp / n`` is drawn as a percentage; the baseline is the precision of the
    full candidate set, ``T / N``, which every curve reaches at n = N.

    References
    ----------
    Evert, S. (2004). Significance tests for the evaluation of ranking methods. COLING, §2, Figure 1.
    """
    _check_max_points(max_points)
    if metric not in METRICS:
        raise ParameterError(f"`metric` must be one of {', '.join(METRICS)}; got {metric!r}")
    if not beta > 0:
        raise ParameterError(f"`beta` must be positive; got {beta!r}")
    panels = [metric] + [m for m, on in (("recall", show_recall), ("f_beta", show_f)) if on and m != metric]
    _require(curves, (*CURVE_COLUMNS, *panels), "curves")
    curves = _in_range(curves, n_range, "curves")
    groups = _groups(curves, measure_styles)
    titles = {m: METRICS[m].format(beta=f"{beta:g}") + " (%)" for m in panels}

    if len(panels) == 1:
        fig = go.Figure()
        rows = {panels[0]: None}
    else:
        heights = [0.55] + [0.45 / (len(panels) - 1)] * (len(panels) - 1)
        fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.04,
                            row_heights=heights)
        rows = {m: k + 1 for k, m in enumerate(panels)}
    for name, index, table in groups:
        colour, dash = style(index)
        n = table["n"].to_numpy()
        values = {m: _percent(table[m].to_numpy()) for m in panels}
        idx = downsample(n, *values.values(), max_points=max_points)
        tp = table["tp"].to_numpy()[idx]
        for k, m in enumerate(panels):
            trace = _line_trace(name, n[idx], values[m][idx], tp if k == 0 else None, colour, dash,
                                METRICS[m].format(beta=f"{beta:g}"), showlegend=k == 0)
            fig.add_trace(trace, row=rows[m], col=1 if rows[m] else None)
    extent = _x_extent([g for _, _, g in groups], n_range)
    if "precision" in panels:
        fig.add_trace(_baseline_trace(baseline, *extent), row=rows["precision"],
                      col=1 if rows["precision"] else None)
    _layout(fig, title=title)
    for m in panels:
        axis = dict(title_text=titles[m], rangemode="tozero")
        fig.update_yaxes(**axis, row=rows[m], col=1 if rows[m] else None)
    fig.update_xaxes(title_text=X_TITLE, row=len(panels) if len(panels) > 1 else None,
                     col=1 if len(panels) > 1 else None)
    _n_axis(fig, extent)
    return fig


# ---------------------------------------------------------------------------------------------
# Figure 2


def _band_traces(name: str, n: np.ndarray, lower: np.ndarray, upper: np.ndarray, colour: str,
                 label: str, alpha: float) -> tuple[go.Scatter, go.Scatter]:
    """Lower bound (invisible), then upper bound filled down to it ("tonexty")."""
    common = dict(mode="lines", legendgroup=plotly_text(name), line=dict(width=0, color=colour), hoverinfo="skip")
    low = go.Scatter(x=n, y=lower, name=f"{label} (lower)", showlegend=False, **common)
    high = go.Scatter(x=n, y=upper, name=label, fill="tonexty", fillcolor=_rgba(colour, alpha), **common)
    return low, high


def confidence_figure(curves: pd.DataFrame, *, baseline: float, level: float, method_label: str,
                      max_points: int = 2000, n_range: tuple[int, int] | None = None,
                      measure_styles: Mapping[str, int] | None = None, title: str | None = None) -> go.Figure:
    """Precision curves with shaded confidence bands (Evert 2004, Figure 2).

    Parameters
    ----------
    curves : DataFrame
        From :func:`evalcore.curves.precision_curve` with a confidence level: columns
        ``measure, n, tp, precision, lower, upper``; one to three measures (more bands
        hide each other).
    baseline : float
        Baseline precision T / N.
    level : float
        The confidence level the bounds were computed at (0.95); named in the legend.
    method_label : str
        The interval method, e.g. "Clopper-Pearson"; named in the legend.
    max_points, n_range, measure_styles, title
        As in :func:`precision_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        Per measure three traces: the lower bound (no legend entry, no fill), the upper
        bound filled down to the lower one (name "G2: 95% Clopper-Pearson"), the precision
        line (hover: TPs, precision and both bounds); then the baseline. Bounds in percent.

    Notes
    -----
    The band is a binomial confidence interval for the true precision of the acceptance
    region (Evert 2004, §3.2): it says how far precision may move when the experiment is
    repeated, not whether two measures differ (overlapping bands can still differ
    significantly; see :func:`significance_figure`).
    """
    _check_max_points(max_points)
    level_text = _format_level(level)
    _require(curves, (*CURVE_COLUMNS, "lower", "upper"), "curves")
    curves = _in_range(curves, n_range, "curves")
    groups = _groups(curves, measure_styles)
    if len(groups) > 3:
        raise ParameterError(f"`curves` holds {len(groups)} measures; a confidence figure shows at most 3 "
                             f"(bands would hide each other): {', '.join(m for m, _, _ in groups)}")
    fig = go.Figure()
    for name, index, table in groups:
        colour, dash = style(index)
        n = table["n"].to_numpy()
        y, lower, upper = (_percent(table[c].to_numpy()) for c in ("precision", "lower", "upper"))
        idx = downsample(n, y, lower, upper, max_points=max_points)
        fig.add_traces(_band_traces(name, n[idx], lower[idx], upper[idx], colour,
                                    f"{plotly_text(name)}: {level_text} {method_label}", 0.2))
        fig.add_trace(_line_trace(name, n[idx], y[idx], table["tp"].to_numpy()[idx], colour, dash,
                                  bounds=(lower[idx], upper[idx])))
    extent = _x_extent([g for _, _, g in groups], n_range)
    fig.add_trace(_baseline_trace(baseline, *extent))
    _layout(fig, title=title)
    fig.update_xaxes(title_text=X_TITLE)
    fig.update_yaxes(title_text="precision (%)", rangemode="tozero")
    _n_axis(fig, extent)
    return fig


# ---------------------------------------------------------------------------------------------
# Figure 3


def _triangle_rows(n: np.ndarray, significant: np.ndarray, extent: tuple[float, float],
                   max_triangles: int | None) -> np.ndarray:
    """Rows of the significant tests that get a triangle: all of them, or, beyond `max_triangles`,
    the first significant row in each of `max_triangles` equal slices of the plotted n range, so
    that neighbouring triangles are at least a slice apart and each stays a readable triangle."""
    rows = np.flatnonzero(significant)
    if max_triangles is None or rows.size <= max_triangles:
        return rows
    lo, hi = extent
    width = (hi - lo) / max_triangles if hi > lo else 1.0
    bucket = np.floor((n[rows].astype(np.float64) - lo) / width).astype(np.int64)
    return rows[np.r_[True, bucket[1:] != bucket[:-1]]]


def _significant_runs(n: np.ndarray, significant: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First and last n of every run of consecutive significant rows, and the number of tests in each."""
    rows = np.flatnonzero(significant)
    if rows.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    gap = np.diff(rows) > 1
    first_rows, last_rows = rows[np.r_[True, gap]], rows[np.r_[gap, True]]
    return n[first_rows], n[last_rows], last_rows - first_rows + 1


def _rug_trace(n: np.ndarray, significant: np.ndarray, alpha: float) -> go.Scatter:
    """Every significant n as a strip along the x axis: one bar per run of consecutive significant tests."""
    first, last, tests = _significant_runs(n, significant)
    x = np.full(3 * first.size, np.nan)
    x[0::3], x[1::3] = first - 0.5, last + 0.5
    y = np.zeros(x.size, dtype=np.float32)
    y[2::3] = np.nan
    text = np.empty(x.size, dtype=object)
    words = [f"n = {a:,}" if a == b else f"n = {a:,} to {b:,} ({k:,} tests)" for a, b, k in zip(first, last, tests)]
    text[0::3], text[1::3], text[2::3] = words, words, ""
    # a bar per run, and a tick at each end so that an isolated significant n shows at any zoom
    return go.Scatter(x=x, y=y, mode="lines+markers", name=f"every significant n (p < {alpha:g})", legendrank=2001,
                      meta="rug",
                      line=dict(color=MARKER_GREY, width=7), connectgaps=False, text=text,
                      marker=dict(symbol="line-ns-open", size=10, color=MARKER_GREY, line=dict(width=1.5)),
                      hovertemplate="%{text}: significant<extra></extra>", cliponaxis=False)


def _curve_of(curve: pd.DataFrame, what: str) -> tuple[str, pd.DataFrame]:
    _require(curve, CURVE_COLUMNS, what)
    names = pd.unique(curve["measure"])
    if len(names) != 1:
        raise ParameterError(f"`{what}` must hold one measure; it holds {len(names)}: "
                             f"{', '.join(map(str, names[:5]))}")
    return str(names[0]), _by_n(curve)


def significance_figure(curve_a: pd.DataFrame, curve_b: pd.DataFrame, comparison: pd.DataFrame, *,
                        up_to: int, alpha: float, max_points: int = 2000, max_triangles: int | None = 80,
                        show_bands: bool = True, markers_at: str = "curve", baseline: float | None = None,
                        n_range: tuple[int, int] | None = None, measure_styles: Mapping[str, int] | None = None,
                        title: str | None = None) -> go.Figure:
    """Precision curves of two measures with their significant differences marked (Evert 2004, Figure 3).

    Parameters
    ----------
    curve_a, curve_b : DataFrame
        :func:`evalcore.curves.precision_curve` of measures A and B (one measure each);
        with columns ``lower, upper`` their confidence bands are drawn light.
    comparison : DataFrame
        :func:`evalcore.compare.compare_rankings` of A against B: columns ``n, p_value,
        log10_p, significant, tp_a, tp_b``.
    up_to : int
        :func:`evalcore.compare.significant_up_to`: a thin vertical line at this n,
        annotated "significant up to n = 1,268"; none when 0.
    alpha : float
        The significance level of `comparison` (1 - confidence level); names the markers.
    max_points : int
        Vertices per line before markers are added (see :func:`downsample`).
    max_triangles : int or None
        At most this many triangles: beyond it, one triangle per ``1/max_triangles`` of the
        plotted n range (at the first significant n in it), so that triangles never merge into
        a thick outline (80 leave about 10 pixels between neighbours in a figure 800 pixels
        wide). Every significant n is still shown, by the rug along the x axis. None: a
        triangle at every significant n.
    show_bands : bool
        Draw the confidence bands when the curves have them.
    markers_at : {"curve", "axis"}
        "curve" (the paper): each triangle sits on the better measure's curve at its n;
        "axis": a row of triangles just above the x axis.
    baseline : float, optional
        Baseline precision; taken from the curves' ``baseline`` column when omitted.
    n_range, measure_styles, title
        As in :func:`precision_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: for A and B the band (two traces, if shown); the lines of A and B, whose
        vertices include every n with a triangle; the baseline (if known); the rug "every
        significant n" (a grey strip at y = 0, one bar from ``first - 0.5`` to ``last + 0.5``
        for every run of consecutive significant tests, NaN between bars); the triangles
        "significant (p < alpha)" ("triangle-up", grey; on the better measure's curve, i.e. at
        ``max(tp_a, tp_b) / n``, or at y = 0.5 % with ``markers_at="axis"``), drawn last, on
        top. Triangles carry the p-value as hover text ("p = 3.2e-05"; below 1e-300
        "p < 1e-300 (log10 p = -412.3)", from ``log10_p``). The line at `up_to` is
        ``layout.shapes[0]``.

    Notes
    -----
    A and B differ only in D1 = A \\ B and D2 = B \\ A; a marker says that Fisher's exact
    test on ``[[T_D1, F_D1], [T_D2, F_D2]]`` rejects pi_D1 = pi_D2 at that n (Evert 2004,
    §3.3). For n-best lists the better curve is the one with more TPs.
    """
    _check_max_points(max_points)
    alpha = _check_alpha(alpha)
    if max_triangles is not None and (not isinstance(max_triangles, (int, np.integer)) or max_triangles < 1):
        raise ParameterError(f"`max_triangles` must be a positive whole number or None; got {max_triangles!r}")
    if markers_at not in ("curve", "axis"):
        raise ParameterError(f"`markers_at` must be 'curve' or 'axis'; got {markers_at!r}")
    if not isinstance(up_to, (int, np.integer)) or up_to < 0:
        raise ParameterError(f"`up_to` must be a non-negative whole number (significant_up_to); got {up_to!r}")
    name_a, curve_a = _curve_of(curve_a, "curve_a")
    name_b, curve_b = _curve_of(curve_b, "curve_b")
    _require(comparison, COMPARISON_COLUMNS, "comparison")
    curve_a = _in_range(curve_a, n_range, "curve_a")
    curve_b = _in_range(curve_b, n_range, "curve_b")
    comparison = _by_n(comparison)
    if n_range is not None:
        lo, hi = _check_range(n_range)
        n_all = comparison["n"].to_numpy()
        comparison = comparison.loc[(n_all >= lo) & (n_all <= hi)]
    if measure_styles is None:
        measure_styles = {name_a: 0, name_b: 1}
    unknown = [m for m in (name_a, name_b) if m not in measure_styles]
    if unknown:
        raise ParameterError(f"`measure_styles` has no entry for {', '.join(map(repr, unknown))}; "
                             f"it has {', '.join(map(repr, measure_styles))}")
    if name_a == name_b:
        raise ParameterError(f"`curve_a` and `curve_b` are both of measure {shown(name_a)}; compare two measures")

    n_cmp = comparison["n"].to_numpy()
    significant = comparison["significant"].to_numpy(dtype=bool)
    extent = _x_extent((curve_a, curve_b), n_range)
    rows = _triangle_rows(n_cmp, significant, extent, max_triangles)
    marked_n = n_cmp[rows]

    bands, lines = [], []
    for name, table in ((name_a, curve_a), (name_b, curve_b)):
        colour, dash = style(int(measure_styles[name]))
        n = table["n"].to_numpy()
        y = _percent(table["precision"].to_numpy())
        if show_bands and {"lower", "upper"} <= set(table.columns):
            lower, upper = _percent(table["lower"].to_numpy()), _percent(table["upper"].to_numpy())
            band = downsample(n, lower, upper, max_points=max_points)
            bands += _band_traces(name, n[band], lower[band], upper[band], colour,
                                  f"{plotly_text(name)}: confidence band", 0.12)
        pos = np.minimum(np.searchsorted(n, marked_n), n.size - 1)
        keep = np.zeros(n.size, dtype=bool)
        keep[pos[n[pos] == marked_n]] = True
        idx = downsample(n, y, max_points=max_points, keep=keep)
        lines.append(_line_trace(name, n[idx], y[idx], table["tp"].to_numpy()[idx], colour, dash))
    if baseline is None and "baseline" in curve_a.columns:
        baseline = float(curve_a["baseline"].iloc[0])
    if baseline is not None:
        lines.append(_baseline_trace(baseline, *extent))

    marked = comparison.iloc[rows]
    better_tp = np.maximum(marked["tp_a"].to_numpy(), marked["tp_b"].to_numpy())
    marker_y = _percent(better_tp / marked_n) if markers_at == "curve" else np.full(rows.size, 0.5, np.float32)
    markers = go.Scatter(
        x=marked_n, y=marker_y, mode="markers", name=f"significant (p < {alpha:g})", legendrank=2000,
        marker=dict(symbol="triangle-up", size=9 if markers_at == "curve" else 7, color=MARKER_GREY,
                    line=dict(color="white", width=0.5)),
        text=_format_p(marked["p_value"].to_numpy(), marked["log10_p"].to_numpy()),
        hovertemplate="n = %{x:,}<br>%{text}<extra></extra>",
    )
    fig = go.Figure(bands + lines + [_rug_trace(n_cmp, significant, alpha), markers])
    _layout(fig, title=title)
    if up_to > 0:
        fig.add_vline(x=int(up_to), line=dict(color="#444444", width=1), opacity=1, layer="above",
                      annotation=dict(text=f"significant up to n = {int(up_to):,}", font=dict(size=12),
                                      bgcolor="rgba(255,255,255,0.8)", yshift=10),  # above the rug
                      annotation_position="bottom right")
    fig.update_xaxes(title_text=X_TITLE)
    fig.update_yaxes(title_text="precision (%)", rangemode="tozero")
    _n_axis(fig, extent)
    return fig


DIFFERENCE_COLUMNS = ("n", "diff", "diff_low", "diff_high", "significant", "p_value", "log10_p")


def difference_figure(comparison: pd.DataFrame, *, alpha: float, level: float, names: tuple[str, str],
                      detectable: pd.DataFrame | None = None, power: float = 0.8, up_to: int = 0,
                      interval_label: str = "Newcombe", max_points: int = 2000, max_triangles: int | None = 80,
                      n_range: tuple[int, int] | None = None, title: str | None = None) -> go.Figure:
    """The difference of precision Pi_A - Pi_B along n with its interval band (the panel under Figure 3).

    Parameters
    ----------
    comparison : DataFrame
        :attr:`evalcore.analysis.PairResult.comparison`: columns ``n, diff, diff_low, diff_high``
        (:func:`evalcore.stats.effect.effect_sizes`) and ``significant, p_value, log10_p``.
    alpha : float
        The significance level of ``significant``; names the markers.
    level : float
        The confidence level of the interval; names the band.
    names : (str, str)
        The measures A and B (shown as text, escaped).
    detectable : DataFrame, optional
        :func:`evalcore.stats.power.detectable_differences` (columns ``n, mdd``): drawn as a
        dashed line at ``+mdd`` and at ``-mdd``, the smallest difference the test finds with
        `power`, beside the observed one.
    power : float
        The power `detectable` was computed for; names its lines.
    up_to : int
        :func:`evalcore.compare.significant_up_to`: a thin vertical line there, as in Figure 3.
    interval_label, max_points, max_triangles, n_range, title
        The interval method's name in the legend; as in :func:`significance_figure` (every
        significant n is marked by Figure 3's rug above this panel; here at most `max_triangles`).

    Returns
    -------
    plotly.graph_objects.Figure
        Traces in percentage points: the interval's lower bound (no legend) and upper bound
        filled down to it; the difference (name "Π_A − Π_B"); with `detectable`, the lines at
        +MDD and −MDD (one legend entry, "±MDD at 80% power"); the markers of the significant n on the difference
        line (grey triangles, hover text the p-value, thinned as in Figure 3), last. The zero line
        is ``layout.shapes[0]``, the line at `up_to`
        ``layout.shapes[1]``.

    Notes
    -----
    Where the difference is significant the band usually excludes 0, but the band (a score
    interval of ``pi_D1 - pi_D2``, scaled by d / n) and Fisher's conditional test are different
    calculations and can disagree near the boundary; the exact odds-ratio interval excludes 1
    exactly where Fisher's test is significant. Where a difference is not significant and
    small against the MDD lines, the lists perform alike; where the MDD is large, there are
    too few candidates in D1 and D2 to tell.
    """
    _check_max_points(max_points)
    alpha = _check_alpha(alpha)
    level_text = _format_level(level)
    if max_triangles is not None and (not isinstance(max_triangles, (int, np.integer)) or max_triangles < 1):
        raise ParameterError(f"`max_triangles` must be a positive whole number or None; got {max_triangles!r}")
    _require(comparison, DIFFERENCE_COLUMNS, "comparison")
    comparison = _in_range(_by_n(comparison), n_range, "comparison")
    name_a, name_b = (plotly_text(str(v)) for v in names)
    n = comparison["n"].to_numpy()
    y, low, high = (_percent(comparison[c].to_numpy()) for c in ("diff", "diff_low", "diff_high"))
    extent = _x_extent([comparison], n_range)
    rows = _triangle_rows(n, comparison["significant"].to_numpy(dtype=bool), extent, max_triangles)
    keep = np.zeros(n.size, dtype=bool)
    keep[rows] = True
    idx = downsample(n, y, low, high, max_points=max_points, keep=keep)
    colour = PALETTE[0]
    traces = list(_band_traces("difference", n[idx], low[idx], high[idx], colour,
                               f"{level_text} interval ({plotly_text(interval_label)})", 0.2))
    # the hover writes the difference and its bounds as the tables do (evalcore.format.signed: a bound that rounds
    # to zero keeps its side of zero, -0.0004, where d3-format would write -0.00), so as text
    written = np.array([[fmt.signed(v) for v in values] for values in (y[idx], low[idx], high[idx])],
                       dtype=object).T.reshape(-1, 3)
    traces.append(go.Scatter(
        x=n[idx], y=y[idx], customdata=written, mode="lines", name="Π_A − Π_B",
        line=dict(color=colour, width=2),
        hovertemplate=(f"n = {fmt.hover('x', 'count')}<br>{name_a} − {name_b} = %{{customdata[0]}} points"
                       " [%{customdata[1]}, %{customdata[2]}]<extra></extra>")))
    if detectable is not None:
        _require(detectable, ("n", "mdd"), "detectable")
        detectable = _in_range(_by_n(detectable), n_range, "detectable")
        dn = detectable["n"].to_numpy()
        mdd = _percent(detectable["mdd"].to_numpy())
        keep_mdd = downsample(dn, mdd, max_points=max_points)
        label = f"±MDD at {power:.0%} power"  # the smallest difference the test finds with that power
        for sign, show in ((1, True), (-1, False)):
            traces.append(go.Scatter(
                x=dn[keep_mdd], y=sign * mdd[keep_mdd], mode="lines", name=label, legendgroup="mdd",
                showlegend=show, line=dict(color=REFERENCE_GREY, dash="dash", width=1.5),
                hovertemplate=f"n = {fmt.hover('x', 'count')}<br>MDD: {fmt.hover('y', 'points')} points<extra></extra>"))
    marked = comparison.iloc[rows]
    markers = go.Scatter(
        x=n[rows], y=y[rows], mode="markers", name=f"significant (p < {alpha:g})", legendrank=2000,
        marker=dict(symbol="triangle-up", size=8, color=MARKER_GREY),
        text=_format_p(marked["p_value"].to_numpy(), marked["log10_p"].to_numpy()),
        hovertemplate="n = %{x:,}<br>%{text}<extra></extra>")
    fig = go.Figure(traces + [markers])
    _layout(fig, title=title)
    # the zero line and the line at up_to as plain shapes (add_hline/add_vline cost ~30 ms each)
    shapes = [dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=0, y1=0, layer="below",
                   line=dict(color="#222222", width=1))]
    if up_to > 0:
        shapes.append(dict(type="line", xref="x", x0=int(up_to), x1=int(up_to), yref="y domain", y0=0, y1=1,
                           layer="above", line=dict(color="#444444", width=1)))
    fig.update_layout(shapes=shapes,
                      xaxis=dict(title_text=X_TITLE, range=list(extent), tickformat=","),
                      yaxis=dict(title_text=f"Π_A − Π_B ({name_a} − {name_b}), points", zeroline=False))
    return fig


def pvalue_figure(comparison: pd.DataFrame, *, alpha: float, max_points: int = 2000,
                  n_range: tuple[int, int] | None = None, title: str | None = None) -> go.Figure:
    """-log10 p of the comparison against n, with the significance threshold -log10 alpha.

    Parameters
    ----------
    comparison : DataFrame
        :func:`evalcore.compare.compare_rankings`: columns ``n, p_value, log10_p``.
    alpha : float
        Significance level; a dashed line at ``-log10 alpha`` (points above it are significant).
    max_points, n_range, title
        As in :func:`precision_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        One line trace, y = ``-log10_p`` (exact also where p underflowed to 0), hover text
        the p-value; the threshold is ``layout.shapes[0]``.
    """
    _check_max_points(max_points)
    alpha = _check_alpha(alpha)
    _require(comparison, ("n", "p_value", "log10_p"), "comparison")
    comparison = _in_range(_by_n(comparison), n_range, "comparison")
    n = comparison["n"].to_numpy()
    y = (-comparison["log10_p"].to_numpy(dtype=np.float64)).astype(np.float32)
    idx = downsample(n, y, max_points=max_points)
    fig = go.Figure(go.Scatter(
        x=n[idx], y=y[idx], mode="lines", name="Fisher's exact test", line=dict(color=PALETTE[0], width=1.5),
        text=_format_p(comparison["p_value"].to_numpy()[idx], comparison["log10_p"].to_numpy()[idx]),
        hovertemplate="n = %{x:,}<br>%{text}<extra></extra>", showlegend=False,
    ))
    _layout(fig, title=title)
    threshold = -np.log10(alpha)
    fig.add_hline(y=threshold, line=dict(color=REFERENCE_GREY, dash="dash", width=1.5), opacity=1,
                  annotation=dict(text=f"α = {alpha:g}", font=dict(size=12)), annotation_position="top right")
    fig.update_xaxes(title_text=X_TITLE)
    fig.update_yaxes(title_text="−log₁₀ p", rangemode="tozero")
    _n_axis(fig, _x_extent([comparison], n_range))
    return fig


# ---------------------------------------------------------------------------------------------
# threshold histogram


HISTOGRAM_BINS = 60


def log_score_axis_applicable(scores: np.ndarray, bins: int = HISTOGRAM_BINS) -> bool:
    """Whether the threshold histogram should draw its score axis logarithmically by default.

    Parameters
    ----------
    scores : array_like of float, shape (N,)
        One measure's scores; NaN and +-inf are ignored (the histogram leaves them out too).
    bins : int
        The number of bins of the histogram (60 on the Threshold page).

    Returns
    -------
    bool
        True when the scores are heavy-tailed, which here means: on the linear axis more than half
        of the finite scores fall into one of ``bins`` equal bins. Then the linear histogram is one
        tall bar and a long, nearly empty tail, and a log axis (:func:`score_scale`: log10 for
        positive scores, a signed log where some are zero or negative) spreads the bulk of the
        candidates out. False for fewer than two distinct finite scores.

    Notes
    -----
    On Krenn's PP-verb data (Evert 2004) this holds for frequency (30 to 4,144, 85% of the
    candidates in the first bin), Dice, G² (-438 to 19,426: 71% in one bin), X² with and without
    continuity correction, z and Fisher's score; not for t (21%) and MI (7%), which spread over
    the linear axis.

    Examples
    --------
    >>> log_score_axis_applicable(np.r_[np.ones(90), np.linspace(2, 1000, 10)])
    True
    >>> log_score_axis_applicable(np.linspace(1, 2, 100)), log_score_axis_applicable(np.r_[-1.0, np.ones(99)])
    (False, True)
    """
    finite = np.asarray(scores, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size < 2 or not finite.max() > finite.min():
        return False
    counts, _ = np.histogram(finite, bins=bins)
    return bool(counts.max() > finite.size / 2)


@dataclass(frozen=True)
class ScoreScale:
    """A logarithmic score axis: log10 of positive scores, or, where a score or gamma is not positive, the signed
    log ``sign(x) log10(1 + |x| / c)``, linear near 0 (within about ``c``) and logarithmic beyond.

    ``kind`` is ``"log"`` or ``"signed log"``; ``c`` the signed log's linear scale (1 for log).
    """

    kind: str
    c: float = 1.0

    def forward(self, x):
        """Scores to axis units."""
        x = np.asarray(x, dtype=np.float64)
        if self.kind == "log":
            return np.log10(x)
        return np.sign(x) * np.log10(1.0 + np.abs(x) / self.c)

    def inverse(self, t):
        """Axis units to scores."""
        t = np.asarray(t, dtype=np.float64)
        if self.kind == "log":
            return 10.0 ** t
        return np.sign(t) * self.c * (10.0 ** np.abs(t) - 1.0)

    def ticks(self, lo: float, hi: float, most: int = 10) -> tuple[np.ndarray, list[str]]:
        """Major ticks for scores from ``lo`` to ``hi``: axis positions and labels. The powers of ten in the
        range (log), or 0 and plus and minus ``c`` times the powers of ten (signed log); 1, 2 and 5 times them
        where fewer than four powers fall inside; every k-th power where more than ``most`` would crowd; the
        range's ends where fewer than two ticks fall inside."""
        def inside(values):
            return values[(values >= lo - 1e-9 * abs(lo)) & (values <= hi + 1e-9 * abs(hi))]

        if self.kind == "log":
            first, last = np.floor(np.log10(lo) + 1e-9), np.floor(np.log10(hi) + 1e-9)
        else:
            first, last = 0.0, np.floor(np.log10(max(abs(lo), abs(hi), self.c) / self.c) + 1e-9)
        for multiples in ((1.0,), (1.0, 2.0, 5.0)):  # 1-2-5 where fewer than four powers of ten fall inside
            powers = np.array([m * 10.0 ** e for e in np.arange(first, last + 1) for m in multiples])
            if self.kind != "log":
                powers = self.c * powers
                powers = np.r_[-powers[::-1], 0.0, powers]
            values = inside(powers)
            if np.count_nonzero(values) >= 4:
                break
        if values.size > most:  # every k-th power of ten, counted from the largest, and 0
            zero = values == 0
            magnitude = np.round(np.log10(np.abs(np.where(zero, 1.0, values)) / self.c)).astype(int)
            for k in range(2, magnitude.max() + 2):
                kept = zero | ((magnitude.max() - magnitude) % k == 0)
                if kept.sum() <= most:
                    break
            values = values[kept]
        if values.size < 2:
            values = np.array([lo, hi])
        return self.forward(values), [_power_label(v) for v in values]


def _power_label(v: float) -> str:
    """A tick label of a log axis: ``0``, ``0.01``, ``100``, ``1000``, from 10,000 on ``10⁴`` (and ``−10⁴``)."""
    if v == 0:
        return "0"
    sign = "\u2212" if v < 0 else ""
    exponent = np.log10(abs(v))
    if 1e-3 <= abs(v) < 1e4 or not np.isclose(exponent, round(exponent)):
        return sign + fmt.score(abs(v))
    return sign + "10" + str(int(round(exponent))).translate(_SUPERSCRIPTS)


_SUPERSCRIPTS = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def score_scale(scores: np.ndarray, gamma: float | None = None) -> ScoreScale:
    """The logarithmic axis for these scores (and gamma): log10 where every finite score and gamma are positive,
    else the signed log with ``c`` the power of ten at or below a tenth of the median nonzero ``|score|`` (so that
    most scores lie in its logarithmic part: G² on Krenn's data, median |G²| 71.6, gets c = 1).

    Examples
    --------
    >>> score_scale(np.array([30.0, 47, 4144])).kind
    'log'
    >>> score_scale(np.array([-2.0, 0.0, 5.0, 67.3, 120.0, 19425.6]))
    ScoreScale(kind='signed log', c=1.0)
    """
    finite = np.asarray(scores, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size and finite.min() > 0 and (gamma is None or gamma > 0):
        return ScoreScale("log")
    nonzero = np.abs(finite[finite != 0])
    middle = float(np.median(nonzero)) if nonzero.size else 1.0
    return ScoreScale("signed log", float(10.0 ** np.floor(np.log10(middle / 10))))


def threshold_histogram(scores: np.ndarray, labels: np.ndarray, *, gamma: float, measure: str,
                        higher_is_better: bool = True, bins: int = HISTOGRAM_BINS,
                        score_range: tuple[float, float] | None = None, log_count: bool = False,
                        log_score: bool | None = False, title: str | None = None) -> go.Figure:
    """Histogram of the scores of TPs and FPs with the acceptance threshold gamma.

    Parameters
    ----------
    scores : ndarray of float, shape (N,)
        Scores of one measure; NaN and +-inf are left out and counted in the legend.
    labels : ndarray of bool, shape (N,)
        True for TPs.
    gamma : float
        The cut-off: the gamma-acceptance set is ``score >= gamma`` (``<=`` when lower is better).
    measure : str
        Names the x axis.
    higher_is_better : bool
        Which side of gamma is accepted (the arrow next to it).
    bins : int
        Number of bins, shared by TPs and FPs (``numpy.histogram_bin_edges``).
    score_range : (float, float), optional
        Bin only scores in this range (for heavy-tailed scores such as G2); scores outside
        are counted in the legend. The range of the finite scores by default.
    log_count : bool
        A logarithmic count axis (empty bins are not drawn on it).
    log_score : bool or None
        A logarithmic score axis, for heavy-tailed scores (:func:`log_score_axis_applicable`; None:
        where that says so). The axis is :func:`score_scale` of the drawn scores and gamma: log10
        where all are positive, else the signed log ``sign(x) log10(1 + |x| / c)``. The bins are of
        equal width in axis units, and the x axis is drawn in axis units with ticks labelled by the
        scores (:meth:`ScoreScale.ticks`: the powers of ten, with 0 on a signed log axis).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two overlaid bar traces, FP then TP (so the smaller TP bars are drawn on top):
        y = counts per bin, x = bin centres (with `log_score`, in axis units: log10 of the bins'
        geometric centres on a log10 axis), ``customdata`` = bin edges (scores), ``text`` = "score
        2.5 to 3" for the hover, names like "TP (566)". The line at gamma (in axis units with
        `log_score`) is ``layout.shapes[0]``; the legend stands above the plot.

    Notes
    -----
    The bins are counted here with numpy, so the figure holds ``2 * bins`` bars whatever
    N is. The counts of each class sum to its number of drawn scores. Scores and gamma are
    written with six significant digits, as the γ control (:func:`evalcore.format.score`).
    """
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    if scores.ndim != 1 or labels.shape != scores.shape:
        raise ParameterError(f"`scores` and `labels` must be 1-d of equal length; "
                             f"got {scores.shape} and {labels.shape}")
    if labels.dtype != bool:
        raise ParameterError(f"`labels` must be boolean (True for a TP); got dtype {labels.dtype}")
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ParameterError(f"`bins` must be a positive whole number; got {bins!r}")
    gamma = float(gamma)
    if not np.isfinite(gamma):
        raise ParameterError(f"`gamma` must be a finite number; got {gamma!r}")
    finite = np.isfinite(scores)
    drawn = finite
    if score_range is not None:
        lo, hi = (float(v) for v in score_range)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ParameterError(f"`score_range` must be finite (low, high) with low < high; got {score_range!r}")
        drawn = finite & (scores >= lo) & (scores <= hi)
    if not drawn.any():
        raise ParameterError(f"`scores` of {shown(measure)} hold no finite value"
                             + (f" in `score_range` {score_range!r}" if score_range is not None else "")
                             + "; nothing to draw")
    if log_score is None:
        log_score = log_score_axis_applicable(scores[drawn], bins)
    scale = score_scale(scores[drawn], gamma) if log_score else None
    if scale is not None:
        axis_values = scale.forward(scores[drawn])
        axis_edges = np.histogram_bin_edges(axis_values, bins=bins)
        edges = scale.inverse(axis_edges)
        edges[0], edges[-1] = scores[drawn].min(), scores[drawn].max()  # exactly, so no score falls outside
        centres, widths = (axis_edges[:-1] + axis_edges[1:]) / 2, np.diff(axis_edges)
    else:
        edges = np.histogram_bin_edges(scores[drawn], bins=bins)
        centres = (edges[:-1] + edges[1:]) / 2
        widths = np.diff(edges)
    customdata = np.column_stack([edges[:-1], edges[1:]])
    ranges = [f"score {fmt.score(a)} to {fmt.score(b)}" for a, b in customdata.tolist()]
    fig = go.Figure()
    for name, mask, colour in (("FP", ~labels, PALETTE[1]), ("TP", labels, PALETTE[0])):
        counts, _ = np.histogram(scores[drawn & mask], bins=edges)
        notes = [f"{int(k):,} {what}" for k, what in (((~finite & mask).sum(), "non-finite"),
                                                       ((finite & ~drawn & mask).sum(), "outside the range")) if k]
        legend = f"{name} ({int(counts.sum()):,}" + "".join(f"; {t} not shown" for t in notes) + ")"
        fig.add_trace(go.Bar(
            x=centres, y=counts, width=widths, customdata=customdata, name=legend, marker_color=colour,
            marker_line_width=0, opacity=0.6, legendrank=1 if name == "TP" else 2, text=ranges, textposition="none",
            hovertemplate=f"{name}: {fmt.hover('y', 'count')}<br>%{{text}}<extra></extra>",
        ))
    _layout(fig, title=title, legend="above")
    fig.update_layout(barmode="overlay", bargap=0)
    accepted = "accepted →" if higher_is_better else "← accepted"
    fig.add_vline(x=float(scale.forward(gamma)) if scale else gamma, line=dict(color="#222222", width=1.5, dash="dash"),
                  opacity=1, layer="above",
                  annotation=dict(text=f"γ = {fmt.score(gamma)}<br>{accepted}", font=dict(size=12),
                                  bgcolor="rgba(255,255,255,0.8)"),
                  annotation_position="top right" if higher_is_better else "top left")
    if scale is not None:
        tickvals, ticktext = scale.ticks(float(edges[0]), float(edges[-1]))
        fig.update_xaxes(title_text=f"score ({plotly_text(measure)}), {scale.kind} scale", tickvals=tickvals,
                         ticktext=ticktext)
    else:
        fig.update_xaxes(title_text=f"score ({plotly_text(measure)})")
    if log_count:
        fig.update_yaxes(title_text="candidates", type="log", dtick=1, minor=dict(ticks="outside"))
    else:
        fig.update_yaxes(title_text="candidates")
    return fig
