"""Shared fixtures. The paper's data set lives in ../shared/data (GPL: read it, never copy it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("evalcore", derandomize=True, deadline=None)
settings.load_profile("evalcore")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def krenn_tsv() -> Path:
    path = SHARED / "data" / "krenn_ppv.tsv"
    assert path.exists(), f"the paper's data set is expected at {path} (../shared beside the repository)"
    return path


@pytest.fixture(scope="session")
def krenn_rda() -> Path:
    path = SHARED / "data" / "KrennPPV.rda"
    assert path.exists(), f"KrennPPV.rda is expected at {path} (../shared beside the repository)"
    return path


@pytest.fixture(scope="session", autouse=True)
def no_developer_secrets(tmp_path_factory):
    """No test reads the developer's own secrets (.streamlit/secrets.toml): a lab's sign-in there (``[auth]``) would
    put every page behind it. The servers the tests start (STREAMLIT_SECRETS_FILES, read by ``streamlit run``) and
    the AppTests (the option ``secrets.files``) look in a file that does not exist; the sign-in tests name theirs."""
    import sys

    missing = str(tmp_path_factory.mktemp("no_secrets") / "secrets.toml")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STREAMLIT_SECRETS_FILES", missing)
        if "streamlit" not in sys.modules:  # no AppTest in this run
            yield
            return
        from streamlit import config

        before = config.get_option("secrets.files")
        config.set_option("secrets.files", [missing])
        try:
            yield
        finally:
            config.set_option("secrets.files", before)


def pytest_configure(config):
    """With ``--dist loadfile``: hand out the files in the order of the collection, which
    pytest_collection_modifyitems makes slowest first (tests/file_costs.py), not by their number of tests."""
    if getattr(config.option, "dist", "no") == "loadfile":
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(session, config, items):
    if not hasattr(config, "workerinput"):  # (an xdist worker collects; the controller hands out what it collected)
        return
    import file_costs

    order = file_costs.slowest_files_first([item.nodeid for item in items], file_costs.load())
    items[:] = [items[i] for i in order]
