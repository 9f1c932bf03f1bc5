"""The store's quota at every moment (issue 19): room reserved before a write (across threads and processes, a dead
writer's reservation dropped), the annotation database counted and never evicted, data sets open in a session
pinned (kept until the session ends), a refusal with a message when nothing can be evicted."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from pathlib import Path

import pytest

import evalcore.io.store as store_module
from evalcore.annotations import DB_FILE
from evalcore.io.store import (
    ANNOTATION_FILES,
    DatasetStore,
    DatasetTooLargeError,
    EvictedDatasetError,
    StoreFullError,
    dataset_id,
)


def sized(i: int, size: int) -> bytes:
    head = f"label,score\nTP,{i}\n".encode()
    return head + b"#" * (size - len(head))


def folder_bytes(root: Path) -> int:
    """What a host sees on disk: every regular file under the store folder, each file once (by inode: a file
    renamed while the walk runs, into .trash or from a temporary name, is the same file), but the notes of
    evicted data sets, a hundred bytes each, which the quota leaves out by design."""
    sizes = {}
    for folder, dirs, files in os.walk(root):
        if Path(folder) == root and ".evicted" in dirs:
            dirs.remove(".evicted")
        for name in files:
            try:
                info = os.lstat(os.path.join(folder, name))
            except OSError:  # removed while we looked
                continue
            sizes[info.st_ino] = info.st_size
    return sum(sizes.values())


# -- the annotation database is counted, never evicted -------------------------------


def test_the_annotation_database_counts_and_is_never_evicted(tmp_path: Path) -> None:
    assert ANNOTATION_FILES[0] == DB_FILE  # the name evalcore.annotations writes
    store = DatasetStore(tmp_path, quota=100_000)
    first = store.put(sized(1, 30_000), "a.csv")
    for name, size in zip(ANNOTATION_FILES[:3], (40_000, 8_000, 2_000)):
        (tmp_path / name).write_bytes(b"\0" * size)
    usage = store.usage()
    assert usage.annotation_bytes == 50_000 and usage.total_bytes == 50_000 + usage.dataset_bytes
    store.put(sized(2, 30_000), "b.csv")  # 30 + 50 + 30 > 100: the data set goes, the annotations stay
    with pytest.raises(EvictedDatasetError):
        store.get(first)
    assert all((tmp_path / n).stat().st_size > 0 for n in ANNOTATION_FILES[:3])
    with pytest.raises(StoreFullError) as info:  # 50 kB of annotations + 60 kB > 100 kB: refused, nothing evicted
        store.put(sized(3, 60_000), "c.csv")
    message = str(info.value)
    assert "no room for the data set (60 kB)" in message and "keeps at most 100 kB" in message
    assert "50 kB of annotations, never removed" in message
    assert store.exists(dataset_id(sized(2, 30_000))) and store.usage().total_bytes <= 100_000


# -- reservations --------------------------------------------------------------------


def test_a_reservation_holds_room_until_it_ends(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path, quota=100_000)
    kept = store.put(sized(1, 30_000), "old.csv")
    with store.reserve(60_000, what="the sample of 1,000 candidates"):
        assert store.usage().reserved_bytes == 60_000
        (tmp_path / DB_FILE).write_bytes(b"\0" * 50_000)  # the write the reservation was for
        assert store.usage().total_bytes <= 100_000
    assert store.usage().reserved_bytes == 0 and store.exists(kept)  # 30 + 60 fit: nothing removed
    with pytest.raises(DatasetTooLargeError, match="The sample of 5 candidates needs 200 kB, more than"):
        with store.reserve(200_000, what="the sample of 5 candidates"):
            pass


def test_a_write_waits_for_room_that_writes_in_progress_take(tmp_path: Path) -> None:
    """Room taken by another write in progress: the second waits until it ends, then evicts what that wrote."""
    store = DatasetStore(tmp_path, quota=100_000)
    entered, release = threading.Event(), threading.Event()

    def first() -> None:
        with store.reserve(70_000, what="the first"):
            entered.set()
            (tmp_path / DB_FILE).write_bytes(b"\0" * 10_000)
            release.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    entered.wait(10)
    done = []
    second = threading.Thread(target=lambda: done.append(store.put(sized(2, 60_000), "b.csv")))
    second.start()
    second.join(0.3)
    assert second.is_alive() and not done  # 70 kB reserved + 60 kB > 100 kB: waiting
    release.set()
    thread.join(10)
    second.join(10)
    assert done and store.exists(done[0]) and store.usage().total_bytes <= 100_000


def test_waiting_gives_up_with_a_message(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path, quota=100_000)
    with store.reserve(70_000):
        blocked = DatasetStore(tmp_path, quota=100_000)
        with pytest.raises(StoreFullError, match=r"no room for the data set \(60 kB\) yet.*being written"):
            with blocked.reserve(60_000, wait=0.2):
                pass


def _reserve_and_die(root: str, ready) -> None:  # noqa: ANN001
    store = DatasetStore(root, quota=100_000)
    context = store.reserve(90_000, what="a write that never ends")
    context.__enter__()
    ready.set()
    time.sleep(60)  # killed by the test


def test_the_reservation_of_a_dead_process_is_dropped(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    proc = ctx.Process(target=_reserve_and_die, args=(str(tmp_path), ready))
    proc.start()
    try:
        assert ready.wait(60)
        store = DatasetStore(tmp_path, quota=100_000)
        assert store.usage().reserved_bytes == 90_000
        with pytest.raises(StoreFullError):
            with store.reserve(20_000, wait=0.1):
                pass
    finally:
        proc.kill()
        proc.join(10)
    t0 = time.monotonic()
    DatasetStore(tmp_path, quota=100_000).put(sized(1, 60_000), "a.csv")  # at once: its writer is gone
    assert time.monotonic() - t0 < 2
    assert store.usage().reserved_bytes == 0 and list((tmp_path / ".reservations").iterdir()) == []


def test_a_crashed_uploads_leftover_goes_at_once(tmp_path: Path) -> None:
    """An incomplete entry that no write holds a reservation for is a leftover, removed to make room."""
    store = DatasetStore(tmp_path, quota=100_000)
    leftover_id = dataset_id(sized(9, 70_000))
    entry = tmp_path / leftover_id[:2] / leftover_id
    entry.mkdir(parents=True)
    (entry / "data.bin").write_bytes(sized(9, 70_000))  # no meta.json: the upload stopped
    store.put(sized(1, 60_000), "a.csv")
    assert not entry.exists() and store.usage().total_bytes <= 100_000


# -- 8 concurrent uploads: the quota at every moment ----------------------------------


def test_eight_concurrent_uploads_never_pass_the_quota(tmp_path: Path) -> None:
    """Issue 19: with a 2 MB quota, 8 simultaneous uploads of 475 kB (3.8 MB together) pushed the store to
    3.8 MB while they ran. The folder's size, sampled while they run, must never pass the quota."""
    quota, size = 2_000_000, 475_000
    root = tmp_path / "store"
    barrier = threading.Barrier(9)
    stop = threading.Event()
    peak = [0]
    errors: list[BaseException] = []

    def sample() -> None:
        barrier.wait()
        while not stop.is_set():
            peak[0] = max(peak[0], folder_bytes(root))

    def upload(k: int) -> None:
        try:
            store = DatasetStore(root, quota=quota)
            barrier.wait()
            for rep in range(3):  # three rounds of 8 different files: later rounds evict earlier ones
                store.put(sized(8 * rep + k, size), f"f{k}.csv")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=upload, args=(k,)) for k in range(8)]
    sampler = threading.Thread(target=sample)
    sampler.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    sampler.join()
    assert errors == []
    assert 0 < peak[0] <= quota, f"the store reached {peak[0]:,} bytes; its quota is {quota:,}"
    assert DatasetStore(root, quota=quota).usage().total_bytes <= quota


