"""The downloads of the ROC, Validation, Across samples and UIR pages name every setting that changes their numbers,
under AppTest: each setting is changed on the page as a user changes it (its widget, or the link for the seed and
the sample), the download's signature changes in the field that names it, and `evalcore reproduce` recomputes the
downloaded table from the data file and the signature alone. The table is the one the page hands its download
buttons; its CSV (as the button writes it, evalcore.text.spreadsheet_csv) read back has the signature's digest, and
with one number changed it has another, which reproduce then refuses.

Before, these signatures named none of the pages' own settings (the ROC page's AUC interval, bootstrap and its seed;
the cut-offs; the measures shown; the F-betas and threshold of UIR), named the report's one sample where the pages
read every sample, and reproduce could not recompute any of the four tables; nor a Threshold table of a measure the
report does not compare (its column was not read).
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.cli import main
from evalcore.report.parts import table_digest
from evalcore.report.signature import parse_signature
from evalcore.text import spreadsheet_csv

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
COLLOCATIONS = REPO / "sample_data" / "collocations_sim.tsv"
EXPERIMENT = REPO / "sample_data" / "experiment_sim.tsv.gz"

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


@pytest.fixture()
def handed_out(monkeypatch):
    """stem -> (table, signature) of every download the last page run handed out, signed as the buttons sign it."""
    from evalcore_app import report

    made = {}

    def downloads(fig, table, stem, image=None, shows=(), beta=1.0, at=None, options=None):
        current, why = report.current()
        assert current is not None, why
        made[stem] = (table, report.download_signature(current, table, stem, shows, beta, at, options))

    monkeypatch.setattr(report, "downloads", downloads)
    return made


def app(params: dict, page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in params.items():
        at.query_params[key] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def fields(signature: str) -> dict:
    return dict(parse_signature(signature).settings)


def reproduce(signature: str, data: Path) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(out):
        code = main(["reproduce", signature, str(data)])
    return code, out.getvalue()


def first_number(table: pd.DataFrame) -> tuple[int, str]:
    """Where the first finite number of a table is (row, column)."""
    for column in table.columns:
        values = pd.to_numeric(table[column], errors="coerce")
        if pd.api.types.is_numeric_dtype(table[column]) and values.notna().any():
            return int(values.notna().to_numpy().argmax()), column
    raise AssertionError(f"no number in {list(table.columns)}")


def check_download(made: dict, stem: str, data: Path) -> str:
    """The download ``stem``: its CSV read back has its signature's digest, and reproduce recomputes it from the
    data file; a CSV with one number changed has another digest, and a signature carrying that digest does not
    reproduce. Returns the signature."""
    table, signature = made[stem]
    numbers = parse_signature(signature).numbers
    csv = pd.read_csv(io.StringIO(spreadsheet_csv(table)))
    assert table_digest(stem, csv) == numbers
    code, out = reproduce(signature, data)
    assert code == 0 and "numbers: match" in out, (signature, out)
    row, column = first_number(csv)
    altered = csv.copy()
    altered.loc[row, column] = altered.loc[row, column] + 1
    other = table_digest(stem, altered)
    assert other != numbers
    code, out = reproduce(signature.replace(f"|numbers {numbers}", f"|numbers {other}"), data)
    assert code == 1 and "DO NOT match" in out, out
    return signature


#: The report's settings that follow a page's choice: the measures and the pair the pages open on, which depend on
#: the selection and the level (evalcore_app.report.report_settings).
FOLLOWING = {"measures", "pair"}


def changed(before: str, after: str) -> set[str]:
    """The settings two signatures differ in (besides the digest)."""
    a, b = fields(before), fields(after)
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


def names_exactly(before: str, after: str, keys: set[str]) -> bool:
    """``after`` differs from ``before`` in each of ``keys`` and in nothing else but the settings that follow."""
    return keys <= changed(before, after) <= keys | FOLLOWING


def walk_steps(at, handed_out, stem: str, experiment, signature: str, steps) -> str:
    """Each step changes one setting on the page; the download's signature then differs in exactly its fields and
    reproduces (check_download). Returns the last signature."""
    for change, keys in steps:
        change()
        rerun(at)
        after = check_download(handed_out, stem, experiment)
        assert names_exactly(signature, after, keys), (keys, signature, after)
        signature = after
    return signature


def test_the_roc_download_names_its_auc_interval_bootstrap_seed_measures_and_level(handed_out):
    base = {"dataset": "sample:collocations_sim", "ties": "stable", "resamples": "100", "name": "MI=PMI"}
    at = app(base, "pages/roc.py")
    signature = check_download(handed_out, "roc_curves", COLLOCATIONS)
    seed = at.session_state["view"].seed
    shown = fields(signature)
    assert shown["auc-interval"] == ("delong",) and shown["bootstrap"] == ("100",)
    assert shown["bootstrap-seed"] == (str(seed),) and "seed" not in shown  # (stable ties: the report names none)
    assert len(shown["shows"]) == 4 and shown["name"] == ("MI=PMI",) and "MI" in shown["shows"]
    steps = [
        (lambda: at.selectbox(key="w_auc_method").set_value("bootstrap"), "roc_curves", {"auc-interval"}),
        (lambda: at.number_input(key="w_resamples").set_value(200), "roc_curves", {"bootstrap"}),
        (lambda: at.slider(key="w_level").set_value(0.9), "roc_curves", {"level"}),
        (lambda: at.multiselect(key="w_measures").set_value(["MI", "t_score"]), "roc_curves", {"shows"}),
        (lambda: at.radio(key="w_curve_kind").set_value("pr"), "pr_curves", {"part"}),
    ]
    for change, stem, keys in steps:
        change()
        rerun(at)
        after = check_download(handed_out, stem, COLLOCATIONS)
        assert names_exactly(signature, after, keys), (keys, signature, after)
        signature = after
    assert fields(signature)["auc-interval"] == ("bootstrap",) and fields(signature)["bootstrap"] == ("200",)
    # the seed (chosen on the Data page: from a link here)
    app({**base, "seed": str(seed + 1)}, "pages/roc.py")
    assert fields(check_download(handed_out, "roc_curves", COLLOCATIONS))["bootstrap-seed"] == (str(seed + 1),)


def test_the_validation_download_names_its_measure_and_cut_of_every_sample(handed_out):
    """With one sample chosen for the single-sample pages (the report's ``sample``), the Validation page still reads
    every sample, and its download's signature names none."""
    base = {"dataset": "sample:experiment_sim", "sample": "s07", "v_m": "sharp", "name": "good=Good"}
    at = app(base, "pages/validation.py")
    signature = check_download(handed_out, "validation", EXPERIMENT)
    shown = fields(signature)
    assert shown["shows"] == ("sharp",) and shown["cut"][0].startswith("gamma:") and "sample" not in shown
    assert shown["sample-column"] == ("sample",) and shown["ties"] == ("random",) and "name" not in shown
    steps = [
        (lambda: at.selectbox(key="w_v_measure").set_value("good_twin"), {"shows", "cut"}),
        (lambda: at.slider(key="w_cut_n").set_value(120), {"cut"}),
        (lambda: at.select_slider(key="w_cut_gamma_good_twin_120").set_value(
            float(at.select_slider(key="w_cut_gamma_good_twin_120").options[-20])), {"cut"}),
        (lambda: at.radio(key="w_cut_mode").set_value("n"), {"cut"}),
        (lambda: at.slider(key="w_level").set_value(0.9), {"level"}),
        (lambda: at.selectbox(key="w_v_measure").set_value("noisy"), {"shows"}),
    ]
    signature = walk_steps(at, handed_out, "validation", EXPERIMENT, signature, steps)
    assert fields(signature)["cut"] == ("n:120",) and fields(signature)["shows"] == ("noisy",)
    # a measure shown by its display name (from a link: AppTest cannot rerun a select box showing one)
    app({**base, "v_m": "good"}, "pages/validation.py")
    table, signature = handed_out["validation"]
    assert fields(check_download(handed_out, "validation", EXPERIMENT))["name"] == ("good=Good",)
    assert set(table["measure"]) == {"Good"}


def test_the_across_samples_download_names_its_pair_and_cuts(handed_out):
    at = app({"dataset": "sample:experiment_sim", "a": "good", "b": "noisy", "cut": "n", "cut_n": "50"},
             "pages/across.py")
    signature = check_download(handed_out, "across_samples", EXPERIMENT)
    assert fields(signature)["shows"] == ("good", "noisy") and fields(signature)["cut"] == ("n:50", "n:50")
    steps = [
        (lambda: at.selectbox(key="w_b").set_value("sharp"), {"shows"}),
        (lambda: at.slider(key="w_cut_n").set_value(60), {"cut"}),
        (lambda: at.radio(key="w_cut_mode").set_value("gamma"), {"cut"}),
        (lambda: at.select_slider(key="w_cut_gamma_sharp_60").set_value(
            float(at.select_slider(key="w_cut_gamma_sharp_60").options[-30])), {"cut"}),
        (lambda: at.slider(key="w_level").set_value(0.9), {"level"}),  # (the figure's interval; the table's none)
    ]
    signature = walk_steps(at, handed_out, "across_samples", EXPERIMENT, signature, steps)
    cuts = fields(signature)["cut"]
    assert fields(signature)["shows"] == ("good", "sharp") and all(c.startswith("gamma:") for c in cuts)


def test_the_uir_download_names_every_measure_and_cut_and_the_threshold(handed_out):
    """An older link's F-betas (``uir_beta``, no longer offered: they never changed a UIR) are not signed."""
    at = app({"dataset": "sample:experiment_sim", "ties": "stable", "uir_beta": ["1"], "name": "freq=f"},
             "pages/uir.py")
    signature = check_download(handed_out, "uir", EXPERIMENT)
    shown = fields(signature)
    measures = ("sharp", "good", "good_twin", "noisy", "freq")
    assert set(shown["shows"]) == set(measures) and set(shown["measures"]) == set(measures)  # (the report: 4)
    assert len(shown["cut"]) == 5 and "uir-beta" not in shown and shown["uir-threshold"] == ("0.25",)
    steps = [
        (lambda: at.slider(key="w_uir_threshold").set_value(0.5), {"uir-threshold"}),
        (lambda: at.slider(key="w_cut_n").set_value(50), {"cut"}),
        (lambda: at.select_slider(key="w_cut_gamma_noisy_50").set_value(
            float(at.select_slider(key="w_cut_gamma_noisy_50").options[-10])), {"cut"}),
        (lambda: at.radio(key="w_cut_mode").set_value("n"), {"cut"}),
    ]
    signature = walk_steps(at, handed_out, "uir", EXPERIMENT, signature, steps)
    assert fields(signature)["cut"] == ("n:50",) * 5 and "uir-beta" not in fields(signature)


def test_a_threshold_download_of_a_measure_the_report_does_not_compare_reproduces(handed_out):
    """freq is not among the four measures the report compares (the best by average precision): the Threshold
    page's download of it adds it to the signed ``measures``, so that reproduce reads its column (before: 'the
    signature's measures 'freq' are not score columns of the data file', exit code 2)."""
    app({"dataset": "sample:collocations_sim", "ties": "stable", "t_measure": "freq", "t_mode": "n", "t_n": "300"},
        "pages/threshold.py")
    signature = check_download(handed_out, "threshold", COLLOCATIONS)
    shown = fields(signature)
    assert shown["shows"] == ("freq",) and shown["at"] == ("300",)
    assert shown["measures"] == ("log_like", "chisq", "MI", "t_score", "freq")  # (the report's four, then freq)
