"""Downloads made on a click stay served while the browser fetches them, whatever runs meanwhile.

A download button given a callable (``st.download_button(data=callable)``: the Annotate page's annotated set, the
reports, and the figures and tables of every page) makes its file when clicked. In Streamlit 1.67 the click sends
the button's generator id over the websocket; the server runs the generator
(``MediaFileManager.execute_deferred``), stores the file, referenced by no session, and answers with its URL; the
browser then fetches that URL. Every script run of every session, a fragment's run too, ends with a collection
(``MediaFileManager.remove_orphaned_files``), which

- marks a download file that no session references at the first collection and deletes it at the second: two runs
  anywhere on the server between the answer and the fetch, and the browser's download failed ("canceled");
- drops every generator that no session's latest run drew: each run draws the buttons with new generator ids, so
  a run that ended between the click and the request's arrival left the click's id unknown ("Failed to generate
  file for download").

The Annotate page follows the other annotators' marks (:func:`evalcore_app.annotate.follow`): a fragment's run every
2 s and a run of the whole page after each of their marks, so both happened there, and an open Annotate page made
them happen to every page's downloads on the server. No arrangement of one page's runs prevents it (a fragment's run
collects as a page's run does, and so do other sessions' runs); a download's data given as bytes instead would be
made at every run (the annotated set: at every mark) and no longer at the click. So the server keeps them:
:func:`keep_downloads` gives each made file, from the moment it is made, and each generator, from the collection
that first finds it drawn by no run, a reference of its own for :data:`KEEP_S` seconds (under :data:`KEPT`, a
"session" of their own in the manager's table, which the collection honours like any other); after that
Streamlit's own rules apply. A generator revoked on purpose (a button drawn disabled: ``remove_deferred``) is gone
at once, as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

KEEP_S = 60.0                      # how long a made file, or a generator no run draws any more, stays served
KEPT = "evalcore:kept-downloads"   # the kept references' own "session" in the media file manager's table

# what the keeper reads of Streamlit's MediaFileManager (1.67); without one of them it is not installed
_MANAGER_PARTS = ("_lock", "_files_by_session_and_coord", "_deferred_callables", "_file_metadata",
                  "execute_deferred", "remove_orphaned_files")
_installing = threading.Lock()
_log = logging.getLogger(__name__)


class DownloadKeeper:
    """Keeps a media file manager's made download files and undrawn generators for ``keep_s`` seconds.

    Parameters
    ----------
    manager : streamlit.runtime.media_file_manager.MediaFileManager
        The server's manager (``runtime.get_instance().media_file_mgr``).
    keep_s : float
        How long each is kept: a made file from when it is made, a generator from the first collection that finds
        it drawn by no session's run.
    clock : callable
        Seconds, monotonic (the tests pass their own).
    """

    def __init__(self, manager, keep_s: float = KEEP_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.manager, self.keep_s, self.clock = manager, keep_s, clock
        self.until: dict[str, float] = {}  # file or generator id -> when its keeping ends
        self._execute = manager.execute_deferred
        self._collect = manager.remove_orphaned_files

    def install(self) -> DownloadKeeper:
        """Put the keeper's two methods in place of the manager's (on this manager object only)."""
        self.manager.execute_deferred = self.execute_deferred
        self.manager.remove_orphaned_files = self.remove_orphaned_files
        self.manager.evalcore_keeper = self
        return self

    def execute_deferred(self, file_id: str) -> str:
        """Streamlit's: run the generator ``file_id``, store its file, give its URL; and keep the file."""
        url = self._execute(file_id)
        made = url.rsplit("/", 1)[-1].split(".", 1)[0]  # (the memory storage's URL: <endpoint>/<file id><extension>)
        with self.manager._lock:
            if made in self.manager._file_metadata:
                self.until[made] = self.clock() + self.keep_s
                self._refer()
            else:  # (another storage's URL: nothing to keep by)
                _log.warning("a download's URL %r names no stored file; it is not kept", url)
        return url

    def remove_orphaned_files(self) -> None:
        """Note the generators no run draws any more (kept from now), end the keeping that is due, then
        Streamlit's collection."""
        manager = self.manager
        with manager._lock:
            now = self.clock()
            drawn = {ref for session, refs in manager._files_by_session_and_coord.items() if session != KEPT
                     for ref in refs.values()}
            for generator in manager._deferred_callables:
                if generator not in drawn and generator not in self.until:
                    self.until[generator] = now + self.keep_s
            for ref, end in list(self.until.items()):
                if end <= now or (ref not in manager._file_metadata and ref not in manager._deferred_callables):
                    del self.until[ref]
            self._refer()
        self._collect()

    def _refer(self) -> None:
        """The manager's references under :data:`KEPT`: those of :attr:`until` (the caller holds its lock)."""
        table = self.manager._files_by_session_and_coord
        if self.until:
            table[KEPT] = {ref: ref for ref in self.until}
        else:
            table.pop(KEPT, None)


def keep_downloads() -> DownloadKeeper | None:
    """Install a :class:`DownloadKeeper` on this server's media file manager, once (app.py calls it at every run;
    after the first, one attribute lookup). None without a Streamlit runtime, or on a manager without the parts
    the keeper reads (a Streamlit after 1.67 that changed them: said once in the log)."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    manager = runtime.get_instance().media_file_mgr
    keeper = getattr(manager, "evalcore_keeper", None)
    if keeper is not None:
        return keeper or None
    with _installing:
        keeper = getattr(manager, "evalcore_keeper", None)
        if keeper is not None:
            return keeper or None
        missing = [part for part in _MANAGER_PARTS if not hasattr(manager, part)]
        if missing:
            _log.warning("Streamlit's media file manager has no %s: downloads made on a click are not kept while "
                         "the browser fetches them", ", ".join(missing))
            manager.evalcore_keeper = False
            return None
        return DownloadKeeper(manager).install()
