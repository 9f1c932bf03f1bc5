"""The memory engine: today's path (:func:`evalcore.ranking.rank` in NumPy), its rankings turned into count tables.

For what fits comfortably in memory; every tie policy, ``random`` (a NumPy permutation) included.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

import numpy as np

from ..candidates import CandidateSet
from ..ranking import Ranking, rank, resolve_seed
from .counts import CountTables, PairCounts, RankCounts, assemble, pair_from_ranks


def counts_of(ranking: Ranking, column: str | None = None) -> RankCounts:
    """The count table of a ranking made in memory."""
    starts = np.flatnonzero(np.r_[True, ranking.group_start[1:] != ranking.group_start[:-1]])
    ends = ranking.group_end[starts]
    big = ends - starts > 1
    return RankCounts(
        measure=ranking.measure, n_candidates=ranking.n_candidates,
        tp_ranks=np.flatnonzero(np.diff(ranking.tp)) + 1, tie_start=starts[big], tie_end=ends[big],
        ties=ranking.ties, seed=ranking.seed, n_nonfinite=ranking.n_nonfinite,
        higher_is_better=ranking.higher_is_better, annotated_ranks=ranking.annotated_ranks,
        column=column or ranking.measure, engine="memory")


def pair_of(a: Ranking, b: Ranking, labels: np.ndarray, annotated: np.ndarray | None,
            columns: tuple[str, str] | None = None) -> PairCounts:
    ca, cb = columns or (a.measure, b.measure)
    return pair_from_ranks(ca, cb, a.ranks, b.ranks, labels, annotated)


def count_tables(candidates: CandidateSet, measures: Sequence[str] | None = None, *, ties: str = "hash",
                 seed: int | None = None, pairs: bool = True, progress=None) -> CountTables:
    """Rank ``candidates`` by each measure in memory and count (see :func:`evalcore.engines.count_tables`)."""
    measures = tuple(measures or candidates.measures)
    seed = resolve_seed(ties, seed)
    rankings = {}
    tables = {}
    for i, m in enumerate(measures):
        rankings[m] = rank(candidates, m, ties=ties, seed=seed)
        tables[m] = counts_of(rankings[m], m)
        if progress:
            progress(i + 1, len(measures) + (len(measures) * (len(measures) - 1) // 2 if pairs else 0))
    pair_tables = {}
    if pairs:
        for a, b in combinations(measures, 2):
            pair_tables[(a, b)] = pair_of(rankings[a], rankings[b], candidates.labels, candidates.annotated, (a, b))
    return assemble(tables, pair_tables, candidates.n_candidates, "memory", candidates.label_column,
                    candidates.source, candidates.excluded_unlabelled)


def load(source) -> CandidateSet:
    """A :class:`~evalcore.engines.source.TableSource` read into memory by evalcore's readers (today's path); a
    folder of Parquet parts is read part by part, in the order of their names."""
    from ..io import load_annotated_sample, load_candidates

    if len(source.files) == 1:
        data, name = source.files[0], source.name
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = pa.concat_tables([pq.read_table(f) for f in source.files]).to_pandas()
        name = source.name
    common = dict(label=source.label, scores=list(source.scores) or None, lower_is_better=source.lower, name=name,
                  where="cli")
    if source.annotated_sample:
        return load_annotated_sample(data, **common).candidates
    return load_candidates(data, sample=False, exclude_unlabelled=source.exclude_unlabelled, **common)


class MemoryEngine:
    """The memory engine as an object with the other engines' methods."""

    name = "memory"

    def count_tables(self, data, measures=None, *, ties="hash", seed=None, pairs=True, progress=None):
        candidates = data if isinstance(data, CandidateSet) else load(data)
        return count_tables(candidates, measures, ties=ties, seed=seed, pairs=pairs, progress=progress)

    def sample_ranks(self, data, measures=None, *, ties="hash", seed=None, progress=None):
        """Ranks of the annotated candidates from the full rankings (the reference the one-pass engines equal)."""
        from .sampleranks import SampleRanks

        candidates = data if isinstance(data, CandidateSet) else load(data)
        measures = tuple(measures or candidates.measures)
        seed = resolve_seed(ties, seed)
        idx = np.flatnonzero(candidates.annotated_mask)
        ranks, higher, nonfinite = {}, {}, {}
        for m in measures:
            r = rank(candidates, m, ties=ties, seed=seed)
            ranks[m], higher[m], nonfinite[m] = r.ranks[idx], r.higher_is_better, r.n_nonfinite
        return SampleRanks(rows=candidates.rows[idx] - 1, labels=candidates.labels[idx], ranks=ranks,
                           n_candidates=candidates.n_candidates, ties=ties, seed=seed, engine="memory",
                           higher=higher, nonfinite=nonfinite)
