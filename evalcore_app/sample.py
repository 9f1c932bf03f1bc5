"""Estimates from a random sample of annotations, on every page that can use one.

A view *estimates from a sample* (:func:`mode` is ``"sample"``) when it names an annotation sample (the Annotate
page's database), or when the data set's label column has empty cells (and the Data page does not leave those
rows out). ``"unannotated"``: the label column is empty in every row, or there is none, and no sample is named.

The candidate set is read by :func:`evalcore.io.load_annotated_sample` (empty label cells are unannotated); the
labels that count are the file's, or the named sample's in the database combined by the view's rule. The
Precision, Confidence, Threshold and Significance pages then show estimates from the annotated candidates, taken
as a simple random sample of the candidates (or of the stated top-K frame), with a note saying so and how many
there are; the pages that need every candidate annotated say so in one line (:func:`not_here`).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from evalcore import estimates
from evalcore.annotations import AnnotationStore, annotated_candidate_set, annotator_by_token, default_path
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.estimates import SamplingFrame
from evalcore.io import load_annotated_sample
from evalcore.io.store import DatasetStore
from evalcore.io.annotated import AnnotatedSample
from evalcore.names import SAMPLE_INTERVAL_LABELS
from evalcore.pooling.design import Design
from evalcore.pooling.strata import Strata
from evalcore.ranking import Ranking, rank
from evalcore.report import ReportSettings, report_results
from evalcore.text import markdown_text as esc
from evalcore.viewstate import (SAMPLE_PREFIX, RankingChoice, Roles, ViewSettings, check_against_data,
                                check_columns, with_roles)
from evalcore_app import cached, costs, serverdata
from evalcore_app.common import PAGES, stop, update, view

ESTIMATING_PAGES = "Precision, Confidence, Threshold and Significance"
MORE = (0, 25, 50, 100, 200, 400, 800)  # "how many more": the numbers of further candidates in the table


# ---------------------------------------------------------------- the annotation database

_STORES: dict = {}  # one AnnotationStore per database file: it keeps one open connection per thread


def _reserve(nbytes: int, what: str):
    """Room in the store's quota for a draw or an import (the database counts in it), as the store is now."""
    return DatasetStore().reserve(nbytes, what=what)


def db() -> AnnotationStore:
    """The annotation database in the store folder (EVALCORE_STORE); a draw or an import first reserves its bytes in
    the store's quota."""
    path = default_path()
    store = _STORES.get(path)
    if store is None:
        store = _STORES[path] = AnnotationStore(path, reserve=_reserve if hasattr(DatasetStore, "reserve") else None)
    return store


def db_id(dataset: str) -> str:
    """The database's name of a data set: its store id, or a hash of a shipped sample's name."""
    if dataset.startswith(SAMPLE_PREFIX):
        return hashlib.sha256(dataset.encode()).hexdigest()
    return dataset


# ---------------------------------------------------------------- the partly annotated candidate set

@cached.cache(work=costs.annotated_sample, max_entries=4, show_spinner="Reading the candidates ...")
def annotated_sample(dataset: str, label, scores: tuple, keys: tuple, lower: tuple) -> AnnotatedSample:
    """The data set read by :func:`evalcore.io.load_annotated_sample`: empty label cells (or no label column) are
    unannotated candidates. ``label`` None with no scores: the suggested roles."""
    table, name = cached.raw_table(dataset)
    return load_annotated_sample(table, label=label, scores=list(scores) or None, keys=list(keys) or None,
                                 lower_is_better=tuple(lower), name=name, where="page")


def suggested(dataset: str) -> dict:
    """The roles :func:`evalcore.io.load_annotated_sample` suggests: an empty column named like a label is the
    label still to annotate, and is neither a score nor a key."""
    found = annotated_sample(dataset, None, (), (), ())
    keys = () if found.candidates.keys is None else tuple(map(str, found.candidates.keys.columns))
    return dict(label=found.label_column, scores=tuple(found.candidates.measures), keys=keys)


def apply_roles(table: pd.DataFrame) -> None:
    """As :func:`evalcore_app.guards.apply_roles`, with the roles a partly annotated set gets (:func:`suggested`)."""
    v, problems = check_columns(view(), [str(c) for c in table.columns])
    if v.label is None and not v.scores:
        v = with_roles(v, sample=None, **suggested(v.dataset))
    v, more = check_columns(v, [str(c) for c in table.columns])
    st.session_state["view"] = v
    for problem in problems + more:
        st.warning(esc(problem))


