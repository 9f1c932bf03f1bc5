"""The Significance page's other tests and corrections and the Pairwise page in a real browser: choices go into
the link, and a pair picked on the Pairwise page opens on the Significance page. Helpers are in test_browser.py."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from evalcore import analysis
from evalcore.io import load_candidates
from evalcore.ranking import rank
from test_browser_samples import opened_by_a_colleague
from test_browser import (FIRST_RUN_MS, choose, go_to, load_krenn_stable, param, rerun, save_screenshot,
                          wait_for_app, wait_for_figures)


def test_a_correction_and_a_pair_from_the_pairwise_page(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Pairwise")
    wait_for_figures(page)
    choose(page, "Correction across the pairs", "Holm (family-wise error)")
    expect(page).to_have_url(param("correction", "holm"))
    save_screenshot(page, screenshot_dir / "pairwise.png")
    opened_by_a_colleague(new_page, page, "Every pair of measures at one n")
    box = page.get_by_role("combobox", name="Look at a pair at every n", exact=True)
    with rerun(page):  # the four best measures' 6 pairs: type to find the pair
        box.click()
        page.keyboard.type("t.score vs chisq.corr")
        page.get_by_role("option", name="t.score vs chisq.corr", exact=True).click()
    expect(box).to_have_value("t.score vs chisq.corr")
    with rerun(page):
        page.get_by_role("button", name="Open it on the Significance page").click()
    expect(page).to_have_url(re.compile(r"/significance\?"))
    expect(page).to_have_url(param("a", "t.score"))
    expect(page).to_have_url(param("b", "chisq.corr"))
    # the correction chosen there applies to the n tested here: Holm over every n from 100 to 2,000
    cs = load_candidates(krenn_tsv, label="is.colloc")
    expected = analysis.pair_comparison(rank(cs, "t.score", ties="stable"), rank(cs, "chisq.corr", ties="stable"),
                                        (100, 2000), correction="holm")
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text(f"{expected.n_significant:,} of 1,901", timeout=FIRST_RUN_MS)
    choose(page, "Test", "exact McNemar on the discordant TPs (T_D1 against T_D2)")
    expect(page).to_have_url(param("test", "mcnemar"))
    expected = analysis.pair_comparison(rank(cs, "t.score", ties="stable"), rank(cs, "chisq.corr", ties="stable"),
                                        (100, 2000), test="mcnemar", correction="holm")
    expect(page.get_by_test_id("stMarkdownContainer").filter(has_text="exact McNemar")).to_contain_text(
        f"{expected.n_significant:,} of 1,901")


def test_roc_det_and_pr_in_the_browser(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "ROC, DET, PR")
    wait_for_figures(page)
    cs = load_candidates(krenn_tsv, label="is.colloc")
    first = analysis.measure_quality(cs)["measure"][0]  # the pages start from the best by average precision
    from evalcore import roc
    auc = roc.auc(rank(cs, first, ties="stable"))
    expect(page.get_by_test_id("stPlotlyChart")).to_contain_text(f"{first}: AUC {auc:.3f}")
    save_screenshot(page, screenshot_dir / "roc.png")
    with rerun(page):
        page.get_by_text("DET (miss against false alarm rate, normal-deviate axes)").click()
    expect(page).to_have_url(param("kind", "det"))
    wait_for_figures(page)
    expect(page.get_by_test_id("stPlotlyChart")).to_contain_text("miss rate")
    opened_by_a_colleague(new_page, page, "ROC, DET and precision-recall curves")
