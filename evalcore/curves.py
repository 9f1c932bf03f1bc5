"""n-best precision curves and gamma-acceptance sets (Evert 2004, §2, Figures 1 and 2)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import ParameterError
from .stats.intervals import binomial_interval
from .nspec import check_sizes
from .ranking import Ranking

CURVE_COLUMNS = ("measure", "n", "tp", "fp", "precision", "recall", "f_beta", "baseline", "tie_straddled",
                 "lower", "upper")


def _constant(name: str, size: int) -> pd.Categorical:
    """A column holding one name: categorical, since a string column of N copies is slow to build."""
    return pd.Categorical.from_codes(np.zeros(size, dtype=np.int8), categories=[name])


def _ratio(num: np.ndarray, den) -> np.ndarray:
    if np.ndim(den) == 0 and den > 0:  # (recall: one total, no mask to build)
        return num / den
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.asarray(den) > 0, num / np.where(np.asarray(den) > 0, den, 1), np.nan)


def precision_curve(ranking: Ranking, n=None, *, beta: float = 1.0, confidence_level: float | None = 0.95,
                    interval: str = "clopper_pearson") -> pd.DataFrame:
    """Precision, recall and F-beta of the n-best lists of one ranking.

    Parameters
    ----------
    ranking : Ranking
        From :func:`evalcore.ranking.rank`.
    n : array_like of int, optional
        List sizes in 1..N; every n by default.
    beta : float
        Weight of recall in F-beta (``beta > 0``; 1 gives F1).
    confidence_level : float or None
        Adds the columns ``lower`` and ``upper``: a binomial confidence interval for the
        true precision (Evert 2004, §3.2). None leaves them out.
    interval : str
        Interval method, see :func:`evalcore.stats.intervals.binomial_interval`.

    Returns
    -------
    DataFrame
        Columns ``measure, n, tp, fp, precision, recall, f_beta, baseline, tie_straddled``
        (True where the cut-off splits a tie group, so the tie policy decides which
        candidates are in), then ``lower, upper``. Recall is NaN when there are no TPs.

    Notes
    -----
    ``precision = tp / n``, ``recall = tp / T`` (T = all TPs),
    ``F_beta = (1 + beta^2) P R / (beta^2 P + R)``, ``baseline = T / N``.
    At n = N the precision equals the baseline.
    """
    if not beta > 0:
        raise ParameterError(f"`beta` must be positive; got {beta!r}")
    return checked_curve(ranking, check_sizes(n, ranking.n_candidates), beta=beta, confidence_level=confidence_level,
                         interval=interval)


def checked_curve(ranking: Ranking, sizes: np.ndarray, *, beta: float = 1.0, confidence_level: float | None = 0.95,
                  interval: str = "clopper_pearson") -> pd.DataFrame:
    """:func:`precision_curve` at list sizes checked before (:func:`evalcore.nspec.check_sizes` against this
    ranking's N, or a grid inside a checked range), for a request that checks its sizes once at its start."""
    return with_interval(level_free_curve(ranking, sizes, beta=beta), confidence_level, interval)


def level_free_curve(ranking: Ranking, sizes: np.ndarray, *, beta: float = 1.0) -> pd.DataFrame:
    """:func:`checked_curve` without the interval: the columns that owe nothing to the confidence level, kept across
    levels by a caller that asks for several (:func:`with_interval` adds ``lower, upper``)."""
    tp = ranking.tp[sizes]
    total_tp = ranking.n_tp
    precision = tp / sizes
    recall = _ratio(tp.astype(float), total_tp)
    b2 = beta * beta
    f_beta = _ratio((1 + b2) * precision * recall, b2 * precision + recall)
    f_beta = np.where((tp == 0) & (total_tp > 0), 0.0, f_beta)
    columns = {
        "measure": _constant(ranking.measure, sizes.size), "n": sizes.copy(), "tp": tp, "fp": sizes - tp,
        "precision": precision, "recall": recall, "f_beta": f_beta,
        "baseline": np.full(sizes.size, total_tp / ranking.n_candidates),
    }
    columns["tie_straddled"] = ranking.straddles(sizes)  # (what the ranking itself says, then statistics on counts)
    return pd.DataFrame(columns, copy=False)  # (the arrays are the table's own: no copy into one block)


def with_interval(curve: pd.DataFrame, confidence_level: float | None = 0.95,
                  interval: str = "clopper_pearson") -> pd.DataFrame:
    """A :func:`level_free_curve` with the binomial interval of its precision at ``confidence_level`` (columns
    ``lower, upper``; none where it is None), as a new table that shares the curve's columns (the curve is not
    changed: one level-free curve serves every level)."""
    if confidence_level is None:
        return curve.copy(deep=False)
    ci = binomial_interval(curve["tp"].to_numpy(), curve["n"].to_numpy(), confidence_level, method=interval)
    out = curve.copy(deep=False)  # (copy-on-write: the new columns are the copy's own)
    out["lower"] = np.atleast_1d(ci.low)
    out["upper"] = np.atleast_1d(ci.high)
    return out


def acceptance_sets(ranking: Ranking, gamma, *, confidence_level: float | None = 0.95,
                    interval: str = "clopper_pearson") -> pd.DataFrame:
    """The gamma-acceptance sets {x : g(x) >= gamma} of one ranking (Evert 2004, §2).

    Parameters
    ----------
    ranking : Ranking
    gamma : array_like of float
        Thresholds. For a measure where lower is better the set is {x : g(x) <= gamma}.
    confidence_level, interval
        As in :func:`precision_curve`; the interval is left NaN for an empty set.

    Returns
    -------
    DataFrame
        Columns ``measure, gamma, size, tp, fp, precision, recall, lower, upper``.
        Precision is NaN for an empty set. Candidates with non-finite scores are never
        accepted. A threshold never splits a tie group, so the result does not depend on
        the tie policy.
    """
    gammas, sizes = ranking.acceptance_sizes(gamma)
    tp = ranking.tp[sizes]
    table = pd.DataFrame({
        "measure": _constant(ranking.measure, gammas.size), "gamma": gammas, "size": sizes, "tp": tp, "fp": sizes - tp,
        "precision": _ratio(tp.astype(float), sizes), "recall": _ratio(tp.astype(float), ranking.n_tp),
    })
    if confidence_level is not None:
        table["lower"] = np.nan
        table["upper"] = np.nan
        nonempty = sizes > 0
        if nonempty.any():
            ci = binomial_interval(tp[nonempty], sizes[nonempty], confidence_level, method=interval)
            table.loc[nonempty, "lower"] = ci.low
            table.loc[nonempty, "upper"] = ci.high
    return table
