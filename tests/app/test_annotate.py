"""The Annotate page and the Precision page's estimates from a sample, under AppTest: a data set whose label
column is empty (or missing) opens, a seeded sample is drawn, candidates are marked and undone, the labels are
in the SQLite database and survive a restart (a new AppTest on the same store), two annotators' agreement is
Cohen's kappa as evalcore computes it, and the Precision page shows the estimates of the labels so far.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import estimates
from evalcore.annotations import AnnotationStore, annotated_candidate_set, export_table, read_export, write_export
from evalcore.ranking import rank
from evalcore.stats.agreement import cohens_kappa
from evalcore.io.store import DatasetStore
from evalcore_app import annotate, sample

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SIM = REPO / "sample_data" / "collocations_sim.tsv"
PAGE = "pages/annotate.py"


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture()
def unlabelled(tmp_path):
    """The simulated collocations with the label column emptied, stored; (id, the hidden labels)."""
    table = pd.read_csv(SIM, sep="\t")
    hidden = table["is_tp"].to_numpy(bool)
    table["is_tp"] = ""
    content = table.to_csv(sep="\t", index=False).encode()
    return DatasetStore().put(content, "unlabelled.tsv"), hidden


def app(params: dict, page: str = PAGE) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def progress_text(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def plain(text: str) -> str:
    """A message as the reader sees it (the page escapes Markdown)."""
    return re.sub(r"\\(.)", r"\1", text)


def named(at: AppTest, annotator: str) -> AppTest:
    at.text_input(key="w_annotator_name").set_value(annotator)
    return ok(at.run())


def drawn(dataset: str, annotator: str = "ann", size: int = 20, seed: int = 7) -> AppTest:
    at = named(app({"dataset": dataset, "ann_seed": str(seed), "ann_size": str(size)}), annotator)
    at.button(key="draw_sample").click()
    return ok(at.run())


def queue_args(at: AppTest) -> dict:
    """What the page sent to the key queue (evalcore_app/components/keyqueue): the candidates to come, what was applied."""
    (component,) = at.get("component_instance")
    return json.loads(component.proto.json_args)


def shown_candidate(at: AppTest) -> int:
    return queue_args(at)["items"][0]["candidate"]


def press(at: AppTest, *actions: str, client: str = "browser-1", resend: list | None = None) -> AppTest:
    """Key presses as the browser queues them: each mark for the next candidate on screen (the ones before in the
    same batch already marked there), all sent at once with increasing sequence numbers, as when presses come
    faster than the page's runs."""
    args = queue_args(at)
    items, start = list(args["items"]), (args["acked"]["seq"] if args["acked"]["client"] == client else 0)
    events = list(resend or [])
    for i, action in enumerate(actions, start + len(events) + 1):
        event = {"seq": i, "action": action, "context": args["context"]}
        if action != "undo":
            item = items.pop(0)
            event.update(position=item["position"], candidate=item["candidate"])
        events.append(event)
    at.session_state[annotate.QUEUE_KEY] = {"client": client, "events": events}
    return ok(at.run())


def test_without_data_points_to_the_data_page():
    at = app({})
    assert any("No data loaded yet" in i.value for i in at.info)


def test_an_empty_label_column_opens_and_the_seeded_sample_is_drawn(unlabelled):
    dataset, _ = unlabelled
    at = drawn(dataset)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    assert info.seed == 7 and info.size == 20 and info.frame.whole
    base = sample.annotated_sample(dataset, "is_tp", ("freq", "log_like", "t_score", "chisq", "MI"), ("w1", "w2"),
                                   ()).candidates
    assert base.n_annotated == 0
    np.testing.assert_array_equal(info.candidates, estimates.draw_sample(base.n_candidates, 20, 7))
    assert at.query_params["ann"] == "s7" and "annotator" not in at.query_params  # the name stays in the session
    assert "ann" not in str(dict(at.query_params)).replace("'ann'", "").replace("ann_", "")
    assert at.query_params["ann_seed"] == "7"
    assert progress_text(at) == "0 of 20 annotated by you"
    assert any(t.value == "Annotating as ann" for t in at.text)  # the name field gave way: no focus left in it
    shown = queue_args(at)["items"][0]
    assert shown["candidate"] == info.candidates[0] and shown["position"] == 0
    assert dict(shown["cells"])["w1"] == pd.read_csv(SIM, sep="\t")["w1"][info.candidates[0]]
    assert [i["candidate"] for i in queue_args(at)["items"]] == info.candidates.tolist()  # the window: all 20


def test_a_table_without_label_column_opens(tmp_path):
    table = pd.read_csv(SIM, sep="\t").drop(columns="is_tp")
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "nolabel.tsv")
    at = drawn(dataset, size=5)
    assert progress_text(at) == "0 of 5 annotated by you"
    assert progress_text(press(at, "TP")) == "1 of 5 annotated by you"


