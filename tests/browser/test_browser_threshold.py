"""The Threshold page in Chromium (issue 10): γ typed exactly is kept (on the page and in the link), and switching
measure keeps the acceptance size (freq γ = 50 accepts 2,340 of Krenn's candidates; so does t.score after the
switch)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from test_browser import (FIRST_RUN_MS, choose, go_to, load_krenn_stable, metric, param, rerun, settled_link,
                          wait_for_app, wait_for_figures)

TYPED = "or type gamma exactly"


def type_gamma(page: Page, value: str) -> None:
    box = page.get_by_label(TYPED, exact=True)
    with rerun(page, figures=1):
        box.fill(value)
        box.press("Enter")


def test_exact_gamma_and_a_switch_that_keeps_the_acceptance_size(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Threshold")
    wait_for_figures(page, figures=1)
    choose(page, "Measure", "freq")
    type_gamma(page, "50")
    expect(metric(page, "Accepted")).to_have_text("2,340")
    expect(page).to_have_url(param("gamma", "50.0"))

    choose(page, "Measure", "t.score")  # the acceptance size stays, γ becomes a t-score
    wait_for_figures(page, figures=1)
    expect(metric(page, "Accepted")).to_have_text("2,340")
    expect(page).to_have_url(param("t_measure", "t.score"))

    type_gamma(page, "2.09")
    expect(page).to_have_url(param("gamma", "2.09"))
    expect(page.get_by_label(TYPED, exact=True)).to_have_value("2.09")
    expect(page.get_by_test_id("stSlider").get_by_test_id("stSliderThumbValue")).to_have_text("2.09")
    accepted = metric(page, "Accepted").inner_text()

    fresh = new_page(settled_link(page))  # the link keeps γ exactly
    wait_for_app(fresh, timeout=FIRST_RUN_MS)
    wait_for_figures(fresh, figures=1)
    expect(fresh.get_by_label(TYPED, exact=True)).to_have_value("2.09")
    expect(metric(fresh, "Accepted")).to_have_text(accepted)
