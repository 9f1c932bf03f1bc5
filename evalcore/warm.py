"""Load everything a first computation needs, before anyone asks: imports and compiled kernels.

A fresh dashboard server would otherwise make its first visitor wait for numpy, scipy, pandas,
plotly and numba to import and for the compiled kernels (Fisher's test, the Clopper-Pearson
march; each in a serial and a parallel build) to load from numba's disk cache or compile.
:func:`warm` does all of it on a synthetic ranking big enough to take every branch the real
data takes (the parallel builds start at 20,000 tables and 50,000 list sizes).
"""

from __future__ import annotations

import threading
import time

__all__ = ["load_kernels_meanwhile", "warm"]

WARM_N = 60_000  # above the parallel thresholds of both kernels


def warm() -> float:
    """Import the numerical modules and run every compiled kernel once; returns the seconds it took."""
    t0 = time.perf_counter()
    import numpy as np
    import plotly.graph_objects  # noqa: F401  (the figures)
    import scipy.stats  # noqa: F401  (the tests across samples)

    from . import analysis  # noqa: F401  (everything the pages call)
    from .compare import compare_rankings
    from .curves import precision_curve
    from .figures import paper  # noqa: F401
    from .ranking import rank_scores
    from .stats.intervals import binomial_interval

    rng = np.random.default_rng(0)
    labels = rng.random(WARM_N) < 0.1
    score = rng.normal(size=WARM_N) + labels
    a = rank_scores(labels, score, ties="stable", measure="a")
    b = rank_scores(labels, score + rng.normal(size=WARM_N), ties="stable", measure="b")
    small = np.arange(1, 10_000)  # below the thresholds: the serial builds
    for sizes in (None, small):  # parallel and serial builds
        precision_curve(a, sizes)
        compare_rankings(a, b, sizes)
    binomial_interval(a.tp[1:], np.arange(1, WARM_N + 1), method="wilson")  # (Newcombe's interval: compiled)
    from .engines.tieorder import order_groups  # (a large set's tie groups, read by DuckDB: float and integer keys)

    rows = np.arange(200, dtype=np.int64)
    for keys in (np.repeat(np.arange(100.0), 2), np.repeat(np.arange(100), 2)):
        for ties in ("stable", "hash"):
            order_groups(keys, rows, labels[:200], ties, 0)
    return time.perf_counter() - t0


def _load_numba() -> None:
    try:
        from .stats.kernels import _log_add

        _log_add(0.0, 0.0)
    except Exception:  # noqa: BLE001 - only a head start: the computation itself meets and reports any failure
        pass


def load_kernels_meanwhile() -> threading.Thread:
    """Start numba on a thread while the caller reads and ranks: its first compiled function in a process builds
    its typing and target registries (about 1 s of one core, nearly all of a kernel's first call; each kernel's
    own code then loads from the disk cache in a few hundredths), and reading (Arrow) and sorting (NumPy) leave
    the interpreter to it. The command line's ``curves`` and ``compare`` call it first."""
    thread = threading.Thread(target=_load_numba, name="evalcore-numba", daemon=True)
    thread.start()
    return thread
