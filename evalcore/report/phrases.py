"""How a report names each method choice, in words a reviewer accepts: one small table per setting.

Each table maps a setting's value to a function of the settings that returns a :class:`~.text.Rich`
(Markdown and LaTeX, with the works it cites). The methods paragraph and the tables' captions take
their words from here, so a new test or interval method is one entry in one place.
"""

from __future__ import annotations

from typing import Callable

from .references import cite_method
from .settings import ReportSettings
from .text import Rich, cite, number, plain, sym

__all__ = ["TEST_PHRASES", "TEST_NAMES", "INTERVAL_PHRASES", "CORRECTION_PHRASES", "CORRECTION_NAMES",
           "TIE_PHRASES", "percent", "alpha_text", "level_text", "power_text", "DIFFERENCE_REGIONS",
           "DIFFERENCE_PHRASES", "DIFFERENCE_NAMES", "POWER_NAMES", "SAMPLE_INTERVAL_PHRASES", "SAMPLE_INTERVAL_NAMES"]

Phrase = Callable[[ReportSettings], Rich]

DIFFERENCE_REGIONS = sym("D1 = A ∖ B and D2 = B ∖ A", r"$D_1 = A \setminus B$ and $D_2 = B \setminus A$")


def _resampling(s: ReportSettings) -> str:
    return f"{number(s.resamples)} resamples, seed {s.seed}"


# The test of two n-best lists, as the methods paragraph says it (with citations) ...
TEST_PHRASES: dict[str, Phrase] = {
    "fisher": lambda s: ("a two-sided Fisher's exact test" + cite_method("test", "fisher")
                         + " on the difference regions " + DIFFERENCE_REGIONS + " of the two n-best lists"
                         + cite("evert2004")),
    "mcnemar": lambda s: ("a two-sided exact McNemar test" + cite_method("test", "mcnemar")
                          + " on the true positives that only one of the two n-best lists contains"),
    "mcnemar_decisions": lambda s: ("a two-sided exact McNemar test on each candidate's decision, the candidates one "
                                    "list decides rightly and the other wrongly"
                                    + cite_method("test", "mcnemar_decisions")),
    "mcnemar_chi2": lambda s: ("McNemar's chi-squared test with continuity correction"
                               + cite_method("test", "mcnemar_chi2")
                               + " on the true positives that only one of the two n-best lists contains"),
    "chi2": lambda s: ("Pearson's chi-squared test" + cite_method("test", "chi2")
                       + " without continuity correction, treating the two n-best lists as independent samples as "
                       "Krenn" + cite("krenn2000")
                       + " did (which ignores that the lists share most candidates; Evert" + cite("evert2004") + ")"),
    "chi2_yates": lambda s: ("Pearson's chi-squared test with Yates' continuity correction"
                             + cite_method("test", "chi2_yates")
                             + ", treating the two n-best lists as independent samples as Krenn"
                             + cite("krenn2000") + " did (which ignores that the lists share most candidates; Evert"
                             + cite("evert2004") + ")"),
    "bootstrap": lambda s: (f"a two-sided paired bootstrap test over candidates ({_resampling(s)})"
                            + cite_method("test", "bootstrap")),
    "randomization": lambda s: (f"two-sided approximate randomization ({_resampling(s)})"
                                + cite_method("test", "randomization")),
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
    "clopper_pearson": lambda s: "Clopper-Pearson" + cite_method("interval", "clopper_pearson"),
    "wilson": lambda s: "Wilson score" + cite_method("interval", "wilson"),
    "wilson_cc": lambda s: "continuity-corrected Wilson score" + cite_method("interval", "wilson_cc"),
    "jeffreys": lambda s: "Jeffreys" + cite_method("interval", "jeffreys"),
    "agresti_coull": lambda s: "Agresti-Coull" + cite_method("interval", "agresti_coull"),
    "wald": lambda s: "Wald (normal approximation)" + cite_method("interval", "wald"),
}
INTERVAL_NAMES = {"clopper_pearson": "Clopper-Pearson", "wilson": "Wilson score",
                  "wilson_cc": "continuity-corrected Wilson score", "jeffreys": "Jeffreys",
                  "agresti_coull": "Agresti-Coull", "wald": "Wald"}

# The interval of a difference of two proportions (the report's difference of precision, a sample's difference of
# the regions' TP rates), as the paragraph says it (with its citation) and as a caption names it.
DIFFERENCE_PHRASES: dict[str, Phrase] = {
    "newcombe": lambda s: "Newcombe's hybrid score method" + cite_method("difference", "newcombe"),
    "agresti_caffo": lambda s: ("the method of Agresti and Caffo" + cite_method("difference", "agresti_caffo")
                                + " (Wald's interval after adding one true and one false positive to each group)"),
}
DIFFERENCE_NAMES = {"newcombe": "Newcombe hybrid score", "agresti_caffo": "Agresti-Caffo"}

# The interval of a precision estimated from an annotated sample.
SAMPLE_INTERVAL_PHRASES: dict[str, Phrase] = {
    "hypergeometric": lambda s: "exact hypergeometric" + cite_method("sample_interval", "hypergeometric"),
    "clopper_pearson": lambda s: "Clopper-Pearson" + cite_method("sample_interval", "clopper_pearson"),
}
SAMPLE_INTERVAL_NAMES = {"hypergeometric": "exact hypergeometric", "clopper_pearson": "Clopper-Pearson"}

# The test whose power the minimum detectable difference is (ReportSettings.power_test), in a sentence.
POWER_NAMES = {"fisher": "the two-sided Fisher's exact test", "mcnemar": "the two-sided exact McNemar test"}

CORRECTION_PHRASES: dict[str, Phrase] = {
    "none": lambda s: plain("without correction for multiple testing"),
    "holm": lambda s: "with Holm's correction for multiple testing" + cite_method("correction", "holm"),
    "bh": lambda s: ("with the Benjamini-Hochberg correction for multiple testing (false discovery rate)"
                     + cite_method("correction", "bh")),
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
}


def percent(value: float, digits: int = 2) -> Rich:
    """A proportion as a percentage: ``11.09%`` (LaTeX ``11.09\\%``)."""
    return plain(f"{100 * value:.{digits}f}%")


def level_text(level: float) -> Rich:
    """A confidence level: ``95%``, ``99.9%``."""
    return plain(f"{100 * level:.10g}%")


def power_text(power: float) -> Rich:
    """A power: ``90%``."""
    return plain(f"{100 * power:.10g}%")


def alpha_text(alpha: float) -> Rich:
    """The significance level: ``α = 0.05`` (LaTeX ``$\\alpha = 0.05$``)."""
    value = f"{alpha:.10g}"
    return sym(f"α = {value}", rf"$\alpha = {value}$")
