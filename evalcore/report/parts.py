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
- the page's own settings that change the download's numbers (:data:`PART_SETTINGS`): ``cut`` (where each measure
  it shows is cut in every sample: Validation, Across samples, UIR), ``auc-interval``, ``bootstrap`` and
  ``bootstrap-seed`` (the ROC page's AUC interval and the bootstrap of AP, and of the AUC where chosen),
  ``uir-threshold`` (the |UIR| its figure stars as robust); ``uir-beta`` (F-betas the UIR page once offered to
  compare besides precision and recall) is read from older downloads and changes nothing: F-beta never changes a
  UIR (:func:`evalcore.analysis.uir_analysis`);

and ``numbers``, the digest (:func:`numbers_digest`) of that download's table alone: the figure is drawn from the
same table, so a figure and its table share one signature. Making it costs a digest of one table, never the
report's numbers, and ``evalcore reproduce`` recomputes that table from the data file with the same function the
page calls (:data:`PART_TABLES`) and compares the digests.

The report's settings a download is signed with are the view's (:func:`download_settings`), but for two things:
a measure it shows that the report does not compare is added to ``measures`` (and to ``lower`` where lower is
better), so that ``reproduce`` reads its column; and a download of the pages of several samples
(:data:`EXPERIMENT_PARTS`), which read every sample, names no ``sample``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import pandas as pd

from ..candidates import CandidateSet
from ..errors import ParameterError
from ..text import shown
from .settings import ReportSettings, settings_from_signature
from .signature import Signature, evalcore_version, numbers_digest

__all__ = ["Part", "PART_KEYS", "PART_SETTINGS", "PART_TABLES", "EXPERIMENT_PARTS", "download_settings",
           "part_options", "part_signature", "part_of", "part_table", "table_digest"]


@dataclass(frozen=True)
class PartSetting:
    """One setting of a page that a download's signature names (:data:`PART_SETTINGS`): ``write`` turns its value
    into the signature's items, ``read`` the items into its value (checked: a bad value raises ParameterError with
    a message that names the key)."""

    write: Callable[[object], tuple[str, ...]]
    read: Callable[[tuple[str, ...]], object]


def _whole_number(items: tuple[str, ...], key: str, low: int, high: int = 2**63 - 1) -> int:
    text = _one(items, key)
    if not (text.isascii() and text.isdigit() and len(text) <= 19 and low <= int(text) <= high):
        raise ParameterError(f"the signature's {key} is a whole number from {low} to {high:,}; got {shown(text)}")
    return int(text)


def _finite(text: str, key: str, example: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ParameterError(f"the signature's {key} is a number such as {example}; got {shown(text)}")
    return value


def _write_cuts(cuts) -> tuple[str, ...]:
    """Cut-offs (:class:`evalcore.samples.Cut`) as signature items: ``n:100``, ``gamma:32.5`` (exact)."""
    return tuple(f"n:{int(c.value)}" if c.kind == "n" else f"gamma:{float(c.value)!r}" for c in cuts)


def _read_cuts(items: tuple[str, ...]) -> tuple:
    from ..samples import Cut

    cuts = []
    for item in items:
        kind, sep, value = item.partition(":")
        if not sep or kind not in ("n", "gamma"):
            raise ParameterError(f"the signature's cut reads n:SIZE or gamma:THRESHOLD for each measure it shows, "
                                 f"e.g. gamma:32.5; got {shown(item)}")
        cuts.append(Cut(kind, _finite(value, "cut", "n:100 or gamma:32.5")))
    return tuple(cuts)


def _read_auc_interval(items: tuple[str, ...]) -> str:
    from ..names import AUC_INTERVAL_LABELS

    method = _one(items, "auc-interval")
    if method not in AUC_INTERVAL_LABELS:
        raise ParameterError(f"the signature's auc-interval is one of {', '.join(AUC_INTERVAL_LABELS)}; got "
                             f"{shown(method)}")
    return method


def _read_betas(items: tuple[str, ...]) -> tuple[float, ...]:
    betas = tuple(_finite(item, "uir-beta", "0.5") for item in items)
    if not betas or any(b <= 0 for b in betas):
        raise ParameterError(f"the signature's uir-beta holds the F-beta values compared, each > 0, e.g. 0.5,2.0; "
                             f"got {shown(','.join(items))}")
    return betas


def _read_threshold(items: tuple[str, ...]) -> float:
    value = _finite(_one(items, "uir-threshold"), "uir-threshold", "0.25")
    if not 0 < value <= 1:
        raise ParameterError(f"the signature's uir-threshold is a |UIR| in (0, 1], e.g. 0.25; got {value!r}")
    return value


#: Signature key -> a page's setting that a download names besides the report's (the module's docstring), in the
#: order the signature writes them. A page passes their values by these keys (:func:`part_options`).
PART_SETTINGS: Mapping[str, PartSetting] = {
    "cut": PartSetting(_write_cuts, _read_cuts),
    "auc-interval": PartSetting(lambda v: (str(v),), _read_auc_interval),
    "bootstrap": PartSetting(lambda v: (str(int(v)),), lambda items: _whole_number(items, "bootstrap", 1)),
    "bootstrap-seed": PartSetting(lambda v: (str(int(v)),),
                                  lambda items: _whole_number(items, "bootstrap-seed", 0, 2**32 - 1)),
    "uir-beta": PartSetting(lambda v: tuple(repr(float(b)) for b in v), _read_betas),  # (older downloads)
    "uir-threshold": PartSetting(lambda v: (repr(float(v)),), _read_threshold),
}

#: The signature keys a download adds to the report's settings.
PART_KEYS = ("part", "shows", "beta", "name", "at", *PART_SETTINGS)

#: The downloads of the pages of several samples: computed over every sample of the experiment, so their signature
#: names no ``sample`` (:func:`download_settings`).
EXPERIMENT_PARTS = frozenset({"validation", "across_samples", "uir"})


def part_options(values: Mapping[str, object]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A page's settings (:data:`PART_SETTINGS` key -> value, e.g. ``{"cut": (Cut("n", 100),)}``) as a
    :class:`Part`'s ``options``; a value of None or an empty one is left out."""
    unknown = [k for k in values if k not in PART_SETTINGS]
    if unknown:
        raise ParameterError(f"a download names no setting {', '.join(map(shown, unknown))}; known: "
                             f"{', '.join(PART_SETTINGS)}")
    return tuple((k, PART_SETTINGS[k].write(v)) for k, v in values.items()
                 if v is not None and not (isinstance(v, (tuple, list)) and not v))


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
    options : tuple of (str, tuple of str)
        The page's own settings (:data:`PART_SETTINGS`) as signature fields, checked and written in the table's
        order (:func:`part_options` makes them from values; :meth:`option` reads one).
    """

    stem: str
    shows: tuple[str, ...] = ()
    beta: float = 1.0
    names: tuple[tuple[str, str], ...] = ()
    at: int | None = None
    options: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.stem, str) or not self.stem:
            raise ParameterError(f"a download's part names its file stem; got {shown(self.stem)}")
        given = dict(self.options)
        unknown = [k for k in given if k not in PART_SETTINGS]
        if unknown or len(given) != len(self.options):
            raise ParameterError(f"a download names each of its settings once, of {', '.join(PART_SETTINGS)}; got "
                                 f"{', '.join(map(shown, (k for k, _ in self.options)))}")
        # each read (so checked) and written back: the same value has the same items
        options = tuple((k, setting.write(setting.read(tuple(given[k])))) for k, setting in PART_SETTINGS.items()
                        if k in given)
        object.__setattr__(self, "options", options)
        if "cut" in given and len(dict(options)["cut"]) != len(self.shows):
            raise ParameterError(f"the signature's cut names {len(dict(options)['cut'])} cut-off(s) and it shows "
                                 f"{len(self.shows)} measure(s) ('shows'); give one cut-off per measure, in its order")

    def option(self, key: str, default=None, *, required: bool = False):
        """The value of the page's setting ``key`` (:data:`PART_SETTINGS`); ``default`` where the signature does
        not name it, or, if ``required``, a ParameterError saying so."""
        items = dict(self.options).get(key)
        if items is None:
            if required:
                raise ParameterError(f"the signature of the {self.stem!r} download names no {key!r}; copy the whole "
                                     "signature")
            return default
        return PART_SETTINGS[key].read(items)

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
        out += self.options
        return tuple(out)

    @property
    def display(self) -> dict[str, str]:
        return dict(self.names)


def table_digest(stem: str, table: pd.DataFrame) -> str:
    """The ``numbers`` of a download's signature: :func:`numbers_digest` of its table, under its stem."""
    return numbers_digest({stem: table})


def download_settings(settings: ReportSettings, part: Part, lower: Sequence[str] = ()) -> ReportSettings:
    """The report settings a download is signed with (the module's docstring): the view's ``settings``, with the
    measures ``part`` shows that they do not compare added to ``measures`` (and those of them in ``lower``, the
    data's lower-is-better measures, to ``lower``), and no ``sample`` for a download of every sample
    (:data:`EXPERIMENT_PARTS`)."""
    changes: dict = {}
    extra = tuple(m for m in part.shows if m not in settings.measures)
    if extra:
        changes["measures"] = settings.measures + extra
        changes["lower"] = settings.lower + tuple(m for m in extra if m in lower)
    if part.stem in EXPERIMENT_PARTS and settings.sample is not None:
        changes["sample"] = None
    return replace(settings, **changes) if changes else settings


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
        if not (text.isascii() and text.isdigit() and len(text) <= 19):
            raise ParameterError(f"the signature's at is a list size, a whole number; got {shown(text)}")
        at = int(text)
    options = tuple((k, mapping[k]) for k in PART_SETTINGS if k in mapping)
    return report, Part(_one(mapping["part"], "part"), tuple(mapping.get("shows", ())), beta, tuple(names), at,
                        options)


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


def _roc(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The ROC page's table (its ROC, DET and PR figures' downloads): AUC and average precision of the measures it
    shows with their intervals at the level (``roc.roc_table``): the AUC's by ``auc-interval``, AP's (and the AUC's
    where chosen) by a bootstrap of ``bootstrap`` resamples seeded with ``bootstrap-seed``."""
    from ..roc import roc_table
    from ..work import roc_estimate

    method = part.option("auc-interval", required=True)
    resamples = part.option("bootstrap", required=True)
    seed = part.option("bootstrap-seed", required=True)
    _within_budget(roc_estimate(candidates.n_candidates, len(part.shows), resamples), budget)
    return roc_table(_rankings(candidates, settings, part), confidence_level=settings.level, method=method,
                     resamples=resamples, seed=seed)


def _cuts(candidates: CandidateSet, part: Part, count: int | None = None) -> dict:
    """The measures a download of several samples shows (``count`` of them where given, else two or more), each
    with its cut-off (``cut``, in their order)."""
    if (len(part.shows) != count) if count is not None else len(part.shows) < 2:
        raise ParameterError(f"the signature of the {part.stem!r} download names {len(part.shows)} measure(s) it "
                             f"shows ('shows'); it shows {count if count is not None else 'at least 2'}")
    unknown = [m for m in part.shows if m not in candidates.measures]
    if unknown:
        raise ParameterError(f"the signature's measures {', '.join(map(shown, unknown))} are not score columns of "
                             "the data file")
    return dict(zip(part.shows, part.option("cut", required=True)))


def _within_budget(estimate, budget: float | None) -> None:
    from ..work import check_work
    from ..work.budget import ON_THE_COMMAND_LINE

    check_work(estimate, budget, where=ON_THE_COMMAND_LINE)


def _samples(candidates: CandidateSet) -> int:
    """The number of samples (a message saying what to do where the data file has fewer than two)."""
    from ..samples import require_samples

    return len(require_samples(candidates))


def _validation(candidates: CandidateSet, settings: ReportSettings, part: Part,
                budget: float | None) -> pd.DataFrame:
    """The Validation page's table (Figure 4's): the measure it shows, cut at its ``cut`` in every sample, each
    sample's precision with its interval (``validate.validate``); ``measure`` its display name."""
    from ..validate import validate
    from ..work.pages import samples_estimate

    ((measure, cut),) = _cuts(candidates, part, 1).items()
    _within_budget(samples_estimate(f"validating the binomial model for {measure}", candidates.n_candidates, 1,
                                    _samples(candidates)), budget)
    result = validate(candidates, measure, cut, ties=settings.ties, seed=settings.seed,
                      confidence_level=settings.level, interval=settings.interval)
    return result.table.assign(measure=part.display.get(measure, measure))


def _across(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The Across samples page's table (its figure's): the pair it shows, each cut at its ``cut``, sample by sample
    (``analysis.across_samples``); the columns of A and B named by their display names, ``size (G²)``, as the page
    names them (``evalcore_app.present.pair_named``)."""
    from ..analysis import across_samples
    from ..work.pages import samples_estimate

    (a, cut_a), (b, cut_b) = _cuts(candidates, part, 2).items()
    _within_budget(samples_estimate("comparing two measures across the samples", candidates.n_candidates, 2,
                                    _samples(candidates)), budget)
    result = across_samples(candidates, a, b, cut_a, cut_b, ties=settings.ties, seed=settings.seed,
                            confidence_level=settings.level)
    names = {"_a": part.display.get(a, a), "_b": part.display.get(b, b)}
    return result.table.rename(columns={c: f"{c[:-2]} ({names[c[-2:]]})" for c in result.table.columns
                                        if isinstance(c, str) and c[-2:] in names})


def _uir(candidates: CandidateSet, settings: ReportSettings, part: Part, budget: float | None) -> pd.DataFrame:
    """The UIR page's table (its matrix's): UIR of every pair of the measures it shows, each cut at its ``cut``,
    on precision and recall (``analysis.uir_analysis``), rows and columns by display name. ``uir-threshold``
    decides which cells the figure stars as robust, not a number of the table; an older download's ``uir-beta``
    changes none either (F-beta never changes a UIR)."""
    from ..analysis import uir_analysis
    from ..work.pages import uir_estimate

    cuts = _cuts(candidates, part)
    threshold = part.option("uir-threshold", required=True)
    _within_budget(uir_estimate(candidates.n_candidates, len(cuts), _samples(candidates)), budget)
    measures = list(cuts)
    result = uir_analysis(candidates, measures, cuts, measures[0], measures[1], threshold=threshold,
                          ties=settings.ties, seed=settings.seed)
    named = result.matrix.rename(index=lambda m: part.display.get(m, m), columns=lambda m: part.display.get(m, m))
    return named.reset_index(names="measure")


#: Download stem -> the function that computes its table from the candidates, the report settings and the part
#: (what the page calls, on the same arguments). A download whose stem is not here is signed all the same; its
#: digest can be checked against its file, but this evalcore does not recompute its table.
PART_TABLES: Mapping[str, Callable[..., pd.DataFrame]] = {
    "precision": _curves, "confidence": _curves, "significance": _pair, "difference": _pair,
    "threshold": _threshold, "pairwise": _pairwise, "roc_curves": _roc, "det_curves": _roc, "pr_curves": _roc,
    "validation": _validation, "across_samples": _across, "uir": _uir,
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
