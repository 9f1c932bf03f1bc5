"""Sign-in in a real browser: the dashboard served with an ``[auth]`` section (Streamlit's ``st.login``, OpenID
Connect) against a local OpenID provider (the ``oidc-provider-mock`` package on 127.0.0.1, started here).

The provider asks for a subject at its authorize page and gives it as the e-mail claim; the test types it. The
server reads a secrets file written in a temporary folder (``--secrets.files``: the developer's own secrets are never
read or touched) with an allow-list in it (``alice@lab.example``) and one in the environment
(``EVALCORE_ALLOWED_USERS=members.example``). The browser may reach 127.0.0.1 only (the provider's pages name a
stylesheet on a CDN; it is not fetched). Every step waits for what the page shows or for the runs it starts
(conftest's run counter), never for a fixed time.

The server is started as ``./dev run`` starts it (``python -m evalcore_app.serve``, with the upload guard of evalcore_app/uploads.py),
with an upload limit of 1 MB (``server.maxUploadSize``), so that the bound one tab may hold is reached with small
files. Uploads are sent as an attacker sends them (tests/browser/raw_requests.py: raw HTTP with a tab's own session
id, XSRF token and cookies), to see whether the server answers from the headers, before any byte of the body.

Checked: signed out, a deep link (on a fresh server), the root and an unknown page show nothing but the sign-in; a
deep link opened before sign-in opens with its settings after it; signed in, the annotator is the user (no name
field; the link's ``annotator`` counts for nothing) and the marks in the annotation database carry the user's
address; sign-out returns to the sign-in screen; an address outside the allow-list is refused with a sign-out;
signed out or refused, a tab gets no byte of an upload into the server; a member uploads from their own tab only,
within the bound, and the Data page says why a file past it was not taken.
The rest of the gate's rules (each provider's button, an incomplete setup, the allow-list's entries) are checked
without a browser: tests/app/test_signin_gate.py, tests/test_signin.py; the guard's: tests/test_uploads.py.
"""

from __future__ import annotations

import importlib.util
import re
import secrets
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from playwright.sync_api import Page, expect

import raw_requests as req
from evalcore.annotations import AnnotationStore
from test_browser import rerun, wait_for_app
from evalcore_app.sample import db_id

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)

DATASET = "sample:collocations_sim"
ANNOTATE_LINK = f"/annotate?dataset={DATASET}&annotator=mallory&ann_size=3&ann_seed=7"
MEMBER_BY_LIST = "alice@lab.example"  # on secrets.toml's list
MEMBER_BY_DOMAIN = "bob@members.example"  # of the domain in EVALCORE_ALLOWED_USERS
STRANGER = "eve@elsewhere.example"
NEXT_COOKIE = "evalcore_next"  # where the sign-in screen keeps the link asked for (evalcore_app/auth.py)


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    """A local OpenID provider (oidc-provider-mock) on a free port of 127.0.0.1; its base URL."""
    port = browser_conftest._free_port()
    log = tmp_path_factory.mktemp("oidc_log") / "provider.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port",
                                 str(port)], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + browser_conftest.STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the OpenID provider exited with code {proc.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/.well-known/openid-configuration", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the OpenID provider did not answer within {browser_conftest.STARTUP_TIMEOUT_S} s:\n"
                                   f"{log.read_text()}")
            time.sleep(0.1)
        yield url
    finally:
        browser_conftest._stop(proc)


@pytest.fixture(scope="module")
def signin_store(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("signin_store")


@pytest.fixture(scope="module")
def signin_url(browser, provider, signin_store, tmp_path_factory):
    """The dashboard with sign-in: a secrets file in a temporary folder (Streamlit fills in ``{port}``)."""
    if browser is None:
        pytest.fail(browser_conftest.MISSING_CHROMIUM, pytrace=False)
    folder = tmp_path_factory.mktemp("signin_secrets")
    secrets_toml = folder / "secrets.toml"
    secrets_toml.write_text(
        "[auth]\n"
        'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{secrets.token_hex(32)}"\n'
        'client_id = "evalcore-tests"\n'
        f'client_secret = "{secrets.token_hex(16)}"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n\n'
        "[evalcore]\n"
        f'allowed_users = ["{MEMBER_BY_LIST}"]\n')
    with pytest.MonkeyPatch.context() as mp:  # serve() passes its environment to the server
        mp.setenv("EVALCORE_ALLOWED_USERS", "members.example")
        with browser_conftest.serve(["-m", "evalcore_app.serve", "--secrets.files", str(secrets_toml), "--server.maxUploadSize",
                                     "1"], signin_store, folder / "streamlit.log") as url:
            yield url


@pytest.fixture()
def browse(browser, signin_url):
    """A fresh browser context (no cookies: signed out) on the sign-in server; only 127.0.0.1 is reachable."""
    contexts, pages = [], []

    def local_only(route):
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            route.abort()

    def open_page(path: str = "/") -> Page:
        context = browser.new_context(viewport=browser_conftest.VIEWPORT)
        context.add_init_script(browser_conftest.RUN_COUNTER)
        context.route("**/*", local_only)
        contexts.append(context)
        page = context.new_page()
        pages.append(page)
        SESSIONS[page] = req.watch_sessions(page)
        page.goto(signin_url + path)
        return page

    yield open_page
    try:
        for page in pages:
            expect(page.get_by_test_id("stException")).to_have_count(0, timeout=1_000)
    finally:
        for context in contexts:
            context.close()


SESSIONS: dict = {}  # page -> the ids of the Streamlit sessions its websocket announced (the last is the tab's now)


def tab(page: Page) -> tuple[str, dict[str, str]]:
    """The tab's Streamlit session id now and its browser's cookies (after wait_for_app)."""
    return SESSIONS[page][-1], req.cookies_of(page.context)


def expect_sign_in_screen_only(page: Page) -> None:
    """The sign-in screen and nothing else: no navigation, no sidebar, no page heading, no data."""
    wait_for_app(page)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    main = page.get_by_test_id("stMain").inner_text()
    assert main.split() == "evalcore This lab's evalcore server is for its members. Sign in to use it. Sign in".split()
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)


