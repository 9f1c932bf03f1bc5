"""The annotation settings in the link (evalcore.viewstate): they round-trip, and bad values are replaced with a
message, never used."""

from __future__ import annotations


from evalcore.viewstate import DEFAULTS, from_query, to_query


def test_annotation_settings_round_trip():
    view = DEFAULTS.set(ann_sample="s7-top100-abcdef0123", annotator="Anna K.", ann_seed=7, ann_size=250,
                       ann_k=1000, ann_measures=("log.like", "t score"), ann_context="freq", ann_rule="agreed")
    query = to_query(view)
    assert query["ann"] == "s7-top100-abcdef0123" and query["annotator"] == "Anna K."
    assert query["ann_m"] == ["log.like", "t score"]
    back, problems = from_query(query)
    assert back == view and problems == []


def test_bad_annotation_settings_are_reported_and_replaced():
    view, problems = from_query({"ann": "../etc", "annotator": "a\x07b", "ann_seed": "-1", "ann_size": "0",
                                 "ann_rule": "loudest"})
    assert view.ann_sample is None and view.annotator is None and view.ann_seed is None
    assert view.ann_size == DEFAULTS.ann_size and view.ann_rule == "majority"
    assert len(problems) == 5
    assert any("annotation sample" in p for p in problems) and any("combining annotators" in p for p in problems)
