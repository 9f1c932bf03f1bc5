"""A download's signature: the view's settings and a digest of what that one download shows.

A figure or table downloaded from a page (its PNG, SVG, HTML or CSV) carries a signature of its own: the report's
settings for the view (:meth:`ReportSettings.signature_settings`, so it reads like the report's), then

- ``part``: which download it is, the page's file stem (``precision``, ``significance``, ...);
- ``shows``: the measures the table shows, by their own names (the Precision and Confidence pages' chosen
  measures, the Significance page's pair A, B), where the page names them;
- ``beta``: the F-beta of the Precision page's table, where it is not 1;
- ``name``: the display names the table uses (``measure=name``), where the view gives any;
- ``at``: the list size the download is of, where it shows one cut-off (the Threshold page's candidates next to
  the cut-off after rank ``at``, the Pairwise page's pairs at n = ``at``);

and ``numbers``, the digest (:func:`numbers_digest`) of that download's table alone: the figure is drawn from the
same table, so a figure and its table share one signature. Making it costs a digest of one table, never the
report's numbers, and ``evalcore reproduce`` recomputes that table from the data file with the same function the
page calls (:data:`PART_TABLES`) and compares the digests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..text import shown
from .settings import ReportSettings, settings_from_signature
from .signature import Signature, evalcore_version, numbers_digest

__all__ = ["Part", "PART_KEYS", "PART_TABLES", "part_signature", "part_of", "part_table", "table_digest"]

#: The signature keys a download adds to the report's settings.
PART_KEYS = ("part", "shows", "beta", "name", "at")


@dataclass(frozen=True)
class Part:
    """Which download a signature stands for (see the module's docstring).

    Attributes
    ----------
    stem : str
        The download's file stem, as the page names it (``precision``, ``significance``, ...).
    shows : tuple of str
        The measures its table shows, by their own names (empty where the page does not name them).
    beta : float
        The F-beta of a Precision table (1 elsewhere).
    names : tuple of (str, str)
        Display names used in the table, (measure, name) pairs.
    at : int or None
        The list size of a download of one cut-off (None elsewhere).
    """

    stem: str
    shows: tuple[str, ...] = ()
    beta: float = 1.0
    names: tuple[tuple[str, str], ...] = ()
    at: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.stem, str) or not self.stem:
            raise ParameterError(f"a download's part names its file stem; got {shown(self.stem)}")

    def fields(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        out: list[tuple[str, tuple[str, ...]]] = [("part", (self.stem,))]
        if self.shows:
            out.append(("shows", tuple(self.shows)))
        if float(self.beta) != 1.0:
            out.append(("beta", (repr(float(self.beta)),)))
        if self.names:
            out.append(("name", tuple(f"{m}={t}" for m, t in self.names)))
        if self.at is not None:
            out.append(("at", (str(int(self.at)),)))
        return tuple(out)

    @property
    def display(self) -> dict[str, str]:
        return dict(self.names)


def table_digest(stem: str, table: pd.DataFrame) -> str:
    """The ``numbers`` of a download's signature: :func:`numbers_digest` of its table, under its stem."""
    return numbers_digest({stem: table})


def part_signature(settings: ReportSettings, data_sha256: str, part: Part, table: pd.DataFrame,
                   version: str | None = None) -> Signature:
    """The signature of one download: the view's report settings, the part, and the digest of ``table``."""
    return Signature(version=version or evalcore_version(), command="report", data=(data_sha256,),
                     settings=settings.signature_settings() + part.fields(), numbers=table_digest(part.stem, table))


def _one(items: tuple[str, ...], key: str) -> str:
    if len(items) != 1:
        raise ParameterError(f"the signature's {key!r} takes one value; got {len(items)}")
    return items[0]


def part_of(settings: Sequence[tuple[str, tuple[str, ...]]]) -> tuple[ReportSettings, Part | None]:
    """A report signature's settings split into the :class:`ReportSettings` and the download's :class:`Part` (None
    for the signature of a whole report)."""
    mapping = dict(settings)
    report = settings_from_signature([(k, v) for k, v in settings if k not in PART_KEYS])
    if "part" not in mapping:
        extra = [k for k in PART_KEYS if k in mapping]
        if extra:
            raise ParameterError(f"the signature's {', '.join(extra)} belong to a download's signature, which names "
                                 "its 'part'; copy the whole signature")
        return report, None
    try:
        beta = float(_one(mapping["beta"], "beta")) if "beta" in mapping else 1.0
    except ValueError:
        raise ParameterError(f"the signature's beta must be a number, e.g. 2.0; got {shown(mapping['beta'][0])}") \
            from None
    names = []
    for item in mapping.get("name", ()):
        measure, sep, name = item.partition("=")
        if not sep or not measure or not name:
            raise ParameterError(f"the signature's display names read measure=name; got {shown(item)}")
        names.append((measure, name))
    at = None
    if "at" in mapping:
        text = _one(mapping["at"], "at")
        if not text.isdigit():
            raise ParameterError(f"the signature's at is a list size, a whole number; got {shown(text)}")
        at = int(text)
    return report, Part(_one(mapping["part"], "part"), tuple(mapping.get("shows", ())), beta, tuple(names), at)


def _rankings(candidates: CandidateSet, settings: ReportSettings, part: Part, count: int | None = None) -> dict:
    from dataclasses import replace

    from ..analysis import rankings_for

    measures = part.shows
    if not measures or (count is not None and len(measures) != count):
        raise ParameterError(f"the signature of the {part.stem!r} download names "
                             f"{'no' if not measures else len(measures)} measure(s) it shows ('shows')"
                             + (f"; it shows {count}" if count else ""))
    unknown = [m for m in measures if m not in candidates.measures]
    if unknown:
        raise ParameterError(f"the signature's measures {', '.join(map(shown, unknown))} are not score columns of "
                             "the data file")
    ranked = rankings_for(candidates, measures, ties=settings.ties, seed=settings.seed)
    names = part.display
    return {names.get(m, m): replace(r, measure=names.get(m, m)) if m in names else r for m, r in ranked.items()}


def _curves(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The Precision and Confidence pages' table: every measure's curve over the range (``analysis.curves``)."""
    from ..analysis import curves

    lo, hi = settings.n_range
    return curves(_rankings(candidates, settings, part), range(lo, hi + 1), confidence_level=settings.level,
                  interval=settings.interval, beta=part.beta)


def _pair(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The Significance page's table (its two figures'): the pair tested at every n of the range."""
    from ..analysis import pair_comparison
    from ..work import check_work, pair_estimate
    from ..work.budget import ON_THE_COMMAND_LINE

    check_work(pair_estimate(candidates.n_candidates, settings.n_range, settings.test, settings.resamples,
                             n_step=settings.n_step), budget, where=ON_THE_COMMAND_LINE)
    a, b = _rankings(candidates, settings, part, 2).values()
    result = pair_comparison(a, b, settings.n_range, confidence_level=settings.level, interval=settings.interval,
                             test=settings.test, correction=settings.correction, resamples=settings.resamples,
                             seed=settings.seed or 0, power=settings.power,
                             difference_method=settings.difference_interval, n_step=settings.n_step)
    return result.table().assign(difference_interval=settings.difference_interval, mdd_power=result.power)


def _threshold(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The Threshold page's table: the candidates next to the cut-off after rank ``at`` of the measure it shows
    (``analysis.threshold_neighbours``), its score column under the measure's display name."""
    from ..analysis import rankings_for, threshold_neighbours

    _rankings(candidates, settings, part, 1)  # (checks the measure it shows)
    measure = part.shows[0]
    if part.at is None:
        raise ParameterError("the signature of the 'threshold' download names no list size of its cut-off ('at'); "
                             "copy the whole signature")
    if part.at > candidates.n_candidates:
        raise ParameterError(f"the signature's cut-off after rank {part.at:,} lies beyond the data file's "
                             f"{candidates.n_candidates:,} candidates")
    ranking = rankings_for(candidates, (measure,), ties=settings.ties, seed=settings.seed)[measure]
    table = threshold_neighbours(candidates, ranking, part.at)
    return table.rename(columns={measure: part.display[measure]}) if measure in part.display else table


def _pairwise(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The Pairwise page's table: every pair of the measures it shows tested at n = ``at``, corrected across the
    pairs (``analysis.pairwise``)."""
    from ..analysis import pairwise

    if part.at is None or not 1 <= part.at <= candidates.n_candidates:
        raise ParameterError(f"the signature of the 'pairwise' download names the list size n of its pairs ('at') "
                             f"within 1..{candidates.n_candidates:,}; got {shown(part.at)}")
    if len(part.shows) < 2:
        raise ParameterError(f"the signature of the 'pairwise' download names {len(part.shows)} measure(s) it shows "
                             "('shows'); it shows at least 2")
    result = pairwise(_rankings(candidates, settings, part), part.at, confidence_level=settings.level,
                      correction=settings.correction, interval=settings.interval,
                      difference_method=settings.difference_interval)
    return result.pairs.assign(difference_interval=settings.difference_interval)


#: Download stem -> the function that computes its table from the candidates, the report settings and the part
#: (what the page calls, on the same arguments). A download whose stem is not here is signed all the same; its
#: digest can be checked against its file, but this evalcore does not recompute its table.
PART_TABLES: Mapping[str, Callable[..., pd.DataFrame]] = {
    "precision": _curves, "confidence": _curves, "significance": _pair, "difference": _pair,
    "threshold": _threshold, "pairwise": _pairwise,
}


def part_table(candidates: CandidateSet, settings: ReportSettings, part: Part,
               budget: float | None = None) -> pd.DataFrame:
    """The table of a download, recomputed from the candidates (:data:`PART_TABLES`)."""
    if settings.design is not None or part.stem not in PART_TABLES:
        stems = list(PART_TABLES)
        raise ParameterError(f"this evalcore recomputes the downloads of {', '.join(stems[:-1])} and {stems[-1]} "
                             f"on a fully annotated set; the signature's part is {shown(part.stem)}"
                             + (" from an annotated sample" if settings.design is not None else ""))
    return PART_TABLES[part.stem](candidates, settings, part, budget)
