"""A stratified design in a real browser (issue 33): Krenn's data with its labels hidden, the Annotate page set to
rank bands of G2 (log.like) 100,400,rest (the design chosen with its radio button), the planner turned on with a
budget of 60 and guessed TP rates per band, its allocation taken with 'Use this allocation', the sample drawn and
every one of its candidates annotated with the key queue from the hidden labels; the page then shows each band's
progress, and the Precision page shows the stratified estimates: its baseline is the one evalcore computes from the
stored labels with the stored design, and the Significance page names the design-based score test. Every step
waits for what the page shows, never a fixed time."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from evalcore.annotations import AnnotationStore, annotated_candidate_set
from evalcore.candidates import CandidateSet
from evalcore.pooling import Design, Strata
from evalcore.ranking import rank
from test_browser import FIRST_RUN_MS, choose, go_to, query, rerun, settled_link, upload, wait_for_app
from test_browser_annotate import name_in, progress, queue
from test_browser_pool import with_params

MEASURE = "log.like"
BUDGET = 60


def test_a_stratified_design_is_planned_drawn_annotated_and_estimated(new_page, krenn_tsv, store_dir, tmp_path):
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
    link = with_params(settled_link(page), [("ann_m", MEASURE), ("ann_bands", "100,400,rest"), ("ann_seed", "5"),
                                            ("ann_budget", str(BUDGET)), ("ann_bguess", "0.4,0.25,0.05"),
                                            ("ann_plan_ns", "100,500,1000")])
    page.goto(link)
    wait_for_app(page)
    with rerun(page):
        page.get_by_text("rank bands, each a random sample of its own size", exact=True).click()
    expect(page.get_by_text("Give the sample size of each of the 3 bands")).to_be_visible(timeout=FIRST_RUN_MS)
    with rerun(page):
        page.get_by_text("Plan the bands: the sample size of each for a budget", exact=True).click()
    expect(page.get_by_text(f"With {BUDGET} annotations over the bands 100,400,rest")).to_be_visible(
        timeout=FIRST_RUN_MS)
    with rerun(page):
        page.get_by_role("button", name="Use this allocation").click()
    caption = page.get_by_text("Rank bands, each a random sample of its own size:")
    expect(caption).to_contain_text(f"{BUDGET} annotations in all", timeout=FIRST_RUN_MS)
    sizes = [int(x) for x in query(page)["ann_bsizes"][0].split(",")]
    assert len(sizes) == 3 and sum(sizes) == BUDGET
    expect(caption).to_contain_text(f"ranks 1-100: {sizes[0]} of 100; ranks 101-500: {sizes[1]} of 400; "
                                    f"ranks above 500: {sizes[2]} of 4,602")
    with rerun(page):
        page.get_by_role("button", name="Draw the sample").click()
    name_in(page, "alice")
    dataset, sample = query(page)["dataset"][0], query(page)["ann"][0]
    store = AnnotationStore(store_dir / "annotations.sqlite3")
    info = store.sample(dataset, sample)
    design = Design.from_record(info.frame, info.design, info.seed, info.size)
    assert design.stratified and info.design["kind"] == "stratified"
    assert (design.widths, design.sizes, design.frame.measures, design.seed) == ((100, 400), tuple(sizes),
                                                                                 (MEASURE,), 5)
    assert info.size == BUDGET
    expect(page.get_by_text(f"Sample {sample}: {BUDGET} candidates; design:")).to_be_visible(timeout=FIRST_RUN_MS)

    title = queue(page).get_by_test_id("keyqueue-title")
    expect(title).to_contain_text(f"Candidate 1 of {BUDGET} (data row", timeout=FIRST_RUN_MS)
    order = info.candidates
    start = time.monotonic()
    for i, c in enumerate(order):
        # the candidate on screen before every press, as a person looks before pressing (see test_browser_pool)
        expect(title).to_contain_text(f"Candidate {i + 1} of {BUDGET} (data row {int(order[i]) + 1})")
        wait = start + 0.1 * i - time.monotonic()
        if wait > 0:
            page.wait_for_timeout(wait * 1000)  # the pace of a person typing, not a wait for the page
        page.keyboard.press("t" if hidden[c] else "f")
    expect(queue(page).get_by_test_id("keyqueue-status")).to_contain_text("every mark saved", timeout=FIRST_RUN_MS)
    mine = progress(page).filter(has_text="annotated by you")
    expect(mine).to_contain_text(f"{BUDGET} of {BUDGET} annotated by you", timeout=FIRST_RUN_MS)
    # (the page drawn anew: on this branch's base the status is drawn before the run applies its presses; main
    # applies them first)
    page.goto(settled_link(page))
    wait_for_app(page)
    expect(page.get_by_text("Per band:")).to_contain_text(
        f"ranks 1-100: {sizes[0]} of {sizes[0]}; ranks 101-500: {sizes[1]} of {sizes[1]}; "
        f"ranks above 500: {sizes[2]} of {sizes[2]}", timeout=FIRST_RUN_MS)

    labels = store.table(dataset, sample)
    assert labels["alice"].notna().sum() == BUDGET
    go_to(page, "Precision")
    expect(page.get_by_text("Estimates from a stratified design")).to_be_visible(timeout=FIRST_RUN_MS)
    empty = CandidateSet(labels=np.zeros(len(table), bool), scores={MEASURE: table[MEASURE].astype(float).to_numpy()},
                         directions={MEASURE: "higher"}, annotated=np.zeros(len(table), bool))
    labelled = annotated_candidate_set(empty, labels, "majority")
    base = Strata.of(design, labelled).baseline(rank(labelled, MEASURE))
    assert labelled.n_annotated == BUDGET and base.m == BUDGET
    expect(page.get_by_text("Baseline from the stratified design")).to_contain_text(
        f"{base.k} TPs among {base.m} annotated, estimated band by band): "
        f"{base.estimate:.2%} [{base.lower:.2%}, {base.upper:.2%}]", timeout=FIRST_RUN_MS)

    go_to(page, "Significance")
    expect(page.get_by_text("The score test (two-sided) on the effective counts of D1")).to_be_visible(
        timeout=FIRST_RUN_MS)
