"""Issue 29: every computation a page can start is estimated before it computes and refused past a set budget, with
a message in words; an inventory that fails when a new page computation forgets it.

- Every cached function of evalcore_app/ and pages/ declares its work (``evalcore_app.jobs.cache``'s ``work=``, read from the source
  by its syntax tree): a new ``st.cache_resource`` or a cached function without an estimate fails
  :func:`test_every_cached_computation_declares_its_work`.
- The pages are opened with data of every kind they take (a full candidate set, an experiment of samples, a partly
  annotated set, a pooled design, text and a per-item table of systems, a server data set) with no budget, and
  every estimate a cached function checks is recorded (:func:`evalcore_app.jobs.watch`). Every cached function of the app is
  reached (:func:`test_the_pages_reach_every_cached_computation`), and each one, called again with its arguments
  under a budget of half its estimate, is refused naming its work, and does not compute.
- Opened with a tiny budget, every page says so in words and computes nothing, draws nothing.
- Work that no cache holds (reading an upload, several uploads as one experiment, a text file re-read in another
  encoding, a systems file uploaded, an annotation draw) is estimated before it starts and refused alike.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from evalcore.annotations import AnnotationStore
from evalcore.io.store import DatasetStore
from evalcore.errors import EvalcoreError
from evalcore.work import WorkTooLargeError, duration_text
from shown_charts import specs
from evalcore_app import costs, jobs

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SIM = REPO / "sample_data" / "collocations_sim.tsv"
SERVER = "one request may use on this server"

#: Functions with a cache decorator that is not ``evalcore_app.jobs.cache`` (the reason they need no estimate of their own).
NOT_ESTIMATED = {
    "evalcore_app/report.py:_current": "remembers per view which cached functions (estimated) give the report; computes only "
                             "the signature's text from their numbers",
    "evalcore_app/report.py:_current_sample": "the same, for a view that estimates from a sample",
}
#: The cached functions the walk below does not reach, and why (empty: it reaches them all).
NOT_WALKED: dict[str, str] = {
    "evalcore_app.report.results": "computed when the sidebar's Report (ZIP) is downloaded (a deferred download, which AppTest "
                         "does not click), no more on a visit (issue 34); estimated by costs.results like the rest",
    "evalcore_app.sample.report_numbers": "the same for a view estimated from a sample",
}


# ---------------------------------------------------------------- the declarations

def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def cached_functions() -> dict[str, tuple[str, bool]]:
    """``file:function`` -> (its cache decorator, whether it declares ``work=``), for every function of evalcore_app/, pages/
    and app.py with a decorator that caches."""
    found = {}
    for path in sorted([*REPO.glob("evalcore_app/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                name = _decorator_name(decorator)
                if name.split(".")[-1] in ("cache", "cache_resource", "cache_data", "lru_cache", "cached_property",
                                           "memoize"):
                    work = isinstance(decorator, ast.Call) and any(k.arg == "work" for k in decorator.keywords)
                    found[f"{path.relative_to(REPO)}:{node.name}"] = (name, work)
    return found


def test_every_cached_computation_declares_its_work():
    found = cached_functions()
    assert len(found) >= 40  # (the scan finds them: evalcore_app/cached.py alone has 19)
    forgot = {f: d for f, (d, work) in found.items()
              if f not in NOT_ESTIMATED and not (d in ("jobs.cache", "cached.cache", "cache") and work)}
    assert not forgot, ("a cached computation without an estimate of its work: declare it with "
                        f"@cached.cache(work=costs.<name>, ...) or @jobs.cache(work=...) (evalcore_app/costs.py): {forgot}")
    assert set(NOT_ESTIMATED) <= set(found), "NOT_ESTIMATED names a function that is gone"


def test_no_cache_of_streamlit_is_used_directly():
    """``st.cache_resource`` and ``st.cache_data`` only inside evalcore_app/jobs.py's ``cache`` (which estimates first)."""
    for path in [*REPO.glob("evalcore_app/**/*.py"), *REPO.glob("pages/*.py"), REPO / "app.py"]:
        if path.name == "jobs.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"st\.cache_(resource|data)\s*\(|@st\.cache_(resource|data)\b", text), path


# ---------------------------------------------------------------- the data of every kind, and the walk

def clear_caches() -> None:
    from evalcore_app import report

    st.cache_resource.clear()
    report._current.cache_clear()
    report._current_sample.cache_clear()


def open_page(params: dict, page: str, timeout: int = 180) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=timeout)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(elements) -> str:
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in elements)).replace("\u2060", "")


FULL = {"dataset": "sample:collocations_sim", "ties": "stable", "a": "log_like", "b": "MI", "n_max": "1500"}


