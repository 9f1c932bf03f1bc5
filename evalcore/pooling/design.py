"""Annotation designs: a random sample (of the whole set or of a top-K frame), the pool, or the pool and a sample.

=================  ===========================================================================================
kind               what is annotated
=================  ===========================================================================================
``sample``         a seeded simple random sample of m candidates of the frame (the whole set, or the union of
                   the top-K lists of chosen measures): Evert & Krenn (2005), evalcore's first design
``pool``           the whole frame, the union of the top-K lists (the *pool*, as TREC's judging pools):
                   every n-best list of a pooled measure with n <= K is known exactly
``pool+sample``    the pool, and a seeded simple random sample of m candidates from outside it: exact
                   inside the pool, unbiased beyond it (two strata, one of them complete)
``stratified``     rank bands of chosen measures, each a seeded simple random sample of its own size
                   (:mod:`.stratified`: its own class, :class:`~.stratified.StratifiedDesign`)
=================  ===========================================================================================

A design is stored with its sample in the annotation database: its frame (the pool of a pooled design) as the
sample's frame record, and its kind and its pool's size in the sample's design record (:meth:`Design.record`,
:meth:`Design.from_record`; m is the stored size less the pool's); a sample stored without a kind is a ``sample``
design, as every sample drawn before pooled designs existed.

The annotation order (:func:`draw_design`) puts the pool first, in a seeded random order (annotators see no rank
order), then the sample of the rest as :func:`evalcore.estimates.draw_sample` draws it: the same seed and a larger
m extend the sample, and any prefix of the rest's order is a simple random sample of the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..estimates import SamplingFrame, draw_sample
from ..ranking import Ranking, rank
from ..text import shown

DESIGN_KINDS = {
    "sample": "a random sample",
    "pool": "the pool (the union of the top-K lists, annotated whole)",
    "pool+sample": "the pool and a random sample of the rest",
    "stratified": "rank bands, each a random sample of its own size",
}
POOLED = ("pool", "pool+sample")
_POOL_STREAM = 0x9001  # the pool's order comes from its own stream of the seed (the rest's is draw_sample's)


@dataclass(frozen=True)
class Design:
    """What is annotated: the design's kind, its frame or pool, the size of its random sample and the seed.

    Attributes
    ----------
    kind : {"sample", "pool", "pool+sample"}
        See :data:`DESIGN_KINDS`.
    frame : SamplingFrame
        ``sample``: where the sample is drawn (the whole set by default). ``pool`` and ``pool+sample``: the pool,
        the union of the top-K lists of ``frame.measures`` under ``frame.ties`` (and its seed).
    size : int
        m, the candidates of the random sample: of the frame (``sample``) or of the rest of the candidates
        (``pool+sample``); 0 for ``pool``.
    seed : int or None
        Seed of the draw (and of the pool's annotation order); None where it is not known (a design stated on the
        command line for a file that does not carry its seed): it is described as "seed unknown", and cannot be
        drawn again.
    """

    kind: str = "sample"
    frame: SamplingFrame = SamplingFrame()
    size: int = 0
    seed: int | None = 0

    def __post_init__(self) -> None:
        if self.kind == "stratified":
            raise ParameterError("`kind` 'stratified' is a StratifiedDesign (evalcore.pooling.stratified), with its "
                                 "bands and their sizes; Design holds the other kinds")
        if self.kind not in DESIGN_KINDS:
            raise ParameterError(f"`kind` of a design must be one of {', '.join(DESIGN_KINDS)}; got {self.kind!r}")
        if not isinstance(self.frame, SamplingFrame):
            raise ParameterError(f"`frame` must be a SamplingFrame; got {type(self.frame).__name__}")
        if self.pooled and self.frame.whole:
            raise ParameterError(f"a {self.kind!r} design needs a pool: the measures and the depth K of the top-K "
                                 "lists whose union is annotated whole")
        if isinstance(self.size, (bool, np.bool_)) or not isinstance(self.size, (int, np.integer)) or self.size < 0:
            raise ParameterError(f"`size` (m) of a design must be a whole number >= 0; got {self.size!r}")
        if self.kind == "pool" and self.size:
            raise ParameterError(f"a 'pool' design has no random sample (size 0); got size {self.size}: use "
                                 "'pool+sample' for a sample of the rest")
        if self.seed is not None and (isinstance(self.seed, (bool, np.bool_))
                                      or not isinstance(self.seed, (int, np.integer)) or self.seed < 0):
            raise ParameterError(f"`seed` of a design must be a non-negative whole number (or None: not known); got "
                                 f"{self.seed!r}")
        object.__setattr__(self, "size", int(self.size))
        object.__setattr__(self, "seed", None if self.seed is None else int(self.seed))

    @property
    def pooled(self) -> bool:
        """True for ``pool`` and ``pool+sample``: a stratum annotated whole."""
        return self.kind in POOLED

    @property
    def stratified(self) -> bool:
        """False: a stratified design is a :class:`~.stratified.StratifiedDesign`."""
        return False

    @property
    def rest_sampled(self) -> bool:
        """True for ``pool+sample``: the candidates outside the pool are sampled."""
        return self.kind == "pool+sample"

    @property
    def depth(self) -> int:
        """K, the depth of the pool (0 for a random sample of the whole set)."""
        return int(self.frame.k)

    # ------------------------------------------------------------------------------- masks and sizes
    def pool_mask(self, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> np.ndarray | None:
        """The pool as a True/False mask over the candidates (None for a ``sample`` design)."""
        if not self.pooled:
            return None
        return self.frame.mask(candidates, rankings)

    def frame_mask(self, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> np.ndarray | None:
        """The sampling frame of a ``sample`` design (None: the whole set); None for the pooled kinds (their
        sample, if any, is of the rest of the candidates)."""
        if self.pooled:
            return None
        return self.frame.mask(candidates, rankings)

    def annotations(self, pool_size: int) -> int:
        """How many candidates the design annotates, given its pool's size (:func:`pool_size`)."""
        return (pool_size if self.pooled else 0) + self.size

    # ------------------------------------------------------------------------------------- in words
    @property
    def seed_words(self) -> str:
        """``seed 7``, or ``seed unknown`` where the design does not know its seed (never a made-up number)."""
        return "seed unknown" if self.seed is None else f"seed {self.seed}"

    def describe(self, pool_size: int | None = None) -> str:
        """The design in words, for notes on pages, the methods text and the command line."""
        if not self.pooled:
            where = "the whole candidate set" if self.frame.whole else self.frame.describe().replace(
                "a simple random sample of ", "")
            return f"a simple random sample of {self.size:,} candidates of {where} ({self.seed_words})"
        f = self.frame
        ties = f"ties {f.ties}" + (f", tie seed {f.seed}" if f.seed is not None else "")
        pool = (f"the pool, the union of the top {f.k:,} candidates of {', '.join(f.measures)} ({ties}"
                + (f"; {pool_size:,} candidates" if pool_size is not None else "") + "), annotated whole")
        if self.kind == "pool":
            return pool
        return f"{pool}, and a simple random sample of {self.size:,} of the other candidates ({self.seed_words})"

    def short(self) -> str:
        """A few words for a signature line: ``pool+sample G2,t K=120 m=200 seed 7``."""
        if not self.pooled:
            where = "whole set" if self.frame.whole else f"top {self.frame.k} of {','.join(self.frame.measures)}"
            return f"sample m={self.size} of {where} {self.seed_words}"
        out = f"{self.kind} {','.join(self.frame.measures)} K={self.frame.k} ties {self.frame.ties}"
        if self.frame.seed is not None:
            out += f" tie-seed {self.frame.seed}"
        return out + (f" m={self.size} {self.seed_words}" if self.rest_sampled else "")

    # ------------------------------------------------------------------- stored with the sample
    def record(self, pool_size: int) -> dict:
        """The design's fields for the sample's design record in the annotation database (JSON values only): its
        kind and its pool's size. The frame is the sample's own frame record (``frame.to_dict()``), the seed the
        sample's seed, and m the stored size less the pool's, so a larger m with the same seed extends the stored
        sample (the record stays the same). A ``sample`` design has no further fields."""
        if not self.pooled:
            return {}
        return {"kind": self.kind, "pool_size": int(pool_size)}

    @classmethod
    def from_record(cls, frame: SamplingFrame | Mapping | None, design: Mapping | None, seed: int | None,
                    size: int | None = None) -> "Design":
        """The design of a stored sample: its frame record, its design record, its seed and its stored size.

        A sample without ``kind`` in its design record is a ``sample`` design of its stored size (every sample
        drawn before pooled designs existed, and samples imported from a file). A pooled one's m is its stored
        size less its pool's."""
        if frame is None:
            frame = SamplingFrame()
        elif not isinstance(frame, SamplingFrame):
            frame = SamplingFrame.from_dict(frame)
        design = dict(design or {})
        kind = design.get("kind", "sample")
        if kind not in DESIGN_KINDS:
            raise ParameterError(f"the sample's design names the kind {shown(kind, 40)}; evalcore knows "
                                 f"{', '.join(DESIGN_KINDS)}")
        if kind == "stratified":
            from .stratified import StratifiedDesign

            return StratifiedDesign.from_record(frame, design, seed, size)
        size = int(size or 0)
        seed = None if seed is None else int(seed)  # (a sample imported without a seed: unknown, not 0)
        if kind == "sample":
            return cls(kind=kind, frame=frame, size=size, seed=seed)
        pool = design.get("pool_size")
        if isinstance(pool, bool) or not isinstance(pool, (int, np.integer)) or not 1 <= pool <= max(size, 1):
            raise ParameterError(f"the sample's design has a pool of {shown(pool, 40)} candidates; it must be a "
                                 f"whole number in 1..{max(size, 1):,} (the sample's size)")
        m = size - int(pool) if kind == "pool+sample" else 0
        return cls(kind=kind, frame=frame, size=m, seed=seed)

    def to_dict(self) -> dict:
        """Everything in one JSON-able dict (the signature and ``data.json``)."""
        return {"kind": self.kind, "frame": self.frame.to_dict(), "size": self.size, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Mapping) -> "Design":
        if data.get("kind") == "stratified":
            from .stratified import StratifiedDesign

            return StratifiedDesign.from_dict(data)
        return cls(kind=data.get("kind", "sample"), frame=SamplingFrame.from_dict(data.get("frame", {})),
                   size=int(data.get("size", 0)), seed=None if data.get("seed", 0) is None else int(data["seed"]))


