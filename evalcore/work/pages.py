"""What the dashboard's own computations cost, estimated before a page computes them: the ones no command of the
command line has, beside :mod:`.commands` (reading, ranking, estimates from a sample, DuckDB), :mod:`.cost`
(resampling, ROC, reports, systems) and :mod:`.scoring` (text metrics), which the pages use too.

Each function returns a :class:`~evalcore.work.cost.WorkEstimate` in CPU seconds of the project's reference
machine (2 cores, shared), measured by ``bench/bench_work.py --commands`` (the constants below, with a margin of
about 1.5 over what it measured). They are all linear in what the page holds (candidates, measures, samples,
list sizes, characters), which the reading limits bound; the point is that each is estimated before it starts
and a host's budget refuses it, not that any is large. ``evalcore_app/costs.py`` maps every cached computation of the pages
to one of these (or of the other modules').

=========================  ================================================================  ======================
work                       cost                                                              model
=========================  ================================================================  ======================
labels and scores checked  0.3 us per cell of the label, score, key and sample columns       :func:`labels_estimate`
a pass over candidates     50 ns per candidate and measure (subsets, masks, quantiles,       :func:`pass_estimate`
                           members of D1 and D2, the stored annotations)
curves in memory           3 us per (n, measure): precision, recall, F and the interval      :func:`curves_estimate`
tests over samples         0.2 ms per sample and measure, and a pass over the candidates     :func:`samples_estimate`
pairs at one n             0.2 ms per pair of measures, and a pass per measure               :func:`pairwise_estimate`
ROC, DET, PR curves        0.1 us per candidate and measure                                  :func:`roc_curves_estimate`
text checked               20 ns per character of every file (lines split, compared)         :func:`text_estimate`
similarity of systems      0.1 us per item and pair of systems                               :func:`similarity_estimate`
an annotation draw         0.2 us per candidate and 30 us per candidate drawn (written)      :func:`draw_estimate`
=========================  ================================================================  ======================

Every estimate has a fixed part of 0.1 ms (the call), so none is zero.
"""

from __future__ import annotations

from .cost import WorkEstimate, WorkModel

__all__ = ["labels_estimate", "pass_estimate", "members_estimate", "curves_estimate", "samples_estimate",
           "uir_estimate", "pairwise_estimate",
           "roc_curves_estimate", "text_estimate", "similarity_estimate", "draw_estimate", "call_estimate"]

CALL = 1e-4
CELL_CHECKED = 3e-8
PER_CANDIDATE = 1e-8
MEMBERS = 6e-7
CURVE_ROW = 2e-6
SAMPLE_TEST = 1e-4
SAMPLE_RANK = 8e-8
UIR = 5e-6
PAIR_AT_N = 2e-4
PAIR_PER_CANDIDATE = 8e-8
ROC_ROW = 3e-7
TEXT_CHAR = 2e-10
SIMILARITY = 5e-8
DRAW = (1.5e-8, 2e-6)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def call_estimate(what: str) -> WorkEstimate:
    """Work of a fixed size (a record read, an object put together): the call alone."""
    return WorkEstimate(what, WorkModel(fixed=CALL))


def labels_estimate(name: str, rows: int, columns: int) -> WorkEstimate:
    """Checking and converting the label, score, key and sample columns of a table read
    (:func:`evalcore.io.load_candidates`, :func:`evalcore.io.load_annotated_sample`)."""
    return WorkEstimate(f"checking the labels and scores of {name} ({_plural(rows, 'row')}, "
                        f"{_plural(columns, 'column')})", WorkModel(fixed=CALL + CELL_CHECKED * rows * max(columns, 1)),
                        advice="read a smaller file, or fewer score columns")


def pass_estimate(what: str, n_candidates: int, measures: int = 1) -> WorkEstimate:
    """One vectorised pass over the candidates for each of ``measures`` (a subset, a mask, quantiles, members)."""
    return WorkEstimate(f"{what} ({_plural(n_candidates, 'candidate')})",
                        WorkModel(fixed=CALL + PER_CANDIDATE * n_candidates * max(measures, 1)))


def members_estimate(n_candidates: int, n: int) -> WorkEstimate:
    """The candidates of D1 and D2 of two n-best lists, as a table (:func:`evalcore.analysis.difference_members`)."""
    return WorkEstimate(f"the candidates of D1 and D2 at n = {n:,} ({_plural(n_candidates, 'candidate')})",
                        WorkModel(fixed=CALL + MEMBERS * n_candidates))


