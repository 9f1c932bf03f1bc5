"""Work the dashboard does for browser sessions: bounded, shared, stopped when nobody waits for it, and the data
sets a session uses kept in the store while it lives.

- **Budget** (:func:`within_budget`): before an expensive cached call, its estimate (:mod:`evalcore.work`) is
  checked against the host's budget (``EVALCORE_WORK_BUDGET``); past it the page says what it would cost and
  offers what fits (buttons that set fewer resamples or a step between the tested n), and stops.
- **Jobs** (:func:`attend`, :meth:`Job.progress`): a computation is keyed by its cache key; every session whose
  run waits for it is in the job's set of waiting sessions (a second session asking for the same key waits on
  Streamlit's lock of the cached function, and shares the first one's computation). The computation's progress
  callback is a checkpoint: when the computing session's run is to end (its tab was closed: Streamlit asks the
  run to stop; or it reruns) the work stops, unless another live session still waits for it, in which case it
  goes on and the session's own stop is raised once the result is cached. A waiting session that left, or whose
  session the runtime no longer knows, does not count. Runs are counted, not sessions: a rerun starts a session's
  new run before its old run, told to stop, reaches its checkpoint, and the old run's leaving leaves the new one
  waiting.
- **Cached work** (:func:`cache`): every computation a page can start is a cached function that declares its
  work: on a miss, before it computes, its estimate is checked against the budget, and past it nothing is
  computed or cached. Inside a page's run (:func:`refusals_shown`, around ``page.run()`` in app.py) the refusal
  is shown as the budget's other refusals are, and the page stops; elsewhere (a callback, the sidebar's report)
  it is raised for the caller to say in its own words.
- **Cancel** (:func:`cancel`, :func:`cancelled`): a Cancel button shown beside a long computation's progress; its
  click reruns the page, which stops the work at its next checkpoint as any rerun does, and the page then says it
  was cancelled and offers to start it again, instead of starting it again at once.
- **Pins** (:func:`pin_dataset`): a stored data set open in a session is pinned in the store
  (:meth:`evalcore.io.store.DatasetStore.pin`), so six other uploads do not evict it. Streamlit has no
  session-end hook: the pin is a lease renewed on every run and every minute by a keeper thread while the
  runtime still knows the session, dropped by the keeper when the session is gone, and expiring by itself if
  the server process dies.

Nothing here computes a number; it only decides whether, for whom and for how long evalcore computes.
"""

from __future__ import annotations

import functools
import inspect
import re
import threading
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterator

import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.io.store import DatasetStore, validate_id
from evalcore.text import markdown_text as esc
from evalcore.work import WorkEstimate, WorkTooLargeError, check_work

PIN_RENEW_SECONDS = 60.0  # the keeper renews the pins of live sessions (and drops those of ended ones) this often
_HOLDER_CHARS = re.compile(r"[^A-Za-z0-9_-]")


class Cancelled(EvalcoreError):
    """Work stopped because no open session waits for it any more."""


# -------------------------------------------------------------------------------------------- sessions

def session_id() -> str | None:
    """The id of the session whose script run this thread is, or None outside a run."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else None


def _runtime_sessions():
    """The runtime's session manager, or None where there is no runtime (AppTest, bare scripts)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return None
    return getattr(Runtime.instance(), "_session_mgr", None)


def connected(sid: str) -> bool:
    """True while the session's browser tab is connected (always True without a runtime)."""
    manager = _runtime_sessions()
    return manager is None or manager.is_active_session(sid)


def known(sid: str) -> bool:
    """True while the runtime keeps the session: connected, or disconnected a moment ago and kept for a reconnect
    (always True without a runtime)."""
    manager = _runtime_sessions()
    return manager is None or manager.get_session_info(sid) is not None


