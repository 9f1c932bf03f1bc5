"""The Annotate page in a real browser (issue 18 item 6, issue 19): Krenn's data with its labels hidden (a copy with
is.colloc emptied, in the test's temporary folder), a seeded sample of 250 drawn, the name typed (and Enter), and
then at once 200 key presses at 5 a second, answering from the hidden labels: 200 labels, in order, each on the
candidate that was on screen when its key was pressed (the first key does not join the name). The link carries no
name; a colleague who opens it annotates under their own, and their marks bring the agreement (Cohen's kappa as
evalcore computes it). Every step waits for what the page shows, never for a fixed time; the presses themselves
are paced at 5 a second, as a person types.
"""

from __future__ import annotations

import sqlite3
import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import pandas as pd
from playwright.sync_api import Page, expect

from evalcore.annotations import AnnotationStore
from evalcore.stats.agreement import cohens_kappa
from test_browser import FIRST_RUN_MS, choose, query, rerun, settled_link, upload, wait_for_app

SIZE = 250
PRESSES = 200
MARKED_BY_BOB = 6


def with_param(url: str, name: str, value: str) -> str:
    """The link with one parameter set (used by the other browser tests too)."""
    parts = urlsplit(url)
    pairs = [(k, v) for k, v in parse_qsl(parts.query) if k != name] + [(name, value)]
    return urlunsplit(parts._replace(query=urlencode(pairs)))


def progress(page: Page):
    return page.get_by_test_id("stProgress")


def queue(page: Page):
    """The key queue component (ui/components/keyqueue): its frame."""
    return page.frame_locator('iframe[data-testid="stCustomComponentV1"]')


def answer(hidden: np.ndarray, candidate: int, i: int) -> str:
    """The key for the i-th candidate: its hidden label (t or f), and now and then "unsure" (u)."""
    return "u" if i % 17 == 16 else ("t" if hidden[candidate] else "f")


def name_in(page: Page, name: str) -> None:
    field = page.get_by_label("Your name (annotator)", exact=True)
    with rerun(page):
        field.fill(name)
        field.press("Enter")
    expect(page.get_by_text(f"Annotating as {name}")).to_be_visible()
    expect(field).to_have_count(0)  # the field (and its focus) is gone


def test_200_key_presses_at_5_a_second_give_200_labels_in_order(new_page, krenn_tsv, store_dir, tmp_path):
    table = pd.read_csv(krenn_tsv, sep="\t", keep_default_na=False, dtype=str)
    hidden = table["is.colloc"].str.upper().eq("TRUE").to_numpy()
    table["is.colloc"] = ""
    hidden_copy = tmp_path / "krenn_hidden.tsv"
    table.to_csv(hidden_copy, sep="\t", index=False)

    page = new_page("/")
    wait_for_app(page)
    upload(page, hidden_copy)
    choose(page, "Label (TP/FP annotation)", "is.colloc")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Annotate").click()
    expect(page.get_by_role("heading", name="Annotate a random sample")).to_be_visible(timeout=FIRST_RUN_MS)
    expect(page.get_by_text("5,102 candidates, 0 labelled in the file")).to_be_visible(timeout=FIRST_RUN_MS)
    size = page.get_by_label("Candidates to annotate")
    with rerun(page):
        size.fill(str(SIZE))
        size.press("Enter")
    with rerun(page):
        page.get_by_role("button", name="Draw the sample").click()
    expect(page.get_by_text("Enter your name above to annotate")).to_be_visible()
    name_in(page, "alice")
    expect(progress(page)).to_contain_text(f"0 of {SIZE} annotated by you")
    title = queue(page).get_by_test_id("keyqueue-title")
    expect(title).to_contain_text(f"Candidate 1 of {SIZE} (data row", timeout=FIRST_RUN_MS)
    dataset, sample = query(page)["dataset"][0], query(page)["ann"][0]
    link = settled_link(page)
    assert "annotator" not in query(page) and "alice" not in page.url and "alice" not in link

    store = AnnotationStore(store_dir / "annotations.sqlite3")
    order = store.sample(dataset, sample).candidates
    keys = [answer(hidden, int(c), i) for i, c in enumerate(order[:PRESSES])]
    start = time.monotonic()
    late = []
    for i, key in enumerate(keys):  # straight after the name: no click to move the focus first
        if i % 10 == 0:  # the candidate on screen is the sample's i-th (read between presses, every tenth)
            expect(title).to_contain_text(f"Candidate {i + 1} of {SIZE} (data row {int(order[i]) + 1})")
        wait = start + 0.2 * i - time.monotonic()
        if wait > 0:
            page.wait_for_timeout(wait * 1000)  # the pace of a person typing, not a wait for the page
        else:
            late.append(-wait)
        page.keyboard.press(key)
    took = time.monotonic() - start  # (each press is due at its time on the clock: a late one does not delay the rest)
    assert took < PRESSES * 0.2 + 3, f"{PRESSES} presses took {took:.1f} s (late by up to {max(late):.2f} s)"
    expect(queue(page).get_by_test_id("keyqueue-status")).to_contain_text("every mark saved", timeout=FIRST_RUN_MS)
    expect(progress(page)).to_contain_text(f"{PRESSES} of {SIZE} annotated by you", timeout=FIRST_RUN_MS)
    expect(title).to_contain_text(f"Candidate {PRESSES + 1} of {SIZE}")

    labels = {"t": "TP", "f": "FP", "u": "unsure"}
    con = sqlite3.connect(store.path)
    events = con.execute("SELECT e.position, e.candidate, e.label FROM mark_events e JOIN samples s ON "
                         "s.id = e.sample_id WHERE s.dataset=? AND s.sample=? AND e.annotator='alice' ORDER BY e.id",
                         (dataset, sample)).fetchall()
    con.close()
    assert events == [(i, int(order[i]), labels[k]) for i, k in enumerate(keys)]  # once each, in order
    marked = store.table(dataset, sample)["alice"].dropna()
    assert marked.to_dict() == {int(order[i]): labels[k] for i, k in enumerate(keys)}
    assert store.table(dataset, sample).columns.tolist() == ["alice"]  # no name made of the first keys

    # a colleague opens the link: no name from it; under their own, their marks bring the agreement
    other = new_page(with_param(link, "annotator", "alice"))  # (an older link that still names one)
    wait_for_app(other)
    expect(other.get_by_text("names are no longer carried in links")).to_be_visible()
    expect(other.get_by_text("Enter your name above to annotate")).to_be_visible()
    name_in(other, "bob")
    expect(progress(other)).to_contain_text(f"0 of {SIZE} annotated by you")
    bob_title = queue(other).get_by_test_id("keyqueue-title")
    bob = []
    for i, c in enumerate(order[:MARKED_BY_BOB]):
        expect(bob_title).to_contain_text(f"Candidate {i + 1} of {SIZE}")
        key = ("f" if hidden[c] else "t") if i == 0 else answer(hidden, int(c), i)
        other.keyboard.press(key)
        bob.append(labels[key])
    expect(progress(other)).to_contain_text(f"{MARKED_BY_BOB} of {SIZE} annotated by you", timeout=FIRST_RUN_MS)
    alice = [labels[k] for k in keys[:MARKED_BY_BOB]]
    kappa = cohens_kappa(np.array(alice, object), np.array(bob, object))
    agreement = other.get_by_test_id("stMetric").filter(has_text=f"{MARKED_BY_BOB} candidates, 2 annotators")
    expect(agreement.get_by_test_id("stMetricValue")).to_have_text(f"{kappa.kappa:.3f}")
