"""The Unanimous Improvement Ratio (Amigó et al. 2011) and the F-alpha sweep it complements.

A weighted combination such as van Rijsbergen's F_alpha can rank two systems either way
depending on ``alpha``. The Unanimous Improvement Ratio (UIR) asks instead, over the k test
cases (samples) of an experiment, how often one system is at least as good as the other on
*every* metric at once: such an improvement holds for every weighting. The F-alpha sweep
shows the other side: the mean F_alpha of both systems for every ``alpha`` in [0, 1] and the
weights at which the better system changes.

The metrics are higher-is-better scores per test case (precision and recall of an n-best
list or acceptance set on each sample, purity and inverse purity, ...), given as arrays of
shape (k, m) or DataFrames with one column per metric and one row per test case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import optimize

from .errors import ParameterError
from .text import cut, shown

UIR_THRESHOLD = 0.25  # Amigó et al. (2011): |UIR| >= 0.25 is considered a robust improvement
DEFAULT_ALPHAS = np.linspace(0.0, 1.0, 101)
SWEEP_TIE_TOLERANCE = 1e-12  # |f_a - f_b| at or below this is a tie (F lies in [0, 1]; rounding is ~1e-16)

VERDICT_A = "A improves on B unanimously (robust)"
VERDICT_B = "B improves on A unanimously (robust)"
VERDICT_NONE = "no robust improvement"

_SWEEP_SAMPLES = "samples"  # key in ``DataFrame.attrs`` holding the per-sample P and R of a sweep


@dataclass(frozen=True)
class UIRResult:
    """The Unanimous Improvement Ratio of system A over system B.

    Attributes
    ----------
    uir : float
        ``(a_unanimous - b_unanimous) / k``, in [-1, 1]; positive when A improves on B.
    a_unanimous : int
        Test cases where A >= B on every metric (cases tied on every metric included).
    b_unanimous : int
        Test cases where B >= A on every metric (cases tied on every metric included).
    all_tied : int
        Test cases where A == B on every metric; counted in both counts above, so they
        cancel in ``uir``. ``k - a_unanimous - b_unanimous + all_tied`` cases are mixed
        (A better on some metric, B on another) and do not count for either system.
    k : int
        Number of test cases.
    threshold : float
        The threshold ``robust`` was decided with.
    robust : bool
        ``abs(uir) >= threshold``: the boundary itself counts as robust.
    verdict : str
        ``VERDICT_A`` ("A improves on B unanimously (robust)"), ``VERDICT_B`` or
        ``VERDICT_NONE`` ("no robust improvement").
    """

    uir: float
    a_unanimous: int
    b_unanimous: int
    all_tied: int
    k: int
    threshold: float
    robust: bool
    verdict: str


# --------------------------------------------------------------------------- validation


def _check_threshold(threshold) -> float:
    try:
        value = float(threshold)
    except (TypeError, ValueError):
        raise ParameterError(f"`threshold` must be a number in (0, 1], e.g. {UIR_THRESHOLD}; "
                             f"got {threshold!r}") from None
    if not 0.0 < value <= 1.0:
        raise ParameterError(f"`threshold` must be in (0, 1], e.g. {UIR_THRESHOLD} (Amigó et al. 2011); "
                             f"got {threshold!r}")
    return value


def _metric_names(metrics_a, metrics_b, names) -> list | None:
    """The metric names: ``names`` if given, else the columns of the first DataFrame, else None."""
    if names is not None:
        if isinstance(names, str):
            raise ParameterError(f"`names` must be a sequence of metric names, e.g. ['precision', 'recall']; "
                                 f"got the string {names!r}")
        names = list(names)
        if len(set(names)) != len(names):
            raise ParameterError(f"`names` must not repeat a metric; got {names!r}")
        return names
    for frame in (metrics_a, metrics_b):
        if isinstance(frame, pd.DataFrame):
            return list(frame.columns)
    return None


def _metric_matrix(values, parameter: str, names: list | None) -> tuple[np.ndarray, list, list]:
    """``values`` as a float array (k, m), its metric names and its test-case labels.

    A DataFrame contributes the columns ``names`` (all of them when None) and its index as
    labels; an array is taken by position, its metrics labelled by ``names``.
    """
    if isinstance(values, pd.DataFrame):
        columns = list(values.columns) if names is None else names
        missing = [c for c in columns if c not in values.columns]
        if missing:
            raise ParameterError(f"`{parameter}` has no metric column {', '.join(map(repr, missing))}; "
                                 f"its columns are {list(values.columns)!r}")
        for c in columns:
            if not pd.api.types.is_numeric_dtype(values[c]):
                raise ParameterError(f"`{parameter}` column {shown(c)} is not numeric (dtype {values[c].dtype}); "
                                     "give only metric columns, e.g. move a test-case id into the index "
                                     "with `set_index`")
        array = values[columns].to_numpy(dtype=np.float64, na_value=np.nan)
        labels = list(values.index)
    else:
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ParameterError(f"`{parameter}` must be numbers of shape (k test cases, m metrics); "
                                 f"got {type(values).__name__} that is not numeric") from None
        if array.ndim != 2:
            raise ParameterError(f"`{parameter}` must be 2-d, (k test cases, m metrics); got shape {array.shape}"
                                 + ("; for one metric pass `x.reshape(-1, 1)`" if array.ndim == 1 else ""))
        if names is not None and len(names) != array.shape[1]:
            raise ParameterError(f"`names` gives {len(names)} metric names but `{parameter}` has "
                                 f"{array.shape[1]} metric columns (shape {array.shape})")
        columns = list(names) if names is not None else [f"metric {j}" for j in range(array.shape[1])]
        labels = list(range(array.shape[0]))
    k, m = array.shape
    if k == 0:
        raise ParameterError(f"`{parameter}` has no test cases (shape {array.shape}); UIR needs k >= 1 rows")
    if m == 0:
        raise ParameterError(f"`{parameter}` has no metrics (shape {array.shape}); UIR needs m >= 1 columns")
    nan = np.isnan(array)
    if nan.any():
        row, col = np.argwhere(nan)[0]
        raise ParameterError(f"`{parameter}` is NaN at test case {cut(repr(labels[row]))} (row {row}), metric "
                             f"{shown(columns[col])} ({int(nan.sum())} NaN in all), e.g. the precision of an "
                             "empty acceptance set; drop or fill those test cases in both systems first")
    return array, columns, labels


def _aligned_pair(metrics_a, metrics_b, names) -> tuple[np.ndarray, np.ndarray]:
    names = _metric_names(metrics_a, metrics_b, names)
    a, _, _ = _metric_matrix(metrics_a, "metrics_a", names)
    if isinstance(metrics_a, pd.DataFrame) and isinstance(metrics_b, pd.DataFrame) \
            and not metrics_a.index.equals(metrics_b.index):
        ia, ib = metrics_a.index, metrics_b.index
        if not (ia.is_unique and ib.is_unique and len(ia) == len(ib) and ia.isin(ib).all()):
            raise ParameterError("`metrics_a` and `metrics_b` must have the same test cases in their index; "
                                 f"got {len(ia)} and {len(ib)} rows with {int((~ia.isin(ib)).sum())} labels of "
                                 "`metrics_a` missing from `metrics_b`; align them first, e.g. with "
                                 "`metrics_b.reindex(metrics_a.index)`")
        metrics_b = metrics_b.reindex(ia)
    b, _, _ = _metric_matrix(metrics_b, "metrics_b", names)
    if a.shape != b.shape:
        raise ParameterError(f"`metrics_a` has shape {a.shape} but `metrics_b` has shape {b.shape}; both "
                             "must be (k test cases, m metrics) with the same test cases and metrics")
    return a, b


# --------------------------------------------------------------------------- UIR


def _unanimous_counts(a: np.ndarray, b: np.ndarray) -> tuple[int, int, int]:
    """(|T(A >= B on all)|, |T(B >= A on all)|, |T(A == B on all)|), by exact comparison."""
    a_ge = np.all(a >= b, axis=1)
    b_ge = np.all(b >= a, axis=1)
    return int(a_ge.sum()), int(b_ge.sum()), int((a_ge & b_ge).sum())


def _result(a_unanimous: int, b_unanimous: int, all_tied: int, k: int, threshold: float) -> UIRResult:
    uir = (a_unanimous - b_unanimous) / k
    robust = abs(uir) >= threshold
    verdict = VERDICT_NONE if not robust else (VERDICT_A if uir > 0 else VERDICT_B)
    return UIRResult(uir=uir, a_unanimous=a_unanimous, b_unanimous=b_unanimous, all_tied=all_tied, k=k,
                     threshold=threshold, robust=robust, verdict=verdict)


def unanimous_improvement_ratio(metrics_a: ArrayLike | pd.DataFrame, metrics_b: ArrayLike | pd.DataFrame, *,
                                threshold: float = UIR_THRESHOLD,
                                names: Sequence[str] | None = None) -> UIRResult:
    """Unanimous Improvement Ratio of system A over system B across k test cases.

    Parameters
    ----------
    metrics_a, metrics_b : array_like of shape (k, m) or DataFrame
        The m metric scores of each system on each of the k test cases; higher is better
        for every metric (negate a lower-is-better metric first). DataFrames give one column
        per metric and one row per test case; two DataFrames are matched by column name and
        by index (rows in another order are aligned; different test cases are an error).
        Arrays are matched by position.
    threshold : float
        In (0, 1]; ``|UIR| >= threshold`` is a robust improvement. Default
        ``UIR_THRESHOLD`` = 0.25 (Amigó et al. 2011).
    names : sequence of str, optional
        Metric names. For DataFrames: the columns to use, in this order (default: every
        column of the first DataFrame). For arrays: labels of the m columns, used in error
        messages.

    Returns
    -------
    UIRResult
        ``uir``, the counts ``a_unanimous``, ``b_unanimous``, ``all_tied``, ``k``, and the
        decision ``robust`` and ``verdict`` at ``threshold``.

    Raises
    ------
    ParameterError
        If the shapes differ (the message gives both), if there is no test case or no
        metric, if a value is not numeric, or if a value is NaN (the message names the
        system, the test case and the metric).

    Notes
    -----
    With T the set of test cases and ``A >=∀ B`` meaning ``x(A) >= x(B)`` for every metric x
    (Amigó et al. 2011, who write the sets as T_{A ≥∀ B} and T_{B ≥∀ A})::

        UIR(A, B) = (|T_{A >=∀ B}| - |T_{B >=∀ A}|) / |T|

    * Ties. ``>=∀`` includes equality, so a test case tied on every metric is in both sets
      and cancels; a case where A is better on one metric and B on another (a *biased*
      improvement) is in neither. Only the metric-wise order matters, so UIR is unchanged
      when any strictly increasing transform is applied to a metric of both systems, and
      ``UIR(B, A) = -UIR(A, B)``. Values are compared exactly: round metrics computed by
      different code paths (e.g. ``np.round(x, 12)``) if 0.3 and 0.1 + 0.2 must tie.
    * Threshold. Amigó et al. choose 0.25 empirically, as the value at which the accepted
      system pairs are robust to the weighting of the metrics while still being reached in
      practice; pairs must *reach* it, so ``|UIR| = 0.25`` exactly (possible when 4 divides
      k) counts as robust here. Pass a slightly larger ``threshold`` for the strict reading.
    * NaN. The paper does not define UIR for missing scores; a NaN would silently make a
      case "mixed" and so push UIR towards 0. It is an error instead, so that the caller
      decides (drop the case in both systems, or fill it with a documented value).
      Infinities are ordered like any number and allowed.

    References
    ----------
    Amigó, E., Gonzalo, J., Artiles, J. & Verdejo, F. (2011). Combining evaluation metrics
    via the Unanimous Improvement Ratio and its application to clustering tasks. Journal of
    Artificial Intelligence Research 42, 689-718 (arXiv:1401.4590).

    Examples
    --------
    >>> a = [[0.6, 0.5], [0.7, 0.4], [0.5, 0.5], [0.2, 0.9], [0.8, 0.1]]
    >>> b = [[0.5, 0.4], [0.6, 0.4], [0.5, 0.5], [0.3, 0.8], [0.4, 0.3]]
    >>> r = unanimous_improvement_ratio(a, b, names=["precision", "recall"])
    >>> r.a_unanimous, r.b_unanimous, r.all_tied, r.uir, r.robust
    (3, 1, 1, 0.4, True)
    """
    threshold = _check_threshold(threshold)
    a, b = _aligned_pair(metrics_a, metrics_b, names)
    return _result(*_unanimous_counts(a, b), a.shape[0], threshold)


def uir_matrix(metrics: Mapping[str, ArrayLike | pd.DataFrame], *,
               threshold: float = UIR_THRESHOLD) -> pd.DataFrame:
    """UIR of every pair of systems (measures) on the same test cases.

    Parameters
    ----------
    metrics : mapping of name to array_like of shape (k, m) or DataFrame
        Each system's metric scores, as for :func:`unanimous_improvement_ratio`; all share
        the test cases and metrics of the first (DataFrames are matched by column name).
    threshold : float
        In (0, 1]; validated and kept in ``attrs["threshold"]``, so that the robust pairs
        are ``matrix.abs() >= matrix.attrs["threshold"]``.

    Returns
    -------
    DataFrame
        Square, index and columns the system names in the order of ``metrics`` (index name
        "A", columns name "B"); entry ``[A, B]`` is ``UIR(A, B)``. The diagonal is 0 and the
        matrix is exactly antisymmetric.

    Raises
    ------
    ParameterError
        If ``metrics`` is empty, or for any input error of
        :func:`unanimous_improvement_ratio` (the message names the system).

    Notes
    -----
    ``UIR(A, B) = (|T_{A >=∀ B}| - |T_{B >=∀ A}|) / |T|`` (Amigó et al. 2011); see
    :func:`unanimous_improvement_ratio`. Each pair is computed once and the lower triangle
    is its negation.

    References
    ----------
    Amigó, E., Gonzalo, J., Artiles, J. & Verdejo, F. (2011). Journal of Artificial
    Intelligence Research 42, 689-718.
    """
    threshold = _check_threshold(threshold)
    if not isinstance(metrics, Mapping) or len(metrics) == 0:
        raise ParameterError("`metrics` must be a non-empty mapping of system name to a (k, m) array or "
                             f"DataFrame, e.g. {{'A': a, 'B': b}}; got {type(metrics).__name__} "
                             f"of length {len(metrics) if hasattr(metrics, '__len__') else '?'}")
    systems = list(metrics)
    first = metrics[systems[0]]
    names = list(first.columns) if isinstance(first, pd.DataFrame) else None
    index = first.index if isinstance(first, pd.DataFrame) else None
    arrays = []
    for system in systems:
        values = metrics[system]
        if index is not None and isinstance(values, pd.DataFrame) and not values.index.equals(index):
            if not (index.is_unique and values.index.is_unique and len(values.index) == len(index)
                    and index.isin(values.index).all()):
                raise ParameterError(f"`metrics[{shown(system)}]` does not have the test cases of "
                                     f"`metrics[{shown(systems[0])}]` in its index; align them first with `reindex`")
            values = values.reindex(index)
        array, _, _ = _metric_matrix(values, f"metrics[{shown(system)}]", names)
        if arrays and array.shape != arrays[0].shape:
            raise ParameterError(f"`metrics[{shown(system)}]` has shape {array.shape} but `metrics[{shown(systems[0])}]` "
                                 f"has shape {arrays[0].shape}; every system needs the same (k, m)")
        arrays.append(array)
    k = arrays[0].shape[0]
    n = len(systems)
    values = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a_un, b_un, _ = _unanimous_counts(arrays[i], arrays[j])
            values[i, j] = (a_un - b_un) / k
            values[j, i] = (b_un - a_un) / k
    matrix = pd.DataFrame(values, index=pd.Index(systems, name="A"), columns=pd.Index(systems, name="B"))
    matrix.attrs["threshold"] = threshold
    return matrix


# --------------------------------------------------------------------------- F-alpha


def _unit_values(values, parameter: str) -> np.ndarray:
    """``values`` as floats in [0, 1]; NaN or values outside are an error naming the position."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"`{parameter}` must be numbers in [0, 1]; got {values!r}") from None
    bad = np.isnan(array) | (array < 0.0) | (array > 1.0)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        at = f" at index {where[0] if len(where) == 1 else where}" if where else ""
        raise ParameterError(f"`{parameter}` must be in [0, 1] and not NaN; got {float(array[bad].ravel()[0])!r}{at}"
                             f" ({int(bad.sum())} such values)")
    return array


