"""The browser's code for the next page, loaded while the page shown waits for the user (issue 34).

Streamlit's front end loads the code of an element the first time a page shows one: a figure's (plotly.js, 4.7 MB
of JavaScript in Streamlit's ``PlotlyChart`` chunk), a table's (the ``DataFrame`` chunk and Arrow's, 1.3 MB), a
slider's. A tab pays for it on the first page that shows one, after that page's run: the switch to Precision after
an upload took 4.1 s in Chromium on a loaded machine, 1.1 s with those chunks loaded before (3.3 s were the chunks),
and the upload to its summary 2.9 s against 0.8 s (bench/bench_browser.py ``--felt``). :func:`preload` puts a few
lines of JavaScript at the top of the sidebar that import those chunks (the same URLs Streamlit imports them from,
so the module it asks for later is the one loaded) and the plotly.js that :mod:`evalcore_app.components.plot` draws
Figures 1, 2 and 3 with, all at once while the page's own run goes on (the browser evaluates them while the server
runs the page; loaded once the page was quiet, they held an upload or a switch to Precision right after a page
opened for seconds), and Streamlit's own chart (the other pages draw with it) only after a
longer quiet (:data:`LAST_QUIET_MS`: nothing done by the user, no run, no change to the page). Once per tab;
nothing from the user reaches the script (the URLs are the server's own files, written as JSON strings).

It changes nothing a page shows: it only loads code the pages would load themselves, from the same server
(tests/browser/test_browser_offline.py). With another Streamlit whose chunks are named otherwise, a name not found
is left out (:func:`chunk_urls`), and that page loads its chunk as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

#: The chunks of Streamlit's front end the pages use, in the order they are loaded: the uploader's (axios sends the
#: file), the Data page's after an upload (tables, metrics, its inputs), the figure pages' (sliders, the component
#: that draws Precision's, Confidence's and Significance's figures in place, whose plotly.js comes next), and last
#: Streamlit's own chart (``st.plotly_chart``: the other pages' figures).
CHUNKS = ("axios", "Metric", "Multiselect", "Selectbox", "NumberInput", "Checkbox", "TextInput", "DownloadButton",
          "ButtonGroup", "DataFrame", "Slider", "BidiComponent", "PlotlyChart")
#: The chunks loaded after plotly.js (:data:`CHUNKS`' last ones).
AFTER_PLOTLY = ("PlotlyChart",)
_STATIC = Path(st.__file__).parent / "static" / "static" / "js"


def chunk_files() -> tuple[str, ...]:
    """The files of :data:`CHUNKS` in Streamlit's static folder (``PlotlyChart.D9Z0_fxz.js``), in that order; a chunk
    this Streamlit names otherwise (or has not) is left out."""
    found = []
    for name in CHUNKS:
        files = sorted(p.name for p in _STATIC.glob(f"{name}.*.js") if p.name.count(".") == 2)
        if len(files) == 1:  # (two of a name: not known which the front end imports)
            found.append(files[0])
    return tuple(found)


_FILES = chunk_files()  # (looked up once, when the server imports this module: the files do not change)


def chunk_urls() -> list[str]:
    """The chunks' URLs, below the server's ``baseUrlPath``, as the front end's own imports resolve them."""
    base = (st.get_option("server.baseUrlPath") or "").strip("/")
    root = "/" + base if base else ""
    return [f"{root}/static/js/{name}" for name in _FILES]


def _js(value) -> str:
    """A JSON value safe inside a <script> element."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: Streamlit's own chart (:data:`AFTER_PLOTLY`: the whole plotly.js again, 4.7 MB, for the pages that draw with
#: ``st.plotly_chart``) is loaded only once the browser has been idle and the page without a run, a key, a click, a
#: file chosen or dropped, a value typed or any change to the page for this long: evaluated right after an upload,
#: it held the next click for seconds (the browser cannot stop a script it evaluates); counted from the key or click
#: alone, it still fell inside uploads on a loaded machine (a file dropped or chosen is neither, and the page is drawn
#: for seconds after its run has ended: 1.7 to 2.1 s of the browser's time, at load 15 to 20).
LAST_QUIET_MS = 5000

SCRIPT = """
(() => {
  if (window.__evalcorePreload) return;  // once per tab
  window.__evalcorePreload = 'waiting';
  const modules = %(modules)s, plotly = %(plotly)s, after = %(after)s;
  const LAST_QUIET = %(last_quiet)s;
  const idle = () => new Promise(done => window.requestIdleCallback
    ? window.requestIdleCallback(done, {timeout: 3000}) : setTimeout(done, 100));
  const later = ms => new Promise(done => setTimeout(done, ms));
  const state = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-script-state');
  };
  // the last thing the user did (a key, a click, a file chosen or dropped, a value typed) or the page did (any change
  // to it: a run's elements arriving and being drawn, which goes on after the run itself has ended)
  let input = 0;
  const touched = () => { input = performance.now(); };
  for (const kind of ['pointerdown', 'keydown', 'dragenter', 'drop', 'change', 'input']) {
    addEventListener(kind, touched, true);
  }
  new MutationObserver(touched).observe(document.body, {childList: true, subtree: true, attributes: true,
                                                         characterData: true});
  async function calm(ms) {  // the browser idle (no deadline), then ``ms`` with no run, no input and no change
    for (;;) {
      await new Promise(done => window.requestIdleCallback ? window.requestIdleCallback(done) : setTimeout(done, 100));
      const since = performance.now();
      while (performance.now() - since < ms && state() === 'notRunning' && input < since) await later(200);
      if (performance.now() - since >= ms && state() === 'notRunning' && input < since) { await idle(); return; }
    }
  }
  function script(src) {  // plotly.js as evalcore_app/components/plot loads it, shared with it (window.__evalcoreScripts)
    const scripts = window.__evalcoreScripts = window.__evalcoreScripts || {};
    if (window.Plotly || scripts[src]) return scripts[src] || Promise.resolve();
    return scripts[src] = new Promise((resolve, reject) => {
      const tag = document.createElement('script');
      tag.src = src;
      tag.onload = () => resolve(window.Plotly);
      tag.onerror = () => { delete scripts[src]; reject(new Error('could not load ' + src)); };
      document.head.appendChild(tag);
    });
  }
  (async () => {
    // at once: the page's own run is under way (this block comes first in the sidebar), and the browser evaluates
    // them while the server runs it; Streamlit's own chart last, once the page has been calm a while
    await Promise.all([...modules.map(url => import(url).catch(() => { /* the page that needs it loads it */ })),
                       plotly ? script(plotly).catch(() => {}) : null]);
    await calm(LAST_QUIET);
    await Promise.all(after.map(url => import(url).catch(() => {})));
    window.__evalcorePreload = 'done';
  })().catch(() => { window.__evalcorePreload = 'failed'; });  // (the pages load what they need themselves)
})();
"""


def html() -> str:
    """The block :func:`preload` puts on the page: the app's own script, the same for every view (no data in it)."""
    from evalcore_app.components import plot

    urls = chunk_urls()
    later = [u for u in urls if u.rsplit("/", 1)[-1].split(".")[0] in AFTER_PLOTLY]
    first = [u for u in urls if u not in later]
    code = SCRIPT % {"modules": _js(first), "plotly": _js(plot.plotly_url()), "after": _js(later),
                     "last_quiet": LAST_QUIET_MS}
    return f"<script>{code}</script>"


def preload() -> None:
    """The script that loads the chunks (see the module's docstring), at the end of the sidebar: it takes no room."""
    st.html(html(), unsafe_allow_javascript=True, width="content")
