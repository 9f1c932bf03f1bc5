"""Glue of the Annotate page for a stratified design (issue 33): the design the view asks for, its draw, its caption
and its status, and its planner (:func:`evalcore.pooling.stratified_planning.plan_strata`).

The view holds the design's parts as typed: the measures (``ann_measures``), the band widths (``ann_bands``), the
sample size of each band (``ann_band_sizes``), the seed; the planner's budget, list sizes and guessed rates. Every
number comes from :mod:`evalcore.pooling`; this module only reads the view, calls it and draws.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError, ParameterError
from evalcore.text import markdown_text
from evalcore.viewstate import ViewSettings
from evalcore_app import cached, costs

SEEDED = ("random", "hash")


def _measures_and_widths(v: ViewSettings, candidates: CandidateSet):
    from evalcore.pooling.stratified import parse_widths

    if not v.ann_measures:
        raise ParameterError("A stratified design cuts bands by the rank of chosen measures: choose at least one "
                             "measure.")
    if v.ties not in ("stable", "random", "hash"):
        raise ParameterError(f"Bands are cut with ties stable, random or hash (orders that do not look at the labels); "
                             f"the view's ties are {v.ties}: choose another tie policy in the sidebar.")
    return tuple(v.ann_measures), parse_widths(v.ann_bands, candidates.n_candidates)


@cached.cache(work=costs.strata_bands, max_entries=8)
def _bands(roles, measures: tuple, widths: tuple, ties: str, tie_seed):
    """The bands over the data set's candidates (their counts), for the view's measures, widths and ties."""
    from evalcore.pooling.stratified import Bands, StratifiedDesign, best_rank
    from evalcore_app.sample import annotated_sample

    candidates = annotated_sample(roles.dataset, roles.label, roles.scores, roles.keys, roles.lower).candidates
    probe = StratifiedDesign.of(measures, widths, (1,) * (len(widths) + 1), ties=ties, tie_seed=tie_seed)
    return Bands.of(best_rank(probe.rankings(candidates)), widths)


def design_of(v: ViewSettings, candidates: CandidateSet):
    """The stratified design the view asks for (:class:`evalcore.pooling.StratifiedDesign`), checked against the
    bands' candidates, and its bands."""
    from evalcore.pooling.stratified import StratifiedDesign, parse_sizes

    measures, widths = _measures_and_widths(v, candidates)
    tie_seed = v.seed if v.ties in SEEDED else None
    bands = _bands(v.data, measures, widths, v.ties, tie_seed)
    if not v.ann_band_sizes.strip():
        raise ParameterError(f"Give the sample size of each of the {bands.n_bands} bands ('all' takes a band whole), "
                             "or plan them with the planner below.")
    sizes = parse_sizes(v.ann_band_sizes, bands.counts)
    design = StratifiedDesign.of(measures, widths, sizes, ties=v.ties, tie_seed=tie_seed,
                                 seed=0 if v.ann_seed is None else v.ann_seed)
    design.check_counts(bands.counts)
    return design, bands


def draw(v: ViewSettings, candidates: CandidateSet):
    """Draw the view's stratified design and store it (a new allocation is a new sample); its SampleInfo."""
    from evalcore.pooling.stratified import draw_stratified, stratified_name
    from evalcore_app.sample import db, db_id

    design, bands = design_of(v, candidates)
    return db().create_sample(db_id(v.dataset), stratified_name(design), draw_stratified(design, bands),
                              seed=design.seed, frame=design.frame, design=design.record())


def caption(v: ViewSettings, candidates: CandidateSet) -> None:
    """Under the draw's settings: the bands, their candidates and the sizes asked for (or why not yet)."""
    try:
        design, bands = design_of(v, candidates)
    except EvalcoreError as exc:
        st.info(markdown_text(exc))
        return
    st.caption(markdown_text(f"Rank bands, each a random sample of its own size: {design.describe(bands.counts)}; "
                             f"{design.size:,} annotations in all."))


def status(v: ViewSettings, info, design, candidates: CandidateSet, labels: pd.DataFrame) -> None:
    """A stored stratified sample: its design, and how many of each band's sample carry a TP or FP label (by the
    view's rule of combining annotators). The estimates use the annotated candidates of each band as they come."""
    from evalcore.annotations import annotated_candidate_set
    from evalcore_app.annotate import whose

    bands = design.bands(candidates)
    st.text(f"Sample {info.name}: {info.size:,} candidates; design: {design.describe(bands.counts)}.")
    if labels.shape[1]:
        labelled = annotated_candidate_set(candidates, labels, v.ann_rule, whose(v, labels))
    else:
        labelled = candidates.with_annotations(np.array([], np.int64), np.array([], bool))
    annotated = np.zeros(candidates.n_candidates, bool) if labelled.annotated is None else labelled.annotated
    done = np.bincount(bands.band[annotated], minlength=bands.n_bands)
    total = int(done.sum())
    st.progress(total / max(design.size, 1), text=f"{total:,} of the {design.size:,} annotated TP or FP")
    st.caption(markdown_text("Per band: " + "; ".join(f"{design.band_label(h)}: {int(d):,} of {s:,}"
                                                      for h, (d, s) in enumerate(zip(done, design.sizes)))
                             + ". The estimate pages use each band's annotated candidates as a random sample of the "
                               "band, whatever their number so far."))


