"""Requests as an attacker sends them (issue 29): raw HTTP on a socket to Streamlit's upload route, with a browser
tab's own session id and cookies, and a websocket frame announced without its payload, so that a test can tell
whether the server answered from the headers, before any byte of the body was sent.

Used by tests/browser/test_browser_signin.py, tests/browser/test_browser_uploads.py and bench/bench_uploads.py.
"""

from __future__ import annotations

import base64
import os
import select
import socket
import struct
import uuid
from urllib.parse import urlsplit

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

ROUTE = "/_stcore/upload_file"
ANSWER_TIMEOUT_S = 120  # generous: the machine may be loaded; the guard answers at once
BOUNDARY = "evalcoreboundary"


def watch_sessions(page) -> list[str]:
    """The ids of the Streamlit sessions a tab's websocket announces (``new_session``), in order; call before
    ``page.goto``. A tab that signs in comes back with a new session: the last id is the tab's session now."""
    sessions: list[str] = []

    def on_frame(payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            msg = ForwardMsg()
            try:
                msg.ParseFromString(bytes(payload))
            except Exception:  # not a ForwardMsg (a component's own socket)
                return
            if msg.HasField("new_session") and msg.new_session.initialize.session_id not in sessions:
                sessions.append(msg.new_session.initialize.session_id)

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    return sessions


def cookies_of(context) -> dict[str, str]:
    """A browser context's cookies (its XSRF token ``_streamlit_xsrf``, its sign-in cookie ``_streamlit_user``)."""
    return {c["name"]: c["value"] for c in context.cookies()}


def _headers(url: str, method: str, path: str, cookies: dict[str, str], extra: dict[str, str]) -> bytes:
    parts = urlsplit(url)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {parts.netloc}", f"Origin: {parts.scheme}://{parts.netloc}"]
    if cookies:
        lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
    if "_streamlit_xsrf" in cookies and "X-Xsrftoken" not in extra:
        lines.append(f"X-Xsrftoken: {cookies['_streamlit_xsrf']}")
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _status(sock: socket.socket, timeout: float) -> int | None:
    """The status code of the answer, or None when none came within ``timeout`` seconds."""
    sock.settimeout(timeout)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, TimeoutError):
        return None
    except ConnectionResetError:
        pass
    line = data.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) >= 2 and line[1].isdigit() else None


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=30)


def file_path(session: str, file_id: str | None = None) -> str:
    return f"{ROUTE}/{session}/{file_id or uuid.uuid4()}"


def headers_only(url: str, session: str, cookies: dict[str, str], *, length: int | None = 10**6,
                 chunked: bool = False, file_id: str | None = None, method: str = "PUT",
                 extra: dict[str, str] | None = None, timeout: float = ANSWER_TIMEOUT_S) -> int | None:
    """Send an upload request's headers (``Content-Length: length``, or ``Transfer-Encoding: chunked``) and nothing
    of its body; the status the server answered with meanwhile, or None when it waited ``timeout`` seconds for the
    body."""
    more = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", **(extra or {})}
    if chunked:
        more["Transfer-Encoding"] = "chunked"
    elif length is not None:
        more["Content-Length"] = str(length)
    with _connect(url) as sock:
        sock.sendall(_headers(url, method, file_path(session, file_id), cookies, more))
        return _status(sock, timeout)


def form(data: bytes, name: str = "upload.csv") -> bytes:
    """The multipart body a browser sends for one file."""
    return (f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{name}"; filename="{name}"\r\n'
            "Content-Type: text/csv\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def upload(url: str, session: str, cookies: dict[str, str], data: bytes, *, file_id: str | None = None,
           extra: dict[str, str] | None = None, timeout: float = ANSWER_TIMEOUT_S) -> int | None:
    """A whole upload of ``data`` as one file (headers, then the body in pieces, stopping when the server answers
    early, as a browser does); the status of the answer."""
    body = form(data)
    more = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}", "Content-Length": str(len(body)),
            "Connection": "close", **(extra or {})}
    with _connect(url) as sock:
        sock.sendall(_headers(url, "PUT", file_path(session, file_id), cookies, more))
        try:
            for at in range(0, len(body), 1 << 16):
                if select.select([sock], [], [], 0)[0]:  # answered already: send no more
                    break
                sock.sendall(body[at:at + (1 << 16)])
        except (BrokenPipeError, ConnectionResetError):  # answered and closed before the whole body went
            pass
        return _status(sock, timeout)


def delete(url: str, session: str, cookies: dict[str, str], file_id: str, *,
           timeout: float = ANSWER_TIMEOUT_S) -> int | None:
    """Remove an uploaded file, as the uploader's × does; the status of the answer."""
    with _connect(url) as sock:
        sock.sendall(_headers(url, "DELETE", file_path(session, file_id), cookies,
                              {"Content-Length": "0", "Connection": "close"}))
        return _status(sock, timeout)


def websocket_close_code_for_announced_frame(url: str, length: int, *,
                                            timeout: float = ANSWER_TIMEOUT_S) -> int | None:
    """Open the app's websocket (``/_stcore/stream``) as a browser would, send the header of one binary frame that
    announces ``length`` bytes and none of them; the close code the server answered with meanwhile (1009: too big),
    or None when it waited ``timeout`` seconds for the payload."""
    parts = urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    with _connect(url) as sock:
        sock.sendall(("GET /_stcore/stream HTTP/1.1\r\n"
                      f"Host: {parts.netloc}\r\nOrigin: {parts.scheme}://{parts.netloc}\r\n"
                      "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Protocol: streamlit\r\n\r\n").encode())
        sock.settimeout(timeout)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return None
            data += chunk
        if b" 101 " not in data.split(b"\r\n", 1)[0]:
            raise AssertionError(f"the websocket was not opened: {data[:200]!r}")
        data = data.split(b"\r\n\r\n", 1)[1]
        sock.sendall(struct.pack("!BBQ", 0x82, 0x80 | 127, length) + os.urandom(4))  # FIN, binary; masked; 64-bit length
        try:
            while True:  # frames from the server (unmasked): skip all but a close frame
                while len(data) < 2:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return None
                    data += chunk
                opcode, size, at = data[0] & 0x0F, data[1] & 0x7F, 2
                if size == 126:
                    size, at = None if len(data) < 4 else struct.unpack("!H", data[2:4])[0], 4
                elif size == 127:
                    size, at = None if len(data) < 10 else struct.unpack("!Q", data[2:10])[0], 10
                if size is None or len(data) < at + size:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return None
                    data += chunk
                    continue
                payload, data = data[at:at + size], data[at + size:]
                if opcode == 0x8:
                    return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
        except (socket.timeout, TimeoutError):
            return None
