"""Hostile names and a data set made of them, and a check of what Streamlit would render from a Markdown source.

Used by tests/test_text.py (the escaping functions), tests/app/test_hostile.py (every page under AppTest) and
tests/browser/test_browser_hostile.py (every page in Chromium). Each string is something a file, column, measure,
sample or key name, or a link value, could hold that Markdown, KaTeX, HTML or Plotly would render as something
other than the text: a link, an image, a formula, a tag, emphasis, code, colour, an icon, an arrow.
"""

from __future__ import annotations

import re

import numpy as np

HOSTILE = (
    "[x](http://evil.example/link)",
    "![i](http://evil.example/i.png)",
    "<b>b</b>",
    "<a href=http://evil.example/a>a</a>",
    "<img src=http://evil.example/img.png>",
    "<script>alert(1)</script>",
    "$x^2$",
    "**bold**",
    "_em_",
    "~~del~~",
    "`code`",
    ":red[x]",
    ":material/home:",
    ":smile: :streamlit:",
    "http://evil.example/bare",
    "www.evil.example",
    "mail@evil.example",
    "a -> b <= c",
    "# heading",
    "1. list",
    "| a | b |",
    "&amp; &lt;",
    "%{y} %{x}",
    '=HYPERLINK("http://evil.example/csv")',
    "x<br>y",
)
# What Streamlit renders beyond CommonMark, looked for in the parsed text: coloured text (:red[x], a directive),
# and the rewrites it applies AFTER parsing (arrows and relations, the logo, icons, emoji, GFM's bare links).
# None may come from data.
STREAMLIT_TEXT_REWRITES = re.compile(
    r"(?i)->|<-|--|>=|<=|~=|:[a-z-]+\[|:streamlit:|:material/|:[a-z_+-]+:|https?://|www\.|[\w.+-]@[\w-]")
WORD_JOINER = "\u2060"
_ESCAPED = re.compile(r"""\\([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
MARKUP_TOKENS = {"link_open", "image", "html_inline", "html_block", "math_inline", "math_block", "math_block_label",
                 "code_inline", "code_block", "fence", "heading_open", "blockquote_open", "bullet_list_open",
                 "ordered_list_open", "s_open", "hr"}


def plain(source: str) -> str:
    """The text a Markdown source escaped by :func:`evalcore.text.markdown_text` shows (escapes and word joiners
    removed), for tests that look for a message's words."""
    return _ESCAPED.sub(r"\1", source).replace(WORD_JOINER, "")


def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").enable(["strikethrough", "table"]).use(dollarmath_plugin)


_PARSER = None


def _tokens(tokens):
    for t in tokens:
        yield t
        yield from _tokens(t.children or ())


def rendered(source: str) -> tuple[set[str], str]:
    """The token types and the visible text of ``source`` as CommonMark (+ strikethrough, tables, $math$)."""
    global _PARSER
    _PARSER = _PARSER or _parser()
    tokens = list(_tokens(_PARSER.parse(source)))
    text = "".join(t.content for t in tokens if t.type in ("text", "code_inline", "math_inline"))
    text += "".join(" " for t in tokens if t.type in ("softbreak", "hardbreak"))
    return {t.type for t in tokens}, text


def markup_problems(source: str, allowed_rewrites: tuple[str, ...] = ()) -> list[str]:
    """Why ``source`` (Markdown that Streamlit renders) would show data as markup; [] if it shows it as text.

    - no link, image, HTML, formula, code, heading, quote, list or strike-through (our own texts use none);
    - tables only of the pages' own making (evalcore_app.present.small_table): data inside one stays in its cell, which the
      next rule checks with the hostile "| a | b |" (split into cells, it would not be shown whole);
    - every hostile string in the source (read without its escapes) is in the rendered text, whole: not
      emphasised, not eaten by a link or a formula;
    - none of Streamlit's text-level rewrites (arrows, logo, icons, emoji, bare links) is in the rendered text,
      apart from ``allowed_rewrites`` (our own, e.g. "γ >= 2.5" in a cut-off label).
    """
    types, text = rendered(source)
    problems = [f"{t} in {source!r}" for t in sorted(types & MARKUP_TOKENS)]
    source_text = plain(source)
    shown = text.replace(WORD_JOINER, "")
    for h in HOSTILE:
        if source_text.count(h) != shown.count(h):
            problems.append(f"{h!r} is not shown as text in {source!r} (shown: {text!r})")
    rest = text
    for own in allowed_rewrites:
        rest = rest.replace(own, "")
    problems += [f"Streamlit would rewrite {m.group()!r} in {source!r}" for m in STREAMLIT_TEXT_REWRITES.finditer(rest)]
    return problems


# ---------------------------------------------------------------- a data set made of hostile names

FILE_NAME = "[f](http://evil.example/file) <b>f</b> $f$ :red[f].csv"
LABEL = "<i>is</i> [tp](http://evil.example/label)"
SAMPLE_COLUMN = "<u>sample</u> $s$ [c](http://evil.example/col)"
KEY_COLUMNS = ("[k](http://evil.example/key)", "**key** `k`")
MEASURES = HOSTILE  # every hostile string is a measure name; a page draws up to 10 at once
SAMPLE_IDS = ("[s](http://evil.example/s)", "$s^2$", "<b>s</b>", "**s** :red[s] %{x}")
NAMES = (FILE_NAME, LABEL, SAMPLE_COLUMN, *KEY_COLUMNS, *MEASURES, *SAMPLE_IDS)


LINK_PARAMETERS = ("ties", "interval", "test", "correction", "kind", "auc_ci", "cut", "t_mode", "sample", "m", "band",
                   "a", "b", "t_measure", "t_compare", "v_m", "lower", "label", "score", "key", "cut_gamma", "sys_tests",
                   "level", "n_min", "seed")


def hostile_link_values() -> dict:
    """Query parameters that send every hostile string as the value of some setting, each unknown to the data
    (so that each is named in a message): a hostile string plus " (nope)"."""
    assert len(LINK_PARAMETERS) == len(HOSTILE)
    return {param: [f"{value} (nope)=1"] if param == "cut_gamma" else f"{value} (nope)"
            for param, value in zip(LINK_PARAMETERS, HOSTILE)}


def hostile_csv(per_sample: int = 60, seed: int = 7) -> bytes:
    """A candidate set whose every name is hostile: 4 samples (hostile ids) x ``per_sample`` candidates,
    a measure named by each of ``HOSTILE``, two key columns of hostile values, a hostile label and sample
    column."""
    import csv
    import io

    rng = np.random.default_rng(seed)
    rows = []
    for s, sample in enumerate(SAMPLE_IDS):
        tp = rng.random(per_sample) < 0.3
        tp[:2] = (True, False)  # every sample has TPs and FPs
        for i in range(per_sample):
            scores = [f"{rng.normal(1.0 if tp[i] else 0.0, 1.0 + k / 5):.4f}" for k in range(len(MEASURES))]
            keys = [HOSTILE[(s * per_sample + i) % len(HOSTILE)], f"{HOSTILE[i % len(HOSTILE)]} {i}"]
            rows.append([sample, "TRUE" if tp[i] else "FALSE", *keys, *scores])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([SAMPLE_COLUMN, LABEL, *KEY_COLUMNS, *MEASURES])
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")
