"""The host's folder of large data sets (evalcore_app/serverdata.py, issue 21): only the folder's own entries can be opened
(no path, no '..', no symbolic link that leads out, the folder's own size limit), and count tables are kept in the
store so that a link reopens a set without counting it again."""

from __future__ import annotations

import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from evalcore.viewstate import dataset_problem
from evalcore_app import serverdata


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


def test_looking_for_stored_count_tables_opens_only_the_ones_read(folder, tmp_path):
    """The cost estimate and count_tables find the stored count tables by a scan that looks at every entry's name:
    the looks must not count as opens, so the store still evicts by real opens (the uploads in the order they were
    opened, the reverse of the scan's order; the count tables read last)."""
    from evalcore.io.store import DatasetStore
    from evalcore_app import costs
    from tests.test_store import eviction_order, sized

    args = ("server:parts", "label", ("a", "b"), (), "hash", 7)
    serverdata.count_tables.clear()
    serverdata.count_tables(*args)
    store = DatasetStore()
    [counts] = store.ids()
    uploads = sorted(store.put(sized(i, 5_000), f"upload {i}.csv") for i in range(3))
    for dataset_id in reversed(uploads):  # a user opens them, in the reverse of the scan's order
        store.open(dataset_id)
    serverdata.count_tables.clear()  # a restarted server: the counts come from the store
    assert costs.server_counts(*args).what == "reading the stored count tables"  # a scan by name
    assert costs.server_counts("server:parts", "label", ("a", "b"), (), "hash", 8).what != \
        "reading the stored count tables"  # a scan that finds nothing
    serverdata.count_tables(*args)  # a scan by name, then the count tables read (opened)
    serverdata.count_tables.clear()
    shutil.copytree(store.root, tmp_path / "copy")  # (the copy keeps the times, so it evicts in the store's order)
    assert eviction_order(tmp_path / "copy") == [*reversed(uploads), counts]


# ----------------------------------------------------------------------- hostile files in the folder (issue 29, §3)
from serverdata_hostile import GOOD_FILES, HOSTILE_FILES, write_folder  # noqa: E402

NO_SQL = ("SELECT", "read_parquet", "read_csv", "__evalcore_row", "LINE 1", "FROM (")


@pytest.fixture(scope="module")
def hostile_folder(tmp_path_factory):
    return write_folder(tmp_path_factory.mktemp("hostile") / "data")


