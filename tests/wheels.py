"""The package's wheel, and a wheelhouse of the pinned runtime, for tests/test_package.py and tests/test_install.py.

The wheel is built from the clone with this environment's setuptools (pinned in requirements-test.txt; no build
isolation, so nothing is fetched). The wheelhouse holds a wheel of every package that ``evalcore[app]`` brings at
the versions of requirements.txt (``pip wheel``, which needs the package index once: it downloads the wheels there
are and builds the others from their source, rouge-score's, which PyPI has as a source archive only); it is kept in
pytest's cache folder (``.pytest_cache/d/evalcore-wheelhouse/<digest of requirements.txt>``), so that later runs
install offline (``pip install --no-index --find-links``) and at once.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build_wheel(dest: Path) -> Path:
    """``evalcore-<version>-py3-none-any.whl`` built from the clone into ``dest``."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                           str(dest), str(REPO)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"the wheel did not build:\n{done.stderr[-3000:]}"
    (wheel,) = dest.glob("evalcore-*.whl")
    return wheel


def wheelhouse(cache: Path) -> Path:
    """A folder of wheels of the pinned runtime (requirements.txt and what it brings), built once per version of
    requirements.txt under ``cache``; older ones there are removed."""
    digest = hashlib.sha256((REPO / "requirements.txt").read_bytes() + sys.version.encode()).hexdigest()[:16]
    folder = cache / digest
    if (folder / "complete").exists():
        return folder
    for old in cache.iterdir():  # (folders of this cache only)
        if old.is_dir() and old.parent == cache and old.name != digest:
            shutil.rmtree(old)
    partial = cache / f"{digest}.partial"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--prefer-binary", "-w", str(partial),
                           "-r", str(REPO / "requirements.txt")], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"the wheelhouse could not be downloaded:\n{done.stderr[-3000:]}"
    if folder.exists():
        shutil.rmtree(folder)
    partial.rename(folder)
    (folder / "complete").write_text("")
    return folder