def test_mark_undo_progress_and_export(unlabelled):
    dataset, _ = unlabelled
    at = drawn(dataset, size=10)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    for action in ("TP", "FP", "unsure"):
        press(at, action)
    assert progress_text(at) == "3 of 10 annotated by you"
    assert [r["candidate"] for r in queue_args(at)["recent"]] == info.candidates[:3].tolist()
    press(at, "undo")
    assert progress_text(at) == "2 of 10 annotated by you"
    assert shown_candidate(at) == info.candidates[2]  # the undone one comes back
    labels = AnnotationStore().table(annotate.db_id(dataset), "s7")
    assert labels["ann"].to_dict() == {int(info.candidates[0]): "TP", int(info.candidates[1]): "FP"}
    exports = {b.proto.label for b in at.get("download_button")} - {"Report (ZIP)"}  # (the sidebar's sample report)
    assert exports == {"Annotated set as CSV", "Annotated set as TSV", "Annotated set as PARQUET"}
    base = sample.annotated_sample(dataset, "is_tp", ("freq", "log_like", "t_score", "chisq", "MI"), ("w1", "w2"),
                                   ()).candidates
    raw = at.session_state["view"]
    # another annotator marks after the page's last run: the download, made when clicked, holds that mark too
    AnnotationStore().annotate(annotate.db_id(dataset), "s7", int(info.candidates[5]), "bob", "TP")
    data = annotate.export_file(raw, "s7", base, __import__("evalcore_app.cached", fromlist=["raw_table"]).raw_table(dataset)[0],
                                "csv")
    back = read_export(data, "csv", expected_rows=base.n_candidates)
    np.testing.assert_array_equal(back.sample_candidates, info.candidates)
    assert sorted(back.annotations["label"]) == ["FP", "TP", "TP"]
    assert back.annotations[back.annotations["annotator"] == "bob"]["candidate"].tolist() == [int(info.candidates[5])]
    table = pd.read_csv(SIM, sep="\t", dtype={"is_tp": str})  # the file's own columns, names and types come back
    assert back.table.columns.tolist() == table.columns.tolist()
    assert back.table["freq"].dtype == np.int64 and back.table["w1"].tolist() == table["w1"].tolist()
    assert back.table["is_tp"].iloc[info.candidates[:2]].tolist() == ["TRUE", "FALSE"]


def test_the_labels_survive_a_restart(unlabelled):
    dataset, hidden = unlabelled
    at = drawn(dataset, size=10)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    press(at, *("TP" if hidden[c] else "FP" for c in info.candidates[:4]))  # four quick presses, one run
    link = {k: at.query_params[k] for k in at.query_params}
    del at
    again = named(app(link), "ann")  # a new session (a restarted server reads the same database file)
    assert progress_text(again) == "4 of 10 annotated by you"
    assert shown_candidate(again) == info.candidates[4]
    labels = AnnotationStore().table(annotate.db_id(dataset), "s7")["ann"]
    assert labels.to_dict() == {int(c): "TP" if hidden[c] else "FP" for c in info.candidates[:4]}


def test_two_annotators_see_cohens_kappa(unlabelled):
    dataset, hidden = unlabelled
    first = drawn(dataset, annotator="a", size=12)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    press(first, *("TP" if hidden[c] else "FP" for c in info.candidates[:8]))
    assert any("two or more annotators" in c.value for c in first.caption)
    second = named(app({k: first.query_params[k] for k in first.query_params}), "b")
    assert progress_text(second) == "0 of 12 annotated by you"
    answers = ["TP", "FP", "TP", "TP", "FP", "FP"]
    for label in answers:
        press(second, label)
    a = ["TP" if hidden[c] else "FP" for c in info.candidates[:6]]
    expected = cohens_kappa(np.array(a, object), np.array(answers, object))
    metric = second.metric[0]
    assert "6 candidates, 2 annotators" in metric.label
    assert metric.value == f"{expected.kappa:.3f}"
    assert any(f"{expected.low:.3f} to {expected.high:.3f}" in t.value for t in second.text)


