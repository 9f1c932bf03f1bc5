"""evalcore.io.load_annotated_sample: a label column with empty cells (or none) as a partly annotated set."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from evalcore.annotations import AnnotationStore, export_table, write_export
from evalcore.candidates import CandidateSet
from evalcore.errors import ColumnError, LabelError, ParameterError
from evalcore.estimates import SamplingFrame, draw_sample, top_k_frame
from evalcore.io import build_annotated_sample, load_annotated_sample, load_candidates
from evalcore.ranking import rank


def read(text: str, **kw):
    return load_annotated_sample(io.BytesIO(text.encode()), name="s.csv", **kw)


def test_empty_label_cells_are_unannotated_candidates():
    s = read("w,g,h,is_tp\na,3,1,TRUE\nb,2,2,\nc,1,3,NA\nd,0,4,FALSE\n")
    assert s.state == "partial" and s.label_column == "is_tp"
    assert s.annotated.tolist() == [True, False, False, True]
    assert s.candidates.labels.tolist() == [True, False, False, False]
    assert (s.n_annotated, s.n_annotated_tp) == (2, 1)
    assert s.candidates.measures == ("g", "h") and s.candidates.keys["w"].tolist() == list("abcd")
    assert s.candidates.rows.tolist() == [1, 2, 3, 4]
    assert s.frame == SamplingFrame() and s.frame_mask() is None
    same = CandidateSet.from_partial_labels([True, None, None, False], {"g": [3.0, 2, 1, 0], "h": [1.0, 2, 3, 4]},
                                            directions={}, keys=pd.DataFrame({"w": list("abcd")}))
    assert s.candidates.content_hash == same.content_hash
    assert s.describe().startswith("2 of 4 candidates annotated (1 TPs); the annotated candidates are taken as a "
                                   "simple random sample of the whole candidate set")


def test_a_fully_labelled_file_reads_as_load_candidates_reads_it():
    text = "w,g,is_tp\na,3,TRUE\nb,2,FALSE\n"
    s = read(text)
    assert s.state == "full" and s.candidates.annotated is None
    assert s.candidates.content_hash == load_candidates(io.BytesIO(text.encode()), name="s.csv").content_hash


@pytest.mark.parametrize("text, label", [("w,g,h\na,3,1\nb,2,2\n", None),  # no label column
                                         ("w,g,label\na,3,\nb,2,\n", "label")])  # one named like it, all empty
def test_nothing_annotated_yet(text, label):
    s = read(text)
    assert s.state == "none" and s.label_column == label and s.n_annotated == 0
    assert s.candidates.measures == (("g", "h") if label is None else ("g",))
    assert "label" not in (s.candidates.keys.columns if s.candidates.keys is not None else [])


def test_too_few_annotated_says_what_to_do_in_page_or_command_line_words():
    with pytest.raises(LabelError) as page:
        read("w,g,label\na,3,\nb,2,\n", min_annotated=1)
    with pytest.raises(LabelError) as cli:
        read("w,g,label\na,3,\nb,2,\n", min_annotated=1, where="cli")
    assert "label column 'label' is empty in every row: nothing is annotated yet" in str(page.value)
    assert "Annotate page" in str(page.value) and "--" not in str(page.value)
    assert "--annotated-sample" in str(cli.value)
    with pytest.raises(LabelError) as none:
        read("w,g\na,3\nb,2\n", min_annotated=1, where="cli")
    assert "no label column found" in str(none.value) and "--label" in str(none.value)
    with pytest.raises(LabelError, match="only 1 candidates are annotated and at least 5"):
        read("w,g,is_tp\na,3,T\nb,2,\n", min_annotated=5)
    with pytest.raises(ParameterError, match="where"):
        read("w,g,is_tp\na,3,T\n", where="web")
    with pytest.raises(ParameterError, match="min_annotated"):
        read("w,g,is_tp\na,3,T\n", min_annotated=-1)


def test_a_label_cell_that_is_not_a_label_is_still_an_error():
    with pytest.raises(LabelError, match=r"not TP/FP labels: row 2: 'maybe'"):
        read("w,g,is_tp\na,3,TRUE\nb,2,maybe\nc,1,\n")
    with pytest.raises(ColumnError, match="no column 'gold'"):
        read("w,g,is_tp\na,3,TRUE\n", label="gold")


def test_the_sampling_frame_is_checked_and_masks_the_top_k():
    text = "w,g,h,is_tp\n" + "".join(f"c{i},{i % 7},{(i * 5) % 11},{'TRUE' if i % 3 == 0 else ''}\n"
                                       for i in range(30))
    frame = SamplingFrame(measures=("g", "h"), k=5, ties="stable")
    s = read(text, frame=frame)
    want = top_k_frame([rank(s.candidates, "g", ties="stable"), rank(s.candidates, "h", ties="stable")], 5)
    assert s.frame == frame and np.array_equal(s.frame_mask(), want)
    with pytest.raises(ParameterError, match="names 'x', which is not among the scores 'g', 'h'"):
        read(text, frame=SamplingFrame(measures=("x",), k=5))


def test_an_evalcore_export_reads_back_as_its_data_set(tmp_path):
    rng = np.random.default_rng(3)
    cs = CandidateSet(labels=rng.random(50) < 0.3, scores={"a": rng.normal(size=50), "b": rng.normal(size=50)},
                      directions={}, keys=pd.DataFrame({"PP": [f"p{i}" for i in range(50)]}))
    store = AnnotationStore(tmp_path / "a.sqlite3")
    info = store.draw("d" * 64, "s", cs, 12, seed=5)
    for c in info.candidates[:9]:
        store.annotate("d" * 64, "s", int(c), "ann", "TP" if cs.labels[c] else "FP")
    data = write_export(export_table(cs, store.table("d" * 64, "s"), info), "csv")
    s = load_annotated_sample(io.BytesIO(data), name="export.csv")
    assert s.label_column == "label" and s.candidates.measures == ("a", "b")  # not candidate, row, sample_position
    assert list(s.candidates.keys.columns) == ["PP"]
    assert np.flatnonzero(s.annotated).tolist() == sorted(info.candidates[:9].tolist())
    assert np.array_equal(s.candidates.labels[s.annotated], cs.labels[s.annotated])
    assert np.array_equal(s.candidates.scores["a"], cs.scores["a"])


def test_krenn_with_labels_hidden_equals_the_annotations_applied(krenn_tsv):
    krenn = load_candidates(krenn_tsv, label="is.colloc")
    table = pd.read_csv(krenn_tsv, sep="\t")
    idx = draw_sample(krenn.n_candidates, 510, seed=1)
    hidden = pd.Series([""] * len(table), dtype=object)
    hidden[idx] = np.where(table["is.colloc"].to_numpy()[idx], "TRUE", "FALSE")
    table["is.colloc"] = hidden
    s = build_annotated_sample(table, source="krenn")
    want = krenn.with_annotations(idx, krenn.labels[idx])
    assert s.label_column == "is.colloc" and (s.n_annotated, s.n_annotated_tp) == (510, 53)
    assert np.array_equal(s.annotated, want.annotated) and np.array_equal(s.candidates.labels, want.labels)
    assert s.candidates.measures == krenn.measures
