"""One state behind every page (issue 10): defaults ranked by quality, choices carried across pages and through a
link, display names in legends, tables and downloads, an emptied selection that stays empty, the n slider up to N,
the Significance page's "look at n" at the boundary, and the cache keys and reads behind it."""

from __future__ import annotations

import base64
import html
from pathlib import Path

import numpy as np
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import analysis
from evalcore.io import load_candidates, read_table
from evalcore.io.store import DatasetStore
from evalcore.ranking import rank
from evalcore.viewstate import RankingChoice, Roles, from_query, to_query
from hostile import plain
from shown_charts import specs
from shown_tables import table_with

APP = str(Path(__file__).resolve().parents[2] / "app.py")
BEST4 = ["log.like", "Fisher", "t.score", "chisq.corr"]  # Krenn's data by average precision (analysis tests)


pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture(scope="module")
def krenn_bytes():
    path = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"
    assert path.exists(), f"expected the paper's data at {path}"
    return path.read_bytes()


@pytest.fixture()
def krenn_id(krenn_bytes):
    return DatasetStore().put(krenn_bytes, "krenn_ppv.tsv")


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def figure(at: AppTest, i: int = 0):
    return plotly.io.from_json(specs(at)[i])


def legend(fig) -> set[str]:
    """The trace names as a reader sees them (user text reaches Plotly escaped: evalcore.text.plotly_text)."""
    return {html.unescape(t.name) for t in fig.data if t.name}


def texts(at: AppTest) -> str:
    return " ".join(e.value for e in [*at.caption, *at.markdown, *at.info, *at.warning])


def test_pages_start_from_the_measures_ranked_by_average_precision(krenn_id):
    at = app({"dataset": krenn_id}, "pages/precision.py")
    assert at.multiselect(key="w_measures").value == BEST4
    assert at.multiselect(key="w_measures").options[:4] == BEST4
    assert "ordered by average precision" in texts(at)
    legend = [t.name for t in figure(at).data if t.name in BEST4]
    assert legend == BEST4  # the first figure shows the four best, not freq, MI, Dice, z.score
    go(at, "pages/significance.py")
    # the first two that differ enough for Fisher's test to reach alpha (log.like and Fisher differ by at most 4
    # candidates each side from n = 100 to 2,000: issue 30)
    assert (at.selectbox(key="w_a").value, at.selectbox(key="w_b").value) == ("log.like", "t.score")
    go(at, "pages/threshold.py")
    assert at.selectbox(key="w_threshold_measure").value == "log.like"


