"""The host's folder of large data sets (ui/serverdata.py, issue 21): only the folder's own entries can be opened
(no path, no '..', no symbolic link that leads out, the folder's own size limit), and count tables are kept in the
store so that a link reopens a set without counting it again."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from evalcore.viewstate import dataset_problem
from ui import serverdata


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"label": rng.random(3000) < 0.2, "a": rng.integers(0, 9, 3000).astype(float),
                          "b": np.round(rng.normal(size=3000), 1)})
    frame.to_parquet(data / "big.parquet")
    parts = data / "parts"
    parts.mkdir()
    frame.iloc[:1000].to_parquet(parts / "p0.parquet")
    frame.iloc[1000:].to_parquet(parts / "p1.parquet")
    (data / ".hidden.parquet").write_bytes(b"x")
    outside = tmp_path / "secret.parquet"
    frame.to_parquet(outside)
    os.symlink(outside, data / "link_out.parquet")  # leads out of the folder: never listed, never opened
    os.symlink(data / "big.parquet", data / "link_in.parquet")  # stays inside: allowed
    leaky = data / "leaky"
    leaky.mkdir()
    os.symlink(outside, leaky / "p0.parquet")  # a folder whose part leads out
    monkeypatch.setenv("EVALCORE_DATA_DIR", str(data))
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    return data


def test_the_listing_holds_only_the_folders_own_data_sets(folder):
    listed = {s["name"]: s["kind"] for s in serverdata.listing()}
    assert listed == {"big.parquet": "parquet", "link_in.parquet": "parquet", "parts": "parts"}


@pytest.mark.parametrize("name", ["../secret.parquet", "link_out.parquet", "leaky", ".hidden.parquet", "nothing",
                                  "/etc/passwd", "parts/p0.parquet"])
def test_nothing_outside_the_folder_opens(folder, name):
    with pytest.raises(serverdata.ServerDataError) as info:
        serverdata.path_of(serverdata.SERVER_PREFIX + name)
    assert str(folder) not in str(info.value)  # messages never show the server's paths


def test_links_with_a_path_are_refused_before_any_file_is_touched():
    for bad in ("server:../x", "server:/etc/passwd", "server:a/b", "server:"):
        assert dataset_problem(bad) is not None
    assert dataset_problem("server:big.parquet") is None


def test_the_folder_has_its_own_size_limit(folder, monkeypatch):
    monkeypatch.setenv("EVALCORE_DATA_MAX_BYTES", "1000")
    with pytest.raises(serverdata.ServerDataError, match="EVALCORE_DATA_MAX_BYTES"):
        serverdata.path_of("server:big.parquet")


def test_without_a_folder_the_page_says_so(monkeypatch):
    monkeypatch.delenv("EVALCORE_DATA_DIR", raising=False)
    assert serverdata.listing() == []
    with pytest.raises(serverdata.ServerDataError, match="EVALCORE_DATA_DIR is not set"):
        serverdata.path_of("server:big.parquet")


def test_count_tables_come_back_from_the_store(folder, monkeypatch):
    from evalcore.io.store import DatasetStore

    serverdata.count_tables.clear()
    first = serverdata.count_tables("server:parts", "label", ("a", "b"), (), "hash", 7)
    names = [DatasetStore().get(i).name for i in DatasetStore().ids()]
    assert len(names) == 1 and names[0].startswith("counts-") and names[0].endswith(".npz")
    serverdata.count_tables.clear()  # a restarted server: no cache, the store still has them

    def no_engine():
        raise AssertionError("counted again")

    monkeypatch.setattr(serverdata, "engine", no_engine)
    again = serverdata.count_tables("server:parts", "label", ("a", "b"), (), "hash", 7)
    for m in ("a", "b"):
        assert np.array_equal(again[m].tp_ranks, first[m].tp_ranks)
    assert np.array_equal(again.pairs[("a", "b")].both_steps, first.pairs[("a", "b")].both_steps)
    with pytest.raises(AssertionError, match="counted again"):  # another seed is another count
        serverdata.count_tables("server:parts", "label", ("a", "b"), (), "hash", 8)
    serverdata.count_tables.clear()
