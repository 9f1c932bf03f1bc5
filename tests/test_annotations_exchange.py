"""The annotated set as a file and back (issue 18 item 8, issue 19): export then import gives the same sample and the
same table (every column under its name and type), CSV and TSV are guarded against spreadsheet formulas and the
import takes off exactly the guard's quote, and hostile files are refused with one short message each, within
bounded time and memory."""

from __future__ import annotations

import csv
import io
import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalcore.annotations import (DESIGN_COLUMN, MESSAGE_CHARS, AnnotationError, AnnotationStore, export_mismatches,
                                  export_table, guard, import_export, read_export, unguard, write_export)
from evalcore.estimates import SamplingFrame
from evalcore.io import load_annotated_sample, read_table
from evalcore.text import FORMULA_STARTS

REPO = Path(__file__).resolve().parents[1]
DATASET = "ab" * 32
HOSTILE_KEYS = ['=HYPERLINK("http://example.com","click")', "'=quoted already", "''+twice", "+49 30", "-dash",
                "@SUM(A1)", "\tTab first", "\rreturn first", "plain", "'just a quote", "=1+1", "-5"]


def data_file(n: int = 60, seed: int = 0) -> bytes:
    """A candidate file as users have them: text keys (some that spreadsheets run as formulas), integer and
    decimal scores, a label column empty in most rows, and a context column with commas, quotes and newlines."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "PP": [HOSTILE_KEYS[i % len(HOSTILE_KEYS)] + (f" {i}" if i >= len(HOSTILE_KEYS) else "") for i in range(n)],
        "verb": [f"v{i % 7}" for i in range(n)],
        "freq": rng.integers(1, 10**6, n),
        "log.like": np.round(rng.normal(size=n) * 100, 3),
        "t.score": rng.normal(size=n) * 1e-300,
        "is.colloc": np.where(rng.random(n) < 0.2, np.where(rng.random(n) < 0.5, "TRUE", "FALSE"), ""),
        "sentence": [f'he said "x, {i}"\nand left' for i in range(n)],
    })
    return table.to_csv(sep="\t", index=False).encode()


@pytest.fixture
def annotated(tmp_path):
    """The data set read as the dashboard reads it, a sample of 20 with two annotators' marks, and its export."""
    raw = read_table(io.BytesIO(data_file()), name="cands.tsv")
    candidates = load_annotated_sample(raw, label="is.colloc", keys=["PP", "verb", "sentence"]).candidates
    store = AnnotationStore(tmp_path / "a.sqlite3")
    info = store.draw(DATASET, "s4", candidates, 20, seed=4, frame=SamplingFrame(("freq",), 40, "stable"),
                      design={"pool": {"measures": ["freq", "log.like"], "depth": 40, "m": 20}})
    for p, c in enumerate(info.candidates[:12]):
        store.mark(DATASET, "s4", p, int(c), "ann", "TP" if p % 3 else "FP")
    for p, c in enumerate(info.candidates[:5]):
        store.mark(DATASET, "s4", p, int(c), "=bob", ["TP", "FP", "unsure"][p % 3])
    labels = store.table(DATASET, "s4")
    export = export_table(candidates, labels, info, data=raw, label_column="is.colloc")
    return raw, candidates, store, info, labels, export


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_export_then_import_gives_the_same_sample_and_the_same_table(annotated, tmp_path, fmt):
    raw, candidates, store, info, labels, export = annotated
    assert export.columns.tolist()[:7] == raw.columns.tolist()  # every column, under its own name, in its place
    assert export.columns.tolist()[7:] == ["evalcore:candidate", "evalcore:sample_position", "evalcore:design",
                                           "annotator:=bob", "annotator:ann"]
    data = write_export(export, fmt)
    found = read_export(data, fmt, expected_rows=len(raw))
    # the same table: the data set's columns, names and types, the labels written into its own label column
    want = raw.copy()
    want["is.colloc"] = export["is.colloc"].to_numpy()
    pd.testing.assert_frame_equal(found.table, want.set_axis(pd.RangeIndex(1, len(raw) + 1, name="row")))
    assert found.table["freq"].dtype == np.int64 and found.table["PP"].tolist() == raw["PP"].tolist()
    usable = (labels["ann"].isin(["TP", "FP"]) & labels["=bob"].isna()) | (labels["ann"] == labels["=bob"])
    majority = labels["ann"][usable]  # (with two annotators who disagree there is no majority)
    filled = found.table["is.colloc"].to_numpy()[majority.index.to_numpy()]
    assert filled.tolist() == ["TRUE" if label == "TP" else "FALSE" for label in majority]
    # the same sample: order, seed, frame, name, the design's further fields
    np.testing.assert_array_equal(found.sample_candidates, info.candidates)
    assert (found.name, found.seed, found.frame, found.created) == ("s4", 4, info.frame, info.created)
    assert found.design == {"pool": {"measures": ["freq", "log.like"], "depth": 40, "m": 20}}
    assert export_mismatches(found, candidates, DATASET) == []
    # importing it where it came from adds nothing (no second copy of the sample); into a fresh database, all of it
    again = import_export(store, DATASET, data, fmt, candidates=candidates)
    assert again.name == "s4" and store.samples(DATASET)["sample"].tolist() == ["s4"]
    pd.testing.assert_frame_equal(store.table(DATASET, "s4"), labels)
    fresh = AnnotationStore(tmp_path / "fresh.sqlite3")
    back = import_export(fresh, DATASET, data, fmt, candidates=candidates)
    np.testing.assert_array_equal(back.candidates, info.candidates)
    assert (back.name, back.seed, back.frame, back.design) == ("s4", 4, info.frame, info.design)
    pd.testing.assert_frame_equal(fresh.table(DATASET, "s4"), labels)


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_csv_and_tsv_exports_hold_no_formula_and_read_back_as_the_data_set(annotated, fmt):
    raw, candidates, *_, export = annotated
    data = write_export(export, fmt)
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter="," if fmt == "csv" else "\t"))
    for row in rows:
        for cell in row:
            if cell.startswith(FORMULA_STARTS):  # only numbers start like a formula
                float(cell)
    assert "'=HYPERLINK(\"http://example.com\",\"click\")" in {c for r in rows for c in r}
    assert "'''+twice" in {c for r in rows for c in r} and "'just a quote" in {c for r in rows for c in r}
    # the export uploaded as a data set reads as the one it came from (the guard's quotes taken off)
    back = load_annotated_sample(read_table(io.BytesIO(data), name=f"export.{fmt}"), label="is.colloc",
                                 keys=["PP", "verb", "sentence"]).candidates
    pd.testing.assert_frame_equal(back.keys, candidates.keys)
    assert list(back.scores) == list(candidates.scores)
    for name in candidates.scores:
        np.testing.assert_array_equal(back.scores[name], candidates.scores[name])


