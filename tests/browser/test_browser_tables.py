"""Issue 18 in the browser on Krenn's data, Significance page: Figure 3's download buttons directly under it
(items 9), and a table that sorts numbers as numbers when a header is clicked (item 10: on main the cells were
text, so "1,003" came before "102"). Helpers are in test_browser.py."""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import expect

from evalcore import analysis
from evalcore import format as fmt
from evalcore.io import load_candidates
from evalcore.ranking import rank
from test_browser import (FIRST_RUN_MS, krenn_significance, param, query, rerun, settled_link, slider_thumb,
                          wait_for_app, wait_for_figures)

# The rows of a grid as its accessible table holds them (the rows in view, in the order shown); the canvas
# draws the same cells.
GRID_ROWS = """([index]) => {
  const grid = document.querySelectorAll('[data-testid="stDataFrame"]')[index];
  const table = grid && grid.querySelector('table');
  return table ? Array.from(table.querySelectorAll('tbody tr')).map(r => Array.from(r.children).map(c => c.textContent))
               : null;
}"""
MEMBERS_BOX = "The candidates of D1 and D2 at this n"
COUNTS_BOX = "How many n each test and correction calls significant"


def _grid_index(page, header: str) -> int:
    """The position among the page's grids of the one whose first header is ``header``."""
    firsts = page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).map(g => {
        const th = g.querySelector('table thead th'); return th ? th.textContent : null; })""")
    return firsts.index(header)


def test_figure_3_downloads_under_it_the_members_sort_by_number_and_open_boxes_are_in_the_link(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    krenn_significance(page, krenn_tsv)
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text("up to n = 1,268", timeout=FIRST_RUN_MS)
    wait_for_figures(page, 2)

    # the downloads of Figure 3 sit directly under it: the next thing on the page, less than a line below
    chart = page.get_by_test_id("stPlotlyChart").first.bounding_box()
    png = page.get_by_test_id("stDownloadButton").filter(has_text="Figure as PNG").first.bounding_box()
    gap = png["y"] - (chart["y"] + chart["height"])
    assert 0 <= gap <= 40, f"Figure 3's buttons are {gap:.0f} px below it"
    between = page.evaluate("""([top, bottom]) => Array.from(document.querySelectorAll(
        '[data-testid="stMain"] [data-testid="stElementContainer"]')).filter(e => {
            const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= top - 1 && r.bottom <= bottom + 1
                && !e.querySelector('[data-testid="stDownloadButton"]'); }).length""",
                            [chart["y"] + chart["height"], png["y"]])
    assert between == 0, "something stands between Figure 3 and its downloads"

    # the members of D1 and D2 at the n the 2x2 view looks at, in a box drawn only when opened (and then in the
    # link): open it, click the header "row" and read the rows in view
    # the 2x2 and the effect at n are two small typeset tables, not grids; both boxes are closed
    assert page.get_by_test_id("stDataFrame").count() == 0
    expect(page.get_by_test_id("stMarkdownContainer").locator("table")).to_have_count(2)
    assert "sig_members" not in query(page)
    with rerun(page):
        page.get_by_test_id("stExpander").filter(has_text=MEMBERS_BOX).locator("summary").click()
    expect(page).to_have_url(param("sig_members", "1"))
    look = slider_thumb(page, "Look at the n-best lists for n =")
    expect(look).to_have_value(re.compile(r"^\d+$"))  # (an <input type=range>)
    at = int(look.input_value())
    cs = load_candidates(krenn_tsv, label="is.colloc")
    members = analysis.difference_members(cs, rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"),
                                          at)
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).some(g => {
        const th = g.querySelector('table thead th'); return th && th.textContent === 'row'; })""",
                           timeout=FIRST_RUN_MS)  # (the grid lays out its accessible table once drawn)
    index = _grid_index(page, "row")
    grid = page.get_by_test_id("stDataFrame").nth(index)
    grid.scroll_into_view_if_needed()
    # the grid fills its accessible table after it draws (cells are blank for a moment, under load for longer)
    page.wait_for_function(f"""([index]) => {{ const rows = ({GRID_ROWS})([index]);
        return rows && rows.length > 1 && rows.every(r => r.length > 0 && r[0].trim() !== ''); }}""",
                           arg=[index], timeout=FIRST_RUN_MS)
    before = page.evaluate(GRID_ROWS, [index])
    assert [int(r[0].replace(",", "")) for r in before] == members["row"].tolist()[:len(before)]
    assert sorted(r[0] for r in before) != [r[0] for r in before]  # not in order yet, as text or as numbers
    assert sorted(int(r[0].replace(",", "")) for r in before) != [int(r[0].replace(",", "")) for r in before]
    canvas = grid.locator("canvas").first.bounding_box()
    page.mouse.click(canvas["x"] + 20, canvas["y"] + 17)  # the header of the first column, "row"
    smallest = np.sort(members["row"].to_numpy())[:len(before)].tolist()
    as_text = sorted(fmt.count(r) for r in members["row"])[:len(before)]  # how text sorts: "1,003" before "298"
    assert [int(t.replace(",", "")) for t in as_text] != smallest  # (so the test tells text from numbers)
    # the grid sorts in the browser (no rerun): wait until the rows in view ascend, as text or as numbers
    page.wait_for_function(f"""([index]) => {{ const rows = ({GRID_ROWS})([index]);
        if (!rows || rows.length < 2) return false;
        const cells = rows.map(r => r[0]), numbers = cells.map(c => Number(c.replace(/,/g, '')));
        const ascending = xs => xs.every((x, i) => i === 0 || xs[i - 1] <= x);
        return ascending(cells) || ascending(numbers);
        }}""", arg=[index], timeout=10_000)
    after = page.evaluate(GRID_ROWS, [index])
    assert [int(r[0].replace(",", "")) for r in after] == smallest  # 98 before 298 before 1,003

    # the other box, the counts of every test and correction: opened, it is in the link too, and the link opens both
    with rerun(page):
        page.get_by_test_id("stExpander").filter(has_text=COUNTS_BOX).locator("summary").click()
    expect(page).to_have_url(param("sig_counts", "1"))
    counts = page.get_by_test_id("stExpander").filter(has_text=COUNTS_BOX).get_by_test_id("stDataFrame")
    expect(counts).to_have_count(1)
    link = settled_link(page)
    assert query(page)["sig_members"] == ["1"]
    other = new_page(link)
    wait_for_app(other, timeout=FIRST_RUN_MS)
    wait_for_figures(other, 2)
    for box in (MEMBERS_BOX, COUNTS_BOX):
        expect(other.get_by_test_id("stExpander").filter(has_text=box).locator("details")).to_have_attribute("open", "")
        expect(other.get_by_test_id("stExpander").filter(has_text=box).get_by_test_id("stDataFrame")).to_have_count(1)
