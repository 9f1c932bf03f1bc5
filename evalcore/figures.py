"""Figures of Evert (2004): n-best precision curves, confidence bands, significant differences.

Every function here takes result tables that evalcore computed (the tidy DataFrames of
:mod:`evalcore.curves` and :mod:`evalcore.compare`, or plain arrays) and returns a
:class:`plotly.graph_objects.Figure`; nothing is computed here but what a screen can show.
A curve of a million list sizes is cut down by :func:`downsample` to about
``max_points`` vertices per trace that keep its drawn shape (the envelope of every line
and band), so a figure stays small (well under 200 KB as JSON) whatever N is. Data go
into the figure as numpy arrays, which plotly sends as compact binary (base64) arrays.

Styles: :data:`PALETTE` (colour-blind safe) and :data:`DASHES` give the i-th measure the
pair :func:`style` ``(i)``, so a measure can keep its look from figure to figure
(pass ``measure_styles``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .errors import ColumnError, EvalcoreError, ParameterError

__all__ = ["PALETTE", "DASHES", "style", "downsample", "precision_figure", "confidence_figure",
           "significance_figure", "threshold_histogram", "pvalue_figure", "export"]

# Okabe & Ito (2008) "Color Universal Design", its eight colours, yellow moved last (it is faint on
# white), plus "wine" and "olive" from Paul Tol's colour-blind-safe "muted" scheme.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#882255",  # wine (Tol)
    "#999933",  # olive (Tol)
    "#F0E442",  # yellow
)
# Line dash patterns (plotly names, or dash and gap lengths in px), so that lines stay apart in
# grey-scale print too.
DASHES: tuple[str, ...] = (
    "solid", "dash", "dot", "dashdot", "longdash", "longdashdot",
    "12px,4px,3px,4px,3px,4px",  # dash dot dot
    "2px,7px",  # sparse dots
    "24px,6px",  # very long dash
    "6px,3px,6px,3px,1px,3px",  # dash dash dot
)
REFERENCE_GREY = "#7F7F7F"  # baselines, thresholds
MARKER_GREY = "#6E6E6E"  # the paper's grey triangles
SPARSE_MARKERS = 150  # up to this many markers are drawn over the lines, more under them
FONT = dict(family="Arial, Helvetica, sans-serif", size=14, color="#222222")
X_TITLE = "n-best list size n"
CURVE_COLUMNS = ("measure", "n", "tp", "precision")
COMPARISON_COLUMNS = ("n", "p_value", "log10_p", "significant", "tp_a", "tp_b")
METRICS = {"precision": "precision", "recall": "recall", "f_beta": "F{beta}"}


def style(i: int) -> tuple[str, str]:
    """Colour and dash of the i-th measure.

    Parameters
    ----------
    i : int
        Position of the measure (0 for the first).

    Returns
    -------
    (str, str)
        A hex colour from :data:`PALETTE` and a dash from :data:`DASHES`. Colours repeat
        after 10, but the pair does not repeat before 100.

    Examples
    --------
    >>> style(0), style(1)
    (('#0072B2', 'solid'), ('#D55E00', 'dash'))
    """
    if not isinstance(i, (int, np.integer)) or i < 0:
        raise ParameterError(f"`i` must be a non-negative whole number; got {i!r}")
    k = len(PALETTE)
    return PALETTE[i % k], DASHES[(i + i // k) % len(DASHES)]


# ---------------------------------------------------------------------------------------------
# downsampling


def downsample(x, *ys, max_points: int = 2000, keep=None) -> np.ndarray:
    """Indices of a curve that keep its drawn shape: at most ~`max_points`, plus every `keep`.

    Parameters
    ----------
    x : array_like, shape (N,)
        Sorted (non-decreasing), finite x values, e.g. the list sizes n.
    *ys : array_like, shape (N,)
        The y values drawn against `x` (a line, the two bounds of a band, ...). NaN is
        ignored when looking for minima and maxima.
    max_points : int
        Budget; must be at least ``2 + 2 * len(ys)``.
    keep : array_like of bool, shape (N,), optional
        Points that must be drawn whatever the budget (significance markers, say).
        They count against the budget, but the bucket method always gets at least
        half of it, so the shape between kept points survives.

    Returns
    -------
    ndarray of int64
        Sorted, distinct indices into `x`: all ``N`` of them when ``N <= max_points``,
        else at most ``max(max_points, K + max_points // 2)`` for K kept points (and at
        least one bucket's worth, ``2 + 2 * len(ys)``, besides them).

    Notes
    -----
    The x range is cut into ``B = budget // (2 + 2 len(ys))`` buckets of equal width
    (about one per pixel column at the default), where ``budget = max(max_points - K,
    max_points // 2)``; from each non-empty bucket the first and
    the last point and, for every y, the first point of its minimum and of its maximum are
    kept (the "M4" idea of Jugel et al. 2014). Lines drawn through these points cover the
    same pixels as the full line, so the envelope of a band, its spikes and the global
    minimum and maximum of every y survive. Then the `keep` points are added. Cost O(N)
    in numpy: a few milliseconds for N = 1,000,000.

    References
    ----------
    Jugel, U., Jerzak, Z., Hackenbroich, G. and Markl, V. (2014). M4: a visualization-oriented
    time series data aggregation. Proceedings of the VLDB Endowment 7(10), 797-808.

    Examples
    --------
    >>> x = np.arange(10_000)
    >>> idx = downsample(x, np.sin(x / 500), max_points=400)
    >>> bool(idx.size <= 400), int(idx[0]), int(idx[-1])
    (True, 0, 9999)
    """
    x = np.asarray(x)
    if x.ndim != 1:
        raise ParameterError(f"`x` must be 1-d; got shape {x.shape}")
    n_points = x.shape[0]
    ys = tuple(np.asarray(y) for y in ys)
    for j, y in enumerate(ys):
        if y.shape != x.shape:
            raise ParameterError(f"y number {j + 1} has shape {y.shape}; it must match `x`, {x.shape}")
    per_bucket = 2 + 2 * len(ys)
    if not isinstance(max_points, (int, np.integer)) or max_points < per_bucket:
        raise ParameterError(f"`max_points` must be a whole number of at least {per_bucket} (2 + 2 per y); "
                             f"got {max_points!r}")
    kept = np.zeros(0, dtype=np.int64)
    if keep is not None:
        keep = np.asarray(keep)
        if keep.dtype != bool or keep.shape != x.shape:
            raise ParameterError(f"`keep` must be a boolean mask of shape {x.shape}; "
                                 f"got dtype {keep.dtype} and shape {keep.shape}")
        kept = np.flatnonzero(keep)
    if n_points <= max_points:
        return np.arange(n_points, dtype=np.int64)
    if np.issubdtype(x.dtype, np.floating) and not np.isfinite(x).all():
        raise ParameterError("`x` must be finite; it holds NaN or infinity")
    if np.any(x[1:] < x[:-1]):
        raise ParameterError("`x` must be sorted in non-decreasing order (sort the curve by n first)")

    n_buckets = max(max_points - kept.size, max_points // 2) // per_bucket or 1
    lo, hi = x[0], x[-1]
    if hi > lo:
        edges = lo + (hi - lo) * (np.arange(1, n_buckets) / n_buckets)
        starts = np.unique(np.r_[0, np.searchsorted(x, edges, side="left")])
        starts = starts[starts < n_points]
    else:  # every x equal: buckets of equal count
        starts = np.unique(np.linspace(0, n_points, n_buckets, endpoint=False).astype(np.int64))
    ends = np.r_[starts[1:], n_points]
    parts = [starts, ends - 1, kept]
    if ys:
        bucket = np.repeat(np.arange(starts.size), ends - starts)
        for y in ys:
            for reduce in (np.fmin, np.fmax):
                extreme = reduce.reduceat(y, starts)
                hit = np.flatnonzero(y == extreme[bucket])
                first = np.r_[True, bucket[hit][1:] != bucket[hit][:-1]]
                parts.append(hit[first])
    return np.unique(np.concatenate(parts).astype(np.int64, copy=False))


# ---------------------------------------------------------------------------------------------
# shared helpers


def _require(table: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise ParameterError(f"`{what}` must be a DataFrame; got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ColumnError(f"`{what}` lacks the column(s) {', '.join(missing)}; it has "
                          f"{', '.join(map(str, table.columns))}. Build it with evalcore "
                          f"(precision_curve / compare_rankings).")
    if table.empty:
        raise ParameterError(f"`{what}` has no rows")


def _by_n(table: pd.DataFrame) -> pd.DataFrame:
    n = table["n"].to_numpy()
    return table if np.all(n[1:] >= n[:-1]) else table.sort_values("n", kind="stable")


def _in_range(table: pd.DataFrame, n_range, what: str) -> pd.DataFrame:
    if n_range is None:
        return table
    lo, hi = _check_range(n_range)
    n = table["n"].to_numpy()
    inside = (n >= lo) & (n <= hi)
    if not inside.any():
        raise ParameterError(f"`n_range` {n_range!r} holds no list size of `{what}` "
                             f"(its n run from {n.min()} to {n.max()})")
    return table.loc[inside] if not inside.all() else table


def _check_range(n_range) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in n_range)
    except (TypeError, ValueError):
        raise ParameterError(f"`n_range` must be a pair (first n, last n); got {n_range!r}") from None
    if not lo <= hi:
        raise ParameterError(f"`n_range` must be (first n, last n) with first <= last; got {n_range!r}")
    return lo, hi


def _groups(curves: pd.DataFrame, measure_styles: Mapping[str, int] | None) -> list[tuple[str, int, pd.DataFrame]]:
    """(measure, style index, its rows sorted by n), in order of appearance."""
    groups = [(str(m), _by_n(g)) for m, g in curves.groupby("measure", sort=False)]
    if measure_styles is None:
        return [(m, i, g) for i, (m, g) in enumerate(groups)]
    unknown = [m for m, _ in groups if m not in measure_styles]
    if unknown:
        raise ParameterError(f"`measure_styles` has no entry for {', '.join(map(repr, unknown))}; "
                             f"it has {', '.join(map(repr, measure_styles))}")
    return [(m, int(measure_styles[m]), g) for m, g in groups]


def _percent(values) -> np.ndarray:
    """Proportions as percent, float32 (7 digits: plenty for a figure, half the payload)."""
    return (100.0 * np.asarray(values, dtype=np.float64)).astype(np.float32)


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _format_level(level: float) -> str:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ParameterError(f"`level` must be a confidence level in (0, 1), e.g. 0.95; got {level!r}")
    return f"{100 * level:.10g}%"


def _check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ParameterError(f"`alpha` must be a significance level in (0, 1), e.g. 0.05; got {alpha!r}")
    return alpha


def _check_max_points(max_points: int) -> None:
    if not isinstance(max_points, (int, np.integer)) or max_points < 10:
        raise ParameterError(f"`max_points` must be a whole number of at least 10; got {max_points!r}")


# The look of plotly's "simple_white" with only the properties these figures use: assigning the
# full template costs 30-40 ms per figure (its defaults for every trace type are validated),
# which is most of a slider's rerun budget.
_AXIS = dict(showline=True, linecolor="rgb(36,36,36)", linewidth=1, ticks="outside", tickcolor="rgb(36,36,36)",
             zeroline=False, showgrid=True, gridcolor="#EBEBEB", title=dict(standoff=15))
TEMPLATE = go.layout.Template(layout=dict(
    plot_bgcolor="white", paper_bgcolor="white", hovermode="closest", xaxis=_AXIS, yaxis=_AXIS,
    colorway=list(PALETTE)))


def _layout(fig: go.Figure, *, title: str | None, legend: str = "inside") -> go.Figure:
    legends = {
        "inside": dict(x=0.99, y=0.99, xanchor="right", yanchor="top", bgcolor="rgba(255,255,255,0.85)",
                       bordercolor="#CCCCCC", borderwidth=1),
        "above": dict(orientation="h", x=0.0, y=1.02, xanchor="left", yanchor="bottom"),
    }
    fig.update_layout(
        template=TEMPLATE, font=FONT, legend=dict(font=dict(size=13), **legends[legend]),
        margin=dict(l=70, r=20, t=60 if title else 20, b=60), hoverlabel=dict(font_size=13),
        title=dict(text=title, x=0.5, xanchor="center") if title else None,
    )
    return fig


def _line_trace(name: str, n: np.ndarray, y: np.ndarray, tp: np.ndarray | None, colour: str, dash: str,
                quantity: str = "precision", *, width: float = 2.0, showlegend: bool = True,
                bounds: tuple[np.ndarray, np.ndarray] | None = None) -> go.Scatter:
    label = escape(name)
    if tp is None:
        customdata, extra, tp_line = None, "", ""
    elif bounds is None:
        customdata, extra, tp_line = tp, "", "TPs = %{customdata:,}<br>"
    else:
        customdata = np.column_stack([tp, bounds[0], bounds[1]]).astype(np.float32)
        tp_line = "TPs = %{customdata[0]:,}<br>"
        extra = " [%{customdata[1]:.1f}%, %{customdata[2]:.1f}%]"
    return go.Scatter(
        x=n, y=y, customdata=customdata, mode="lines", name=name, legendgroup=name, showlegend=showlegend,
        line=dict(color=colour, dash=dash, width=width),
        hovertemplate=(f"<b>{label}</b><br>n = %{{x:,}}<br>{tp_line}"
                       f"{quantity} = %{{y:.1f}}%{extra}<extra></extra>"),
    )


def _baseline_trace(baseline: float, x_lo: float, x_hi: float) -> go.Scatter:
    baseline = float(baseline)
    if not 0.0 <= baseline <= 1.0:
        raise ParameterError(f"`baseline` must be a proportion in [0, 1] (TPs / N); got {baseline!r}")
    label = f"baseline {100 * baseline:.2f}%"
    return go.Scatter(
        x=np.array([x_lo, x_hi]), y=np.array([100 * baseline] * 2), mode="lines", name=label,
        line=dict(color=REFERENCE_GREY, dash="dash", width=1.5),
        hovertemplate=f"{label} (random selection)<extra></extra>",
    )


def _x_extent(tables, n_range) -> tuple[float, float]:
    if n_range is not None:
        return _check_range(n_range)
    return (min(float(t["n"].iloc[0]) for t in tables), max(float(t["n"].iloc[-1]) for t in tables))


def _n_axis(fig: go.Figure, extent: tuple[float, float]) -> None:
    """The x axis of list sizes: exactly the drawn range, thousands separated (1,268)."""
    fig.update_xaxes(range=list(extent), tickformat=",")


def _format_p(p_value: np.ndarray, log10_p: np.ndarray) -> np.ndarray:
    """p as text like ``3.2e-05``; below 1e-300 (p == 0 after underflow) from log10 p."""
    p_value = np.asarray(p_value, dtype=np.float64)
    log10_p = np.asarray(log10_p, dtype=np.float64)
    text = np.char.add("p = ", np.char.mod("%.1e", p_value))
    tiny = p_value < 1e-300
    if tiny.any():
        text = text.astype(object)  # fixed-width strings would cut the longer text
        logs = np.char.mod("%.1f", log10_p[tiny])
        text[tiny] = np.char.add(np.char.add("p < 1e-300 (log10 p = ", logs), ")")
    return text


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
    common = dict(mode="lines", legendgroup=name, line=dict(width=0, color=colour), hoverinfo="skip")
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
                                    f"{name}: {level_text} {method_label}", 0.2))
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


def _marker_rows(n: np.ndarray, significant: np.ndarray, max_markers: int | None) -> np.ndarray:
    """Rows of the significant tests to mark: all of them, or, beyond `max_markers`, every
    isolated one and both ends of every run of consecutive ones, the inside of runs thinned
    to one row per 1/max_markers of the n range."""
    rows = np.flatnonzero(significant)
    if max_markers is None or rows.size <= max_markers:
        return rows
    gap = np.diff(rows) > 1
    run_first = rows[np.r_[True, gap]]
    run_last = rows[np.r_[gap, True]]
    values = n[rows].astype(np.float64)
    span = values[-1] - values[0]
    bucket = np.floor((values - values[0]) / span * max_markers).astype(np.int64) if span > 0 else rows * 0
    grid = rows[np.r_[True, bucket[1:] != bucket[:-1]]]
    return np.unique(np.concatenate([run_first, run_last, grid]))


def _curve_of(curve: pd.DataFrame, what: str) -> tuple[str, pd.DataFrame]:
    _require(curve, CURVE_COLUMNS, what)
    names = pd.unique(curve["measure"])
    if len(names) != 1:
        raise ParameterError(f"`{what}` must hold one measure; it holds {len(names)}: "
                             f"{', '.join(map(str, names[:5]))}")
    return str(names[0]), _by_n(curve)


def significance_figure(curve_a: pd.DataFrame, curve_b: pd.DataFrame, comparison: pd.DataFrame, *,
                        up_to: int, alpha: float, max_points: int = 2000, max_markers: int | None = 2000,
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
    max_markers : int or None
        Markers beyond which runs of consecutive significant tests are thinned inside:
        every isolated significant n and both ends of every run are always marked, so
        no significant region is lost or changes its extent. None marks every one.
    show_bands : bool
        Draw the confidence bands when the curves have them.
    markers_at : {"curve", "axis"}
        "curve" (the paper): each marker sits on the better measure's curve at its n
        (up to 150 markers are drawn over the lines; more, say a run of every n, under
        them, as a grey halo that leaves the line visible); "axis": a row of markers
        just above the x axis.
    baseline : float, optional
        Baseline precision; taken from the curves' ``baseline`` column when omitted.
    n_range, measure_styles, title
        As in :func:`precision_figure`.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: for A and B the band (two traces, if shown); the lines of A and B, whose
        vertices include every marked n; the baseline (if known); the markers
        ("triangle-up", grey; on the better measure's curve, i.e. at ``max(tp_a, tp_b) / n``,
        or at y = 0.5 % with ``markers_at="axis"``). More than 150 markers on the curve are
        drawn before the lines (under them) instead. Markers carry the p-value as hover
        text ("p = 3.2e-05"; below 1e-300 "p < 1e-300 (log10 p = -412.3)", from
        ``log10_p``). The line at `up_to` is ``layout.shapes[0]``.

    Notes
    -----
    A and B differ only in D1 = A \\ B and D2 = B \\ A; a marker says that Fisher's exact
    test on ``[[T_D1, F_D1], [T_D2, F_D2]]`` rejects pi_D1 = pi_D2 at that n (Evert 2004,
    §3.3). For n-best lists the better curve is the one with more TPs.
    """
    _check_max_points(max_points)
    alpha = _check_alpha(alpha)
    if max_markers is not None and (not isinstance(max_markers, (int, np.integer)) or max_markers < 1):
        raise ParameterError(f"`max_markers` must be a positive whole number or None; got {max_markers!r}")
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
        raise ParameterError(f"`curve_a` and `curve_b` are both of measure {name_a!r}; compare two measures")

    n_cmp = comparison["n"].to_numpy()
    rows = _marker_rows(n_cmp, comparison["significant"].to_numpy(dtype=bool), max_markers)
    marked_n = n_cmp[rows]

    bands, lines = [], []
    for name, table in ((name_a, curve_a), (name_b, curve_b)):
        colour, dash = style(int(measure_styles[name]))
        n = table["n"].to_numpy()
        y = _percent(table["precision"].to_numpy())
        if show_bands and {"lower", "upper"} <= set(table.columns):
            lower, upper = _percent(table["lower"].to_numpy()), _percent(table["upper"].to_numpy())
            band = downsample(n, lower, upper, max_points=max_points)
            bands += _band_traces(name, n[band], lower[band], upper[band], colour, f"{name}: confidence band", 0.12)
        pos = np.minimum(np.searchsorted(n, marked_n), n.size - 1)
        keep = np.zeros(n.size, dtype=bool)
        keep[pos[n[pos] == marked_n]] = True
        idx = downsample(n, y, max_points=max_points, keep=keep)
        lines.append(_line_trace(name, n[idx], y[idx], table["tp"].to_numpy()[idx], colour, dash))
    if baseline is None and "baseline" in curve_a.columns:
        baseline = float(curve_a["baseline"].iloc[0])
    extent = _x_extent((curve_a, curve_b), n_range)
    if baseline is not None:
        lines.append(_baseline_trace(baseline, *extent))

    marked = comparison.iloc[rows]
    better_tp = np.maximum(marked["tp_a"].to_numpy(), marked["tp_b"].to_numpy())
    marker_y = _percent(better_tp / marked_n) if markers_at == "curve" else np.full(rows.size, 0.5, np.float32)
    markers = go.Scatter(
        x=marked_n, y=marker_y, mode="markers", name=f"significant (p < {alpha:g})", legendrank=2000,
        marker=dict(symbol="triangle-up", size=8 if markers_at == "curve" else 7, color=MARKER_GREY),
        text=_format_p(marked["p_value"].to_numpy(), marked["log10_p"].to_numpy()),
        hovertemplate="n = %{x:,}<br>%{text}<extra></extra>",
    )
    # Sparse markers go on top of the lines; dense ones (a run of every n) underneath, where they
    # make a grey halo that leaves the line visible.
    on_top = markers_at == "axis" or rows.size <= SPARSE_MARKERS
    fig = go.Figure(bands + (lines + [markers] if on_top else [markers] + lines))
    _layout(fig, title=title)
    if up_to > 0:
        fig.add_vline(x=int(up_to), line=dict(color="#444444", width=1), opacity=1, layer="above",
                      annotation=dict(text=f"significant up to n = {int(up_to):,}", font=dict(size=12),
                                      bgcolor="rgba(255,255,255,0.8)"),
                      annotation_position="bottom right")
    fig.update_xaxes(title_text=X_TITLE)
    fig.update_yaxes(title_text="precision (%)", rangemode="tozero")
    _n_axis(fig, extent)
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


def threshold_histogram(scores: np.ndarray, labels: np.ndarray, *, gamma: float, measure: str,
                        higher_is_better: bool = True, bins: int = 60,
                        score_range: tuple[float, float] | None = None, log_count: bool = False,
                        title: str | None = None) -> go.Figure:
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
        A logarithmic count axis.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two overlaid bar traces, FP then TP (so the smaller TP bars are drawn on top):
        y = counts per bin, x = bin centres, ``customdata`` = bin edges, names like
        "TP (566)". The line at gamma is ``layout.shapes[0]``.

    Notes
    -----
    The bins are counted here with numpy, so the figure holds ``2 * bins`` bars whatever
    N is. The counts of each class sum to its number of drawn scores.
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
        raise ParameterError(f"`scores` of {measure!r} hold no finite value"
                             + (f" in `score_range` {score_range!r}" if score_range is not None else "")
                             + "; nothing to draw")
    edges = np.histogram_bin_edges(scores[drawn], bins=bins)
    centres = (edges[:-1] + edges[1:]) / 2
    widths = np.diff(edges)
    customdata = np.column_stack([edges[:-1], edges[1:]])
    fig = go.Figure()
    for name, mask, colour in (("FP", ~labels, PALETTE[1]), ("TP", labels, PALETTE[0])):
        counts, _ = np.histogram(scores[drawn & mask], bins=edges)
        notes = [f"{int(k):,} {what}" for k, what in (((~finite & mask).sum(), "non-finite"),
                                                       ((finite & ~drawn & mask).sum(), "outside the range")) if k]
        legend = f"{name} ({int(counts.sum()):,}" + "".join(f"; {t} not shown" for t in notes) + ")"
        fig.add_trace(go.Bar(
            x=centres, y=counts, width=widths, customdata=customdata, name=legend, marker_color=colour,
            marker_line_width=0, opacity=0.6, legendrank=1 if name == "TP" else 2,
            hovertemplate=f"{name}: %{{y:,}}<br>score %{{customdata[0]:.4g}} to %{{customdata[1]:.4g}}<extra></extra>",
        ))
    _layout(fig, title=title, legend="above")
    fig.update_layout(barmode="overlay", bargap=0)
    accepted = "accepted →" if higher_is_better else "← accepted"
    fig.add_vline(x=gamma, line=dict(color="#222222", width=1.5, dash="dash"), opacity=1, layer="above",
                  annotation=dict(text=f"γ = {gamma:.4g}<br>{accepted}", font=dict(size=12),
                                  bgcolor="rgba(255,255,255,0.8)"),
                  annotation_position="top right" if higher_is_better else "top left")
    fig.update_xaxes(title_text=f"score ({measure})")
    if log_count:
        fig.update_yaxes(title_text="candidates", type="log", dtick=1, minor=dict(ticks="outside"))
    else:
        fig.update_yaxes(title_text="candidates")
    return fig


# ---------------------------------------------------------------------------------------------
# export

EXPORT_FORMATS = ("png", "svg", "pdf", "html")


def export(fig: go.Figure, fmt: str, *, width: int = 900, height: int | None = None, scale: float = 2.0) -> bytes:
    """A figure as a file's bytes: PNG, SVG or PDF (for a paper), or self-contained HTML.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A figure from this module.
    fmt : {"png", "svg", "pdf", "html"}
    width, height : int
        Size in CSS pixels of the image formats; the height defaults to 560 plus 220 per
        extra panel (the recall and F panels of :func:`precision_figure`).
    scale : float
        Pixel density of PNG (2: 1,800 px wide at the default width).

    Returns
    -------
    bytes

    Notes
    -----
    The image formats are drawn by kaleido (``pip install kaleido``), which drives an
    installed Chrome or Chromium (Debian: ``apt-get install chromium``; found on the PATH,
    or set ``BROWSER_PATH``); a browser starts per call, about a few seconds. HTML needs
    neither: it embeds plotly.js (about 4.5 MB) so that it opens offline.
    """
    if fmt not in EXPORT_FORMATS:
        raise ParameterError(f"`fmt` must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    if fmt == "html":
        return fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
    if height is None:
        panels = sum(1 for key in fig.layout.to_plotly_json() if key.startswith("yaxis"))
        height = 560 + 220 * max(panels - 1, 0)
    try:
        return fig.to_image(format=fmt, width=width, height=height, scale=scale)
    except (ImportError, ValueError, RuntimeError) as error:  # no kaleido, or no browser for it
        raise EvalcoreError(f"{fmt.upper()} export needs the kaleido package and Chrome or Chromium "
                            f"(pip install kaleido; apt-get install chromium); HTML export works without. "
                            f"Kaleido said: {error}") from error
