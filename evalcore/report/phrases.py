"""How a report names each method choice, in words a reviewer accepts: one small table per setting.

Each table maps a setting's value to a function of the settings that returns a :class:`~.text.Rich`
(Markdown and LaTeX, with the works it cites). The methods paragraph and the tables' captions take
their words from here, so a new test or interval method is one entry in one place.
"""

from __future__ import annotations

from typing import Callable

from .settings import ReportSettings
from .text import Rich, cite, number, plain, sym

__all__ = ["TEST_PHRASES", "TEST_NAMES", "INTERVAL_PHRASES", "CORRECTION_PHRASES", "CORRECTION_NAMES",
           "TIE_PHRASES", "percent", "alpha_text", "level_text", "DIFFERENCE_REGIONS"]

Phrase = Callable[[ReportSettings], Rich]

DIFFERENCE_REGIONS = sym("D1 = A ∖ B and D2 = B ∖ A", r"$D_1 = A \setminus B$ and $D_2 = B \setminus A$")


def _resampling(s: ReportSettings) -> str:
    return f"{number(s.resamples)} resamples, seed {s.seed}"


# The test of two n-best lists, as the methods paragraph says it (with citations) ...
TEST_PHRASES: dict[str, Phrase] = {
    "fisher": lambda s: ("a two-sided Fisher's exact test" + cite("fisher1922") + " on the difference regions "
                         + DIFFERENCE_REGIONS + " of the two n-best lists" + cite("evert2004")),
    "mcnemar": lambda s: ("a two-sided exact McNemar test" + cite("mcnemar1947")
                          + " on the true positives that only one of the two n-best lists contains"),
    "mcnemar_decisions": lambda s: ("a two-sided exact McNemar test" + cite("mcnemar1947") + " on each candidate's "
                                    "decision, the candidates one list decides rightly and the other wrongly"
                                    + cite("dietterich1998")),
    "mcnemar_chi2": lambda s: ("McNemar's chi-squared test with continuity correction" + cite("mcnemar1947")
                               + " on the true positives that only one of the two n-best lists contains"),
    "chi2": lambda s: ("Pearson's chi-squared test" + cite("pearson1900")
                       + " without continuity correction, treating the two n-best lists as independent samples as "
                       "Krenn" + cite("krenn2000")
                       + " did (which ignores that the lists share most candidates; Evert" + cite("evert2004") + ")"),
    "chi2_yates": lambda s: ("Pearson's chi-squared test" + cite("pearson1900") + " with Yates' continuity correction"
                             + cite("yates1934") + ", treating the two n-best lists as independent samples as Krenn"
                             + cite("krenn2000") + " did (which ignores that the lists share most candidates; Evert"
                             + cite("evert2004") + ")"),
    "bootstrap": lambda s: (f"a two-sided paired bootstrap test over candidates ({_resampling(s)})"
                            + cite("bergkirkpatrick2012")),
    "randomization": lambda s: (f"two-sided approximate randomization ({_resampling(s)})" + cite("yeh2000")),
}
# ... and as a caption names it (no citations: captions cite nothing the paragraph does not).
TEST_NAMES: dict[str, Phrase] = {
    "fisher": lambda s: "two-sided Fisher's exact test on the difference regions " + DIFFERENCE_REGIONS,
    "mcnemar": lambda s: plain("two-sided exact McNemar test on the TPs only one list contains"),
    "mcnemar_decisions": lambda s: plain("two-sided exact McNemar test on the candidates' decisions"),
    "mcnemar_chi2": lambda s: plain("McNemar's chi-squared test (continuity-corrected) on the TPs only one list contains"),
    "chi2": lambda s: plain("Pearson's chi-squared test, lists as independent samples"),
    "chi2_yates": lambda s: plain("Pearson's chi-squared test with Yates' correction, lists as independent samples"),
    "bootstrap": lambda s: plain(f"two-sided paired bootstrap, {_resampling(s)}"),
    "randomization": lambda s: plain(f"two-sided approximate randomization, {_resampling(s)}"),
}

INTERVAL_PHRASES: dict[str, Phrase] = {
    "clopper_pearson": lambda s: "Clopper-Pearson" + cite("clopper1934"),
    "wilson": lambda s: "Wilson score" + cite("wilson1927"),
    "wilson_cc": lambda s: "continuity-corrected Wilson score" + cite("newcombe1998"),
    "jeffreys": lambda s: "Jeffreys" + cite("brown2001"),
    "agresti_coull": lambda s: "Agresti-Coull" + cite("agresti1998"),
    "wald": lambda s: "Wald (normal approximation)" + cite("brown2001"),
}
INTERVAL_NAMES = {"clopper_pearson": "Clopper-Pearson", "wilson": "Wilson score",
                  "wilson_cc": "continuity-corrected Wilson score", "jeffreys": "Jeffreys",
                  "agresti_coull": "Agresti-Coull", "wald": "Wald"}

CORRECTION_PHRASES: dict[str, Phrase] = {
    "none": lambda s: plain("without correction for multiple testing"),
    "holm": lambda s: "with Holm's correction for multiple testing" + cite("holm1979"),
    "bh": lambda s: ("with the Benjamini-Hochberg correction for multiple testing (false discovery rate)"
                     + cite("benjamini1995")),
}
CORRECTION_NAMES = {"none": "no correction for multiple testing", "holm": "Holm's correction",
                    "bh": "Benjamini-Hochberg correction"}

TIE_PHRASES: dict[str, Phrase] = {
    "stable": lambda s: plain("Candidates with equal scores keep the order of the data file."),
    "random": lambda s: plain(f"Ties between candidates with equal scores are broken at random (seed {s.seed})."),
    "optimistic": lambda s: plain("Within a group of equal scores true positives are ranked first, which gives an "
                                  "upper bound on precision."),
    "pessimistic": lambda s: plain("Within a group of equal scores false positives are ranked first, which gives a "
                                   "lower bound on precision."),
    "hash": lambda s: plain(f"Ties between candidates with equal scores are broken at random by a hash of the seed "
                            f"({s.seed}) and the row (SplitMix64), which every engine computes alike."),
}


def percent(value: float, digits: int = 2) -> Rich:
    """A proportion as a percentage: ``11.09%`` (LaTeX ``11.09\\%``)."""
    return plain(f"{100 * value:.{digits}f}%")


def level_text(level: float) -> Rich:
    """A confidence level: ``95%``, ``99.9%``."""
    return plain(f"{100 * level:.10g}%")


def alpha_text(alpha: float) -> Rich:
    """The significance level: ``α = 0.05`` (LaTeX ``$\\alpha = 0.05$``)."""
    value = f"{alpha:.10g}"
    return sym(f"α = {value}", rf"$\alpha = {value}$")
