"""Glue of the Annotate page (and of the Precision page's estimates from a sample): the candidate set without
labels, the annotation database in the store folder, the sample named in the view, and the sample's estimates.

The candidate set of a sample is built like the command line's stand-in loader
(``evalcore.cli._load_annotated_sample``): a label column with empty cells, or none at all, is read with the
empty cells filled and marked unannotated. The labels that count are the database's, combined by the view's rule.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.text import markdown_text

from evalcore import analysis, estimates
from evalcore.annotations import AnnotationStore, annotated_candidate_set, annotator_agreement
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.estimates import SamplingFrame
from evalcore.io import build_candidate_set, parse_labels, suggest_roles
from evalcore.viewstate import SAMPLE_PREFIX, ViewSettings
from ui import cached

NO_LABEL = "__evalcore_unannotated__"  # stands in for a missing label column while building the set
KEYS = {"TP": "t", "FP": "f", "unsure": "u"}  # keyboard shortcuts of the mark buttons; undo is "z"


def db() -> AnnotationStore:
    """The annotation database in the store folder (EVALCORE_STORE), opened per call (cheap for SQLite)."""
    return AnnotationStore()


def db_id(dataset: str) -> str:
    """The database's name of a data set: its store id, or a hash of a shipped sample's name."""
    if dataset.startswith(SAMPLE_PREFIX):
        return hashlib.sha256(dataset.encode()).hexdigest()
    return dataset


def label_state(table: pd.DataFrame, label: str | None) -> str:
    """"none" (no label column), "partial" (some empty cells) or "full"."""
    if label is None or label not in table.columns:
        return "none"
    cells = table[label]
    empty = cells.isna() | (cells.astype(str).str.strip() == "")
    return "partial" if empty.any() else "full"


def suggested(table: pd.DataFrame) -> dict:
    """Roles for a table whose label column may be empty: an all-empty column is neither label nor score."""
    roles = suggest_roles(table)
    empty = [c for c in table.columns if table[c].isna().all() or (table[c].astype(str).str.strip() == "").all()]
    # an empty column named like a label is the label still to annotate (suggest_roles skips it: no values)
    label = next((c for c in empty if str(c).lower().startswith(("is.", "is_", "label", "tp", "gold"))), roles.label)
    return dict(label=label, scores=tuple(c for c in roles.scores if c not in empty and c != label),
                keys=tuple(c for c in roles.keys if c not in empty and c != label), sample_column=None)


@st.cache_resource(max_entries=4, show_spinner="Reading the candidates ...")
def base_set(dataset: str, label, scores: tuple, keys: tuple, lower: tuple) -> CandidateSet:
    """The candidate set with the file's labels where given; empty cells (or no label column) are unannotated."""
    table, name = cached.raw_table(dataset)
    filled = table.copy()
    if label is None or label not in table.columns:
        label, labels, kept = NO_LABEL, np.zeros(len(table), bool), np.zeros(len(table), bool)
        filled[NO_LABEL] = "FALSE"
    else:
        labels = np.zeros(len(table), bool)
        parsed, kept = parse_labels(table[label], column=str(label), source=name, exclude_unlabelled=True)
        kept = np.asarray(kept, bool)
        labels[kept] = parsed
        filled[label] = np.where(kept, table[label].astype(object), "FALSE")
    built = build_candidate_set(filled, label=label, scores=list(scores) or None, keys=list(keys) or None,
                                sample=None, lower_is_better=tuple(lower), source=name)
    return CandidateSet(labels=labels, scores=dict(built.scores), directions=dict(built.directions), keys=built.keys,
                        source=built.source, label_column=None if label == NO_LABEL else str(label),
                        rows=built.rows, annotated=kept)


def base(v: ViewSettings) -> CandidateSet:
    return base_set(v.dataset, v.label, v.scores, v.keys, v.lower)


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


def annotated_set(v: ViewSettings) -> tuple[CandidateSet, pd.DataFrame]:
    """The candidate set annotated with the sample's combined labels, and the annotator-by-candidate table."""
    table = db().table(db_id(v.dataset), v.ann_sample)
    candidates = base(v)
    if table.shape[1] == 0:
        return candidates.with_annotations(np.array([], np.int64), np.array([], bool)), table
    annotator = v.annotator if v.annotator in table.columns else table.columns[0]
    return annotated_candidate_set(candidates, table, v.ann_rule, annotator), table


def agreement(table: pd.DataFrame, level: float):
    """Kappa on the candidates marked by more than one annotator; None when there is nothing to agree on."""
    shared = table[table.notna().sum(axis=1) >= 2] if table.shape[1] >= 2 else table.iloc[0:0]
    if shared.empty:
        return None
    return annotator_agreement(shared, confidence_level=level)