def shown(locator) -> str:
    """A locator's text as read (without the invisible word joiners that keep an address from becoming a link)."""
    return locator.inner_text().replace("\u2060", "")


def back_from_provider(page: Page, provider: str) -> None:
    page.wait_for_url(re.compile(r"^http://127\.0\.0\.1:(?!%d/)" % urlsplit(provider).port))


def sign_in(page: Page, who: str, provider: str) -> None:
    """Click "Sign in", give ``who`` at the provider's authorize page, and come back."""
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{provider}/oauth2/authorize?*")
    page.locator("input[name=sub]").fill(who)
    page.get_by_role("button", name="Authorize").click()
    back_from_provider(page, provider)


def sign_out(page: Page, provider: str) -> None:
    """Click "Sign out"; the provider ends its session too (its page asks to confirm), then back to the app."""
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(f"{provider}/oauth2/end_session?*")
    page.get_by_role("button", name="End session").click()
    back_from_provider(page, provider)


def test_a_deep_link_survives_sign_in_the_user_annotates_whatever_the_link_says_and_signs_out(
        browse, provider, signin_store):
    """The first visitor of a fresh server opens a deep link to the Annotate page (a sample's size and seed, and
    another annotator's name): only the sign-in screen. After sign-in, the link's page with its settings (Streamlit's
    callback returned to the root; the app sent the browser on), where the signed-in user annotates: no name field,
    the marks carry the user's address. Then sign-out, and the app is closed again, whatever the path."""
    page = browse(ANNOTATE_LINK)
    expect_sign_in_screen_only(page)
    assert urlsplit(page.url).path == "/annotate"  # the link is still the browser's address
    cookie = {c["name"]: c["value"] for c in page.context.cookies()}[NEXT_COOKIE]
    assert unquote(cookie) == ANNOTATE_LINK.replace(":", "%3A")  # kept for after sign-in
    sign_in(page, MEMBER_BY_DOMAIN, provider)
    page.wait_for_url(re.compile(r"/annotate\?"))
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Annotate a random sample")).to_be_visible()
    now = parse_qs(urlsplit(page.url).query)
    assert (now["dataset"], now["ann_size"], now["ann_seed"]) == ([DATASET], ["3"], ["7"])
    assert NEXT_COOKIE not in {c["name"] for c in page.context.cookies()}  # used once
    assert f"Signed in as {MEMBER_BY_DOMAIN}" in shown(page.get_by_test_id("stSidebar"))
    assert f"Annotating as {MEMBER_BY_DOMAIN}" in shown(page.get_by_test_id("stMain"))
    expect(page.get_by_label("Your name (annotator)")).to_have_count(0)
    with rerun(page):
        page.get_by_role("button", name="Draw the sample").click()
    keys = page.frame_locator('iframe[data-testid="stCustomComponentV1"]')  # the key queue (evalcore_app/components)
    for i in range(2):
        expect(keys.get_by_test_id("keyqueue-title")).to_contain_text(f"Candidate {i + 1} of 3")
        keys.get_by_role("button", name=re.compile(r"^TP")).click()
        expect(page.get_by_test_id("stProgress")).to_contain_text(f"{i + 1} of 3 annotated by you")
    store = AnnotationStore(signin_store / "annotations.sqlite3")
    (sample,) = store.samples(db_id(DATASET))["sample"]
    marks = store.annotations(db_id(DATASET), sample)
    assert marks["annotator"].tolist() == [MEMBER_BY_DOMAIN] * 2  # not "mallory", the link's name
    assert marks["label"].tolist() == ["TP", "TP"]

    sign_out(page, provider)
    expect_sign_in_screen_only(page)
    assert not {"_streamlit_user", "_streamlit_user_tokens"} & {c["name"] for c in page.context.cookies()}
    page.goto("{0.scheme}://{0.netloc}/no-such-page?x=1".format(urlsplit(page.url)))
    expect_sign_in_screen_only(page)


