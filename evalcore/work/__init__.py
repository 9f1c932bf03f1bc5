"""Work that one request can start, bounded: the estimated cost of everything it can start (:mod:`.cost` for the
resampling, ROC, reports and systems; :mod:`.commands` for reading, ranking, tables, estimates from a sample and the
engines; :mod:`.pages` for the dashboard's own computations; :mod:`.scoring` for scoring text) and the host's budget
that refuses what is past it, offering what fits (:mod:`.budget`)."""

from .budget import (BUDGET_ENV_VAR, DEFAULT_BUDGET, WorkTooLargeError, check_work, command_budget, duration_text,
                     observe, parse_budget, work_budget)
from .cost import (Offer, WorkEstimate, WorkModel, grid_size, mdd_seconds, mean_estimate, pair_estimate,
                   report_estimate, roc_estimate, rouge_estimate, sizes_estimate, systems_estimate, trec_estimate,
                   tukey_estimate, wilcoxon_estimate)

__all__ = ["BUDGET_ENV_VAR", "DEFAULT_BUDGET", "Offer", "WorkEstimate", "WorkModel", "WorkTooLargeError",
           "check_work", "command_budget", "duration_text", "observe", "grid_size", "mdd_seconds", "pair_estimate",
           "parse_budget", "report_estimate", "roc_estimate", "sizes_estimate", "systems_estimate", "work_budget",
           "rouge_estimate", "trec_estimate", "mean_estimate", "tukey_estimate", "wilcoxon_estimate"]
