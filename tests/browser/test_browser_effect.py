"""The effect-size panels in a real browser on Krenn's data: the difference panel under Figure 3 (band, zero
line, significant n, +-MDD), the 2x2 view's intervals following the n slider, and the Pairwise page's effect
columns. Helpers are in test_browser.py."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import expect

from evalcore import analysis
from evalcore import format as fmt
from evalcore.io import load_candidates
from evalcore.ranking import rank
from test_browser import (FIRST_RUN_MS, figure, go_to, krenn_significance, load_krenn_stable, param, press,
                          save_screenshot, slider_thumb, trace, wait_for_app, wait_for_figures)


def test_difference_panel_and_two_by_two_view_on_krenn(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    krenn_significance(page, krenn_tsv)
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text("up to n = 1,268", timeout=FIRST_RUN_MS)
    wait_for_figures(page)
    expect(page.locator(".js-plotly-plot")).to_have_count(2)

    cs = load_candidates(krenn_tsv, label="is.colloc")
    expected = analysis.pair_comparison(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"),
                                        (100, 2000))
    panel = figure(page, 1)
    names = [name for name, _, _ in panel["traces"]]
    assert "Π_A − Π_B" in names and "95% interval (Newcombe)" in names
    diff = trace(panel, "Π_A − Π_B")
    table = expected.comparison.set_index("n")
    n = np.array(sorted(diff), dtype=int)
    np.testing.assert_allclose([diff[k] for k in n], 100 * table.loc[n, "diff"], rtol=1e-6)
    marked = {int(x) for name, xs, _ in panel["traces"] for x in xs if name and name.startswith("significant")}
    significant = set(table.index[table["significant"]])
    assert 100 in marked and marked <= significant and len(marked) <= 80  # thinned as in Figure 3
    plus = trace(panel, lambda name: "MDD" in name)
    assert all(v > 0 for v in plus.values())
    assert panel["xrange"] == [100, 2000]
    expect(page.get_by_text("says nothing the p-value does not", exact=False)).to_be_visible()

    # the 2x2 view: its n slider moves the effect table along (a typeset table: its cells read as evalcore.format
    # writes them)
    at = slider_thumb(page, "Look at the n-best lists for n =")
    press(page, at, "End")
    expect(page).to_have_url(param("sig_n", "2000"))
    row = analysis.effect_at(expected, 2000)
    shown = fmt.page_table("significance", "effect at n", row)
    table = page.get_by_test_id("stMarkdownContainer").locator("table").filter(has_text="odds ratio")
    for i in range(len(shown)):  # every row, every cell
        expect(table.locator("tbody tr").nth(i).locator("td")).to_have_text(list(shown.iloc[i]))
    save_screenshot(page, screenshot_dir / "significance_effect.png")


def test_pairwise_page_shows_both_effect_sizes(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Pairwise")
    wait_for_figures(page)
    expect(page.get_by_text("not corrected across the pairs", exact=False)).to_be_visible()
    grid = page.get_by_test_id("stDataFrame").filter(has_text="diff_low (points)")
    expect(grid).to_have_count(1)
    grid.hover()  # the grid draws the columns in view: scroll it to its last ones
    page.mouse.wheel(3000, 0)
    expect(grid).to_contain_text("odds_ratio")
