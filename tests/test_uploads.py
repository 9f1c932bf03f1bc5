"""The upload guard's rules without a server (evalcore_app/uploads.py, issue 29 §1): which requests are refused from their
headers, how the bytes a session holds are counted, whose sign-in cookie a request carries, and that a refused
request's body is never read.

Against a real server with a real OpenID provider and Chromium: tests/browser/test_browser_signin.py (who may
upload) and tests/browser/test_browser_uploads.py (the bound, and the Data page's message).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec
from streamlit.web.server.starlette.starlette_app_utils import create_signed_value

from evalcore_app import auth, uploads
from evalcore_app.uploads import FILE_OVERHEAD, FRAMING_BYTES, MB, Ledger, Refused, decide, file_cost, stored

LIMIT = 1 * MB  # server.maxUploadSize = 1
BOUND = LIMIT + FRAMING_BYTES
PUT = {"content-length": "1000", "content-type": "multipart/form-data; boundary=x"}


def kind(method="PUT", headers=PUT, active=True, signin=False, member=False, held=0):
    refusal = decide(method=method, headers=headers, active=active, signin=signin, member=member, held=held,
                     limit=LIMIT, bound=BOUND)
    return None if refusal is None else (refusal.kind, refusal.status)


def test_a_member_or_anyone_without_sign_in_may_upload_and_remove():
    assert kind() is None
    assert kind(signin=True, member=True) is None
    assert kind("DELETE", {}, signin=True, member=True) is None


@pytest.mark.parametrize("method", ["PUT", "DELETE", "POST", "GET"])
def test_with_sign_in_nobody_else_may_do_anything(method):
    """Signed out, signed in but not let in, or another user's cookie: 403 before anything else is looked at (a
    chunked upload or a huge one too)."""
    for headers in (PUT, {}, {"transfer-encoding": "chunked"}, {"content-length": str(10**12)}):
        assert kind(method, headers, signin=True, member=False) == ("sign_in", 403)


def test_a_session_the_server_does_not_have():
    assert kind(active=False) == ("no_session", 400)
    assert kind(active=False, signin=True, member=True) == ("no_session", 400)


@pytest.mark.parametrize("headers", [{}, {"transfer-encoding": "chunked"},
                                     {"transfer-encoding": "chunked", "content-length": "10"}])
def test_an_upload_that_does_not_state_its_length(headers):
    assert kind("PUT", headers) == ("no_length", 411)


@pytest.mark.parametrize("length", ["", "abc", "-5", "1e6", "10 20", "0x10"])
def test_a_length_that_is_not_a_number_of_bytes(length):
    assert kind("PUT", {"content-length": length}) == ("bad_length", 400)


def test_other_methods():
    assert kind("POST") == ("not_upload", 405)
    assert kind("PATCH", signin=True, member=True) == ("not_upload", 405)


def test_a_file_past_the_upload_limit():
    assert kind("PUT", {"content-length": str(LIMIT + FRAMING_BYTES + 1)}) == ("too_large", 413)


def test_the_session_bound_counts_what_is_held_and_this_request():
    """held + this request + its record's overhead may reach the bound, not pass it."""
    length = 300_000
    fits = BOUND - length - FILE_OVERHEAD
    assert kind("PUT", {"content-length": str(length)}, held=fits) is None
    assert kind("PUT", {"content-length": str(length)}, held=fits + 1) == ("over_bound", 413)
    assert kind("PUT", {"content-length": "0"}, held=BOUND) == ("over_bound", 413)  # many empty files count too
    assert kind("DELETE", {}, held=10 * BOUND) is None  # removing is always allowed


def _record(file_id: str, size: int, name: str = "f.csv") -> UploadedFileRec:
    return UploadedFileRec(file_id=file_id, name=name, type="text/csv", data=b"x" * size)


