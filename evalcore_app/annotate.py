"""Glue of the Annotate page: who annotates (kept in the session, never in a link), the sample named in the view,
the key presses of the key queue (evalcore_app/components/keyqueue) applied once each and in order, agreement, export and
the re-import of an exported annotated set.

The candidate set is read by :func:`evalcore.io.load_annotated_sample` (:mod:`evalcore_app.sample`): a label column with
empty cells, or none at all, leaves those candidates unannotated. The labels that count are the database's,
combined by the view's rule.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import PurePath

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.annotations import (EXPORT_FORMATS, AnnotationDatabaseError, annotator_agreement, annotator_by_token,
                                  annotator_token, check_annotator, export_table, import_export, write_export)
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.estimates import SamplingFrame
from evalcore.text import markdown_text
from evalcore.viewstate import ViewSettings
from evalcore.work import check_work
from evalcore_app import cached, costs
from evalcore_app.components.keyqueue import key_queue, unapplied
from evalcore_app.sample import base, db, db_id  # noqa: F401  (the Annotate page's names for them)

ANNOTATOR_KEY = "annotator"          # who annotates in this session (never in the view, so never in a link)
NAME_KEY = "w_annotator_name"        # the name field
QUEUE_KEY = "annotate_queue"         # the key queue's value: the presses not yet acknowledged
APPLIED_KEY = "annotate_applied"     # browser client id -> last press applied (each press applied once)
NOTICES_KEY = "annotate_notices"     # what the last presses met (a mark from another window, a failed write)
APPLY_LOCK_KEY = "annotate_lock"     # one run of the session at a time applies presses
IMPORT_KEY = "import_annotations"    # the uploader of an exported annotated set
SEEN_KEY = "annotate_seen"           # (data set, sample, version) of the marks this session's last run showed
FOLLOW_S = 2.0                       # how often an open page looks whether the marks have changed
WINDOW = 60                          # upcoming candidates sent to the browser (12 s of presses at 5 a second)
RECENT = 20                          # changes an undo in the browser can show at once


# ---------------------------------------------------------------- who annotates

def annotator() -> str | None:
    """The annotator of this session: the signed-in user when sign-in is on (:func:`evalcore_app.auth.identity`), else the
    name typed on this page (it stays in the session, never in a link)."""
    from evalcore_app import auth

    who = auth.identity()
    return who if who is not None else st.session_state.get(ANNOTATOR_KEY)


def _name_entered() -> None:
    if not str(st.session_state.get(NAME_KEY) or "").strip():
        return  # (an emptied field: still no name)
    try:
        st.session_state[ANNOTATOR_KEY] = check_annotator(st.session_state.get(NAME_KEY, ""))
        st.session_state.pop("name_error", None)
    except EvalcoreError as exc:
        st.session_state["name_error"] = str(exc)


def _change_name() -> None:
    st.session_state.pop(ANNOTATOR_KEY, None)
    st.session_state.pop(NAME_KEY, None)


def annotator_field() -> str | None:
    """The name field, and the annotator it gives. Once a name is entered, the field gives way to a line naming
    the annotator and a button to change it: the field (and its focus) is gone, so the next key press marks the
    candidate on screen instead of joining the name. Signed in, the annotator is the user: no field, no change."""
    from evalcore_app import auth

    if auth.identity() is not None:
        st.text(f"Annotating as {auth.identity()}")
        return auth.identity()
    who = annotator()
    if who is None:
        st.text_input("Your name (annotator)", key=NAME_KEY, max_chars=100, on_change=_name_entered,
                      help="Kept in this browser session only; links never carry it.")
        if "name_error" in st.session_state:
            st.error(markdown_text(st.session_state.pop("name_error")))
        return annotator()
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.text(f"Annotating as {who}")
    c2.button("Change name", key="change_annotator", on_click=_change_name)
    return who


# ---------------------------------------------------------------- the sample

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


def design_of(v: ViewSettings):
    """The design the view asks for (:class:`evalcore.pooling.Design`): a pooled kind needs the pool's measures and
    depth (the frame's); its m is ``ann_size`` (none for ``pool``)."""
    from evalcore.errors import ParameterError
    from evalcore.pooling import Design

    frame = frame_of(v)
    if v.ann_design != "sample" and frame.whole:
        raise ParameterError("A pool is the union of the top-K lists of chosen measures: choose the depth K "
                             "(above 0) and at least one measure.")
    size = 0 if v.ann_design == "pool" else v.ann_size
    return Design(kind=v.ann_design, frame=frame, size=size, seed=v.ann_seed)


def pooled_name(seed: int, design) -> str:
    """A pooled design's sample name: the kind, seed and depth, and a digest of its pool (its frame)."""
    digest = hashlib.sha256(json.dumps({"kind": design.kind, **design.frame.to_dict()},
                                       sort_keys=True).encode()).hexdigest()[:10]
    return f"{'pool' if design.kind == 'pool' else 'pools'}{seed}-top{design.depth}-{digest}"


def draw(v: ViewSettings, candidates: CandidateSet):
    """Draw (or extend) the seeded sample the view describes and store it; its SampleInfo. A pooled design is
    stored in annotation order (the pool, then the sample of the rest: :func:`evalcore.pooling.draw_design`) with
    its kind and its pool's size in the sample's design record; the same seed and a larger m extend it."""
    if v.ann_design == "stratified":  # (rank bands: evalcore_app/strata.py)
        from evalcore_app import strata

        return strata.draw(v, candidates)
    design = design_of(v)
    pool = design.depth * len(design.frame.measures) if design.pooled else 0  # (at most: the top-K lists' union)
    check_work(costs.draw(candidates.n_candidates, min(candidates.n_candidates, design.size + pool)))
    if not design.pooled:
        frame = design.frame
        return db().draw(db_id(v.dataset), sample_name(v.ann_seed, frame), candidates, v.ann_size, v.ann_seed, frame)
    from evalcore.pooling import draw_design

    order = draw_design(design, candidates)
    pool = int(design.pool_mask(candidates).sum())
    return db().create_sample(db_id(v.dataset), pooled_name(v.ann_seed, design), order, seed=v.ann_seed,
                              frame=design.frame, design=design.record(pool))


def stored_design(info):
    """The design of a stored sample (a ``sample`` for those without a pooled record)."""
    from evalcore.pooling import Design

    return Design.from_record(info.frame, info.design, info.seed, info.size)


def draw_clicked(v: ViewSettings) -> None:
    """The draw button's callback (callbacks run before the page, so a rerun cannot lose the click)."""
    from evalcore_app.common import update

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


# ---------------------------------------------------------------- marking: the key queue

def _context(sample: str, who: str) -> str:
    """What a press was made for (the sample and the annotator): a press made for another is not applied."""
    return f"{sample}|{annotator_token(who)}"


def apply_presses(v: ViewSettings, sample: str, who: str) -> None:
    """Apply the key queue's presses not applied yet, once each, in order, each to the candidate that was on
    screen (its place and id travel with the press). A mark that finds the place marked already (another window
    under the same name) changes nothing and is said; a write that fails stops the batch and says that those
    presses were not saved."""
    applied = st.session_state.setdefault(APPLIED_KEY, {})
    notices = st.session_state.setdefault(NOTICES_KEY, [])
    value = st.session_state.get(QUEUE_KEY)
    # Streamlit starts a new run at once when the browser sends a value (runner.fastReruns), while the run it
    # replaces goes on up to its next Streamlit call: two runs of one session may apply presses at the same time.
    # One lock per session makes them take turns; inside, no Streamlit call (a run cannot stop half-way).
    lock = st.session_state.get(APPLY_LOCK_KEY)  # (made by marking(), before any press could arrive)
    with lock if lock is not None else threading.Lock():
        _apply(v, sample, who, value, applied, notices)


def _apply(v: ViewSettings, sample: str, who: str, value, applied: dict, notices: list) -> None:
    client, events = unapplied(value, applied)
    if not events:
        return

    def done(seq: int) -> None:
        applied[client] = max(applied.get(client, 0), seq)

    try:
        store, dataset, context = db(), db_id(v.dataset), _context(sample, who)
    except EvalcoreError as exc:  # (the database cannot be opened)
        done(events[-1]["seq"])
        notices.append(("error", f"{exc} {len(events)} key press{'es were' if len(events) > 1 else ' was'} not "
                                 "saved."))
        return
    for i, event in enumerate(events):
        if event.get("context") != context:
            notices.append(("warning", "A key press made for another sample or name was not applied."))
        else:
            try:
                if event["action"] == "undo":
                    store.undo(dataset, sample, who)
                else:
                    mark = store.mark(dataset, sample, event["position"], event["candidate"], who, event["action"])
                    if not mark.applied:
                        notices.append(("warning", mark.message(event["action"])))
            except AnnotationDatabaseError as exc:
                done(events[-1]["seq"])
                left = len(events) - i
                notices.append(("error", f"{exc} {left} key press{'es were' if left > 1 else ' was'} not saved."))
                return
            except EvalcoreError as exc:
                notices.append(("warning", f"A key press was not applied: {exc}"))
        done(event["seq"])


def show_notices() -> None:
    """What the last presses met, in a container that is always there: the key queue below keeps its place on the
    page (an element that came and went above it would make the browser build it anew)."""
    with st.container():
        for kind, text in st.session_state.pop(NOTICES_KEY, []):
            getattr(st, kind)(markdown_text(text))


def candidate_cells(candidates: CandidateSet, index: int, context: str | None, table: pd.DataFrame) -> list:
    """One candidate's key columns (and the chosen context column), as (name, text) pairs. The candidate is named
    once, in the line above them ("Candidate 3 of 40 (data row 26)": its place in the sample and its row in the
    file), not again by a 0-based index of its own."""
    cells = []
    if candidates.keys is not None:
        cells += [(str(name), str(value)) for name, value in candidates.keys.iloc[index].items()]
    if context is not None and context in table.columns:
        row = int(candidates.rows[index]) - 1 if candidates.rows is not None else index
        cells.append((f"{context} (context)", str(table[context].iloc[row])))
    return cells


def marking(v: ViewSettings, info, who: str, candidates: CandidateSet, table: pd.DataFrame) -> None:
    """The candidate on screen and the key queue: the next places to annotate, the recent changes (for undo),
    what the server has applied."""
    if APPLY_LOCK_KEY not in st.session_state:
        st.session_state[APPLY_LOCK_KEY] = threading.Lock()
    store, dataset = db(), db_id(v.dataset)
    done, total = store.progress(dataset, info.name, who)

    def item(position: int, candidate: int) -> dict:
        row = int(candidates.rows[candidate]) if candidates.rows is not None else candidate + 1
        return {"position": position, "candidate": candidate, "title": f"Candidate {position + 1:,} of {total:,} (data row {row}):",
                "cells": candidate_cells(candidates, candidate, v.ann_context, table)}

    items = [item(p, c) for p, c in store.upcoming(dataset, info.name, who, WINDOW)]
    recent = [{**item(p, c), "reopens": reopens} for p, c, reopens in store.recent(dataset, info.name, who, RECENT)]
    applied = st.session_state.get(APPLIED_KEY, {})
    value = st.session_state.get(QUEUE_KEY)
    client = value.get("client") if isinstance(value, dict) else None
    st.progress(done / total, text=f"{done} of {total} annotated by you")
    key_queue(items, recent=recent, total=total, done=done, acked={"client": client, "seq": applied.get(client, 0)},
              context=_context(info.name, who), key=QUEUE_KEY)
    if not items and done >= total:
        st.success("You have annotated every candidate of the sample. Draw a larger one with the same seed to go on.")


# ---------------------------------------------------------------- following the other annotators

def follow(dataset: str, sample: str) -> None:
    """Keep the page current while others annotate: note the version of the sample's marks this run shows (read
    after this session's own presses are applied, before anything is drawn from the marks), and look every
    :data:`FOLLOW_S` seconds whether it has changed (:func:`_watch`, a fragment that draws nothing); when it has,
    the page runs again, so agreement, progress, the table and the pool's progress show the new marks. (Each of
    these runs, a fragment's too, ends with Streamlit's clean-up of unused files: a download clicked meanwhile is
    kept by :mod:`evalcore_app.downloads`.)"""
    try:
        version = db().version(dataset, sample)
    except EvalcoreError:
        return  # (the page says why when it reads the sample)
    st.session_state[SEEN_KEY] = (dataset, sample, version)
    _watch(dataset, sample)


@st.fragment(run_every=FOLLOW_S)
def _watch(dataset: str, sample: str) -> None:
    """One indexed read of the sample's version (a number that grows with every mark, anyone's); a full run of the
    page when it differs from the one this session's last run showed. Draws nothing, so the key queue below keeps
    its place."""
    try:
        version = db().version(dataset, sample)
    except EvalcoreError:
        return
    if st.session_state.get(SEEN_KEY) != (dataset, sample, version):
        st.session_state[SEEN_KEY] = (dataset, sample, version)  # (one run per change, however many ticks wait)
        st.rerun()


# ---------------------------------------------------------------- agreement, whose labels, export

def agreement(table: pd.DataFrame, level: float):
    """Kappa on the candidates marked by more than one annotator; None when there is nothing to agree on."""
    shared = table[table.notna().sum(axis=1) >= 2] if table.shape[1] >= 2 else table.iloc[0:0]
    if shared.empty:
        return None
    return annotator_agreement(shared, confidence_level=level)


def whose(v: ViewSettings, labels: pd.DataFrame) -> str | None:
    """The annotator whose labels the rule "annotator" uses: the link's (by token), else the first."""
    if not labels.shape[1]:
        return None
    return annotator_by_token(labels.columns, v.ann_of) or labels.columns[0]


def whose_select(v: ViewSettings, labels: pd.DataFrame) -> None:
    """With the rule "annotator": whose labels count, among the annotators (names shown on the page; the link
    carries a token, never a name)."""
    from evalcore_app.common import forgotten, update
    from evalcore_app.widgets import declared, refill

    key = "w_ann_of"
    wanted = whose(v, labels)
    refill(key, wanted)
    options = list(labels.columns)
    st.selectbox("Whose labels", options, key=key, **declared(st.selectbox, wanted, {"options": options}),
                 on_change=lambda: forgotten(key) or update(ann_of=annotator_token(st.session_state[key])))


def rule_changed() -> None:
    """Choosing "one annotator's labels" picks this session's annotator where none is chosen yet."""
    from evalcore_app.common import update, view

    rule = st.session_state.get("w_ann_rule")
    update(ann_rule=rule)
    if rule == "annotator" and view().ann_of is None and annotator() is not None:
        update(ann_of=annotator_token(annotator()))


def export_file(v: ViewSettings, sample: str, candidates: CandidateSet, data: pd.DataFrame, fmt: str) -> bytes:
    """The annotated set as a file, made when the download is clicked from the database as it is then (every
    annotator's marks up to the click, not those of the page's last run)."""
    store, dataset = db(), db_id(v.dataset)
    info, labels = store.sample(dataset, sample), store.table(dataset, sample)
    return write_export(export_table(candidates, labels, info, data=data, rule=v.ann_rule, annotator=whose(v, labels),
                                     label_column=v.label), fmt)


def safe(fn, *args):
    """Call ``fn``; an evalcore error is shown and ends the page."""
    from evalcore_app.common import stop

    try:
        return fn(*args)
    except EvalcoreError as exc:
        st.error(markdown_text(exc))
        stop()


# ---------------------------------------------------------------- import

def _source_bytes(dataset: str) -> int | None:
    """The data set's own file size (an export of it is at most a few times that)."""
    from evalcore.io.store import DatasetStore

    try:
        return DatasetStore().get(dataset).size
    except (EvalcoreError, OSError, AttributeError):
        return None


def reimport(v: ViewSettings) -> None:
    """The uploader's callback: import an exported annotated set (CSV, TSV or Parquet) into the database, after
    checking that it is of this data set (:func:`evalcore.annotations.import_export`); the view then names its
    sample. The outcome is kept for the page to show as text."""
    from evalcore_app.common import update

    upload = st.session_state.get(IMPORT_KEY)
    if upload is None:
        return
    fmt = PurePath(upload.name).suffix.lower().lstrip(".")
    shown = upload.name if len(upload.name) <= 60 else upload.name[:60] + "…"
    if fmt not in EXPORT_FORMATS:
        st.session_state["import_message"] = ("error", f"{shown}: import a file exported here, as "
                                              f"{', '.join(f.upper() for f in EXPORT_FORMATS)}.")
        return
    try:
        info = import_export(db(), db_id(v.dataset), upload.getvalue(), fmt, candidates=base(v),
                             source_bytes=_source_bytes(v.dataset), label=shown)
        labels = db().table(db_id(v.dataset), info.name)
    except EvalcoreError as exc:
        st.session_state["import_message"] = ("error", str(exc))
    else:
        marks = info.marks
        st.session_state["import_message"] = ("success" if marks.new or marks.replaced else "info",
                                              f"Imported sample {info.name} from {shown}: {info.size:,} candidates; "
                                              f"{marks.describe()}. The sample now holds "
                                              f"{int(labels.notna().sum().sum()):,} labels by {labels.shape[1]} "
                                              "annotator(s).")
        update(ann_sample=info.name)


def show_import_message() -> None:
    kind, text = st.session_state.pop("import_message", (None, None))
    if kind is not None:
        getattr(st, kind)(markdown_text(text))


# ---------------------------------------------------------------- pooled designs: the pool's size, progress, the plan

def design_caption(v: ViewSettings, candidates: CandidateSet) -> None:
    """Under the draw's settings: what the chosen design annotates, with the pool's exact size at this depth."""
    from evalcore.pooling import DESIGN_KINDS

    if v.ann_design == "sample":
        return
    if v.ann_design == "stratified":  # (rank bands: evalcore_app/strata.py)
        from evalcore_app import strata

        return strata.caption(v, candidates)
    try:
        design = design_of(v)
    except EvalcoreError as exc:
        st.info(markdown_text(exc))
        return
    pool = int(design.pool_mask(candidates).sum())
    total = design.annotations(pool)
    st.caption(markdown_text(f"{DESIGN_KINDS[design.kind].capitalize()}: {design.describe(pool)}; {total:,} "
                             "annotations in all."))


def pool_status(v: ViewSettings, info, candidates: CandidateSet, labels: pd.DataFrame) -> None:
    """A stored sample's design, and for a pooled one how much of its pool is annotated TP or FP (by the view's rule
    of combining annotators): the estimate pages show pooled estimates once all of it is."""
    from evalcore.annotations import annotated_candidate_set
    from evalcore.pooling import pool_progress

    design = stored_design(info)
    if design.stratified:  # (rank bands: evalcore_app/strata.py)
        from evalcore_app import strata

        return strata.status(v, info, design, candidates, labels)
    if not design.pooled:
        st.text(f"Sample {info.name}: {info.size:,} candidates, seed {info.seed}, {info.frame.describe()}.")
        return
    pool = design.pool_mask(candidates)
    st.text(f"Sample {info.name}: {info.size:,} candidates; design: {design.describe(int(pool.sum()))}.")
    if labels.shape[1]:
        labelled = annotated_candidate_set(candidates, labels, v.ann_rule, whose(v, labels))
    else:
        labelled = candidates.with_annotations(np.array([], np.int64), np.array([], bool))
    progress = pool_progress(labelled, pool)
    st.progress(progress.annotated / max(progress.size, 1),
                text=f"The pool: {progress.annotated:,} of {progress.size:,} annotated TP or FP")
    # (the same elements whatever the progress: the key queue below keeps its place on the page, and its focus)
    if progress.complete:
        st.caption("The pool is annotated whole: the Precision, Confidence, Threshold and Significance pages show "
                   "the pooled estimates (exact inside the pool" + (", estimated beyond it)." if design.rest_sampled
                                                                   else ")."))
    else:
        st.caption(markdown_text(progress.describe() + "."))


@cached.cache(work=costs.plan, max_entries=8, show_spinner="Planning ...")
def _plan(roles, labels: tuple, measures: tuple, ties: str, tie_seed, budget: int, n: int, guess: float):
    """The plan, with the annotations so far as a pilot read by its own design's estimator (the stored sample's
    design: a pool's labels are not a random sample); the guess where the pilot's design drew nothing."""
    from evalcore_app.sample import _design_of, _labelled
    from evalcore.pooling import plan_pool, rankings_for
    from evalcore.pooling.planning import PilotStrata

    c = _labelled(roles, labels)[0]
    rankings = rankings_for(c, SamplingFrame(measures=measures, k=1, ties=ties, seed=tie_seed))
    pilot = c.n_annotated > 0
    strata = PilotStrata.of(_design_of(roles, labels), c) if pilot else None
    blind = strata is not None and "unknown" in strata.kinds
    return plan_pool(list(rankings.values()), rankings, budget, n, guess=guess if blind or not pilot else None,
                     pilot=pilot, strata=strata)


def _use_plan(design: str, k: int, m: int) -> None:
    from evalcore_app.common import update

    update(ann_design=design, ann_k=k, ann_size=max(m, 1))


def planner(v: ViewSettings, candidates: CandidateSet) -> None:
    """The planner of a pooled design for the view's pool measures: the depth K and sample size m that minimise the
    widest expected interval at n for a budget B (:func:`evalcore.pooling.plan_pool`), from the annotations so far
    (a pilot) or the TP rate assumed."""
    from evalcore_app import widgets
    from evalcore_app.sample import labels_key

    N = candidates.n_candidates
    c1, c2, c3 = st.columns(3)
    with c1:
        widgets.bound(st.number_input, "Budget B (annotations)", "ann_budget", min_value=1, max_value=N, step=50,
                      convert=int)
    with c2:
        widgets.bound(st.number_input, "At n (the list size that matters)", "ann_plan_n", min_value=1, max_value=N,
                      step=100, convert=int)
    with c3:
        widgets.bound(st.number_input, "TP rate assumed where nothing is annotated", "ann_guess", min_value=0.0,
                      max_value=1.0, step=0.01, format="%.3f", convert=float)
    from evalcore_app.common import view

    v = view()
    if not v.ann_measures:
        st.info("Choose the measures whose top-K lists make up the pool (above) to plan a pooled design.")
        return
    budget, n = min(v.ann_budget, N), min(v.ann_plan_n, N)
    try:
        plan = _plan(v.data, labels_key(v), tuple(v.ann_measures), v.ties, v.seed, budget, n, v.ann_guess)
    except EvalcoreError as exc:
        st.error(markdown_text(exc))
        return
    st.text(plan.describe())
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("Depth K", f"{plan.depth:,}")
    m2.metric("Pool size", f"{plan.pool_size:,}")
    m3.metric("Sample of the rest m", f"{plan.sample_size:,}")
    m4.metric(f"Expected width at n = {n:,}", f"{plan.width:.3f}")
    kind = "sample" if plan.depth == 0 else "pool" if plan.sample_size == 0 else "pool+sample"
    st.button("Use this design", key="use_plan", on_click=_use_plan,
              args=(kind, plan.depth, plan.sample_size if kind != "sample" else budget))
