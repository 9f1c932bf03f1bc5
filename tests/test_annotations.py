"""The annotation database: samples, clicks, undo, restarts, concurrent annotators, a killed writer, export."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore.annotations import (AnnotationError, AnnotationStore, annotated_candidate_set, annotator_table,
                                  combine_labels, default_path, export_mismatches, export_table, import_export,
                                  read_export, write_export)
from evalcore.candidates import CandidateSet
from evalcore.errors import ParameterError
from evalcore.estimates import SamplingFrame, draw_sample
from evalcore.io.store import InvalidDatasetIdError

DATASET = hashlib.sha256(b"a data set").hexdigest()
OTHER = hashlib.sha256(b"another").hexdigest()
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def store(tmp_path):
    return AnnotationStore(tmp_path / "annotations.sqlite3")


@pytest.fixture
def candidates():
    rng = np.random.default_rng(0)
    keys = pd.DataFrame({"PP": [f"pp{i}" for i in range(40)], "verb": ["v"] * 40})
    return CandidateSet(labels=rng.random(40) < 0.3, scores={"a": rng.normal(size=40), "b": rng.normal(size=40)},
                        directions={}, keys=keys)


def test_default_path_is_in_the_store_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    assert default_path() == tmp_path / "store" / "annotations.sqlite3"


def test_the_database_is_in_wal_mode(store):
    con = sqlite3.connect(store.path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_a_drawn_sample_keeps_its_seed_frame_and_order_and_can_grow(store, candidates):
    frame = SamplingFrame(measures=("a", "b"), k=10, ties="stable")
    info = store.draw(DATASET, "s1", candidates, 8, seed=5, frame=frame)
    assert (info.seed, info.frame, info.size) == (5, frame, 8)
    assert info.candidates.tolist() == draw_sample(frame.mask(candidates), 8, 5).tolist()
    bigger = store.draw(DATASET, "s1", candidates, 12, seed=5, frame=frame)
    assert bigger.candidates[:8].tolist() == info.candidates.tolist() and bigger.size == 12
    assert store.draw(DATASET, "s1", candidates, 12, seed=5, frame=frame).size == 12  # same again: no-op
    with pytest.raises(AnnotationError, match="already exists"):
        store.draw(DATASET, "s1", candidates, 12, seed=6, frame=frame)
    assert store.samples(DATASET)["sample"].tolist() == ["s1"]
    assert store.samples(OTHER).empty
    with pytest.raises(AnnotationError, match="its samples are s1"):
        store.sample(DATASET, "nope")


@pytest.mark.parametrize("bad", ["", "../x", "a b", "x" * 65, "-lead"])
def test_bad_sample_names_are_refused(store, bad):
    with pytest.raises(ParameterError, match="sample name"):
        store.create_sample(DATASET, bad, [1, 2], seed=1)


def test_bad_ids_annotators_labels_and_candidates_are_refused(store):
    store.create_sample(DATASET, "s", [3, 1, 4], seed=None)
    with pytest.raises(InvalidDatasetIdError):
        store.annotate("../etc", "s", 3, "ann", "TP")
    with pytest.raises(ParameterError, match="annotator"):
        store.annotate(DATASET, "s", 3, "  ", "TP")
    with pytest.raises(ParameterError, match="label"):
        store.annotate(DATASET, "s", 3, "ann", "yes")
    with pytest.raises(AnnotationError, match="not in sample"):
        store.annotate(DATASET, "s", 2, "ann", "TP")
    with pytest.raises(AnnotationError, match="no sample"):
        store.annotate(DATASET, "t", 2, "ann", "TP")
    with pytest.raises(ParameterError, match="distinct"):
        store.create_sample(DATASET, "u", [1, 1], seed=None)


def test_clicks_undo_progress_and_next(store):
    store.create_sample(DATASET, "s", [3, 1, 4, 0], seed=None)
    assert store.next_position(DATASET, "s", "ann") == 0
    store.annotate(DATASET, "s", 3, "ann", "TP")
    store.annotate(DATASET, "s", 1, "ann", "FP")
    store.annotate(DATASET, "s", 1, "ann", "unsure")  # a changed mind
    store.annotate(DATASET, "s", 1, "bob", "TP")
    assert store.progress(DATASET, "s", "ann") == (2, 4)
    assert store.next_position(DATASET, "s", "ann") == 2
    assert store.undo(DATASET, "s", "ann") == 1  # back to FP
    assert store.table(DATASET, "s").loc[1, "ann"] == "FP"
    assert store.undo(DATASET, "s", "ann") == 1  # back to nothing
    assert store.table(DATASET, "s").loc[1].tolist() == [None, "TP"]
    assert store.undo(DATASET, "s", "ann") == 3
    assert store.undo(DATASET, "s", "ann") is None
    assert store.table(DATASET, "s").columns.tolist() == ["bob"]
    store.annotate(DATASET, "s", 4, "ann", "TP")
    store.clear(DATASET, "s", 4, "ann")
    assert store.progress(DATASET, "s", "ann") == (0, 4)
    assert store.undo(DATASET, "s", "ann") == 4 and store.progress(DATASET, "s", "ann") == (1, 4)


operations = st.lists(st.tuples(st.sampled_from(["set", "clear", "undo"]), st.integers(0, 4),
                                st.sampled_from(["TP", "FP", "unsure"]), st.sampled_from(["x", "y"])), max_size=20)


@settings(max_examples=25)
@given(operations)
def test_any_sequence_of_clicks_and_undos_equals_a_plain_model(tmp_path_factory, ops):
    store = AnnotationStore(tmp_path_factory.mktemp("db") / "a.sqlite3")
    store.create_sample(DATASET, "s", [0, 1, 2, 3, 4], seed=None)
    state: dict = {}
    history: dict = {"x": [], "y": []}
    for op, cand, label, who in ops:
        if op == "undo":
            got = store.undo(DATASET, "s", who)
            if history[who]:
                c, previous = history[who].pop()
                assert got == c
                state.pop((c, who)) if previous is None else state.__setitem__((c, who), previous)
            else:
                assert got is None
            continue
        new = label if op == "set" else None
        old = state.get((cand, who))
        (store.annotate(DATASET, "s", cand, who, label) if op == "set" else store.clear(DATASET, "s", cand, who))
        if new != old:
            history[who].append((cand, old))
            state.pop((cand, who)) if new is None else state.__setitem__((cand, who), new)
    got = {(r.candidate, r.annotator): r.label for r in store.annotations(DATASET, "s").itertuples()}
    assert got == state


def test_annotations_survive_a_restart(tmp_path):
    path = tmp_path / "a.sqlite3"
    first = AnnotationStore(path)
    first.create_sample(DATASET, "s", [7, 8, 9], seed=3)
    first.annotate(DATASET, "s", 8, "ann", "TP")
    del first
    again = AnnotationStore(path)
    assert again.sample(DATASET, "s").seed == 3
    assert again.table(DATASET, "s").loc[8, "ann"] == "TP"


def test_concurrent_annotators_in_threads_and_processes(tmp_path):
    path = tmp_path / "a.sqlite3"
    store = AnnotationStore(path)
    store.create_sample(DATASET, "s", list(range(25)), seed=1)
    script = textwrap.dedent(f"""
        import sys
        from evalcore.annotations import AnnotationStore
        s = AnnotationStore({str(path)!r})
        for c in range(25):
            s.annotate({DATASET!r}, "s", c, sys.argv[1], "TP" if c % 2 else "FP")
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", script, f"proc{i}"], env=env) for i in range(2)]

    def work(name):
        for c in range(25):
            store.annotate(DATASET, "s", c, name, "unsure")

    threads = [threading.Thread(target=work, args=(f"thread{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    table = store.table(DATASET, "s")
    assert table.shape == (25, 5) and table.notna().all().all()
    assert (table["proc0"] == np.where(np.arange(25) % 2, "TP", "FP")).all()


def test_a_writer_killed_mid_stream_loses_at_most_the_last_click(tmp_path):
    """A subprocess clicks as fast as it can, reporting each click after it returned; it is killed
    (SIGKILL) after 40 reports. Every reported click must be there, at most one more, and the
    database must be consistent and writable."""
    path = tmp_path / "a.sqlite3"
    store = AnnotationStore(path)
    store.create_sample(DATASET, "s", list(range(5000)), seed=1)
    script = textwrap.dedent(f"""
        import sys
        from evalcore.annotations import AnnotationStore
        s = AnnotationStore({str(path)!r})
        for c in range(5000):
            s.annotate({DATASET!r}, "s", c, "ann", "TP")
            print(c, flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    reported = -1
    for line in proc.stdout:
        reported = int(line)
        if reported >= 39:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    kept = sorted(AnnotationStore(path).annotations(DATASET, "s")["candidate"].tolist())
    assert kept == list(range(len(kept)))  # no gap: clicks land in order or not at all
    assert reported + 1 <= len(kept) <= reported + 3  # the reported ones, the one being written, one in the pipe
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    AnnotationStore(path).annotate(DATASET, "s", 4999, "ann", "FP")


def test_combining_labels():
    long = pd.DataFrame([(0, "a", "TP"), (0, "b", "TP"), (0, "c", "FP"), (1, "a", "TP"), (1, "b", "FP"),
                         (2, "a", "unsure"), (3, "b", "FP")], columns=["candidate", "annotator", "label"])
    table = annotator_table(long)
    assert table.columns.tolist() == ["a", "b", "c"]
    assert combine_labels(table, "majority").tolist() == ["TP", None, "unsure", "FP"]
    assert combine_labels(table, "agreed").tolist() == [None, None, "unsure", "FP"]
    assert combine_labels(table, "annotator", "a").tolist() == ["TP", "TP", "unsure", None]
    with pytest.raises(ParameterError, match="annotators are a, b, c"):
        combine_labels(table, "annotator", "z")
    with pytest.raises(ParameterError, match="rule"):
        combine_labels(table, "vote")
    cs = CandidateSet(labels=np.zeros(5, bool), scores={"g": np.arange(5.0)}, directions={})
    part = annotated_candidate_set(cs, table, "majority")
    assert part.annotated.tolist() == [True, False, False, True, False]
    assert part.labels.tolist() == [True, False, False, False, False]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_export_and_reimport_round_trip(tmp_path, candidates, fmt):
    store = AnnotationStore(tmp_path / "a.sqlite3")
    info = store.draw(DATASET, "s", candidates, 10, seed=4, frame=SamplingFrame(("a",), 20, "stable"))
    for c in info.candidates[:6]:
        store.annotate(DATASET, "s", int(c), "ann", "TP" if candidates.labels[c] else "FP")
    store.annotate(DATASET, "s", int(info.candidates[0]), "bob", "unsure")
    table = store.table(DATASET, "s")
    export = export_table(candidates, table, info)
    assert export.columns.tolist() == ["candidate", "row", "PP", "verb", "a", "b", "label", "sample_position",
                                       "annotator:ann", "annotator:bob"]
    data = write_export(export, fmt, info)
    found = read_export(data, fmt)
    assert found.sample_candidates.tolist() == info.candidates.tolist()
    if fmt == "parquet":
        assert (found.seed, found.frame, found.name) == (4, info.frame, "s")
    # the label column reads back as a partly annotated candidate set with the right labels
    back = CandidateSet.from_partial_labels(export["label"], {"a": export["a"].to_numpy()}, directions={})
    first, rest = info.candidates[0], info.candidates[1:6]
    assert not back.annotated[first]  # TP or FP against unsure: no majority, so not annotated
    assert back.annotated[rest].all() and back.n_annotated == 5
    assert (back.labels[rest] == candidates.labels[rest]).all()
    # into a fresh database
    fresh = AnnotationStore(tmp_path / "b.sqlite3")
    kw = {} if fmt == "parquet" else {"name": "s", "seed": 4, "frame": info.frame}
    again = import_export(fresh, DATASET, data, fmt, **kw)
    assert again.candidates.tolist() == info.candidates.tolist() and again.frame == info.frame
    pd.testing.assert_frame_equal(fresh.table(DATASET, "s"), table)


def test_import_refuses_a_file_that_is_not_an_export(store):
    with pytest.raises(ParameterError, match="candidate"):
        import_export(store, DATASET, b"a,b\n1,2\n", "csv", name="s")
    with pytest.raises(ParameterError, match="fmt"):
        read_export(b"", "xlsx")


# ------------------------------------------------------------- re-import checked against the data set
def _exported(tmp_path, candidates, fmt):
    store = AnnotationStore(tmp_path / "x.sqlite3")
    info = store.draw(DATASET, "s", candidates, 8, seed=2)
    for c in info.candidates[:5]:
        store.annotate(DATASET, "s", int(c), "ann", "TP" if candidates.labels[c] else "FP")
    export = export_table(candidates, store.table(DATASET, "s"), info)
    return store.table(DATASET, "s"), info, export


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_a_checked_reimport_into_the_same_data_set_writes_every_annotation(tmp_path, candidates, fmt):
    table, info, export = _exported(tmp_path, candidates, fmt)
    data = write_export(export, fmt, info)
    assert export_mismatches(read_export(data, fmt), candidates, DATASET) == []
    fresh = AnnotationStore(tmp_path / "fresh.sqlite3")
    again = import_export(fresh, DATASET, data, fmt, candidates=candidates, name="s", seed=2)
    assert again.candidates.tolist() == info.candidates.tolist()
    pd.testing.assert_frame_equal(fresh.table(DATASET, "s"), table)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_a_reimport_into_another_data_set_says_what_differs_and_writes_nothing(tmp_path, candidates, fmt):
    _, info, export = _exported(tmp_path, candidates, fmt)
    changed = export.copy()
    changed.loc[changed["candidate"] == 7, "a"] = 99.5        # one score changed
    changed.loc[changed["candidate"].isin([3, 4]), "PP"] = "x"  # two keys changed
    data = write_export(changed, fmt, info)
    found = read_export(data, fmt)
    problems = export_mismatches(found, candidates, DATASET)
    assert len(problems) == 2
    assert problems[0].startswith("column 'a' differs at 1 candidate(s) (candidate 7: 99.5 in the file, ")
    assert problems[1].startswith("column 'PP' differs at 2 candidate(s) (candidate 3: 'x' in the file, 'pp3' in")
    fresh = AnnotationStore(tmp_path / "fresh.sqlite3")
    with pytest.raises(AnnotationError, match="does not match this data set.*column 'a' differs"):
        import_export(fresh, DATASET, data, fmt, candidates=candidates, name="s")
    assert fresh.samples(DATASET).empty  # nothing written


def test_reimport_checks_size_candidates_columns_and_the_named_data_set(tmp_path, candidates):
    _, info, export = _exported(tmp_path, candidates, "parquet")
    data = write_export(export, "parquet", info)
    assert export_mismatches(read_export(data, "parquet"), candidates, OTHER) == [
        f"the file was exported from data set {DATASET!r}, not {OTHER!r}"]
    fewer = write_export(export.iloc[:30], "csv")
    assert export_mismatches(read_export(fewer, "csv"), candidates) == ["the file has 30 candidates, the data set 40"]
    shuffled = export.copy()
    shuffled["candidate"] = shuffled["candidate"].replace({5: 6})
    assert export_mismatches(read_export(write_export(shuffled, "csv"), "csv"), candidates) == [
        "its 'candidate' column does not hold each of 0..39 once"]
    reordered = export.sample(frac=1.0, random_state=1)  # rows in another order still match, candidate by candidate
    assert export_mismatches(read_export(write_export(reordered, "tsv"), "tsv"), candidates) == []
    no_b = export.drop(columns=["b"])
    assert export_mismatches(read_export(write_export(no_b, "csv"), "csv"), candidates) == [
        "the file lacks the data set's column(s) 'b'"]
    moved = export.copy()
    moved["row"] = moved["row"] + 1
    assert export_mismatches(read_export(write_export(moved, "csv"), "csv"), candidates)[0].startswith(
        "column 'row' differs at 40 candidate(s) (candidate 0: 2 in the file, 1 in the data set")
