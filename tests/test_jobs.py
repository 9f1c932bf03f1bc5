"""evalcore_app/jobs.py without a browser: a computation shared by the sessions that wait for it and stopped when none does
(sessions simulated by threads, Streamlit's stop request by the run's yield check), and the pins of the data set a
session uses (renewed while the session lives, dropped when it ends)."""

from __future__ import annotations

import threading
import time

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from evalcore.io.store import DatasetStore
from evalcore_app import jobs


class Sessions:
    """Simulated sessions: each thread is the run of the session named in its thread-local; ``close(sid)`` is a
    closed tab (Streamlit then asks the run to stop: its yield check raises, and the runtime drops the session)."""

    def __init__(self, monkeypatch):
        self.local = threading.local()
        self.closed: set[str] = set()
        monkeypatch.setattr(jobs, "session_id", lambda: getattr(self.local, "sid", None))
        monkeypatch.setattr(jobs, "_yield_check", self.check)
        monkeypatch.setattr(jobs, "connected", lambda sid: sid not in self.closed)
        monkeypatch.setattr(jobs, "known", lambda sid: sid not in self.closed)

    def check(self):
        sid = getattr(self.local, "sid", None)
        if sid is None:
            return None

        def raise_if_closed():
            if sid in self.closed:
                raise StopException()
        return raise_if_closed

    def close(self, sid: str) -> None:
        self.closed.add(sid)


@pytest.fixture()
def sessions(monkeypatch):
    return Sessions(monkeypatch)


def computation(job: jobs.Job, steps: int, counter: list, pause: float = 0.01):
    """Work with a progress callback, like the resampling tests: it counts what it did."""
    progress = job.progress()
    for done in range(1, steps + 1):
        time.sleep(pause)
        counter[0] += 1
        progress(done, steps)
    return "result"


def test_a_closed_tab_stops_the_work_at_the_next_checkpoint(sessions):
    counter, outcome = [0], []

    def session_a():
        sessions.local.sid = "a"
        try:
            with jobs.attend("key") as job:
                computation(job, 1_000, counter)
        except StopException:
            outcome.append("stopped")

    thread = threading.Thread(target=session_a)
    thread.start()
    while counter[0] < 5:
        time.sleep(0.005)
    sessions.close("a")
    thread.join(5)
    assert outcome == ["stopped"] and counter[0] < 50
    assert jobs.waiting_sessions("key") == set()  # nobody waits: the job is gone


def test_work_another_session_waits_for_goes_on_and_the_stop_comes_after(sessions):
    """Session a computes, b waits for the same key (on Streamlit's lock of the cached function); a's tab closes:
    the work goes on for b, and a's run ends (its StopException) only once the result is there."""
    counter, outcome = [0], {}
    b_waits = threading.Event()
    release_b = threading.Event()

    def session_a():
        sessions.local.sid = "a"
        try:
            with jobs.attend("key") as job:
                outcome["a result"] = computation(job, 100, counter)
        except StopException:
            outcome["a"] = "stopped after the result"

    def session_b():
        sessions.local.sid = "b"
        with jobs.attend("key"):
            b_waits.set()
            release_b.wait(10)  # (waiting on the cache's lock)
        outcome["b"] = "done"

    b = threading.Thread(target=session_b)
    b.start()
    b_waits.wait(5)
    a = threading.Thread(target=session_a)
    a.start()
    while counter[0] < 5:
        time.sleep(0.005)
    sessions.close("a")
    a.join(10)
    assert counter[0] == 100 and outcome["a result"] == "result" and outcome["a"] == "stopped after the result"
    assert jobs.waiting_sessions("key") == {"b"}
    release_b.set()
    b.join(5)
    assert outcome["b"] == "done" and jobs.waiting_sessions("key") == set()


def test_when_the_waiting_session_leaves_too_the_work_stops(sessions):
    counter, outcome = [0], {}
    b_waits, b_leaves = threading.Event(), threading.Event()

    def session_a():
        sessions.local.sid = "a"
        try:
            with jobs.attend("key") as job:
                computation(job, 2_000, counter)
        except (StopException, jobs.Cancelled) as exc:
            outcome["a"] = type(exc).__name__

    def session_b():
        sessions.local.sid = "b"
        with jobs.attend("key"):
            b_waits.set()
            b_leaves.wait(10)

    b = threading.Thread(target=session_b)
    b.start()
    b_waits.wait(5)
    a = threading.Thread(target=session_a)
    a.start()
    while counter[0] < 5:
        time.sleep(0.005)
    sessions.close("a")  # a goes on for b ...
    time.sleep(0.1)
    assert a.is_alive()
    sessions.close("b")  # ... until b's tab closes as well
    a.join(5)
    b_leaves.set()
    b.join(5)
    assert outcome["a"] in ("StopException", "Cancelled") and counter[0] < 1_000


