"""Server-side store of uploaded data sets, addressed by content hash, with a size quota.

A data set uploaded to the dashboard is kept as the exact bytes of the file, so
a link (``...?dataset=<id>&...``) reopens the same data for anyone who can reach
the server, also after a restart: the store is nothing but files.

Id scheme
---------
The id of a data set is the SHA-256 of its file bytes, written as 64 lowercase
hexadecimal characters (256 bits): the same bytes always get the same id, so an
upload is stored once however often it is repeated, an id cannot be guessed
without having the file, and uploading a removed file again makes its old links
work again. Every public method checks an id with a full match of
``[0-9a-f]{64}`` *before* any path is built, so a malformed id (``../..``, an
empty string, a NUL byte, uppercase, ...) never reaches the file system; in
addition, the entry path is checked to resolve to a place inside the root.

Layout on disk
--------------
::

    <root>/                      EVALCORE_STORE, else <clone>/data/store, else ~/.local/share/evalcore/store
        3f/                      first two characters of the id
            3f2a...e1/           the id
                data.bin         the file bytes, exactly as uploaded
                meta.json        {"id", "name", "size", "uploaded", "format", "version"};
                                 its modification time is when the data set was last opened
        .evicted/3f2a...e1       {"id", "name", "size", "evicted"}: a data set removed to make room
        .quarantine/3f2a...e1.<time>.<random>/   an entry set aside because it was damaged
        .trash/                  entries being removed (renamed here first, so they vanish at once)
        .reservations/<bytes>.<id>.<random>   room promised to a write in progress (empty, flock-held)
        .leases/<id>.<session>   a data set open in a session (empty; its mtime is the last renewal)
        annotations.sqlite3      the annotation database (evalcore.annotations), with -wal and -shm

``name`` is the original file name (readers need it: its extension selects the
format), ``size`` the number of bytes, ``uploaded`` the time of the first upload
(UTC, ISO 8601) and ``format`` a hint guessed from the extension by the readers' own table
(:func:`evalcore.io.formats.format_from_name`: ``text``, ``parquet``, ``xlsx``, ``rda``, ``rds`` or ``null``).
The root directory is created on the first write; reading never creates anything.

Lifecycle
---------
* :meth:`DatasetStore.put` stores bytes the caller has already read and
  validated (the dashboard reads an upload first and stores it only if it
  reads, so a refused file leaves nothing on disk).
* Opening a data set (:meth:`~DatasetStore.get`, :meth:`~DatasetStore.open`,
  storing the same bytes again) sets the modification time of its ``meta.json``
  to now: one ``utime`` call, atomic, no extra file and no lock. Looking without
  opening (:meth:`~DatasetStore.peek`: the same metadata, checked the same way;
  :meth:`~DatasetStore.exists`, :meth:`~DatasetStore.ids`, :meth:`~DatasetStore.usage`)
  leaves it as it was, so a scan that looks for an entry by its name does not make
  every entry it passes recent.
* The store holds at most ``quota`` bytes (``EVALCORE_STORE_QUOTA``, default
  5 GB) at every moment, counting ``data.bin`` and ``meta.json`` of every data set,
  everything in an incomplete entry, the copies set aside, ``.trash`` and the
  annotation database (``annotations.sqlite3``, ``-wal``, ``-shm``; not the notes in
  ``.evicted``, a hundred bytes each, nor the empty files of reservations and
  leases). Every write first reserves its room (:meth:`DatasetStore.reserve`):
  the least recently opened data sets are removed until it fits beside what is
  stored and what other writes in progress have reserved (damaged copies set aside
  and leftovers of interrupted uploads go first). Never removed: a data set open in
  a session (:meth:`~DatasetStore.pin`, a lease renewed while the session lives), an
  upload in progress, the annotation database. If what fills the store is being
  written, the write waits for it; if it is in use or annotations, the write is
  refused with a message (:class:`StoreFullError`); a data set larger than the whole
  quota is refused before anything is touched. Each removal first leaves a small note
  in ``.evicted/``, so a link to it says that it was removed, when, and why; the
  note goes when the same bytes are stored again. Finding what to remove costs
  one scan of the store: two ``lstat`` calls per data set.
* :meth:`~DatasetStore.open` is the one way to the bytes: it checks their length
  and their SHA-256 against the id. A damaged or truncated copy (or damaged
  metadata) is moved to ``.quarantine/`` and refused with a message; it is never
  returned as data. Reading and hashing take about 0.3 s per 100 MB, so callers
  keep the result by id (the dashboard reads a data set once per cache entry).
* Removal (:meth:`~DatasetStore.delete`, eviction, quarantine, clean-up) only
  ever touches a directory the store made: its path is built from a validated id
  or a name the store gave, its parent is checked to resolve to the store folder,
  and it is removed without following symbolic links (``O_NOFOLLOW`` and
  directory file descriptors, as :func:`shutil.rmtree` does on Linux): a link
  inside the store is removed as a link, never what it points to.

Messages
--------
Every error is an :class:`~evalcore.errors.EvalcoreError` whose message says
what happened and what to do, in the dashboard's words, and never shows a path
of the server (an ``OSError`` is reduced to its ``strerror``, which names no
file). Disk full, a file larger than the file system allows or than the quota,
and a folder the server cannot write are :class:`StoreWriteError`; nothing of
the upload is kept.

Atomicity and concurrency
-------------------------
Each file is written to a temporary file (``.tmp-*``) in the entry directory,
flushed and fsynced, then moved into place with :func:`os.replace`, so a reader
sees either no file or a complete one. ``data.bin`` is written before
``meta.json``, and an entry counts as present only once ``meta.json`` exists.
A write that fails or is stopped in its process (an ``OSError``, or a
``BaseException`` such as a browser session's run told to stop, or ^C) removes
its temporary files and the entry it began, unless another write of the same
bytes holds a reservation for it, and gives back its reservation. Only a process
that dies mid-write leaves more: at most an entry without ``meta.json`` (invisible,
repaired by the next upload of the same bytes, removed as a leftover as soon as
no write holds a reservation for it) and a stale temporary file. Concurrent
uploads of the same bytes need no lock to write: files of the same id have the
same bytes, so whichever replace lands last leaves the same content, and
``meta.json`` is created without replacing an existing one (hard link), so the
first upload's name and time are kept. Removing an entry first renames it into
``.trash/`` (atomic: readers see the whole entry or none; a reader that has the
file open keeps reading it), and an upload whose entry is renamed away while it
writes starts again (up to four times).

The quota holds while uploads run: the room of every write is reserved before it
starts, under a lock (``flock`` on the store folder, threads and processes alike) held for
a scan of the store and any removals, never for the write itself. A reservation is
an empty file its writer holds a ``flock`` on; the lock of a writer that dies goes
with it, so its reservation is dropped at the next check (no stale reservation
blocks the store). The sum of what is stored and what is reserved never exceeds the
quota, and a write never writes more than it reserved, so the bytes on disk never
exceed it either (bench: 8 concurrent uploads of 475 kB into a 2 MB store peak at
the quota or below, where they reached 3.8 MB before reservations).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import secrets
import stat
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePath
from typing import Callable, Iterator, Mapping

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: one process per store (a lock within the process)
    fcntl = None

from .formats import format_from_name
from ..errors import EvalcoreError, ParameterError

__all__ = [
    "DATA_FILE",
    "DEFAULT_QUOTA",
    "META_FILE",
    "QUOTA_ENV_VAR",
    "DamagedDatasetError",
    "DatasetStore",
    "DatasetTooLargeError",
    "EvictedDatasetError",
    "ANNOTATION_FILES",
    "DEFAULT_LEASE_SECONDS",
    "StoreFullError",
    "InvalidDatasetIdError",
    "StoreError",
    "StoreReadError",
    "StoreUsage",
    "StoreWriteError",
    "StoredDataset",
    "UnknownDatasetError",
    "dataset_id",
    "default_quota",
    "default_root",
    "format_size",
    "parse_size",
    "user_data_dir",
    "validate_id",
]

ENV_VAR = "EVALCORE_STORE"
QUOTA_ENV_VAR = "EVALCORE_STORE_QUOTA"
DEFAULT_QUOTA = 5 * 10**9  # 5 GB
DATA_FILE = "data.bin"
META_FILE = "meta.json"
EVICTED_DIR = ".evicted"
QUARANTINE_DIR = ".quarantine"
TRASH_DIR = ".trash"
RESERVATIONS_DIR = ".reservations"
LEASES_DIR = ".leases"
#: The annotation database beside the data sets (evalcore.annotations.DB_FILE and SQLite's companions): counted
#: in the quota, never evicted.
ANNOTATION_FILES = ("annotations.sqlite3", "annotations.sqlite3-wal", "annotations.sqlite3-shm",
                    "annotations.sqlite3-journal")
DEFAULT_LEASE_SECONDS = 15 * 60  # a pin not refreshed for this long has expired (its server process is gone)
_RESERVE_WAIT_SECONDS = 60.0  # a write waits this long at most for writes in progress to finish and make room
_RESERVE_POLL_SECONDS = 0.05
_HOLDER = re.compile(r"[A-Za-z0-9_-]{1,80}")
_RESERVATION = re.compile(r"(\d{1,20})\.([0-9a-f]{64}|-)\.[0-9a-f]{16}")
_TMP_PREFIX = ".tmp-"
_STALE_SECONDS = 24 * 3600
_ATTEMPTS = 4  # writes of an entry that another process removes (to make room) while they run
_CHUNK = 1 << 20
_ID = re.compile(r"[0-9a-f]{64}")
_PREFIX = re.compile(r"[0-9a-f]{2}")
_UNITS = {
    "": 1, "b": 1,
    "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9, "t": 10**12, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_FD_REMOVAL = {os.open, os.unlink, os.rmdir} <= os.supports_dir_fd and os.scandir in os.supports_fd


# -- errors --------------------------------------------------------------------------


class StoreError(EvalcoreError):
    """A problem with the data set store (its messages never show a path of the server)."""


class InvalidDatasetIdError(StoreError):
    """A data set id is malformed: not exactly 64 lowercase hexadecimal characters."""


class UnknownDatasetError(StoreError):
    """A well-formed data set id names nothing stored on this server."""


class EvictedDatasetError(UnknownDatasetError):
    """The data set was stored here and removed to keep the store within its quota."""


class DamagedDatasetError(UnknownDatasetError):
    """The stored copy no longer matches its id; it was set aside and is not shown."""


class StoreReadError(StoreError):
    """The stored copy exists but the server could not read it (e.g. an I/O error)."""


class StoreWriteError(StoreError):
    """A data set could not be stored (disk full, folder not writable, ...); nothing of it was kept."""


class DatasetTooLargeError(StoreWriteError):
    """A data set is larger than the store's whole quota (or than the file system allows)."""


