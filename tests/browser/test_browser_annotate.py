"""The Annotate page in a real browser: Krenn's data with its labels hidden (a copy with is.colloc emptied, in the
test's temporary folder), a seeded sample drawn, 30 candidates marked by keyboard (t = TP, f = FP) answering from
the hidden labels, the labels kept after a reload, and the page's link opened in a second browser context by a
second annotator, whose marks bring the agreement (Cohen's kappa as evalcore computes it). Every step waits for
the Streamlit run it triggers (conftest.py's run counter), never for a fixed time.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import pandas as pd
from playwright.sync_api import Page, expect

from evalcore.annotations import AnnotationStore
from evalcore.stats.agreement import cohens_kappa
from test_browser import FIRST_RUN_MS, choose, param, query, rerun, settled_link, upload, wait_for_app

MARKED_BY_ALICE = 30
MARKED_BY_BOB = 6


def progress(page: Page):
    return page.get_by_test_id("stProgress")


def shown_row(page: Page) -> int:
    """The data row of the candidate on screen ("Candidate i of n (data row r):")."""
    text = page.get_by_test_id("stText").filter(has_text="data row").inner_text()
    return int(re.search(r"data row (\d+)", text).group(1))


def mark_by_keyboard(page: Page, hidden: np.ndarray, answers: list[bool] | None = None) -> list[str]:
    """Press t or f for the candidate on screen; the answer is its hidden label (or the given one)."""
    given = []
    for i, answer in enumerate(answers if answers is not None else [None] * MARKED_BY_ALICE):
        row = shown_row(page)
        truth = bool(hidden[row - 1]) if answer is None else answer
        with rerun(page):
            page.keyboard.press("t" if truth else "f")
        given.append("TP" if truth else "FP")
        expect(progress(page)).to_contain_text(f"{i + 1} of ")
    return given


def with_param(url: str, name: str, value: str) -> str:
    parts = urlsplit(url)
    pairs = [(k, v) for k, v in parse_qsl(parts.query) if k != name] + [(name, value)]
    return urlunsplit(parts._replace(query=urlencode(pairs)))


def test_annotate_krenn_by_keyboard_reload_and_a_second_annotator(new_page, krenn_tsv, store_dir, tmp_path):
    table = pd.read_csv(krenn_tsv, sep="\t", keep_default_na=False, dtype=str)
    hidden = table["is.colloc"].str.upper().eq("TRUE").to_numpy()
    table["is.colloc"] = ""
    hidden_copy = tmp_path / "krenn_hidden.tsv"
    table.to_csv(hidden_copy, sep="\t", index=False)

    page = new_page("/")
    wait_for_app(page)
    upload(page, hidden_copy)
    choose(page, "Label (TP/FP annotation)", "is.colloc")
    # the click's run can merge with the label choice's (Streamlit restarts a running script), so wait for what
    # the Annotate page shows rather than for a count of runs
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Annotate").click()
    expect(page.get_by_role("heading", name="Annotate a random sample")).to_be_visible(timeout=FIRST_RUN_MS)
    expect(page.get_by_text("5,102 candidates, 0 labelled in the file")).to_be_visible(timeout=FIRST_RUN_MS)

    name = page.get_by_label("Your name (annotator)")
    with rerun(page):
        name.fill("alice")
        name.press("Enter")
    size = page.get_by_label("Candidates to annotate")
    with rerun(page):
        size.fill("40")
        size.press("Enter")
    with rerun(page):
        page.get_by_role("button", name="Draw the sample").click()
    expect(progress(page)).to_contain_text("0 of 40 annotated by you")
    link = settled_link(page)
    seed = query(page)["ann_seed"][0]
    expect(page).to_have_url(param("ann", f"s{seed}"))
    expect(page).to_have_url(param("annotator", "alice"))
    expect(page.get_by_text(f"seed {seed}")).to_be_visible()

    page.get_by_role("heading", name="Annotate a random sample").click()  # keys go to the page, not the name box
    alice = mark_by_keyboard(page, hidden)
    expect(progress(page)).to_contain_text(f"{MARKED_BY_ALICE} of 40 annotated by you")

    dataset, sample = query(page)["dataset"][0], query(page)["ann"][0]
    store = AnnotationStore(store_dir / "annotations.sqlite3")
    info = store.sample(dataset, sample)
    labels = store.table(dataset, sample)["alice"]
    expected = {int(c): ("TP" if hidden[c] else "FP") for c in info.candidates[:MARKED_BY_ALICE]}
    assert labels.dropna().to_dict() == expected  # the shown candidates were the sample's, in its order
    assert alice == list(expected.values())

    page.reload()
    wait_for_app(page)
    expect(progress(page)).to_contain_text(f"{MARKED_BY_ALICE} of 40 annotated by you")
    assert shown_row(page) == int(info.candidates[MARKED_BY_ALICE]) + 1

    other = new_page(with_param(link, "annotator", "bob"))
    wait_for_app(other)
    expect(progress(other)).to_contain_text("0 of 40 annotated by you")
    other.get_by_role("heading", name="Annotate a random sample").click()
    answers = [not hidden[c] if i == 0 else bool(hidden[c]) for i, c in enumerate(info.candidates[:MARKED_BY_BOB])]
    bob = mark_by_keyboard(other, hidden, answers)
    kappa = cohens_kappa(np.array(alice[:MARKED_BY_BOB], object), np.array(bob, object))
    agreement = other.get_by_test_id("stMetric").filter(has_text=f"{MARKED_BY_BOB} candidates, 2 annotators")
    expect(agreement.get_by_test_id("stMetricValue")).to_have_text(f"{kappa.kappa:.3f}")
    expect(other.get_by_text(f"{kappa.low:.3f} to {kappa.high:.3f}")).to_be_visible()
