"""Tests of evalcore.io.store: content-addressed, atomic, restart-proof, closed to malformed ids; reads checked
against the id (damaged copies set aside); a quota kept by removing the least recently opened data sets; write
failures that leave nothing behind; removal that never leaves the store folder; messages without server paths."""

from __future__ import annotations

import builtins
import errno
import hashlib
import itertools
import json
import multiprocessing
import os
import re
import shutil
import tempfile
import threading
import types
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import evalcore.io.store as store_module
from evalcore.errors import EvalcoreError, ParameterError
from evalcore.io.store import (
    DATA_FILE,
    DEFAULT_QUOTA,
    META_FILE,
    DamagedDatasetError,
    DatasetStore,
    DatasetTooLargeError,
    EvictedDatasetError,
    InvalidDatasetIdError,
    StoreError,
    StoreReadError,
    StoredDataset,
    StoreWriteError,
    UnknownDatasetError,
    dataset_id,
    format_size,
    parse_size,
)

CSV = b"label,am.logl\nTP,12.5\nFP,3.25\n"
VALID_UNKNOWN = "3f2a" + "0" * 60

MALFORMED = {
    "traversal": "../../etc/passwd",
    "empty": "",
    "63 chars": "a" * 63,
    "65 chars": "a" * 65,
    "uppercase": hashlib.sha256(CSV).hexdigest().upper(),
    "NUL byte": "a" * 32 + "\x00" + "a" * 31,
    "URL-encoded ..%2F": "..%2F..%2F" + "a" * 54,
    "trailing newline": "a" * 64 + "\n",
    "absolute path": "/" + "a" * 63,
    "dot-dot of 64 chars": "../" * 21 + "a",
    "non-ASCII digits": "٣" * 64,
    "spaces": " " + "a" * 63,
}


def files_under(path: Path) -> set[Path]:
    return {p.relative_to(path) for p in path.rglob("*")}


def entries_under(root: Path) -> list[Path]:
    """The entry folders (``<root>/<2 hex>/<id>``), not the store's own folders (``.evicted``, ...)."""
    return sorted(p for p in root.glob("[0-9a-f][0-9a-f]/*"))


def check_intact(root: Path) -> list[str]:
    """Every entry's bytes hash to its id; only data.bin and meta.json exist in entries. Returns the ids."""
    ids = []
    for entry in entries_under(root):
        for path in entry.rglob("*"):
            assert path.name in (DATA_FILE, META_FILE), f"leftover file {path}"
    for meta_path in root.glob(f"[0-9a-f][0-9a-f]/*/{META_FILE}"):
        entry = meta_path.parent
        assert entry.parent.name == entry.name[:2]
        data = (entry / DATA_FILE).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry.name
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["id"] == entry.name and meta["size"] == len(data)
        ids.append(entry.name)
    return sorted(ids)


# -- round trip, ids, layout ---------------------------------------------------------


def test_put_get_round_trip(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path / "store")
    assert not (tmp_path / "store").exists()  # created on first write only
    before = datetime.now(timezone.utc).replace(microsecond=0)
    ds_id = store.put(CSV, "candidates.csv")
    assert ds_id == hashlib.sha256(CSV).hexdigest() == dataset_id(CSV)
    assert len(ds_id) == 64
    stored = store.get(ds_id)
    assert isinstance(stored, StoredDataset)
    assert stored.id == ds_id and stored.name == "candidates.csv" and stored.size == len(CSV)
    assert stored.format == "text"
    assert stored.read_bytes() == CSV
    assert store.open(ds_id) == (stored, CSV)
    assert not hasattr(stored, "path")  # the bytes come only through the checked read
    assert before <= stored.uploaded <= datetime.now(timezone.utc)
    assert stored.uploaded.tzinfo is not None
    with pytest.raises(Exception):
        stored.name = "other"  # type: ignore[misc]  # frozen


def test_layout_on_disk(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b" / "store"  # parents created too
    ds_id = DatasetStore(root).put(CSV, "x.tsv")
    entry = root / ds_id[:2] / ds_id
    assert files_under(entry) == {Path(DATA_FILE), Path(META_FILE)}
    assert (entry / DATA_FILE).read_bytes() == CSV
    meta = json.loads((entry / META_FILE).read_text(encoding="utf-8"))
    assert meta["name"] == "x.tsv" and meta["size"] == len(CSV) and meta["format"] == "text"
    assert datetime.fromisoformat(meta["uploaded"]).utcoffset().total_seconds() == 0


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.CSV", "text"), ("a.tsv.gz", "text"), ("a.txt", "text"), ("a.parquet", "parquet"),
        ("a.pq", "parquet"), ("a.xlsx", "xlsx"), ("a.RData", "rda"), ("a.rda", "rda"),
        ("a.rds", "rds"), ("a.xyz", None), ("noext", None), ("", None),
    ],
)
def test_format_guessed_from_name(tmp_path: Path, name: str, fmt: str | None) -> None:
    store = DatasetStore(tmp_path)
    data = name.encode() + b"\nunique"
    assert store.get(store.put(data, name)).format == fmt


