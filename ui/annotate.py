"""Glue of the Annotate page: the annotation database in the store folder, the sample named in the view, marks,
agreement and the re-import of an exported annotated set.

The candidate set is read by :func:`evalcore.io.load_annotated_sample` (:mod:`ui.sample`): a label column with
empty cells, or none at all, leaves those candidates unannotated. The labels that count are the database's,
combined by the view's rule.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePath

import pandas as pd
import streamlit as st

from evalcore.text import markdown_text

from evalcore.annotations import EXPORT_FORMATS, annotator_agreement, import_export
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.estimates import SamplingFrame
from evalcore.viewstate import ViewSettings
from ui.sample import base, db, db_id  # noqa: F401  (the Annotate page's names for them)

KEYS = {"TP": "t", "FP": "f", "unsure": "u"}  # keyboard shortcuts of the mark buttons; undo is "z"
IMPORT_KEY = "import_annotations"  # the uploader of an exported annotated set


def frame_of(v: ViewSettings) -> SamplingFrame:
    """The sampling frame the view asks for: the whole set, or the union of the top-k lists of chosen measures."""
    if v.ann_k and v.ann_measures:
        return SamplingFrame(measures=v.ann_measures, k=v.ann_k, ties=v.ties, seed=v.seed)
    return SamplingFrame()


def sample_name(seed: int, frame: SamplingFrame) -> str:
    """A sample's name from its design: the same seed and frame name the same (growing) sample."""
    if frame.whole:
        return f"s{seed}"
    digest = hashlib.sha256(json.dumps(frame.to_dict(), sort_keys=True).encode()).hexdigest()[:10]
    return f"s{seed}-top{frame.k}-{digest}"


def draw(v: ViewSettings, candidates: CandidateSet):
    """Draw (or extend) the seeded sample the view describes and store it; its SampleInfo."""
    frame = frame_of(v)
    return db().draw(db_id(v.dataset), sample_name(v.ann_seed, frame), candidates, v.ann_size, v.ann_seed, frame)


def draw_clicked(v: ViewSettings) -> None:
    """The draw button's callback (callbacks run before the page, so a rerun cannot lose the click)."""
    from ui.common import update

    try:
        info = draw(v, base(v))
    except EvalcoreError as exc:
        st.session_state["draw_error"] = str(exc)
    else:
        st.session_state.pop("draw_error", None)
        update(ann_sample=info.name)


def show_draw_error() -> None:
    if "draw_error" in st.session_state:
        st.error(markdown_text(st.session_state.pop("draw_error")))


def mark(v: ViewSettings, candidate: int, label: str) -> None:
    """A mark button's callback: label the candidate shown, if it is still the annotator's next one (a second key
    pressed before the page showed the next candidate is dropped, not applied to the candidate already marked)."""
    store, dataset = db(), db_id(v.dataset)
    position = store.next_position(dataset, v.ann_sample, v.annotator)
    if position is not None and int(store.sample(dataset, v.ann_sample).candidates[position]) == candidate:
        store.annotate(dataset, v.ann_sample, candidate, v.annotator, label)


def undo(v: ViewSettings) -> None:
    db().undo(db_id(v.dataset), v.ann_sample, v.annotator)


def candidate_row(candidates: CandidateSet, index: int, context: str | None, table: pd.DataFrame) -> pd.DataFrame:
    """One candidate's key columns (and the chosen context column), as a one-row table to show as text."""
    row = candidates.keys.iloc[[index]].reset_index(drop=True) if candidates.keys is not None else pd.DataFrame(
        index=[0])
    if context is not None and context in table.columns:
        row[f"{context} (context)"] = [str(table[context].iloc[int(candidates.rows[index]) - 1]
                                           if candidates.rows is not None else table[context].iloc[index])]
    row.insert(0, "candidate", [index])
    return row.astype(str)


def agreement(table: pd.DataFrame, level: float):
    """Kappa on the candidates marked by more than one annotator; None when there is nothing to agree on."""
    shared = table[table.notna().sum(axis=1) >= 2] if table.shape[1] >= 2 else table.iloc[0:0]
    if shared.empty:
        return None
    return annotator_agreement(shared, confidence_level=level)


def safe(fn, *args):
    """Call ``fn``; an evalcore error is shown and ends the page."""
    from ui.common import stop

    try:
        return fn(*args)
    except EvalcoreError as exc:
        st.error(markdown_text(exc))
        stop()


def reimport(v: ViewSettings) -> None:
    """The uploader's callback: import an exported annotated set (CSV, TSV or Parquet) into the database, after
    checking that it is of this data set (:func:`evalcore.annotations.import_export`); the view then names its
    sample. The outcome is kept for the page to show as text."""
    from ui.common import update

    upload = st.session_state.get(IMPORT_KEY)
    if upload is None:
        return
    fmt = PurePath(upload.name).suffix.lower().lstrip(".")
    if fmt not in EXPORT_FORMATS:
        st.session_state["import_message"] = ("error", f"{upload.name}: import a file exported here, as "
                                              f"{', '.join(f.upper() for f in EXPORT_FORMATS)}.")
        return
    data = upload.getvalue()
    name = "imported-" + hashlib.sha256(data).hexdigest()[:10]  # CSV and TSV do not keep the sample's name
    try:
        info = import_export(db(), db_id(v.dataset), data, fmt, name=None if fmt == "parquet" else name,
                             candidates=base(v))
    except EvalcoreError as exc:
        st.session_state["import_message"] = ("error", f"{upload.name}: {exc}")
    except (ValueError, KeyError, OSError) as exc:  # not a table at all (pandas, pyarrow)
        st.session_state["import_message"] = ("error", f"{upload.name} could not be read as an exported "
                                              f"annotated set ({type(exc).__name__}: {exc}).")
    else:
        labels = db().table(db_id(v.dataset), info.name)
        st.session_state["import_message"] = ("success", f"Imported sample {info.name} from {upload.name}: "
                                              f"{info.size:,} candidates, {int(labels.notna().sum().sum()):,} "
                                              f"labels by {labels.shape[1]} annotator(s).")
        update(ann_sample=info.name)


def show_import_message() -> None:
    kind, text = st.session_state.pop("import_message", (None, None))
    if kind is not None:
        getattr(st, kind)(markdown_text(text))
