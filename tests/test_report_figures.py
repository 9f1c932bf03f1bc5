"""The print style (evalcore.figures.style.for_print) on the paper's figures, and signatures written into and
read out of PNG, SVG, PDF and HTML files."""

from __future__ import annotations

import io
import re
import zlib

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from evalcore.compare import compare_rankings, significant_up_to
from evalcore.curves import precision_curve
from evalcore.errors import EvalcoreError, ParameterError
from evalcore.figures import paper
from evalcore.figures.style import PRINT_SYMBOLS, for_print, print_size, print_style
from evalcore.ranking import rank_scores
from evalcore.report.embed import (embed_signature, pdf_info, png_texts, read_signature, sidecar_name)

SIGNATURE = "evalcore 0.1.0|cmd report|data sha256:" + "ab" * 32 + "|label gold%7Cx|measures G²,t|numbers " + "0" * 16


@pytest.fixture(scope="module")
def curves():
    rng = np.random.default_rng(1)
    labels = rng.random(3000) < 0.15
    rankings = {m: rank_scores(labels, labels * shift + rng.normal(size=3000), ties="stable", measure=m)
                for m, shift in (("a", 1.5), ("b", 1.0), ("c", 0.5), ("d", 0.0))}
    table = pd.concat([precision_curve(r, np.arange(50, 1001)) for r in rankings.values()], ignore_index=True)
    comparison = compare_rankings(rankings["a"], rankings["c"], np.arange(50, 1001))
    return table, comparison


def _greys(fig) -> set[str]:
    colours = set()
    for trace in fig.data:
        for value in (trace.line.color if trace.line else None, getattr(trace.marker, "color", None),
                      getattr(trace, "fillcolor", None)):
            if value:
                colours.add(value)
    return colours


def _is_grey(colour: str) -> bool:
    if colour.startswith("#"):
        r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    else:
        r, g, b = (int(float(v)) for v in re.findall(r"[\d.]+", colour)[:3])
    return r == g == b


@pytest.mark.parametrize("which", ["precision", "confidence", "significance"])
def test_print_figures_are_greyscale_with_distinct_styles(curves, which):
    table, comparison = curves
    if which == "precision":
        fig = paper.precision_figure(table, baseline=0.15)
    elif which == "confidence":
        fig = paper.confidence_figure(table[table["measure"].isin(["a", "c"])], baseline=0.15, level=0.95,
                                      method_label="Clopper-Pearson")
    else:
        fig = paper.significance_figure(table[table["measure"] == "a"], table[table["measure"] == "c"], comparison,
                                        up_to=significant_up_to(comparison), alpha=0.05, max_triangles=30)
    out = for_print(fig)
    assert out.layout.width == print_size()[0] == 321  # 8.5 cm; taller than 0.65 of that by the legend's rows
    assert out.layout.height - print_size()[1] in (37, 56) and print_size()[1] == 209
    assert all(_is_grey(c) for c in _greys(out)), _greys(out)
    lines = [t for t in out.data if t.mode == "lines+markers" and not t.name.startswith("every significant n")]
    assert len(lines) == (4 if which == "precision" else 2)
    assert len({t.line.dash for t in lines}) == len(lines) and len({t.marker.symbol for t in lines}) == len(lines)
    assert all(t.marker.maxdisplayed and t.marker.symbol != "triangle-up" for t in lines)
    assert not [t for t in out.data if t.showlegend is not False and (t.fill == "tonexty")]  # bands: no legend
    assert out.layout.font.size <= 11 and out.layout.legend.font.size >= 10  # 7.5-8.25 pt at 8.5 cm
    assert fig.layout.width is None  # the screen figure is untouched
    if which == "significance":
        markers = [t for t in out.data if t.mode == "markers"]
        assert out.data[-1] is markers[0] and markers[0].marker.symbol == "triangle-up"


def test_print_style_table():
    assert print_style(0) == ("#000000", "solid", "circle-open")
    styles = {print_style(i)[1:] for i in range(len(PRINT_SYMBOLS))}
    assert len(styles) == len(PRINT_SYMBOLS)
    with pytest.raises(ParameterError, match="`width_cm`"):
        print_size(0.5)


# ---------------------------------------------------------------------------------------------- embed

def _png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 3), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def _pdf() -> bytes:
    """A one-page PDF with a classic cross-reference table, as Chromium (Skia) writes them."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>", b"<< /Title (old) >>"]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def test_png_text_chunk_round_trip():
    data = embed_signature(_png(), "png", SIGNATURE)
    assert read_signature(data, "png") == SIGNATURE
    image = Image.open(io.BytesIO(data))
    image.load()  # still a valid PNG (chunk CRCs checked by Pillow)
    assert image.size == (4, 3) and image.info.get("evalcore signature") == SIGNATURE
    assert png_texts(_png()) == {}


def test_svg_description_round_trip():
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="1" height="1"/></svg>'
    hostile = SIGNATURE + "<script>&"
    data = embed_signature(svg, "svg", hostile)
    assert b"<script>" not in data and read_signature(data, "svg") == hostile


def test_pdf_info_by_incremental_update():
    original = _pdf()
    data = embed_signature(original, "pdf", SIGNATURE)
    assert data.startswith(original) and data.endswith(b"%%EOF\n")
    info = pdf_info(data)
    assert info["Subject"] == SIGNATURE and info["Title"] == "evalcore figure"
    # the new cross-reference section points at the new object
    xref = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    entry = re.match(rb"xref\n(\d+) 1\n(\d{10}) 00000 n", data[xref:])
    assert int(entry.group(1)) == 5 and data[int(entry.group(2)):].startswith(b"5 0 obj")
    assert b"/Prev " + re.findall(rb"startxref\s+(\d+)", original)[-1] in data[xref:]


def test_html_meta_round_trip():
    html = b"<html><head><title>x</title></head><body></body></html>"
    data = embed_signature(html, "html", SIGNATURE + '"><b>')
    assert read_signature(data, "html") == SIGNATURE + '"><b>' and b'"><b>' not in data


@pytest.mark.parametrize("fmt, data", [("png", b"not a png"), ("pdf", b"%!PS"), ("svg", b"<html/>"),
                                       ("csv", b"a,b")])
def test_embedding_into_the_wrong_file_is_an_error(fmt, data):
    with pytest.raises(EvalcoreError):
        embed_signature(data, fmt, SIGNATURE)


def test_sidecar_name():
    assert sidecar_name("precision.csv") == "precision.signature.txt"
    assert sidecar_name("table") == "table.signature.txt"


def test_png_chunk_crc_is_checked_by_zlib():
    data = embed_signature(_png(), "png", SIGNATURE)
    start = data.index(b"iTXt") - 4
    length = int.from_bytes(data[start:start + 4], "big")
    body = data[start + 4:start + 8 + length]
    assert int.from_bytes(data[start + 8 + length:start + 12 + length], "big") == zlib.crc32(body)
