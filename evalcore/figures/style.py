"""The look shared by every evalcore figure: palette, dashes, one template, layout helpers,
downsampling that keeps a curve's drawn shape, and export to PNG, SVG, PDF and HTML.

Styles: :data:`PALETTE` (colour-blind safe) and :data:`DASHES` give the i-th measure the
pair :func:`style` ``(i)``, so a measure can keep its look from figure to figure
(pass ``measure_styles``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..errors import ColumnError, EvalcoreError, ParameterError
from .. import format as fmt
from ..text import plotly_text

__all__ = ["PALETTE", "DASHES", "style", "downsample", "export", "EXPORT_FORMATS", "for_print", "print_style",
           "print_size", "PRINT_WIDTH_CM", "PRINT_DPI", "PRINT_TEMPLATE", "figure_caption", "captioned", "LEGENDS",
           "nice_ticks", "tick_labels", "PRINT_BAND_FILLS"]

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


#: Where a legend goes: never over the data (issue 18). "right": a column beside the plotting area (costs width,
#: not height: the screen's figures are wide); "above": rows above it, for few, short entries. Both lie outside
#: the [0, 1] paper domain, so plotly widens the margin to make room instead of drawing over the curves.
LEGENDS = {
    "right": dict(orientation="v", x=1.02, y=1.0, xanchor="left", yanchor="top"),
    "above": dict(orientation="h", x=0.0, y=1.02, xanchor="left", yanchor="bottom"),
}

LEGEND_RIGHT_PX = 250  # the right margin that holds a legend beside the plot (wider legends widen it), the same for
#                        every figure, so that figures drawn one under the other (Figure 3 and the difference panel)
#                        share their x axis's position


def _layout(fig: go.Figure, *, title: str | None, legend: str = "right") -> go.Figure:
    """The shared layout; ``title`` is text (it may name a data set or a measure), shown as written; ``legend`` a
    key of :data:`LEGENDS` (outside the plotting area either way)."""
    if legend not in LEGENDS:
        raise ParameterError(f"`legend` must be one of {', '.join(LEGENDS)}; got {legend!r}")
    fig.update_layout(
        template=TEMPLATE, font=FONT,
        legend=dict(font=dict(size=13), bgcolor="rgba(0,0,0,0)", borderwidth=0, **LEGENDS[legend]),
        margin=dict(l=70, r=LEGEND_RIGHT_PX if legend == "right" and _has_legend(fig) else 20, t=60 if title else 20,
                    b=60),
        hoverlabel=dict(font_size=13),
        title=dict(text=plotly_text(title), x=0.5, xanchor="center") if title else None,
    )
    return fig


# ---------------------------------------------------------------------------------------------
# ticks: every major tick labelled


TICK_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)  # a step of ticks is one of these times a power of ten


def nice_ticks(lo: float, hi: float, target: int = 6) -> np.ndarray:
    """Major ticks of a linear axis from ``lo`` to ``hi``: every multiple of a round step inside the range.

    Parameters
    ----------
    lo, hi : float
        The axis range, ``lo <= hi``.
    target : int
        About this many steps span the range: the step is the smallest of 1, 2, 2.5 and 5 times a power of
        ten with ``(hi - lo) / step <= target + 1``.

    Returns
    -------
    ndarray of float
        The ticks, ascending, all within ``[lo, hi]`` (ends included when they are multiples of the step).

    Examples
    --------
    >>> nice_ticks(100, 2000, 4).tolist()
    [500.0, 1000.0, 1500.0, 2000.0]
    >>> nice_ticks(0, 53.2, 5).tolist()
    [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    """
    lo, hi = float(lo), float(hi)
    if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
        raise ParameterError(f"an axis range must be finite (low, high) with low <= high; got ({lo!r}, {hi!r})")
    if not isinstance(target, (int, np.integer)) or target < 1:
        raise ParameterError(f"`target` must be a positive whole number; got {target!r}")
    if hi == lo:
        return np.array([lo])
    span = hi - lo
    magnitude = 10.0 ** np.floor(np.log10(span / (target + 1)))
    step = next(f * magnitude for f in TICK_STEPS if f * magnitude * (target + 1) >= span * (1 - 1e-12))
    first, last = np.ceil(lo / step - 1e-9), np.floor(hi / step + 1e-9)
    return np.round(np.arange(first, last + 1) * step, 12) + 0.0  # (+ 0.0: no -0.0)


def tick_labels(ticks) -> list[str]:
    """Tick labels as a paper writes them: thousands separated (``2,000``), one number of decimals for all, as
    few as the ticks need (``0.0, 2.5, 5.0``; ``10, 20``), and a true minus sign.

    Examples
    --------
    >>> tick_labels([500, 1000, 1500, 2000])
    ['500', '1,000', '1,500', '2,000']
    >>> tick_labels([-2.5, 0, 2.5])
    ['−2.5', '0.0', '2.5']
    """
    values = np.asarray(ticks, dtype=np.float64)
    decimals = next((d for d in range(0, 10) if np.allclose(np.round(values, d), values, rtol=0, atol=1e-9)), 10)
    return [("−" if v < 0 and round(v, decimals) != 0 else "") + f"{abs(v):,.{decimals}f}" for v in values]


#: Widths of characters in em in Helvetica and Arial (their metrics agree), by group; others count as 0.6 em.
_EM = {**dict.fromkeys("ijlI.,:;!|' ", 0.28), **dict.fromkeys("ft()[]-", 0.34), **dict.fromkeys("rz*−", 0.42),
       **dict.fromkeys("abcdeghknopqsuvxy0123456789$_#?", 0.56), **dict.fromkeys("mwMW%", 0.89)}


def _text_px(text: str, size: float) -> float:
    """Width of a line of text in px at font size ``size``, from Helvetica's widths (:data:`_EM`), an upper bound
    within a few percent for the words and numbers of these figures."""
    return size * sum(_EM.get(ch, 0.6) for ch in text)


def _end_margin(fig: go.Figure, base: int) -> int:
    """A right margin that holds half of the x axis's last tick label (plotly hides a label that would cross the
    figure's edge: the lost "2,000" at the end of the n axis)."""
    axis = fig.layout.xaxis
    if axis.ticktext is None or not len(axis.ticktext):
        return base
    size = (axis.tickfont.size if axis.tickfont and axis.tickfont.size else None) or FONT["size"]
    return max(base, int(np.ceil(_text_px(str(axis.ticktext[-1]), size) / 2)) + 2)


def _line_trace(name: str, n: np.ndarray, y: np.ndarray, tp: np.ndarray | None, colour: str, dash: str,
                quantity: str = "precision", *, width: float = 2.0, showlegend: bool = True,
                bounds: tuple[np.ndarray, np.ndarray] | None = None) -> go.Scatter:
    label = plotly_text(name)  # a measure name is text, not Plotly's HTML or a %{field}
    if tp is None:
        customdata, extra, tp_line = None, "", ""
    elif bounds is None:
        customdata, extra, tp_line = tp, "", f"TPs = {fmt.hover('customdata', 'count')}<br>"
    else:
        customdata = np.column_stack([tp, bounds[0], bounds[1]]).astype(np.float32)
        tp_line = f"TPs = {fmt.hover('customdata[0]', 'count')}<br>"
        extra = f" [{fmt.hover('customdata[1]', 'percent')}, {fmt.hover('customdata[2]', 'percent')}]"
    return go.Scatter(
        x=n, y=y, customdata=customdata, mode="lines", name=label, legendgroup=label, showlegend=showlegend,
        line=dict(color=colour, dash=dash, width=width),
        hovertemplate=(f"<b>{label}</b><br>n = {fmt.hover('x', 'count')}<br>{tp_line}"
                       f"{quantity} = {fmt.hover('y', 'percent')}{extra}<extra></extra>"),
    )


def _baseline_trace(baseline: float, x_lo: float, x_hi: float) -> go.Scatter:
    baseline = float(baseline)
    if not 0.0 <= baseline <= 1.0:
        raise ParameterError(f"`baseline` must be a proportion in [0, 1] (TPs / N); got {baseline!r}")
    label = f"baseline {fmt.percent(baseline)}"
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
    """The x axis of list sizes: exactly the drawn range, thousands separated (1,268), and room on the right for
    the label of a tick at the range's end (plotly's own ticks, so that zooming in brings finer ones)."""
    fig.update_xaxes(range=list(extent), tickformat=",")
    label = tick_labels(nice_ticks(*extent, 8))[-1]  # about the ticks plotly draws at 900 px: the last label
    half = int(np.ceil(_text_px(label, FONT["size"]) / 2))
    fig.update_layout(margin=dict(r=max(fig.layout.margin.r or 20, half + 4)))


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
        height = 560 + 220 * max(panels - 1, 0) + _caption_pixels(fig)
    try:
        return fig.to_image(format=fmt, width=width, height=height, scale=scale)
    except (ImportError, ValueError, RuntimeError) as error:  # no kaleido, or no browser for it
        raise EvalcoreError(f"{fmt.upper()} export needs the kaleido package and Chrome or Chromium "
                            f"(pip install kaleido; apt-get install chromium); HTML export works without. "
                            f"Kaleido said: {error}") from error


# ---------------------------------------------------------------------------------------------
# a caption under an exported figure

CAPTION_NAME = "caption"  # the annotation's name, so that export() finds it and makes room
CAPTION_LINE_PX = 18  # height of a caption line (12 px text)
CAPTION_CHARS = 110  # a caption line holds at most this many characters (plotly does not wrap)


def figure_caption(*, dataset: str, ties: str, seed: int | None = None, test: str | None = None,
                   level: float | None = None, n: int | tuple[int, int] | None = None) -> str:
    """The caption of an exported figure: what it was computed from, in the words of the pages.

    Parameters
    ----------
    dataset : str
        The data set's name (a file name: text, shown as written).
    ties : str
        A key of :data:`evalcore.names.TIE_POLICIES`; written as :data:`evalcore.names.TIE_SHORT`
        (with the seed under random order).
    seed : int, optional
        The seed of random tie-breaking.
    test : str, optional
        A key of :data:`evalcore.names.PAIR_TESTS`, for figures that test.
    level : float, optional
        The confidence level, written as ``95%``.
    n : int or (int, int), optional
        The list size, or the range of n drawn.

    Returns
    -------
    str
        E.g. ``"Data: krenn_ppv.tsv · ties: TPs first · test: Fisher's exact test on D1/D2 (Evert
        2004) · level 95% · n = 100 to 2,000"`` (plain text; :func:`captioned` escapes it).

    Examples
    --------
    >>> figure_caption(dataset="krenn.tsv", ties="random", seed=7, level=0.95, n=(100, 2000))
    'Data: krenn.tsv · ties: random order (seed 7) · level 95% · n = 100 to 2,000'
    """
    from .. import format as fmt
    from ..names import PAIR_TESTS, SEEDED_TIES, TIE_SHORT

    if ties not in TIE_SHORT:
        raise ParameterError(f"`ties` must be one of {', '.join(TIE_SHORT)}; got {ties!r}")
    if test is not None and test not in PAIR_TESTS:
        raise ParameterError(f"`test` must be one of {', '.join(PAIR_TESTS)} or None; got {test!r}")
    tie_text = TIE_SHORT[ties] + (f" (seed {seed})" if ties in SEEDED_TIES and seed is not None else "")
    parts = [f"Data: {dataset}", f"ties: {tie_text}"]
    if test is not None:
        parts.append(f"test: {PAIR_TESTS[test]}")
    if level is not None:
        parts.append(f"level {_format_level(level)}")
    if n is not None:
        if isinstance(n, tuple):
            lo, hi = (int(v) for v in n)
            parts.append(f"n = {fmt.count(lo)} to {fmt.count(hi)}" if lo != hi else f"n = {fmt.count(lo)}")
        else:
            parts.append(f"n = {fmt.count(n)}")
    return " · ".join(parts)


def _caption_lines(text: str, width: int = CAPTION_CHARS) -> list[str]:
    """``text`` cut into lines of at most ``width`` characters, between words (a longer word is cut)."""
    lines: list[str] = []
    words = [w[i:i + width] for w in text.split(" ") for i in range(0, max(len(w), 1), width)]
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _caption_pixels(fig: go.Figure) -> int:
    """The height a caption of :func:`captioned` adds to the figure (0 without one)."""
    for annotation in fig.layout.annotations:
        if annotation.name == CAPTION_NAME:
            return CAPTION_LINE_PX * (str(annotation.text).count("<br>") + 1) + 12
    return 0


def captioned(fig: go.Figure, caption: str) -> go.Figure:
    """A copy of ``fig`` with ``caption`` written under it, for an exported PNG, SVG or PDF.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Any figure of this package (also after :func:`for_print`; caption last).
    caption : str
        Plain text, e.g. from :func:`figure_caption`; escaped (a file name is data, not markup) and
        cut into lines of at most ``CAPTION_CHARS`` characters.

    Returns
    -------
    plotly.graph_objects.Figure
        The figure with one more annotation (name ``"caption"``, left-aligned under the x axis
        title, in grey) and a bottom margin that much taller; :func:`export` (or a fixed
        ``layout.height``) makes the image taller by the same amount, so the plot keeps its size. The input figure is not changed. The
        dashboard shows figures without a caption: add it only when asked, to the figure exported.
    """
    if not isinstance(caption, str) or not caption.strip():
        raise ParameterError(f"`caption` must be non-empty text; got {caption!r}")
    out = go.Figure(fig)
    out.layout.annotations = [a for a in out.layout.annotations if a.name != CAPTION_NAME]  # one caption at most
    bottom = out.layout.margin.b if out.layout.margin.b is not None else 60
    text = "<br>".join(plotly_text(line) for line in _caption_lines(caption.strip()))
    out.add_annotation(name=CAPTION_NAME, text=text, xref="paper", yref="paper", x=0, y=0, xanchor="left",
                       yanchor="top", yshift=-bottom, align="left", showarrow=False,
                       font=dict(size=12, color="#444444"))
    extra = _caption_pixels(out)
    out.update_layout(margin=dict(b=bottom + extra))
    if out.layout.height is not None:  # a fixed size (the print style): taller by the caption
        out.update_layout(height=out.layout.height + extra)
    return out


# ---------------------------------------------------------------------------------------------
# print style: one column of a two-column paper

PRINT_WIDTH_CM = 8.5  # one column of a two-column paper (ACL, ACM, IEEE, Springer LNCS are 8.0-8.6 cm)
PRINT_HEIGHT_RATIO = 0.65  # the height of a print figure, without its legend, over its width
CSS_PX_PER_CM = 96 / 2.54  # figures are laid out in CSS pixels, 96 per inch; the PDF page has the same size
PRINT_DPI = 600  # PNG resolution for line art
PRINT_FONT = dict(family="Helvetica, Arial, sans-serif", size=11, color="#000000")  # 11 px = 8.25 pt
# Black and dark grey alternate; dashes and open markers tell the measures apart without colour.
PRINT_GREYS: tuple[str, ...] = ("#000000", "#505050")
PRINT_SYMBOLS: tuple[str, ...] = (
    "circle-open", "square-open", "diamond-open", "x-thin-open", "triangle-down-open", "cross-thin-open",
    "star-open", "hexagon-open", "asterisk-open", "pentagon-open",
)  # never "triangle-up": in Figure 3 the grey triangles mark significant differences
PRINT_MARKERS_PER_LINE = 7
_PRINT_AXIS = dict(showline=True, linecolor="#000000", linewidth=0.8, ticks="outside", tickcolor="#000000",
                   ticklen=3, tickwidth=0.8, zeroline=False, showgrid=False, mirror=False,
                   title=dict(standoff=4, font=dict(size=11)), tickfont=dict(size=10))
PRINT_TEMPLATE = go.layout.Template(layout=dict(
    plot_bgcolor="white", paper_bgcolor="white", xaxis=_PRINT_AXIS, yaxis=_PRINT_AXIS,
    colorway=list(PRINT_GREYS)))


def print_style(i: int) -> tuple[str, str, str]:
    """Grey, dash and marker symbol of the i-th measure in print.

    Parameters
    ----------
    i : int
        Position of the measure (0 for the first), as for :func:`style`.

    Returns
    -------
    (str, str, str)
        A grey from :data:`PRINT_GREYS`, the dash of :func:`style` ``(i)`` and an open marker from
        :data:`PRINT_SYMBOLS`: every pair of measures differs in dash and marker, so the figure reads the
        same in greyscale.

    Examples
    --------
    >>> print_style(0), print_style(1)
    (('#000000', 'solid', 'circle-open'), ('#505050', 'dash', 'square-open'))
    """
    _, dash = style(i)
    return PRINT_GREYS[i % len(PRINT_GREYS)], dash, PRINT_SYMBOLS[i % len(PRINT_SYMBOLS)]


def print_size(width_cm: float = PRINT_WIDTH_CM, height_cm: float | None = None) -> tuple[int, int]:
    """Width and height in CSS pixels of a print figure without its legend (height 0.65 of the width by default:
    321 x 209 at 8.5 cm); :func:`for_print` adds the legend's rows to the height."""
    width_cm = float(width_cm)
    if not 3.0 <= width_cm <= 40.0:
        raise ParameterError(f"`width_cm` must be a figure width in cm between 3 and 40, e.g. 8.5; got {width_cm!r}")
    height_cm = PRINT_HEIGHT_RATIO * width_cm if height_cm is None else float(height_cm)
    if not 2.0 <= height_cm <= 40.0:
        raise ParameterError(f"`height_cm` must be between 2 and 40 cm; got {height_cm!r}")
    return round(width_cm * CSS_PX_PER_CM), round(height_cm * CSS_PX_PER_CM)


def _is_band(trace) -> bool:
    return getattr(trace, "fill", None) == "tonexty" or (trace.line is not None and trace.line.width == 0)


#: The fills of the first, second and third confidence band of a print figure, told apart in greyscale by their
#: grey and their hatching (issue 18: two bands of the same grey read as one): a plain light grey, a hatch rising
#: to the right, one falling to the right; each band's edges are drawn in the dash of its measure's line.
PRINT_BAND_FILLS: tuple[dict, ...] = (
    dict(fillcolor="rgba(0,0,0,0.14)"),
    dict(fillcolor="rgba(0,0,0,0.03)",
         fillpattern=dict(shape="/", fgcolor="#000000", fgopacity=0.45, size=5, solidity=0.15)),
    dict(fillcolor="rgba(0,0,0,0.03)",
         fillpattern=dict(shape="\\", fgcolor="#000000", fgopacity=0.45, size=5, solidity=0.15)),
)
PRINT_BAND_EDGE = 0.6  # px: the bands' edges, thinner than the lines (1.2)
PRINT_LEGEND_ROW_PX = 19  # height of a legend row at 10 px text, as Chromium draws it
PRINT_LEGEND_ENTRY_PX = 43  # a legend entry's line sample and gaps around its text, as Chromium draws them
PRINT_LEGEND_INSET_PX = 12  # the legend starts this far from the figure's left edge (plotly keeps it free)
PRINT_LEGEND_PAD_PX = 18  # beyond its rows: the legend box (5 px above and below) and the gap plotly leaves below it
PRINT_TICKS = {"x": 4, "y": 5}  # about this many steps of major ticks across an axis 8.5 cm long


def _axis_names(layout) -> list[str]:
    """``xaxis``, ``xaxis2``, ``yaxis``, ... of a layout, those that exist."""
    return [key for key in layout.to_plotly_json() if key.startswith(("xaxis", "yaxis"))]


def _data_extent(fig: go.Figure, axis: str) -> tuple[float, float] | None:
    """Smallest and largest finite value drawn on ``axis`` ("xaxis", "yaxis2", ...) by the figure's traces."""
    letter, suffix = axis[0], axis[5:]
    ref = letter + suffix
    values = []
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) != ref or getattr(trace, letter, None) is None:
            continue
        v = np.asarray(getattr(trace, letter), dtype=object)
        v = np.array([x for x in v.ravel() if isinstance(x, (int, float, np.number))], dtype=np.float64)
        values.append(v[np.isfinite(v)])
    values = np.concatenate(values) if values else np.zeros(0)
    return (float(values.min()), float(values.max())) if values.size else None


