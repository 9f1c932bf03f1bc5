"""What the pages show is what the link, the signature and the report record (issue 18, items 2 and 7), under AppTest.

- The Pairwise page and the sample-mode Significance page use the chosen interval of the difference (they always
  used Newcombe's), the sample page the chosen correction, and it says plainly which test it uses;
- a sample-estimate page says in words why a number cannot be estimated ("no annotated candidate in D1 at n = 10"),
  never "nan" or "None";
- the sidebar's signature names the difference interval and the power (and, with a sample, the sample design), and
  ``evalcore reproduce`` reproduces a full-data one from the data file.

The sample is the one of tests/app/test_sample_estimates_pages.py: Krenn's data with is.colloc hidden except a
seeded 10%.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from evalcore import estimates
from evalcore import format as fmt
from evalcore.cli import main
from evalcore.io import load_candidates
from evalcore.io.store import DatasetStore
from evalcore.ranking import rank
from evalcore.report.signature import parse_signature
from evalcore.stats.effect import effect_sizes
from tests.app.test_sample_estimates_pages import hidden_table
from evalcore.io import load_annotated_sample

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
SAMPLE = REPO / "sample_data" / "collocations_sim.tsv"

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_text(at: AppTest) -> list[str]:
    """Every text, markdown, caption, info, warning and metric value on the page."""
    out = [t.value for t in at.text] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    out += [i.value for i in at.info] + [w.value for w in at.warning] + [m.value for m in at.metric]
    return out


@pytest.fixture()
def krenn_sample():
    table, _ = hidden_table()
    dataset = DatasetStore().put(table.to_csv(sep="\t", index=False).encode(), "krenn_sample.tsv")
    return dataset, load_annotated_sample(table, name="krenn_sample.tsv").candidates


def test_sample_significance_says_why_instead_of_nan(krenn_sample):
    """freq against MI at n = 10: D1 holds no annotated candidate, so the difference and the odds ratio cannot be
    estimated (on today's main: 'nan% [nan%, nan%] (Newcombe)')."""
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "ties": "stable", "label": "is.colloc", "a": "freq", "b": "MI", "n_min": "10",
              "n_max": "500", "sig_n": "10"}, "pages/significance.py")
    texts = shown_text(at)
    for text in texts:
        assert not re.search(r"\b(nan|NaN|None)\b", text), text
    assert any("cannot be estimated: no annotated candidate in D1 at n = 10" in t for t in texts), texts
    grid = at.dataframe[1].value
    assert "why" in grid.columns
    where = grid[(grid["m_d1"] == 0) | (grid["m_d2"] == 0)]
    assert len(where) and all(w.startswith("no annotated candidate") for w in where["why"])


def test_sample_significance_uses_the_chosen_interval_correction_and_names_the_test(krenn_sample):
    dataset, candidates = krenn_sample
    at = app({"dataset": dataset, "ties": "stable", "label": "is.colloc", "a": "log.like", "b": "chisq",
              "n_min": "10", "n_max": "2000", "sig_n": "500", "min_ann": "10", "diff_ci": "agresti_caffo",
              "correction": "holm", "test": "mcnemar"}, "pages/significance.py")
    ra, rb = (rank(candidates, m, ties="stable") for m in ("log.like", "chisq"))
    want = estimates.tested_comparison(ra, rb, np.arange(10, 2001), correction="holm", min_annotated=10,
                                       difference_method="agresti_caffo")
    summary = next(m.value for m in at.markdown if "Fisher's exact test" in m.value)
    tested = want[want["enough"]]
    assert "after the Holm" in summary and f"**{int(tested['significant'].sum()):,} of {len(tested):,}**" in summary
    assert any("the chosen test" in i.value and "McNemar" in i.value for i in at.info)
    row = want[want["n"] == 500].iloc[0]
    k1, m1, k2, m2 = (int(row[c]) for c in ("k_d1", "m_d1", "k_d2", "m_d2"))
    low, high = estimates.difference_interval(k1, m1, k2, m2, 0.95, "agresti_caffo")
    newcombe = estimates.difference_interval(k1, m1, k2, m2, 0.95, "newcombe")
    assert fmt.points(low) != fmt.points(newcombe[0])
    assert any(f"[{fmt.points(low)}, {fmt.points(high)}] points (Agresti-Caffo" in t for t in shown_text(at))
    grid = at.dataframe[1].value.merge(want, on="n", suffixes=("", "_want"))
    np.testing.assert_allclose(grid["difference_low"], grid["difference_low_want"], rtol=1e-12)
    np.testing.assert_allclose(grid["p_adjusted"], grid["p_adjusted_want"], rtol=1e-12)


