"""The settings of a report: one frozen object, checked once, and its fields in a signature.

A :class:`ReportSettings` holds everything that decides a report's numbers (data roles, measures, list
sizes, ties and seed, test, correction, level, interval). Display names only change text, so they are
passed beside it (see :func:`display_names`). The same object comes from the command line
(``evalcore report``) and from the dashboard's view, so both give the same signature for the same analysis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from .. import names as method_names
from ..errors import ParameterError
from ..text import cut, listed, shown
from ..ranking import SEEDED_TIES, check_ties
from ..stats.intervals import INTERVAL_METHODS, check_confidence_level
from ..stats.multitest import check_correction
from ..stats.pairtests import check_test

__all__ = ["ReportSettings", "SampleDesign", "RESAMPLING_TESTS", "default_sizes", "display_names", "parse_names",
           "settings_from_signature", "frame_spec", "parse_frame_spec", "strata_spec", "parse_strata_spec",
           "SIGNATURE_READERS"]

RESAMPLING_TESTS = ("bootstrap", "randomization")
DEFAULT_RESAMPLES = 1000
DEFAULT_MIN_ANNOTATED = 10  # as evalcore.estimates.MIN_ANNOTATED (not imported: this module stays light)


def _whole(value, what: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ParameterError(f"`{what}` must be a whole number >= {low}; got {value!r}")
    return value


def frame_spec(measures, k: int) -> str:
    """A top-K sampling frame as the command line writes it: ``log.like,t.score:500``."""
    return f"{','.join(measures)}:{int(k)}"


def parse_frame_spec(text: str) -> tuple[tuple[str, ...], int]:
    """``M1,M2:K`` -> ((M1, M2), K); the inverse of :func:`frame_spec`."""
    measures, sep, k = str(text).rpartition(":")
    chosen = tuple(m for m in measures.split(",") if m)
    try:
        k_value = int(k)
    except ValueError:
        k_value = 0
    if not sep or not chosen or k_value < 1:
        raise ParameterError(f"a sampling frame is MEASURE[,MEASURE...]:K with K >= 1, e.g. log.like:1000; got "
                             f"{shown(text)}")
    return chosen, k_value


def strata_spec(measures, widths) -> str:
    """A stratified design's bands as the command line writes them: ``log.like:100,400,1500,rest``."""
    return f"{','.join(measures)}:{','.join(str(int(w)) for w in widths)},rest"


