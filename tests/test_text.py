"""evalcore.text: user text shown as text in Streamlit's Markdown and in Plotly, and CSV for spreadsheets.

Markdown is checked with an independent CommonMark parser (markdown-it-py, with the strike-through, table and
$math$ extensions Streamlit renders) plus the text-level rewrites Streamlit applies after parsing; the real
renderer is checked in Chromium (tests/browser/test_browser_hostile.py).
"""

from __future__ import annotations

import html
import io
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.cli import main as cli
from evalcore.text import FORMULA_STARTS, markdown_text, plotly_text, spreadsheet_csv, spreadsheet_safe
from hostile import HOSTILE, STREAMLIT_TEXT_REWRITES, WORD_JOINER, markup_problems, rendered

CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")
pieces = st.sampled_from(HOSTILE + ("[", "]", "(", ")", "!", "*", "_", "`", "$", ":", "<", ">", "&", "\\", "#",
                                    "-", "~", "=", "@", "www.", "http://", "|", "\n", "\t", "    ", "1.", "%{"))
texts = st.lists(st.one_of(pieces, st.text(max_size=6)), max_size=8).map("".join)


# ---------------------------------------------------------------- Markdown

@pytest.mark.parametrize("name", HOSTILE)
def test_every_hostile_name_is_shown_as_its_text(name):
    source = markdown_text(name)
    assert markup_problems(source) == []
    types, text = rendered(source)
    assert text.replace(WORD_JOINER, "") == name


@pytest.mark.parametrize("name", HOSTILE)
def test_inside_our_own_bold_sentence_too(name):
    source = f"**UIR({markdown_text(name)}, {markdown_text(name)}) = +0.250**: sample *{markdown_text(name)}*."
    assert markup_problems(source) == []
    assert rendered(source)[1].replace(WORD_JOINER, "").count(name) == 3


@pytest.mark.parametrize("name", [h for h in HOSTILE if h not in ("%{y} %{x}", "| a | b |")])
def test_the_check_finds_every_hostile_name_left_raw(name):
    """The check above can fail: each of these, unescaped, would be rendered (a link, a tag, a formula, ...)
    in a sentence or, for a heading or a list, at the start of a message."""
    assert markup_problems(f"Measure {name} here") or markup_problems(name)


@given(texts)
def test_any_text_is_shown_as_itself(text):
    source = f"Column {markdown_text(text)} of the file."
    types, shown = rendered(source)
    assert markup_problems(source) == []
    assert shown.replace(WORD_JOINER, "") == f"Column {CONTROL.sub(' ', text)} of the file."
    assert not STREAMLIT_TEXT_REWRITES.search(shown)


def test_line_breaks_do_not_start_a_heading_or_a_list():
    source = markdown_text("a\n# b\n\n- c\r\n1. d\te")
    assert rendered(source) == ({"paragraph_open", "inline", "text", "paragraph_close"}, "a # b  - c  1. d e")


def test_plain_names_stay_readable():
    assert markdown_text("log_like") == "log\\_like" and markdown_text("G2 score") == "G2 score"


# ---------------------------------------------------------------- Plotly

def _plotly_shows(text: str) -> str:
    """What Plotly draws for ``text``: template fields filled (none may be left), tags read, entities decoded."""
    assert not re.search(r"%\{", text)
    assert "<" not in text and ">" not in text
    entities = set(re.findall(r"&[^;\s]*;", text))
    assert entities <= {"&amp;", "&lt;", "&gt;", "&#123;"}  # all decoded by plotly.js (svg_text_utils)
    return html.unescape(text)


@pytest.mark.parametrize("name", HOSTILE)
def test_plotly_text_shows_every_hostile_name(name):
    assert _plotly_shows(plotly_text(name)) == name


@given(texts)
def test_plotly_text_of_any_text(text):
    assert _plotly_shows(plotly_text(text)) == text


def test_plotly_text_breaks_template_fields():
    assert plotly_text("%{y}") == "%&#123;y}" and plotly_text("100%") == "100%"


# ---------------------------------------------------------------- CSV for spreadsheets

