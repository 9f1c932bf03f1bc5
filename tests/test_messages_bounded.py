"""A message does not grow with the input (issue 29, §4): what a file, a link or a command contributes to a message
is bounded by evalcore.text.shown and listed (each name or value cut to 60 characters with "…", each list to 5 items
and "(and N more)"), on every path that quotes the input: the readers (load_candidates, load_annotated_sample, the
CSV reader's duplicate names), the engines, the systems' per-item table, a link's settings, the command line.

Each case is run with a short input and the same input made 200,000 characters long (a name) or 100,000 (a cell),
or 900 columns instead of 3: the message may grow by what 5 values cut to 60 characters and "(and 895 more)" take
(GROWTH), not with the input. Before: the no-label message quoted every column name in full (200,370 characters for one 200,000-character
name); a bad score quoted each whole cell.
"""

from __future__ import annotations

import pandas as pd
import pytest

from evalcore.errors import EvalcoreError

SHORT, LONG = "w" * 10, "w" * 200_000
# characters a message may grow by from the short input to the long one: at most 5 values of 60 characters and "…"
# where there were short ones, and "(and N more)"
GROWTH = 400
MOST = 1_500  # characters of any of these messages


def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    frame = pd.DataFrame(rows, columns=header)
    return frame.to_csv(index=False).encode()


def _refusal(call) -> str:
    with pytest.raises(EvalcoreError) as info:
        call()
    return str(info.value)


def no_label(name: str) -> str:
    from evalcore.io import load_candidates, read_table

    table = read_table(_csv([name, "x" + name], [["1", "2"], ["3", "4"]]), name="f.csv")
    return _refusal(lambda: load_candidates(table, name="f.csv"))


def no_label_annotated(name: str) -> str:
    from evalcore.io import load_annotated_sample, read_table

    table = read_table(_csv([name, "x" + name], [["a", "2"], ["b", "4"]]), name="f.csv")
    return _refusal(lambda: load_annotated_sample(table, name="f.csv", min_annotated=1))


def unknown_label(name: str) -> str:
    from evalcore.io import load_candidates, read_table

    table = read_table(_csv(["label", "g2", "k"], [["TRUE", "1", "a"], ["FALSE", "2", "b"]]), name="f.csv")
    return _refusal(lambda: load_candidates(table, name="f.csv", label=name))


def many_columns(width: int) -> str:
    from evalcore.io import load_candidates, read_table

    header = [f"c{i}" for i in range(width)]
    table = read_table(_csv(header, [["1"] * width, ["2"] * width]), name="f.csv")
    return _refusal(lambda: load_candidates(table, name="f.csv", label="nope"))


def bad_scores(cell: str) -> str:
    from evalcore.io import load_candidates, read_table

    rows = [["TRUE" if i % 2 else "FALSE", f"{cell}{i}"] for i in range(8)]
    table = read_table(_csv(["label", "g2"], rows), name="f.csv")
    return _refusal(lambda: load_candidates(table, name="f.csv", label="label", scores=["g2"]))


def bad_labels(cell: str) -> str:
    from evalcore.io import load_candidates, read_table

    rows = [[f"{cell}{i}", str(i)] for i in range(8)]
    table = read_table(_csv(["label", "g2"], rows), name="f.csv")
    return _refusal(lambda: load_candidates(table, name="f.csv", label="label", scores=["g2"]))


def duplicate_names(name: str) -> str:
    from evalcore.io import read_table

    return _refusal(lambda: read_table(f"{name},{name},label\n1,2,TRUE\n".encode(), name="f.csv"))


def engine_no_label(name: str, tmp_path) -> str:
    from evalcore.engines import TableSource, count_tables

    path = tmp_path / f"e{len(name)}.csv"
    path.write_bytes(_csv([name, "x" + name], [["1", "2"], ["3", "4"]]))
    return _refusal(lambda: count_tables(TableSource(path, name="e.csv"), engine="duckdb", ties="hash", seed=1))


def engine_unknown_score(name: str, tmp_path) -> str:
    from evalcore.engines import TableSource, count_tables

    path = tmp_path / "s.csv"
    path.write_bytes(_csv(["label", "a"], [["TRUE", "1"], ["FALSE", "2"]]))
    return _refusal(lambda: count_tables(TableSource(path, scores=(name,), name="s.csv"), engine="duckdb",
                                         ties="hash", seed=1))