def test_same_bytes_same_id_one_copy(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    first = store.put(CSV, "first.csv")
    entry = tmp_path / first[:2] / first
    meta_before = (entry / META_FILE).read_bytes()
    data_inode = (entry / DATA_FILE).stat().st_ino
    second = store.put(CSV, "second name.csv")
    assert first == second
    assert store.ids() == [first]
    assert len(list(tmp_path.rglob(DATA_FILE))) == 1
    assert (entry / DATA_FILE).stat().st_ino == data_inode  # not rewritten
    assert (entry / META_FILE).read_bytes() == meta_before  # the first upload's name and time are kept
    assert store.get(first).name == "first.csv"


def test_different_bytes_different_ids(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    ids = {store.put(CSV + bytes([i]), f"f{i}.csv") for i in range(20)}
    ids.add(store.put(b"", "empty.csv"))
    assert len(ids) == 21
    assert store.ids() == sorted(ids)
    assert check_intact(tmp_path) == sorted(ids)


def test_accepts_bytearray_and_memoryview(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    assert store.put(bytearray(CSV), "a.csv") == store.put(memoryview(CSV), "b.csv") == dataset_id(CSV)
    with pytest.raises(TypeError):
        store.put("text, not bytes", "a.csv")  # type: ignore[arg-type]


def test_restart_sees_data(tmp_path: Path) -> None:
    ds_id = DatasetStore(tmp_path / "store").put(CSV, "candidates.csv")
    again = DatasetStore(str(tmp_path / "store"))  # a new process would do just this
    assert again.exists(ds_id) and ds_id in again
    assert again.ids() == [ds_id]
    assert again.get(ds_id).read_bytes() == CSV


def test_entry_without_meta_is_absent_and_repaired(tmp_path: Path) -> None:
    """An upload interrupted between data.bin and meta.json leaves an invisible entry."""
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    (tmp_path / ds_id[:2] / ds_id / META_FILE).unlink()
    assert not store.exists(ds_id) and store.ids() == []
    with pytest.raises(UnknownDatasetError):
        store.get(ds_id)
    assert store.put(CSV, "a.csv") == ds_id
    assert store.get(ds_id).read_bytes() == CSV


def test_damaged_data_is_rewritten_by_the_next_upload(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    data_path = tmp_path / ds_id[:2] / ds_id / DATA_FILE
    data_path.write_bytes(CSV[:-3] + b"XX\n")  # same size, other bytes
    assert store.put(CSV, "a.csv") == ds_id
    assert data_path.read_bytes() == CSV
    assert store.open(ds_id)[1] == CSV
    check_intact(tmp_path)


def test_stale_temp_files_are_removed(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    entry = tmp_path / ds_id[:2] / ds_id
    stale, fresh = entry / ".tmp-stale.part", entry / ".tmp-fresh.part"
    stale.write_bytes(b"x")
    fresh.write_bytes(b"x")  # may belong to an upload in progress
    os.utime(stale, (0, 0))
    store.put(CSV, "a.csv")
    assert not stale.exists() and fresh.exists()
    assert store.ids() == [ds_id]


def test_delete(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    keep = store.put(b"keep", "keep.csv")
    gone = store.put(CSV, "a.csv")
    assert store.delete(gone) is True
    assert not store.exists(gone) and store.ids() == [keep]
    assert not (tmp_path / gone[:2] / gone).exists()
    assert store.delete(gone) is False
    with pytest.raises(UnknownDatasetError):
        store.get(gone)
    with pytest.raises(InvalidDatasetIdError):
        store.delete("../" + keep[3:])
    assert store.get(keep).read_bytes() == b"keep"


# -- unknown and malformed ids -------------------------------------------------------


def test_unknown_id_message(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    store.put(CSV, "a.csv")
    with pytest.raises(UnknownDatasetError) as info:
        store.get(VALID_UNKNOWN)
    message = str(info.value)
    assert message.startswith("No data set with id 3f2a")
    assert "is stored on this server: the link may come from another server, or the data set was removed" in message
    assert message.endswith("Upload the file again on the Data page.")
    assert type(info.value) is UnknownDatasetError  # neither evicted nor set aside
    assert isinstance(info.value, EvalcoreError) and isinstance(info.value, ValueError)
    assert not store.exists(VALID_UNKNOWN)


def test_unknown_id_on_missing_root_creates_nothing(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path / "store")
    with pytest.raises(UnknownDatasetError):
        store.get(VALID_UNKNOWN)
    assert not store.exists(VALID_UNKNOWN)
    assert store.ids() == []
    assert not (tmp_path / "store").exists()


@pytest.fixture
def fs_spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object]]:
    """Records every file-system call evalcore.io.store (or pathlib) could make."""
    calls: list[tuple[str, object]] = []
    for name in ("stat", "lstat", "open", "mkdir", "makedirs", "scandir", "listdir", "unlink", "rmdir",
                 "replace", "rename", "link", "readlink"):
        original = getattr(os, name)

        def spy(*args, _name=name, _original=original, **kwargs):
            calls.append((_name, args[0] if args else None))
            return _original(*args, **kwargs)

        monkeypatch.setattr(os, name, spy)
    original_open = builtins.open

    def spy_open(*args, **kwargs):
        calls.append(("builtins.open", args[0] if args else None))
        return original_open(*args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    return calls


@pytest.mark.parametrize("bad_id", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_id_touches_nothing(tmp_path: Path, bad_id: str, fs_spy: list) -> None:
    root = tmp_path / "store"
    store = DatasetStore(root)
    fs_spy.clear()
    for call in (store.get, store.delete):
        with pytest.raises(InvalidDatasetIdError) as info:
            call(bad_id)
        assert "is not a valid data set id" in str(info.value)
        assert "64 lowercase hexadecimal characters" in str(info.value)
    assert store.exists(bad_id) is False
    assert bad_id not in store
    assert fs_spy == []  # validated before any path was built or looked at
    assert list(tmp_path.iterdir()) == []  # the root was not even created


def test_malformed_id_messages_name_the_problem(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)

    def message(bad: object) -> str:
        with pytest.raises(InvalidDatasetIdError) as info:
            store.get(bad)  # type: ignore[arg-type]
        return str(info.value)

    assert "it is empty" in message(MALFORMED["empty"])
    assert "63 characters instead of 64" in message(MALFORMED["63 chars"])
    assert "uppercase" in message(MALFORMED["uppercase"])
    assert "'\\x00'" in message(MALFORMED["NUL byte"])
    assert "'%'" in message(MALFORMED["URL-encoded ..%2F"])
    traversal = message(MALFORMED["traversal"])
    assert "'../../etc/passwd'" in traversal and "'/'" in traversal and "16 characters" in traversal
    assert "'\\n'" in message(MALFORMED["trailing newline"])
    assert "NoneType" in message(None)
    assert "bytes" in message(b"a" * 64)
    assert len(message("x" * 10_000)) < 400  # a huge id is shown shortened


def test_malformed_ids_cannot_reach_files_outside_root(tmp_path: Path) -> None:
    """Files placed where a traversing id would lead are never found."""
    root = tmp_path / "store"
    store = DatasetStore(root)
    real = store.put(CSV, "a.csv")
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / META_FILE).write_text(json.dumps({"id": "x", "name": "s", "size": 1, "uploaded": "2020-01-01"}))
    (outside / DATA_FILE).write_bytes(b"s")
    before = files_under(tmp_path)
    for bad in ("../secret", "..", "../" + real, real[:2] + "/../../secret", "%2e%2e%2fsecret", real + "/"):
        with pytest.raises(InvalidDatasetIdError):
            store.get(bad)
        assert not store.exists(bad)
    assert files_under(tmp_path) == before
    assert store.ids() == [real]


@given(st.text(max_size=80).filter(lambda s: not (len(s) == 64 and set(s) <= set("0123456789abcdef"))))
def test_any_malformed_text_is_rejected(text: str) -> None:
    store = DatasetStore("/nonexistent/evalcore-store-never-created")
    with pytest.raises(InvalidDatasetIdError):
        store.get(text)
    assert store.exists(text) is False


@given(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64))
def test_any_wellformed_unknown_id_is_unknown(text: str) -> None:
    store = DatasetStore("/nonexistent/evalcore-store-never-created")
    with pytest.raises(UnknownDatasetError):
        store.get(text)


# -- root selection ------------------------------------------------------------------


def test_env_var_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "from-env"))
    store = DatasetStore()
    assert store.root == tmp_path / "from-env"
    ds_id = store.put(CSV, "a.csv")
    assert (tmp_path / "from-env" / ds_id[:2] / ds_id / DATA_FILE).read_bytes() == CSV
    assert DatasetStore(tmp_path / "explicit").root == tmp_path / "explicit"  # an explicit root wins


def test_default_root_without_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALCORE_STORE", raising=False)
    repo = Path(__file__).resolve().parents[1]
    assert DatasetStore().root == repo / "data" / "store"  # only looked at, never written here
    monkeypatch.setenv("EVALCORE_STORE", "")
    assert DatasetStore().root == repo / "data" / "store"


# -- concurrency ---------------------------------------------------------------------


def test_concurrent_puts_threads(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path / "store")
    files = [bytes([i]) * (300_000 + i) + CSV for i in range(4)]
    expected = sorted(dataset_id(f) for f in files)
    barrier = threading.Barrier(8)
    results: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        try:
            own = DatasetStore(tmp_path / "store") if k % 2 else store  # shared and separate instances
            barrier.wait()
            for rep in range(10):
                i = (k + rep) % 4
                ds_id = own.put(files[i], f"file{i}.csv")
                got = own.get(ds_id)  # readable at once, by this and every other instance
                assert got.read_bytes() == files[i]
                with lock:
                    results.append(ds_id)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 80 and sorted(set(results)) == expected
    assert check_intact(tmp_path / "store") == expected
    assert store.ids() == expected


def _process_worker(root: str, data: bytes, barrier, queue) -> None:  # noqa: ANN001
    try:
        store = DatasetStore(root)
        barrier.wait()
        ids = set()
        for _ in range(5):
            ds_id = store.put(data, "shared.csv")
            assert store.get(ds_id).read_bytes() == data
            ids.add(ds_id)
        queue.put(("ok", sorted(ids)))
    except BaseException as e:  # noqa: BLE001
        queue.put(("error", repr(e)))


def test_concurrent_puts_processes(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    root = tmp_path / "store"
    data = os.urandom(2_000_000)
    n = 4
    barrier = ctx.Barrier(n)
    queue = ctx.Queue()
    procs = [ctx.Process(target=_process_worker, args=(str(root), data, barrier, queue)) for _ in range(n)]
    for p in procs:
        p.start()
    outcomes = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert outcomes == [("ok", [dataset_id(data)])] * n
    assert check_intact(root) == [dataset_id(data)]
    assert DatasetStore(root).get(dataset_id(data)).read_bytes() == data


# -- helpers for the lifecycle tests -------------------------------------------------

ABSOLUTE_PATH = re.compile(r"(?:^|[\s(\['\"=:])/(?:[\w.~-]+/)*[\w.~-]+")


def assert_no_server_path(message: str, *places: Path) -> None:
    """No absolute path in ``message``: neither the given folders nor anything shaped like ``/a/b``."""
    for place in places:
        assert str(place) not in message and str(place.resolve()) not in message, message
    assert not ABSOLUTE_PATH.search(message), message


def sized(i: int, size: int) -> bytes:
    """Distinct bytes (for each ``i``) of exactly ``size`` bytes: a data set's content."""
    head = f"data set {i}\n".encode()
    return (head + hashlib.sha256(head).digest() * (size // 32 + 1))[:size]


def entry_bytes(root: Path, ds_id: str) -> int:
    """Bytes on disk of one entry (data.bin + meta.json): what the quota counts for it."""
    return sum(p.stat().st_size for p in (root / ds_id[:2] / ds_id).iterdir())


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch):
    """A "last opened" clock that ticks one second per reading, so the order of opens is exact."""
    ticks = itertools.count(1_700_000_000 * 10**9, 10**9)
    monkeypatch.setattr(store_module, "_now_ns", lambda: next(ticks))
    return ticks


# -- the checked read: SHA-256 against the id; damaged copies set aside --------------


def quarantined(root: Path) -> list[Path]:
    return sorted((root / ".quarantine").iterdir()) if (root / ".quarantine").is_dir() else []


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("same size, other bytes", "content no longer matches its id"),
        ("truncated", "holds 5 bytes instead of 30"),
        ("longer", "holds 35 bytes instead of 30"),
        ("emptied", "holds 0 bytes instead of 30"),
        ("data file removed", "data file is missing"),
        ("meta not JSON", "description is damaged"),
        ("meta of another id", "description is damaged"),
        ("meta without size", "description is damaged"),
    ],
)
def test_a_damaged_copy_is_refused_and_set_aside(tmp_path: Path, damage: str, why: str) -> None:
    store = DatasetStore(tmp_path)
    keep = store.put(b"another data set", "b.csv")
    ds_id = store.put(CSV, "a.csv")
    entry = tmp_path / ds_id[:2] / ds_id
    data_path, meta_path = entry / DATA_FILE, entry / META_FILE
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    {
        "same size, other bytes": lambda: data_path.write_bytes(CSV[:-3] + b"XX\n"),
        "truncated": lambda: data_path.write_bytes(CSV[:5]),
        "longer": lambda: data_path.write_bytes(CSV + b"extra"),
        "emptied": lambda: data_path.write_bytes(b""),
        "data file removed": lambda: data_path.unlink(),
        "meta not JSON": lambda: meta_path.write_text("{not json", encoding="utf-8"),
        "meta of another id": lambda: meta_path.write_text(json.dumps({**meta, "id": keep}), encoding="utf-8"),
        "meta without size": lambda: meta_path.write_text(json.dumps({**meta, "size": None}), encoding="utf-8"),
    }[damage]()
    damaged_files = {p.name: p.read_bytes() for p in entry.iterdir()}

    with pytest.raises(DamagedDatasetError) as info:
        store.open(ds_id)
    message = str(info.value)
    assert f"data set {ds_id[:12]}" in message and why in message
    assert "set aside and is not shown" in message and "Upload the file again on the Data page" in message
    assert_no_server_path(message, tmp_path)
    # set aside: gone from the store, kept byte for byte in the quarantine folder, never returned as data
    assert not entry.exists() and not store.exists(ds_id) and store.ids() == [keep]
    [aside] = quarantined(tmp_path)
    assert aside.name.startswith(ds_id + ".")
    assert {p.name: p.read_bytes() for p in aside.iterdir()} == damaged_files
    with pytest.raises(DamagedDatasetError, match="was found damaged and set aside"):  # later links say so too
        store.get(ds_id)
    # the same file uploaded again: the link works again
    assert store.put(CSV, "a.csv") == ds_id
    assert store.open(ds_id)[1] == CSV
    assert store.open(keep)[1] == b"another data set"
    assert check_intact(tmp_path) == sorted([keep, ds_id])


def test_get_checks_the_size_and_read_bytes_checks_the_hash(tmp_path: Path) -> None:
    """get() is cheap (a stat); every read of the bytes hashes them."""
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    stored = store.get(ds_id)
    (tmp_path / ds_id[:2] / ds_id / DATA_FILE).write_bytes(CSV.upper())  # same size
    assert store.get(ds_id) == stored  # the size still fits
    with pytest.raises(DamagedDatasetError, match="no longer matches"):
        stored.read_bytes()  # StoredDataset.read_bytes goes through the same checked read
    assert not store.exists(ds_id)


def test_every_read_of_the_bytes_is_hashed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    hashed: list[int] = []
    real = hashlib.sha256

    def counting(data: bytes = b""):
        hashed.append(len(data))
        return real(data)

    monkeypatch.setattr(store_module.hashlib, "sha256", counting)
    store.get(ds_id)
    assert hashed == []  # metadata only
    store.open(ds_id)
    store.get(ds_id).read_bytes()
    assert hashed == [len(CSV), len(CSV)]


def test_a_data_file_that_is_a_link_is_never_read(tmp_path: Path) -> None:
    """Even a link to a file with the right bytes: the store reads only its own regular files."""
    store = DatasetStore(tmp_path / "store")
    ds_id = store.put(CSV, "a.csv")
    outside = tmp_path / "outside.csv"
    outside.write_bytes(CSV)
    data_path = tmp_path / "store" / ds_id[:2] / ds_id / DATA_FILE
    data_path.unlink()
    data_path.symlink_to(outside)
    with pytest.raises(DamagedDatasetError, match="not a file"):
        store.open(ds_id)
    assert outside.read_bytes() == CSV  # the link was set aside, not what it points to
    [aside] = quarantined(tmp_path / "store")
    assert (aside / DATA_FILE).is_symlink()


def test_an_unreadable_copy_is_a_message_and_is_not_set_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    real_fdopen = os.fdopen

    def failing_fdopen(fd: int, *args, **kwargs):
        f = real_fdopen(fd, *args, **kwargs)
        if os.readlink(f"/proc/self/fd/{fd}").endswith(DATA_FILE):
            f.close()
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(tmp_path / DATA_FILE))
        return f

    monkeypatch.setattr(store_module.os, "fdopen", failing_fdopen)
    with pytest.raises(StoreReadError) as info:
        store.open(ds_id)
    assert "could not be read (Input/output error)" in str(info.value)
    assert_no_server_path(str(info.value), tmp_path)
    monkeypatch.undo()
    assert store.open(ds_id)[1] == CSV  # a passing error: the copy stays


# -- quota and eviction of the least recently opened ---------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5GB", 5 * 10**9), ("5 GB", 5 * 10**9), ("500mb", 500 * 10**6), ("1.5GiB", 3 * 2**29),
        ("250k", 250_000), ("1000000", 10**6), ("12 B", 12), (" 2 TB ", 2 * 10**12), ("64KiB", 65536),
        (1234, 1234),
    ],
)
def test_parse_size(text, expected) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["", "GB", "5 XB", "-1GB", "0", "0 MB", "five GB", "1e9", 0, -5, 1.5, True, None])
def test_parse_size_refuses_what_is_not_a_size(bad) -> None:
    with pytest.raises(ParameterError, match=r"`quota` must be .*got"):
        parse_size(bad, parameter="quota")


