"""Significance's figures are drawn in place (evalcore_app/components/plot, issue 18's level key): a level key updates Figure
3 and the difference panel where they are, each drawn once, with the new level's numbers; a key that changes
neither figure draws neither. Helpers are in test_browser.py."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import expect

from test_browser import (band_width, figure, krenn_significance, param, press, slider_thumb, trace, wait_for_app,
                          wait_for_figures)

CHARTS = """() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]')).map(chart => ({
  tag: chart.__testTag === undefined ? null : chart.__testTag, draws: Number(chart.getAttribute('data-draws')),
  busy: chart.getAttribute('aria-busy')}))"""
TAG = """() => document.querySelectorAll('[data-testid="stPlotlyChart"]').forEach((chart, i) => { chart.__testTag = i; })"""


def test_a_level_key_redraws_both_figures_in_place_once(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    krenn_significance(page, krenn_tsv)
    wait_for_figures(page, 2)
    before = page.evaluate(CHARTS)
    assert [c["busy"] for c in before] == [None, None] and all(c["draws"] >= 1 for c in before)
    page.evaluate(TAG)  # a mark on each chart element: a chart drawn anew would not carry it
    width_95 = band_width(figure(page, 0), "log.like")
    panel_95 = figure(page, 1)

    press(page, slider_thumb(page, "Confidence level"), "ArrowRight")
    expect(page).to_have_url(param("level", "0.951"))
    after = page.evaluate(CHARTS)
    assert [c["tag"] for c in after] == [0, 1], "the level key replaced a chart instead of updating it"
    assert [c["draws"] for c in after] == [c["draws"] + 1 for c in before], "each figure is drawn once per key"
    # what is drawn is the new level's: every Clopper-Pearson band is wider at 95.1% than at 95%, and the
    # difference panel names its 95.1% interval
    width_951 = band_width(figure(page, 0), "log.like")
    n = sorted(set(width_95) & set(width_951))
    assert len(n) > 100 and np.all(np.array([width_951[k] for k in n]) > np.array([width_95[k] for k in n]))
    panel_951 = figure(page, 1)
    names = [name for name, _, _ in panel_951["traces"]]
    assert "95.1% interval (Newcombe)" in names and "95% interval (Newcombe)" not in names
    difference = trace(panel_951, "Π_A − Π_B")  # the difference itself does not depend on the level
    assert difference == trace(panel_95, "Π_A − Π_B")

    # the 2x2 view's n changes neither figure: neither is drawn again
    press(page, slider_thumb(page, "Look at the n-best lists for n ="), "End")
    expect(page).to_have_url(param("sig_n", "2000"))
    still = page.evaluate(CHARTS)
    assert [c["tag"] for c in still] == [0, 1] and [c["draws"] for c in still] == [c["draws"] for c in after]