class StoreFullError(StoreWriteError):
    """No room within the quota: what could be removed is in use (open in a session, being written) or is
    annotations, which are never removed. Nothing was written."""


# -- values --------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredDataset:
    """A stored data set's metadata. Its bytes come only through the checked :meth:`DatasetStore.open`.

    Attributes
    ----------
    id : str
        SHA-256 of the bytes (64 lowercase hex characters).
    name : str
        The file name given at the first upload.
    size : int
        Number of bytes.
    uploaded : datetime
        Time of the first upload (UTC).
    format : str or None
        Format guessed from the name's extension.
    store : DatasetStore
        The store it comes from (:meth:`read_bytes` reads through it).
    """

    id: str
    name: str
    size: int
    uploaded: datetime
    format: str | None
    store: DatasetStore = field(repr=False, compare=False)

    def read_bytes(self) -> bytes:
        """The file bytes as uploaded, checked against the id (see :meth:`DatasetStore.open`)."""
        return self.store.open(self.id)[1]


@dataclass(frozen=True)
class StoreUsage:
    """What a store holds: ``datasets`` complete entries of ``dataset_bytes`` bytes; ``total_bytes`` adds
    the annotation database (``annotation_bytes``: ``annotations.sqlite3`` and its ``-wal``, ``-shm``),
    damaged copies set aside and leftovers of interrupted uploads, which count against ``quota`` too.
    ``reserved_bytes`` is promised to writes in progress (see :meth:`DatasetStore.reserve`)."""

    datasets: int
    dataset_bytes: int
    total_bytes: int
    quota: int
    annotation_bytes: int = 0
    reserved_bytes: int = 0


@dataclass(frozen=True)
class _Item:
    """Something in the store that takes room: an entry, a set-aside copy or a leftover."""

    parent: Path          # the directory it lives in (a prefix, .quarantine or .trash)
    name: str             # its name there
    size: int             # bytes of its files
    opened_ns: int        # last opened (entries) or last modified (others)
    removable_first: bool  # damaged copies and leftovers go before any data set
    dataset_id: str | None  # for complete entries
    annotations: bool = False  # the annotation database: counted, never removed

    def order(self) -> tuple:
        return (not self.removable_first, self.opened_ns, self.name)


# -- small functions -----------------------------------------------------------------


def default_root() -> Path:
    """Where the store lives: ``$EVALCORE_STORE`` if set and not empty; else, when evalcore runs from a clone (the
    package beside its ``pyproject.toml``), the clone's ``data/store``; else the per-user data folder
    (:func:`user_data_dir`, e.g. ``~/.local/share/evalcore/store``)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    source = Path(__file__).resolve().parents[2]
    if (source / "pyproject.toml").is_file() and (source / "evalcore" / "io" / "store.py").is_file():
        return source / "data" / "store"
    return user_data_dir() / "store"


def user_data_dir(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """evalcore's folder of the user's data, as each system places it (and as platformdirs does):
    ``$XDG_DATA_HOME/evalcore`` (default ``~/.local/share/evalcore``) on Linux and other Unix systems,
    ``~/Library/Application Support/evalcore`` on macOS, ``%LOCALAPPDATA%\\evalcore`` on Windows."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path(environ.get("HOME") or Path.home())
    if platform == "win32":
        return Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / "evalcore"
    if platform == "darwin":
        return home / "Library" / "Application Support" / "evalcore"
    xdg = environ.get("XDG_DATA_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share") / "evalcore"