def base(v: ViewSettings) -> CandidateSet:
    """The candidate set of the view's roles, the file's labels where given."""
    return annotated_sample(v.dataset, v.label, v.scores, v.keys, v.lower).candidates


def empty_cells(cells: pd.Series) -> pd.Series:
    """Which cells of a label column are empty: missing, or blank text. A column of numbers or booleans holds no
    text, so only its missing cells are looked at (the text of every cell took 0.3 s of a 1,000,000-row upload)."""
    empty = cells.isna()
    if not (pd.api.types.is_numeric_dtype(cells) or pd.api.types.is_bool_dtype(cells)):
        empty |= cells.astype(str).str.strip() == ""
    return empty


@cached.cache(work=costs._label_state, max_entries=16)
def _label_state(dataset: str, label) -> str:
    """"none" (no label column, or one empty in every row), "partial" (some empty cells) or "full"."""
    table, _ = cached.raw_table(dataset)
    if label is None or label not in table.columns:
        return "none"
    empty = empty_cells(table[label])
    return "none" if empty.all() else "partial" if empty.any() else "full"


def mode(v: ViewSettings) -> str:
    """"full" (every candidate annotated, or the empty ones left out), "sample" (estimates from a sample) or
    "unannotated" (nothing annotated yet and no sample named). A data set that does not read is "full": the
    page's own loading says what is wrong."""
    if v.dataset is None or serverdata.is_server(v.dataset):  # (a server set is counted whole: every label given)
        return "full"
    if v.ann_sample is not None:
        return "sample"
    if v.exclude_unlabelled:
        return "full"
    try:
        columns = set(map(str, cached.raw_table(v.dataset)[0].columns))  # (a link's unknown label: the suggested)
        label = v.label if v.label in columns else suggested(v.dataset)["label"]
        state = _label_state(v.dataset, label)
    except EvalcoreError:
        return "full"
    return {"none": "unannotated", "partial": "sample", "full": "full"}[state]


def not_here(v: ViewSettings) -> None:
    """On a page that needs every candidate annotated: with a sample (or nothing annotated), one line saying so,
    and the page stops."""
    state = mode(v)
    if state == "full":
        return
    if state == "sample":
        st.info(f"This page needs every candidate annotated; it cannot use a random sample of annotations. The "
                f"{ESTIMATING_PAGES} pages estimate from the sample.", icon=":material/info:")
    else:
        st.info("No candidate is annotated yet: annotate a random sample on the Annotate page.",
                icon=":material/info:")
        st.page_link(PAGES["annotate"], label="Go to the Annotate page", icon=":material/checklist:")
    stop()


def data_section(table: pd.DataFrame) -> None:
    """The Data page for a label column with empty cells (or none): how many candidates are annotated, where to
    annotate (a link to the Annotate page) and which pages estimate from the sample; the display names; a preview."""
    from evalcore_app.widgets import display_names_editor

    v = view()
    try:
        found = annotated_sample(v.dataset, v.label, v.scores, v.keys, v.lower)
    except EvalcoreError as exc:
        st.error(esc(exc))
        stop()
    c = found.candidates
    where = "no label column" if found.label_column is None else f"label column {found.label_column}"
    if v.ann_sample is not None:
        st.info(esc(f"The pages estimate from annotation sample {v.ann_sample} (the Annotate page), taken as a random "
                    f"sample of the candidates; the {ESTIMATING_PAGES} pages show the estimates."),
                icon=":material/info:")
    elif c.n_annotated:
        st.info(esc(f"{c.n_annotated:,} of {c.n_candidates:,} candidates are annotated ({where} has empty cells). "
                    f"The {ESTIMATING_PAGES} pages estimate from them, taken as a simple random sample of the "
                    "candidates; annotate more on the Annotate page, or tick 'Leave out rows with an empty label' "
                    "to use the annotated rows only."), icon=":material/info:")
    else:
        state = "the file has no label column" if found.label_column is None else f"{where} is empty in every row"
        st.info(esc(f"No candidate is annotated ({state}). Draw a random sample and annotate "
                    f"it on the Annotate page; the {ESTIMATING_PAGES} pages then estimate from it."),
                icon=":material/info:")
    st.page_link(PAGES["annotate"], label="Annotate a random sample on the Annotate page",
                 icon=":material/checklist:")
    m1, m2, m3 = st.columns(3)
    m1.metric("Candidates N", f"{c.n_candidates:,}")
    m2.metric("Annotated", f"{c.n_annotated:,}")
    m3.metric("Measures", len(c.measures))
    display_names_editor(c.measures)
    st.subheader("Preview")
    st.dataframe(table.head(200))