def item_table(name: str) -> str:
    from evalcore.systems.inputs import table_from_frame

    frame = pd.DataFrame({name: ["a", "b"], f"{name}.tp": [1, 2]})
    return _refusal(lambda: table_from_frame(frame, None, name="t.csv"))


def repeated_item(item: str) -> str:
    from evalcore.systems.inputs import table_from_frame

    frame = pd.DataFrame({"item": [item, item], "s1.tp": [1, 2], "s1.fp": [0, 0], "s1.fn": [0, 1],
                          "s2.tp": [1, 2], "s2.fp": [0, 0], "s2.fn": [0, 1]})
    return _refusal(lambda: table_from_frame(frame, "f1", name="t.csv"))


def text_count(cell: str) -> str:
    from evalcore.systems.inputs import table_from_frame

    frame = pd.DataFrame({"item": ["a", "b"], "s1.tp": [cell, "2"], "s1.fp": [0, 0], "s1.fn": [0, 1],
                          "s2.tp": [1, 2], "s2.fp": [0, 0], "s2.fn": [0, 1]})
    return _refusal(lambda: table_from_frame(frame, "f1", name="t.csv"))


def link_measures(name: str) -> str:
    from evalcore.viewstate import ViewSettings, check_columns

    view = ViewSettings.of(label="label", scores=(name, "a"))
    return " ".join(check_columns(view, ["label", "a"])[1])


def link_unknown_settings(count: int) -> str:
    from evalcore.viewstate import from_query

    return " ".join(from_query({f"nope{i}": "1" for i in range(count)})[1])


CASES = {  # name: (the call, its small input, its large input)
    "no label column (load_candidates)": (no_label, SHORT, LONG),
    "no label column (load_annotated_sample)": (no_label_annotated, SHORT, LONG),
    "a label column the file does not have": (unknown_label, SHORT, LONG),
    "900 columns listed": (many_columns, 3, 900),
    "non-numeric scores": (bad_scores, "x", "x" * 100_000),
    "non-label labels": (bad_labels, "x", "x" * 100_000),
    "duplicate column names": (duplicate_names, SHORT, LONG),
    "per-item table without an item column": (item_table, SHORT, LONG),
    "an item given twice": (repeated_item, SHORT, LONG),
    "text in a count": (text_count, "x", "x" * 100_000),
    "a link's measure the data lack": (link_measures, SHORT, LONG),
    "a link's 5,000 unknown settings": (link_unknown_settings, 3, 5_000),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_message_does_not_grow_with_the_input(case):
    call, small, large = CASES[case]
    short, long = call(small), call(large)
    assert short and len(long) <= MOST, (len(long), long[:300])
    assert len(long) - len(short) <= GROWTH, (len(short), len(long), long[:400])
    assert "…" in long or "more)" in long, long[:400]  # cut where it was cut, and said so


@pytest.mark.parametrize("call", [engine_no_label, engine_unknown_score])
def test_the_engines_messages_do_not_grow_with_the_input(call, tmp_path):
    short, long = call(SHORT, tmp_path), call(LONG, tmp_path)
    assert len(long) <= MOST and len(long) - len(short) <= GROWTH, (len(short), len(long), long[:300])


def test_the_command_line_line_does_not_grow_with_the_input(tmp_path, capsys):
    from evalcore.cli import main

    lengths = []
    for name in (SHORT, LONG):
        path = tmp_path / f"n{len(name)}.csv"
        path.write_bytes(_csv([name, "x" + name], [["1", "2"], ["3", "4"]]))
        assert main(["curves", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("evalcore: error: ") and err.count("\n") == 1, err[:300]
        lengths.append(len(err) - len(str(path)))
    assert lengths[1] - lengths[0] <= GROWTH and lengths[1] <= MOST, lengths


def test_shown_and_listed():
    from evalcore.text import listed, shown

    assert shown("label") == "'label'" and shown(LONG) == repr("w" * 60 + "…")
    assert shown("a\nb") == "'a\\nb'"  # a quoted value stays on the message's line
    assert listed(["a", "b"]) == "'a', 'b'" and listed([]) == "(none)"
    assert listed(range(8), str) == "0, 1, 2, 3, 4 (and 3 more)"
    assert listed(["x"], total=12) == "'x' (and 11 more)"
    assert listed([2, 4], str, sep=" and ") == "2 and 4"
