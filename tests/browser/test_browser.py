"""The dashboard in a real browser (Chromium via Playwright): uploads, widgets, sliders moved with the
keyboard, the page URL as share link opened in a fresh session, forged links and malformed files.

AppTest (tests/app) cannot see what the browser does with the URL after a run, nor file inputs, keyboard
on sliders and Plotly; these tests can. They also save the README's screenshots to docs/screenshots/.
Fixtures (the server, the browser, fresh pages) are in conftest.py.
"""

from __future__ import annotations

import base64
import re
from contextlib import contextmanager
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# a first computation (ranking 9 measures, Fisher's test at every n) may take a while; in a fresh clone it also
# compiles numba's functions at their first use (cached after): with both cores busy, a fresh server's first upload
# (the report's odds ratios) took over 60 s. A bound on a wait, not a sleep.
FIRST_RUN_MS = 180_000

# The page has settled after a run: the run has finished (the app is not running and is connected), the page
# shows what that run drew, and every figure of it is drawn. Streamlit updates the page AFTER it reports the
# run state: the elements of a run arrive a moment later, and each chart first shows a skeleton while the
# Plotly bundle loads, then an undrawn plot; and a page opened from a link first runs once without content
# (evalcore_app/common.ensure_router). So: at least one element in the main area, none stale (left from an earlier run),
# no skeleton, and every chart element (a graphic element container) holds a Plotly figure with all its traces
# drawn and shown (unless in a tab not open). The number of charts is the number of chart elements the run
# drew, whatever the page, or the number a test expects: never the first figure, never a fixed time.
SETTLED = """([finishedBefore, figures, hrefBefore]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  // the run the action started has finished: counted from the websocket (conftest.py's RUN_COUNTER), or seen by
  // the link it wrote (app.py's sync_url, at its end): the same page, another query string; or, after a page
  // switch, the sidebar's "Link to this view" (written at the end of every run) naming the new page's path.
  let linked = false;
  if (hrefBefore) {
    const was = new URL(hrefBefore), now = new URL(window.location.href);
    linked = was.pathname === now.pathname && was.search !== now.search;
    const code = document.querySelector('[data-testid="stSidebar"] [data-testid="stCode"] code');
    if (!linked && code && was.pathname !== now.pathname) {
      try { linked = new URL(code.innerText.trim()).pathname === now.pathname; } catch (e) { /* not a URL yet */ }
    }
  }
  if (window.__stRuns.finished <= finishedBefore && !linked) return false;
  if (window.__stRuns.frame <= window.__stRuns.frameAtFinish) return false;  // (drawn since the run's end came in)
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.querySelector('[data-testid="stElementContainer"]')) return false;
  if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')) return false;
  const charts = Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'));
  // a chart's place: st.plotly_chart's, or a chart drawn in place (evalcore_app/components/plot), which is busy while drawing
  const slots = document.querySelectorAll('[data-testid="stElementContainer"].stPrintGraphic, '
                                          + '[data-testid="stElementContainer"]:has(> .stBidiComponent)');
  if (document.querySelector('[data-testid="stPlotlyChart"][aria-busy="true"]')) return false;
  if (charts.length !== slots.length || (figures !== null && charts.length !== figures)) return false;
  return charts.every(chart => {
    const gd = chart.querySelector('.js-plotly-plot');
    return !!gd && !!gd._fullLayout && !!gd._fullData && gd._fullData.length === gd.data.length
        && (gd.offsetParent === null || gd.style.visibility !== 'hidden')  // (shown once drawn; not in a hidden tab)
        && !!gd.querySelector('.cartesianlayer .trace, .cartesianlayer .hm');
  });
}"""


# ---------------------------------------------------------------- waiting for Streamlit

def assert_no_traceback(page: Page) -> None:
    shown = page.get_by_test_id("stException")
    try:
        expect(shown).to_have_count(0, timeout=1_000)
    except AssertionError:  # say which exception the page shows
        raise AssertionError("the page shows an exception: " + " | ".join(shown.all_inner_texts())[:3000]) from None


