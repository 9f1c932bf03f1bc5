"""User text is shown as text in Chromium: the hostile data set of tests/hostile.py uploaded, then every page opened
from a link that puts its hostile names on it, and a link whose values are hostile. On each page the rendered
DOM must hold no link, image, formula, emphasis, code, heading, list, icon or tag made from data, no script, no
link inside a figure; and the names must be visible literally (in the page's text and in its figures' SVG).
AppTest walks the same names through every text of every page (tests/app/test_hostile.py); this is the renderer.
"""

from __future__ import annotations

from urllib.parse import urlencode

from hostile import (FILE_NAME, HOSTILE, KEY_COLUMNS, MEASURES, SAMPLE_COLUMN, SAMPLE_IDS, WORD_JOINER, hostile_csv,
                     hostile_link_values)
from test_browser import FIRST_RUN_MS, PAGES, metric, rerun, wait_for_app
from playwright.sync_api import Page, expect

GROUP = list(MEASURES[:10])  # the ten most dangerous: a link, an image, tags, a script, a formula, emphasis
# Markup that data would produce if it were rendered: the text inside it is the hostile string's inner text.
DATA_EMPHASIS = ["b", "bold", "em", "del", "code", "s", "f", "k", "key", "x", "a", "heading", "list"]
RENDERED_PROBLEMS = """(emphasis) => {
  const problems = [];
  const text = e => (e.textContent || '').replaceAll('\\u2060', '').trim();
  const flag = (what, els) => els.forEach(e => problems.push(what + ': ' + e.outerHTML.slice(0, 160)));
  // (a header's own anchor, href="#columns-of-...", is Streamlit's: a slug of the text, not a link from it)
  flag('a link to data', document.querySelectorAll('a[href*="evil"]:not([href^="#"])'));
  flag('an image from data', document.querySelectorAll('img[src*="evil"], [data-testid="stMarkdownContainer"] img'));
  flag('a formula', document.querySelectorAll('.katex, .katex-display'));
  flag('a script', Array.from(document.querySelectorAll('script')).filter(s => s.textContent.includes('alert(1)')));
  const md = '[data-testid="stMarkdownContainer"]';
  flag('markup from data', Array.from(document.querySelectorAll(
      `${md} b, ${md} strong, ${md} em, ${md} i, ${md} del, ${md} s, ${md} code, ${md} u, ${md} a`))
      .filter(e => emphasis.includes(text(e))));
  // (tables are ours, typeset by evalcore_app.present.small_table with every cell escaped: a name split into cells by its
  // "|" would not be shown literally, which check() asserts of every name)
  flag('block markup', Array.from(document.querySelectorAll(
      `${md} h1, ${md} h2, ${md} h3, ${md} h4, ${md} ul, ${md} ol, ${md} blockquote, ${md} hr`))
      .filter(e => !e.closest('[data-testid="stHeading"]')));  // (st.header and st.subheader are ours)
  flag('an icon or coloured text', document.querySelectorAll(
      `${md} [data-testid="stIconMaterial"], ${md} span[style*="color"]`));
  flag('a link in a figure', document.querySelectorAll('.js-plotly-plot a'));
  flag('a tag in a figure', Array.from(document.querySelectorAll('.js-plotly-plot tspan, .js-plotly-plot text'))
      .filter(e => e.childElementCount === 0 && emphasis.includes(text(e)) && (e.getAttribute('style') || '')
          .includes('font-weight:bold')));
  return problems;
}"""
SHOWN_TEXT = """() => {
  const page = document.body.innerText;
  const figures = Array.from(document.querySelectorAll('.js-plotly-plot .main-svg'))
      .map(svg => Array.from(svg.querySelectorAll('text')).map(t => t.textContent).join('\\n')).join('\\n');
  return (page + '\\n' + figures).replaceAll('\\u2060', '');
}"""


def check(page: Page, names, where: str, tally: dict) -> None:
    problems = page.evaluate(RENDERED_PROBLEMS, DATA_EMPHASIS)
    assert problems == [], f"{where}: " + "\n".join(problems)
    shown = page.evaluate(SHOWN_TEXT)
    missing = [n for n in names if n not in shown]
    assert missing == [], f"{where}: not shown literally: {missing}"
    tally["pages"] += 1
    tally["names"] += len(names)


def link(base: str, path: str, **params) -> str:
    return f"{base}/{path}?{urlencode(params, doseq=True)}"


def test_every_page_in_chromium_shows_hostile_names_as_text(new_page, app_url):
    tally = {"pages": 0, "names": 0}
    page = new_page("/")
    wait_for_app(page)
    with rerun(page):
        page.get_by_test_id("stFileUploader").locator("input[type=file]").set_input_files(
            [{"name": FILE_NAME, "mimeType": "text/csv", "buffer": hostile_csv()}])
    expect(metric(page, "Candidates N")).to_have_text("240", timeout=FIRST_RUN_MS)
    dataset = page.url.split("dataset=")[1].split("&")[0]
    check(page, [FILE_NAME], "Data page after the upload", tally)

    names = {"dataset": dataset, "sample_col": SAMPLE_COLUMN, "key": list(KEY_COLUMNS), "m": GROUP,
             "band": GROUP[:3], "a": GROUP[0], "b": GROUP[2], "t_measure": GROUP[3], "v_m": GROUP[6],
             "t_compare": GROUP[4]}
    shown_on = {  # what each page shows of the link's names, besides the file name in the sidebar
        "Data": [SAMPLE_COLUMN], "Precision": GROUP + [SAMPLE_IDS[1]], "Confidence": GROUP[:3],
        "Significance": [GROUP[0], GROUP[2]], "Threshold": [GROUP[3]], "Pairwise": GROUP, "ROC, DET, PR": GROUP,
        "Validation": [GROUP[6]], "Across samples": [GROUP[0], GROUP[2], *SAMPLE_IDS],
        "Unanimous improvement": [GROUP[0], GROUP[2], *MEASURES],
        "Systems": [],  # (its own files: none in this link; the sidebar still names the data set)
    }
    for title, (path, _) in PAGES.items():
        params = {**names, "sample": SAMPLE_IDS[1]} if title == "Precision" else names  # "Sample ... of 4"
        other = new_page(link(app_url, path, **params))
        wait_for_app(other)
        check(other, [FILE_NAME, *shown_on[title]], title, tally)

    # a link whose every value is hostile (and unknown to the data): each is named in a message, as text
    values = {"dataset": dataset, **hostile_link_values(), HOSTILE[0]: "1"}
    other = new_page(link(app_url, "precision", **values))
    wait_for_app(other)
    expect(other.get_by_test_id("stAlertContentWarning").first).to_be_visible()
    check(other, list(HOSTILE), "a link of hostile values", tally)
    assert tally["pages"] == len(PAGES) + 2
    print(f"\nChromium: {tally['pages']} pages checked, {tally['names']} hostile names found shown literally, "
          f"{len(values) - 1} hostile link values")  # (the dataset is not hostile; the unknown parameter is)


def test_the_dom_check_finds_rendered_markup(new_page):
    """The check can fail: Markdown rendered from data (here our own, on purpose) is found."""
    page = new_page("/")
    wait_for_app(page)
    page.evaluate("""() => { const d = document.createElement('div'); d.setAttribute('data-testid',
        'stMarkdownContainer'); d.innerHTML = '<p><a href="http://evil.example/x">x</a> <strong>bold</strong></p>';
        document.body.appendChild(d); }""")
    problems = page.evaluate(RENDERED_PROBLEMS, DATA_EMPHASIS)
    assert len(problems) == 3 and WORD_JOINER not in "".join(problems)
