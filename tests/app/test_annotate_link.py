"""The annotation settings in the link (evalcore.viewstate): they round-trip, bad values are replaced with a
message, never used, and no annotator's name travels in a link (issue 18, item 6): whose labels the estimates use
is a token, and an older link's ``annotator=`` is said and not taken."""

from __future__ import annotations

from evalcore.annotations import annotator_by_token, annotator_token
from evalcore.viewstate import DEFAULTS, from_query, to_query


def test_annotation_settings_round_trip_without_a_name():
    view = DEFAULTS.set(ann_sample="s7-top100-abcdef0123", ann_of=annotator_token("Anna K."), ann_seed=7,
                        ann_size=250, ann_k=1000, ann_measures=("log.like", "t score"), ann_context="freq",
                        ann_rule="annotator")
    query = to_query(view)
    assert query["ann"] == "s7-top100-abcdef0123" and "annotator" not in query
    assert "Anna" not in str(query) and query["ann_of"] == annotator_token("Anna K.")
    assert annotator_by_token(["bob", "Anna K."], query["ann_of"]) == "Anna K."
    assert query["ann_m"] == ["log.like", "t score"]
    back, problems = from_query(query)
    assert back == view and problems == []


def test_a_link_naming_an_annotator_is_told_and_opens_without_one():
    view, problems = from_query({"ann": "s7", "annotator": "alice"})
    assert problems == ["The link names an annotator; names are no longer carried in links (whoever opens a link "
                        "annotates under their own name), so none was taken from it: enter yours on the Annotate "
                        "page."]
    assert view == DEFAULTS.set(ann_sample="s7") and "alice" not in str(to_query(view))


def test_bad_annotation_settings_are_reported_and_replaced():
    view, problems = from_query({"ann": "../etc", "ann_of": "alice", "ann_seed": "-1", "ann_size": "0",
                                 "ann_rule": "loudest"})
    assert view.ann_sample is None and view.ann_of is None and view.ann_seed is None
    assert view.ann_size == DEFAULTS.ann_size and view.ann_rule == "majority"
    assert len(problems) == 5
    assert any("annotation sample" in p for p in problems) and any("combining annotators" in p for p in problems)
    assert any("annotator 'alice' is not one" in p for p in problems)