def parse_pool(text: str) -> tuple[tuple[str, ...], int]:
    """``"M1,M2:K"`` (the command line's ``--pool``) as (measures, K)."""
    measures, sep, depth = str(text).rpartition(":")
    names = tuple(m.strip() for m in measures.split(",") if m.strip()) if sep else ()
    try:
        k = int(depth)
    except ValueError:
        k = 0
    if not names or k < 1:
        raise ParameterError(f"a pool is given as MEASURE[,MEASURE...]:K, e.g. log.like,t.score:150; got {shown(text)}")
    return names, k


# ------------------------------------------------------------------------------------ pool sizes
def best_ranks(rankings, what: str = "a pool") -> np.ndarray:
    """Each candidate's best (smallest) rank among the rankings: it is in the pool of depth K iff best <= K (and in
    a stratified design's band by it: :func:`evalcore.pooling.stratified.best_rank`). ``what`` names the design in
    messages."""
    rankings = list(rankings)
    if not rankings:
        raise ParameterError(f"{what} needs at least one measure")
    best = rankings[0].ranks.copy()
    for r in rankings[1:]:
        if r.n_candidates != best.size:
            raise ParameterError(f"the rankings of {what} must be of one candidate set")
        np.minimum(best, r.ranks, out=best)
    return best


