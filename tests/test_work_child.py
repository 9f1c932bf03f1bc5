"""Issue 29: scoring runs where it can be ended at any moment, even inside one long segment (sacrebleu's TER of one
pair runs in one call, with no checkpoint): a child process (evalcore.work.child), ended when no session waits
for it (evalcore_app.jobs), going on while another session waits, and ended past its CPU budget. What is checked is what
happened (the child process is gone, the work's result or its refusal), not how long it took."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from evalcore.systems.inputs import check_text_input
from evalcore.systems.metrics import TextOptions
from evalcore.systems.statistics import text_jobs, text_statistics
from evalcore.systems.synthetic import synthetic_test_set
from evalcore.work import child
from evalcore_app import jobs

import child_work


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as f:  # a zombie not yet reaped counts as gone
        return f.read().rsplit(")", 1)[1].split()[0] == "Z"


def _pid(path) -> int:
    return int(path.read_text()) if path.exists() and path.read_text() else 0


class Stop(Exception):
    pass


def test_a_stop_at_a_checkpoint_ends_the_child_inside_its_one_long_call(tmp_path):
    pid_file = tmp_path / "pid"
    calls = []

    def progress(done, total):
        calls.append(done)
        if _pid(pid_file):
            raise Stop  # (the session's tab closed)

    with pytest.raises(Stop):
        child.run_stoppable(child_work.forever, str(pid_file), progress=progress, poll=0.05)
    assert _gone(_pid(pid_file)) and calls


def test_past_its_cpu_budget_the_child_is_ended(tmp_path):
    pid_file = tmp_path / "pid"
    with pytest.raises(child.CPULimitError, match="stopped after"):
        child.run_stoppable(child_work.forever, str(pid_file), cpu_limit=2.0, poll=0.05)  # (well after its pid file,
        # however slowly a loaded machine starts the child)
    pid = _pid(pid_file)  # (under heavy load the file was once found empty: its writer was ended first)
    assert pid == 0 or _gone(pid)


def test_the_child_gives_the_same_statistics_and_its_errors():
    data = synthetic_test_set(60, 3, seed=4)
    text = check_text_input([("refs", list(data.references))], [(n, list(v)) for n, v in data.systems.items()], "ter")
    seen = []
    result = child.run_stoppable(text_statistics, text, "ter", TextOptions(), workers=1, total=text_jobs(text),
                                 progress=lambda done, total: seen.append((done, total)))
    direct = text_statistics(text, "ter", TextOptions(), workers=1)
    np.testing.assert_array_equal(result.values, direct.values)
    assert seen[-1] == (text_jobs(text), text_jobs(text)) < (180, 180)  # each distinct output scored once
    from evalcore.errors import ParameterError

    with pytest.raises(ParameterError, match="metric"):
        child.run_stoppable(text_statistics, text, "bogus", TextOptions())


class Sessions:
    """Simulated sessions (as tests/test_jobs.py): each thread is one session's run; ``close`` a closed tab."""

    def __init__(self, monkeypatch):
        self.local = threading.local()
        self.closed: set[str] = set()
        monkeypatch.setattr(jobs, "session_id", lambda: getattr(self.local, "sid", None))
        monkeypatch.setattr(jobs, "_yield_check", self.check)
        monkeypatch.setattr(jobs, "connected", lambda sid: sid not in self.closed)

    def check(self):
        sid = getattr(self.local, "sid", None)

        def raise_if_closed():
            if sid in self.closed:
                raise StopException()
        return raise_if_closed if sid else None


def _long_segment() -> tuple[str, str]:
    """One pair of 800 words (sacrebleu's TER takes tens of seconds on it, in one call)."""
    data = synthetic_test_set(400, 2, seed=9)
    words = " ".join(data.references).split()
    return " ".join(words[:800]), " ".join(words[800:1600])


def test_a_closed_tab_ends_the_scoring_of_one_long_segment(monkeypatch, tmp_path):
    sessions = Sessions(monkeypatch)
    pid_file = tmp_path / "pid"
    outcome = []

    def session_a():
        sessions.local.sid = "a"
        try:
            with jobs.attend(("scoring", "long")) as job:
                progress = job.progress()

                def checkpoint(done, total):
                    if _pid(pid_file):
                        sessions.closed.add("a")  # the tab closes while the child is inside TER
                    progress(done, total)
                child.run_stoppable(child_work.score_long, str(pid_file), *_long_segment(), progress=checkpoint,
                                    poll=0.05,
                                    preload=("numpy", "sacrebleu"))
        except StopException:
            outcome.append("stopped")

    thread = threading.Thread(target=session_a)
    thread.start()
    thread.join(120)
    assert outcome == ["stopped"] and _gone(_pid(pid_file))
    assert jobs.waiting_sessions(("scoring", "long")) == set()


def test_scoring_goes_on_while_another_session_waits_and_both_get_it(monkeypatch, tmp_path):
    """a computes, b waits for the same statistics; a's tab closes: the child goes on for b (its result is cached
    for b by the page's st.cache_resource), and a's run ends after it."""
    sessions = Sessions(monkeypatch)
    data = synthetic_test_set(30, 2, seed=6)
    text = check_text_input([("refs", list(data.references))], [(n, list(v)) for n, v in data.systems.items()], "ter")
    b_waits, release_b = threading.Event(), threading.Event()
    outcome = {}
    started = child.children_started()

    def session_a():
        sessions.local.sid = "a"
        try:
            with jobs.attend(("scoring", "shared")) as job:
                progress = job.progress()

                def checkpoint(done, total):
                    sessions.closed.add("a")
                    progress(done, total)
                outcome["result"] = child.run_stoppable(text_statistics, text, "ter", TextOptions(), workers=1,
                                                        progress=checkpoint, total=text_jobs(text), poll=0.01)
        except StopException:
            outcome["a"] = "stopped after the result"

    def session_b():
        sessions.local.sid = "b"
        with jobs.attend(("scoring", "shared")):
            b_waits.set()
            release_b.wait(600)  # (until a is done: however long a loaded machine takes)

    b = threading.Thread(target=session_b)
    b.start()
    b_waits.wait(60)
    a = threading.Thread(target=session_a)
    a.start()
    a.join(600)
    release_b.set()
    b.join(10)
    assert outcome["a"] == "stopped after the result" and outcome["result"].n_items == 30
    assert child.children_started() == started + 1  # one scoring for both
