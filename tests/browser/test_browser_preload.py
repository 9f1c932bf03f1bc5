"""The next page's browser code is loaded while the page shown waits (evalcore_app/preload.py, issue 34): once a page has
settled, Streamlit's chunks for tables and figures and the plotly.js of the figures drawn in place are loaded, and
the switch to Precision and then to Significance fetches none of them again, and draws their figures."""

from __future__ import annotations

from test_browser import click_for_run, wait_for_app

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
