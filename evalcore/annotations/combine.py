"""Several annotators' labels as one: the annotator-by-candidate table, the rules that combine it (one annotator,
the majority, only agreed candidates), the candidate set those labels annotate, and agreement (kappa)."""

from __future__ import annotations

import hashlib
from typing import Callable

import numpy as np
import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..stats.agreement import KappaResult, cohens_kappa, fleiss_kappa
from ..text import listed, shown
from .schema import LABELS


def annotator_token(name: str) -> str:
    """A short stand-in for an annotator's name where a name must not appear (a link names whose labels the
    estimates use by this token, never by the name: whoever opens the link annotates under their own name)."""
    return "a" + hashlib.sha256(str(name).encode("utf-8")).hexdigest()[:12]


def annotator_by_token(annotators, token: str | None) -> str | None:
    """The annotator among ``annotators`` whose :func:`annotator_token` is ``token`` (None if none is)."""
    return next((a for a in annotators if token is not None and annotator_token(a) == token), None)


def annotator_table(annotations: pd.DataFrame) -> pd.DataFrame:
    """Long annotations (``candidate, annotator, label``) as an annotator-by-candidate table."""
    if annotations.empty:
        return pd.DataFrame(index=pd.Index([], name="candidate", dtype=np.int64))
    wide = annotations.pivot(index="candidate", columns="annotator", values="label")
    wide = wide.reindex(columns=sorted(wide.columns)).astype(object)
    wide = wide.where(wide.notna(), None)
    wide.columns.name = None
    return wide.sort_index()


def _one(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    if annotator not in table.columns:
        raise ParameterError(f"annotator {shown(annotator)} has no annotations here; the annotators are "
                             f"{listed(table.columns, str) if len(table.columns) else 'none yet'}")
    return table[annotator]


def _majority(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    values = table.to_numpy(dtype=object)
    out = []
    for row in values:
        given = [v for v in row if v is not None]
        counts = {lab: given.count(lab) for lab in LABELS}
        best = max(counts, key=counts.get)
        out.append(best if counts[best] * 2 > len(given) else None)
    return pd.Series(out, index=table.index, dtype=object)


def _agreed(table: pd.DataFrame, annotator: str | None) -> pd.Series:
    values = table.to_numpy(dtype=object)
    out = [None if len(set(v for v in row if v is not None)) != 1 else next(v for v in row if v is not None)
           for row in values]
    return pd.Series(out, index=table.index, dtype=object)


COMBINATIONS: dict[str, Callable[[pd.DataFrame, str | None], pd.Series]] = {
    "annotator": _one,
    "majority": _majority,
    "agreed": _agreed,
}

COMBINATION_LABELS = {
    "annotator": "one annotator's labels",
    "majority": "the label more than half of a candidate's annotators gave",
    "agreed": "only candidates whose annotators all gave the same label",
}


def combine_labels(table: pd.DataFrame, rule: str = "majority", annotator: str | None = None) -> pd.Series:
    """One label per candidate from the annotator-by-candidate table.

    Parameters
    ----------
    table : DataFrame
        From :meth:`AnnotationStore.table` (index candidate, one column per annotator).
    rule : {"annotator", "majority", "agreed"}
        "annotator": that annotator's labels; "majority": the label more than half of the
        candidate's annotators gave (no majority: none); "agreed": the label if every annotator
        of the candidate gave it (a candidate marked by one annotator counts as agreed).
    annotator : str, optional
        For ``rule="annotator"``.

    Returns
    -------
    Series
        Indexed by candidate: "TP", "FP", "unsure" or None (no usable label). For estimates,
        only TP and FP count as annotated (:func:`annotated_candidate_set`).
    """
    if rule not in COMBINATIONS:
        raise ParameterError(f"`rule` must be one of {', '.join(COMBINATIONS)}; got {rule!r}")
    return COMBINATIONS[rule](table, annotator)


def annotated_candidate_set(candidates: CandidateSet, table: pd.DataFrame, rule: str = "majority",
                            annotator: str | None = None) -> CandidateSet:
    """The candidate set annotated with the combined labels: TP and FP count, unsure and no label do not.

    Leaving out "unsure" candidates is a form of non-response: the estimates then assume the
    unsure candidates are like the others of their lists (say so wherever they are many).
    """
    labels = combine_labels(table, rule, annotator)
    usable = labels.isin(["TP", "FP"]).to_numpy()
    return candidates.with_annotations(labels.index.to_numpy(np.int64)[usable], (labels[usable] == "TP").to_numpy())


# ------------------------------------------------------------------------------------ agreement
def annotator_agreement(table: pd.DataFrame, *, confidence_level: float = 0.95) -> KappaResult | None:
    """Agreement on the candidates marked by more than one annotator (TP, FP and unsure as categories).

    Two annotators: Cohen's kappa on the candidates both marked; more: Fleiss' kappa on the
    candidates at least two marked (see :mod:`evalcore.stats.agreement`). None with fewer than
    two annotators.
    """
    if table.shape[1] < 2:
        return None
    values = table.to_numpy(dtype=object)
    if table.shape[1] == 2:
        return cohens_kappa(values[:, 0], values[:, 1], confidence_level=confidence_level)
    return fleiss_kappa(values, confidence_level=confidence_level)
