"""Which list sizes n to evaluate: every n, a list, or a range."""

from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .text import shown


def parse_n_spec(spec: str, n_candidates: int) -> np.ndarray:
    """Turn ``all``, ``100,500,1000`` or ``start:stop:step`` (stop included) into sizes n.

    Parameters
    ----------
    spec : str
        The specification as typed on the command line.
    n_candidates : int
        Size N of the candidate set; every n must be in 1..N.

    Returns
    -------
    ndarray of int64
        Sorted, distinct sizes.

    Examples
    --------
    >>> parse_n_spec("100:300:100", 5102).tolist()
    [100, 200, 300]
    """
    text = str(spec).strip().lower()
    given = f"--n {shown(spec)}"
    hint = "use 'all', a list such as 100,500,1000, or a range start:stop:step such as 100:2000:50"
    if text == "all":
        return np.arange(1, n_candidates + 1, dtype=np.int64)
    try:
        if ":" in text:
            parts = [int(p) for p in text.split(":")]
            if len(parts) == 2:
                parts.append(1)
            if len(parts) != 3:
                raise ValueError
            start, stop, step = parts
            if step < 1 or stop < start:
                raise ParameterError(f"{given}: a range needs start <= stop and step >= 1; {hint}")
            _check_within((start, stop), n_candidates, given)  # before building it
            values = np.arange(start, stop + 1, min(step, n_candidates), dtype=np.int64)
        else:
            numbers = sorted({int(p) for p in text.split(",") if p.strip()})
            _check_within(numbers, n_candidates, given)
            values = np.array(numbers, dtype=np.int64)
    except ValueError as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(f"{given} is not understood; {hint}") from None
    return check_sizes(values, n_candidates, what=given)


def _check_within(numbers, n_candidates: int, what: str) -> None:
    """Every n in 1..N, checked on Python integers (an n past 2^63 or a range of 10^11 is never built)."""
    for value in numbers:
        if not 1 <= value <= n_candidates:
            text = f"{value}" if len(str(value)) <= 20 else f"{str(value)[:16]}…"
            raise ParameterError(f"{what}: list size {text} is outside 1..{n_candidates} (the candidate set has "
                                 f"{n_candidates} candidates)")


def check_sizes(n, n_candidates: int, what: str = "`n`") -> np.ndarray:
    """Validate list sizes: whole numbers in 1..N (None means every n)."""
    if n is None:
        return np.arange(1, n_candidates + 1, dtype=np.int64)
    values = np.atleast_1d(np.asarray(n))
    if values.size == 0:
        raise ParameterError(f"{what}: no list size given")
    if not np.issubdtype(values.dtype, np.integer):
        if not np.all(values == np.floor(values)):
            raise ParameterError(f"{what}: list sizes must be whole numbers")
        values = values.astype(np.int64)
    bad = (values < 1) | (values > n_candidates)
    if bad.any():
        raise ParameterError(f"{what}: list size {int(values[bad][0])} is outside 1..{n_candidates} "
                             f"(the candidate set has {n_candidates} candidates)")
    return values.astype(np.int64)


def grid_sizes(n_range: tuple[int, int], step: int = 1) -> np.ndarray:
    """The list sizes tested in ``n_range`` with a step between them: ``lo, lo + step, ..., hi``, with ``hi``
    always included (``step`` 1: every n). :func:`evalcore.work.grid_size` counts them without building them.

    Examples
    --------
    >>> grid_sizes((100, 1000), 200).tolist()
    [100, 300, 500, 700, 900, 1000]
    """
    lo, hi = int(n_range[0]), int(n_range[1])
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise ParameterError(f"the step between the tested n must be a whole number >= 1; got {step!r}")
    if hi < lo:
        raise ParameterError(f"a range of n needs first <= last; got {lo}:{hi}")
    sizes = np.arange(lo, hi + 1, int(step), dtype=np.int64)
    return sizes if sizes[-1] == hi else np.append(sizes, np.int64(hi))