def test_precision_page_shows_the_estimates_of_the_labels_so_far(unlabelled):
    dataset, hidden = unlabelled
    at = drawn(dataset, size=40)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    press(at, *("TP" if hidden[c] else "FP" for c in info.candidates[:30]))
    link = {k: at.query_params[k] for k in at.query_params}
    precision = app({**link, "m": "log_like", "n_min": "100", "n_max": "2000", "n": "2000"}, "pages/precision.py")
    assert any("random sample" in w.value for w in precision.warning)
    assert any("annotation sample s7 so far: 30 candidates annotated" in t.value for t in precision.text)
    table = precision.dataframe[0].value
    base = sample.annotated_sample(dataset, "is_tp", ("freq", "log_like", "t_score", "chisq", "MI"), ("w1", "w2"),
                                   ()).candidates
    labels = AnnotationStore().table(annotate.db_id(dataset), "s7")
    annotated = annotated_candidate_set(base, labels, "majority")
    view = precision.session_state["view"]
    r = rank(annotated, "log_like", ties=view.ties, seed=view.seed)
    want = estimates.precision_estimates(r, [2000])
    assert table["m"].tolist() == want["m"].tolist() and table["k"].tolist() == want["k"].tolist()
    np.testing.assert_allclose(table[["lower", "upper"]].to_numpy(float), want[["lower", "upper"]].to_numpy(float),
                               rtol=1e-12)
    assert int(want["m"][0]) > 0


def test_precision_page_estimates_from_a_file_with_empty_label_cells():
    table = pd.read_csv(SIM, sep="\t")
    rng = np.random.default_rng(3)
    annotated = rng.random(len(table)) < 0.2
    labels = table["is_tp"].to_numpy(bool)
    table["is_tp"] = np.where(annotated, table["is_tp"].astype(str).str.upper(), "")
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "partly.tsv")
    precision = app({"dataset": dataset, "m": "t_score", "ties": "stable", "n_min": "100", "n_max": "1000",
                     "n": "1000"}, "pages/precision.py")
    assert any("random sample" in w.value for w in precision.warning)
    assert any("the file's labels" in t.value and "simple random sample of the whole" in t.value
               for t in precision.text)
    shown = precision.dataframe[0].value
    order = np.argsort(-table["t_score"].to_numpy(), kind="stable")[:1000]
    m, k = int(annotated[order].sum()), int((annotated & labels)[order].sum())
    assert shown["m"].tolist() == [m] and shown["k"].tolist() == [k]
    assert shown["estimate"].tolist() == pytest.approx([k / m])


def test_a_press_sent_again_is_applied_once_and_a_mark_from_another_window_is_not_replaced(unlabelled):
    dataset, _ = unlabelled
    at = drawn(dataset, size=5)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    first = int(info.candidates[0])
    at = press(at, "TP")
    sent = at.session_state[annotate.QUEUE_KEY]["events"]
    at = press(at, "FP", resend=sent)  # the browser sent the first press again (not acknowledged yet)
    assert AnnotationStore().table(annotate.db_id(dataset), "s7")["ann"].to_dict() == {
        first: "TP", int(info.candidates[1]): "FP"}
    assert progress_text(at) == "2 of 5 annotated by you" and not at.warning
    # another window under the same name marked the third candidate meanwhile: this press does not replace it
    AnnotationStore().mark(annotate.db_id(dataset), "s7", 2, int(info.candidates[2]), "ann", "FP")
    at = press(at, "TP")
    assert AnnotationStore().table(annotate.db_id(dataset), "s7").loc[int(info.candidates[2]), "ann"] == "FP"
    assert any("already marked FP (in another tab or window" in plain(w.value) for w in at.warning)
    assert shown_candidate(at) == info.candidates[3]


def test_a_link_that_names_an_annotator_opens_without_a_name(unlabelled):
    dataset, _ = unlabelled
    at = drawn(dataset, annotator="alice", size=5)
    link = {**{k: at.query_params[k] for k in at.query_params}, "annotator": "alice"}  # a link of an older version
    colleague = AppTest.from_file(APP, default_timeout=120)
    for key, value in link.items():
        colleague.query_params[key] = value
    ok(colleague.run())  # the link's problems are said on the first page shown
    assert any("names are no longer carried in links" in plain(w.value) for w in colleague.warning)
    colleague.switch_page(PAGE)
    ok(colleague.run())
    assert colleague.text_input(key="w_annotator_name").value in ("", None)
    assert any("Enter your name above to annotate" in i.value for i in colleague.info)
    assert not colleague.get("component_instance") and "annotator" not in colleague.query_params


