"""Text that leaves the server in a report (issue 19): names are text in Markdown and in LaTeX, whatever they hold.

A column or display name with a backtick must not close the signature's code span in methods.md (after which a
``<script>`` reached the Markdown as raw HTML); a line break must not split the methods paragraph; C1 control
characters (U+0080-U+009F, what a Latin-1 reading of Windows-1252 bytes gives) must not reach report.tex raw
(pdflatex stops there). The Markdown is checked with a CommonMark parser (markdown-it-py, Streamlit's), the LaTeX
by compiling report.tex with pdflatex and bibtex.
"""

from __future__ import annotations

import io
import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from evalcore.io import build_candidate_set
from evalcore.report import ReportSettings, build_report
from evalcore.report.latex import compile_report

BACKTICK = "a`b` <script>alert(1)</script>"
BREAK = "two\nlines\r\nthree"
C1 = "caf\u0083\u0085\u009f"  # three C1 controls: U+0083, NEL (a line break), U+009F
SPECIALS = "%$&_#{}~^\\|<>"
LABEL = "gold `x` \u0080<b>"


@pytest.fixture(scope="module")
def hostile():
    """60 candidates whose label and score columns are named with backticks, line breaks, C1 characters,
    HTML and every LaTeX special."""
    rng = np.random.default_rng(3)
    labels = rng.random(60) < 0.3
    frame = pd.DataFrame({"key": [f"k{i}" for i in range(60)], LABEL: labels,
                          BACKTICK: labels + rng.normal(size=60), BREAK: rng.normal(size=60),
                          C1: rng.normal(size=60), SPECIALS: labels * 0.5 + rng.normal(size=60)})
    return build_candidate_set(frame, label=LABEL, scores=[BACKTICK, BREAK, C1, SPECIALS])


@pytest.fixture(scope="module")
def files(hostile):
    settings = ReportSettings((BACKTICK, BREAK, C1, SPECIALS), LABEL, sizes=(10, 30), ties="stable",
                              correction="holm")
    names = {C1: "C1 \u0084 and\u2028more", SPECIALS: "disp `` ``` name\n<i>"}
    report = build_report(hostile, settings, data_sha256="0" * 64, names=names, figures=False)
    return report.files, str(report.signature)


def _tokens(markdown: str):
    return MarkdownIt("commonmark").parse(markdown)


def _inline(tokens):
    for token in tokens:
        yield token
        yield from token.children or ()


def test_methods_md_holds_no_html_and_one_paragraph(files):
    text, signature = files
    markdown = text["methods.md"].decode()
    tokens = _tokens(markdown)
    kinds = [t.type for t in _inline(tokens)]
    assert "html_inline" not in kinds and "html_block" not in kinds
    # the methods section: heading, the paragraph, the signature line, then the references
    paragraphs = [i for i, t in enumerate(tokens) if t.type == "paragraph_open"]
    heading = next(i for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h3")
    assert len([i for i in paragraphs if i < heading]) == 2
    spans = [t.content for t in _inline(tokens) if t.type == "code_inline"]
    assert signature in spans  # the whole signature is one code span, backticks and all


def test_the_paragraph_shows_the_names_as_text(files):
    text, _ = files
    tokens = _tokens(text["methods.md"].decode())
    first = next(i for i, t in enumerate(tokens) if t.type == "paragraph_open")
    paragraph = tokens[first + 1]
    shown = "".join(t.content for t in paragraph.children if t.type in ("text", "code_inline"))
    assert "a`b` <script>alert(1)</script>" in shown  # the name as text, not markup
    assert "two↵lines↵three" in shown and "C1 [U+0084] and↵more" in shown
    assert "gold `x` [U+0080]<b>" in shown


@pytest.mark.parametrize("name", ["tables/precision.md", "tables/pairwise.md", "figures/captions.md"])
def test_tables_and_captions_hold_no_html(files, name):
    markdown = files[0][name].decode()
    kinds = [t.type for t in _inline(_tokens(markdown))]
    assert "html_inline" not in kinds and "html_block" not in kinds
    assert "\u0083" not in markdown and "\u0085" not in markdown


def test_escapes_and_code_spans():
    from evalcore.report.text import code_span, md_escape, one_line, tex_escape

    assert one_line("a\r\nb\nc\u2028d\u0085e\x07f\u009fg") == "a↵b↵c↵d↵e[U+0007]f[U+009F]g"
    assert md_escape("<a href=x>&amp;`") == r"\<a href=x\>\&amp;\`"
    for text in ("`", "a``b", "```x```", "`` ", " plain"):
        span = code_span(text)
        (token,) = [t for t in _inline(_tokens(span)) if t.type == "code_inline"]
        assert token.content == text
    assert "\u0085" not in tex_escape(C1) and "\u0083" not in tex_escape(C1)


def test_the_report_compiles_whatever_the_names_hold(files, tmp_path):
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.fail("pdflatex and bibtex are needed (./dev test installs them)", pytrace=False)
    archive = zipfile.ZipFile(io.BytesIO(_zip(files[0])))
    archive.extractall(tmp_path)
    tex = (tmp_path / "methods.tex").read_text()
    assert not any(0x80 <= ord(ch) <= 0x9F for ch in tex)
    result = compile_report(tmp_path)
    assert result.pages >= 1


def _zip(files) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return buffer.getvalue()
