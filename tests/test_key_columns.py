"""A column that identifies candidates is a key, not a score, by default (issue 34): named like a key (``id``,
``key``, ``doc_id``) or holding distinct integers (at least 1,000 of them); every such column is named in a note,
on the command line (memory and DuckDB engines) and in the suggested roles the Data page shows."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.engines import TableSource, count_tables
from evalcore.errors import ColumnError
from evalcore.io import load_candidates, suggest_roles
from evalcore.io.cells import key_like_name
from evalcore.io.roles import ID_MIN_ROWS, key_reason, left_out_note


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def candidates(n: int, seed: int = 3) -> pd.DataFrame:
    """``n`` candidates: an id 0..n-1 in shuffled order, a label, a float score, an integer count with ties, and
    a sparse id column of distinct integers not named like a key."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": rng.permutation(n),
        "is_tp": rng.random(n) < 0.2,
        "g2": np.round(rng.normal(size=n), 2),
        "freq": rng.integers(1, 50, n),  # integers with ties: a score
        "serial": rng.choice(10 * n, n, replace=False) + 10**9,  # distinct integers: an id by its values
    })


@pytest.mark.parametrize("name, key", [("id", True), ("ID", True), ("key", True), ("doc_id", True), ("row.id", True),
                                       ("cand-id", True), ("index", True), ("pair_key", True), ("freq", False),
                                       ("valid", False), ("paid", False), ("log.like", False), ("Dice", False)])
def test_key_like_names(name, key):
    assert key_like_name(name) is key


def test_suggested_roles_leave_keys_out_of_the_scores_and_say_why():
    df = candidates(ID_MIN_ROWS + 5)
    roles = suggest_roles(df)
    assert roles.label == "is_tp"
    assert roles.scores == ("g2", "freq")
    assert set(roles.keys) == {"id", "serial"}
    assert roles.left_out == (("id", "name"), ("serial", "distinct"))
    note = left_out_note("c.csv", roles.left_out, "name it with --measure")
    assert note.startswith("c.csv: not taken as scores: 'id' (named like a key); 'serial' (distinct integers")
    assert note.endswith("to rank by one, name it with --measure")


def test_distinct_integers_need_many_cells_and_no_repeat():
    small = candidates(ID_MIN_ROWS - 1)
    assert key_reason("serial", small["serial"]) is None  # 1, 2, 3 in a small file are as likely a score
    assert suggest_roles(small).scores == ("g2", "freq", "serial")
    big = candidates(ID_MIN_ROWS)
    assert key_reason("serial", big["serial"]) == "distinct"
    once_twice = big["serial"].copy()
    once_twice.iloc[-1] = once_twice.iloc[0]  # one value twice: a score
    assert key_reason("serial", once_twice) is None
    assert key_reason("serial", big["serial"].astype(float)) is None  # (integers as numbers with decimals: a score)
    assert key_reason("serial", pd.Series(np.arange(2 * ID_MIN_ROWS), dtype="Int64").where(lambda s: s % 7 > 0)) \
        == "distinct"  # missing cells aside


def test_named_scores_are_taken_as_given(tmp_path):
    path = tmp_path / "c.tsv"
    candidates(ID_MIN_ROWS + 5).to_csv(path, sep="\t", index=False)
    cs = load_candidates(path, scores=["id", "g2"])
    assert cs.measures == ("id", "g2")
    assert load_candidates(path).measures == ("g2", "freq")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_command_line_names_the_columns_left_out(tmp_path, engine):
    path = tmp_path / "c.parquet"
    candidates(ID_MIN_ROWS + 5).to_parquet(path, index=False)
    ties = ["--ties", "stable"] if engine == "memory" else ["--ties", "hash", "--seed", "4"]
    out = tmp_path / "curves.csv"
    code, _, err = run("curves", path, "--engine", engine, "--n", "1,10", "--out", out, *ties)
    assert code == 0, err
    assert pd.read_csv(out)["measure"].unique().tolist() == ["g2", "freq"]
    assert (f"evalcore: {path}: not taken as scores: 'id' (named like a key); 'serial' (distinct integers, as a "
            "candidate's id); to rank by one, name it with --measure") in err
    code, _, err = run("curves", path, "--engine", engine, "--n", "1,10", "--measure", "serial", "--out", out, *ties)
    assert code == 0 and "not taken" not in err
    assert pd.read_csv(out)["measure"].unique().tolist() == ["serial"]


def test_engines_leave_keys_out_by_default_as_the_readers_do(tmp_path):
    path = tmp_path / "c.parquet"
    df = candidates(ID_MIN_ROWS + 5)
    df.to_parquet(path, index=False)
    tables = count_tables(TableSource(path), engine="duckdb", ties="stable", pairs=False)
    assert tables.measures == ("g2", "freq") == load_candidates(path).measures
    small = tmp_path / "small.parquet"
    df.head(ID_MIN_ROWS - 1).to_parquet(small, index=False)
    assert count_tables(TableSource(small), engine="duckdb", ties="stable", pairs=False).measures \
        == ("g2", "freq", "serial") == load_candidates(small).measures
    only_keys = tmp_path / "keys.parquet"
    df[["id", "is_tp", "serial"]].to_parquet(only_keys, index=False)
    with pytest.raises(ColumnError, match=r"the numeric columns 'id', 'serial' are keys .* name the score columns"):
        count_tables(TableSource(only_keys), engine="duckdb", ties="stable", pairs=False)
