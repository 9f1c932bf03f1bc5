"""A progress bar on standard error for the engines' long passes (the command line's ``--engine``)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    """``bar(done, total)`` draws ``evalcore: <what> [=====     ] 42% 12 s`` on standard error.

    On a terminal the line is redrawn in place (at most 5 times a second); elsewhere (a log, a pipe) a line is
    written at each quarter. Nothing is drawn for a pass that ends within ``quiet`` seconds.
    """

    def __init__(self, what: str, stream=None, quiet: float = 1.0, width: int = 30) -> None:
        self.what, self.stream, self.quiet, self.width = what, stream or sys.stderr, quiet, width
        self.start = time.monotonic()
        self.last = 0.0
        self.quarter = 0
        self.drawn = False
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.quiet or total <= 0:
            return
        share = min(1.0, done / total)
        if self.tty:
            if now - self.last < 0.2 and share < 1.0:
                return
            filled = int(self.width * share)
            self.stream.write(f"\revalcore: {self.what} [{'=' * filled}{' ' * (self.width - filled)}] "
                              f"{share:4.0%} {elapsed:.0f} s")
            self.stream.flush()
            self.last, self.drawn = now, True
        elif int(share * 4) > self.quarter:
            self.quarter = int(share * 4)
            self.stream.write(f"evalcore: {self.what}: {share:.0%} ({done:,} of {total:,}) after {elapsed:.0f} s\n")

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.drawn = False

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
