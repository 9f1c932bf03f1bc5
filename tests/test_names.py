"""The light name tables of evalcore.names agree with the tables of functions that implement them."""

from evalcore import names
from evalcore.ranking import TIE_POLICIES, rank_scores
from evalcore.roc import AUC_INTERVAL_METHODS, CURVE_FUNCTIONS
from evalcore import compare
from evalcore.stats import fisher, intervals, multitest


def test_every_named_choice_has_an_implementation_and_no_more():
    assert list(intervals.INTERVAL_METHODS) == list(names.INTERVAL_LABELS)
    assert list(compare.P_VALUES) == list(names.PAIR_TESTS)
    assert list(multitest._ADJUST) == list(names.CORRECTIONS)
    assert list(AUC_INTERVAL_METHODS) == list(names.AUC_INTERVAL_LABELS)
    assert tuple(CURVE_FUNCTIONS) == names.CURVE_KINDS
    assert tuple(fisher.ALTERNATIVES) == names.ALTERNATIVES
    assert TIE_POLICIES is names.TIE_POLICIES


def test_every_tie_policy_ranks():
    import numpy as np

    labels = np.array([True, False, True, False])
    for policy in names.TIE_POLICIES:
        assert rank_scores(labels, np.array([1.0, 1.0, 0.0, 0.0]), ties=policy, seed=0).n_candidates == 4


def test_effect_and_power_names_have_implementations():
    from evalcore.stats import effect, power

    assert list(effect.DIFFERENCE_METHODS) == list(names.DIFFERENCE_INTERVALS)
    assert list(power.POWER_TESTS) == list(names.POWER_TESTS)
    from evalcore import estimates

    assert list(estimates.SAMPLE_INTERVALS) == list(names.SAMPLE_INTERVAL_LABELS)


def test_the_ties_help_text_uses_the_words_of_the_options():
    # issue 10: the help said optimistic/pessimistic while the options read "TPs first" / "FPs first"
    assert list(names.TIE_SHORT) == list(names.TIE_POLICIES)
    for policy, short in names.TIE_SHORT.items():
        assert names.TIE_POLICIES[policy].startswith(short + " ")  # the option shows these words first ...
        assert f"'{short}'" in names.TIE_HELP  # ... and the help quotes them
    for internal in ("optimistic", "pessimistic", "stable"):  # never the internal names
        assert internal not in names.TIE_HELP
