"""Does the binomial model hold over many samples? Evert (2004), §4 and Figure 4.

Over k samples of one experiment, the precision Pi_A of an acceptance set A should follow
N(pi, pi (1 - pi) / N) (Eq. 4), pi the average precision over samples and N the average size
of A; and a confidence interval at level 1 - alpha should miss pi in about k alpha samples.
The paper found the empirical standard deviation 20-40% larger than predicted, and t-score's
95% interval missing in 12 of 80 samples (p < .001, binomial test).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .candidates import CandidateSet
from .errors import ColumnError
from .stats.intervals import check_confidence_level
from .stats.sampletests import TestResult, binom_test, ks_normal
from .samples import Cut, per_sample


def ppoints(k: int) -> np.ndarray:
    """Probability points for a Q-Q plot, as R's ``ppoints``: (i - a) / (k + 1 - 2a), a = 3/8 if k <= 10 else 1/2."""
    a = 0.375 if k <= 10 else 0.5
    return (np.arange(1, k + 1) - a) / (k + 1 - 2 * a)


@dataclass(frozen=True)
class Validation:
    """Figure 4 for one measure and cut-off.

    Attributes
    ----------
    measure, cut, confidence_level
        What was validated.
    table : DataFrame
        Per sample (see :func:`evalcore.samples.per_sample`) plus ``covers``: whether the
        sample's interval contains ``mean_precision``.
    k : int
        Samples with a non-empty acceptance set (the others have no precision and are left out;
        ``empty`` says how many).
    mean_precision : float
        pi, the average of the per-sample precisions (the paper's estimate of the true precision).
    mean_size : float
        N, the average size of the acceptance sets.
    sd_observed, sd_predicted, sd_ratio : float
        s (sample standard deviation of the precisions, ddof = 1), sigma = sqrt(pi (1 - pi) / N)
        from Eq. (4), and s / sigma.
    ks : TestResult
        Kolmogorov-Smirnov test of the precisions against N(pi, sigma^2), as R's ``ks.test``.
    misses, expected_misses : int, float
        Samples whose interval misses pi, and k (1 - level).
    coverage_test : TestResult
        Two-sided binomial test of ``misses`` out of k against 1 - level, as R's ``binom.test``.
    qq : DataFrame
        ``sample, theoretical, observed``: sorted precisions against the quantiles of
        N(pi, sigma^2) at R's ``ppoints``.
    """

    measure: str
    cut: Cut
    confidence_level: float
    table: pd.DataFrame
    k: int
    empty: int
    mean_precision: float
    mean_size: float
    sd_observed: float
    sd_predicted: float
    sd_ratio: float
    ks: TestResult
    misses: int
    expected_misses: float
    coverage_test: TestResult
    qq: pd.DataFrame

    def summary(self) -> dict:
        """The numbers of the validation as one flat record (a row of the command line's table)."""
        return {"measure": self.measure, "cut": self.cut.kind, "value": self.cut.value, "k": self.k,
                "empty": self.empty, "mean_size": self.mean_size, "mean_precision": self.mean_precision,
                "sd_observed": self.sd_observed, "sd_predicted": self.sd_predicted, "sd_ratio": self.sd_ratio,
                "ks_statistic": self.ks.statistic, "ks_p_value": self.ks.p_value, "ks_method": self.ks.method,
                "confidence_level": self.confidence_level, "misses": self.misses,
                "expected_misses": self.expected_misses, "coverage_p_value": self.coverage_test.p_value}


def validation_from_table(table: pd.DataFrame, measure: str, cut: Cut, confidence_level: float) -> Validation:
    """Validate per-sample acceptance sets (the output of :func:`evalcore.samples.per_sample`).

    Notes
    -----
    pi = mean_i Pi_i, N = mean_i N_i, sigma = sqrt(pi (1 - pi) / N) (Evert 2004, Eq. 4, where the
    text says "average number of TPs in A" but means the average number of candidates);
    s = sqrt(sum_i (Pi_i - pi)^2 / (k - 1)). Sample i's interval covers pi when
    lower_i <= pi <= upper_i.
    """
    check_confidence_level(confidence_level)
    used = table[table["size"] > 0]
    k = len(used)
    if k < 2:
        raise ColumnError(f"{measure}: only {k} sample(s) have a non-empty acceptance set at this cut-off; the "
                          "validation needs at least 2. Lower the threshold or raise n.")
    precision = used["precision"].to_numpy(float)
    pi = float(precision.mean())
    mean_size = float(used["size"].mean())
    sigma = float(np.sqrt(pi * (1 - pi) / mean_size))
    s = float(precision.std(ddof=1))
    ratio = s / sigma if sigma > 0 else float("nan")
    ks = ks_normal(precision, pi, sigma) if sigma > 0 else TestResult(
        "Kolmogorov-Smirnov test", float("nan"), float("nan"), float("nan"), float("nan"), float("nan"),
        float("nan"), "not defined: every sample has precision 0 or 1, so the predicted sd is 0")
    covers = (table["lower"] <= pi) & (pi <= table["upper"])
    table = table.assign(covers=covers.where(table["size"] > 0))
    misses = int(k - covers.sum())
    order = np.argsort(precision, kind="stable")
    qq = pd.DataFrame({"sample": used["sample"].to_numpy()[order],
                       "theoretical": stats.norm.ppf(ppoints(k), loc=pi, scale=sigma) if sigma > 0 else np.full(k, pi),
                       "observed": precision[order]})
    return Validation(
        measure=measure, cut=cut, confidence_level=confidence_level, table=table, k=k, empty=len(table) - k,
        mean_precision=pi, mean_size=mean_size, sd_observed=s, sd_predicted=sigma, sd_ratio=ratio, ks=ks,
        misses=misses, expected_misses=k * (1 - confidence_level),
        coverage_test=binom_test(misses, k, 1 - confidence_level), qq=qq)


def validate(candidates: CandidateSet, measure: str, cut: Cut, *, ties: str = "random", seed: int | None = None,
             confidence_level: float = 0.95, interval: str = "clopper_pearson") -> Validation:
    """Evert's (2004, §4) validation of the binomial model for one measure over the samples.

    Examples
    --------
    >>> v = validate(candidates, "G2", Cut("gamma", 32.5))              # doctest: +SKIP
    >>> v.sd_ratio, v.misses, v.coverage_test.p_value                    # doctest: +SKIP
    """
    table = per_sample(candidates, measure, cut, ties=ties, seed=seed, confidence_level=confidence_level,
                       interval=interval)
    return validation_from_table(table, measure, cut, confidence_level)