# -- pins: a data set open in a session is kept --------------------------------------


def test_a_pinned_data_set_survives_six_uploads_and_then_nothing_fits(tmp_path: Path) -> None:
    """Issue 19: a data set a page uses was removed when six other people uploaded. Pinned, it stays; when every
    data set is pinned, a new upload is refused with a message and nothing is removed."""
    store = DatasetStore(tmp_path, quota=100_000)
    used = store.put(sized(0, 30_000), "mine.csv", holder="session-a")
    others = [store.put(sized(i, 30_000), f"other{i}.csv") for i in range(1, 7)]
    assert store.exists(used) and store.usage().total_bytes <= 100_000
    assert sum(store.exists(i) for i in others) == 2  # the last two beside the pinned one
    store.pin(others[-1], "session-b")
    store.pin(others[-2], "session-c")
    with pytest.raises(StoreFullError) as info:
        store.put(sized(7, 30_000), "new.csv")
    message = str(info.value)
    assert "open in someone's session, removed only when that session ends" in message
    assert "Nothing was written" in message
    assert all(store.exists(i) for i in (used, others[-1], others[-2]))
    store.unpin(used, "session-a")  # the session ended
    store.put(sized(7, 30_000), "new.csv")
    assert not store.exists(used)


def test_a_pin_expires_when_it_is_not_renewed(tmp_path: Path, monkeypatch) -> None:
    now = [time.time_ns()]
    monkeypatch.setattr(store_module, "_now_ns", lambda: now[0])
    store = DatasetStore(tmp_path, quota=70_000, lease_seconds=600)
    used = store.put(sized(0, 30_000), "mine.csv")
    store.pin(used, "session-a")
    now[0] += 599 * 10**9
    assert store.pinned() == {used}
    now[0] += 2 * 10**9  # the holder's server was killed: nobody renews it
    assert store.pinned() == set() and list((tmp_path / ".leases").iterdir()) == []
    store.put(sized(1, 30_000), "b.csv")
    store.put(sized(2, 30_000), "c.csv")
    assert not store.exists(used)


def test_only_a_stored_data_set_is_pinned(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    store.pin(dataset_id(b"never stored"), "session-a")  # an id from a stranger's link
    assert store.pinned() == set() and not (tmp_path / ".leases").exists()


@pytest.mark.parametrize("holder", ["", "../x", "a/b", "x" * 81, None, "a.b"])
def test_a_holder_is_a_plain_name(tmp_path: Path, holder) -> None:
    store = DatasetStore(tmp_path)
    with pytest.raises(ValueError, match="`holder` must be"):
        store.pin(dataset_id(b"x"), holder)
