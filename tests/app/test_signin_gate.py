"""The sign-in gate (evalcore_app/auth.py) under AppTest: with an ``[auth]`` section in the secrets, no page runs before sign-in;
a signed-in stranger is refused; a member annotates under the identity, whatever the link says; a setup that cannot
work keeps everyone out with a message; without ``[auth]`` nothing changes (every other AppTest runs so).

AppTest seeds ``st.user`` (``at.user``) and ``st.secrets`` (``at.secrets``); the real round trip through an OpenID
provider is in tests/browser/test_browser_signin.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import streamlit as st
from streamlit.runtime.secrets import Secrets
from streamlit.testing.v1 import AppTest

from shown_charts import specs
from evalcore_app import auth

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "c",
        "client_secret": "s", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
PAGES = ["pages/data.py", "pages/significance.py", "pages/annotate.py"]
LINK = {"dataset": "sample:collocations_sim", "annotator": "mallory", "ann_size": "3"}

pytestmark = pytest.mark.usefixtures("store_root")  # (tests/app/conftest.py)


def run(page: str, user: dict, secrets: dict, link: dict = LINK, admitted: bool = False) -> AppTest:
    """The app opened at ``page``'s address with ``link``'s query (an admitted user: switched to the page, which
    AppTest can do only once the app's pages are registered)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.secrets.update(secrets)
    at.user = user
    at.context = {"url": f"http://localhost:8501/{Path(page).stem}"}
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    if admitted:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(markdown: str) -> str:
    """Markdown source written by evalcore.text.markdown_text as it reads (escapes and word joiners removed)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


@pytest.mark.parametrize("page", PAGES)
def test_signed_out_no_page_answers(page):
    at = run(page, {}, {"auth": AUTH})
    assert [t.value for t in at.title] == ["evalcore"]
    assert [b.label for b in at.button] == ["Sign in"]
    assert not at.sidebar.children  # no data, no link, no report
    assert not at.header and not at.text_input and not specs(at) and not at.dataframe


def test_a_link_too_long_to_keep_through_sign_in_says_so():
    at = run("pages/data.py", {}, {"auth": AUTH}, link={**LINK, "name": "x" * 4000})
    assert "too long to carry through the sign-in" in at.caption[0].value
    assert [b.label for b in at.button] == ["Sign in"]


def test_each_provider_gets_a_button():
    at = run("pages/data.py", {}, {"auth": {**{k: AUTH[k] for k in ("redirect_uri", "cookie_secret")},
                                            "google": {k: AUTH[k] for k in ("client_id", "client_secret",
                                                                            "server_metadata_url")},
                                            "microsoft": {k: AUTH[k] for k in ("client_id", "client_secret",
                                                                               "server_metadata_url")}}})
    assert [b.label for b in at.button] == ["Sign in with google", "Sign in with microsoft"]


def test_an_auth_section_without_a_provider_keeps_everyone_out_with_a_message():
    at = run("pages/data.py", {}, {"auth": {"redirect_uri": AUTH["redirect_uri"], "cookie_secret": "x" * 32}})
    assert not at.button and "names no provider" in at.error[0].value
    assert not at.sidebar.children


def test_a_provider_streamlit_cannot_use_is_a_message_not_a_traceback():
    """Sign in clicked with an [auth] section Streamlit refuses (here: no cookie_secret): the reason, in words."""
    at = run("pages/data.py", {}, {"auth": {k: v for k, v in AUTH.items() if k != "cookie_secret"}})
    at.button[0].click().run()
    assert not at.exception
    assert "Sign-in is not set up completely on this server" in shown(at.error[0].value)
    assert [b.label for b in at.button] == ["Sign in"] and not at.sidebar.children


def test_a_stranger_is_refused_politely():
    at = run("pages/annotate.py", {"is_logged_in": True, "email": "eve@elsewhere.example", "sub": "e"},
             {"auth": AUTH, "evalcore": {"allowed_users": ["alice@lab.example", "members.example"]}})
    assert "The address eve@elsewhere.example is not on this server's list of members" in shown(at.warning[0].value)
    assert [b.label for b in at.button] == ["Sign out"]
    assert not at.header and not at.sidebar.children


def test_a_member_annotates_under_the_identity_whatever_the_link_says():
    at = run("pages/annotate.py", {"is_logged_in": True, "email": "bob@members.example", "sub": "b"},
             {"auth": AUTH, "evalcore": {"allowed_users": ["alice@lab.example", "members.example"]}}, admitted=True)
    assert at.header[0].value == "Annotate a random sample"
    assert "Annotating as bob@members.example" in [t.value for t in at.text]
    assert not [t for t in at.text_input if t.label == "Your name (annotator)"]
    assert not [b for b in at.button if b.label == "Change name"]  # (evalcore_app/annotate.annotator() is the identity)
    assert "annotator" not in at.query_params and "mallory" not in str(dict(at.query_params))
    assert [b.label for b in at.sidebar.button][0] == "Sign out"


def test_without_auth_the_name_is_typed():
    at = run("pages/annotate.py", {}, {"evalcore": {"allowed_users": ["alice@lab.example"]}}, admitted=True)
    assert [t.label for t in at.text_input][0] == "Your name (annotator)"
    assert at.text_input[0].value in ("", None)  # not the link's name: names never travel in links (issue 18)
    assert "annotator" not in at.query_params


def test_a_secrets_file_that_cannot_be_read_counts_as_sign_in_on(tmp_path, monkeypatch):
    """A broken secrets.toml must not open the server: sign-in counts as configured (and nobody gets in)."""
    broken, other, missing = tmp_path / "broken.toml", tmp_path / "other.toml", tmp_path / "missing.toml"
    broken.write_text("[auth\nclient_id = 'x'\n")
    other.write_text('[evalcore]\nallowed_users = ["a@b.org"]\n')
    default = st.config.get_option("secrets.files")
    try:
        for files, expected in (([str(missing)], False), ([str(other)], False), ([str(broken)], True)):
            monkeypatch.setattr(st, "secrets", Secrets())
            st.config.set_option("secrets.files", files)
            assert auth.configured() is expected, files
    finally:
        st.config.set_option("secrets.files", default)
