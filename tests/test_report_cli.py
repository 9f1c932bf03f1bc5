"""The command line's report, --signature and reproduce: a signature round-trips (reproduce matches), a changed
setting or data set does not, a different evalcore version is named."""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import redirect_stderr, redirect_stdout

import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.report.signature import parse_signature

KRENN_ARGS = ["--label", "is.colloc", "--measure", "log.like", "--measure", "t.score", "--measure", "chisq",
              "--measure", "freq", "--name", "log.like=G²", "--name", "t.score=t", "--name", "chisq=X²",
              "--name", "freq=f", "--ties", "stable"]


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def signature_from(err: str) -> str:
    line = next(line for line in err.splitlines() if line.startswith("evalcore: signature: "))
    return line.removeprefix("evalcore: signature: ")


@pytest.fixture(scope="module")
def krenn_report(krenn_tsv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    out, sig = folder / "report.zip", folder / "report.signature.txt"
    code, _, err = run("report", krenn_tsv, *KRENN_ARGS, "--pair", "log.like", "chisq", "--no-figures",
                       "--out", out, "--signature", sig)
    assert code == 0, err
    return out, sig.read_text().strip(), err


def test_report_writes_the_zip_and_its_signature(krenn_report):
    out, signature, err = krenn_report
    archive = zipfile.ZipFile(out)
    assert archive.read("signature.txt").decode().strip() == signature
    parsed = parse_signature(signature)
    assert parsed.command == "report" and parsed.get("n") == "100,500,1000,2000" and parsed.get("range") == "100:2000"
    assert parsed.get("pair") == "log.like,chisq" and parsed.get("ties") == "stable"
    data = json.loads(archive.read("data.json"))
    assert data["display_names"]["log.like"] == "G²" and data["numbers"]["figure3"]["significant_up_to"] == 1268
    assert "log.like vs chisq: significant at 1171 of 1901 n, at every n up to 1268" in err
    assert "G² against X²" in archive.read("methods.md").decode()


def test_reproduce_matches(krenn_report, krenn_tsv):
    _, signature, _ = krenn_report
    code, out, _ = run("reproduce", signature, krenn_tsv)
    assert code == 0 and "numbers: match" in out and out.rstrip().endswith("reproduced")


@pytest.mark.parametrize("field, value", [("level 0.95", "level 0.99"), ("pair log.like,chisq", "pair log.like,freq"),
                                          ("corr none", "corr holm"), ("ties stable", "ties optimistic"),
                                          ("n 100,500,1000,2000", "n 100,500,1000")])
def test_a_changed_setting_does_not_reproduce(krenn_report, krenn_tsv, field, value):
    _, signature, _ = krenn_report
    assert field in signature
    code, out, _ = run("reproduce", signature.replace(field, value), krenn_tsv)
    assert code == 1 and "numbers: DO NOT match" in out and "NOT reproduced" in out


def test_another_data_set_does_not_reproduce(krenn_report, krenn_rda):
    """The same candidates in another file (the R package's .rda) are not the same data: the hash must match."""
    _, signature, _ = krenn_report
    code, out, _ = run("reproduce", signature, krenn_rda)
    assert code == 1 and "not the same data" in out and "20bd0944b0e1a3e2" in out and "NOT reproduced" in out


def test_another_version_is_named(krenn_report, krenn_tsv):
    _, signature, _ = krenn_report
    old = signature.replace(f"evalcore {parse_signature(signature).version}|", "evalcore 0.0.1|")
    code, out, _ = run("reproduce", old, krenn_tsv)
    assert code == 0 and "made by evalcore 0.0.1; this is evalcore" in out and "differs in evalcore" in out


@pytest.fixture()
def small_tsv(tmp_path):
    path = tmp_path / "small.tsv"
    rows = ["key\tgold\tscore_a\tscore_b\tpval"]  # score_a finds the TPs, score_b does not; both have ties
    for i in range(60):
        tp = i % 3 == 0
        rows.append(f"w{i}\t{'TRUE' if tp else 'FALSE'}\t{(8 if tp else 0) + i % 7}\t{(i * 11) % 17}\t"
                    f"{((i * 3) % 19) / 20}")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("argv, change", [
    (["compare", "--label", "gold", "--measure", "score_a", "--measure", "score_b", "--n", "5:50:5"],
     ("|corr none|", "|corr holm|")),
    (["compare", "--label", "gold", "--measure", "score_a", "--measure", "score_b", "--test", "bootstrap",
      "--resamples", "200", "--correction", "holm", "--ties", "stable"], ("|resamples 200|", "|resamples 300|")),
    (["curves", "--label", "gold", "--lower-is-better", "pval", "--n", "10,20,30", "--interval", "wilson"],
     ("|level 0.95|", "|level 0.9|")),
    (["curves", "--label", "gold", "--kind", "auc"], ("|level 0.95|", "|level 0.9|")),
    (["accept", "--label", "gold", "--measure", "score_a", "--gamma", "3,7.5"], ("|gamma 3,7.5|", "|gamma 3,8|")),
])
def test_command_signatures_round_trip(small_tsv, tmp_path, argv, change):
    """Each table command signs its table; reproduce rebuilds the command and gets the same numbers (random ties
    included: the signature names the seed that was drawn); a setting changed so that the numbers change does
    not reproduce."""
    out = tmp_path / "table.csv"
    code, stdout, err = run(argv[0], small_tsv, *argv[1:], "--out", out, "--signature")
    assert code == 0, err
    assert stdout == "" and out.read_text().count("\n") > 1  # the table still goes where --out says
    signature = signature_from(err)
    parsed = parse_signature(signature)
    assert parsed.command == argv[0] and parsed.numbers
    if "--ties" not in argv:
        assert parsed.get("ties") == "random" and parsed.get("seed") is not None
    code, report, _ = run("reproduce", signature, small_tsv)
    assert code == 0, report
    assert change[0] in signature
    code, report, _ = run("reproduce", signature.replace(*change), small_tsv)
    assert code == 1 and "DO NOT match" in report


def test_signature_to_a_file_and_table_to_stdout(small_tsv, tmp_path):
    sig = tmp_path / "curves.signature.txt"
    code, stdout, err = run("curves", small_tsv, "--label", "gold", "--n", "10", "--ties", "stable", "--signature",
                            sig)
    assert code == 0 and f"signature written to {sig}" in err
    assert list(pd.read_csv(io.StringIO(stdout)).columns[:3]) == ["measure", "n", "tp"]
    assert parse_signature(sig.read_text()).get("n") == "10"


def test_experiment_commands_sign_several_files(tmp_path):
    from evalcore.simulate import simulate
    files = []
    for k in range(3):  # one file per sample
        path = tmp_path / f"run{k}.tsv"
        simulate(k=1, n=300, seed=k).data.drop(columns="sample").to_csv(path, sep="\t", index=False)
        files.append(path)
    code, _, err = run("across", *files, "--measure", "good", "--measure", "noisy", "--cut", "n", "--n", "50",
                       "--ties", "stable", "--signature")
    assert code == 0, err
    signature = signature_from(err)
    assert len(parse_signature(signature).data) == 3
    code, out, _ = run("reproduce", signature, *files)
    assert code == 0, out
    code, out, _ = run("reproduce", signature, *files[::-1])
    assert code == 1 and "not the same data" in out


@pytest.mark.parametrize("argv, fragment", [
    (["reproduce", "not a signature", "x.tsv"], "starts with 'evalcore <version>'"),
    (["reproduce", "evalcore 0.1.0|cmd report|data sha256:" + "0" * 64, "a.tsv"], "no 'numbers' field"),
])
def test_reproduce_errors(argv, fragment):
    code, _, err = run(*argv)
    assert code == 2 and fragment in err


def test_reproduce_needs_as_many_files_as_the_signature(krenn_report, krenn_tsv):
    _, signature, _ = krenn_report
    code, _, err = run("reproduce", signature, krenn_tsv, krenn_tsv)
    assert code == 2 and "names 1 data file(s); got 2" in err


def test_report_errors_name_the_option(krenn_tsv, tmp_path):
    code, _, err = run("report", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--no-figures",
                       "--out", tmp_path / "r.zip")
    assert code == 2 and "at least two measures" in err
    code, _, err = run("report", krenn_tsv, *KRENN_ARGS, "--name", "MI=I", "--no-figures", "--out", tmp_path / "r.zip")
    assert code == 2 and "'MI', which the report does not compare" in err
    code, _, err = run("report", krenn_tsv, *KRENN_ARGS, "--range", "100-2000", "--no-figures",
                       "--out", tmp_path / "r.zip")
    assert code == 2 and "--range '100-2000': give FIRST:LAST" in err