def test_format_size() -> None:
    assert [format_size(n) for n in (0, 1, 999, 1000, 12_345, 999_960, 5 * 10**9, 1234 * 10**12)] == [
        "0 bytes", "1 byte", "999 bytes", "1 kB", "12.3 kB", "1 MB", "5 GB", "1234 TB"]


def test_quota_default_env_and_argument(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("EVALCORE_STORE_QUOTA", raising=False)
    assert DatasetStore(tmp_path).quota == DEFAULT_QUOTA == 5 * 10**9
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", "")
    assert DatasetStore(tmp_path).quota == DEFAULT_QUOTA
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", "20GB")
    assert DatasetStore(tmp_path).quota == 20 * 10**9
    assert DatasetStore(tmp_path, quota="1MiB").quota == 2**20  # an explicit quota wins
    assert DatasetStore(tmp_path, quota=5000).quota == 5000
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", "lots")
    with pytest.raises(ParameterError, match=r"`EVALCORE_STORE_QUOTA` must be a size such as 5GB.*got 'lots'"):
        DatasetStore(tmp_path)
    assert not any(tmp_path.iterdir())


def test_eviction_removes_the_least_recently_opened(tmp_path: Path, clock) -> None:
    """Five data sets of 10 kB in a store of 50 kB (with their descriptions, four fit): which one goes is
    decided by when each was last *opened*, not when it was uploaded."""
    store = DatasetStore(tmp_path, quota=50_000)
    a, b, c, d = (store.put(sized(i, 10_000), f"{name}.csv") for i, name in enumerate("abcd"))
    assert store.usage().datasets == 4 and store.usage().total_bytes <= 50_000
    store.get(a)  # opened: a is now the most recent, b the least
    e = store.put(sized(4, 10_000), "e.csv")
    assert store.ids() == sorted([a, c, d, e])
    with pytest.raises(EvictedDatasetError) as info:
        store.get(b)
    message = str(info.value)
    assert f"The data set {b[:12]}… ('b.csv') was removed from this server on " in message
    assert "to make room: the server keeps at most 50 kB of uploaded data and removes the data sets opened " \
           "least recently" in message
    assert "Upload the file again on the Data page: the same file gets the same id" in message
    assert_no_server_path(message, tmp_path)

    store.open(c)  # reading the bytes counts as opening too
    store.put(sized(3, 10_000), "d again.csv")  # storing the same bytes again as well: d is opened
    f = store.put(sized(5, 10_000), "f.csv")  # a is now the least recently opened
    assert store.ids() == sorted([c, d, e, f])
    with pytest.raises(EvictedDatasetError):
        store.open(a)
    assert check_intact(tmp_path) == sorted([c, d, e, f])


def eviction_order(root: Path) -> list[str]:
    """The order in which the store at ``root`` evicts what it holds: one reservation of a byte at a time in a store
    whose quota is what it holds now, so the store's own eviction removes exactly its least recently opened entry."""
    order = []
    while before := DatasetStore(root).ids():
        with DatasetStore(root, quota=DatasetStore(root).usage().total_bytes).reserve(1):
            pass
        [gone] = set(before) - set(DatasetStore(root).ids())
        order.append(gone)
    return order


def test_a_look_is_not_an_open_so_eviction_stays_by_real_opens(tmp_path: Path, clock) -> None:
    """peek() (and exists(), ids(), usage()) read what is stored without marking it opened: after every entry was
    looked at, in the order of a scan of the store (by id), the least recently *opened* one still goes first. Had the
    looks counted as opens, the first id of the scan would go instead."""
    root = tmp_path / "store"
    store = DatasetStore(root, quota=50_000)
    by_id = sorted(store.put(sized(i, 10_000), f"{i}.csv") for i in range(4))
    for ds_id in (by_id[1], by_id[2], by_id[3], by_id[0]):  # real opens: by_id[1] is the least recent
        store.open(ds_id)
    meta_times = {ds_id: os.lstat(root / ds_id[:2] / ds_id / META_FILE).st_mtime_ns for ds_id in by_id}
    for _ in range(2):  # looks at every entry, as a scan for an entry by its name does
        for ds_id in store.ids():
            assert store.exists(ds_id) and ds_id in store
            looked = store.peek(ds_id)
            assert (looked.id, looked.size) == (ds_id, 10_000) and looked.name.endswith(".csv")
        store.usage()
    assert {ds_id: os.lstat(root / ds_id[:2] / ds_id / META_FILE).st_mtime_ns for ds_id in by_id} == meta_times
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)  # (mtimes kept: the order of the copy is the order of the store)
    assert eviction_order(copy) == [by_id[1], by_id[2], by_id[3], by_id[0]]
    e = store.put(sized(4, 10_000), "e.csv")
    assert store.ids() == sorted([by_id[0], by_id[2], by_id[3], e])  # the least recently opened went
    with pytest.raises(EvictedDatasetError, match="was removed from this server"):
        store.peek(by_id[1])  # peek says what get says of a removed data set
    store.get(by_id[2])  # get() still opens: by_id[3] is now the least recently opened
    f = store.put(sized(5, 10_000), "f.csv")
    assert store.ids() == sorted([by_id[0], by_id[2], e, f])
    assert check_intact(root) == sorted([by_id[0], by_id[2], e, f])