def _yield_check() -> Callable[[], None] | None:
    """This run's stop/rerun check (raises Streamlit's StopException or RerunException), None outside a run."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_run_yield_check

    return get_run_yield_check()


def _run_ends() -> tuple[type[BaseException], ...]:
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

    return (RerunException, StopException)


# ------------------------------------------------------------------------------------------------ jobs

@dataclass
class Job:
    """One computation keyed by its cache key, and the sessions whose runs wait for it (``waiting``: session -> its
    runs that wait; a rerun starts a session's new run before its old run, told to stop, has left)."""

    key: Hashable
    waiting: Counter = field(default_factory=Counter)
    done: int = 0
    total: int = 0
    stopped: bool = False

    def others(self, sid: str | None) -> list[str | None]:
        """Sessions besides ``sid`` that still wait (and that the runtime still has connected; None, a caller
        outside any session such as a test, counts as waiting)."""
        with _LOCK:
            others = [s for s in self.waiting if s != sid]
        return [s for s in others if s is None or connected(s)]

    def anyone(self) -> bool:
        """True while some session (or a caller outside any session) still waits."""
        with _LOCK:
            waiting = list(self.waiting)
        return any(s is None or connected(s) for s in waiting)

    def progress(self, show: Callable[[int, int], None] | None = None) -> Callable[[int, int], None]:
        """The computation's progress callback: records progress, shows it in this session (``show``), and is the
        checkpoint where work that no open session waits for stops (see the module's docstring)."""
        sid = session_id()
        pending = _PENDING
        state = {"show": show, "left": False}

        def callback(done: int, total: int) -> None:
            self.done, self.total = done, total
            try:
                if state["show"] is not None:
                    state["show"](done, total)
                check = _yield_check()
                if check is not None:
                    check()
            except _run_ends() as exc:  # this session's run is to end: its tab was closed, or it reruns
                if not self.others(sid):
                    self.stopped = True
                    raise
                state["show"] = None  # go on for the others; this run ends once the result is cached
                if not state["left"]:  # (once: the check raises at every checkpoint after)
                    state["left"] = True
                    pending.value = exc
                    _leave(self, sid)
            if not self.anyone():
                self.stopped = True
                raise Cancelled("The computation was stopped: no open page waits for it any more.")

        return callback


_LOCK = threading.Lock()
_JOBS: dict[Hashable, Job] = {}
_PENDING = threading.local()  # a run's own stop or rerun, put off while it computes for other sessions


def _leave(job: Job, sid: str | None) -> None:
    """One run of the session ``sid`` no longer waits (another run of it may still)."""
    with _LOCK:
        if job.waiting[sid] > 1:
            job.waiting[sid] -= 1
        else:
            job.waiting.pop(sid, None)
        if not job.waiting and _JOBS.get(job.key) is job:
            del _JOBS[job.key]


@contextmanager
def attend(key: Hashable) -> Iterator[Job]:
    """Wait for the computation ``key`` in this session: around the cached call that computes it (or finds it
    computed, or waits for another session's computation of it). On leaving, the session no longer waits; a stop
    or rerun of this run that was put off while it computed for others is raised then."""
    sid = session_id()
    with _LOCK:
        job = _JOBS.setdefault(key, Job(key))
        job.waiting[sid] += 1
    _PENDING.value = None
    try:
        yield job
    finally:
        pending, _PENDING.value = getattr(_PENDING, "value", None), None
        if pending is None:  # (a run whose stop was put off left when the stop came: Job.progress)
            _leave(job, sid)
    if pending is not None:
        raise pending


CANCELLED = "jobs_cancelled"  # session state: the computation this session cancelled (its key's repr)


def cancel(key: Hashable) -> None:
    """A Cancel button's callback: the click's rerun stops the computation at its next checkpoint
    (:meth:`Job.progress`; what it stored stays stored), and :func:`cancelled` tells the page not to start it again."""
    st.session_state[CANCELLED] = repr(key)


def cancelled(key: Hashable) -> bool:
    """True when this session cancelled the computation ``key`` (and has not asked for it again, :func:`resume`)."""
    return st.session_state.get(CANCELLED) == repr(key)


def resume() -> None:
    st.session_state.pop(CANCELLED, None)


def waiting_sessions(key: Hashable) -> set:
    """The sessions waiting for ``key`` (for tests and diagnostics)."""
    with _LOCK:
        job = _JOBS.get(key)
        return set(job.waiting) if job else set()


# ---------------------------------------------------------------------------------------------- budget

def within_budget(estimate: WorkEstimate, key: str, names: dict[str, str] | None = None) -> None:
    """Go on if ``estimate`` is within the work budget; else say what it would cost, offer what fits (a button per
    offer: it sets the view's settings, ``names`` mapping an offer's setting to the view's, e.g. ``resamples`` to
    ``sys_resamples``) and stop the page."""
    try:
        check_work(estimate)
    except WorkTooLargeError as exc:
        refused(exc, key, names)


def refused(exc: WorkTooLargeError, key: str, names: dict[str, str] | None = None) -> None:
    """Show a refusal of the work budget (:func:`within_budget`): what it would cost, as an error, with a button per
    offer that fits; and stop the page."""
    from evalcore_app import common

    st.error(esc(exc))
    columns = st.columns(max(1, len(exc.offers)))
    for i, (column, offer) in enumerate(zip(columns, exc.offers)):
        column.button(f"Use {offer.text}", key=f"offer_{key}_{i}", on_click=common.update,
                      kwargs={(names or {}).get(k, k): value for k, value in offer.changes.items()},
                      help=f"About {offer.seconds:.0f} seconds of computing")
    common.stop()


# ------------------------------------------------------------------------------------------ cached work

@dataclass(frozen=True, eq=False)
class Checked:
    """One estimate a cached function checked on a miss (seen by :func:`watch`): the function's name, the cached
    function itself and the arguments it was called with, the estimate, and whether it then ``"computed"`` or
    was ``"refused"``."""

    name: str
    function: Callable
    args: tuple
    kwargs: dict
    estimate: WorkEstimate
    outcome: str


#: Every function made by :func:`cache`, by name (``module.qualname``): the inventory of a page's computations.
CACHED: dict[str, Callable] = {}
_WATCHERS: list[list] = []
_STATE = threading.local()  # depth: cached computations running in this thread; shown: refusals shown here


@contextmanager
def watch() -> Iterator[list[Checked]]:
    """Within the ``with`` block, every estimate checked by a function of :func:`cache` (in any thread) is appended
    to the list this yields, with what followed: for the tests' inventory and for diagnostics."""
    seen: list[Checked] = []
    _WATCHERS.append(seen)
    try:
        yield seen
    finally:
        _WATCHERS.remove(seen)


@contextmanager
def _refusals(shown: bool) -> Iterator[None]:
    before = getattr(_STATE, "shown", False)
    _STATE.shown = shown
    try:
        yield
    finally:
        _STATE.shown = before


def refusals_shown():
    """Within the block (a page's run), a refusal of a cached function called by the page itself is shown
    (:func:`refused`) and stops the page; outside it, and within :func:`refusals_raised`, it is raised."""
    return _refusals(True)


def refusals_raised():
    """Within the block, a refusal is raised (a :class:`evalcore.work.WorkTooLargeError`), for a caller that says
    it in its own words (the sidebar's signature) instead of stopping the page."""
    return _refusals(False)


def _tell(checked: Checked) -> None:
    for seen in list(_WATCHERS):
        seen.append(checked)


def cache(*, work: Callable[..., WorkEstimate], **options) -> Callable[[Callable], Callable]:
    """``st.cache_resource`` (``options``) keyed on the arguments by name, whose work is bounded.

    A call's key is the same whatever the order (or the positional or keyword form) of its arguments, and
    defaults are part of it; a leading ``_`` leaves an argument out of the key. On a miss, before the function
    computes, ``work`` (called with the same arguments) estimates its cost (:mod:`evalcore.work`; most estimates
    are in :mod:`evalcore_app.costs`), checked against the server's budget: past it a
    :class:`evalcore.work.WorkTooLargeError`, and nothing is computed or cached. A page's own call shows the
    refusal and stops the page (:func:`refusals_shown`); a call made while another cached function computes
    raises it to that one.
    """
    if not callable(work):
        raise TypeError("cache(work=...) needs the function that estimates the work (see evalcore_app/costs.py)")

    def wrap(fn: Callable) -> Callable:
        name = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)  # (Streamlit keys the cache by the function's name and source: fn's)
        def computed(*args, **kwargs):
            _STATE.depth = getattr(_STATE, "depth", 0) + 1
            try:
                estimate = work(*args, **kwargs)
                try:
                    check_work(estimate)
                except WorkTooLargeError:
                    _tell(Checked(name, call, args, kwargs, estimate, "refused"))
                    raise
                _tell(Checked(name, call, args, kwargs, estimate, "computed"))
                return fn(*args, **kwargs)
            finally:
                _STATE.depth -= 1

        inner = st.cache_resource(**options)(computed)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            try:
                return inner(*bound.args, **bound.kwargs)
            except WorkTooLargeError as exc:
                if getattr(_STATE, "shown", False) and not getattr(_STATE, "depth", 0):
                    refused(exc, fn.__name__.strip("_"))
                raise

        call.clear = inner.clear
        call.work = work
        CACHED[name] = call
        return call
    return wrap


