"""Count tables: what every engine hands back, in a form whose size does not grow with N where it need not.

A ranking's TP count at every n is fixed by the sorted ranks of its TPs: ``tp(n) = #{TP ranks <= n}``, a step
function stored as those ranks (:class:`StepCounts`). The annotated count m(n) likewise, from the sorted ranks of
the annotated candidates. The tie groups (of two or more candidates) are stored as their start and end positions,
which is all that :meth:`RankCounts.straddles` and :meth:`RankCounts.tp_bounds` need. For two rankings, a candidate
is in both n-best lists iff ``max(rank_a, rank_b) <= n``; at most two candidates have the same maximum, so the
overlap at every n is stored as one byte per n (:class:`PairCounts`), and the TPs in both lists as the sorted
maxima of the TPs.

:class:`RankCounts` answers the questions the statistics ask of a :class:`evalcore.ranking.Ranking` (``tp[sizes]``,
``n_tp``, ``straddles``, ``annotated_counts``, ...), so :func:`evalcore.curves.precision_curve`,
:func:`evalcore.compare.compare_rankings` and :mod:`evalcore.estimates` take it unchanged. It holds no single
candidate: what needs one (``order``, ``ranks``, scores) raises :class:`TooLargeError` with a message for the page.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping

import numpy as np

from ..errors import ParameterError
from ..text import cut, listed, shown

#: Positions per block of the cumulative overlap (see :meth:`PairCounts.overlap`).
BLOCK = 1 << 16
FORMAT_VERSION = 1


class TooLargeError(ParameterError):
    """A computation needs single candidates, which an engine's count tables do not hold."""


