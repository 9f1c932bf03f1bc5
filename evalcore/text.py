"""User text shown as text: escaping for Streamlit's Markdown and Plotly's HTML, and CSV that spreadsheets
do not execute.

A file name, a column or measure name, a sample id, a key value or a value read from a link is data, not
markup. Everything the dashboard shows of it passes through one of these functions:

- :func:`markdown_text` for every place Streamlit renders Markdown: ``st.markdown``, captions, headers,
  messages (``st.error``/``st.warning``/``st.info``), widget labels and help, metric labels, expander and
  tab labels, the options of ``st.radio`` and the values shown by ``st.select_slider``. (Selectbox and
  multiselect options and table cells are shown as plain text by Streamlit and need no escaping.)
- :func:`plotly_text` for every text of a Plotly figure: trace names (legends), axis titles and category
  ticks, annotations, hover templates and ``text`` arrays, which Plotly renders as a subset of HTML
  (``<a href>``, ``<b>``, ``<br>``, entities) and fills by ``%{...}`` templates.
- :func:`shown` and :func:`listed` for every part of a message (an error, a warning, a line of the command line)
  that quotes the input: a name or value cut to :data:`SHOWN_CHARS` characters with "…", a list to
  :data:`SHOWN_ITEMS` items and "(and N more)", so that a message does not grow with the input (a 200,000-character
  column name, a list of 10,000 columns, a 1 MB cell).
- :func:`spreadsheet_csv` for every CSV or TSV a user downloads from the dashboard (the pages' tables, the
  annotation exports): the one guarded writer. Cells a spreadsheet would run as a formula get a leading ``'``
  (OWASP, "CSV Injection"); numbers are left exactly as they are. :func:`spreadsheet_unguarded` undoes exactly
  that quote (and nothing else) when such a file is imported again, so export -> import is exact. The command
  line writes exact CSV (:mod:`evalcore.output`), since its output feeds programs, not spreadsheets. (Streamlit's
  own table toolbar would write unguarded CSV in the browser: ``client.disableDataExport`` turns it off.)

This module is pure (no Streamlit, no Plotly import).
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:  # (pandas is imported where a table is written: the messages' helpers import nothing heavy, so
    import pandas as pd  # the command line's help and its errors start without it)

__all__ = ["markdown_text", "plotly_text", "shown", "cut", "listed", "SHOWN_CHARS", "SHOWN_ITEMS", "spreadsheet_csv",
           "spreadsheet_safe", "spreadsheet_unguard", "spreadsheet_unguarded", "FORMULA_STARTS"]

# CommonMark lets a backslash escape every ASCII punctuation character, and the escaped character is
# always shown as itself. Escaping all of them (not a hand-picked few) also covers Streamlit's and GFM's
# extensions that start with punctuation: $...$ (KaTeX), :red[...] (coloured text), :material/...: (icons),
# :smile: (emoji), ~~...~~, tables (|), bare links (http://, www., a@b.c) and HTML (<b>, &amp;).
_ASCII_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
# Some of Streamlit's Markdown plugins rewrite the text AFTER parsing, so that escapes do not stop them:
# <- -> <-> -- >= <= ~= become arrows, dashes and relations; :streamlit: becomes a logo; bare
# http://..., www.... and a@b.c become links (GFM autolink literals). A WORD JOINER (U+2060: invisible,
# no width, not a word character) inside each pattern keeps them as typed: after a colon that a name or a
# slash follows (":smile:", ":streamlit:", "http://"), before an @ after a word character, between "www"
# and its dot, and between the two characters of each pair. (Only there: "row 2: 'x'" stays as it is.)
WORD_JOINER = "\u2060"
_TEXT_PATTERNS = re.compile(r"(?<=[-<>~=])(?=[-<>=])|(?<=:)(?=[\w/+-])|(?<=[\w.+-])(?=@)|(?i:(?<=www)(?=\.))")
# Line breaks and other control characters would start a new Markdown block (a heading, a list, a code
# block) inside a sentence; they are shown as one space.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# The guard quotes a text that starts like a formula, also behind quotes of its own ("'=x" becomes "''=x"), so
# that its inverse is exact: strip one quote from a text that is quotes and then a formula start, nothing else.
_GUARDED = re.compile("'*[" + re.escape("".join(FORMULA_STARTS)) + "]")
_QUOTED = re.compile("'+[" + re.escape("".join(FORMULA_STARTS)) + "]")


def markdown_text(value: object) -> str:
    r"""``value`` as Markdown source that Streamlit shows literally, as plain text.

    Parameters
    ----------
    value : object
        Any value; it is converted with ``str``.

    Returns
    -------
    str
        The text with every ASCII punctuation character backslash-escaped, an invisible word joiner
        (U+2060) after a ``:`` that a name or ``/`` follows, before an ``@`` after a word character,
        after ``www`` before a dot and between the characters of ``<- -> -- >= <= ~=``, and control
        characters (line breaks, tabs) replaced by a space. Rendered by Streamlit, it shows the
        original text: no link, image, formula, HTML tag, emphasis, code, coloured text, icon,
        emoji, logo or arrow. (Text copied from the page carries the invisible word joiners.)

    Notes
    -----
    CommonMark §2.4: "Any ASCII punctuation character may be backslash-escaped"; the escaped
    character is shown as a literal. Streamlit's extensions (KaTeX ``$...$``, ``:color[...]``,
    ``:material/name:``, emoji shortcodes) all begin with punctuation and so are broken by the
    same escapes. The typographic replacements (``->`` to an arrow), the ``:streamlit:`` logo
    and GFM's autolink literals (``www.x.org``, ``http://x.org``, ``a@x.org``) run on the parsed
    text, so only a character inside the pattern stops them.

    References
    ----------
    CommonMark Spec 0.31.2, §2.4 Backslash escapes. https://spec.commonmark.org/0.31.2/#backslash-escapes

    Examples
    --------
    >>> markdown_text("[x](http://evil)")
    '\\[x\\]\\(http\\:\u2060\\/\\/evil\\)'
    >>> markdown_text("log.like")
    'log\\.like'
    """
    text = _CONTROL.sub(" ", str(value))
    text = _TEXT_PATTERNS.sub(WORD_JOINER, text)
    return _ASCII_PUNCTUATION.sub(r"\\\1", text)


def plotly_text(value: object) -> str:
    """``value`` as text for a Plotly figure, shown literally.

    Parameters
    ----------
    value : object
        Any value; it is converted with ``str``.

    Returns
    -------
    str
        The text with ``&``, ``<`` and ``>`` written as HTML entities (``&amp;``, ``&lt;``,
        ``&gt;``) and the ``{`` of every ``%{`` as ``&#123;``. Plotly shows the original text:
        no tag (``<a href>``, ``<b>``, ``<br>``) and no template field (``%{x}``) is interpreted.

    Notes
    -----
    Plotly renders trace names, titles, annotations, tick labels and hover labels through a
    small HTML subset and decodes entities, so an escaped ``&lt;b&gt;`` is drawn as ``<b>``.
    Hover and text templates substitute ``%{name}`` before that, and have no escape of their
    own; ``%&#123;`` is not a field, and is drawn as ``%{``.

    Examples
    --------
    >>> plotly_text("<b>G2</b> & %{y}")
    '&lt;b&gt;G2&lt;/b&gt; &amp; %&#123;y}'
    """
    return html.escape(str(value), quote=False).replace("%{", "%&#123;")


SHOWN_CHARS = 60  # characters of one name or value of the input that a message quotes
SHOWN_ITEMS = 5  # items of a list of names or values that a message quotes


def cut(value: object, limit: int = SHOWN_CHARS) -> str:
    """``str(value)`` cut to ``limit`` characters, with "…" where it was cut.

    Examples
    --------
    >>> cut("w" * 200, 5)
    'wwwww…'
    """
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """A name or value of the input as a message quotes it: the repr of its text cut to ``limit`` characters.

    The repr shows control characters and line breaks escaped, so a quoted value stays on the message's line; at
    most about 4 characters per character of the cut text.

    Examples
    --------
    >>> shown("label")
    "'label'"
    >>> shown("w" * 200, 5)
    "'wwwww…'"
    """
    return repr(cut(value, limit))


def listed(values: Iterable, each: Callable[[object], str] = shown, *, total: int | None = None,
           limit: int = SHOWN_ITEMS, sep: str = ", ") -> str:
    """The first ``limit`` of ``values``, each as ``each`` writes it (:func:`shown`: quoted and cut), separated by
    ``sep``, then "(and N more)" for the rest (``total``: how many there are in all, when ``values`` holds only the
    first of them); "(none)" for none.

    Examples
    --------
    >>> listed(["a", "b"])
    "'a', 'b'"
    >>> listed(range(1, 9), str, limit=3)
    '1, 2, 3 (and 5 more)'
    """
    first, count = [], 0
    for count, value in enumerate(values, 1):
        if count <= limit:
            first.append(each(value))
    total = count if total is None else max(int(total), count)
    if not first:
        return "(none)"
    return sep.join(first) + (f" (and {total - len(first):,} more)" if total > len(first) else "")


def _pandas():
    import pandas

    return pandas


def _risky(value: object) -> bool:
    return isinstance(value, str) and _GUARDED.match(value) is not None


def _guarded_name(name: object) -> object:
    return "'" + name if _risky(name) else name


def _neutralised(column: pd.Series) -> pd.Series:
    """A column with ``'`` before every text cell that starts like a formula (after any quotes of its own); other
    cells unchanged."""
    values = column.astype(object)
    risky = values.map(_risky).to_numpy(bool)
    if not risky.any():
        return column
    values = values.copy()
    values[risky] = "'" + values[risky]
    return values


def spreadsheet_unguard(value: object) -> object:
    """Undo :func:`spreadsheet_safe`'s quote on one cell or name read back from a download: a text that is one or
    more ``'`` and then a formula start loses one ``'``; anything else is returned unchanged.

    Examples
    --------
    >>> [spreadsheet_unguard(v) for v in ["'=SUM(A1)", "''=x", "'tis", "=raw", 5]]
    ['=SUM(A1)', "'=x", "'tis", '=raw', 5]
    """
    if isinstance(value, str) and _QUOTED.match(value):
        return value[1:]
    return value


def spreadsheet_unguarded(table: pd.DataFrame) -> pd.DataFrame:
    """A table read from a file :func:`spreadsheet_csv` wrote, with exactly the guard's quotes taken out again
    (text cells and column names; numbers untouched): ``spreadsheet_unguarded(read(spreadsheet_csv(t)))`` has the
    text of ``t``. The annotation import reads exports with it."""
    out = table.copy()
    for i, (_, column) in enumerate(table.items()):
        if column.dtype == object or isinstance(column.dtype, _pandas().StringDtype):
            out.isetitem(i, column.map(spreadsheet_unguard))
    out.columns = [spreadsheet_unguard(c) for c in table.columns]
    return out


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``table`` that a spreadsheet opens without running any cell as a formula.

    Parameters
    ----------
    table : DataFrame

    Returns
    -------
    DataFrame
        Every text cell, and every column name, that starts with ``=``, ``+``, ``-``, ``@``, a tab
        or a carriage return (also after quotes of its own: ``'=x``) gets a leading ``'``. Numeric,
        boolean and date columns, and numbers in mixed columns, are unchanged (``-0.5`` stays the
        number ``-0.5``). :func:`spreadsheet_unguarded` is its exact inverse.

    Notes
    -----
    OWASP, "CSV Injection": prefix such cells with a single quote, so that Excel, LibreOffice
    and Google Sheets show them as text. A spreadsheet shows the quote; a program reading the
    CSV sees it. The command line therefore writes exact CSV, and only the dashboard's
    downloads, which people open in spreadsheets, go through this function.

    References
    ----------
    OWASP Foundation. CSV Injection. https://owasp.org/www-community/attacks/CSV_Injection
    """
    out = table.copy()
    for i, (name, column) in enumerate(table.items()):
        types = _pandas().api.types
        if types.is_numeric_dtype(column.dtype) or types.is_datetime64_any_dtype(column.dtype):
            continue  # numbers and booleans (numeric to pandas), dates: never text
        out.isetitem(i, _neutralised(column))
    out.columns = [_guarded_name(c) for c in table.columns]
    return out


def spreadsheet_csv(table: pd.DataFrame, **to_csv) -> str:
    """``table`` as CSV (or, with ``sep="\\t"``, TSV) text for a spreadsheet: :func:`spreadsheet_safe`, then
    ``DataFrame.to_csv``. The one writer of every table a user downloads from the dashboard.

    Parameters
    ----------
    table : DataFrame
    **to_csv
        Passed to :meth:`pandas.DataFrame.to_csv` (``sep``, ``na_rep``, ...); ``index`` defaults to False and the
        line end to ``"\\r\\n"`` (RFC 4180), so that a cell holding a carriage return or a line feed is quoted:
        with ``"\\n"`` alone, a bare ``"\\r"`` would end the row in a spreadsheet and could start a formula.

    Returns
    -------
    str
    """
    to_csv.setdefault("index", False)
    to_csv.setdefault("lineterminator", "\r\n")
    return spreadsheet_safe(table).to_csv(**to_csv)
