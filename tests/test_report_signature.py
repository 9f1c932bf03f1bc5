"""Signatures (evalcore.report.signature) and report settings (evalcore.report.settings): round trips, errors,
the digest of the numbers."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.errors import ParameterError
from evalcore.report.settings import (ReportSettings, default_sizes, display_names, parse_names,
                                      settings_from_signature)
from evalcore.report.signature import (Signature, compare_signatures, encode_item, numbers_digest,
                                       parse_signature)

HASH = "68e0261146d46118cdad54ed946336cfba68e00238aa2f3a220b557c3ecf5a76"
names = st.text(min_size=1, max_size=20)  # any characters: |, %, commas, spaces, newlines, non-Latin


def test_the_issues_example_shape():
    sig = Signature("0.3.0", "report", (HASH,), (("label", ("is.colloc",)), ("ties", ("stable",)),
                                                  ("test", ("fisher",)), ("level", ("0.95",)),
                                                  ("n", ("100:2000",)), ("corr", ("none",)),
                                                  ("interval", ("clopper_pearson",))), "0123456789abcdef")
    assert str(sig) == (f"evalcore 0.3.0|cmd report|data sha256:{HASH}|label is.colloc|ties stable|test fisher|"
                        "level 0.95|n 100:2000|corr none|interval clopper_pearson|numbers 0123456789abcdef")


@given(st.lists(st.tuples(st.sampled_from(["label", "measures", "lower", "sample", "pair", "x-y", "a_b"]),
                          st.lists(names, min_size=1, max_size=4)), max_size=7, unique_by=lambda kv: kv[0]),
       names, st.one_of(st.none(), st.text("0123456789abcdef", min_size=16, max_size=16)))
def test_round_trip_with_any_names(fields, version, digest):
    sig = Signature(version, "report", (HASH, HASH[::-1]), tuple((k, tuple(v)) for k, v in fields), digest)
    text = str(sig)
    assert "\n" not in text and text.count("|") == 3 + len(fields) + (digest is not None) - 1
    assert parse_signature(text) == sig
    assert parse_signature(f"  {text}\n") == sig  # copied with white space around


@given(names)
def test_encoded_items_hold_no_separator(text):
    encoded = encode_item(text)
    assert not set(encoded) & set("|, \n\t") and encoded.isprintable()


@pytest.mark.parametrize("text, fragment", [
    ("sacrebleu 2.0|cmd report|data sha256:" + HASH, "starts with 'evalcore"),
    ("evalcore 0.1.0|data sha256:" + HASH, "no 'cmd'"),
    ("evalcore 0.1.0|cmd report", "no 'data'"),
    ("evalcore 0.1.0|cmd report|data md5:abc", "sha256:<64 hex digits>"),
    ("evalcore 0.1.0|cmd report|data sha256:ABC", "64 lowercase hexadecimal"),
    ("evalcore 0.1.0|cmd report|data sha256:" + HASH + "|ties stable|ties random", "names 'ties' twice"),
    ("evalcore 0.1.0|cmd report|data sha256:" + HASH + "|ties", "is not 'key value'"),
    ("evalcore 0.1.0|cmd report|data sha256:" + HASH + "|label a%ffb", "broken percent-encoding"),
    ("evalcore 0.1.0|cmd report|data sha256:" + HASH + "|numbers 12", "16 hexadecimal digits"),
])
def test_malformed_signatures_are_named(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_signature(text)


def test_compare_names_each_field_that_differs():
    a = Signature("0.1.0", "report", (HASH,), (("ties", ("stable",)), ("level", ("0.95",))), "0" * 16)
    b = Signature("0.2.0", "report", (HASH,), (("ties", ("random",)), ("seed", ("7",)), ("level", ("0.95",))),
                  "1" * 16)
    diffs = {d.key: (d.first, d.second) for d in compare_signatures(a, b)}
    assert diffs == {"evalcore": ("0.1.0", "0.2.0"), "ties": ("stable", "random"), "seed": (None, "7"),
                     "numbers": ("0" * 16, "1" * 16)}
    assert compare_signatures(a, a) == []


# ------------------------------------------------------------------------------------------- digest

@given(st.lists(st.tuples(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=False, width=64),
                          st.booleans(), st.sampled_from(["log.like", "a,b", "G²"])), min_size=1, max_size=20))
def test_a_table_read_back_from_csv_has_the_same_digest(rows):
    table = pd.DataFrame(rows, columns=["n", "p", "significant", "measure"])
    text = table.to_csv(index=False)
    assert numbers_digest({"t": pd.read_csv(io.StringIO(text))}) == numbers_digest({"t": table})


def test_digest_sees_the_ninth_digit_but_not_rounding_noise():
    base = pd.DataFrame({"n": [100, 200], "p": [0.123456789, 3.2e-05]})
    digest = numbers_digest({"t": base})
    assert numbers_digest({"t": base.assign(p=[0.123456789 * (1 + 1e-14), 3.2e-05])}) == digest
    assert numbers_digest({"t": base.assign(p=[0.123456788, 3.2e-05])}) != digest
    assert numbers_digest({"t": base.assign(n=[100, 201])}) != digest
    assert numbers_digest({"u": base}) != digest  # the table's name counts
    assert numbers_digest({"t": base, "meta": {"N": 5102}}) != digest


# ----------------------------------------------------------------------------------------- settings

MEASURES = ("log.like", "t.score", "chisq", "freq")
settings_strategy = st.builds(
    ReportSettings, measures=st.just(MEASURES), label=st.sampled_from(["is.colloc", "a|b c"]),
    sizes=st.lists(st.integers(1, 5000), min_size=1, max_size=5).map(tuple),
    pair=st.sampled_from([None, ("chisq", "log.like"), ("t.score", "freq")]),
    lower=st.sampled_from([(), ("freq",)]), exclude_unlabelled=st.booleans(),
    ties=st.sampled_from(["random", "stable", "optimistic", "pessimistic"]), seed=st.integers(0, 2**32 - 1),
    test=st.sampled_from(["fisher", "mcnemar", "chi2", "bootstrap", "randomization"]),
    correction=st.sampled_from(["none", "holm", "bh"]), level=st.sampled_from([0.9, 0.95, 0.99, 0.999]),
    interval=st.sampled_from(["clopper_pearson", "wilson", "jeffreys"]), resamples=st.integers(1, 10_000),
    sample_column=st.sampled_from([None, "sample"]))


@given(settings_strategy)
def test_settings_survive_the_signature(settings):
    sig = Signature("0.1.0", "report", (HASH,), settings.signature_settings(), "0" * 16)
    assert settings_from_signature(parse_signature(str(sig)).settings) == settings


def test_a_seed_only_where_it_decides_something():
    stable = ReportSettings(MEASURES, "is.colloc", ties="stable", seed=5)
    assert stable.seed is None and "seed" not in dict(stable.signature_settings())
    assert ReportSettings(MEASURES, "is.colloc", ties="stable", test="bootstrap", seed=5).seed == 5
    assert dict(ReportSettings(MEASURES, "is.colloc", ties="random", seed=5).signature_settings())["seed"] == ("5",)
    assert ReportSettings(MEASURES, "is.colloc", ties="stable", resamples=77).resamples == 1000  # unused


def test_defaults_fill_in_range_and_pair():
    s = ReportSettings(MEASURES, "is.colloc", sizes=(2000, 100, 500), ties="stable")
    assert (s.sizes, s.n_range, s.pair) == ((100, 500, 2000), (100, 2000), ("log.like", "t.score"))
    assert s.pairs[:3] == (("log.like", "t.score"), ("log.like", "chisq"), ("log.like", "freq"))
    assert len(s.pairs) == 6 and s.alpha == pytest.approx(0.05)


@pytest.mark.parametrize("changes, fragment", [
    (dict(measures=("log.like",)), "at least two measures"),
    (dict(measures=("a", "a")), "names a measure twice"),
    (dict(pair=("log.like", "MI")), "`pair` must be two different measures"),
    (dict(ties="random", seed=None), "random tie-breaking needs a seed"),
    (dict(test="bootstrap", seed=None), "the bootstrap test needs a seed"),
    (dict(sizes=(0, 100)), "`sizes` must be whole list sizes"),
    (dict(sizes=(100.5,)), "`sizes` must be whole list sizes"),
    (dict(n_range=(500, 100)), "1 <= first <= last"),
    (dict(level=1.5), "confidence_level"),
    (dict(correction="bonferroni"), "`method` must be one of"),
    (dict(sample="s1"), "needs `sample_column`"),
])
def test_bad_settings_are_named(changes, fragment):
    base = dict(measures=MEASURES, label="is.colloc", ties="stable")
    with pytest.raises(ParameterError, match=fragment):
        ReportSettings(**{**base, **changes})


def test_unknown_signature_setting_is_named():
    with pytest.raises(ParameterError, match="does not know the report setting.*colour"):
        settings_from_signature({"label": ("x",), "measures": ("a", "b"), "colour": ("red",)})


@pytest.mark.parametrize("n_range, sizes", [
    ((100, 2000), (100, 500, 1000, 2000)), ((1, 5102), (1, 5, 10, 50, 100, 500, 1000, 5000, 5102)),
    ((300, 400), (300, 400)), ((50, 50), (50,)),
])
def test_default_sizes(n_range, sizes):
    assert default_sizes(n_range) == sizes


def test_display_names():
    assert parse_names(["log.like=G²", "a=b=c"]) == {"log.like": "G²", "a=b": "c"}
    assert display_names(MEASURES, {"log.like": "G²"}) == {"log.like": "G²", "t.score": "t.score",
                                                            "chisq": "chisq", "freq": "freq"}
    with pytest.raises(ParameterError, match="MEASURE=DISPLAY NAME"):
        parse_names(["G²"])
    with pytest.raises(ParameterError, match="'MI', which the report does not compare"):
        display_names(MEASURES, {"MI": "MI"})
    with pytest.raises(ParameterError, match="would both be shown as 't'"):
        display_names(MEASURES, {"log.like": "t", "t.score": "t"})
