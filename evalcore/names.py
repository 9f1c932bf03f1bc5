"""The names of every method choice, with a label each: the one table per choice.

Light on purpose (no numpy, scipy or pandas), so that the command line can build its
parser and answer ``--help`` without importing the numerical modules. The modules that
implement a choice key their tables of functions by these names, and the tests check
that the keys agree (``tests/test_names.py``).
"""

from __future__ import annotations

TIE_POLICIES = {
    "random": "random order within a tie group (the paper's jitter), seeded",
    "stable": "file order within a tie group",
    "optimistic": "TPs first within a tie group (an upper bound on precision)",
    "pessimistic": "FPs first within a tie group (a lower bound on precision)",
    "hash": "hashed random order within a tie group: a hash of the seed and the row (SplitMix64), the same on "
            "every engine (memory, DuckDB, Spark)",
}

#: The tie policies that take a seed. "random" (a NumPy permutation) stays what it was, so links and signatures
#: made with it repeat their numbers; "hash" is the random order the SQL engines can compute (evalcore.engines).
SEEDED_TIES = ("random", "hash")

#: The tie policies in a few words, as each label begins: captions and the help text use these words.
TIE_SHORT = {
    "random": "random order",
    "stable": "file order",
    "optimistic": "TPs first",
    "pessimistic": "FPs first",
    "hash": "hashed random order",
}

#: The help text of the ties choice, in the words of its options.
TIE_HELP = (
    "Where an n-best cut-off falls inside a group of equal scores, the tie policy decides which of the tied "
    f"candidates are in the list. '{TIE_SHORT['random']}' shuffles each group (seeded, so a link repeats it; the "
    f"paper's jitter); '{TIE_SHORT['stable']}' keeps the file's order; '{TIE_SHORT['optimistic']}' and "
    f"'{TIE_SHORT['pessimistic']}' put the group's TPs, or its FPs, first: the highest and the lowest precision "
    "any order could give, so together they bound the effect of the ties. "
    f"'{TIE_SHORT['hash']}' shuffles each group by a hash of the seed and the row, which DuckDB and Spark compute "
    "alike, so sets too large for memory break ties the same way. Thresholds, ROC and average precision "
    "never split a tie group and do not depend on this choice.")
SEED_HELP = ("A data set opens with its own seed: the first 32 bits of the data's SHA-256 (sha256sum FILE | cut -c1-8, "
             "read as a hexadecimal number), so that everyone who opens the same file, and the command line on it, "
             "sees the same numbers. Choose another to see how much the numbers depend on the draw; the link and the "
             "signature carry it.")

INTERVAL_LABELS = {
    "clopper_pearson": "Clopper-Pearson (exact, R binom.test)",
    "wilson": "Wilson score (R prop.test, correct=FALSE)",
    "wilson_cc": "Wilson score with continuity correction (R prop.test)",
    "jeffreys": "Jeffreys (Bayesian, Beta(1/2, 1/2) prior)",
    "agresti_coull": "Agresti-Coull",
    "wald": "Wald (normal approximation; poor for small n)",
}

PAIR_TESTS = {
    "fisher": "Fisher's exact test on D1/D2 (Evert 2004)",
    "mcnemar": "exact McNemar on the discordant TPs (T_D1 against T_D2)",
    "mcnemar_decisions": "exact McNemar on the candidates' decisions (right in A only against right in B only)",
    "mcnemar_chi2": "McNemar's chi-squared on the discordant TPs, continuity-corrected (R mcnemar.test)",
    "chi2": "Pearson's chi-squared, lists as independent samples, no continuity correction (Krenn 2000)",
    "chi2_yates": "Pearson's chi-squared, lists as independent samples, Yates-corrected (R chisq.test default)",
    "bootstrap": "paired bootstrap over candidates (Berg-Kirkpatrick et al. 2012)",
    "randomization": "approximate randomization (Yeh 2000)",
}

#: How the McNemar variants differ, for the page and ``--help``.
MCNEMAR_NOTE = (
    "McNemar on the discordant TPs compares T_D1 with T_D2 (TPs found by one list only) and ignores the FPs; "
    "McNemar on the decisions counts, over all candidates, those that A decides rightly and B wrongly "
    "(b = T_D1 + F_D2: a TP only A accepts or an FP only B accepts) against the reverse (c = T_D2 + F_D1), "
    "the usual paired test of two classifiers; since |D1| = |D2| = d, b + c = 2d always.")

CORRECTIONS = {
    "none": "none (as the paper)",
    "holm": "Holm (family-wise error)",
    "bh": "Benjamini-Hochberg (false discovery rate)",
}

AUC_INTERVAL_LABELS = {
    "delong": "DeLong et al. (1988), normal interval (pROC ci.auc, method = \"delong\")",
    "bootstrap": "stratified bootstrap, percentile interval (pROC ci.auc, method = \"bootstrap\")",
}

SAMPLE_INTERVAL_LABELS = {
    "hypergeometric": "exact hypergeometric (finite list, sampling without replacement)",
    "clopper_pearson": "Clopper-Pearson on the annotated candidates (binomial)",
}

DIFFERENCE_INTERVALS = {
    "newcombe": "Newcombe's hybrid score interval (1998, method 10)",
    "agresti_caffo": "Agresti-Caffo (2000): Wald after adding 1 TP and 1 FP to each region",
}

POWER_TESTS = {"fisher": "Fisher's exact test on D1/D2 (two-sided)",
               "mcnemar": "exact McNemar test on the discordant TPs (two-sided)"}

#: Powers the minimum detectable difference can be asked at (the Significance page's choice); the default first.
POWER_LEVELS = (0.8, 0.5, 0.9, 0.95, 0.99)
DEFAULT_POWER = POWER_LEVELS[0]

#: How the intervals relate to Fisher's test, for the Significance page (plain text: no Markdown).
INTERVAL_AND_TEST_NOTE = (
    "For two n-best lists of one size, the exact interval of the odds ratio excludes 1 at exactly the n where "
    "Fisher's test on D1 and D2 is significant at the same level (both come from the same conditional "
    "distribution); the interval of the difference of precision is a score interval of another approximation, "
    "so near the boundary it can include 0 where the test is significant, or exclude 0 where it is not.")

#: Why the pages show the minimum detectable difference and not "observed power" (plain text: no Markdown).
OBSERVED_POWER_NOTE = (
    "Power computed at the observed difference (\"observed power\") is not shown: it is a function of the "
    "p-value alone, high where p is small and low where p is large, so it says nothing the p-value does not; "
    "the minimum detectable difference at a chosen power says instead how large a difference the data could "
    "have found.")

#: The engines behind the ranking (:mod:`evalcore.engines`).
ENGINES = {
    "memory": "in memory (NumPy): every tie policy; for what fits comfortably",
    "duckdb": "DuckDB, embedded: out of core within a memory limit (Parquet, a folder of Parquet parts, CSV)",
    "spark": "Apache Spark (pyspark): a local or remote Spark session",
}

CURVE_KINDS = ("roc", "det", "pr")
#: Annotation designs a report can estimate from (evalcore.pooling.design.DESIGN_KINDS, without numpy).
ANNOTATION_DESIGNS = {
    "sample": "a random sample",
    "pool": "the pool (the union of the top-K lists, annotated whole)",
    "pool+sample": "the pool and a random sample of the rest",
    "stratified": "rank bands, each a random sample of its own size",
}
ALTERNATIVES = ("two-sided", "less", "greater")