def test_a_data_set_in_use_is_kept_while_the_store_fills(tmp_path: Path, clock) -> None:
    """200 uploads of 5 kB into 100 kB: the one being looked at between uploads stays; every other is
    removed in upload order once the store is full, and the store never passes its quota."""
    quota = 100_000
    store = DatasetStore(tmp_path, quota=quota)
    hot = store.put(sized(-1, 5_000), "in use.csv")
    stored: list[str] = []
    for i in range(200):
        stored.append(store.put(sized(i, 5_000), f"upload {i}.csv"))
        assert store.open(hot)[1] == sized(-1, 5_000)  # the user keeps looking at it
        assert store.usage().total_bytes <= quota
    per_entry = entry_bytes(tmp_path, hot)
    fitting = quota // per_entry - 1  # besides the one in use
    assert store.ids() == sorted([hot, *stored[-fitting:]])
    for gone in stored[:-fitting]:
        assert not store.exists(gone)
        with pytest.raises(EvictedDatasetError):
            store.get(gone)
    assert len(list((tmp_path / ".evicted").iterdir())) == 200 - fitting
    assert check_intact(tmp_path) == sorted([hot, *stored[-fitting:]])


def test_a_data_set_larger_than_the_quota_is_refused_and_nothing_is_touched(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path / "store", quota="20kB")
    kept = store.put(sized(1, 8_000), "small.csv")
    before = files_under(tmp_path)
    with pytest.raises(DatasetTooLargeError) as info:
        store.put(sized(2, 20_001), "big.csv")
    message = str(info.value)
    assert message.startswith("The file is 20 kB, more than this server keeps for all uploaded data sets "
                              "together (20 kB); it was not stored.")
    assert isinstance(info.value, StoreWriteError) and isinstance(info.value, EvalcoreError)
    assert_no_server_path(message, tmp_path)
    assert files_under(tmp_path) == before  # nothing evicted, nothing written
    assert store.ids() == [kept]
    with pytest.raises(DatasetTooLargeError):
        DatasetStore(tmp_path / "new", quota=10).put(b"x" * 11, "a.csv")
    assert not (tmp_path / "new").exists()


