"""The data set store as the dashboard shows it (streamlit.testing.v1.AppTest): an upload is read before it is
stored (a refused file leaves nothing on disk, a good one is read once), a stored data set is hashed once however
often the pages rerun, and every way a data set can be missing (removed to make room, damaged, never stored here)
or cannot be stored (disk full, too large, unwritable folder) is a message on the page, with a way to the Data
page and without a path of the server.
"""

from __future__ import annotations

import errno
import hashlib
import re
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest
from hostile import plain
import streamlit as st
from streamlit.testing.v1 import AppTest

import evalcore.io.store as store_module
import evalcore_app.cached
from evalcore.io.store import DATA_FILE, DatasetStore, dataset_id, format_size
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
ABSOLUTE_PATH = re.compile(r"(?:^|[\s(\['\"=:])/(?:[\w.~-]+/)*[\w.~-]+")


@pytest.fixture(autouse=True)
def store_root(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("EVALCORE_STORE_QUOTA", raising=False)
    monkeypatch.delenv("EVALCORE_DEFAULT_DATASET", raising=False)
    st.cache_resource.clear()  # each test starts from an empty cache, as a fresh server would
    yield tmp_path / "store"
    st.cache_resource.clear()


def candidates(seed: int, n: int = 400) -> bytes:
    """A small candidate set as TSV; each seed gives other bytes, so another data set id."""
    rng = np.random.default_rng(seed)
    tp = rng.random(n) < 0.2
    a = rng.normal(size=n) + tp
    b = rng.normal(size=n) + 0.5 * tp
    rows = [f"w{i}\t{'TP' if t else 'FP'}\t{x:.6f}\t{y:.6f}" for i, (t, x, y) in enumerate(zip(tp, a, b))]
    return ("key\tlabel\tam.a\tam.b\n" + "\n".join(rows) + "\n").encode()


def app(params: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.file_uploader[0].set_value((name, content, "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> list[str]:
    """Every message and text element on the page and in the sidebar."""
    texts = [plain(e.value) for kind in ("error", "warning", "info", "success", "caption", "markdown") for e in
             getattr(at, kind)]
    return texts + [plain(e.value) for kind in ("caption", "markdown", "code") for e in getattr(at.sidebar, kind)]


def assert_no_server_path(at: AppTest, *places: Path) -> None:
    for text in shown_text(at):
        for place in places:
            assert str(place) not in text and str(place.resolve()) not in text, text
        link_free = text.replace(at.sidebar.code[0].value, "") if at.sidebar.code else text  # the share link
        assert not ABSOLUTE_PATH.search(link_free), text


def files_in(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def to_data_page(at: AppTest):
    """The page link to the Data page, if the page shows one."""
    from evalcore_app.common import PAGES

    return [link for link in at.get("page_link") if link.proto.page_script_hash == PAGES["data"]._script_hash]


# -- an upload is read first, and stored only if it reads ---------------------------


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("ragged.csv", b"word,score,label\nx,1,TRUE\ny,2\nz,3,FALSE,extra\n"),
        ("empty.csv", b""),
        ("header only.tsv", b"key\tlabel\tscore\n"),
        ("binary.csv", bytes(range(256)) * 40),
    ],
    ids=["ragged rows", "empty", "header only", "binary"],
)
def test_a_refused_upload_leaves_nothing_on_disk(store_root, name, content):
    at = upload(app(), name, content)
    assert at.error, "the page says why the file was refused"
    assert files_in(store_root) == []
    assert at.session_state["view"].dataset is None
    assert_no_server_path(at, store_root)


def test_an_upload_is_read_once_then_stored(store_root, monkeypatch):
    content = candidates(1)
    reads = []
    real_read = evalcore_app.cached.read_table
    monkeypatch.setattr(evalcore_app.cached, "read_table", lambda *a, **k: reads.append(k.get("name")) or real_read(*a, **k))
    opens = []
    real_open = DatasetStore.open
    monkeypatch.setattr(DatasetStore, "open", lambda self, i: opens.append(i) or real_open(self, i))
    at = upload(app(), "good.tsv", content)
    assert not at.error and {m.label: m.value for m in at.metric}["Candidates N"] == "400"
    assert DatasetStore().ids() == [dataset_id(content)]
    at.switch_page("pages/precision.py").run()
    assert specs(at)
    assert reads == ["good.tsv"] and opens == []  # read before storing, never again (nor re-read from the store)


def test_a_stored_data_set_is_hashed_once_however_often_the_pages_rerun(monkeypatch):
    content = candidates(2)
    ds_id = DatasetStore().put(content, "stored.tsv")
    hashed = []
    real_sha256 = hashlib.sha256

    def counting(data=b""):
        if len(data) == len(content):
            hashed.append(len(data))
        return real_sha256(data)

    monkeypatch.setattr(store_module.hashlib, "sha256", counting)
    at = app({"dataset": ds_id}, "pages/precision.py")
    assert specs(at) and not at.error
    for page in ("pages/confidence.py", "pages/significance.py", "pages/data.py", "pages/precision.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error
    again = app({"dataset": ds_id}, "pages/precision.py")  # another session opening the same link
    assert specs(again)
    assert hashed == [len(content)]  # checked when first read, then served from the cache by id


# -- uploads that cannot be stored ----------------------------------------------------


def test_disk_full_is_a_message_and_nothing_is_kept(store_root, monkeypatch):
    real = tempfile.NamedTemporaryFile

    def full_disk(*args, **kwargs):
        f = real(*args, **kwargs)

        def write(data):
            f.file.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", f.name)

        f.write = write
        return f

    monkeypatch.setattr(store_module, "tempfile", types.SimpleNamespace(NamedTemporaryFile=full_disk))
    content = candidates(3)
    at = upload(app(), "good.tsv", content)
    assert [plain(e.value) for e in at.error] == [
        f"The server's disk is full: the data set ({format_size(len(content))}) could not be stored, and nothing "
        "of it was kept. Try a smaller file, or ask whoever runs this server to free disk space or to lower the "
        "store's size limit (now 5 GB)."]
    assert at.session_state["view"].dataset is None and not at.metric
    assert files_in(store_root) == []
    assert_no_server_path(at, store_root)


def test_an_unwritable_store_folder_is_a_message(tmp_path, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_bytes(b"")
    monkeypatch.setenv("EVALCORE_STORE", str(blocker / "store"))  # root is not stopped by chmod; a file is
    at = upload(app(), "good.tsv", candidates(4))
    [message] = [plain(e.value) for e in at.error]
    assert message.startswith("The server cannot write to the folder where it keeps uploaded data sets")
    assert "Ask whoever runs this server to make the data set store writable." in message
    assert at.session_state["view"].dataset is None and not at.metric
    assert blocker.read_bytes() == b""
    assert_no_server_path(at, tmp_path)


def test_a_file_larger_than_the_quota_is_refused(store_root, monkeypatch):
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", "5kB")
    kept = DatasetStore().put(b"label,score\nTP,1\nFP,2\n", "small.csv")
    content = candidates(5)
    at = upload(app(), "big.tsv", content)
    [message] = [plain(e.value) for e in at.error]
    assert message.startswith(f"The file is {format_size(len(content))}, more than this server keeps for all "
                              "uploaded data sets together (5 kB); it was not stored.")
    assert DatasetStore().ids() == [kept]  # nothing was removed for it
    assert_no_server_path(at, store_root)


def test_an_upload_at_the_quota_removes_the_least_recently_opened(store_root, monkeypatch):
    sizes = [len(candidates(s)) for s in (6, 7, 8)]
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", str(sum(sizes[:2]) + 1_000))  # two fit, with their descriptions
    store = DatasetStore()
    older, newer = store.put(candidates(6), "older.tsv"), store.put(candidates(7), "newer.tsv")
    assert specs(app({"dataset": older}, "pages/precision.py"))  # opened: now the most recent
    at = upload(app(), "third.tsv", candidates(8))
    assert not at.error and at.metric
    assert store.ids() == sorted([older, dataset_id(candidates(8))])  # "newer" was opened least recently
    link = app({"dataset": newer}, "pages/precision.py")
    assert any("was removed from this server on" in e.value and "('newer.tsv')" in plain(e.value) for e in link.error)


# -- links to data sets that are gone --------------------------------------------------


def evicted_data_set(monkeypatch) -> tuple[str, bytes]:
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", "20kB")
    store = DatasetStore()
    first = candidates(9)
    ds_id = store.put(first, "first.tsv")
    store.put(candidates(10), "second.tsv")
    store.put(candidates(11), "third.tsv")  # no room for three: the first goes
    assert not store.exists(ds_id)
    return ds_id, first


@pytest.mark.parametrize("page", ["pages/precision.py", "pages/significance.py", "pages/roc.py"])
def test_a_link_to_an_evicted_data_set_says_so_and_points_to_the_data_page(store_root, monkeypatch, page):
    ds_id, _ = evicted_data_set(monkeypatch)
    at = app({"dataset": ds_id}, page)
    [message] = [plain(e.value) for e in at.error]
    assert message.startswith(f"The data set {ds_id[:12]}… ('first.tsv') was removed from this server on ")
    assert "the server keeps at most 20 kB of uploaded data and removes the data sets opened least recently" in message
    assert message.endswith("Upload the file again on the Data page: the same file gets the same id, so links to "
                            "it work again.")
    [link] = to_data_page(at)
    assert link.proto.label == "Upload it again on the Data page"
    assert not specs(at) and not at.metric
    assert_no_server_path(at, store_root)


def test_uploading_an_evicted_file_again_brings_the_link_back(store_root, monkeypatch):
    ds_id, content = evicted_data_set(monkeypatch)
    at = app({"dataset": ds_id})  # the Data page: the message, and the uploader right there
    assert any("was removed from this server" in plain(e.value) for e in at.error) and at.file_uploader
    upload(at, "first again.tsv", content)
    assert not at.error and at.session_state["view"].dataset == ds_id
    assert specs(app({"dataset": ds_id}, "pages/precision.py"))


def test_a_link_to_a_data_set_never_stored_here_says_so_and_points_to_the_data_page(store_root):
    unknown = dataset_id(b"never uploaded")
    at = app({"dataset": unknown}, "pages/confidence.py")
    [message] = [plain(e.value) for e in at.error]
    assert message == (f"No data set with id {unknown[:12]}… is stored on this server: the link may come from "
                       "another server, or the data set was removed. Upload the file again on the Data page.")
    assert [link.proto.label for link in to_data_page(at)] == ["Upload it again on the Data page"]
    assert not specs(at)
    assert not store_root.exists()  # looking it up created nothing
    assert_no_server_path(at, store_root)


@pytest.mark.parametrize("page", [None, "pages/precision.py"])
def test_a_damaged_copy_is_refused_set_aside_and_never_shown(store_root, page):
    content = candidates(12)
    ds_id = DatasetStore().put(content, "damaged.tsv")
    data_path = store_root / ds_id[:2] / ds_id / DATA_FILE
    data_path.write_bytes(content.replace(b"\tTP\t", b"\tFP\t", 1))  # one label flipped: same size, other data
    at = app({"dataset": ds_id}, page)  # (with a page: the Data page, where the router starts, read it first)
    [message] = [plain(e.value) for e in at.error]
    again = "Upload the file again on the Data page: the same file gets the same id, so links to it work again."
    assert message == (f"The stored copy of data set {ds_id[:12]}… ('damaged.tsv') is damaged (its content no "
                       f"longer matches its id); it was set aside and is not shown. {again}" if page is None else
                       f"The stored copy of data set {ds_id[:12]}… was found damaged and set aside; it is not "
                       f"shown. {again}")
    assert not specs(at) and not at.metric and not at.dataframe  # no number from the damaged copy
    assert not data_path.exists() and len(list((store_root / ".quarantine").iterdir())) == 1
    if page:
        assert [link.proto.label for link in to_data_page(at)] == ["Upload it again on the Data page"]
    later = app({"dataset": ds_id}, "pages/precision.py")  # the next visitor: set aside, still a message
    assert any("was found damaged and set aside" in plain(e.value) for e in later.error)
    assert_no_server_path(at, store_root)
    assert_no_server_path(later, store_root)
