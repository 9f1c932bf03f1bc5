"""Downloads made on a click stay served while the browser fetches them (evalcore_app/downloads.py), on Streamlit's own
MediaFileManager with its memory storage: what Streamlit 1.67 does without the keeper (the made file deleted at the
second collection after it was made; a click's generator forgotten by the collection after a run drew the button
anew), what it does with it (both kept for KEEP_S seconds, whatever runs, then Streamlit's rules again), and what it
still does at once (a button drawn disabled revokes its generator). Outside a script run the manager's session is
"dontcare": clear_session_refs() there is the start of that session's next run, remove_orphaned_files() the end of
any run on the server. The browser test (tests/browser/test_browser_annotate.py) shows the same in Chromium.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from evalcore_app import downloads
from evalcore_app.downloads import KEEP_S, DownloadKeeper

APP = str(Path(__file__).resolve().parents[2] / "app.py")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def manager() -> MediaFileManager:
    return MediaFileManager(MemoryMediaFileStorage("/media"))


def served(mgr: MediaFileManager, url: str) -> bytes | None:
    """What the /media route would serve for ``url`` (None: "not found")."""
    found = mgr.read_file(url.rsplit("/", 1)[-1].split(".", 1)[0])
    return None if found is None else found.content


def draw(mgr: MediaFileManager, content: bytes, coordinates: str = "1.(2).3") -> str:
    """A run drawing a download button with a generator: its id."""
    return mgr.add_deferred(lambda: content, "text/csv", coordinates, file_name="annotated.csv", element_id="dl")


def test_without_the_keeper_two_collections_delete_a_file_made_on_a_click():
    mgr = manager()
    url = mgr.execute_deferred(draw(mgr, b"a,b\n1,2\n"))
    mgr.remove_orphaned_files()  # (any run's end on the server: a fragment's every 2 s on the Annotate page)
    assert served(mgr, url) == b"a,b\n1,2\n"
    mgr.remove_orphaned_files()
    assert served(mgr, url) is None  # the browser's fetch after these two: "canceled" (what the keeper is for)


def test_without_the_keeper_a_run_that_draws_the_button_anew_forgets_the_click():
    mgr = manager()
    clicked = draw(mgr, b"old")
    mgr.clear_session_refs()  # the next run of the page ...
    draw(mgr, b"new")  # ... draws the button with a new generator
    mgr.remove_orphaned_files()  # ... and ends before the click's request arrives
    with pytest.raises(MediaFileStorageError, match="not found"):
        mgr.execute_deferred(clicked)


def test_the_keeper_keeps_a_made_file_for_keep_s_whatever_runs():
    mgr, clock = manager(), Clock()
    DownloadKeeper(mgr, clock=clock).install()
    url = mgr.execute_deferred(draw(mgr, b"a,b\n1,2\n"))
    for _ in range(50):  # 100 s of a follow fragment's runs every 2 s, on a clock that does not move
        mgr.remove_orphaned_files()
    clock.now += KEEP_S - 0.5
    mgr.remove_orphaned_files()
    mgr.remove_orphaned_files()
    assert served(mgr, url) == b"a,b\n1,2\n"
    clock.now += 1.0  # past KEEP_S: Streamlit's rules again (marked, then deleted)
    mgr.remove_orphaned_files()
    assert served(mgr, url) == b"a,b\n1,2\n"
    mgr.remove_orphaned_files()
    assert served(mgr, url) is None
    assert downloads.KEPT not in mgr._files_by_session_and_coord and not mgr.evalcore_keeper.until


def test_the_keeper_keeps_a_generator_the_next_run_replaced():
    mgr, clock = manager(), Clock()
    DownloadKeeper(mgr, clock=clock).install()
    clicked = draw(mgr, b"old")
    mgr.remove_orphaned_files()
    clock.now += 600  # an idle page: its button was drawn ten minutes ago, and is still drawn
    mgr.clear_session_refs()
    current = draw(mgr, b"new")
    mgr.remove_orphaned_files()  # the run that drew it anew ends: the click's generator kept from here
    clock.now += KEEP_S - 0.5
    mgr.remove_orphaned_files()
    url = mgr.execute_deferred(clicked)  # the click's request, late: its own file
    assert served(mgr, url) == b"old"
    clock.now += 1.0
    mgr.remove_orphaned_files()
    with pytest.raises(MediaFileStorageError, match="not found"):
        mgr.execute_deferred(clicked)
    assert served(mgr, mgr.execute_deferred(current)) == b"new"  # (the drawn one: Streamlit keeps it, as ever)


def test_a_button_drawn_disabled_still_revokes_its_generator_at_once():
    mgr, clock = manager(), Clock()
    DownloadKeeper(mgr, clock=clock).install()
    clicked = draw(mgr, b"secret", coordinates="1.(4).1")
    mgr.clear_session_refs()
    mgr.remove_orphaned_files()  # (kept from here: drawn by no run)
    mgr.remove_deferred("1.(4).1", element_id="dl")  # the next run draws the button disabled
    with pytest.raises(MediaFileStorageError, match="not found"):
        mgr.execute_deferred(clicked)
    mgr.remove_orphaned_files()
    assert not mgr.evalcore_keeper.until


def test_keep_downloads_installs_once_on_the_servers_manager(monkeypatch):
    from streamlit.runtime import Runtime

    assert downloads.keep_downloads() is None  # (no runtime: python -c, a notebook)
    mgr = manager()
    monkeypatch.setattr(Runtime, "_instance", SimpleNamespace(media_file_mgr=mgr))
    keeper = downloads.keep_downloads()
    assert isinstance(keeper, DownloadKeeper) and keeper.manager is mgr
    assert downloads.keep_downloads() is keeper and mgr.execute_deferred == keeper.execute_deferred  # once
    assert keeper._collect.__self__ is mgr  # (it wraps Streamlit's own, not itself)


def test_app_py_installs_the_keeper(store_root, monkeypatch):
    installed = []
    keep = downloads.keep_downloads
    monkeypatch.setattr(downloads, "keep_downloads", lambda: installed.append(keep()) or installed[-1])
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    assert len(installed) == 1 and isinstance(installed[0], DownloadKeeper)
    assert isinstance(installed[0].manager, MediaFileManager)  # (AppTest's runtime's, for this run)
