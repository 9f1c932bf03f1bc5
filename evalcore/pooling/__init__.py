"""Annotate the pool, sample the rest: pooled annotation designs for n-best lists (issue 22).

============================  =========================================================================================
module                        what it does
============================  =========================================================================================
:mod:`.design`                the designs (``sample``, ``pool``, ``pool+sample``), their record in the annotation
                              database, the pool's size at every depth, the draw in annotation order, progress
:mod:`.estimators`            precision, acceptance sets, baseline, recall and the comparison of two measures from a
                              pooled design: exact inside the pool, unbiased and exact-interval beyond it
:mod:`.strata`                one design laid over one candidate set: the estimates of whichever kind it is
:mod:`.planning`              the depth K and sample size m that spend a budget of annotations best at a chosen n
:mod:`.exported`              the design an export carries in its evalcore: columns, checked against its labels
:mod:`.simulation`            coverage and width over many seeds, against a random sample of the same budget
:mod:`.stratified`            the stratified design: rank bands of chosen measures, each sampled at its own size
:mod:`.stratified_estimators` its estimates, cell by cell: precision (Korn & Graubard's interval at the effective
                              sample size), recall (MOVER-R), the design-based test of two measures (Rao & Scott)
:mod:`.stratified_planning`   the allocation of a budget over the bands from a pilot or a guess, and its expected
                              widths against a random sample
:mod:`.stratified_simulation` its coverage, widths and the test's level over many seeds
============================  =========================================================================================

Pooling is how information retrieval evaluates with incomplete judgments (TREC's pools; Yilmaz & Aslam 2006,
Aslam, Pavlu & Yilmaz 2006 for sampling beyond them); for n-best lists the pool is the union of the measures' top-K
lists, and every list of a pooled measure up to K is known exactly.
"""

from importlib import import_module

_NAMES = {
    "design": ("DESIGN_KINDS", "POOLED", "Design", "PoolProgress", "best_ranks", "deepest_pool", "draw_design",
               "parse_pool", "pool_progress", "pool_size", "pool_sizes", "rankings_for"),
    "estimators": ("POOLED_COLUMNS", "POOLED_COMPARE_COLUMNS", "REGIMES", "PoolIncomplete", "effective_counts",
                   "pooled_acceptance", "pooled_baseline", "pooled_compare", "pooled_difference_interval",
                   "pooled_precision", "pooled_recall"),
    "strata": ("Strata",),
    "stratified": ("StratifiedDesign", "Bands", "draw_stratified", "parse_widths", "parse_sizes"),
    "stratified_estimators": ("stratified_precision", "stratified_recall", "stratified_compare",
                              "stratified_acceptance", "stratified_baseline"),
    "planning": ("Plan", "PilotStrata", "plan_pool"),
    "exported": ("ExportedDesign", "check_annotated", "design_of_export"),
}
_WHERE = {name: module for module, names in _NAMES.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """The package's names, imported on first use (its :mod:`.cli` is imported by the command line, which must
    answer ``--help`` without numpy)."""
    if name in _WHERE:
        value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
