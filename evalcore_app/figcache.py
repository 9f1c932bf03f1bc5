"""Figures built once per cached result.

Building a plotly figure validates every property it is given: Figure 3 and the difference panel took 0.15 s of a
0.29 s Significance rerun whose numbers came from the cache (bench/bench_browser.py). A page asks :func:`memo` for a
figure of a cached result (e.g. :func:`evalcore_app.cached.pair`'s); it is built again only for another result object or other
arguments. The figures are shared between sessions and must not be changed by a page (``st.plotly_chart``,
:mod:`evalcore_app.components.plot` and the downloads only read them). :mod:`evalcore_app.components.plot` keeps a figure's JSON here
too, with the figure as its source.
"""

from __future__ import annotations

import threading
import weakref
from typing import Callable

MAX_FIGURES = 64
_FIGURES: dict[tuple, tuple[weakref.ref, object]] = {}
_LOCK = threading.Lock()


def memo(source: object, build: Callable[[], object], *key) -> object:
    """``build()``, once per (``source``, ``key``): ``source`` is the cached result the figure is drawn from (by
    identity, while it lives: a result evicted from the cache and computed again gives a new figure), ``key`` the
    hashable arguments of the figure besides it."""
    index = (id(source), key)
    with _LOCK:
        hit = _FIGURES.get(index)
    if hit is not None and hit[0]() is source:
        return hit[1]
    figure = build()
    with _LOCK:
        while len(_FIGURES) >= MAX_FIGURES:
            _FIGURES.pop(next(iter(_FIGURES)))
        _FIGURES[index] = (weakref.ref(source), figure)
    return figure
