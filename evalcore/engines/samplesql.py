"""Ranks of an annotated sample among all N candidates, counted inside DuckDB (no sort, no stream of the N).

For a sampled candidate x with sort key u = key(x) and tie value t(x) (:mod:`evalcore.engines.sampleranks`):

    rank(x) = #{y : key(y) < u} + #{y : key(y) = u, t(y) < t(x)} + 1.

**Below.** One aggregation per measure (both measures in one scan, ``GROUPING SETS``) counts the candidates per
cell of a fine equal-width grid over the sample's keys (``floor((key - lo) * scale)``, clamped: an integer group
key, so DuckDB's hash aggregate does it in parallel) and, with a hash join on the sample's distinct keys, the
candidates equal to each sample key. The grid is monotone (IEEE subtraction, multiplication and ``floor`` are), so a
cell that holds no sample key lies wholly below or above each sample key; only the few candidates that fall in a
cell with a sample key but differ from it ("ambiguous") need their exact key: they are fetched and placed by a
binary search. The cells of the sample keys are computed by DuckDB with the same expression, so the two agree bit
for bit.

**Within a tie group.** ``#{y : key(y) = u, t(y) < t(x)}`` is a join of the candidates with the sample on the key,
the tie policy's order as the join's residual condition (the ``hash`` key, SplitMix64 of the seed and the row, in
SQL, equal to :func:`evalcore.ranking.tie_hash`), counted per sampled candidate. It compares each candidate of a
sampled group with every sampled candidate of that group, which is cheap while tie groups hold few sampled
candidates; where they hold many (pairs > :data:`PAIRS_PER_CANDIDATE` * N), the candidates of the sampled groups are
streamed instead and ordered with the sample in NumPy (:class:`~evalcore.engines.sampleranks.SampleCounter`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..ranking import SPLITMIX_GAMMA, SPLITMIX_M1, SPLITMIX_M2, tie_hash
from .sampleranks import SampleCounter
from .source import ROW

#: Cells of the grid (per measure): a candidate is ambiguous only if it shares a cell with a sample key.
GRID_CELLS = 1 << 20
#: The pair join runs while it compares at most this many pairs per candidate; past it, NumPy orders the groups.
PAIRS_PER_CANDIDATE = 2.0
BATCH_ROWS = 1 << 20
_MASK = "18446744073709551615::UHUGEINT"


def _double(x: float) -> str:
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def tie_hash_sql(row: str, seed: int) -> str:
    """:func:`evalcore.ranking.tie_hash` of the 0-based ``row`` in DuckDB SQL (UHUGEINT products taken mod 2^64)."""
    def mul(x: str, m: int) -> str:
        return f"((({x})::UHUGEINT * {m}::UHUGEINT) & {_MASK})::UBIGINT"

    def mix(x: str, shift: int) -> str:
        return f"xor({x}, ({x}) >> {shift})"

    z = f"((({int(seed) % 2**64}::UHUGEINT + ({row}::UHUGEINT + 1) * {SPLITMIX_GAMMA}::UHUGEINT)) & {_MASK})::UBIGINT"
    z = mul(mix(z, 30), SPLITMIX_M1)
    z = mul(mix(z, 27), SPLITMIX_M2)
    return f"(({mix(z, 31)}) >> 1)::BIGINT"


def _less(ties: str) -> str:
    """SQL: the candidate y comes before the sampled x (``s``) in its tie group (``h``: the hash tie keys)."""
    by_row = "y.r < s.r"
    if ties == "stable":
        return by_row
    if ties == "hash":
        return f"(y.h < s.h OR (y.h = s.h AND {by_row}))"
    if ties == "optimistic":
        return f"((y.label AND NOT s.label) OR (y.label = s.label AND {by_row}))"
    if ties == "pessimistic":
        return f"((s.label AND NOT y.label) OR (y.label = s.label AND {by_row}))"
    raise ValueError(ties)


class _Grid:
    """One measure's sample keys, their groups and the grid's cell expression."""

    def __init__(self, j: int, column: str, keys: np.ndarray, cells: int) -> None:
        self.j, self.column = j, column
        self.unique = np.unique(keys)
        self.group = np.searchsorted(self.unique, keys)
        finite = self.unique[np.isfinite(self.unique)]
        lo, hi = (float(finite[0]), float(finite[-1])) if finite.size else (0.0, 1.0)
        with np.errstate(all="ignore"):
            scale = cells / (hi - lo) if hi > lo else 1.0
        if not 0 < scale < np.inf:  # a span too wide or too narrow for doubles: a coarser grid, still exact
            scale = 1.0
        self.cells = cells
        # below lo: -1; above hi (clear of it): cells + 1; +inf (non-finite scores): cells + 2
        self.cell = (f"(CASE WHEN {{col}} = 'inf'::DOUBLE THEN {cells + 2} ELSE CAST(least(greatest(floor(({{col}} - "
                     f"{_double(lo)}) * {_double(scale)}), -1), {cells + 1}) AS BIGINT) END)")

    def of(self, column: str) -> str:
        return self.cell.format(col=column)


def sample_ranks_sql(con, table: str, columns: list[str], rows: np.ndarray, labels: np.ndarray,
                     sample_keys: np.ndarray, ties: str, seed: int | None, n: int, *,
                     progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """The 1-based ranks, shape (k, M), of the sampled candidates among the ``n`` rows of ``table``.

    ``table`` has the columns ``__evalcore_row`` (0-based row), ``label`` and the sort keys ``columns`` (ascending =
    better, non-finite as +inf); ``rows``, ``labels`` and ``sample_keys`` (k, M) are the sample's.
    """
    k, n_measures = sample_keys.shape
    grids = [_Grid(j, c, sample_keys[:, j], GRID_CELLS) for j, c in enumerate(columns)]
    for g in grids:
        con.execute(f"CREATE OR REPLACE TEMP TABLE evalcore_u{g.j} AS SELECT unnest($1::DOUBLE[]) AS u, "
                    "unnest($2::BIGINT[]) AS g", [g.unique.tolist(), list(range(g.unique.size))])
        g.sample_cells = np.asarray(con.execute(f"SELECT {g.of('u')} AS c FROM evalcore_u{g.j} ORDER BY g")
                                    .fetchnumpy()["c"], dtype=np.int64)
    # one scan: the candidates per cell of each measure's grid
    cells = ", ".join(f"{g.of(g.column)} AS c{g.j}" for g in grids)
    sets = ", ".join(f"(c{g.j})" for g in grids)
    flags = ", ".join(f"GROUPING(c{g.j}) AS x{g.j}" for g in grids)
    out = con.execute(f"SELECT {', '.join(f'c{g.j}' for g in grids)}, {flags}, count(*) AS n FROM "
                      f"(SELECT {cells} FROM {table}) GROUP BY GROUPING SETS ({sets})").fetchnumpy()
    count = np.asarray(out["n"], dtype=np.int64)
    done = n
    if progress:
        progress(done, (1 + n_measures) * n)
    ranks = np.empty((k, n_measures), dtype=np.int64)
    for g in grids:
        mine = np.asarray(out[f"x{g.j}"]) == 0
        order = np.argsort(np.ma.getdata(out[f"c{g.j}"])[mine].astype(np.int64), kind="stable")
        cell = np.ma.getdata(out[f"c{g.j}"])[mine].astype(np.int64)[order]
        cumulative = np.r_[0, np.cumsum(count[mine][order])]
        at = np.searchsorted(cell, g.sample_cells)  # each sample key's cell (always present: it holds the key)
        in_cell = cumulative[at + 1] - cumulative[at]
        eq, within = _within(con, table, g, rows, labels, in_cell, ties, seed, n)
        # below u: the candidates in lower cells, then those of its own cell with a smaller key: equal to a smaller
        # sample key of the cell, or (rarely) between sample keys, found by their exact key
        below = cumulative[at]
        first_in_cell = np.searchsorted(g.sample_cells, g.sample_cells, side="left")
        eq_cum = np.r_[0, np.cumsum(eq)]
        below += eq_cum[np.arange(g.unique.size)] - eq_cum[first_in_cell]
        eq_per_cell = np.zeros(cell.size, dtype=np.int64)
        np.add.at(eq_per_cell, at, eq)
        if np.any(in_cell > eq_per_cell[at]):
            below += _ambiguous_below(con, table, g)
        ranks[:, g.j] = below[g.group] + within + 1
        done += n
        if progress:
            progress(done, (1 + n_measures) * n)
    for g in grids:
        con.execute(f"DROP TABLE IF EXISTS evalcore_u{g.j}")
    return ranks


def _ambiguous_below(con, table: str, g: _Grid) -> np.ndarray:
    """For each sample key u, the candidates in u's cell, equal to no sample key, whose key is smaller than u."""
    con.execute("CREATE OR REPLACE TEMP TABLE evalcore_cells AS SELECT DISTINCT unnest($1::BIGINT[]) AS c",
                [g.sample_cells.tolist()])
    reader = con.sql(f"SELECT t.{g.column}, e.c FROM {table} t JOIN evalcore_cells e ON {g.of('t.' + g.column)} = e.c "
                     f"ANTI JOIN evalcore_u{g.j} u ON t.{g.column} = u.u").to_arrow_reader(BATCH_ROWS)
    below = np.zeros(g.unique.size, dtype=np.int64)
    for batch in reader:
        keys = batch.column(0).to_numpy(zero_copy_only=False)
        cells = np.asarray(batch.column(1).to_numpy(zero_copy_only=False), dtype=np.int64)
        above = np.searchsorted(g.unique, keys)  # the first sample key above, in the same cell or not
        same = above < g.unique.size
        same[same] = g.sample_cells[above[same]] == cells[same]
        below += np.bincount(above[same], minlength=g.unique.size)
    con.execute("DROP TABLE IF EXISTS evalcore_cells")
    # a candidate counts for every larger sample key of its cell: cumulate within each cell
    return _cumulate_in_cells(below, g.sample_cells)