# ---------------------------------------------------------------- the sample's labels, rankings and frame

def labels_key(v: ViewSettings) -> tuple:
    """What the estimates' labels depend on: () for the file's labels; else the annotation sample, the rule, whose
    labels (a token, :func:`evalcore.annotations.annotator_token`) and the sample's version in the database, a
    number that grows with every mark (so the cache follows every new mark without reading the marks)."""
    if v.ann_sample is None:
        return ()
    try:
        version = db().version(db_id(v.dataset), v.ann_sample)
    except EvalcoreError:  # (a link to a sample not drawn on this server: whoever reads the labels says so)
        version = -1
    return (v.ann_sample, v.ann_rule, v.ann_of or "", version)


@cached.cache(work=costs.sample_labelled, max_entries=8, show_spinner="Reading the annotations ...")
def _labelled(roles: Roles, labels: tuple) -> tuple[CandidateSet, SamplingFrame, str]:
    candidates = annotated_sample(roles.dataset, roles.label, roles.scores, roles.keys, roles.lower).candidates
    if not labels:
        return candidates, SamplingFrame(), "the file's labels"
    name, rule, token = labels[:3]
    store, dataset = db(), db_id(roles.dataset)
    info = store.sample(dataset, name)
    table = store.table(dataset, name)
    if table.shape[1] == 0:
        candidates = candidates.with_annotations(np.array([], np.int64), np.array([], bool))
    else:
        who = annotator_by_token(table.columns, token) or table.columns[0]
        candidates = annotated_candidate_set(candidates, table, rule, who)
    return candidates, info.frame, f"the labels of annotation sample {name} so far"


@cached.cache(work=costs.sample_ranking, max_entries=64, show_spinner="Ranking ...")
def _ranking(roles: Roles, labels: tuple, measure: str, ranking: RankingChoice) -> Ranking:
    return rank(_labelled(roles, labels)[0], measure, ties=ranking.ties, seed=ranking.seed)


@cached.cache(work=costs.frame_mask, max_entries=8)
def _frame_mask(roles: Roles, labels: tuple):
    candidates, frame, _ = _labelled(roles, labels)
    return frame.mask(candidates)


@cached.cache(work=costs.sample_pair, max_entries=32, show_spinner="Testing every n on the annotated sample ...")
def sample_pair(roles: Roles, labels: tuple, ranking: RankingChoice, a: str, b: str, n_range: tuple, level: float,
                min_annotated: int, correction: str = "none", difference_method: str = "newcombe"):
    """Significance from an annotated sample, tested once per (data and labels so far, pair, range, level,
    correction, difference interval), as :func:`evalcore_app.cached.pair` is for full annotation:
    :func:`evalcore.estimates.tested_comparison`, as the report computes it."""
    sizes = np.arange(n_range[0], n_range[1] + 1)
    return estimates.tested_comparison(_ranking(roles, labels, a, ranking), _ranking(roles, labels, b,
                                       ranking), sizes, frame=_frame_mask(roles, labels),
                                       confidence_level=level, correction=correction, min_annotated=min_annotated,
                                       difference_method=difference_method)