def _f_alpha(p: np.ndarray, r: np.ndarray, alpha) -> np.ndarray:
    """F_alpha of validated arrays: P R / (alpha R + (1 - alpha) P), with the end and zero conventions."""
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = alpha * r + (1.0 - alpha) * p
        f = np.where(denominator > 0.0, p * r / np.where(denominator > 0.0, denominator, 1.0), 0.0)
    return np.where(alpha == 1.0, p, np.where(alpha == 0.0, r, f))


def f_alpha(precision: ArrayLike, recall: ArrayLike, alpha: ArrayLike) -> np.ndarray | np.float64:
    """van Rijsbergen's F_alpha, the alpha-weighted harmonic mean of precision and recall.

    Parameters
    ----------
    precision, recall : array_like of float
        In [0, 1]; broadcast against each other and ``alpha``.
    alpha : array_like of float
        In [0, 1], the weight of precision: 1 gives precision, 0 gives recall, 0.5 the
        harmonic mean F1. For F_beta use ``alpha = f_beta_to_alpha(beta)``.

    Returns
    -------
    ndarray or numpy float
        F_alpha in [min(P, R), max(P, R)], of the broadcast shape (a scalar for scalars).

    Raises
    ------
    ParameterError
        If a value is NaN or outside [0, 1] (the message gives the value and its index),
        or if the shapes do not broadcast.

    Notes
    -----
    .. math:: F_\\alpha = \\frac{1}{\\alpha / P + (1 - \\alpha) / R}
              = \\frac{P R}{\\alpha R + (1 - \\alpha) P}

    (van Rijsbergen 1979, ch. 7: ``E = 1 - F_alpha``). With ``alpha = 1 / (1 + beta^2)``
    this is ``F_beta = (1 + beta^2) P R / (beta^2 P + R)``. Conventions where the
    formula is 0/0 or has 1/0:

    * P = 0 or R = 0 with 0 < alpha < 1 gives 0, the limit as P or R goes to 0 (a list
      with no true positive has P = R = 0 and F = 0, as in :mod:`evalcore.curves`).
    * A metric of weight 0 is left out: alpha = 1 gives P even when R = 0, and alpha = 0
      gives R even when P = 0. F_alpha is therefore discontinuous at alpha = 1 when R = 0
      (0 for alpha < 1, P at 1), and at alpha = 0 when P = 0.

    References
    ----------
    van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed., ch. 7. Butterworths.

    Examples
    --------
    >>> float(f_alpha(0.75, 0.5, 0.5))  # F1 = 2 * 0.75 * 0.5 / (0.75 + 0.5)
    0.6
    >>> f_alpha([0.8, 0.8], [0.2, 0.2], [1.0, 0.0])  # alpha = 1 is P, alpha = 0 is R
    array([0.8, 0.2])
    """
    p = _unit_values(precision, "precision")
    r = _unit_values(recall, "recall")
    a = _unit_values(alpha, "alpha")
    try:
        p, r, a = np.broadcast_arrays(p, r, a)
    except ValueError:
        raise ParameterError(f"`precision`, `recall` and `alpha` must broadcast together; got shapes "
                             f"{np.shape(p)}, {np.shape(r)} and {np.shape(a)}") from None
    return _f_alpha(p, r, a)[()]


