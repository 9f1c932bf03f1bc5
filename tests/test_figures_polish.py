"""Figures read as the tables beside them (issue 10): hover digits, the threshold histogram's log axes, the caption
of an exported figure."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from evalcore import analysis, format as fmt, roc
from evalcore.curves import precision_curve
from evalcore.errors import ParameterError
from evalcore.figures import pairwise as pairfigures
from evalcore.figures import paper, samples as samplefigures
from evalcore.figures import roc as rocfigures
from evalcore.figures.style import captioned, export, figure_caption, for_print
from evalcore.io import load_candidates
from evalcore.ranking import rank, rank_scores
from evalcore.samples import cuts_for
from evalcore import validate

SAMPLE = __import__("pathlib").Path(__file__).resolve().parents[1] / "sample_data" / "experiment_sim.tsv.gz"
PLACEHOLDER = re.compile(r"%\{([^}:]+)(?::([^}]*))?\}")


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc", keys=["PP", "verb"])


@pytest.fixture(scope="module")
def figures(krenn) -> dict[str, go.Figure]:
    """Every figure the pages draw, on Krenn's data and the sample experiment."""
    ranked = analysis.rankings_for(krenn, ["log.like", "chisq", "t.score", "freq"], ties="random", seed=7)
    curves = analysis.curves({m: ranked[m] for m in ("log.like", "t.score")}, range(100, 2001))
    pair = analysis.pair_comparison(ranked["log.like"], ranked["chisq"], (100, 2000))
    pairwise = analysis.pairwise(ranked, 1000)
    table = roc.roc_table({m: ranked[m] for m in ("log.like", "t.score")}, resamples=50)
    whole = load_candidates(SAMPLE)
    a, b = whole.measures[:2]
    cuts = cuts_for(whole, (a, b), "gamma", 50)
    across = analysis.across_samples(whole, a, b, cuts[a], cuts[b], seed=1)
    valid = validate.validate(whole, a, cuts[a], seed=1)
    out = {
        "precision": paper.precision_figure(curves, baseline=krenn.baseline, show_recall=True),
        "confidence": paper.confidence_figure(curves, baseline=krenn.baseline, level=0.95, method_label="CP"),
        "significance": paper.significance_figure(pair.curve_a, pair.curve_b, pair.comparison, up_to=pair.up_to,
                                                  alpha=0.05),
        "difference": paper.difference_figure(pair.comparison, alpha=0.05, level=0.95, names=("log.like", "chisq"),
                                              detectable=pair.detectable, up_to=pair.up_to),
        "pvalue": paper.pvalue_figure(pair.comparison, alpha=0.05),
        "threshold": paper.threshold_histogram(krenn.scores["freq"], krenn.labels, gamma=50, measure="freq"),
        "pairwise": pairfigures.pvalue_heatmap(pairwise.matrix, alpha=0.05, n=1000),
        "validation": samplefigures.validation_histogram(valid),
        "qq": samplefigures.qq_figure(valid),
        "coverage": samplefigures.coverage_figure(valid),
        "across": samplefigures.differences_figure(across.table.dropna(subset=["difference"]), a=a, b=b,
                                                   estimate=0.1, low=0.05, high=0.15, confidence_level=0.95),
    }
    for kind in rocfigures.CURVE_KINDS:
        out[kind] = rocfigures.curve_figure(kind, roc.curves_table({m: ranked[m] for m in ("log.like", "t.score")},
                                                                   kind), table, baseline=krenn.baseline)
    return out


def test_every_hover_number_uses_a_format_of_the_formatter(figures):
    allowed = set(fmt.D3.values())
    for name, fig in figures.items():
        for trace in fig.data:
            template = trace.hovertemplate or ""
            for field, spec in PLACEHOLDER.findall(template):
                if spec:
                    assert spec in allowed, f"{name}: {trace.name!r} formats {field} as {spec!r}"


def test_precision_hover_has_the_tables_two_decimals(figures, krenn):
    line = figures["precision"].data[0]
    assert f"precision = {fmt.hover('y', 'percent')}" in line.hovertemplate
    assert format(float(line.y[-1]), fmt.D3["percent"]) + "%" == fmt.percent(line.y[-1] / 100)
    band = [t for t in figures["confidence"].data if t.mode == "lines" and t.customdata is not None][0]
    assert "%{customdata[1]:.2f}%" in band.hovertemplate  # the bounds as the tables' 11.09%
    assert figures["precision"].data[-1].name == f"baseline {fmt.percent(krenn.baseline)}" == "baseline 11.09%"