PAGE_STATE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return {runs: window.__stRuns, state: app && app.getAttribute('data-test-script-state'),
          connection: app && app.getAttribute('data-test-connection-state'),
          elements: document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]').length,
          stale: document.querySelectorAll('[data-stale="true"]').length,
          skeletons: document.querySelectorAll('[data-testid="stSkeleton"]').length,
          charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
          graphics: document.querySelectorAll('[data-testid="stElementContainer"].stPrintGraphic, '
                                              + '[data-testid="stElementContainer"]:has(> .stBidiComponent)').length,
          busy: document.querySelectorAll('[data-testid="stPlotlyChart"][aria-busy="true"]').length,
          plots: Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => [!!gd._fullLayout,
              gd.data && gd.data.length, gd._fullData && gd._fullData.length, gd.style.visibility,
              !!gd.querySelector('.cartesianlayer .trace, .cartesianlayer .hm')])};
}"""


def _settle(page: Page, finished_before: int, figures: int | None, timeout: float, href_before: str | None = None) -> None:
    try:
        page.wait_for_function(SETTLED, arg=[finished_before, figures, href_before], timeout=timeout)
    except PlaywrightTimeoutError:
        raise AssertionError(f"the page did not settle in {timeout / 1000:.0f} s after run {finished_before}"
                             f"{'' if figures is None else f' with {figures} figures'}: "
                             f"{page.evaluate(PAGE_STATE)}") from None
    assert_no_traceback(page)


def wait_for_app(page: Page, timeout: float = FIRST_RUN_MS, figures: int | None = None) -> None:
    """After page.goto: the session's first runs have finished and the page shows them, figures drawn."""
    _settle(page, 0, figures, timeout)


@contextmanager
def rerun(page: Page, timeout: float = FIRST_RUN_MS, figures: int | None = None):
    """Around a user action: wait until the run it triggers has finished and the page shows it, figures drawn
    (no fixed sleep)."""
    before, href = page.evaluate("[window.__stRuns.finished, window.location.href]")
    yield
    _settle(page, before, figures, timeout, href)


def click_for_run(page: Page, target, timeout: float = FIRST_RUN_MS, retry_s: float = 30, tries: int = 3) -> None:
    """Click ``target`` (a button) and wait until the run it triggers has finished and the page shows it.

    With both cores busy Streamlit now and then takes a click that starts no run: the page connected and idle, the
    server idle, no run started (seen for "Open this data set" in two full-suite runs under load, the server's
    threads all waiting; ``bench/bench_browser.py`` presses a key that started no run again, for the floor app too).
    A person clicks again; so does this, if no run has started ``retry_s`` after a click, up to ``tries`` clicks."""
    finished, href = page.evaluate("[window.__stRuns.finished, window.location.href]")
    for _ in range(tries):
        counts = page.evaluate("[window.__stRuns.started, window.__stRuns.finished]")
        target.click()
        try:
            page.wait_for_function("([s, f]) => window.__stRuns.started > s || window.__stRuns.finished > f",
                                   arg=counts, timeout=retry_s * 1000)
            break
        except PlaywrightTimeoutError:
            continue
    else:
        raise AssertionError(f"{tries} clicks {retry_s:g} s apart started no run: {page.evaluate(PAGE_STATE)}")
    _settle(page, finished, None, timeout, href)


def wait_for_figures(page: Page, figures: int | None = None, timeout: float = FIRST_RUN_MS) -> None:
    """The page has settled with every figure it draws (``figures`` of them, if given; at least one)."""
    _settle(page, 0, figures, timeout)
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=timeout)


# ---------------------------------------------------------------- what the user does

