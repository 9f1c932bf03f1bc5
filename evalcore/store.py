"""Server-side store of uploaded data sets, addressed by content hash.

A data set uploaded to the dashboard is kept as the exact bytes of the file, so
a link (``...?dataset=<id>&...``) reopens the same data for anyone who can reach
the server, also after a restart: the store is nothing but files.

Id scheme
---------
The id of a data set is the SHA-256 of its file bytes, written as 64 lowercase
hexadecimal characters (256 bits): the same bytes always get the same id, so an
upload is stored once however often it is repeated, and an id cannot be guessed
without having the file. Every public method checks an id with a full match of
``[0-9a-f]{64}`` *before* any path is built, so a malformed id (``../..``, an
empty string, a NUL byte, uppercase, ...) never reaches the file system; in
addition, the entry path is checked to resolve to a place inside the root.

Layout on disk
--------------
::

    <root>/                      EVALCORE_STORE, else <repo>/data/store
        3f/                      first two characters of the id
            3f2a...e1/           the id
                data.bin         the file bytes, exactly as uploaded
                meta.json        {"id", "name", "size", "uploaded", "format", "version"}

``name`` is the original file name (readers need it: its extension selects the
format), ``size`` the number of bytes, ``uploaded`` the time of the first upload
(UTC, ISO 8601) and ``format`` a hint guessed from the extension (``csv``,
``tsv``, ``text``, ``parquet``, ``xlsx``, ``rda``, ``rds`` or ``null``).
The root directory is created on the first write.

Atomicity and concurrency
-------------------------
Each file is written to a temporary file (``.tmp-*``) in the entry directory,
flushed and fsynced, then moved into place with :func:`os.replace`, so a reader
sees either no file or a complete one. ``data.bin`` is written before
``meta.json``, and an entry counts as present only once ``meta.json`` exists:
an interrupted upload leaves at most an entry without ``meta.json`` (invisible,
repaired by the next upload of the same bytes) and a stale temporary file
(removed by a later upload into the same entry once it is a day old). Concurrent
uploads from threads or processes need no lock: files of the same id have the
same bytes, so whichever replace lands last leaves the same content, and
``meta.json`` is created without replacing an existing one (hard link), so the
first upload's name and time are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePath

from .errors import EvalcoreError

__all__ = [
    "DATA_FILE",
    "META_FILE",
    "DatasetStore",
    "InvalidDatasetIdError",
    "StoredDataset",
    "UnknownDatasetError",
    "dataset_id",
    "default_root",
    "validate_id",
]

ENV_VAR = "EVALCORE_STORE"
DATA_FILE = "data.bin"
META_FILE = "meta.json"
_TMP_PREFIX = ".tmp-"
_STALE_TMP_SECONDS = 24 * 3600
_CHUNK = 1 << 20
_ID = re.compile(r"[0-9a-f]{64}")
_FORMATS = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "text",
    ".parquet": "parquet", ".pq": "parquet",
    ".xlsx": "xlsx", ".xlsm": "xlsx",
    ".rda": "rda", ".rdata": "rda", ".rds": "rds",
}


class InvalidDatasetIdError(EvalcoreError):
    """A data set id is malformed: not exactly 64 lowercase hexadecimal characters."""


class UnknownDatasetError(EvalcoreError):
    """A well-formed data set id names nothing stored on this server."""


@dataclass(frozen=True)
class StoredDataset:
    """A stored data set: its metadata and where its bytes are (read them with :meth:`read_bytes`)."""

    id: str
    name: str
    size: int
    uploaded: datetime
    format: str | None
    path: Path

    def read_bytes(self) -> bytes:
        """The file bytes as uploaded."""
        data = self.path.read_bytes()
        if len(data) != self.size:
            raise UnknownDatasetError(
                f"The stored copy of data set {_short(self.id)} ({self.name}) is damaged "
                f"({len(data)} bytes instead of {self.size}); upload the file again on the Data page."
            )
        return data


def default_root() -> Path:
    """``$EVALCORE_STORE`` if set and not empty, else ``<repo>/data/store``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[1] / "data" / "store"


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


def _guess_format(name: str) -> str | None:
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes.pop()
    return _FORMATS.get(suffixes[-1]) if suffixes else None


def _file_matches(path: Path, dataset_id: str, size: int) -> bool:
    """True if ``path`` is a file of ``size`` bytes whose SHA-256 is ``dataset_id``."""
    try:
        if path.stat().st_size != size:
            return False
        digest = hashlib.sha256()
        with open(path, "rb") as f:
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
    """Write ``data`` to a new temporary file in ``directory``, flushed and fsynced."""
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