def parse_size(text: str | int, *, parameter: str = "size") -> int:
    """A number of bytes from ``5GB``, ``500 MB``, ``1.5GiB``, ``250k`` or ``1000000``.

    Units are decimal (``k``, ``M``, ``G``, ``T``, with or without ``B``: 10^3, 10^6, ...)
    or binary (``KiB``, ``MiB``, ``GiB``, ``TiB``: 2^10, 2^20, ...), in any letter case.

    Raises
    ------
    ParameterError
        Not a positive size; the message names ``parameter`` and the value.
    """
    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise ParameterError(f"`{parameter}` must be a size such as 5GB or 500MB; got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        match = _SIZE.fullmatch(text)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise ParameterError(
                f"`{parameter}` must be a size such as 5GB, 500MB or 1.5GiB (a number and optionally a unit: "
                f"B, kB, MB, GB, TB, KiB, MiB, GiB, TiB); got {text!r}"
            )
        value = int(float(match.group(1)) * _UNITS[unit])
    if value <= 0:
        raise ParameterError(f"`{parameter}` must be more than 0 bytes; got {text!r}")
    return value


def default_quota() -> int:
    """``$EVALCORE_STORE_QUOTA`` (e.g. ``20GB``) if set and not empty, else 5 GB."""
    env = os.environ.get(QUOTA_ENV_VAR)
    return parse_size(env, parameter=QUOTA_ENV_VAR) if env else DEFAULT_QUOTA


def format_size(n: int) -> str:
    """``n`` bytes for people: ``812 bytes``, ``3.4 kB``, ``12.3 MB``, ``5 GB`` (decimal units)."""
    if n < 1000:
        return f"{n} byte" + ("" if n == 1 else "s")
    for unit, scale in (("kB", 10**3), ("MB", 10**6), ("GB", 10**9), ("TB", 10**12)):
        value = round(n / scale, 1)
        if value < 1000 or unit == "TB":
            return f"{value:.1f} {unit}".replace(".0 ", " ")
    raise AssertionError("unreachable")


def dataset_id(data: bytes) -> str:
    """The id the store gives these bytes: their SHA-256 as 64 lowercase hex characters."""
    return hashlib.sha256(data).hexdigest()


def validate_id(dataset_id: object) -> str:
    """Return ``dataset_id`` if it is exactly 64 lowercase hex characters, else raise
    :class:`InvalidDatasetIdError` naming the problem. Touches no file."""
    if isinstance(dataset_id, str) and _ID.fullmatch(dataset_id):
        return dataset_id
    raise InvalidDatasetIdError(f"{_show(dataset_id)} is not a valid data set id: {_problem(dataset_id)}.")


def _problem(value: object) -> str:
    want = "an id is exactly 64 lowercase hexadecimal characters (0-9, a-f), as in the link the dashboard copies"
    if not isinstance(value, str):
        return f"it is a {type(value).__name__}, not text; {want}"
    if not value:
        return f"it is empty; {want}"
    problems = []
    bad = sorted({c for c in value if c not in "0123456789abcdef"})
    upper = [c for c in bad if c in "ABCDEF"]
    other = [c for c in bad if c not in "ABCDEF"]
    if upper:
        problems.append("it contains uppercase letters (ids are lowercase)")
    if other:
        shown = ", ".join(repr(c) for c in other[:5]) + (", ..." if len(other) > 5 else "")
        problems.append(f"it contains characters that are not hexadecimal digits ({shown})")
    if len(value) != 64:
        problems.append(f"it has {len(value)} characters instead of 64")
    return "; ".join(problems) + f"; {want}"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _short(dataset_id: str) -> str:
    return dataset_id[:12] + "…"


def _upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def _check_holder(holder: object) -> str:
    """A pin's holder (a session id): 1 to 80 letters, digits, ``-`` or ``_``, so it is a plain file name."""
    if isinstance(holder, str) and _HOLDER.fullmatch(holder):
        return holder
    raise ParameterError(f"`holder` must be 1 to 80 letters, digits, '-' or '_' (e.g. a session id); got "
                         f"{_show(holder)}")


_PROCESS_LOCK = threading.Lock()  # the store's lock where there is no flock (not POSIX)


def _now_ns() -> int:
    """The clock of "last opened" (a function, so tests can drive it)."""
    return time.time_ns()


def _utc(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, timezone.utc).isoformat(timespec="seconds")


def _day(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).strftime("%Y-%m-%d")
    except (TypeError, ValueError):
        return "an unknown date"


def _file_matches(path: Path, dataset_id: str, size: int) -> bool:
    """True if ``path`` is a regular file (not a link) of ``size`` bytes whose SHA-256 is ``dataset_id``."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_size != size:
                return False
            digest = hashlib.sha256()
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
            return digest.hexdigest() == dataset_id
        except OSError:
            return False


def _fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort: not every platform can)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_temp(directory: Path, data: bytes) -> Path:
    """Write ``data`` to a new temporary file in ``directory``, flushed and fsynced; removed again on failure."""
    with tempfile.NamedTemporaryFile(delete=False, dir=directory, prefix=_TMP_PREFIX, suffix=".part") as f:
        tmp = Path(f.name)
        try:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        except BaseException:
            f.close()
            tmp.unlink(missing_ok=True)
            raise
    return tmp


def _write_new(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` atomically, replacing what is there."""
    tmp = _write_temp(path.parent, data)
    try:
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _release(token: tuple[Path, int]) -> None:
    """End a reservation ((path, fd) of :meth:`DatasetStore.reserve`): its file removed, its lock released. The lock
    goes even if the removal is stopped: a file nobody holds a lock on is no reservation, and the next check drops
    it."""
    path, fd = token
    try:
        os.unlink(path)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove_at(parent_fd: int, name: str) -> None:
    """Remove ``name`` in the directory ``parent_fd``: a directory with everything below it, or else the
    name itself (a symbolic link is removed as a link, never followed). Gone already is fine."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=parent_fd)
    except FileNotFoundError:
        return
    except OSError as e:
        if e.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        try:
            os.unlink(name, dir_fd=parent_fd)  # a file or a link: the name only
        except FileNotFoundError:
            pass
        return
    try:
        for child in list(os.scandir(fd)):
            if child.is_dir(follow_symlinks=False):
                _remove_at(fd, child.name)
            else:
                try:
                    os.unlink(child.name, dir_fd=fd)
                except FileNotFoundError:
                    pass
    finally:
        os.close(fd)
    try:
        os.rmdir(name, dir_fd=parent_fd)
    except FileNotFoundError:
        pass


def _remove_by_path(path: Path) -> None:
    """:func:`_remove_at` for platforms without directory file descriptors (checks with ``lstat``)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        path.unlink(missing_ok=True)
        return
    for child in list(path.iterdir()):
        _remove_by_path(child)
    try:
        path.rmdir()
    except FileNotFoundError:
        pass


# -- messages for failed writes ------------------------------------------------------


def _disk_full(size: int, quota: int, reason: str) -> str:
    return (f"The server's disk is full: the data set ({format_size(size)}) could not be stored, and nothing of "
            "it was kept. Try a smaller file, or ask whoever runs this server to free disk space or to lower "
            f"the store's size limit (now {format_size(quota)}).")


