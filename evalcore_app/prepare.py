"""The Precision page's numbers and figure, prepared while the Data page waits for the user (issue 34).

A switch to Precision right after an upload ran the page's first run on the new data: its curves (Clopper-Pearson
at every n of the range), its figure and the figure's JSON, 0.3 to 0.6 s of the switch on a loaded machine. Once the
Data page has shown a data set's summary, :func:`start` computes what Precision opens on for the same view (the same
cached calls the page makes, :func:`precision_figure`), in a thread of its own, after the Data page's run has
ended: the page finds them in the cache.

The work is bounded as any other: one preparation per session at a time (a newer one replaces it), started after
the session's run has finished, each step only if its estimate (:mod:`evalcore_app.costs`) is within
:data:`PREPARE_SECONDS` and the work budget (checked again by the cached call itself), and stopped at the next step
once the session has ended or prepares something else. It computes nothing a page would not compute itself, with
the same arguments, into the same caches: what a page shows does not depend on whether it was prepared.
"""

from __future__ import annotations

import threading

from evalcore.figures import paper as figures
from evalcore.work import check_work
from evalcore.work.budget import work_budget
from evalcore_app import cached, figcache, jobs
from evalcore_app.components import plot

#: A step is prepared in the background only if its estimate is at most this many seconds (and within the budget).
PREPARE_SECONDS = 5.0
#: How long a preparation waits for the run that started it to end before it gives up.
RUN_END_SECONDS = 600.0

_LOCK = threading.Lock()
_LATEST: dict[str | None, object] = {}  # session -> the token of its newest preparation


def precision_figure(data: cached.Loaded, v, measures: tuple, n_range: tuple[int, int]):
    """Precision's table (:func:`evalcore_app.cached.curves`) and its figure, built once per cached table
    (:func:`evalcore_app.figcache.memo`): what the page shows and what :func:`start` prepares."""
    table = cached.curves(data, v.ranking, v.display, measures, n_range, v.level, v.interval, v.beta)
    baseline = data.candidates.baseline
    fig = figcache.memo(table, lambda: figures.precision_figure(table, baseline=baseline, show_recall=v.show_recall,
                                                                show_f=v.show_f, beta=v.beta, n_range=n_range),
                        "precision", baseline, v.show_recall, v.show_f, v.beta, *n_range)
    return table, fig


def precision_defaults(data: cached.Loaded, v) -> tuple[tuple, tuple[int, int]]:
    """The measures and the range of n the Precision page opens on for the view ``v``
    (:func:`evalcore_app.widgets.measures_select`'s and :func:`evalcore_app.widgets.n_range_slider`'s)."""
    measures = tuple(v.selection.effective_measures(cached.quality(data, v.ranking)))
    return measures, v.selection.n_range(data.candidates.n_candidates)


def _within(estimate) -> bool:
    if estimate.seconds > PREPARE_SECONDS:
        return False
    try:
        check_work(estimate, work_budget())
    except Exception:  # noqa: BLE001 - past the budget (or no budget to read): not prepared, the page says why
        return False
    return True


def _prepare(sid: str | None, token: object, run: threading.Thread, data: cached.Loaded, v) -> None:
    def wanted() -> bool:
        with _LOCK:
            newest = _LATEST.get(sid) is token
        return newest and (sid is None or jobs.known(sid))

    run.join(RUN_END_SECONDS)  # (the run that started it: its last messages first)
    try:
        if not wanted():
            return
        measures, n_range = precision_defaults(data, v)
        if not measures or not wanted():
            return
        estimate = cached.curves.work(data, v.ranking, v.display, measures, n_range, v.level, v.interval, v.beta)
        if not _within(estimate):
            return
        _, fig = precision_figure(data, v, measures, n_range)
        if wanted():
            plot.spec_of(fig)  # the figure's JSON, as the page sends it
    except Exception:  # noqa: BLE001 - a preparation that fails leaves the page to compute (and say) it
        pass
    finally:
        with _LOCK:
            if _LATEST.get(sid) is token:
                del _LATEST[sid]


def start(data: cached.Loaded, v) -> threading.Thread | None:
    """Prepare what the Precision page opens on for the view ``v`` of ``data`` (see the module's docstring), once
    this session's run has ended. Returns the thread (for tests), or None where nothing is to be prepared (a
    partly annotated set, whose Precision page estimates from the sample; a set of fewer than two candidates; a
    script run without Streamlit's server, such as AppTest's, whose run has no end to wait for)."""
    if data.candidates.n_candidates < 2 or data.candidates.annotated is not None or jobs._runtime_sessions() is None:
        return None
    sid = jobs.session_id()
    token = object()
    with _LOCK:
        _LATEST[sid] = token
    thread = threading.Thread(target=_prepare, args=(sid, token, threading.current_thread(), data, v), daemon=True,
                              name="evalcore-prepare")
    thread.start()
    return thread