def _print_ticks(fig: go.Figure) -> None:
    """Fixed ranges and explicit major ticks, every one labelled, on the linear axes of a print figure (a printed
    figure does not zoom; plotly's own choice drops a label that would cross the figure's edge)."""
    for axis in _axis_names(fig.layout):
        obj = fig.layout[axis]
        if obj.type not in (None, "-", "linear") or obj.tickvals is not None:
            continue  # log and category axes, and ticks chosen by the figure (the histogram's log score axis)
        if obj.range is not None:
            lo, hi = (float(v) for v in obj.range)
        else:
            extent = _data_extent(fig, axis)
            if extent is None:
                continue
            lo, hi = extent
            if obj.rangemode == "tozero":
                lo, hi = min(lo, 0.0), max(hi, 0.0)
            pad = 0.04 * (hi - lo) if hi > lo else 1.0
            lo, hi = (lo if obj.rangemode == "tozero" and lo == 0 else lo - pad), hi + pad
        ticks = nice_ticks(lo, hi, PRINT_TICKS[axis[0]])
        obj.update(range=[lo, hi], tickmode="array", tickvals=ticks, ticktext=tick_labels(ticks))


def _has_legend(fig: go.Figure) -> bool:
    """Whether plotly draws a legend: asked for, or two or more traces that may show in it (plotly's default)."""
    if fig.layout.showlegend is not None:
        return bool(fig.layout.showlegend)
    return bool(_legend_entries(fig)) and sum(t.showlegend is not False for t in fig.data) >= 2


