"""Fixtures shared by the AppTests: a store of the test's own, Krenn's data put in it, and a folder served as the
server's large data sets."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st

from evalcore.io.store import DatasetStore

KRENN = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"


@pytest.fixture()
def store_root(tmp_path, monkeypatch) -> Path:
    """The app's store in the test's temporary folder (its path); no default data set. A module asks for it
    with ``pytestmark = pytest.mark.usefixtures("store_root")``."""
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("EVALCORE_DEFAULT_DATASET", raising=False)
    return tmp_path / "store"


@pytest.fixture()
def serve_data_dir(monkeypatch):
    """Serve a folder as the server's large data sets (``EVALCORE_DATA_DIR``): ``serve_data_dir(folder)`` sets it
    and clears the cached resources that read it; they are cleared again after the test."""
    def serve(folder: Path) -> Path:
        monkeypatch.setenv("EVALCORE_DATA_DIR", str(folder))
        st.cache_resource.clear()
        return folder

    yield serve
    st.cache_resource.clear()


@pytest.fixture()
def krenn_id(store_root):
    """The paper's data set (shared/data, beside the clone) put in the test's store; its id."""
    assert KRENN.exists(), f"expected the paper's data at {KRENN}"
    return DatasetStore().put(KRENN.read_bytes(), "krenn_ppv.tsv")


@pytest.fixture(scope="session", autouse=True)
def warm_kernels():
    """Each worker imports the numerical modules and compiles the kernels once, before its first AppTest, as the
    server does before it accepts anyone (evalcore_app/serve.py). A fresh clone has no numba cache: on a loaded machine the
    first page run spent that time inside AppTest's 120 s timeout (tests/app/test_links.py timed out so once, its
    second example passing at once)."""
    from evalcore.warm import warm

    warm()
