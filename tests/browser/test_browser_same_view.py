"""The same file shows the same numbers to everyone, and every page is current (issue 30), in Chromium: two people
who upload the same file (two browser contexts) see the same seed, pair and numbers without passing a link; a data
set opens with its own seed, and one chosen stays; a bound just below zero reads as such; any n can be typed; a
page's link holds only what its pages show (the Systems page's files never reach a candidate set's link, nor the
candidate set's the Systems page's). /data opening the Data page is in test_browser_links.py, a large server set's
range and label in test_browser_serverdata.py. Helpers are in test_browser.py."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from evalcore.report.signature import file_sha256
from evalcore.systems.synthetic import synthetic_test_set, write_test_set
from test_browser import (FIRST_RUN_MS, click_for_run, figure, fingerprint, go_to, metric, param, query, rerun,
                          settled_link, sidebar_link, slider_values, upload, wait_for_app, wait_for_figures)

SAMPLE = "sample%3Acollocations_sim"
SAMPLE_FILE = Path(__file__).resolve().parents[2] / "sample_data" / "collocations_sim.tsv"


def seed_of(path) -> int:
    """A data set's own seed: the first 32 bits of its SHA-256 (evalcore.ranking.data_seed)."""
    return int(file_sha256(path)[:8], 16)


def test_two_people_upload_the_same_file_and_see_the_same_numbers(new_page, krenn_tsv):
    # main drew a new seed on every visit: two colleagues saw different numbers unless they passed a link around
    seed = seed_of(krenn_tsv)
    seen = []
    for person in ("alice", "bob"):  # two browser contexts: two sessions, no link between them
        page = new_page("/")
        wait_for_app(page)
        upload(page, krenn_tsv)
        expect(metric(page, "Candidates N")).to_have_text("5,102", timeout=FIRST_RUN_MS)
        expect(page).to_have_url(param("seed", str(seed)))
        expect(page.get_by_role("spinbutton", name="Seed for random tie-breaking")).to_have_value(str(seed))
        expect(page.get_by_text("The data's own seed")).to_be_visible()
        go_to(page, "Significance")
        wait_for_figures(page, figures=2)
        # the first two measures whose lists differ enough for Fisher's test (not log.like against Fisher)
        expect(page.get_by_role("combobox", name="Measure A", exact=True)).to_have_value("log.like")
        expect(page.get_by_role("combobox", name="Measure B", exact=True)).to_have_value("t.score")
        sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test").inner_text()
        seen.append((sentence, fingerprint(page), fingerprint(page, 1), parse_qs(urlsplit(settled_link(page)).query)))
    assert seen[0] == seen[1] and seen[0][3]["seed"] == [str(seed)] and "ties" not in seen[0][3]  # random ties

    # a pair chosen whose lists nearly coincide is said in words
    page = new_page(f"/significance?dataset={file_sha256(krenn_tsv)}&a=log.like&b=Fisher")
    wait_for_app(page, figures=2)
    expect(page.get_by_test_id("stAlertContentInfo").filter(has_text="nearly the same")).to_contain_text(
        "at most 4 candidates")

    # the bound just below zero keeps its sign and digits: main read "+1.10 [-0.00, +2.19]" at n = 1,269
    page = new_page(f"/significance?dataset={file_sha256(krenn_tsv)}&ties=stable&a=log.like&b=chisq&sig_n=1269")
    wait_for_app(page, figures=2)
    effects = page.get_by_role("table").filter(has_text="odds ratio")
    expect(effects).to_contain_text("-0.0004")
    assert "-0.00\t" not in effects.inner_text() + "\t"


def test_a_data_set_opens_with_its_own_seed_and_a_chosen_one_stays(new_page, krenn_tsv):
    sample = int(hashlib.sha256(SAMPLE_FILE.read_bytes()).hexdigest()[:8], 16)
    page = new_page("/")
    wait_for_app(page)
    click_for_run(page, page.get_by_role("button", name="Use this sample"))
    expect(metric(page, "Candidates N")).to_have_text("6,348")
    expect(page).to_have_url(param("seed", str(sample)))
    upload(page, krenn_tsv)  # another data set: its own seed
    expect(metric(page, "Candidates N")).to_have_text("5,102", timeout=FIRST_RUN_MS)
    expect(page).to_have_url(param("seed", str(seed_of(krenn_tsv))))
    seed = page.get_by_role("spinbutton", name="Seed for random tie-breaking")
    with rerun(page):
        seed.fill("5")
        seed.press("Enter")
    expect(page).to_have_url(param("seed", "5"))
    expect(page.get_by_text("The data's own seed")).to_have_count(0)
    click_for_run(page, page.get_by_role("button", name="Use this sample"))
    expect(metric(page, "Candidates N")).to_have_text("6,348")
    expect(page).to_have_url(param("seed", "5"))  # the user's choice is never changed silently


def test_any_n_can_be_typed(new_page):
    page = new_page(f"/precision?dataset={SAMPLE}&ties=stable")
    wait_for_app(page, figures=1)
    page.get_by_role("button", name="Type n").click()
    first = page.get_by_role("spinbutton", name="From n")
    with rerun(page, figures=1):
        first.fill("333")
        first.press("Enter")
    expect(page).to_have_url(param("n_min", "333"))
    expect(slider_values(page, "Range of n (n-best list size)")).to_have_text(["333", "2,000"])
    wait_for_figures(page)
    assert figure(page)["xrange"] == [333, 2000]


def test_a_pages_link_holds_only_what_its_pages_show(new_page, tmp_path):
    # main's candidate-set link (and so the report's link.txt) carried the Systems page's sys_ref and sys_hyp
    references, hyps = write_test_set(tmp_path, synthetic_test_set(60, 2, seed=5))
    page = new_page("/systems")
    wait_for_app(page)
    uploaders = page.get_by_test_id("stFileUploader")
    with rerun(page):
        uploaders.nth(0).locator("input[type=file]").set_input_files(references)
    with rerun(page):
        uploaders.nth(1).locator("input[type=file]").set_input_files(hyps)
    wait_for_figures(page)
    expect(page).to_have_url(re.compile(r"[?&]sys_ref="))
    systems_figure = fingerprint(page)
    go_to(page, "Data")
    click_for_run(page, page.get_by_role("button", name="Use this sample"))
    expect(metric(page, "Candidates N")).to_have_text("6,348")
    link = settled_link(page)
    assert "dataset" in parse_qs(urlsplit(link).query)
    assert not {"sys_ref", "sys_hyp"} & set(parse_qs(urlsplit(link).query))
    expect(sidebar_link(page)).not_to_contain_text("sys_")
    go_to(page, "Precision")
    wait_for_figures(page)
    assert not {"sys_ref", "sys_hyp"} & set(parse_qs(urlsplit(settled_link(page)).query))
    go_to(page, "Systems")  # the session kept the files: the same comparison, its link without the candidate set
    wait_for_figures(page)
    assert fingerprint(page) == systems_figure
    assert {"sys_ref", "sys_hyp"} <= set(query(page)) and not {"dataset", "seed"} & set(query(page))
