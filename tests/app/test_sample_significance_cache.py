"""Issue 21: the Significance page from an annotated sample tests every n once per (data and labels, pair, range,
level), as the full-annotation page does (``evalcore_app.sample.sample_pair``): a rerun that changes nothing the test depends
on (the look-at-n slider) computes nothing again."""

from __future__ import annotations

import sys

import pytest

from evalcore import estimates

from tests.app.test_sample_estimates_pages import app, krenn_sample  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("store_root")


def test_sample_significance_is_tested_once_per_settings(krenn_sample, monkeypatch):  # noqa: F811
    dataset, _ = krenn_sample
    calls = []
    original = estimates.tested_comparison

    def counted(*args, **kwargs):
        if sys._getframe(1).f_code.co_name == "sample_pair":  # the page's test (the report tests pairs too)
            calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(estimates, "tested_comparison", counted)
    from evalcore_app import sample

    sample.sample_pair.clear()
    at = app({"dataset": dataset, "a": "log.like", "b": "chisq", "n_min": "10", "n_max": "2000", "sig_n": "50"},
             "pages/significance.py")
    assert len(calls) == 1
    at.slider(key="w_look_n").set_value(60).run()  # the 2x2 view moves: the tests stay
    assert not at.exception and len(calls) == 1
    at.slider(key="w_level").set_value(0.99).run()  # another level: tested again
    assert not at.exception and len(calls) == 2
