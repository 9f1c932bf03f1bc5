"""The annotation database: samples, clicks, undo, restarts, concurrent annotators, a killed writer, export."""

from __future__ import annotations

import hashlib
import json
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
    lost = store.annotate(DATASET, "s", 1, "ann", "unsure")  # a second press for a marked candidate: not applied
    assert (lost.applied, lost.label) == (False, "FP") and "already marked FP" in lost.message("unsure")
    assert store.annotate(DATASET, "s", 1, "ann", "unsure", replace=True).applied  # a changed mind: explicit
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
    store.create_sample(DATASET, "s", [0, 1, 2, 3, 4], seed=None)  # (position = candidate here)
    state: dict = {}
    history: dict = {"x": [], "y": []}
    for op, cand, label, who in ops:
        for name in ("x", "y"):  # the kept progress (no scan of the sample) equals the marks themselves
            marked = sorted(c for c, w in state if w == name)
            assert store.progress(DATASET, "s", name) == (len(marked), 5)
            assert store.next_position(DATASET, "s", name) == next((p for p in range(5) if p not in marked), None)
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
        (store.annotate(DATASET, "s", cand, who, label, replace=True) if op == "set"
         else store.clear(DATASET, "s", cand, who))
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


# ------------------------------------------------------------- many people at once (issue 19)
def test_forty_racing_double_marks_give_forty_labels_none_replaced(tmp_path):
    """Two windows under one name press TP and FP for the same shown candidate at the same moment, 40 times: one
    mark applies, the other is told what is there, nothing is replaced (today's main: 40 of 40 replaced)."""
    store = AnnotationStore(tmp_path / "a.sqlite3")
    store.create_sample(DATASET, "s", list(range(40)), seed=1)
    barrier = threading.Barrier(2)
    results: dict = {"TP": [], "FP": []}

    def window(label):
        own = AnnotationStore(store.path)
        for c in range(40):
            barrier.wait()
            results[label].append(own.annotate(DATASET, "s", c, "ann", label))

    threads = [threading.Thread(target=window, args=(label,)) for label in results]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = store.table(DATASET, "s")["ann"]
    assert stored.notna().sum() == 40
    for c, (tp, fp) in enumerate(zip(results["TP"], results["FP"])):
        assert tp.applied != fp.applied, c  # exactly one applied
        winner, loser = (tp, fp) if tp.applied else (fp, tp)
        assert stored[c] == winner.label and loser.label == winner.label  # the loser was told what is there
        assert f"already marked {winner.label}" in loser.message("TP")
    assert store.progress(DATASET, "s", "ann") == (40, 40)
    assert store.undo(DATASET, "s", "ann") == 39 and store.table(DATASET, "s")["ann"].notna().sum() == 39


def test_a_mark_names_the_candidate_shown_and_replacing_is_explicit(store):
    store.create_sample(DATASET, "s", [30, 10, 20], seed=None)
    with pytest.raises(AnnotationError, match="candidate 10 is not at position 1"):
        store.mark(DATASET, "s", 0, 10, "ann", "TP")
    with pytest.raises(AnnotationError, match="position 3 is not in sample"):
        store.mark(DATASET, "s", 3, 10, "ann", "TP")
    v0 = store.version(DATASET, "s")
    assert store.mark(DATASET, "s", 1, 10, "ann", "TP").applied
    assert store.version(DATASET, "s") == v0 + 1  # a cache key that follows every mark, without reading them
    assert not store.mark(DATASET, "s", 1, 10, "ann", "FP").applied and store.version(DATASET, "s") == v0 + 1
    changed = store.mark(DATASET, "s", 1, 10, "ann", "FP", replace=True)
    assert (changed.applied, changed.label, changed.previous) == (True, "FP", "TP")
    assert store.upcoming(DATASET, "s", "ann", 5) == [(0, 30), (2, 20)]
    assert store.recent(DATASET, "s", "ann", 5) == [(1, 10, True), (1, 10, False)]
    assert store.undo(DATASET, "s", "ann") == 10 and store.table(DATASET, "s").loc[10, "ann"] == "TP"


def test_a_sample_is_stored_compactly_and_read_by_place(store):
    order = draw_sample(300_000, 200_000, seed=9)
    info = store.create_sample(DATASET, "big", order, seed=9)
    np.testing.assert_array_equal(info.candidates, order)
    positions = [0, 65_535, 65_536, 131_071, 199_999]
    np.testing.assert_array_equal(store.candidates_at(DATASET, "big", positions), order[positions])
    con = sqlite3.connect(store.path)
    stored = con.execute("SELECT SUM(length(candidates)), COUNT(*) FROM sample_chunks").fetchone()
    con.close()
    assert stored == (4 * 200_000, 4)  # 4 bytes a candidate, in chunks of 65,536 (no row per candidate)
    grown = store.create_sample(DATASET, "big", draw_sample(300_000, 250_000, seed=9), seed=9)
    np.testing.assert_array_equal(grown.candidates[:200_000], order)
    assert grown.size == 250_000 and store.upcoming(DATASET, "big", "ann", 2) == [(0, int(order[0])),
                                                                               (1, int(order[1]))]