def test_what_a_session_holds_is_counted_from_streamlits_own_store():
    manager = MemoryUploadedFileManager("/_stcore/upload_file")
    manager.add_file("s1", _record("a", 1000))
    manager.add_file("s1", _record("b", 2000, name="n" * 500))
    manager.add_file("s2", _record("c", 9000))
    a, b = file_cost(_record("a", 1000)), file_cost(_record("b", 2000, name="n" * 500))
    assert a == 1000 + len("f.csv") + len("text/csv") + FILE_OVERHEAD
    assert stored(manager, "s1") == a + b  # another session's files are not counted
    assert stored(manager, "s1", besides="b") == a  # the file a request replaces
    manager.add_file("s1", _record("b", 10))  # replaced under its id: its bytes are freed
    assert stored(manager, "s1") == a + file_cost(_record("b", 10, name="f.csv"))
    manager.remove_file("s1", "a")
    assert stored(manager, "s1") == file_cost(_record("b", 10))
    manager.remove_session_files("s1")
    assert stored(manager, "s1") == 0
    assert "s1" not in manager.file_storage  # counting creates no entry


def test_the_ledger_counts_uploads_in_flight_and_keeps_one_refusal_per_session():
    ledger = Ledger()
    ledger.reserve("s", 100)
    ledger.reserve("s", 50)
    assert ledger.in_flight("s") == 150
    ledger.release("s", 100)
    ledger.release("s", 50)
    assert ledger.in_flight("s") == 0
    assert ledger.refuse("s", Refused(1, 2, 3)) is True  # the first: the page is to be told
    assert ledger.refuse("s", Refused(4, 5, 6)) is False  # told already: no second rerun
    assert ledger.refused("s") == Refused(4, 5, 6)
    ledger.forget_refusal("s")
    assert ledger.refused("s") is None


@pytest.mark.parametrize("n, text", [(MB, "1 MB"), (500 * MB, "500 MB"), (int(0.9 * MB), "0.9 MB"), (0, "0 MB")])
def test_megabytes_as_streamlit_counts_them(n, text):
    assert uploads.megabytes(n) == text


# ------------------------------------------------------------------------------------------------ the cookie

SECRET = "s" * 64


@pytest.fixture()
def cookie_secret(monkeypatch):
    from streamlit.web.server import server_util

    monkeypatch.setattr(server_util, "get_cookie_secret", lambda: SECRET)


def _cookie(payload, secret: str = SECRET, name: str = "_streamlit_user") -> str:
    return f"{name}=" + create_signed_value(secret, name, json.dumps(payload)).decode()


def test_the_cookie_names_the_signed_in_user_as_the_gate_does(cookie_secret):
    origin = "http://127.0.0.1:8501"
    assert uploads.cookie_identity(_cookie({"is_logged_in": True, "email": "a@lab.example", "origin": origin})) \
        == "a@lab.example"
    assert uploads.cookie_identity("x=1; " + _cookie({"is_logged_in": True, "sub": "u-17"}) + "; y=2") == "u-17"


@pytest.mark.parametrize("cookie", [None, "", "x=1", "_streamlit_user=forged",
                                    _cookie({"is_logged_in": False, "email": "a@lab.example"}),
                                    _cookie({"is_logged_in": True, "email": "a@lab.example"}, secret="t" * 64),
                                    _cookie({"is_logged_in": True, "email": "a@lab.example"}, name="other"),
                                    _cookie(["a@lab.example"]), _cookie({"is_logged_in": True})],
                         # signed values carry a timestamp: ids fixed by position, so that every xdist worker
                         # collects the same test names
                         ids=lambda c: None if c is None else "cookie")
def test_no_valid_signed_cookie_no_user(cookie_secret, cookie):
    """No cookie, a forged or unsigned one, one signed with another secret or for another cookie, signed out."""
    assert uploads.cookie_identity(cookie) is None


# ------------------------------------------------------------------------------------------------ the ASGI layer