# ---------------------------------------------------------------- the planner

def _numbers(text: str, what: str, cast):
    try:
        return tuple(cast(x) for x in str(text).split(",") if x.strip())
    except ValueError:
        raise ParameterError(f"The {what} are numbers separated by commas; got {str(text)[:60]!r}.") from None


@cached.cache(work=costs.strata_plan, max_entries=8, show_spinner="Planning the bands ...")
def _plan(roles, labels: tuple, measures: tuple, targets: tuple, ties: str, tie_seed, widths: tuple, budget: int,
          ns: tuple, guess: tuple):
    """The plan from the annotations so far read with their own design (a pilot), else from the guessed rates."""
    from evalcore.pooling.stratified_planning import pilot_weights, plan_strata
    from evalcore.ranking import rank
    from evalcore_app.sample import _design_of, _labelled

    c = _labelled(roles, labels)[0]
    ranked = {m: rank(c, m, ties=ties, seed=tie_seed) for m in set(measures) | set(targets)}
    strata_rankings = [ranked[m] for m in measures]
    weights = None
    if c.n_annotated > 0:
        pilot = _design_of(roles, labels)
        if pilot.stratified:
            weights = pilot_weights(pilot, c, bands=pilot.bands(c))
        elif pilot.pooled:
            weights = pilot_weights(pilot, c, pool=pilot.pool_mask(c))
        else:
            weights = pilot_weights(pilot, c)
    return plan_strata(strata_rankings, [ranked[m] for m in targets], widths, budget, ns,
                       labels=c.labels if weights is not None else None, weights=weights,
                       guess=None if weights is not None else guess)


def _use(sizes: tuple) -> None:
    from evalcore_app.common import update

    update(ann_design="stratified", ann_band_sizes=",".join(str(s) for s in sizes))


def planner(v: ViewSettings, candidates: CandidateSet) -> None:
    """The planner of a stratified design: the sample size of each band for a budget B, and the expected width of
    each chosen measure's interval at the list sizes that matter against a random sample of B, with a warning where
    the design would (or might) be wider."""
    from evalcore_app import widgets
    from evalcore_app.common import view
    from evalcore_app.sample import labels_key

    N = candidates.n_candidates
    c1, c2, c3 = st.columns(3)
    with c1:
        widgets.bound(st.number_input, "Budget B (annotations)", "ann_budget", min_value=1, max_value=N, step=50,
                      convert=int)
    with c2:
        widgets.bound(st.text_input, "List sizes n that matter", "ann_plan_ns", max_chars=200,
                      help="Comma-separated, e.g. 100,500,1000: the plan's widths are predicted at these n.")
    with c3:
        widgets.bound(st.text_input, "TP rate of each band where nothing is annotated", "ann_band_guess",
                      max_chars=200, help="e.g. 0.4,0.25,0.2,0.05 (one number: every band). Empty: the TP rate "
                                          "assumed, below. With annotations so far, they are the pilot instead.")
    v = view()
    try:
        measures, widths = _measures_and_widths(v, candidates)
        ns = tuple(n for n in _numbers(v.ann_plan_ns, "list sizes", int) if 1 <= n <= N)
        if not ns:
            raise ParameterError(f"Give at least one list size n within 1..{N:,}.")
        guess = _numbers(v.ann_band_guess, "TP rates", float) or (v.ann_guess,)
        targets = tuple(dict.fromkeys([*measures, *(v.measures or candidates.measures[:3])]))
        targets = tuple(m for m in targets if m in candidates.measures)
        plan = _plan(v.data, labels_key(v), measures, targets, v.ties, v.seed if v.ties in SEEDED else None, widths,
                     min(v.ann_budget, N), ns, guess)
    except EvalcoreError as exc:
        st.error(markdown_text(exc))
        return
    st.text(plan.describe())
    design = plan.design(list(measures), ties=v.ties)
    st.dataframe(pd.DataFrame({"band": [design.band_label(h) for h in range(design.n_bands)],
                               "candidates": list(plan.counts), "TP rate assumed": list(plan.band_rates),
                               "sample size": list(plan.sizes)}),
                 hide_index=True, column_config={"TP rate assumed": st.column_config.NumberColumn(format="%.3f")})
    table = plan.table.assign(measure=plan.table["measure"].map(v.display.of))
    shown = table.rename(columns={"stratified_width": "expected width (this design)", "random_width":
                                  "expected width (random sample of B)", "ratio": "width / random",
                                  "ratio_high": "width / random, another pilot's rates", "may_be_wider":
                                  "may be wider"})[["measure", "n", "expected width (this design)",
                                                    "expected width (random sample of B)", "width / random",
                                                    "width / random, another pilot's rates", "wider",
                                                    "may be wider"]]
    st.caption(f"At each n that matters: the expected width of each chosen measure's precision interval (level 0.95) "
               f"from this design and from a random sample of {plan.budget:,} (today's design), from the TP rates "
               f"of the {plan.source}.")
    st.dataframe(shown.astype({"measure": str}), hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.3f") for c in shown.columns[2:6]})
    for line in plan.warnings():
        st.warning(markdown_text(line))
    st.button("Use this allocation", key="use_strata_plan", on_click=_use, args=(plan.sizes,))