def parse_strata_spec(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``M1,M2:W1,W2,...,rest`` -> ((M1, M2), (W1, W2, ...)); the inverse of :func:`strata_spec` (no numpy here:
    the command line's parser reads it)."""
    measures, sep, spec = str(text).rpartition(":")
    chosen = tuple(m for m in measures.split(",") if m)
    items = [x.strip() for x in spec.split(",") if x.strip()]
    if items and items[-1].lower() == "rest":
        items = items[:-1]
    if not sep or not chosen or not items or not all(x.isdigit() and int(x) >= 1 for x in items):
        raise ParameterError(f"a stratified design's bands are MEASURE[,MEASURE...]:W1,W2,...,rest with widths >= 1, "
                             f"e.g. log.like:100,400,1500,rest; got {str(text)[:80]!r}")
    return chosen, tuple(int(x) for x in items)


@dataclass(frozen=True)
class SampleDesign:
    """How a partly annotated candidate set was sampled and is estimated from (Evert & Krenn 2005).

    The annotated candidates are taken as a simple random sample of the whole candidate set, or of the
    union of the top ``frame_k`` candidates of ``frame`` (ranked with ``frame_ties`` and ``frame_seed``).

    Attributes
    ----------
    frame : tuple of str
        The measures whose top-K lists make up the sampling frame; () for the whole set.
    frame_k : int
        K (0 for the whole set).
    frame_ties, frame_seed : str, int or None
        How the frame's rankings broke ties (the report's ties and seed when None).
    interval : {"hypergeometric", "clopper_pearson"}
        The interval of an estimated precision (:data:`evalcore.names.SAMPLE_INTERVAL_LABELS`).
    min_annotated : int
        Fewest annotated candidates in D1 and in D2 for an n to be tested (and for an estimate to count as
        carried by enough candidates).
    draw_seed : int or None
        The seed the sample was drawn with, where known (the Annotate page's); it changes no number.
    annotations : str or None
        The annotation sample of the dashboard's database the labels come from (None: the data file's labels);
        such labels are not in the data file, so ``evalcore reproduce`` cannot recompute them from it.
    kind : {"sample", "pool", "pool+sample", "stratified"}
        The design (:data:`evalcore.names.ANNOTATION_DESIGNS`, issue 22): ``sample`` as above; ``pool``: the union
        of the top ``frame_k`` candidates of ``frame`` (the pool) is annotated whole, estimates exact inside it;
        ``pool+sample``: the pool, and a simple random sample of the other candidates (estimates for every n,
        exact inside the pool, unbiased beyond it; :class:`evalcore.pooling.Strata`); ``stratified`` (issue 33):
        rank bands of ``frame``'s (best) rank of widths ``bands`` (the last band the rest; ``frame_k`` their
        sum), each band's annotated candidates a simple random sample of it.
    pool_sample : int or None
        ``pool+sample``: m, the size of the random sample of the rest as drawn (the estimates use the annotated
        candidates outside the pool, whatever their number); None for the other kinds.
    bands : tuple of int
        ``stratified``: the bands' widths but the last; () for the other kinds.
    band_sizes : tuple of int or None
        ``stratified``: the sample size drawn in each band, where known (the estimates use the annotated
        candidates of each band, whatever their number); None for the other kinds.
    """

    frame: tuple[str, ...] = ()
    frame_k: int = 0
    frame_ties: str | None = None
    frame_seed: int | None = None
    interval: str = "hypergeometric"
    min_annotated: int = DEFAULT_MIN_ANNOTATED
    draw_seed: int | None = None
    annotations: str | None = None
    kind: str = "sample"
    pool_sample: int | None = None
    bands: tuple[int, ...] = ()
    band_sizes: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "bands", tuple(self.bands))
        if self.band_sizes is not None:
            object.__setattr__(self, "band_sizes", tuple(self.band_sizes))
        if (self.kind == "stratified") != bool(self.bands) or (self.band_sizes is not None
                                                               and self.kind != "stratified"):
            raise ParameterError(f"band widths and sizes belong to a 'stratified' design and it needs its widths; "
                                 f"got kind {self.kind!r} and bands {list(self.bands)[:10]}")
        if self.kind == "stratified":
            for w in self.bands:
                _whole(w, "bands", 1)
            if self.frame_k != sum(self.bands):
                raise ParameterError(f"a stratified design cuts {sum(self.bands):,} ranks into bands (frame_k); got "
                                     f"{self.frame_k!r}")
            if self.band_sizes is not None:
                if len(self.band_sizes) != len(self.bands) + 1:
                    raise ParameterError(f"give one sample size per band: {len(self.bands) + 1} bands, "
                                         f"{len(self.band_sizes)} sizes")
                for size in self.band_sizes:
                    _whole(size, "band_sizes")
            if self.frame_ties is not None and self.frame_ties not in ("stable", "random", "hash"):
                raise ParameterError(f"a stratified design's bands are cut with ties stable, random or hash; got "
                                     f"{self.frame_ties!r}")
        if self.kind not in method_names.ANNOTATION_DESIGNS:
            raise ParameterError(f"`kind` of an annotation design must be one of "
                                 f"{', '.join(method_names.ANNOTATION_DESIGNS)}; got {shown(self.kind)}")
        if self.kind != "sample" and not self.frame:
            raise ParameterError(f"a {shown(self.kind)} design needs its pool: the measures and the depth K of the top-K "
                                 "lists annotated whole")
        if (self.pool_sample is not None) != (self.kind == "pool+sample"):
            raise ParameterError(f"the size of the sample of the rest (pool_sample) belongs to a 'pool+sample' design "
                                 f"and only to it; got kind {shown(self.kind)} and pool_sample {self.pool_sample!r}")
        if self.pool_sample is not None:
            _whole(self.pool_sample, "pool_sample")
        frame = _names(self.frame, "frame") if self.frame else ()
        if bool(frame) != bool(self.frame_k):
            raise ParameterError(f"a top-K sampling frame needs both its measures and K >= 1; got measures "
                                 f"{listed(frame, cut) if frame else 'none'} and K = {self.frame_k!r}")
        if frame:
            _whole(self.frame_k, "frame_k", 1)
        if self.frame_ties is not None:
            check_ties(self.frame_ties)
        for name in ("frame_seed", "draw_seed"):
            value = getattr(self, name)
            if value is not None:
                _whole(value, name)
        if self.interval not in method_names.SAMPLE_INTERVAL_LABELS:
            raise ParameterError(f"`sample interval` must be one of {', '.join(method_names.SAMPLE_INTERVAL_LABELS)}; "
                                 f"got {shown(self.interval)}")
        _whole(self.min_annotated, "min_annotated")
        object.__setattr__(self, "frame", frame)

    @property
    def pooled(self) -> bool:
        """True for ``pool`` and ``pool+sample``: the pool is annotated whole."""
        return self.kind in ("pool", "pool+sample")

    @property
    def stratified(self) -> bool:
        """True for ``stratified``: rank bands, each a random sample of its own size."""
        return self.kind == "stratified"


def _names(value, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = (value,)
    items = tuple(str(v) for v in value)
    if any(not v for v in items):
        raise ParameterError(f"`{what}` holds an empty name")
    if len(set(items)) != len(items):
        raise ParameterError(f"`{what}` names a measure twice: {', '.join(items)}")
    return items


@dataclass(frozen=True)
class ReportSettings:
    """Everything that decides a report's numbers.

    Attributes
    ----------
    measures : tuple of str
        Score columns compared (at least two), in the order of the tables.
    label : str
        The TP/FP label column.
    sizes : tuple of int
        The list sizes n of the tables (sorted, distinct).
    n_range : (int, int)
        The figures' range of n; every n in it is tested for Figure 3. Default: ``(min(sizes), max(sizes))``.
    pair : (str, str)
        The two measures of Figures 2 and 3 (A, B). Default: the first two measures.
    lower : tuple of str
        Measures where a lower score is better.
    exclude_unlabelled : bool
        Rows with an empty label are left out (else they stop the reading).
    sample_column, sample : str or None
        For an experiment with several samples: the column naming them, and the one sample used (None: all
        pooled).
    encoding, sheet : str or None
        How the file was read (text encoding, Excel sheet or R object), when not the default.
    ties : {"random", "stable", "optimistic", "pessimistic"}
    seed : int or None
        Seed of random tie-breaking and of the resampling tests; required for those, None otherwise.
    test : str
        Test of two n-best lists (see :data:`evalcore.stats.pairtests.PAIR_TESTS`); all two-sided.
    correction : {"none", "holm", "bh"}
        Correction for multiple testing: over all tests of the pairwise table, and separately over the
        tested n of Figure 3.
    level : float
        Confidence level of the intervals; tests are significant where (adjusted) ``p < 1 - level``.
    interval : str
        Binomial interval method (see :data:`evalcore.stats.intervals.INTERVAL_METHODS`).
    resamples : int
        Resamples of the bootstrap and randomization tests (1,000 otherwise, unused).
    n_step : int
        Figure 3 tests every ``n_step``-th n of ``n_range`` (both ends included); 1, every n, by default.
    difference_interval : {"newcombe", "agresti_caffo"}
        The interval of a difference of precision (:data:`evalcore.names.DIFFERENCE_INTERVALS`).
    power : float
        The power, in (0, 1), of the minimum detectable difference in the pairwise table (at the level
        ``alpha``, for Fisher's test on D1/D2, or McNemar's where that is the test).
    sample : SampleDesign or None
        Not None for a partly annotated set: precision is estimated from the annotated candidates, taken as
        a random sample (Evert & Krenn 2005), and pairs are compared by Fisher's exact test on the annotated
        candidates of D1 and D2. ``interval``, ``power`` and ``resamples`` are then unused.
    """

    measures: tuple[str, ...]
    label: str
    sizes: tuple[int, ...] = (100, 500, 1000, 2000)
    n_range: tuple[int, int] | None = None
    pair: tuple[str, str] | None = None
    lower: tuple[str, ...] = ()
    exclude_unlabelled: bool = False
    sample_column: str | None = None
    sample: str | None = None
    encoding: str | None = None
    sheet: str | None = None
    ties: str = "random"
    seed: int | None = None
    test: str = "fisher"
    correction: str = "none"
    level: float = 0.95
    interval: str = "clopper_pearson"
    resamples: int = DEFAULT_RESAMPLES
    n_step: int = 1
    difference_interval: str = "newcombe"
    power: float = method_names.DEFAULT_POWER
    design: SampleDesign | None = None

    def __post_init__(self) -> None:
        measures = _names(self.measures, "measures")
        if len(measures) < 2:
            raise ParameterError(f"a report compares at least two measures; got {len(measures)}: "
                                 f"{', '.join(measures) or 'none'}. Name more measures.")
        if not isinstance(self.label, str) or not self.label:
            raise ParameterError(f"`label` must name the TP/FP column; got {shown(self.label)}")
        try:
            whole = [int(n) == float(n) for n in self.sizes]
            sizes = tuple(sorted({int(n) for n in self.sizes}))
        except (TypeError, ValueError):
            whole, sizes = [False], ()
        if not sizes or not all(whole) or sizes[0] < 1:
            raise ParameterError(f"`sizes` must be whole list sizes n >= 1, e.g. 100,500,1000; got {self.sizes!r}")
        n_range = self.n_range if self.n_range is not None else (sizes[0], sizes[-1])
        try:
            lo, hi = (int(v) for v in n_range)
        except (TypeError, ValueError):
            raise ParameterError(f"`n_range` must be (first n, last n); got {self.n_range!r}") from None
        if not 1 <= lo <= hi:
            raise ParameterError(f"`n_range` must be (first n, last n) with 1 <= first <= last; got {n_range!r}")
        pair = tuple(self.pair) if self.pair is not None else measures[:2]
        if len(pair) != 2 or pair[0] == pair[1] or any(m not in measures for m in pair):
            raise ParameterError(f"`pair` must be two different measures of the report ({', '.join(measures)}); "
                                 f"got {', '.join(map(str, pair))}")
        lower = _names(self.lower, "lower") if self.lower else ()
        check_ties(self.ties)
        check_test(self.test)
        check_correction(self.correction)
        level = check_confidence_level(self.level)
        if self.interval not in INTERVAL_METHODS:
            raise ParameterError(f"`interval` must be one of {', '.join(INTERVAL_METHODS)}; got {shown(self.interval)}")
        resampling = self.test in RESAMPLING_TESTS
        if isinstance(self.resamples, bool) or not isinstance(self.resamples, int) or self.resamples < 1:
            raise ParameterError(f"`resamples` must be a whole number >= 1; got {self.resamples!r}")
        needs_seed = self.ties in SEEDED_TIES or resampling
        if needs_seed and (isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0):
            what = "random tie-breaking" if self.ties in SEEDED_TIES else f"the {self.test} test"
            raise ParameterError(f"{what} needs a seed (a whole number >= 0) so that the report can be repeated; "
                                 f"got {self.seed!r}")
        if isinstance(self.n_step, bool) or not isinstance(self.n_step, int) or self.n_step < 1:
            raise ParameterError(f"`n_step` (the step between Figure 3's tested n) must be a whole number >= 1; got "
                                 f"{self.n_step!r}")
        if self.sample is not None and not self.sample_column:
            raise ParameterError(f"`sample` {shown(self.sample)} needs `sample_column`, the column naming the samples")
        if self.difference_interval not in method_names.DIFFERENCE_INTERVALS:
            raise ParameterError(f"`difference_interval` must be one of "
                                 f"{', '.join(method_names.DIFFERENCE_INTERVALS)}; got {shown(self.difference_interval)}")
        try:
            power = float(self.power)
        except (TypeError, ValueError):
            power = math.nan
        if isinstance(self.power, bool) or not 0.0 < power < 1.0:
            raise ParameterError(f"`power` must be a number in (0, 1), e.g. 0.8; got {self.power!r}")
        if self.design is not None:
            if not isinstance(self.design, SampleDesign):
                raise ParameterError(f"`design` must be a SampleDesign; got {type(self.design).__name__}")
            if self.test != "fisher":
                raise ParameterError(f"with estimates from an annotated sample the test is Fisher's exact test on the "
                                     f"annotated candidates of D1 and D2; the {self.test} test needs every candidate "
                                     "annotated")
            if self.exclude_unlabelled:
                raise ParameterError("leaving out the rows with an empty label and estimating from them as "
                                     "unannotated candidates of a random sample exclude each other; choose one")
            unknown = [m for m in self.design.frame if m not in measures]
            if unknown:
                raise ParameterError(f"the sampling frame names {', '.join(map(repr, unknown))}, which the report "
                                     f"does not compare ({', '.join(measures)})")
        for name, value in (("measures", measures), ("sizes", sizes), ("n_range", (lo, hi)), ("pair", pair),
                            ("lower", lower), ("level", level), ("seed", self.seed if needs_seed else None),
                            ("resamples", self.resamples if resampling else DEFAULT_RESAMPLES),
                            ("power", power)):
            object.__setattr__(self, name, value)

    @property
    def alpha(self) -> float:
        """The significance level, ``1 - level``."""
        return 1.0 - self.level

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """Every pair of measures (A before B in the order of ``measures``)."""
        m = self.measures
        return tuple((a, b) for i, a in enumerate(m) for b in m[i + 1:])

    @property
    def power_test(self) -> str:
        """The test the minimum detectable difference is computed for (its design): McNemar's where that is the
        test, else Fisher's (:data:`evalcore.names.POWER_TESTS`)."""
        return self.test if self.test in method_names.POWER_TESTS else "fisher"

    def signature_settings(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The settings as signature fields (key, items); keys are the ``evalcore report`` options' names.

        Each setting that decides a number is named once; the settings a sample design leaves unused
        (the binomial interval, power) are left out of a sample-mode signature, and its design's are added.
        """
        fields: list[tuple[str, tuple[str, ...]]] = [("label", (self.label,)), ("measures", self.measures)]
        if self.lower:
            fields.append(("lower", self.lower))
        if self.exclude_unlabelled:
            fields.append(("unlabelled", ("excluded",)))
        for key, value in (("sample-column", self.sample_column), ("sample", self.sample),
                           ("encoding", self.encoding), ("sheet", self.sheet)):
            if value is not None:
                fields.append((key, (value,)))
        fields.append(("ties", (self.ties,)))
        if self.seed is not None:
            fields.append(("seed", (str(self.seed),)))
        fields.append(("test", (self.test,)))
        if self.test in RESAMPLING_TESTS:
            fields.append(("resamples", (str(self.resamples),)))
        fields += [("level", (repr(self.level),)), ("n", tuple(str(n) for n in self.sizes)),
                   ("range", (f"{self.n_range[0]}:{self.n_range[1]}",)), ("pair", self.pair),
                   ("corr", (self.correction,))]
        fields += [(key, (str(getattr(self, name)),)) for key, name, default in _OPTIONAL
                   if getattr(self, name) != default]
        d = self.design
        if d is None:
            fields += [("interval", (self.interval,)), ("diff-ci", (self.difference_interval,)),
                       ("power", (repr(self.power),))]
            return tuple(fields)
        fields += [("annotated-sample", ("yes",)), ("sample-interval", (d.interval,)),
                   ("diff-ci", (self.difference_interval,)), ("min-annotated", (str(d.min_annotated),))]
        if d.stratified:  # (--strata and --strata-sample, as curves/compare)
            fields.append(("strata", (*d.frame[:-1], f"{d.frame[-1]}:{d.bands[0]}", *map(str, d.bands[1:]), "rest")))
            if d.band_sizes is not None:
                fields.append(("strata-sample", tuple(map(str, d.band_sizes))))
        if d.frame and not d.stratified:
            key = "pool" if d.pooled else "sample-frame"  # (a pooled design: --pool, as curves/compare)
            fields.append((key, (*d.frame[:-1], frame_spec(d.frame[-1:], d.frame_k))))
            if d.pool_sample is not None:
                fields.append(("pool-sample", (str(d.pool_sample),)))
        if d.frame:
            if d.frame_ties is not None:
                fields.append(("frame-ties", (d.frame_ties,)))
            if d.frame_seed is not None:
                fields.append(("frame-seed", (str(d.frame_seed),)))
        if d.draw_seed is not None:
            fields.append(("sample-seed", (str(d.draw_seed),)))
        if d.annotations is not None:
            fields.append(("annotations", (d.annotations,)))
        return tuple(fields)


def _one(items: tuple[str, ...], key: str) -> str:
    if len(items) != 1:
        raise ParameterError(f"the signature's {shown(key)} holds {len(items)} values; it takes one")
    return items[0]


def _integer(text: str, key: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParameterError(f"the signature's {shown(key)} must be a whole number; got {shown(text)}") from None


def _n_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition(":")
    if not sep:
        raise ParameterError(f"the signature's 'range' must read FIRST:LAST, e.g. 100:2000; got {shown(text)}")
    return _integer(lo, "range"), _integer(hi, "range")


def _number(text: str, key: str, example: str = "") -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        such = f" such as {example}" if example else ""
        raise ParameterError(f"the signature's {shown(key)} must be a number{such}; got {shown(text)}")
    return value


# Settings named in a signature only when not at their default (older signatures stay valid): key, field, default.
_OPTIONAL = (("step", "n_step", 1),)


def _yes(items: tuple[str, ...], key: str) -> bool:
    if _one(items, key) != "yes":
        raise ParameterError(f"the signature's {shown(key)} reads 'yes' where it is given; got {shown(items[0])}")
    return True


def _frame(items: tuple[str, ...]) -> dict:
    measures, k = parse_frame_spec(",".join(items))
    return {"design.frame": measures, "design.frame_k": k}


def _pool(items: tuple[str, ...]) -> dict:
    measures, k = parse_frame_spec(",".join(items))
    return {"design.frame": measures, "design.frame_k": k, "design.kind": "pool"}


def _strata(items: tuple[str, ...]) -> dict:
    measures, widths = parse_strata_spec(",".join(items))
    return {"design.frame": measures, "design.frame_k": sum(widths), "design.bands": widths,
            "design.kind": "stratified"}


def _field(name: str, reader):
    return lambda items: {name: reader(items)}


#: Signature key -> a reader of its items that returns the settings it sets: ``{field: value}``, where a field
#: ``design.X`` is the :class:`SampleDesign`'s. A new setting of the report is one line here (and its field).
SIGNATURE_READERS = {
    "step": _field("n_step", lambda v: _integer(_one(v, "step"), "step")),
    "label": _field("label", lambda v: _one(v, "label")),
    "measures": _field("measures", tuple),
    "lower": _field("lower", tuple),
    "unlabelled": _field("exclude_unlabelled", lambda v: _one(v, "unlabelled") == "excluded"),
    "sample-column": _field("sample_column", lambda v: _one(v, "sample-column")),
    "sample": _field("sample", lambda v: _one(v, "sample")),
    "encoding": _field("encoding", lambda v: _one(v, "encoding")),
    "sheet": _field("sheet", lambda v: _one(v, "sheet")),
    "ties": _field("ties", lambda v: _one(v, "ties")),
    "seed": _field("seed", lambda v: _integer(_one(v, "seed"), "seed")),
    "test": _field("test", lambda v: _one(v, "test")),
    "resamples": _field("resamples", lambda v: _integer(_one(v, "resamples"), "resamples")),
    "level": _field("level", lambda v: _number(_one(v, "level"), "level", "0.95")),
    "n": _field("sizes", lambda v: tuple(_integer(x, "n") for x in v)),
    "range": _field("n_range", lambda v: _n_range(_one(v, "range"))),
    "pair": _field("pair", tuple),
    "corr": _field("correction", lambda v: _one(v, "corr")),
    "interval": _field("interval", lambda v: _one(v, "interval")),
    "diff-ci": _field("difference_interval", lambda v: _one(v, "diff-ci")),
    "power": _field("power", lambda v: _number(_one(v, "power"), "power")),
    "annotated-sample": _field("design.", lambda v: _yes(v, "annotated-sample")),
    "sample-interval": _field("design.interval", lambda v: _one(v, "sample-interval")),
    "min-annotated": _field("design.min_annotated", lambda v: _integer(_one(v, "min-annotated"), "min-annotated")),
    "sample-frame": _frame,
    "frame-ties": _field("design.frame_ties", lambda v: _one(v, "frame-ties")),
    "frame-seed": _field("design.frame_seed", lambda v: _integer(_one(v, "frame-seed"), "frame-seed")),
    "sample-seed": _field("design.draw_seed", lambda v: _integer(_one(v, "sample-seed"), "sample-seed")),
    "annotations": _field("design.annotations", lambda v: _one(v, "annotations")),
    "pool": _pool,
    "pool-sample": _field("design.pool_sample", lambda v: _integer(_one(v, "pool-sample"), "pool-sample")),
    "strata": _strata,
    "strata-sample": _field("design.band_sizes", lambda v: tuple(_integer(x, "strata-sample") for x in v)),
}


def settings_from_signature(settings: Mapping[str, tuple[str, ...]] | Sequence) -> ReportSettings:
    """The :class:`ReportSettings` a report signature's settings describe (the inverse of
    :meth:`ReportSettings.signature_settings`).

    Raises
    ------
    ParameterError
        For a key this evalcore does not know, a value it cannot read or does not offer (an unknown test or
        interval, a power outside (0, 1), ...), a sample setting without ``annotated-sample``: the message
        names the key and the value.
    """
    mapping = dict(settings)
    unknown = [k for k in mapping if k not in SIGNATURE_READERS]
    if unknown:
        raise ParameterError(f"this evalcore does not know the report setting(s) {', '.join(unknown)} (a signature "
                             f"from a newer version?); known: {', '.join(SIGNATURE_READERS)}")
    for required in ("label", "measures"):
        if required not in mapping:
            raise ParameterError(f"the report signature has no {required!r}; copy the whole signature")
    values: dict = {}
    for key, items in mapping.items():
        values.update(SIGNATURE_READERS[key](items))
    design = {k.removeprefix("design."): v for k, v in values.items() if k.startswith("design.")}
    values = {k: v for k, v in values.items() if not k.startswith("design.")}
    marked = design.pop("", False)
    if sum(key in mapping for key in ("pool", "sample-frame", "strata")) > 1:
        raise ParameterError("the signature names more than one of a sampling frame ('sample-frame'), a pool "
                             "('pool') and strata ('strata'); a report has one design")
    if "pool_sample" in design:  # (a sample of the rest: the pool + sample design)
        design["kind"] = "pool+sample"
    if design and not marked:
        keys = [k for k in mapping if any(f.startswith("design.") for f in SIGNATURE_READERS[k](mapping[k]))]
        raise ParameterError(f"the signature's {', '.join(keys)} describe(s) an annotated sample, but it has no "
                             "'annotated-sample yes'; copy the whole signature")
    try:
        return ReportSettings(**values, design=SampleDesign(**design) if marked else None)
    except ParameterError as exc:
        raise ParameterError(f"the signature describes a report this evalcore cannot compute: {exc}") from None


def default_sizes(n_range: tuple[int, int]) -> tuple[int, ...]:
    """The tables' list sizes for a range of n: both ends, and 1, 5, 10, 50, 100, 500, ... between them.

    Examples
    --------
    >>> default_sizes((100, 2000))
    (100, 500, 1000, 2000)
    """
    lo, hi = (int(v) for v in n_range)
    if not 1 <= lo <= hi:
        raise ParameterError(f"`n_range` must be (first n, last n) with 1 <= first <= last; got {n_range!r}")
    sizes = {lo, hi}
    power = 1
    while power < hi:
        sizes.update(v for v in (power, 5 * power) if lo < v < hi)
        power *= 10
    return tuple(sorted(sizes))


def parse_names(entries: Sequence[str]) -> dict[str, str]:
    """Display names from ``MEASURE=NAME`` entries (``log.like=G²``); the last ``=`` splits, so a measure's
    own name may hold one."""
    names: dict[str, str] = {}
    for entry in entries:
        measure, sep, name = str(entry).rpartition("=")
        if not sep or not measure or not name.strip():
            raise ParameterError(f"--name {shown(entry)}: give MEASURE=DISPLAY NAME, e.g. --name log.like=G²")
        names[measure] = name.strip()
    return names


def display_names(measures: Sequence[str], names: Mapping[str, str] | None = None) -> dict[str, str]:
    """Display name of every measure: the given one, else the measure's own name.

    Raises
    ------
    ParameterError
        When ``names`` names a measure not in ``measures``, or two measures would show the same name.
    """
    names = dict(names or {})
    unknown = [m for m in names if m not in measures]
    if unknown:
        raise ParameterError(f"display names given for {listed(unknown)}, which the report does not "
                             f"compare; its measures are {listed(measures, cut)}")
    display = {m: names.get(m, m) for m in measures}
    seen: dict[str, str] = {}
    for m, name in display.items():
        if name in seen:
            raise ParameterError(f"measures {shown(seen[name])} and {shown(m)} would both be shown as {shown(name)}; give them "
                                 "different display names")
        seen[name] = m
    return display