def _partly(store) -> str:
    table = pd.read_csv(SIM, sep="\t")
    rng = np.random.default_rng(29)
    table["is_tp"] = table["is_tp"].astype(object)
    table.loc[rng.random(len(table)) > 0.3, "is_tp"] = ""
    return store.put(table.to_csv(sep="\t", index=False).encode(), "partly.tsv")


def _unlabelled(store) -> str:
    table = pd.read_csv(SIM, sep="\t")
    table["is_tp"] = ""
    return store.put(table.to_csv(sep="\t", index=False).encode(), "unlabelled.tsv")


def _pooled(store) -> dict:
    """An unlabelled set, a pool + sample design drawn on the Annotate page and annotated whole; its link."""
    table = pd.read_csv(SIM, sep="\t")
    hidden = table["is_tp"].to_numpy(bool)
    table["is_tp"] = ""
    dataset = store.put(table.to_csv(sep="\t", index=False).encode(), "unlabelled.tsv")
    params = {"dataset": dataset, "ann_design": "pool+sample", "ann_k": "40", "ann_m": ["log_like", "t_score"],
              "ann_size": "30", "ann_seed": "7", "ties": "stable"}
    at = open_page(params, "pages/annotate.py")
    at.text_input(key="w_annotator_name").set_value("ann").run()
    at.button(key="draw_sample").click().run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    from evalcore_app import annotate

    name, db = at.session_state["view"].ann_sample, annotate.db_id(dataset)
    annotations = AnnotationStore()
    for position, c in enumerate(annotations.sample(db, name).candidates):
        annotations.mark(db, name, position, int(c), "ann", "TP" if hidden[c] else "FP")
    return {k: at.query_params[k] for k in at.query_params}


def _systems_text(store) -> dict:
    from evalcore.systems.synthetic import synthetic_test_set

    data = synthetic_test_set(40, 2, seed=3)
    ref = store.put(("\n".join(data.references) + "\n").encode(), "refs.txt")
    hyps = [f"{name}=" + store.put(("\n".join(lines) + "\n").encode(), f"{name}.txt")
            for name, lines in data.systems.items()]
    return {"sys_ref": ref, "sys_hyp": hyps, "sys_metric": "ter", "sys_r": "1000"}


def _systems_trec(store) -> dict:
    rng = np.random.default_rng(7)
    qrels = "".join(f"q{t} 0 d{d} {int(rng.random() < 0.3)}\n" for t in range(12) for d in range(20))
    runs = {}
    for name in ("bm25", "dense"):
        runs[name] = "".join(f"q{t} Q0 d{d} {r + 1} {20 - r + rng.random():.4f} {name}\n" for t in range(12)
                             for r, d in enumerate(rng.permutation(20)))
    return {"sys_mode": "trec", "sys_qrels": store.put(qrels.encode(), "qrels.txt"),
            "sys_run": [f"{n}={store.put(text.encode(), f'{n}.run')}" for n, text in runs.items()],
            "sys_measure": "ap", "sys_r": "1000"}


def _systems_table(store) -> dict:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"item": [f"i{k}" for k in range(300)]})
    for name, rate in (("base", 0.6), ("new", 0.7)):
        frame[f"{name}.correct"] = rng.binomial(10, rate, 300)
        frame[f"{name}.total"] = 10
    return {"sys_mode": "table", "sys_table": store.put(frame.to_csv(index=False).encode(), "items.csv"),
            "sys_r": "1000"}


def _server(folder: Path) -> dict:
    rng = np.random.default_rng(5)
    n = 3000
    labels = rng.random(n) < 0.2
    pd.DataFrame({"label": labels, "a": labels + rng.normal(size=n), "b": 0.5 * labels + rng.normal(size=n)}).to_parquet(
        folder / "big.parquet")
    return {"dataset": "server:big.parquet", "label": "label", "score": ["a", "b"], "ties": "stable", "a": "a",
            "b": "b", "n_max": "2000"}


