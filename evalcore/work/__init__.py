"""Work that one request can start, bounded: the estimated cost of the expensive calls (:mod:`.cost`) and the
host's budget that refuses what is past it, offering what fits (:mod:`.budget`)."""

from .budget import (BUDGET_ENV_VAR, DEFAULT_BUDGET, WorkTooLargeError, check_work, duration_text, parse_budget,
                     work_budget)
from .cost import (Offer, WorkEstimate, WorkModel, grid_size, mdd_seconds, mean_estimate, pair_estimate,
                   report_estimate, roc_estimate, rouge_estimate, sizes_estimate, systems_estimate, trec_estimate,
                   tukey_estimate, wilcoxon_estimate)

__all__ = ["BUDGET_ENV_VAR", "DEFAULT_BUDGET", "Offer", "WorkEstimate", "WorkModel", "WorkTooLargeError",
           "check_work", "duration_text", "grid_size", "mdd_seconds", "pair_estimate", "parse_budget",
           "report_estimate", "roc_estimate", "sizes_estimate", "systems_estimate", "work_budget", "rouge_estimate",
           "trec_estimate", "mean_estimate", "tukey_estimate", "wilcoxon_estimate"]