def test_formula_cells_get_a_quote_and_numbers_stay_numbers():
    table = pd.DataFrame({
        "measure": ["=1+1", "+cmd", "-x", "@SUM(A1)", "\tx", "\rx", "log.like", "a=b", " =x"],
        "value": [-0.5, 1e-300, -np.inf, np.nan, 0.0, -1.0, 2.5, 3.0, -7.25],
        "n": [-1, 2, 3, 4, 5, 6, 7, 8, 9],
        "flag": [True, False] * 4 + [True],
        "mixed": ["-a", -0.5, None, "=b", 1, "c", "+", "@", ""],
    })
    safe = spreadsheet_safe(table)
    assert list(safe["measure"]) == ["'=1+1", "'+cmd", "'-x", "'@SUM(A1)", "'\tx", "'\rx", "log.like", "a=b", " =x"]
    assert list(safe["mixed"].iloc[[0, 1, 3, 4, 6, 7, 8]]) == ["'-a", -0.5, "'=b", 1, "'+", "'@", ""]
    for column in ("value", "n", "flag"):
        pd.testing.assert_series_equal(safe[column], table[column])
    back = pd.read_csv(io.StringIO(spreadsheet_csv(table)), keep_default_na=False, na_values=[""])
    np.testing.assert_array_equal(back["value"].to_numpy(), table["value"].to_numpy())  # -0.5 is still -0.5
    assert back["value"].dtype == np.float64 and back["n"].dtype == np.int64
    assert list(back["measure"][:4]) == ["'=1+1", "'+cmd", "'-x", "'@SUM(A1)"]
    pd.testing.assert_frame_equal(table, table.copy())  # the input is not changed


def test_formula_column_names_get_a_quote_too():
    table = pd.DataFrame({"=cmd": ["x"], "-log p": [0.5], "ok": [1]})
    assert spreadsheet_csv(table).splitlines()[0] == "'=cmd,'-log p,ok"


def test_a_carriage_return_inside_a_cell_does_not_start_a_row():
    csv = spreadsheet_csv(pd.DataFrame({"key": ["a\r=cmd()", "b"]}))
    assert csv == 'key\r\n"a\r=cmd()"\r\nb\r\n'
    assert pd.read_csv(io.StringIO(csv))["key"].tolist() == ["a\r=cmd()", "b"]


def test_categorical_and_string_columns():
    table = pd.DataFrame({"m": pd.Categorical(["-a", "b", "-a"]), "s": pd.array(["=x", None, "y"], dtype="string")})
    safe = spreadsheet_safe(table)
    assert list(safe["m"]) == ["'-a", "b", "'-a"]
    assert safe["s"].iloc[0] == "'=x" and pd.isna(safe["s"].iloc[1]) and safe["s"].iloc[2] == "y"


@given(st.lists(st.tuples(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**12, 10**12)),
                min_size=1, max_size=20))
def test_numeric_tables_are_written_exactly_as_pandas_writes_them(rows):
    table = pd.DataFrame(rows, columns=["score", "n"])
    assert spreadsheet_csv(table) == table.to_csv(index=False, lineterminator="\r\n")


@given(st.lists(texts, min_size=1, max_size=10))
def test_a_quote_exactly_before_cells_that_start_like_a_formula(cells):
    safe = spreadsheet_safe(pd.DataFrame({"key": cells}))["key"].tolist()
    # (a formula start also behind quotes of its own: "'=x" becomes "''=x", so that the inverse is exact)
    assert safe == [("'" + c) if c.lstrip("'").startswith(FORMULA_STARTS) else c for c in cells]


def test_the_command_line_writes_exact_csv(tmp_path, capsys):
    """The command line's CSV feeds programs: a measure named -x stays -x (README: only the dashboard quotes)."""
    data = tmp_path / "d.csv"
    data.write_text("label,-x,=y\nTRUE,3,1\nFALSE,2,2\nTRUE,1,3\n")
    assert cli(["curves", str(data), "--label", "label", "--n", "1,2", "--ties", "stable"]) == 0
    out = capsys.readouterr().out
    assert pd.read_csv(io.StringIO(out))["measure"].tolist() == ["-x", "-x", "=y", "=y"] and "'" not in out


def test_figure_titles_are_text():
    from evalcore.figures.samples import f_sweep_figure

    sweep = pd.DataFrame({"alpha": [0.0, 1.0], "f_a": [0.2, 0.3], "f_b": [0.25, 0.1], "difference": [-0.05, 0.2]})
    fig = f_sweep_figure(sweep, [], a="<b>A</b>", b="%{y}", title="[t](http://evil) <a href=x>t</a>")
    assert fig.layout.title.text == "[t](http://evil) &lt;a href=x&gt;t&lt;/a&gt;"
    assert [t.name for t in fig.data] == ["&lt;b&gt;A&lt;/b&gt;", "%&#123;y}"]
