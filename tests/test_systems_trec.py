"""TREC runs with qrels in the systems comparison (evalcore.systems.trec): every topic's value equals ir-measures
(and so trec_eval, through pytrec_eval) on the same files; missing topics as 0 or left out; ties broken as
trec_eval breaks them, by the rank column or at random with a seed; gzip; clear messages for bad files.

Where the numbers come from: ir-measures 0.4.3 itself, called here on the files as ir-measures reads them
(``read_trec_qrels``, ``read_trec_run``), and stored in tests/reference/systems_libraries_reference.json by
tests/reference/make_systems_libraries_reference.py (which imports nothing of evalcore); trec_eval's tie order worked
by hand on a three-document topic.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from evalcore.errors import FileFormatError, ParameterError
from evalcore.systems.trec import TrecOptions, read_qrels, read_run, trec_measure, trec_statistics

REFERENCE = json.loads((Path(__file__).parent / "reference" / "systems_libraries_reference.json").read_text("utf-8"))
FILES = REFERENCE["trec"]["files"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trec")
    (folder / "qrels.txt").write_text("\n".join(FILES["qrels"]) + "\n")
    paths = []
    for name, lines in FILES["runs"].items():
        path = folder / f"{name}.run{'.gz' if name == 'hybrid' else ''}"
        data = ("\n".join(lines) + "\n").encode()
        path.write_bytes(gzip.compress(data) if name == "hybrid" else data)
        paths.append(path)
    return folder / "qrels.txt", paths


def _read(files):
    qrels, runs = files
    return read_qrels(qrels), [read_run(p) for p in runs]


@pytest.mark.parametrize("measure", REFERENCE["trec"]["measures"])
def test_every_topic_equals_ir_measures(files, measure):
    """The stored values (ir-measures on the lines as written) and ir-measures on the files now."""
    import ir_measures

    qrels, runs = _read(files)
    stats = trec_statistics(qrels, runs, measure)
    assert stats.items == tuple(str(t) for t in range(1, 13)) and stats.systems == ("bm25", "dense", "hybrid")
    parsed = ir_measures.parse_measure(measure)
    for s, (name, path) in enumerate(zip(stats.systems, files[1])):
        stored = REFERENCE["trec"]["values"][name][measure]
        assert stats.values[:, 0, s].tolist() == [stored["topics"][t] for t in stats.items]
        assert stats.scores[s] == pytest.approx(stored["mean"], rel=1e-15, abs=1e-17)  # trec_eval -c's mean
        run = list(ir_measures.read_trec_run(str(path)))
        now = {m.query_id: m.value for m in ir_measures.iter_calc([parsed], list(ir_measures.read_trec_qrels(
            str(files[0]))), run)}
        assert stats.values[:, 0, s].tolist() == [now.get(t, 0.0) for t in stats.items]
    assert stats.values[4, 0, 1] == 0.0  # topic 5, which the dense run lacks
    assert any("run dense lacks 1 topic of the qrels, scored 0" in n for n in stats.notes)
    assert any("run bm25: 1 topic not in the qrels, ignored" in n for n in stats.notes)


def test_missing_topics_left_out_for_every_run(files):
    qrels, runs = _read(files)
    zero = trec_statistics(qrels, runs, "AP")
    omit = trec_statistics(qrels, runs, "AP", TrecOptions(missing="omit"))
    assert omit.items == tuple(t for t in zero.items if t != "5")
    keep = [k for k, t in enumerate(zero.items) if t != "5"]
    assert omit.values.tolist() == zero.values[keep].tolist()
    assert omit.scores[1] == pytest.approx(np.mean(zero.values[keep, 0, 1]), rel=1e-15)
    assert any("1 topic of the qrels that some run lacks is left out for every run (11 compared)" in n
               for n in omit.notes)


def test_ties_as_trec_eval_by_rank_and_at_random():
    """One topic, three documents of equal score: trec_eval orders them by document id, decreasing (c, b, a), so
    P@1 is c's relevance; by the rank column a comes first; a random order is the seed's, the same every time."""
    qrels = read_qrels(b"1 0 a 1\n1 0 b 0\n1 0 c 0\n2 0 x 1\n", name="q")
    run = read_run(b"1 Q0 a 1 5.0 t\n1 Q0 b 2 5.0 t\n1 Q0 c 3 5.0 t\n2 Q0 x 1 1 t\n", name="tied.run")
    other = read_run(b"1 Q0 a 1 9 t\n2 Q0 x 1 1 t\n", name="other.run")
    as_trec_eval = trec_statistics(qrels, [run, other], "P@1")
    by_rank = trec_statistics(qrels, [run, other], "P@1", TrecOptions(ties="rank"))
    assert as_trec_eval.values[0, 0, 0] == 0.0 and by_rank.values[0, 0, 0] == 1.0
    assert trec_statistics(qrels, [run, other], "AP").values[0, 0, 0] == pytest.approx(1 / 3)  # c, b, a
    draws = [trec_statistics(qrels, [run, other], "AP", TrecOptions(ties="random", tie_seed=seed)).values[0, 0, 0]
             for seed in range(12)]
    assert set(np.round(draws, 12)) == {1.0, 0.5, round(1 / 3, 12)}  # a first, second or third
    again = trec_statistics(qrels, [run, other], "AP", TrecOptions(ties="random", tie_seed=3)).values[0, 0, 0]
    assert again == draws[3]
    assert TrecOptions(ties="rank", tie_seed=5).tie_seed == 0  # a seed only matters for random ties


def test_measures_by_ir_measures_names_in_any_case_and_trec_eval_names():
    assert str(trec_measure("ndcg@10")) == "nDCG@10" and str(trec_measure("map")) == "AP"
    assert str(trec_measure("P_10")) == "P@10" and str(trec_measure("rr")) == "RR"
    assert str(trec_measure("P(rel=2)@5")) == "P(rel=2)@5"
    with pytest.raises(ParameterError, match="not a measure ir-measures knows"):
        trec_measure("bleu")
    with pytest.raises(ParameterError, match="not a mean over topics"):
        trec_measure("NumQ")


@pytest.mark.parametrize("content, message", [
    (b"1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n", r"document 'a' appears twice for topic '1' \(lines 1 and 2\)"),
    (b"1 Q0 a 1 0.5 t\n\n1 Q0 b 2 x t\n", r"line 3: the score 'x' is not a finite number"),
    (b"1 Q0 a 1 nan t\n", r"line 1: the score 'nan' is not a finite number"),
    (b"1 Q0 a 1 0.5\n", r"line 1 has 5 fields .*topic Q0 document rank score tag"),
    (b"", r"the file is empty .*a run line is"),
])
def test_messages_for_bad_runs(content, message):
    with pytest.raises(FileFormatError, match=message):
        read_run(content, name="A.run")


@pytest.mark.parametrize("content, message", [
    (b"1 0 a 1\n1 0 b 1.5\n", r"q\.txt: line 2: the relevance '1\.5' is not a whole number"),
    (b"1 0 a 1\n1 0 a 0\n", r"document 'a' is judged twice for topic '1' \(lines 1 and 2\)"),
    (b"1 a 1\n", r"line 1 has 3 fields .*topic 0 document relevance"),
])
def test_messages_for_bad_qrels(content, message):
    with pytest.raises(FileFormatError, match=message):
        read_qrels(content, name="q.txt")


def test_messages_for_runs_that_do_not_fit_the_qrels():
    qrels = read_qrels(b"1 0 a 1\n2 0 b 1\n", name="q.txt")
    good = read_run(b"1 Q0 a 1 1 t\n", name="good.run")
    stranger = read_run(b"301 Q0 a 1 1 t\n", name="other.run")
    with pytest.raises(FileFormatError, match=r"other\.run: no topic of the run is in the qrels q\.txt"):
        trec_statistics(qrels, [good, stranger], "AP")
    with pytest.raises(ParameterError, match="at least two run files"):
        trec_statistics(qrels, [good], "AP")
    other = read_run(b"2 Q0 b 1 1 t\n", name="two.run")
    with pytest.raises(FileFormatError, match="no topic of the qrels is in every run"):
        trec_statistics(qrels, [good, other], "AP", TrecOptions(missing="omit"))
    unranked = read_run(b"1 Q0 a first 1 t\n", name="unranked.run")
    with pytest.raises(FileFormatError, match=r"unranked\.run: line 1: the rank is not a whole number"):
        trec_statistics(qrels, [good, unranked], "AP", TrecOptions(ties="rank"))


@pytest.mark.parametrize("content", [
    b"1 Q0 a 1 0.5 t\n1 Q0 b 2 0.25 t\n",
    b"\n  1\tQ0 NA 1 1e-3 t  \n\n2 Q0 null 7 -4 t\n",           # blank lines, tabs, ids pandas would read as missing
    b"1 Q0 a 1 0.5 t\r\n1 Q0 b x 0.25 t\r\n",                  # CRLF; a rank that is not a number
    b'1 Q0 "a b" 1 0.5 t\n',                                    # a quote: read line by line
    b"1 Q0 a 1 0.5 t\n1 Q0 a 2 0.25 t\n",                       # a repeat: read line by line, refused
])
def test_the_fast_reader_and_the_line_by_line_reader_agree(content, monkeypatch):
    """Plain runs go through pandas' C parser; anything else is read line by line: both give the same run (or the
    same message)."""
    from evalcore.systems import trec

    def read():
        try:
            run = read_run(content, name="r.run")
        except FileFormatError as exc:
            return str(exc)
        return (run.topics.tolist(), run.docnos.tolist(), run.scores.tolist(), np.nan_to_num(run.ranks, nan=-1.0)
                .tolist(), run.lines.tolist())

    fast = read()
    monkeypatch.setattr(trec, "_table", lambda *args, **kwargs: None)
    assert read() == fast
