"""A field longer than the csv module's own limit (131,072 characters) in a CSV header or a quoted value
(issue 18, item 11): on today's main it ended in a traceback (``_csv.Error: field larger than field limit``).
Within the reading limits (evalcore.io.limits) the file reads; past ``max_field_bytes`` the message names the file,
the limit and how to raise it."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from evalcore.cli import main
from evalcore.io import LimitError, Limits, read_table

LONG = "a" * 200_000


@pytest.mark.parametrize("content", [
    f"key,label,{LONG}\nx,TRUE,1\ny,FALSE,2\n",          # the header holds one 200,000-character field
    f'key,label,score\nx,TRUE,1\ny,FALSE,"{LONG}\n2"\n',   # a quoted value with a line break (the csv module reads it)
    f'key,label,score\n"{LONG}",TRUE,1\ny,FALSE,2\n',      # a long quoted key
], ids=["header", "quoted multiline value", "quoted key"])
def test_a_field_longer_than_the_csv_modules_limit_reads_within_the_limits(content):
    table = read_table(content.encode(), name="long.csv")
    assert len(table) == 2
    assert LONG in list(table.columns) or (table.astype(str) == LONG).any().any() or \
        (table.astype(str).apply(lambda c: c.str.startswith(LONG)).any().any())


@pytest.mark.parametrize("content", [f"key,label,{LONG}\nx,TRUE,1\n", f'key,label,score\n"{LONG}",TRUE,1\n'],
                         ids=["header", "value"])
def test_past_the_field_limit_the_message_names_file_limit_and_how_to_raise_it(content):
    with pytest.raises(LimitError) as error:
        read_table(content.encode(), name="long.csv", limits=Limits(max_field_bytes=100_000))
    message = str(error.value)
    assert message.startswith("long.csv: ") and "200,000 bytes" in message and "(max_field_bytes)" in message
    assert "EVALCORE_MAX_FIELD=" in message and "--limit field=" in message
    assert len(message) < 600


def test_the_command_line_says_so_in_one_line(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(f"key,label,{LONG}\nx,TRUE,1\ny,FALSE,2\n")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["summary", str(path), "--limit", "field=100000"])
    assert code == 2 and err.getvalue().count("\n") == 1
    assert err.getvalue().startswith(f"evalcore: error: {path}: the header's field 3")
    assert "Traceback" not in err.getvalue()
