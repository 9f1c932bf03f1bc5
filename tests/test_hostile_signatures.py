"""`evalcore reproduce` with a hostile signature (issue 19): each ends with exit code 2 and a one-line message within
a few seconds and bounded memory, never a traceback, an allocation of hundreds of GiB (``n 1:99999999999``) or a
computation that never ends (``resamples 1000000000``).

All cases run in one child process with its address space limited to 3 GiB (an attempt at a huge allocation
fails there instead of swapping the machine), each timed on its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOOD_COMPARE = ("evalcore {version}|cmd compare|data sha256:{sha}|label gold|measures score_a,score_b|n all|"
                "alternative two-sided|test bootstrap|corr none|resamples 200|ties stable|level 0.95|"
                "numbers 0123456789abcdef")
GOOD_SYSTEMS = ("evalcore {version}|cmd systems|data sha256:{sha}|metric accuracy|resamples 200|seed 1|rule bk|"
                "level 0.95|numbers 0123456789abcdef")
GOOD_TEXT = ("evalcore {version}|cmd systems|data {shas}|metric chrf|refs 1|lowercase no|chrf-word-order 0|"
             "resamples 200|seed 1|rule bk|level 0.95|numbers 0123456789abcdef")
GOOD_REPORT = ("evalcore {version}|cmd report|data sha256:{sha}|label gold|measures score_a,score_b|ties stable|"
               "test fisher|level 0.95|n 5,10,50|range 5:50|pair score_a,score_b|corr none|"
               "interval clopper_pearson|numbers 0123456789abcdef")

# (name, base signature, (old, new) replacements, a fragment of the one-line message)
HOSTILE = [
    # the two that did not end on main: 745 GiB of list sizes, and a computation of weeks
    ("n spec asking for 745 GiB", "compare", [("|n all|", "|n 1:99999999999|")], "list size 99999999999 is outside"),
    ("a billion resamples", "compare", [("|resamples 200|", "|resamples 1000000000|")], "it was not started"),
    # work
    ("a billion resamples in a report", "report", [("|test fisher|", "|test bootstrap|resamples 1000000000|seed 1|")],
     "it was not started"),
    ("resamples written as a float", "compare", [("|resamples 200|", "|resamples 1e9|")], "invalid int value"),
    ("no resamples", "compare", [("|resamples 200|", "|resamples 0|")], "`resamples` must be"),
    ("negative resamples in a report", "report", [("|test fisher|", "|test bootstrap|resamples -3|seed 1|")],
     "`resamples` must be"),
    # versions and fields
    ("a version with a broken percent-encoding", "compare", [("evalcore {version}|", "evalcore %FF|")],
     "broken percent-encoding"),
    ("not a signature", None, [], "starts with 'evalcore <version>'"),
    ("no numbers field", "compare", [("|numbers 0123456789abcdef", "")], "no 'numbers' field"),
    ("numbers that are not hexadecimal", "compare", [("numbers 0123456789abcdef", "numbers xyz")],
     "numbers field must be 16 hexadecimal digits"),
    ("a field without a value", "compare", [("|corr none|", "|corr|")], "is not 'key value'"),
    ("a setting named twice", "compare", [("|level 0.95|", "|level 0.95|level 0.9|")], "names 'level' twice"),
    ("an unknown setting", "compare", [("|corr none|", "|corr none|frobnicate yes|")], "no option for the signature"),
    ("a command that signs nothing", "compare", [("|cmd compare|", "|cmd simulate|")], "names the command"),
    ("reproduce reproducing itself", "compare", [("|cmd compare|", "|cmd reproduce|")], "names the command"),
    # hashes
    ("a hash of the wrong length", "compare", [("sha256:{sha}", "sha256:abc")], "64 lowercase hexadecimal"),
    ("another hash algorithm", "compare", [("sha256:{sha}", "md5:{sha}")], "must read 'sha256:"),
    ("two data files for one", "compare", [("sha256:{sha}", "sha256:{sha},sha256:{sha}")], "names 2 data file(s)"),
    # levels and tests
    ("a level above 1", "compare", [("|level 0.95|", "|level 1.5|")], "confidence_level"),
    ("a level that is not a number", "report", [("|level 0.95|", "|level nan|")], "'level' must be a number"),
    ("an infinite level", "report", [("|level 0.95|", "|level 1e999|")], "'level' must be a number"),
    ("an unknown test", "compare", [("|test bootstrap|", "|test bogus|")], "invalid choice: 'bogus'"),
    ("an unknown test in a report", "report", [("|test fisher|", "|test bogus|")], "`test` must be one of"),
    ("an unknown tie policy", "compare", [("|ties stable|", "|ties bogus|")], "invalid choice: 'bogus'"),
    # n specs
    ("n zero", "compare", [("|n all|", "|n 0|")], "list size 0 is outside"),
    ("a range that runs backwards", "compare", [("|n all|", "|n 50:5|")], "a range needs start <= stop"),
    ("a step of zero", "compare", [("|n all|", "|n 1:50:0|")], "a range needs start <= stop and step >= 1"),
    ("n past 2^63", "compare", [("|n all|", "|n 1:99999999999999999999999999|")], "list size 9999999999999999…"),
    ("n that is not a number", "compare", [("|n all|", "|n many|")], "is not understood"),
    ("a report's n past 2^63", "report", [("|n 5,10,50|", "|n 5,10,99999999999999999999999|")],
     "`sizes` must be whole list sizes"),
    ("a report range of 10^11", "report", [("|range 5:50|", "|range 1:99999999999|")], "the figures' range of n"),
    ("a report step of zero", "report", [("|corr none|", "|corr none|step 0|")], "`n_step`"),
    # seeds
    ("a negative seed", "compare", [("|ties stable|", "|ties random|seed -1|")], "seed"),
    # systems on a test set
    ("a billion resamples of a test set", "systems", [("|resamples 200|", "|resamples 1000000000|")],
     "it was not started"),
    ("a systems signature without its metric", "systems", [("|metric accuracy|", "|")], "lacks a setting"),
    ("an unknown bootstrap rule", "systems", [("|rule bk|", "|rule bogus|")], "`rule` must be one of bk, sacrebleu"),
    ("a systems level above 1", "systems", [("|level 0.95|", "|level 1.5|")], "`level` (the confidence level) must"),
    ("no resamples of a test set", "systems", [("|resamples 200|", "|resamples 0|")], "`resamples` must be"),
    ("a systems seed past 2^32", "systems", [("|seed 1|", "|seed 99999999999999999999999|")],
     "`seed` must be a whole number from 0 to 2^32 - 1"),
    ("a text metric for a per-item table", "systems", [("|metric accuracy|", "|metric bleu|")], "is a metric of text"),
    ("an unknown metric for a per-item table", "systems", [("|metric accuracy|", "|metric bogus|")],
     "is not a metric evalcore knows"),
    ("an unknown metric for text", "text", [("|metric chrf|", "|metric bogus|")],
     "--metric bogus is not a metric of text files"),
    ("a chrF word order of 10^11", "text", [("|chrf-word-order 0|", "|chrf-word-order 99999999999|")],
     "`chrf_word_order` must be 0, 1 or 2"),
    ("an unknown BLEU tokenizer", "text", [("|metric chrf|", "|metric bleu|tokenize bogus|")], "`tokenize` must be"),
    ("a lowercase that is neither yes nor no", "text", [("|lowercase no|", "|lowercase maybe|")],
     "'lowercase' must be yes or no"),
    ("every file a reference", "text", [("|refs 1|", "|refs 3|")], "names 3 reference file(s)"),
    ("10^20 reference files", "text", [("|refs 1|", "|refs 99999999999999999999|")], "reference file(s)"),
    ("a billion resamples of a text test set", "text", [("|resamples 200|", "|resamples 1000000000|")],
     "it was not started"),
    # the systems' inputs and tests of issue 31
    ("an unknown ROUGE tokenizer", "text", [("|metric chrf|", "|metric rouge1|rouge-tokenizer bogus|")],
     "ROUGE's `tokenizer` must be one of"),
    ("a stemmer neither yes nor no", "text", [("|metric chrf|", "|metric rouge1|stemmer maybe|")],
     "'stemmer' must be yes or no"),
    ("the corpus ROUGE of ROUGE-L", "text", [("|metric chrf|", "|metric rougeL|rouge-stat corpus|")], "ROUGE-N's"),
    ("an unknown test besides", "systems", [("|level 0.95|", "|level 0.95|tests anova|")], "`tests` must be some of"),
    ("a t-test of a ratio of sums", "systems", [("|level 0.95|", "|level 0.95|tests ttest|")], "ratio of sums"),
    ("a billion Tukey permutations", "systems",
     [("|resamples 200|", "|resamples 1000000000|"), ("|level 0.95|", "|level 0.95|tests tukey|")],
     "it was not started"),
    ("text files as qrels and runs", "text", [("|refs 1|", "|qrels 1|")], "a qrels line is"),
    ("a seed written as a float", "compare", [("|ties stable|", "|ties random|seed 1e5|")], "invalid int value"),
    ("a seed that is not a number", "report", [("|ties stable|", "|ties random|seed x1|")],
     "'seed' must be a whole number"),
]


def _signature(base: str | None, replacements, shas: list[str]) -> str:
    if base is None:
        return "not a signature at all"
    text = {"compare": GOOD_COMPARE, "report": GOOD_REPORT, "systems": GOOD_SYSTEMS, "text": GOOD_TEXT}[base]
    for old, new in replacements:
        old, new = old.format(version="{version}", sha="{sha}"), new.format(version="{version}", sha="{sha}")
        assert old in text, (old, text)
        text = text.replace(old, new)
    from evalcore.report.signature import evalcore_version

    return (text.replace("{version}", evalcore_version()).replace("{sha}", shas[0])
            .replace("{shas}", ",".join(f"sha256:{sha}" for sha in shas)))


_DRIVER = r"""
import io, json, resource, sys, time, traceback
from contextlib import redirect_stderr, redirect_stdout
resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
from evalcore.cli import main
import evalcore.report.commands, evalcore.systems.cli  # imported before any clock starts (10 s on a loaded machine)
cases = json.loads(sys.stdin.read())
results = []
for signature, data in cases:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["reproduce", signature, *data])
    except BaseException as exc:
        code = "exception: " + "".join(traceback.format_exception_only(type(exc), exc)).strip()[-300:]
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(),
                    "seconds": time.perf_counter() - start})
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def small_data(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "small.tsv"
    rows = ["key\tgold\tscore_a\tscore_b"]
    for i in range(60):
        tp = i % 3 == 0
        rows.append(f"w{i}\t{'TRUE' if tp else 'FALSE'}\t{(8 if tp else 0) + i % 7}\t{(i * 11) % 17}")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def items_data(small_data) -> Path:
    """A per-item table of two systems (``systems``' input): 40 items, correct of 5."""
    path = small_data.parent / "items.csv"
    rows = ["item,base.correct,base.total,new.correct,new.total"]
    rows += [f"i{k},{k % 5},5,{(k * 3) % 6 % 5},5" for k in range(40)]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def text_data(small_data) -> list[Path]:
    """A references file and two systems' hypotheses (``systems``' text input): 30 segments."""
    folder = small_data.parent
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran"]
    lines = [" ".join(words[(k + j) % 8] for j in range(3 + k % 4)) for k in range(30)]
    paths = []
    for name, keep in (("refs", 30), ("base", 20), ("new", 25)):
        path = folder / f"{name}.txt"
        path.write_text("\n".join(line if k < keep else line[::-1] for k, line in enumerate(lines)) + "\n")
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def outcomes(small_data, items_data, text_data) -> dict:
    from evalcore.report.signature import file_sha256

    data = {"systems": [items_data], "text": text_data}
    cases = []
    for _, base, replacements, _ in HOSTILE:
        paths = data.get(base, [small_data])
        cases.append((_signature(base, replacements, [file_sha256(p) for p in paths]), [str(p) for p in paths]))
    done = subprocess.run([sys.executable, "-c", _DRIVER], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(zip([name for name, *_ in HOSTILE], json.loads(done.stdout)))


def test_the_list_is_long_enough():
    assert len(HOSTILE) >= 23 and len({name for name, *_ in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize("name, fragment", [(name, fragment) for name, _, _, fragment in HOSTILE],
                         ids=[name for name, *_ in HOSTILE])
def test_a_hostile_signature_ends_with_a_message(outcomes, name, fragment):
    result = outcomes[name]
    lines = [line for line in result["stderr"].splitlines() if line.strip()]
    assert result["code"] == 2, result
    assert len(lines) == 1 and lines[0].startswith("evalcore: error: "), result
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in result["stderr"] + result["stdout"]
    assert result["seconds"] < 10, result["seconds"]


def test_a_good_signature_still_runs_and_the_budget_flag_raises_the_limit(small_data, tmp_path):
    """The budget refuses a signature's work with a message naming --work-budget; the flag lets it run."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from evalcore.cli import main
    from evalcore.report.signature import file_sha256

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv])
        return code, out.getvalue(), err.getvalue()

    code, _, err = run("compare", small_data, "--label", "gold", "--measure", "score_a", "--measure", "score_b",
                       "--test", "bootstrap", "--resamples", "2000", "--ties", "stable", "--out", tmp_path / "t.csv",
                       "--signature")
    assert code == 0, err
    signature = next(line for line in err.splitlines() if "signature: " in line).split("signature: ", 1)[1]
    code, out, _ = run("reproduce", signature, small_data)
    assert code == 0 and out.rstrip().endswith("reproduced")
    code, _, err = run("reproduce", signature, small_data, "--work-budget", "0.05")
    assert code == 2 and "raise it with --work-budget SECONDS or EVALCORE_WORK_BUDGET" in err
    assert "What fits: " in err and " resamples" in err
    sha = file_sha256(small_data)
    hostile = _signature("compare", [("|resamples 200|", "|resamples 100000|")], [sha])
    code, _, err = run("reproduce", hostile, small_data, "--work-budget", "0.5")
    assert code == 2 and "it was not started" in err


def test_the_systems_signatures_the_list_spoils_are_read_and_computed(items_data, text_data):
    """Unspoiled, both systems signatures of the list are computed (exit code 1: their made-up numbers differ), so
    each hostile case fails for the change it makes, not for its base."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from evalcore.cli import main
    from evalcore.report.signature import file_sha256

    for base, paths in (("systems", [items_data]), ("text", text_data)):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["reproduce", _signature(base, [], [file_sha256(p) for p in paths]), *map(str, paths)])
        assert code == 1 and "NOT reproduced" in out.getvalue() + err.getvalue(), (out.getvalue(), err.getvalue())
