"""A stratified design: rank bands of one measure (or of the best rank over several), each sampled at its own size.

The candidates are cut into *bands* by their rank under the design's measure (or, with several measures, by their
best rank over them, as a pool's union of top-K lists): widths ``100,400,1500,rest`` make the bands of ranks 1-100,
101-500, 501-2,000 and 2,001-N. Each band is sampled without replacement at its own size (``50,75,180,195``); a
band sampled whole is a pool (its lists are known exactly). Ties at a band's edge are ordered by the design's tie
policy and seed (``stable``, ``random`` or ``hash``: orders that do not look at the labels), stored with it, so the
same bands are found again wherever the design is read.

A design is stored with its sample in the annotation database like the other designs (:mod:`.design`): the frame
record names the measures, their tie policy and seed, and ``k`` the ranks the bands cut (the sum of the widths
before the rest); the design record holds ``kind: "stratified"``, the ``widths`` and the ``sizes`` per band
(:meth:`StratifiedDesign.record`, :meth:`StratifiedDesign.from_record`).

The annotation order (:func:`draw_stratified`) is a seeded random order of the union of the bands' samples
(annotators see no rank order), each band's sample a seeded simple random sample of the band. Any prefix of that
order holds, in each band, a simple random sample of the band (a random subset of one): the estimates of
:mod:`.stratified_estimators` use the annotated candidates of each band, whatever their number, so they hold
while the annotation is under way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..estimates import SamplingFrame
from ..ranking import Ranking, rank
from .design import best_ranks

KIND = "stratified"
STRATIFIED_TIES = ("stable", "random", "hash")  # tie orders that do not look at the labels
MAX_BANDS = 50
_STREAM = 0x5712A7  # the bands' draws and the annotation order come from their own streams of the seed


# ---------------------------------------------------------------------------------------------- parsing
def parse_widths(text: str | Sequence, n_candidates: int | None = None) -> tuple[int, ...]:
    """Band widths as the command line and the Annotate page write them: ``"100,400,1500,rest"``.

    The last band is the rest of the candidates: it may be written ``rest`` (or left out), or as the number that
    makes the widths add up to N. Returns the widths before the rest, e.g. ``(100, 400, 1500)``.

    Examples
    --------
    >>> parse_widths("100,400,1500,rest")
    (100, 400, 1500)
    >>> parse_widths("100,400,1500,3102", 5102)
    (100, 400, 1500)
    """
    items = [str(x).strip() for x in (text.split(",") if isinstance(text, str) else text)]
    items = [x for x in items if x]
    if items and items[-1].lower() == "rest":
        items = items[:-1]
    widths = []
    for item in items:
        if not re.fullmatch(r"[0-9]{1,12}", item) or int(item) < 1:
            raise ParameterError(f"band widths are whole numbers >= 1 separated by commas, the last band 'rest', "
                                 f"e.g. 100,400,1500,rest; got {str(text)[:80]!r}")
        widths.append(int(item))
    if n_candidates is not None and len(widths) > 1 and sum(widths) == n_candidates:
        widths = widths[:-1]  # the last width written out: the rest
    if not widths:
        raise ParameterError(f"a stratified design needs at least two bands (one width and the rest), e.g. "
                             f"100,400,1500,rest; got {str(text)[:80]!r}")
    if len(widths) + 1 > MAX_BANDS:
        raise ParameterError(f"a stratified design has at most {MAX_BANDS} bands; got {len(widths) + 1}")
    if n_candidates is not None and sum(widths) >= n_candidates:
        raise ParameterError(f"the band widths {', '.join(map(str, widths))} cover {sum(widths):,} ranks; the "
                             f"candidate set has {n_candidates:,}, so the last band (the rest) would be empty: "
                             "make the widths smaller")
    return tuple(widths)


def parse_sizes(text: str | Sequence, counts: Sequence[int] | None = None) -> tuple[int, ...]:
    """Sample sizes per band: ``"50,75,180,195"``; ``all`` samples a band whole (its candidates, from ``counts``).

    Examples
    --------
    >>> parse_sizes("all,35,140,225", counts=(100, 400, 1500, 3102))
    (100, 35, 140, 225)
    """
    items = [str(x).strip() for x in (text.split(",") if isinstance(text, str) else text)]
    items = [x for x in items if x]
    sizes = []
    for i, item in enumerate(items):
        if item.lower() == "all":
            if counts is None or i >= len(counts):
                raise ParameterError("a band's size 'all' needs the band's candidates: give the number instead")
            sizes.append(int(counts[i]))
        elif re.fullmatch(r"[0-9]{1,12}", item):
            sizes.append(int(item))
        else:
            raise ParameterError(f"band sample sizes are whole numbers >= 0 (or 'all': the band whole) separated by "
                                 f"commas, e.g. 50,75,180,195; got {str(text)[:80]!r}")
    return tuple(sizes)


def format_widths(widths: Sequence[int]) -> str:
    """``(100, 400, 1500)`` -> ``"100,400,1500,rest"`` (the inverse of :func:`parse_widths`)."""
    return ",".join(str(int(w)) for w in widths) + ",rest"


# ---------------------------------------------------------------------------------------------- bands
def best_rank(rankings: Sequence[Ranking]) -> np.ndarray:
    """Each candidate's best (smallest) rank over the rankings (:func:`evalcore.pooling.design.best_ranks`)."""
    return best_ranks(rankings, what="a stratified design")