@cached.cache(work=costs.sample_pair, max_entries=32, show_spinner="Testing every n on the design ...")
def pooled_pair(roles: Roles, labels: tuple, ranking: RankingChoice, a: str, b: str, n_range: tuple, level: float,
                min_annotated: int, correction: str = "none", difference_method: str = "newcombe"):
    """Significance from a pooled or stratified design, tested once per (data and labels so far, pair, range,
    level, correction, difference interval) by the design's own test (:meth:`evalcore.pooling.Strata.compare`):
    Fisher's test on the pooled counts with the sampled stratum, or the score test on a stratified design's
    effective counts, at the n with enough annotated candidates, the correction over those."""
    from evalcore.stats.multitest import adjust_pvalues

    strata = _strata(roles, labels)
    sizes = np.arange(n_range[0], n_range[1] + 1)
    table = strata.with_difference(strata.compare(_ranking(roles, labels, a, ranking),
                                                  _ranking(roles, labels, b, ranking), sizes, confidence_level=level,
                                                  min_annotated=min_annotated), level, difference_method)
    tested = table["enough"].to_numpy(bool)
    adjusted = np.full(len(table), np.nan)
    adjusted[tested] = adjust_pvalues(table.loc[tested, "p_value"].to_numpy(float), correction)
    table.insert(table.columns.get_loc("significant"), "p_adjusted", adjusted)
    with np.errstate(invalid="ignore"):
        table["significant"] = tested & (adjusted < 1.0 - level)
    return table


@cached.cache(work=costs.design_of, max_entries=8)
def _design_of(roles: Roles, labels: tuple) -> Design:
    """The design of the view's annotation sample (:meth:`evalcore.pooling.Design.from_record`): a ``sample`` of
    the whole set for the file's labels or a sample stored before pooled designs."""
    if not labels:
        return Design()
    info = db().sample(db_id(roles.dataset), labels[0])
    return Design.from_record(info.frame, info.design, info.seed, info.size)


@cached.cache(work=costs.strata, max_entries=8)
def _strata(roles: Roles, labels: tuple) -> Strata:
    """The design laid over the candidates: the pool (pooled kinds) or the frame (a sample)."""
    candidates = _labelled(roles, labels)[0]
    return Strata.of(_design_of(roles, labels), candidates)


@cached.cache(work=costs.sample_estimates, max_entries=16, show_spinner="Estimating from the annotated sample ...")
def estimates_at(roles: Roles, labels: tuple, ranking: RankingChoice, measures: tuple, n_range: tuple, level: float,
                 interval: str, min_annotated: int) -> pd.DataFrame:
    """The design's precision estimates of each measure at every n of the range (the pooled design's, or a random
    sample's: :meth:`evalcore.pooling.Strata.precision`), once per (data and labels so far, measures, range, level,
    interval, fewest annotated)."""
    sizes = np.arange(n_range[0], n_range[1] + 1)
    strata = _strata(roles, labels)
    return pd.concat([strata.precision(_ranking(roles, labels, m, ranking), sizes, confidence_level=level,
                                       interval=interval, min_annotated=min_annotated) for m in measures],
                     ignore_index=True)


