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

from ..errors import ParameterError
from ..ranking import check_ties
from ..stats.intervals import INTERVAL_METHODS, check_confidence_level
from ..stats.multitest import check_correction
from ..stats.pairtests import check_test

__all__ = ["ReportSettings", "RESAMPLING_TESTS", "default_sizes", "display_names", "parse_names",
           "settings_from_signature"]

RESAMPLING_TESTS = ("bootstrap", "randomization")
DEFAULT_RESAMPLES = 1000


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

    def __post_init__(self) -> None:
        measures = _names(self.measures, "measures")
        if len(measures) < 2:
            raise ParameterError(f"a report compares at least two measures; got {len(measures)}: "
                                 f"{', '.join(measures) or 'none'}. Name more measures.")
        if not isinstance(self.label, str) or not self.label:
            raise ParameterError(f"`label` must name the TP/FP column; got {self.label!r}")
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
            raise ParameterError(f"`interval` must be one of {', '.join(INTERVAL_METHODS)}; got {self.interval!r}")
        resampling = self.test in RESAMPLING_TESTS
        if isinstance(self.resamples, bool) or not isinstance(self.resamples, int) or self.resamples < 1:
            raise ParameterError(f"`resamples` must be a whole number >= 1; got {self.resamples!r}")
        needs_seed = self.ties == "random" or resampling
        if needs_seed and (isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0):
            what = "random tie-breaking" if self.ties == "random" else f"the {self.test} test"
            raise ParameterError(f"{what} needs a seed (a whole number >= 0) so that the report can be repeated; "
                                 f"got {self.seed!r}")
        if isinstance(self.n_step, bool) or not isinstance(self.n_step, int) or self.n_step < 1:
            raise ParameterError(f"`n_step` (the step between Figure 3's tested n) must be a whole number >= 1; got "
                                 f"{self.n_step!r}")
        if self.sample is not None and not self.sample_column:
            raise ParameterError(f"`sample` {self.sample!r} needs `sample_column`, the column naming the samples")
        for name, value in (("measures", measures), ("sizes", sizes), ("n_range", (lo, hi)), ("pair", pair),
                            ("lower", lower), ("level", level), ("seed", self.seed if needs_seed else None),
                            ("resamples", self.resamples if resampling else DEFAULT_RESAMPLES)):
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

    def signature_settings(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The settings as signature fields (key, items); keys are the ``evalcore report`` options' names."""
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
                   ("corr", (self.correction,)), ("interval", (self.interval,))]
        fields += [(key, (str(getattr(self, name)),)) for key, name, default in _OPTIONAL
                   if getattr(self, name) != default]
        return tuple(fields)


def _one(items: tuple[str, ...], key: str) -> str:
    if len(items) != 1:
        raise ParameterError(f"the signature's {key!r} holds {len(items)} values; it takes one")
    return items[0]


def _integer(text: str, key: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ParameterError(f"the signature's {key!r} must be a whole number; got {text!r}") from None


def _n_range(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition(":")
    if not sep:
        raise ParameterError(f"the signature's 'range' must read FIRST:LAST, e.g. 100:2000; got {text!r}")
    return _integer(lo, "range"), _integer(hi, "range")


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ParameterError(f"the signature's 'level' must be a number such as 0.95; got {text!r}")
    return value


# Settings named in a signature only when not at their default (older signatures stay valid): key, field, default.
_OPTIONAL = (("step", "n_step", 1),)

# signature key -> (ReportSettings field, reader of the items)
_READERS = {
    "step": ("n_step", lambda v: _integer(_one(v, "step"), "step")),
    "label": ("label", lambda v: _one(v, "label")),
    "measures": ("measures", tuple),
    "lower": ("lower", tuple),
    "unlabelled": ("exclude_unlabelled", lambda v: _one(v, "unlabelled") == "excluded"),
    "sample-column": ("sample_column", lambda v: _one(v, "sample-column")),
    "sample": ("sample", lambda v: _one(v, "sample")),
    "encoding": ("encoding", lambda v: _one(v, "encoding")),
    "sheet": ("sheet", lambda v: _one(v, "sheet")),
    "ties": ("ties", lambda v: _one(v, "ties")),
    "seed": ("seed", lambda v: _integer(_one(v, "seed"), "seed")),
    "test": ("test", lambda v: _one(v, "test")),
    "resamples": ("resamples", lambda v: _integer(_one(v, "resamples"), "resamples")),
    "level": ("level", lambda v: _level(_one(v, "level"))),
    "n": ("sizes", lambda v: tuple(_integer(x, "n") for x in v)),
    "range": ("n_range", lambda v: _n_range(_one(v, "range"))),
    "pair": ("pair", tuple),
    "corr": ("correction", lambda v: _one(v, "corr")),
    "interval": ("interval", lambda v: _one(v, "interval")),
}


def settings_from_signature(settings: Mapping[str, tuple[str, ...]] | Sequence) -> ReportSettings:
    """The :class:`ReportSettings` a report signature's settings describe (the inverse of
    :meth:`ReportSettings.signature_settings`)."""
    mapping = dict(settings)
    unknown = [k for k in mapping if k not in _READERS]
    if unknown:
        raise ParameterError(f"this evalcore does not know the report setting(s) {', '.join(unknown)} (a signature "
                             f"from a newer version?); known: {', '.join(_READERS)}")
    for required in ("label", "measures"):
        if required not in mapping:
            raise ParameterError(f"the report signature has no {required!r}; copy the whole signature")
    values = {_READERS[k][0]: _READERS[k][1](v) for k, v in mapping.items()}
    return ReportSettings(**values)


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
            raise ParameterError(f"--name {entry!r}: give MEASURE=DISPLAY NAME, e.g. --name log.like=G²")
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
        raise ParameterError(f"display names given for {', '.join(map(repr, unknown))}, which the report does not "
                             f"compare; its measures are {', '.join(measures)}")
    shown = {m: names.get(m, m) for m in measures}
    seen: dict[str, str] = {}
    for m, name in shown.items():
        if name in seen:
            raise ParameterError(f"measures {seen[name]!r} and {m!r} would both be shown as {name!r}; give them "
                                 "different display names")
        seen[name] = m
    return shown
