"""The Significance page's choices of issue 11 under AppTest on Krenn's data (G2 vs X2, ties stable): the interval
of the difference (Newcombe / Agresti-Caffo) and the power of the minimum detectable difference.

The reference numbers are the ones ``tests/test_effect.py`` checks the core against: statsmodels 0.15.0's
``confint_proportions_2indep(T_D1, d, T_D2, d, method="newcomb" | "agresti-caffo", compare="diff")`` for
pi_D1 - pi_D2, scaled by d/n for Pi_A - Pi_B (Evert 2004, §3.3: Pi_A - Pi_B = (d/n)(pi_D1 - pi_D2)), computed here.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.io
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep
from streamlit.testing.v1 import AppTest

from evalcore import format as fmt
from evalcore import analysis, names
from evalcore.compare import compare_rankings
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.text import markdown_text, spreadsheet_csv
from shown_charts import specs
from shown_tables import table_with

APP = str(Path(__file__).resolve().parents[2] / "app.py")
KRENN = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"
PAGE = "pages/significance.py"
N = 1268  # the last n of G2 vs X2's significant run (Evert 2004, Figure 3)
SM_METHOD = {"newcombe": "newcomb", "agresti_caffo": "agresti-caffo"}


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def g2_x2():
    cs = load_candidates(KRENN, label="is.colloc")
    return rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable")


def app(params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def statsmodels_difference(ranked, n: int, method: str, level: float = 0.95) -> np.ndarray:
    """Pi_A - Pi_B's interval at n in percentage points, from statsmodels (the unit tests' reference)."""
    row = compare_rankings(*ranked, np.array([n])).iloc[0]
    d = int(row["tp_d1"] + row["fp_d1"])
    low, high = confint_proportions_2indep(int(row["tp_d1"]), d, int(row["tp_d2"]), d, method=SM_METHOD[method],
                                           compare="diff", alpha=1 - level)
    return 100 * d / n * np.clip([low, high], -1, 1)


def effects(at: AppTest) -> pd.DataFrame:
    """The effect table as it reads (tests/shown_tables.py)."""
    return table_with(at, "effect")


def band(at: AppTest, n: int) -> tuple[str, float, float]:
    """The difference panel's band at n: its legend name and the lower and upper bound (points)."""
    fig = plotly.io.from_json(specs(at)[1])

    def values(array):
        if isinstance(array, dict) and "bdata" in array:
            return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).astype(float)
        return np.asarray(array, dtype=float)

    # the band: the lower bound ("... (lower)", no legend), then the upper bound filled down to it
    named = next(t for t in fig.data if t.name and "% interval" in t.name and not t.name.endswith("(lower)"))
    lower = next(t for t in fig.data if t.name == f"{named.name} (lower)")
    assert np.array_equal(values(lower.x), values(named.x))
    x = values(named.x)
    i = int(np.flatnonzero(x == n)[0])
    return named.name, float(values(lower.y)[i]), float(values(named.y)[i])


def test_changing_the_method_shows_the_agresti_caffo_interval(krenn_id, g2_x2):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "sig_n": str(N)})
    assert at.selectbox(key="w_difference_method").value == "newcombe"
    newcombe = statsmodels_difference(g2_x2, N, "newcombe")
    expected = analysis.effect_at(analysis.pair_comparison(*g2_x2, (100, 2000)), N)
    np.testing.assert_allclose(expected.iloc[0][["low", "high"]].to_numpy(dtype=float), newcombe, rtol=1e-9)
    assert effects(at).equals(fmt.page_table("significance", "effect at n", expected))  # shown as the formatter writes
    name, low, high = band(at, N)
    assert name == "95% interval (Newcombe)"
    np.testing.assert_allclose([low, high], newcombe, rtol=1e-6)  # (the figure's payload may be float32)

    at.selectbox(key="w_difference_method").set_value("agresti_caffo").run()
    assert not at.exception
    agresti = statsmodels_difference(g2_x2, N, "agresti_caffo")
    assert not np.allclose(agresti, newcombe, rtol=1e-3)  # the two methods differ here: the check can fail
    shown = effects(at)
    expected_ac = analysis.effect_at(analysis.pair_comparison(*g2_x2, (100, 2000), difference_method="agresti_caffo"), N)
    np.testing.assert_allclose(expected_ac.iloc[0][["low", "high"]].to_numpy(dtype=float), agresti, rtol=1e-9)
    assert shown.equals(fmt.page_table("significance", "effect at n", expected_ac))
    name, low, high = band(at, N)
    assert name == "95% interval (Agresti-Caffo)"
    np.testing.assert_allclose([low, high], agresti, rtol=1e-6)
    assert "(Agresti-Caffo)" in " ".join(m.value for m in at.markdown)
    # the odds ratio's interval does not depend on the method
    assert shown.iloc[2].equals(fmt.page_table("significance", "effect at n", expected).iloc[2])
    assert at.query_params["diff_ci"] == "agresti_caffo"