def _legend_entries(fig: go.Figure) -> list[str]:
    """The names the legend shows, in its order (one per trace that shows in it; by ``legendrank``, then as drawn)."""
    shown = [t for t in fig.data if t.showlegend is not False and t.name]
    return [str(t.name) for t in sorted(shown, key=lambda t: 1000 if t.legendrank is None else t.legendrank)]


def _print_legend(fig: go.Figure, width: int, left: int, right: int) -> int:
    """Lay the legend out in rows above the plot, entries packed left to right as plotly packs them, and return
    its height in px (0 without a legend), which the figure grows by, so that the plot keeps its size."""
    if not _has_legend(fig):
        return 0
    entries = _legend_entries(fig)
    size = PRINT_FONT["size"] - 1
    room = width - PRINT_LEGEND_INSET_PX - right  # from near the figure's left edge (above the y axis's labels)
    rows, used = 1, 0.0
    for entry in entries:
        px = PRINT_LEGEND_ENTRY_PX + _text_px(entry, size)
        if used and used + px > room:
            rows, used = rows + 1, 0.0
        used += px
    fig.update_layout(legend=dict(
        orientation="h", x=-(left - PRINT_LEGEND_INSET_PX) / (width - left - right), y=1.0, xanchor="left",
        yanchor="bottom", bgcolor="rgba(0,0,0,0)", borderwidth=0, font=dict(size=size), tracegroupgap=0,
        itemwidth=30, valign="middle"))
    return rows * PRINT_LEGEND_ROW_PX + PRINT_LEGEND_PAD_PX