PAGES = {  # sidebar title -> (URL path, page heading)
    "Data": ("", "Data"),
    "Precision": ("precision", "Precision of n-best lists (Evert 2004, Figure 1)"),
    "Confidence": ("confidence", "Confidence intervals for precision (Evert 2004, Figure 2)"),
    "Significance": ("significance", "Significant differences between two measures (Evert 2004, Figure 3)"),
    "Threshold": ("threshold", "Score thresholds: gamma-acceptance sets"),
    "Pairwise": ("pairwise", "Every pair of measures at one n"),
    "ROC, DET, PR": ("roc", "ROC, DET and precision-recall curves"),
    "Validation": ("validation", "Does the binomial model hold over the samples? (Evert 2004, Figure 4)"),
    "Across samples": ("across", "Two measures across the samples: paired tests"),
    "Unanimous improvement": ("uir", "Unanimous Improvement Ratio over the samples"),
    "Systems": ("systems", "Compare systems on a test set"),
}


def go_to(page: Page, title: str) -> None:
    """Click a page in the sidebar navigation; wait for its run; check its URL path and heading."""
    path, heading = PAGES[title]
    with rerun(page):
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click()
    expect(page).to_have_url(re.compile(rf"^https?://[^/]+/{re.escape(path)}(\?|$)"))
    expect(page.get_by_role("heading", name=heading)).to_be_visible()


def upload(page: Page, path) -> None:
    with rerun(page):
        page.get_by_test_id("stFileUploader").locator("input[type=file]").set_input_files(path)


def choose(page: Page, label: str, option: str) -> None:
    """Pick an option of a selectbox (a combobox named by its label)."""
    box = page.get_by_role("combobox", name=label, exact=True)
    if box.input_value() == option:
        return
    with rerun(page):
        box.click()
        page.get_by_role("option", name=option, exact=True).click()
    expect(box).to_have_value(option)


def slider_thumb(page: Page, label: str, which: int = 0):
    """The (which-th) thumb of the slider labelled ``label``; an <input type=range>, focusable."""
    return page.get_by_role("slider", name=re.compile("^" + re.escape(label))).nth(which)


def press(page: Page, thumb, *keys: str) -> None:
    """Press keys on a slider thumb, waiting for the run of each: a quick series may or may not be sent as one
    value (Streamlit debounces sliders), and no run may be left pending when the test reads the page. Each key
    must move the slider."""
    for key in keys:
        thumb.focus()
        with rerun(page):
            thumb.press(key)


def slider_values(page: Page, label: str):
    slider = page.get_by_test_id("stSlider").filter(has=page.get_by_text(label, exact=True))
    return slider.get_by_test_id("stSliderThumbValue")


def metric(page: Page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def sidebar_link(page: Page):
    return page.get_by_test_id("stSidebar").get_by_test_id("stCode")


def settled_link(page: Page) -> str:
    """The share link, once the browser URL and the sidebar's "Link to this view" agree (both are written at the
    end of a run, the URL a moment after the sidebar)."""
    page.wait_for_function("""() => {
        const code = document.querySelector('[data-testid="stSidebar"] [data-testid="stCode"] code');
        return !!code && code.innerText.trim() === window.location.href; }""")
    return page.url


def query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def without(url: str, name: str) -> str:
    """The URL without the query parameter ``name``."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != name])))


def param(name: str, value: str) -> re.Pattern:
    """A URL holding the query parameter name=value."""
    return re.compile(rf"[?&]{re.escape(name)}={re.escape(value)}(&|$)")


def load_krenn_stable(page: Page, krenn_tsv) -> None:
    """On the Data page: upload the paper's data set and choose the stable tie policy."""
    upload(page, krenn_tsv)
    expect(metric(page, "Candidates N")).to_have_text("5,102", timeout=FIRST_RUN_MS)
    choose(page, "Ties", "file order within a tie group")
    expect(page).to_have_url(param("ties", "stable"))


def krenn_significance(page: Page, krenn_tsv) -> None:
    """On a new page: Krenn's data uploaded with stable ties, then Significance with A = log.like (G²) and
    B = chisq (X²); returns once the link holds B."""
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Significance")
    choose(page, "Measure A", "log.like")
    choose(page, "Measure B", "chisq")
    expect(page).to_have_url(param("b", "chisq"))


# ---------------------------------------------------------------- what the user sees in the figures

def _values(array) -> np.ndarray:
    """Trace data as numbers (plotly 7 sends arrays as base64 with a dtype)."""
    if array is None:
        return np.array([])
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)