def test_uploading_an_evicted_file_again_brings_its_links_back(tmp_path: Path, clock) -> None:
    store = DatasetStore(tmp_path, quota=25_000)
    first = store.put(sized(1, 10_000), "first.csv")
    store.put(sized(2, 10_000), "second.csv")
    store.put(sized(3, 10_000), "third.csv")
    with pytest.raises(EvictedDatasetError):
        store.get(first)
    assert store.put(sized(1, 10_000), "renamed.csv") == first
    assert store.get(first).name == "renamed.csv"  # a new upload: its name and time
    assert not (tmp_path / ".evicted" / first).exists()  # the note is gone with the eviction


def test_damaged_copies_and_old_leftovers_go_before_any_data_set(tmp_path: Path, clock) -> None:
    store = DatasetStore(tmp_path, quota=30_000)
    old = store.put(sized(1, 10_000), "old.csv")
    damaged = store.put(sized(2, 10_000), "damaged.csv")
    (tmp_path / damaged[:2] / damaged / DATA_FILE).write_bytes(sized(99, 10_000))
    with pytest.raises(DamagedDatasetError):
        store.open(damaged)
    leftover_id = dataset_id(b"interrupted")
    leftover = tmp_path / leftover_id[:2] / leftover_id
    leftover.mkdir(parents=True)
    (leftover / DATA_FILE).write_bytes(b"y" * 10_000)  # an upload that stopped before its meta.json
    for path in (leftover / DATA_FILE, leftover):
        os.utime(path, (0, 0))  # ... two days ago or more
    running_id = dataset_id(b"running")
    running = tmp_path / running_id[:2] / running_id
    running.mkdir(parents=True)
    (running / ".tmp-upload.part").write_bytes(b"z" * 5_000)  # an upload in progress right now
    # 10 + 10 (set aside) + 10 (leftover) + 5 (running) kB: a new 10 kB data set needs room
    new = store.put(sized(3, 10_000), "new.csv")
    assert store.ids() == sorted([old, new])  # the oldest data set survived
    assert quarantined(tmp_path) == [] and not leftover.exists()
    assert (running / ".tmp-upload.part").exists()  # never removed while it may be written
    assert store.usage().total_bytes <= 30_000


def test_usage_counts_what_takes_room(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path, quota="1MB")
    assert store.usage() == store_module.StoreUsage(0, 0, 0, 10**6)
    ids = [store.put(sized(i, 1_000 * (i + 1)), f"{i}.csv") for i in range(3)]
    usage = store.usage()
    assert usage.datasets == 3 and usage.dataset_bytes == usage.total_bytes
    assert usage.total_bytes == sum(entry_bytes(tmp_path, i) for i in ids)


@st.composite
def operations(draw):
    """Uploads (of one of 8 contents of 1 to 9 kB) and opens, in any order."""
    return draw(st.lists(st.tuples(st.sampled_from(["put", "open"]), st.integers(0, 7), st.integers(1, 9)),
                         min_size=1, max_size=40))


