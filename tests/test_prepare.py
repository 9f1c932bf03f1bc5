"""What the Data page prepares for the Precision page (evalcore_app/prepare.py, issue 34): the same cached curves,
figure and JSON the page then finds, computed after the run that asked for them; nothing once the session has ended
or prepares something else, and nothing past its bound."""

from __future__ import annotations

import threading

import pytest

from evalcore.viewstate import ViewSettings, with_roles
from evalcore_app import cached, jobs, prepare
from evalcore_app.components import plot

SAMPLE = "sample:collocations_sim"


@pytest.fixture()
def view_and_data():
    from evalcore.io import suggest_roles

    roles = suggest_roles(cached.raw_table(SAMPLE)[0])
    v = with_roles(ViewSettings().set(dataset=SAMPLE, seed=cached.default_seed(SAMPLE)), label=roles.label,
                   scores=roles.scores, keys=roles.keys, sample=roles.sample)
    cached.curves.clear()
    return v, cached.load(v.data)


def _ended() -> threading.Thread:
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    return thread


def _prepared(v, data, sid=None) -> list:
    token = object()
    prepare._LATEST[sid] = token
    with jobs.watch() as seen:
        prepare._prepare(sid, token, _ended(), data, v)
    return [c.name.rsplit(".", 1)[-1] for c in seen if c.outcome == "computed"]


def test_the_page_finds_what_was_prepared(view_and_data):
    v, data = view_and_data
    assert "curves" in _prepared(v, data)
    measures, n_range = prepare.precision_defaults(data, v)
    assert len(measures) == min(4, len(data.candidates.measures)) and n_range == v.selection.n_range(
        data.candidates.n_candidates)
    with jobs.watch() as seen:  # the page's own call: every step from the caches
        table, fig = prepare.precision_figure(data, v, measures, n_range)
        spec = plot.spec_of(fig)
    assert [c.name for c in seen] == []
    assert list(table["measure"].unique()) == list(measures)
    assert spec[0] == fig.to_json()


def test_nothing_is_prepared_for_an_ended_session_or_a_newer_preparation(view_and_data, monkeypatch):
    v, data = view_and_data
    monkeypatch.setattr(jobs, "known", lambda sid: False)
    assert _prepared(v, data, sid="gone") == []
    prepare._LATEST["s"] = object()  # a newer preparation of the same session
    with jobs.watch() as seen:
        prepare._prepare("s", object(), _ended(), data, v)
    assert [c for c in seen if c.outcome == "computed"] == []


def test_nothing_past_its_bound_is_prepared(view_and_data, monkeypatch):
    v, data = view_and_data
    monkeypatch.setattr(prepare, "PREPARE_SECONDS", 0.0)
    assert "curves" not in _prepared(v, data)


def test_a_run_without_streamlits_server_prepares_nothing(view_and_data):
    v, data = view_and_data
    assert prepare.start(data, v) is None  # (no runtime here, as in AppTest)
