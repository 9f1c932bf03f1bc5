"""How the pages show numbers and names: tables through :func:`evalcore.format.page_table` with the measures'
display names, the columns of a pair (``size_a``) named by the measures, the downloads of a figure and its table
(:func:`downloads`), and the caption that exported figures carry when the user asks for it (the view's
``caption``, a toggle in the sidebar).

Tables on screen hold the numbers and show the text written by :mod:`evalcore.format` (one way for every page;
evalcore_app/tables.py), so that they sort as numbers; the CSV downloads keep the exact numbers, with the same display names.
A table of a few cells that nobody sorts (the 2x2 view's) is typeset instead (:func:`small_table`), with the same
text in every cell.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import format as fmt
from evalcore.figures import style as figures
from evalcore.text import markdown_text as esc
from evalcore_app import cached, report, widgets
from evalcore_app.common import view

#: Per download stem, what its figure depends on besides the data and the ties (figure_caption's parts).
CAPTION_PARTS = {
    "precision": ("level", "range"), "confidence": ("level", "range"), "significance": ("test", "level", "range"),
    "difference": ("test", "level", "range"), "pairwise": ("level", "pairs_n"), "threshold": ("level",),
    "validation": ("level",), "across_samples": ("level",),
}


def table(page: str, name: str, data, measures=(), *, pair: tuple[str, str] | None = None, **kwargs):
    """``st.dataframe`` of a page's table: the cells read as :func:`evalcore.format.page_table` writes them, the
    values stay typed (:func:`evalcore.format.page_cells`, :func:`evalcore_app.tables.dataframe`), so that a click on a
    header sorts numbers as numbers; the columns and cells that name ``measures`` show their display names (and,
    given the ``pair`` A, B, the columns of A and B are named by :func:`pair_named`)."""
    from evalcore_app import tables  # (imported here: this function is the one use)

    values, texts = fmt.page_cells(page, name, _shown(data, measures))
    if pair is not None:
        values, texts = pair_named(values, *pair), pair_named(texts, *pair)
    return tables.dataframe(values, texts, **{"hide_index": True, **kwargs})


def _shown(data, measures) -> pd.DataFrame:
    """``data`` as a table (a mapping is one row) whose columns and cells name ``measures`` by display name."""
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame([dict(data)])
    return widgets.displayed(frame, tuple(measures))


def small_table(page: str, name: str, data, measures=()) -> str:
    """A page's table of a few cells as a Markdown table, each cell the text :func:`evalcore.format.page_table`
    writes for it (escaped: shown as plain text), the first column to the left and the others, numbers, to the
    right; columns and cells that name ``measures`` show their display names, as in :func:`table`.

    For tables too small to sort (the 2x2 view's: two and four rows). Typeset, they read as a paper's table, and
    cost a rerun a fraction of a grid: the 2x2 and the effect table as grids took about 26 ms of a Significance
    level key on the server, and the browser drew both grids again on every key (bench/bench_browser.py)."""
    texts = fmt.page_table(page, name, _shown(data, measures))

    def row(cells) -> str:
        return "| " + " | ".join(esc(cell) for cell in cells) + " |"

    rule = "| " + " | ".join(":--" if i == 0 else "--:" for i in range(texts.shape[1])) + " |"
    return "\n".join([row(texts.columns), rule, *(row(cells) for cells in texts.itertuples(index=False))])


def pair_named(data: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """A table with columns of measures A and B (``size_a``, ``precision_b``) named by the measures' display names:
    ``size (G²)``, ``precision (X²)``."""
    names = {"_a": widgets.shown(a), "_b": widgets.shown(b)}
    return data.rename(columns={c: f"{c[:-2]} ({names[c[-2:]]})" for c in data.columns
                                if isinstance(c, str) and c[-2:] in names})


def matrix_named(matrix: pd.DataFrame) -> pd.DataFrame:
    """A measure-by-measure matrix with the display names as its index and columns."""
    return matrix.rename(index=widgets.shown, columns=widgets.shown)


def caption_toggle() -> None:
    """The sidebar's switch for captions under exported figures (the view's ``caption``)."""
    widgets.bound(st.toggle, "Caption under exported figures", "caption",
                  help="PNG and SVG downloads carry a line naming the data, the ties, the test, the level and n.")


def caption_text(stem: str) -> str:
    """The caption of the figure downloaded as ``stem`` (:func:`evalcore.figures.style.figure_caption`) for the
    current view: the data and ties always, the test, level and n where the figure depends on them."""
    v = view()
    parts = CAPTION_PARTS.get(stem, ())
    n = None
    if "range" in parts:
        n = v.selection.n_range(cached.candidates_for(v.data).n_candidates)
    elif "pairs_n" in parts:
        n = v.pairs_n
    return figures.figure_caption(dataset=cached.dataset_label(v.dataset), ties=v.ties, seed=v.seed,
                                  test=v.test if "test" in parts else None,
                                  level=v.level if "level" in parts else None, n=n)


def for_export(fig, stem: str):
    """The figure as exported images show it: with :func:`caption_text` under it when the view asks for
    captions, else unchanged."""
    if not view().caption or view().dataset is None:
        return fig
    return figures.captioned(fig, caption_text(stem))


def with_constants(table: pd.DataFrame, **values) -> pd.DataFrame:
    """``table.assign(**values)``, a text value as a column of one category: N copies of a string took a tenth of a
    level key's run at 600,000 n (a download's text and its digest are the same)."""
    size = len(table)
    return table.assign(**{k: pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), categories=[v])
                           if isinstance(v, str) else v for k, v in values.items()})


def downloads(fig, table, stem: str, shows=(), beta: float = 1.0, at: int | None = None, options=None) -> None:
    """Download buttons: the figure as PNG, SVG and self-contained HTML, the table as CSV, each with its own
    signature (the view's settings and a digest of ``table``; ``shows`` names the measures it shows, ``beta`` the
    F-beta of a Precision table, ``at`` the list size of a table of one cut-off, ``options`` the page's own settings
    that change its numbers, :data:`evalcore.report.parts.PART_SETTINGS` key -> value) where the view has one, else
    plain (:func:`evalcore_app.report.downloads`, the one row of them).

    Images are rendered only when clicked (deferred data), since that takes a second. The CSV is for
    spreadsheets: text cells that start like a formula get a leading ' (numbers are unchanged).
    """
    report.downloads(fig, table, stem, image=for_export(fig, stem), shows=shows, beta=beta, at=at,
                     options=options)  # PNG and SVG: with a caption if asked for