def test_the_guard_and_its_inverse_are_exact_on_any_text():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.text(alphabet=st.sampled_from(["'", "=", "+", "-", "@", "\t", "\r", "a", " ", "1"]), max_size=6)

    @settings(max_examples=200, deadline=None)
    @given(st.lists(text, min_size=1, max_size=5))
    def check(cells):
        table = pd.DataFrame({"k": pd.Series(cells, dtype=object), "n": np.arange(len(cells))})
        guarded = guard(table)
        from evalcore.text import spreadsheet_safe

        written = spreadsheet_safe(guarded)
        assert not any(isinstance(c, str) and c.startswith(FORMULA_STARTS) for c in written["k"])
        pd.testing.assert_frame_equal(unguard(written), table)

    check()


# ------------------------------------------------------------------------------------------- hostile imports
N_HOSTILE = 300


def hostile_files(folder: Path) -> dict[str, tuple[str, str]]:
    """The eight hostile files of issue 19, for a data set of 300 candidates: name -> (file, format)."""
    raw = read_table(io.BytesIO(data_file(N_HOSTILE, seed=1)), name="cands.tsv")
    candidates = load_annotated_sample(raw, label="is.colloc", keys=["PP", "verb", "sentence"]).candidates
    store = AnnotationStore(folder / "made.sqlite3")
    info = store.draw(DATASET, "s1", candidates, 30, seed=1)
    store.mark(DATASET, "s1", 0, int(info.candidates[0]), "ann", "TP")
    export = export_table(candidates, store.table(DATASET, "s1"), info, data=raw, label_column="is.colloc")
    files = {}

    def put(name, data, fmt):
        path = folder / f"{name}.{fmt}"
        path.write_bytes(data)
        files[name] = (str(path), fmt)

    legacy = pd.DataFrame({"candidate": np.arange(N_HOSTILE), "sample_position": pd.array([0] + [None] * 299,
                                                                                          dtype="Int64"),
                           "annotator:ann": ["TP"] + [None] * 299})
    table = pa.Table.from_pandas(legacy, preserve_index=False)
    buffer = io.BytesIO()
    pq.write_table(table.replace_schema_metadata({b"evalcore.annotations": b"[1, 2, 3]"}), buffer)
    put("metadata_list", buffer.getvalue(), "parquet")
    frame = export.copy()
    frame[DESIGN_COLUMN] = frame[DESIGN_COLUMN].map(
        lambda c: c if pd.isna(c) else json.dumps({**json.loads(c), "frame": 5}))
    put("frame_number", write_export(frame, "csv"), "csv")
    text = write_export(export, "csv").decode().split("\r\n")
    first = next(csv.reader([text[1]]))
    column = next(csv.reader([text[0]])).index("evalcore:candidate")
    first[column] = str(2**63 + 5)
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(first)
    put("candidate_past_2_63", "\r\n".join([text[0], out.getvalue().rstrip("\r\n"), *text[2:]]).encode(), "csv")
    put("long_name", write_export(export.rename(columns={"annotator:ann": "annotator:" + "x" * 5000}), "tsv"), "tsv")
    other = export.copy()
    other["log.like"] = other["log.like"] + 1.0
    other["PP"] = "other " + other["PP"].astype(str)
    put("other_dataset", write_export(other, "parquet"), "parquet")
    put("random_bytes", np.random.default_rng(5).bytes(200_000), "parquet")
    many = pa.table({"x": pa.array(np.zeros(30_000_000, dtype=np.int8))})
    buffer = io.BytesIO()
    pq.write_table(many, buffer, row_group_size=10_000_000)
    put("declares_30m_rows", buffer.getvalue(), "parquet")
    put("csv_30mb", write_export(export, "csv") + b"x" * 30_000_000, "csv")
    (folder / "source_bytes").write_text(str(len(data_file(N_HOSTILE, seed=1))))
    return files


