"""Curves of millions or billions of points, thinned for drawing without losing what a reader looks for.

A figure is a few thousand pixels wide; a curve at every n of 10^8 candidates is 10^8 points. :class:`Thinner`
splits the n axis into ``buckets`` equal parts and keeps, in each part and for each series, the first and the last
point and the points of the smallest and the largest value (the M4 rule of Jugel et al. 2014: the drawn envelope is
that of all points), and every point where a flag column changes (a significance boundary: the n on both sides of
each change), and the n named in ``also`` (e.g. the end of the significant run). It works chunk by chunk, so the
whole curve is never in memory; a part cut by two chunks keeps the extremes of each piece (a superset).

Jugel, U., Jerzak, Z., Hackenbroich, G. & Markl, V. (2014). M4: a visualization-oriented time series data
aggregation. Proceedings of the VLDB Endowment 7(10), 797-808.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np
import pandas as pd

#: Parts of the n axis: a little over the pixels of a wide figure.
BUCKETS = 2000


class Thinner:
    """Collects the rows of a curve table to draw, chunk by chunk (rows ascending in n within each group).

    Parameters
    ----------
    n_range : (int, int)
        The first and last n of the curve (fixes the parts).
    series : sequence of str
        Numeric columns whose extremes are kept (e.g. ``precision, lower, upper`` or ``log10_p``).
    flags : sequence of str
        Boolean columns whose every change is kept (e.g. ``significant``).
    by : str, optional
        A column that splits the table into curves (e.g. ``measure``); each is thinned on its own.
    buckets : int
    also : sequence of int
        n to keep in any case.
    """

    def __init__(self, n_range: tuple[int, int], series: Sequence[str], flags: Sequence[str] = (), by: str | None = None,
                 buckets: int = BUCKETS, also: Iterable[int] = ()) -> None:
        self.lo, self.hi = int(n_range[0]), int(n_range[1])
        self.series, self.flags, self.by = list(series), list(flags), by
        self.buckets = int(buckets)
        self.also = np.asarray(sorted(set(int(v) for v in also)), dtype=np.int64)
        self.kept: list[pd.DataFrame] = []
        self.last_flags: dict = {}

    def bucket(self, n: np.ndarray) -> np.ndarray:
        width = max(1.0, (self.hi - self.lo + 1) / self.buckets)
        return ((n - self.lo) / width).astype(np.int64)

    def add(self, table: pd.DataFrame) -> None:
        if self.by is None:
            self._add_group(None, table)
            return
        for key, group in table.groupby(self.by, sort=False, observed=True):
            self._add_group(key, group)

    def _add_group(self, key, table: pd.DataFrame) -> None:
        if not len(table):
            return
        n = table["n"].to_numpy()
        keep = np.zeros(n.size, dtype=bool)
        bucket = self.bucket(n)
        starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
        ends = np.r_[starts[1:], n.size] - 1
        keep[starts] = True
        keep[ends] = True
        for column in self.series:
            values = table[column].to_numpy(dtype=np.float64)
            finite = np.isfinite(values)
            if not finite.any():
                continue
            for reduce, fill in ((np.fmin, np.inf), (np.fmax, -np.inf)):
                v = np.where(finite, values, fill)
                best = reduce.reduceat(v, starts)
                hit = np.flatnonzero(finite & (v == np.repeat(best, ends - starts + 1)))
                if hit.size:  # the first point of each part that attains the part's extreme
                    first = np.unique(np.searchsorted(starts, hit, side="right") - 1, return_index=True)[1]
                    keep[hit[first]] = True
        for column in self.flags:
            flag = table[column].to_numpy(dtype=bool)
            before = self.last_flags.get((key, column))
            change = np.flatnonzero(flag[1:] != flag[:-1])
            keep[change] = True
            keep[change + 1] = True
            if before is not None and before != flag[0]:
                keep[0] = True
            self.last_flags[(key, column)] = bool(flag[-1])
        if self.also.size:
            keep |= np.isin(n, self.also)
        self.kept.append(table[keep])

    def result(self) -> pd.DataFrame:
        """The rows kept, in the order they came (with the first chunk's columns)."""
        if not self.kept:
            return pd.DataFrame()
        out = pd.concat(self.kept, ignore_index=True)
        for name, column in out.items():  # a categorical of one measure per chunk: one categorical again
            if isinstance(column.dtype, pd.CategoricalDtype):
                out[name] = column.astype(str).astype("category")
        return out


def thin(table: pd.DataFrame, series: Sequence[str], flags: Sequence[str] = (), *, by: str | None = None,
         buckets: int = BUCKETS, also: Iterable[int] = ()) -> pd.DataFrame:
    """The rows of a whole curve table to draw (see :class:`Thinner`); a table of at most ``4 * buckets`` rows per
    curve and no flags is returned as it is."""
    per_curve = len(table) if by is None else table.groupby(by, observed=True).size().max() if len(table) else 0
    if per_curve <= 4 * buckets and not flags:
        return table
    n = table["n"].to_numpy()
    thinner = Thinner((int(n.min()), int(n.max())), series, flags, by, buckets, also)
    thinner.add(table)
    return thinner.result()
