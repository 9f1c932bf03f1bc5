"""The report in a real browser: the sidebar shows the view's signature beside the share link (its settings, no
numbers), the report button downloads a ZIP that opens and holds that signature with the digest of the report's
numbers, the paper's numbers and the figures, and a figure downloaded from a page carries its own signature inside
(the same settings, its part and the digest of its table), which `evalcore reproduce` checks. Helpers are in
test_browser.py."""

from __future__ import annotations

import io
import json
import zipfile
from contextlib import redirect_stdout
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from evalcore.cli import main
from evalcore.report.embed import read_signature
from evalcore.report.signature import file_sha256, parse_signature
from test_browser import load_krenn_stable, save_screenshot, wait_for_app, wait_for_figures

REPORT_MS = 240_000  # the report draws 18 images through kaleido (one browser session): seconds, more on a busy machine
VIEW = [("ties", "stable"), ("m", "log.like"), ("m", "t.score"), ("m", "chisq"), ("m", "freq"), ("a", "log.like"),
        ("b", "chisq")]


def sidebar_signature(page: Page) -> str:
    text = page.get_by_test_id("stSidebar").get_by_test_id("stText")
    expect(text).to_have_count(1)
    return text.inner_text().strip()


def download(page: Page, button, timeout: float = REPORT_MS) -> bytes:
    with page.expect_download(timeout=timeout) as info:
        button.click()
    return open(info.value.path(), "rb").read()


def test_report_button_downloads_the_zip(new_page, krenn_tsv, screenshot_dir):
    page = new_page("/")
    wait_for_app(page)
    load_krenn_stable(page, krenn_tsv)  # puts the file into the server's store under its SHA-256
    sha = file_sha256(krenn_tsv)
    page = new_page("/significance?" + urlencode([("dataset", sha), *VIEW]))
    wait_for_app(page)
    wait_for_figures(page)
    signature = sidebar_signature(page)
    parsed = parse_signature(signature)
    assert parsed.data == (sha,) and parsed.get("measures") == "log.like,t.score,chisq,freq"
    assert parsed.get("pair") == "log.like,chisq" and parsed.get("ties") == "stable"
    save_screenshot(page, screenshot_dir / "report_sidebar.png")

    button = page.get_by_test_id("stSidebar").get_by_role("button", name="Report (ZIP)")
    archive = zipfile.ZipFile(io.BytesIO(download(page, button)))
    assert archive.testzip() is None
    names = set(archive.namelist())
    assert {"methods.md", "methods.tex", "references.bib", "tables/precision.tex", "tables/pairwise.md",
            "report.tex", "data.json", "signature.txt", "link.txt", "figures/print/significance.pdf",
            "figures/print/significance.png", "figures/screen/precision.svg"} <= names
    report = parse_signature(archive.read("signature.txt").decode())
    assert report.numbers is not None and str(report.with_numbers(None)) == signature
    data = json.loads(archive.read("data.json"))
    # Evert (2004), Figure 3 on Krenn's data with ties in file order: G² vs X² significant at every n up to 1,268
    assert data["numbers"]["figure3"]["significant_up_to"] == 1268
    assert archive.read("link.txt").decode().strip() == page.url
    png = archive.read("figures/print/significance.png")
    assert png.startswith(b"\x89PNG") and read_signature(png, "png") == str(report)

    # a figure downloaded from the page carries its own signature: the view's settings, the part it is and the
    # digest of its table; the CSV's comes beside it, and evalcore reproduce recomputes that table from the file
    png = download(page, page.get_by_role("button", name="Figure as PNG").first, timeout=120_000)
    figure = parse_signature(read_signature(png, "png"))
    assert figure.get("part") == "significance" and figure.get("shows") == "log.like,chisq"
    assert figure.settings[:len(report.settings)] == report.settings and figure.numbers != report.numbers
    sidecar = download(page, page.get_by_role("button", name="Signature (.txt)").first, timeout=30_000)
    assert sidecar.decode().strip() == str(figure)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["reproduce", str(figure), str(krenn_tsv)]) == 0, out.getvalue()


def test_without_data_there_is_no_report_button(new_page):
    page = new_page("/")
    wait_for_app(page)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Load a data set to get a report.")).to_be_visible()
    expect(sidebar.get_by_role("button", name="Report (ZIP)")).to_have_count(0)