@hypothesis_settings(max_examples=60)
@given(operations(), st.integers(12_000, 40_000))
def test_eviction_agrees_with_a_plain_model(ops, quota: int) -> None:
    """The store against an obviously right model: a dict of id -> (bytes, last opened); before a new
    upload, drop the least recently opened until it fits; after it, until the store is within its quota."""
    sizes = {}
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as tmp:
        ticks = itertools.count(10**18, 10**9)
        mp.setattr(store_module, "_now_ns", lambda: next(ticks))
        root = Path(tmp)
        store = DatasetStore(root, quota=quota)
        model: dict[str, list[int]] = {}  # id -> [bytes on disk, last opened]
        clock_seen = itertools.count()
        for op, k, kb in ops:
            data = sized(k, kb * 1_000) if op == "put" else None
            if op == "open":
                candidates = sorted(model)
                if not candidates:
                    continue
                ds_id = candidates[k % len(candidates)]
                store.open(ds_id)
                model[ds_id][1] = next(clock_seen)
            else:
                ds_id = dataset_id(data)
                if ds_id in model:
                    store.put(data, f"{k}.csv")
                    model[ds_id][1] = next(clock_seen)
                else:
                    def evict_until(fits) -> None:
                        while not fits() and len([i for i in model if i != ds_id]):
                            victim = min((i for i in model if i != ds_id), key=lambda i: model[i][1])
                            del model[victim]

                    evict_until(lambda: sum(v[0] for v in model.values()) + len(data) <= quota)
                    store.put(data, f"{k}.csv")
                    model[ds_id] = [entry_bytes(root, ds_id), next(clock_seen)]
                    sizes[ds_id] = model[ds_id][0]
                    evict_until(lambda: sum(v[0] for v in model.values()) <= quota)
            assert store.ids() == sorted(model)
        assert check_intact(root) == sorted(model)


# -- failed writes: clear messages, nothing left behind ------------------------------


def fill_disk(monkeypatch: pytest.MonkeyPatch, room: int, code: int = errno.ENOSPC) -> None:
    """Make the store's file writes fail with ``code`` once ``room`` bytes are written (partly written
    temporary files stay, as on a real full disk)."""
    left = [room]
    real = tempfile.NamedTemporaryFile

    def named_temporary_file(*args, **kwargs):
        f = real(*args, **kwargs)
        inner = f.file

        def write(data: bytes) -> int:
            n = min(left[0], len(data))
            inner.write(data[:n])
            left[0] -= n
            if n < len(data):
                inner.flush()
                raise OSError(code, os.strerror(code), f.name)  # as the OS does: with the path in filename
            return n

        f.write = write
        return f

    monkeypatch.setattr(store_module, "tempfile", types.SimpleNamespace(NamedTemporaryFile=named_temporary_file))


@pytest.mark.parametrize("room", [0, 10_000, 20_000, 20_050], ids=["nothing", "half the data", "the data only",
                                                                  "the data and part of meta.json"])
def test_disk_full_is_a_message_and_leaves_no_partial_entry(tmp_path: Path, monkeypatch, room: int) -> None:
    store = DatasetStore(tmp_path / "store")
    kept = store.put(CSV, "kept.csv")
    before = files_under(tmp_path)
    data = sized(1, 20_000)
    fill_disk(monkeypatch, room)
    with pytest.raises(StoreWriteError) as info:
        store.put(data, "big.csv")
    message = str(info.value)
    assert message == ("The server's disk is full: the data set (20 kB) could not be stored, and nothing of it was "
                       "kept. Try a smaller file, or ask whoever runs this server to free disk space or to lower "
                       "the store's size limit (now 5 GB).")
    assert_no_server_path(message, tmp_path)
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no OSError (with a path) chained
    assert not store.exists(dataset_id(data))
    leftovers = files_under(tmp_path) - before
    assert all(p.parts[1] == ".trash" for p in leftovers) and not any((tmp_path / p).is_file() for p in leftovers)
    assert check_intact(tmp_path / "store") == [kept]
    monkeypatch.undo()
    assert store.put(data, "big.csv") == dataset_id(data)  # with room again, it stores
    assert check_intact(tmp_path / "store") == sorted([kept, dataset_id(data)])


@pytest.mark.parametrize(
    ("code", "cls", "start"),
    [
        (errno.EDQUOT, StoreWriteError, "The server's disk is full"),
        (errno.EFBIG, DatasetTooLargeError, "The file (20 kB) is larger than the server's file system allows"),
        (errno.EACCES, StoreWriteError, "The server cannot write to the folder where it keeps uploaded data sets "
                                        "(Permission denied)"),
        (errno.EROFS, StoreWriteError, "The server cannot write to the folder where it keeps uploaded data sets "
                                       "(Read-only file system)"),
        (errno.EIO, StoreWriteError, "The server could not store the data set (Input/output error); nothing of it"),
    ],
)
def test_other_write_errors_are_messages_too(tmp_path: Path, monkeypatch, code: int, cls, start: str) -> None:
    store = DatasetStore(tmp_path / "store")
    fill_disk(monkeypatch, 5_000, code)
    with pytest.raises(cls) as info:
        store.put(sized(1, 20_000), "a.csv")
    assert str(info.value).startswith(start)
    assert_no_server_path(str(info.value), tmp_path)
    assert entries_under(tmp_path / "store") == [] and store.ids() == []


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_a_store_folder_that_is_not_a_folder_is_a_message(tmp_path: Path, where: str) -> None:
    """An unwritable folder, as root sees one (chmod does not stop root): a file where the folder should be."""
    blocker = tmp_path / "not a folder"
    blocker.write_bytes(b"")
    root = blocker if where == "a file" else blocker / "store"
    store = DatasetStore(root)
    with pytest.raises(StoreWriteError) as info:
        store.put(CSV, "a.csv")
    message = str(info.value)
    assert message.startswith("The server cannot write to the folder where it keeps uploaded data sets (its path ")
    assert message.endswith("Ask whoever runs this server to make the data set store writable.")
    assert_no_server_path(message, tmp_path)
    assert blocker.read_bytes() == b"" and list(tmp_path.iterdir()) == [blocker]
    with pytest.raises(UnknownDatasetError, match="No data set with id"):  # links: unknown, not a crash
        store.get(dataset_id(CSV))
    assert store.ids() == [] and store.usage().total_bytes == 0


def test_a_write_failure_during_a_concurrent_eviction_retries(tmp_path: Path, monkeypatch) -> None:
    """The entry is renamed away (evicted or set aside by another process) while this upload writes it."""
    store = DatasetStore(tmp_path)
    real = store_module._write_temp
    calls = []

    def vanishing(directory: Path, data: bytes) -> Path:
        calls.append(directory)
        if len(calls) == 1:
            os.rename(directory, tmp_path / "elsewhere")  # what the other process's rename does
        return real(directory, data)

    monkeypatch.setattr(store_module, "_write_temp", vanishing)
    ds_id = store.put(CSV, "a.csv")
    assert store.open(ds_id)[1] == CSV and len(calls) == 3  # data (lost), data, meta


