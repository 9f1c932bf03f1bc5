"""evalcore_app/preload.py finds the chunks it loads in the installed Streamlit: a Streamlit whose front end names them
otherwise fails here, rather than leaving every first page switch slow again without a word."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from evalcore_app import preload

STATIC = Path(st.__file__).parent / "static" / "static" / "js"


def test_every_chunk_is_found_once_and_is_one_the_front_end_imports():
    files = preload.chunk_files()
    assert [f.split(".")[0] for f in files] == list(preload.CHUNKS)
    main = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in STATIC.glob("index.*.js"))
    for name in files:
        assert f'"./{name}"' in main, name  # the URL the front end itself imports it from


def test_the_script_names_only_the_servers_own_files():
    code = preload.SCRIPT % {"modules": preload._js([f"/static/js/{f}" for f in preload.chunk_files()]),
                             "plotly": preload._js("/component/x/plotly-basic.min.js"), "after": preload._js([]),
                             "last_quiet": 1}
    urls = re.findall(r'"(/[^"]*)"', code)
    assert urls and all(u.startswith(("/static/js/", "/component/")) for u in urls), urls
    assert "</script" not in preload._js(["</script><b>"])
