"""Every choice that changes a report's numbers is in its text, its signature and data.json, and `reproduce` honours
it or refuses with a message (issue 18, items 2 and 7): the interval of a difference, the power of the minimum
detectable difference, and the design of an annotated sample (a report from a partly annotated set)."""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.errors import ParameterError
from evalcore.report.settings import ReportSettings, SampleDesign, settings_from_signature
from evalcore.report.signature import parse_signature


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """400 candidates, two scores (a finds the TPs, b less so) and a third; every candidate labelled (full.tsv), the
    same with a seeded 40% of the labels kept (sample.tsv), and with those of them in the frame a,b:60 (frame.tsv)."""
    rng = np.random.default_rng(11)
    n = 400
    tp = rng.random(n) < 0.25
    a = tp * 1.5 + rng.normal(size=n)
    b = tp * 0.5 + rng.normal(size=n)
    c = rng.normal(size=n)
    kept = rng.random(n) < 0.4
    top = np.zeros(n, bool)  # the frame a,b:60: the union of the 60 best by a and by b
    top[np.argsort(-a)[:60]] = top[np.argsort(-b)[:60]] = True
    folder = tmp_path_factory.mktemp("settings")
    for name, labels in (("full.tsv", ["TRUE" if t else "FALSE" for t in tp]),
                         ("sample.tsv", [("TRUE" if t else "FALSE") if k else "" for t, k in zip(tp, kept)]),
                         ("frame.tsv", [("TRUE" if t else "FALSE") if k and f else ""
                                        for t, k, f in zip(tp, kept, top)])):
        rows = ["key\tgold\ta\tb\tc"] + [f"k{i}\t{labels[i]}\t{a[i]:.6f}\t{b[i]:.6f}\t{c[i]:.6f}" for i in range(n)]
        (folder / name).write_text("\n".join(rows) + "\n")
    return folder


ARGS = ["--label", "gold", "--measure", "a", "--measure", "b", "--measure", "c", "--n", "20,50,100", "--ties",
        "stable", "--no-figures"]


def report(folder, name, *extra):
    out = folder / f"r{abs(hash(extra))}.zip"
    code, _, err = run("report", folder / name, *ARGS, *extra, "--out", out, "--signature", "-")
    assert code == 0, err
    signature = next(line for line in err.splitlines() if line.startswith("evalcore: signature: "))
    archive = zipfile.ZipFile(out)
    return signature.removeprefix("evalcore: signature: "), archive


@pytest.mark.parametrize("option, value, field, words", [
    ("--difference-interval", "agresti_caffo", "diff-ci agresti_caffo", "the method of Agresti and Caffo"),
    ("--power", "0.9", "power 0.9", "with 90% power"),
])
def test_a_choice_is_in_the_text_the_signature_and_data_json_and_reproduces(data, option, value, field, words):
    base, base_zip = report(data, "full.tsv")
    changed, archive = report(data, "full.tsv", option, value)
    assert field in changed and field not in base
    assert parse_signature(changed).numbers != parse_signature(base).numbers
    assert words in archive.read("methods.md").decode() and words not in base_zip.read("methods.md").decode()
    settings = json.loads(archive.read("data.json"))["settings"]
    assert str(settings["difference_interval" if "difference" in option else "power"]) == value
    for signature in (base, changed):
        code, out, _ = run("reproduce", signature, data / "full.tsv")
        assert code == 0 and "numbers: match" in out
    default = f"|{field.split()[0]} {'newcombe' if 'diff' in field else '0.8'}|"
    code, out, _ = run("reproduce", changed.replace(f"|{field}|", default), data / "full.tsv")
    assert code == 1 and "DO NOT match" in out