def _cumulate_in_cells(counts: np.ndarray, sample_cells: np.ndarray) -> np.ndarray:
    """Inclusive prefix sums of ``counts`` restarting at each new cell (sample keys sorted, so cells ascend)."""
    total = np.cumsum(counts)
    first = np.searchsorted(sample_cells, sample_cells, side="left")
    return total - np.r_[0, total][first]


def _within(con, table: str, g: _Grid, rows, labels, in_cell: np.ndarray, ties: str, seed: int | None,
            n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sample key, the candidates equal to it; per sampled x, #{y : key(y) = key(x), t(y) < t(x)}."""
    sampled = np.bincount(g.group, minlength=g.unique.size)
    if int(np.dot(sampled, in_cell)) <= PAIRS_PER_CANDIDATE * n:  # at most so many pairs (equal <= in the cell)
        return _pairs_within(con, table, g, rows, labels, ties, seed)
    return _streamed_within(con, table, g, rows, labels, ties, seed)


def _pairs_within(con, table: str, g: _Grid, rows, labels, ties: str, seed: int | None):
    """:func:`_within` by a join of the candidates with the sampled ones on the key, in DuckDB."""
    k = rows.size
    h = tie_hash(seed, rows) if ties == "hash" else np.zeros(k, np.int64)
    con.execute("CREATE OR REPLACE TEMP TABLE evalcore_s AS SELECT unnest($1::BIGINT[]) AS i, "
                "unnest($2::DOUBLE[]) AS u, unnest($3::BIGINT[]) AS r, unnest($4::BOOLEAN[]) AS label, "
                "unnest($5::BIGINT[]) AS h",
                [list(range(k)), g.unique[g.group].tolist(), rows.tolist(), labels.tolist(), h.tolist()])
    hashed = f", {tie_hash_sql(ROW, seed)} AS h" if ties == "hash" else ""  # once per candidate, not per pair
    found = con.execute(f"SELECT s.i, count(*) AS eq, count(*) FILTER (WHERE {_less(ties)}) AS within FROM "
                        f"(SELECT {ROW} AS r, label, {g.column} AS k{hashed} FROM {table} "
                        f"WHERE {g.column} IN (SELECT u FROM evalcore_u{g.j})) y "
                        "JOIN evalcore_s s ON y.k = s.u GROUP BY s.i").fetchnumpy()
    con.execute("DROP TABLE IF EXISTS evalcore_s")
    i = np.asarray(found["i"], dtype=np.int64)
    within = np.zeros(k, dtype=np.int64)
    within[i] = np.asarray(found["within"], dtype=np.int64)
    eq = np.zeros(g.unique.size, dtype=np.int64)
    eq[g.group[i]] = np.asarray(found["eq"], dtype=np.int64)
    return eq, within


def _streamed_within(con, table: str, g: _Grid, rows, labels, ties: str, seed: int | None):
    """:func:`_within` where tie groups hold many sampled candidates: the groups' candidates streamed and ordered
    with the sample in NumPy (:class:`~evalcore.engines.sampleranks.SampleCounter`)."""
    counter = SampleCounter(g.unique[g.group][:, None], rows, labels, ties, seed)
    eq = np.zeros(g.unique.size, dtype=np.int64)
    reader = con.sql(f"SELECT u.g, t.{ROW}, t.label FROM {table} t JOIN evalcore_u{g.j} u ON t.{g.column} = u.u") \
        .to_arrow_reader(BATCH_ROWS)
    for batch in reader:
        group, r, lab = (batch.column(i).to_numpy(zero_copy_only=False) for i in range(3))
        group = np.asarray(group, dtype=np.int64)
        eq += np.bincount(group, minlength=g.unique.size)
        counter.count_ties(0, group, np.asarray(r, dtype=np.int64), np.asarray(lab, dtype=bool))
    return eq, counter.within[:, 0].copy()