def _too_large_for_disk(size: int, quota: int, reason: str) -> str:
    return (f"The file ({format_size(size)}) is larger than the server's file system allows; it was not stored. "
            "Use a smaller file (fewer rows, or only the columns you need).")


def _not_writable(size: int, quota: int, reason: str) -> str:
    return (f"The server cannot write to the folder where it keeps uploaded data sets ({reason}); the data set "
            "was not stored. Ask whoever runs this server to make the data set store writable.")


def _write_failed(size: int, quota: int, reason: str) -> str:
    return (f"The server could not store the data set ({reason}); nothing of it was kept. Try again; if it keeps "
            "failing, ask whoever runs this server to check the data set store.")


_WRITE_MESSAGES: dict[int, Callable[[int, int, str], str]] = {
    errno.ENOSPC: _disk_full,
    errno.EDQUOT: _disk_full,
    errno.EFBIG: _too_large_for_disk,
    **dict.fromkeys((errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EEXIST, errno.EISDIR),
                    _not_writable),
}
_REASONS = {  # in place of strerror where that would puzzle (a store path with a file in the way)
    errno.ENOTDIR: "its path leads through a file, not a folder",
    errno.EEXIST: "its path is a file, not a folder",
    errno.EISDIR: "a folder is where a file should be",
}


def _write_error(e: OSError, size: int, quota: int) -> StoreWriteError:
    """The :class:`StoreWriteError` for an ``OSError`` met while storing ``size`` bytes (no path in it)."""
    reason = _REASONS.get(e.errno) or e.strerror or type(e).__name__
    text = _WRITE_MESSAGES.get(e.errno, _write_failed)(size, quota, reason)
    return (DatasetTooLargeError if e.errno == errno.EFBIG else StoreWriteError)(text)


# -- the store -----------------------------------------------------------------------


