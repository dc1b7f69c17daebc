"""Statistical checks on RNG output, for the tests and the test lab's report.

Each check returns a p-value under the hypothesis of independent uniform draws; at the 99%
level a check passes when ``p > 0.01``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats


def chi_square_p(values: np.ndarray, n: int, weights: Sequence[int] | None = None) -> float:
    """Goodness of fit of draws in ``[0, n)`` to the uniform law, or to the law
    ``weights[i] / sum(weights)`` when given.  Cells expected fewer than 5 times are pooled
    into one (the chi-square approximation needs it); a draw in a cell of weight 0 gives 0."""
    observed = np.bincount(values, minlength=n).astype(float)
    if weights is None:
        return float(stats.chisquare(observed).pvalue)
    w = np.asarray(weights, dtype=float)
    if len(w) != n:
        raise ValueError(f"{len(w)} weights for a range of {n}")
    if observed[w == 0].any():
        return 0.0
    observed, expected = observed[w > 0], w[w > 0] / w.sum() * len(values)
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if len(expected) < 2:
        return 1.0  # everything in one pooled cell: nothing to compare
    return float(stats.chisquare(observed, expected).pvalue)


def runs_p(values: np.ndarray, n: int) -> float:
    """Wald-Wolfowitz runs test above/below the centre of the range ``[0, n)``."""
    centre = (n - 1) / 2
    signs = values[values != centre] > centre
    n1, n2 = int(signs.sum()), int((~signs).sum())
    runs = 1 + int(np.count_nonzero(signs[1:] != signs[:-1]))
    mean = 2 * n1 * n2 / (n1 + n2) + 1
    var = 2 * n1 * n2 * (2 * n1 * n2 - n1 - n2) / ((n1 + n2) ** 2 * (n1 + n2 - 1))
    z = (runs - mean) / math.sqrt(var)
    return float(2 * stats.norm.sf(abs(z)))


def serial_correlation(values: np.ndarray) -> tuple[float, float]:
    """Lag-1 correlation and its p-value (under independence r ~ N(0, 1/N))."""
    x = values.astype(float)
    r = float(np.corrcoef(x[:-1], x[1:])[0, 1])
    return r, float(2 * stats.norm.sf(abs(r) * math.sqrt(len(values))))


def report(values: np.ndarray, n: int) -> dict[str, dict[str, float | bool]]:
    """All three checks with their verdict at 99%."""
    r, p_corr = serial_correlation(values)
    out: dict[str, dict[str, float | bool]] = {
        "chi_square": {"p": chi_square_p(values, n)},
        "runs": {"p": runs_p(values, n)},
        "serial_lag1": {"r": r, "p": p_corr},
    }
    for check in out.values():
        check["pass"] = check["p"] > 0.01
    return out
