"""The statistics the sheet puts beside the exact figures: the simulated rounds' own law (for
their bands), intervals of simulated frequencies and of the standard deviation, and the RTP
band expected after n rounds."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from reelforge.engine.distribution import WinDistribution

from .model import CONFIDENCE, Z99

FUNNEL_ROUNDS = tuple(10**k for k in range(2, 9))  # 10^2 ... 10^8


def histogram(wins: np.ndarray) -> Counter[int]:
    """Round wins (credits) -> how many rounds won exactly that."""
    values, counts = np.unique(wins, return_counts=True)
    return Counter({int(v): int(c) for v, c in zip(values, counts, strict=True)})


def empirical(
    hist: Mapping[int, int], like: WinDistribution | None, stake: int, cap: int | None
) -> WinDistribution:
    """The simulated rounds as a law of their own, so that their bands are cut by the very code
    that cuts the exact law's (:meth:`WinDistribution.bands`)."""
    n = sum(hist.values())
    return WinDistribution(
        game=like.game if like is not None else "",
        variant=like.variant if like is not None else "",
        mode=like.mode if like is not None else "",
        stake=stake,
        cap=cap,
        method="simulated",
        error_bound="sampling: see the intervals",
        exact_pmf={w: Fraction(c, n) for w, c in hist.items()},
    )


def power_sums(hist: Mapping[int, int]) -> tuple[int, ...]:
    """``(n, sum w, sum w^2, sum w^3, sum w^4)`` over the rounds, exact integers."""
    return tuple(sum(c * w**k for w, c in hist.items()) for k in range(5))


def wilson(k: int, n: int, z: float = Z99) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion ``k / n``: sound at 0 and at rare
    events, where the normal interval would dip below 0."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At k = 0 (k = n) the bound is 0 (1) exactly: rounding would leave a speck that an exact
    # probability of 1e-25 (or 0) would fall outside of.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def sd_interval(sums: tuple[int, ...], stake: int, z: float = Z99) -> tuple[float, float, float]:
    """``(sd, low, high)`` of one round's win, in stakes, from the power sums: the sample
    variance's standard error is ``sqrt((m4 - m2^2) / n)`` (delta method; with a heavy tail the
    interval is asymptotic and rough).  The central moments are exact fractions first."""
    n = sums[0]
    if n < 2:
        return 0.0, 0.0, math.inf
    mean = Fraction(sums[1], n)
    m2 = Fraction(sums[2], n) - mean**2
    m4 = (
        Fraction(sums[4], n)
        - 4 * mean * Fraction(sums[3], n)
        + 6 * mean**2 * Fraction(sums[2], n)
        - 3 * mean**4
    )
    se = math.sqrt(max(float(m4 - m2 * m2), 0.0) / n)
    sd = math.sqrt(max(float(m2), 0.0))
    lo = math.sqrt(max(float(m2) - z * se, 0.0))
    hi = math.sqrt(float(m2) + z * se)
    return sd / stake, lo / stake, hi / stake


def funnel(
    center: float, sd: float, rounds: Sequence[int] = FUNNEL_ROUNDS
) -> list[tuple[int, list[tuple[float, float]]]]:
    """The RTP a player or an operator should see after ``n`` rounds: ``center +- z sd / sqrt(n)``
    at 90, 95 and 99% (the normal approximation of the mean; a return is never below 0)."""
    out = []
    for n in rounds:
        half = [z * sd / math.sqrt(n) for _, z in CONFIDENCE]
        out.append((n, [(max(0.0, center - h), center + h) for h in half]))
    return out
