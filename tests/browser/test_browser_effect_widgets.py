"""The Significance page's choices of issue 11 in a real browser on Krenn's data (G2 vs X2, ties stable): changing
the interval of the difference and the power of the minimum detectable difference redraws both figures, and the
difference panel then shows the statsmodels numbers (the unit tests' reference) and the MDD at the new power.
Helpers are in test_browser.py."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import expect
from statsmodels.stats.proportion import confint_proportions_2indep

from evalcore import analysis
from evalcore.io import load_candidates
from evalcore.ranking import rank
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from test_browser import (FIRST_RUN_MS, choose, figure, go_to, load_krenn_stable, param, rerun, trace, wait_for_app,
                          wait_for_figures)

AGRESTI = "Agresti-Caffo (2000): Wald after adding 1 TP and 1 FP to each region"


def band(panel: dict, name: str) -> tuple[dict, dict]:
    """The difference panel's band: its lower bound ("... (lower)") and its upper bound (the legend's name)."""
    return trace(panel, f"{name} (lower)"), trace(panel, name)


def choose_below(page, label: str, option: str) -> None:
    """``choose`` for a selectbox below the figures: scrolled into view first, and clicked again if its list did
    not open (a click that lands while the figure above is still laid out can leave the box focused but shut)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    box.scroll_into_view_if_needed()
    with rerun(page):
        for attempt in range(3):
            box.click()
            try:
                page.get_by_role("option", name=option, exact=True).click(timeout=5_000)
                break
            except PlaywrightTimeoutError:
                page.keyboard.press("Escape")
        else:
            raise AssertionError(f"the options of {label!r} did not open")
    expect(box).to_have_value(option)


def test_interval_method_and_power_redraw_the_panels(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Significance")
    choose(page, "Measure A", "log.like")
    choose(page, "Measure B", "chisq")
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text("up to n = 1,268", timeout=FIRST_RUN_MS)
    wait_for_figures(page, figures=2)
    before = figure(page, 1)
    assert "95% interval (Newcombe)" in [n for n, _, _ in before["traces"]]

    # the interval of the difference: both figures drawn again, the band now Agresti-Caffo's
    choose_below(page, "Interval of the difference", AGRESTI)
    expect(page).to_have_url(param("diff_ci", "agresti_caffo"))
    wait_for_figures(page, figures=2)
    panel = figure(page, 1)
    lower, upper = band(panel, "95% interval (Agresti-Caffo)")
    cs = load_candidates(krenn_tsv, label="is.colloc")
    table = analysis.pair_comparison(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"),
                                     (100, 2000)).comparison.set_index("n")
    n = np.array([k for k in sorted(upper) if table.loc[int(k), "tp_d1"] + table.loc[int(k), "fp_d1"] > 0], dtype=int)
    assert len(n) > 100
    rows = table.loc[n]
    d = (rows["tp_d1"] + rows["fp_d1"]).to_numpy()
    low, high = confint_proportions_2indep(rows["tp_d1"].to_numpy(), d, rows["tp_d2"].to_numpy(), d,
                                           method="agresti-caffo", compare="diff", alpha=0.05)
    scale = 100 * d / n
    np.testing.assert_allclose([lower[k] for k in n], scale * np.clip(low, -1, 1), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose([upper[k] for k in n], scale * np.clip(high, -1, 1), rtol=1e-6, atol=1e-9)
    old_lower, _ = band(before, "95% interval (Newcombe)")
    assert any(abs(old_lower[k] - lower[k]) > 1e-3 for k in n)  # the band has moved: the test can fail

    # the power: the MDD lines drawn again, further out at 95% than at 80%
    mdd80 = trace(panel, lambda name: "MDD" in name and "80%" in name)
    choose_below(page, "Power of the minimum detectable difference", "95%")
    expect(page).to_have_url(param("power", "0.95"))
    wait_for_figures(page, figures=2)
    expect(page.get_by_test_id("stMarkdownContainer").filter(has_text="How big")).to_contain_text("95% power")
    panel = figure(page, 1)
    mdd95 = trace(panel, lambda name: "MDD" in name and "95%" in name)
    common = [k for k in mdd95 if k in mdd80 and np.isfinite(mdd95[k]) and np.isfinite(mdd80[k])]
    assert len(common) > 100 and all(mdd95[k] > mdd80[k] for k in common)
    assert "95% interval (Agresti-Caffo)" in [n for n, _, _ in panel["traces"]]  # the method is kept
    expect(page).to_have_url(param("diff_ci", "agresti_caffo"))
    expect(page.get_by_text("says nothing the p-value does not", exact=False)).to_be_visible()
