"""Every kind of figure the dashboard and the report draw, on small synthetic data: for tests of their layout
(legends, ticks, print style) in Python and in Chromium (tests/test_figures_layout.py,
tests/browser/test_browser_figures.py)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from evalcore import analysis, roc, validate
from evalcore.figures import pairwise as pairfigures
from evalcore.figures import paper, samples as samplefigures
from evalcore.figures import roc as rocfigures
from evalcore.figures.style import for_print
from evalcore.io import load_candidates
from evalcore.ranking import rank_scores
from evalcore.samples import cuts_for

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "experiment_sim.tsv.gz"
N_RANGE = (100, 2000)  # the paper's range: its end, 2,000, must carry a label
#: The report's style indices of its measures (evalcore.report.figures): the pair compared need not be the first
#: two, so the bands of Figure 2 and 3 may get style indices 0 and 2 (the same grey before issue 18).
REPORT_STYLES = {"G2": 0, "t": 1, "X2": 2, "freq": 3}


def rankings(size: int = 3000, seed: int = 1) -> dict:
    """Four measures ranking ``size`` candidates with 15% TPs, better to worse; G2 and X2 differ significantly."""
    rng = np.random.default_rng(seed)
    labels = rng.random(size) < 0.15
    shifts = {"G2": 1.6, "t": 1.4, "X2": 0.6, "freq": 0.2}
    return {m: rank_scores(labels, labels * shift + rng.normal(size=size), ties="stable", measure=m)
            for m, shift in shifts.items()}


@lru_cache(maxsize=1)
def screen_figures() -> dict[str, go.Figure]:
    """Every figure family as the pages draw it (built once per test process: do not change them)."""
    ranked = rankings()
    curves = analysis.curves({m: ranked[m] for m in ("G2", "X2")}, range(N_RANGE[0], N_RANGE[1] + 1))
    every = analysis.curves(ranked, range(N_RANGE[0], N_RANGE[1] + 1))
    pair = analysis.pair_comparison(ranked["G2"], ranked["X2"], N_RANGE)
    baseline = float(curves["tp"].iloc[-1]) / 3000  # (any proportion: the layout is under test)
    rng = np.random.default_rng(2)
    g2_like = np.r_[rng.normal(0, 3, 300), rng.lognormal(3, 1.5, 2700)]  # signed and heavy-tailed, as G²
    labels = rng.random(g2_like.size) < 0.15
    table = roc.roc_table({m: ranked[m] for m in ("G2", "X2")}, resamples=20)
    whole = load_candidates(SAMPLE)
    a, b = whole.measures[:2]
    cuts = cuts_for(whole, (a, b), "gamma", 50)
    valid = validate.validate(whole, a, cuts[a], seed=1)
    across = analysis.across_samples(whole, a, b, cuts[a], cuts[b], seed=1)
    figs = {
        "precision": paper.precision_figure(every, baseline=baseline, n_range=N_RANGE),
        "precision_panels": paper.precision_figure(every, baseline=baseline, n_range=N_RANGE, show_recall=True,
                                                   show_f=True),
        "confidence": paper.confidence_figure(curves, baseline=baseline, level=0.95, method_label="Clopper-Pearson",
                                              n_range=N_RANGE),
        "significance": paper.significance_figure(pair.curve_a, pair.curve_b, pair.comparison, up_to=pair.up_to,
                                                  alpha=0.05),
        "difference": paper.difference_figure(pair.comparison, alpha=0.05, level=0.95, names=("G2", "X2"),
                                              detectable=pair.detectable, up_to=pair.up_to),
        "pvalue": paper.pvalue_figure(pair.comparison, alpha=0.05),
        "threshold": paper.threshold_histogram(g2_like, labels, gamma=20.0, measure="G2", log_score=None),
        "threshold_linear": paper.threshold_histogram(g2_like, labels, gamma=20.0, measure="G2"),
        "pairwise": pairfigures.pvalue_heatmap(analysis.pairwise(ranked, 1000).matrix, alpha=0.05, n=1000),
        "validation": samplefigures.validation_histogram(valid),
        "qq": samplefigures.qq_figure(valid),
        "coverage": samplefigures.coverage_figure(valid),
        "across": samplefigures.differences_figure(across.table.dropna(subset=["difference"]), a=a, b=b,
                                                   estimate=0.1, low=0.05, high=0.15, confidence_level=0.95),
    }
    for kind in rocfigures.CURVE_KINDS:
        figs[kind] = rocfigures.curve_figure(kind, roc.curves_table({m: ranked[m] for m in ("G2", "X2")}, kind),
                                             table, baseline=baseline)
    return figs


@lru_cache(maxsize=1)
def print_figures() -> dict[str, go.Figure]:
    """Figures 1-3 in the report's print style, with the report's style indices (the pair G2, X2 at 0 and 2);
    built once per test process: do not change them."""
    ranked = rankings()
    every = analysis.curves(ranked, range(N_RANGE[0], N_RANGE[1] + 1))
    pair = analysis.pair_comparison(ranked["G2"], ranked["X2"], N_RANGE)
    both = every[every["measure"].isin(["G2", "X2"])]
    figs = {
        "precision": paper.precision_figure(every, baseline=0.15, n_range=N_RANGE, measure_styles=REPORT_STYLES),
        "confidence": paper.confidence_figure(both, baseline=0.15, level=0.95, method_label="Clopper-Pearson",
                                              n_range=N_RANGE, measure_styles=REPORT_STYLES),
        "significance": paper.significance_figure(pair.curve_a, pair.curve_b, pair.comparison, up_to=pair.up_to,
                                                  alpha=0.05, max_triangles=30, measure_styles=REPORT_STYLES),
    }
    return {k: for_print(f, measure_styles=REPORT_STYLES) for k, f in figs.items()}


def band_pairs(fig: go.Figure) -> list[tuple[go.Scatter, go.Scatter]]:
    """(lower, upper) traces of each confidence band of a figure, in order."""
    traces = list(fig.data)
    return [(traces[i - 1], t) for i, t in enumerate(traces) if getattr(t, "fill", None) == "tonexty"]
