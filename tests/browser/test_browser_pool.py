"""A pooled design in a real browser (issue 22): Krenn's data with its labels hidden, the Annotate page set to the
pool of the top 50 of G2 (log.like) and t (t.score) and a random sample of 40 of the rest (the design chosen with its
radio button), drawn, every one of its candidates (over 100) annotated with the key queue from the hidden labels;
the page then says the pool is annotated whole, and the Precision page shows the pooled estimates: its baseline is
the one evalcore computes from the stored labels. Every step waits for what the page shows, never a fixed time."""

from __future__ import annotations

import time
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from evalcore.annotations import AnnotationStore, annotated_candidate_set
from evalcore.candidates import CandidateSet
from evalcore.pooling import Design, Strata
from evalcore.ranking import rank
from test_browser import FIRST_RUN_MS, choose, go_to, query, rerun, settled_link, upload, wait_for_app
from test_browser_annotate import name_in, progress, queue

POOL = ("log.like", "t.score")
K, M = 50, 40


def with_params(url: str, pairs: list[tuple[str, str]]) -> str:
    parts = urlsplit(url)
    names = {k for k, _ in pairs}
    kept = [(k, v) for k, v in parse_qsl(parts.query) if k not in names]
    return urlunsplit(parts._replace(query=urlencode(kept + pairs)))


def test_a_pool_and_sample_design_is_drawn_annotated_and_estimated(new_page, krenn_tsv, store_dir, tmp_path):
    table = pd.read_csv(krenn_tsv, sep="\t", keep_default_na=False, dtype=str)
    hidden = table["is.colloc"].str.upper().eq("TRUE").to_numpy()
    table["is.colloc"] = ""
    hidden_copy = tmp_path / "krenn_hidden.tsv"
    table.to_csv(hidden_copy, sep="\t", index=False)

    page = new_page("/")
    wait_for_app(page)
    upload(page, hidden_copy)
    choose(page, "Label (TP/FP annotation)", "is.colloc")
    with rerun(page):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Annotate").click()
    expect(page.get_by_text("5,102 candidates, 0 labelled in the file")).to_be_visible(timeout=FIRST_RUN_MS)
    link = with_params(settled_link(page), [("ann_k", str(K)), ("ann_m", POOL[0]), ("ann_m", POOL[1]),
                                            ("ann_size", str(M)), ("ann_seed", "5")])
    page.goto(link)
    wait_for_app(page)
    with rerun(page):
        page.get_by_text("the pool and a random sample of the rest", exact=True).click()
    expect(page.get_by_text("annotations in all")).to_be_visible()
    with rerun(page):
        page.get_by_role("button", name="Draw the sample").click()
    expect(page.get_by_text("The pool: 0 of")).to_be_visible()
    name_in(page, "alice")
    dataset, sample = query(page)["dataset"][0], query(page)["ann"][0]
    store = AnnotationStore(store_dir / "annotations.sqlite3")
    info = store.sample(dataset, sample)
    design = Design.from_record(info.frame, info.design, info.seed, info.size)
    assert (design.kind, design.depth, design.size, design.frame.measures) == ("pool+sample", K, M, POOL)
    size = info.size
    assert size >= 100
    title = queue(page).get_by_test_id("keyqueue-title")
    expect(title).to_contain_text(f"Candidate 1 of {size} (data row", timeout=FIRST_RUN_MS)
    order = info.candidates
    start = time.monotonic()
    for i, c in enumerate(order):
        # the candidate on screen before every press, as a person looks before pressing: on a loaded server the
        # browser can run out of the 60 places it was sent ("Saving your marks ..."), and a press then marks nothing
        expect(title).to_contain_text(f"Candidate {i + 1} of {size} (data row {int(order[i]) + 1})")
        wait = start + 0.1 * i - time.monotonic()
        if wait > 0:
            page.wait_for_timeout(wait * 1000)  # the pace of a person typing, not a wait for the page
        page.keyboard.press("t" if hidden[c] else "f")
    expect(queue(page).get_by_test_id("keyqueue-status")).to_contain_text("every mark saved", timeout=FIRST_RUN_MS)
    mine = progress(page).filter(has_text="annotated by you")
    expect(mine).to_contain_text(f"{size} of {size} annotated by you", timeout=FIRST_RUN_MS)
    expect(page.get_by_text("The pool is annotated whole")).to_be_visible(timeout=FIRST_RUN_MS)

    labels = store.table(dataset, sample)
    assert labels["alice"].notna().sum() == size
    go_to(page, "Precision")
    expect(page.get_by_text("Estimates from a pooled design")).to_be_visible(timeout=FIRST_RUN_MS)
    empty = CandidateSet(labels=np.zeros(len(table), bool), scores={m: table[m].astype(float).to_numpy()
                                                                    for m in POOL},
                         directions={m: "higher" for m in POOL}, annotated=np.zeros(len(table), bool))
    labelled = annotated_candidate_set(empty, labels, "majority")
    base = Strata.of(design, labelled).baseline(rank(labelled, POOL[0]))
    expect(page.get_by_text("Baseline from the pooled design")).to_contain_text(
        f"{base.k} TPs among {base.m} annotated, the pool's known and the sample's a sample of the rest): "
        f"{base.estimate:.2%} [{base.lower:.2%}, {base.upper:.2%}]")
    assert labelled.n_annotated == size and base.m == size
