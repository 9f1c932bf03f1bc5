"""The link is the screen (issue 18), in Chromium: on every page, a few seeded random widget changes, then the share
link opened in a fresh browser context shows the same screen (the figures' Plotly data, the tables' cells, the
texts and the widgets' values, not pixels), and the sidebar's signature goes through ``python -m evalcore
reproduce`` (run in-process, as ``evalcore.cli.main``) with the data file. And item 3: a value a widget had to
correct (look at n, after the n range moved) is in the link at once.

One server (conftest.py), Krenn's data put in its store once; two changes a page, to keep the walk short.
"""

from __future__ import annotations

import io
import json
import math
import random
import zipfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pyarrow as pa
import pytest
from playwright.sync_api import Page, expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from evalcore.cli import main as evalcore_main
from evalcore.io.store import DatasetStore
from evalcore.report.signature import parse_signature
from test_browser import (FIRST_RUN_MS, PAGES, choose, press, rerun, settled_link, slider_thumb, slider_values,
                          wait_for_app, wait_for_figures)

REPO = Path(__file__).resolve().parents[2]
EXPERIMENT = REPO / "sample_data" / "experiment_sim.tsv.gz"
CHANGES = 2  # widget changes a page

# What a person sees on the page, as data: every figure's traces (name, x, y, z, text), the texts (markdown,
# captions, alerts, metrics) and every widget's value, in page order (the tables' contents: SentTables).
SCREEN = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const text = sel => Array.from(main.querySelectorAll(sel)).map(e => e.innerText.trim());
  const plain = v => (v && v.bdata !== undefined) ? [v.dtype, v.bdata] : v;
  return JSON.stringify({
    figures: Array.from(main.querySelectorAll('.js-plotly-plot')).map(gd => gd.data.map(t =>
        [t.name, t.type, plain(t.x), plain(t.y), plain(t.z), plain(t.text)])),
    texts: text('[data-testid="stMarkdownContainer"], [data-testid="stCaptionContainer"], [data-testid="stText"],'
                + ' [data-testid="stMetric"]'),
    typeset: text('[data-testid="stMarkdownContainer"] table'),  // (small tables: evalcore_app.present.small_table)
    sliders: text('[data-testid="stSliderThumbValue"]'),
    inputs: Array.from(main.querySelectorAll('input')).map(i => [i.getAttribute('aria-label'),
        i.type === 'checkbox' ? i.checked : i.value]),
    chips: text('[data-testid="stMultiSelect"] [data-tag]'),
  });
}"""
# The screen, once it has not changed for STILL animation frames in a row and every table in view is drawn.
STILL = 10
STILL_SCREEN = f"""() => {{
  const now = ({SCREEN})();
  const grids = Array.from(document.querySelectorAll('[data-testid="stMain"] [data-testid="stDataFrame"]'))
      .filter(grid => grid.offsetParent !== null && !grid.closest('details:not([open])'));  // (not in a closed expander)
  const still = window.__still || (window.__still = {{last: null, frames: 0}});
  still.frames = now === still.last ? still.frames + 1 : 0;
  still.last = now;
  return still.frames >= {STILL} && grids.every(grid => grid.querySelector('[role="row"]')) ? now : false;
}}"""

REPORT_MS = 600_000  # the report's numbers and figures, computed when its button is clicked (loaded machine)


class SentTables:
    """The tables of a page's last finished run as the server sent them (the Arrow data and the display values of
    a styler), by their place on the page: the table contents, whatever part of them is in view (a table on
    screen is drawn on a canvas, its rows and columns as far as they are scrolled into view). Pass it to
    ``new_page(..., on_websocket=...)``."""

    def __init__(self):
        self.messages, self.run, self.last = {}, {}, {}

    def __call__(self, socket) -> None:
        socket.on("framereceived", self.received)

    def received(self, payload) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
        if msg.hash:
            self.messages[msg.hash] = msg
        kind = msg.WhichOneof("type")
        body = self.messages.get(msg.ref_hash, msg) if kind == "ref_hash" else msg
        if kind == "new_session":
            self.run = {}
        elif kind == "script_finished" and msg.script_finished in (0, 3):
            self.last = dict(self.run)
        elif body.WhichOneof("type") == "delta" and body.delta.WhichOneof("type") == "new_element":
            element = body.delta.new_element
            if element.WhichOneof("type") == "dataframe":
                frame = element.dataframe
                arrow = frame.lazy_data.initial_chunk if frame.HasField("lazy_data") else frame.arrow_data
                shown = [_rows(arrow.data), _rows(arrow.styler.display_values)]
                self.run[tuple(msg.metadata.delta_path)] = shown

    def contents(self) -> list:
        return [self.last[path] for path in sorted(self.last)]


def _rows(data: bytes) -> list:
    """Arrow IPC data as rows of values (NaN as the text "NaN", so that equal tables compare equal)."""
    rows = pa.ipc.open_stream(data).read_all().to_pylist() if data else []
    return [{k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()} for row in rows]


def screen(page: Page, tables: SentTables) -> dict:
    """The screen once the last run has finished, every figure is drawn and nothing has changed for a while, with
    the contents of its tables."""
    wait_for_app(page)
    page.evaluate("() => { window.__still = null; }")
    shown = json.loads(page.wait_for_function(STILL_SCREEN, polling="raf").json_value())
    return {**shown, "tables": tables.contents()}


def differences(a: dict, b: dict) -> list[str]:
    """Where two screens differ: the first differing row of each table, item of each list (for the message)."""
    out = []
    for key in a:
        for i, (x, y) in enumerate(zip(a[key], b[key])):
            if x != y:
                rows = [(r, s) for r, s in zip(x[0], y[0]) if r != s] if key == "tables" else [(x, y)]
                out.append(f"{key}[{i}]: {str(rows[:1] or (len(x), len(y)))[:400]}")
        if len(a[key]) != len(b[key]):
            out.append(f"{key}: {len(a[key])} against {len(b[key])}")
    return out


def sidebar_signature(page: Page) -> str:
    text = page.get_by_test_id("stSidebar").get_by_test_id("stText")
    expect(text).to_have_count(1)
    return text.inner_text().strip()


def report_signature(page: Page) -> str:
    """The signature.txt of the report the sidebar's Report (ZIP) downloads (computed when clicked)."""
    button = page.get_by_test_id("stSidebar").get_by_role("button", name="Report (ZIP)")
    with page.expect_download(timeout=REPORT_MS) as info:
        button.click()
    with zipfile.ZipFile(info.value.path()) as archive:
        return archive.read("signature.txt").decode().strip()