@pytest.fixture()
def hostile(hostile_folder, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_DATA_DIR", str(hostile_folder))
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    serverdata.summary.clear()
    serverdata.count_tables.clear()
    return hostile_folder


def assert_a_message_in_words(message: str, name: str, folder) -> None:
    """Names the file by its name in the folder; no path of the server, no SQL, not as long as the input."""
    assert name in message, message
    assert str(folder) not in message and "/tmp" not in message, message
    assert not any(word in message for word in NO_SQL), message
    assert len(message) < 600, len(message)


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_each_hostile_file_is_refused_in_words_by_the_preview_and_the_summary(hostile, name):
    """Before: DuckDB's and pyarrow's own errors (the server's paths, the SQL) or a TypeError for 11 of the 16 files
    in the summary and 9 in the preview; the preview of a CSV file said it was Parquet."""
    from evalcore.errors import EvalcoreError

    dataset = serverdata.SERVER_PREFIX + name
    try:  # (the first rows of a file with odd columns, or with no label, read: the summary refuses it)
        serverdata.preview(dataset)
    except EvalcoreError as exc:
        assert_a_message_in_words(str(exc), name, hostile)
    with pytest.raises(EvalcoreError) as summary:
        serverdata.summary(dataset, None, (), ())
    assert_a_message_in_words(str(summary.value), name, hostile)


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_the_engine_refuses_each_hostile_file_in_words(hostile, name):
    """The engine itself, as the command line and Python use it."""
    from evalcore.engines import TableSource, count_tables
    from evalcore.errors import EvalcoreError

    with pytest.raises(EvalcoreError) as info:
        count_tables(TableSource(hostile / name), engine="duckdb", ties="hash", seed=1)
    assert_a_message_in_words(str(info.value), name, hostile)


@pytest.mark.parametrize("name, words", [
    ("truncated.parquet", "not a complete Parquet file"), ("empty.parquet", "empty (0 bytes)"),
    ("empty.csv", "empty (0 bytes)"), ("text.parquet", "text, not Parquet"),
    ("binary.csv", "an Apache Parquet file, not CSV/TSV text"), ("garbage.csv", "binary content, not CSV/TSV"),
    ("notgzip.csv.gz", "not gzip-compressed"), ("badpart", "badpart (part p1.parquet) is text, not Parquet"),
    ("badline.csv", "line 30,002, column 'a': 'abc' cannot be read as DOUBLE"),
    ("struct.parquet", "no numeric score column"), ("list.parquet", "no numeric score column"),
    ("interval.parquet", "no numeric score column"), ("array.parquet", "no numeric score column"),
])
def test_what_is_wrong_with_each_file_is_said(hostile, name, words):
    from evalcore.engines import TableSource, count_tables
    from evalcore.errors import EvalcoreError

    with pytest.raises(EvalcoreError, match=re.escape(words)):
        count_tables(TableSource(hostile / name), engine="duckdb", ties="hash", seed=1)


def test_the_command_line_says_it_in_one_line(hostile, capsys):
    from evalcore.cli import main

    for name in ("truncated.parquet", "badpart", "longname.csv"):
        assert main(["curves", str(hostile / name), "--engine", "duckdb", "--ties", "hash", "--seed", "1"]) == 2
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if line.startswith("evalcore: error: ")]
        assert len(errors) == 1 and "Traceback" not in err, err
        assert errors[0].startswith(f"evalcore: error: {hostile / name}")  # the file as it was given, once
        assert_a_message_in_words(errors[0].replace(f"{hostile}/", "", 1), name, hostile)


@pytest.mark.parametrize("type_name, kind", [
    ("DOUBLE", "number"), ("INTEGER", "number"), ("HUGEINT", "number"), ("DECIMAL(18,3)", "number"),
    ("FLOAT", "number"), ("BOOLEAN", "bool"), ("VARCHAR", "text"),
    ("DOUBLE[]", "other"), ("DOUBLE[3]", "other"), ("INTEGER[]", "other"), ("INTERVAL", "other"),
    ("STRUCT(x DOUBLE, y VARCHAR)", "other"), ("MAP(VARCHAR, INTEGER)", "other"), ("DATE", "other"),
    ("TIMESTAMP", "other"), ("BLOB", "other"), ("UUID", "other"), ("UNION(a INTEGER, b VARCHAR)", "other"),
    # Spark's simpleString and Arrow's names
    ("int", "number"), ("bigint", "number"), ("decimal(10,2)", "number"), ("boolean", "bool"), ("string", "text"),
    ("varchar(10)", "text"), ("array<double>", "other"), ("struct<x:double>", "other"),
    ("interval day to second", "other"), ("int64", "number"), ("large_string", "text"),
])
def test_only_scalar_columns_are_scores_or_labels(type_name, kind):
    """Before: DOUBLE[] and INTEGER[] were numbers (their names start with "double", "int"), INTERVAL too."""
    from evalcore.engines.source import schema_kind

    assert schema_kind(type_name) == kind


def test_duckdb_names_the_types_as_the_table_expects():
    """The names above are DuckDB's own (DESCRIBE), so the table does not test made-up spellings."""
    import duckdb

    from evalcore.engines.source import schema_kind

    con = duckdb.connect()
    for cast, kind in [("[1.5]::DOUBLE[]", "other"), ("INTERVAL 3 DAY", "other"), ("{'x': 1.0}", "other"),
                       ("[1, 2, 3]::DOUBLE[3]", "other"), ("1.5::DECIMAL(18,3)", "number"), ("1::HUGEINT", "number")]:
        described = con.execute(f"DESCRIBE SELECT {cast} AS c").fetchall()[0][1]
        assert schema_kind(described) == kind, described