def test_changing_the_power_changes_the_mdd_and_the_link_keeps_both(krenn_id, g2_x2):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "sig_n": str(N)})
    assert at.selectbox(key="w_power").value == names.DEFAULT_POWER
    at.selectbox(key="w_difference_method").set_value("agresti_caffo").run()
    at.selectbox(key="w_power").set_value(0.95).run()
    assert not at.exception
    expected = analysis.effect_at(analysis.pair_comparison(*g2_x2, (100, 2000), power=0.95,
                                                           difference_method="agresti_caffo"), N)
    shown = effects(at)
    assert shown.iloc[3]["effect"] == "MDD at 95% power (points)"
    assert shown.equals(fmt.page_table("significance", "effect at n", expected))
    at80 = analysis.effect_at(analysis.pair_comparison(*g2_x2, (100, 2000)), N)
    assert expected.iloc[3]["estimate"] > at80.iloc[3]["estimate"]  # more power needs a larger difference
    assert "95% power" in " ".join(m.value for m in at.markdown)
    fig = plotly.io.from_json(specs(at)[1])
    assert any(t.name and "MDD" in t.name and "95%" in t.name for t in fig.data)
    link = {k: at.query_params[k] for k in at.query_params}
    assert link["diff_ci"] == "agresti_caffo" and link["power"] == "0.95"

    # the link opens the same view (a fresh session)
    again = app(link)
    assert at.selectbox(key="w_power").value == again.selectbox(key="w_power").value == 0.95
    assert again.selectbox(key="w_difference_method").value == "agresti_caffo"
    assert effects(again).equals(shown)


def test_a_link_with_a_power_not_offered_is_reported(krenn_id):
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"dataset": krenn_id, "ties": "stable", "power": "0.77", "diff_ci": "wald"}.items():
        at.query_params[key] = value
    at.switch_page(PAGE).run()  # the link's path: the page runs first, as in a browser opening the link
    assert not at.exception
    assert at.selectbox(key="w_power").value == names.DEFAULT_POWER
    assert at.selectbox(key="w_difference_method").value == "newcombe"
    shown = " ".join(w.value for w in at.warning)
    assert markdown_text("Power 0.77 in the link") in shown and markdown_text("difference 'wald'") in shown
    assert "power" not in at.query_params and "diff_ci" not in at.query_params  # the link now says the defaults


def test_the_notes_are_shown_as_text_and_downloads_carry_the_choices(krenn_id, monkeypatch):
    import evalcore_app.present

    sent = {}
    monkeypatch.setattr(evalcore_app.present, "downloads", lambda fig, table, stem, **_: sent.__setitem__(stem, (fig, table)))
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "power": "0.9",
              "diff_ci": "agresti_caffo"})
    captions = "\n\n".join(c.value for c in at.caption)
    # as text: escaped for Markdown, so each note reads as written
    assert markdown_text(names.INTERVAL_AND_TEST_NOTE) in captions
    assert markdown_text(names.OBSERVED_POWER_NOTE) in captions
    assert set(sent) == {"difference", "significance"}
    for stem, (fig, table) in sent.items():
        assert set(table["difference_interval"]) == {"agresti_caffo"} and set(table["mdd_power"]) == {0.9}, stem
        frame = pd.read_csv(io.StringIO(spreadsheet_csv(table)))  # as the CSV button writes it
        assert set(frame["difference_interval"]) == {"agresti_caffo"} and set(frame["mdd_power"]) == {0.9}
    fig, table = sent["difference"]
    assert any(t.name == "95% interval (Agresti-Caffo)" for t in fig.data)
