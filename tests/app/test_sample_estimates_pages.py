"""Estimates from a random sample on every page that uses one, under AppTest.

The data: Krenn's PP-verb candidates (``../shared/data/krenn_ppv.tsv``, read here, never copied) with the labels
of ``is.colloc`` hidden except for a seeded 10% simple random sample (empty cells elsewhere). Every number a page
shows is checked against evalcore's functions on the same sample (:func:`evalcore.io.load_annotated_sample`,
:mod:`evalcore.estimates`), which have their own R and oracle tests: the pages must show those numbers, with the
counts behind them, the note on the random-sample assumption, greyed-out n, and the "how many more" table. The
re-import test exports the Annotate page's annotated set and imports it into a fresh database through the page.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import estimates
from evalcore import format as fmt
from evalcore.annotations import AnnotationStore, export_table, write_export
from evalcore.io import load_annotated_sample
from evalcore.io.store import DatasetStore
from evalcore.ranking import rank
from evalcore.stats.effect import odds_ratio
from shown_charts import specs
from evalcore_app import sample

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
KRENN = REPO.parent / "shared" / "data" / "krenn_ppv.tsv"
SEED = 20240611
LINK = {"ties": "stable", "label": "is.colloc"}


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def hidden_table() -> tuple[pd.DataFrame, np.ndarray]:
    """Krenn's table with is.colloc empty except a seeded 10% sample (the other label columns dropped)."""
    table = pd.read_csv(KRENN, sep="\t", dtype=str, keep_default_na=False).drop(columns=["is.SVC", "is.figur"])
    rng = np.random.default_rng(SEED)
    kept = np.zeros(len(table), bool)
    kept[rng.choice(len(table), size=len(table) // 10, replace=False)] = True
    table["is.colloc"] = np.where(kept, table["is.colloc"], "")
    return table, kept


@pytest.fixture()
def krenn_sample():
    """The stored data set's id, and the candidate set as evalcore reads it."""
    table, _ = hidden_table()
    content = table.to_csv(sep="\t", index=False).encode()
    dataset = DatasetStore().put(content, "krenn_sample.tsv")
    return dataset, load_annotated_sample(table, name="krenn_sample.tsv").candidates


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in {**LINK, **params}.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def plain(markdown: str) -> str:
    """Text shown through evalcore.text.markdown_text, without its escapes."""
    return markdown.replace("\\", "")


def texts(at: AppTest) -> list[str]:
    return [t.value for t in at.text]


def assert_note(at: AppTest, m: int, n: int) -> None:
    """The random-sample note, and how many annotated candidates there are, shown as text."""
    assert any("simple random sample" in w.value for w in at.warning)
    assert any(f"{m:,} candidates annotated TP or FP" in t and f"of {n:,}" in t and "simple random sample of the "
               "whole candidate set" in t for t in texts(at)), texts(at)


def test_the_sample_is_a_tenth_of_krenn(krenn_sample):
    _, candidates = krenn_sample
    assert candidates.n_candidates == 5102 and candidates.n_annotated == 510


def test_confidence_page_shows_estimates_with_counts(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "m": ["log.like", "chisq"], "n_min": "100", "n_max": "1500",
              "s_interval": "clopper_pearson", "level": "0.9"}, "pages/confidence.py")
    assert_note(at, 510, 5102)
    assert at.selectbox(key="w_sample_interval").value == "clopper_pearson"
    shown = at.dataframe[0].value
    for measure in ("log.like", "chisq"):
        want = estimates.precision_estimates(rank(candidates, measure, ties="stable"), [1500],
                                             confidence_level=0.9, interval="clopper_pearson")
        row = shown[shown["measure"] == measure]
        assert row[["m", "k"]].to_numpy().tolist() == want[["m", "k"]].to_numpy().tolist()
        np.testing.assert_allclose(row[["estimate", "lower", "upper"]].to_numpy(float),
                                   want[["estimate", "lower", "upper"]].to_numpy(float), rtol=1e-12)
    assert int(shown["m"].min()) > 100  # a tenth of 1,500, give or take
    chart = specs(at)[0]
    assert "Clopper-Pearson" in chart  # the method the figure names


def test_confidence_page_hypergeometric_interval_is_the_default(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "m": ["log.like"], "n_min": "100", "n_max": "500"}, "pages/confidence.py")
    row = at.dataframe[0].value.iloc[0]
    want = estimates.precision_estimates(rank(candidates, "log.like", ties="stable"), [500]).iloc[0]
    assert (row["m"], row["k"]) == (want["m"], want["k"])
    assert row["lower"] == pytest.approx(want["lower"], rel=1e-12) and row["upper"] == pytest.approx(want["upper"],
                                                                                                     rel=1e-12)