def figure(page: Page, index: int = 0) -> dict:
    """Trace names and data and the x range of the index-th Plotly figure, as the browser holds them."""
    raw = page.evaluate("""i => { const gd = document.querySelectorAll('.js-plotly-plot')[i];
        return {traces: gd.data.map(t => ({name: t.name, x: t.x, y: t.y})), xrange: gd._fullLayout.xaxis.range}; }""",
                        index)
    return {"traces": [(t["name"], _values(t["x"]), _values(t["y"])) for t in raw["traces"]],
            "xrange": raw["xrange"]}


def fingerprint(page: Page, index: int = 0) -> str:
    return page.evaluate("""i => { const gd = document.querySelectorAll('.js-plotly-plot')[i];
        return JSON.stringify([gd.data.map(t => [t.name, t.x, t.y]), gd._fullLayout.xaxis.range]); }""", index)


def trace(fig: dict, name) -> dict[float, float]:
    """A trace as {x: y}; ``name`` is the trace name or a predicate on it."""
    match = name if callable(name) else (lambda n: n == name)
    x, y = next((x, y) for n, x, y in fig["traces"] if n is not None and match(n))
    return dict(zip(x.tolist(), y.tolist()))


def band_width(fig: dict, measure: str) -> dict[float, float]:
    """Upper minus lower bound of a measure's confidence band (Confidence page) at each n, in percent points."""
    lower = trace(fig, lambda n: n.startswith(f"{measure}: ") and n.endswith("(lower)"))
    upper = trace(fig, lambda n: n.startswith(f"{measure}: ") and not n.endswith("(lower)"))
    return {n: upper[n] - lower[n] for n in lower}