def band_of(best: np.ndarray, widths: Sequence[int]) -> np.ndarray:
    """The band (0-based) of each candidate from its best rank: band 0 holds ranks 1..w1, band 1 ranks
    w1+1..w1+w2, ..., the last every rank beyond the widths."""
    edges = np.cumsum(np.asarray(widths, dtype=np.int64))
    return np.searchsorted(edges, np.asarray(best, dtype=np.int64), side="left").astype(np.int64)


@dataclass(frozen=True, eq=False)
class Bands:
    """A stratified design's bands over one candidate set.

    Attributes
    ----------
    band : ndarray of int64, shape (N,)
        Each candidate's band, 0..H-1.
    counts : ndarray of int64, shape (H,)
        The candidates of each band (N_h).
    """

    band: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, best: np.ndarray, widths: Sequence[int]) -> "Bands":
        band = band_of(best, widths)
        return cls(band=band, counts=np.bincount(band, minlength=len(widths) + 1).astype(np.int64))

    @property
    def n_bands(self) -> int:
        return int(self.counts.size)

    @property
    def n_candidates(self) -> int:
        return int(self.band.size)

    def members(self, h: int) -> np.ndarray:
        """The candidates of band h (0-based indices, ascending)."""
        return np.flatnonzero(self.band == h)