def test_choices_carry_across_pages_and_through_the_link(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/precision.py")
    at.multiselect(key="w_measures").set_value(["chisq", "t.score", "freq"]).run()
    at.select_slider(key="w_n_range").set_value((200, 1500)).run()
    for page in ("pages/confidence.py", "pages/roc.py", "pages/pairwise.py"):
        go(at, page)
        assert at.multiselect(key="w_measures").value == ["chisq", "t.score", "freq"], page
    go(at, "pages/confidence.py")
    assert at.select_slider(key="w_n_range").value == (200, 1500)
    at.slider(key="w_level").set_value(0.99).run()
    at.selectbox(key="w_interval").set_value("wilson").run()
    go(at, "pages/significance.py")
    at.selectbox(key="w_b").set_value("chisq").run()
    assert at.select_slider(key="w_n_range").value == (200, 1500) and at.slider(key="w_level").value == 0.99
    go(at, "pages/across.py")  # (no samples: the page says so; the choices stay)
    view = at.session_state["view"]
    assert (view.a, view.b, view.n_min, view.n_max, view.level, view.interval) == (
        None, "chisq", 200, 1500, 0.99, "wilson")  # A: shown from the selection, not chosen (issue 18)
    # the link: a fresh session opens the same choices on every page
    link = to_query(view)
    assert from_query(link) == (view, [])
    fresh = app(link, "pages/confidence.py")
    assert fresh.multiselect(key="w_measures").value == ["chisq", "t.score", "freq"]
    assert fresh.select_slider(key="w_n_range").value == (200, 1500)
    assert (fresh.slider(key="w_level").value, fresh.selectbox(key="w_interval").value) == (0.99, "wilson")
    go(fresh, "pages/significance.py")
    # A: the first of the shared selection that is not B
    assert (fresh.selectbox(key="w_a").value, fresh.selectbox(key="w_b").value) == ("t.score", "chisq")


def test_removing_the_last_measure_leaves_it_empty_with_a_prompt(krenn_id):
    at = app({"dataset": krenn_id}, "pages/precision.py")
    at.multiselect(key="w_measures").set_value([]).run()
    assert at.multiselect(key="w_measures").value == [] and at.session_state["view"].measures == ()
    assert any("Pick at least one measure" in i.value for i in at.info) and not specs(at)
    at.run()  # not refilled on the next run, nor on another page, nor through the link
    assert at.multiselect(key="w_measures").value == []
    go(at, "pages/roc.py")
    assert at.multiselect(key="w_measures").value == [] and any("measure" in i.value for i in at.info)
    assert to_query(at.session_state["view"])["m"] == [""]
    fresh = app(to_query(at.session_state["view"]), "pages/precision.py")
    assert fresh.multiselect(key="w_measures").value == []


def test_display_names_in_legends_tables_sentences_and_the_link(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/data.py")
    at.text_input(key="w_name_log.like").set_value("G²").run()
    at.text_input(key="w_name_chisq").set_value("X² <b>").run()  # user text: shown as text
    assert at.session_state["view"].display.mapping == {"log.like": "G²", "chisq": "X² <b>"}
    go(at, "pages/precision.py")
    assert at.multiselect(key="w_measures").value == BEST4  # chosen by column, shown by display name
    names = {t.name for t in figure(at).data}
    assert "G²" in names and "log.like" not in names
    table = next(d.value for d in at.dataframe if "measure" in d.value.columns)  # the values, as downloaded
    assert "G²" in set(table["measure"]) and "log.like" not in set(table["measure"])
    at.multiselect(key="w_measures").set_value(["log.like", "chisq"]).run()
    assert legend(figure(at)) >= {"G²", "X² <b>"}
    assert "X² <b>" not in {t.name for t in figure(at).data}  # not as HTML
    link = to_query(at.session_state["view"])
    # (AppTest cannot run a page again once a selectbox shows labels other than its values: a fresh session)
    sig = app({**link, "a": "log.like", "b": "chisq", "sig_members": "1"}, "pages/significance.py")  # (box open)
    assert sig.selectbox(key="w_b").options[:2] == ["G²", "Fisher"]  # shown by display name
    sentence = table_with(sig, "TPs")  # typeset: the names as text, not HTML
    assert list(sentence[""]) == ["D1: only G²", "D2: only X² <b>"]
    members = next(d.value for d in sig.dataframe if "region" in d.value.columns)
    assert "rank by G²" in members.columns and "G²" in members.columns
    assert set(members["region"]) <= {"D1 (only G²)", "D2 (only X² <b>)"}
    assert "G²" in legend(figure(sig)) and "X² <b>" in legend(figure(sig))
    link = to_query(at.session_state["view"])
    assert link["name"] == ["log.like=G²", "chisq=X² <b>"]
    fresh = app(link, "pages/confidence.py")
    assert "G²" in legend(figure(fresh))


def test_the_n_range_slider_reaches_n(krenn_id):
    at = app({"dataset": krenn_id}, "pages/confidence.py")
    slider = at.select_slider(key="w_n_range")
    assert slider.value == (100, 2000)
    at.select_slider(key="w_n_range").set_value((100, 5102)).run()
    assert at.session_state["view"].n_max == 5102 and not at.exception
    x = figure(at).data[0].x
    x = np.frombuffer(base64.b64decode(x["bdata"]), dtype=x["dtype"]) if isinstance(x, dict) else np.asarray(x)
    assert x.max() == 5102


def test_significance_looks_at_the_boundary_n_not_an_n_from_another_page(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq"}, "pages/precision.py")
    at.number_input(key="w_n_at").set_value(700).run()
    go(at, "pages/significance.py")
    assert at.slider(key="w_look_n").value == 1268  # up_to: G² against X² (Evert 2004, Figure 3)
    go(at, "pages/precision.py")
    assert at.number_input(key="w_n_at").value == 700


def test_the_data_page_says_which_data_set_is_loaded(krenn_id):
    at = app({"dataset": krenn_id}, "pages/precision.py")
    go(at, "pages/data.py")
    assert any("Loaded: krenn_ppv.tsv" in plain(c.value) for c in at.caption)  # (as text, escaped for Markdown)


# ---------------------------------------------------------------- the cached calls


def test_cache_keys_do_not_depend_on_the_order_of_arguments():
    from evalcore.work import WorkEstimate, WorkModel
    from evalcore_app.cached import cache

    calls = []

    @cache(work=lambda *a, **k: WorkEstimate("nothing", WorkModel()), max_entries=4)
    def f(roles: Roles, ranking: RankingChoice, n: int = 3):
        calls.append(n)
        return n

    roles, ranking = Roles(dataset="a" * 64, label="l"), RankingChoice("stable", None)
    assert f(roles, ranking, 3) == f(ranking=ranking, roles=roles) == f(n=3, ranking=ranking, roles=roles) == 3
    assert calls == [3]
    f(Roles(dataset="a" * 64, label="l"), RankingChoice("stable", None), n=4)  # equal objects: the same key
    assert calls == [3, 4]
    f.clear()


def test_the_file_is_parsed_once_and_each_measure_ranked_once(krenn_id, monkeypatch):
    from evalcore_app import cached

    counts = {"read": 0, "load": 0, "rank": 0}

    def counting(name, fn):
        def wrapped(*args, **kwargs):
            counts[name] += 1
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(cached, "read_table", counting("read", read_table))
    monkeypatch.setattr(cached, "load_candidates", counting("load", load_candidates))
    monkeypatch.setattr(cached.analysis, "rankings_for", counting("rank", analysis.rankings_for))
    for fn in (cached.raw_table, cached._labelled, cached.experiment, cached.candidates_for, cached._ranking):
        fn.clear()
    roles = Roles(dataset=krenn_id, label="is.colloc", scores=("log.like", "Fisher", "freq"))
    stable, seeded = RankingChoice("stable", 1), RankingChoice("stable", 2)
    for lower in ((), ("freq",), ("Fisher",), ()):  # a change of direction reads nothing again
        cs = cached.candidates_for(Roles(**{**roles.__dict__, "lower": lower}))
        assert cs.directions["freq"] == ("lower" if "freq" in lower else "higher")
    assert (counts["read"], counts["load"]) == (1, 1)
    data = cached.load(roles)
    cached.rankings(data, ("log.like", "Fisher"), stable)
    cached.rankings(cached.load(roles), ("Fisher", "freq"), seeded)  # a seed does not matter for stable ties
    assert counts["rank"] == 3
    r = cached.ranking_of(data, "freq", stable)
    expected = rank(cached.candidates_for(roles), "freq", ties="stable")
    assert (r.order == expected.order).all()
