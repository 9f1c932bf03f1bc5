"""Which work each method choice cites: one table, by registry and method name.

The methods paragraph and the captions cite a method through :func:`cite_method`, so the citation of a method
is written once, here; ``tests/test_bibliography.py`` checks every registry of the core (binomial intervals,
intervals of a difference, tests of two n-best lists, corrections, intervals from a sample, AUC intervals,
kappa, the tests the power calculation knows) against a committed table of titles, years, pages and DOIs
(``tests/reference/bibliography.csv``).
"""

from __future__ import annotations

from .. import names
from .bib import BIBLIOGRAPHY
from .text import Rich, cite

__all__ = ["METHOD_REFERENCES", "REGISTRIES", "KAPPA_METHODS", "method_keys", "cite_method"]

#: Agreement between annotators (evalcore.stats.agreement): Cohen's kappa for two, Fleiss' for more.
KAPPA_METHODS = {"cohen": "Cohen's kappa (two annotators)", "fleiss": "Fleiss' kappa (more annotators)"}

#: The registries whose methods a report, a caption or a page can name: registry -> the method names.
REGISTRIES: dict[str, tuple[str, ...]] = {
    "interval": tuple(names.INTERVAL_LABELS),
    "difference": tuple(names.DIFFERENCE_INTERVALS),
    "test": tuple(names.PAIR_TESTS),
    "correction": tuple(names.CORRECTIONS),
    "sample_interval": tuple(names.SAMPLE_INTERVAL_LABELS),
    "auc": tuple(names.AUC_INTERVAL_LABELS),
    "kappa": tuple(KAPPA_METHODS),
    "power": tuple(names.POWER_TESTS),
    "design": tuple(names.ANNOTATION_DESIGNS),
}

#: registry -> method -> the bibliography keys of the works that define it (in the order they are cited).
METHOD_REFERENCES: dict[str, dict[str, tuple[str, ...]]] = {
    "interval": {
        "clopper_pearson": ("clopper1934",),
        "wilson": ("wilson1927",),
        "wilson_cc": ("newcombe1998a",),          # method 4 of the single-proportion paper (R's prop.test)
        "jeffreys": ("brown2001",),
        "agresti_coull": ("agresti1998",),
        "wald": ("brown2001",),
    },
    "difference": {
        "newcombe": ("newcombe1998b",),           # method 10 of the paper on differences
        "agresti_caffo": ("agresti2000",),
    },
    "test": {
        "fisher": ("fisher1922",),
        "mcnemar": ("mcnemar1947",),
        "mcnemar_decisions": ("mcnemar1947", "dietterich1998"),
        "mcnemar_chi2": ("mcnemar1947",),
        "chi2": ("pearson1900",),
        "chi2_yates": ("pearson1900", "yates1934"),
        "bootstrap": ("bergkirkpatrick2012",),
        "randomization": ("yeh2000",),
    },
    "correction": {"none": (), "holm": ("holm1979",), "bh": ("benjamini1995",)},
    "sample_interval": {"hypergeometric": ("evert2005",), "clopper_pearson": ("clopper1934",)},
    "auc": {"delong": ("delong1988",), "bootstrap": ("robin2011",)},
    "kappa": {"cohen": ("cohen1960",), "fleiss": ("fleiss1971",)},
    "power": {"fisher": ("fisher1922",), "mcnemar": ("mcnemar1947",)},
    # annotation designs (issue 22): a random sample; the pool annotated whole (exact: no estimator to cite); the
    # pool and a random sample beyond it, as IR's sampling-based evaluation with incomplete judgments; rank bands
    # (issue 33): the stratified estimator of a domain (Cochran), Korn & Graubard's interval at the effective sample
    # size, Rao & Scott's test on effective counts
    "design": {"sample": ("evert2005",), "pool": (), "pool+sample": ("yilmaz2006", "aslam2006"),
               "stratified": ("cochran1977", "korngraubard1998", "raoscott1992")},
}


def method_keys(registry: str, method: str) -> tuple[str, ...]:
    """The bibliography keys a method cites (``method_keys("difference", "newcombe") == ("newcombe1998b",)``)."""
    try:
        return METHOD_REFERENCES[registry][method]
    except KeyError:
        raise KeyError(f"no reference for {registry} method {method!r}; add it to "
                       "evalcore.report.references.METHOD_REFERENCES") from None


def cite_method(registry: str, method: str) -> Rich:
    """The parenthetical citation of a method (empty for one that cites nothing, e.g. no correction)."""
    return cite(*method_keys(registry, method))


assert all(k in BIBLIOGRAPHY for table in METHOD_REFERENCES.values() for keys in table.values() for k in keys)
