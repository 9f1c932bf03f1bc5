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