def f_beta_to_alpha(beta: float) -> float:
    """The ``alpha`` of F_alpha that equals F_beta: ``alpha = 1 / (1 + beta^2)``.

    Parameters
    ----------
    beta : float
        Non-negative; ``inf`` is allowed (recall only, alpha = 0). beta = 1 gives 0.5 (F1),
        beta = 2 gives 0.2 (recall weighted more), beta = 0.5 gives 0.8.

    Returns
    -------
    float
        ``alpha`` in (0, 1] (0 for beta = inf).

    Notes
    -----
    ``F_beta = (1 + beta^2) P R / (beta^2 P + R)`` (van Rijsbergen 1979, ch. 7); dividing
    numerator and denominator by ``(1 + beta^2) P R`` gives
    ``1 / (alpha / P + (1 - alpha) / R)`` with ``alpha = 1 / (1 + beta^2)``.
    """
    try:
        value = float(beta)
    except (TypeError, ValueError):
        raise ParameterError(f"`beta` must be a non-negative number, e.g. 1 for F1; got {beta!r}") from None
    if not value >= 0.0:
        raise ParameterError(f"`beta` must be >= 0 (1 gives F1, 2 weights recall more); got {beta!r}")
    return 1.0 / (1.0 + value * value)


def _sample_vector(values, parameter: str) -> np.ndarray:
    array = _unit_values(values, parameter)
    if array.ndim != 1 or array.size == 0:
        raise ParameterError(f"`{parameter}` must be a non-empty 1-d array, one value per sample; "
                             f"got shape {array.shape}")
    return array


