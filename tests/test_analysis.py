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
