"""Work run where it can be ended at any moment: a child process, whatever the work inside it.

A Python thread cannot be stopped from outside while it is inside one long call (sacrebleu's TER of one segment of
800 words runs for a minute in one call, without a checkpoint). :func:`run_stoppable` runs ``function(*args)`` in a
child process instead, and while it runs the parent calls ``progress(done, total)`` every ``poll`` seconds: the
checkpoint where the caller stops the work (a dashboard session whose tab closed: :meth:`evalcore_app.jobs.Job.progress`
raises), and the child is then ended at once (SIGTERM, then SIGKILL), within ``poll`` seconds plus the time it
takes the system to end a process, wherever the child is. The child's own CPU time is watched too: past
``cpu_limit`` seconds (the work budget, where the estimate was wrong) it is ended and :class:`CPULimitError`
raised.

The function is generic: anything picklable by reference (a module-level function) with picklable arguments and
result; the child reports how far it got with :func:`report` (a no-op outside a child). The children are forked
from a fork server (``multiprocessing``'s ``forkserver``), a clean single-threaded process that has imported the
modules named in ``preload`` once, so a child neither copies the threads of a busy server (Streamlit's, pyarrow's
pools) nor imports numpy again.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import pickle
import signal
import sys
from typing import Any, Callable, Sequence

from ..errors import EvalcoreError

__all__ = ["run_stoppable", "report", "CPULimitError", "ChildFailed", "children_started"]

_DONE = None  # in a child: the shared counter report() writes
_STARTED = [0]  # children started by this process (for tests: work that never started spawned none)
_PRELOADED: set[str] = set()


class CPULimitError(EvalcoreError):
    """The child used more CPU time than it was allowed (``cpu_limit``) and was ended."""


class ChildFailed(EvalcoreError):
    """The child process ended without a result (killed from outside, out of memory)."""


def children_started() -> int:
    """How many children :func:`run_stoppable` has started in this process."""
    return _STARTED[0]


def report(done: int) -> None:
    """In a child of :func:`run_stoppable`: how much of the work is done (in the caller's units); elsewhere nothing."""
    if _DONE is not None:
        _DONE.value = int(done)


def _child(connection, done, function, args, kwargs) -> None:
    global _DONE
    _DONE = done
    try:
        result = ("ok", function(*args, **kwargs))
        payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent as a value
        try:
            payload = pickle.dumps(("error", exc), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(payload)  # (an exception whose constructor takes other arguments does not come back)
        except Exception:  # noqa: BLE001
            payload = pickle.dumps(("error", EvalcoreError(str(exc))), protocol=pickle.HIGHEST_PROTOCOL)
    connection.send_bytes(payload)
    connection.close()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc; 0 where it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _context(preload: Sequence[str]):
    if sys.platform == "win32":  # pragma: no cover - no fork server there
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    wanted = set(preload) - _PRELOADED
    if wanted:  # (takes effect when the fork server starts: the first child of this process)
        _PRELOADED.update(wanted)
        context.set_forkserver_preload(sorted(_PRELOADED))
    return context


def _end(process) -> None:
    if process.is_alive():
        process.terminate()
        process.join(2.0)
    if process.is_alive():
        os.kill(process.pid, signal.SIGKILL)
    process.join()


def run_stoppable(function: Callable[..., Any], *args, progress: Callable[[int, int], None] | None = None,
                  total: int = 0, cpu_limit: float = math.inf, poll: float = 0.25,
                  preload: Sequence[str] = ("numpy",), **kwargs) -> Any:
    """``function(*args, **kwargs)`` in a child process that can be ended at any moment (see the module's docstring).

    Parameters
    ----------
    function : callable
        A module-level function (pickled by reference), run in the child; it may call :func:`report`.
    progress : callable, optional
        ``progress(done, total)``, called in this process every ``poll`` seconds while the child runs (``done``: the
        child's last :func:`report`). Whatever it raises ends the child and is raised here.
    total : int
        Passed to ``progress`` as the whole of the work.
    cpu_limit : float
        CPU seconds the child may use; past them it is ended and :class:`CPULimitError` raised.
    preload : sequence of str
        Modules the fork server imports once, so that its children start with them.

    Returns
    -------
    The function's result. An exception raised in the child is raised here (as an :class:`EvalcoreError` with
    its text where it cannot be pickled).
    """
    context = _context(preload)
    done = context.Value("q", 0, lock=False)
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, done, function, args, kwargs), daemon=True,
                              name="evalcore-stoppable")
    process.start()
    _STARTED[0] += 1
    sender.close()
    try:
        while not receiver.poll(poll):
            if not process.is_alive() and not receiver.poll(0):
                raise ChildFailed(f"the computation's process ended without a result (exit code {process.exitcode})")
            if math.isfinite(cpu_limit) and _cpu_seconds(process.pid) > cpu_limit:
                raise CPULimitError(f"the computation was stopped after {cpu_limit:,.0f} seconds of computing, the "
                                    "work budget")
            if progress is not None:
                progress(int(done.value), total)
        try:
            status, value = pickle.loads(receiver.recv_bytes())
        except EOFError:
            raise ChildFailed("the computation's process ended without a result") from None
    finally:
        receiver.close()
        _end(process)
    if status == "error":
        raise value
    if progress is not None:
        progress(total, total)
    return value
