"""A test set of synthetic translations to try the systems comparison on (and to test and benchmark it).

References are sentences drawn from a small multilingual vocabulary (German, French, Spanish, Polish, Turkish,
Greek, Russian, Chinese and Japanese words, typographic quotes and dashes, numbers), so the text is far from
ASCII. Each system corrupts every reference: words are kept, replaced, dropped, or new ones inserted, and
neighbours swapped, at rates set by the system's quality and the segment's difficulty (shared by all systems, so
their outputs are correlated, as real systems' are); a share of segments comes out empty. A "near copy" system
repeats an earlier system's output on most segments (similar systems need smaller gains to differ
significantly). Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same text.

:func:`write_test_set` writes the files: the references with CRLF line ends, the systems with LF.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["SyntheticTestSet", "synthetic_test_set", "write_test_set", "VOCABULARY"]

VOCABULARY = (
    "der die das und ist nicht Straße Mädchen größer Übung schön für über Bäume Fußgänger "
    "le la les été déjà garçon français où très mère œuvre Noël "
    "el los niño años mañana corazón señor "
    "źdźbło łódź żółw Kraków "
    "ışık güzel çocuk öğretmen "
    "λόγος αλήθεια θάλασσα "
    "привет мир книга "
    "東京 日本語 中文 学生 "
    "the of and to in is was for on that with as by at from house city year time people "
    "3,5 1.000 2024 42 % € — – … „ “ « » ( ) : ; !"
).split()
ENDINGS = (".", ".", ".", "!", "?", "…")
QUALITIES = (0.35, 0.30, 0.36, 0.33, 0.31, 0.37, 0.34, 0.32, 0.35, 0.29)  # error rates of the systems, in order


@dataclass(frozen=True)
class SyntheticTestSet:
    """References and each system's hypotheses, one string per segment."""

    references: tuple[str, ...]
    systems: dict

    @property
    def names(self) -> list[str]:
        return list(self.systems)


def _sentence(rng: np.random.Generator, weights: np.ndarray) -> list[str]:
    length = int(rng.integers(4, 31))
    return [VOCABULARY[k] for k in rng.choice(len(VOCABULARY), size=length, p=weights)]


def _corrupt(rng: np.random.Generator, words: list[str], error: float, weights: np.ndarray) -> str:
    out: list[str] = []
    for w in words:
        u = rng.random()
        if u < error * 0.5:
            out.append(VOCABULARY[int(rng.choice(len(VOCABULARY), p=weights))])  # a wrong word
        elif u < error * 0.8:
            continue  # dropped
        else:
            out.append(w)
        if rng.random() < error * 0.15:
            out.append(VOCABULARY[int(rng.choice(len(VOCABULARY), p=weights))])  # inserted
    for i in range(len(out) - 1):
        if rng.random() < error * 0.1:
            out[i], out[i + 1] = out[i + 1], out[i]
    return " ".join(out)


def synthetic_test_set(n_segments: int = 1200, n_systems: int = 3, seed: int = 0, *, empty_rate: float = 0.01,
                       near_copy: bool = True) -> SyntheticTestSet:
    """A deterministic test set of ``n_segments`` segments and ``n_systems`` systems.

    System 1 (``baseline``) makes errors at a rate of about 0.35 of the words, the others fewer or more
    (:data:`QUALITIES`; ``sys2`` clearly fewer); with ``near_copy`` the last system (``near_copy``) repeats the baseline's output on
    85% of the segments and is a bit better on the rest. ``empty_rate`` of each system's segments are empty.
    """
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, len(VOCABULARY) + 1, dtype=float)
    weights = 1 / ranks ** 0.8
    weights = weights[rng.permutation(len(VOCABULARY))]
    weights /= weights.sum()
    references = [_sentence(rng, weights) for _ in range(n_segments)]
    difficulty = rng.beta(2.0, 2.0, size=n_segments) + 0.5  # shared by every system: correlated outputs
    names = ["baseline"] + [f"sys{k}" for k in range(2, n_systems + 1)]
    if near_copy and n_systems >= 3:
        names[-1] = "near_copy"
    systems: dict[str, list[str]] = {}
    for k, name in enumerate(names):
        if name == "near_copy":
            base = systems["baseline"]
            out = [base[i] if rng.random() < 0.85 else _corrupt(rng, references[i], 0.25 * difficulty[i], weights)
                   for i in range(n_segments)]
        else:
            quality = QUALITIES[k % len(QUALITIES)]
            out = [_corrupt(rng, references[i], min(0.95, quality * difficulty[i]), weights)
                   for i in range(n_segments)]
        for i in np.flatnonzero(rng.random(n_segments) < empty_rate):
            out[i] = ""
        systems[name] = out
    refs = tuple(" ".join(words) + ENDINGS[int(rng.integers(len(ENDINGS)))] for words in references)
    return SyntheticTestSet(references=refs, systems={k: tuple(v) for k, v in systems.items()})


def write_test_set(folder: str | Path, test_set: SyntheticTestSet) -> tuple[Path, list[Path]]:
    """Write ``references.txt`` (CRLF line ends) and ``<system>.txt`` (LF) into ``folder``; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    references = folder / "references.txt"
    references.write_bytes(("\r\n".join(test_set.references) + "\r\n").encode("utf-8"))
    paths = []
    for name, lines in test_set.systems.items():
        path = folder / f"{name}.txt"
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        paths.append(path)
    return references, paths
