"""The Significance page from a random sample, in a real browser: Krenn's data uploaded with the labels of
is.colloc hidden except a seeded 10% sample (a copy in the test's temporary folder), the Data page pointing to
the Annotate page, and the Significance page testing the annotated candidates of D1 and D2: the sentence, the
figure's markers (only at n with enough annotated candidates, where evalcore's test is significant) and its grey
runs of too few, and the 2x2 view's counts following the n slider. Every step waits for its Streamlit run and the
figures (conftest.py), never for a fixed time.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from playwright.sync_api import expect

from evalcore import estimates
from evalcore.io import load_annotated_sample
from evalcore.ranking import rank
from evalcore.viewstate import default_n_range
from test_browser import (FIRST_RUN_MS, choose, figure, go_to, metric, param, press, query, settled_link,
                          slider_thumb, upload, wait_for_app, wait_for_figures)
from test_browser_annotate import with_param

SEED = 20240611


def hidden_copy(krenn_tsv, folder):
    table = pd.read_csv(krenn_tsv, sep="\t", dtype=str, keep_default_na=False).drop(columns=["is.SVC", "is.figur"])
    rng = np.random.default_rng(SEED)
    kept = np.zeros(len(table), bool)
    kept[rng.choice(len(table), size=len(table) // 10, replace=False)] = True
    table["is.colloc"] = np.where(kept, table["is.colloc"], "")
    path = folder / "krenn_sample.tsv"
    table.to_csv(path, sep="\t", index=False)
    return path, table


def test_significance_from_a_sample_of_krenn(new_page, krenn_tsv, tmp_path):
    path, table = hidden_copy(krenn_tsv, tmp_path)
    first = new_page("/")
    wait_for_app(first)
    upload(first, path)
    expect(metric(first, "Candidates N")).to_have_text("5,102", timeout=FIRST_RUN_MS)
    expect(first.get_by_test_id("stAlert").filter(has_text="510 of 5,102 candidates are annotated")).to_be_visible()
    expect(first.get_by_role("link", name="Annotate a random sample on the Annotate page")).to_be_visible()
    page = new_page(with_param(settled_link(first), "ties", "stable"))  # the link, opened with stable ties
    wait_for_app(page)

    go_to(page, "Significance")
    choose(page, "Measure A", "log.like")
    choose(page, "Measure B", "chisq")
    expect(page).to_have_url(param("b", "chisq"))
    wait_for_figures(page, figures=1)
    expect(page.get_by_text("taken as a simple random sample of the whole candidate set", exact=False)).to_be_visible()

    q = query(page)
    low, high = default_n_range(5102)  # the range the page starts from, unless the link names one
    n_min, n_max = int(q.get("n_min", [low])[0]), int(q.get("n_max", [high])[0])
    candidates = load_annotated_sample(table, name="krenn_sample.tsv").candidates
    ra, rb = (rank(candidates, m, ties="stable") for m in ("log.like", "chisq"))
    want = estimates.compare_estimates(ra, rb, np.arange(n_min, n_max + 1))
    enough = want[want["enough"]]
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text(f"significant at {int(enough['significant'].sum()):,} of {len(enough):,} n",
                                     timeout=FIRST_RUN_MS)
    expect(sentence).to_contain_text(f"{int((~want['enough']).sum()):,} n are greyed out")

    fig = figure(page, 0)
    marked = {int(x) for name, xs, _ in fig["traces"] if name and name.startswith("significant (")
              for x in xs}
    allowed = set(enough["n"][enough["significant"]])
    assert marked <= allowed
    assert bool(marked) == bool(allowed)
    shapes = page.evaluate("""() => { const gd = document.querySelector('.js-plotly-plot');
        return {rects: (gd.layout.shapes || []).filter(s => s.type === 'rect').length,
                notes: (gd.layout.annotations || []).map(a => a.text)}; }""")
    if (~want["enough"]).any():
        assert shapes["rects"] >= 1 and "too few annotated" in shapes["notes"]

    # the 2x2 view follows its slider: the counts the test rests on at the last n
    thumb = slider_thumb(page, "Look at the n-best lists for n =")
    press(page, thumb, "End")
    expect(page).to_have_url(param("sig_n", str(n_max)))
    last = want.iloc[-1]
    expect(page.get_by_test_id("stText").filter(has_text="the test rests on")).to_contain_text(
        f"At n = {n_max:,} the test rests on {int(last['annotated']):,} annotated candidates "
        f"({int(last['m_d1']):,} in D1, {int(last['m_d2']):,} in D2)")
