"""The same file shows the same numbers to everyone, and every page is current (issue 30), under AppTest: one seed for
a data set (two sessions and the command line), the default pair whose lists differ enough for Fisher's test, a word
where a chosen pair's lists are (nearly) the same, any n typed, large sets opening on the paper's range, a page's
link holding what its pages show, and interval bounds that keep their side of zero. What a person sees in the
browser is in tests/browser/test_browser_same_view.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.io
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.cli import main
from evalcore.io.store import DatasetStore
from shown_charts import specs

APP = str(Path(__file__).resolve().parents[2] / "app.py")
KRENN = Path(__file__).resolve().parents[3] / "shared" / "data" / "krenn_ppv.tsv"

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def data_seed(sha256: str) -> int:
    """The seed a data set opens with: the first 32 bits of its SHA-256 (evalcore.ranking.data_seed)."""
    return int(sha256[:8], 16)


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)  # the link's path: the page runs first, as in a browser opening the link
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sentence(at: AppTest) -> str:
    (text,) = [m.value for m in at.markdown if "significant" in m.value and " n from " in m.value]
    return text


def link(at: AppTest) -> str:
    return at.sidebar.code[0].value


# ---------------------------------------------------------------- one seed per data set

def test_two_sessions_and_the_command_line_see_the_seed_of_the_data(krenn_id, tmp_path, capsys):
    # main drew a fresh seed per visit (3960023016, then 3439012460) and on the command line
    first = app({"dataset": krenn_id}, "pages/significance.py")
    second = app({"dataset": krenn_id}, "pages/significance.py")
    seed = first.session_state["view"].seed
    assert seed == second.session_state["view"].seed == data_seed(krenn_id)
    assert first.session_state["view"].ties == "random"  # (the default: the paper's jitter)
    assert f"seed={seed}" in link(first) and link(first) == link(second)  # in the link ...
    assert f"seed {seed}" in first.sidebar.text[0].value  # ... and in the signature
    assert sentence(first) == sentence(second)
    significant = int(re.search(r"at \*\*([\d,]+) of", sentence(first)).group(1).replace(",", ""))

    out = tmp_path / "fisher.csv"  # the command line on the same file, without --seed
    a, b = first.selectbox(key="w_a").value, first.selectbox(key="w_b").value
    assert main(["compare", str(KRENN), "--measure", a, "--measure", b, "--n", "100:2000", "--out", str(out)]) == 0
    assert f"with seed {seed} (pass" in capsys.readouterr().err
    assert int(pd.read_csv(out)["significant"].sum()) == significant


def test_a_seed_in_a_link_is_kept_and_another_can_be_chosen(krenn_id):
    at = app({"dataset": krenn_id, "seed": "7"}, "pages/data.py")  # a link made before: its own seed
    assert at.session_state["view"].seed == 7
    at.number_input(key="w_seed").set_value(11).run()
    assert at.session_state["view"].seed == 11 and "seed=11" in link(at)
    fresh = app({"dataset": krenn_id}, "pages/data.py")
    assert fresh.number_input(key="w_seed").value == data_seed(krenn_id)
    assert any("The data's own seed" in c.value for c in fresh.caption)


# ---------------------------------------------------------------- the default pair

def test_significance_opens_on_a_pair_whose_lists_differ_enough(krenn_id):
    # main opened on log.like against Fisher: D1 and D2 hold at most 4 candidates each from n = 100 to 2,000, and the
    # page read "significant at 0 of 1,901 n"
    at = app({"dataset": krenn_id}, "pages/significance.py")
    assert (at.selectbox(key="w_a").value, at.selectbox(key="w_b").value) == ("log.like", "t.score")
    assert (at.session_state["view"].a, at.session_state["view"].b) == (None, None)  # shown, not written
    assert not [i for i in at.info if "nearly the same" in i.value]
    assert "|pair log.like,t.score|" in at.sidebar.text[0].value  # the report's pair is the page's


def test_a_pair_whose_lists_nearly_coincide_is_said_in_words(krenn_id):
    at = app({"dataset": krenn_id, "a": "log.like", "b": "Fisher"}, "pages/significance.py")
    (note,) = [i.value for i in at.info if "nearly the same" in i.value]
    assert "at most 4 candidates" in note and "cannot give a p-value below alpha = 0.05" in note
    assert (at.selectbox(key="w_a").value, at.selectbox(key="w_b").value) == ("log.like", "Fisher")  # as chosen


def test_confidence_says_which_bands_lie_on_each_other(krenn_id):
    # main drew log.like's and Fisher's bands on each other without a word
    at = app({"dataset": krenn_id}, "pages/confidence.py")
    notes = [c.value for c in at.caption if "lie on each other" in c.value]
    assert len(notes) == 1 and "log\\.like and Fisher are nearly the same" in notes[0]
    assert "at most 4 candidates" in notes[0]


def test_identical_lists_are_said_in_words(store_root):
    rng = np.random.default_rng(1)
    score = rng.normal(size=500)
    table = pd.DataFrame({"word": [f"w{i}" for i in range(500)], "is_tp": rng.random(500) < 0.3, "s": score,
                          "twice": 2 * score, "other": rng.normal(size=500)})
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "same.tsv")
    at = app({"dataset": dataset, "a": "s", "b": "twice"}, "pages/significance.py")
    assert any("are the same at every n from 100 to 500" in i.value for i in at.info)
    fresh = app({"dataset": dataset, "a": "s"}, "pages/significance.py")  # B left to the default: not "twice"
    assert fresh.selectbox(key="w_b").value == "other"


# ---------------------------------------------------------------- every n, on sets of every size

def test_any_n_can_be_typed(krenn_id):
    at = app({"dataset": krenn_id, "ties": "stable"}, "pages/precision.py")
    at.number_input(key="w_n_min").set_value(333).run()
    at.number_input(key="w_n_max").set_value(1268).run()
    assert (at.session_state["view"].n_min, at.session_state["view"].n_max) == (333, 1268)
    assert at.select_slider(key="w_n_range").value == (333, 1268)
    x = plotly.io.from_json(specs(at)[0]).data[0].x
    x = np.asarray(x if not isinstance(x, dict) else np.frombuffer(__import__("base64").b64decode(x["bdata"]),
                                                                     dtype=x["dtype"]))
    assert (x.min(), x.max()) == (333, 1268)
    fresh = app({"dataset": krenn_id, "ties": "stable", "n_min": "333", "n_max": "1268"}, "pages/significance.py")
    assert not fresh.warning and fresh.select_slider(key="w_n_range").value == (333, 1268)


def test_a_large_set_opens_on_the_papers_range(store_root):
    # a set of 150,000 candidates: main's slider moved in steps of 200 and opened on 200 to 2,000
    rng = np.random.default_rng(2)
    n = 150_000
    tp = rng.random(n) < 0.1
    table = pd.DataFrame({"is_tp": tp, "a": np.round(rng.normal(tp, 1.0), 3), "b": np.round(rng.normal(tp, 2.0), 3)})
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "large.tsv")
    at = app({"dataset": dataset, "ties": "stable"}, "pages/confidence.py")
    slider = at.select_slider(key="w_n_range")
    assert slider.value == (100, 2000) and {"1", "10", "100", "150", "2,000", f"{n:,}"} <= set(slider.options)


# ---------------------------------------------------------------- links and numbers

def test_a_pages_link_holds_only_what_its_pages_show(krenn_id):
    # main's candidate-set link (and the report's link.txt) carried the Systems page's files
    refs, hyp = "a" * 64, "base=" + "b" * 64
    at = app({"dataset": krenn_id, "ties": "stable", "sys_ref": refs, "sys_hyp": hyp}, "pages/precision.py")
    for page in ("pages/precision.py", "pages/significance.py", "pages/data.py"):
        go(at, page)
        assert "sys_ref" not in link(at) and "sys_hyp" not in link(at) and "sys_ref" not in at.query_params
        assert f"dataset={krenn_id}" in link(at)
    go(at, "pages/systems.py")
    assert "sys_ref" in link(at) and "dataset" not in link(at) and "ties" not in at.query_params
    assert at.session_state["view"].dataset == krenn_id  # the session keeps both
    go(at, "pages/precision.py")
    assert f"dataset={krenn_id}" in link(at) and "sys_hyp" not in link(at)


def test_a_bound_that_rounds_to_zero_keeps_its_side(krenn_id):
    # main's Significance at n = 1,269 read "+1.10 [-0.00, +2.19]"
    at = app({"dataset": krenn_id, "ties": "stable", "a": "log.like", "b": "chisq", "sig_n": "1269"},
             "pages/significance.py")
    shown = " ".join(m.value for m in at.markdown).replace("\\", "")  # (the cells are escaped Markdown)
    assert "| +1.10 | -0.0004 | +2.19 |" in shown and "-0.00 |" not in shown
