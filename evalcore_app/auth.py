"""Sign-in: who may use a lab's server (Streamlit's own ``st.login``, OpenID Connect).

Sign-in is on when the server's secrets (``.streamlit/secrets.toml``, or the files named by the option
``secrets.files``) have an ``[auth]`` section, as Streamlit documents for ``st.login``; without it the dashboard is
open as before and annotators type their names. When it is on:

- :func:`gate`, called first in app.py, lets nothing of the app run before sign-in: a visitor who is not signed in
  sees only a sign-in screen (no page, no data, no navigation), then the script stops;
- the annotator is the signed-in user (:func:`identity`); no name field, and no link can change it;
- only a session the gate let in may upload files: the gate tells :mod:`evalcore_app.uploads` in every run, and its guard
  refuses any other session's uploads from their headers, before their bytes are read;
- an optional allow-list of addresses and domains (:func:`allow_list`) decides who may enter; anyone else is
  told so politely and offered a sign-out;
- a deep link opened before sign-in opens after it: Streamlit's OAuth callback always returns to the app's root, so
  the sign-in screen keeps the link asked for in a short-lived cookie (:data:`NEXT_COOKIE`, written in the browser),
  and the first run after sign-in sends the browser back to it and deletes the cookie (:func:`next_path` checks it is
  a path of this app, never another site).

evalcore itself never knows who is signed in: the pages pass the identity as the annotator's name.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import quote, unquote, urlencode, urlsplit

import streamlit as st

from evalcore.text import markdown_text as esc
from evalcore_app import uploads

NEXT_COOKIE = "evalcore_next"  # the link asked for before sign-in (path and query of this app)
NEXT_MAX_AGE_S = 600  # a sign-in that takes longer than this returns to the Data page
NEXT_MAX_CHARS = 3800  # a longer link is not kept (a cookie holds about 4 kB, the link percent-encoded)
ALLOW_ENV = "EVALCORE_ALLOWED_USERS"  # addresses and domains, separated by commas, spaces or line breaks
ALLOW_SECRET = ("evalcore", "allowed_users")  # the same list in secrets.toml: [evalcore] allowed_users = [...]


# ------------------------------------------------------------------------------------------------ configuration

def _secrets_files() -> list[Path]:
    return [Path(p) for p in st.get_option("secrets.files") or []]


def configured() -> bool:
    """Whether sign-in is on: the secrets hold an ``[auth]`` section, or a secrets file exists but cannot be read
    (then nobody may enter: a broken file must not open a lab's server to everyone)."""
    if st.secrets.load_if_toml_exists():
        return "auth" in st.secrets
    return any(path.is_file() or (path.is_dir() and any(path.iterdir())) for path in _secrets_files())


def providers() -> list[str]:
    """The sign-in providers named in ``[auth]``: ``default`` for a provider written directly in it, and the name of
    each subsection (``[auth.google]``) that holds a ``client_id``."""
    auth = st.secrets.get("auth", {})
    names = ["default"] if "client_id" in auth else []
    names += [name for name, value in auth.items() if isinstance(value, Mapping) and "client_id" in value]
    return names


def parse_allow_list(*sources: str | Iterable[str] | None) -> tuple[frozenset[str], frozenset[str]]:
    """The addresses and the domains an allow-list names, from strings (entries separated by commas, semicolons,
    spaces or line breaks) or lists of them; case does not count. An entry with an ``@`` inside is an address
    (``alice@lab.example``); any other a domain (``lab.example`` or ``@lab.example``), which admits every address of
    exactly that domain, not of its subdomains."""
    entries = []
    for source in sources:
        for value in [source] if isinstance(source, str) or source is None else source:
            entries += [v.strip().lower() for v in re.split(r"[\s,;]+", str(value or "")) if v.strip()]
    addresses = frozenset(e for e in entries if "@" in e.lstrip("@"))
    domains = frozenset(e.lstrip("@") for e in entries if "@" not in e.lstrip("@"))
    return addresses, domains


def allow_list() -> tuple[frozenset[str], frozenset[str]]:
    """The addresses and the domains that may enter (both empty: everyone the provider signs in).

    Read from the environment variable ``EVALCORE_ALLOWED_USERS`` and from ``allowed_users`` in the ``[evalcore]``
    section of secrets.toml (a list, or one string); an entry in either admits (see :func:`parse_allow_list`).
    """
    section, key = ALLOW_SECRET
    listed = st.secrets.get(section, {}).get(key) if st.secrets.load_if_toml_exists() else None
    return parse_allow_list(os.environ.get(ALLOW_ENV), listed)


def admitted(user: Mapping, addresses: frozenset[str], domains: frozenset[str]) -> tuple[bool, str]:
    """Whether a signed-in user may enter, and if not, why (in words for the refusal).

    ``user`` holds the provider's claims (``email``, ``email_verified``, ``sub``). With an allow-list, the user needs
    an e-mail address that the provider has not marked unverified, on the list or in a listed domain.
    """
    if not addresses and not domains:
        return True, ""
    email = str(user.get("email") or "").strip().lower()
    if not email:
        return False, "Your account did not give this server an e-mail address, and the server admits people by it."
    if user.get("email_verified") is False:
        return False, f"Your sign-in service has not verified the address {email}."
    domain = email.rpartition("@")[2]
    if email in addresses or domain in domains:
        return True, ""
    return False, f"The address {email} is not on this server's list of members."


def identity() -> str | None:
    """Who is signed in: the e-mail address the provider gives (else its subject id), or None when sign-in is off or
    nobody is signed in. The Annotate page uses it as the annotator's name."""
    if not configured():
        return None
    user = st.user
    if not user.get("is_logged_in", False):
        return None
    who = str(user.get("email") or user.get("sub") or "").strip()
    return who or None


# -------------------------------------------------------------------------------------------- the deep link

def next_path(value: str | None, base: str = "") -> str | None:
    """The link kept before sign-in, if it is a path of this app (below ``base``, the server's baseUrlPath):
    ``/significance?a=G2&b=X2``; None for anything else (another site, ``//host``, a scheme, a backslash, control
    characters, too long)."""
    if not value or len(value) > NEXT_MAX_CHARS or any(ord(c) < 32 or c == "\\" for c in value):
        return None
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not parts.path.startswith("/") or parts.path.startswith("//"):
        return None
    root = "/" + base.strip("/") if base.strip("/") else ""
    if root and not (parts.path == root or parts.path.startswith(root + "/")):
        return None
    return value


def _requested() -> str:
    """The path and query the browser asked for in this run."""
    path = urlsplit(st.context.url or "").path or "/"
    query = urlencode([(k, v) for k in st.query_params for v in st.query_params.get_all(k)])
    return f"{path}?{query}" if query else path


def _script(code: str) -> None:
    """Run a few lines of JavaScript in the page (no user text reaches it but as a JSON string)."""
    st.html(f"<script>{code}</script>", unsafe_allow_javascript=True, width="content")


def _js(value: str) -> str:
    """A JSON string literal that is safe inside a <script> element."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _cookie_path() -> str:
    return "/" + st.get_option("server.baseUrlPath").strip("/")


def _keep_link() -> bool:
    """Remember the link asked for, for after sign-in (a cookie the browser writes; the server reads it); False
    when it is too long for a cookie."""
    requested = _requested()
    if len(quote(requested, safe="-_.!~*'()")) > NEXT_MAX_CHARS:  # as encodeURIComponent writes it
        return False
    link = next_path(requested, st.get_option("server.baseUrlPath"))
    if link is None:  # not a path of this app: nothing to keep
        return True
    _script(f"document.cookie = {_js(NEXT_COOKIE)} + '=' + encodeURIComponent({_js(link)}) + "
            f"'; path={_cookie_path()}; max-age={NEXT_MAX_AGE_S}; samesite=lax';")
    return True


def _return_to_link() -> bool:
    """The first run after sign-in: send the browser back to the link kept before it, and forget it; True when the
    browser is being sent (the session's cookies are those of its start, so this is done once per session)."""
    if NEXT_COOKIE not in st.context.cookies or "_signin_link_done" in st.session_state:
        return False
    st.session_state["_signin_link_done"] = True
    forget = f"document.cookie = {_js(NEXT_COOKIE)} + '=; path={_cookie_path()}; max-age=0; samesite=lax';"
    link = next_path(unquote(st.context.cookies.get(NEXT_COOKIE) or ""), st.get_option("server.baseUrlPath"))
    if link is None or link == _requested():
        _script(forget)
        return False
    _script(forget + f" window.location.replace({_js(link)});")
    return True


# ------------------------------------------------------------------------------------------------- the gate

SIGN_IN_PATH = "sign-in"  # the sign-in screen's own path (before sign-in it answers at every other path too)


def _only(screen) -> None:
    """Show ``screen`` (a function drawing the page) and nothing else of the app: the one, hidden page of the
    navigation, at the root and at the path asked for (so that a deep link shows it, not "page not found")."""
    base = st.get_option("server.baseUrlPath").strip("/")
    path = urlsplit(st.context.url or "").path.strip("/")
    if base and (path == base or path.startswith(base + "/")):
        path = path[len(base):].strip("/")
    asked = path.split("/")[0]
    uploads.admit(None)  # a session that sees only this screen may not upload (evalcore_app/uploads.py)
    pages = [st.Page(screen, title="Sign in", url_path=SIGN_IN_PATH, default=True)]
    if asked and asked != SIGN_IN_PATH:
        pages.append(st.Page(screen, title="Sign in", url_path=asked))
    st.navigation(pages, position="hidden").run()
    st.stop()


def _login(provider: str) -> None:
    """The sign-in button's callback: Streamlit sends the browser to the provider (or the setup is incomplete)."""
    from streamlit.errors import StreamlitAuthError

    try:
        st.login(provider)
    except StreamlitAuthError as exc:
        st.session_state["_signin_problem"] = str(exc)


def _sign_in_screen() -> None:
    kept = _keep_link()
    st.title("evalcore")
    st.write("This lab's evalcore server is for its members. Sign in to use it.")
    if not kept:
        st.caption("The link you opened is too long to carry through the sign-in: open it again once signed in.")
    problem = st.session_state.pop("_signin_problem", None)
    names = providers()
    if problem or not names:
        st.error(esc("Sign-in is not set up completely on this server, so nobody can sign in; ask the server's host. "
                     + (problem or "The [auth] section of its secrets names no provider with a client_id.")))
    for name in names:
        label = "Sign in" if name == "default" else f"Sign in with {name}"
        st.button(label, key=f"signin_{name}", type="primary", on_click=_login, args=(name,))


def _unreadable_secrets() -> None:
    st.title("evalcore")
    st.error("This server's secrets file cannot be read, so nobody can sign in. Ask the server's host.")


def _refusal(why: str):
    def screen() -> None:
        st.title("evalcore")
        st.warning(esc(f"Sorry, this server is only open to its lab's members. {why} If you should have access, "
                       "ask the server's host to add you, or sign out and sign in with another account."),
                   icon=":material/block:")
        st.button("Sign out", key="signout_refused", on_click=st.logout)
    return screen


def _going_back() -> None:
    st.caption("Opening the link you asked for ...")


def gate() -> None:
    """Let the app run only for a signed-in, admitted user when sign-in is configured (see the module's
    docstring); otherwise show the sign-in screen or the refusal, and stop the script here."""
    if not configured():
        return
    if not st.secrets.load_if_toml_exists():
        _only(_unreadable_secrets)
    if not st.user.get("is_logged_in", False):
        _only(_sign_in_screen)
    ok, why = admitted(st.user, *allow_list())
    if not ok:
        _only(_refusal(why))
    if _return_to_link():
        _only(_going_back)
    uploads.admit(identity())  # this session may upload, as this user (evalcore_app/uploads.py)
    with st.sidebar:
        st.caption(esc(f"Signed in as {identity()}"))
        st.button("Sign out", key="signout", on_click=st.logout, icon=":material/logout:")


def report_annotators(names) -> "Annotators":
    """Who annotated a sample, for a report's methods text (:class:`evalcore.report.annotators.Annotators`): the
    annotators' names as the annotation database keeps them, marked as signed-in identities when sign-in is on."""
    from evalcore.report.annotators import Annotators

    return Annotators(tuple(map(str, names)), signed_in=configured())