def test_threshold_page_estimates_an_acceptance_set(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "t_measure": "t.score", "t_mode": "n", "t_n": "800"}, "pages/threshold.py")
    assert_note(at, 510, 5102)
    r = rank(candidates, "t.score", ties="stable")
    from evalcore.analysis import gamma_for_n

    want = estimates.acceptance_estimates(r, [gamma_for_n(r, 800)]).iloc[0]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Accepted"] == f"{int(want['size']):,}"
    assert metrics["Annotated in it"] == f"{int(want['m']):,}" and metrics["TPs among them"] == f"{int(want['k']):,}"
    assert metrics["Estimated precision"] == f"{want['estimate']:.2%}"
    assert any(f"{want['lower']:.2%} to {want['upper']:.2%}, from {int(want['m']):,} annotated" in t
               for t in texts(at))


def test_significance_page_tests_the_annotated_candidates_and_greys_out_too_few(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "a": "log.like", "b": "chisq", "n_min": "10", "n_max": "2000", "sig_n": "50",
              "min_ann": "10"}, "pages/significance.py")
    assert_note(at, 510, 5102)
    ra, rb = (rank(candidates, m, ties="stable") for m in ("log.like", "chisq"))
    want = estimates.compare_estimates(ra, rb, np.arange(10, 2001), min_annotated=10)
    assert (~want["enough"]).any() and want["enough"].any()  # the data has n with too few and n with enough
    summary = next(m.value for m in at.markdown if "Fisher's exact test" in m.value)
    tested = want[want["enough"]]
    assert f"significant at **{int(tested['significant'].sum()):,} of {len(tested):,}** n" in summary
    assert f"{int((~want['enough']).sum()):,} n are greyed out" in summary
    # the look-at table at n = 50: the counts, the p-value, the effect sizes on the same counts
    at50 = want[want["n"] == 50].iloc[0]
    look = at.dataframe[0].value
    assert look["annotated"].tolist() == [at50["m_d1"], at50["m_d2"]]
    assert look["TPs"].tolist() == [at50["k_d1"], at50["k_d2"]]
    assert any(f"rests on {int(at50['annotated']):,} annotated candidates" in t for t in texts(at))
    k1, m1, k2, m2 = (int(at50[c]) for c in ("k_d1", "m_d1", "k_d2", "m_d2"))
    ratio = odds_ratio(k1, m1 - k1, k2, m2 - k2, confidence_level=0.95)
    low, high = estimates.newcombe_difference_interval(k1, m1, k2, m2, 0.95)
    assert any(f"odds ratio {fmt.number(ratio.estimate)} [{fmt.number(ratio.low)}, {fmt.number(ratio.high)}]" in t
               and f"[{fmt.points(low)}, {fmt.points(high)}] points (Newcombe" in t for t in texts(at)), texts(at)
    if not at50["enough"]:
        assert any("not tested: too few annotated candidates at n = 50" in t for t in texts(at))
    # the table over n: the rows at the slider's n, with enough as evalcore says
    grid = at.dataframe[1].value
    merged = grid.merge(want, on="n", suffixes=("", "_want"))
    assert len(merged) == len(grid) > 10
    for column in ("m_d1", "k_d1", "m_d2", "k_d2", "annotated", "enough"):
        assert merged[column].tolist() == merged[f"{column}_want"].tolist(), column
    np.testing.assert_allclose(merged["p_value"], merged["p_value_want"], rtol=1e-12)
    # the figure shades the runs of too few
    spec = specs(at)[0]
    assert "too few annotated" in spec


def test_fewer_required_annotations_grey_out_fewer_n(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "a": "log.like", "b": "chisq", "n_min": "10", "n_max": "2000", "min_ann": "0"},
             "pages/significance.py")
    summary = next(m.value for m in at.markdown if "Fisher's exact test" in m.value)
    assert " 0 n are greyed out" in summary


def test_precision_page_how_many_more(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "m": ["log.like", "chisq"], "n_min": "100", "n_max": "1000", "p_n": "500"},
             "pages/precision.py")
    assert_note(at, 510, 5102)
    table = at.dataframe[1].value
    assert table["annotate k more"].tolist() == list(sample.MORE)
    ra, rb = (rank(candidates, m, ties="stable") for m in ("log.like", "chisq"))
    for measure, r in (("log.like", ra), ("chisq", rb)):
        want = estimates.expected_precision_width(r, 500, list(sample.MORE))
        np.testing.assert_allclose(table[f"precision interval width: {measure}"], want["expected_width"], rtol=1e-12)
        np.testing.assert_allclose(table[f"annotated in the list: {measure}"], want["expected_m"], rtol=1e-12)
    diff = estimates.expected_difference_width(ra, rb, 500, list(sample.MORE))
    np.testing.assert_allclose(table["difference interval width: log.like − chisq"], diff["expected_width"],
                               rtol=1e-12)
    widths = table["precision interval width: log.like"].to_numpy()
    assert np.all(np.diff(widths) < 0)  # each k more narrows the expected interval