def test_an_address_outside_the_allow_list_is_refused(browse, provider):
    """A stranger signs in: a polite refusal and a sign-out, nothing of the app (not the page the link asked for)."""
    page = browse("/precision")
    expect_sign_in_screen_only(page)
    sign_in(page, STRANGER, provider)
    wait_for_app(page)
    text = shown(page.get_by_test_id("stMain"))
    assert f"The address {STRANGER} is not on this server's list of members" in text
    assert "Precision" not in text
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(page.get_by_role("button", name="Sign out")).to_be_visible()


def test_a_tab_that_is_not_let_in_gets_no_byte_of_an_upload_into_the_server(browse, provider, signin_url):
    """Issue 29: with its own session id, XSRF token and cookies, a tab that shows the sign-in screen, and then the
    refusal of an address outside the allow-list, is answered 403 from an upload's headers, before any byte of the
    body is sent: an upload stating 1,000,000 bytes (within the 1 MB limit, which Streamlit alone would wait for), a
    chunked one (no length), a whole small one (which Streamlit alone took); removing a file is refused too."""
    page = browse("/")
    expect_sign_in_screen_only(page)
    for who in ("signed out", STRANGER):
        if who == STRANGER:
            sign_in(page, STRANGER, provider)
            wait_for_app(page)
            expect(page.get_by_role("button", name="Sign out")).to_be_visible()
            assert f"The address {STRANGER} is not on" in shown(page.get_by_test_id("stMain"))
        session, cookies = tab(page)
        assert req.headers_only(signin_url, session, cookies, length=1_000_000) == 403, who
        assert req.headers_only(signin_url, session, cookies, chunked=True) == 403, who
        assert req.upload(signin_url, session, cookies, b"w1,is_tp,score\nx,TRUE,1\n") == 403, who
        assert req.delete(signin_url, session, cookies, "any-file") == 403, who
    assert "_streamlit_user" in cookies  # the stranger was signed in: the cookie alone does not let in


def test_a_member_uploads_from_their_own_tab_within_what_a_tab_may_hold(browse, provider, signin_url):
    """A member's tab uploads (204); past the 1 MB a tab may hold, an upload is refused from its headers (413) and the
    member's Data page says why in words; a removed file frees its bytes. The member's cookie does not open another
    tab's session, a signed-out browser's cookies do not open the member's, and Streamlit's XSRF check still
    holds behind the guard."""
    page = browse("/")
    sign_in(page, MEMBER_BY_LIST, provider)
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Data")).to_be_visible()
    session, cookies = tab(page)
    assert req.upload(signin_url, session, cookies, b"x" * 600_000, file_id="first") == 204
    assert req.headers_only(signin_url, session, cookies, length=600_000) == 413
    expect(page.get_by_text(re.compile(r"A file of 0\.6 MB was not uploaded: the files this tab has uploaded hold "
                                       r"0\.6 MB, and one tab may hold at most 1 MB"))).to_be_visible()
    stranger = browse("/")
    expect_sign_in_screen_only(stranger)
    assert req.headers_only(signin_url, tab(stranger)[0], cookies, length=1000) == 403  # another tab's session
    assert req.headers_only(signin_url, session, tab(stranger)[1], length=1000) == 403  # another browser's cookies
    other_token = {"X-Xsrftoken": "2|00000000|" + "0" * 32 + "|1"}  # not the token of the browser's XSRF cookie
    assert req.headers_only(signin_url, session, cookies, length=1000, extra=other_token) == 403
    assert req.delete(signin_url, session, cookies, "first") == 204
    assert req.upload(signin_url, session, cookies, b"x" * 600_000) == 204  # the freed bytes are room again


def test_the_sign_in_screens_websocket_takes_no_message_past_the_limit(browse, signin_url):
    """The websocket a visitor who is not signed in has (the sign-in screen's): a frame that announces one byte more
    than ``server.maxMessageSize`` (.streamlit/config.toml) is refused from its header, before its payload, with
    1009 (too big); Streamlit's default of 200 MB would wait for the whole of it. The server goes on serving."""
    limit = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())["server"]["maxMessageSize"] * 10**6
    assert limit < 200 * 10**6  # set deliberately (README: Host it for your lab)
    assert req.websocket_close_code_for_announced_frame(signin_url, limit + 1) == 1009
    expect_sign_in_screen_only(browse("/"))
