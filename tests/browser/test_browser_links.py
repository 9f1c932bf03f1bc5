"""Every link gives a valid view, in a real browser: a link to a page that does not exist, and a link full of
mistakes whose corrected form (the page URL afterwards, and the sidebar's link) reopens the same view with
nothing left to correct. The query space itself is walked under AppTest (tests/app/test_links.py).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import expect

from test_browser import FIRST_RUN_MS, fingerprint, go_to, metric, settled_link, wait_for_app


def test_a_link_to_an_unknown_page_runs_the_data_page_and_says_so(new_page):
    page = new_page("/nope?dataset=sample%3Acollocations_sim&ties=stable")
    wait_for_app(page)
    expect(page.get_by_text("Page not found")).to_be_visible()  # Streamlit's own message
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible()
    expect(metric(page, "Candidates N")).to_have_text("6,348", timeout=FIRST_RUN_MS)
    link = settled_link(page)
    assert urlsplit(link).path == "/" and parse_qs(urlsplit(link).query)["ties"] == ["stable"]


def test_the_data_page_opens_at_its_own_path_without_a_modal(new_page):
    # /data is the Data page's url_path; as the default page it is served at /, and /data got Streamlit's "Page not
    # found" modal, which blocks clicks until closed (issue 30)
    page = new_page("/data?dataset=sample%3Acollocations_sim&ties=stable")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible()
    expect(metric(page, "Candidates N")).to_have_text("6,348", timeout=FIRST_RUN_MS)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_role("dialog")).to_have_count(0)
    link = settled_link(page)
    assert urlsplit(link).path == "/" and parse_qs(urlsplit(link).query)["ties"] == ["stable"]
    go_to(page, "Precision")  # nothing blocks the clicks
    expect(page).to_have_url(re.compile(r"dataset=sample%3Acollocations_sim"))


def test_a_corrected_link_reopens_the_same_view_with_nothing_to_correct(new_page):
    page = new_page("/significance?dataset=sample%3Acollocations_sim&n_min=900&n_max=305&n=5&ties=stable"
                    "&ties=optimistic&level=2&a=nope&beta=-1&utm_source=mail")
    wait_for_app(page, figures=2)  # Figure 3 and the difference panel under it
    warnings = page.get_by_test_id("stAlertContentWarning")
    for text in ("ties 2 times", "is reversed", "Confidence level 2", "'nope'",
                 "beta from 0.1 to 10", "'utm_source' is not a setting", "n = 5 for the 2x2 table"):
        expect(warnings.filter(has_text=text)).to_have_count(1)
    link = settled_link(page)
    query = parse_qs(urlsplit(link).query)
    # (any n of the data is a range's end: 305 is kept, issue 30)
    assert (query["n_min"], query["n_max"], query["ties"], query["level"]) == (["305"], ["900"], ["optimistic"],
                                                                               ["0.999"])
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test").inner_text()
    figure = fingerprint(page)

    other = new_page(link)
    wait_for_app(other, figures=2)
    expect(other.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")).to_have_text(sentence)
    assert fingerprint(other) == figure
    expect(other.get_by_test_id("stAlertContentWarning")).to_have_count(0)
    assert settled_link(other) == link
