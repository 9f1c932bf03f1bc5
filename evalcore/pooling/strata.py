"""One design laid over one candidate set: where its strata lie, and its estimates whatever its kind.

:class:`Strata` is what the pages, the report and the command line hold: a ``sample`` design gives the estimates of
:mod:`evalcore.estimates` (a random sample of its frame), a pooled design those of :mod:`.estimators`, a stratified
design those of :mod:`.stratified_estimators`. Every method returns the same columns for all (the pooled and
stratified ones add theirs), so a page draws any without asking which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from .. import estimates
from ..candidates import CandidateSet
from ..estimates import MIN_ANNOTATED, BaselineEstimate
from ..ranking import Ranking
from .design import Design, PoolProgress, pool_progress
from .stratified import Bands
from .estimators import (DIFFERENCE_METHODS, pooled_acceptance, pooled_baseline, pooled_compare,
                         pooled_difference_interval, pooled_precision, pooled_recall)
from .stratified_estimators import (stratified_acceptance, stratified_baseline, stratified_compare,
                                    stratified_difference_interval, stratified_precision, stratified_recall)


@dataclass(frozen=True, eq=False)
class Strata:
    """A design over a candidate set.

    Attributes
    ----------
    design : Design
    pool : ndarray of bool or None
        The pool (pooled kinds).
    frame : ndarray of bool or None
        The sampling frame of a ``sample`` design (None: the whole set, or a pooled kind).
    bands : Bands or None
        A stratified design's bands over the candidates (None for the other kinds).
    """

    design: Design
    pool: np.ndarray | None
    frame: np.ndarray | None
    bands: Bands | None = None

    @classmethod
    def of(cls, design: Design, candidates: CandidateSet, rankings: Mapping[str, Ranking] | None = None) -> "Strata":
        if design.stratified:
            return cls(design=design, pool=None, frame=None, bands=design.bands(candidates, rankings))
        return cls(design=design, pool=design.pool_mask(candidates, rankings),
                   frame=design.frame_mask(candidates, rankings))

    @property
    def pooled(self) -> bool:
        return self.design.pooled

    @property
    def stratified(self) -> bool:
        return self.bands is not None

    def describe(self) -> str:
        """The design in words, with its pool's size or its bands' candidates."""
        if self.stratified:
            return self.design.describe(self.bands.counts)
        return self.design.describe(self.pool_size if self.pooled else None)

    def _band_args(self) -> dict:
        return {"bands": self.bands.band, "n_bands": self.bands.n_bands}

    @property
    def pool_size(self) -> int:
        return 0 if self.pool is None else int(self.pool.sum())

    def progress(self, candidates: CandidateSet) -> PoolProgress | None:
        """How much of the pool is annotated (None for a ``sample`` design)."""
        return None if self.pool is None else pool_progress(candidates, self.pool)

    def population(self, n_candidates: int) -> int:
        """The candidates the estimates speak of: the frame (``sample``), the pool (``pool``) or all."""
        if self.design.kind == "pool":
            return self.pool_size
        return n_candidates if self.frame is None else int(self.frame.sum())

    def limit(self, ranking: Ranking) -> int:
        """The largest n whose n-best list the design covers (every list for ``pool+sample`` and ``stratified``)."""
        if self.design.rest_sampled or self.stratified:
            return ranking.n_candidates
        return estimates.frame_limit(ranking, self.pool if self.pooled else self.frame)

    def _pool_args(self) -> dict:
        return {"pool": self.pool, "rest_sampled": self.design.rest_sampled}

    # ------------------------------------------------------------------------------------ estimates
    def precision(self, ranking: Ranking, n=None, *, confidence_level: float = 0.95, interval: str = "hypergeometric",
                  min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
        if self.stratified:
            return stratified_precision(ranking, n, confidence_level=confidence_level, interval=interval,
                                        min_annotated=min_annotated, **self._band_args())
        if self.pooled:
            return pooled_precision(ranking, n, confidence_level=confidence_level, interval=interval,
                                    min_annotated=min_annotated, **self._pool_args())
        return estimates.precision_estimates(ranking, n, frame=self.frame, confidence_level=confidence_level,
                                             interval=interval, min_annotated=min_annotated)

    def acceptance(self, ranking: Ranking, gamma, *, confidence_level: float = 0.95, interval: str = "hypergeometric",
                   min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
        if self.stratified:
            return stratified_acceptance(ranking, gamma, confidence_level=confidence_level, interval=interval,
                                         min_annotated=min_annotated, **self._band_args())
        if self.pooled:
            return pooled_acceptance(ranking, gamma, confidence_level=confidence_level, interval=interval,
                                     min_annotated=min_annotated, **self._pool_args())
        return estimates.acceptance_estimates(ranking, gamma, frame=self.frame, confidence_level=confidence_level,
                                              interval=interval, min_annotated=min_annotated)

    def baseline(self, ranking: Ranking, *, confidence_level: float = 0.95,
                 interval: str = "hypergeometric") -> BaselineEstimate:
        if self.stratified:
            return stratified_baseline(ranking, confidence_level=confidence_level, interval=interval,
                                       **self._band_args())
        if self.pooled:
            return pooled_baseline(ranking, confidence_level=confidence_level, interval=interval, **self._pool_args())
        return estimates.baseline_estimate(ranking, frame=self.frame, confidence_level=confidence_level,
                                           interval=interval)

    def recall(self, ranking: Ranking, n=None, *, confidence_level: float = 0.95, draws: int = 4000,
               seed: int = 0) -> pd.DataFrame:
        if self.stratified:  # (MOVER-R from the cells: no posterior draws)
            return stratified_recall(ranking, n, confidence_level=confidence_level, **self._band_args())
        if self.pooled:
            return pooled_recall(ranking, n, confidence_level=confidence_level, draws=draws, seed=seed,
                                 **self._pool_args())
        return estimates.recall_estimates(ranking, n, frame=self.frame, confidence_level=confidence_level,
                                          draws=draws, seed=seed)

    def compare(self, a: Ranking, b: Ranking, n=None, *, confidence_level: float = 0.95,
                alternative: str = "two-sided", min_annotated: int = MIN_ANNOTATED) -> pd.DataFrame:
        if self.stratified:
            return stratified_compare(a, b, n, confidence_level=confidence_level, alternative=alternative,
                                      min_annotated=min_annotated, **self._band_args())
        if self.pooled:
            return pooled_compare(a, b, n, confidence_level=confidence_level, alternative=alternative,
                                  min_annotated=min_annotated, **self._pool_args())
        return estimates.compare_estimates(a, b, n, frame=self.frame, confidence_level=confidence_level,
                                           alternative=alternative, min_annotated=min_annotated)

    def with_difference(self, comparison: pd.DataFrame, confidence_level: float = 0.95,
                        method: str = "newcombe") -> pd.DataFrame:
        """The comparison with ``difference, difference_low, difference_high`` (pi_D1 - pi_D2) by the chosen
        method: on the annotated counts of D1 and D2 (``sample``), on the effective counts (pooled and stratified
        kinds; a stratified design's widened where needed to cover the candidate set's own difference:
        :func:`~evalcore.pooling.stratified_estimators.stratified_difference_interval`, the interval whose coverage
        ``bench/bench_strata.py`` measures)."""
        if self.stratified:
            return stratified_difference_interval(comparison, confidence_level, method)
        if self.pooled:
            return pooled_difference_interval(comparison, confidence_level, method)
        k1, m1, k2, m2 = (comparison[c].to_numpy(float) for c in ("k_d1", "m_d1", "k_d2", "m_d2"))
        if method not in DIFFERENCE_METHODS:
            from ..errors import ParameterError
            raise ParameterError(f"`method` must be one of {', '.join(DIFFERENCE_METHODS)}; got {method!r}")
        with np.errstate(invalid="ignore", divide="ignore"):
            low, high = DIFFERENCE_METHODS[method](k1, m1, k2, m2, confidence_level)
        return comparison.assign(difference=comparison["estimate_d1"] - comparison["estimate_d2"], difference_low=low,
                                 difference_high=high)