def test_an_import_counts_new_labels_those_there_already_and_those_replaced(store):
    """Issue 30: importing labels that are all in the database already changes nothing and says so (the sample's
    version, which the pages' caches follow, stays where it was); new and differing labels are counted apart."""
    store.create_sample(DATASET, "s", np.arange(10), seed=1)
    store.annotate(DATASET, "s", 0, "a", "TP")
    before = store.version(DATASET, "s")
    labels = pd.DataFrame({"candidate": [0, 1, 2, 0], "annotator": ["a", "a", "a", "b"],
                           "label": ["TP", "FP", "unsure", "FP"]})
    counts = store.import_table(DATASET, "s", labels)
    assert (counts.new, counts.unchanged, counts.replaced, counts.total) == (3, 1, 0, 4)
    assert counts.describe() == "4 labels: 3 new, 1 there already"
    assert store.version(DATASET, "s") > before and store.progress(DATASET, "s", "a") == (3, 10)
    again = store.import_table(DATASET, "s", labels)
    assert (again.new, again.unchanged, again.replaced) == (0, 4, 0)
    assert again.describe() == "4 labels, all there already: nothing changed"
    version = store.version(DATASET, "s")
    changed = store.import_table(DATASET, "s", labels.assign(label=["FP", "FP", "unsure", "FP"]))
    assert (changed.new, changed.unchanged, changed.replaced) == (0, 3, 1)
    assert "1 replaced the same annotator's different label" in changed.describe()
    assert store.version(DATASET, "s") > version and store.table(DATASET, "s").loc[0, "a"] == "FP"
    assert store.import_table(DATASET, "s", labels.iloc[:0]).describe() == "no labels"


def test_a_database_of_the_first_schema_is_migrated_nothing_lost(tmp_path):
    """tests/data/annotations_v1.sqlite3 was made by evalcore 04183db (tests/data/make_annotations_v1.py): samples,
    marks by three annotators, a changed mind, an undo, a cleared mark. Everything comes back."""
    import shutil

    path = tmp_path / "annotations.sqlite3"
    shutil.copyfile(REPO / "tests" / "data" / "annotations_v1.sqlite3", path)
    old = sqlite3.connect(path)
    marks = sorted(old.execute("SELECT dataset, sample, candidate, annotator, label, time FROM annotations"))
    samples = {(d, s): (seed, json.loads(frame), created) for d, s, seed, frame, created in
               old.execute("SELECT dataset, sample, seed, frame, created FROM samples")}
    orders = {}
    for d, s, c in old.execute("SELECT dataset, sample, candidate FROM sample_candidates ORDER BY position"):
        orders.setdefault((d, s), []).append(c)
    old.close()
    store = AnnotationStore(path)
    assert store.migrated == {"samples": 3, "candidates": 94, "marks": 76, "events": 80}
    for (d, s), (seed, frame, created) in samples.items():
        info = store.sample(d, s)
        assert (info.seed, info.frame.to_dict(), info.created) == (seed, frame, created)
        assert info.candidates.tolist() == orders[(d, s)]
    got = sorted((d, s, int(r.candidate), r.annotator, r.label, r.time) for d, s in samples
                 for r in store.annotations(d, s).itertuples())
    assert got == marks
    d7 = "0" * 63 + "1"
    s7 = store.sample(d7, "s7")
    assert store.progress(d7, "s7", "alice") == (39, 60) and store.next_position(d7, "s7", "alice") == 10
    assert store.progress(d7, "s7", "bob") == (24, 60) and store.next_position(d7, "s7", "bob") == 24
    assert store.undo(d7, "s7", "alice") == int(s7.candidates[10])  # the clear is undone first
    assert store.table(d7, "s7").loc[int(s7.candidates[3]), "alice"] == "unsure"
    assert store.undo(d7, "s7", "alice") == int(s7.candidates[3])  # then the changed mind
    assert store.table(d7, "s7").loc[int(s7.candidates[3]), "alice"] in ("TP", "FP")
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    assert {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {"marks", "samples"}
    assert not {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE name LIKE 'v1_%'")}
    con.close()
    assert AnnotationStore(path).migrated is None  # once


def test_a_click_reads_a_few_places_of_the_sample_not_all_of_it(store, monkeypatch):
    """The next candidates come from the annotator's kept place and indexed reads (today's main loaded the whole
    sample and joined over it on every click)."""
    order = draw_sample(1_000_000, 1_000_000, seed=3)
    store.create_sample(DATASET, "big", order, seed=3)
    read = []
    original = AnnotationStore._read_candidates

    def spy(con, sample_id, width, start, stop):
        read.append(stop - start)
        return original(con, sample_id, width, start, stop)

    monkeypatch.setattr(AnnotationStore, "_read_candidates", staticmethod(spy))
    for position in range(30):
        store.mark(DATASET, "big", position, int(order[position]), "ann", "TP")
        assert store.upcoming(DATASET, "big", "ann", 60)[0] == (position + 1, int(order[position + 1]))
        assert store.progress(DATASET, "big", "ann") == (position + 1, 1_000_000)
    assert max(read) <= 60  # the window the page shows, never the sample