def _points(value, expected: float) -> bool:
    """A table cell as shown (text in points, or a number in points or as a proportion) equals ``expected``."""
    if isinstance(value, str):
        return value == fmt.points(expected)
    return bool(np.isclose(float(value), expected, rtol=1e-9) or np.isclose(float(value), 100 * expected, rtol=1e-9))


def test_pairwise_uses_the_chosen_difference_interval():
    at = app({"dataset": "sample:collocations_sim", "ties": "stable", "m": ["log_like", "MI", "t_score"],
              "pw_n": "300", "diff_ci": "agresti_caffo"}, "pages/pairwise.py")
    cs = load_candidates(SAMPLE)
    ranked = {m: rank(cs, m, ties="stable") for m in cs.measures}
    from evalcore.analysis import pairwise

    result = pairwise({m: ranked[m] for m in ("log_like", "MI", "t_score")}, 300)
    caffo = effect_sizes(result.pairs, 0.95, "agresti_caffo")
    newcombe = effect_sizes(result.pairs, 0.95, "newcombe")
    table = next(d.value for d in at.dataframe if {"diff_low", "diff_low (points)"} & set(d.value.columns))
    column = "diff_low" if "diff_low" in table.columns else "diff_low (points)"
    assert not np.allclose(caffo["diff_low"], newcombe["diff_low"])
    for shown, want in zip(table[column], caffo["diff_low"]):
        assert _points(shown, want), (shown, want)
    assert any("Agresti-Caffo" in c.value for c in at.caption)


def _with_report_numbers(signature):
    """The sidebar's signature (settings, no numbers) with the digest of its report's numbers, as the ZIP has it."""
    from evalcore.report.commands import load_report_candidates
    from evalcore.report.results import report_results, results_digest
    from evalcore.report.settings import settings_from_signature

    assert signature.numbers is None
    settings = settings_from_signature(signature.settings)
    return signature.with_numbers(results_digest(report_results(load_report_candidates(str(SAMPLE), settings),
                                                                settings)))


def _signature(at: AppTest) -> str:
    (text,) = [t.value for t in at.sidebar.text]
    return text


def test_the_signature_names_the_difference_interval_and_the_power(tmp_path):
    at = app({"dataset": "sample:collocations_sim", "ties": "stable", "a": "log_like", "b": "MI",
              "diff_ci": "agresti_caffo", "power": "0.9"}, "pages/significance.py")
    signature = _with_report_numbers(parse_signature(_signature(at)))
    assert signature.get("diff-ci") == "agresti_caffo" and signature.get("power") == "0.9"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["reproduce", str(signature), str(SAMPLE)])
    assert code == 0, out.getvalue() + err.getvalue()
    other = app({"dataset": "sample:collocations_sim", "ties": "stable", "a": "log_like", "b": "MI"},
                "pages/significance.py")
    other = _with_report_numbers(parse_signature(_signature(other)))
    assert other.numbers != signature.numbers  # the setting changes the numbers


def test_the_signature_of_a_sample_names_its_design(krenn_sample):
    dataset, _ = krenn_sample
    at = app({"dataset": dataset, "ties": "stable", "label": "is.colloc", "a": "log.like", "b": "chisq",
              "n_min": "10", "n_max": "2000", "min_ann": "5", "s_interval": "clopper_pearson"}, "pages/confidence.py")
    signature = parse_signature(_signature(at))
    assert signature.get("annotated-sample") == "yes" and signature.get("sample-interval") == "clopper_pearson"
    assert signature.get("min-annotated") == "5" and signature.get("test") == "fisher"


def test_sample_tables_write_missing_numbers_as_a_dash():
    """The Styler the sample pages give st.dataframe (its display values are what the page shows): no 'nan', no
    'None' where an estimate or a p-value is missing, percentages and p-values written as everywhere else."""
    import pandas as pd

    from evalcore_app.sample_pages import _greyed

    table = pd.DataFrame({"n": [10, 20], "m_d1": [0, 12], "estimate_d1": [np.nan, 0.25], "difference": [np.nan, -0.1],
                          "p_value": [np.nan, 0.0123], "p_adjusted": [np.nan, 0.0246], "enough": [False, True],
                          "why": ["no annotated candidate in D1 at n = 10", ""]})
    html = _greyed(table).to_html()
    assert not re.search(r">\s*(nan|NaN|None)\s*<", html), html
    assert ">25.00%<" in html and ">-10.00<" in html and ">0.0123<" in html and ">–<" in html