class DatasetStore:
    """Uploaded data sets on disk, addressed by the SHA-256 of their bytes, within a size quota.

    Parameters
    ----------
    root : str or path-like, optional
        The store folder; default :func:`default_root` (``$EVALCORE_STORE``, else
        a clone's ``data/store``, else ``~/.local/share/evalcore/store``). Created on the first :meth:`put`.
    quota : int or str, optional
        Most bytes the store keeps (``5GB``, ``500MB``, or a number of bytes); default
        :func:`default_quota` (``$EVALCORE_STORE_QUOTA``, else 5 GB).
    lease_seconds : float, optional
        How long a :meth:`pin` lasts without being renewed (default 15 minutes).

    Instances hold no state besides the root and the quota, so any number of them
    (in threads or processes) may share one root.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, quota: int | str | None = None, *,
                 lease_seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.root = Path(root).expanduser() if root is not None else default_root()
        self.quota = default_quota() if quota is None else parse_size(quota, parameter="quota")
        self.lease_seconds = float(lease_seconds)

    def __repr__(self) -> str:
        return f"DatasetStore({str(self.root)!r}, quota={self.quota})"

    # -- paths -------------------------------------------------------------

    def _entry(self, dataset_id: str) -> Path:
        """Directory of a validated id, checked to lie inside the root."""
        dataset_id = validate_id(dataset_id)  # never build a path from anything else
        root = self.root.resolve()
        entry = (root / dataset_id[:2] / dataset_id).resolve()
        if entry.parent.parent != root or entry.name != dataset_id:
            raise InvalidDatasetIdError(
                f"data set {_short(dataset_id)} leads outside the data set store, so it is not used: the store's "
                "folders must not be links to other places. Ask whoever runs this server to check the store."
            )
        return entry

    def _own_dir(self, name: str, *, create: bool = False) -> Path:
        """One of the store's own folders (``.trash``, ``.quarantine``, ``.evicted``), created if asked.

        Raises ``OSError`` (ENOTDIR) if it is anything but a real folder, e.g. a link to
        another place, so nothing is ever moved or written through it.
        """
        path = self.root.resolve() / name
        if create:
            try:
                path.mkdir()
            except FileExistsError:
                pass
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            raise OSError(errno.ENOTDIR, "not a folder of the store")
        return path

    # -- removal: only ever inside the root, never following links ----------

    def _inside(self, parent: Path, name: str) -> Path:
        """``parent`` resolved, checked to be a folder directly in the root (a prefix, ``.trash``, ...),
        and ``name`` checked to be a plain name in it; else :class:`StoreError`."""
        root = self.root.resolve()
        real_parent = Path(os.path.realpath(parent))
        if real_parent.parent != root or name in ("", ".", "..") or "/" in name or os.sep in name:
            raise StoreError("Refused to remove something outside the data set store; ask whoever runs this "
                             "server to check the store folder.")
        return real_parent

    def _remove(self, parent: Path, name: str) -> None:
        """Remove ``parent / name`` (a directory the store made) and everything below it.

        ``parent`` must resolve to a folder directly in the root and ``name`` be a plain
        name (:meth:`_inside`); nothing is followed through a symbolic link.
        """
        real_parent = self._inside(parent, name)
        if _FD_REMOVAL:
            try:
                parent_fd = os.open(real_parent, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
            except FileNotFoundError:
                return
            try:
                _remove_at(parent_fd, name)
            finally:
                os.close(parent_fd)
        else:  # pragma: no cover - platforms without dir_fd
            _remove_by_path(real_parent / name)

    def _discard(self, parent: Path, name: str) -> bool:
        """Make ``parent / name`` vanish at once (rename into ``.trash``), then remove it.

        Returns False if it was gone already. If it cannot be renamed (e.g. no room
        for ``.trash`` on a full disk), it is removed where it is.
        """
        parent = self._inside(parent, name)
        target = f"{name}.{os.getpid()}.{secrets.token_hex(4)}"
        try:
            trash = self._own_dir(TRASH_DIR, create=True)
            os.rename(parent / name, trash / target)
        except FileNotFoundError:
            if not os.path.lexists(parent / name):
                return False
            self._remove(parent, name)
            return True
        except OSError:
            self._remove(parent, name)
            return True
        self._remove(trash, target)
        return True

    def _set_aside(self, dataset_id: str) -> None:
        """Move a damaged entry to ``.quarantine`` (a concurrent reader may have done it already)."""
        entry = self._entry(dataset_id)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        try:
            quarantine = self._own_dir(QUARANTINE_DIR, create=True)
            os.rename(entry, quarantine / f"{dataset_id}.{stamp}.{secrets.token_hex(4)}")
        except FileNotFoundError:
            pass
        except OSError:  # cannot move it: remove it, so it is never shown
            self._remove(entry.parent, entry.name)
        try:
            entry.parent.rmdir()  # only if no other entry shares the prefix
        except OSError:
            pass

    # -- writing -----------------------------------------------------------

    def put(self, data: bytes, name: str, *, holder: str | None = None) -> str:
        """Store ``data`` (the bytes of a file called ``name``) and return its id.

        Storing the same bytes again returns the same id, keeps the stored copy
        (and the first upload's name and time) and marks it opened; a damaged or
        missing copy is rewritten. A new data set first reserves its room within the
        quota (:meth:`reserve`), removing the least recently opened data sets that no
        session uses (see the module docstring). With ``holder`` (a session), the data
        set is pinned for it (:meth:`pin`) before anything else can evict it.

        Raises
        ------
        DatasetTooLargeError
            ``data`` is larger than the whole quota (nothing is touched), or than the file system allows.
        StoreFullError
            No room: the data sets that fill the store are open in sessions (or being written), or it is
            annotations. Nothing was written.
        StoreWriteError
            Disk full, a folder the server cannot write, or another error of the file system. Nothing of
            ``data`` is left in the store.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        data = bytes(data) if not isinstance(data, bytes) else data
        dataset_id = hashlib.sha256(data).hexdigest()
        if len(data) > self.quota:
            raise DatasetTooLargeError(
                f"The file is {format_size(len(data))}, more than this server keeps for all uploaded data sets "
                f"together ({format_size(self.quota)}); it was not stored. Use a smaller file (fewer rows, or "
                "only the columns you need), or ask whoever runs this server to raise the store's size limit."
            )
        entry = self._entry(dataset_id)
        if holder is not None:
            _check_holder(holder)
        if (entry / META_FILE).exists() and _file_matches(entry / DATA_FILE, dataset_id, len(data)):
            self._remove_stale_temps(entry)
            self._touch(entry)  # stored already: nothing to write
        else:
            meta = self._meta_text(dataset_id, name, len(data))
            writing = False
            try:
                # room for the data, the description and its temporary copy (linked into place)
                with self.reserve(len(data) + 2 * len(meta), what=f"the data set ({format_size(len(data))})",
                                  dataset=dataset_id):
                    writing = True
                    for attempt in range(_ATTEMPTS):
                        try:
                            self._write_entry(entry, data, meta)
                            break
                        except FileNotFoundError:  # the entry (or its prefix folder) was removed while we wrote
                            if attempt == _ATTEMPTS - 1:
                                raise
                    if holder is not None:
                        self.pin(dataset_id, holder)  # before the reservation ends: no moment to evict it in
            except BaseException as e:  # an error of the disk, or the run stopped mid-write (its session's stop, ^C)
                if writing:
                    self._drop_partial(entry)  # (once the reservation has ended: another write's keeps the entry)
                if isinstance(e, OSError):
                    raise _write_error(e, len(data), self.quota) from None
                raise
        if holder is not None:
            self.pin(dataset_id, holder)
        self._forget_eviction(dataset_id)
        return dataset_id

    @staticmethod
    def _meta_text(dataset_id: str, name: str, size: int) -> bytes:
        meta = {
            "id": dataset_id,
            "name": name,
            "size": size,
            "uploaded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "format": format_from_name(name),  # the one table of formats (evalcore.io.formats)
            "version": 1,
        }
        return (json.dumps(meta, ensure_ascii=False, indent=1) + "\n").encode("utf-8")

    def _write_entry(self, entry: Path, data: bytes, meta_text: bytes) -> None:
        """Write an entry's files (within a reservation of their room)."""
        dataset_id = entry.name
        data_path, meta_path = entry / DATA_FILE, entry / META_FILE
        self._remove_stale_temps(entry)
        if meta_path.exists() and _file_matches(data_path, dataset_id, len(data)):
            self._touch(entry)
            return
        entry.mkdir(parents=True, exist_ok=True)
        if not _file_matches(data_path, dataset_id, len(data)):
            tmp = _write_temp(entry, data)
            try:
                os.replace(tmp, data_path)
            except OSError:
                # e.g. Windows, where a file another process has open cannot be replaced:
                # fine if that file already holds these bytes.
                if not _file_matches(data_path, dataset_id, len(data)):
                    raise
            finally:
                tmp.unlink(missing_ok=True)  # (moved into place, or not: whatever stopped the write, it goes)
            _fsync_dir(entry)

        if not meta_path.exists():
            tmp = _write_temp(entry, meta_text)
            try:
                try:
                    os.link(tmp, meta_path)  # create, never replace: the first upload's metadata wins
                except FileExistsError:
                    pass
                except OSError as e:  # no hard links on this file system
                    if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES):
                        raise
                    os.replace(tmp, meta_path)
            finally:
                tmp.unlink(missing_ok=True)
            _fsync_dir(entry)
        self._touch(entry)

    def _drop_partial(self, entry: Path) -> None:
        """After a failed or stopped write, once its reservation has ended: remove the entry unless it is complete
        (``meta.json`` present) or another write of the same bytes holds a reservation for it (that write completes
        it), and an empty prefix folder. Best effort: the write's own error is what the caller reports."""
        try:
            if entry.name in {d for _, d in self._reservations(drop_dead=False)}:
                return
            if os.path.lexists(entry) and not (entry / META_FILE).exists():
                self._discard(entry.parent, entry.name)
            entry.parent.rmdir()  # only if no other entry shares the prefix
        except (OSError, StoreError):
            pass

    @staticmethod
    def _remove_stale_temps(entry: Path) -> None:
        """Remove temporary files left by uploads interrupted more than a day ago."""
        cutoff = time.time() - _STALE_SECONDS
        try:
            for path in entry.glob(_TMP_PREFIX + "*"):
                try:
                    if path.lstat().st_mtime < cutoff:
                        path.unlink()
                except OSError:
                    pass
        except OSError:
            pass

    @staticmethod
    def _touch(entry: Path) -> None:
        """Mark an entry opened now (the mtime of its meta.json). Best effort: a read-only store still reads."""
        now = _now_ns()
        try:
            os.utime(entry / META_FILE, ns=(now, now), follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass

    def delete(self, dataset_id: str) -> bool:
        """Remove a data set; True if it was stored. It disappears at once (renamed into ``.trash``)."""
        entry = self._entry(dataset_id)
        present = (entry / META_FILE).exists()
        self._discard(entry.parent, entry.name)
        try:
            entry.parent.rmdir()  # only if no other entry shares the prefix
        except OSError:
            pass
        return present

    # -- quota -------------------------------------------------------------

    def _scan(self) -> list[_Item]:
        """Everything that takes room in the store, read with ``lstat`` (no link is followed)."""
        root = self.root.resolve()
        items: list[_Item] = []
        cutoff = time.time_ns() - _STALE_SECONDS * 10**9
        try:
            tops = list(os.scandir(root))
        except OSError:  # no root yet
            return items
        for top in tops:
            if top.name in ANNOTATION_FILES:  # the annotation database: counted, never removed
                try:
                    info = top.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    items.append(_Item(root, top.name, info.st_size, info.st_mtime_ns, False, None, True))
                continue
            if not top.is_dir(follow_symlinks=False):
                continue
            if _PREFIX.fullmatch(top.name):
                prefix = Path(top.path)
                for entry in _scandir(top.path):
                    if _ID.fullmatch(entry.name) and entry.name[:2] == top.name \
                            and entry.is_dir(follow_symlinks=False):
                        item = _entry_item(prefix, entry, cutoff)
                        if item is not None:
                            items.append(item)
            elif top.name in (QUARANTINE_DIR, TRASH_DIR):
                for kept in _scandir(top.path):
                    size, newest = _sizes(kept.path) if kept.is_dir(follow_symlinks=False) else (0, 0)
                    items.append(_Item(Path(top.path), kept.name, size, newest, True, None))
        return items

    def usage(self) -> StoreUsage:
        """How many data sets and bytes the store holds (the annotation database included), and its quota."""
        items = self._scan()
        datasets = [i for i in items if i.dataset_id is not None]
        return StoreUsage(len(datasets), sum(i.size for i in datasets), sum(i.size for i in items), self.quota,
                          annotation_bytes=sum(i.size for i in items if i.annotations),
                          reserved_bytes=sum(r[0] for r in self._reservations(drop_dead=False)))

    def _make_room(self, needed: int, *, keep: str | None, reserved: int, writing: set[str],
                   pinned: set[str]) -> tuple[int, list[str]]:
        """Remove what may go, least recently opened first (damaged copies and leftovers before any data set),
        until ``needed`` more bytes fit within the quota beside ``reserved`` bytes promised to writes in
        progress. Never removed: ``keep``, data sets in ``pinned`` (open in a session), entries being written
        (``writing``: an incomplete entry of an upload that holds a reservation), the annotation database.
        Call with the store's lock held. Returns the bytes the store then holds and the ids of the data sets
        removed.

        Something that cannot be removed is passed over (another process may be removing it); if the
        room is still missing at the end, the first such error is raised.
        """
        items = self._scan()
        total = sum(i.size for i in items)
        evicted: list[str] = []
        failure: OSError | None = None
        removable = [i for i in items if _may_remove(i, keep, writing, pinned)]
        if total - sum(i.size for i in removable) + reserved + needed > self.quota:
            return total, evicted  # it cannot fit: remove nothing
        for item in sorted(removable, key=_Item.order):
            if total + reserved + needed <= self.quota:
                break
            try:
                if item.dataset_id is not None:
                    self._note_eviction(item.dataset_id, self._eviction_note(item))  # first: links say so
                    if self._discard(item.parent, item.name):
                        evicted.append(item.dataset_id)
                    try:
                        item.parent.rmdir()  # only if no other entry shares the prefix
                    except OSError:
                        pass
                else:
                    self._remove(item.parent, item.name)
            except OSError as e:
                failure = failure or e
                continue
            total -= item.size
        if failure is not None and total + reserved + needed > self.quota:
            raise failure
        return total, evicted

    def _stuck_bytes(self, keep: str | None, pinned: set[str]) -> int:
        """Bytes that no eviction can free: the annotation database and the data sets open in a session."""
        return sum(i.size for i in self._scan()
                   if i.annotations or (i.dataset_id is not None and (i.dataset_id in pinned or i.name == keep)))

    # -- reservations: room promised to a write before it starts ----------

    def _root_dir(self) -> Path:
        """The store folder, created if missing (``OSError`` if it cannot be)."""
        self.root.mkdir(parents=True, exist_ok=True)
        return self.root.resolve()

    @contextmanager
    def _locked(self) -> Iterator[Path]:
        """Hold the store's lock (a ``flock`` on the store folder itself, across threads and processes); yields
        the root.

        Held only while the room for a write is worked out (a scan, perhaps removals): never during a write.
        """
        root = self._root_dir()
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield root
            else:  # pragma: no cover - not POSIX
                with _PROCESS_LOCK:
                    yield root
        finally:
            os.close(fd)  # releases the flock

    def _reservations(self, *, drop_dead: bool = True) -> list[tuple[int, str | None]]:
        """The live reservations as (bytes, data set id or None). A reservation is a file in ``.reservations``
        that its writer holds a ``flock`` on while it lives, so the file of a writer that died is free:
        that reservation is dropped (``drop_dead``, with the store's lock held)."""
        try:
            folder = self._own_dir(RESERVATIONS_DIR)
        except OSError:
            return []
        live = []
        for entry in _scandir(str(folder)):
            match = _RESERVATION.fullmatch(entry.name)
            if match is None:
                continue
            if fcntl is not None:
                try:
                    fd = os.open(entry.path, os.O_RDONLY | _NOFOLLOW | _BINARY)
                except OSError:
                    continue  # released meanwhile
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # held: its writer is alive
                    pass
                else:  # nobody holds it: its writer died
                    if drop_dead:
                        try:
                            os.unlink(entry.path)
                        except OSError:
                            pass
                    continue
                finally:
                    os.close(fd)
            live.append((int(match.group(1)), None if match.group(2) == "-" else match.group(2)))
        return live

    @contextmanager
    def reserve(self, nbytes: int, *, what: str = "the data set", dataset: str | None = None,
                wait: float = _RESERVE_WAIT_SECONDS) -> Iterator[None]:
        """Promise ``nbytes`` of the quota to a write before it starts, so that the store stays within its quota
        at every moment, also while many uploads (threads or processes) write at once.

        Within the ``with`` block the caller writes at most ``nbytes`` into the store folder (a data set entry,
        the annotation database); the promise ends with the block, when what was written counts by itself.
        Room is made first by removing the data sets opened least recently, never one open in a session
        (:meth:`pin`), never the annotation database, never ``dataset`` (the entry being written). If the room
        is taken only by writes in progress, this waits (up to ``wait`` seconds) for them to finish.

        Parameters
        ----------
        nbytes : int
            The most bytes the write adds.
        what : str
            What is written, for the message (e.g. "the data set (report.csv)", "the sample of 1,000 candidates").
        dataset : str, optional
            The id of the entry the write creates (an incomplete entry with a reservation is never removed).
        wait : float
            Seconds to wait at most for writes in progress.

        Raises
        ------
        DatasetTooLargeError
            ``nbytes`` is more than the whole quota.
        StoreFullError
            No room: what fills the store is open in sessions, being written or annotations. The message names
            ``what`` and the sizes.
        StoreWriteError
            The store folder cannot be written.

        Notes
        -----
        A reservation is a file ``.reservations/<bytes>.<id or ->.<random>`` that its writer holds a ``flock``
        on; the quota check (a scan of the store, the reservations, removals) runs under a ``flock`` on the
        store folder, a few milliseconds. A writer that dies releases its locks, and its reservation is dropped by
        the next check: no stale reservation outlives its process.
        """
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
            raise ParameterError(f"`nbytes` must be a whole number of bytes >= 0; got {nbytes!r}")
        if nbytes > self.quota:
            raise DatasetTooLargeError(
                f"{_upper(what)} needs {format_size(nbytes)}, more than this server keeps for all uploaded data "
                f"and annotations together ({format_size(self.quota)}); nothing was written. Use a smaller file or "
                "sample, or ask whoever runs this server to raise the store's size limit (EVALCORE_STORE_QUOTA).")
        token = None
        deadline = time.monotonic() + max(0.0, float(wait))
        try:
            while True:
                with self._locked():
                    token = self._try_reserve(nbytes, what, dataset)
                if token is not None:
                    break
                if time.monotonic() >= deadline:
                    raise StoreFullError(
                        f"There is no room for {what} ({format_size(nbytes)}) yet: the store's "
                        f"{format_size(self.quota)} are taken by uploads still being written. Try again in a "
                        "minute.")
                time.sleep(_RESERVE_POLL_SECONDS)
        except BaseException as e:  # (also a stop of the run: a reservation taken is given back)
            if token is not None:
                _release(token)
            if isinstance(e, OSError):
                raise _write_error(e, nbytes, self.quota) from None
            raise
        try:
            yield
        finally:
            _release(token)

    def _try_reserve(self, nbytes: int, what: str, dataset: str | None):
        """With the lock held: make room and take the reservation ((path, fd)), or None to wait and try again;
        :class:`StoreFullError` when waiting cannot help."""
        live = self._reservations()
        reserved = sum(b for b, _ in live)
        writing = {d for _, d in live if d is not None}
        pinned = self.pinned()
        total, _ = self._make_room(nbytes, keep=dataset, reserved=reserved, writing=writing, pinned=pinned)
        if total + reserved + nbytes > self.quota:
            stuck = self._stuck_bytes(dataset, pinned)
            if live and stuck + nbytes <= self.quota:
                return None  # the room is taken by writes in progress: when they end, their data sets may go
            usage = self.usage()
            raise StoreFullError(
                f"There is no room for {what} ({format_size(nbytes)}): the store keeps at most "
                f"{format_size(self.quota)} and holds {format_size(total)} ({format_size(usage.annotation_bytes)} "
                f"of annotations, never removed, and {format_size(stuck - usage.annotation_bytes)} of data sets "
                "open in someone's session, removed only when that session ends). Nothing was written. Try again "
                "later, or ask whoever runs this server to raise the store's size limit (EVALCORE_STORE_QUOTA).")
        folder = self._own_dir(RESERVATIONS_DIR, create=True)
        path = folder / f"{nbytes}.{dataset or '-'}.{secrets.token_hex(8)}"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            _release((path, fd))
            raise
        return path, fd

    # -- pins: data sets open in a session are not evicted ------------------

    def pin(self, dataset_id: str, holder: str) -> None:
        """Keep ``dataset_id`` from being evicted while ``holder`` (e.g. a browser session) uses it.

        A pin is a lease: it lasts ``lease_seconds`` after the last call, so the holder calls this again while
        it uses the data set (the dashboard: on every run, and every minute for an open session) and
        :meth:`unpin` when done; the pin of a holder that vanished without a word (a server process that was
        killed) expires by itself. Only a stored data set is pinned (an id from a stranger's link leaves no file).
        Best effort: a store that cannot be written is not an error here.
        """
        validate_id(dataset_id)
        holder = _check_holder(holder)
        if not self.exists(dataset_id):
            return
        try:
            folder = self._own_dir(LEASES_DIR, create=True)
            path = folder / f"{dataset_id}.{holder}"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _BINARY, 0o644)
            try:
                now = _now_ns()
                os.utime(fd, ns=(now, now))
            finally:
                os.close(fd)
        except OSError:
            pass

    def unpin(self, dataset_id: str, holder: str) -> None:
        """End ``holder``'s pin of ``dataset_id`` (nothing happens if there is none)."""
        validate_id(dataset_id)
        holder = _check_holder(holder)
        try:
            (self._own_dir(LEASES_DIR) / f"{dataset_id}.{holder}").unlink()
        except OSError:
            pass

    def pinned(self) -> set[str]:
        """Ids of the data sets with a live pin; expired pins are removed on the way (best effort)."""
        try:
            folder = self._own_dir(LEASES_DIR)
        except OSError:
            return set()
        cutoff = _now_ns() - int(self.lease_seconds * 1e9)
        ids = set()
        for entry in _scandir(str(folder)):
            dataset_id, sep, holder = entry.name.partition(".")
            if not sep or not _ID.fullmatch(dataset_id):
                continue
            try:
                fresh = entry.stat(follow_symlinks=False).st_mtime_ns >= cutoff
            except OSError:
                continue
            if fresh:
                ids.add(dataset_id)
            else:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
        return ids

    def _eviction_note(self, item: _Item) -> dict:
        try:
            meta = json.loads(_read_small(item.parent / item.name / META_FILE).decode("utf-8"))
            name = str(meta["name"])
        except (OSError, ValueError, KeyError, TypeError):
            name = None
        return {"id": item.dataset_id, "name": name, "size": item.size, "evicted": _utc(_now_ns())}

    def _note_eviction(self, dataset_id: str, note: dict) -> None:
        """Leave a note that ``dataset_id`` was removed, so its links can say so (best effort)."""
        try:
            folder = self._own_dir(EVICTED_DIR, create=True)
            _write_new(folder / dataset_id, (json.dumps(note, ensure_ascii=False) + "\n").encode("utf-8"))
        except OSError:
            pass

    def _forget_eviction(self, dataset_id: str) -> None:
        try:
            (self._own_dir(EVICTED_DIR) / dataset_id).unlink()
        except OSError:  # no note (or no folder of notes): nothing to forget
            pass

    # -- reading -----------------------------------------------------------

    def get(self, dataset_id: str) -> StoredDataset:
        """The stored data set with this id (its metadata), marked opened now.

        For a data set a user opens (the one in view, the one whose bytes are read next); a lookup
        that only looks at what is stored uses :meth:`peek`, so it does not make what it looks at recent.

        Raises :class:`InvalidDatasetIdError` for a malformed id (before touching
        any file), :class:`UnknownDatasetError` if nothing is stored under it
        (:class:`EvictedDatasetError` if it was removed to make room,
        :class:`DamagedDatasetError` if it was set aside as damaged, now or before).
        """
        stored = self.peek(dataset_id)
        self._touch(self._entry(dataset_id))
        return stored

    def peek(self, dataset_id: str) -> StoredDataset:
        """The stored data set with this id (its metadata), as :meth:`get`, without marking it opened.

        For lookups: finding an entry by its name in a scan of the store, or checking that it is there
        (:func:`evalcore.engines.pvalues.pair_pvalues` looks for its chunks so). Marking every entry a
        scan passes as opened would make them all recent and defeat the eviction of the least recently
        opened; the entry the lookup then reads is opened by :meth:`open`. Checks and raises as
        :meth:`get` (a damaged entry is set aside here too).
        """
        entry = self._entry(dataset_id)
        try:
            raw = _read_small(entry / META_FILE)
        except (FileNotFoundError, NotADirectoryError):
            raise self._missing(dataset_id) from None
        except OSError as e:
            if e.errno not in (errno.ELOOP, errno.EISDIR, errno.EFBIG):
                raise _read_error(dataset_id, e) from None
            raise self._damaged(dataset_id, None, "its description is not a small file") from None
        try:
            meta = json.loads(raw.decode("utf-8"))
            if not isinstance(meta, dict) or meta.get("id") != dataset_id:
                raise ValueError("it names another data set")
            stored = StoredDataset(
                id=dataset_id,
                name=str(meta["name"]),
                size=int(meta["size"]),
                uploaded=datetime.fromisoformat(meta["uploaded"]),
                format=meta.get("format"),
                store=self,
            )
        except (ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError
            raise self._damaged(dataset_id, None, "its description is damaged") from None
        try:
            info = os.lstat(entry / DATA_FILE)
        except FileNotFoundError:
            if not os.path.lexists(entry / META_FILE):  # removed meanwhile (evicted, set aside)
                raise self._missing(dataset_id) from None
            raise self._damaged(dataset_id, stored.name, "its data file is missing") from None
        if not stat.S_ISREG(info.st_mode) or info.st_size != stored.size:
            raise self._damaged(dataset_id, stored.name, f"it holds {info.st_size:,} bytes instead of "
                                f"{stored.size:,}" if stat.S_ISREG(info.st_mode) else "its data is not a file")
        return stored

    def open(self, dataset_id: str) -> tuple[StoredDataset, bytes]:
        """The stored data set and its bytes, checked: the one way to read a stored data set.

        The bytes must be exactly ``size`` long and their SHA-256 must equal the id;
        otherwise the entry is moved to ``.quarantine`` and :class:`DamagedDatasetError`
        is raised, so a damaged copy is never returned. Hashing takes about a second per
        500 MB: callers that need the bytes again should keep them (the dashboard caches
        the table it reads from them by id).

        Raises
        ------
        InvalidDatasetIdError, UnknownDatasetError, EvictedDatasetError, DamagedDatasetError
            As for :meth:`get`.
        StoreReadError
            The file exists but cannot be read (an I/O error); it is not set aside.
        """
        stored = self.get(dataset_id)
        path = self._entry(dataset_id) / DATA_FILE
        try:
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
        except FileNotFoundError:
            raise self._missing(dataset_id) from None  # removed since get(): evicted or set aside
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise self._damaged(dataset_id, stored.name, "its data is a link") from None
            raise _read_error(dataset_id, e) from None
        try:
            with os.fdopen(fd, "rb") as f:
                data = f.read(stored.size + 1)
        except OSError as e:
            raise _read_error(dataset_id, e) from None
        if len(data) != stored.size:
            raise self._damaged(dataset_id, stored.name, f"it holds {len(data):,} bytes instead of {stored.size:,}")
        if hashlib.sha256(data).hexdigest() != dataset_id:
            raise self._damaged(dataset_id, stored.name, "its content no longer matches its id")
        return stored, data

    def _damaged(self, dataset_id: str, name: str | None, why: str) -> DamagedDatasetError:
        """Set the entry aside and return the error to raise."""
        self._set_aside(dataset_id)
        shown = f" ({name!r})" if name else ""
        return DamagedDatasetError(
            f"The stored copy of data set {_short(dataset_id)}{shown} is damaged ({why}); it was set aside and is "
            "not shown. Upload the file again on the Data page: the same file gets the same id, so links to it "
            "work again."
        )

    def _missing(self, dataset_id: str) -> UnknownDatasetError:
        """The error for an id with no entry: removed to make room, set aside as damaged, or never seen."""
        try:
            note = json.loads(_read_small(self._own_dir(EVICTED_DIR) / dataset_id).decode("utf-8"))
        except (OSError, ValueError):
            note = None
        if isinstance(note, dict):
            name = note.get("name")
            shown = f" ({name!r})" if isinstance(name, str) else ""
            return EvictedDatasetError(
                f"The data set {_short(dataset_id)}{shown} was removed from this server on "
                f"{_day(note.get('evicted'))} to make room: the server keeps at most {format_size(self.quota)} "
                "of uploaded data and removes the data sets opened least recently. Upload the file again on the "
                "Data page: the same file gets the same id, so links to it work again."
            )
        try:
            set_aside = any(self._own_dir(QUARANTINE_DIR).glob(dataset_id + ".*"))
        except OSError:
            set_aside = False
        if set_aside:
            return DamagedDatasetError(
                f"The stored copy of data set {_short(dataset_id)} was found damaged and set aside; it is not "
                "shown. Upload the file again on the Data page: the same file gets the same id, so links to it "
                "work again."
            )
        return UnknownDatasetError(
            f"No data set with id {_short(dataset_id)} is stored on this server: the link may come from another "
            "server, or the data set was removed. Upload the file again on the Data page."
        )

    def exists(self, dataset_id: object) -> bool:
        """True if a data set with this id is stored; False for a malformed id. Never raises."""
        try:
            entry = self._entry(dataset_id)  # type: ignore[arg-type]
            return (entry / META_FILE).is_file() and (entry / DATA_FILE).is_file()
        except (EvalcoreError, OSError, ValueError):
            return False

    def __contains__(self, dataset_id: object) -> bool:
        return self.exists(dataset_id)

    def ids(self) -> list[str]:
        """Ids of all stored data sets, sorted."""
        return sorted(i.dataset_id for i in self._scan() if i.dataset_id is not None)


def _read_error(dataset_id: str, e: OSError) -> StoreReadError:
    return StoreReadError(
        f"The stored copy of data set {_short(dataset_id)} could not be read ({e.strerror or type(e).__name__}). "
        "Try again; if it keeps failing, ask whoever runs this server to check the data set store."
    )


def _read_small(path: Path, limit: int = 1 << 20) -> bytes:
    """The bytes of a small regular file, without following a link (ELOOP) or reading a huge one (EFBIG)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EISDIR, "not a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, "file too large")
    return data


def _scandir(path: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(path))
    except OSError:
        return []


def _sizes(path: str) -> tuple[int, int]:
    """Total size of the regular files in a folder (not below), and the newest modification time (ns) of
    the folder and of what is in it (a folder just made for an upload is new, not a leftover)."""
    size = 0
    try:
        newest = os.lstat(path).st_mtime_ns
    except OSError:
        newest = 0
    for child in _scandir(path):
        try:
            info = child.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            size += info.st_size
        newest = max(newest, info.st_mtime_ns)
    return size, newest


def _may_remove(item: _Item, keep: str | None, writing: set[str], pinned: set[str]) -> bool:
    """Whether making room may remove ``item``: not ``keep``, not the annotation database, not a data set open in
    a session (``pinned``), not an upload in progress (an incomplete entry that a write holds a reservation for,
    ``writing``; without one it is the leftover of an upload that stopped)."""
    if item.name == keep or item.annotations or item.dataset_id in pinned:
        return False
    if item.dataset_id is None and not item.removable_first:
        return _ID.fullmatch(item.name) is not None and item.name not in writing
    return True


def _entry_item(prefix: Path, entry: os.DirEntry, stale_before_ns: int) -> _Item | None:
    """An entry as an :class:`_Item`: complete (with ``meta.json``), or a leftover of an upload that
    stopped more than a day ago; None for an upload that may still be running.

    A complete entry costs two ``lstat`` calls (its ``data.bin`` and ``meta.json``, which is all it
    holds); only an incomplete one (rare) is listed file by file.
    """
    path = entry.path
    try:
        meta = os.lstat(os.path.join(path, META_FILE))
    except OSError:
        meta = None
    if meta is not None and stat.S_ISREG(meta.st_mode):
        try:
            data = os.lstat(os.path.join(path, DATA_FILE))
            data_size = data.st_size if stat.S_ISREG(data.st_mode) else 0
        except OSError:
            data_size = 0
        return _Item(prefix, entry.name, data_size + meta.st_size, meta.st_mtime_ns, False, entry.name)
    size, newest = _sizes(path)
    if newest < stale_before_ns:
        return _Item(prefix, entry.name, size, newest, True, None)
    return _Item(prefix, entry.name, size, newest, False, None)