#: Each kind of data, and the pages opened with it (link, page).
def scenarios(store, folder: Path) -> dict[str, list[tuple[dict, str]]]:
    partly = {"dataset": _partly(store), "ties": "stable", "a": "log_like", "b": "MI", "n_max": "1500"}
    pooled = _pooled(store)
    experiment = {"dataset": "sample:experiment_sim", "ties": "stable"}
    return {
        "full": [(FULL, "pages/data.py"), (FULL, "pages/precision.py"), (FULL, "pages/confidence.py"),
                 ({**FULL, "sig_members": "1"}, "pages/significance.py"),
                 (FULL, "pages/threshold.py"), (FULL, "pages/pairwise.py"),
                 ({**FULL, "resamples": "200"}, "pages/roc.py")],
        "experiment": [(experiment, "pages/validation.py"), (experiment, "pages/across.py"),
                       (experiment, "pages/uir.py"), ({**experiment, "sample": "1"}, "pages/precision.py")],
        "partly annotated": [(partly, "pages/data.py"), (partly, "pages/precision.py"),
                             (partly, "pages/significance.py"), (partly, "pages/threshold.py")],
        "pooled design": [({**pooled, "n_max": "300"}, "pages/precision.py"),
                          ({**pooled, "a": "log_like", "b": "t_score", "n_max": "300"}, "pages/significance.py"),
                          ({**pooled, "ann_plan": "1", "ann_budget": "300", "ann_plan_n": "100"},
                           "pages/annotate.py")],
        "stratified design": [({"dataset": _unlabelled(store), "ann_design": "stratified", "ann_m": ["log_like"],
                                 "ann_bands": "100,400,rest", "ann_bsizes": "20,20,20", "ann_plan": "1",
                                 "ann_budget": "60", "ann_plan_ns": "100,500", "ann_bguess": "0.4,0.2,0.1",
                                 "ties": "stable"}, "pages/annotate.py")],
        "systems text": [(_systems_text(store), "pages/systems.py")],
        "systems trec": [(_systems_trec(store), "pages/systems.py")],
        "systems table": [(_systems_table(store), "pages/systems.py")],
        "server data set": [(_server(folder), "pages/precision.py"), (_server(folder), "pages/significance.py")],
    }


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """Every scenario's pages opened with no budget, from empty caches; per scenario, what was estimated and
    then, called again under half its estimate, what each cached function did."""
    folder = tmp_path_factory.mktemp("work_inventory")
    data = folder / "data"
    data.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVALCORE_STORE", str(folder / "store"))
        patch.setenv("EVALCORE_DATA_DIR", str(data))
        patch.delenv("EVALCORE_DEFAULT_DATASET", raising=False)
        patch.setenv("EVALCORE_WORK_BUDGET", "unlimited")
        clear_caches()
        results = {}
        for scenario, pages in scenarios(DatasetStore(), data).items():
            with jobs.watch() as seen:
                for params, page in pages:
                    at = open_page(params, page)
                    assert not at.error, (scenario, page, shown(at.error))
            first = {}
            for checked in seen:
                first.setdefault(checked.name, checked)
            replays = {}
            for name, checked in first.items():  # (at once: the functions its estimate asks are still cached)
                estimate = checked.function.work(*checked.args, **checked.kwargs)  # (now: e.g. counts since stored)
                budget = estimate.seconds / 2
                patch.setenv("EVALCORE_WORK_BUDGET", f"{budget:.12f}")
                checked.function.clear(*checked.args, **checked.kwargs)  # (this entry only)
                with jobs.watch() as again:
                    try:
                        checked.function(*checked.args, **checked.kwargs)
                        error = None
                    except WorkTooLargeError as exc:
                        error = exc
                patch.setenv("EVALCORE_WORK_BUDGET", "unlimited")
                bound = inspect.signature(checked.function).bind(*checked.args, **checked.kwargs)
                if "_progress" in bound.arguments:  # (the page's job has ended)
                    bound.arguments["_progress"] = None
                try:
                    checked.function(*bound.args, **bound.kwargs)  # (cached again, for the estimates after it)
                except EvalcoreError:  # (what the page said in words, e.g. an unlabelled set's labels)
                    pass
                replays[name] = (estimate, error, [c for c in again if c.name == name])
            results[scenario] = (seen, replays)
        clear_caches()
        yield results


def test_the_pages_reach_every_cached_computation(walk):
    reached = {name for seen, _ in walk.values() for name in (c.name for c in seen)}
    missing = set(jobs.CACHED) - reached - set(NOT_WALKED)
    assert not missing, f"no scenario opens a page that computes {sorted(missing)}: add one to scenarios()"
    assert all(c.outcome == "computed" for seen, _ in walk.values() for c in seen)  # (no budget: nothing refused)


@pytest.mark.parametrize("scenario", ["full", "experiment", "partly annotated", "pooled design", "stratified design",
                                      "systems text", "systems trec", "systems table", "server data set"])
def test_each_cached_computation_is_refused_past_a_set_budget_and_does_not_compute(walk, scenario):
    _, replays = walk[scenario]
    assert replays
    for name, (estimate, error, calls) in replays.items():
        assert error is not None, f"{name} computed past a budget of half its estimate ({estimate.what})"
        message = str(error)
        assert f"({estimate.what})" in message and "it was not started" in message, (name, message)
        assert SERVER in message and "EVALCORE_WORK_BUDGET" in message
        assert [c.outcome for c in calls] == ["refused"], (name, calls)  # checked once, and it did not compute


# ---------------------------------------------------------------- a tiny budget on every page

PAGES = ["data", "precision", "confidence", "significance", "threshold", "pairwise", "roc"]