def for_print(fig: go.Figure, *, width_cm: float = PRINT_WIDTH_CM, height_cm: float | None = None,
              measure_styles: Mapping[str, int] | None = None) -> go.Figure:
    """A copy of a figure of this package in the print style: greyscale, 8.5 cm wide, readable at that size.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        From :func:`evalcore.figures.paper.precision_figure`, :func:`~evalcore.figures.paper.confidence_figure`
        or :func:`~evalcore.figures.paper.significance_figure` (line traces named and grouped by measure).
    width_cm, height_cm : float
        Size on paper without the legend (the plot, its axes and margins); the height defaults to 0.65 of the
        width, and the figure is taller by its legend's rows.
    measure_styles : mapping of str to int, optional
        Style index per measure (as for the figure functions); order of appearance by default.

    Returns
    -------
    plotly.graph_objects.Figure
        ``layout.width`` and ``layout.height`` in CSS pixels (321 x 209 at 8.5 cm, plus 19 px per legend row),
        fonts of 7.5-8.25 pt at that size, no title. The legend stands in rows above the plot, outside it, its
        entries packed left to right from near the figure's left edge. Each measure's line gets
        :func:`print_style`: a grey, a dash and an open marker drawn at about seven points along it
        (``marker.maxdisplayed``), which the legend repeats. Confidence bands have no legend entries (the caption
        explains them); the k-th band of the figure gets :data:`PRINT_BAND_FILLS` ``[k]`` (a light grey, then
        hatchings) and edges in its measure's dash, so that two bands stay apart in greyscale. The baseline is a
        dotted grey line; significance markers stay grey triangles (Evert 2004, Figure 3), drawn on top, above the
        grey strip along the x axis that marks every significant n ("every significant n"). Linear axes get a
        fixed range and explicit major ticks (:func:`nice_ticks`), every one labelled (:func:`tick_labels`), with
        room at the right for the last label.
    """
    width, height = print_size(width_cm, height_cm)
    out = go.Figure(fig)
    lines, bands, markers, rugs, other = [], [], [], [], []
    for trace in out.data:
        if trace.type != "scatter":
            other.append(trace)
        elif trace.meta == "rug":  # significance_figure's strip of every significant n: stays a grey strip
            rugs.append(trace)
        elif trace.mode == "markers":
            markers.append(trace)
        elif _is_band(trace):
            bands.append(trace)
        else:
            lines.append(trace)
    groups = list(dict.fromkeys(t.legendgroup for t in lines + bands if t.legendgroup))
    index = {g: (measure_styles[g] if measure_styles and g in measure_styles else i) for i, g in enumerate(groups)}
    band_groups = list(dict.fromkeys(t.legendgroup for t in bands))  # the k-th band of this figure
    for trace in bands:
        grey, dash, _ = print_style(index.get(trace.legendgroup, 0))
        fill = PRINT_BAND_FILLS[band_groups.index(trace.legendgroup) % len(PRINT_BAND_FILLS)]
        trace.update(showlegend=False, line=dict(color=grey, width=PRINT_BAND_EDGE, dash=dash))
        if trace.fill == "tonexty":
            trace.update(fillcolor=fill["fillcolor"], fillpattern=fill.get("fillpattern", dict(shape="")))
    for trace in lines:
        if str(trace.name).startswith("baseline"):
            trace.update(line=dict(color=REFERENCE_GREY, dash="dot", width=1.0))
            continue
        grey, dash, symbol = print_style(index.get(trace.legendgroup, 0))
        trace.update(mode="lines+markers", line=dict(color=grey, dash=dash, width=1.2),
                     marker=dict(symbol=symbol, size=5, color=grey, line=dict(width=1, color=grey),
                                 maxdisplayed=PRINT_MARKERS_PER_LINE))
    for trace in markers:
        trace.update(marker=dict(symbol="triangle-up", size=6, color=MARKER_GREY, line=dict(width=0)))
    for trace in rugs:  # (the triangles' entry names the level: a shorter name keeps the legend to two rows)
        trace.update(line=dict(color=MARKER_GREY, width=4), marker=dict(size=6, color=MARKER_GREY, line=dict(width=1)),
                     name="every significant n")
    out.data = tuple(other + bands + lines + rugs + markers)
    margin = dict(l=44, r=8, t=4, b=34)
    out.update_layout(template=PRINT_TEMPLATE, font=PRINT_FONT, title=None)
    out.update_xaxes(**_PRINT_AXIS)
    out.update_yaxes(**_PRINT_AXIS)
    _print_ticks(out)
    margin["r"] = _end_margin(out, margin["r"])
    legend = _print_legend(out, width, margin["l"], margin["r"])
    margin["t"] += legend
    out.update_layout(width=width, height=height + legend, margin=margin)
    for annotation in out.layout.annotations:  # e.g. "significant up to n = 1,268": left of its line, inside
        annotation.update(font=dict(size=10), xanchor="right", bgcolor="rgba(255,255,255,0.8)")
    for shape in out.layout.shapes:
        shape.update(line=dict(color="#000000", width=0.8))
    return out
