"""Tests of evalcore.store: content-addressed, atomic, restart-proof, and closed to malformed ids."""

from __future__ import annotations

import builtins
import hashlib
import json
import multiprocessing
import os
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.errors import EvalcoreError
from evalcore.store import (
    DATA_FILE,
    META_FILE,
    DatasetStore,
    InvalidDatasetIdError,
    StoredDataset,
    UnknownDatasetError,
    dataset_id,
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


def check_intact(root: Path) -> list[str]:
    """Every entry's bytes hash to its id; only data.bin and meta.json exist. Returns the ids."""
    ids = []
    for path in root.rglob("*"):
        if path.is_file():
            assert path.name in (DATA_FILE, META_FILE), f"leftover file {path}"
    for meta_path in root.glob(f"*/*/{META_FILE}"):
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
    assert stored.format == "csv"
    assert stored.read_bytes() == CSV
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
    assert meta["name"] == "x.tsv" and meta["size"] == len(CSV) and meta["format"] == "tsv"
    assert datetime.fromisoformat(meta["uploaded"]).utcoffset().total_seconds() == 0


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.CSV", "csv"), ("a.tsv.gz", "tsv"), ("a.txt", "text"), ("a.parquet", "parquet"),
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


def test_damaged_data_is_rewritten(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    data_path = tmp_path / ds_id[:2] / ds_id / DATA_FILE
    data_path.write_bytes(CSV[:-3] + b"XX\n")  # same size, other bytes
    assert store.put(CSV, "a.csv") == ds_id
    assert data_path.read_bytes() == CSV
    data_path.write_bytes(CSV[:5])  # truncated
    with pytest.raises(UnknownDatasetError, match="damaged"):
        store.get(ds_id).read_bytes()
    store.put(CSV, "a.csv")
    assert store.get(ds_id).read_bytes() == CSV
    check_intact(tmp_path)


def test_damaged_meta_is_reported(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    ds_id = store.put(CSV, "a.csv")
    (tmp_path / ds_id[:2] / ds_id / META_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(UnknownDatasetError, match="damaged.*upload the file again"):
        store.get(ds_id)


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
    assert "is stored on this server. It may have been uploaded to another server, or removed; " in message
    assert message.endswith("upload the file again on the Data page.")
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
    """Records every file-system call evalcore.store (or pathlib) could make."""
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