@dataclass(frozen=True)
class Sample:
    """The view's candidates with the labels so far, where the sample was drawn, and where the labels come from."""

    view: ViewSettings
    labels: tuple
    candidates: CandidateSet
    frame: SamplingFrame
    source: str

    @property
    def mask(self):
        return _frame_mask(self.view.data, self.labels)

    @property
    def design(self) -> Design:
        """The sample's design (a ``sample`` for the file's labels and for samples without a pooled record)."""
        return _design_of(self.view.data, self.labels)

    @property
    def strata(self) -> Strata:
        """The design over the candidates: its estimates whatever its kind (:class:`evalcore.pooling.Strata`)."""
        return _strata(self.view.data, self.labels)

    @property
    def pooled(self) -> bool:
        return self.design.pooled

    @property
    def stratified(self) -> bool:
        """A stratified design (rank bands, issue 33): estimated band by band."""
        return self.design.stratified

    def ranking(self, measure: str) -> Ranking:
        return _ranking(self.view.data, self.labels, measure, self.view.ranking)

    def curves(self, measures, n_range: tuple[int, int]) -> pd.DataFrame:
        """:func:`evalcore.estimates.precision_estimates` of each measure over the range (:func:`estimates_at`),
        shaped for the paper's figures (``precision`` = k / m, ``tp`` = k), measures by display name."""
        v = self.view
        table = estimates_at(v.data, self.labels, v.ranking, tuple(measures), tuple(n_range), v.level,
                             v.sample_interval, v.min_annotated)
        return table.assign(measure=table["measure"].astype(str).map(v.display.of), precision=table["estimate"],
                            tp=table["k"])

    def baseline(self) -> estimates.BaselineEstimate:
        ranking = self.ranking(self.candidates.measures[0])
        return self.strata.baseline(ranking, confidence_level=self.view.level, interval=self.view.sample_interval)

    def note(self) -> None:
        """The assumption the estimates rest on, and how many annotated candidates there are (as text)."""
        c = self.candidates
        if self.pooled:
            self.pooled_note()
            return
        if self.stratified:
            self.stratified_note()
            return
        st.warning("Estimates from a random sample: the annotated candidates are taken as a simple random sample of "
                   "the candidates (or of the part they were drawn from, below); the intervals ("
                   f"{esc(SAMPLE_INTERVAL_LABELS[self.view.sample_interval])}) hold under that assumption only.",
                   icon=":material/info:")
        st.text(f"Estimated from {self.source}: {c.n_annotated:,} candidates annotated TP or FP "
                f"({int(c.labels.sum()):,} TPs) of {c.n_candidates:,}, taken as {self.frame.describe()}.")

    def stratified_note(self) -> None:
        """A stratified design's note: how the estimates are made, and the design (as text)."""
        c = self.candidates
        st.info("Estimates from a stratified design: each n-best list is estimated band by band from the annotated "
                "candidates of its part of each band (taken as a random sample of the band), exact where every "
                "candidate of the list is annotated; the intervals are Korn and Graubard's (Clopper-Pearson at the "
                "effective sample size). The tables say each n's regime: exact, estimated, by a band's rate (a "
                "part of a band with none annotated) or not estimated (a band with none annotated).",
                icon=":material/info:")
        st.text(f"Estimated from {self.source}: {c.n_annotated:,} candidates annotated TP or FP "
                f"({int(c.labels.sum()):,} TPs) of {c.n_candidates:,}; the design: {self.strata.describe()}.")

    def pooled_note(self) -> None:
        """A pooled design's note: what is exact, what is estimated, and the regime of each n (as text)."""
        d, c = self.design, self.candidates
        what = ("every n-best list of a pooled measure inside the pool is exact; beyond it the rest of the list is "
                "estimated from the random sample of the candidates outside the pool (unbiased; the interval, "
                f"{SAMPLE_INTERVAL_LABELS[self.view.sample_interval]}, is that of the sampled part alone)"
                if d.rest_sampled else "the estimates are exact where the n-best lists lie inside the pool, and "
                "there are none beyond it (no sample of the rest)")
        st.info(esc(f"Estimates from a pooled design: {what}. The tables say each n's regime: exact (inside the pool) "
                    "or estimated (beyond it)."), icon=":material/info:")
        st.text(f"Estimated from {self.source}: {c.n_annotated:,} candidates annotated TP or FP "
                f"({int(c.labels.sum()):,} TPs) of {c.n_candidates:,}; the design: "
                f"{d.describe(self.strata.pool_size)}.")


@cached.cache(work=costs.report_numbers, max_entries=8, show_spinner="Computing the report's numbers ...",
              hash_funcs={**cached.FAST_KEYS, ReportSettings: repr})
def report_numbers(roles: Roles, labels: tuple, ranking: RankingChoice, settings: ReportSettings, _candidates,
                   _frame):
    """The report's numbers from a sample (:func:`evalcore.report.report_results` with the sample's frame), on the
    sample pages' cached rankings; ``_candidates`` and ``_frame`` are :func:`report_parts`' for the same view."""
    rankings = {m: _ranking(roles, labels, m, ranking) for m in settings.measures}
    return report_results(_candidates, settings, rankings=rankings, frame=_frame)


def annotator_names(v: ViewSettings) -> tuple[str, ...]:
    """The annotators of the view's annotation sample (none for the file's labels), as the database keeps them."""
    if v.ann_sample is None:
        return ()
    return tuple(map(str, db().table(db_id(v.dataset), v.ann_sample).columns))


RULE_WORDS = {"annotator": "one annotator's labels", "majority": "the majority of the annotators",
              "agreed": "the labels all annotators agree on"}


