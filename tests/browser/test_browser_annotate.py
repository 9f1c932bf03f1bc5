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
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from evalcore.annotations import AnnotationStore, read_export
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
    """The key queue component (evalcore_app/components/keyqueue): its frame."""
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


# ------------------------------------------------------------------ two annotators at the same time (issue 30)
SHARED_SIZE = 40
TURN = 5


def _press_turn(page, order, start: int, keys: list[str]) -> None:
    """Press ``keys`` for the places from ``start`` on, each once its candidate is on screen; wait until saved."""
    title = queue(page).get_by_test_id("keyqueue-title")
    for i, key in enumerate(keys, start):
        expect(title).to_contain_text(f"Candidate {i + 1} of {SHARED_SIZE} (data row {int(order[i]) + 1})",
                                      timeout=FIRST_RUN_MS)
        page.keyboard.press(key)
    expect(queue(page).get_by_test_id("keyqueue-status")).to_contain_text("every mark saved", timeout=FIRST_RUN_MS)
    expect(progress(page)).to_contain_text(f"{start + len(keys)} of {SHARED_SIZE} annotated by you",
                                           timeout=FIRST_RUN_MS)


def test_two_annotators_see_each_others_marks_and_download_and_import_them(new_page, krenn_tsv, store_dir, tmp_path):
    """Alice and Bob (two browser contexts) annotate one sample of 40, five key presses each in turns, 20 each, Bob
    last. Without a click, Alice's page comes to show the agreement on all 20 (it follows the others' marks); her
    "Annotated set as CSV", clicked as soon as Bob's last mark is saved, holds all 40 labels (made when clicked);
    importing it back says that all 40 were there already; each candidate is named once (its place and data row,
    no 0-based "candidate" cell beside them)."""
    table = pd.read_csv(krenn_tsv, sep="\t", keep_default_na=False, dtype=str)
    hidden = table["is.colloc"].str.upper().eq("TRUE").to_numpy()
    table["is.colloc"] = ""
    hidden_copy = tmp_path / "krenn_hidden.tsv"
    table.to_csv(hidden_copy, sep="\t", index=False)

    alice = new_page("/")
    wait_for_app(alice)
    upload(alice, hidden_copy)
    choose(alice, "Label (TP/FP annotation)", "is.colloc")
    alice.get_by_test_id("stSidebarNav").get_by_role("link", name="Annotate").click()
    expect(alice.get_by_text("5,102 candidates, 0 labelled in the file")).to_be_visible(timeout=FIRST_RUN_MS)
    size = alice.get_by_label("Candidates to annotate")
    with rerun(alice):
        size.fill(str(SHARED_SIZE))
        size.press("Enter")
    with rerun(alice):
        alice.get_by_role("button", name="Draw the sample").click()
    name_in(alice, "alice")
    dataset, sample = query(alice)["dataset"][0], query(alice)["ann"][0]
    store = AnnotationStore(store_dir / "annotations.sqlite3")
    order = store.sample(dataset, sample).candidates
    title = queue(alice).get_by_test_id("keyqueue-title")
    expect(title).to_contain_text(f"Candidate 1 of {SHARED_SIZE} (data row {int(order[0]) + 1})",
                                  timeout=FIRST_RUN_MS)
    # one numbering, said once: the line names the place and the data row; the cells are the data set's keys
    heads = queue(alice).get_by_test_id("keyqueue-cells").locator("th")
    expect(heads.first).to_have_text("PP")
    assert "candidate" not in heads.all_inner_texts()  # (a 0-based index beside "data row" was a second numbering)
    expect(queue(alice).get_by_test_id("keyqueue-cells").locator("td").first).to_have_text(table["PP"].iloc[order[0]])

    bob = new_page(settled_link(alice))
    wait_for_app(bob)
    name_in(bob, "bob")
    labels = {"t": "TP", "f": "FP", "u": "unsure"}
    alice_keys = [answer(hidden, int(c), i) for i, c in enumerate(order[:20])]
    bob_keys = [("f" if hidden[c] else "t") if i % 4 == 1 else ("t" if hidden[c] else "f")
                for i, c in enumerate(order[:20])]
    for turn in range(0, 20, TURN):
        _press_turn(alice, order, turn, alice_keys[turn:turn + TURN])
        _press_turn(bob, order, turn, bob_keys[turn:turn + TURN])
    marks = store.table(dataset, sample)
    assert marks["bob"].notna().sum() == 20 and marks["alice"].notna().sum() == 20  # (Bob's last five are saved)

    # Alice downloads at once: the file holds the database as it is at the click, Bob's last marks too
    exported = tmp_path / "annotated.csv"
    for attempt in range(2):
        with alice.expect_download(timeout=FIRST_RUN_MS) as download:
            alice.get_by_role("button", name="Annotated set as CSV").click()
        try:
            download.value.save_as(exported)
            break
        except PlaywrightError as exc:  # a known race, kept in the lead's notes: the page reran to follow Bob's marks
            if attempt or "canceled" not in str(exc):  # between the click and the fetch, which dropped the file
                raise
    back = read_export(exported.read_bytes(), "csv", expected_rows=len(table))
    got = back.annotations.groupby("annotator")["candidate"].apply(sorted).to_dict()
    assert got == {"alice": sorted(map(int, order[:20])), "bob": sorted(map(int, order[:20]))}

    # and her page follows Bob's marks without a click: the agreement on all 20 shared candidates
    kappa = cohens_kappa(np.array([labels[k] for k in alice_keys], object),
                         np.array([labels[k] for k in bob_keys], object))
    agreement = alice.get_by_test_id("stMetric").filter(has_text="on 20 candidates, 2 annotators")
    expect(agreement.get_by_test_id("stMetricValue")).to_have_text(f"{kappa.kappa:.3f}", timeout=60_000)

    # importing her download back adds nothing, and says so
    alice.get_by_text("Import an exported annotated set").click()
    uploader = alice.get_by_test_id("stFileUploader").filter(has_text="An annotated set exported here")
    with rerun(alice):
        uploader.locator("input[type=file]").set_input_files(exported)
    expect(alice.get_by_text("40 labels, all there already: nothing changed")).to_be_visible(timeout=FIRST_RUN_MS)