def _readonly(a: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return None
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


class StepCounts:
    """A count along a ranking, ``count(n) = #{r in ranks : r <= n}`` for n = 0..N, indexable like the array.

    ``steps[sizes]``, ``steps[n]``, ``steps[-1]`` and ``len(steps)`` behave as for the array of N + 1 counts
    (:attr:`evalcore.ranking.Ranking.tp`); a slice or the whole array is expanded on request (``np.asarray``),
    which costs 8 (N + 1) bytes, so the chunked paths index with the sizes of one chunk at a time.
    """

    __slots__ = ("ranks", "n_candidates")

    def __init__(self, ranks: np.ndarray, n_candidates: int) -> None:
        self.ranks = ranks
        self.n_candidates = int(n_candidates)

    def __len__(self) -> int:
        return self.n_candidates + 1

    def _at(self, n) -> np.ndarray:
        n = np.asarray(n)
        if n.dtype == bool:
            raise TypeError("StepCounts takes list sizes, not a mask")
        n = n.astype(np.int64, copy=False)
        if n.size and (n.min() < -(self.n_candidates + 1) or n.max() > self.n_candidates):
            bad = n[(n < -(self.n_candidates + 1)) | (n > self.n_candidates)].ravel()[0]
            raise IndexError(f"list size {int(bad)} is outside 0..{self.n_candidates}")
        n = np.where(n < 0, n + self.n_candidates + 1, n)
        return np.searchsorted(self.ranks, n, side="right").astype(np.int64)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self._at(np.arange(len(self))[index])
        out = self._at(index)
        return int(out) if out.ndim == 0 else out

    def __array__(self, dtype=None, copy=None):
        out = self._at(np.arange(len(self)))
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return f"StepCounts({self.ranks.size:,} steps over n = 0..{self.n_candidates:,})"


@dataclass(frozen=True, eq=False)
class RankCounts:
    """The count table of one ranking: what the statistics need of it, without its N candidates.

    Attributes
    ----------
    measure : str
        Name shown (a display name may replace it; ``column`` stays).
    n_candidates : int
        N.
    tp_ranks : ndarray of int64, shape (T,)
        1-based ranks of the (annotated) TPs, ascending: ``tp(n) = searchsorted(tp_ranks, n, "right")``.
    tie_start, tie_end : ndarray of int64, shape (G,)
        The tie groups of two or more candidates (the non-finite scores are one): ranks
        ``tie_start + 1 .. tie_end``, ascending and disjoint.
    ties, seed, n_nonfinite, higher_is_better
        As :class:`evalcore.ranking.Ranking`.
    annotated_ranks : ndarray of int64, shape (M,), or None
        1-based ranks of the annotated candidates, ascending, for a partly annotated set.
    column : str
        The score column ranked (the key of :class:`PairCounts`).
    engine : str
        The engine that counted (``memory``, ``duckdb``, ``spark``).
    ties_known : bool
        False where only a sample's ranks were counted (:func:`evalcore.engines.sample_ranks`): the tie groups of
        the other candidates are unknown, and :meth:`straddles` says so.
    pairs : mapping of str to PairCounts
        The pair tables with the other rankings of the same run, by their column.
    sample_rows, sample_ranks, sample_labels : ndarray or None
        For a partly annotated set: the 0-based rows of the annotated candidates (ascending), their ranks in this
        ranking, and their labels, so that two rankings' D1/D2 counts of the annotated candidates need no pair
        table (:func:`evalcore.estimates.compare_estimates`).
    """

    measure: str
    n_candidates: int
    tp_ranks: np.ndarray
    tie_start: np.ndarray
    tie_end: np.ndarray
    ties: str
    seed: int | None
    n_nonfinite: int
    higher_is_better: bool
    annotated_ranks: np.ndarray | None = None
    column: str = ""
    engine: str = "memory"
    ties_known: bool = True
    pairs: Mapping[str, "PairCounts"] = field(default_factory=dict, repr=False)
    sample_rows: np.ndarray | None = field(default=None, repr=False)
    sample_ranks: np.ndarray | None = field(default=None, repr=False)
    sample_labels: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.sample_labels is not None:
            object.__setattr__(self, "sample_labels", _readonly(np.asarray(self.sample_labels, dtype=bool)))
        for name in ("tp_ranks", "tie_start", "tie_end", "annotated_ranks", "sample_rows", "sample_ranks"):
            value = getattr(self, name)
            object.__setattr__(self, name, _readonly(None if value is None else np.asarray(value, dtype=np.int64)))
        if not self.column:
            object.__setattr__(self, "column", self.measure)

    # ------------------------------------------------------------ what a Ranking answers
    @property
    def tp(self) -> StepCounts:
        """Cumulative (annotated) TPs, indexable as :attr:`evalcore.ranking.Ranking.tp`."""
        return StepCounts(self.tp_ranks, self.n_candidates)

    @property
    def partly_annotated(self) -> bool:
        return self.annotated_ranks is not None

    @property
    def n_annotated(self) -> int:
        return self.n_candidates if self.annotated_ranks is None else int(self.annotated_ranks.size)

    @property
    def n_annotated_tp(self) -> int:
        return int(self.tp_ranks.size)

    @property
    def n_tp(self) -> int:
        if self.annotated_ranks is not None:
            raise ParameterError(
                f"ranking by {self.measure!r}: only {self.n_annotated:,} of the {self.n_candidates:,} candidates are "
                "annotated, so the number of TPs is unknown; estimate it from the sample (evalcore.estimates)")
        return int(self.tp_ranks.size)

    def annotated_counts(self, n) -> tuple[np.ndarray, np.ndarray]:
        """m(n) annotated candidates and k(n) annotated TPs in the n-best lists (as the Ranking's)."""
        n = np.asarray(n, dtype=np.int64)
        k = np.searchsorted(self.tp_ranks, n, side="right").astype(np.int64)
        if self.annotated_ranks is None:
            return n.copy(), k
        return np.searchsorted(self.annotated_ranks, n, side="right").astype(np.int64), k

    def _require_ties(self, what: str) -> None:
        if not self.ties_known:
            raise TooLargeError(f"ranking by {self.measure!r}: only the annotated sample's ranks were counted, so "
                                f"{what} is not known; count the whole ranking (an engine's count_tables)")

    def _group_at(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """0-based half-open (start, end) of the tie group holding rank ``pos + 1`` (a group of one elsewhere)."""
        if not self.tie_start.size:
            return pos.copy(), pos + 1
        j = np.maximum(np.searchsorted(self.tie_start, pos, side="right") - 1, 0)
        inside = (self.tie_start[j] <= pos) & (pos < self.tie_end[j])
        return np.where(inside, self.tie_start[j], pos), np.where(inside, self.tie_end[j], pos + 1)

    def straddles(self, n) -> np.ndarray:
        """True where the n-best cut-off falls inside a tie group (as :meth:`evalcore.ranking.Ranking.straddles`)."""
        self._require_ties("where a cut-off splits a tie group")
        n = np.asarray(n, dtype=np.int64)
        if not self.tie_start.size:
            return np.zeros(n.shape, dtype=bool)
        i = np.searchsorted(self.tie_start, n, side="left") - 1  # the last group starting before n
        ok = i >= 0
        j = np.maximum(i, 0)
        return ok & (n > self.tie_start[j]) & (n < self.tie_end[j])

    def tp_bounds(self, n) -> tuple[np.ndarray, np.ndarray]:
        """Fewest and most TPs any tie-breaking could put into the n-best list (as the Ranking's)."""
        self._require_ties("the effect of the ties")
        n = np.asarray(n, dtype=np.int64)
        last = np.maximum(n - 1, 0)
        start, end = self._group_at(last)
        start, end = np.where(n > 0, start, 0), np.where(n > 0, end, 0)
        tp = self.tp
        before = tp[start]
        group_tp = tp[end] - before
        group_fp = (end - start) - group_tp
        taken = n - start
        return before + np.maximum(0, taken - group_fp), before + np.minimum(taken, group_tp)

    def tie_summary(self) -> dict:
        self._require_ties("the tie groups")
        sizes = self.tie_end - self.tie_start
        return {"measure": self.measure, "tie_groups": int(sizes.size), "tied_candidates": int(sizes.sum()),
                "largest_group": int(sizes.max()) if sizes.size else 0, "nonfinite": self.n_nonfinite}

    def average_precision(self) -> float:
        """Average precision taken at the end of each tie group, as :func:`evalcore.roc.average_precision`:
        the mean over the TPs of ``tp(e) / e``, e the end of the TP's tie group (NaN without a TP or an FP)."""
        self._require_ties("average precision")
        if self.annotated_ranks is not None:
            self.n_tp  # noqa: B018 - raises: unknown TPs
        if not 0 < self.tp_ranks.size < self.n_candidates:
            return float("nan")
        _, end = self._group_at(self.tp_ranks - 1)
        return float(np.mean(self.tp[end] / end))

    def _single(self, what: str):
        raise TooLargeError(f"ranking by {self.measure!r} ({self.n_candidates:,} candidates) was counted by the "
                            f"{self.engine} engine, which keeps counts, not single candidates: {what} is not available "
                            "for a set this large")

    @property
    def order(self):
        self._single("the order of the candidates")

    @property
    def ranks(self):
        self._single("the rank of each candidate")

    @property
    def sorted_scores(self):
        self._single("the scores")

    @property
    def group_start(self):
        self._single("the tie group of each candidate")

    group_end = group_start

    def pair(self, other: "RankCounts") -> "PairCounts":
        """The pair table of this ranking and ``other`` (counted in the same run)."""
        table = self.pairs.get(other.column)
        if table is None:
            raise TooLargeError(f"the rankings by {self.measure!r} and {other.measure!r} were counted without their "
                                "pair table (the difference regions D1 and D2); count them together")
        return table if table.a == self.column else table.swapped()

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.tp_ranks, self.tie_start, self.tie_end, self.annotated_ranks)
                   if a is not None)


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Counts of two rankings of the same candidates: who is in both n-best lists, at every n.

    Attributes
    ----------
    a, b : str
        The score columns.
    n_candidates : int
    both_steps : ndarray of uint8, shape (N + 1,)
        ``both_steps[n] = #{x : max(rank_a(x), rank_b(x)) = n}`` (0, 1 or 2), so the overlap
        ``|A ∩ B|`` of the n-best lists is its cumulative sum.
    both_tp_ranks : ndarray of int64
        ``max(rank_a, rank_b)`` of each (annotated) TP, ascending: the TPs in both lists.
    both_annotated_ranks : ndarray of int64 or None
        The same for the annotated candidates of a partly annotated set.
    """

    a: str
    b: str
    n_candidates: int
    both_steps: np.ndarray
    both_tp_ranks: np.ndarray
    both_annotated_ranks: np.ndarray | None = None
    _blocks: list = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "both_steps", _readonly(np.asarray(self.both_steps, dtype=np.uint8)))
        object.__setattr__(self, "both_tp_ranks", _readonly(np.asarray(self.both_tp_ranks, dtype=np.int64)))
        if self.both_annotated_ranks is not None:
            object.__setattr__(self, "both_annotated_ranks",
                               _readonly(np.asarray(self.both_annotated_ranks, dtype=np.int64)))
        if self.both_steps.shape != (self.n_candidates + 1,):
            raise ParameterError(f"`both_steps` must hold N + 1 = {self.n_candidates + 1} counts; got "
                                 f"{self.both_steps.shape}")

    def swapped(self) -> "PairCounts":
        return replace(self, a=self.b, b=self.a, _blocks=self._blocks)

    def _block_prefix(self) -> np.ndarray:
        """Overlap before each block of :data:`BLOCK` positions (computed once, N / 65,536 numbers)."""
        if not self._blocks:
            sums = np.add.reduceat(self.both_steps, np.arange(0, self.both_steps.size, BLOCK), dtype=np.int64)
            self._blocks.append(np.r_[0, np.cumsum(sums)])
        return self._blocks[0]

    def overlap(self, n) -> np.ndarray:
        """``|A ∩ B|`` of the n-best lists: the cumulative sum of ``both_steps`` at ``n`` (any order of n).

        Blocks of 65,536 positions are summed once; each block that holds some n is expanded once, so every n of a
        range costs one pass over it and a few scattered n cost a block each.
        """
        n = np.atleast_1d(np.asarray(n, dtype=np.int64))
        prefix = self._block_prefix()
        out = np.empty(n.shape, dtype=np.int64)
        block = n // BLOCK
        order = np.argsort(block, kind="stable")
        bounds = np.flatnonzero(np.r_[True, block[order][1:] != block[order][:-1], True])
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            idx = order[lo:hi]
            j = int(block[idx[0]])
            local = np.cumsum(self.both_steps[j * BLOCK:(j + 1) * BLOCK], dtype=np.int64)
            out[idx] = prefix[j] + local[n[idx] - j * BLOCK]
        return out

    def overlap_tp(self, n) -> np.ndarray:
        return np.searchsorted(self.both_tp_ranks, np.asarray(n, dtype=np.int64), side="right").astype(np.int64)

    def overlap_annotated(self, n) -> np.ndarray:
        n = np.asarray(n, dtype=np.int64)
        if self.both_annotated_ranks is None:
            return self.overlap(n)
        return np.searchsorted(self.both_annotated_ranks, n, side="right").astype(np.int64)

    def nbytes(self) -> int:
        return sum(x.nbytes for x in (self.both_steps, self.both_tp_ranks, self.both_annotated_ranks)
                   if x is not None)


@dataclass(frozen=True, eq=False)
class CountTables:
    """What an engine hands back for (candidates, measures, ties, seed): one :class:`RankCounts` per measure, with
    the :class:`PairCounts` of every pair attached to both of its rankings."""

    rankings: Mapping[str, RankCounts]
    pairs: Mapping[tuple[str, str], PairCounts]
    n_candidates: int
    engine: str
    label: str = ""  # the label column counted
    source: str = ""  # the data's name (never a server path)
    excluded_unlabelled: int = 0  # rows left out for an empty label (TableSource.exclude_unlabelled)

    def __iter__(self) -> Iterator[RankCounts]:
        return iter(self.rankings.values())

    def __getitem__(self, measure: str) -> RankCounts:
        return self.rankings[measure]

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.rankings)

    def nbytes(self) -> int:
        return sum(r.nbytes() for r in self.rankings.values()) + sum(p.nbytes() for p in self.pairs.values())

    def summary(self) -> "CountedCandidates":
        """What the report and the pages ask of the candidate set (N, TPs, measures, directions, names)."""
        first = next(iter(self.rankings.values()))
        return CountedCandidates(
            n_candidates=self.n_candidates, n_tp=first.n_tp, measures=self.measures,
            directions={m: "higher" if r.higher_is_better else "lower" for m, r in self.rankings.items()},
            label_column=self.label, source=self.source, excluded_unlabelled=self.excluded_unlabelled)

    # -------------------------------------------------------------- bytes for the store
    def to_bytes(self) -> bytes:
        """The tables as one ``.npz`` (arrays) with a JSON header; :meth:`from_bytes` reads it back."""
        arrays: dict[str, np.ndarray] = {}
        head = {"version": FORMAT_VERSION, "n": self.n_candidates, "engine": self.engine, "rankings": [],
                "pairs": [], "label": self.label, "source": self.source, "excluded": self.excluded_unlabelled}
        for i, r in enumerate(self.rankings.values()):
            head["rankings"].append({"measure": r.measure, "column": r.column, "ties": r.ties, "seed": r.seed,
                                     "nonfinite": r.n_nonfinite, "higher": r.higher_is_better,
                                     "partial": r.annotated_ranks is not None, "ties_known": r.ties_known})
            arrays[f"r{i}_tp"], arrays[f"r{i}_ts"], arrays[f"r{i}_te"] = r.tp_ranks, r.tie_start, r.tie_end
            if r.annotated_ranks is not None:
                arrays[f"r{i}_ann"] = r.annotated_ranks
        for i, p in enumerate(self.pairs.values()):
            head["pairs"].append({"a": p.a, "b": p.b, "partial": p.both_annotated_ranks is not None})
            arrays[f"p{i}_steps"], arrays[f"p{i}_tp"] = p.both_steps, p.both_tp_ranks
            if p.both_annotated_ranks is not None:
                arrays[f"p{i}_ann"] = p.both_annotated_ranks
        buffer = io.BytesIO()
        np.savez(buffer, head=np.frombuffer(json.dumps(head).encode(), dtype=np.uint8), **arrays)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> "CountTables":
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            head = json.loads(z["head"].tobytes().decode())
            if head.get("version") != FORMAT_VERSION:
                raise ParameterError(f"count tables of format {head.get('version')!r}; this evalcore reads "
                                     f"{FORMAT_VERSION}: count them again")
            n = int(head["n"])
            pairs = {(p["a"], p["b"]): PairCounts(p["a"], p["b"], n, z[f"p{i}_steps"], z[f"p{i}_tp"],
                                                  z[f"p{i}_ann"] if p["partial"] else None)
                     for i, p in enumerate(head["pairs"])}
            rankings = {}
            for i, r in enumerate(head["rankings"]):
                rankings[r["column"]] = RankCounts(
                    measure=r["measure"], n_candidates=n, tp_ranks=z[f"r{i}_tp"], tie_start=z[f"r{i}_ts"],
                    tie_end=z[f"r{i}_te"], ties=r["ties"], seed=r["seed"], n_nonfinite=r["nonfinite"],
                    higher_is_better=r["higher"], annotated_ranks=z[f"r{i}_ann"] if r["partial"] else None,
                    column=r["column"], engine=head["engine"], ties_known=r["ties_known"])
        return assemble(rankings, pairs, n, head["engine"], head.get("label", ""), head.get("source", ""),
                        head.get("excluded", 0))


@dataclass(frozen=True, eq=False)
class CountedCandidates:
    """A candidate set known by its count tables only: what a report or a page asks of it, no single candidate."""

    n_candidates: int
    n_tp: int
    measures: tuple[str, ...]
    directions: Mapping[str, str]
    label_column: str
    source: str
    excluded_unlabelled: int = 0
    samples: None = None
    keys: None = None
    annotated: None = None

    @property
    def baseline(self) -> float:
        return self.n_tp / self.n_candidates if self.n_candidates else float("nan")

    def higher_is_better(self, measure: str) -> bool:
        if measure not in self.directions:
            raise ParameterError(f"{self.source}: no score column {shown(measure)}; the score columns are "
                                 f"{listed(self.measures, cut)}")
        return self.directions[measure] == "higher"


def assemble(rankings: Mapping[str, RankCounts], pairs: Mapping[tuple[str, str], PairCounts], n_candidates: int,
             engine: str, label: str = "", source: str = "", excluded_unlabelled: int = 0) -> CountTables:
    """A :class:`CountTables` whose rankings know their pair tables (``RankCounts.pairs``)."""
    linked = {}
    for column, r in rankings.items():
        mine = {(p.b if p.a == column else p.a): p for p in pairs.values() if column in (p.a, p.b)}
        linked[column] = replace(r, pairs=mine, engine=engine)
    return CountTables(rankings=linked, pairs=dict(pairs), n_candidates=int(n_candidates), engine=engine,
                       label=label, source=source, excluded_unlabelled=int(excluded_unlabelled))


def from_sorted(measure: str, n_candidates: int, labels_sorted: np.ndarray, keys_sorted: np.ndarray, *,
                ties: str, seed: int | None, n_nonfinite: int, higher_is_better: bool,
                annotated_sorted: np.ndarray | None = None, column: str = "", engine: str = "memory") -> RankCounts:
    """A :class:`RankCounts` from one ranking's labels and sort keys in ranking order (all in memory).

    ``keys_sorted`` are the sort keys (equal keys = a tie group, non-finite scores as +inf); the engines that
    stream a ranking in chunks use :class:`RankBuilder` instead.
    """
    builder = RankBuilder(measure, n_candidates, ties=ties, seed=seed, n_nonfinite=n_nonfinite,
                          higher_is_better=higher_is_better, partial=annotated_sorted is not None, column=column,
                          engine=engine)
    builder.add(labels_sorted, keys_sorted, annotated_sorted)
    return builder.finish()


class RankBuilder:
    """Builds a :class:`RankCounts` from a ranking streamed in chunks, best first (labels, keys, annotated)."""

    def __init__(self, measure: str, n_candidates: int, *, ties: str, seed: int | None, n_nonfinite: int,
                 higher_is_better: bool, partial: bool, column: str = "", engine: str = "memory") -> None:
        self.meta = dict(measure=measure, n_candidates=int(n_candidates), ties=ties, seed=seed,
                         n_nonfinite=int(n_nonfinite), higher_is_better=higher_is_better, column=column or measure,
                         engine=engine)
        self.partial = partial
        self.done = 0
        self.tp: list[np.ndarray] = []
        self.ann: list[np.ndarray] = []
        self.starts: list[np.ndarray] = []  # positions where a new group begins
        self.last_key = None

    def add(self, labels: np.ndarray, keys: np.ndarray, annotated: np.ndarray | None = None) -> np.ndarray:
        """Add the next chunk of the ranking; returns the chunk's 1-based ranks."""
        size = int(labels.shape[0])
        ranks = np.arange(self.done + 1, self.done + size + 1, dtype=np.int64)
        labels = np.asarray(labels, dtype=bool)
        if self.partial:
            annotated = np.asarray(annotated, dtype=bool)
            labels = labels & annotated
            self.ann.append(ranks[annotated])
        self.tp.append(ranks[labels])
        if size:
            keys = np.asarray(keys)
            new = np.empty(size, dtype=bool)
            new[0] = self.last_key is None or keys[0] != self.last_key
            np.not_equal(keys[1:], keys[:-1], out=new[1:])
            self.starts.append(ranks[new] - 1)
            self.last_key = keys[-1]
        self.done += size
        return ranks

    def finish(self) -> RankCounts:
        n = self.meta["n_candidates"]
        if self.done != n:
            raise ParameterError(f"ranking by {self.meta['measure']!r}: counted {self.done:,} of {n:,} candidates")
        starts = np.concatenate(self.starts) if self.starts else np.zeros(0, np.int64)
        ends = np.r_[starts[1:], n].astype(np.int64)
        big = ends - starts > 1
        return RankCounts(tp_ranks=np.concatenate(self.tp) if self.tp else np.zeros(0, np.int64),
                          tie_start=starts[big], tie_end=ends[big],
                          annotated_ranks=(np.concatenate(self.ann) if self.ann else np.zeros(0, np.int64))
                          if self.partial else None, **self.meta)