def report_parts(v: ViewSettings):
    """What the report needs from a view that estimates from a sample: the candidates with the labels so far, the
    frame the sample was drawn from (a pooled design's pool), and the :class:`evalcore.report.SampleDesign` (frame,
    interval, fewest annotated, the draw's seed, the annotation sample where the labels come from the database, and
    a pooled design's kind and m)."""
    from evalcore.report.settings import SampleDesign

    labels = labels_key(v)
    candidates, frame, _ = _labelled(v.data, labels)
    pooled = _design_of(v.data, labels)  # (a pooled design: its kind and m; the pool is the stored frame)
    seed, annotations = None, None
    if v.ann_sample is not None:
        seed = db().sample(db_id(v.dataset), v.ann_sample).seed
        who = RULE_WORDS[v.ann_rule]
        if v.ann_rule == "annotator" and annotator_names(v):  # (the link names them by a token; as _labelled does)
            names = annotator_names(v)
            who = f"{annotator_by_token(names, v.ann_of) or names[0]}'s labels"
        annotations = f"{v.ann_sample} ({who})"
    if pooled.stratified:  # (rank bands: their widths and sizes; the frame names the measures, ties and seed)
        design = SampleDesign(frame=frame.measures, frame_k=frame.k, frame_ties=frame.ties,
                              frame_seed=frame.seed if frame.ties in ("random", "hash") else None,
                              interval=v.sample_interval, min_annotated=v.min_annotated, draw_seed=seed,
                              annotations=annotations, kind="stratified", bands=pooled.widths,
                              band_sizes=pooled.sizes)
        return candidates, frame, design
    design = SampleDesign(frame=frame.measures, frame_k=frame.k, frame_ties=frame.ties if frame.measures else None,
                          frame_seed=frame.seed if frame.measures and frame.ties == "random" else None,
                          interval=v.sample_interval, min_annotated=v.min_annotated, draw_seed=seed,
                          annotations=annotations, kind=pooled.kind,
                          pool_sample=pooled.size if pooled.rest_sampled else None)
    return candidates, frame, design


def require() -> Sample:
    """The sample the view estimates from; without data or annotations, say where to get them and stop."""
    from evalcore_app import guards  # (guards imports this module)

    v = guards.dataset_view()
    try:
        apply_roles(cached.raw_table(v.dataset)[0])
        v = view()
        labels = labels_key(v)
        candidates, frame, source = _labelled(v.data, labels)
    except EvalcoreError as exc:
        st.error(esc(exc))
        st.page_link(PAGES["data"], label="Fix it on the Data page", icon=":material/upload:")
        stop()
    fixed = check_view(candidates)
    try:
        strata = _strata(v.data, labels)
    except EvalcoreError as exc:
        st.error(esc(exc))
        stop()
    progress = strata.progress(candidates)
    if progress is not None and not progress.complete:
        st.info(esc(f"Pooled design: {progress.describe()}. Annotate the rest of the pool on the Annotate page."),
                icon=":material/info:")
        st.progress(progress.annotated / max(progress.size, 1),
                    text=f"{progress.annotated:,} of {progress.size:,} pooled candidates annotated")
        st.page_link(PAGES["annotate"], label="Go to the Annotate page", icon=":material/checklist:")
        stop()
    if candidates.n_annotated == 0:
        st.info("No candidate is annotated yet, so there is nothing to estimate from: annotate a random sample on "
                "the Annotate page.")
        st.page_link(PAGES["annotate"], label="Go to the Annotate page", icon=":material/checklist:")
        stop()
    return Sample(fixed, labels, candidates, frame, source)


def check_view(candidates: CandidateSet) -> ViewSettings:
    """The view checked against the candidates (measures, n within 1..N), each correction said; the view."""
    fixed, problems = check_against_data(view(), measures=candidates.measures, n_candidates=candidates.n_candidates)
    st.session_state["view"] = fixed
    for problem in problems:
        st.warning(esc(problem))
    return fixed


# ---------------------------------------------------------------- widgets of the sample pages

def interval_select() -> None:
    from evalcore_app.widgets import bound

    bound(st.selectbox, "Interval from the sample", "sample_interval", options=list(SAMPLE_INTERVAL_LABELS),
          format_func=SAMPLE_INTERVAL_LABELS.get, help="The hypergeometric interval is exact for a list of n "
          "candidates sampled without replacement (narrower when much of the list is annotated); Clopper-Pearson "
          "treats the annotated candidates as draws from an infinite list.")


