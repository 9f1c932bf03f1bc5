"""Which list sizes n to evaluate: every n, a list, or a range."""

from __future__ import annotations

import numpy as np

from .errors import ParameterError


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
                raise ParameterError(f"--n {spec!r}: a range needs start <= stop and step >= 1; {hint}")
            values = np.arange(start, stop + 1, step, dtype=np.int64)
        else:
            values = np.array(sorted({int(p) for p in text.split(",") if p.strip()}), dtype=np.int64)
    except ValueError as exc:
        if isinstance(exc, ParameterError):
            raise
        raise ParameterError(f"--n {spec!r} is not understood; {hint}") from None
    return check_sizes(values, n_candidates, what=f"--n {spec!r}")


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
