"""The host's work budget: how many estimated CPU seconds one request may start, and the refusal past it.

Where it applies:

- **On the server**, always: ``$EVALCORE_WORK_BUDGET`` (seconds: ``60``, ``90s``, ``5min``, ``1h``, or
  ``unlimited``), 60 seconds when it is not set (:func:`work_budget`).
- **On the command line**, only where it is asked for: ``--work-budget`` for one run, else
  ``$EVALCORE_WORK_BUDGET`` if it is set; otherwise a command on a user's own machine runs what it is asked
  (:func:`command_budget`). ``reproduce`` always has a budget (60 seconds unless set), since a signature may come
  from anyone.

A computation whose estimate (:mod:`evalcore.work.cost`, :mod:`evalcore.work.scoring`) is over the budget is
refused before it starts, with a message that says what it would cost and offers what fits (fewer resamples, a
step between the tested n). Every estimate checked is shown to the observers of :func:`observe` (the tests'
inventory of what each command and page estimates).
"""

from __future__ import annotations

import math
import os
import re
from contextlib import contextmanager
from typing import Iterator

from ..errors import EvalcoreError, ParameterError
from .cost import Offer, WorkEstimate

__all__ = ["BUDGET_ENV_VAR", "DEFAULT_BUDGET", "ON_THE_COMMAND_LINE", "ON_THE_SERVER", "WorkTooLargeError",
           "check_work", "command_budget", "duration_text", "observe", "parse_budget", "work_budget"]

BUDGET_ENV_VAR = "EVALCORE_WORK_BUDGET"
DEFAULT_BUDGET = 60.0  # seconds
_UNITS = {"": 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)\s*")


class WorkTooLargeError(EvalcoreError):
    """A computation's estimate is over the work budget; ``offers`` are changes that fit (:class:`Offer`)."""

    def __init__(self, message: str, estimate: WorkEstimate, budget: float, offers: list[Offer]) -> None:
        super().__init__(message)
        self.estimate, self.budget, self.offers = estimate, budget, offers


def parse_budget(text: str | float | int, *, parameter: str = BUDGET_ENV_VAR) -> float:
    """Seconds from ``60``, ``90s``, ``5min``, ``1.5h`` or ``unlimited`` (infinity).

    Raises
    ------
    ParameterError
        Not a positive duration; the message names ``parameter`` and the value.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str) and text.strip().lower() in ("unlimited", "inf", "none"):
        return math.inf
    else:
        match = _DURATION.fullmatch(str(text).lower())
        if match is None or match.group(2) not in _UNITS:
            raise ParameterError(f"{parameter} must be a number of seconds such as 60, 90s, 5min or 1h, or "
                                 f"'unlimited'; got {str(text)[:40]!r}")
        value = float(match.group(1)) * _UNITS[match.group(2)]
    if not value > 0 or math.isnan(value):
        raise ParameterError(f"{parameter} must be more than 0 seconds; got {str(text)[:40]!r}")
    return value


def work_budget() -> float:
    """The server's budget: ``$EVALCORE_WORK_BUDGET`` if set and not empty, else 60 seconds."""
    env = os.environ.get(BUDGET_ENV_VAR)
    return parse_budget(env) if env and env.strip() else DEFAULT_BUDGET


def command_budget(given: float | None = None, *, always: bool = False) -> float:
    """The command line's budget: ``given`` (``--work-budget``) if not None, else ``$EVALCORE_WORK_BUDGET`` if set;
    else unlimited (a command on a user's own machine runs what it is asked), or 60 seconds with ``always``
    (``reproduce``: a signature may come from anyone).

    Examples
    --------
    >>> command_budget(30.0)
    30.0
    """
    if given is not None:
        return float(given)
    env = os.environ.get(BUDGET_ENV_VAR)
    if env and env.strip():
        return parse_budget(env)
    return DEFAULT_BUDGET if always else math.inf


#: Callables that see every estimate checked, with its budget (:func:`observe`).
_OBSERVERS: list = []


@contextmanager
def observe() -> Iterator[list[tuple[WorkEstimate, float]]]:
    """Within the ``with`` block, every estimate :func:`check_work` checks (in any thread) is appended, with the
    budget it was checked against, to the list this yields: what a command or a page estimated before it
    computed (for the tests' inventory and for diagnostics)."""
    seen: list[tuple[WorkEstimate, float]] = []
    observer = seen.append
    _OBSERVERS.append(observer)
    try:
        yield seen
    finally:
        _OBSERVERS.remove(observer)


def duration_text(seconds: float) -> str:
    """``seconds`` for people: ``0.083 seconds``, ``40 seconds``, ``12 minutes``, ``1.7 hours``, ``3.2 days``."""
    if 0 < seconds < 0.95:  # two significant digits, never in exponent form
        digits = max(1, 1 - math.floor(math.log10(seconds)))
        return f"{seconds:.{digits}f}".rstrip("0").rstrip(".") + " seconds"
    if seconds < 90:
        whole = max(1, round(seconds))
        return f"{whole:,} second" + ("" if whole == 1 else "s")
    if seconds < 90 * 60:
        return f"{round(seconds / 60):,} minutes"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:,.1f} days"


#: Whose budget a refusal names, and how it is raised: on the server (the pages) and on the command line.
ON_THE_SERVER = ("one request may use on this server", f"{BUDGET_ENV_VAR}, set by whoever runs this server")
ON_THE_COMMAND_LINE = ("this command may use", f"raise it with --work-budget SECONDS or {BUDGET_ENV_VAR}")


def check_work(estimate: WorkEstimate, budget: float | None = None, *, how_to_raise: str | None = None,
               where: tuple[str, str] = ON_THE_SERVER) -> None:
    """Refuse work whose estimate is over ``budget`` seconds (default :func:`work_budget`).

    ``where`` words the refusal for where it runs: :data:`ON_THE_SERVER` (whose budget, and how it is raised) or
    :data:`ON_THE_COMMAND_LINE`; ``how_to_raise`` replaces its second part.

    Raises
    ------
    WorkTooLargeError
        One sentence: what the work is and would cost, the budget and how it is set, and what fits (``offers``,
        also as data on the error).
    """
    limit_of, how = where
    how_to_raise = how if how_to_raise is None else how_to_raise
    budget = work_budget() if budget is None else float(budget)
    seconds = estimate.seconds
    for observer in list(_OBSERVERS):
        observer((estimate, budget))
    if seconds <= budget:
        return
    offers = estimate.offers(budget)
    if offers:
        fits = "What fits: " + "; or ".join(o.text for o in offers) + "."
    else:
        fits = f"Nothing smaller of this kind fits; {estimate.advice or 'use a smaller candidate set or range of n'}."
    raise WorkTooLargeError(
        f"This would take about {duration_text(seconds)} of computing ({estimate.what}), more than the "
        f"{duration_text(budget)} {limit_of} ({how_to_raise}); it was not started. {fits}",
        estimate, budget, offers)
