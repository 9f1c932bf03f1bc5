"""Choices the pages start from (issue 10)."""


def test_measures_start_from_the_best_by_average_precision(krenn_tsv):
    """Issue 10: on Krenn's data the first figure shows log.like, Fisher, t.score and chisq.corr."""
    from evalcore.analysis import measure_quality
    from evalcore.io import load_candidates
    from evalcore.ranking import rank
    from evalcore.roc import average_precision

    krenn = load_candidates(krenn_tsv, label="is.colloc")
    quality = measure_quality(krenn)
    assert quality["measure"].tolist()[:4] == ["log.like", "Fisher", "t.score", "chisq.corr"]
    assert quality["measure"].tolist()[-1] == "Dice"
    assert quality["average_precision"].is_monotonic_decreasing
    for policy in ("random", "optimistic", "pessimistic"):  # the order does not depend on ties
        aps = [average_precision(rank(krenn, m, ties=policy, seed=3)) for m in quality["measure"]]
        assert aps == quality["average_precision"].tolist()


def test_measure_quality_from_rankings_under_any_ties_equals_its_own(krenn_tsv):
    """Issue 34: the dashboard hands measure_quality the rankings its pages made (under the view's ties) instead of
    ranking every measure again; the table is the same, number for number, and a measure missing from them is
    ranked."""
    import pandas as pd

    from evalcore.analysis import measure_quality
    from evalcore.io import load_candidates
    from evalcore.ranking import rank

    krenn = load_candidates(krenn_tsv, label="is.colloc")
    own = measure_quality(krenn)
    for policy in ("stable", "random", "optimistic", "pessimistic"):
        given = {m: rank(krenn, m, ties=policy, seed=7) for m in krenn.measures[1:]}
        pd.testing.assert_frame_equal(measure_quality(krenn, given), own, check_exact=True)


def test_a_pair_at_another_level_reuses_the_adjusted_p_values_and_counts_as_before(krenn_tsv):
    """Issue 34 (a level key at 600,000 n): the adjusted p-values of every test and correction are computed once per
    pair's tests, and the counts per test and correction at each level equal those of the p-values adjusted anew
    (significance_counts, the slow and obvious way)."""
    import numpy as np
    import pandas as pd

    from evalcore.analysis import pair_comparison, pair_tests, significance_counts
    from evalcore.io import load_candidates
    from evalcore.ranking import rank
    from evalcore.stats.multitest import adjust_pvalues

    krenn = load_candidates(krenn_tsv, label="is.colloc")
    a, b = rank(krenn, "log.like", ties="random", seed=1), rank(krenn, "chisq", ties="random", seed=1)
    tested = pair_tests(a, b, (1, 5_102))
    before = tested.comparison.copy()
    for level in (0.9, 0.95, 0.99):
        for correction in ("none", "holm", "bh"):
            result = pair_comparison(a, b, (1, 5_102), confidence_level=level, correction=correction, tested=tested)
            assert result.tests is tested
            np.testing.assert_array_equal(result.comparison["p_adjusted"],
                                          adjust_pvalues(result.comparison["p_value"].to_numpy(), correction))
            tables = {t: pd.DataFrame({"p_value": p}) for t, p in tested.p_values.items()}
            pd.testing.assert_frame_equal(result.counts, significance_counts(tables, 1 - level))
    pd.testing.assert_frame_equal(tested.comparison, before)  # each level's table is its own (copy-on-write)
    assert set(tested._adjusted) == {(t, c) for t in tested.p_values for c in ("none", "holm", "bh")}
    assert tested.adjusted("fisher", "holm") is tested.adjusted("fisher", "holm")  # computed once
    assert not tested.adjusted("fisher", "holm").flags.writeable  # shared by every level: read-only
