"""The Threshold page's controls: the measure (switching keeps the acceptance size), γ as a slider and as a typed
number bound to the one setting ``gamma``, and the histogram's log axes."""

from __future__ import annotations

import streamlit as st

from evalcore import analysis
from evalcore.work import WorkTooLargeError
from evalcore import format as fmt
from evalcore.figures.paper import log_score_axis_applicable
from evalcore_app import cached, widgets
from evalcore_app.common import forgotten, update, view

MEASURE_KEY = "w_threshold_measure"
GAMMA_KEYS = ("w_gamma", "w_gamma_typed")  # the slider and the number input, both showing the view's gamma


def measure_select(data, measures) -> str:
    """The measure; switching from one measure to another at a γ keeps the acceptance size
    (:func:`evalcore.analysis.gamma_keeping_size`), not the number γ, which means something else on another scale."""
    widgets.refill(MEASURE_KEY, view().threshold_measure)

    def changed() -> None:
        old, new = view(), st.session_state[MEASURE_KEY]
        changes = {"threshold_measure": new}
        if old.gamma is not None and old.threshold_measure is not None and new != old.threshold_measure:
            try:
                before = cached.ranking_of(data, old.threshold_measure, old.ranking)
                after = cached.ranking_of(data, new, old.ranking)
            except WorkTooLargeError:  # (γ left as it is: the page's run ranks the measure and says so)
                pass
            else:
                changes["gamma"] = analysis.gamma_keeping_size(before, old.gamma, after)
        update(**changes)

    st.selectbox("Measure", options=measures, key=MEASURE_KEY, on_change=changed, format_func=widgets.shown,
                 help="Measures ordered by average precision (best first). Switching measure keeps the number of "
                      "candidates accepted.")
    return view().threshold_measure


def gamma_controls(positions) -> float:
    """γ as a slider over the score quantiles and as a number typed exactly (1.65, 2.09, 32.5), both bound to the
    view's ``gamma``: a typed γ is kept as typed (and in the link) and shown on the slider among the quantiles."""
    gamma = float(view().gamma)
    options = sorted({float(p) for p in positions} | {gamma})
    for key in GAMMA_KEYS:
        widgets.refill(key, gamma)

    def changed(key: str) -> None:
        if forgotten(key):
            return
        update(gamma=float(st.session_state[key]))

    c1, c2 = st.columns([3, 1])
    with c1:
        st.select_slider("gamma (positions are score quantiles)", options=options, key=GAMMA_KEYS[0],
                         on_change=changed, args=(GAMMA_KEYS[0],), format_func=fmt.score)
    with c2:
        st.number_input("or type gamma exactly", key=GAMMA_KEYS[1], on_change=changed, args=(GAMMA_KEYS[1],),
                        step=None, format="%g")
    return float(view().gamma)


def axis_toggles(scores) -> tuple[bool, bool]:
    """The histogram's log count axis, and its log score axis: on by default where the scores are heavy-tailed
    (:func:`evalcore.figures.paper.log_score_axis_applicable`), as the user set it once set (the view's
    ``log_score``: None until then); returns (log count, log score)."""
    c1, c2 = st.columns(2)
    with c1:
        log_count = widgets.bound(st.toggle, "Log count axis", "log_count")
    chosen = view().log_score
    key = "w_log_score"
    wanted = log_score_axis_applicable(scores) if chosen is None else bool(chosen)
    widgets.refill(key, wanted)
    with c2:
        log_score = st.toggle("Log score axis", key=key, **widgets.declared(st.toggle, wanted, {}),
                              on_change=lambda: forgotten(key) or update(log_score=bool(st.session_state[key])),
                              help="On by default where more than half of the scores fall into one bin of the linear "
                                   "axis. Signed scores get sign(x)·log10(1 + |x|/c).")
    return bool(log_count), bool(log_score)