def test_a_report_from_an_annotated_sample(data):
    signature, archive = report(data, "sample.tsv", "--annotated-sample", "--sample-seed", "7", "--min-annotated",
                                "3")
    parsed = parse_signature(signature)
    assert parsed.get("annotated-sample") == "yes" and parsed.get("sample-seed") == "7"
    assert parsed.get("min-annotated") == "3" and parsed.get("sample-interval") == "hypergeometric"
    methods = archive.read("methods.md").decode()
    kept = sum(1 for line in (data / "sample.tsv").read_text().splitlines()[1:] if line.split("\t")[1])
    assert f"of which {kept} were annotated" in methods and "simple random sample with seed 7 of all 400" in methods
    assert "[@evert2005]" in methods and "Evert, S. and Krenn, B. (2005)" in methods
    precision = archive.read("tables/precision.md").decode()
    numbers = json.loads(archive.read("data.json"))["numbers"]
    for row in numbers["precision"]:
        if row["m"]:
            assert f"({row['k']}/{row['m']})" in precision
    assert numbers["data"]["annotated"] == kept
    code, out, _ = run("reproduce", signature, data / "sample.tsv")
    assert code == 0 and "numbers: match" in out
    code, out, _ = run("reproduce", signature.replace("|min-annotated 3|", "|min-annotated 30|"), data / "sample.tsv")
    assert code == 1 and "DO NOT match" in out


def test_a_sample_frame_is_described_and_used(data):
    signature, archive = report(data, "frame.tsv", "--annotated-sample", "--sample-frame", "a,b:60")
    assert "|sample-frame a,b:60|" in signature
    methods = archive.read("methods.md").decode()
    assert "the union of the top 60 candidates of a and b (" in methods
    numbers = json.loads(archive.read("data.json"))["numbers"]
    assert 60 <= numbers["data"]["frame"] <= 120
    assert any(not row["in_frame"] for row in numbers["precision"])  # the 100-best list leaves a frame of < 100
    assert "outside the frame" in archive.read("tables/precision.md").decode()
    code, out, _ = run("reproduce", signature, data / "frame.tsv")
    assert code == 0, out


def test_reproduce_refuses_what_it_cannot_honour(data):
    signature, _ = report(data, "sample.tsv", "--annotated-sample")
    for bad, words in ((signature.replace("|annotated-sample yes|", "|annotated-sample yes|annotations s1%20(x)|"),
                        "annotation sample 's1 (x)' of a dashboard's database"),
                       (signature.replace("|diff-ci newcombe|", "|diff-ci wald|"), "`difference_interval` must be"),
                       (signature.replace("|annotated-sample yes|", "|"), "describe(s) an annotated sample"),
                       (signature.replace("|diff-ci newcombe|", "|diff-ci newcombe|colour blue|"),
                        "does not know the report setting(s) colour")):
        code, _, err = run("reproduce", bad, data / "sample.tsv")
        assert code == 2 and words in err, (bad, err)


def test_settings_round_trip_through_the_signature():
    for settings in (ReportSettings(("a", "b"), "gold", ties="stable", difference_interval="agresti_caffo", power=0.95),
                     ReportSettings(("a", "b", "c"), "gold", ties="random", seed=4, correction="holm",
                                    design=SampleDesign(frame=("a", "c"), frame_k=50, frame_ties="random",
                                                        frame_seed=9, interval="clopper_pearson", min_annotated=0,
                                                        draw_seed=3, annotations="s 1"))):
        assert settings_from_signature(settings.signature_settings()) == settings
    with pytest.raises(ParameterError, match="power"):
        ReportSettings(("a", "b"), "gold", ties="stable", power=1.0)
    with pytest.raises(ParameterError, match="Fisher's exact test on the annotated candidates"):
        ReportSettings(("a", "b"), "gold", ties="stable", test="mcnemar", design=SampleDesign())


def test_the_command_says_in_words_when_the_first_n_is_not_significant(data):
    """Figure 3's line at 0 (the first tested n already not significant) is said in words, not "up to 0"."""
    out = data / "first.zip"
    code, _, err = run("report", data / "sample.tsv", *ARGS, "--annotated-sample", "--min-annotated", "3", "--pair",
                       "b", "c", "--out", out)
    assert code == 0, err
    up_to = json.loads(zipfile.ZipFile(out).read("data.json"))["numbers"]["figure3"]["significant_up_to"]
    assert up_to == 0 and "b vs c: significant at " in err
    assert "not at the first tested n" in err and "up to 0" not in err


@pytest.mark.parametrize("option", [("--power", "0.9"), ("--interval", "wilson"), ("--resamples", "50")])
def test_a_sample_report_refuses_a_choice_it_would_not_use(data, option):
    code, _, err = run("report", data / "sample.tsv", *ARGS, "--annotated-sample", *option, "--out", data / "no.zip")
    assert code == 2 and f"evalcore: error: {option[0]} change(s) no number of a report from an annotated sample" in err
    assert not (data / "no.zip").exists()