class Stopped(BaseException):
    """A write stopped from outside (a browser session's run told to stop, ^C): a BaseException, not an OSError."""


@pytest.mark.parametrize("room", [0, 10_000, 20_000, 20_050], ids=["nothing", "half the data", "the data only",
                                                                  "the data and part of meta.json"])
def test_a_write_stopped_midway_leaves_nothing_behind_and_holds_no_reservation(tmp_path: Path, monkeypatch,
                                                                              room: int) -> None:
    """(Every step of a write, its reservation and its moves into place included: tests/test_pvalue_store.py.)"""
    store = DatasetStore(tmp_path / "store")
    kept = store.put(CSV, "kept.csv")
    data = sized(1, 20_000)
    left = [room]
    real = tempfile.NamedTemporaryFile

    def named_temporary_file(*args, **kwargs):
        f = real(*args, **kwargs)
        inner = f.file

        def write(chunk: bytes) -> int:
            if len(chunk) > left[0]:
                raise Stopped
            left[0] -= len(chunk)
            return inner.write(chunk)

        f.write = write
        return f

    monkeypatch.setattr(store_module, "tempfile", types.SimpleNamespace(NamedTemporaryFile=named_temporary_file))
    with pytest.raises(Stopped):
        store.put(data, "big.csv")
    assert not store.exists(dataset_id(data)) and check_intact(tmp_path / "store") == [kept]
    assert [p.name for p in entries_under(tmp_path / "store")] == [kept]  # (no entry without its description)
    assert list((tmp_path / "store" / ".reservations").iterdir()) == [] and store.usage().reserved_bytes == 0
    assert store.usage().total_bytes == entry_bytes(tmp_path / "store", kept)
    monkeypatch.undo()
    assert store.put(data, "big.csv") == dataset_id(data)
    assert check_intact(tmp_path / "store") == sorted([kept, dataset_id(data)])