EXPECTED = {
    "metadata_list": "its evalcore metadata is not a record of the sample's design (it is a list)",
    "frame_number": "the sampling frame '5' is not a record",
    "candidate_past_2_63": "column 'evalcore:candidate' holds '9.223372036854776e+18' in data row 1, not a whole "
                           "number in 0..299",
    "long_name": "does not name an annotator",
    "other_dataset": "does not match this data set, so nothing was imported: column 'log.like' differs at 300",
    "random_bytes": "cannot be read as a Parquet file",
    "declares_30m_rows": "declares 30,000,000 rows; an export of this data set has 300",
    "csv_30mb": "an export of this data set (300 candidates) is at most about",
}

RUN = """
import json, resource, sys, time
from pathlib import Path
from evalcore.annotations import AnnotationError, AnnotationStore, import_export
from evalcore.io import load_annotated_sample, read_table
sys.path.insert(0, {tests!r})
from test_annotations_exchange import DATASET, N_HOSTILE, data_file
import io
folder, files = Path(sys.argv[1]), json.loads(sys.argv[2])
raw = read_table(io.BytesIO(data_file(N_HOSTILE, seed=1)), name="cands.tsv")
candidates = load_annotated_sample(raw, label="is.colloc", keys=["PP", "verb", "sentence"]).candidates
store = AnnotationStore(folder / "import.sqlite3")
out = {{}}
for name, (path, fmt) in files.items():
    data = Path(path).read_bytes()
    start = time.perf_counter()
    try:
        import_export(store, DATASET, data, fmt, candidates=candidates, label=Path(path).name,
                      source_bytes=int((folder / "source_bytes").read_text()))
        message = None
    except AnnotationError as exc:
        message = str(exc)
    out[name] = {{"seconds": time.perf_counter() - start, "message": message}}
# VmHWM: this process's own peak (ru_maxrss survives the exec and keeps the forked pytest worker's peak)
status = Path("/proc/self/status").read_text()
hwm = [line for line in status.splitlines() if line.startswith("VmHWM:")]
out["peak_rss_mb"] = (int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
out["samples"] = len(store.samples(DATASET))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    return folder, hostile_files(folder)


@pytest.mark.parametrize("case", list(EXPECTED))
def test_a_hostile_import_ends_in_one_short_message(hostile, case, tmp_path):
    folder, files = hostile
    path, fmt = files[case]
    raw = read_table(io.BytesIO(data_file(N_HOSTILE, seed=1)), name="cands.tsv")
    candidates = load_annotated_sample(raw, label="is.colloc", keys=["PP", "verb", "sentence"]).candidates
    store = AnnotationStore(tmp_path / "import.sqlite3")
    with pytest.raises(AnnotationError) as refused:
        import_export(store, DATASET, Path(path).read_bytes(), fmt, candidates=candidates, label=Path(path).name,
                      source_bytes=int((folder / "source_bytes").read_text()))
    message = str(refused.value)
    assert EXPECTED[case] in message and len(message) <= MESSAGE_CHARS, message
    assert store.samples(DATASET).empty  # nothing written


def test_hostile_imports_stay_within_a_gigabyte_and_twenty_seconds(hostile):
    """All eight in a fresh process: its peak memory (resident) under 1 GB, each import refused within 20 s."""
    folder, files = hostile
    script = RUN.format(tests=str(REPO / "tests"))
    result = subprocess.run([sys.executable, "-c", script, str(folder), json.dumps(files)], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["peak_rss_mb"] < 1024, out
    assert out["samples"] == 0
    for case in EXPECTED:
        assert out[case]["message"] is not None and len(out[case]["message"]) <= MESSAGE_CHARS, (case, out[case])
        assert out[case]["seconds"] < 20, (case, out[case])