def test_p_values_in_figures_are_written_as_in_tables(figures):
    markers = [t for t in figures["significance"].data if t.mode == "markers"][0]
    assert all(re.fullmatch(r"p = (\d\.\de-\d+|0\.\d+|1)|p < 1e-300 \(log10 p = -?\d+\.\d\)", t) for t in markers.text)
    assert not any("e-01" in t or "e-02" in t for t in markers.text)  # 0.0431, not 4.3e-02
    heat = figures["pairwise"].data[0]
    shown = [c for row in heat.text for c in row if c]
    assert shown and all("0.0000" not in c for c in shown)
    assert "%{customdata}" in heat.hovertemplate


def test_roc_det_pr_hovers_show_rates_in_percent(figures):
    det = figures["det"].data[0]
    assert "false positive rate %{customdata[0]:.2%}" in det.hovertemplate and "miss rate" in det.hovertemplate
    assert np.all((np.asarray(det.customdata) >= 0) & (np.asarray(det.customdata) <= 1))  # rates, not probits
    pr = figures["pr"].data[0]
    assert "recall %{x:.2%}" in pr.hovertemplate and "precision %{y:.2%}" in pr.hovertemplate
    roc_line = figures["roc"].data[0]
    assert "false positive rate %{x:.2%}" in roc_line.hovertemplate and roc_line.customdata is None


# ---------------------------------------------------------------- threshold histogram: log axes

def test_log_score_axis_is_the_default_for_heavy_tailed_scores(krenn):
    # heavy-tailed: more than half of the scores in one of the 60 bins of the linear axis (issue 18: G² on Krenn's
    # data, -438 to 19,426, is one tall bar there; 71% of the candidates fall into one bin)
    default = {m: paper.log_score_axis_applicable(krenn.scores[m]) for m in krenn.measures}
    assert default == {"freq": True, "MI": False, "Dice": True, "z.score": True, "t.score": False, "chisq": True,
                       "chisq.corr": True, "log.like": True, "Fisher": True}
    g2 = krenn.scores["log.like"]
    counts, _ = np.histogram(g2, bins=paper.HISTOGRAM_BINS)
    assert counts.max() / g2.size == pytest.approx(0.71, abs=0.01)
    assert not paper.log_score_axis_applicable(np.r_[np.nan, 1.0])  # one finite score
    assert not paper.log_score_axis_applicable(np.full(5, 3.0))  # no spread
    heavy = np.r_[np.ones(90), np.linspace(2, 1000, 10), np.nan, np.inf]
    assert paper.log_score_axis_applicable(heavy)


def test_log_score_histogram_bins_in_log10_and_counts_every_score(krenn):
    freq, labels = krenn.scores["freq"], krenn.labels
    fig = paper.threshold_histogram(freq, labels, gamma=50, measure="freq", log_score=True, log_count=True)
    fp, tp = fig.data
    assert np.sum(tp.y) == labels.sum() == 566 and np.sum(fp.y) == (~labels).sum()
    edges = np.asarray(tp.customdata)
    assert edges[0, 0] == freq.min() == 30 and edges[-1, 1] == freq.max()
    np.testing.assert_allclose(np.diff(np.log10(edges[:, 0])), np.diff(np.log10(edges[:, 0]))[0], rtol=1e-9)
    np.testing.assert_allclose(tp.x, (np.log10(edges[:, 0]) + np.log10(edges[:, 1])) / 2)
    assert fig.layout.shapes[0].x0 == pytest.approx(np.log10(50))
    assert fig.layout.annotations[0].text.startswith("γ = 50<br>")
    # 30 to 4,144 holds two powers of ten: the ticks are 1, 2 and 5 times them, each labelled by its score
    assert list(fig.layout.xaxis.ticktext) == ["50", "100", "200", "500", "1000", "2000"]
    np.testing.assert_allclose(fig.layout.xaxis.tickvals, np.log10([50, 100, 200, 500, 1000, 2000]))
    assert "log scale" in fig.layout.xaxis.title.text and fig.layout.yaxis.type == "log"
    assert tp.text[0] == f"score 30 to {fmt.score(edges[0, 1])}" and tp.textposition == "none"
    # None: the default, log for these heavy-tailed scores
    assert "log scale" in paper.threshold_histogram(freq, labels, gamma=50, measure="freq",
                                                    log_score=None).layout.xaxis.title.text


