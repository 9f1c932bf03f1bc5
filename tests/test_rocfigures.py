"""ROC, DET and precision-recall figures, through their data; the command line's --kind."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy import special

from evalcore import roc
from evalcore.figures import roc as rocfigures
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.ranking import rank
from test_cli import run


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    cs = load_candidates(krenn_tsv, label="is.colloc")
    return cs, {m: rank(cs, m, ties="stable") for m in ("log.like", "freq")}


def test_roc_figure_draws_the_curves_with_auc_in_the_legend(krenn):
    _, r = krenn
    curves = pd.concat([roc.roc_curve(x) for x in r.values()], ignore_index=True)
    table = roc.roc_table(r, resamples=200)
    fig = rocfigures.roc_figure(curves, table)
    first = fig.data[0]
    row = table.iloc[0]
    assert first.name == f"log.like: AUC {row.auc:.3f} [{row.auc_low:.3f}, {row.auc_high:.3f}]"
    # downsampled to the budget, keeping the ends
    x, y = np.asarray(first.x, dtype=float), np.asarray(first.y, dtype=float)
    assert x.size <= 2100 and (x[0], y[0]) == (0, 0) and (x[-1], y[-1]) == (1, 1)
    # every drawn point lies on the curve
    full = roc.roc_curve(r["log.like"])
    pairs = set(zip(full["fpr"].round(12), full["tpr"].round(12)))
    assert all((round(a, 12), round(b, 12)) in pairs for a, b in zip(x, y))
    assert fig.data[-1].name == "chance (AUC 0.5)"


def test_det_and_pr_figures(krenn):
    cs, r = krenn
    det = pd.concat([roc.det_curve(x) for x in r.values()], ignore_index=True)
    fig = rocfigures.det_figure(det)
    np.testing.assert_allclose(fig.layout.xaxis.tickvals, special.ndtri(rocfigures.DET_TICKS))
    assert fig.layout.xaxis.ticktext[0] == "0.1%" and np.all(np.isfinite(np.asarray(fig.data[0].x, dtype=float)))
    pr = pd.concat([roc.pr_curve(x) for x in r.values()], ignore_index=True)
    fig = rocfigures.pr_figure(pr, roc.roc_table(r, resamples=200), baseline=cs.baseline)
    assert fig.data[-1].name == f"baseline {cs.baseline:.2%}" and fig.data[0].name.startswith("log.like: AP ")
    with pytest.raises(ParameterError, match="kind"):
        rocfigures.curve_figure("lift", pr, None, baseline=0.1)


def test_curves_kind_on_the_command_line(krenn_tsv, krenn):
    _, r = krenn
    code, out, _ = run("curves", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--kind", "roc",
                       "--ties", "stable")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    expected = roc.roc_curve(r["log.like"])
    np.testing.assert_array_equal(table["tpr"], expected["tpr"])
    code, out, _ = run("curves", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "freq",
                       "--kind", "auc", "--resamples", "300", "--seed", "4")
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    expected = roc.roc_table(r, resamples=300, seed=4)
    np.testing.assert_allclose(table[["auc", "auc_low", "auc_high", "ap", "ap_low", "ap_high"]],
                               expected[["auc", "auc_low", "auc_high", "ap", "ap_low", "ap_high"]], rtol=1e-12)


def test_det_tick_labels_do_not_overlap():
    """Issue 10: the labels 0.1% and 0.2% overlapped (0.21 normal deviates apart, under 4% of the
    axis). Neighbouring ticks are now at least 0.35 apart, 6.5% of the axis from 0.1% to 99%:
    33 pixels on a 500-pixel axis, more than a label such as "95%" needs at 12 points."""
    ticks = special.ndtri(rocfigures.DET_TICKS)
    assert np.diff(ticks).min() >= 0.35 and np.diff(ticks).min() / (ticks[-1] - ticks[0]) >= 0.065
