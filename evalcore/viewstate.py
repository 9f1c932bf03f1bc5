"""What a user sees, as one frozen object made of small frozen objects by concern, and its round trip through a
URL query string.

A shared link must show a colleague exactly the same data and view, so every setting a user can change lives in
:class:`ViewSettings`, and ``from_query(to_query(v)) == v``. The view is made of one small frozen object per
concern; each declares its settings (URL name, kind, default and checks) in one place:

=================  ==================  ===============================================================
group (attribute)  class               settings
=================  ==================  ===============================================================
``data``           :class:`Roles`       the data set and its column roles (what loading the data needs)
``display``        :class:`Display`     display names of measures (log.like -> G²)
``ranking``        :class:`RankingChoice`  ties and seed
``selection``      :class:`Selection`   the measures, the pair A/B, the n range, level and interval:
                                        one selection shared by every page
``precision``      :class:`PrecisionView`  Precision page: n of the values, recall, F-beta
``tests``          :class:`TestsView`   Significance and Pairwise: test, correction, resamples, their n,
                                        the step between the tested n
``threshold``      :class:`ThresholdView`  Threshold page
``roc``            :class:`RocView`     ROC, DET and PR page
``samples``        :class:`SamplesView` the multi-sample pages: cut-offs, Validation's measure, UIR
``annotate``       :class:`AnnotateView`  the Annotate page, and the estimates from a sample (interval, fewest
                                         annotated candidates)
``export``         :class:`ExportView`  what downloads carry: a caption under exported figures
``systems``        :class:`SystemsView`  the Systems page: its files, metric and sacrebleu's options,
                                         resamples, seed, the bootstrap's rule, level
=================  ==================  ===============================================================

How to add a setting (one edit in one place): add one line to the group it belongs to, e.g. in
:class:`TestsView`::

    power: float = setting(0.8, "power", "float", grid=(0.5, 0.99, 0.01))

The :func:`setting` call names the URL parameter (short, stable, never reused), the kind (str, int, float, bool,
list) and the generic checks: ``choices`` (known names), ``grid`` (a slider's low, high, step; floats),
``clamp`` (an int range), ``seed`` (0..2^32-1, else None), ``measure`` (names a measure of the data set:
``"one"`` or a page's limit of a list), ``n`` (``"range"``: clamped into 1..N; ``"any"``: within 1..N, else the
default), ``data`` (cleared when another data set is loaded) and ``also`` (older URL names still read). A check
the generic ones do not cover goes in the group's ``_check`` (no data) or ``_check_data`` method. Pages read a setting as
``view.power`` (or ``view.tests.power``) and write it with ``evalcore_app.common.update(power=...)`` or a widget bound to
``"power"``; flat names are unique over the groups (checked at import).

Values that arrive in a URL are checked here (ranges, slider steps, known names): a bad value is replaced by the
nearest valid one or the default, and the problem is reported, never silently accepted. Any query string gives a
valid view, in four steps:

- :func:`from_query` (with :func:`check_settings`): what needs no data. Unknown parameters, a key given twice,
  values that are not numbers, NaN, infinities, out-of-range levels, seeds, resamples and beta, unknown method names.
- :func:`check_columns`: the column roles against the table's columns (and :func:`with_roles` fills what the
  link left open from the suggested roles).
- :func:`check_against_data`: measures the data set has, no more than a page draws, every n on its slider within
  1..N, an n range in order holding two n or more.
- :func:`check_samples`: a sample that exists, the multi-sample pages' n within the smallest sample.

Each returns the corrected view and a message per correction, quoting the link's value cut to SHOWN_CHARS
characters; the corrected view round-trips and passes the checks again unchanged (tests/test_viewstate.py, and
every page in tests/app/test_links.py).

A measure selection that is None was never chosen (the page fills in the measures ranked by quality); an empty
one was emptied by the user and stays empty (the link writes it as ``m=``).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field, fields, replace
from typing import Mapping, Sequence

from .names import DEFAULT_POWER, DIFFERENCE_INTERVALS, POWER_LEVELS, SAMPLE_INTERVAL_LABELS
from .ranking import SEEDED_TIES, TIE_POLICIES
from .stats.intervals import INTERVAL_METHODS
from .stats.multitest import CORRECTIONS
from .stats.pairtests import PAIR_TESTS
from .systems.names import DEFAULT_RESAMPLES as SYSTEM_RESAMPLES, DEFAULT_SEED as SYSTEM_SEED
from .systems.names import MAX_SYSTEMS as SYSTEM_MAX, METRICS as SYSTEM_METRICS
from .systems.names import RESAMPLE_CHOICES as SYSTEM_RESAMPLE_CHOICES, RULES as SYSTEM_RULES
from .systems.names import TOKENIZERS as SYSTEM_TOKENIZERS
from .text import SHOWN_CHARS as TEXT_SHOWN_CHARS, listed, shown
from .systems import names as _sysnames

SAMPLE_PREFIX = "sample:"
SERVER_PREFIX = "server:"  # a data set in the host's folder of large sets (evalcore_app/serverdata.py), by its name there
SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
_DATASET_ID = re.compile(r"[0-9a-f]{64}")
_SAMPLE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,80}")
_ANN_SAMPLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ANN_TOKEN = re.compile(r"a[0-9a-f]{12}")
# URL names no longer read, with what a link that still gives one is told (the setting is not taken from it)
RETIRED = {"annotator": "The link names an annotator; names are no longer carried in links (whoever opens a link "
                        "annotates under their own name), so none was taken from it: enter yours on the Annotate page.",
           # (F-beta never changed a UIR: Amigó et al. 2011's monotonicity, see evalcore.analysis.uir_analysis)
           "uir_beta": "The link asks the UIR page to also compare F-β; the page no longer offers it, as F-β never "
                       "changed the UIR: a sample where one measure is at least as good as another on precision "
                       "and on recall is so on every F-β. The numbers are the ones the link showed."}
LEVEL_MIN, LEVEL_MAX, LEVEL_STEP = 0.80, 0.999, 0.001
THRESHOLD_MODES = ("gamma", "n")
CUT_MODES = ("gamma", "n")
RESAMPLES_MIN, RESAMPLES_MAX = 100, 100_000
N_STEP_MAX = 10**9                   # Significance: the step between the tested n (1: every n)
BETA_MIN, BETA_MAX = 0.1, 10.0       # the F-beta input of the Precision page
MAX_MEASURES = 10                    # measures drawn at once (Precision, Pairwise, ROC pages)
DEFAULT_MEASURES = 4                 # measures shown before any is chosen: the best by average precision
MAX_BANDS = 3                        # confidence bands drawn at once (Confidence page: the first of the selection)
SHOWN_CHARS = TEXT_SHOWN_CHARS       # a value from a link is quoted in a message up to this length
MAX_DISPLAY_CHARS = 40               # a display name's length
CURVE_KINDS = ("roc", "det", "pr")
AUC_METHODS = ("delong", "bootstrap")
ANN_RULES = ("annotator", "majority", "agreed")
ANN_DESIGNS = ("sample", "pool", "pool+sample", "stratified")  # evalcore.pooling.DESIGN_KINDS (free of numpy)
_STRATA_TEXT = re.compile(r"[0-9A-Za-z., ]{0,200}")  # band widths, sizes, list sizes, rates as typed (parsed later)
KINDS = ("str", "int", "float", "bool", "list")


def setting(default, query: str, kind: str, *, choices: Sequence[str] = (), what: str = "", grid=None, clamp=None,
            seed: bool = False, measure=None, n: str | None = None, data: bool = False, also: Sequence[str] = ()):
    """Declare one setting of a group: its default, URL name, kind and checks (see the module's docstring)."""
    assert kind in KINDS, kind
    return field(default=default, metadata=dict(query=query, kind=kind, choices=tuple(choices), what=what,
                                                grid=grid, clamp=clamp, seed=seed, measure=measure, n=n,
                                                data=data, also=tuple(also)))


def _shown(value) -> str:
    """A value from a link as quoted in a message (:func:`evalcore.text.shown`: its repr, cut to SHOWN_CHARS)."""
    return shown(value, SHOWN_CHARS)


def _number(value: int) -> str:
    """An n from a link as written in a message: with thousands separators, cut if absurdly long."""
    text = f"{value:,}"
    return text if len(text) <= 20 else text[:16] + "…"


def snap(value: float, low: float, high: float, step: float) -> float:
    """The nearest value on the grid low, low + step, ... within [low, high]."""
    k = round((min(max(value, low), high) - low) / step)
    return min(high, low + k * step)


def n_step(n_candidates: int) -> int:
    """Step of the n sliders: the first of 1, 2, 5, 10, 20, 50, ... that is >= N / 1000."""
    target = max(1.0, n_candidates / 1000)
    magnitude = 10 ** math.floor(math.log10(target))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= target:
            return int(factor * magnitude)
    return int(10 * magnitude)  # pragma: no cover


def n_grid(n_candidates: int) -> tuple[int, int, int]:
    """The n sliders' grid: (lowest, highest, step); the multiples of the step, and N itself (so that the whole
    ranking can be chosen: 10, 20, ..., 5,100, 5,102 for N = 5,102), or 1..N for step 1."""
    step = n_step(n_candidates)
    if step == 1:
        return 1, n_candidates, 1
    return step, n_candidates, step


def scale_step(n: int) -> int:
    """The step of the n slider at n where it follows the scale: the largest of 1, 2, 5, 10, 20, ... that is at
    most n / 10 (1 below n = 20): about a tenth of n, so that 100 to 2,000 can be chosen on a slider that reaches a
    billion."""
    if n < 20:
        return 1
    magnitude = 10 ** math.floor(math.log10(n / 10))
    return max(f * magnitude for f in (1, 2, 5) if f * magnitude <= n / 10)


def n_options(n_candidates: int) -> list[int]:
    """Every position of the n range slider: the multiples of the grid's step and N (:func:`n_grid`), and below
    them the positions whose step follows the scale (:func:`scale_step`, finer than the grid's), so that short lists
    can be chosen on a large data set: 1, 2, ..., 20, 22, ..., 50, 55, ..., 100, 110, ... up to where the grid's
    step takes over. The n range itself takes any n from 1 to N (typed, or from a link): see
    :func:`evalcore_app.widgets.n_range_slider`, which adds the chosen ends to these positions."""
    low, high, step = n_grid(n_candidates)
    options = set(range(low, high + 1, step)) | {high}
    n = 1
    while n < high and scale_step(n) < step:
        options.add(n)
        n += scale_step(n)
    return sorted(options)


def widened(n: int, n_candidates: int) -> tuple[int, int]:
    """A range of two or more n for a range that holds the single n ``n``: to the next position of the n slider
    (:func:`n_options`), or from the one before it at N."""
    options = n_options(n_candidates)
    i = bisect.bisect_right(options, n)
    return (n, options[i]) if i < len(options) else (options[bisect.bisect_left(options, n) - 1], n)


def default_n_range(n_candidates: int) -> tuple[int, int]:
    """The paper's range, 100 to 2,000, cut to the data (Evert 2004, Figure 1), whatever the size of the data set."""
    return (100 if n_candidates > 100 else 1), min(2000, n_candidates)


@dataclass(frozen=True)
class DataFacts:
    """What the checks against the data know: the measures and the number of candidates."""

    measures: tuple[str, ...]
    n_candidates: int


class Group:
    """A group of settings: the generic checks of its :func:`setting` declarations, and its own."""

    def check(self, problems: list[str]):
        """The group checked without data; the problems are appended to ``problems``."""
        changes = {}
        for f in fields(self):
            meta, value = f.metadata, getattr(self, f.name)
            if value is None or value == f.default:
                continue
            if meta["choices"] and value not in meta["choices"]:
                problems.append(f"Unknown {meta['what'] or f.name} {_shown(value)} in the link; using {f.default!r}. "
                                f"Known: {', '.join(meta['choices'])}.")
                changes[f.name] = f.default
            elif meta["grid"] is not None:
                low, high, step = meta["grid"]
                digits = max(0, -math.floor(math.log10(step)))
                fixed = round(snap(value, low, high, step), digits)
                if not math.isclose(fixed, value, abs_tol=1e-12):
                    problems.append(f"{meta['what'] or f.name} {value:g} is not on the slider ({low:g} to {high:g} in "
                                    f"steps of {step:g}); using {fixed:g}.")
                changes[f.name] = fixed
            elif meta["clamp"] is not None:
                low, high = meta["clamp"]
                if not low <= value <= high:
                    fixed = min(max(value, low), high)
                    problems.append(f"{_number(value)} {meta['what'] or f.name} is outside {low:,} to {high:,}; "
                                    f"using {fixed:,}.")
                    changes[f.name] = fixed
            elif meta["seed"] and not 0 <= value < 2**32:
                problems.append(f"{meta['what'] or 'Seed'} {_number(value)} is out of range (0 to 2^32 - 1); a new one "
                                "was drawn.")
                changes[f.name] = None
        checked = replace(self, **changes)
        return replace(checked, **checked._check(problems))

    def _check(self, problems: list[str]) -> dict:
        """The group's own checks without data: the changes to make."""
        return {}

    def check_data(self, facts: DataFacts, problems: list[str]):
        """The group checked against the data: measures it has, n within 1..N."""
        changes = {}
        known = set(facts.measures)
        for f in fields(self):
            meta, value = f.metadata, getattr(self, f.name)
            if meta["measure"] is not None and value is not None:
                if meta["kind"] == "list":
                    unknown = [m for m in value if m not in known]
                    if unknown:
                        problems.append(f"The link names measures that this data set does not have: "
                                        f"{listed(unknown, _shown)}; they were left out.")
                        value = changes[f.name] = tuple(m for m in value if m in known)
                    limit = meta["measure"]
                    if isinstance(limit, int) and len(value) > limit:
                        problems.append(f"The link chooses {len(value)} measures; a page draws at most {limit}, so "
                                        f"the first {limit} are shown.")
                        changes[f.name] = value[:limit]
                elif value not in known:
                    problems.append(f"The link names measure {_shown(value)}, which this data set does not have.")
                    changes[f.name] = None
            elif meta["n"] == "range" and value is not None and not 1 <= value <= facts.n_candidates:
                fixed = min(max(value, 1), facts.n_candidates)
                problems.append(f"n = {_number(value)} is outside 1 to {facts.n_candidates:,} (the data set's "
                                f"candidates); using {fixed:,}.")
                changes[f.name] = fixed
            elif meta["n"] == "any" and value is not None and not 1 <= value <= facts.n_candidates:
                problems.append(f"n = {_number(value)} is outside 1 to {facts.n_candidates:,}; using the default.")
                changes[f.name] = None
        checked = replace(self, **changes)
        return replace(checked, **checked._check_data(facts, problems))

    def _check_data(self, facts: DataFacts, problems: list[str]) -> dict:
        return {}

    def reset_for_new_data(self):
        """The group with the settings that name the data's columns or sizes back at their defaults."""
        return replace(self, **{f.name: f.default for f in fields(self) if f.metadata["data"]})


def dataset_problem(dataset: str | None) -> str | None:
    """Why a dataset reference is malformed, or None if it is well-formed."""
    if dataset is None:
        return None
    if dataset.startswith(SAMPLE_PREFIX):
        return None if _SAMPLE_NAME.fullmatch(dataset[len(SAMPLE_PREFIX):]) else \
            f"The link names a sample data set {_shown(dataset)} that does not exist."
    if _DATASET_ID.fullmatch(dataset):
        return None
    if dataset.startswith(SERVER_PREFIX):
        name = dataset[len(SERVER_PREFIX):]
        return None if SERVER_NAME.fullmatch(name) and ".." not in name else \
            f"The link names a server data set {_shown(dataset)} whose name is not allowed."
    return (f"The link's dataset={_shown(dataset)} is not a data set id (64 hexadecimal digits). "
            "Upload the file again on the Data page, or ask for a new link.")


@dataclass(frozen=True)
class Roles(Group):
    """The data set and its column roles: everything loading the candidates needs (a cache key of the data)."""

    dataset: str | None = setting(None, "dataset", "str")  # a store id (64 hex digits) or "sample:<name>"
    label: str | None = setting(None, "label", "str", data=True)
    scores: tuple[str, ...] = setting((), "score", "list", data=True)   # () = the suggested ones
    keys: tuple[str, ...] = setting((), "key", "list", data=True)       # key columns shown to identify candidates
    lower: tuple[str, ...] = setting((), "lower", "list", measure="all", data=True)  # lower is better
    exclude_unlabelled: bool = setting(False, "exclude_unlabelled", "bool")
    sample_column: str | None = setting(None, "sample_col", "str", data=True)  # column naming each candidate's sample
    sample: str | None = setting(None, "sample", "str", data=True)  # single-sample pages: one sample, None: pooled

    def _check(self, problems):
        problem = dataset_problem(self.dataset)
        if problem:
            problems.append(problem)
            return {"dataset": None}
        return {}

    @property
    def whole(self) -> "Roles":
        """The roles of the whole experiment (every sample)."""
        return replace(self, sample=None)


def _pairs(entries: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``measure=value`` entries (the last "=" splits, so a measure's name may hold "=")."""
    out: dict[str, str] = {}
    bad: list[str] = []
    for entry in entries:
        measure, sep, text = entry.rpartition("=")
        if not sep or not measure or not text:
            bad.append(_shown(entry))
        else:
            out[measure] = text
    return out, bad


@dataclass(frozen=True)
class Display(Group):
    """Display names of measures (``log.like=G²``): used in every legend, table, download and sentence."""

    names: tuple[str, ...] = setting((), "name", "list", data=True)

    def _check(self, problems):
        named, bad = _pairs(self.names)
        cleaned = {m: " ".join(t.split())[:MAX_DISPLAY_CHARS] for m, t in named.items()}
        cleaned = {m: t for m, t in cleaned.items() if t}
        shown: dict[str, str] = {}
        for m, t in cleaned.items():
            if t in shown.values() or t in cleaned.keys() - {m}:
                bad.append(_shown(f"{m}={t}"))
            else:
                shown[m] = t
        if bad or cleaned != named:
            if bad:
                problems.append(f"The link's display names {', '.join(bad)} are not of the form measure=name, or "
                                "name two measures alike; they were left out.")
            return {"names": tuple(f"{m}={t}" for m, t in shown.items())}
        return {}

    def _check_data(self, facts, problems):
        named = self.mapping
        unknown = [m for m in named if m not in facts.measures]
        if unknown:
            problems.append(f"The link gives display names to measures this data set does not have: "
                            f"{listed(unknown, _shown)}; they were left out.")
            return {"names": tuple(f"{m}={t}" for m, t in named.items() if m in facts.measures)}
        return {}

    @property
    def mapping(self) -> dict[str, str]:
        """measure -> display name, for the measures that have one."""
        return _pairs(self.names)[0]

    def of(self, measure: str) -> str:
        """The name a measure is shown under."""
        return self.mapping.get(measure, measure)

    def with_name(self, measure: str, name: str | None) -> "Display":
        named = self.mapping
        named.pop(measure, None)
        if name and name.strip() and name.strip() != measure:
            named[measure] = " ".join(name.split())[:MAX_DISPLAY_CHARS]
        return replace(self, names=tuple(f"{m}={t}" for m, t in named.items()))


@dataclass(frozen=True)
class RankingChoice(Group):
    """How rankings break ties: the policy and the seed of random tie-breaking."""

    ties: str = setting("random", "ties", "str", choices=tuple(TIE_POLICIES), what="tie policy")
    seed: int | None = setting(None, "seed", "int", seed=True)

    @property
    def key(self) -> tuple[str, int | None]:
        """What a ranking depends on: the seed only for random tie-breaking (``random``, ``hash``)."""
        return self.ties, self.seed if self.ties in SEEDED_TIES else None


@dataclass(frozen=True)
class Selection(Group):
    """One selection shared by every page: the measures, the pair A/B, the n range, the level and interval."""

    measures: tuple[str, ...] | None = setting(None, "m", "list", measure=MAX_MEASURES, data=True, also=("band",))
    a: str | None = setting(None, "a", "str", measure="one", data=True)
    b: str | None = setting(None, "b", "str", measure="one", data=True)
    n_min: int | None = setting(None, "n_min", "int", n="range", data=True)
    n_max: int | None = setting(None, "n_max", "int", n="range", data=True)
    level: float = setting(0.95, "level", "float", grid=(LEVEL_MIN, LEVEL_MAX, LEVEL_STEP), what="Confidence level")
    interval: str = setting("clopper_pearson", "interval", "str", choices=tuple(INTERVAL_METHODS),
                            what="interval method")

    def _check_data(self, facts, problems):
        if self.n_min is None and self.n_max is None:
            return {}
        default_lo, default_hi = default_n_range(facts.n_candidates)
        lo = default_lo if self.n_min is None else self.n_min
        hi = default_hi if self.n_max is None else self.n_max
        given = "" if None not in (self.n_min, self.n_max) else " (one end is the default)"
        changed = False
        if lo > hi:
            problems.append(f"The n range {lo:,} to {hi:,}{given} is reversed; using {hi:,} to {lo:,}.")
            lo, hi, changed = hi, lo, True
        if lo == hi and facts.n_candidates > 1:
            new_lo, new_hi = widened(lo, facts.n_candidates)
            problems.append(f"The n range {lo:,} to {hi:,}{given} holds a single n; every page needs two or more, "
                            f"so it is {new_lo:,} to {new_hi:,}.")
            lo, hi, changed = new_lo, new_hi, True
        return {"n_min": lo, "n_max": hi} if changed else {}

    def n_range(self, n_candidates: int) -> tuple[int, int]:
        """The chosen n range, or the default one's missing ends."""
        lo, hi = default_n_range(n_candidates)
        return (self.n_min or lo, self.n_max or hi)

    @property
    def pair(self) -> tuple[str | None, str | None]:
        return self.a, self.b

    def effective_measures(self, best_first: Sequence[str]) -> tuple[str, ...]:
        """The measures every page shows: the chosen ones, or, before any is chosen, the ``DEFAULT_MEASURES`` first
        of ``best_first`` (the data's measures, best first by average precision). A page shows these defaults
        without writing them into the view: only a choice of the user is a setting."""
        return tuple(best_first[:DEFAULT_MEASURES]) if self.measures is None else self.measures

    def effective_pair(self, best_first: Sequence[str]) -> tuple[str, str]:
        """Measures A and B as every page shows them: the chosen ones; one not chosen is the first of the shared
        selection (:meth:`effective_measures`, then the rest of ``best_first``) that is not the other. So A and B
        default to the first two measures of the selection. Needs two measures in ``best_first``."""
        pool = list(dict.fromkeys([*self.effective_measures(best_first), *best_first]))
        a = self.a if self.a is not None else next(m for m in pool if m != self.b)
        b = self.b if self.b is not None else next(m for m in pool if m != a)
        return a, b


@dataclass(frozen=True)
class PrecisionView(Group):
    """The Precision page: the n of the value table, recall and F-beta."""

    n_at: int | None = setting(None, "p_n", "int", n="any", data=True, also=("n",))
    show_recall: bool = setting(False, "recall", "bool")
    show_f: bool = setting(False, "f", "bool")
    beta: float = setting(1.0, "beta", "float")

    def _check(self, problems):
        if not BETA_MIN <= self.beta <= BETA_MAX:
            fixed = 1.0 if self.beta <= 0 else min(max(self.beta, BETA_MIN), BETA_MAX)
            problems.append(f"F-beta needs beta from {BETA_MIN:g} to {BETA_MAX:g} (and beta > 0); got {self.beta:g}; "
                            f"using {fixed:g}.")
            return {"beta": fixed}
        return {}


@dataclass(frozen=True)
class TestsView(Group):
    """The tests of the Significance and Pairwise pages (resamples also the ROC page's bootstrap)."""

    test: str = setting("fisher", "test", "str", choices=tuple(PAIR_TESTS), what="test")
    correction: str = setting("none", "correction", "str", choices=tuple(CORRECTIONS), what="correction")
    resamples: int = setting(1000, "resamples", "int", clamp=(RESAMPLES_MIN, RESAMPLES_MAX), what="resamples")
    n_step: int = setting(1, "n_step", "int", clamp=(1, N_STEP_MAX), what="step between the tested n")  # Significance
    look_n: int | None = setting(None, "sig_n", "int", n="any", data=True, also=("n",))  # Significance: look at n
    pairs_n: int | None = setting(None, "pw_n", "int", n="any", data=True, also=("n",))  # Pairwise: the lists' n
    difference_method: str = setting("newcombe", "diff_ci", "str", choices=tuple(DIFFERENCE_INTERVALS),
                                     what="interval of the difference")  # Significance: the band of Pi_A - Pi_B
    power: float = setting(DEFAULT_POWER, "power", "float")  # Significance: the power of the MDD (POWER_LEVELS)
    # Significance's two boxes, drawn (and computed) only when open: the counts of every test and correction, and
    # the candidates of D1 and D2 at the n looked at
    sig_counts: bool = setting(False, "sig_counts", "bool")
    sig_members: bool = setting(False, "sig_members", "bool")

    def _check(self, problems):
        if self.power not in POWER_LEVELS:
            problems.append(f"Power {self.power:g} in the link is not one of the choices "
                            f"({', '.join(f'{p:g}' for p in POWER_LEVELS)}); using {DEFAULT_POWER:g}.")
            return {"power": DEFAULT_POWER}
        return {}


@dataclass(frozen=True)
class ThresholdView(Group):
    """The Threshold page: a measure cut at a gamma or an n, and a second measure at its own gamma."""

    threshold_measure: str | None = setting(None, "t_measure", "str", measure="one", data=True)
    threshold_mode: str = setting("gamma", "t_mode", "str", choices=THRESHOLD_MODES, what="threshold mode")
    gamma: float | None = setting(None, "gamma", "float", data=True)
    threshold_n: int | None = setting(None, "t_n", "int", n="any", data=True)
    compare_measure: str | None = setting(None, "t_compare", "str", measure="one", data=True)
    compare_gamma: float | None = setting(None, "t_compare_gamma", "float", data=True)
    log_count: bool = setting(False, "t_log_count", "bool")  # the histogram's count axis logarithmic
    log_score: bool | None = setting(None, "t_log_score", "bool")  # its score axis (None: log where heavy-tailed)


@dataclass(frozen=True)
class RocView(Group):
    """The ROC, DET and PR page."""

    curve_kind: str = setting("roc", "kind", "str", choices=CURVE_KINDS, what="curve")
    auc_method: str = setting("delong", "auc_ci", "str", choices=AUC_METHODS, what="AUC interval")


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


@dataclass(frozen=True)
class SamplesView(Group):
    """The multi-sample pages: where each sample's ranking is cut, Validation's measure, the UIR settings."""

    cut_mode: str = setting("gamma", "cut", "str", choices=CUT_MODES, what="cut-off mode")
    cut_n: int | None = setting(None, "cut_n", "int", data=True)
    cut_gammas: tuple[str, ...] = setting((), "cut_gamma", "list", data=True)  # "measure=gamma" where moved
    v_measure: str | None = setting(None, "v_m", "str", measure="one", data=True)
    uir_threshold: float = setting(0.25, "uir_t", "float", grid=(0.05, 1.0, 0.05), what="The UIR threshold")

    def _check(self, problems):
        changes = {}
        if self.cut_n is not None and self.cut_n < 1:
            problems.append(f"The cut-off n = {_number(self.cut_n)} must be at least 1; using the default.")
            changes["cut_n"] = None
        gammas, bad = _cut_gammas(self.cut_gammas)
        if bad:
            problems.append(f"The link's thresholds {', '.join(bad)} are not of the form measure=number; they were "
                            "left out.")
            changes["cut_gammas"] = tuple(f"{m}={g!r}" for m, g in gammas.items())
        return changes

    def _check_data(self, facts, problems):
        gammas = _cut_gammas(self.cut_gammas)[0]
        unknown = [m for m in gammas if m not in facts.measures]
        if unknown:
            problems.append(f"The link sets thresholds for measures this data set does not have: "
                            f"{listed(unknown, _shown)}; they were left out.")
            return {"cut_gammas": tuple(f"{m}={g!r}" for m, g in gammas.items() if m in facts.measures)}
        return {}


@dataclass(frozen=True)
class ExportView(Group):
    """What downloads carry besides the figure and the table."""

    caption: bool = setting(False, "caption", "bool")  # a caption (data, ties, test, level, n) under exported images


@dataclass(frozen=True)
class AnnotateView(Group):
    """The Annotate page: the sample shown, the annotator, the design of the sample to draw, the combining rule."""

    ann_sample: str | None = setting(None, "ann", "str", data=True)  # the annotation sample's name in the database
    # whose labels the rule "annotator" uses, as evalcore.annotations.annotator_token (never a name: names stay in
    # the session; whoever opens a link annotates under their own name)
    ann_of: str | None = setting(None, "ann_of", "str", data=True)
    ann_seed: int | None = setting(None, "ann_seed", "int", seed=True, what="Sample seed")
    ann_size: int = setting(100, "ann_size", "int")
    ann_k: int = setting(0, "ann_k", "int")   # 0: the whole set; else the union of the top-k lists of ann_measures
    # the design of the sample to draw (evalcore.pooling.DESIGN_KINDS): a random sample of the frame, the pool (the
    # frame annotated whole) or the pool and a random sample of ann_size candidates of the rest
    ann_design: str = setting("sample", "ann_design", "str", choices=ANN_DESIGNS, what="annotation design")
    # the Annotate page's planner of a pooled design (evalcore.pooling.plan_pool): the budget B of annotations, the
    # list size n whose interval width it minimises, and the TP rate assumed where no annotation tells
    ann_plan: bool = setting(False, "ann_plan", "bool")  # the planner shown (and computed)
    ann_budget: int = setting(500, "ann_budget", "int", clamp=(1, 10**9), what="annotation budget")
    ann_plan_n: int = setting(500, "ann_plan_n", "int", clamp=(1, 10**9), what="n of the plan")
    ann_guess: float = setting(0.1, "ann_guess", "float", clamp=(0.0, 1.0), what="TP rate assumed")
    ann_measures: tuple[str, ...] = setting((), "ann_m", "list", measure="all", data=True)
    # a stratified design (issue 33, evalcore.pooling.stratified): the widths of the bands of ann_measures' (best)
    # rank, the last the rest, and the sample size of each band ("all": the band whole); its planner's list sizes
    # and, where nothing is annotated, the TP rate assumed in each band (empty: ann_guess in every band)
    ann_bands: str = setting("100,400,1500,rest", "ann_bands", "str", what="band widths")
    ann_band_sizes: str = setting("", "ann_bsizes", "str", what="band sample sizes")
    ann_plan_ns: str = setting("100,500,1000,2000,5000", "ann_plan_ns", "str", what="list sizes of the plan")
    ann_band_guess: str = setting("", "ann_bguess", "str", what="TP rate of each band")
    ann_context: str | None = setting(None, "ann_context", "str", data=True)  # a column shown beside the keys
    ann_rule: str = setting("majority", "ann_rule", "str", choices=ANN_RULES, what="way of combining annotators")
    # estimates from a sample (every page that uses one): the interval, and the fewest annotated candidates behind
    # an estimate or a test before the n is greyed out (evalcore.estimates.MIN_ANNOTATED)
    sample_interval: str = setting("hypergeometric", "s_interval", "str", choices=tuple(SAMPLE_INTERVAL_LABELS),
                                   what="interval from a sample")
    min_annotated: int = setting(10, "min_ann", "int", clamp=(0, 1000), what="fewest annotated candidates")

    def _check(self, problems):
        changes = {}
        if self.ann_sample is not None and not _ANN_SAMPLE.fullmatch(self.ann_sample):
            problems.append(f"The link's annotation sample {self.ann_sample[:80]!r} is not a sample name; it was "
                            "ignored.")
            changes["ann_sample"] = None
        if self.ann_of is not None and not _ANN_TOKEN.fullmatch(self.ann_of):
            problems.append(f"The link's annotator {_shown(self.ann_of)} is not one; the first annotator's labels "
                            "are used.")
            changes["ann_of"] = None
        if self.ann_size < 1 or self.ann_k < 0:
            problems.append(f"A sample of {self.ann_size} from the top {self.ann_k} is not possible; using the "
                            "defaults.")
            changes["ann_size"], changes["ann_k"] = 100, 0
        for name in ("ann_bands", "ann_band_sizes", "ann_plan_ns", "ann_band_guess"):
            value = getattr(self, name)
            if not _STRATA_TEXT.fullmatch(value):
                problems.append(f"The link's {name.replace('ann_', '').replace('_', ' ')} {_shown(value)} are not "
                                "numbers separated by commas; using the default.")
                changes[name] = type(self).__dataclass_fields__[name].default
        return changes

    def _check_data(self, facts, problems):
        changes = {}
        for name, what in (("ann_size", "sample of"), ("ann_k", "frame of the top")):
            value = getattr(self, name)
            if value > facts.n_candidates:
                problems.append(f"The link asks for a {what} {_number(value)} candidates; the data set has "
                                f"{facts.n_candidates:,}, so it is {facts.n_candidates:,}.")
                changes[name] = facts.n_candidates
        return changes


_HYPOTHESIS_ENTRY = re.compile(r"(.{1,100})=([0-9a-f]{64})", re.S)
_MEASURE = re.compile(r"[A-Za-z][A-Za-z0-9_@()=,.\-]{0,79}")  # an ir-measures measure as a link may carry it
SYSTEM_MATRICES = ("p_adjusted", "p_bootstrap", "p_randomization", "p_ttest_adjusted", "p_ttest",
                   "p_wilcoxon_adjusted", "p_wilcoxon", "p_tukey")


@dataclass(frozen=True)
class SystemsView(Group):
    """The Systems page (evalcore.systems): its input files in the store, the metric and sacrebleu's options that
    change the numbers, and the resampling (resamples, seed, the bootstrap's rule, the level).

    ``sys_hyps`` are ``name=<store id>`` entries, the baseline first (two systems may have the same file);
    ``sys_refs`` store ids of the reference files; ``sys_table`` the store id of a per-item table; ``sys_qrels`` and
    ``sys_runs`` (``name=<store id>``) TREC qrels and runs. ROUGE's settings (``sys_rtok``, ``sys_stem``: auto is
    on with rouge-score's tokenizer, ``sys_rrefs``, ``sys_rsplit``, ``sys_rstat``), the runs' (``sys_missing``,
    ``sys_ties``, ``sys_tie_seed``) and the tests besides (``sys_tests``, Wilcoxon's ``sys_wx_*``)."""

    sys_mode: str = setting("text", "sys_mode", "str", choices=("text", "table", "trec"),
                            what="input of the Systems page")
    sys_refs: tuple[str, ...] = setting((), "sys_ref", "list")
    sys_hyps: tuple[str, ...] = setting((), "sys_hyp", "list")
    sys_table: str | None = setting(None, "sys_table", "str")
    sys_metric: str = setting("bleu", "sys_metric", "str", choices=tuple(SYSTEM_METRICS), what="metric")
    sys_tokenize: str = setting("13a", "sys_tok", "str", choices=tuple(SYSTEM_TOKENIZERS), what="BLEU tokenizer")
    sys_lowercase: bool = setting(False, "sys_lc", "bool")
    sys_word_order: int = setting(0, "sys_wo", "int", clamp=(0, 2), what="chrF word order")
    sys_ter_case: bool = setting(False, "sys_ter_case", "bool")
    sys_resamples: int = setting(SYSTEM_RESAMPLES, "sys_r", "int", what="resamples")
    sys_seed: int = setting(SYSTEM_SEED, "sys_seed", "int", what="seed")
    sys_rule: str = setting("bk", "sys_rule", "str", choices=tuple(SYSTEM_RULES), what="bootstrap rule")
    sys_level: float = setting(0.95, "sys_level", "float", grid=(LEVEL_MIN, LEVEL_MAX, LEVEL_STEP),
                               what="Confidence level")
    sys_pair: int = setting(0, "sys_pair", "int", clamp=(0, 10_000), what="pair shown")
    sys_matrix: str = setting("p_adjusted", "sys_matrix", "str", choices=SYSTEM_MATRICES,
                              what="p-values of the matrix")
    sys_qrels: str | None = setting(None, "sys_qrels", "str")
    sys_runs: tuple[str, ...] = setting((), "sys_run", "list")
    sys_measure: str = setting(_sysnames.DEFAULT_MEASURE, "sys_measure", "str")
    sys_missing: str = setting("zero", "sys_missing", "str", choices=tuple(_sysnames.TREC_MISSING),
                               what="topics a run lacks")
    sys_ties: str = setting("trec_eval", "sys_ties", "str", choices=tuple(_sysnames.TREC_TIES), what="ties")
    sys_tie_seed: int = setting(0, "sys_tie_seed", "int", clamp=(0, 2**32 - 1), what="seed of random ties")
    sys_rouge_tok: str = setting("rouge_score", "sys_rtok", "str", choices=tuple(_sysnames.ROUGE_TOKENIZERS),
                                 what="ROUGE tokenizer")
    sys_stem: str = setting("auto", "sys_stem", "str", choices=("auto", "yes", "no"), what="stemmer")
    sys_rouge_refs: str = setting("max", "sys_rrefs", "str", choices=tuple(_sysnames.ROUGE_REFERENCES),
                                  what="several references")
    sys_rouge_split: str = setting("newline", "sys_rsplit", "str", choices=tuple(_sysnames.ROUGE_SPLITS),
                                   what="sentence split")
    sys_rouge_stat: str = setting("f", "sys_rstat", "str", choices=tuple(_sysnames.ROUGE_STATS),
                                  what="ROUGE statistic")
    sys_tests: tuple[str, ...] = setting((), "sys_tests", "list")
    sys_wx_zero: str = setting("wilcox", "sys_wx_zero", "str", choices=_sysnames.WILCOXON_ZERO_METHODS,
                               what="Wilcoxon zero_method")
    sys_wx_method: str = setting("auto", "sys_wx_method", "str", choices=_sysnames.WILCOXON_METHODS,
                                 what="Wilcoxon method")
    sys_wx_corr: bool = setting(False, "sys_wx_corr", "bool")

    def _check(self, problems):
        changes = {}
        if self.sys_resamples not in SYSTEM_RESAMPLE_CHOICES:
            fixed = min(SYSTEM_RESAMPLE_CHOICES, key=lambda r: (abs(r - self.sys_resamples), r))
            problems.append(f"{_number(self.sys_resamples)} resamples is not one of the choices "
                            f"({', '.join(f'{r:,}' for r in SYSTEM_RESAMPLE_CHOICES)}); using {fixed:,}.")
            changes["sys_resamples"] = fixed
        if not 0 <= self.sys_seed < 2**32:
            problems.append(f"Seed {_number(self.sys_seed)} is out of range (0 to 2^32 - 1); using {SYSTEM_SEED}.")
            changes["sys_seed"] = SYSTEM_SEED
        bad = [r for r in self.sys_refs if not _DATASET_ID.fullmatch(r)]
        if bad:
            problems.append(f"The link's reference files {listed(bad, _shown)} are not file ids (64 "
                            "hexadecimal digits); they were left out.")
            changes["sys_refs"] = tuple(r for r in self.sys_refs if _DATASET_ID.fullmatch(r))
        good = [h for h in self.sys_hyps if _HYPOTHESIS_ENTRY.fullmatch(h)
                and not any(ord(c) < 32 for c in h.rpartition("=")[0])]
        if len(good) != len(self.sys_hyps):
            bad = [h for h in self.sys_hyps if h not in good]
            problems.append(f"The link's systems {listed(bad, _shown)} are not of the form name=<file id>; "
                            "they were left out.")
            changes["sys_hyps"] = tuple(good)
        if len(good) > SYSTEM_MAX:
            problems.append(f"The link names {len(good)} systems; at most {SYSTEM_MAX} are compared, so the first "
                            f"{SYSTEM_MAX} are.")
            changes["sys_hyps"] = tuple(good[:SYSTEM_MAX])
        if self.sys_table is not None and not _DATASET_ID.fullmatch(self.sys_table):
            problems.append(f"The link's per-item table {_shown(self.sys_table)} is not a file id (64 hexadecimal "
                            "digits); it was ignored.")
            changes["sys_table"] = None
        changes.update(self._check_trec_and_tests(problems))
        return changes

    def _check_trec_and_tests(self, problems) -> dict:
        changes = {}
        if self.sys_qrels is not None and not _DATASET_ID.fullmatch(self.sys_qrels):
            problems.append(f"The link's qrels {_shown(self.sys_qrels)} is not a file id (64 hexadecimal digits); it "
                            "was ignored.")
            changes["sys_qrels"] = None
        good = [h for h in self.sys_runs if _HYPOTHESIS_ENTRY.fullmatch(h)
                and not any(ord(c) < 32 for c in h.rpartition("=")[0])]
        if len(good) != len(self.sys_runs):
            bad = [h for h in self.sys_runs if h not in good]
            problems.append(f"The link's runs {', '.join(map(_shown, bad))} are not of the form name=<file id>; they "
                            "were left out.")
        if len(good) > SYSTEM_MAX:
            problems.append(f"The link names {len(good)} runs; at most {SYSTEM_MAX} are compared, so the first "
                            f"{SYSTEM_MAX} are.")
        if len(good) != len(self.sys_runs) or len(good) > SYSTEM_MAX:
            changes["sys_runs"] = tuple(good[:SYSTEM_MAX])
        if not _MEASURE.fullmatch(self.sys_measure):
            problems.append(f"The link's measure {_shown(self.sys_measure)} is not one; using "
                            f"{_sysnames.DEFAULT_MEASURE}.")
            changes["sys_measure"] = _sysnames.DEFAULT_MEASURE
        tests = [t for t in self.sys_tests if t in _sysnames.PAIR_TESTS]
        if len(tests) != len(self.sys_tests):
            unknown = [t for t in self.sys_tests if t not in _sysnames.PAIR_TESTS]
            problems.append(f"The link names tests {', '.join(map(_shown, unknown))} the page does not know; "
                            f"known: {', '.join(_sysnames.PAIR_TESTS)}.")
        ordered = tuple(t for t in _sysnames.PAIR_TESTS if t in tests)
        if ordered != self.sys_tests:
            changes["sys_tests"] = ordered
        return changes

    @property
    def runs(self) -> tuple[tuple[str, str], ...]:
        """(name, store id) of each TREC run, the baseline first."""
        return tuple((h.rpartition("=")[0], h.rpartition("=")[2]) for h in self.sys_runs)

    @property
    def systems(self) -> tuple[tuple[str, str], ...]:
        """(name, store id) of each system, the baseline first."""
        return tuple((h.rpartition("=")[0], h.rpartition("=")[2]) for h in self.sys_hyps)


GROUPS = {"data": Roles, "display": Display, "ranking": RankingChoice, "selection": Selection,
          "precision": PrecisionView, "tests": TestsView, "threshold": ThresholdView, "roc": RocView,
          "samples": SamplesView, "annotate": AnnotateView, "export": ExportView, "systems": SystemsView}
FIELD_GROUP = {f.name: group for group, cls in GROUPS.items() for f in fields(cls)}
FIELD_META = {f.name: f.metadata for cls in GROUPS.values() for f in fields(cls)}
# URL parameter name of each setting: short, stable, readable (the settings' declarations are the source)
QUERY_NAMES = {name: meta["query"] for name, meta in FIELD_META.items()}
ALIASES = [(alias, name) for name, meta in FIELD_META.items() for alias in meta["also"]]  # older URL names
assert len(FIELD_GROUP) == sum(len(fields(c)) for c in GROUPS.values()), "a setting's name is used twice"
assert len(set(QUERY_NAMES.values())) == len(QUERY_NAMES)
assert not set(FIELD_GROUP) & set(GROUPS)


@dataclass(frozen=True, init=False)
class ViewSettings:
    """Every setting of the dashboard that a link must carry, in one frozen object per concern.

    Lists are tuples so that the object is hashable and can key a cache. ``None`` means "not chosen yet": the page
    fills in its default for the data at hand. A setting reads as ``view.level`` (or ``view.selection.level``);
    :meth:`set` returns the view with settings changed by their flat names.
    """

    data: Roles = Roles()
    display: Display = Display()
    ranking: RankingChoice = RankingChoice()
    selection: Selection = Selection()
    precision: PrecisionView = PrecisionView()
    tests: TestsView = TestsView()
    threshold: ThresholdView = ThresholdView()
    roc: RocView = RocView()
    samples: SamplesView = SamplesView()
    annotate: AnnotateView = AnnotateView()
    export: ExportView = ExportView()
    systems: SystemsView = SystemsView()

    def __init__(self, data: Roles = Roles(), display: Display = Display(), ranking: RankingChoice = RankingChoice(),
                 selection: Selection = Selection(), precision: PrecisionView = PrecisionView(),
                 tests: TestsView = TestsView(), threshold: ThresholdView = ThresholdView(), roc: RocView = RocView(),
                 samples: SamplesView = SamplesView(), annotate: AnnotateView = AnnotateView(),
                 export: ExportView = ExportView(), systems: SystemsView = SystemsView(), **settings):
        """The groups, and any settings by their flat names (``ViewSettings(dataset=..., level=0.99)``)."""
        groups = dict(data=data, display=display, ranking=ranking, selection=selection, precision=precision,
                      tests=tests, threshold=threshold, roc=roc, samples=samples, annotate=annotate,
                      export=export, systems=systems)
        by_group: dict[str, dict] = {}
        for name, value in settings.items():
            if name not in FIELD_GROUP:
                raise TypeError(f"ViewSettings has no setting {name!r}")
            by_group.setdefault(FIELD_GROUP[name], {})[name] = value
        for group, value in groups.items():
            object.__setattr__(self, group, replace(value, **by_group.get(group, {})))

    def __getattr__(self, name: str):
        group = FIELD_GROUP.get(name)
        if group is None:
            raise AttributeError(f"ViewSettings has no setting {name!r}")
        return getattr(object.__getattribute__(self, group), name)

    def set(self, **changes) -> "ViewSettings":
        """The view with settings changed, by their flat names (``view.set(level=0.99, a="Fisher")``)."""
        return ViewSettings(**{g: getattr(self, g) for g in GROUPS}, **changes)

    @classmethod
    def of(cls, **changes) -> "ViewSettings":
        """A view with the defaults but for ``changes`` (flat names)."""
        return cls().set(**changes)

    def flat(self) -> dict:
        """Every setting by its flat name."""
        return {name: getattr(self, name) for name in FIELD_GROUP}

    def for_dataset(self, dataset: str | None) -> "ViewSettings":
        """The view for another data set: the settings that name its columns or sizes back at their defaults."""
        return ViewSettings(**{g: getattr(self, g).reset_for_new_data() for g in GROUPS}, dataset=dataset)

    def groups(self):
        return [getattr(self, g) for g in GROUPS]


DEFAULTS = ViewSettings()


def _kind(name: str) -> str:
    return FIELD_META[name]["kind"]


def _format(value) -> str | list[str]:
    if isinstance(value, tuple):
        return [str(v) for v in value] or [""]  # an emptied selection: ?m=
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


#: The groups a page's link carries, by the page's URL path: the Systems page shows its own files and settings (and
#: the caption of its downloads), every other page one candidate set (every group but the Systems page's). A link
#: holds what its page shows, nothing else: a candidate set's link never names the Systems page's files.
PAGE_GROUPS = {"systems": ("systems", "export")}
CANDIDATE_GROUPS = tuple(g for g in GROUPS if g != "systems")


def link_groups(page: str | None) -> tuple[str, ...]:
    """The groups of the view that the link of the page at URL path ``page`` carries (:data:`PAGE_GROUPS`)."""
    return PAGE_GROUPS.get(page or "", CANDIDATE_GROUPS)


def to_query(view: ViewSettings, groups: Sequence[str] = tuple(GROUPS)) -> dict[str, str | list[str]]:
    """The query parameters of a view: only the settings that differ from the defaults, of ``groups`` (all of them
    by default; a page's link: :func:`link_groups`).

    Lists become repeated parameters (``?m=a&m=b``), so names with commas survive.
    """
    out: dict[str, str | list[str]] = {}
    for group in groups:
        for f in fields(GROUPS[group]):
            value = getattr(getattr(view, group), f.name)
            if value != f.default and value is not None:
                out[f.metadata["query"]] = _format(value)
    return out


def _default(name: str):
    return getattr(DEFAULTS, name)


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
        return _default(name)
    return text


def from_query(params: Mapping[str, str | Sequence[str]]) -> tuple[ViewSettings, list[str]]:
    """Read a view from query parameters; returns the view and the problems found.

    Checks that need no data (names of tie policies and interval methods, the confidence level's range and step,
    the form of a dataset id) happen here; checks against the data (column names, n within 1..N, slider steps) in
    :func:`check_against_data`. Older URL names are read where the current name is not given: ``band`` (the
    Confidence page's measures) as the selection, ``n`` (the one n of every page) as each page's n.
    """
    by_query = {q: f for f, q in QUERY_NAMES.items()}
    problems: list[str] = []
    values = {}
    unknown = [key for key in params if key not in by_query and key not in {a for a, _ in ALIASES}
               and key not in RETIRED]
    problems += [RETIRED[key] for key in RETIRED if key in params]
    if unknown:
        problems.append(f"The link's {listed(unknown, _shown)} "
                        f"{'is not a setting' if len(unknown) == 1 else 'are not settings'} of this dashboard; "
                        "ignored.")
    reported: set[str] = set()
    for name, query in QUERY_NAMES.items():
        aliases = [alias for alias, target in ALIASES if target == name]
        key = next((k for k in [query, *aliases] if k in params), None)
        if key is None:
            continue
        raw = params[key]
        raw_list = [raw] if isinstance(raw, str) else list(raw)
        if raw_list:  # (a problem with a value under an older name is reported once)
            values[name] = _parse(name, raw_list, problems if key not in reported else [])
            reported.add(key)
    used = {key for name, query in QUERY_NAMES.items() for key in [query] if key in params}
    used |= {alias for alias, name in ALIASES if alias in params and QUERY_NAMES[name] not in params}
    for alias in dict.fromkeys(a for a, _ in ALIASES if a in params and a not in used):
        raw = params[alias]
        values_shown = listed([raw] if isinstance(raw, str) else list(raw), _shown)
        problems.append(f"The link's {alias}={values_shown} is an older name of a setting the link also gives under its "
                        "current name; it was ignored.")
    return check_settings(DEFAULTS.set(**values), problems)


def check_settings(view: ViewSettings, problems: list[str] | None = None) -> tuple[ViewSettings, list[str]]:
    """Checks that need no data; see :func:`from_query`."""
    problems = [] if problems is None else problems
    return replace(view, **{g: getattr(view, g).check(problems) for g in GROUPS}), problems


def cut_gammas(view: ViewSettings) -> dict[str, float]:
    """The thresholds set on the multi-sample pages, by measure."""
    return _cut_gammas(view.cut_gammas)[0]


def with_cut_gamma(view: ViewSettings, measure: str, gamma: float | None) -> ViewSettings:
    """The view with ``measure``'s threshold set to ``gamma`` (None removes it: the default applies)."""
    gammas = cut_gammas(view)
    gammas.pop(measure, None)
    if gamma is not None:
        gammas[measure] = float(gamma)
    return view.set(cut_gammas=tuple(f"{m}={g!r}" for m, g in gammas.items()))


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
                            f"{listed(unknown, _shown)}; they were left out.")
            changes[name] = tuple(c for c in chosen if c in known)
    view = view.set(**changes)
    if view.sample_column is not None and view.sample_column == view.label:
        problems.append(f"The column {_shown(view.label)} cannot be both the label and the sample column; "
                        "it is the label.")
        view = view.set(sample_column=None)
    taken = {c for c in (view.label, view.sample_column) if c is not None}
    for name, what in ROLE_LISTS.items():
        clash = [c for c in getattr(view, name) if c in taken]
        if clash:
            problems.append(f"The {what} cannot include the label or sample column {listed(clash, _shown)}; "
                            "left out.")
            view = view.set(**{name: tuple(c for c in getattr(view, name) if c not in taken)})
    outside = [m for m in view.lower if view.scores and m not in view.scores]
    if outside:
        problems.append(f"The link marks {listed(outside, _shown)} as lower-is-better, but they are not "
                        "among the score columns; left out.")
        view = view.set(lower=tuple(m for m in view.lower if m not in outside))
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
    return view.set(label=label, sample_column=sample,
                    scores=view.scores or tuple(c for c in scores if c not in taken),
                    keys=view.keys or tuple(c for c in keys if c not in taken))


def check_against_data(view: ViewSettings, *, measures: Sequence[str], n_candidates: int,
                       columns: Sequence[str] | None = None) -> tuple[ViewSettings, list[str]]:
    """Check a view against the loaded data: known measures, no more than a page draws, n within 1..N on the
    slider grid, a range of at least two n, in order (and, given ``columns``, :func:`check_columns`)."""
    problems: list[str] = []
    if columns is not None:
        view, problems = check_columns(view, columns)
    facts = DataFacts(tuple(measures), n_candidates)
    return replace(view, **{g: getattr(view, g).check_data(facts, problems) for g in GROUPS}), problems


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
    return view.set(**changes), problems