def measures_select(s: Sample, label: str) -> tuple:
    """The shared measure selection among the sample's measures (in the file's order)."""
    from evalcore_app.widgets import bound
    from evalcore.viewstate import MAX_MEASURES

    if view().measures is None or any(m not in s.candidates.measures for m in view().measures):
        update(measures=tuple(m for m in view().measures or () if m in s.candidates.measures)
               or s.candidates.measures[:3])
    bound(st.multiselect, label, "measures", options=list(s.candidates.measures), max_selections=MAX_MEASURES,
          format_func=view().display.of)
    if not view().measures:
        st.info("Pick at least one measure.")
        stop()
    return view().measures


def pair_select(s: Sample, columns) -> tuple[str, str]:
    """Measures A and B (the view's pair) among the sample's measures."""
    from evalcore_app.widgets import bound

    measures = list(s.candidates.measures)
    if len(measures) < 2:
        st.info("Comparing needs two score columns; choose more on the Data page.")
        stop()
    v = view()
    if v.a is None or v.b is None:
        a = v.a or measures[0]
        update(a=a, b=v.b or next(m for m in measures if m != a))
    for col, field in zip(columns, ("a", "b")):
        with col:
            bound(st.selectbox, f"Measure {field.upper()}", field, options=measures, format_func=view().display.of)
    if view().a == view().b:
        st.info("Pick two different measures.")
        stop()
    return view().a, view().b


# ---------------------------------------------------------------- how many more

def how_many_more(s: Sample, measures, n: int) -> pd.DataFrame:
    """For the n-best lists: the expected width of each measure's precision interval, and of the interval for
    pi_D1 - pi_D2 of the first two measures (the view's interval of a difference), after annotating k more
    candidates of the frame
    (:func:`evalcore.estimates.expected_precision_width`, :func:`~evalcore.estimates.expected_difference_width`).
    """
    v = s.view
    unannotated = (s.candidates.n_candidates if s.mask is None else int(s.mask.sum())) - s.candidates.n_annotated
    extra = [k for k in MORE if k <= unannotated]
    table = pd.DataFrame({"annotate k more": extra})
    for m in measures:
        r = s.ranking(m)
        width = estimates.expected_precision_width(r, n, extra, frame=s.mask, confidence_level=v.level,
                                                   interval=v.sample_interval)
        table[f"annotated in the list: {v.display.of(m)}"] = width["expected_m"].to_numpy()
        table[f"precision interval width: {v.display.of(m)}"] = width["expected_width"].to_numpy()
    if len(measures) >= 2:
        a, b = measures[:2]
        method = functools.partial(estimates.difference_interval, method=v.difference_method)  # the view's
        width = estimates.expected_difference_width(s.ranking(a), s.ranking(b), n, extra, frame=s.mask,
                                                    confidence_level=v.level, difference_interval=method)
        table[f"difference interval width: {v.display.of(a)} − {v.display.of(b)}"] = width["expected_width"].to_numpy()
    return table


def how_many_more_section(s: Sample, measures, n: int) -> None:
    st.subheader("How many more to annotate")
    if s.stratified:
        st.info("A stratified design: plan the sample size of each band, with the expected widths at the n that "
                "matter, with the planner on the Annotate page.", icon=":material/info:")
        return
    if s.pooled:
        st.info("A pooled design: plan its depth K and the size of the sample of the rest with the planner on the "
                "Annotate page.", icon=":material/info:")
        return
    if n > min(estimates.frame_limit(s.ranking(m), s.mask) for m in measures):
        st.info(f"The {n:,}-best lists reach outside the sampling frame; choose a smaller n.")
        return
    frame_size = s.candidates.n_candidates if s.mask is None else int(s.mask.sum())
    if frame_size == s.candidates.n_annotated:
        st.info("Every candidate of the frame is annotated: there is nothing more to annotate.")
        return
    table = how_many_more(s, measures, n)
    st.caption(f"At n = {n:,}: the expected width of each interval (at level {s.view.level:g}) after annotating k "
               "more candidates drawn at random from the unannotated ones of the frame; k = 0 is now. Stop when "
               "the widths are small enough for the question.")
    missing = table.iloc[:, 1:].isna().to_numpy().any()
    st.dataframe(table.style.format({c: "{:.3f}" for c in table.columns[1:]}, na_rep="–"), hide_index=True)
    if missing:
        st.caption("–: no width can be expected there: a list (or a difference region of the two lists) would "
                   "still hold no annotated candidate.")
