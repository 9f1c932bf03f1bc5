"""What a computation will cost, estimated before it starts: the CPU seconds of the expensive calls one request
(a link, a click, a command line) can start.

Every expensive call is a sum of four terms in the number of resamples ``R`` and the number of list sizes ``S``
it tests::

    seconds = fixed + S * per_size + R * (per_resample + S * per_resample_size)

(:class:`WorkModel`), with coefficients that scale with the number of candidates ``N``. The coefficients are CPU
seconds per unit of work measured on the project's reference machine (2 cores; ``bench/bench_work.py`` measures
them again and prints the predicted against the measured seconds: 0.9 to 1.5 times the measured CPU time in the
run recorded in the commit that added it), so an estimate is the cost in that machine's seconds; a host's budget is in the same unit.

===========================  =====================================================================  ===========
call                         cost per unit (seconds)                                                 model
===========================  =====================================================================  ===========
paired bootstrap             3e-5 per resample, 4.5e-8 per candidate and resample, 8.4e-8 per list   :func:`pair_estimate`
                             size and resample
approximate randomization    2e-6 per resample, 5.8e-9 per candidate and resample, 2.2e-8 per list   :func:`pair_estimate`
                             size and resample
the pair at every n          1e-5 per list size (the counts, Fisher and the other exact tests,     :func:`pair_estimate`
                             effect sizes and their intervals, the curves)
ROC, DET, PR intervals       2.1e-8 per candidate, resample and measure (the AP bootstrap, always)   :func:`roc_estimate`
systems on a test set        3e-8 per item and resample (up to 5 systems), 16 times that more with   :func:`systems_estimate`
                             the test-set-size curves
minimum detectable diff.     6e-5 + 1.3e-9 N per list size (the command line's ``--mdd``; the page  :func:`mdd_seconds`
                             computes it on a grid of at most 101 n)
ROUGE (rouge-score)          3e-5 per (document, system, reference), 5e-6 per token of summary and   :func:`rouge_estimate`
                             reference, ROUGE-L 6e-7 more per product of their tokens
TREC runs (ir-measures)      2e-6 per run line, 2e-5 per (topic, run)                                :func:`trec_estimate`
a per-item score table       2e-7 per (item, system)                                                 :func:`mean_estimate`
Tukey's HSD (randomized)     6e-9 per (item, system, statistic, permutation)                         :func:`tukey_estimate`
Wilcoxon's exact p-value     1.5e-8 per pair and n^3 (scipy's exact null distribution)               :func:`wilcoxon_estimate`
===========================  =====================================================================  ===========

The scorers' estimates (ROUGE, TREC, a table of scores) are of the scoring before any resampling: a
:class:`WorkEstimate` of ``fixed`` seconds and no resamples.

The rest of what a request can start has its models beside these: reading, ranking, tables and estimates from a
sample in :mod:`.commands`, the pages' own computations (the Unanimous Improvement Ratio, validation, an
annotation draw, ...) in :mod:`.pages`, scoring text in :mod:`.scoring`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["WorkModel", "WorkEstimate", "Offer", "pair_estimate", "sizes_estimate", "roc_estimate", "report_estimate",
           "systems_estimate", "rouge_estimate", "trec_estimate", "mean_estimate", "tukey_estimate",
           "wilcoxon_estimate",
           "mdd_seconds", "grid_size", "RESAMPLING", "PAIR_PER_SIZE", "ROC_PER_CANDIDATE"]

#: Seconds per resample, per (candidate, resample) and per (list size, resample) of the resampling tests of two
#: n-best lists (evalcore.compare: paired_bootstrap, approximate_randomization).
RESAMPLING = {
    "bootstrap": (3e-5, 4.5e-8, 8.4e-8),
    "randomization": (2e-6, 5.8e-9, 2.2e-8),
}
#: Seconds per tested n of the pair at every n (counts, the exact tests, effects and their intervals, curves).
PAIR_PER_SIZE = 1e-5
#: Seconds per (candidate, resample, measure) of the ROC page's bootstrap (evalcore.roc.roc_table).
ROC_PER_CANDIDATE = 2.1e-8
#: Seconds per (item, resample) of comparing up to five systems on a test set (evalcore.systems.compare; more
#: systems in proportion): 18 to 28 ns of CPU time measured for 2,000 to 50,000 items and 2 to 5 systems, and 16
#: times that for the test-set-size curves (bench/bench_work.py).
SYSTEMS_PER_ITEM = 3e-8
#: Seconds per list size of the minimum detectable difference: a constant and a part per candidate.
MDD_PER_SIZE = (6e-5, 1.3e-9)
#: rouge-score (evalcore.systems.rouge): seconds per (document, system, reference) scored, per token of the
#: summary and the reference (tokenizing, n-grams; stems remembered), and per product of their tokens (ROUGE-L's
#: table of the longest common subsequence), measured on one core for summaries of 20 to 150 words.
ROUGE_COSTS = (3e-5, 5e-6, 6e-7)
#: TREC runs (evalcore.systems.trec): seconds per run line (read, checked, handed to ir-measures) and per
#: (topic, run) evaluated.
TREC_COSTS = (2e-6, 2e-5)
#: A per-item table of scores: seconds per (item, system) read and checked.
MEAN_PER_VALUE = 2e-7
#: The randomized Tukey HSD (evalcore.systems.meantests): seconds per (item, system, statistic, permutation).
TUKEY_PER_VALUE = 6e-9
#: scipy's exact Wilcoxon p-value: seconds per pair and n^3 (its exact null distribution; auto uses it to n = 50).
WILCOXON_EXACT = 1.5e-8


@dataclass(frozen=True)
class WorkModel:
    """``seconds = fixed + S * per_size + R * (per_resample + S * per_resample_size)`` for ``R`` resamples and
    ``S`` list sizes."""

    fixed: float = 0.0
    per_size: float = 0.0
    per_resample: float = 0.0
    per_resample_size: float = 0.0

    def seconds(self, resamples: int, sizes: int) -> float:
        return (self.fixed + sizes * self.per_size
                + resamples * (self.per_resample + sizes * self.per_resample_size))

    def __add__(self, other: "WorkModel") -> "WorkModel":
        return WorkModel(self.fixed + other.fixed, self.per_size + other.per_size,
                         self.per_resample + other.per_resample, self.per_resample_size + other.per_resample_size)


@dataclass(frozen=True)
class Offer:
    """A change of settings that fits the budget: ``changes`` by setting name (``resamples``, ``n_step``),
    ``text`` in words, ``seconds`` its estimate."""

    changes: dict = field(hash=False)
    text: str
    seconds: float


@dataclass(frozen=True)
class WorkEstimate:
    """The estimated cost of one call.

    Attributes
    ----------
    what : str
        The work in words ("the paired bootstrap with 100,000 resamples at 199,801 list sizes of 200,000
        candidates").
    model : WorkModel
        Its cost as a function of resamples and list sizes.
    resamples : int
        The resamples asked for (0: the work does not resample).
    n_range : (int, int) or None
        The range of n tested, where a step between the tested n can make the work smaller.
    n_step : int
        The step asked for (1: every n).
    """

    what: str
    model: WorkModel
    resamples: int = 0
    n_range: tuple[int, int] | None = None
    n_step: int = 1
    extra_sizes: int = 0  # list sizes tested besides the range's (the report's tables)
    resample_choices: tuple[int, ...] = ()  # where only these numbers of resamples can be asked for (a page's slider)
    advice: str = ""  # what makes the work smaller where no offer can (e.g. "use fewer or shorter segments")

    @property
    def sizes(self) -> int:
        return (grid_size(self.n_range, self.n_step) if self.n_range else 0) + self.extra_sizes

    @property
    def seconds(self) -> float:
        return self.model.seconds(self.resamples, self.sizes)

    def offers(self, budget: float, *, min_resamples: int = 100) -> list[Offer]:
        """Changes that bring the work within ``budget`` seconds: fewer resamples; a step between the tested n;
        both (the default 1,000 resamples, or fewer, with a step). At most three, cheapest change first."""
        out: list[Offer] = []
        if self.resamples:
            fit = _fit_resamples(self.model, self.sizes, budget)
            if self.resample_choices:
                fit = max((c for c in self.resample_choices if c <= fit), default=0)
            if fit >= min_resamples and fit < self.resamples:
                out.append(Offer({"resamples": fit}, f"{fit:,} resamples", self.model.seconds(fit, self.sizes)))
        if self.n_range is not None:
            step = self._fit_step(self.resamples, budget)
            if step is not None and step > self.n_step:
                out.append(Offer({"n_step": step}, f"a step of {step:,} between the tested n",
                                 self._seconds(self.resamples, step)))
            if self.resamples and not out:
                both = min(self.resamples, 1000)
                while both >= min_resamples:
                    step = self._fit_step(both, budget)
                    if step is not None:
                        changes = {"n_step": step} if both == self.resamples else {"resamples": both, "n_step": step}
                        text = (f"{both:,} resamples with " if both != self.resamples else "") + \
                               f"a step of {step:,} between the tested n"
                        out.append(Offer(changes, text, self._seconds(both, step)))
                        break
                    both //= 2
        return out

    def _seconds(self, resamples: int, step: int) -> float:
        return self.model.seconds(resamples, grid_size(self.n_range, step) + self.extra_sizes)

    def _fit_step(self, resamples: int, budget: float) -> int | None:
        """The smallest step of 1, 2, 5, 10, 20, 50, ... whose grid fits ``budget``; None if none does."""
        lo, hi = self.n_range
        step = 1
        while True:
            if self._seconds(resamples, step) <= budget:
                return step
            if step > hi - lo:  # the grid is both ends already
                return None
            step = _next_nice(step)


def _fit_resamples(model: WorkModel, sizes: int, budget: float) -> int:
    """The most resamples that fit ``budget`` at ``sizes`` list sizes, rounded down to two significant digits."""
    per = model.per_resample + sizes * model.per_resample_size
    room = budget - model.fixed - sizes * model.per_size
    if per <= 0 or room <= 0:
        return 0
    fit = int(room / per)
    if fit < 100:
        return fit
    scale = 10 ** (len(str(fit)) - 2)
    return fit // scale * scale


def _next_nice(step: int) -> int:
    magnitude = 10 ** int(math.log10(step))
    for factor in (1, 2, 5, 10):
        if factor * magnitude > step:
            return factor * magnitude
    return 10 * magnitude  # pragma: no cover


def grid_size(n_range: tuple[int, int], step: int = 1) -> int:
    """How many n the grid ``lo, lo + step, ..., hi`` (``hi`` always included) holds."""
    lo, hi = int(n_range[0]), int(n_range[1])
    if hi < lo:
        return 0
    count = (hi - lo) // step + 1
    return count + (1 if (hi - lo) % step else 0)


def mdd_seconds(n_candidates: int) -> float:
    """Seconds per list size of the minimum detectable difference (:mod:`evalcore.stats.power`)."""
    return MDD_PER_SIZE[0] + MDD_PER_SIZE[1] * n_candidates


def _tests_words(test: str, resamples: int) -> str:
    names = {"bootstrap": "the paired bootstrap", "randomization": "the randomization test"}
    if test in RESAMPLING:
        return f"{names[test]} with {resamples:,} resamples"
    return "the tests"


def pair_model(n_candidates: int, test: str) -> WorkModel:
    """The cost of testing two rankings of ``n_candidates`` at S list sizes with ``test``."""
    each, per_candidate, per_size = RESAMPLING.get(test, (0.0, 0.0, 0.0))
    return WorkModel(per_size=PAIR_PER_SIZE, per_resample=each + per_candidate * n_candidates,
                     per_resample_size=per_size)


def pair_estimate(n_candidates: int, n_range: tuple[int, int], test: str, resamples: int = 0, *,
                  n_step: int = 1, mdd: bool = False) -> WorkEstimate:
    """The cost of a pair of rankings tested at every n of ``n_range`` (every ``n_step``-th n, both ends
    included): the Significance page and ``evalcore compare`` (:func:`evalcore.analysis.pair_comparison`).

    ``mdd``: the minimum detectable difference at every tested n too (the command line's ``--mdd``).

    Examples
    --------
    >>> e = pair_estimate(200_000, (200, 200_000), "bootstrap", 100_000)
    >>> round(e.seconds / 60)  # minutes: the link of issue 19
    43
    """
    resampling = test in RESAMPLING
    model = pair_model(n_candidates, test)
    if mdd:
        model = model + WorkModel(per_size=mdd_seconds(n_candidates))
    count = grid_size(n_range, n_step)
    step = "" if n_step == 1 else f" (a step of {n_step:,})"
    what = (f"{_tests_words(test, resamples)} at {count:,} list sizes{step} of {n_candidates:,} candidates")
    return WorkEstimate(what, model, resamples if resampling else 0, tuple(int(v) for v in n_range), int(n_step))


def sizes_estimate(n_candidates: int, sizes, test: str, resamples: int = 0, *, mdd: bool = False) -> WorkEstimate:
    """:func:`pair_estimate` for any list of sizes (the command line's ``--n``): a regular grid ``lo:hi:step``
    offers a larger step; another list only fewer resamples."""
    values = sorted({int(v) for v in sizes})
    step = values[1] - values[0] if len(values) > 1 else 1
    if values and values == list(range(values[0], values[-1] + 1, step)) and step >= 1:
        return pair_estimate(n_candidates, (values[0], values[-1]), test, resamples, n_step=step, mdd=mdd)
    estimate = pair_estimate(n_candidates, (1, 0), test, resamples, mdd=mdd)
    what = estimate.what.replace(" at 0 list sizes", f" at {len(values):,} list sizes")
    return WorkEstimate(what, estimate.model, estimate.resamples, None, 1, extra_sizes=len(values))


def roc_estimate(n_candidates: int, measures: int, resamples: int) -> WorkEstimate:
    """The cost of the ROC page's table (:func:`evalcore.roc.roc_table`): the AP bootstrap of every measure."""
    model = WorkModel(fixed=1e-7 * n_candidates * measures,
                      per_resample=ROC_PER_CANDIDATE * n_candidates * measures)
    what = (f"the bootstrap of average precision with {resamples:,} resamples for {measures} measure"
            f"{'s' if measures != 1 else ''} of {n_candidates:,} candidates")
    return WorkEstimate(what, model, resamples)


def systems_estimate(n_items: int, n_systems: int, resamples: int, *, curves: bool = False,
                     choices: tuple[int, ...] = ()) -> WorkEstimate:
    """The cost of comparing systems on a test set by resampling its items (:mod:`evalcore.systems`: every pair's
    paired test, each system's interval; with ``curves``, the test-set-size curves too, whose resampled test sets
    hold 16 times the items together). The per-item statistics are scored before (bounded by the input's size).
    ``choices``: the numbers of resamples that can be offered (the Systems page's slider); any number if empty."""
    scale = 17.0 if curves else 1.0
    model = WorkModel(per_resample=SYSTEMS_PER_ITEM * n_items * scale * max(1.0, n_systems / 5))
    what = (f"resampling {n_items:,} items {resamples:,} times for {n_systems} systems"
            + (" and the test-set-size curves" if curves else ""))
    return WorkEstimate(what, model, resamples, resample_choices=tuple(choices))


def report_estimate(n_candidates: int, n_range: tuple[int, int], table_sizes: int, pairs: int, test: str,
                    resamples: int, n_step: int = 1) -> WorkEstimate:
    """The cost of a report's numbers (:func:`evalcore.report.report_results`): the pair of Figure 3 at every n
    of ``n_range`` (every ``n_step``-th) and every pair of measures at the ``table_sizes`` sizes of the tables."""
    resampling = test in RESAMPLING
    each, per_candidate, per_size = RESAMPLING.get(test, (0.0, 0.0, 0.0))
    model = WorkModel(per_size=PAIR_PER_SIZE, per_resample=(each + per_candidate * n_candidates) * (1 + pairs),
                      per_resample_size=per_size)
    count = grid_size(n_range, n_step)
    what = (f"the report's numbers: {_tests_words(test, resamples)} at {count:,} list sizes for Figure 3 and for "
            f"{pairs} pair{'s' if pairs != 1 else ''} of measures, of {n_candidates:,} candidates")
    return WorkEstimate(what, model, resamples if resampling else 0, tuple(int(v) for v in n_range), int(n_step),
                        extra_sizes=table_sizes * pairs)


# ------------------------------------------------------------------------------ the systems' scorers (issue 31)

def rouge_estimate(metric: str, scored: int, tokens: int, products: int, *, documents: int = 0,
                   systems: int = 0) -> WorkEstimate:
    """The cost of scoring ROUGE with rouge-score (:mod:`evalcore.systems.rouge`), before it starts.

    ``scored``: the (document, system, reference) pairs; ``tokens``: the words of summary and reference summed over
    them; ``products``: summary words times reference words summed over them (ROUGE-L and ROUGE-Lsum's longest
    common subsequence fills a table of that size). Words counted by white space stand in for tokens.
    """
    each, per_token, per_product = ROUGE_COSTS
    seconds = each * scored + per_token * tokens
    if metric in ("rougeL", "rougeLsum"):
        seconds += per_product * products
    what = (f"scoring {metric} with rouge-score on {documents:,} documents of {systems} systems" if documents
            else f"scoring {metric} with rouge-score on {scored:,} pairs of summaries")
    return WorkEstimate(what, WorkModel(fixed=seconds))


def trec_estimate(run_lines: int, topics: int, runs: int) -> WorkEstimate:
    """The cost of reading TREC runs and computing a measure on every topic with ir-measures
    (:mod:`evalcore.systems.trec`): by the runs' lines, and the topics times the runs."""
    each_line, each_topic = TREC_COSTS
    return WorkEstimate(f"evaluating {runs} runs of {run_lines:,} lines on {topics:,} topics with ir-measures",
                        WorkModel(fixed=each_line * run_lines + each_topic * topics * runs))


def mean_estimate(items: int, systems: int) -> WorkEstimate:
    """The cost of reading a table of per-item scores (``--metric mean``): by its items times systems."""
    return WorkEstimate(f"reading {items:,} items' scores of {systems} systems",
                        WorkModel(fixed=MEAN_PER_VALUE * items * systems))


def tukey_estimate(n_items: int, n_systems: int, statistics: int, resamples: int) -> WorkEstimate:
    """The cost of the randomized Tukey HSD (:func:`evalcore.systems.meantests.tukey_pvalues`): every permutation
    gathers and sums each item's statistics of every system."""
    return WorkEstimate(f"Tukey's HSD with {resamples:,} permutations of {n_items:,} items and {n_systems} systems",
                        WorkModel(per_resample=TUKEY_PER_VALUE * n_items * n_systems * statistics), resamples)


def wilcoxon_estimate(n_items: int, pairs: int, method: str) -> WorkEstimate:
    """The cost of scipy's Wilcoxon test of every pair: its exact null distribution grows as n^3 (``method``
    ``exact``, or ``auto`` up to 50 items); the normal approximation costs next to nothing."""
    exact = method == "exact" or (method == "auto" and n_items <= 50)
    seconds = pairs * (WILCOXON_EXACT * n_items ** 3 if exact else 1e-4)
    return WorkEstimate(f"the Wilcoxon test of {pairs} pairs on {n_items:,} items"
                        + (" with the exact p-value" if exact else ""), WorkModel(fixed=seconds))
