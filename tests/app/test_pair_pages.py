"""The Significance page's tests and corrections and the Pairwise page under AppTest (clicks are tested in the
browser: AppTest does not register buttons in this router app)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.names import PAIR_TESTS
from evalcore import analysis
from evalcore import format as fmt
from evalcore.io import load_candidates
from evalcore.ranking import rank
from shown_charts import specs
from shown_tables import shown as shown_text

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SAMPLE = REPO / "sample_data" / "collocations_sim.tsv"
LINK = {"dataset": "sample:collocations_sim", "ties": "stable"}


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def ranked():
    cs = load_candidates(SAMPLE)
    return {m: rank(cs, m, ties="stable") for m in cs.measures}


def app(params, page):
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def text(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_significance_with_another_test_and_a_correction_from_a_link(ranked):
    at = app({**LINK, "a": "log_like", "b": "MI", "test": "chi2", "correction": "bh", "n_max": "1500",
              "sig_counts": "1"},  # the box of counts open
             "pages/significance.py")
    assert at.selectbox(key="w_test").value == "chi2" and at.selectbox(key="w_correction").value == "bh"
    expected = analysis.pair_comparison(ranked["log_like"], ranked["MI"], (100, 1500), test="chi2", correction="bh")
    assert f"significant after the Benjamini-Hochberg (false discovery rate) correction at " \
           f"**{expected.n_significant:,} of 1,401**" in text(at)
    counts = shown_text(at.dataframe[0])  # as it reads (tests/shown_tables.py)
    assert counts.loc[PAIR_TESTS["chi2"],
                      "Benjamini-Hochberg (false discovery rate)"] == fmt.count(expected.counts.loc["chi2", "bh"])
    at.selectbox(key="w_test").set_value("randomization").run()
    assert not at.exception
    assert at.number_input(key="w_resamples").value == 1000
    assert any("no p-value is below 1/1,001" in c.value for c in at.caption)


def test_bad_test_in_a_link_is_reported():
    at = app({**LINK, "test": "ttest"}, "pages/significance.py")
    assert at.session_state["view"].test == "fisher"


def test_pairwise_page(ranked):
    measures = ["log_like", "t_score", "chisq"]
    at = app({**LINK, "m": measures, "n": "800", "correction": "holm"}, "pages/pairwise.py")
    expected = analysis.pairwise({m: ranked[m] for m in measures}, 800, correction="holm")
    assert f"**{int(expected.pairs['significant'].sum())} of 3** pairs" in text(at)
    pairs = shown_text(at.dataframe[1])
    assert list(pairs["p_adjusted"]) == list(fmt.p_values(expected.pairs["p_adjusted"]))
    assert at.selectbox(key="w_focus_pair").options == ["log_like vs t_score", "log_like vs chisq", "t_score vs chisq"]
    at.multiselect(key="w_measures").set_value(["log_like"]).run()
    assert any("at least two measures" in i.value for i in at.info)


def test_roc_page(ranked):
    at = app({**LINK, "m": ["log_like", "chisq"], "kind": "pr", "resamples": "300"}, "pages/roc.py")
    assert at.radio(key="w_curve_kind").value == "pr"
    from evalcore import roc
    expected = roc.roc_table({m: ranked[m] for m in ("log_like", "chisq")}, resamples=300,
                             seed=at.session_state["view"].seed)
    shown = fmt.page_table("roc", "areas", expected)
    assert shown_text(at.dataframe[0])[["auc", "ap", "ap_low"]].equals(shown[["auc", "ap", "ap_low"]])
    for kind in ("roc", "det"):
        at.radio(key="w_curve_kind").set_value(kind).run()
        assert not at.exception and len(specs(at)) == 1
    at.selectbox(key="w_auc_method").set_value("bootstrap").run()
    assert not at.exception
    at2 = app({**LINK, "kind": "lift"}, "pages/roc.py")
    assert at2.session_state["view"].curve_kind == "roc"
