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


# ------------------------------------------------------------------------------------------------ issue 31

def _trec_files(folder):
    """The reference file's qrels and three runs (ties of equal scores, a topic a run lacks), one of them gzipped."""
    import gzip
    import json
    from pathlib import Path

    reference = json.loads((Path(__file__).parents[1] / "reference" / "systems_libraries_reference.json")
                           .read_text("utf-8"))["trec"]["files"]
    qrels = folder / "qrels.txt"
    qrels.write_text("\n".join(reference["qrels"]) + "\n")
    runs = []
    for name, lines in reference["runs"].items():
        data = ("\n".join(lines) + "\n").encode()
        path = folder / (f"{name}.run.gz" if name == "hybrid" else f"{name}.run")
        path.write_bytes(gzip.compress(data) if name == "hybrid" else data)
        runs.append(path)
    return qrels, runs


def test_upload_qrels_and_three_runs_read_scores_and_p_values_and_reopen_the_link(new_page, tmp_path):
    from evalcore.systems.trec import read_qrels, read_run, trec_statistics

    qrels, runs = _trec_files(tmp_path)
    statistics = trec_statistics(read_qrels(qrels), [read_run(p) for p in runs], "nDCG@10")
    result = compare_systems(statistics, ResamplingSettings(1000, 12345))

    page = new_page("/systems")
    wait_for_app(page)
    with rerun(page):
        page.get_by_text("TREC runs with qrels", exact=True).click()
    uploaders = page.get_by_test_id("stFileUploader")
    with rerun(page):
        uploaders.nth(0).locator("input[type=file]").set_input_files(qrels)
    with rerun(page, figures=FIGURES):
        uploaders.nth(1).locator("input[type=file]").set_input_files(runs)
    wait_for_figures(page, FIGURES)

    scores = page.get_by_test_id("stDataFrame").filter(has_text="95% interval").first
    for row in result.systems.itertuples(index=False):
        expect(scores).to_contain_text(row.name)
        expect(scores).to_contain_text(format_score(statistics.metric, row.score))
        expect(scores).to_contain_text(f"[{format_score(statistics.metric, row.ci_low)}, "
                                       f"{format_score(statistics.metric, row.ci_high)}]")
    assert matrix_texts(page) == expected_matrix(result)
    expect(page.get_by_text("nDCG@10", exact=False).first).to_be_visible()
    expect(page.get_by_text("run dense lacks 1 topic of the qrels, scored 0", exact=False)).to_be_visible()

    link = settled_link(page)
    original = shown(page)
    other = new_page(link)
    wait_for_app(other, figures=FIGURES)
    assert shown(other) == original
    expect(other).to_have_url(link)
    expect(other.get_by_test_id("stSidebar")).to_contain_text("qrels 1")


def test_summaries_in_two_scripts_get_the_tokenizer_warning_and_the_unicode_tokenizer_clears_it(new_page, tmp_path):
    references = ["Президент подписал закон о бюджете в понедельник.", "東京で新しい学生寮が開かれた。",
                  "Правительство одобрило новый план.", "大阪の会議は延期された。"] * 5
    systems = {"lead": ["Президент подписал закон.", "東京で学生寮が開かれた。", "Правительство одобрило план.",
                        "会議は延期された。"] * 5,
               "abstract": ["Закон о бюджете подписан.", "新しい寮が開いた。", "Новый план одобрен.",
                            "大阪の会議。"] * 5}
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(references) + "\n", encoding="utf-8")
    hyps = []
    for name, lines in systems.items():
        hyps.append(tmp_path / f"{name}.txt")
        hyps[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")

    page = new_page("/systems?sys_metric=rouge1")
    wait_for_app(page)
    uploaders = page.get_by_test_id("stFileUploader")
    with rerun(page):
        uploaders.nth(0).locator("input[type=file]").set_input_files(refs)
    with rerun(page, figures=FIGURES):
        uploaders.nth(1).locator("input[type=file]").set_input_files(hyps)
    wait_for_figures(page, FIGURES)
    warning = page.get_by_test_id("stAlert").filter(has_text="drops most of the letters and digits")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("Unicode tokenizer")

    with rerun(page, figures=FIGURES):
        page.get_by_role("combobox", name="ROUGE tokenizer", exact=True).click()
        page.get_by_role("option", name="Unicode letters, digits", exact=True).click()
    expect(page).to_have_url(param("sys_rtok", "unicode"))
    wait_for_figures(page, FIGURES)
    expect(page.get_by_test_id("stAlert").filter(has_text="drops most")).to_have_count(0)
    from evalcore.systems.inputs import check_text_input
    from evalcore.systems.rouge import RougeOptions, rouge_statistics

    data = check_text_input([("refs.txt", references)], [(p.name, systems[p.stem]) for p in hyps], "rouge1")
    statistics = rouge_statistics(data, "rouge1", RougeOptions(tokenizer="unicode"))
    result = compare_systems(statistics, ResamplingSettings(1000, 12345))
    scores = page.get_by_test_id("stDataFrame").filter(has_text="95% interval").first
    for row in result.systems.itertuples(index=False):
        expect(scores).to_contain_text(format_score(statistics.metric, row.score))
    assert all(s > 0.3 for s in statistics.scores)  # scored on the words, not on nothing
