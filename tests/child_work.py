"""Work for the child processes of tests/test_work_child.py, in a module light to import (the child imports it to
find the function): one call that never returns, and sacrebleu's TER of one long pair."""

from __future__ import annotations

import os


def forever(pid_file: str) -> None:
    """Work with no checkpoint at all: one call that does not return."""
    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    x = 0
    while True:
        x += 1


def score_long(pid_file: str, hypothesis: str, reference: str) -> float:
    """sacrebleu's TER of one pair (of 800 words: tens of seconds in one call)."""
    from sacrebleu.metrics import TER

    with open(pid_file, "w") as f:
        f.write(str(os.getpid()))
    return TER().sentence_score(hypothesis, [reference]).score
