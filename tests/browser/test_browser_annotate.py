"""The Annotate page in a real browser (issue 18 item 6, issue 19): Krenn's data with its labels hidden (a copy with
is.colloc emptied, in the test's temporary folder), a seeded sample of 250 drawn, the name typed (and Enter), and
then at once 200 key presses at 5 a second, answering from the hidden labels: 200 labels, in order, each on the
candidate that was on screen when its key was pressed (the first key does not join the name). The link carries no
name; a colleague who opens it annotates under their own, and their marks bring the agreement (Cohen's kappa as
evalcore computes it). Every step waits for what the page shows, never for a fixed time; the presses themselves
are paced at 5 a second, as a person types. A download clicked while the page follows another annotator's marks
arrives, with a run of the page made to land between the click and the fetch (the messages held on the websocket).
"""

from __future__ import annotations

import sqlite3
import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import pandas as pd
from playwright.sync_api import Page, expect

from evalcore.annotations import AnnotationStore, read_export
from evalcore.stats.agreement import cohens_kappa
from evalcore_app.downloads import KEEP_S
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

    # Alice downloads at once: the file holds the database as it is at the click, Bob's last marks too (one click:
    # the runs by which her page follows Bob's marks no longer lose the file, evalcore_app/downloads.py)
    exported = tmp_path / "annotated.csv"
    with alice.expect_download(timeout=FIRST_RUN_MS) as download:
        alice.get_by_role("button", name="Annotated set as CSV").click()
    download.value.save_as(exported)
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


# ------------------------------------------------------------------ a download clicked while the page follows
def _fields(message: bytes) -> dict[int, object]:
    """The top-level fields of one protobuf message (a ForwardMsg or BackMsg on Streamlit's websocket): field ->
    value (an int, or the bytes of a nested message; the last of a repeated field)."""
    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = message[at]
            value, shift, at = value | (byte & 0x7F) << shift, shift + 7, at + 1
            if not byte & 0x80:
                return value, at

    out, at = {}, 0
    while at < len(message):
        key, at = varint(at)
        field, kind = key >> 3, key & 7
        if kind == 0:
            out[field], at = varint(at)
        elif kind == 2:
            length, at = varint(at)
            out[field], at = message[at:at + length], at + length
        elif kind in (1, 5):
            at += 8 if kind == 1 else 4
        else:
            break
    return out


SCRIPT_FINISHED = 6                # ForwardMsg.script_finished: 0 a run of the page, 3 a fragment's run
BACKEND_RESPONSE = 27              # ForwardMsg.backend_operation_response (deferred_file: 3, its url: 1; error_msg: 2)
BACKEND_REQUEST = 19               # BackMsg.backend_operation_request (a download button's click: deferred_file, 3)


class StreamHold:
    """The page's websocket to Streamlit, routed by Playwright (``page.route_web_socket``): every message passes,
    but a download button's click (the request for its file) or Streamlit's answer (the file's URL) can be held,
    as a slow network or a busy browser holds them, and let go when the test says. It notes the runs the server
    says have finished (:data:`SCRIPT_FINISHED`), and the answers to download requests."""

    def __init__(self) -> None:
        self.page_side = self.server = None
        self.hold_requests = self.hold_answers = False
        self.held: list[bytes] = []
        self.finished: list[int] = []          # statuses, in order: 0 the page's run, 3 a fragment's run
        self.answers: list[dict] = []          # the deferred_file answers' fields

    def route(self, ws) -> None:
        self.page_side, self.server = ws, ws.connect_to_server()
        ws.on_message(self._from_page)
        self.server.on_message(self._from_server)

    def _from_page(self, message) -> None:
        if self.hold_requests and isinstance(message, bytes) and BACKEND_REQUEST in _fields(message):
            self.held.append(message)
        else:
            self.server.send(message)

    def _from_server(self, message) -> None:
        if isinstance(message, bytes):
            fields = _fields(message)
            if SCRIPT_FINISHED in fields:
                self.finished.append(fields[SCRIPT_FINISHED])
            if BACKEND_RESPONSE in fields:
                self.answers.append(_fields(fields[BACKEND_RESPONSE]))
                if self.hold_answers:
                    self.held.append(message)
                    return
        self.page_side.send(message)

    def let_go(self, held_since: float) -> None:
        """Pass on what was held (to Streamlit, or to the page), and hold nothing more. Held since ``held_since``
        (time.monotonic()) for less than the server keeps a made file or a replaced generator
        (:data:`evalcore_app.downloads.KEEP_S`): a fetch later than that is not what the test is about."""
        assert time.monotonic() - held_since < KEEP_S, f"held for more than {KEEP_S:g} s: the machine is too slow"
        to_server = self.hold_requests
        self.hold_requests = self.hold_answers = False
        for message in self.held:
            (self.server if to_server else self.page_side).send(message)
        self.held = []

    def followed(self, since: int, then: int) -> bool:
        """Since the ``since``-th finished run: a run of the whole page (the follow's, after another annotator's
        mark), then ``then`` more runs of any kind. Streamlit forgets unused files and download generators when a
        run ends, after it says so: with ``then`` >= 1 the follow run's clean-up is done, with ``then`` >= 2 the
        next one's too."""
        after = self.finished[since:]
        return 0 in after and len(after) - after.index(0) - 1 >= then


