"""One state behind every page, in Chromium (issue 10): the measures chosen on Precision and the n range (up to
N) stay chosen on Confidence and Significance, and the link opens the same choices in a fresh browser context."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from test_browser import (FIRST_RUN_MS, go_to, load_krenn_stable, param, press, rerun, settled_link,
                          slider_thumb, slider_values, wait_for_app, wait_for_figures)

BEST4 = ["log.like", "Fisher", "t.score", "chisq.corr"]  # Krenn's data by average precision
RANGE = "Range of n (n-best list size)"


def chips(page: Page) -> list[str]:
    return page.get_by_test_id("stMultiSelect").locator("[data-tag]").all_inner_texts()


def test_choices_carry_across_pages_and_through_the_link(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Precision")
    wait_for_figures(page)
    expect(page.get_by_text("Measures ordered by average precision")).to_be_visible()
    assert chips(page) == BEST4  # the four best, not the first four columns
    with rerun(page):
        page.get_by_role("button", name="Remove chisq.corr", exact=True).click()
    with rerun(page):
        page.get_by_test_id("stMultiSelect").locator("input").click()
        page.get_by_role("option", name="freq", exact=True).click()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("stMultiSelect").locator("[data-tag]")).to_have_text(
        ["log.like", "Fisher", "t.score", "freq"])
    press(page, slider_thumb(page, RANGE, 1), "End")  # the range reaches N
    expect(page).to_have_url(param("n_max", "5102"))
    expect(slider_values(page, RANGE)).to_have_text(["100", "5,102"])
    chosen = ["log.like", "Fisher", "t.score", "freq"]

    go_to(page, "Confidence")
    wait_for_figures(page)
    assert chips(page) == chosen
    expect(slider_values(page, RANGE)).to_have_text(["100", "5,102"])
    go_to(page, "Significance")
    wait_for_figures(page, figures=2)
    expect(slider_values(page, "Range of n (every n in it is tested)")).to_have_text(["100", "5,102"])
    expect(page.get_by_role("combobox", name="Measure A", exact=True)).to_have_value("log.like")
    # (the first two whose lists differ enough for Fisher's test to reach alpha: not Fisher, issue 30)
    expect(page.get_by_role("combobox", name="Measure B", exact=True)).to_have_value("t.score")
    link = settled_link(page)

    fresh = new_page(link.replace("/significance", "/confidence"))
    wait_for_app(fresh, timeout=FIRST_RUN_MS)
    wait_for_figures(fresh)
    assert chips(fresh) == chosen
    expect(slider_values(fresh, RANGE)).to_have_text(["100", "5,102"])
    go_to(fresh, "Significance")
    wait_for_figures(fresh, figures=2)
    expect(fresh.get_by_role("combobox", name="Measure B", exact=True)).to_have_value("t.score")
    expect(slider_values(fresh, "Range of n (every n in it is tested)")).to_have_text(["100", "5,102"])
