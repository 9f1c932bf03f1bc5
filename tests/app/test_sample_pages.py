"""The multi-sample pages (Validation, Across samples, Unanimous improvement) and the Data page's samples,
under streamlit.testing.v1.AppTest: empty, without samples, on the shipped 80-sample experiment, from a link,
with widgets set by key. Every number shown is checked against evalcore called directly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import analysis
from evalcore import format as fmt
from evalcore.io import load_candidates
from evalcore.samples import Cut, cuts_for, gamma_for_mean_size
from evalcore.validate import validate
from hostile import plain
from shown_charts import specs
from shown_tables import shown as shown_text

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
EXPERIMENT = REPO / "sample_data" / "experiment_sim.tsv.gz"
PAGES = ["pages/validation.py", "pages/across.py", "pages/uir.py"]
SAMPLE = {"dataset": "sample:experiment_sim"}


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def experiment():
    return load_candidates(EXPERIMENT)


def app(params: dict | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at) -> dict:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("page", PAGES)
def test_without_data_points_to_the_data_page(page):
    at = app(page=page)
    assert any("No data loaded yet" in i.value for i in at.info)


@pytest.mark.parametrize("page", PAGES)
def test_a_single_sample_data_set_says_how_to_get_samples(page):
    at = app({"dataset": "sample:collocations_sim"}, page)
    assert any("no sample column" in i.value and "experiment_sim" in i.value for i in at.info)
    assert not specs(at)


def test_data_page_shows_the_samples(experiment):
    at = app(SAMPLE)
    assert at.selectbox(key="w_sample_column").value == "sample"
    text = " ".join(m.value for m in at.markdown)
    sizes = np.unique(experiment.samples, return_counts=True)[1]
    assert f"**{len(experiment.sample_ids)} samples**" in text
    assert f"N from {sizes.min():,} to {sizes.max():,}" in text
    assert metrics(at)["Candidates N"] == f"{experiment.n_candidates:,}"


def test_choosing_one_sample_feeds_the_single_sample_pages(experiment):
    at = app(SAMPLE)
    s = experiment.sample_ids[6]
    at.selectbox(key="w_sample").set_value(s).run()
    assert at.session_state["view"].sample == s
    mask = experiment.sample_mask(s)
    assert metrics(at)["Candidates N"] == f"{int(mask.sum()):,}"
    at.switch_page("pages/precision.py").run()
    assert not at.exception
    assert any(f"Sample **{s}** of 80" in c.value for c in at.caption)


def test_a_link_to_an_unknown_sample_falls_back_to_all(experiment):
    at = app({**SAMPLE, "sample": "nope"})
    assert any("no sample 'nope'" in plain(w.value) for w in at.warning)
    assert at.session_state["view"].sample is None
    at.switch_page("pages/precision.py").run()
    assert not at.exception and specs(at)


def test_validation_page_shows_evalcores_numbers(experiment):
    at = app(SAMPLE, "pages/validation.py")
    m = experiment.measures[0]
    gamma = gamma_for_mean_size(experiment, m, 100)
    expected = validate(experiment, m, Cut("gamma", gamma))
    shown = metrics(at)
    assert shown["Samples used"] == str(expected.k)
    assert shown["Mean precision π"] == f"{expected.mean_precision:.2%}"
    assert shown["SD observed / predicted"] == f"{expected.sd_ratio:.2f}"
    assert shown["95% intervals missing π"] == f"{expected.misses} of {expected.k}"
    text = " ".join(x.value for x in at.markdown)
    assert f"p = {expected.ks.p_value:.3g}" in text
    charts = specs(at)
    assert len(charts) == 3


def test_validation_page_from_a_link_and_by_key(experiment):
    m = experiment.measures[2]
    at = app({**SAMPLE, "v_m": m, "cut": "n", "cut_n": "50", "level": "0.9"}, "pages/validation.py")
    assert at.selectbox(key="w_v_measure").value == m
    assert at.radio(key="w_cut_mode").value == "n" and at.slider(key="w_cut_n").value == 50
    expected = validate(experiment, m, Cut("n", 50), ties="random", seed=at.session_state["view"].seed,
                        confidence_level=0.9)
    assert metrics(at)["SD observed / predicted"] == f"{expected.sd_ratio:.2f}"
    at.radio(key="w_cut_mode").set_value("gamma").run()
    at.slider(key="w_cut_n").set_value(120).run()
    assert not at.exception
    expected = validate(experiment, m, Cut("gamma", gamma_for_mean_size(experiment, m, 120)), confidence_level=0.9)
    assert metrics(at)["90% intervals missing π"] == f"{expected.misses} of {expected.k}"
    # moving gamma writes it into the view (and so the link)
    key = f"w_cut_gamma_{m}_120"
    options = at.select_slider(key=key).options
    at.select_slider(key=key).set_value(float(options[-20])).run()
    assert at.session_state["view"].cut_gammas == (f"{m}={float(options[-20])!r}",)


def test_across_page_shows_the_tests(experiment):
    a, b = experiment.measures[:2]
    at = app({**SAMPLE, "a": a, "b": b, "cut": "n", "cut_n": "100"}, "pages/across.py")
    seed = at.session_state["view"].seed
    expected = analysis.across_samples(experiment, a, b, Cut("n", 100), Cut("n", 100), ties="random", seed=seed)
    table = shown_text(at.dataframe[0])  # as it reads (tests/shown_tables.py)
    assert list(table["p_value"]) == list(fmt.p_values(expected.tests["p_value"]))
    assert list(table["test"]) == list(expected.tests["test"])
    text = " ".join(x.value for x in at.markdown)
    assert f"{100 * expected.tests['estimate'].iloc[0]:+.2f} points" in text
    at.selectbox(key="w_b").set_value(a).run()
    assert any("two different measures" in i.value for i in at.info)


def test_uir_page_shows_the_ratio(experiment):
    a, b = experiment.measures[0], experiment.measures[3]
    at = app({**SAMPLE, "a": a, "b": b}, "pages/uir.py")
    cuts = cuts_for(experiment, experiment.measures, "gamma", 100)
    expected = analysis.uir_analysis(experiment, list(experiment.measures), cuts, a, b)
    text = " ".join(x.value for x in at.markdown)
    assert f"On precision and recall: {a} is at least as good as {b} on both in **{expected.pair.a_unanimous}**" \
           in text and f"UIR({a}, {b}) = {expected.pair.uir:+.3f}" in text
    assert len(specs(at)) == 2 and not at.multiselect  # (no F-β to choose: it never changed a UIR)
    at.slider(key="w_uir_threshold").set_value(0.5).run()
    assert at.session_state["view"].uir_threshold == 0.5 and not at.exception


@pytest.mark.parametrize("betas", [["1"], ["0.5", "2"], ["3"]])
def test_an_older_uir_link_with_f_betas_opens_with_the_same_numbers_and_says_why(experiment, betas):
    """``uir_beta`` (the F-βs the page once offered to compare besides precision and recall) left the link: a link
    that still gives it opens without error, says why it is not needed, and shows the numbers of the same link
    without it (those the older page showed: F-β never changed a UIR)."""
    def opened(params: dict) -> AppTest:  # as a browser opens a link: the page runs first
        at = AppTest.from_file(APP, default_timeout=120)
        for key, value in params.items():
            at.query_params[key] = value
        at.switch_page("pages/uir.py")
        return at.run()

    a, b = experiment.measures[1], experiment.measures[2]
    plain_link = opened({**SAMPLE, "a": a, "b": b, "uir_t": "0.3"})
    old = opened({**SAMPLE, "a": a, "b": b, "uir_t": "0.3", "uir_beta": betas})
    assert not old.exception and not old.error
    said = [plain(m.value) for m in [*old.warning, *old.info] if "F-β" in plain(m.value)]
    assert len(said) == 1 and "never changed the UIR" in said[0] and "not a setting" not in said[0]
    assert [m.value for m in old.markdown] == [m.value for m in plain_link.markdown]
    assert specs(old) == specs(plain_link) and old.session_state["view"] == plain_link.session_state["view"]
    text = " ".join(m.value for m in old.markdown)
    assert "On precision and recall:" in text and "F1" not in text and "F0.5" not in text


def test_uploading_several_files_makes_one_sample_each():
    files = [(f"run{i}.tsv", ("w\tis_tp\tscore\n" + "".join(f"x{j}\t{'TRUE' if j % 3 == 0 else 'FALSE'}\t{j * (i + 1)}\n"
                                                             for j in range(30))).encode(), "text/tab-separated-values")
             for i in range(3)]
    at = app()
    at.file_uploader[0].set_value(files).run()
    assert not at.exception and not at.error
    assert at.selectbox(key="w_sample_column").value == "sample"
    assert "**3 samples**" in " ".join(m.value for m in at.markdown)
    at.switch_page("pages/validation.py").run()
    assert not at.exception and metrics(at)["Samples used"] == "3"


def test_uploading_files_with_different_columns_says_which():
    at = app()
    at.file_uploader[0].set_value([("a.tsv", b"w\tis_tp\ts\nx\tTRUE\t1\n", "text/plain"),
                                   ("b.tsv", b"w\tis_tp\nx\tTRUE\n", "text/plain")]).run()
    assert not at.exception
    assert any("b.tsv has other columns than a.tsv" in plain(e.value) for e in at.error)
