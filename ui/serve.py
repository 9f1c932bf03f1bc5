"""Start the dashboard warm: ``python -m ui.serve [streamlit options]`` (what ``./dev run`` does).

``streamlit run app.py`` imports the app's modules only when the first visitor arrives, so that
visitor waits for the imports and the compiled kernels (several seconds). This loads them in the
server process first (:func:`evalcore.warm.warm`), then starts Streamlit's server on app.py in
the same process, where the first run finds everything loaded, and shows the app's own navigation
from the first moment (not Streamlit's list of the files in pages/). It also puts the upload guard
(:mod:`ui.uploads`) around Streamlit's server before it starts: with sign-in on, no byte of an upload
from anyone but a signed-in member, and no session holding more than the upload limit. ``streamlit run
app.py`` serves the app without that guard.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "app.py"


def main(argv: list[str] | None = None) -> int:
    from evalcore.warm import warm

    seconds = warm()
    print(f"evalcore: imports and compiled kernels loaded in {seconds:.1f} s", file=sys.stderr)
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
    from ui import uploads

    uploads.install()  # around the app the server builds when it starts (cli.main below)

    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