# ---------------------------------------------------------------------------------------------- the design
@dataclass(frozen=True)
class StratifiedDesign:
    """Rank bands of the frame's measures, each sampled without replacement at its own size.

    Attributes
    ----------
    frame : SamplingFrame
        The measures whose (best) rank makes the bands, their tie policy and tie seed; ``k`` the ranks the bands
        cut (the sum of ``widths``; the last band is every candidate beyond).
    widths : tuple of int
        The bands' widths in ranks, but the last (the rest): (100, 400, 1500) makes four bands.
    sizes : tuple of int
        The sample size of each band (one more than ``widths``); a band's size equal to its candidates samples it
        whole.
    seed : int
        Seed of the draw and of the annotation order.
    """

    frame: SamplingFrame
    widths: tuple[int, ...]
    sizes: tuple[int, ...]
    seed: int = 0

    kind = KIND
    pooled = False  # (no pool annotated whole before estimates appear; a band sampled whole is exact by itself)
    rest_sampled = False
    stratified = True

    def __post_init__(self) -> None:
        if not isinstance(self.frame, SamplingFrame) or self.frame.whole:
            raise ParameterError("a stratified design needs the measures whose ranks make its bands")
        if self.frame.ties not in STRATIFIED_TIES:
            raise ParameterError(f"a stratified design's bands are cut with ties {', '.join(STRATIFIED_TIES)} (orders "
                                 f"that do not look at the labels); got ties {self.frame.ties!r}")
        widths = tuple(int(w) for w in self.widths)
        sizes = tuple(int(s) for s in self.sizes)
        if not widths or any(w < 1 for w in widths) or len(widths) + 1 > MAX_BANDS:
            raise ParameterError(f"the band widths must be 1 to {MAX_BANDS - 1} whole numbers >= 1 (the last band, the "
                                 f"rest, is not written); got {list(self.widths)[:10]}")
        if len(sizes) != len(widths) + 1:
            raise ParameterError(f"give one sample size per band: {len(widths) + 1} bands "
                                 f"({format_widths(widths)}), {len(sizes)} sizes ({', '.join(map(str, sizes))})")
        if any(s < 0 for s in sizes) or sum(sizes) < 1:
            raise ParameterError(f"band sample sizes must be whole numbers >= 0, at least one above 0; got "
                                 f"{', '.join(map(str, sizes))}")
        if self.frame.k != sum(widths):
            raise ParameterError(f"the frame of a stratified design cuts {sum(widths):,} ranks into bands (the sum of "
                                 f"the widths); its k is {self.frame.k:,}")
        if isinstance(self.seed, (bool, np.bool_)) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ParameterError(f"`seed` of a design must be a non-negative whole number; got {self.seed!r}")
        object.__setattr__(self, "widths", widths)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "seed", int(self.seed))

    @classmethod
    def of(cls, measures: Sequence[str], widths: Sequence[int], sizes: Sequence[int], *, ties: str = "stable",
           tie_seed: int | None = None, seed: int = 0) -> "StratifiedDesign":
        """The design from its parts (the frame is made here)."""
        widths = tuple(int(w) for w in widths)
        frame = SamplingFrame(measures=tuple(measures), k=max(sum(widths), 1), ties=ties, seed=tie_seed)
        return cls(frame=frame, widths=widths, sizes=tuple(sizes), seed=seed)

    # ------------------------------------------------------------------------------ sizes
    @property
    def size(self) -> int:
        """Candidates the design annotates (the sum of the band sizes)."""
        return int(sum(self.sizes))

    @property
    def depth(self) -> int:
        """The first band's width (the ranks of its top band)."""
        return int(self.widths[0])

    @property
    def n_bands(self) -> int:
        return len(self.widths) + 1

    def annotations(self, pool_size: int = 0) -> int:
        return self.size

    def rankings(self, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> list[Ranking]:
        """The rankings that cut the bands (the frame's ties and seed); those given are used where they match."""
        given = dict(rankings or {})
        f = self.frame
        out = []
        for m in f.measures:
            r = given.get(m)
            if r is None or r.ties != f.ties or (f.ties in ("random", "hash") and r.seed != f.seed):
                r = rank(candidates, m, ties=f.ties, seed=f.seed)
            out.append(r)
        return out

    def bands(self, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> Bands:
        """The bands over the candidates, checked against the sizes (a band cannot give more than it holds)."""
        found = Bands.of(best_rank(self.rankings(candidates, rankings)), self.widths)
        self.check_counts(found.counts)
        return found

    def check_counts(self, counts: Sequence[int]) -> None:
        """Each band's sample size is at most its candidates."""
        for h, (size, count) in enumerate(zip(self.sizes, counts)):
            if size > count:
                raise ParameterError(f"band {h + 1} ({self.band_label(h)}) holds {int(count):,} candidates; its sample "
                                     f"size {size:,} is larger: give at most {int(count):,} ('all' samples it whole)")

    def band_label(self, h: int) -> str:
        """Band h in words: ``ranks 101-500``, ``ranks above 2,000``; with several measures, best ranks."""
        edges = np.concatenate([[0], np.cumsum(self.widths)])
        what = "best ranks" if len(self.frame.measures) > 1 else "ranks"
        if h < len(self.widths):
            return f"{what} {edges[h] + 1:,}-{edges[h + 1]:,}"
        return f"{what} above {edges[-1]:,}"

    # ---------------------------------------------------------------------------- in words
    def describe(self, counts: Sequence[int] | None = None) -> str:
        """The design in words, for notes on pages, the methods text and the command line."""
        f = self.frame
        ties = f"ties {f.ties}" + (f", tie seed {f.seed}" if f.seed is not None else "")
        by = (f"the rank of {f.measures[0]}" if len(f.measures) == 1 else
              f"the best rank over {', '.join(f.measures)}")
        parts = []
        for h, size in enumerate(self.sizes):
            of = f" of {int(counts[h]):,}" if counts is not None else ""
            whole = counts is not None and size == int(counts[h]) and size > 0
            parts.append(f"{self.band_label(h)}: {'all ' + format(size, ',') if whole else format(size, ',')}{of}")
        return (f"a stratified sample of {self.size:,} candidates in {self.n_bands} bands of {by} ({ties}), each band a "
                f"simple random sample of its own size ({'; '.join(parts)}; seed {self.seed})")

    def short(self) -> str:
        """A few words for a signature line: ``stratified G2 100,400,1500,rest sizes 50,75,180,195 seed 7``."""
        f = self.frame
        out = f"{KIND} {','.join(f.measures)} {format_widths(self.widths)} sizes {','.join(map(str, self.sizes))} " \
              f"ties {f.ties}"
        if f.seed is not None:
            out += f" tie-seed {f.seed}"
        return out + f" seed {self.seed}"

    # ------------------------------------------------------------------ stored with the sample
    def record(self, pool_size: int | None = None) -> dict:
        """The design's fields for the sample's design record (JSON values only): kind, widths and sizes. The frame
        is the sample's frame record, the seed the sample's seed."""
        return {"kind": KIND, "widths": list(self.widths), "sizes": list(self.sizes)}

    @classmethod
    def from_record(cls, frame: SamplingFrame | Mapping | None, design: Mapping, seed: int | None,
                    size: int | None = None) -> "StratifiedDesign":
        """The design of a stored (or imported) sample; every field is checked, a refusal names it."""
        if frame is None:
            frame = SamplingFrame()
        elif not isinstance(frame, SamplingFrame):
            frame = SamplingFrame.from_dict(frame)
        widths, sizes = design.get("widths"), design.get("sizes")

        def whole_numbers(values, what: str, low: int) -> tuple[int, ...]:
            if (not isinstance(values, (list, tuple)) or not 1 <= len(values) <= MAX_BANDS
                    or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and low <= v < 2**62
                               for v in values)):
                raise ParameterError(f"the sample's stratified design has {what} {str(values)[:60]!r}; they must be a "
                                     f"list of up to {MAX_BANDS} whole numbers >= {low}")
            return tuple(int(v) for v in values)

        widths = whole_numbers(widths, "band widths", 1)
        sizes = whole_numbers(sizes, "band sizes", 0)
        if size is not None and sum(sizes) != int(size):
            raise ParameterError(f"the sample's stratified design samples {sum(sizes):,} candidates by its band sizes; "
                                 f"the sample holds {int(size):,}")
        return cls(frame=frame, widths=widths, sizes=sizes, seed=0 if seed is None else int(seed))

    def to_dict(self) -> dict:
        """Everything in one JSON-able dict (the signature and ``data.json``)."""
        return {"kind": KIND, "frame": self.frame.to_dict(), "widths": list(self.widths), "sizes": list(self.sizes),
                "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Mapping) -> "StratifiedDesign":
        return cls(frame=SamplingFrame.from_dict(data.get("frame", {})), widths=tuple(data.get("widths", ())),
                   sizes=tuple(data.get("sizes", ())), seed=int(data.get("seed", 0)))

    # -------------------------------------------------------------------------------- the draw
    def draw(self, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> np.ndarray:
        """The design's candidates in annotation order (:func:`draw_stratified`)."""
        return draw_stratified(self, self.bands(candidates, rankings))


def draw_stratified(design: StratifiedDesign, bands: Bands) -> np.ndarray:
    """The candidates of a stratified design in annotation order (0-based indices).

    Band h's sample is the first ``sizes[h]`` candidates of a seeded random permutation of the band (its own
    stream of the seed); the annotation order is a seeded random permutation of their union, so that annotators
    see no rank order and every prefix of it holds a simple random sample of each band.
    """
    design.check_counts(bands.counts)
    parts = []
    for h, size in enumerate(design.sizes):
        members = bands.members(h)
        rng = np.random.default_rng([design.seed, _STREAM, h])
        parts.append(rng.permutation(members)[:size])
    chosen = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return np.random.default_rng([design.seed, _STREAM, MAX_BANDS]).permutation(chosen).astype(np.int64)


def stratified_name(design: StratifiedDesign) -> str:
    """A stratified sample's name in the database: the seed, the bands and a digest of the whole design (a new
    allocation is a new sample)."""
    import hashlib
    import json

    digest = hashlib.sha256(json.dumps(design.to_dict(), sort_keys=True).encode()).hexdigest()[:10]
    return f"strat{design.seed}-{design.n_bands}b-{digest}"
