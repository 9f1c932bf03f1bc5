"""What one tab may hold in uploaded files (issue 29 §1), on a server without sign-in, started as ``./dev run``
starts it (``python -m evalcore_app.serve``, with the upload guard of evalcore_app/uploads.py) with an upload limit of 1 MB
(``server.maxUploadSize``): the bytes a tab holds are counted and an upload past the bound is refused from its
headers, before its body is sent; the Data page says why in words, and the message goes once the files fit again.

Raw requests go out as tests/browser/raw_requests.py sends them, with the tab's own session id and XSRF token.
With sign-in on, the same bound for a member's tab and who may upload at all: tests/browser/test_browser_signin.py.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from playwright.sync_api import expect

import raw_requests as req
from test_browser import rerun, wait_for_app
from evalcore_app.uploads import FILE_OVERHEAD, FRAMING_BYTES, MB

_spec = importlib.util.spec_from_file_location("browser_conftest", Path(__file__).with_name("conftest.py"))
browser_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(browser_conftest)

BOUND = 1 * MB + FRAMING_BYTES  # what one tab may hold with server.maxUploadSize = 1
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "collocations_sim.tsv"  # 0.34 MB


@pytest.fixture(scope="module")
def bounded_url(browser, tmp_path_factory):
    if browser is None:
        pytest.fail(browser_conftest.MISSING_CHROMIUM, pytrace=False)
    folder = tmp_path_factory.mktemp("uploads")
    with browser_conftest.serve(["-m", "evalcore_app.serve", "--server.maxUploadSize", "1"], folder / "store",
                                folder / "streamlit.log") as url:
        yield url


@pytest.fixture()
def open_tab(browser, bounded_url):
    """A fresh browser context on the bounded server; yields a function returning (page, its session ids)."""
    contexts = []

    def opened(path: str = "/"):
        context = browser.new_context(viewport=browser_conftest.VIEWPORT)
        context.add_init_script(browser_conftest.RUN_COUNTER)
        contexts.append(context)
        page = context.new_page()
        sessions = req.watch_sessions(page)
        page.goto(bounded_url + path)
        wait_for_app(page)
        return page, sessions

    yield opened
    for context in contexts:
        context.close()


def test_the_bytes_a_tab_holds_are_counted_and_refused_past_the_bound(open_tab, bounded_url):
    page, sessions = open_tab()
    session, cookies = sessions[-1], req.cookies_of(page.context)
    assert req.upload(bounded_url, session, cookies, b"x" * 600_000, file_id="a") == 204
    assert req.upload(bounded_url, session, cookies, b"y" * 600_000, file_id="a") == 204  # replaces: frees a's bytes
    # a new file past the bound: refused from the headers, before its body (Streamlit alone waits for it)
    assert req.headers_only(bounded_url, session, cookies, length=600_000, file_id="b") == 413
    assert req.headers_only(bounded_url, session, cookies, chunked=True, file_id="b") == 411  # no length stated
    assert req.delete(bounded_url, session, cookies, "a") == 204
    assert req.upload(bounded_url, session, cookies, b"x" * 600_000, file_id="b") == 204  # a's bytes are room again
    assert req.delete(bounded_url, session, cookies, "b") == 204
    # many small files under new ids: each counts with its record, and together they stop at the bound
    data = b"z" * 50_000
    held = len(data) + len("upload.csv") + len("text/csv") + FILE_OVERHEAD  # what one stored file counts for
    asked = len(req.form(data)) + FILE_OVERHEAD  # what one more request counts for
    fit = next(k for k in itertools.count() if k * held + asked > BOUND)  # 21
    statuses = [req.upload(bounded_url, session, cookies, data) for _ in range(fit + 2)]
    assert statuses == [204] * fit + [413] * 2
    other, other_sessions = open_tab()  # another tab holds nothing yet: its own bound
    assert req.upload(bounded_url, other_sessions[-1], req.cookies_of(other.context), b"x" * 600_000) == 204


def test_the_data_page_says_why_a_file_was_not_uploaded(open_tab):
    """A data set (0.34 MB) uploaded on the Data page, then a second file of 0.9 MB: together past the 1 MB a tab
    may hold, the second is refused; the uploader marks it, and the page says why and what to do. Removing the
    first frees its bytes: the message goes."""
    page, _ = open_tab()
    files = page.get_by_test_id("stFileUploader").locator("input[type=file]")
    with rerun(page):
        files.set_input_files(str(SAMPLE))
    expect(page.get_by_role("heading", name="Columns of collocations_sim.tsv")).to_be_visible()
    second = {"name": "more.tsv", "mimeType": "text/tab-separated-values", "buffer": b"x" * 900_000}
    files.set_input_files([second])
    message = page.get_by_text("A file of 0.9 MB was not uploaded: the files this tab has uploaded hold 0.3 MB, and "
                               "one tab may hold at most 1 MB of uploaded files at once")
    expect(message).to_be_visible()
    expect(page.get_by_test_id("stFileUploader")).to_contain_text("413")  # the uploader's own mark on the file
    expect(page.get_by_text("Remove the files you no longer need from the uploaders (×), then add that file "
                            "again.")).to_be_visible()
    with rerun(page):
        page.get_by_role("button", name="Remove collocations_sim.tsv").click()
    expect(message).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