@pytest.mark.parametrize("name", GOOD_FILES)
def test_the_good_files_of_the_folder_open_and_odd_columns_are_neither_label_nor_score(hostile, name):
    dataset = serverdata.SERVER_PREFIX + name
    table, shown_name = serverdata.preview(dataset)
    assert shown_name == name and len(table) == 400
    summary = serverdata.summary(dataset, None, (), ())
    assert (summary.n_candidates, summary.measures) == (400, ("a", "b"))
    expected = pd.read_parquet(hostile / "good.parquet")
    assert summary.n_tp == int(expected["label"].sum())
    if name == "mixed.parquet":  # the struct and list columns are shown as text, never a score
        assert table["s"].iloc[0] == "{'x': 1.0}" and table["l"].iloc[0] == "[1.0]"


# ----------------------------------------------------------------------- never a stale or mixed state (§3)
def _replace(path, frame):
    """Replace ``path`` atomically (write beside it, then rename), as a copy tool does."""
    tmp = path.with_name(".incoming-" + path.name)
    frame.to_parquet(tmp)
    os.replace(tmp, path)


def test_a_replaced_file_is_read_again_never_from_the_old_state(folder, monkeypatch):
    """Before: the preview (evalcore_app.cached.raw_table) and the measures' order (_LAST) were keyed by the name alone."""
    from evalcore_app import cached

    cached.raw_table.clear()
    serverdata.summary.clear()
    serverdata.count_tables.clear()
    dataset = serverdata.SERVER_PREFIX + "big.parquet"
    before = serverdata.version(dataset)
    first, _ = cached.raw_table(dataset)
    assert list(first.columns) == ["label", "a", "b"]
    roles = type("R", (), {"dataset": dataset, "label": "label", "scores": ("a", "b"), "lower": ()})()
    assert serverdata.candidates(roles).n_candidates == 3000
    serverdata.quality(roles)
    rng = np.random.default_rng(5)
    _replace(folder / "big.parquet", pd.DataFrame({"label": rng.random(500) < 0.5, "b": rng.normal(size=500),
                                                    "c": rng.normal(size=500)}))
    assert serverdata.version(dataset) != before
    again, _ = cached.raw_table(dataset)
    assert list(again.columns) == ["label", "b", "c"]
    roles.scores = ("b", "c")
    assert serverdata.candidates(roles).n_candidates == 500
    assert set(serverdata.quality(roles)) == {"b", "c"}
    roles.scores = ("a", "b")  # the old roles on the new file: refused by the new file, not served from the old
    with pytest.raises(Exception, match="no score column 'a'"):
        serverdata.quality(roles)


def test_a_growing_file_gets_a_new_key_and_the_roles_key_holds_it(folder):
    from evalcore.viewstate import Roles
    from evalcore_app import cached

    roles = Roles(dataset=serverdata.SERVER_PREFIX + "big.parquet", label="label", scores=("a", "b"))
    key = cached.FAST_KEYS[Roles](roles)
    with open(folder / "big.parquet", "ab") as f:  # a copy still writing
        f.write(b"\0" * 10)
    assert cached.FAST_KEYS[Roles](roles) != key
    upload = Roles(dataset="a" * 64, label="l")
    assert cached.FAST_KEYS[Roles](upload) == repr(upload)  # an upload's id is its content's hash already


class _Writer:
    """An engine that changes the file while reading it (a copy in progress): after the checks, before the
    counts."""

    def __init__(self, path, inner):
        self.path, self.inner = path, inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def session(self, source=None, prepare=True):
        from contextlib import contextmanager

        @contextmanager
        def writing():
            with self.inner.session(source, prepare) as opened:
                with open(self.path, "ab") as f:
                    f.write(b"more rows")
                yield opened
        return writing()

    def count_tables(self, source, *args, **kwargs):
        tables = self.inner.count_tables(source, *args, **kwargs)
        os.utime(self.path, ns=(0, 0))
        return tables


