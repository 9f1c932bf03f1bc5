"""Sign-in's rules without a browser (evalcore_app/auth.py): which kept links may be followed after sign-in, how an allow-list
reads and whom it admits; and the report's sentence naming who annotated (evalcore/report/annotators.py).

The whole flow (a local OpenID provider, Chromium) is in tests/browser/test_browser_signin.py.
"""

from __future__ import annotations

import json
import zipfile
from io import BytesIO

import pytest

from evalcore.io import load_candidates
from evalcore.report import ReportSettings, build_report
from evalcore.report.annotators import Annotators
from evalcore_app.auth import NEXT_MAX_CHARS, admitted, next_path, parse_allow_list


@pytest.mark.parametrize("link", ["/", "/significance?dataset=sample%3Acollocations_sim&a=t_score&b=MI",
                                  "/annotate?ann_size=3", "/data#top"])
def test_a_path_of_the_app_is_followed(link):
    assert next_path(link) == link


@pytest.mark.parametrize("link", [None, "", "https://evil.example/", "//evil.example/significance", "/\\evil.example",
                                  "javascript:alert(1)", "significance", "/a\nb", "/a\x00", "http:/x",
                                  "/" + "a" * NEXT_MAX_CHARS])
def test_anything_else_is_not(link):
    """Another site, a scheme, a protocol-relative or backslashed path, control characters, a link too long."""
    assert next_path(link) is None


def test_below_a_base_path_only_its_own_paths():
    assert next_path("/lab/evalcore/significance?a=1", "lab/evalcore") == "/lab/evalcore/significance?a=1"
    assert next_path("/lab/evalcore", "/lab/evalcore/") == "/lab/evalcore"
    assert next_path("/lab/evalcore-other/x", "lab/evalcore") is None
    assert next_path("/significance", "lab/evalcore") is None


def test_an_allow_list_reads_addresses_and_domains_from_both_places():
    environment = "Alice@Lab.example, lab2.example;@lab3.example\n bob@x.org"
    secrets = ["carol@y.org", "z.org", "  "]
    addresses, domains = parse_allow_list(environment, secrets)
    assert addresses == {"alice@lab.example", "bob@x.org", "carol@y.org"}
    assert domains == {"lab2.example", "lab3.example", "z.org"}
    assert parse_allow_list(None, None) == parse_allow_list("", []) == (frozenset(), frozenset())
    assert parse_allow_list(None, "one@a.org two.org") == ({"one@a.org"}, {"two.org"})


LISTS = parse_allow_list("alice@lab.example members.example")


@pytest.mark.parametrize("email", ["alice@lab.example", "ALICE@Lab.Example", "bob@members.example",
                                   " carol@members.example "])
def test_the_list_admits_its_addresses_and_domains(email):
    assert admitted({"email": email, "sub": "x"}, *LISTS) == (True, "")


@pytest.mark.parametrize("user, why", [
    ({"email": "eve@elsewhere.example"}, "The address eve@elsewhere.example is not on this server's list"),
    ({"email": "bob@lab.example"}, "is not on this server's list"),  # an address listed, not its domain
    ({"email": "eve@sub.members.example"}, "is not on this server's list"),  # not the subdomains
    ({"email": "eve@evil-members.example"}, "is not on this server's list"),
    ({"email": "eve@members.example.evil.org"}, "is not on this server's list"),
    ({"email": "alice@lab.example", "email_verified": False}, "has not verified the address alice@lab.example"),
    ({"sub": "12345"}, "did not give this server an e-mail address"),
])
def test_anyone_else_is_refused_with_the_reason(user, why):
    ok, reason = admitted(user, *LISTS)
    assert not ok and why in reason


def test_without_a_list_everyone_signed_in_enters():
    assert admitted({"sub": "12345"}, frozenset(), frozenset()) == (True, "")


# ------------------------------------------------------------------------------------ the report names them

def test_the_sentence_names_the_annotators_and_how_they_were_named():
    one = Annotators(("alice@lab.example",), signed_in=True).sentence()
    assert one.md == (r"The labels come from one annotator, alice\@lab.example, signed in to the server (the name "
                      "is the identity its sign-in service gave).")
    two = Annotators(("alice", "bob", "alice"), signed_in=False).sentence()
    assert two.md == "The labels come from 2 annotators, alice and bob (names as typed on the Annotate page)."
    assert not Annotators(()) and Annotators(("", " ")).names == ()


def test_hostile_names_stay_text_on_one_line():
    names = ("a`b <script>x</script>", "line\nbreak", "50% & #1_{x}")
    sentence = Annotators(names, signed_in=True).sentence()
    assert "\n" not in sentence.md and "\n" not in sentence.tex
    assert r"a\`b \<script\>x\</script\>" in sentence.md and "line break" in sentence.md
    assert r"50\% \& \#1\_\{x\}" in sentence.tex and "<script>" not in sentence.tex


def test_a_report_names_who_annotated(tmp_path):
    path = tmp_path / "tiny.tsv"
    rows = [f"c{i}\t{'TRUE' if i % 3 == 0 else 'FALSE'}\t{100 - i}\t{(i * 37) % 50}" for i in range(40)]
    path.write_text("key\tlabel\tg\th\n" + "\n".join(rows) + "\n")
    candidates = load_candidates(path, label="label", scores=["g", "h"])
    settings = ReportSettings(("g", "h"), "label", sizes=(10, 20), ties="stable")
    who = Annotators(("alice@lab.example", "bob@members.example"), signed_in=True)
    files = zipfile.ZipFile(BytesIO(build_report(candidates, settings, data_sha256="0" * 64, figures=False,
                                                 annotators=who).zip_bytes()))
    methods = files.read("methods.md").decode()
    assert (r"The labels come from 2 annotators, alice\@lab.example and bob\@members.example, each signed in to "
            "the server") in methods
    assert r"alice@lab.example and bob@members.example, each signed in" in files.read("methods.tex").decode()
    data = json.loads(files.read("data.json"))
    assert data["annotators"] == {"names": ["alice@lab.example", "bob@members.example"], "signed_in": True}
    plain = zipfile.ZipFile(BytesIO(build_report(candidates, settings, data_sha256="0" * 64,
                                                 figures=False).zip_bytes()))
    assert "annotator" not in plain.read("methods.md").decode() and "annotators" not in json.loads(
        plain.read("data.json"))