# ------------------------------------------------------------------------------------------------ pins

_PINS: dict[str, str] = {}  # session id -> the stored data set pinned for it
_KEEPER: list[threading.Thread] = []


def holder() -> str | None:
    """The current session as a pin's holder (a plain file name), or None outside a run."""
    sid = session_id()
    return _HOLDER_CHARS.sub("_", sid)[:80] if sid else None


def pin_dataset(dataset: str | None) -> None:
    """Keep the stored data set ``dataset`` (an id; samples and None are ignored) in the store while this session
    uses it: pinned now, renewed by the keeper while the session lives, unpinned when it ends or opens another."""
    sid = session_id()
    if sid is None:
        return
    try:
        dataset = validate_id(dataset)
    except EvalcoreError:
        dataset = None
    with _LOCK:
        previous = _PINS.pop(sid, None)
        if dataset is not None:
            _PINS[sid] = dataset
    name = holder()
    store = DatasetStore()
    if previous is not None and previous != dataset:
        store.unpin(previous, name)
    if dataset is not None:
        store.pin(dataset, name)
        _ensure_keeper()


def keep_pins() -> None:
    """One round of the keeper: renew the pins of the sessions the runtime still has, drop the others'."""
    with _LOCK:
        pins = list(_PINS.items())
    store = DatasetStore()
    for sid, dataset in pins:
        name = _HOLDER_CHARS.sub("_", sid)[:80]
        if known(sid):
            store.pin(dataset, name)
        else:
            store.unpin(dataset, name)
            with _LOCK:
                if _PINS.get(sid) == dataset:
                    del _PINS[sid]


def _ensure_keeper() -> None:
    with _LOCK:
        if _KEEPER and _KEEPER[0].is_alive():
            return
        thread = threading.Thread(target=_keeper, name="evalcore-pin-keeper", daemon=True)
        _KEEPER[:] = [thread]
    thread.start()


def _keeper() -> None:
    while True:
        time.sleep(PIN_RENEW_SECONDS)
        try:
            keep_pins()
        except Exception:  # noqa: BLE001 - the keeper must outlive a full disk or a vanished store
            pass