def uir_estimate(n_candidates: int, measures: int, samples: int) -> WorkEstimate:
    """The Unanimous Improvement Ratio of every pair of ``measures`` over the samples, with each measure's ranks
    within each sample."""
    seconds = CALL + UIR * samples * max(measures, 1) ** 2 + SAMPLE_RANK * n_candidates * max(measures, 1)
    return WorkEstimate(f"the Unanimous Improvement Ratio of every pair of {_plural(measures, 'measure')}: "
                        f"{_plural(samples, 'sample')}, {_plural(n_candidates, 'candidate')}", WorkModel(fixed=seconds))


def curves_estimate(n_candidates: int, measures: int, sizes: int, *, what: str = "the curves") -> WorkEstimate:
    """Curves of ``measures`` rankings at ``sizes`` list sizes, computed in memory (precision, recall, F and the
    interval at every n: :func:`evalcore.analysis.curves`)."""
    seconds = CALL + CURVE_ROW * sizes * max(measures, 1) + PER_CANDIDATE * n_candidates * max(measures, 1)
    return WorkEstimate(f"{what} at {_plural(sizes, 'list size')} for {_plural(measures, 'measure')} of "
                        f"{_plural(n_candidates, 'candidate')}", WorkModel(fixed=seconds),
                        advice="choose a shorter range of n, or fewer measures")


def samples_estimate(what: str, n_candidates: int, measures: int, samples: int) -> WorkEstimate:
    """The tests and intervals of the multi-sample pages (validation, across samples): each sample and measure,
    and each measure's ranks within each sample."""
    seconds = CALL + SAMPLE_TEST * samples * max(measures, 1) + SAMPLE_RANK * n_candidates * max(measures, 1)
    return WorkEstimate(f"{what}: {_plural(samples, 'sample')}, {_plural(measures, 'measure')}, "
                        f"{_plural(n_candidates, 'candidate')}", WorkModel(fixed=seconds))


def pairwise_estimate(n_candidates: int, measures: int) -> WorkEstimate:
    """Every pair of ``measures`` compared at one n (D1 and D2, Fisher's test, the effects and their intervals)."""
    pairs = measures * (measures - 1) // 2
    seconds = (CALL + PAIR_AT_N * pairs + PER_CANDIDATE * n_candidates * measures
               + PAIR_PER_CANDIDATE * n_candidates * pairs)
    return WorkEstimate(f"testing {_plural(pairs, 'pair')} of measures at one n of {_plural(n_candidates, 'candidate')}",
                        WorkModel(fixed=seconds))


def roc_curves_estimate(n_candidates: int, measures: int) -> WorkEstimate:
    """ROC, DET or precision-recall curves of ``measures`` rankings (a point per distinct score)."""
    return WorkEstimate(f"the curves of {_plural(measures, 'measure')} of {_plural(n_candidates, 'candidate')}",
                        WorkModel(fixed=CALL + ROC_ROW * n_candidates * max(measures, 1)))


def text_estimate(what: str, characters: int) -> WorkEstimate:
    """Text files split into segments and checked together (line counts, empty lines, the same segments)."""
    return WorkEstimate(f"{what} ({characters:,} characters)", WorkModel(fixed=CALL + TEXT_CHAR * characters),
                        advice="use fewer or shorter segments")


def similarity_estimate(items: int, systems: int) -> WorkEstimate:
    """How alike every pair of systems is (identical outputs, correlated contributions)."""
    pairs = systems * (systems - 1) // 2
    return WorkEstimate(f"comparing the outputs of {_plural(pairs, 'pair')} of systems on {_plural(items, 'item')}",
                        WorkModel(fixed=CALL + SIMILARITY * items * max(pairs, 1)))


def draw_estimate(n_candidates: int, drawn: int) -> WorkEstimate:
    """Drawing a seeded sample (or a pooled design) of ``drawn`` of ``n_candidates`` and writing it to the
    annotation database."""
    per_candidate, per_drawn = DRAW
    return WorkEstimate(f"drawing {_plural(drawn, 'candidate')} of {n_candidates:,} to annotate",
                        WorkModel(fixed=CALL + per_candidate * n_candidates + per_drawn * drawn),
                        advice="draw fewer candidates")
