"""Agreement between annotators: Cohen's kappa (two) and Fleiss' kappa (more), with intervals.

Both take labels as given (any hashable values: "TP", "FP", "unsure", ...), one per subject
(candidate) and annotator; missing ratings are None or NaN.

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
Measurement 20, 37-46.
Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and
weighted kappa. Psychological Bulletin 72, 323-327.
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
Bulletin 76, 378-382.
Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., chapter 5 (the variance of
Fleiss' kappa, also with missing ratings).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from ..errors import ParameterError
from .intervals import check_confidence_level


@dataclass(frozen=True)
class KappaResult:
    """A kappa coefficient with its standard error and interval.

    Attributes
    ----------
    kappa : float
        NaN when chance agreement is 1 (every rating in one category: kappa is 0 / 0).
    standard_error : float
    low, high : float
        The interval at ``confidence_level``, clipped to [-1, 1].
    subjects : int
        Subjects (candidates) the coefficient rests on.
    raters : int
    observed_agreement, chance_agreement : float
    method : str
    confidence_level : float
    """

    kappa: float
    standard_error: float
    low: float
    high: float
    subjects: int
    raters: int
    observed_agreement: float
    chance_agreement: float
    method: str
    confidence_level: float


def _missing(values: np.ndarray) -> np.ndarray:
    return pd.isna(pd.DataFrame(values)).to_numpy() if values.ndim == 2 else pd.isna(pd.Series(values)).to_numpy()


def _categories(values: np.ndarray, categories) -> list:
    present = pd.unique(values[~_missing(values)].ravel())
    if categories is None:
        return sorted(present, key=str)
    categories = list(categories)
    unknown = [v for v in present if v not in categories]
    if unknown:
        raise ParameterError(f"ratings {unknown[:3]} are not among `categories` {categories}")
    return categories


def cohens_kappa(ratings_a, ratings_b, *, categories=None, confidence_level: float = 0.95) -> KappaResult:
    """Cohen's kappa of two annotators on the subjects both rated, with the large-sample interval.

    Parameters
    ----------
    ratings_a, ratings_b : array_like, shape (n,)
        The two annotators' labels per subject; subjects where either is missing are left out.
    categories : sequence, optional
        All possible labels (default: those that occur).
    confidence_level : float

    Returns
    -------
    KappaResult

    Notes
    -----
    With p_ij the share of subjects rated i by A and j by B, margins p_i. and p_.j,
    ``p_o = sum_i p_ii``, ``p_c = sum_i p_i. p_.i``, ``kappa = (p_o - p_c) / (1 - p_c)``
    (Cohen 1960). Its standard error is the large-sample one of Fleiss, Cohen & Everitt (1969):
    ``var = [sum_ij p_ij (delta_ij - (p_.i + p_j.)(1 - kappa))^2 - (kappa - p_c (1 - kappa))^2]
    / (n (1 - p_c)^2)``; the interval is ``kappa -+ z se`` clipped to [-1, 1], as R's
    ``confint(vcd::Kappa(table))``. When one annotator used a single label the formula
    degenerates (its variance is 0 - 0): standard error and interval are NaN, as R gives.
    """
    level = check_confidence_level(confidence_level)
    a, b = np.asarray(ratings_a, dtype=object), np.asarray(ratings_b, dtype=object)
    if a.shape != b.shape or a.ndim != 1:
        raise ParameterError(f"`ratings_a` and `ratings_b` must be two lists of equal length; got {a.shape} and "
                             f"{b.shape}")
    both = ~(_missing(a) | _missing(b))
    a, b = a[both], b[both]
    cats = _categories(np.r_[a, b], categories)
    n = a.size
    if n == 0:
        raise ParameterError("Cohen's kappa needs subjects rated by both annotators; there are none")
    index = {c: i for i, c in enumerate(cats)}
    q = len(cats)
    table = np.zeros((q, q))
    np.add.at(table, (np.array([index[v] for v in a], dtype=np.int64), np.array([index[v] for v in b],
                                                                                  dtype=np.int64)), 1.0)
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    p_o = np.float64(np.trace(p))
    p_c = np.float64(rows @ cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (p_o - p_c) / (1.0 - p_c)
        term = np.eye(q) - (cols[:, None] + rows[None, :]) * (1.0 - kappa)
        var = (np.sum(p * term ** 2) - (kappa - p_c * (1.0 - kappa)) ** 2) / (n * (1.0 - p_c) ** 2)
    constant_rater = (rows > 0).sum() < 2 or (cols > 0).sum() < 2
    se = float("nan") if constant_rater or not np.isfinite(var) else float(np.sqrt(max(var, 0.0)))
    z = special.ndtri(1 - (1 - level) / 2)
    return KappaResult(kappa=float(kappa), standard_error=se, low=float(np.clip(kappa - z * se, -1.0, 1.0)),
                       high=float(np.clip(kappa + z * se, -1.0, 1.0)), subjects=int(n), raters=2, observed_agreement=float(p_o),
                       chance_agreement=float(p_c), method="Cohen's kappa (Fleiss-Cohen-Everitt standard error)",
                       confidence_level=level)


def fleiss_kappa(ratings, *, categories=None, confidence_level: float = 0.95) -> KappaResult:
    """Fleiss' kappa of several annotators, with Gwet's standard error; missing ratings allowed.

    Parameters
    ----------
    ratings : array_like, shape (subjects, raters)
        Labels; None or NaN where an annotator did not rate a subject. Subjects rated by fewer
        than two annotators are left out (they carry no agreement).
    categories : sequence, optional
    confidence_level : float

    Returns
    -------
    KappaResult

    Notes
    -----
    With r_ik the annotators who gave subject i label k, r_i = sum_k r_ik, n subjects:
    ``p_a = mean_i sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))``, ``pi_k = mean_i r_ik / r_i``,
    ``p_e = sum_k pi_k^2``, ``kappa = (p_a - p_e) / (1 - p_e)`` (Fleiss 1971; equal to his
    formula when every subject has the same number of ratings). The variance is Gwet's (2014):
    ``var = sum_i (kappa_i* - kappa)^2 / (n (n - 1))`` with
    ``kappa_i* = (p_a,i - p_e) / (1 - p_e) - 2 (1 - kappa) (p_e,i - p_e) / (1 - p_e)``,
    ``p_e,i = sum_k r_ik pi_k / r_i``; the interval uses Student's t with n - 1 degrees of
    freedom, clipped to [-1, 1], as R's ``irrCAC::fleiss.kappa.raw`` (which clips the upper
    bound only).
    """
    level = check_confidence_level(confidence_level)
    values = np.asarray(ratings, dtype=object)
    if values.ndim != 2 or values.shape[1] < 2:
        raise ParameterError(f"`ratings` must be a table of subjects x annotators with at least two annotators; "
                             f"got shape {values.shape}")
    missing = _missing(values)
    cats = _categories(values, categories)
    counts = np.stack([((values == c) & ~missing).sum(axis=1) for c in cats], axis=1).astype(float)
    r_i = counts.sum(axis=1)
    keep = r_i >= 2
    counts, r_i = counts[keep], r_i[keep]
    n = int(keep.sum())
    if n == 0:
        raise ParameterError("Fleiss' kappa needs subjects rated by at least two annotators; there are none")
    pa_i = (counts * (counts - 1)).sum(axis=1) / (r_i * (r_i - 1))
    p_a = np.float64(pa_i.mean())
    pi = (counts / r_i[:, None]).mean(axis=0)
    p_e = np.float64(pi @ pi)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (p_a - p_e) / (1.0 - p_e)
        pe_i = counts @ pi / r_i
        kappa_i = (pa_i - p_e) / (1.0 - p_e) - 2.0 * (1.0 - kappa) * (pe_i - p_e) / (1.0 - p_e)
        var = np.sum((kappa_i - kappa) ** 2) / (n * (n - 1)) if n > 1 else float("nan")
    se = float(np.sqrt(var)) if np.isfinite(var) else float("nan")
    t = stats.t.ppf(1 - (1 - level) / 2, n - 1) if n > 1 else float("nan")
    return KappaResult(kappa=float(kappa), standard_error=se, low=float(np.clip(kappa - t * se, -1.0, 1.0)),
                       high=float(np.clip(kappa + t * se, -1.0, 1.0)), subjects=n, raters=int(values.shape[1]),
                       observed_agreement=float(p_a), chance_agreement=float(p_e),
                       method="Fleiss' kappa (Gwet's standard error, t interval)", confidence_level=level)