@pytest.mark.parametrize("page", ["pages/roc.py", "pages/pairwise.py", "pages/validation.py", "pages/uir.py"])
def test_pages_that_need_every_label_say_so(krenn_sample, page):
    dataset, _ = krenn_sample
    at = app({"dataset": dataset}, page)
    assert [i.value for i in at.info] == ["This page needs every candidate annotated; it cannot use a random sample "
                                          "of annotations. The Precision, Confidence, Threshold and Significance "
                                          "pages estimate from the sample."]
    assert not at.error and not specs(at)


def test_data_page_points_an_empty_label_column_to_the_annotate_page():
    table, _ = hidden_table()
    table["is.colloc"] = ""
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "unannotated.tsv")
    at = app({"dataset": dataset}, "pages/data.py")
    assert any("No candidate is annotated" in i.value and "Annotate page" in i.value for i in at.info)
    links = at.get("page_link")
    assert any(link.proto.page.endswith("annotate.py") or "annotate" in link.proto.page for link in links)
    assert not at.error
    # and the estimating pages say where to annotate, too
    confidence = app({"dataset": dataset}, "pages/confidence.py")
    assert any("No candidate is annotated yet" in i.value for i in confidence.info)


def test_data_page_with_a_partly_annotated_set(krenn_sample):
    dataset, _ = krenn_sample
    at = app({"dataset": dataset}, "pages/data.py")
    assert any("510 of 5,102 candidates are annotated" in plain(i.value) for i in at.info)
    assert {m.label: m.value for m in at.metric}["Annotated"] == "510"
    assert not at.error


def test_reimport_of_an_exported_annotated_set(krenn_sample, tmp_path, monkeypatch):
    """Draw and annotate on the Annotate page, export as TSV and Parquet, import each into a fresh database through
    the page's uploader: the sample's order and every label come back; a file of another data set is refused with
    a message saying what does not match."""
    dataset, candidates = krenn_sample
    table, _ = hidden_table()
    truth = pd.read_csv(KRENN, sep="\t")["is.colloc"].to_numpy(bool)
    at = app({"dataset": dataset, "ann_seed": "5", "ann_size": "12"}, "pages/annotate.py")
    at.button(key="draw_sample").click()
    at.run()
    store = AnnotationStore()
    info = store.sample(sample.db_id(dataset), "s5")
    for position, c in enumerate(info.candidates[:6]):
        store.mark(sample.db_id(dataset), "s5", position, int(c), "ann", "TP" if truth[c] else "FP")
    assert not at.exception
    labels = store.table(sample.db_id(dataset), "s5")
    base = sample.annotated_sample(dataset, "is.colloc", tuple(candidates.measures), ("PP", "verb"), ()).candidates
    export = export_table(base, labels, info, rule="majority", annotator="ann")
    for fmt in ("tsv", "parquet"):
        monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / f"other_{fmt}"))
        DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "krenn_sample.tsv")  # the same id
        page = app({"dataset": dataset}, "pages/annotate.py")
        page.text_input(key="w_annotator_name").set_value("ann").run()
        page.get("file_uploader")  # (present before any sample is drawn)
        page.file_uploader(key="import_annotations").set_value(
            (f"annotated.{fmt}", write_export(export, fmt, info), "application/octet-stream")).run()
        assert not page.exception, [e.value for e in page.exception]
        assert any("Imported sample" in plain(s.value) and "12 candidates; 6 labels: 6 new, 0 there already. The "
                   "sample now holds 6 labels by 1 annotator" in plain(s.value)
                   for s in page.success), [s.value for s in page.success] + [e.value for e in page.error]
        # the same file again: nothing new, and the page says so (issue 30)
        page.file_uploader(key="import_annotations").set_value(
            (f"again.{fmt}", write_export(export, fmt, info), "application/octet-stream")).run()
        assert not any("Imported sample" in plain(s.value) for s in page.success)
        assert any("6 labels, all there already: nothing changed" in plain(i.value) for i in page.info), \
            [plain(i.value) for i in page.info]
        name = page.session_state["view"].ann_sample
        back = AnnotationStore().sample(sample.db_id(dataset), name)
        np.testing.assert_array_equal(back.candidates, info.candidates)
        assert AnnotationStore().table(sample.db_id(dataset), name)["ann"].dropna().to_dict() == \
            labels["ann"].dropna().to_dict()
        assert page.get("progress")[0].proto.text == "6 of 12 annotated by you"
    # a file of another data set (a score changed) is refused, with what differs, as text
    other = export.copy()
    other.loc[0, "t.score"] = other.loc[0, "t.score"] + 1
    page.file_uploader(key="import_annotations").set_value(
        ("other.tsv", write_export(other, "tsv", info), "text/tab-separated-values")).run()
    errors = [plain(e.value) for e in page.error]
    assert any("does not match this data set" in e and "t.score" in e for e in errors), errors
