"""The design an annotated set claims, read from an export's ``evalcore:`` columns and checked against its labels.

An export of the Annotate page (:func:`evalcore.annotations.export_table`) carries its sample's design: the record in
``evalcore:design`` (kind, frame or pool, seed, pool size) and the annotation order in ``evalcore:sample_position``.
:func:`design_of_export` turns those into a :class:`~evalcore.pooling.Design` and the sample's rows; the command
line (``--annotated-sample``, ``pool-plan``) and the planners use it instead of a design stated by hand, so that a
pilot is read with the estimator of the design it was drawn by. :func:`check_annotated` then checks that the
annotated candidates are what the design says (the pool whole, the sample's size, nothing annotated outside the
sample), whether the design came from the export or from the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from .design import Design


@dataclass(frozen=True, eq=False)
class ExportedDesign:
    """The design an export carries (:func:`design_of_export`).

    Attributes
    ----------
    design : Design
        Its kind, frame (a pooled design's pool: its measures, depth, ties and tie seed), m and seed (None where
        the record has none).
    rows : ndarray of int
        The sample's rows of the table (0-based), in annotation order: a pooled design's pool first.
    pool_size : int or None
        The pool's size when the sample was drawn (pooled kinds), as the record says.
    name : str or None
        The sample's name in the annotation database it was exported from.
    """

    design: Design
    rows: np.ndarray
    pool_size: int | None = None
    name: str | None = None

    def describe(self) -> str:
        """Where the design came from, for a note: ``sample pools7-... of the export (evalcore:design)``."""
        named = f"sample {self.name} " if self.name else "the sample "
        return f"{named}of the export (its evalcore:design column)"


def design_of_export(table: pd.DataFrame, label: str = "the file") -> ExportedDesign | None:
    """The annotation design a table read from an evalcore export carries in its ``evalcore:`` columns.

    Parameters
    ----------
    table : DataFrame
        The file as :func:`evalcore.io.read_table` reads it, its rows in any order (the sample is given by row).
    label : str
        The file's name in messages.

    Returns
    -------
    ExportedDesign or None
        None for a table without a design record (a plain file, or an export of evalcore up to 04183db): its
        design is then the one stated by the user (default: a simple random sample of the whole set).

    Raises
    ------
    AnnotationError
        A record or a sample order that is not one (:func:`evalcore.annotations.exported_sample`).
    ParameterError
        A record naming a kind of design this version does not know, or a pool larger than the sample.

    Notes
    -----
    The record's fields are those of :meth:`evalcore.annotations.SampleInfo.record`: the frame (for a pooled design
    its pool) and the seed, and :meth:`Design.record`'s kind and pool size; m is the sample's size less the pool's
    (:meth:`Design.from_record`). A record without a seed gives a design whose seed is unknown (``seed=None``).
    """
    from ..annotations.exchange import exported_sample

    found = exported_sample(table, label)
    if found is None:
        return None
    design = Design.from_record(found.frame, found.design, found.seed, int(found.rows.size))
    pool = found.design.get("pool_size") if design.pooled else None
    return ExportedDesign(design=design, rows=found.rows, pool_size=None if pool is None else int(pool),
                          name=found.name)


def _rows(mask: np.ndarray, limit: int = 3) -> str:
    """A few of the rows a mask marks, as data rows (1-based, as the other messages of a file name them)."""
    at = np.flatnonzero(mask)
    shown = ", ".join(str(int(i) + 1) for i in at[:limit])
    return f"data row{'s' if at.size > 1 else ''} {shown}{', ...' if at.size > limit else ''}"


def check_annotated(design: Design, candidates: CandidateSet, pool: np.ndarray | None,
                    exported: ExportedDesign | None = None, source: str = "the file") -> str | None:
    """Check that the annotated candidates are what ``design`` says; a note on what the estimates use, or None.

    Parameters
    ----------
    design : Design
        The design claimed (from the command line or from the export).
    candidates : CandidateSet
        The partly annotated set (``annotated_mask``: the candidates labelled TP or FP).
    pool : ndarray of bool or None
        The design's pool over the candidates (pooled kinds), as :meth:`Design.pool_mask` gives it.
    exported : ExportedDesign, optional
        The design the file carries: its sample (which candidates were drawn) is checked too.

    Raises
    ------
    ParameterError
        Saying what does not match and what to do: a ``pool+sample`` design whose sample of the rest has another
        size than the labels outside the pool (a plain file must have exactly m of them: it cannot say which were
        drawn); an export whose labels lie outside its sample, or whose pool is not the one its design gives here.

    Notes
    -----
    An export knows which candidates were drawn: some of them may be left without a TP or FP label (unsure, or not
    yet annotated); the estimates then use the ones labelled, and the note says how many. (Whether a pool is
    annotated whole is the estimators' check, :class:`~evalcore.pooling.PoolIncomplete`.)
    """
    annotated = candidates.annotated_mask
    inside = np.zeros(annotated.size, bool) if pool is None else pool
    if exported is not None:
        drawn = np.zeros(annotated.size, bool)
        drawn[exported.rows] = True
        stray = annotated & ~drawn
        if stray.any():
            count = int(stray.sum())
            which = "1 candidate carries" if count == 1 else f"{count:,} candidates carry"
            raise ParameterError(f"{source}: {which} a label but {'is' if count == 1 else 'are'} not in the sample "
                                 f"its evalcore:design describes (evalcore:sample_position empty: "
                                 f"{_rows(stray)}); the estimates would not be those of the design. Export the "
                                 "annotated set again, or clear those labels.")
        if design.pooled and exported.design.pooled:
            first = np.zeros(annotated.size, bool)
            first[exported.rows[:int(inside.sum())]] = True
            size = exported.pool_size
            if (size is not None and size != int(inside.sum())) or not np.array_equal(first, inside):
                then = f"{size:,} candidates" if size is not None else "other candidates"
                raise ParameterError(
                    f"{source}: the pool of its design (the union of the top {design.depth:,} of "
                    f"{', '.join(design.frame.measures)}, ties {design.frame.ties}) holds {int(inside.sum()):,} "
                    f"candidates here, but the sample was drawn with a pool of {then} (the first of its "
                    "evalcore:sample_position): the scores, or the ties that rank them, are not those of the draw. "
                    "Use the export as it was written.")
        if design.rest_sampled:
            drawn_rest = int((drawn & ~inside).sum())
            labelled = int((annotated & ~inside).sum())
            if drawn_rest != design.size:
                raise ParameterError(f"{source}: its sample of the candidates outside the pool holds {drawn_rest:,} "
                                     f"candidates, not m = {design.size:,}: give --pool-sample {drawn_rest} (or leave "
                                     "it out: the export's design says it)")
            if labelled < drawn_rest:
                return (f"{labelled:,} of the {drawn_rest:,} sampled candidates outside the pool are labelled TP or "
                        "FP (the others unsure or not yet annotated); the estimates use those")
        return None
    if design.rest_sampled:
        outside = int((annotated & ~inside).sum())
        if outside != design.size:
            more = outside > design.size
            raise ParameterError(
                f"--pool-sample {design.size}: {outside:,} candidates are annotated outside the pool, "
                + ("more than the sample of the rest can hold" if more else f"not {design.size:,}")
                + f" ({source} carries no evalcore:design to say which were drawn). If the {outside:,} are a simple "
                f"random sample of the other candidates, give --pool-sample {outside}; if some of them are not, "
                "clear their labels.")
    return None