def test_a_failed_write_keeps_the_entry_another_write_of_the_same_bytes_is_completing(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    """Two writes of the same bytes (two sessions, or a stopped run and its rerun, storing the same p-values): the
    one that fails removes the entry it began only if no other write holds a reservation for it."""
    store = DatasetStore(tmp_path)
    ds_id = dataset_id(CSV)
    entry = tmp_path / ds_id[:2] / ds_id
    with store.reserve(len(CSV), dataset=ds_id):  # the other write, its data in place, its description not yet
        entry.mkdir(parents=True)
        (entry / DATA_FILE).write_bytes(CSV)
        fill_disk(monkeypatch, 0)
        with pytest.raises(StoreWriteError, match="disk is full"):
            store.put(CSV, "a.csv")
        monkeypatch.undo()
        assert (entry / DATA_FILE).read_bytes() == CSV
    assert store.put(CSV, "a.csv") == ds_id and check_intact(tmp_path) == [ds_id]
    fill_disk(monkeypatch, 0)  # with no other write under way, a failed write leaves nothing
    with pytest.raises(StoreWriteError):
        store.put(sized(2, 5_000), "b.csv")
    assert check_intact(tmp_path) == [ds_id] and [p.name for p in entries_under(tmp_path)] == [ds_id]


# -- removal stays inside the store --------------------------------------------------


def make_entry(folder: Path, data: bytes, name: str = "x.csv") -> str:
    """An entry built by hand (as another store would have), in ``folder``/<prefix>/<id>."""
    ds_id = dataset_id(data)
    DatasetStore(folder).put(data, name)
    return ds_id


def test_delete_refuses_a_prefix_folder_that_links_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    ds_id = make_entry(outside, CSV)  # outside/<ab>/<id>/...
    root = tmp_path / "store"
    root.mkdir()
    (root / ds_id[:2]).symlink_to(outside / ds_id[:2], target_is_directory=True)
    before = files_under(outside)
    store = DatasetStore(root)
    for call in (store.delete, store.get, store.open):
        with pytest.raises(InvalidDatasetIdError) as info:
            call(ds_id)
        assert "leads outside the data set store" in str(info.value)
        assert_no_server_path(str(info.value), tmp_path)
    assert store.ids() == [] and store.usage().total_bytes == 0  # not listed, not counted
    DatasetStore(root, quota=1000).put(b"new" * 100, "new.csv")  # eviction does not reach it either
    assert files_under(outside) == before


def test_delete_refuses_an_entry_that_links_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    ds_id = make_entry(outside, CSV)
    root = tmp_path / "store"
    (root / ds_id[:2]).mkdir(parents=True)
    (root / ds_id[:2] / ds_id).symlink_to(outside / ds_id[:2] / ds_id, target_is_directory=True)
    before = files_under(outside)
    store = DatasetStore(root, quota=1000)
    with pytest.raises(InvalidDatasetIdError):
        store.delete(ds_id)
    store.put(b"new" * 100, "new.csv")
    assert store.ids() == [dataset_id(b"new" * 100)]
    assert files_under(outside) == before


def test_links_inside_an_entry_are_removed_as_links(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "deep").mkdir(parents=True)
    (outside / "keep.txt").write_bytes(b"precious")
    (outside / "deep" / "keep.txt").write_bytes(b"precious too")
    root = tmp_path / "store"
    store = DatasetStore(root)
    ds_id = store.put(CSV, "a.csv")
    entry = root / ds_id[:2] / ds_id
    (entry / "link to a file").symlink_to(outside / "keep.txt")
    (entry / "link to a folder").symlink_to(outside, target_is_directory=True)
    (entry / "sub").mkdir()
    (entry / "sub" / "link").symlink_to(outside / "deep", target_is_directory=True)
    before = files_under(outside)
    assert store.delete(ds_id) is True
    assert not entry.exists() and not any((root / ".trash").iterdir())
    assert files_under(outside) == before
    assert (outside / "keep.txt").read_bytes() == b"precious"


def test_eviction_and_quarantine_remove_links_not_their_targets(tmp_path: Path, clock) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big.bin").write_bytes(b"b" * 50_000)
    root = tmp_path / "store"
    store = DatasetStore(root, quota=25_000)
    linked = store.put(sized(1, 10_000), "linked.csv")
    data_path = root / linked[:2] / linked / DATA_FILE
    data_path.unlink()
    data_path.symlink_to(outside / "big.bin")  # counted as a link (a few bytes), never read
    damaged = store.put(sized(2, 10_000), "damaged.csv")
    (root / damaged[:2] / damaged / "escape").symlink_to(outside, target_is_directory=True)
    (root / damaged[:2] / damaged / DATA_FILE).write_bytes(sized(3, 10_000))
    with pytest.raises(DamagedDatasetError):
        store.open(damaged)
    store.put(sized(4, 10_000), "c.csv")
    store.put(sized(5, 10_000), "d.csv")  # evicts the set-aside copy
    assert quarantined(root) == [] and store.exists(linked)
    store.put(sized(6, 10_000), "e.csv")  # evicts the entry holding the link (the least recently opened)
    assert not store.exists(linked)
    assert sorted(p.name for p in outside.iterdir()) == ["big.bin"]
    assert (outside / "big.bin").read_bytes() == b"b" * 50_000


@pytest.mark.parametrize("own", [".trash", ".quarantine", ".evicted"])
def test_the_stores_own_folders_are_never_followed_outside(tmp_path: Path, clock, own: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "store"
    root.mkdir()
    (root / own).symlink_to(outside, target_is_directory=True)
    store = DatasetStore(root, quota=25_000)
    first = store.put(sized(1, 10_000), "a.csv")
    second = store.put(sized(2, 10_000), "b.csv")
    (root / second[:2] / second / DATA_FILE).write_bytes(sized(9, 10_000))
    with pytest.raises(DamagedDatasetError):
        store.open(second)  # set aside: moved to .quarantine, or removed where it is
    store.put(sized(3, 10_000), "c.csv")
    store.put(sized(4, 10_000), "d.csv")  # evicts a.csv: renamed into .trash (or removed where it is)
    store.delete(dataset_id(sized(3, 10_000)))
    assert not store.exists(first) and not store.exists(second)
    assert list(outside.iterdir()) == []  # nothing moved, written or removed outside


def test_removal_refuses_folders_outside_the_store(tmp_path: Path) -> None:
    """The one guard every removal passes (private, tested directly)."""
    outside = tmp_path / "outside"
    (outside / "victim").mkdir(parents=True)
    store = DatasetStore(tmp_path / "store")
    store.put(CSV, "a.csv")
    for parent, name in [(outside, "victim"), (tmp_path / "store", ".."), (tmp_path / "store" / "..", "outside"),
                         (tmp_path / "store" / dataset_id(CSV)[:2], "../../outside")]:
        with pytest.raises(StoreError, match="Refused to remove something outside the data set store"):
            store._remove(parent, name)
    assert (outside / "victim").is_dir() and store.ids() == [dataset_id(CSV)]


def test_the_store_never_uses_rmtree() -> None:
    source = Path(store_module.__file__).read_text(encoding="utf-8")
    assert "rmtree(" not in source and "ignore_errors" not in source


# -- no server path in any message ---------------------------------------------------


def test_no_message_shows_a_server_path(tmp_path: Path, monkeypatch, clock) -> None:
    """One message per way a data set can be unavailable; none names a folder of the server."""
    root = tmp_path / "a folder" / "store"
    store = DatasetStore(root, quota=25_000)
    messages = {}

    def message_of(key: str, call, *args) -> None:
        with pytest.raises(EvalcoreError) as info:
            call(*args)
        messages[key] = str(info.value)

    message_of("missing", store.get, VALID_UNKNOWN)
    damaged = store.put(sized(1, 10_000), "damaged.csv")
    (root / damaged[:2] / damaged / DATA_FILE).write_bytes(b"short")
    message_of("damaged", store.open, damaged)
    message_of("set aside", store.get, damaged)
    evicted = store.put(sized(2, 10_000), "evicted.csv")
    store.put(sized(3, 10_000), "b.csv")
    store.put(sized(4, 10_000), "c.csv")
    message_of("evicted", store.open, evicted)
    message_of("too large", store.put, sized(5, 30_000), "big.csv")
    fill_disk(monkeypatch, 100)
    message_of("disk full", store.put, sized(6, 10_000), "d.csv")
    monkeypatch.undo()
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    message_of("unwritable", DatasetStore(blocker / "store").put, CSV, "a.csv")
    assert set(messages) == {"missing", "damaged", "set aside", "evicted", "too large", "disk full", "unwritable"}
    for key, message in messages.items():
        assert_no_server_path(message, root, tmp_path)
        assert "Data page" in message or "whoever runs this server" in message or "smaller file" in message, key


# -- concurrency at the quota --------------------------------------------------------


def check_settled(root: Path, quota: int) -> list[str]:
    """After concurrent uploads: within the quota, every entry intact, nothing set aside as damaged
    (a concurrent removal is not damage), nothing left in .trash."""
    store = DatasetStore(root, quota=quota)
    assert store.usage().total_bytes <= quota
    assert quarantined(root) == []
    assert not (root / ".trash").exists() or list((root / ".trash").iterdir()) == []
    return check_intact(root)


def test_concurrent_uploads_and_opens_at_the_quota_threads(tmp_path: Path) -> None:
    """8 threads upload 24 different files of 50 kB (the store holds 4) and open what they uploaded: an
    open may find the data set removed to make room (the message says so), never damaged or half there."""
    quota = 210_000
    root = tmp_path / "store"
    files = [sized(i, 50_000) for i in range(24)]
    barrier = threading.Barrier(8)
    outcomes: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(k: int) -> None:
        try:
            store = DatasetStore(root, quota=quota)
            barrier.wait()
            for rep in range(12):
                data = files[(3 * k + rep) % 24]
                ds_id = store.put(data, "f.csv")
                try:
                    got = store.open(ds_id)[1]
                    assert got == data
                    result = "read"
                except DamagedDatasetError:
                    raise
                except UnknownDatasetError:  # evicted by another thread in between
                    result = "evicted"
                with lock:
                    outcomes.append(result)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(outcomes) == 96 and "read" in outcomes
    assert 1 <= len(check_settled(root, quota)) <= 4


def _quota_worker(root: str, quota: int, k: int, barrier, queue) -> None:  # noqa: ANN001
    try:
        store = DatasetStore(root, quota=quota)
        barrier.wait()
        results = []
        for rep in range(8):
            data = sized((2 * k + rep) % 12, 100_000)
            ds_id = store.put(data, "shared.csv")
            try:
                results.append("read" if store.open(ds_id)[1] == data else "wrong bytes")
            except DamagedDatasetError as e:
                results.append(f"damaged: {e}")
            except UnknownDatasetError:
                results.append("evicted")
        queue.put(("ok", results))
    except BaseException as e:  # noqa: BLE001
        queue.put(("error", repr(e)))


def test_concurrent_uploads_at_the_quota_processes(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    root = tmp_path / "store"
    quota = 450_000  # four of the twelve 100 kB files
    n = 4
    barrier = ctx.Barrier(n)
    queue = ctx.Queue()
    procs = [ctx.Process(target=_quota_worker, args=(str(root), quota, k, barrier, queue)) for k in range(n)]
    for p in procs:
        p.start()
    outcomes = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(status == "ok" for status, _ in outcomes), outcomes
    results = [r for _, rs in outcomes for r in rs]
    assert set(results) <= {"read", "evicted"} and "read" in results, results
    assert 1 <= len(check_settled(root, quota)) <= 4