@pytest.mark.parametrize("what", ["preview", "summary", "count_tables"])
def test_a_file_that_changes_while_read_is_refused_not_mixed(folder, monkeypatch, what):
    from evalcore_app import cached

    cached.raw_table.clear()
    serverdata.summary.clear()
    serverdata.count_tables.clear()
    path = folder / "big.parquet"
    inner = serverdata.engine()
    monkeypatch.setattr(serverdata, "engine", lambda: _Writer(path, inner))
    dataset = serverdata.SERVER_PREFIX + "big.parquet"
    call = {"preview": lambda: serverdata.preview(dataset),
            "summary": lambda: serverdata.summary(dataset, "label", ("a", "b"), ()),
            "count_tables": lambda: serverdata.count_tables(dataset, "label", ("a", "b"), (), "hash", 1)}[what]
    with pytest.raises(serverdata.ServerDataError, match="'big.parquet' changed while it was read") as info:
        call()
    assert str(folder) not in str(info.value)
    from evalcore.io.store import DatasetStore

    assert DatasetStore().ids() == []  # no count tables of a mixture kept


def test_a_key_made_before_the_file_changed_is_not_filled_with_the_new_file(folder):
    serverdata.summary.clear()
    dataset = serverdata.SERVER_PREFIX + "big.parquet"
    old = serverdata.identity(folder / "big.parquet")
    _replace(folder / "big.parquet", pd.read_parquet(folder / "big.parquet").iloc[:100])
    with pytest.raises(serverdata.ServerDataError, match="changed while it was read"):
        serverdata.summary(dataset, "label", ("a", "b"), (), file_identity=old)
    assert serverdata.summary(dataset, "label", ("a", "b"), (),
                              file_identity=serverdata.identity(folder / "big.parquet")).n_candidates == 100


def test_a_file_removed_after_listing_is_a_message(folder):
    dataset = serverdata.SERVER_PREFIX + "big.parquet"
    (folder / "big.parquet").unlink()
    assert serverdata.version(dataset) == "(not readable)"
    with pytest.raises(serverdata.ServerDataError, match="There is no data set 'big.parquet'"):
        serverdata.path_of(dataset)
    assert "big.parquet" not in {s["name"] for s in serverdata.listing()}


def test_the_folder_has_its_own_row_limit(folder, monkeypatch):
    serverdata.summary.clear()
    monkeypatch.setenv("EVALCORE_DATA_MAX_ROWS", "1000")
    with pytest.raises(serverdata.ServerDataError, match=r"big\.parquet has 3,000 rows.*EVALCORE_DATA_MAX_ROWS"):
        serverdata.summary(serverdata.SERVER_PREFIX + "big.parquet", "label", ("a", "b"), ())


def test_the_preview_is_bounded_in_columns_and_in_each_cell(folder, monkeypatch):
    """The first rows, as the Data page shows them: at most the reading limit's columns, text cut to 200
    characters (a file of the folder may hold cells of any size)."""
    frame = pd.DataFrame({"label": [True, False], "a": [1.0, 2.0], "note": ["x" * 100_000, "y"]})
    frame.to_parquet(folder / "wide.parquet")
    table, _ = serverdata.preview(serverdata.SERVER_PREFIX + "wide.parquet")
    assert len(table["note"].iloc[0]) == serverdata.PREVIEW_CHARS and table["note"].iloc[1] == "y"
    monkeypatch.setenv("EVALCORE_MAX_COLUMNS", "2")
    with pytest.raises(serverdata.ServerDataError, match=r"wide\.parquet has 3 columns, more than the 2"):
        serverdata.preview(serverdata.SERVER_PREFIX + "wide.parquet")