def pool_sizes(rankings) -> np.ndarray:
    """The pool's size at every depth: ``out[K]`` = |union of the top-K lists| for K = 0..N (exact, from the data:
    it depends on how much the lists overlap). O(N) per ranking."""
    best = best_ranks(rankings)
    return np.concatenate([[0], np.cumsum(np.bincount(best, minlength=best.size + 1)[1:])]).astype(np.int64)


def pool_size(candidates: CandidateSet, frame: SamplingFrame, rankings: Mapping[str, Ranking] | None = None) -> int:
    """|union of the top-K lists| of the frame's measures."""
    return int(frame.mask(candidates, rankings).sum())


def deepest_pool(rankings, budget: int) -> int:
    """The largest depth K whose pool holds at most ``budget`` candidates (0 if even K = 1 does not fit)."""
    sizes = pool_sizes(rankings)
    return int(np.searchsorted(sizes, budget, side="right") - 1)


# ------------------------------------------------------------------------------------ the draw
def draw_design(design: Design, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> np.ndarray:
    """The design's candidates in annotation order (0-based indices).

    ``sample``: :func:`evalcore.estimates.draw_sample` of the frame. Pooled kinds: the pool in a seeded random
    order, then (``pool+sample``) ``draw_sample`` of the candidates outside the pool, so a larger m with the same
    seed extends the order, and every prefix of the rest's part is a simple random sample of the rest.
    """
    if design.seed is None:
        raise ParameterError("a design whose seed is unknown cannot be drawn again; give the seed it was drawn with")
    if not design.pooled:
        mask = design.frame_mask(candidates, rankings)
        return draw_sample(candidates.n_candidates if mask is None else mask, design.size, design.seed)
    pool = design.pool_mask(candidates, rankings)
    order = np.random.default_rng([design.seed, _POOL_STREAM]).permutation(np.flatnonzero(pool))
    if not design.rest_sampled:
        return order.astype(np.int64)
    outside = int((~pool).sum())
    if design.size > outside:
        raise ParameterError(f"`size` (m) must be at most {outside:,}, the candidates outside the pool; got "
                             f"{design.size:,}")
    return np.concatenate([order, draw_sample(~pool, design.size, design.seed)]).astype(np.int64)


def rankings_for(candidates: CandidateSet, frame: SamplingFrame) -> dict[str, Ranking]:
    """The rankings that define a frame's top-K lists (its tie policy and seed)."""
    return {m: rank(candidates, m, ties=frame.ties, seed=frame.seed) for m in frame.measures}


# ------------------------------------------------------------------------------- pool progress
@dataclass(frozen=True)
class PoolProgress:
    """How much of a pool is annotated TP or FP (unsure and unmarked candidates are not)."""

    size: int
    annotated: int

    @property
    def complete(self) -> bool:
        return self.annotated == self.size

    @property
    def missing(self) -> int:
        return self.size - self.annotated

    def describe(self) -> str:
        if self.complete:
            return f"the pool is annotated whole ({self.size:,} candidates)"
        return (f"{self.annotated:,} of the pool's {self.size:,} candidates are annotated TP or FP; the pooled "
                f"estimates appear when all are ({self.missing:,} to go; an 'unsure' mark does not count)")


def pool_progress(candidates: CandidateSet, pool: np.ndarray) -> PoolProgress:
    """How many of the pool's candidates carry a TP or FP label."""
    pool = np.asarray(pool, dtype=bool)
    return PoolProgress(size=int(pool.sum()), annotated=int((pool & candidates.annotated_mask).sum()))
