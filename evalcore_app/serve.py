"""Start the dashboard warm: ``evalcore app [streamlit options]`` (also ``python -m evalcore app`` and ``python -m
evalcore_app.serve``; what ``./dev run`` starts), from a clone or from an installed package.

``streamlit run app.py`` imports the app's modules only when the first visitor arrives, so that
visitor waits for the imports and the compiled kernels (several seconds). This loads them in the
server process first (:func:`evalcore.warm.warm`), then starts Streamlit's server on app.py in
the same process, where the first run finds everything loaded, and shows the app's own navigation
from the first moment (not Streamlit's list of the files in pages/). The app's own modules (evalcore_app/ and what app.py and
the pages import: :func:`import_app`) are imported here too: on a fresh server they took the first visitor's run
several seconds (evalcore_app.cached, evalcore_app.present, evalcore_app.systems, evalcore_app.annotate, evalcore_app.tables; issue 34). It also puts the upload guard
(:mod:`evalcore_app.uploads`) around Streamlit's server before it starts: with sign-in on, no byte of an upload
from anyone but a signed-in member, and no session holding more than the upload limit. ``streamlit run
app.py`` serves the app without that guard.

The main script is :data:`APP`, in :data:`DASHBOARD` beside this module: in a clone, links to the clone's
``app.py``, ``pages/`` and ``.streamlit/config.toml``; in an installed package, the files themselves. Streamlit reads
the project's settings from the ``.streamlit/config.toml`` beside the main script wherever the server is started
(its script-level configuration, above a ``.streamlit/config.toml`` of the working folder and of the user; below
``STREAMLIT_*`` variables and the options given here), so the installed app runs with the upload limit, the
message limit, no file watching, no data export from grids and the viewer's toolbar of the clone.
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import logging
import pkgutil
import sys
import time
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parent / "dashboard"
APP = (DASHBOARD / "app.py").resolve()  # in a clone: the clone's app.py (so that pages/ beside it are the pages)
SETTINGS = APP.parent / ".streamlit" / "config.toml"

USAGE = """\
usage: evalcore app [streamlit options]

The dashboard, warmed (the numerical modules and compiled kernels loaded before the first visitor), behind the
upload guard, with the project's settings (evalcore_app/dashboard/.streamlit/config.toml; a STREAMLIT_* variable or
an option here changes one). The options are those of `streamlit run` (below), e.g.
  evalcore app --server.port 8502 --server.address 0.0.0.0
Uploaded data sets and annotations are kept in EVALCORE_STORE (now: {store}).
"""


def _imported_by(script: Path) -> list[str]:
    """The modules a script imports at its top level (``from a import b`` gives ``a`` and, where it is a module,
    ``a.b``), in order."""
    names = []
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


class _Outside(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "missing ScriptRunContext" not in record.getMessage()


def import_app(app: Path = APP) -> float:
    """Import every module of evalcore_app/ and every module app.py and the pages import, as their first run would; returns
    the seconds it took. (A name imported from a module that is not itself a module is skipped.)"""
    t0 = time.perf_counter()
    import evalcore_app

    names = [f"evalcore_app.{m.name}" for m in pkgutil.walk_packages(evalcore_app.__path__) if m.name != "serve"]
    for script in [app, *sorted((app.parent / "pages").glob("*.py"))]:
        names += _imported_by(script)
    # (a fragment or component declared at import says "missing ScriptRunContext" outside a run: nothing is missing)
    from streamlit.runtime.scriptrunner_utils import script_run_context  # (its logger made, with Streamlit's level)

    context_log = logging.getLogger(script_run_context.__name__)
    quiet = _Outside()  # (a filter: Streamlit sets its loggers' levels again when it reads its config)
    context_log.addFilter(quiet)
    try:
        for name in dict.fromkeys(names):
            if importlib.util.find_spec(name.rpartition(".")[0] or name) is None:
                continue
            try:
                importlib.import_module(name)
            except ModuleNotFoundError:  # ``from a import function``: not a module
                continue
    finally:
        context_log.removeFilter(quiet)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    from evalcore.io.store import default_root

    options = list(sys.argv[1:] if argv is None else argv)
    if "-h" in options or "--help" in options:  # ours, then Streamlit's options, without warming anything
        print(USAGE.format(store=default_root()))
        from streamlit.web import cli

        sys.argv = ["streamlit", "run", str(APP), "--help"]
        return cli.main(prog_name="streamlit")
    from evalcore.warm import warm

    seconds = warm()
    print(f"evalcore: imports and compiled kernels loaded in {seconds:.1f} s; the store is {default_root()}",
          file=sys.stderr)
    seconds = import_app()
    print(f"evalcore: the app's modules imported in {seconds:.1f} s", file=sys.stderr)
    # What the warm-up loaded lives as long as the server: keep it out of every later garbage collection (a full
    # collection over it took about 0.15 s).
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    gc.collect()
    gc.freeze()
    # A folder named pages/ beside app.py puts Streamlit (1.67) in its file-based mode for a fresh server's
    # first run: until app.py reaches st.navigation, the sidebar lists app.py and pages/*.py by file name. The
    # app always routes with st.navigation (which clears this flag itself on its first call), so it is
    # cleared before the first visitor (tests/browser/test_browser_startup.py).
    PagesManager.uses_pages_directory = False
    from evalcore_app import uploads

    uploads.install()  # around the app the server builds when it starts (cli.main below)

    sys.argv = ["streamlit", "run", str(APP), *options]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
