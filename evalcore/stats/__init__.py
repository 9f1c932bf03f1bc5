"""Statistics: the tests and intervals every analysis uses, each checked against R.

- :mod:`.fisher`: Fisher's exact test, vectorised over many 2x2 tables (R's ``fisher.test``);
- :mod:`.kernels`: the compiled (numba) kernels behind it and the binomial interval roots;
- :mod:`.intervals`: binomial confidence intervals (Clopper-Pearson = R's ``binom.test``, Wilson, ...);
- :mod:`.multitest`: p-value corrections (R's ``p.adjust``: Holm, Benjamini-Hochberg);
- :mod:`.pairtests`: other tests of two rankings on the same candidates (McNemar, bootstrap, randomization);
- :mod:`.sampletests`: tests across several samples (paired t, Wilcoxon, sign test, KS);
- :mod:`.agreement`: agreement between annotators (Cohen's and Fleiss' kappa with intervals).
"""
