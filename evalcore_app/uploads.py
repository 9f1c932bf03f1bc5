"""The upload route's door (issue 29): who may put bytes into the server's memory, and how many.

Streamlit (1.67) keeps every file a browser uploads in the server's memory until the session ends
(``MemoryUploadedFileManager``), takes any number of file ids per session, each up to ``server.maxUploadSize``,
and reads a request's body before it looks at anything but the XSRF token and whether the session exists. With
sign-in on, a visitor who only ever sees the sign-in screen still has a session, an XSRF token and that route.

:class:`UploadGuard` is an ASGI layer around the app Streamlit's server builds (:func:`install`, called by
``python -m evalcore_app.serve``, which ``./dev run`` starts). It answers every request to
``/_stcore/upload_file/<session>/<file>`` (``PUT`` uploads, ``DELETE`` removes) from its headers alone, before a
byte of the body is read (:func:`decide`):

- with sign-in on, only a session that the sign-in gate let in (:func:`admit`, called by evalcore_app/auth.py's gate) may
  upload or remove files, and only by a request that carries the same user's signed sign-in cookie; anyone else
  gets 403 (signed out, refused by the allow-list, another user's cookie, a member's cookie with another session);
- an upload states its length (``Content-Length``, as a browser always does); without it (chunked transfer) 411;
- one session (a browser tab) holds at most :func:`session_bound` of uploaded files in all: what it holds (each
  file's bytes, name and type, and :data:`FILE_OVERHEAD` for Streamlit's record of it; a file uploaded again under
  its id replaces it) plus its uploads in flight plus this request's length; past it 413, and the tab's page says
  why in words (:func:`show_refusal`; the guard asks the tab to run again once, so that it shows).

The refusal closes the connection (``Connection: close``), so the server does not read a body it will not keep.
``streamlit run app.py`` builds its server without :func:`install`: it serves the app without the guard.
Everything else (health, the sign-in routes, static files, the websocket) passes through untouched; Streamlit's own
checks (the XSRF token, the session) still run after the guard's, on what it lets through.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

UPLOAD_ROUTE = "/_stcore/upload_file"
_TARGET = re.compile(r"/_stcore/upload_file/([^/]+)/([^/]+)/?$")
FRAMING_BYTES = 64 * 1024  # the multipart form around the files a session may hold, above the upload limit
FILE_OVERHEAD = 1024  # counted per file for Streamlit's record of it: its id, the record, the dict entry (about
# 240 bytes measured with tracemalloc for 100,000 records of 1 byte), so that many empty files reach the bound too
MB = 2**20  # Streamlit's "MB" in server.maxUploadSize and in the uploader's own text


def upload_limit() -> int:
    """The largest file Streamlit accepts, in bytes (``server.maxUploadSize``, in Streamlit's MB of 2^20 bytes)."""
    return int(st.get_option("server.maxUploadSize")) * MB


def session_bound() -> int:
    """The most one session may hold in uploaded files, in bytes: the upload limit in all, and the framing of the
    requests that brought them."""
    return upload_limit() + FRAMING_BYTES


def megabytes(n: int) -> str:
    """``n`` bytes in Streamlit's MB (2^20 bytes), as its uploader writes the limit: ``12.5 MB``, ``500 MB``."""
    return f"{n / MB:.1f}".removesuffix(".0") + " MB"


# ------------------------------------------------------------------------------------------------ the decision

@dataclass(frozen=True)
class Refusal:
    """An answer to an upload request given before its body is read: what it is, the HTTP status, a sentence."""

    kind: str
    status: int
    text: str


NO_SESSION = Refusal("no_session", 400, "No such session: open the dashboard again.")
SIGN_IN = Refusal("sign_in", 403, "Uploads are open only to a signed-in member of this server, from the member's "
                                  "own tab.")
NO_LENGTH = Refusal("no_length", 411, "An upload must state its length (Content-Length); chunked uploads are not "
                                      "taken.")
BAD_LENGTH = Refusal("bad_length", 400, "The upload's Content-Length is not a number of bytes.")
NOT_UPLOAD = Refusal("not_upload", 405, "Only PUT (upload) and DELETE (remove) are answered here.")


def too_large(length: int, limit: int) -> Refusal:
    return Refusal("too_large", 413, f"The file ({megabytes(length)}) is larger than this server's upload limit of "
                                     f"{megabytes(limit)}.")


def over_bound(length: int, held: int, bound: int) -> Refusal:
    return Refusal("over_bound", 413, f"This tab already holds {megabytes(held)} of uploaded files; with this one "
                                      f"({megabytes(length)}) it would pass the {megabytes(bound - FRAMING_BYTES)} "
                                      "one tab may hold.")


def decide(*, method: str, headers: Mapping[str, str], active: bool, signin: bool, member: bool, held: int,
           limit: int, bound: int) -> Refusal | None:
    """Whether an upload request is refused, from its method and headers alone (None: let it through).

    Parameters
    ----------
    method, headers
        The request's method and headers (lower-case names).
    active
        Whether the session named in the path is an active session of this server.
    signin
        Whether sign-in is on (evalcore_app/auth.py: an ``[auth]`` section in the secrets).
    member
        Whether the session was let in by the sign-in gate and the request carries the same user's cookie.
    held
        What the session holds in uploaded files and uploads in flight, in bytes (the file this request replaces
        not counted).
    limit, bound
        The largest file and the most one session may hold, in bytes.
    """
    if not active:
        return NO_SESSION
    if signin and not member:
        return SIGN_IN
    if method == "DELETE":
        return None
    if method != "PUT":
        return NOT_UPLOAD
    if "transfer-encoding" in headers or "content-length" not in headers:
        return NO_LENGTH
    text = headers["content-length"].strip()
    if not text.isdigit():
        return BAD_LENGTH
    length = int(text)
    if length > limit + FRAMING_BYTES:
        return too_large(length, limit)
    if held + length + FILE_OVERHEAD > bound:
        return over_bound(length, held, bound)
    return None


# ------------------------------------------------------------------------------------------------ the ledger

@dataclass(frozen=True)
class Refused:
    """An upload refused for the session bound, for the tab's page: its length, what the tab held, the bound."""

    length: int
    held: int
    bound: int


class Ledger:
    """Per session: whom the sign-in gate let in, the uploads in flight, the last upload refused for the bound.

    Written from the server's event loop (the guard) and from script runs (the gate, the pages), under one lock.
    Entries of sessions the runtime no longer knows are dropped whenever something is written.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, str] = {}
        self._flight: dict[str, int] = {}
        self._refused: dict[str, Refused] = {}

    def admit(self, session: str, identity: str | None) -> None:
        with self._lock:
            if identity:
                self._members[session] = identity
            else:
                self._members.pop(session, None)
        self.prune()

    def member(self, session: str) -> str | None:
        with self._lock:
            return self._members.get(session)

    def reserve(self, session: str, n: int) -> None:
        with self._lock:
            self._flight[session] = self._flight.get(session, 0) + n

    def release(self, session: str, n: int) -> None:
        with self._lock:
            left = self._flight.get(session, 0) - n
            if left > 0:
                self._flight[session] = left
            else:
                self._flight.pop(session, None)

    def in_flight(self, session: str) -> int:
        with self._lock:
            return self._flight.get(session, 0)

    def refuse(self, session: str, refused: Refused) -> bool:
        """Keep ``refused`` for the session's page; True when none was kept before (the page is to be told)."""
        with self._lock:
            first = session not in self._refused
            self._refused[session] = refused
        self.prune()
        return first

    def refused(self, session: str) -> Refused | None:
        with self._lock:
            return self._refused.get(session)

    def forget_refusal(self, session: str) -> None:
        with self._lock:
            self._refused.pop(session, None)

    def prune(self) -> None:
        """Forget the sessions the runtime no longer has (nothing without a runtime)."""
        manager = _session_manager()
        if manager is None:
            return
        with self._lock:
            for table in (self._members, self._refused):
                for session in [s for s in table if not manager.is_active_session(s)]:
                    del table[session]


LEDGER = Ledger()


def _runtime():
    from streamlit.runtime import Runtime

    return Runtime.instance() if Runtime.exists() else None


def _session_manager():
    runtime = _runtime()
    return getattr(runtime, "_session_mgr", None) if runtime is not None else None


def file_cost(record) -> int:
    """What one stored file counts for: its bytes, name and type, and :data:`FILE_OVERHEAD`."""
    return len(record.data) + len(record.name) + len(record.type) + FILE_OVERHEAD


def stored(upload_manager, session: str, besides: str | None = None) -> int:
    """What the files a session has uploaded count for (:func:`file_cost`), the file ``besides`` left out."""
    files = dict((getattr(upload_manager, "file_storage", None) or {}).get(session) or {})  # a copy, taken at once
    return sum(file_cost(record) for file_id, record in files.items() if file_id != besides)


# ------------------------------------------------------------------------------------------------ the sign-in side

def cookie_identity(cookie_header: str | None) -> str | None:
    """Who a request's signed sign-in cookie (Streamlit's ``_streamlit_user``, signed with the ``cookie_secret``)
    says is signed in, by the same rule as :func:`evalcore_app.auth.identity`; None without a valid cookie."""
    if not cookie_header:
        return None
    from starlette.requests import cookie_parser
    from streamlit.auth_util import get_cookie_with_chunks
    from streamlit.web.server.server_util import get_cookie_secret
    from streamlit.web.server.starlette.starlette_app_utils import decode_signed_value
    from streamlit.web.server.starlette.starlette_server_config import USER_COOKIE_NAME

    cookies, secret = cookie_parser(cookie_header), get_cookie_secret()

    def single(name: str) -> bytes | None:
        value = cookies.get(name)
        return None if value is None else decode_signed_value(secret, name, value.encode("latin-1"))

    try:
        payload = json.loads(get_cookie_with_chunks(single, USER_COOKIE_NAME) or b"null")
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(payload, dict) or not payload.get("is_logged_in"):
        return None
    return str(payload.get("email") or payload.get("sub") or "").strip() or None


def admit(identity: str | None) -> None:
    """Called by the sign-in gate in every run: this session may upload as ``identity`` (None: it may not)."""
    from evalcore_app.jobs import session_id

    session = session_id()
    if session is not None:
        LEDGER.admit(session, identity)


# ------------------------------------------------------------------------------------------------ the guard

class UploadGuard:
    """ASGI layer: answers upload requests the guard refuses from their headers (see the module's docstring) and
    passes everything else to ``app``, Streamlit's app for ``runtime``."""

    def __init__(self, app, runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or UPLOAD_ROUTE not in scope["path"] or scope["method"] == "OPTIONS":
            await self.app(scope, receive, send)
            return
        from evalcore_app import auth

        headers: dict[str, str] = {}
        for key, value in scope["headers"]:  # a header given twice reads as both values ("10, 20": not a length)
            name = key.decode("latin-1").lower()
            headers[name] = ", ".join(filter(None, (headers.get(name), value.decode("latin-1"))))
        target = _TARGET.search(scope["path"])
        session, file_id = target.groups() if target else ("", "")
        active = bool(session) and self.runtime.is_active_session(session)
        signin = auth.configured()
        member = signin and active and _same_member(LEDGER.member(session), headers.get("cookie"))
        manager = self.runtime.uploaded_file_mgr
        held = (stored(manager, session, besides=file_id) + LEDGER.in_flight(session)) if active else 0
        refusal = decide(method=scope["method"], headers=headers, active=active, signin=signin, member=member,
                         held=held, limit=upload_limit(), bound=session_bound())
        if refusal is not None:
            if refusal.kind == "over_bound":
                self._tell(session, Refused(int(headers["content-length"]), held, session_bound()))
            await _answer(send, refusal)
            return
        length = int(headers.get("content-length") or 0) + FILE_OVERHEAD if scope["method"] == "PUT" else 0
        LEDGER.reserve(session, length)
        try:
            await self.app(scope, receive, send)
        finally:
            LEDGER.release(session, length)
        if scope["method"] == "DELETE" and LEDGER.refused(session) is not None:
            self._rerun(session)  # the uploader's rerun may have come before the bytes were freed: say it again

    def _tell(self, session: str, refused: Refused) -> None:
        """Keep the refusal for the tab's page and, the first time, run the tab's page again (:meth:`_rerun`)."""
        if LEDGER.refuse(session, refused):
            self._rerun(session)

    def _rerun(self, session: str) -> None:
        """Run the tab's page again with its last state (as Streamlit does when a source file changes), so that
        what it says of the uploads is true at once."""
        app_session = self.runtime.get_app_session(session)
        last = getattr(app_session, "_client_state", None)
        if app_session is None or last is None:
            return
        from streamlit.proto.ClientState_pb2 import ClientState

        state = ClientState()
        state.CopyFrom(last)
        state.fragment_id = ""  # the whole page, not a fragment of it
        app_session.request_rerun(state)


def _same_member(identity: str | None, cookie_header: str | None) -> bool:
    return identity is not None and cookie_identity(cookie_header) == identity


async def _answer(send, refusal: Refusal) -> None:
    body = refusal.text.encode()
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def install() -> None:
    """Put :class:`UploadGuard` around the app that Streamlit's server builds; call before the server starts."""
    from streamlit.web.server.starlette import starlette_server

    build = starlette_server.create_starlette_app
    if getattr(build, "upload_guard", False):
        return

    def guarded(runtime):
        return UploadGuard(build(runtime), runtime)

    guarded.upload_guard = True
    starlette_server.create_starlette_app = guarded


# ------------------------------------------------------------------------------------------------ the page side

def show_refusal() -> None:
    """On a page with uploaders: say in words why the tab's last upload was refused, while that still holds (the
    files it holds and the refused one do not fit in the bound together); forget it once they would."""
    from evalcore_app.jobs import session_id

    session = session_id()
    refused = LEDGER.refused(session) if session is not None else None
    runtime = _runtime()
    if refused is None or runtime is None:
        return
    held = stored(runtime.uploaded_file_mgr, session)
    if held + refused.length + FILE_OVERHEAD <= refused.bound:
        LEDGER.forget_refusal(session)
        return
    st.error(f"A file of {megabytes(refused.length)} was not uploaded: the files this tab has uploaded hold "
             f"{megabytes(held)}, and one tab may hold at most {megabytes(refused.bound - FRAMING_BYTES)} of uploaded "
             "files at once (they stay in the server's memory while the tab is open). Remove the files you no longer "
             "need from the uploaders (×), then add that file again.")
