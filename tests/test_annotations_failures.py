"""A database that cannot be written (issue 19): a read-only file, a read-only folder, a full disk. Each is said in
words (an AnnotationDatabaseError, never an sqlite3 exception), no mark is counted that was not committed, and
nothing saved before is lost: once the server can write again, every earlier mark is there and marking goes on.

The read-only cases run the store as an unprivileged user (uid 65534) when the tests run as root, who may write any
file; the full disk is a 2 MB tmpfs filled to the brim (mounting needs root; elsewhere the test is skipped)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from evalcore.annotations import AnnotationDatabaseError, AnnotationStore

DATASET = "0" * 63 + "1"


@contextlib.contextmanager
def unprivileged():
    """As an ordinary user: root writes read-only files anyway (the store's folder is world-readable)."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(65534)
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


@pytest.fixture
def folder():
    """A folder others may enter (pytest's own are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="evalcore-ro-"))
    path.chmod(0o755)
    yield path
    path.chmod(0o755)
    for child in path.iterdir():
        child.chmod(0o644)
    shutil.rmtree(path)


def annotated(path: Path) -> AnnotationStore:
    store = AnnotationStore(path)
    store.create_sample(DATASET, "s", list(range(50)), seed=1)
    for c in range(5):
        store.annotate(DATASET, "s", c, "ann", "TP")
    return store


def check_nothing_lost(path: Path) -> None:
    store = AnnotationStore(path)
    try:
        _check(store, path)
    finally:
        store.close()


def _check(store: AnnotationStore, path: Path) -> None:
    assert store.progress(DATASET, "s", "ann") == (5, 50)
    assert store.table(DATASET, "s")["ann"].to_dict() == {c: "TP" for c in range(5)}
    assert store.mark(DATASET, "s", 5, 5, "ann", "FP").applied  # writable again: marking goes on
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_database_says_so_in_words(folder, what):
    path = folder / "annotations.sqlite3"
    annotated(path)
    if what == "file":
        path.chmod(0o444)
    else:
        path.chmod(0o666)
        folder.chmod(0o555)
    with unprivileged():
        with pytest.raises(AnnotationDatabaseError) as refused:
            AnnotationStore(path).mark(DATASET, "s", 5, 5, "ann", "FP")
    text = str(refused.value)
    assert "the annotation database is read-only on this server" in text and "sqlite3" not in text
    assert str(folder) not in text  # no path of the server
    folder.chmod(0o755)
    path.chmod(0o644)
    check_nothing_lost(path)


@pytest.fixture
def tiny_disk():
    path = Path(tempfile.mkdtemp(prefix="evalcore-full-"))
    mounted = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(path)],
                                                   capture_output=True).returncode == 0
    if not mounted:
        path.rmdir()
        pytest.skip("a full disk is simulated by a small tmpfs, which only root can mount")
    yield path
    if subprocess.run(["umount", str(path)]).returncode:  # (a connection left open by a failed test)
        subprocess.run(["umount", "-l", str(path)], check=True)
    path.rmdir()


@pytest.mark.parametrize("left_kb", [0, 36])
def test_a_full_disk_says_so_and_loses_nothing(tiny_disk, left_kb):
    path = tiny_disk / "annotations.sqlite3"
    store = annotated(path)
    store.close()  # (the last connection: its log is folded into the file and removed, as when a server restarts)
    filler = tiny_disk / "filler"
    free = os.statvfs(tiny_disk).f_bavail * os.statvfs(tiny_disk).f_frsize
    filler.write_bytes(b"\0" * (free - left_kb * 1024))
    with pytest.raises(AnnotationDatabaseError, match="Your mark was not saved: the disk that holds the annotation "
                                                      "database is full. Nothing was changed"):
        store.mark(DATASET, "s", 5, 5, "ann", "FP")
    with pytest.raises(AnnotationDatabaseError, match="The sample of 10,000 candidates was not saved: the disk"):
        store.create_sample(DATASET, "t", list(range(10_000)), seed=2)
    filler.unlink()
    check_nothing_lost(path)
    assert store.samples(DATASET)["sample"].tolist() == ["s"]  # the draw that failed is not there
    store.close()