def reproduce(signature: str, path: Path) -> str:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        code = evalcore_main(["reproduce", signature, str(path)])
    assert code == 0, out.getvalue()
    return out.getvalue()


# ---------------------------------------------------------------- what a person changes, page by page

# Each change returns False where it cannot be made on the page as it is (its widget is not shown, or would not
# move): another one is drawn instead.

def keys(label: str, *key_choices: str, which: int = 0):
    """A key on a slider; at an end of its range, the key that moves it away from there."""
    def act(page: Page, rng: random.Random) -> bool:
        thumb = slider_thumb(page, label, which)
        if not thumb.count():
            return False
        now, low, high = thumb.input_value(), thumb.get_attribute("min"), thumb.get_attribute("max")
        key = "ArrowLeft" if now == high else "ArrowRight" if now == low else rng.choice(key_choices)
        press(page, thumb, key)
        return True
    return act


def pick(label: str, *options: str):
    def act(page: Page, rng: random.Random) -> bool:
        box = page.get_by_role("combobox", name=label, exact=True)
        others = [o for o in options if box.count() and o != box.input_value()]
        if not others:
            return False
        choose(page, label, rng.choice(others))
        return True
    return act


def click(name: str):
    """A checkbox, toggle or radio option, clicked on its label's text (the input itself is hidden under it)."""
    def act(page: Page, rng: random.Random) -> bool:
        label = page.get_by_test_id("stMain").get_by_text(name, exact=True)
        if not label.count():
            return False
        with rerun(page):
            label.first.click()
        return True
    return act


