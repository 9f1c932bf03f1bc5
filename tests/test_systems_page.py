"""The Systems page under Streamlit's AppTest: empty, opened from a link to stored files (text and a per-item
table), a setting moved, and links it must correct with a message. The numbers shown are evalcore.systems' own
(checked against sacrebleu and plain loops in test_systems.py); here: that the page shows exactly them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.format import p_value
from evalcore.io.store import DatasetStore
from evalcore.systems.compare import ResamplingSettings, compare_systems
from evalcore.systems.inputs import check_text_input, read_item_table
from evalcore.systems.metrics import format_score
from evalcore.systems.statistics import table_statistics, text_statistics
from evalcore.systems.synthetic import synthetic_test_set
from evalcore.viewstate import from_query, to_query

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGE = "pages/systems.py"


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    monkeypatch.delenv("EVALCORE_DEFAULT_DATASET", raising=False)
    return DatasetStore()


@pytest.fixture()
def text_link(store):
    data = synthetic_test_set(150, 3, seed=2)
    ref = store.put(("\r\n".join(data.references) + "\r\n").encode(), "refs.txt")
    hyps = [f"{name}=" + store.put(("\n".join(lines) + "\n").encode(), f"{name}.txt")
            for name, lines in data.systems.items()]
    return {"sys_ref": ref, "sys_hyp": hyps}, data


def open_page(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def messages(at: AppTest) -> list[str]:
    return [m.value.replace("\\", "") for m in [*at.warning, *at.error, *at.info]]  # (shown escaped, as text)


def test_empty_page_says_what_to_upload(store):
    at = open_page({})
    assert any("Upload a references file and two or more hypotheses files" in m for m in messages(at))
    assert not at.dataframe


def test_a_link_to_stored_files_shows_the_comparison_and_a_setting_moves_it(text_link):
    query, data = text_link
    at = open_page(query)
    refs = [("refs.txt", list(data.references))]
    hyps = [(n, list(lines)) for n, lines in data.systems.items()]
    statistics = text_statistics(check_text_input(refs, hyps, "bleu"), "bleu")
    expected = compare_systems(statistics, ResamplingSettings(1000, 12345))
    scores = at.dataframe[0].value
    assert scores["system"].tolist() == list(data.systems)
    assert scores["BLEU"].tolist() == [format_score(statistics.metric, s) for s in expected.systems["score"]]
    pairs = at.dataframe[1].value
    assert list(zip(pairs["A"], pairs["B"])) == list(zip(expected.pairs["a"], expected.pairs["b"]))
    assert pairs["significant"].tolist() == ["yes" if s else "no" for s in expected.pairs["significant"]]
    sentence = next(m.value for m in at.markdown if "pairs differ significantly" in m.value)
    assert f"**{expected.n_significant} of 3**" in sentence
    signature = next(t.value for t in at.sidebar.text if t.value.startswith("evalcore "))
    assert "cmd systems" in signature and "resamples 1000" in signature and query["sys_ref"] in signature
    # more resamples: the view, the link and the numbers follow
    at.select_slider(key="w_sys_resamples").set_value(2000).run()
    assert not at.exception
    assert at.session_state["view"].sys_resamples == 2000
    more = compare_systems(statistics, ResamplingSettings(2000, 12345))
    assert at.dataframe[1].value["p bootstrap"].tolist() == [p_value(p) for p in more.pairs["p_bootstrap"]]
    assert to_query(at.session_state["view"])["sys_r"] == "2000"
    assert from_query(to_query(at.session_state["view"])) == (at.session_state["view"], [])


def test_a_per_item_table_from_a_link(store, tmp_path):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"item": [f"s{i}" for i in range(60)]})
    for name in ("base", "new"):
        total = rng.integers(5, 20, 60)
        frame[f"{name}.correct"] = rng.binomial(total, 0.6 if name == "base" else 0.7)
        frame[f"{name}.total"] = total
    content = frame.to_csv(index=False).encode()
    table_id = store.put(content, "items.csv")
    at = open_page({"sys_mode": "table", "sys_table": table_id, "sys_metric": "accuracy", "sys_r": "500"})
    path = tmp_path / "items.csv"
    path.write_bytes(content)
    expected = compare_systems(table_statistics(read_item_table(path, "accuracy")), ResamplingSettings(500, 12345))
    assert at.dataframe[0].value["accuracy"].tolist() == [f"{s:.4f}" for s in expected.systems["score"]]


def test_links_the_page_cannot_show_are_corrected_with_a_message(text_link, store):
    query, _ = text_link
    at = open_page({**query, "sys_metric": "f1", "sys_pair": "40", "sys_r": "333"})
    said = " ".join(messages(at))
    assert "The metric 'f1' does not apply to text files; using bleu." in said
    assert "333 resamples is not one of the choices" in said
    assert "there are 3, so the first is shown" in said
    v = at.session_state["view"]
    assert (v.sys_metric, v.sys_pair, v.sys_resamples) == ("bleu", 0, 200)
    gone = open_page({"sys_ref": "a" * 64, "sys_hyp": query["sys_hyp"]})
    assert any(f"No file with id {'a' * 12}… is stored on this server" in m and "Upload the file again on this page"
               in m for m in messages(gone))


def test_work_past_the_bound_of_one_request_is_refused_with_a_message(monkeypatch):
    from evalcore.work import WorkTooLargeError
    from evalcore_app.systems import SystemsInput, check_budget

    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "60")  # the resampling: the host's work budget (evalcore.work)
    table = SystemsInput("table", (), (), "d" * 64, "accuracy", None)
    check_budget(table, 100_000, 2, ResamplingSettings(10_000, 1))  # 30 s estimated
    with pytest.raises(WorkTooLargeError, match="What fits: 20,000 resamples"):
        check_budget(table, 100_000, 2, ResamplingSettings(50_000, 1))  # 150 s
    with pytest.raises(WorkTooLargeError, match="and the test-set-size curves"):
        check_budget(table, 100_000, 2, ResamplingSettings(10_000, 1), curves=True)


# ------------------------------------------------------------------------------------------------ issue 31

REFERENCE = __import__("json").loads((Path(__file__).parent / "reference" / "systems_libraries_reference.json")
                                     .read_text("utf-8"))


def test_trec_runs_from_a_link_with_the_t_test_and_a_note_for_a_missing_topic(store):
    from evalcore.systems.compare import PairTests
    from evalcore.systems.trec import TrecOptions, read_qrels, read_run, trec_statistics

    files = REFERENCE["trec"]["files"]
    qrels = ("\n".join(files["qrels"]) + "\n").encode()
    runs = {name: ("\n".join(lines) + "\n").encode() for name, lines in files["runs"].items()}
    query = {"sys_mode": "trec", "sys_qrels": store.put(qrels, "qrels.txt"),
             "sys_run": [f"{n}={store.put(data, f'{n}.run')}" for n, data in runs.items()],
             "sys_measure": "ap", "sys_tests": ["ttest", "tukey"], "sys_r": "500", "sys_ties": "rank",
             "sys_matrix": "p_ttest_adjusted"}
    at = open_page(query)
    stats = trec_statistics(read_qrels(qrels), [read_run(d, name=f"{n}.run") for n, d in runs.items()], "AP",
                            TrecOptions(ties="rank"))
    expected = compare_systems(stats, ResamplingSettings(500, 12345), tests=PairTests(("ttest", "tukey")))
    assert at.dataframe[0].value["AP"].tolist() == [format_score(stats.metric, s) for s in expected.systems["score"]]
    pairs = at.dataframe[1].value
    assert pairs["p t-test, Holm"].tolist() == [p_value(x) for x in expected.pairs["p_ttest_adjusted"]]
    assert pairs["p Tukey HSD"].tolist() == [p_value(x) for x in expected.pairs["p_tukey"]]
    assert any("run dense lacks 1 topic of the qrels, scored 0" in m for m in messages(at))
    assert any("on 12 topics" in m.value for m in at.markdown)
    signature = next(t.value for t in at.sidebar.text if t.value.startswith("evalcore "))
    assert "metric AP|qrels 1|missing zero|ties rank" in signature and "tests ttest,tukey" in signature
    # a measure ir-measures does not know: said in words, nothing computed
    bad = open_page({**query, "sys_measure": "bleu"})
    assert any("not a measure ir-measures knows" in m for m in messages(bad)) and not bad.dataframe


def test_rouge_from_a_link_warns_when_rouge_scores_tokenizer_drops_the_text(store):
    stored = REFERENCE["rouge"]
    ref = store.put(("\n".join(r[0] for r in stored["references"]) + "\n").encode(), "refs.txt")
    hyps = [f"{n}=" + store.put(("\n".join(lines) + "\n").encode(), f"{n}.txt")
            for n, lines in stored["summaries"].items()]
    at = open_page({"sys_ref": ref, "sys_hyp": hyps, "sys_metric": "rouge1", "sys_r": "200", "sys_stem": "no",
                    "sys_tests": ["wilcoxon"], "sys_wx_zero": "zsplit"})
    expected = next(r for r in stored["scores"] if r["metric"] == "rouge1" and not r["stemmer"]
                    and r["system"] == "lead")
    import math

    assert at.dataframe[0].value["ROUGE-1"].tolist()[0] == f"{math.fsum(v[2] for v in expected['single']) / 6:.4f}"
    assert any("drops most of the letters and digits" in m and "Unicode tokenizer" in m for m in messages(at))
    assert "p Wilcoxon, Holm" in at.dataframe[1].value.columns
    signature = next(t.value for t in at.sidebar.text if t.value.startswith("evalcore "))
    assert "stemmer no" in signature and "zero-method zsplit" in signature
    at.selectbox(key="w_sys_rouge_tok").set_value("unicode").run()
    assert not any("drops most" in m for m in messages(at))
    assert at.session_state["view"].sys_rouge_tok == "unicode"


def test_a_score_table_and_tests_a_ratio_of_sums_cannot_take(store, tmp_path):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"item": [f"s{i}" for i in range(40)], "comet.score": rng.normal(0.3, 0.2, 40),
                          "bleurt.score": rng.normal(0.35, 0.2, 40)})
    table = store.put(frame.to_csv(index=False).encode(), "scores.csv")
    at = open_page({"sys_mode": "table", "sys_table": table, "sys_metric": "mean", "sys_tests": ["ttest"],
                    "sys_r": "200"})
    assert at.dataframe[0].value["system"].tolist() == ["comet", "bleurt"]
    assert "p t-test" in at.dataframe[1].value.columns
    counts = store.put(b"item,a.correct,a.total,b.correct,b.total\n1,1,2,2,2\n2,0,2,1,2\n", "acc.csv")
    corrected = open_page({"sys_mode": "table", "sys_table": counts, "sys_metric": "accuracy",
                           "sys_tests": ["ttest", "tukey"], "sys_r": "200"})
    assert any("a ratio of sums over the items, so they are left out" in m for m in messages(corrected))
    assert corrected.session_state["view"].sys_tests == ("tukey",)


def test_rouge_scoring_past_the_work_budget_is_refused_with_a_message(monkeypatch):
    from evalcore.errors import EvalcoreError
    from evalcore.work import rouge_estimate
    from evalcore_app.systems import check_scoring

    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "60")
    check_scoring(rouge_estimate("rougeL", 20_000, 20_000 * 60, 20_000 * 900))
    with pytest.raises(EvalcoreError, match="scoring rougeL with rouge-score.*use the command line"):
        check_scoring(rouge_estimate("rougeL", 100_000, 100_000 * 120, 100_000 * 3600, documents=10_000, systems=10))


def test_scoring_past_the_budget_is_refused_before_it_starts(store, monkeypatch):
    """Issue 29: two lines of 1,200 words per system kept the page scoring TER past 150 s (the 60 s budget never
    fired: the page scored before its budget check, and SEGMENT_BUDGET counted segments, not words). Now the
    scoring's estimate (per metric, from the words of every segment pair) is checked before it starts: past the
    budget the page says what it would cost, in one sentence, and no scoring process is started."""
    from evalcore.systems.synthetic import synthetic_test_set
    from evalcore.work import child

    data = synthetic_test_set(400, 2, seed=5)
    words = {name: " ".join(lines).split() for name, lines in data.systems.items()}
    reference = " ".join(data.references).split()
    lines = lambda w: (" ".join(w[:1200]) + "\n" + " ".join(w[1200:2400]) + "\n").encode()  # 2 lines of 1,200 words
    ref = store.put(lines(reference), "refs.txt")
    hyps = [f"{name}=" + store.put(lines(w), f"{name}.txt") for name, w in words.items()]
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "60")
    started = child.children_started()
    at = open_page({"sys_ref": ref, "sys_hyp": hyps, "sys_metric": "ter"})
    said = " ".join(messages(at))
    assert "This would take about" in said and "(scoring 4 segments of 2 systems with TER (4,800 words))" in said
    assert "it was not started. Nothing smaller of this kind fits; use fewer or shorter segments" in said
    assert child.children_started() == started  # no scoring process was started
    assert not at.dataframe
