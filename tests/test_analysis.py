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