def test_signed_scores_get_a_signed_log_axis(krenn):
    """G² on Krenn's data is signed (negative where a pair occurs less often than expected): the log axis is
    sign(x) log10(1 + |x| / c), with ticks at 0 and +-c 10^k labelled by the scores, every score counted."""
    g2, labels = krenn.scores["log.like"], krenn.labels
    fig = paper.threshold_histogram(g2, labels, gamma=-5.0, measure="G²", log_score=True)
    fp, tp = fig.data
    assert np.sum(tp.y) + np.sum(fp.y) == g2.size == 5102
    scale = paper.score_scale(g2, -5.0)
    assert scale == paper.ScoreScale("signed log", 1.0)  # median |G²| = 71.6: c = 1
    edges = np.asarray(tp.customdata)
    assert edges[0, 0] == g2.min() and edges[-1, 1] == g2.max()
    axis_edges = scale.forward(np.r_[edges[:, 0], edges[-1, 1]])
    np.testing.assert_allclose(np.diff(axis_edges), np.diff(axis_edges)[0], rtol=1e-9)  # equal in axis units
    np.testing.assert_allclose(scale.inverse(scale.forward(g2)), g2, rtol=1e-12, atol=1e-12)
    assert list(fig.layout.xaxis.ticktext) == ["−100", "−10", "−1", "0", "1", "10", "100", "1000", "10⁴"]
    np.testing.assert_allclose(fig.layout.xaxis.tickvals,
                               scale.forward([-100, -10, -1, 0, 1, 10, 100, 1000, 10_000]))
    assert fig.layout.shapes[0].x0 == pytest.approx(-np.log10(6.0))  # gamma = -5 drawn where it is
    assert fig.layout.xaxis.title.text == "score (G²), signed log scale"
    # t spreads over the linear axis: no log by default, but the user may still switch it on
    assert not paper.log_score_axis_applicable(krenn.scores["t.score"])
    t_fig = paper.threshold_histogram(krenn.scores["t.score"], labels, gamma=2.0, measure="t", log_score=True)
    assert "signed log" in t_fig.layout.xaxis.title.text and "0" in t_fig.layout.xaxis.ticktext


def test_log_ticks_thin_out_many_decades():
    scale = paper.ScoreScale("signed log", 1.0)
    values, labels = scale.ticks(-1e3, 1e12)
    assert len(labels) <= 10 and "0" in labels and labels[-1] == "10¹²"
    assert paper.ScoreScale("log").ticks(0.5, 0.9)[1] == ["0.5", "0.9"]  # no power inside: the ends


def test_linear_histogram_is_unchanged_by_the_option(krenn):
    plain = paper.threshold_histogram(krenn.scores["freq"], krenn.labels, gamma=50, measure="freq")
    assert plain.layout.shapes[0].x0 == 50 and plain.layout.xaxis.type is None
    assert plain.layout.xaxis.title.text == "score (freq)"


# ---------------------------------------------------------------- the caption of an exported figure

def test_figure_caption_names_data_ties_test_level_and_n():
    text = figure_caption(dataset="krenn_ppv.tsv", ties="optimistic", test="fisher", level=0.95, n=(100, 2000))
    assert text == ("Data: krenn_ppv.tsv · ties: TPs first · test: Fisher's exact test on D1/D2 (Evert 2004) · "
                    "level 95% · n = 100 to 2,000")
    assert figure_caption(dataset="d", ties="random", seed=42, n=500) == "Data: d · ties: random order (seed 42) · n = 500"
    with pytest.raises(ParameterError, match="`ties`"):
        figure_caption(dataset="d", ties="jitter")
    with pytest.raises(ParameterError, match="`test`"):
        figure_caption(dataset="d", ties="stable", test="t-test")


def test_captioned_adds_one_escaped_caption_below_and_leaves_the_figure(figures):
    fig = figures["significance"]
    before = len(fig.layout.annotations)
    caption = figure_caption(dataset="<b>evil</b>.tsv " + "x" * 150, ties="pessimistic", test="fisher", level=0.99,
                             n=(100, 2000))
    out = captioned(fig, caption)
    assert len(fig.layout.annotations) == before  # the figure shown on the page has none
    (note,) = [a for a in out.layout.annotations if a.name == "caption"]
    assert "&lt;b&gt;evil&lt;/b&gt;" in note.text and "<b>" not in note.text  # a file name is text
    assert note.text.count("<br>") >= 1 and all(len(line) <= 130 for line in note.text.split("<br>"))
    assert note.yref == "paper" and note.y == 0 and note.yanchor == "top" and note.yshift < 0
    assert out.layout.margin.b > (fig.layout.margin.b or 60)
    twice = captioned(out, "second")
    assert [a.text for a in twice.layout.annotations if a.name == "caption"] == ["second"]
    printed = captioned(for_print(fig), caption)  # a fixed size grows by the caption
    assert printed.layout.height > for_print(fig).layout.height
    with pytest.raises(ParameterError, match="`caption`"):
        captioned(fig, "  ")


def test_an_exported_png_with_a_caption_is_taller_by_the_caption(figures):
    import struct

    fig = figures["threshold"]
    plain, with_caption = export(fig, "png", scale=1), export(captioned(fig, "Data: krenn · ties: TPs first"), "png",
                                                              scale=1)

    def height(png: bytes) -> int:
        return struct.unpack(">I", png[20:24])[0]  # IHDR: width, height

    assert height(plain) == 560 and height(with_caption) == 560 + 18 + 12