def drop_measure(page: Page, rng: random.Random) -> bool:
    chips = page.get_by_test_id("stMultiSelect").locator("[data-tag]").all_inner_texts()
    if len(chips) <= 2:
        return False
    with rerun(page):
        page.get_by_role("button", name=f"Remove {rng.choice(chips[1:])}", exact=True).click()
    return True


def number(label: str, low: int, high: int):
    def act(page: Page, rng: random.Random) -> bool:
        box = page.get_by_role("spinbutton", name=label, exact=True)
        if not box.count():
            return False
        value = str(rng.randint(low, high))
        if value == box.input_value():
            return False
        with rerun(page):
            box.fill(value)
            box.press("Enter")
        return True
    return act


RANGE = "Range of n (n-best list size)"
TESTED = "Range of n (every n in it is tested)"
LEVEL = "Confidence level"
SIG_LEVEL = "Confidence level (alpha = 1 - level)"
ACTIONS = {  # page title -> the changes drawn from
    "Data": [pick("Ties", "TPs first within a tie group (an upper bound on precision)",
                   "FPs first within a tie group (a lower bound on precision)"),
              click("Leave out rows with an empty label")],
    "Precision": [keys(RANGE, "ArrowRight", "PageUp"), keys(RANGE, "PageDown", "ArrowLeft", which=1),
                   click("Show recall"), click("Show F-beta"), drop_measure,
                   number("Values at n", 500, 1500)],
    "Confidence": [keys(LEVEL, "ArrowLeft", "PageUp", "End"), keys(RANGE, "PageDown", which=1),
                    pick("Interval method", "Wilson score (R prop.test, correct=FALSE)", "Jeffreys (Bayesian, Beta(1/2, 1/2) prior)"),
                    drop_measure],
    "Significance": [keys(SIG_LEVEL, "ArrowLeft", "PageUp"), keys(TESTED, "PageDown", "ArrowLeft", which=1),
                      keys("Look at the n-best lists for n =", "ArrowLeft", "PageUp"),
                      pick("Measure B", "chisq", "t.score", "freq"),
                      pick("Correction for testing every n", "Holm (family-wise error)"),
                      pick("Power of the minimum detectable difference", "90%", "50%")],
    "Threshold": [pick("Measure", "freq", "chisq", "Dice"), click("list size n"),
                   click("Log count axis"), keys("gamma (positions are score quantiles)", "ArrowRight")],
    "Pairwise": [pick("Correction across the pairs", "Holm (family-wise error)", "Benjamini-Hochberg (false discovery rate)"),
                  keys(SIG_LEVEL, "ArrowLeft", "PageDown"), number("n-best lists of size n", 200, 3000), drop_measure],
    "ROC, DET, PR": [click("DET (miss against false alarm rate, normal-deviate axes)"),
                      click("precision against recall"), keys(LEVEL, "PageDown"), drop_measure],
    "Validation": [keys("Confidence level of the intervals", "PageDown", "ArrowLeft"),
                    click("the n-best list"), pick("Measure", "good", "noisy", "freq")],
    "Across samples": [keys(SIG_LEVEL, "PageDown"), click("the n-best list"),
                        pick("Measure B", "noisy", "freq")],
    "Unanimous improvement": [keys("Robustness threshold", "ArrowRight", "ArrowLeft"),
                               pick("Measure B", "noisy", "freq", "good_twin")],
}
EXPERIMENT_PAGES = ("Validation", "Across samples", "Unanimous improvement")


@pytest.fixture(scope="module")
def krenn_id(store_dir, krenn_tsv) -> str:
    """Krenn's data in the server's store (its id is the file's SHA-256: the signature's data hash)."""
    return DatasetStore(store_dir).put(krenn_tsv.read_bytes(), "krenn_ppv.tsv")


