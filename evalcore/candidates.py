"""The validated candidate set every computation starts from."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from .errors import ColumnError

HIGHER = "higher"
LOWER = "lower"
DIRECTIONS = (HIGHER, LOWER)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class CandidateSet:
    """An annotated candidate set: one label, several score columns, optional keys.

    Attributes
    ----------
    labels : ndarray of bool, shape (N,)
        True for a true positive (TP), False for a false positive (FP).
    scores : mapping of str to ndarray of float64, shape (N,)
        One score column per ranking method (measure), in file order. Non-finite
        scores (NaN, +-inf) are kept; rankings put them last.
    directions : mapping of str to {"higher", "lower"}
        Whether a higher or a lower score is better, per measure.
    keys : DataFrame or None
        Columns shown to users to identify candidates (e.g. ``PP``, ``verb``).
    samples : ndarray or None
        Sample id per candidate, for experiments with several samples.
    source : str
        File name (or other description) the data came from; used in messages.
    label_column : str
        Name of the label column in the source.
    rows : ndarray of int64, shape (N,)
        1-based row number of each candidate in the source (as a spreadsheet shows
        data rows, header excluded), so rows excluded on request stay traceable.
    excluded_unlabelled : int
        Rows left out because their label was empty (only when asked for).
    """

    labels: np.ndarray
    scores: Mapping[str, np.ndarray]
    directions: Mapping[str, str]
    keys: pd.DataFrame | None = None
    samples: np.ndarray | None = None
    source: str = "<data>"
    label_column: str = "label"
    rows: np.ndarray | None = None
    excluded_unlabelled: int = 0
    content_hash: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        labels = _readonly(np.asarray(self.labels, dtype=bool))
        n = labels.shape[0]
        if labels.ndim != 1:
            raise ColumnError(f"{self.source}: labels must be one column; got shape {labels.shape}")
        scores: dict[str, np.ndarray] = {}
        for name, values in self.scores.items():
            arr = _readonly(np.asarray(values, dtype=np.float64))
            if arr.shape != (n,):
                raise ColumnError(
                    f"{self.source}: score column {name!r} has {arr.shape[0]} values but there are {n} labels"
                )
            scores[name] = arr
        if not scores:
            raise ColumnError(f"{self.source}: no score column chosen; pick at least one numeric column as a score")
        directions = {name: self.directions.get(name, HIGHER) for name in scores}
        for name, d in directions.items():
            if d not in DIRECTIONS:
                raise ColumnError(f"direction of {name!r} must be 'higher' or 'lower'; got {d!r}")
        rows = self.rows if self.rows is not None else np.arange(1, n + 1)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "scores", MappingProxyType(scores))
        object.__setattr__(self, "directions", MappingProxyType(directions))
        object.__setattr__(self, "rows", _readonly(np.asarray(rows, dtype=np.int64)))
        if self.samples is not None:
            object.__setattr__(self, "samples", _readonly(np.asarray(self.samples)))
        if not self.content_hash:
            object.__setattr__(self, "content_hash", self._hash())

    def _hash(self) -> str:
        h = hashlib.sha256()
        h.update(self.labels.tobytes())
        for name, values in self.scores.items():
            h.update(name.encode())
            h.update(self.directions[name].encode())
            h.update(values.tobytes())
        return h.hexdigest()

    @property
    def measures(self) -> tuple[str, ...]:
        """Names of the score columns, in file order."""
        return tuple(self.scores)

    @property
    def n_candidates(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_tp(self) -> int:
        return int(self.labels.sum())

    @property
    def baseline(self) -> float:
        """Baseline precision: TPs / |C|, the precision of a random selection."""
        return self.n_tp / self.n_candidates if self.n_candidates else float("nan")

    @cached_property
    def _sample_codes(self) -> tuple[np.ndarray, tuple[str, ...]]:
        codes, uniques = pd.factorize(pd.Series(self.samples).astype(str), sort=False)
        return _readonly(codes.astype(np.int64)), tuple(uniques)

    @property
    def sample_ids(self) -> tuple[str, ...]:
        """The distinct sample ids as text, in order of first appearance; () without a sample column."""
        if self.samples is None:
            return ()
        return self._sample_codes[1]

    @property
    def sample_codes(self) -> np.ndarray:
        """Per candidate, the index of its sample in :attr:`sample_ids` (computed once)."""
        if self.samples is None:
            raise ColumnError(f"{self.source}: there is no sample column")
        return self._sample_codes[0]

    def sample_mask(self, sample: str) -> np.ndarray:
        """True for the candidates of one sample (its id as text, see :attr:`sample_ids`)."""
        if self.samples is None:
            raise ColumnError(f"{self.source}: there is no sample column, so there is no sample {sample!r}")
        if sample not in self.sample_ids:
            shown = ", ".join(self.sample_ids[:10]) + (" ..." if len(self.sample_ids) > 10 else "")
            raise ColumnError(f"{self.source}: there is no sample {sample!r}; the samples are {shown}")
        return self.sample_codes == self.sample_ids.index(sample)

    def subset(self, mask: np.ndarray, *, source: str | None = None) -> "CandidateSet":
        """The candidates where ``mask`` is True, with their rows, keys and sample ids."""
        mask = np.asarray(mask, dtype=bool)
        return CandidateSet(
            labels=self.labels[mask], scores={m: v[mask] for m, v in self.scores.items()},
            directions=dict(self.directions),
            keys=None if self.keys is None else self.keys[mask].reset_index(drop=True),
            samples=None if self.samples is None else self.samples[mask], source=source or self.source,
            label_column=self.label_column, rows=self.rows[mask], excluded_unlabelled=self.excluded_unlabelled)

    def higher_is_better(self, measure: str) -> bool:
        if measure not in self.scores:
            raise ColumnError(
                f"{self.source}: no score column {measure!r}; the score columns are {', '.join(self.scores)}"
            )
        return self.directions[measure] == HIGHER