class DatasetStore:
    """Uploaded data sets on disk, addressed by the SHA-256 of their bytes.

    ``root`` defaults to :func:`default_root` (``$EVALCORE_STORE``, else
    ``<repo>/data/store``); it is created on the first :meth:`put`.
    Instances hold no state besides the root, so any number of them (in threads
    or processes) may share one root.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_root()

    def __repr__(self) -> str:
        return f"DatasetStore({str(self.root)!r})"

    # -- paths -------------------------------------------------------------

    def _entry(self, dataset_id: str) -> Path:
        """Directory of a validated id, checked to lie inside the root."""
        dataset_id = validate_id(dataset_id)  # never build a path from anything else
        root = self.root.resolve()
        entry = (root / dataset_id[:2] / dataset_id).resolve()
        if entry.parent.parent != root or not entry.is_relative_to(root):
            raise InvalidDatasetIdError(
                f"data set {_short(dataset_id)} resolves to {entry}, outside the store {root}; "
                f"the store's directories must not be links to other places"
            )
        return entry

    # -- writing -----------------------------------------------------------

    def put(self, data: bytes, name: str) -> str:
        """Store ``data`` (the bytes of a file called ``name``) and return its id.

        Storing the same bytes again returns the same id and keeps the stored
        copy (and the first upload's name and time); a damaged or missing copy
        is rewritten.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, not {type(data).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        data = bytes(data) if not isinstance(data, bytes) else data
        dataset_id = hashlib.sha256(data).hexdigest()
        entry = self._entry(dataset_id)
        entry.mkdir(parents=True, exist_ok=True)
        self._remove_stale_temps(entry)

        data_path = entry / DATA_FILE
        if not _file_matches(data_path, dataset_id, len(data)):
            tmp = _write_temp(entry, data)
            try:
                os.replace(tmp, data_path)
            except OSError:
                # e.g. Windows, where a file another process has open cannot be replaced:
                # fine if that file already holds these bytes.
                tmp.unlink(missing_ok=True)
                if not _file_matches(data_path, dataset_id, len(data)):
                    raise
            _fsync_dir(entry)

        meta_path = entry / META_FILE
        if not meta_path.exists():
            meta = {
                "id": dataset_id,
                "name": name,
                "size": len(data),
                "uploaded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "format": _guess_format(name),
                "version": 1,
            }
            text = json.dumps(meta, ensure_ascii=False, indent=1) + "\n"
            tmp = _write_temp(entry, text.encode("utf-8"))
            try:
                try:
                    os.link(tmp, meta_path)  # create, never replace: the first upload's metadata wins
                except FileExistsError:
                    pass
                except OSError:  # no hard links on this file system
                    os.replace(tmp, meta_path)
            finally:
                tmp.unlink(missing_ok=True)
            _fsync_dir(entry)
        return dataset_id

    @staticmethod
    def _remove_stale_temps(entry: Path) -> None:
        """Remove temporary files left by uploads interrupted more than a day ago."""
        cutoff = time.time() - _STALE_TMP_SECONDS
        try:
            for path in entry.glob(_TMP_PREFIX + "*"):
                try:
                    if path.stat().st_mtime < cutoff:
                        path.unlink()
                except OSError:
                    pass
        except OSError:
            pass

    def delete(self, dataset_id: str) -> bool:
        """Remove a data set; True if it was stored. ``meta.json`` goes first, so the
        entry disappears at once."""
        entry = self._entry(dataset_id)
        present = (entry / META_FILE).exists()
        (entry / META_FILE).unlink(missing_ok=True)
        shutil.rmtree(entry, ignore_errors=True)
        try:
            entry.parent.rmdir()  # only if no other entry shares the prefix
        except OSError:
            pass
        return present

    # -- reading -----------------------------------------------------------

    def get(self, dataset_id: str) -> StoredDataset:
        """The stored data set with this id.

        Raises :class:`InvalidDatasetIdError` for a malformed id (before touching
        any file) and :class:`UnknownDatasetError` if nothing is stored under it.
        """
        entry = self._entry(dataset_id)
        unknown = UnknownDatasetError(
            f"No data set with id {_short(dataset_id)} is stored on this server. It may have been "
            f"uploaded to another server, or removed; upload the file again on the Data page."
        )
        data_path = entry / DATA_FILE
        try:
            raw = (entry / META_FILE).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise unknown from None
        if not data_path.is_file():
            raise unknown
        try:
            meta = json.loads(raw)
            if meta["id"] != dataset_id:
                raise ValueError(f"meta.json names id {meta['id']!r}")
            stored = StoredDataset(
                id=dataset_id,
                name=str(meta["name"]),
                size=int(meta["size"]),
                uploaded=datetime.fromisoformat(meta["uploaded"]),
                format=meta.get("format"),
                path=data_path,
            )
        except (ValueError, KeyError, TypeError) as e:
            raise UnknownDatasetError(
                f"The stored entry for data set {_short(dataset_id)} is damaged ({entry / META_FILE}: {e}); "
                f"upload the file again on the Data page."
            ) from None
        return stored

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
        found = []
        try:
            prefixes = [p for p in self.root.iterdir() if len(p.name) == 2 and p.is_dir()]
        except OSError:  # no root yet
            return []
        for prefix in prefixes:
            try:
                entries = list(prefix.iterdir())
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                if _ID.fullmatch(name) and name[:2] == prefix.name and (entry / META_FILE).is_file():
                    found.append(name)
        return sorted(found)
