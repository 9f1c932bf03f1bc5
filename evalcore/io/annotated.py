"""Partly annotated candidate sets: a label column with empty cells, or no label column at all.

A candidate whose label cell is empty (or, without a label column, every candidate) is *not
annotated*: its label is unknown. :func:`load_annotated_sample` reads such a file into an
:class:`AnnotatedSample`: the candidate set with its ``annotated`` mask, the label column (or
None), and the sampling frame, i.e. where the annotated candidates were drawn as a simple random
sample: the whole set by default, or the union of the top-k lists of some measures
(:class:`evalcore.estimates.SamplingFrame`). Estimates then come from :mod:`evalcore.estimates`.

This is the other way of reading empty labels besides ``exclude_unlabelled`` of
:func:`evalcore.io.load_candidates`, which leaves those rows out (the candidate set is then the
annotated rows only, and nothing is estimated); without either, an empty label is an error.

An evalcore annotation export (:func:`evalcore.annotations.export_table`: ``evalcore:candidate``,
``evalcore:sample_position``, ``evalcore:design`` and ``annotator:<name>`` columns beside the data; an
export of evalcore up to 04183db had ``candidate``, ``row`` and ``sample_position``) reads as the data set
it came from: its bookkeeping columns are neither scores nor keys, and the spreadsheet guard's quotes of a
CSV or TSV export are taken off again (:func:`unguard`, the inverse of :func:`guard`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import ColumnError, LabelError, ParameterError
from ..text import FORMULA_STARTS, shown
from .build import _build, _names, _require, parse_labels
from .limits import Limits
from .cells import LABEL_VOCABULARY
from .messages import check_where, columns_text, no_label_column_advice, nothing_annotated_advice
from .read import Source, display_name, read_table
from .roles import _label_priority, suggest_roles

if TYPE_CHECKING:  # evalcore.estimates imports scipy: imported when a frame is needed
    from ..estimates import SamplingFrame
    from ..ranking import Ranking

__all__ = ["AnnotatedSample", "ANNOTATION_STATES", "EXPORT_BOOKKEEPING", "build_annotated_sample", "guard",
           "load_annotated_sample", "unguard"]

ANNOTATION_STATES = ("full", "partial", "none")
"""Every candidate annotated; some; none (no label column, or one empty in every row)."""

EXPORT_BOOKKEEPING = ("candidate", "row", "sample_position")
"""Columns of an annotation export of evalcore up to 04183db that are neither scores nor keys (today's exports
name theirs ``evalcore:...``)."""

ANNOTATOR_PREFIX = "annotator:"  # an export's column of one annotator's labels (evalcore.annotations.exchange)
BOOKKEEPING_PREFIX = "evalcore:"  # an export's own columns (the candidate's index, its place in the sample, ...)
_NO_LABEL = "__evalcore_unannotated__"  # stands in for the label column while the scores are built


# ---------------------------------------------------------------- the spreadsheet guard of an export
_QUOTED_FORMULA = re.compile("^'+[" + re.escape("".join(FORMULA_STARTS)) + "]")


def _text_columns(table: pd.DataFrame):
    for i, (_, column) in enumerate(table.items()):
        if not (pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_datetime64_any_dtype(column.dtype)):
            yield i, column


def _requoted(value):
    return "'" + value if isinstance(value, str) and _QUOTED_FORMULA.match(value) else value


def _unquoted(value):
    return value[1:] if isinstance(value, str) and _QUOTED_FORMULA.match(value) else value


@functools.cache
def _writer_requotes() -> bool:
    """Whether :func:`evalcore.text.spreadsheet_safe` itself quotes a text that is quotes and then a formula start
    (``'=x`` to ``''=x``), which makes its quote exactly invertible on its own."""
    from ..text import spreadsheet_safe

    return spreadsheet_safe(pd.DataFrame({"c": ["'=x"]}))["c"].iloc[0] == "''=x"


def guard(table: pd.DataFrame) -> pd.DataFrame:
    """What the CSV and TSV of an annotation export hold, before :func:`evalcore.text.spreadsheet_csv` writes them:
    that adds a ``'`` before every text cell and column name that starts like a formula (``=``, ``+``, ``-``,
    ``@``, tab, carriage return); this adds one more before those that already start with quotes and then such a
    character (unless the writer does so itself), so that :func:`unguard` is the exact inverse of both."""
    out = table.copy()
    if _writer_requotes():
        return out
    for i, column in _text_columns(table):
        out.isetitem(i, column.astype(object).map(_requoted).astype(column.dtype))
    out.columns = [_requoted(c) for c in table.columns]
    return out


def unguard(table: pd.DataFrame, *, names: bool = True) -> pd.DataFrame:
    """The exact inverse of the guard: one ``'`` off every text cell (and column name, with ``names``) that starts
    with quotes and then a formula character; nothing else changes."""
    out = table.copy()
    for i, column in _text_columns(table):
        out.isetitem(i, column.astype(object).map(_unquoted).astype(column.dtype))
    if names:
        out.columns = [_unquoted(c) for c in table.columns]
    return out


@dataclass(frozen=True)
class AnnotatedSample:
    """A candidate set some (or none, or all) of whose candidates are annotated, and where the sample was drawn.

    Attributes
    ----------
    candidates : CandidateSet
        ``candidates.annotated`` marks the annotated candidates (None when all are); the
        labels of the others are stored as False and carry no information.
    label_column : str or None
        The label column read, None when the file has none.
    frame : SamplingFrame
        Where the annotated candidates were drawn as a simple random sample.
    """

    candidates: CandidateSet
    label_column: str | None
    frame: "SamplingFrame"

    @property
    def annotated(self) -> np.ndarray:
        """Which candidates are annotated: a True/False mask, one value per candidate."""
        return self.candidates.annotated_mask

    @property
    def n_annotated(self) -> int:
        return self.candidates.n_annotated

    @property
    def n_annotated_tp(self) -> int:
        return int(self.candidates.labels.sum())

    @property
    def state(self) -> str:
        """One of :data:`ANNOTATION_STATES`."""
        if not self.candidates.partly_annotated:
            return "full"
        return "partial" if self.n_annotated else "none"

    def frame_mask(self, rankings: Mapping[str, "Ranking"] | None = None) -> np.ndarray | None:
        """The frame as a mask over the candidates (None for the whole set), see ``SamplingFrame.mask``."""
        return self.frame.mask(self.candidates, rankings)

    def describe(self) -> str:
        """One sentence for a note: how many are annotated and the sampling assumption."""
        n, m = self.candidates.n_candidates, self.n_annotated
        return (f"{m:,} of {n:,} candidates annotated ({self.n_annotated_tp:,} TPs); the annotated candidates are "
                f"taken as {self.frame.describe()}")


def _check_frame(frame: Any, measures: Sequence[str], source: str) -> "SamplingFrame":
    from ..estimates import SamplingFrame

    if frame is None:
        return SamplingFrame()
    if not isinstance(frame, SamplingFrame):
        raise ParameterError(f"`frame` must be a SamplingFrame (evalcore.estimates); got {type(frame).__name__}")
    unknown = [m for m in frame.measures if m not in measures]
    if unknown:
        raise ParameterError(f"{source}: the sampling frame names {columns_text(unknown)}, which "
                             f"{'is' if len(unknown) == 1 else 'are'} not among the scores {columns_text(measures)}")
    return frame


def _empty(values: pd.Series) -> bool:
    """True when every cell is missing or blank."""
    if values.isna().all():
        return True
    return bool((values.dropna().astype(str).str.strip() == "").all())


def _label_column(df: pd.DataFrame, suggested: str | None) -> str | None:
    """The suggested label, else an all-empty column named like one (a label column still to fill in)."""
    if suggested is not None:
        return suggested
    return next((c for c in df.columns if _label_priority(c) <= 1 and _empty(df[c])), None)


def build_annotated_sample(
    df: pd.DataFrame,
    *,
    label: str | None = None,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    lower_is_better: Sequence[str] = (),
    frame: "SamplingFrame | None" = None,
    min_annotated: int = 0,
    source: str = "<data>",
    where: str = "page",
) -> AnnotatedSample:
    """A table whose label column may have empty cells (or be absent) as an :class:`AnnotatedSample`.

    Parameters
    ----------
    df : DataFrame
        As :func:`evalcore.io.build_candidate_set` takes it.
    label : str, optional
        The label column. Default: the suggested one (:func:`evalcore.io.suggest_roles`), else
        a column empty in every row named like a label (``label``, ``is_tp``, ``is.colloc``,
        ...), else none: no candidate is annotated.
    scores, keys, lower_is_better
        As for :func:`evalcore.io.build_candidate_set`; the label column and, in an evalcore
        export, :data:`EXPORT_BOOKKEEPING` and the ``annotator:`` columns are never scores or
        keys by default.
    frame : SamplingFrame, optional
        Where the annotated candidates were drawn; the whole set by default. Its measures must
        be among the scores.
    min_annotated : int
        Fewer annotated candidates is a :class:`~evalcore.errors.LabelError` saying what to do
        (0, the default, accepts a set with nothing annotated yet, as a page drawing a sample
        needs; 1 for estimates).
    source : str
        File name for messages.
    where : {"page", "cli"}
        Whose words the advice in messages uses (:data:`evalcore.io.messages.WHERE`).

    Returns
    -------
    AnnotatedSample

    Raises
    ------
    ColumnError, LabelError, ScoreError
        As :func:`evalcore.io.build_candidate_set`: a label cell that is neither empty nor a
        TP/FP label is an error, not an unannotated candidate.
    """
    check_where(where)
    if not isinstance(min_annotated, (int, np.integer)) or min_annotated < 0:
        raise ParameterError(f"`min_annotated` must be a whole number >= 0; got {shown(min_annotated)}")
    if _NO_LABEL in df.columns:
        raise ColumnError(f"{source}: the column name {_NO_LABEL!r} is reserved; rename that column")
    roles = suggest_roles(df)
    if label is not None:
        _require(df, [label], "label", source)
    else:
        label = _label_column(df, roles.label)
    legacy = any(str(c).startswith(ANNOTATOR_PREFIX) for c in df.columns)
    bookkeeping = {c for c in df.columns if str(c).startswith((BOOKKEEPING_PREFIX, ANNOTATOR_PREFIX))
                   or (legacy and c in EXPORT_BOOKKEEPING)}
    export = bool(bookkeeping)
    if export and df.attrs.get("format") == "text":  # a CSV or TSV export: the guard's quotes in cells go (the
        df = unguard(df, names=False)                 # column names stay as the pages show and the links name them)
    if scores is None:
        scores = tuple(c for c in roles.scores if c != label and c not in bookkeeping and c not in _names(keys))
        if not scores:
            raise ColumnError(f"{source}: no numeric score column found besides the label; the columns are "
                              f"{columns_text(df.columns)}. Name the score columns explicitly.")
    if keys is None and export:
        keys = tuple(c for c in df.columns if c != label and c not in bookkeeping and c not in roles.scores
                     and c not in _names(scores))
    if label is not None and label in _names(scores):
        raise ColumnError(f"{source}: column {shown(label)} cannot be both the label and a score; remove it from the "
                          "scores")
    n = len(df)
    labels = np.zeros(n, dtype=bool)
    if label is None:
        kept = np.zeros(n, dtype=bool)
        table = df
    else:
        parsed, kept = parse_labels(df[label], column=str(label), source=source, exclude_unlabelled=True,
                                    where=where)
        labels[kept] = parsed
        table = df.drop(columns=[label])
    built = _build(table.assign(**{_NO_LABEL: np.zeros(n, dtype=bool)}), roles, label=_NO_LABEL, scores=scores,
                   keys=keys, sample=None, lower_is_better=lower_is_better, exclude_unlabelled=False, source=source,
                   where=where)
    candidates = CandidateSet(labels=labels, scores=dict(built.scores), directions=dict(built.directions),
                              keys=built.keys, source=built.source, label_column=None if label is None else str(label),
                              rows=built.rows, annotated=kept)
    if candidates.n_annotated < min_annotated:
        if label is None:
            raise LabelError(f"{source}: no label column found: no column holds TP/FP labels "
                             f"({LABEL_VOCABULARY}), and none named like one is empty. The columns are: "
                             f"{columns_text(df.columns)}. {no_label_column_advice(where)}.")
        if candidates.n_annotated == 0:
            raise LabelError(f"{source}: label column {shown(label)} is empty in every row: "
                             f"{nothing_annotated_advice(where)}.")
        raise LabelError(f"{source}: label column {shown(label)}: only {candidates.n_annotated:,} candidates are "
                         f"annotated and at least {min_annotated:,} are needed: annotate more of the sample.")
    return AnnotatedSample(candidates=candidates, label_column=candidates.label_column,
                           frame=_check_frame(frame, candidates.measures, source))


def load_annotated_sample(
    source: Source | Any,
    *,
    label: str | None = None,
    scores: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    lower_is_better: Sequence[str] = (),
    frame: "SamplingFrame | None" = None,
    min_annotated: int = 0,
    encoding: str | None = None,
    sheet: str | int | None = None,
    name: str | None = None,
    limits: Limits | None = None,
    where: str = "page",
) -> AnnotatedSample:
    """Read a file whose label column may have empty cells (or be absent): see :func:`build_annotated_sample`.

    ``source``, ``encoding``, ``sheet``, ``name`` and ``limits`` are as for
    :func:`evalcore.io.read_table` (``source`` may be a DataFrame it returned).

    Examples
    --------
    >>> import io
    >>> data = io.BytesIO(b"w,g,is_tp\\na,3,TRUE\\nb,2,\\nc,1,FALSE\\n")
    >>> sample = load_annotated_sample(data, name="s.csv")
    >>> sample.n_annotated, sample.annotated.tolist(), sample.state
    (2, [True, False, True], 'partial')
    """
    check_where(where)
    if isinstance(source, pd.DataFrame):
        df = source
    else:
        df = read_table(source, name=name, encoding=encoding, sheet=sheet, limits=limits)
    return build_annotated_sample(df, label=label, scores=scores, keys=keys, lower_is_better=lower_is_better,
                                  frame=frame, min_annotated=min_annotated, source=display_name(source, name),
                                  where=where)
