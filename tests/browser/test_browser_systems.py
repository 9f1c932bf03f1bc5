"""The Systems page in a real browser: a references file and three systems' text files uploaded, the scores and
the p-value matrix read off the page, the resamples slider moved with the keyboard, and the share link reopened by
a colleague in a fresh session. The numbers expected are evalcore.systems' (checked against sacrebleu in
tests/test_systems.py). Helpers are those of test_browser.py; fixtures are in conftest.py."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from evalcore.format import p_value
from evalcore.systems.compare import ResamplingSettings, compare_systems
from evalcore.systems.inputs import check_text_input, read_segments
from evalcore.systems.metrics import format_score
from evalcore.systems.statistics import text_statistics
from evalcore.systems.synthetic import synthetic_test_set, write_test_set
from test_browser import (fingerprint, param, press, rerun, settled_link, slider_thumb, wait_for_app,
                          wait_for_figures)

HEADING = "Compare systems on a test set"
FIGURES = 4  # scores, p-value matrix, resampled gains, test-set size


def matrix_texts(page: Page) -> list[list[str]]:
    """The p-value matrix's cell texts as the browser draws them (the heatmap is the second figure)."""
    return page.evaluate("() => document.querySelectorAll('.js-plotly-plot')[1].data[0].text")


def expected_matrix(result) -> list[list[str]]:
    matrix = result.pvalue_matrix("p_adjusted").to_numpy()
    alpha = result.settings.alpha
    return [["" if i == j else p_value(v) + (" *" if v < alpha else "") for j, v in enumerate(row)]
            for i, row in enumerate(matrix)]


def shown(page: Page) -> dict:
    wait_for_figures(page, FIGURES)
    return {"tables": page.get_by_test_id("stDataFrame").all_inner_texts(),
            "figures": [fingerprint(page, i) for i in range(FIGURES)], "matrix": matrix_texts(page)}


def test_upload_three_systems_read_scores_and_p_values_move_resamples_and_share(new_page, tmp_path):
    data = synthetic_test_set(200, 3, seed=3)
    references, hyps = write_test_set(tmp_path, data)
    statistics = text_statistics(check_text_input([("r", read_segments(references))],
                                                  [(p.name, read_segments(p)) for p in hyps], "bleu"), "bleu")

    page = new_page("/systems")
    wait_for_app(page)
    expect(page.get_by_role("heading", name=HEADING)).to_be_visible()
    uploaders = page.get_by_test_id("stFileUploader")
    with rerun(page):
        uploaders.nth(0).locator("input[type=file]").set_input_files(references)
    with rerun(page, figures=FIGURES):
        uploaders.nth(1).locator("input[type=file]").set_input_files(hyps)
    wait_for_figures(page, FIGURES)

    result = compare_systems(statistics, ResamplingSettings(1000, 12345))
    scores = page.get_by_test_id("stDataFrame").filter(has_text="95% interval").first
    for row in result.systems.itertuples(index=False):
        expect(scores).to_contain_text(row.name)
        expect(scores).to_contain_text(format_score(statistics.metric, row.score))
        expect(scores).to_contain_text(f"[{format_score(statistics.metric, row.ci_low)}, "
                                       f"{format_score(statistics.metric, row.ci_high)}]")
    assert matrix_texts(page) == expected_matrix(result)
    expect(page.get_by_text(f"{result.n_significant} of 3", exact=False)).to_be_visible()

    # more resamples, by the keyboard: the link and the numbers follow
    press(page, slider_thumb(page, "Resamples"), "ArrowRight")
    expect(page).to_have_url(param("sys_r", "2000"))
    wait_for_figures(page, FIGURES)
    more = compare_systems(statistics, ResamplingSettings(2000, 12345))
    assert matrix_texts(page) == expected_matrix(more)
    interval = more.systems.iloc[0]
    expect(page.get_by_test_id("stDataFrame").filter(has_text="95% interval").first).to_contain_text(
        f"[{format_score(statistics.metric, interval.ci_low)}, {format_score(statistics.metric, interval.ci_high)}]")

    # a colleague opens the link: the same files (from the store), settings, tables and figures
    link = settled_link(page)
    original = shown(page)
    other = new_page(link)
    wait_for_app(other, figures=FIGURES)
    expect(other.get_by_role("heading", name=HEADING)).to_be_visible()
    assert shown(other) == original
    expect(other).to_have_url(link)
    expect(other.get_by_test_id("stSidebar")).to_contain_text("cmd systems")
