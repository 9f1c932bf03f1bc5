"""Who annotated: the sentence of the methods text that names the annotators of a sample labelled on the server.

The dashboard knows who annotated (the annotation database keeps each label under its annotator) and whether they
were signed in (then a name is the address the lab's sign-in service gave, not a name typed on the page); evalcore
does not know who is signed in, it is told: the caller passes :class:`Annotators` to
:func:`evalcore.report.methods.methods_paragraph` (and :func:`evalcore.report.build.build_report`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import Rich, and_list, number, plain

__all__ = ["Annotators"]


def _one_line(name: str) -> str:
    return " ".join(str(name).split())


@dataclass(frozen=True)
class Annotators:
    """The annotators of a sample, in the order to name them.

    Attributes
    ----------
    names : tuple of str
        Each annotator's name as the annotation database keeps it.
    signed_in : bool
        Whether the names are identities from the server's sign-in (e-mail addresses or the provider's subject
        ids), rather than names typed on the Annotate page.
    """

    names: tuple[str, ...]
    signed_in: bool = False

    def __post_init__(self) -> None:
        names = tuple(dict.fromkeys(n for n in map(_one_line, self.names) if n))
        object.__setattr__(self, "names", names)

    def __bool__(self) -> bool:
        return bool(self.names)

    def sentence(self) -> Rich:
        """"The labels come from 2 annotators, alice@lab.example and bob@lab.example, each signed in to the
        server (a name is the identity its sign-in service gave)." An empty text when there are no names."""
        k = len(self.names)
        if not k:
            return plain("")
        names = and_list([plain(n) for n in self.names])
        if k == 1:
            how = (", signed in to the server (the name is the identity its sign-in service gave)." if self.signed_in
                   else " (the name as typed on the Annotate page).")
            return "The labels come from one annotator, " + names + plain(how)
        how = (", each signed in to the server (a name is the identity its sign-in service gave)." if self.signed_in
               else " (names as typed on the Annotate page).")
        return "The labels come from " + plain(number(k)) + " annotators, " + names + plain(how)
