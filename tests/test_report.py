"""The report ZIP for Krenn's data (Evert 2004): G², t, X², f at n = 100, 500, 1,000, 2,000.

Figures exist and are valid PDF/SVG/PNG (8.5 cm, greyscale in print) with the signature inside; the tables'
numbers equal the core's; the methods text names every setting (change one, the text changes); the
bibliography holds exactly the cited keys; report.tex compiles with pdflatex and bibtex.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from dataclasses import replace
from xml.etree import ElementTree

import numpy as np
import pytest
from PIL import Image

from evalcore.compare import compare_rankings
from evalcore.curves import precision_curve
from evalcore.io import load_candidates
from evalcore.ranking import rank
from evalcore.report import ReportSettings, build_report, report_results
from evalcore.report.build import REPORT_FILES
from evalcore.report.embed import read_signature
from evalcore.report.figures import FIGURES, FORMATS
from evalcore.report.latex import compile_report
from evalcore.report.methods import methods_paragraph
from evalcore.report.signature import file_sha256, parse_signature
from evalcore.report.tables import format_p, pairwise_table, precision_table
from evalcore.stats.multitest import adjust_pvalues

MEASURES = ("log.like", "t.score", "chisq", "freq")
NAMES = {"log.like": "G²", "t.score": "t", "chisq": "X²", "freq": "f"}
SETTINGS = ReportSettings(MEASURES, "is.colloc", sizes=(100, 500, 1000, 2000), pair=("log.like", "chisq"),
                          ties="stable")
LATEX_MISSING = ("pdflatex and bibtex are needed (Debian: apt-get install texlive-latex-base "
                 "texlive-latex-recommended; ./dev test installs them)")


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc", scores=list(MEASURES))


@pytest.fixture(scope="module")
def report(krenn, krenn_tsv):
    return build_report(krenn, SETTINGS, data_sha256=file_sha256(krenn_tsv), names=NAMES)


@pytest.fixture(scope="module")
def archive(report):
    return zipfile.ZipFile(io.BytesIO(report.zip_bytes()))


@pytest.fixture(scope="module")
def data_json(archive):
    return json.loads(archive.read("data.json"))


def test_the_zip_holds_every_part(archive):
    names = set(archive.namelist())
    figures = {f"figures/{look}/{fig}.{fmt}" for look in ("print", "screen") for fig in FIGURES for fmt in FORMATS}
    assert names == set(REPORT_FILES) | figures
    assert archive.testzip() is None


def _pdf_size_cm(data: bytes) -> tuple[float, float]:
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    return float(box.group(1)) / 72 * 2.54, float(box.group(2)) / 72 * 2.54


@pytest.mark.parametrize("look", ["print", "screen"])
@pytest.mark.parametrize("figure", FIGURES)
def test_figures_are_valid_files_with_the_signature(archive, report, look, figure):
    signature = str(report.signature)
    pdf = archive.read(f"figures/{look}/{figure}.pdf")
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF") and b"/Type /Page" in pdf
    width_cm, height_cm = _pdf_size_cm(pdf)
    if look == "print":  # one column of a two-column paper
        # 0.65 of the width for the plot and its axes, and the legend's rows above it (issue 18)
        assert width_cm == pytest.approx(8.5, rel=0.01) and 0.65 * 8.5 * 0.99 < height_cm < 8.0
    else:
        assert width_cm == pytest.approx(900 / 96 * 2.54, rel=0.01)

    svg = archive.read(f"figures/{look}/{figure}.svg")
    root = ElementTree.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("width") == ("321" if look == "print" else "900")

    png = archive.read(f"figures/{look}/{figure}.png")
    image = Image.open(io.BytesIO(png))
    image.load()  # decodes every row: a broken file fails here
    if look == "print":  # 8.5 cm at 600 dpi
        assert image.width == pytest.approx(8.5 / 2.54 * 600, abs=8)
        rgb = np.asarray(image.convert("RGB")).astype(int)
        assert (rgb.max(axis=2) - rgb.min(axis=2)).max() <= 1, "a print figure must be greyscale"
    for fmt, data in (("pdf", pdf), ("svg", svg), ("png", png)):
        assert read_signature(data, fmt) == signature


def test_print_figure_3_draws_grey_triangles_and_distinct_line_styles(report):
    from evalcore.report.figures import report_figures
    fig = report_figures(report.results, NAMES, look="print")["significance"]
    lines = [t for t in fig.data if t.mode == "lines+markers" and not t.name.startswith("every significant n")]
    assert [t.name for t in lines] == ["G²", "X²"]
    assert len({(t.line.dash, t.marker.symbol) for t in lines}) == 2
    triangles = [t for t in fig.data if t.mode == "markers"]
    assert len(triangles) == 1 and triangles[0].marker.symbol == "triangle-up"
    assert triangles[0].marker.color == "#6E6E6E"
    # at most 30 readable triangles, on significant n; the rug marks every significant n, run by run
    sig = report.results.comparison
    n, flag = sig["n"].to_numpy(), sig["significant"].to_numpy()
    marked = np.asarray(triangles[0].x)
    assert 0 < marked.size <= 30 and np.isin(marked, n[flag]).all()
    rug = next(t for t in fig.data if t.name.startswith("every significant n"))
    x = np.asarray(rug.x, dtype=float)
    starts = n[flag & ~np.r_[False, flag[:-1]]]
    ends = n[flag & ~np.r_[flag[1:], False]]
    np.testing.assert_array_equal(x[0::3], starts - 0.5)
    np.testing.assert_array_equal(x[1::3], ends + 0.5)


def test_table_numbers_equal_the_cores(krenn, data_json):
    numbers = data_json["numbers"]
    precision = {(r["measure"], r["n"]): r for r in numbers["precision"]}
    sizes = np.array(SETTINGS.sizes)
    rankings = {m: rank(krenn, m, ties="stable") for m in MEASURES}
    for m in MEASURES:
        core = precision_curve(rankings[m], sizes)
        for row in core.itertuples():
            got = precision[(m, row.n)]
            assert (got["tp"], got["fp"]) == (row.tp, row.fp)
            np.testing.assert_allclose([got["precision"], got["lower"], got["upper"]],
                                       [row.precision, row.lower, row.upper], rtol=1e-12)
    pairs = numbers["pairs"]
    assert [(p["a"], p["b"]) for p in pairs[::4]] == [(a, b) for i, a in enumerate(MEASURES) for b in MEASURES[i + 1:]]
    raw = []
    for p in pairs:
        core = compare_rankings(rankings[p["a"]], rankings[p["b"]], [p["n"]]).iloc[0]
        assert [p[k] for k in ("tp_d1", "fp_d1", "tp_d2", "fp_d2")] == [core.tp_d1, core.fp_d1, core.tp_d2, core.fp_d2]
        assert p["p_value"] == pytest.approx(core.p_value, rel=1e-12)
        raw.append(core.p_value)
    np.testing.assert_allclose([p["p_adjusted"] for p in pairs], adjust_pvalues(raw, "none"), rtol=1e-12)
    assert numbers["data"] == {"candidates": 5102, "true_positives": 566, "baseline": 566 / 5102,
                               "excluded_unlabelled": 0}
    # Evert (2004), §3.3 and Figure 3: G² against X² significant at every n from 100 up to 1,268 (every n tested)
    assert numbers["figure3"]["significant_up_to"] == 1268 and numbers["figure3"]["tested"] == 1901


def test_table_cells_show_the_numbers(archive, data_json):
    markdown = archive.read("tables/precision.md").decode()
    latex = archive.read("tables/precision.tex").decode()
    for r in data_json["numbers"]["precision"]:
        cell = f"{100 * r['precision']:.1f} [{100 * r['lower']:.1f}, {100 * r['upper']:.1f}]"
        assert cell in markdown and cell in latex
    # the paper's example of §3.2 is not in these data, but the baseline is: 566 / 5,102 = 11.09%
    assert "baseline 11.09%" in markdown and r"baseline 11.09\%" in latex
    pairwise = archive.read("tables/pairwise.md").decode()
    rows = [line for line in pairwise.splitlines() if line.startswith("| G² | X² |")]
    # effect sizes as evalcore.stats.effect computes them (R's fisher.test: odds ratio 3.113 [1.406, 7.144] at n = 100)
    # and the minimum detectable difference at 80% power (evalcore.stats.power.detectable_differences, d = 68)
    assert rows[0] == (r"| G² | X² | 100 | 32 / 36 | 15 / 53 | 0.004† | +17.0 \[+6.1, +26.7\] | 3.11 \[1.41, 7.14\] | "
                       r"±16.2 |")
    assert rows[3].startswith("| G² | X² | 2,000 | 9 / 67 | 8 / 68 | 1.000 | +0.1 \\[")


def test_significance_letters_follow_the_tests(report, krenn):
    """A letter after measure X at n names each measure Y with fewer TPs whose difference from X is significant."""
    table = precision_table(report.results, NAMES)
    letters = dict(zip(MEASURES, "abcd"))
    rankings = {m: rank(krenn, m, ties="stable") for m in MEASURES}
    for row, m in zip(table.rows, MEASURES):
        for cell, n in zip(row[2:], SETTINGS.sizes):
            expected = []
            for other in MEASURES:
                if other == m:
                    continue
                core = compare_rankings(rankings[m], rankings[other], [n]).iloc[0]
                if core.significant and core.tp_a > core.tp_b:
                    expected.append(letters[other])
            marks = re.search(r"<sup>(.*)</sup>", cell.md)
            assert (marks.group(1).split(",") if marks else []) == sorted(expected)


def test_format_p():
    assert format_p(0.0123, np.log10(0.0123)).md == "0.012"
    assert format_p(3.2e-5, np.log10(3.2e-5)).tex == r"$3.2 \cdot 10^{-5}$"
    assert format_p(0.0, -412.3).md == "5.0e-413"  # underflow: from log10 p


# -------------------------------------------------------------------------------------- methods text

def _methods(candidates, settings, names=NAMES):
    results = report_results(candidates, settings)
    return methods_paragraph(results, names, signature="SIG", version="0.1.0", data_sha256="0" * 64)


SMALL = replace(SETTINGS, sizes=(100, 300), n_range=(100, 300))  # resamples: set with a resampling test


@pytest.fixture(scope="module")
def base_methods(krenn):
    return _methods(krenn, SMALL)


def test_methods_name_the_data_and_settings(base_methods):
    text = base_methods.paragraph.md
    for phrase in ("four ranking methods (G², t, X² and f)", "5,102 candidates, 566 of which (11.09%)",
                   "column is.colloc", "keep the order of the data file", "n = 100 and 300", "95% Clopper-Pearson",
                   "two-sided Fisher's exact test", "difference regions", "α = 0.05",
                   "without correction for multiple testing", "G² against X² at every n from 100 to 300",
                   "evalcore 0.1.0", "0000000000000000"):
        assert phrase in text, phrase
    assert "log.like" not in text and "chisq" not in text  # display names only


CHANGES = {  # one setting changed -> words that must appear
    "ties random": (dict(ties="random", seed=7), "broken at random (seed 7)"),
    "seed": (dict(ties="random", seed=8), "seed 8"),
    "ties optimistic": (dict(ties="optimistic"), "true positives are ranked first"),
    "ties pessimistic": (dict(ties="pessimistic"), "false positives are ranked first"),
    "test mcnemar": (dict(test="mcnemar"), "exact McNemar test"),
    "test chi2": (dict(test="chi2"), "Pearson's chi-squared test"),
    "test bootstrap": (dict(test="bootstrap", seed=3, resamples=200), "paired bootstrap test over candidates (200 resamples, seed 3)"),
    "test randomization": (dict(test="randomization", seed=3, resamples=200), "approximate randomization (200 resamples, seed 3)"),
    "resamples": (dict(test="bootstrap", seed=3, resamples=300), "300 resamples"),
    "correction holm": (dict(correction="holm"), "Holm's correction"),
    "correction bh": (dict(correction="bh"), "Benjamini-Hochberg correction"),
    "level": (dict(level=0.99), "α = 0.01"),
    "interval wilson": (dict(interval="wilson"), "95% Wilson score"),
    "interval jeffreys": (dict(interval="jeffreys"), "95% Jeffreys"),
    "sizes": (dict(sizes=(100, 200, 300)), "n = 100, 200 and 300"),
    "range": (dict(n_range=(100, 400)), "every n from 100 to 400"),
    "pair": (dict(pair=("t.score", "freq")), "t against f"),
    "measures": (dict(measures=("log.like", "chisq", "freq"), pair=None), "three ranking methods (G², X² and f)"),
    "lower": (dict(lower=("freq",)), "For f, lower scores rank first"),
}


@pytest.mark.parametrize("name", list(CHANGES))
def test_changing_a_setting_changes_the_text(krenn_tsv, krenn, base_methods, name):
    changes, phrase = CHANGES[name]
    settings = replace(SMALL, **changes)
    candidates = krenn
    if settings.lower:
        candidates = load_candidates(krenn_tsv, label="is.colloc", scores=list(MEASURES),
                                     lower_is_better=settings.lower)
    methods = _methods(candidates, settings)
    assert methods.paragraph.md != base_methods.paragraph.md
    assert methods.paragraph.tex != base_methods.paragraph.tex
    assert phrase in methods.paragraph.md
    assert "\\cite{" in methods.paragraph.tex and "[@" in methods.paragraph.md


def test_excluded_rows_and_samples_are_named(tmp_path, krenn):
    path = tmp_path / "small.tsv"
    rows = ["key\tgold\ta\tb\tgroup"] + [f"k{i}\t{'TRUE' if i % 3 == 0 else 'FALSE'}\t{i}\t{(7 * i) % 20}\t"
                                         f"{'s1' if i < 10 else 's2'}" for i in range(20)] + ["kx\t\t1\t2\ts1"]
    path.write_text("\n".join(rows) + "\n")
    settings = ReportSettings(("a", "b"), "gold", sizes=(2, 5), ties="stable", exclude_unlabelled=True,
                              sample_column="group", sample="s2")
    from evalcore.report.commands import load_report_candidates
    text = _methods(load_report_candidates(str(path), settings), settings, names={}).paragraph.md
    assert "1 row without a label was left out" in text
    assert "Only the sample s2 (column group)" in text and "10 candidates" in text


def _bib_keys(bib: str) -> list[str]:
    return re.findall(r"^@\w+\{([^,]+),", bib, flags=re.MULTILINE)


@pytest.mark.parametrize("name", ["base", *CHANGES])
def test_the_bibliography_holds_exactly_the_cited_keys(krenn_tsv, krenn, name):
    changes = CHANGES[name][0] if name != "base" else {}
    settings = replace(SMALL, **changes)
    candidates = krenn if not settings.lower else load_candidates(
        krenn_tsv, label="is.colloc", scores=list(MEASURES), lower_is_better=settings.lower)
    methods = _methods(candidates, settings)
    cited_tex = {k for group in re.findall(r"\\cite\{([^}]*)\}", methods.paragraph.tex) for k in group.split(",")}
    cited_md = set(re.findall(r"@(\w+)", methods.paragraph.md))
    keys = _bib_keys(methods.bibtex())
    assert len(keys) == len(set(keys))
    assert set(keys) == cited_tex == cited_md
    listed = re.findall(r"\[(\w+)\]$", methods.markdown(), flags=re.MULTILINE)
    assert set(listed) == set(keys)


def test_report_files_agree(archive, report):
    signature = archive.read("signature.txt").decode().strip()
    assert signature == str(report.signature) and parse_signature(signature) == report.signature
    assert signature in archive.read("README.md").decode()
    assert f"% signature: {signature}" in archive.read("methods.tex").decode()
    cited = re.findall(r"\\cite\{([^}]*)\}", archive.read("methods.tex").decode())
    assert set(_bib_keys(archive.read("references.bib").decode())) == {k for c in cited for k in c.split(",")}
    link = archive.read("link.txt").decode().strip()
    assert link.startswith("http://localhost:8501/significance?dataset=68e02611")
    assert "a=log.like" in link and "b=chisq" in link and "ties=stable" in link


# ---------------------------------------------------------------------------------------------- LaTeX

def _require_latex():
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.fail(LATEX_MISSING, pytrace=False)


def test_the_latex_document_compiles(archive, tmp_path):
    """report.tex (methods, both booktabs tables, the three print figures as PDF, the bibliography) through
    pdflatex, bibtex, pdflatex, pdflatex: no error, no undefined citation or reference."""
    _require_latex()
    archive.extractall(tmp_path)
    result = compile_report(tmp_path)
    assert result.pdf.read_bytes().startswith(b"%PDF-") and result.pages >= 2
    for name in FIGURES:
        assert f"figures/print/{name}.pdf" in result.log
    assert "booktabs.sty" in result.log and "Overfull" not in result.log
    assert "Warning--" not in result.bibtex_log  # bibtex found every field it needs


def test_latex_survives_hostile_names(krenn, tmp_path):
    """Display names with LaTeX specials, symbols and a character pdflatex has no glyph for still compile."""
    _require_latex()
    names = {"log.like": "a_b & 50% #1 {x} ~^\\", "t.score": "χ² ≥ −1 “t”", "chisq": "X² (中)", "freq": "f|g"}
    report = build_report(krenn, SMALL, data_sha256="0" * 64, names=names, figures=False)
    zipfile.ZipFile(io.BytesIO(report.zip_bytes())).extractall(tmp_path)
    compile_report(tmp_path)
    markdown = (tmp_path / "tables" / "precision.md").read_text()
    assert r"f\|g" in markdown and r"a\_b" in markdown


def test_tables_carry_the_effect_sizes_and_take_more(krenn):
    """The pairs table holds evalcore.stats.effect's numbers; another effect-size function adds its own columns."""
    import pandas as pd

    from evalcore.report.tables import PAIR_COLUMNS, Column
    from evalcore.report.text import plain
    from evalcore.stats.effect import effect_sizes

    results = report_results(krenn, SMALL)
    expected = effect_sizes(results.pairs, SMALL.level, SMALL.difference_interval)
    for column in ("diff", "diff_low", "diff_high", "odds_ratio", "or_low", "or_high"):
        assert np.array_equal(results.pairs[column].to_numpy(), expected[column].to_numpy(), equal_nan=True)
    assert results.pairs.loc[0, "diff"] == pytest.approx((42 - 38) / 100)  # Pi_A - Pi_B = (T_A - T_B) / n

    def difference(pairs: pd.DataFrame, settings) -> pd.DataFrame:
        return pd.DataFrame({"difference": (pairs["tp_a"] - pairs["tp_b"]) / pairs["n"]})

    results = report_results(krenn, SMALL, effects=(("difference", difference),))
    assert "difference" in results.pairs.columns
    column = Column(plain("Δ precision"), lambda row, c: plain(f"{row['difference']:+.3f}"))
    table = pairwise_table(results, NAMES, columns=PAIR_COLUMNS[:6] + (column,))
    assert table.rows[0][-1].md == f"{(42 - 38) / 100:+.3f}" and "Δ precision" in table.markdown()


@pytest.mark.parametrize("test, correction", [("fisher", "none"), ("mcnemar", "holm"), ("chi2", "bh")])
def test_figure_3_numbers_equal_the_significance_pages(krenn, test, correction):
    """The report's Figure 3 tests are the Significance page's (evalcore.analysis.pair_comparison)."""
    from evalcore.analysis import pair_comparison

    settings = replace(SETTINGS, test=test, correction=correction)
    results = report_results(krenn, settings)
    page = pair_comparison(rank(krenn, "log.like", ties="stable"), rank(krenn, "chisq", ties="stable"), (100, 2000),
                           test=test, correction=correction)
    for column in ("n", "p_value", "p_adjusted", "significant"):
        np.testing.assert_array_equal(results.comparison[column].to_numpy(), page.comparison[column].to_numpy())
    assert (results.up_to, results.n_significant) == (page.up_to, page.n_significant)