def wait_until(page: Page, condition, what: str, timeout_ms: float = FIRST_RUN_MS) -> None:
    """Wait (letting Playwright deliver the page's events) until ``condition()`` holds; fail naming ``what``."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout_ms / 1000:.0f} s for {what}"
        page.wait_for_timeout(100)  # (a poll of the condition, not a wait for the page)


def stored_marks(store: AnnotationStore, dataset: str, sample: str) -> set[tuple[int, str, str]]:
    return {(int(c), a, lab) for c, a, lab in store.annotations(dataset, sample)[["candidate", "annotator", "label"]]
            .itertuples(index=False)}


def exported_marks(path) -> set[tuple[int, str, str]]:
    back = read_export(path.read_bytes(), "csv")
    return {(int(c), a, lab) for c, a, lab in back.annotations[["candidate", "annotator", "label"]]
            .itertuples(index=False)}


def test_a_download_survives_the_follow_run_between_the_click_and_the_fetch(new_page, krenn_tsv, store_dir,
                                                                           tmp_path):
    """Alice's page follows Bob's marks (evalcore_app/annotate.py, follow): a run of the whole page after each of
    them, and a fragment's run every 2 s. Her "Annotated set as CSV" asks Streamlit for the file (made at that
    moment), gets its URL, and the browser fetches it. Here a follow run lands in each gap, as a busy browser or
    network lets it: (1) between the file's URL and the fetch (the URL held until a follow run of the page and two
    more runs have ended: Streamlit 1.67 forgot a made file after two clean-ups, and the download was "canceled");
    (2) between the click and the request for the file reaching the server (the click held until a follow run has
    ended: that run drew the button anew, and Streamlit forgot the click's generator, "Failed to generate file").
    Both downloads arrive, each holding the marks as they were when the request reached the server."""
    table = pd.read_csv(krenn_tsv, sep="\t", keep_default_na=False, dtype=str)
    table["is.colloc"] = ""
    hidden_copy = tmp_path / "krenn_hidden.tsv"
    table.to_csv(hidden_copy, sep="\t", index=False)

    hold = StreamHold()
    alice = new_page("/", route_websocket=hold.route)
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
    _press_turn(alice, order, 0, ["t", "f"])
    bob = new_page(settled_link(alice))
    wait_for_app(bob)
    name_in(bob, "bob")
    button = alice.get_by_role("button", name="Annotated set as CSV")
    expect(button).to_be_visible(timeout=FIRST_RUN_MS)

    # (1) the file's URL held while Bob marks, Alice's page follows, and two more runs end
    exported = tmp_path / "first.csv"
    hold.hold_answers = True
    with alice.expect_download(timeout=FIRST_RUN_MS) as download:
        button.click()
        wait_until(alice, lambda: hold.held, "the answer to the download's click")
        held_since = time.monotonic()
        made = stored_marks(store, dataset, sample)  # (the file was made before its URL was sent)
        since = len(hold.finished)
        _press_turn(bob, order, 0, ["t"])
        wait_until(alice, lambda: hold.followed(since, then=2), "Alice's page to follow Bob's mark, then run twice")
        hold.let_go(held_since)
    download.value.save_as(exported)  # (without evalcore_app/downloads.py: "canceled", the file deleted)
    assert exported_marks(exported) == made and (int(order[0]), "bob", "TP") not in made

    # (2) the click held while Bob marks and Alice's page follows (its run draws the button anew)
    exported = tmp_path / "second.csv"
    hold.hold_requests = True
    answers = len(hold.answers)
    with alice.expect_download(timeout=FIRST_RUN_MS) as download:
        button.click()
        wait_until(alice, lambda: hold.held, "the download's click on the websocket")
        held_since = time.monotonic()
        since = len(hold.finished)
        _press_turn(bob, order, 1, ["f"])
        wait_until(alice, lambda: hold.followed(since, then=1), "Alice's page to follow Bob's mark")
        made = stored_marks(store, dataset, sample)
        hold.let_go(held_since)
        wait_until(alice, lambda: len(hold.answers) > answers, "the answer to the download's click")
        assert 3 in hold.answers[answers], f"no file for the click: {hold.answers[answers]}"  # (without it: error_msg)
    download.value.save_as(exported)
    assert exported_marks(exported) == made and (int(order[1]), "bob", "FP") in made
    expect(alice.get_by_test_id("stDownloadButtonError")).to_have_count(0)