def test_a_database_that_cannot_be_written_says_so_and_counts_no_click(unlabelled, monkeypatch):
    """The database opened read-only (SQLite's own refusal, SQLITE_READONLY, as for a read-only file): the page says
    so in words, the presses are not counted, and once it can be written again annotating goes on. (The file, the
    folder and a full disk themselves: tests/test_annotations_failures.py.)"""
    import sqlite3

    dataset, _ = unlabelled
    at = drawn(dataset, size=200)
    press(at, "TP")

    class ReadOnly(AnnotationStore):
        def _connect(self):
            closing = super()._connect()
            closing.__exit__()
            con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
            return type(closing)(con)

    path = AnnotationStore().path
    with monkeypatch.context() as patch:
        patch.setattr(sample, "db", lambda: ReadOnly(path))
        patch.setattr(annotate, "db", lambda: ReadOnly(path))
        at = press(at, *["FP"] * 40)
    assert any("was not saved: the annotation database is read-only on this server" in plain(e.value)
               and "40 key presses were not saved" in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert not at.exception and progress_text(at) == "1 of 200 annotated by you"
    assert AnnotationStore().progress(annotate.db_id(dataset), "s7", "ann") == (1, 200)
    assert queue_args(at)["items"][0]["position"] == 1  # the candidate not saved is on screen again
    assert progress_text(press(at, "FP")) == "2 of 200 annotated by you"  # writable again: annotating goes on


def test_three_annotators_see_fleiss_kappa(unlabelled):
    from evalcore.annotations import annotator_agreement

    dataset, hidden = unlabelled
    at = drawn(dataset, annotator="a", size=8)
    info = AnnotationStore().sample(annotate.db_id(dataset), "s7")
    flips = {"a": set(), "b": {1, 4}, "c": {2}}
    for name, flipped in flips.items():
        for i, c in enumerate(info.candidates[:6]):
            truth = bool(hidden[c]) != (i in flipped)
            AnnotationStore().mark(annotate.db_id(dataset), "s7", i, int(c), name, "TP" if truth else "FP")
    page = named(app({k: at.query_params[k] for k in at.query_params}), "c")
    table = AnnotationStore().table(annotate.db_id(dataset), "s7")
    expected = annotator_agreement(table)
    assert "Fleiss" in expected.method and expected.subjects == 6
    metric = page.metric[0]
    assert "6 candidates, 3 annotators" in metric.label and metric.value == f"{expected.kappa:.3f}"


def test_one_annotators_labels_are_named_in_the_link_by_a_token_not_a_name(unlabelled):
    from evalcore.annotations import annotator_token

    dataset, _ = unlabelled
    at = drawn(dataset, annotator="Anna K.", size=6)
    press(at, "TP", "FP")
    at.radio(key="w_ann_rule").set_value("annotator")
    ok(at.run())
    assert at.query_params["ann_rule"] == "annotator" and at.query_params["ann_of"] == annotator_token("Anna K.")
    assert "Anna" not in str(dict(at.query_params))
    assert at.selectbox(key="w_ann_of").value == "Anna K."
    _, _, design = sample.report_parts(at.session_state["view"])  # the report names whose labels, from the token
    assert design.annotations == "s7 (Anna K.'s labels)"


def test_the_key_queue_value_is_checked_and_each_press_taken_once():
    from evalcore_app.components.keyqueue import unapplied

    good = {"seq": 3, "action": "TP", "position": 2, "candidate": 7, "context": "x"}
    value = {"client": "c1", "events": [good, {**good, "seq": 2}, {**good, "seq": 3}, {"seq": 4, "action": "undo"},
                                        {"seq": 5, "action": "delete"}, {"seq": "6", "action": "TP"},
                                        {"seq": 7, "action": "FP", "position": "1", "candidate": 1}, "junk"]}
    client, events = unapplied(value, {"c1": 2})
    assert client == "c1" and [e["seq"] for e in events] == [3, 4]  # in order, once, none at or below 2
    assert unapplied(value, {"c1": 4}) == ("c1", [])
    assert unapplied({"client": "x" * 65, "events": [good]}, {}) == (None, [])
    assert unapplied(None, {}) == (None, []) and unapplied([good], {}) == (None, [])


def test_a_draw_that_does_not_fit_in_the_store_quota_is_refused_on_the_page(unlabelled, monkeypatch):
    """Issue 19: the annotation database counts in the store's quota and is never evicted; a draw that cannot fit
    is refused with the store's message on the page, and nothing of it is written (the store's reservation,
    DatasetStore.reserve, with a quota that holds the data set and the database but not the sample)."""
    dataset, _ = unlabelled
    at = drawn(dataset, size=10)
    assert AnnotationStore().samples(annotate.db_id(dataset))["sample"].tolist() == ["s7"]
    usage = DatasetStore().usage()
    monkeypatch.setenv("EVALCORE_STORE_QUOTA", str(usage.total_bytes + 1000))
    at.number_input(key="w_ann_size").set_value(1500)
    at.run()
    at.button(key="draw_sample").click()
    at = ok(at.run())
    assert any("sample of 1,500 candidates" in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert AnnotationStore().sample(annotate.db_id(dataset), "s7").size == 10  # the sample as it was
    assert DatasetStore().exists(dataset)  # the data set in use was kept


def test_a_link_to_a_sample_not_drawn_on_this_server_opens_without_an_exception(unlabelled):
    """The sidebar's report asks for the labels of the link's sample: one that was never drawn here is no crash."""
    dataset, _ = unlabelled
    at = app({"dataset": dataset, "ann": "s7", "ann_seed": "7", "ann_size": "10"})
    assert not at.exception