def test_the_stopped_run_of_a_session_does_not_stop_the_work_of_its_next_run(sessions, monkeypatch):
    """Cancel, then at once "Test every n of the range" again (pages/significance.py): Streamlit starts the session's
    new run while the old one, told to stop, finishes the part it computes. The old run stops at its checkpoint; the
    new run's work goes on. (The job counted sessions, not runs: the old run's leaving took the new run's place, and
    the new run stopped with "no open page waits for it" after one part.)"""
    stopped = set()  # runs (threads) Streamlit told to stop; the session stays open

    def check():
        run = threading.current_thread().name

        def raise_if_stopped():
            if run in stopped:
                raise StopException()
        return raise_if_stopped

    monkeypatch.setattr(jobs, "_yield_check", check)
    counters, outcome = {"old": [0], "new": [0]}, {}
    new_runs = threading.Event()

    def run(name, steps):
        sessions.local.sid = "s"
        try:
            with jobs.attend("key") as job:
                if name == "new":
                    new_runs.set()
                outcome[name] = computation(job, steps, counters[name])
        except (StopException, jobs.Cancelled) as exc:
            outcome[name] = type(exc).__name__

    old = threading.Thread(target=run, args=("old", 2_000), name="old")
    old.start()
    while counters["old"][0] < 5:
        time.sleep(0.005)
    new = threading.Thread(target=run, args=("new", 100), name="new")
    new.start()
    new_runs.wait(5)
    stopped.add("old")  # (the click's rerun: the old run is told to stop)
    old.join(10)
    new.join(10)
    assert outcome == {"old": "StopException", "new": "result"} and counters["new"][0] == 100
    assert counters["old"][0] < 2_000 and jobs.waiting_sessions("key") == set()


def test_work_outside_a_session_is_never_stopped(sessions):
    counter = [0]
    with jobs.attend("key") as job:
        assert computation(job, 20, counter, pause=0) == "result"
    assert counter[0] == 20


# -- pins ----------------------------------------------------------------------------------------------------------


def test_a_session_pins_its_data_set_and_the_keeper_drops_it_when_the_session_ends(sessions, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path))
    monkeypatch.setattr(jobs, "_ensure_keeper", lambda: None)  # rounds run by hand below
    store = DatasetStore()
    first, second = store.put(b"label,s\nTP,1\n", "a.csv"), store.put(b"label,s\nFP,2\n", "b.csv")
    sessions.local.sid = "session-1"
    jobs.pin_dataset(first)
    assert store.pinned() == {first}
    jobs.pin_dataset("sample:collocations_sim")  # another data set: the stored one is no longer used
    assert store.pinned() == set()
    jobs.pin_dataset(second)
    jobs.keep_pins()
    assert store.pinned() == {second}
    sessions.close("session-1")
    jobs.keep_pins()
    assert store.pinned() == set() and "session-1" not in jobs._PINS


def test_the_systems_comparison_and_curves_stop_when_their_tab_closes(sessions):
    """The Systems page's work (issue 20) has the same checkpoints: after the bootstrap and the randomization of
    the comparison, after every test-set size of the curves. A tab closed at a checkpoint stops the rest."""
    import numpy as np

    from evalcore.systems.compare import ResamplingSettings, compare_systems
    from evalcore.systems.inputs import ItemTable
    from evalcore.systems.sizes import set_sizes, size_curves
    from evalcore.systems.statistics import table_statistics

    correct = np.random.default_rng(0).binomial(5, 0.6, size=(300, 2)).astype(float)
    stats = table_statistics(ItemTable("accuracy", tuple(map(str, range(300))), ("a", "b"),
                                       np.stack([correct, np.full_like(correct, 5.0)], axis=1)))
    settings = ResamplingSettings(200, 1)

    def run(sid: str, work, close_at: int):
        done, outcome = [], []

        def session():
            sessions.local.sid = sid
            try:
                with jobs.attend(sid) as job:
                    progress = job.progress()

                    def checkpoint(d, total):
                        done.append((d, total))
                        if d == close_at:
                            sessions.close(sid)  # the tab is closed while the work runs
                        progress(d, total)
                    work(checkpoint)
            except StopException:
                outcome.append("stopped")

        thread = threading.Thread(target=session)
        thread.start()
        thread.join(60)
        return done, outcome

    done, outcome = run("c", lambda p: compare_systems(stats, settings, progress=p), close_at=1)
    assert outcome == ["stopped"] and done == [(1, 2)]  # the randomization never ran
    sizes = len(set_sizes(300))
    done, outcome = run("s", lambda p: size_curves(stats, settings, progress=p), close_at=2)
    assert outcome == ["stopped"] and done == [(1, sizes), (2, sizes)] and sizes > 2
    assert len(size_curves(stats, settings, progress=lambda d, t: None)) == sizes  # (one pair)