@pytest.mark.parametrize("title", list(ACTIONS))
def test_a_link_reopens_the_screen_and_its_signature_reproduces(new_page, krenn_id, krenn_tsv, title):
    path, heading = PAGES[title]
    actions = ACTIONS[title]
    dataset = "sample:experiment_sim" if title in EXPERIMENT_PAGES else krenn_id
    tables = SentTables()
    page = new_page(f"/{path}?" + urlencode({"dataset": dataset, "ties": "stable"}), on_websocket=tables)
    wait_for_app(page, timeout=FIRST_RUN_MS)
    expect(page.get_by_role("heading", name=heading)).to_be_visible()
    rng = random.Random(f"{title} 18")
    made = 0
    for action in rng.sample(actions, len(actions)):
        made += action(page, rng)
        if made == CHANGES:
            break
    assert made, "no change could be made"
    link = settled_link(page)
    seen = screen(page, tables)
    assert seen["tables"] or seen["typeset"] or title in ("Confidence", "Unanimous improvement"), "no table was seen"
    assert seen["figures"] or title == "Data", "no figure was seen"
    signature = sidebar_signature(page)

    tables = SentTables()
    colleague = new_page(link, on_websocket=tables)
    wait_for_app(colleague, timeout=FIRST_RUN_MS)
    opened = screen(colleague, tables)
    assert opened == seen, differences(opened, seen)
    assert sidebar_signature(colleague) == signature
    assert settled_link(colleague) == link
    data = EXPERIMENT if title in EXPERIMENT_PAGES else krenn_tsv
    # the sidebar's signature names the settings and the data; the report's numbers are computed when the report
    # is asked for (issue 34), and its signature.txt (the same line with their digest) reproduces from the file
    report = parse_signature(report_signature(colleague))
    assert report.numbers is not None and str(report.with_numbers(None)) == signature
    assert "reproduced" in reproduce(str(report), data).splitlines()[-1]


def test_look_at_n_is_in_the_link_when_the_range_moves(new_page, krenn_id):
    """Item 3: the 2x2 view's n sits at the boundary (1,268 for G² vs X²), shown but not written into the link (a
    default: main wrote sig_n at the first visit); after the range's upper end moves, the slider shows an n within
    the new range, which the link either carries or reopens as the same boundary; once the user moved it, the link
    carries exactly the n on screen, also after the range moved below it."""
    page = new_page("/significance?" + urlencode({"dataset": krenn_id, "ties": "stable", "a": "log.like",
                                                  "b": "chisq"}))
    wait_for_figures(page, figures=2)
    look = "Look at the n-best lists for n ="
    expect(slider_thumb(page, look)).to_have_value("1268")
    expect(slider_values(page, look)).to_have_text(["1,268"])  # shown with the page's thousands separator
    assert "sig_n" not in parse_qs(urlsplit(settled_link(page)).query)  # the boundary: shown, not a choice
    high = slider_thumb(page, TESTED, 1)
    press(page, high, "PageDown")  # 2,000 down a page: the boundary moves with the range
    shown = slider_thumb(page, look).input_value()
    query = parse_qs(urlsplit(settled_link(page)).query)
    assert "sig_n" not in query and int(shown) == min(1268, int(query["n_max"][0])), (shown, query)
    press(page, slider_thumb(page, look), "ArrowRight")  # the user's own n: in the link at once
    for key in ("PageDown", "PageDown", "End"):  # then the range down below it, and up to N
        press(page, high, key)
        link = settled_link(page)
        query = parse_qs(urlsplit(link).query)
        shown = slider_thumb(page, look).input_value()
        assert query.get("sig_n") == [shown], (key, shown, link)  # the n on screen is the link's
        assert 100 <= int(shown) <= int(query.get("n_max", ["2000"])[0])
        table = page.get_by_test_id("stMarkdownContainer").locator("table").filter(has_text="D1: only")
        expect(table).to_be_visible()
    colleague = new_page(link)
    wait_for_figures(colleague, figures=2)
    expect(slider_thumb(colleague, look)).to_have_value(shown)
