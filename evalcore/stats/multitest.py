"""Corrections for many tests: the p-values of one comparison at many list sizes n.

Testing two rankings at every n from 100 to 2,000 (Evert 2004, Figure 3) is a family of
hundreds of tests; at alpha = 0.05 about one in twenty would come out significant even if the
rankings were equally good everywhere. :func:`adjust_pvalues` adjusts the family's p-values
exactly as R's ``p.adjust`` does, so that ``adjusted < alpha`` controls the family-wise error
rate (Holm) or the false discovery rate (Benjamini-Hochberg) instead of each test's own error.
The paper itself applies no correction ("none").
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .. import names
from ..errors import ParameterError

CORRECTIONS = names.CORRECTIONS


def _holm(p: np.ndarray) -> np.ndarray:
    # R: i <- seq_len(m); o <- order(p); pmin(1, cummax((m + 1L - i) * p[o]))[order(o)]
    m = p.size
    order = np.argsort(p, kind="stable")
    factor = (m + 1 - np.arange(1, m + 1)).astype(np.float64)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(factor * p[order]))
    return adjusted


def _benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    # R: i <- m:1L; o <- order(p, decreasing = TRUE); pmin(1, cummin(m / i * p[o]))[order(o)]
    m = p.size
    order = np.argsort(-p, kind="stable")  # R's order(decreasing = TRUE) is stable too
    factor = m / np.arange(m, 0, -1, dtype=np.float64)  # m / i first, then times p: R's rounding
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(factor * p[order]))
    return adjusted


_ADJUST: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda p: p.copy(),
    "holm": _holm,
    "bh": _benjamini_hochberg,
}


def check_correction(method: str) -> str:
    if method not in CORRECTIONS:
        raise ParameterError(f"`method` must be one of {', '.join(CORRECTIONS)}; got {method!r}")
    return method


def adjust_pvalues(p, method: str = "none") -> np.ndarray:
    """Adjust a family of p-values for multiple testing, as R's ``p.adjust``.

    Parameters
    ----------
    p : array_like of float, shape (m,)
        p-values in [0, 1]; NaN marks a missing one (R's NA).
    method : {"none", "holm", "bh"}
        "holm": Holm (1979), controls the family-wise error rate; "bh": Benjamini &
        Hochberg (1995), controls the false discovery rate (R's "BH"); "none": the
        p-values unchanged, as in the paper.

    Returns
    -------
    ndarray of float64, shape (m,)
        Adjusted p-values, in the order of `p`; NaN where `p` is NaN.

    Notes
    -----
    With the k non-missing p-values sorted, ``p_(1) <= ... <= p_(k)`` (ties in input order):

    * Holm: ``p~_(i) = min(1, max_{j <= i} (k + 1 - j) p_(j))``;
    * BH: ``p~_(i) = min(1, min_{j >= i} (k / j) p_(j))``.

    NaN values are kept in place and not counted in the family size k, which is what
    ``p.adjust(p, method)`` does with NA (its default ``n = length(p)`` is evaluated after the
    NAs are dropped). With ``k <= 1`` nothing is adjusted, as in R. The products are formed
    in R's order (``(k + 1 - i) * p`` and ``(k / i) * p``), so the results equal R's to the
    last bit. Cost O(m log m).

    Holm's adjusted p-values are never below BH's, and both are monotone in the raw p-value.

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian
    Journal of Statistics 6, 65-70.
    Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. JRSS B 57,
    289-300.
    R Core Team, ``p.adjust`` (R 4.2.2, package stats).

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(6).tolist()
    [0.03, 0.04, 0.04]
    """
    check_correction(method)
    values = np.array(p, dtype=np.float64, ndmin=1)
    if values.ndim != 1:
        raise ParameterError(f"`p` must be one-dimensional; got shape {values.shape}")
    present = ~np.isnan(values)
    bad = present & ~((values >= 0.0) & (values <= 1.0))
    if bad.any():
        raise ParameterError(f"`p` must hold p-values in [0, 1] (NaN for a missing one); "
                             f"got {values[bad][:3].tolist()}")
    out = values.copy()
    if present.sum() <= 1:
        return out
    out[present] = _ADJUST[method](values[present])
    return out


def significant_up_to(result) -> int:
    """Largest tested n such that the test is significant at every tested n up to it.

    Counting starts at the first tested n; 0 if that one is not significant. This is
    the "thin vertical line" of Evert (2004), Figure 3. ``result`` is a table with the columns ``n`` and
    ``significant`` (on the corrected p-values, :func:`adjust_pvalues`), e.g. of
    :func:`evalcore.compare.compare_rankings`, which re-exports this function.
    """
    sig = result["significant"].to_numpy()
    if sig.size == 0 or not sig[0]:
        return 0
    first_not = np.flatnonzero(~sig)
    last = first_not[0] - 1 if first_not.size else sig.size - 1
    return int(result["n"].to_numpy()[last])
