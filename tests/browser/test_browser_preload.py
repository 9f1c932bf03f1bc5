"""The next page's browser code is loaded while the page shown waits (evalcore_app/preload.py, issue 34): once a page has
settled, Streamlit's chunks for tables and figures and the plotly.js of the figures drawn in place are loaded, and
the switch to Precision and then to Significance fetches none of them again, and draws their figures."""

from __future__ import annotations

from test_browser import click_for_run, wait_for_app

from evalcore_app import preload
from evalcore_app.preload import LAST_QUIET_MS

PRELOAD_MS = 180_000  # (a loaded machine: the chunks are several MB of JavaScript)


def test_a_settled_page_loads_the_figure_pages_code_before_they_are_opened(new_page):
    page = new_page("/?dataset=sample:collocations_sim&ties=stable")
    wait_for_app(page)
    page.wait_for_function("window.__evalcorePreload === 'done'", timeout=PRELOAD_MS, polling=200)
    assert page.evaluate("typeof window.Plotly") == "object"  # the plotly.js of evalcore_app/components/plot
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url))
    nav = page.get_by_test_id("stSidebarNav")
    for title in ("Precision", "Significance"):
        click_for_run(page, nav.get_by_role("link", name=title))
        charts = page.get_by_test_id("stPlotlyChart")
        assert charts.count() >= 1, title
        assert page.evaluate("""() => Array.from(document.querySelectorAll('[data-testid="stPlotlyChart"]'))
            .every(c => !!c.querySelector('.js-plotly-plot .cartesianlayer .trace'))"""), title
    code = [u for u in fetched if "/static/js/" in u or u.endswith(".min.js")]
    assert code == [], code  # every chunk and plotly.js came before the switch


# A stretch of activity three times the quiet Streamlit's own chart waits for, kept up inside the page (every 0.3 s):
# what is tested is that nothing is loaded while it lasts, not a wait for something to happen.
BUSY_MS = 3 * LAST_QUIET_MS
BUSY = """([kind, ms]) => new Promise(done => {
  const node = document.createElement('div');
  document.body.appendChild(node);
  const tick = setInterval(() => {
    if (kind === 'change') document.body.dispatchEvent(new Event('change', {bubbles: true}));
    else node.setAttribute('data-tick', String(performance.now()));
  }, 300);
  setTimeout(() => { clearInterval(tick); node.remove(); done(window.__evalcorePreload); }, ms);
})"""


def test_streamlits_own_chart_waits_while_a_file_is_chosen_or_the_page_is_drawn(new_page):
    """Streamlit's own chart (4.7 MB of plotly.js, which the browser cannot stop once it evaluates it) is loaded only
    after a quiet page. A file chosen or dropped is neither a key nor a click, and a page goes on being drawn after
    its run has ended: counted from keys and clicks alone, the chart fell inside uploads on a loaded machine (a
    Chromium profile of Krenn's upload: 1.7-2.1 s of it at load 15-20). Each stretch here is a file input's change,
    then changes to the page, every 0.3 s for three times the quiet; the chart is loaded once they stop."""
    page = new_page("/?dataset=sample:collocations_sim&ties=stable")
    wait_for_app(page)
    page.wait_for_function("typeof window.Plotly === 'object'", timeout=PRELOAD_MS, polling=200)  # the first loads
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url))
    chart = [f for f in preload.chunk_files() if f.startswith("PlotlyChart.")]
    assert chart  # (tests/test_preload.py: the chunk is found)
    for kind in ("change", "page"):
        state = page.evaluate(BUSY, [kind, BUSY_MS])
        assert state == "waiting", kind
        assert not [u for u in fetched if chart[0] in u], kind
    page.wait_for_function("window.__evalcorePreload === 'done'", timeout=PRELOAD_MS, polling=200)
    assert [u for u in fetched if chart[0] in u]  # loaded once the page was quiet