@pytest.mark.parametrize("page", PAGES)
def test_with_a_tiny_budget_every_page_says_so_and_computes_nothing(page, store_root, monkeypatch):
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.000001")
    clear_caches()
    with jobs.watch() as seen:
        at = open_page(FULL, f"pages/{page}.py")
    said = shown(at.error)
    reading = costs.raw_table(FULL["dataset"])
    assert f"This would take about {duration_text(reading.seconds)} of computing ({reading.what})" in said
    assert reading.what == f"reading collocations_sim.tsv ({SIM.stat().st_size:,} bytes)"
    assert f"more than the 0.000001 seconds {SERVER} (EVALCORE_WORK_BUDGET, set by whoever runs this server); it " \
           "was not started" in said
    assert seen and {c.outcome for c in seen} == {"refused"}  # nothing computed
    assert not specs(at) and not at.dataframe  # nothing drawn
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert "No report for these settings: This would take about" in sidebar.replace("\\", "")


@pytest.mark.parametrize("page", ["validation", "across", "uir"])
def test_with_a_tiny_budget_the_pages_of_samples_say_so(page, store_root, monkeypatch):
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.000001")
    clear_caches()
    with jobs.watch() as seen:
        at = open_page({"dataset": "sample:experiment_sim"}, f"pages/{page}.py")
    assert "(reading experiment_sim.tsv.gz" in shown(at.error) and "it was not started" in shown(at.error)
    assert seen and {c.outcome for c in seen} == {"refused"} and not specs(at)


def test_with_a_tiny_budget_the_systems_page_reads_nothing(store_root, monkeypatch):
    link = _systems_text(DatasetStore())
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.000001")
    clear_caches()
    with jobs.watch() as seen:
        at = open_page(link, "pages/systems.py")
    said = shown(at.error)
    assert re.search(r"\(checking the references and systems together \(\d[\d,]* characters\)\)", said), said
    assert "it was not started" in said
    assert seen and {c.outcome for c in seen} == {"refused"} and not specs(at) and not at.dataframe


# ---------------------------------------------------------------- work no cache holds

@pytest.fixture()
def tiny(store_root, monkeypatch):
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.000001")
    clear_caches()
    return DatasetStore()


def _refused(call, what: str) -> str:
    with pytest.raises(WorkTooLargeError) as caught:
        call()
    message = str(caught.value)
    assert what in message and "it was not started" in message and SERVER in message, message
    return message


def test_an_upload_is_estimated_before_it_is_read_and_stored(tiny):
    from evalcore_app import cached

    content = SIM.read_bytes()
    _refused(lambda: cached.ingest(content, "mine.tsv"), f"(reading mine.tsv ({len(content):,} bytes))")
    _refused(lambda: cached.combined([(content, "one.tsv"), (content, "two.tsv")]),
             f"(reading 2 files ({2 * len(content):,} bytes))")
    assert tiny.ids() == []  # nothing stored


def test_a_text_read_again_in_another_encoding_is_estimated(tiny, monkeypatch):
    from evalcore_app import cached

    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "unlimited")
    dataset = tiny.put(SIM.read_bytes(), "latin.tsv")
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "0.000001")
    _refused(lambda: cached.reencoded(dataset, "latin-1"), "(reading latin.tsv")
    assert tiny.ids() == [dataset]


def test_systems_uploads_are_estimated_before_they_are_read(tiny):
    from evalcore_app import systems

    text = SimpleNamespace(name="refs.txt", getvalue=lambda: b"a b c\n" * 1000)
    _refused(lambda: systems.store_text(text), "(reading refs.txt (6,000 bytes))")
    table = SimpleNamespace(name="items.csv", getvalue=lambda: b"item,a.correct,a.total\ni1,1,2\n")
    _refused(lambda: systems.store_table(table), "(reading items.csv")
    assert tiny.ids() == []


def test_an_annotation_draw_is_estimated_before_it_draws(store_root, monkeypatch):
    table = pd.read_csv(SIM, sep="\t")
    table["is_tp"] = ""
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "unlabelled.tsv")
    at = open_page({"dataset": dataset, "ann_size": "200", "ann_seed": "3"}, "pages/annotate.py")
    at.text_input(key="w_annotator_name").set_value("ann").run()
    estimate = costs.draw(len(table), 200)
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", f"{estimate.seconds / 2:.12f}")
    at.button(key="draw_sample").click().run()
    assert not at.exception
    said = shown(at.error)
    assert f"({estimate.what})" in said and "drawing 200 candidates of 6,348 to annotate" in said
    assert "it was not started" in said
    assert at.session_state["view"].ann_sample is None  # nothing drawn
    from evalcore_app import annotate

    assert AnnotationStore().samples(annotate.db_id(dataset)).empty
