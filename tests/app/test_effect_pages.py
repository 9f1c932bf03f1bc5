"""The effect-size panels under AppTest on Krenn's data: the difference panel under Figure 3, the 2x2 view's
effect table, the Pairwise table's effect columns, and what the downloads carry."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import analysis
from evalcore import format as fmt
from evalcore.io import load_candidates
from evalcore.ranking import rank
from shown_charts import specs
from shown_tables import shown, table_with

APP = str(Path(__file__).resolve().parents[2] / "app.py")
KRENN = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def g2_x2():
    cs = load_candidates(KRENN, label="is.colloc")
    return analysis.pair_comparison(rank(cs, "log.like", ties="stable"), rank(cs, "chisq", ties="stable"), (100, 2000))


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _values(array) -> np.ndarray:
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array, dtype=float)


def test_difference_panel_under_figure_3(krenn_id, g2_x2):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "n": "1268"},
             "pages/significance.py")
    charts = specs(at)
    assert len(charts) == 2
    fig = plotly.io.from_json(charts[1])
    names = [t.name for t in fig.data]
    assert "Π_A − Π_B" in names and "95% interval (Newcombe)" in names
    line = next(t for t in fig.data if t.name == "Π_A − Π_B")
    x, y = _values(line.x), _values(line.y)
    expected = g2_x2.comparison.set_index("n")["diff"]
    np.testing.assert_allclose(y, 100 * expected.loc[x.astype(int)].to_numpy(), rtol=1e-6)
    # the significant n are marked on the difference line, up to 1,268 without a gap
    markers = next(t for t in fig.data if t.name and t.name.startswith("significant"))
    marked = {int(v) for v in _values(markers.x)}
    assert 100 in marked and marked <= set(range(100, 2001)) and len(marked) <= 80  # thinned as in Figure 3
    # the MDD beside it: +MDD and -MDD
    mdd = [t for t in fig.data if t.name and "MDD" in t.name]
    assert len(mdd) == 2 and np.all(_values(mdd[0].y) >= 0) and np.all(_values(mdd[1].y) <= 0)
    assert fig.layout.shapes[0].y0 == 0  # the zero line
    captions = " ".join(c.value for c in at.caption)
    assert "observed power" in captions and "excludes 1 at exactly the n" in captions


def test_two_by_two_view_shows_both_intervals(krenn_id, g2_x2):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "n": "1268"},
             "pages/significance.py")
    assert at.slider(key="w_look_n").value == 1268
    assert at.slider(key="w_look_n").proto.format == "%,d"  # shown as 1,268, like every count on the page
    effects = table_with(at, "effect")
    expected = analysis.effect_at(g2_x2, 1268)
    # the table shows the effects as evalcore.format writes them (points, three significant digits, "–")
    assert effects.equals(fmt.page_table("significance", "effect at n", expected))
    # G2 vs X2 at n = 1,268 (Evert 2004, Figure 3: the last n of the significant run): both intervals
    # still exclude no difference, barely
    diff, odds = expected.iloc[0], expected.iloc[2]
    assert 0 < diff["low"] < diff["estimate"] < diff["high"]
    assert 1 < odds["low"] < 1.01 < odds["estimate"]
    at.slider(key="w_look_n").set_value(2000).run()
    effects = table_with(at, "effect")
    expected = analysis.effect_at(g2_x2, 2000)
    assert effects.equals(fmt.page_table("significance", "effect at n", expected))
    assert expected.iloc[0]["low"] < 0 < expected.iloc[0]["high"] and expected.iloc[2]["low"] < 1
    assert effects.iloc[0]["low"].startswith("-") and effects.iloc[0]["high"].startswith("+")


def test_downloads_carry_the_effects(g2_x2):
    table = g2_x2.table()
    for column in ("diff", "diff_low", "diff_high", "odds_ratio", "or_low", "or_high", "mdd_pi", "mdd"):
        assert column in table.columns
    assert table["mdd"].notna().all()  # 1,901 n: the MDD is computed at every one of them


def test_pairwise_table_has_both_effect_sizes(krenn_id):
    measures = ["log.like", "chisq", "t.score"]
    at = app({"dataset": krenn_id, "ties": "stable", "m": measures, "n": "1000"}, "pages/pairwise.py")
    pairs = next(shown(d) for d in at.dataframe if "odds_ratio" in d.value.columns)
    cs = load_candidates(KRENN, label="is.colloc")
    expected = fmt.page_table("pairwise", "pairs",
                              analysis.pairwise({m: rank(cs, m, ties="stable") for m in measures}, 1000).pairs)
    for column in ("diff (points)", "diff_low (points)", "diff_high (points)", "odds_ratio", "or_low", "or_high"):
        assert list(pairs[column]) == list(expected[column])
    assert any("not corrected across the pairs" in c.value for c in at.caption)
