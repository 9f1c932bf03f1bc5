"""Start the dashboard warm: ``python -m ui.serve [streamlit options]`` (what ``./dev run`` does).

``streamlit run app.py`` imports the app's modules only when the first visitor arrives, so that
visitor waits for the imports and the compiled kernels (several seconds). This loads them in the
server process first (:func:`evalcore.warm.warm`), then starts Streamlit's server on app.py in
the same process, where the first run finds everything loaded.
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
    from streamlit.web import cli

    gc.collect()
    gc.freeze()

    sys.argv = ["streamlit", "run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