class _Runtime:
    """The three things the guard asks Streamlit's runtime: does a session exist, its uploaded files, its
    AppSession (None: no rerun is asked for)."""

    def __init__(self, sessions) -> None:
        self.sessions = set(sessions)
        self.uploaded_file_mgr = MemoryUploadedFileManager("/_stcore/upload_file")

    def is_active_session(self, session: str) -> bool:
        return session in self.sessions

    def get_app_session(self, session: str):
        return None


def _request(guard, method: str, path: str, headers: dict[str, str]):
    """Send one request through ``guard``; (status, whether the body was read, whether the app behind was called)."""
    seen = {"read": False, "app": False, "status": None}

    async def app(scope, receive, send):
        seen["app"] = True
        await receive()
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive():
        seen["read"] = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            seen["status"] = message["status"]

    guard.app = app
    pairs = headers.items() if isinstance(headers, dict) else headers
    scope = {"type": "http", "method": method, "path": path, "headers": [(k.encode(), v.encode()) for k, v in pairs]}
    # in a thread of its own: a browser test run before in this worker may leave Playwright's loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, guard(scope, receive, send)).result()
    return seen["status"], seen["read"], seen["app"]


@pytest.fixture()
def signin(monkeypatch):
    monkeypatch.setattr(auth, "configured", lambda: True)


def test_a_refused_request_is_answered_without_its_body_being_read(monkeypatch, signin):
    monkeypatch.setattr(uploads, "upload_limit", lambda: LIMIT)
    monkeypatch.setattr(uploads, "session_bound", lambda: BOUND)
    guard = uploads.UploadGuard(None, _Runtime({"s1"}))
    path = "/_stcore/upload_file/s1/f1"
    assert _request(guard, "PUT", path, PUT) == (403, False, False)  # signed out
    assert _request(guard, "PUT", "/evalcore/_stcore/upload_file/nobody/f1", PUT) == (400, False, False)
    assert _request(guard, "PUT", "/_stcore/upload_file/s1", PUT) == (400, False, False)  # no file id
    monkeypatch.setattr(auth, "configured", lambda: False)  # sign-in off: the length is looked at
    scope_headers = [("content-length", "10"), ("content-length", "2000000")]  # which one would the app read?
    assert _request(guard, "PUT", path, scope_headers) == (400, False, False)


def test_a_members_upload_passes_and_is_counted_while_in_flight(monkeypatch, signin, cookie_secret):
    monkeypatch.setattr(uploads, "upload_limit", lambda: LIMIT)
    monkeypatch.setattr(uploads, "session_bound", lambda: BOUND)
    monkeypatch.setattr(uploads, "LEDGER", Ledger())
    uploads.LEDGER.admit("s1", "a@lab.example")  # as the gate's admit() does in the session's run
    runtime = _Runtime({"s1", "s2"})
    guard = uploads.UploadGuard(None, runtime)
    member = {**PUT, "cookie": _cookie({"is_logged_in": True, "email": "a@lab.example"})}
    assert _request(guard, "PUT", "/_stcore/upload_file/s1/f1", member) == (204, True, True)
    assert uploads.LEDGER.in_flight("s1") == 0  # released once the app answered
    assert _request(guard, "PUT", "/_stcore/upload_file/s2/f1", member)[0] == 403  # another session's id
    other = {**PUT, "cookie": _cookie({"is_logged_in": True, "email": "b@lab.example"})}
    assert _request(guard, "PUT", "/_stcore/upload_file/s1/f1", other)[0] == 403  # another user's cookie
    runtime.uploaded_file_mgr.add_file("s1", _record("f1", LIMIT - 500_000))
    big = {**member, "content-length": "600000"}
    assert _request(guard, "PUT", "/_stcore/upload_file/s1/f2", big) == (413, False, False)  # past the bound
    assert _request(guard, "PUT", "/_stcore/upload_file/s1/f1", big)[0] == 204  # replaces f1: fits
    assert _request(guard, "OPTIONS", "/_stcore/upload_file/s2/f1", {})[0] == 204  # CORS preflight passes
    assert _request(guard, "GET", "/_stcore/health", {})[0] == 204  # everything else passes
