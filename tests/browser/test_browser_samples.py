"""The multi-sample pages in a real browser: several files uploaded as one experiment, the shipped 80-sample
experiment, sliders moved with the keyboard, and each page's link opened by a colleague in a fresh session.
Helpers are those of test_browser.py; fixtures are in conftest.py.
"""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pandas as pd
from playwright.sync_api import Page, expect

from evalcore.io import combine_samples, load_candidates
from evalcore.samples import Cut, gamma_for_mean_size
from evalcore.validate import validate
from test_browser import (FIRST_RUN_MS, choose, fingerprint, go_to, metric, param, press, rerun, save_screenshot,
                          settled_link, slider_thumb, wait_for_app, wait_for_figures)

EXPERIMENT = Path(__file__).resolve().parents[2] / "sample_data" / "experiment_sim.tsv.gz"
N_SLIDER = "n: a threshold's default accepts n candidates per sample on average"


def markdown(page: Page, text: str):
    return page.get_by_test_id("stMarkdownContainer").filter(has_text=text)


def shown(page: Page) -> dict:
    """What a colleague must see the same: every metric, the page's sentences, every figure's data."""
    wait_for_figures(page)
    figures = page.locator(".js-plotly-plot").count()
    return {"metrics": page.get_by_test_id("stMetricValue").all_inner_texts(),
            "text": page.get_by_test_id("stMain").get_by_test_id("stMarkdownContainer").all_inner_texts(),
            "figures": [fingerprint(page, i) for i in range(figures)]}


def opened_by_a_colleague(new_page, page: Page, heading: str) -> None:
    link = settled_link(page)
    original = shown(page)
    other = new_page(link)
    wait_for_app(other)
    expect(other.get_by_role("heading", name=heading)).to_be_visible()
    expect(other.get_by_test_id("stMetricValue")).to_have_text(original["metrics"], timeout=FIRST_RUN_MS)
    assert shown(other) == original
    expect(other).to_have_url(link)
    assert not other.get_by_test_id("stAlertContentWarning").count()


def test_several_files_become_one_experiment_and_validation_follows_the_keyboard(new_page, tmp_path):
    table = pd.read_csv(EXPERIMENT, sep="\t", dtype={"candidate": str})
    paths = []
    for s in ("s01", "s02", "s03", "s04"):
        path = tmp_path / f"{s}.tsv"
        table[table["sample"] == s].drop(columns="sample").to_csv(path, sep="\t", index=False)
        paths.append(path)
    data, name = combine_samples([(p, p.name) for p in paths])
    combined = load_candidates(data, name=name)

    page = new_page("/")
    wait_for_app(page)
    with rerun(page):
        page.get_by_test_id("stFileUploader").locator("input[type=file]").set_input_files(paths)
    expect(markdown(page, "4 samples")).to_be_visible(timeout=FIRST_RUN_MS)
    expect(page).to_have_url(param("sample_col", "sample"))
    go_to(page, "Validation")
    wait_for_figures(page)
    expect(metric(page, "Samples used")).to_have_text("4")
    measure = combined.measures[0]
    press(page, slider_thumb(page, N_SLIDER), *["ArrowRight"] * 5)  # 100 -> 105
    expect(page).to_have_url(param("cut_n", "105"))
    expected = validate(combined, measure, Cut("gamma", gamma_for_mean_size(combined, measure, 105)))
    expect(metric(page, "Mean precision π")).to_have_text(f"{expected.mean_precision:.2%}")
    expect(metric(page, "SD observed / predicted")).to_have_text(f"{expected.sd_ratio:.2f}")


def test_the_shipped_experiment_on_every_multi_sample_page_and_its_links(new_page, screenshot_dir):
    experiment = load_candidates(EXPERIMENT)
    page = new_page("/")
    wait_for_app(page)
    choose(page, "Or start from a sample", "experiment_sim")
    with rerun(page):
        page.get_by_role("button", name="Use this sample").click()
    expect(metric(page, "Candidates N")).to_have_text(f"{experiment.n_candidates:,}", timeout=FIRST_RUN_MS)
    expect(markdown(page, "80 samples")).to_be_visible()

    go_to(page, "Validation")
    choose(page, "Measure", "good")
    expected = validate(experiment, "good", Cut("gamma", gamma_for_mean_size(experiment, "good", 100)))
    expect(metric(page, "SD observed / predicted")).to_have_text(f"{expected.sd_ratio:.2f}")
    expect(metric(page, "95% intervals missing π")).to_have_text(f"{expected.misses} of 80")
    wait_for_figures(page)
    save_screenshot(page, screenshot_dir / "validation.png")
    # a threshold moved by keyboard goes into the link
    press(page, slider_thumb(page, "γ for good"), "ArrowRight", "ArrowRight")
    expect(page).to_have_url(re.compile(r"[?&]cut_gamma=good%3D"))
    gamma = float(parse_qs(urlsplit(page.url).query)["cut_gamma"][0].split("=")[1])
    expected = validate(experiment, "good", Cut("gamma", gamma))
    expect(metric(page, "Mean precision π")).to_have_text(f"{expected.mean_precision:.2%}")
    opened_by_a_colleague(new_page, page, "Does the binomial model hold over the samples? (Evert 2004, Figure 4)")

    go_to(page, "Across samples")
    choose(page, "Measure A", "good")
    choose(page, "Measure B", "noisy")
    expect(markdown(page, "mean difference")).to_be_visible()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    save_screenshot(page, screenshot_dir / "across.png")
    opened_by_a_colleague(new_page, page, "Two measures across the samples: paired tests")

    go_to(page, "Unanimous improvement")
    expect(markdown(page, "UIR(good, noisy) =")).to_be_visible()
    save_screenshot(page, screenshot_dir / "uir.png")
    opened_by_a_colleague(new_page, page, "Unanimous Improvement Ratio over the samples")