def _mean_f(samples: dict[str, np.ndarray], alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mean_i F_alpha of A on sample i, same for B), for each alpha of the 1-d ``alpha``."""
    column = alpha[:, None]
    f_a = _f_alpha(samples["p_a"][None, :], samples["r_a"][None, :], column).mean(axis=1)
    f_b = _f_alpha(samples["p_b"][None, :], samples["r_b"][None, :], column).mean(axis=1)
    return f_a, f_b


def f_alpha_sweep(p_a: ArrayLike, r_a: ArrayLike, p_b: ArrayLike, r_b: ArrayLike,
                  alphas: ArrayLike | None = None) -> pd.DataFrame:
    """Mean F_alpha of systems A and B over the samples, for a grid of ``alpha``.

    Parameters
    ----------
    p_a, r_a, p_b, r_b : array_like of float, length k
        Precision and recall of A and of B on each of the k samples, in [0, 1].
    alphas : array_like of float, optional
        Strictly increasing values in [0, 1]; default ``np.linspace(0, 1, 101)``.

    Returns
    -------
    DataFrame
        One row per alpha, columns ``alpha, f_a, f_b, difference, better``:
        ``f_a = mean_i F_alpha(p_a[i], r_a[i])``, likewise ``f_b``,
        ``difference = f_a - f_b`` and ``better`` "A" (difference > 1e-12), "B"
        (difference < -1e-12) or "tie". ``attrs["samples"]`` keeps the per-sample P and R,
        so that :func:`sweep_flips` can find the exact alphas where the better system
        changes.

    Raises
    ------
    ParameterError
        If the four arrays differ in length (the message gives all four), are empty, hold
        NaN or values outside [0, 1], or if ``alphas`` is not strictly increasing in [0, 1].

    Notes
    -----
    F_alpha is van Rijsbergen's ``1 / (alpha / P + (1 - alpha) / R)`` with the conventions
    of :func:`f_alpha`: alpha = 1 is precision, alpha = 0 recall. The mean is over samples,
    so each sample's F is computed first (the "macro" average). Amigó et al. (2011) show
    such curves for pairs of clustering systems: when the curves cross, which system is
    better depends on the weight, which is what a low UIR warns about.

    References
    ----------
    van Rijsbergen, C. J. (1979). Information Retrieval, 2nd ed., ch. 7.
    Amigó, E., Gonzalo, J., Artiles, J. & Verdejo, F. (2011). Journal of Artificial
    Intelligence Research 42, 689-718.
    """
    samples = {name: _sample_vector(values, name)
               for name, values in (("p_a", p_a), ("r_a", r_a), ("p_b", p_b), ("r_b", r_b))}
    lengths = {name: values.size for name, values in samples.items()}
    if len(set(lengths.values())) != 1:
        raise ParameterError("`p_a`, `r_a`, `p_b` and `r_b` must have one value per sample each; got lengths "
                             + ", ".join(f"{name}={size}" for name, size in lengths.items()))
    if alphas is None:
        grid = DEFAULT_ALPHAS.copy()
    else:
        grid = _unit_values(alphas, "alphas")
        if grid.ndim != 1 or grid.size == 0:
            raise ParameterError(f"`alphas` must be a non-empty 1-d array; got shape {grid.shape}")
        if np.any(np.diff(grid) <= 0):
            raise ParameterError("`alphas` must be strictly increasing; sort them first, e.g. `np.unique(alphas)`")
    f_a, f_b = _mean_f(samples, grid)
    difference = f_a - f_b
    better = np.where(difference > SWEEP_TIE_TOLERANCE, "A",
                      np.where(difference < -SWEEP_TIE_TOLERANCE, "B", "tie"))
    sweep = pd.DataFrame({"alpha": grid, "f_a": f_a, "f_b": f_b, "difference": difference, "better": better})
    # tuples, not arrays: attrs are compared with == when pandas concatenates frames
    sweep.attrs[_SWEEP_SAMPLES] = {name: tuple(values.tolist()) for name, values in samples.items()}
    return sweep


def sweep_flips(sweep: pd.DataFrame) -> list[float]:
    """The alphas at which the better of A and B changes, as exact roots.

    Parameters
    ----------
    sweep : DataFrame
        The result of :func:`f_alpha_sweep` (rows may be dropped; its ``attrs["samples"]``
        must be kept).

    Returns
    -------
    list of float
        Increasing alphas where ``mean F_alpha(A) - mean F_alpha(B)`` changes sign; empty
        when one system is at least as good for every alpha of the grid.

    Raises
    ------
    ParameterError
        If ``sweep`` lacks the columns ``alpha`` and ``difference`` or the per-sample data
        in ``attrs["samples"]``, or its alphas are not strictly increasing.

    Notes
    -----
    ``d(alpha) = mean_i F_alpha(p_a[i], r_a[i]) - mean_i F_alpha(p_b[i], r_b[i])`` is
    continuous on (0, 1). Between consecutive grid rows where ``better`` goes from "A" to
    "B" or back (rows marked "tie" in between are bridged), Brent's method
    (``scipy.optimize.brentq``) finds the root of ``d`` to about 1e-15, not the grid point.
    Touching 0 without changing sign ("A", "tie", "A") is not a flip. Two crossings within
    one grid step cancel and are not seen: refine ``alphas`` where the curves are close.
    When a sample has R = 0 (or P = 0), d jumps at alpha = 1 (or 0); a change of sign
    caused by the jump is reported at that end point.

    References
    ----------
    Brent, R. P. (1973). Algorithms for Minimization without Derivatives, ch. 4.
    """
    if not isinstance(sweep, pd.DataFrame) or not {"alpha", "difference"} <= set(sweep.columns):
        raise ParameterError("`sweep` must be the DataFrame of `f_alpha_sweep` with columns alpha and "
                             f"difference; got {type(sweep).__name__}")
    stored = sweep.attrs.get(_SWEEP_SAMPLES)
    if not isinstance(stored, Mapping) or not {"p_a", "r_a", "p_b", "r_b"} <= set(stored):
        raise ParameterError("`sweep` has lost the per-sample precision and recall (`attrs['samples']`) that "
                             "the exact roots need; pass the DataFrame returned by `f_alpha_sweep` or a "
                             "row selection of it")
    samples = {name: np.asarray(stored[name], dtype=np.float64) for name in ("p_a", "r_a", "p_b", "r_b")}
    alpha = sweep["alpha"].to_numpy(dtype=np.float64)
    if np.any(np.diff(alpha) <= 0):
        raise ParameterError("`sweep` must have strictly increasing alphas; sort it with "
                             "`sweep.sort_values('alpha')`")
    difference = sweep["difference"].to_numpy(dtype=np.float64)
    sign = np.where(difference > SWEEP_TIE_TOLERANCE, 1, np.where(difference < -SWEEP_TIE_TOLERANCE, -1, 0))
    decided = np.flatnonzero(sign)

    def d(x: float) -> float:
        f_a, f_b = _mean_f(samples, np.array([x]))
        return float(f_a[0] - f_b[0])

    flips = []
    for i, j in zip(decided[:-1], decided[1:]):
        if sign[i] != sign[j]:
            flips.append(float(optimize.brentq(d, alpha[i], alpha[j], xtol=1e-15, rtol=4 * np.finfo(float).eps)))
    return flips