def compare(a: dict[float, float], b: dict[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Two traces at their common n (a figure may thin out its points, differently per figure)."""
    common = sorted(set(a) & set(b))
    assert len(common) > 100, "the two figures should share most of their n"
    return np.array([a[n] for n in common]), np.array([b[n] for n in common])


def wait_for_figure(page: Page, condition_js: str, timeout: float = FIRST_RUN_MS) -> None:
    """Wait until the first figure satisfies condition_js (a JS expression over ``gd``)."""
    page.wait_for_function(f"""() => {{ const gd = document.querySelector('.js-plotly-plot');
        return !!gd && !!gd._fullLayout && ({condition_js}); }}""", timeout=timeout)


def save_screenshot(page: Page, path) -> None:
    """A full-page PNG, 1400 px wide: the viewport grows to the height of the scrolling main area."""
    has_figures = page.get_by_test_id("stPlotlyChart").count() > 0  # the run has finished: the count is final
    if has_figures:
        wait_for_figures(page)
    height = page.evaluate("""() => Math.max(
        document.querySelector('[data-testid="stMain"]').scrollHeight,
        document.querySelector('[data-testid="stSidebarContent"]')?.scrollHeight || 0)""")
    viewport = page.viewport_size  # 1400 x 1000, from the fixture
    full = {"width": viewport["width"], "height": max(viewport["height"], int(height))}
    page.set_viewport_size(full)
    try:
        # no focus ring on the last widget used, no hover state (Plotly's mode bar, the sidebar's collapse button)
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.mouse.move(full["width"] - 5, full["height"] - 5)
        if has_figures:
            page.wait_for_function(SETTLED, arg=[0, None])
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(viewport)


# ---------------------------------------------------------------- the tests

def test_upload_the_paper_data_and_reproduce_figure_3(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    expect(page.get_by_text("Upload a file above, or use the sample, to start.")).to_be_visible()

    upload(page, krenn_tsv)
    expect(metric(page, "Candidates N")).to_have_text("5,102", timeout=FIRST_RUN_MS)
    expect(metric(page, "True positives")).to_have_text("566")
    expect(metric(page, "Baseline precision")).to_have_text("11.09%")
    expect(page.get_by_role("combobox", name="Label (TP/FP annotation)", exact=True)).to_have_value("is.colloc")
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Data: krenn_ppv.tsv")
    assert re.fullmatch(r"[0-9a-f]{64}", query(page)["dataset"][0])

    choose(page, "Ties", "file order within a tie group")
    expect(page).to_have_url(param("ties", "stable"))

    go_to(page, "Significance")
    choose(page, "Measure A", "log.like")
    choose(page, "Measure B", "chisq")
    expect(page).to_have_url(param("b", "chisq"))
    assert "a" not in query(page)  # A is the selection's first (log.like): a default, not written into the link
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text("up to n = 1,268", timeout=FIRST_RUN_MS)  # Evert 2004, Figure 3
    expect(sentence).to_contain_text("n from 100 to 2,000")
    wait_for_figures(page)
    expect(page.locator(".js-plotly-plot")).to_have_count(2)  # Figure 3 and the difference panel under it
    fig = figure(page)
    rug = next(xs for name, xs, _ in fig["traces"] if name and name.startswith("every significant n"))
    assert rug[:2].tolist() == [99.5, 1268.5], "the rug should mark every n from 100 to 1,268 in one run"
    triangles = next(xs for name, xs, _ in fig["traces"] if name and name.startswith("significant ("))
    assert 0 < len(triangles) <= 80 and min(triangles) == 100
    save_screenshot(page, screenshot_dir / "significance.png")


def test_sliders_moved_with_the_keyboard_change_url_and_figure(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)

    # Precision: both handles of the n-range slider, by keyboard
    go_to(page, "Precision")
    wait_for_figures(page)
    n_values = slider_values(page, "Range of n (n-best list size)")
    expect(n_values).to_have_text(["100", "2,000"])
    before = figure(page)
    assert before["xrange"] == [100, 2000]
    low, high = (slider_thumb(page, "Range of n (n-best list size)", i) for i in (0, 1))

    press(page, low, *["ArrowRight"] * 5)  # step 10: 100 -> 150
    expect(page).to_have_url(param("n_min", "150"))
    press(page, high, "PageDown")  # a page down the positions 10, 20, ..., 5,100, 5,102
    expect(page).to_have_url(re.compile(r"[?&]n_max=\d+"))
    hi = int(query(page)["n_max"][0])
    assert 150 < hi < 2000 and hi % 10 == 0
    expect(page).to_have_url(param("n_min", "150"))
    expect(n_values).to_have_text(["150", f"{hi:,}"])
    wait_for_figure(page, f"gd._fullLayout.xaxis.range[0] === 150 && gd._fullLayout.xaxis.range[1] === {hi}")
    after = figure(page)
    for measure in ("log.like", "Fisher"):  # (the pages start from the best measures by average precision)
        assert min(trace(after, measure)) == 150 and max(trace(after, measure)) == hi
        # the same precision at the same n as before the move
        np.testing.assert_allclose(*compare(trace(after, measure), trace(before, measure)))
    # the value table follows the range: its n is clamped into it
    expect(page).to_have_url(param("p_n", str(hi)))

    # Confidence: the level slider, by keyboard
    go_to(page, "Confidence")
    wait_for_figures(page)
    assert "level" not in query(page)  # 0.95 is the default, not written
    at_95 = figure(page)
    assert any(name.startswith("log.like: 95% ") for name, _, _ in at_95["traces"])
    level = slider_thumb(page, "Confidence level")

    press(page, level, "ArrowLeft", "ArrowLeft", "ArrowLeft")
    expect(page).to_have_url(param("level", "0.947"))
    expect(slider_values(page, "Confidence level")).to_have_text(["0.947"])
    wait_for_figure(page, "gd.data.some(t => (t.name || '').startsWith('log.like: 94.7% '))")
    at_947 = figure(page)
    narrower, wider = compare(band_width(at_947, "log.like"), band_width(at_95, "log.like"))
    assert np.all(narrower <= wider + 1e-9) and narrower.sum() < wider.sum()

    press(page, level, "End")
    expect(page).to_have_url(param("level", "0.999"))
    expect(slider_values(page, "Confidence level")).to_have_text(["0.999"])
    wait_for_figure(page, "gd.data.some(t => (t.name || '').startsWith('log.like: 99.9% '))")
    at_999 = figure(page)
    wider, narrower = compare(band_width(at_999, "log.like"), band_width(at_95, "log.like"))
    assert np.all(wider >= narrower - 1e-9) and wider.sum() > narrower.sum()

    press(page, level, "Home")
    expect(page).to_have_url(param("level", "0.8"))
    expect(slider_values(page, "Confidence level")).to_have_text(["0.800"])
    wait_for_figure(page, "gd.data.some(t => (t.name || '').startsWith('log.like: 80% '))")
    at_80 = figure(page)
    narrower, wider = compare(band_width(at_80, "log.like"), band_width(at_947, "log.like"))
    assert np.all(narrower <= wider + 1e-9) and narrower.sum() < wider.sum()
    # the precision line itself does not depend on the level
    np.testing.assert_allclose(*compare(trace(at_80, "log.like"), trace(at_95, "log.like")))

def test_the_page_url_is_a_share_link_to_the_same_view(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Significance")
    choose(page, "Measure A", "log.like")
    choose(page, "Measure B", "chisq")
    level = slider_thumb(page, "Confidence level (alpha = 1 - level)")
    press(page, level, "Home", *["PageUp"] * 5)  # 0.800, then a page of 0.02 five times
    expect(page).to_have_url(param("level", "0.9"))
    press(page, slider_thumb(page, "Range of n (every n in it is tested)", 1), "PageDown")
    expect(page).to_have_url(re.compile(r"[?&]n_max=\d+"))
    hi = int(query(page)["n_max"][0])
    assert 100 < hi < 2000
    sentence = page.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(sentence).to_contain_text(f"n from 100 to {hi:,}")
    wait_for_figures(page)

    # the sidebar's link is the page URL, once the last run has finished
    link = settled_link(page)
    expect(sidebar_link(page)).to_have_text(link)
    params = parse_qs(urlsplit(link).query)
    # A stays the shared selection's first (log.like), which the link need not name (issue 18.5: defaults are not
    # written into the link); B was picked
    assert params["ties"] == ["stable"] and params.get("a", ["log.like"]) == ["log.like"] and params["b"] == ["chisq"]
    assert params["level"] == ["0.9"] and params["n_max"] == [str(hi)]
    original = {
        "sentence": sentence.inner_text(),
        "p": page.get_by_test_id("stMarkdownContainer").filter(has_text=re.compile(r"^p = ")).inner_text(),
        "sliders": page.get_by_test_id("stSliderThumbValue").all_inner_texts(),
        "figure": fingerprint(page),
    }
    # the look-at n starts at the boundary of the significant run (up_to): a default, so not in the link
    up_to = re.search(r"up to n = ([\d,]+)", original["sentence"])
    assert "sig_n" not in params and up_to is not None
    assert original["sliders"] == ["0.900", "100", f"{hi:,}", up_to.group(1)]  # (the look-at n: st.slider's "%,d")

    # a colleague opens it: a new browser context, so a new session with nothing in it
    shared = new_page(link)
    wait_for_app(shared)
    expect(shared.get_by_test_id("stSidebarNav").get_by_role("link", name="Significance")).to_have_attribute(
        "aria-current", "page")
    expect(shared.get_by_role("heading", name=re.compile("Significant differences"))).to_be_visible()
    expect(shared.get_by_test_id("stSidebar")).to_contain_text("Data: krenn_ppv.tsv")
    expect(shared.get_by_role("combobox", name="Measure A", exact=True)).to_have_value("log.like")
    expect(shared.get_by_role("combobox", name="Measure B", exact=True)).to_have_value("chisq")
    expect(shared.get_by_test_id("stSliderThumbValue")).to_have_text(original["sliders"])
    shared_sentence = shared.get_by_test_id("stMarkdownContainer").filter(has_text="Fisher's exact test")
    expect(shared_sentence).to_have_text(original["sentence"], timeout=FIRST_RUN_MS)
    expect(shared.get_by_test_id("stMarkdownContainer").filter(has_text=re.compile(r"^p = "))).to_have_text(
        original["p"])
    wait_for_figures(shared)
    assert fingerprint(shared) == original["figure"]
    # and the colleague's URL and link are the same link again, seed included
    expect(shared).to_have_url(link)
    assert settled_link(shared) == link
    assert not shared.get_by_test_id("stAlertContentWarning").count()  # nothing in the link was off

    save_screenshot(page, screenshot_dir / "share_link_original.png")  # evidence, not used by the README
    save_screenshot(shared, screenshot_dir / "share_link_opened.png")


def _stored_files(store_dir) -> set[str]:
    """The store's files, without its bookkeeping of other sessions' work in progress (a session that ended lets its
    data sets go: they pass through ``.trash``; writes hold ``.reservations``, ``.leases`` and ``.tmp-*`` files)."""
    busy = (".trash", ".reservations", ".leases")
    return {str(p.relative_to(store_dir)) for p in store_dir.rglob("*")
            if p.relative_to(store_dir).parts[0] not in busy and not p.name.startswith(".tmp-")}


def test_a_forged_dataset_in_a_link_gets_a_message_and_a_way_to_the_data_page(new_page, store_dir):
    before = _stored_files(store_dir)
    page = new_page("/precision?dataset=../../etc/passwd")
    wait_for_app(page)
    expect(page.get_by_test_id("stAlertContentWarning")).to_contain_text("not a data set id")
    expect(page.get_by_test_id("stAlertContentInfo")).to_contain_text("No data loaded yet")
    assert not page.get_by_test_id("stPlotlyChart").count()
    to_data = page.get_by_role("link", name=re.compile("Go to the Data page"))
    expect(to_data).to_be_visible()
    with rerun(page):
        to_data.click()
    expect(page.get_by_test_id("stFileUploader")).to_be_visible()
    expect(page.get_by_role("heading", name="Data")).to_be_visible()
    expect(page).not_to_have_url(re.compile("passwd"))
    # the forged id wrote no file (an earlier test's session, ending on this shared server, may still let its data
    # sets go meanwhile: files may vanish, none may appear)
    added = _stored_files(store_dir) - before
    assert not added, f"a forged data set id in a link wrote {sorted(added)}"


def test_a_malformed_csv_gets_a_message_next_to_the_uploader(new_page, tmp_path):
    """A file that cannot be read as a table: the message is right under the uploader; nothing is loaded."""
    bad = tmp_path / "ragged.csv"
    bad.write_text("word,score,label\nx,1,TRUE\ny,2\nz,3,FALSE,extra\n")
    page = new_page("/")
    wait_for_app(page)
    upload(page, bad)
    uploader_column = page.get_by_test_id("stColumn").filter(has=page.get_by_test_id("stFileUploader"))
    error = uploader_column.get_by_test_id("stAlertContentError")
    expect(error).to_contain_text("ragged.csv: 2 row(s) have a wrong number of fields")
    expect(error).to_contain_text("row 2 (line 3) has 2")
    expect(page.get_by_test_id("stMetric")).to_have_count(0)
    assert "dataset" not in query(page)
    assert_no_traceback(page)


def test_a_csv_with_a_bad_label_value_gets_a_message_naming_it(new_page, tmp_path):
    """A readable table whose label column holds "maybe": the message names the value and its row, under the
    column mapping (where another label column can be chosen); no metrics, no traceback."""
    bad = tmp_path / "bad_labels.csv"
    bad.write_text("word,score,label\nx,1,TRUE\ny,2,maybe\nz,3,FALSE\n")
    page = new_page("/")
    wait_for_app(page)
    upload(page, bad)
    expect(page.get_by_role("heading", name="Columns of bad_labels.csv")).to_be_visible()
    error = page.get_by_test_id("stAlertContentError")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("row 2: 'maybe'")
    expect(error).to_contain_text("label column 'label'")
    expect(page.get_by_role("combobox", name="Label (TP/FP annotation)", exact=True)).to_have_value("label")
    expect(page.get_by_test_id("stMetric")).to_have_count(0)
    assert_no_traceback(page)


def test_screenshots_of_every_page_on_the_paper_data(new_page, krenn_tsv, screenshot_dir):
    """The README's screenshots: the Data page after the upload, then each page opened from the Data page's link
    with its own path and the paper's measures, each in a fresh session, as a colleague opens a link."""
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    save_screenshot(page, screenshot_dir / "data.png")
    link = urlsplit(page.url)
    # the paper's measures: Figure 1 (G2, t, X2, f), Figure 2 (G2, X2), and t-score's threshold
    papers = "&m=log.like&m=t.score&m=chisq&m=freq&band=log.like&band=chisq&t_measure=t.score"
    for title in ("Precision", "Confidence", "Threshold"):
        path, heading = PAGES[title]
        other = new_page(urlunsplit(link._replace(path="/" + path, query=link.query + papers)))
        wait_for_app(other)
        expect(other.get_by_role("heading", name=heading)).to_be_visible()
        expect(other.get_by_test_id("stSidebar")).to_contain_text("Data: krenn_ppv.tsv")
        wait_for_figures(other)
        save_screenshot(other, screenshot_dir / f"{path}.png")


# ---------------------------------------------------------------- app bugs found by these tests (fixed)

def test_a_page_that_stops_still_shows_the_link_and_syncs_the_url(new_page):
    page = new_page("/precision?dataset=../../etc/passwd")
    wait_for_app(page)
    expect(page.get_by_test_id("stAlertContentWarning")).to_contain_text("not a data set id")
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Link to this view", timeout=3_000)
    expect(page).not_to_have_url(re.compile("passwd"), timeout=3_000)


def test_a_link_with_stable_ties_keeps_its_seed_for_random_ties(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    link = page.url
    assert re.search(r"[?&]seed=\d+", link) and "ties=stable" in link
    shared = new_page(link)
    wait_for_app(shared)
    expect(metric(shared, "Candidates N")).to_have_text("5,102")
    choose(shared, "Ties", "random order within a tie group (the paper's jitter), seeded")
    expect(shared).not_to_have_url(param("ties", "stable"))
    expect(shared.get_by_role("spinbutton", name="Seed for random tie-breaking")).not_to_have_value("", timeout=3_000)
    expect(shared).to_have_url(re.compile(r"[?&]seed=\d+"), timeout=3_000)


def test_widgets_shared_by_pages_show_the_view_on_every_page(new_page, krenn_tsv):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)
    go_to(page, "Precision")
    expect(slider_values(page, "Range of n (n-best list size)")).to_have_text(["100", "2,000"])
    go_to(page, "Confidence")
    wait_for_figures(page)
    assert "n_min" not in query(page) and "n_max" not in query(page)  # the view: the default range, 100..2,000
    expect(slider_values(page, "Range of n (n-best list size)")).to_have_text(["100", "2,000"], timeout=3_000)
    assert figure(page)["xrange"] == [100, 2000]
    go_to(page, "Significance")
    expect(page.get_by_text(re.compile(r"at alpha = 0\.05$"))).to_be_visible()  # the view: level 0.95
    expect(slider_values(page, "Confidence level (alpha = 1 - level)")).to_have_text(["0.950"], timeout=3_000)


def test_the_sample_button_loads_the_sample(new_page):
    # (in the browser: AppTest does not register this click on a router app with a pages/ folder)
    page = new_page("/")
    wait_for_app(page)
    page.get_by_role("button", name="Use this sample").click()
    expect(metric(page, "Candidates N")).to_have_text("6,348")
    expect(metric(page, "Baseline precision")).to_have_text("11.81%")
    expect(page).to_have_url(re.compile(r"dataset=sample%3Acollocations_sim"))