def estimating(v: ViewSettings) -> bool:
    """Whether the Precision page estimates from a sample: the view names an annotation sample, or the label
    column has empty cells (and they are not to be left out)."""
    if v.ann_sample is not None:
        return True
    if v.dataset is None or v.exclude_unlabelled:
        return False
    try:
        table, _ = cached.raw_table(v.dataset)
    except EvalcoreError:
        return False
    label = v.label if v.label is not None or v.scores else suggested(table)["label"]
    return label is not None and label_state(table, label) == "partial"


def estimates_table(v: ViewSettings, measures: tuple, n_range: tuple[int, int]) -> tuple[pd.DataFrame, object]:
    """Precision estimates (exact hypergeometric intervals) of each measure's n-best lists from the sample so far
    (the file's labels when no annotation sample is named), shaped for the confidence figure (``precision`` =
    k / m, ``tp`` = k), and the baseline estimate."""
    if v.ann_sample is None:
        candidates, frame = base(v), SamplingFrame()
    else:
        candidates, frame = annotated_set(v)[0], db().sample(db_id(v.dataset), v.ann_sample).frame
    ranked = analysis.rankings_for(candidates, measures, ties=v.ties, seed=v.seed)
    mask = frame.mask(candidates, ranked)
    sizes = np.arange(n_range[0], n_range[1] + 1)
    table = pd.concat([estimates.precision_estimates(r, sizes, frame=mask, confidence_level=v.level)
                       for r in ranked.values()], ignore_index=True)
    table = table.assign(precision=table["estimate"], tp=table["k"])
    return table, estimates.baseline_estimate(next(iter(ranked.values())), frame=mask, confidence_level=v.level)


def safe(fn, *args):
    """Call ``fn``; an evalcore error is shown and ends the page."""
    from ui.common import stop

    try:
        return fn(*args)
    except EvalcoreError as exc:
        st.error(markdown_text(exc))
        stop()


def precision_section() -> None:
    """The Precision page for a partly annotated set: the estimated curves with exact intervals from the sample
    the view names, the annotated candidates behind each estimate, and the random-sample assumption stated."""
    from evalcore.figures import paper as figures
    from evalcore.viewstate import MAX_MEASURES
    from ui import common, widgets

    v = common.view()
    if v.dataset is None:
        st.info("No data loaded yet. Upload a candidate set or pick the sample on the Data page.")
        return
    if v.label is None and not v.scores:  # a fresh link: roles that allow an empty label column
        common.update(**suggested(safe(cached.raw_table, v.dataset)[0]))
        v = common.view()
    candidates = safe(base, v)
    if v.ann_sample is None:
        source, frame = "the file's labels", SamplingFrame()
    else:
        info = safe(db().sample, db_id(v.dataset), v.ann_sample)
        source, frame = f"the labels of annotation sample {info.name} so far", info.frame
    if v.measures is None or any(m not in candidates.measures for m in v.measures):
        common.update(measures=tuple(m for m in v.measures or () if m in candidates.measures)
                      or candidates.measures[:3])
    widgets.bound(st.multiselect, "Measures (the first 3 are estimated)", "measures", options=list(candidates.measures),
                  max_selections=MAX_MEASURES, format_func=widgets.shown)
    n_min, n_max = widgets.n_range_slider("Range of n (n-best list size)", candidates.n_candidates)
    v = common.view()
    if not v.measures:
        st.info("Pick at least one measure.")
        common.stop()
    if len(v.measures) > 3:
        st.caption(f"The estimates of the first 3 of the {len(v.measures)} chosen measures.")
    table, baseline = safe(estimates_table, v, v.measures[:3], (n_min, n_max))
    table = table.assign(measure=table["measure"].map(v.display.of))
    st.warning("Estimates from a random sample: the annotated candidates are taken as a simple random sample of "
               "the candidates (or of the part they were drawn from, below); the intervals are exact "
               "(hypergeometric) under that assumption only.", icon=":material/info:")
    st.text(f"Estimated from {source}: {baseline.m:,} candidates annotated TP or FP, taken as {frame.describe()}.")
    shown = table[table["in_frame"]]
    fig = figures.confidence_figure(shown.dropna(subset=["precision"]), baseline=baseline.estimate
                                    if baseline.m else 0.0, level=v.level,
                                    method_label="exact hypergeometric, from the sample")
    st.plotly_chart(fig, key="precision_estimates_chart", theme=None)
    st.text(f"Baseline from the sample: {baseline.k} TPs of {baseline.m} annotated = {baseline.estimate:.2%} "
            f"[{baseline.lower:.2%}, {baseline.upper:.2%}]")
    at = min(max(v.n_at or n_max, n_min), n_max)
    rows = table[table["n"] == at][["measure", "n", "m", "k", "estimate", "lower", "upper", "enough"]]
    st.caption(f"At n = {at:,}: m annotated candidates in each n-best list, k of them TPs; 'enough' is False "
               f"where fewer than {estimates.MIN_ANNOTATED} annotated candidates carry the estimate.")
    percent = {c: st.column_config.NumberColumn(c, format="percent") for c in ("estimate", "lower", "upper")}
    st.dataframe(rows, hide_index=True, column_config=percent)
