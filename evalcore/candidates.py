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
from .text import cut, listed, shown

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
        True for a true positive (TP), False for a false positive (FP). In a partly
        annotated set (see ``annotated``) the labels of unannotated candidates are unknown
        and stored as False; only ``labels[annotated]`` carries information.
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
    annotated : ndarray of bool, shape (N,), or None
        Which candidates are annotated, for a partly annotated set (a label column with
        empty cells, or none at all); None when every candidate is annotated (an all-True
        mask is stored as None). The annotated candidates are taken as a random sample of
        the candidate set or of a stated part of it (see :mod:`evalcore.estimates`).
        Build such a set with :meth:`from_partial_labels` or :meth:`with_annotations`.
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
    annotated: np.ndarray | None = None

    def __post_init__(self) -> None:
        labels = np.asarray(self.labels, dtype=bool)
        n = labels.shape[0]
        if labels.ndim != 1:
            raise ColumnError(f"{self.source}: labels must be one column; got shape {labels.shape}")
        annotated = None
        if self.annotated is not None:
            annotated = np.asarray(self.annotated)
            if annotated.dtype != bool or annotated.shape != (n,):
                raise ColumnError(f"{self.source}: `annotated` must be a True/False mask of {n} values, one per "
                                  f"candidate; got dtype {annotated.dtype} and shape {annotated.shape}")
            if annotated.all():
                annotated = None
            else:
                labels = labels & annotated  # unknown labels are stored as False, so they never enter the hash
                annotated = _readonly(annotated)
        object.__setattr__(self, "annotated", annotated)
        labels = _readonly(labels)
        scores: dict[str, np.ndarray] = {}
        for name, values in self.scores.items():
            arr = _readonly(np.asarray(values, dtype=np.float64))
            if arr.shape != (n,):
                raise ColumnError(
                    f"{self.source}: score column {shown(name)} has {arr.shape[0]} values but there are {n} labels"
                )
            scores[name] = arr
        if not scores:
            raise ColumnError(f"{self.source}: no score column chosen; pick at least one numeric column as a score")
        directions = {name: self.directions.get(name, HIGHER) for name in scores}
        for name, d in directions.items():
            if d not in DIRECTIONS:
                raise ColumnError(f"direction of {shown(name)} must be 'higher' or 'lower'; got {shown(d)}")
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
        if self.annotated is not None:
            h.update(b"annotated")
            h.update(self.annotated.tobytes())
        return h.hexdigest()

    @classmethod
    def from_partial_labels(cls, labels, scores: Mapping[str, np.ndarray], **fields) -> "CandidateSet":
        """A candidate set whose label array holds missing values for unannotated candidates.

        Parameters
        ----------
        labels : array_like, shape (N,)
            True/False (or 1/0) for annotated candidates; None, NaN or ``pd.NA`` where the
            candidate is not annotated. All missing (or ``labels=None``) is allowed: nothing
            annotated yet.
        scores : mapping of str to array_like
            As for the class.
        **fields
            Any other attribute (``directions``, ``keys``, ``source``, ...).

        Returns
        -------
        CandidateSet
            With ``annotated`` set (None if no label is missing).

        Examples
        --------
        >>> cs = CandidateSet.from_partial_labels([True, None, False], {"g": [3.0, 2.0, 1.0]}, directions={})
        >>> cs.n_annotated, cs.annotated.tolist()
        (2, [True, False, True])
        """
        n = len(next(iter(scores.values()))) if scores else 0
        if labels is None:
            values = pd.Series([pd.NA] * n, dtype="boolean")
        else:
            values = pd.Series(list(labels) if not isinstance(labels, (np.ndarray, pd.Series)) else labels)
        missing = values.isna().to_numpy()
        known = values[~missing]
        if len(known) and not known.isin([True, False, 1, 0]).all():
            bad = known[~known.isin([True, False, 1, 0])].iloc[:3].tolist()
            raise ColumnError(f"{fields.get('source', '<data>')}: labels must be True/False or missing; got {bad}")
        flags = np.zeros(missing.size, dtype=bool)
        flags[~missing] = known.astype(bool).to_numpy()
        return cls(labels=flags, scores=scores, annotated=~missing, **fields)

    def with_annotations(self, candidates, labels) -> "CandidateSet":
        """This candidate set annotated exactly at ``candidates`` (0-based indices) with ``labels``.

        Labels already in the set are replaced: the result is annotated at the given candidates
        only, so pass every annotation that should count (e.g. from :mod:`evalcore.annotations`).
        """
        idx = np.asarray(candidates, dtype=np.int64)
        flags = np.asarray(labels, dtype=bool)
        if idx.shape != flags.shape or idx.ndim != 1:
            raise ColumnError(f"`candidates` and `labels` must be two lists of equal length; got {idx.shape} and "
                              f"{flags.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_candidates):
            raise ColumnError(f"candidate index {int(idx.max() if idx.max() >= self.n_candidates else idx.min())} "
                              f"is outside 0..{self.n_candidates - 1}; the annotations belong to another data set")
        annotated = np.zeros(self.n_candidates, dtype=bool)
        annotated[idx] = True
        new = np.zeros(self.n_candidates, dtype=bool)
        new[idx] = flags
        return CandidateSet(labels=new, scores=dict(self.scores), directions=dict(self.directions), keys=self.keys,
                            samples=self.samples, source=self.source, label_column=self.label_column, rows=self.rows,
                            excluded_unlabelled=self.excluded_unlabelled, annotated=annotated)

    @property
    def partly_annotated(self) -> bool:
        """True when some candidates are not annotated (their labels are unknown)."""
        return self.annotated is not None

    @property
    def annotated_mask(self) -> np.ndarray:
        """Which candidates are annotated (all True for a fully annotated set)."""
        return self.annotated if self.annotated is not None else np.ones(self.n_candidates, dtype=bool)

    @property
    def n_annotated(self) -> int:
        return self.n_candidates if self.annotated is None else int(self.annotated.sum())

    def _require_full(self, what: str) -> None:
        if self.annotated is not None:
            raise ColumnError(
                f"{self.source}: {what} is unknown: only {self.n_annotated:,} of the {self.n_candidates:,} candidates "
                "are annotated. Estimate it from the annotated sample (evalcore.estimates), or leave the "
                "unannotated candidates out (exclude_unlabelled).")

    @property
    def measures(self) -> tuple[str, ...]:
        """Names of the score columns, in file order."""
        return tuple(self.scores)

    @property
    def n_candidates(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_tp(self) -> int:
        """Number of TPs (raises for a partly annotated set, where it is unknown)."""
        self._require_full("the number of TPs")
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
            raise ColumnError(f"{self.source}: there is no sample column, so there is no sample {shown(sample)}")
        if sample not in self.sample_ids:
            raise ColumnError(f"{self.source}: there is no sample {shown(sample)}; the samples are "
                              f"{listed(self.sample_ids, str, limit=10)}")
        return self.sample_codes == self.sample_ids.index(sample)

    def subset(self, mask: np.ndarray, *, source: str | None = None) -> "CandidateSet":
        """The candidates where ``mask`` is True, with their rows, keys and sample ids."""
        mask = np.asarray(mask, dtype=bool)
        return CandidateSet(
            labels=self.labels[mask], scores={m: v[mask] for m, v in self.scores.items()},
            directions=dict(self.directions),
            keys=None if self.keys is None else self.keys[mask].reset_index(drop=True),
            samples=None if self.samples is None else self.samples[mask], source=source or self.source,
            label_column=self.label_column, rows=self.rows[mask], excluded_unlabelled=self.excluded_unlabelled,
            annotated=None if self.annotated is None else self.annotated[mask])

    def higher_is_better(self, measure: str) -> bool:
        if measure not in self.scores:
            raise ColumnError(
                f"{self.source}: no score column {shown(measure)}; the score columns are {listed(self.scores, cut)}"
            )
        return self.directions[measure] == HIGHER
