"""Engines behind the ranking: memory (NumPy), DuckDB (embedded, out of core) and Spark (a cluster).

Each turns (candidates, measures, ties, seed) into the same count tables (:mod:`evalcore.engines.counts`): per
ranking the sorted ranks of its TPs (the TP count at every n is a step function of them), of its annotated
candidates, and its tie groups; per pair of rankings the overlap of the n-best lists at every n (one byte per n) and
the TPs in both. The statistics downstream take those tables as they take a :class:`~evalcore.ranking.Ranking`
(:func:`evalcore.curves.precision_curve`, :func:`evalcore.compare.compare_rankings`, :mod:`evalcore.estimates`) and,
for sets of any size, chunk by chunk (:mod:`evalcore.engines.chunked`).

=========  ==========================================================  ======================================
engine     reads                                                       tie policies
=========  ==========================================================  ======================================
memory     a :class:`~evalcore.candidates.CandidateSet`, or any file   all (``random`` is a NumPy permutation)
duckdb     a :class:`~evalcore.engines.source.TableSource` (Parquet,   stable, hash, optimistic, pessimistic
           a folder of Parquet parts, CSV/TSV)
spark      the same, on a local or remote Spark session                stable, hash, optimistic, pessimistic
=========  ==========================================================  ======================================

``hash`` orders each tie group by a SplitMix64 hash of the seed and the row (:func:`evalcore.ranking.tie_hash`),
which every engine computes alike; ``random`` keeps today's NumPy permutation, so links and signatures made with it
repeat their numbers.

:func:`sample_ranks` gives the ranks of the annotated candidates of a partly annotated set among all N in one pass
(no sort of the N): what the sample estimates need.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .. import names
from ..candidates import CandidateSet
from ..errors import ParameterError
from .counts import CountTables, PairCounts, RankCounts, TooLargeError
from .sampleranks import SampleRanks
from .source import TableSource

ENGINES = names.ENGINES

__all__ = ["ENGINES", "CountTables", "RankCounts", "PairCounts", "SampleRanks", "TableSource", "TooLargeError",
           "count_tables", "sample_ranks", "engine"]


def check_engine(name: str) -> str:
    if name not in ENGINES:
        raise ParameterError(f"`engine` must be one of {', '.join(ENGINES)}; got {name!r}")
    return name


def engine(name: str, **options):
    """The engine object by name (``duckdb``: :class:`DuckDBEngine`, ``spark``: :class:`SparkEngine`)."""
    check_engine(name)
    if name == "duckdb":
        from .duckdb_engine import DuckDBEngine

        return DuckDBEngine(**options)
    if name == "spark":
        from .spark_engine import SparkEngine

        return SparkEngine(**options)
    from . import memory

    return memory.MemoryEngine(**options)


def count_tables(data: CandidateSet | TableSource, measures: Sequence[str] | None = None, *, engine: str = "memory",
                 ties: str = "hash", seed: int | None = None, pairs: bool = True,
                 progress: Callable[[int, int], None] | None = None, **options) -> CountTables:
    """The count tables of a candidate set ranked by each of ``measures``, on one engine.

    Parameters
    ----------
    data : CandidateSet or TableSource
        A candidate set in memory (memory engine only) or a set on disk.
    measures : sequence of str, optional
        The measures to rank by (default: every score column).
    engine : {"memory", "duckdb", "spark"}
    ties : str
        The tie policy (:data:`evalcore.names.TIE_POLICIES`; ``random`` on the memory engine only).
    seed : int, optional
        For ``hash`` and ``random``: a fresh one is drawn (and recorded in the tables) when omitted.
    pairs : bool
        Also count every pair of measures (the difference regions D1 and D2 at every n).
    progress : callable, optional
        ``progress(done, total)`` during the passes (rows handled).
    **options
        Engine options (DuckDB: ``memory_limit``, ``threads``, ``temp_directory``; Spark: ``session``).

    Returns
    -------
    CountTables
        Identical on every engine for the same data, measures, ties and seed.
    """
    return _engine_for(data, engine, **options).count_tables(data, measures, ties=ties, seed=seed, pairs=pairs,
                                                             progress=progress)


def sample_ranks(data: CandidateSet | TableSource, measures: Sequence[str] | None = None, *,
                 engine: str = "duckdb", ties: str = "hash", seed: int | None = None,
                 progress: Callable[[int, int], None] | None = None, **options) -> SampleRanks:
    """The ranks of the annotated candidates under each measure among all N, in one pass over the data.

    Notes
    -----
    ``rank(x) = #{y : key(y) < key(x)} + #{y : key(y) = key(x), t(y) < t(x)} + 1`` with t the tie policy's order
    (:mod:`evalcore.engines.sampleranks`): a binary search of each candidate's key among the k sample keys, O(N log
    k), instead of sorting the N. Equal to the ranks of the full ranking on every engine.
    """
    return _engine_for(data, engine, **options).sample_ranks(data, measures, ties=ties, seed=seed,
                                                             progress=progress)


def _engine_for(data, name: str, **options):
    check_engine(name)
    if isinstance(data, CandidateSet) and name != "memory":
        raise ParameterError(f"the {name} engine reads a file or folder (a TableSource), not a candidate set in "
                             "memory")
    return engine(name, **options)
