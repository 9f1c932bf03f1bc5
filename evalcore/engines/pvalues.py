"""The level-free p-values of two rankings at every n, computed chunk by chunk and kept in the data set store.

A test that reads only the 2x2 table of the difference regions at n (every key of
:data:`evalcore.stats.pairtests.TABLE_P_VALUES`: Fisher's, McNemar's, Pearson's) gives at n a p-value that depends on
the two rankings and n alone: not on the confidence level, the correction, the range or the step around it. So the
p-values of a pair are kept per n, on a lattice of list sizes ``n = residue + i * step`` (``residue = lo mod
step``), in chunks of :data:`CHUNK` lattice points, each chunk one entry of the store
(:class:`evalcore.io.store.DatasetStore`: within its quota, evicted least recently opened first, written
atomically, checked on read) named by a digest of (the count tables' key, the pair, the test, the lattice, the
chunk). The store names an entry by the SHA-256 of its bytes and keeps the first name given to the same bytes, so a
chunk's bytes hold its own name (``entry``, checked on read): two chunks of the same p-values (past the n where two
rankings hold the same candidates every p-value is 1) are two entries, each found by its name in a scan of the store.
A range of n with a step is the lattice points of its chunks (read, or computed and stored) and, where
its last n is off the lattice, that one n computed on its own. So a level, a correction or an interval moved on
the Significance page, a range narrowed or moved along the same lattice, or a colleague's link to the same pair
reads the p-values instead of testing every n again; an evicted or damaged chunk is computed again, to the same
numbers.

What depends on the level, the range or the step (significance, Holm and Benjamini-Hochberg adjustments, the
markers, bands and "significant at k of m n") is derived from these p-values by
:func:`evalcore.analysis.pair_comparison`, as for any :class:`~evalcore.analysis.PairTests`. The counts of the
difference regions are not stored: they come from the count tables at once
(:func:`evalcore.compare.difference_regions`).

The resampling tests (bootstrap, randomization) draw for every n at once from one stream of the seed: their
p-value at n depends on the grid, so they are not chunked here.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import EvalcoreError, ParameterError
from ..io.store import DatasetStore, StoreError
from ..nspec import grid_sizes
from ..stats.pairtests import TABLE_P_VALUES

#: Lattice points per stored chunk: 65,536 n, 32 bytes each for Fisher (its p-value and log10, McNemar's, Pearson's).
CHUNK = 1 << 16
VERSION = "2"  # 2: a chunk's bytes hold its entry name (1 kept equal chunks as one entry, under one name)
PREFIX = "pvalues-"

_IDS: dict[tuple[str, str], str] = {}  # (store root, entry name) -> id, filled by puts and by one scan per miss
_IDS_LOCK = threading.Lock()
#: Chunks computed in this process (for tests and the benchmark: a level key computes none).
COMPUTED = {"chunks": 0, "sizes": 0}


def cacheable(test: str) -> bool:
    """True for a test whose p-value at n reads the table at n alone (see the module's docstring)."""
    return test in TABLE_P_VALUES


@dataclass(frozen=True)
class Plan:
    """The lattice of a range of n with a step, and its chunks: lattice points ``residue + i * step`` for ``i`` in
    ``first .. last`` (the range's n on the lattice) in the chunks ``first // CHUNK .. last // CHUNK``; ``extra``:
    the range's last n where it is off the lattice (:func:`evalcore.nspec.grid_sizes` always includes it)."""

    step: int
    residue: int
    first: int
    last: int
    extra: int | None

    @property
    def chunks(self) -> range:
        return range(self.first // CHUNK, self.last // CHUNK + 1)

    def chunk_sizes(self, k: int, n_candidates: int) -> np.ndarray:
        """The list sizes of chunk ``k``: its lattice points within 1..N."""
        i = np.arange(k * CHUNK, (k + 1) * CHUNK, dtype=np.int64)
        n = self.residue + i * self.step
        return n[(n >= 1) & (n <= n_candidates)]

    def chunk_start(self, k: int) -> int:
        """The first lattice index a chunk's stored arrays begin at (the lattice point 0 is n = residue, which is 0
        and not a list size where the step divides every n)."""
        start = k * CHUNK
        return start + 1 if start == 0 and self.residue == 0 else start


def plan(n_range: tuple[int, int], step: int = 1) -> Plan:
    """The :class:`Plan` of ``grid_sizes(n_range, step)``."""
    sizes = grid_sizes(n_range, step)  # (checks the range and the step)
    lo, hi, step = int(n_range[0]), int(n_range[1]), int(step)
    residue = lo % step
    last = (hi - residue) // step
    return Plan(step, residue, (lo - residue) // step, last, None if residue + last * step == hi else int(sizes[-1]))


def entry_name(key: str, a: str, b: str, test: str, step: int, residue: int, k: int) -> str:
    """The store entry of one chunk: a digest of what its p-values depend on."""
    text = json.dumps({"v": VERSION, "key": key, "a": a, "b": b, "test": test, "step": int(step),
                       "residue": int(residue), "chunk": int(k), "size": CHUNK})
    return f"{PREFIX}{hashlib.sha256(text.encode()).hexdigest()}.npz"


def _column(ranking) -> str:
    return getattr(ranking, "column", "") or ranking.measure


def _columns(test: str) -> tuple[str, ...]:
    from ..analysis import FAST_TESTS

    return tuple(dict.fromkeys((test, *FAST_TESTS)))


def _tested(a, b, sizes: np.ndarray, test: str):
    from ..analysis import pair_tests_at

    return pair_tests_at(a, b, sizes, test=test)


def _to_bytes(name: str, arrays: dict) -> bytes:
    """A chunk's entry: its p-values and its own entry name (so no two chunks are the same bytes)."""
    buffer = io.BytesIO()
    np.savez(buffer, entry=np.array(name), **arrays)
    return buffer.getvalue()


def _from_bytes(data: bytes, name: str, columns: tuple[str, ...], length: int) -> dict | None:
    """The arrays of the chunk ``name``; None for bytes of another chunk, version or shape."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as f:
            if f["entry"].shape != () or str(f["entry"]) != name:
                return None
            arrays = {c: np.asarray(f[c], dtype=np.float64) for c in (*columns, "log10_p")}
    except (ValueError, OSError, KeyError, EOFError):
        return None
    return arrays if all(v.shape == (length,) for v in arrays.values()) else None


def _lookup(store: DatasetStore, names: list[str]) -> dict[str, str]:
    """Ids of the entries named ``names`` in ``store``: from this process's index, else one scan of the store."""
    root = str(store.root)
    with _IDS_LOCK:
        found = {n: _IDS[(root, n)] for n in names if (root, n) in _IDS}
    if len(found) < len(names):
        wanted = set(names) - set(found)
        for dataset_id in store.ids():
            try:
                name = store.peek(dataset_id).name  # a look, not an open: the chunk read is opened by _read
            except StoreError:
                continue
            if name.startswith(PREFIX):
                with _IDS_LOCK:
                    _IDS[(root, name)] = dataset_id
                if name in wanted:
                    found[name] = dataset_id
    return found


def _read(store: DatasetStore, dataset_id: str | None, name: str, columns, length: int) -> dict | None:
    if dataset_id is None:
        return None
    try:
        _, data = store.open(dataset_id)  # (checked against its id: a damaged copy is set aside, never read)
    except StoreError:
        with _IDS_LOCK:
            _IDS.pop((str(store.root), name), None)
        return None
    return _from_bytes(data, name, columns, length)


def _write(store: DatasetStore, name: str, arrays: dict) -> None:
    try:
        dataset_id = store.put(_to_bytes(name, arrays), name)
    except StoreError:  # over the quota (what fills it is in use) or the disk: served from memory this time
        return
    with _IDS_LOCK:
        _IDS[(str(store.root), name)] = dataset_id


def chunks_to_compute(a, b, n_range: tuple[int, int], *, key: str, test: str = "fisher", n_step: int = 1,
                      store: DatasetStore | None = None) -> int:
    """How many chunks :func:`pair_pvalues` would compute: those the store's index does not name (an entry evicted
    since this process saw it counts as there; it is computed again when read)."""
    store = store if store is not None else DatasetStore()
    p = plan(n_range, n_step)
    names = [entry_name(key, _column(a), _column(b), test, p.step, p.residue, k) for k in p.chunks]
    return len(names) - len(_lookup(store, names))


def pair_pvalues(a, b, n_range: tuple[int, int], *, key: str, test: str = "fisher", n_step: int = 1,
                 store: DatasetStore | None = None, progress: Callable[[int, int], None] | None = None):
    """:func:`evalcore.analysis.pair_tests` of two rankings (or count tables), with its p-values read from the
    store where they were computed before, else computed chunk by chunk and stored.

    Parameters
    ----------
    a, b : Ranking or RankCounts
        The two rankings (their ``column`` names them in the store's key).
    n_range : (int, int)
        The range of n; every ``n_step``-th n is tested, both ends included (:func:`evalcore.nspec.grid_sizes`).
    key : str
        What the rankings are: the data's identity, columns, ties and seed (the count tables' store key).
    test : str
        A key of :data:`~evalcore.stats.pairtests.TABLE_P_VALUES`.
    store : DatasetStore, optional
        Default: the dashboard's (``EVALCORE_STORE``).
    progress : callable, optional
        ``progress(done, total)`` in chunks, once before the first computed chunk and after each; it may raise to
        stop the work (what was stored stays stored; the next call computes the rest).

    Returns
    -------
    PairTests
        Equal to ``pair_tests(a, b, n_range, test=test, n_step=n_step)``.
    """
    if not cacheable(test):
        raise ParameterError(f"the p-values of {test!r} depend on the grid of n (it resamples): they are not kept "
                             f"per n; the tests kept are {', '.join(TABLE_P_VALUES)}")
    from ..analysis import PairTests
    from ..compare import difference_regions

    store = store if store is not None else DatasetStore()
    p = plan(n_range, n_step)
    columns = _columns(test)
    n_total = a.n_candidates
    names = {k: entry_name(key, _column(a), _column(b), test, p.step, p.residue, k) for k in p.chunks}
    ids = _lookup(store, list(names.values()))
    parts: dict[int, dict] = {}
    missing = []
    for k, name in names.items():
        length = p.chunk_sizes(k, n_total).size
        got = _read(store, ids.get(name), name, columns, length)
        if got is None:
            missing.append(k)
        else:
            parts[k] = got
    if missing and progress is not None:
        progress(0, len(missing))
    for done, k in enumerate(missing, 1):
        sizes = p.chunk_sizes(k, n_total)
        tested = _tested(a, b, sizes, test)
        arrays = {c: np.asarray(v, dtype=np.float64) for c, v in tested.p_values.items()}
        arrays["log10_p"] = tested.comparison["log10_p"].to_numpy(dtype=np.float64)
        COMPUTED["chunks"] += 1
        COMPUTED["sizes"] += int(sizes.size)
        _write(store, names[k], arrays)
        parts[k] = arrays
        if progress is not None:
            progress(done, len(missing))
    # the range's lattice points out of its chunks, in order
    pieces = {c: [] for c in (*columns, "log10_p")}
    for k in p.chunks:
        start = p.chunk_start(k)
        lo, hi = max(p.first, start) - start, min(p.last, (k + 1) * CHUNK - 1) - start + 1
        for c in pieces:
            pieces[c].append(parts[k][c][lo:hi])
    if p.extra is not None:
        tail = _tested(a, b, np.array([p.extra], dtype=np.int64), test)
        pieces["log10_p"].append(tail.comparison["log10_p"].to_numpy(dtype=np.float64))
        for c in columns:
            pieces[c].append(np.asarray(tail.p_values[c], dtype=np.float64))
    values = {c: np.concatenate(v) for c, v in pieces.items()}
    sizes = grid_sizes(n_range, n_step)
    if values["log10_p"].size != sizes.size:  # pragma: no cover - a plan that misses an n is a bug, said as one
        raise EvalcoreError(f"the stored p-values cover {values['log10_p'].size:,} of the {sizes.size:,} n tested")
    comparison = difference_regions(a, b, sizes)
    comparison["p_value"] = values[test]
    comparison["log10_p"] = values["log10_p"]
    comparison["test"] = test
    return PairTests(comparison=comparison, p_values={c: values[c] for c in columns}, test=test)
