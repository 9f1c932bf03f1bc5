"""Text written twice, as Markdown and as LaTeX, with the works it cites.

A :class:`Rich` is one piece of text in both languages plus the citation keys it carries; pieces
concatenate with ``+``. User text (column names, display names) goes in through :func:`plain`, which
escapes it for each language, so a measure called ``a_b|c`` or ``50%`` never turns into markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Rich", "plain", "sym", "cite", "join", "md_escape", "tex_escape", "number", "and_list", "capitalized",
           "code_span", "one_line", "LINE_BREAK"]

_MD_SPECIAL = set("\\`*_[]<>|~$@#&^{}")
#: What a line break inside user text becomes, so that a name stays on one line (of a paragraph, a table row).
LINE_BREAK = "↵"
_LINE_BREAKS = {"\r\n": LINE_BREAK, **{ch: LINE_BREAK for ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}}
_TEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
                "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "<": r"\textless{}",
                ">": r"\textgreater{}", "|": r"\textbar{}"}
# Characters beyond Latin-1 that measure names and the report's text use, as LaTeX that pdflatex's default
# setup (OT1 fonts, UTF-8 input) can typeset.
_TEX_UNICODE = {
    "²": r"\textsuperscript{2}", "³": r"\textsuperscript{3}", "¹": r"\textsuperscript{1}",
    "α": r"\ensuremath{\alpha}", "β": r"\ensuremath{\beta}", "γ": r"\ensuremath{\gamma}", "δ": r"\ensuremath{\delta}",
    "ε": r"\ensuremath{\varepsilon}", "κ": r"\ensuremath{\kappa}", "λ": r"\ensuremath{\lambda}",
    "μ": r"\ensuremath{\mu}", "π": r"\ensuremath{\pi}", "ρ": r"\ensuremath{\rho}", "σ": r"\ensuremath{\sigma}",
    "τ": r"\ensuremath{\tau}", "φ": r"\ensuremath{\varphi}", "χ": r"\ensuremath{\chi}", "ψ": r"\ensuremath{\psi}",
    "ω": r"\ensuremath{\omega}", "Δ": r"\ensuremath{\Delta}", "Σ": r"\ensuremath{\Sigma}", "Φ": r"\ensuremath{\Phi}",
    "Ω": r"\ensuremath{\Omega}", "−": r"\ensuremath{-}", "–": "--", "—": "---", "×": r"\ensuremath{\times}",
    "·": r"\ensuremath{\cdot}", "≤": r"\ensuremath{\leq}", "≥": r"\ensuremath{\geq}", "±": r"\ensuremath{\pm}",
    "…": r"\dots{}", "‘": "`", "’": "'", "“": "``", "”": "''", "∖": r"\ensuremath{\setminus}",
    "†": r"\ensuremath{^\dagger}", "°": r"\ensuremath{^\circ}", "\u00a0": "~",
    LINE_BREAK: r"\ensuremath{\hookleftarrow}",
}
# Latin-1 letters that pdflatex's default OT1 encoding cannot typeset (the others are composed from accents).
_OT1_MISSING = set("ðÐþÞ¦¤¢¥§¶ª«¬®¯´¸º»¼½¾")


@dataclass(frozen=True)
class Rich:
    """A piece of text as Markdown (``md``) and as LaTeX (``tex``), and the citation keys it holds."""

    md: str
    tex: str
    cites: tuple[str, ...] = ()

    def __add__(self, other: "Rich | str") -> "Rich":
        other = plain(other) if isinstance(other, str) else other
        return Rich(self.md + other.md, self.tex + other.tex, tuple(dict.fromkeys(self.cites + other.cites)))

    def __radd__(self, other: str) -> "Rich":
        return plain(other) + self


def one_line(text: str) -> str:
    """User text on one line: every line break (``\\r\\n``, ``\\n``, ``\\r``, U+2028, NEL, ...) as the visible
    :data:`LINE_BREAK`, and any other control character (C0, DEL, C1) as its code point, ``[U+0085]``."""
    text = str(text).replace("\r\n", LINE_BREAK)
    out = []
    for ch in text:
        if ch in _LINE_BREAKS:
            out.append(LINE_BREAK)
        elif ch == "\t":
            out.append(" ")
        elif ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F:
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def md_escape(text: str) -> str:
    """Plain text as Markdown: on one line (:func:`one_line`), and every character that Markdown (CommonMark,
    GitHub, pandoc) would read as markup, raw HTML or an entity (backticks, ``<``, ``&``, ...) backslash-escaped."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in one_line(text))


def code_span(text: str) -> str:
    """Text as a Markdown code span whatever it holds: fenced by more backticks than its longest run of them (and
    padded with a space where it starts or ends with one), on one line (:func:`one_line`)."""
    text = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def tex_escape(text: str) -> str:
    """Plain text as LaTeX: specials escaped, common symbols (², α, −, ...) as commands that pdflatex typesets,
    and any other character it cannot typeset by default shown as its code point (``[U+4E2D]``)."""
    out = []
    for ch in one_line(text):
        if ch in _TEX_SPECIAL:
            out.append(_TEX_SPECIAL[ch])
        elif ch in _TEX_UNICODE:
            out.append(_TEX_UNICODE[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(" ")
        elif ord(ch) < 128 or (ord(ch) < 256 and ch not in _OT1_MISSING):
            out.append(ch)
        else:
            out.append(rf"\texttt{{[U+{ord(ch):04X}]}}")
    return "".join(out)


def plain(text: str) -> Rich:
    """User or plain text, escaped for both languages."""
    return Rich(md_escape(text), tex_escape(text))


def sym(md: str, tex: str) -> Rich:
    """Text already written in each language (no escaping): symbols, formulas, markup of our own."""
    return Rich(md, tex)


def cite(*keys: str) -> Rich:
    """A parenthetical citation after a word: pandoc's `` [@a; @b]`` and LaTeX's ``~\\cite{a,b}``."""
    if not keys:
        return Rich("", "")
    return Rich(" [" + "; ".join(f"@{k}" for k in keys) + "]", "~\\cite{" + ",".join(keys) + "}", tuple(keys))


def join(parts: Iterable[Rich | str], sep: Rich | str = "") -> Rich:
    out = sym("", "")
    for i, part in enumerate(parts):
        if i:
            out = out + sep
        out = out + part
    return out


def and_list(parts: list[Rich | str]) -> Rich:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(parts) <= 2:
        return join(parts, " and ")
    return join(parts[:-1], ", ") + " and " + parts[-1]


def capitalized(text: Rich) -> Rich:
    """The text with its first letter in upper case (in both languages)."""
    def up(t: str) -> str:
        return t[:1].upper() + t[1:]
    return Rich(up(text.md), up(text.tex), text.cites)


def number(n: int) -> str:
    """A count with thousands separated: 5,102."""
    return f"{int(n):,}"