def pair_from_ranks(a: str, b: str, ranks_a: np.ndarray, ranks_b: np.ndarray, labels: np.ndarray,
                    annotated: np.ndarray | None = None) -> PairCounts:
    """A :class:`PairCounts` from the ranks of every candidate under both rankings (all in memory)."""
    n = int(ranks_a.shape[0])
    builder = PairBuilder(a, b, n, partial=annotated is not None)
    builder.add(ranks_a, ranks_b, labels, annotated)
    return builder.finish()


class PairBuilder:
    """Builds a :class:`PairCounts` from chunks of ``max(rank_a, rank_b)`` with labels (and annotated flags)."""

    def __init__(self, a: str, b: str, n_candidates: int, *, partial: bool) -> None:
        self.a, self.b, self.n = a, b, int(n_candidates)
        self.steps = np.zeros(self.n + 1, dtype=np.uint8)
        self.tp: list[np.ndarray] = []
        self.ann: list[np.ndarray] | None = [] if partial else None

    def add(self, ranks_a: np.ndarray, ranks_b: np.ndarray, labels: np.ndarray,
            annotated: np.ndarray | None = None) -> None:
        """Add candidates by their ranks under both rankings (any chunk of the candidates, each once).

        ``both = max(rank_a, rank_b)``; where ``rank_a >= rank_b`` it is a rank of A, elsewhere a rank of B, and the
        ranks of one ranking are distinct, so each part is a plain scatter (``np.add.at`` costs ten times more).
        """
        ranks_a = np.asarray(ranks_a, dtype=np.int64)
        ranks_b = np.asarray(ranks_b, dtype=np.int64)
        from_a = ranks_a >= ranks_b
        self.steps[ranks_a[from_a]] += 1
        self.steps[ranks_b[~from_a]] += 1
        both = np.maximum(ranks_a, ranks_b)
        labels = np.asarray(labels, dtype=bool)
        if self.ann is not None:
            annotated = np.asarray(annotated, dtype=bool)
            labels = labels & annotated
            self.ann.append(both[annotated])
        self.tp.append(both[labels])

    def finish(self) -> PairCounts:
        total = int(self.steps.sum(dtype=np.int64))
        if total != self.n:
            raise ParameterError(f"pair {self.a!r}, {self.b!r}: counted {total:,} of {self.n:,} candidates")
        tp = np.sort(np.concatenate(self.tp)) if self.tp else np.zeros(0, np.int64)
        ann = None if self.ann is None else (np.sort(np.concatenate(self.ann)) if self.ann else np.zeros(0, np.int64))
        return PairCounts(self.a, self.b, self.n, self.steps, tp, ann)
