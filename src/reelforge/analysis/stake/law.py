"""A mode's exact win law put on Stake Engine's payout grid.

The platform pays a book's ``payoutMultiplier``: the win in bets times 100, a whole multiple of
10 (0.1 bet), at least 10 when it is a win.  reelforge's games pay in credits (Reign of Gnomes:
40 credits a bet, so 0.025 bet steps), so a payout off the grid is rounded:

* to the nearest 0.1 bet (an exact half to the even step);
* but never across a figure the platform reports: a win stays a win (0.025 bet pays 0.1), a
  win below the stake stays below it, and a win inside a band of the law (``(1x, 2x]`` ...
  of the mode's cost, :data:`~reelforge.engine.distribution.BAND_EDGES`) stays in it: a
  payout within 0.1 bet of an edge it may not cross goes to the grid's first step inside.

So hit rate, P(win < bet), every band and the max win keep their exact probabilities; the
rounding moves the mean only (:attr:`GridLaw.rounding_cost`), and the weights take that back
(:mod:`.weights`).  For a game whose law is an enclosure (floating-point bounds on every cell,
Reign of Gnomes and the data-only games), each cell's probability is its enclosure's midpoint,
renormalised; the error is the enclosure's width (1e-11 and less), far inside the tolerances.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from reelforge.engine.distribution import BAND_EDGES, WinDistribution

STEP = 10  # the platform's payout granularity: 0.1 bet (payouts are bets x 100)
PER_BET = 100  # payout units per bet


@dataclass(frozen=True)
class Band:
    """``(low, high]`` in payout units, as the law's bands: ``low == high`` for the no-win
    band (0) and the cap; a band that runs into the cap stops short of it."""

    label: str
    low: int
    high: int

    def holds(self, payout: int) -> bool:
        if self.low == self.high:
            return payout == self.low
        return self.low < payout <= self.high


@dataclass(frozen=True)
class GridLaw:
    """One mode's law on the platform's grid: probability by payout (bets x 100)."""

    game: str
    variant: str
    mode: str
    cost: int  # the mode's price in bets (1 for a spin, 100 for a bought feature)
    bet_credits: int  # the game's credits in one bet
    mass: dict[int, Fraction]  # payout -> probability, rounded payouts, total 1
    support: frozenset[int]  # payouts known to occur (the exact law's; an enclosure's lower bound > 0)
    bands: tuple[Band, ...]
    exact_rtp: Fraction  # the game's exact RTP of the mode (its ``exact()``), per cost
    law_rtp: Fraction  # the law's mean before rounding, per cost (an enclosure's midpoints: ~exact_rtp)
    rounding_cost: Fraction  # the rounded law's mean minus the law's, per cost (RTP points / 100)
    top: int  # the largest payout (the cap for a capped game)
    exact_law: bool  # exact fractions, not an enclosure
    method: str

    def band_of(self, payout: int) -> int:
        for i, band in enumerate(self.bands):
            if band.holds(payout):
                return i
        raise ValueError(f"payout {payout} is in no band")

    def segment_of(self, payout: int) -> tuple[int, bool]:
        """Where mass may move without changing a reported figure: the band, and whether the
        payout is below the bet (P(win < bet); the bet is a band's edge only for a spin)."""
        return self.band_of(payout), payout < PER_BET * self.cost


def _bands(dist: WinDistribution, unit: Fraction) -> tuple[Band, ...]:
    """The law's bands (:meth:`WinDistribution.bands`) in payout units; ``unit``: payout units
    per credit."""
    cost_units = dist.stake * unit
    cap = None if dist.cap is None else dist.cap * unit
    out = [Band("0 (no win)", 0, 0)]
    edges: list[int | None] = [*BAND_EDGES, None]
    for low, high in itertools.pairwise(edges):
        assert low is not None
        lo = int(low * cost_units)
        if cap is not None and lo >= cap:
            break
        if cap is not None and (high is None or high * cost_units >= cap):
            out.append(Band(f"({low}x, cap)", lo, int(cap) - 1))
            break
        hi = int(high * cost_units) if high is not None else 1 << 62
        out.append(Band(f"({low}x, {high}x]" if high is not None else f"> {low}x", lo, hi))
    if cap is not None:
        out.append(Band("the cap", int(cap), int(cap)))
    return tuple(out)


def grid_payout(value: Fraction, walls: list[int]) -> int:
    """``value`` (payout units, exact) on the grid: the nearest step (half to even), kept
    strictly between the walls (sorted grid points: 0, the bands' edges, the cap) it lies
    between; a value on a wall stays there."""
    if value.denominator == 1 and int(value) % STEP == 0:
        return int(value)
    rounded = round(value / STEP) * STEP
    i = bisect.bisect_left(walls, value)  # walls[i-1] < value < walls[i] (value is not a wall)
    low = walls[i - 1] if i > 0 else 0
    high = walls[i] if i < len(walls) else None
    rounded = max(rounded, low + STEP)
    if high is not None:
        rounded = min(rounded, high - STEP)
    return int(rounded)


def _walls(bands: tuple[Band, ...], cost_units: Fraction) -> list[int]:
    walls = {0, int(cost_units)}  # the stake: a win below it stays below, P(win < bet)
    for band in bands:
        walls.add(band.low)
        if band.low == band.high or band.high < 1 << 61:
            walls.add(band.high)
    return sorted(walls)


def grid_law(dist: WinDistribution, exact: dict[str, Any], cost: int) -> GridLaw:
    """The mode's law on the grid.  ``exact`` is the game's ``exact()`` (its ``rtp_fraction``
    is the RTP the table must return); ``cost`` the mode's price in bets."""
    bet_credits = Fraction(dist.stake, cost)
    if bet_credits.denominator != 1:
        raise ValueError(f"{dist.game} {dist.mode}: a bet of {bet_credits} credits is not whole")
    unit = Fraction(PER_BET) / bet_credits  # payout units per credit
    bands = _bands(dist, unit)
    walls = _walls(bands, dist.stake * unit)
    mass: dict[int, Fraction] = {}
    support: set[int] = set()
    law_mean = Fraction(0)
    if dist.exact_pmf is not None:
        for credits, p in dist.exact_pmf.items():
            if p <= 0:
                continue
            payout = grid_payout(credits * unit, walls)
            mass[payout] = mass.get(payout, Fraction(0)) + p
            support.add(payout)
            law_mean += credits * unit * p
        rounded_mean = sum((payout * p for payout, p in mass.items()), Fraction(0))
    else:
        assert dist.bounds is not None
        mass, support, law_mean, rounded_mean = _grid_enclosure(dist, int(bet_credits), walls)
    per_cost = PER_BET * cost
    rtp = Fraction(exact["rtp_fraction"]) if "rtp_fraction" in exact else Fraction(exact["rtp"])
    return GridLaw(
        game=dist.game,
        variant=dist.variant,
        mode=dist.mode,
        cost=cost,
        bet_credits=int(bet_credits),
        mass=mass,
        support=frozenset(support),
        bands=bands,
        exact_rtp=rtp,
        law_rtp=law_mean / per_cost,
        rounding_cost=(rounded_mean - law_mean) / per_cost,
        top=max(mass),
        exact_law=dist.exact_pmf is not None,
        method=dist.method,
    )


def _grid_enclosure(
    dist: WinDistribution, bet_credits: int, walls: list[int]
) -> tuple[dict[int, Fraction], set[int], Fraction, Fraction]:
    """:func:`grid_payout` over every cell of an enclosure at once (Reign of Gnomes: 200,001
    cells), each cell at its midpoint, renormalised: the mass by payout, the payouts known to
    occur (lower bound > 0), the law's mean and the rounded law's mean (payout units)."""
    assert dist.bounds is not None
    lo, hi = dist.bounds.lo, dist.bounds.hi
    mid = (lo + hi) / 2
    mid = mid / mid.sum()
    credits = np.nonzero(mid)[0].astype(np.int64)
    num = credits * PER_BET  # the exact payout is num / bet_credits
    q, r = np.divmod(num, bet_credits * STEP)
    steps = q + (2 * r > bet_credits * STEP) + ((2 * r == bet_credits * STEP) & (q % 2 == 1))
    payout = steps * STEP
    wall = np.asarray(walls, dtype=np.int64)
    i = np.searchsorted(wall * bet_credits, num, side="left")
    on_wall = (i < len(wall)) & (wall[np.minimum(i, len(wall) - 1)] * bet_credits == num)
    low = np.where(i > 0, wall[np.maximum(i - 1, 0)] + STEP, 0)
    high = np.where(i < len(wall), wall[np.minimum(i, len(wall) - 1)] - STEP, np.iinfo(np.int64).max)
    payout = np.where(on_wall, num // bet_credits, np.clip(payout, low, high))
    p = mid[credits]
    values, inverse = np.unique(payout, return_inverse=True)
    sums = np.bincount(inverse, weights=p)
    mass = {int(v): Fraction(float(s)) for v, s in zip(values, sums, strict=True) if s > 0}
    support = {int(v) for v in np.unique(payout[lo[credits] > 0])}
    law_mean = Fraction(float(np.dot(p, num / bet_credits)))
    rounded_mean = Fraction(float(np.dot(p, payout)))
    return mass, support, law_mean, rounded_mean


def payout_of(win: int, bet: int, law: GridLaw) -> int:
    """A round's win (minor units) at a bet of ``bet`` minor units (the base game's stake; a
    bought feature costs ``cost`` of them) as the book's ``payoutMultiplier``, by the law's
    rounding."""
    walls = _walls(law.bands, law.cost * PER_BET)
    return grid_payout(Fraction(PER_BET * win, bet), walls)
