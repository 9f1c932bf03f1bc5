"""What a user sees, as one frozen object, and its round trip through a URL query string.

A shared link must show a colleague exactly the same data and view, so every setting a
user can change lives in :class:`ViewSettings`, and ``from_query(to_query(v)) == v``.
Values that arrive in a URL are checked here (ranges, slider steps, known names): a bad
value is replaced by the nearest valid one or the default, and the problem is reported,
never silently accepted. Any query string gives a valid view, in four steps:

- :func:`from_query` (with :func:`check_settings`): what needs no data. Unknown parameters,
  a key given twice, values that are not numbers, NaN, infinities, out-of-range levels,
  seeds, resamples and beta, unknown method names.
- :func:`check_columns`: the column roles against the table's columns (and
  :func:`with_roles` fills what the link left open from the suggested roles).
- :func:`check_against_data`: measures the data set has, no more than a page draws, every n
  on its slider within 1..N, an n range in order holding two n or more.
- :func:`check_samples`: a sample that exists, the multi-sample pages' n within the smallest
  sample.

Each returns the corrected view and a message per correction, quoting the link's value cut
to SHOWN_CHARS characters; the corrected view round-trips and passes the checks again
unchanged (tests/test_viewstate.py, and every page in tests/app/test_links.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields, replace
from typing import Mapping, Sequence

from .stats.intervals import INTERVAL_METHODS
from .stats.multitest import CORRECTIONS
from .stats.pairtests import PAIR_TESTS
from .ranking import TIE_POLICIES

SAMPLE_PREFIX = "sample:"
_DATASET_ID = re.compile(r"[0-9a-f]{64}")
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,80}")
LEVEL_MIN, LEVEL_MAX, LEVEL_STEP = 0.80, 0.999, 0.001
THRESHOLD_MODES = ("gamma", "n")
CUT_MODES = ("gamma", "n")
UIR_BETAS = ("0.5", "1", "2")
RESAMPLES_MIN, RESAMPLES_MAX = 100, 100_000
BETA_MIN, BETA_MAX = 0.1, 10.0       # the F-beta input of the Precision page
MAX_MEASURES = 10                    # measures drawn at once (Precision, Pairwise, ROC pages)
MAX_BANDS = 3                        # confidence bands drawn at once (Confidence page)
SHOWN_CHARS = 60                     # a value from a link is quoted in a message up to this length
CURVE_KINDS = ("roc", "det", "pr")
AUC_METHODS = ("delong", "bootstrap")


@dataclass(frozen=True)
class ViewSettings:
    """Every setting of the dashboard that a link must carry.

    Lists are tuples so that the object is hashable and can key a cache. ``None`` means
    "not chosen yet": the page fills in its default for the data at hand.
    """

    dataset: str | None = None          # a store id (64 hex digits) or "sample:<name>"
    label: str | None = None            # label column
    scores: tuple[str, ...] = ()        # score columns (ranking methods); () = suggested ones
    keys: tuple[str, ...] = ()          # key columns shown to identify candidates
    lower: tuple[str, ...] = ()         # measures where lower is better
    exclude_unlabelled: bool = False
    ties: str = "random"
    seed: int | None = None
    measures: tuple[str, ...] = ()      # measures drawn on the Precision page
    n_min: int | None = None
    n_max: int | None = None
    n_at: int | None = None             # n of the value table / 2x2 table
    show_recall: bool = False
    show_f: bool = False
    beta: float = 1.0
    level: float = 0.95
    interval: str = "clopper_pearson"
    band_measures: tuple[str, ...] = ()  # Confidence page
    a: str | None = None                 # Significance page pair
    b: str | None = None
    threshold_measure: str | None = None
    threshold_mode: str = "gamma"
    gamma: float | None = None
    threshold_n: int | None = None
    compare_measure: str | None = None   # Threshold page: second measure and its threshold
    compare_gamma: float | None = None
    sample_column: str | None = None     # column naming each candidate's sample (experiments with several)
    sample: str | None = None            # single-sample pages: one sample, or None for all pooled
    cut_mode: str = "gamma"              # multi-sample pages: cut each sample's ranking at a gamma or an n
    cut_n: int | None = None
    cut_gammas: tuple[str, ...] = ()     # "measure=gamma" for measures whose gamma was moved
    v_measure: str | None = None         # Validation page
    uir_threshold: float = 0.25          # UIR page: robustness threshold
    uir_betas: tuple[str, ...] = ()      # UIR page: F-beta metrics besides precision and recall
    test: str = "fisher"                 # Significance page: the test at every n
    correction: str = "none"             # ... and the correction for testing many n (or many pairs)
    resamples: int = 1000                # ... resamples of the bootstrap and randomization tests (and AP's)
    curve_kind: str = "roc"              # ROC page: roc, det or pr
    auc_method: str = "delong"           # ROC page: interval of the AUC
    ann_sample: str | None = None        # Annotate page: the annotation sample shown (its name in the database)
    annotator: str | None = None         # ... the name the user annotates under
    ann_seed: int | None = None          # ... the seed, size and frame of the sample to draw
    ann_size: int = 100
    ann_k: int = 0                       # 0: the whole set; else the union of the top-k lists of ann_measures
    ann_measures: tuple[str, ...] = ()
    ann_context: str | None = None       # ... a column shown beside the keys
    ann_rule: str = "majority"           # how several annotators' labels combine (annotator, majority, agreed)


# URL parameter name of each field: short, stable, readable.
QUERY_NAMES = {
    "dataset": "dataset", "label": "label", "scores": "score", "keys": "key", "lower": "lower",
    "exclude_unlabelled": "exclude_unlabelled", "ties": "ties", "seed": "seed", "measures": "m",
    "n_min": "n_min", "n_max": "n_max", "n_at": "n", "show_recall": "recall", "show_f": "f", "beta": "beta",
    "level": "level", "interval": "interval", "band_measures": "band", "a": "a", "b": "b",
    "threshold_measure": "t_measure", "threshold_mode": "t_mode", "gamma": "gamma", "threshold_n": "t_n",
    "compare_measure": "t_compare", "compare_gamma": "t_compare_gamma", "sample_column": "sample_col",
    "sample": "sample", "cut_mode": "cut", "cut_n": "cut_n", "cut_gammas": "cut_gamma", "v_measure": "v_m",
    "uir_threshold": "uir_t", "uir_betas": "uir_beta", "test": "test", "correction": "correction",
    "resamples": "resamples", "curve_kind": "kind", "auc_method": "auc_ci",
    "ann_sample": "ann", "annotator": "annotator", "ann_seed": "ann_seed", "ann_size": "ann_size", "ann_k": "ann_k",
    "ann_measures": "ann_m", "ann_context": "ann_context", "ann_rule": "ann_rule",
}
ANN_RULES = ("annotator", "majority", "agreed")
_ANN_SAMPLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
DEFAULTS = ViewSettings()


def _kind(name: str) -> str:
    default = getattr(DEFAULTS, name)
    if isinstance(default, tuple):
        return "list"
    if isinstance(default, bool):
        return "bool"
    if name in {"seed", "n_min", "n_max", "n_at", "threshold_n", "cut_n", "resamples", "ann_seed", "ann_size",
                "ann_k"}:
        return "int"
    if name in {"beta", "level", "gamma", "compare_gamma", "uir_threshold"}:
        return "float"
    return "str"


def _format(value) -> str | list[str]:
    if isinstance(value, tuple):
        return [str(v) for v in value]
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_query(view: ViewSettings) -> dict[str, str | list[str]]:
    """The query parameters of a view: only the settings that differ from the defaults.

    Lists become repeated parameters (``?m=a&m=b``), so names with commas survive.
    """
    out: dict[str, str | list[str]] = {}
    for f in fields(ViewSettings):
        value = getattr(view, f.name)
        if value != getattr(DEFAULTS, f.name) and value is not None:
            out[QUERY_NAMES[f.name]] = _format(value)
    return out


def _shown(value) -> str:
    """A value from a link as quoted in a message: its repr, cut to SHOWN_CHARS characters."""
    text = str(value)
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…")


def _parse(name: str, raw: list[str], problems: list[str]):
    kind = _kind(name)
    label = QUERY_NAMES[name]
    if kind == "list":
        return tuple(dict.fromkeys(v for v in raw if v != ""))
    text = raw[-1]
    if len(raw) > 1:
        problems.append(f"The link gives {label} {len(raw)} times; using the last, {_shown(text)}.")
    try:
        if kind == "bool":
            if text not in ("0", "1", "true", "false"):
                raise ValueError
            return text in ("1", "true")
        if kind == "int":
            return int(text)
        if kind == "float":
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            return value
    except ValueError:
        problems.append(f"The link's {label}={_shown(text)} is not a valid {kind}; it was ignored.")
        return getattr(DEFAULTS, name)
    return text


def from_query(params: Mapping[str, str | Sequence[str]]) -> tuple[ViewSettings, list[str]]:
    """Read a view from query parameters; returns the view and the problems found.

    Checks that need no data (names of tie policies and interval methods, the confidence
    level's range and step, the form of a dataset id) happen here; checks against the data
    (column names, n within 1..N, slider steps) in :func:`check_against_data`.
    """
    by_query = {q: f for f, q in QUERY_NAMES.items()}
    problems: list[str] = []
    values = {}
    unknown = [key for key in params if key not in by_query]
    if unknown:
        problems.append(f"The link's {', '.join(map(_shown, unknown[:5]))}{' ...' if len(unknown) > 5 else ''} "
                        f"{'is not a setting' if len(unknown) == 1 else 'are not settings'} of this dashboard; "
                        "ignored.")
    for key, raw in params.items():
        if key not in by_query:
            continue
        raw_list = [raw] if isinstance(raw, str) else list(raw)
        if not raw_list:
            continue
        values[by_query[key]] = _parse(by_query[key], raw_list, problems)
    view = replace(DEFAULTS, **values)
    return check_settings(view, problems)


def dataset_problem(dataset: str | None) -> str | None:
    """Why a dataset reference is malformed, or None if it is well-formed."""
    if dataset is None:
        return None
    if dataset.startswith(SAMPLE_PREFIX):
        return None if _SAMPLE_NAME.fullmatch(dataset[len(SAMPLE_PREFIX):]) else \
            f"The link names a sample data set {_shown(dataset)} that does not exist."
    if _DATASET_ID.fullmatch(dataset):
        return None
    return (f"The link's dataset={_shown(dataset)} is not a data set id (64 hexadecimal digits). "
            "Upload the file again on the Data page, or ask for a new link.")


def snap(value: float, low: float, high: float, step: float) -> float:
    """The nearest value on the grid low, low + step, ... within [low, high]."""
    k = round((min(max(value, low), high) - low) / step)
    return min(high, low + k * step)


def check_settings(view: ViewSettings, problems: list[str] | None = None) -> tuple[ViewSettings, list[str]]:
    """Checks that need no data; see :func:`from_query`."""
    problems = [] if problems is None else problems
    changes = {}
    if view.ties not in TIE_POLICIES:
        problems.append(f"Unknown tie policy {_shown(view.ties)} in the link; using 'random'. "
                        f"Known: {', '.join(TIE_POLICIES)}.")
        changes["ties"] = DEFAULTS.ties
    if view.interval not in INTERVAL_METHODS:
        problems.append(f"Unknown interval method {_shown(view.interval)} in the link; using Clopper-Pearson.")
        changes["interval"] = DEFAULTS.interval
    if view.threshold_mode not in THRESHOLD_MODES:
        problems.append(f"Unknown threshold mode {_shown(view.threshold_mode)} in the link; using 'gamma'.")
        changes["threshold_mode"] = DEFAULTS.threshold_mode
    if view.test not in PAIR_TESTS:
        problems.append(f"Unknown test {_shown(view.test)} in the link; using Fisher's exact test. Known: "
                        f"{', '.join(PAIR_TESTS)}.")
        changes["test"] = DEFAULTS.test
    if view.correction not in CORRECTIONS:
        problems.append(f"Unknown correction {_shown(view.correction)} in the link; using none. Known: "
                        f"{', '.join(CORRECTIONS)}.")
        changes["correction"] = DEFAULTS.correction
    if not RESAMPLES_MIN <= view.resamples <= RESAMPLES_MAX:
        fixed = min(max(view.resamples, RESAMPLES_MIN), RESAMPLES_MAX)
        problems.append(f"{_number(view.resamples)} resamples is outside {RESAMPLES_MIN:,} to {RESAMPLES_MAX:,}; "
                        f"using {fixed:,}.")
        changes["resamples"] = fixed
    if view.curve_kind not in CURVE_KINDS:
        problems.append(f"Unknown curve {_shown(view.curve_kind)} in the link; showing ROC. Known: "
                        f"{', '.join(CURVE_KINDS)}.")
        changes["curve_kind"] = DEFAULTS.curve_kind
    if view.auc_method not in AUC_METHODS:
        problems.append(f"Unknown AUC interval {_shown(view.auc_method)} in the link; using DeLong's.")
        changes["auc_method"] = DEFAULTS.auc_method
    if view.ann_rule not in ANN_RULES:
        problems.append(f"Unknown way of combining annotators {view.ann_rule!r} in the link; using the majority.")
        changes["ann_rule"] = DEFAULTS.ann_rule
    if view.ann_sample is not None and not _ANN_SAMPLE.fullmatch(view.ann_sample):
        problems.append(f"The link's annotation sample {view.ann_sample[:80]!r} is not a sample name; it was ignored.")
        changes["ann_sample"] = None
    if view.annotator is not None and (not view.annotator.strip() or len(view.annotator) > 100
                                       or any(ord(c) < 32 for c in view.annotator)):
        problems.append("The link's annotator name is empty, too long or holds control characters; it was ignored.")
        changes["annotator"] = None
    if view.ann_seed is not None and not 0 <= view.ann_seed < 2**32:
        problems.append(f"Sample seed {view.ann_seed} is out of range (0 to 2^32 - 1); a new one was drawn.")
        changes["ann_seed"] = None
    if view.ann_size < 1 or view.ann_k < 0:
        problems.append(f"A sample of {view.ann_size} from the top {view.ann_k} is not possible; using the defaults.")
        changes["ann_size"], changes["ann_k"] = DEFAULTS.ann_size, DEFAULTS.ann_k
    if view.cut_mode not in CUT_MODES:
        problems.append(f"Unknown cut-off mode {_shown(view.cut_mode)} in the link; using 'gamma'.")
        changes["cut_mode"] = DEFAULTS.cut_mode
    if view.cut_n is not None and view.cut_n < 1:
        problems.append(f"The cut-off n = {_number(view.cut_n)} must be at least 1; using the default.")
        changes["cut_n"] = None
    threshold = round(snap(view.uir_threshold, 0.05, 1.0, 0.05), 2)
    if not math.isclose(threshold, view.uir_threshold, abs_tol=1e-12):
        problems.append(f"The UIR threshold {view.uir_threshold:g} is not on the slider (0.05 to 1 in steps of "
                        f"0.05); using {threshold:g}.")
    changes["uir_threshold"] = threshold
    bad = [b for b in view.uir_betas if b not in UIR_BETAS]
    if bad:
        problems.append(f"The link's F-beta values {', '.join(map(_shown, bad))} are not offered "
                        f"({', '.join(UIR_BETAS)}); "
                        "they were left out.")
        changes["uir_betas"] = tuple(b for b in view.uir_betas if b in UIR_BETAS)
    gammas, bad = _cut_gammas(view.cut_gammas)
    if bad:
        problems.append(f"The link's thresholds {', '.join(bad)} are not of the form measure=number; they were "
                        "left out.")
        changes["cut_gammas"] = tuple(f"{m}={g!r}" for m, g in gammas.items())
    level = round(snap(view.level, LEVEL_MIN, LEVEL_MAX, LEVEL_STEP), 3)
    if not math.isclose(level, view.level, abs_tol=1e-12):
        problems.append(f"Confidence level {view.level:g} is not on the slider ({LEVEL_MIN:g} to {LEVEL_MAX:g} "
                        f"in steps of {LEVEL_STEP:g}); using {level:g}.")
    changes["level"] = level
    if view.seed is not None and not 0 <= view.seed < 2**32:
        problems.append(f"Seed {_number(view.seed)} is out of range (0 to 2^32 - 1); a new one was drawn.")
        changes["seed"] = None
    if not BETA_MIN <= view.beta <= BETA_MAX:
        fixed = 1.0 if view.beta <= 0 else min(max(view.beta, BETA_MIN), BETA_MAX)
        problems.append(f"F-beta needs beta from {BETA_MIN:g} to {BETA_MAX:g} (and beta > 0); got {view.beta:g}; "
                        f"using {fixed:g}.")
        changes["beta"] = fixed
    problem = dataset_problem(view.dataset)
    if problem:
        problems.append(problem)
        changes["dataset"] = None
    return replace(view, **changes), problems


def _cut_gammas(entries: Sequence[str]) -> tuple[dict[str, float], list[str]]:
    gammas: dict[str, float] = {}
    bad: list[str] = []
    for entry in entries:
        measure, sep, text = entry.rpartition("=")
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not sep or not measure or not math.isfinite(value):
            bad.append(_shown(entry))
        else:
            gammas[measure] = value
    return gammas, bad


def cut_gammas(view: ViewSettings) -> dict[str, float]:
    """The thresholds set on the multi-sample pages, by measure."""
    return _cut_gammas(view.cut_gammas)[0]


def with_cut_gamma(view: ViewSettings, measure: str, gamma: float | None) -> ViewSettings:
    """The view with ``measure``'s threshold set to ``gamma`` (None removes it: the default applies)."""
    gammas = cut_gammas(view)
    gammas.pop(measure, None)
    if gamma is not None:
        gammas[measure] = float(gamma)
    return replace(view, cut_gammas=tuple(f"{m}={g!r}" for m, g in gammas.items()))


def n_step(n_candidates: int) -> int:
    """Step of the n sliders: the first of 1, 2, 5, 10, 20, 50, ... that is >= N / 1000."""
    target = max(1.0, n_candidates / 1000)
    magnitude = 10 ** math.floor(math.log10(target))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= target:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover


def n_grid(n_candidates: int) -> tuple[int, int, int]:
    """The n sliders' grid: (lowest, highest, step); multiples of the step, or 1..N for step 1."""
    step = n_step(n_candidates)
    if step == 1:
        return 1, n_candidates, 1
    return step, (n_candidates // step) * step, step


def default_n_range(n_candidates: int) -> tuple[int, int]:
    """The paper's range, 100 to 2,000, cut to the data (Evert 2004, Figure 1)."""
    low, high, step = n_grid(n_candidates)
    start = int(snap(100, low, high, step)) if n_candidates > 100 else low
    return start, int(snap(2000, low, high, step))


ROLE_FIELDS = {"label": "label column", "sample_column": "sample column"}
ROLE_LISTS = {"scores": "score columns", "keys": "key columns"}


def check_columns(view: ViewSettings, columns: Sequence[str]) -> tuple[ViewSettings, list[str]]:
    """Check the column roles of a view against a table's columns: each named column exists and has one role.

    An unknown label or sample column becomes None (the Data page suggests one), unknown score and key
    columns are left out, a column named both as the label (or sample column) and as a score or key
    keeps only the first role, and lower-is-better measures must be score columns. Returns the view and
    the problems found.
    """
    problems: list[str] = []
    changes: dict = {}
    known = set(map(str, columns))
    for name, what in ROLE_FIELDS.items():
        value = getattr(view, name)
        if value is not None and value not in known:
            problems.append(f"The link names the {what} {_shown(value)}, which this data set does not have; "
                            "choose one on the Data page.")
            changes[name] = None
    for name, what in ROLE_LISTS.items():
        chosen = getattr(view, name)
        unknown = [c for c in chosen if c not in known]
        if unknown:
            problems.append(f"The link names {what} that this data set does not have: "
                            f"{', '.join(map(_shown, unknown))}; they were left out.")
            changes[name] = tuple(c for c in chosen if c in known)
    view = replace(view, **changes)
    if view.sample_column is not None and view.sample_column == view.label:
        problems.append(f"The column {_shown(view.label)} cannot be both the label and the sample column; "
                        "it is the label.")
        view = replace(view, sample_column=None)
    taken = {c for c in (view.label, view.sample_column) if c is not None}
    for name, what in ROLE_LISTS.items():
        clash = [c for c in getattr(view, name) if c in taken]
        if clash:
            problems.append(f"The {what} cannot include the label or sample column {', '.join(map(_shown, clash))}; "
                            "left out.")
            view = replace(view, **{name: tuple(c for c in getattr(view, name) if c not in taken)})
    outside = [m for m in view.lower if view.scores and m not in view.scores]
    if outside:
        problems.append(f"The link marks {', '.join(map(_shown, outside))} as lower-is-better, but they are not "
                        "among the score columns; left out.")
        view = replace(view, lower=tuple(m for m in view.lower if m not in outside))
    return view, problems


def with_roles(view: ViewSettings, *, label: str | None, scores: Sequence[str], keys: Sequence[str],
               sample: str | None) -> ViewSettings:
    """The view with the roles it leaves open filled from suggested ones (e.g. ``evalcore.io.suggest_roles``).

    What the view names (from a link or the Data page) wins: a suggested role fills only an empty one, and
    the label and sample column are never also a score or a key. Check the result with :func:`check_columns`.
    """
    label = view.label if view.label is not None else label
    sample = view.sample_column if view.sample_column is not None else sample
    taken = {label, sample}  # (a sample column that is also the label is for check_columns to report)
    return replace(view, label=label, sample_column=sample,
                   scores=view.scores or tuple(c for c in scores if c not in taken),
                   keys=view.keys or tuple(c for c in keys if c not in taken))


def _number(value: int) -> str:
    """An n from a link as written in a message: with thousands separators, cut if absurdly long."""
    text = f"{value:,}"
    return text if len(text) <= 20 else text[:16] + "…"


def check_against_data(view: ViewSettings, *, measures: Sequence[str], n_candidates: int,
                       columns: Sequence[str] | None = None) -> tuple[ViewSettings, list[str]]:
    """Check a view against the loaded data: known measures, no more than a page draws, n within 1..N on the
    slider grid, a range of at least two n, in order (and, given ``columns``, :func:`check_columns`)."""
    problems: list[str] = []
    if columns is not None:
        view, problems = check_columns(view, columns)
    changes: dict = {}
    known = set(measures)
    for name in ("measures", "band_measures", "lower", "ann_measures"):
        chosen = getattr(view, name)
        unknown = [m for m in chosen if m not in known]
        if unknown:
            problems.append(f"The link names measures that this data set does not have: "
                            f"{', '.join(map(_shown, unknown))}; they were left out.")
            changes[name] = chosen = tuple(m for m in chosen if m in known)
        limit = {"measures": MAX_MEASURES, "band_measures": MAX_BANDS}.get(name)
        if limit is not None and len(chosen) > limit:
            what = "confidence bands" if name == "band_measures" else "measures"
            problems.append(f"The link chooses {len(chosen)} {what}; a page draws at most {limit}, so the first "
                            f"{limit} are shown.")
            changes[name] = chosen[:limit]
    gammas = cut_gammas(view)
    unknown = [m for m in gammas if m not in known]
    if unknown:
        problems.append(f"The link sets thresholds for measures this data set does not have: "
                        f"{', '.join(map(_shown, unknown))}; they were left out.")
        changes["cut_gammas"] = tuple(f"{m}={g!r}" for m, g in gammas.items() if m in known)
    for name in ("a", "b", "threshold_measure", "compare_measure", "v_measure"):
        value = getattr(view, name)
        if value is not None and value not in known:
            problems.append(f"The link names measure {_shown(value)}, which this data set does not have.")
            changes[name] = None
    low, high, step = n_grid(n_candidates)
    for name in ("n_min", "n_max"):
        value = getattr(view, name)
        if value is None:
            continue
        fixed = int(snap(value, low, high, step))
        if fixed != value:
            problems.append(f"n = {_number(value)} is not on the n slider ({low} to {high:,} in steps of {step}); "
                            f"using {fixed:,}.")
            changes[name] = fixed
    for name in ("n_at", "threshold_n"):
        value = getattr(view, name)
        if value is not None and not 1 <= value <= n_candidates:
            problems.append(f"n = {_number(value)} is outside 1 to {n_candidates:,}; using the default.")
            changes[name] = None
    view = _checked_n_range(replace(view, **changes), n_candidates, problems)
    return view, problems


def _checked_n_range(view: ViewSettings, n_candidates: int, problems: list[str]) -> ViewSettings:
    """The n range in order and holding at least two n of the grid (when the grid has two); a missing end is
    the default one (:func:`default_n_range`)."""
    if view.n_min is None and view.n_max is None:
        return view
    low, high, step = n_grid(n_candidates)
    default_lo, default_hi = default_n_range(n_candidates)
    lo = default_lo if view.n_min is None else view.n_min
    hi = default_hi if view.n_max is None else view.n_max
    given = "" if None not in (view.n_min, view.n_max) else " (one end is the default)"
    changed = False
    if lo > hi:
        problems.append(f"The n range {lo:,} to {hi:,}{given} is reversed; using {hi:,} to {lo:,}.")
        lo, hi, changed = hi, lo, True
    if lo == hi and high > low:
        new_lo, new_hi = (lo, lo + step) if lo + step <= high else (hi - step, hi)
        problems.append(f"The n range {lo:,} to {hi:,}{given} holds a single n; every page needs two or more, "
                        f"so it is {new_lo:,} to {new_hi:,}.")
        lo, hi, changed = new_lo, new_hi, True
    return replace(view, n_min=lo, n_max=hi) if changed else view


def check_samples(view: ViewSettings, sample_ids: Sequence[str], smallest: int,
                  default_n: int) -> tuple[ViewSettings, list[str]]:
    """Check a view against an experiment's samples: a chosen sample must exist (else all are pooled), and the
    multi-sample pages' n must fit the smallest sample (else ``default_n``, see
    :func:`evalcore.samples.default_cut_n`)."""
    problems: list[str] = []
    changes: dict = {}
    if view.sample is not None and view.sample not in sample_ids:
        problems.append(f"The data set has no sample {_shown(view.sample)}; showing all samples pooled.")
        changes["sample"] = None
    if sample_ids and (view.cut_n is None or view.cut_n > smallest):
        if view.cut_n is not None:
            problems.append(f"n = {_number(view.cut_n)} is larger than the smallest sample ({smallest:,} candidates); "
                            f"using {default_n}.")
        changes["cut_n"] = default_n
    return replace(view, **changes), problems