def test_the_sidebar_report_of_a_sample(krenn_sample, monkeypatch):
    """The sidebar's report ZIP of a partly annotated set (evalcore_app/report.py's sample branch; figures left out here, the
    print figures are built from the same results): estimated precision with m and k, the design in the methods
    text, the signature the sidebar shows."""
    import functools
    import json
    import zipfile

    from evalcore.report import build_report
    from evalcore.report.build import report_signature
    from evalcore.report.figures import report_figures
    from evalcore.viewstate import ViewSettings
    from evalcore_app import report, sample

    dataset, _ = krenn_sample
    v = ViewSettings.of(dataset=dataset, ties="stable", label="is.colloc", a="log.like", b="chisq")
    candidates, numbers = report.sample_results(v, sample.labels_key(v))
    sha = report.data_sha256(dataset)
    monkeypatch.setattr(report, "build_report", functools.partial(build_report, figures=False))
    archive = zipfile.ZipFile(io.BytesIO(report._zip(v.data, numbers.settings, v.ranking, {}, sha, "link", v)))
    assert archive.read("signature.txt").decode().strip() == str(report_signature(numbers, sha))
    methods = archive.read("methods.md").decode()
    assert "of which 510 were annotated" in methods and "[@evert2005]" in methods
    data = json.loads(archive.read("data.json"))
    assert data["numbers"]["data"]["annotated"] == 510 and data["settings"]["design"]["min_annotated"] == 10
    assert "(k/m)" in archive.read("tables/precision.md").decode()
    figures = report_figures(numbers, look="print")
    triangles = [t for t in figures["significance"].data if t.mode == "markers"]
    assert triangles and set(np.asarray(triangles[0].x)) <= set(numbers.comparison.loc[
        numbers.comparison["significant"], "n"])


def test_the_threshold_download_names_its_cut_off_and_reproduces(monkeypatch):
    """The Threshold page's table (the candidates next to the cut-off) is signed with the measure it shows, its
    display name and the list size of the cut-off (``at``): the signature the page would hand out reproduces from
    the data file (before, it named neither the measure nor the cut-off, and reproduce could not recompute it)."""
    from evalcore_app import report

    made = []

    def downloads(fig, table, stem, image=None, shows=(), beta=1.0, at=None, options=None):
        current, _ = report.current()
        made.append((stem, at, report.download_signature(current, table, stem, shows, beta, at, options)))

    monkeypatch.setattr(report, "downloads", downloads)
    at = app({"dataset": "sample:collocations_sim", "ties": "stable", "t_measure": "log_like", "t_mode": "n",
              "t_n": "137", "name": "log_like=G2"}, "pages/threshold.py")
    stem, size, signature = next(m for m in made if m[0] == "threshold")
    assert size == 137 and any(m.value == "137" for m in at.metric)
    assert "|part threshold|shows log_like|name log_like=G2|at 137|" in signature
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["reproduce", signature, str(SAMPLE)])
    assert code == 0 and "numbers: match" in out.getvalue(), out.getvalue()


def test_the_pairwise_download_names_its_measures_and_n_and_reproduces(monkeypatch):
    """The Pairwise page's download is signed with the measures it shows and its n (``at``), and reproduces."""
    from evalcore_app import report

    made = []

    def downloads(fig, table, stem, image=None, shows=(), beta=1.0, at=None, options=None):
        current, _ = report.current()
        made.append((stem, report.download_signature(current, table, stem, shows, beta, at, options)))

    monkeypatch.setattr(report, "downloads", downloads)
    app({"dataset": "sample:collocations_sim", "ties": "stable", "m": ["log_like", "MI", "t_score"], "pw_n": "300",
         "correction": "holm", "name": "MI=PMI"}, "pages/pairwise.py")
    signature = next(sig for stem, sig in made if stem == "pairwise")
    assert "|corr holm|" in signature and "|part pairwise|shows log_like,MI,t_score|name MI=PMI|at 300|" in signature
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["reproduce", signature, str(SAMPLE)])
    assert code == 0 and "numbers: match" in out.getvalue(), out.getvalue()
