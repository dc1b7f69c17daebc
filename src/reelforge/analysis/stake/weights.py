"""Integer weights for the books, from the law on the grid.

1. Every payout of the law with a book keeps its probability, shared equally among its books
   (each book stands for the rounds that pay the same; the search met them uniformly).
2. A payout without a book gives its probability to the nearest payouts with books in the same
   band and on the same side of the bet (:meth:`GridLaw.segment_of`), below and above, in the
   proportions that keep the mean (``p (b-x)/(b-a)`` to ``a``, ``p (x-a)/(b-a)`` to ``b``); with
   books on one side only, all to the nearest.  Bands, the hit rate, P(win < bet) and the max
   win keep their probabilities.
3. Weights are probabilities times ``TOTAL`` (2^63), rounded; a book of a payout that can occur
   weighs at least 1 (the table cannot say less than 1 in 2^63, and says the payout is possible).
4. What rounding the payouts to the grid (:mod:`.law`) and steps 2-3 cost the mean is taken back
   by the smallest change of the weights in the chi-square sense that keeps every band's
   probability and P(win < bet): inside each segment (band, and side of the bet) up to
   :data:`TILT_UP_TO` costs, where the mass is, each weight ``w`` becomes ``w (1 + t (x - m))``,
   ``m`` the segment's mean payout, one ``t`` for all (:func:`_tilt`).  Tilting the high bands
   too would move less probability but change the SD more (the same mean moved at 1,000x
   moves the second moment a thousand times as much).  What the integers leave is moved inside
   one segment (:func:`_absorb`).
   The table's RTP then meets the exact RTP to about 1e-17.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from reelforge.analysis.stake.law import PER_BET, GridLaw

TILT_UP_TO = 10  # costs: the bands the tilt changes end here
TOTAL = 1 << 63  # the weights' sum, about: inside uint64 with room for the platform's float sums


class BandUncovered(ValueError):
    """A band of the law with probability but no book: the search must find one."""


@dataclass(frozen=True)
class Weighted:
    weights: list[int]
    covered: int  # distinct payouts with a book
    distinct: int  # distinct payouts of the law (known to occur)
    moved_uncovered: Fraction  # probability of payouts without a book, given to neighbours
    moved_to_absorb: Fraction  # probability moved inside bands to take back the mean's shift
    shift_before_absorb: Fraction  # table RTP minus exact RTP before step 4


def _spread(law: GridLaw, covered: set[int]) -> tuple[dict[int, Fraction], Fraction]:
    """Step 2: the law's mass on the covered payouts; and the mass that moved."""
    every = sorted(covered)
    by_segment: dict[tuple[int, bool], list[int]] = defaultdict(list)
    for payout in every:
        by_segment[law.segment_of(payout)].append(payout)
    out: dict[int, Fraction] = defaultdict(Fraction)
    moved = Fraction(0)
    missing = []
    for payout, p in law.mass.items():
        if payout in covered:
            out[payout] += p
            continue
        segment = law.segment_of(payout)
        near = by_segment.get(segment)
        if not near:
            if payout in law.support:
                missing.append(law.bands[segment[0]].label)
            # A cell the enclosure cannot rule out, in a band with no round: nothing occurs there
            # to give it to; its (tiny) mass goes to the nearest covered payouts of any band.
            near = every
        moved += p
        i = bisect.bisect_left(near, payout)  # near[i-1] < payout < near[i]
        if 0 < i < len(near):
            a, b = near[i - 1], near[i]
            out[a] += p * (b - payout) / (b - a)
            out[b] += p * (payout - a) / (b - a)
        else:
            out[near[i - 1] if i else near[0]] += p
    if missing:
        raise BandUncovered(f"no book in the bands {sorted(set(missing))}: search longer (--search-rounds)")
    return out, moved


def weigh(law: GridLaw, payouts: list[int]) -> Weighted:
    """Weights for books paying ``payouts`` (in order)."""
    covered = set(payouts)
    mass, moved = _spread(law, covered)
    count: dict[int, int] = defaultdict(int)
    for payout in payouts:
        count[payout] += 1
    weights = []
    for payout in payouts:
        share = mass[payout] / count[payout]
        w = round(share * TOTAL)
        weights.append(max(w, 1) if share > 0 else 0)
    per_cost = PER_BET * law.cost
    total = sum(weights)
    paid = sum(w * p for w, p in zip(weights, payouts, strict=True))
    shift = Fraction(paid, total * per_cost) - law.exact_rtp
    absorbed = _tilt(law, payouts, weights) + _absorb(law, payouts, weights)
    return Weighted(weights, len(covered), len(law.support), moved, absorbed, shift)


def _deficit(law: GridLaw, payouts: list[int], weights: list[int]) -> Fraction:
    """What the weighted payouts lack of the exact RTP, in weight x payout units."""
    paid = sum(w * p for w, p in zip(weights, payouts, strict=True))
    return law.exact_rtp * PER_BET * law.cost * sum(weights) - paid


def _tilt(law: GridLaw, payouts: list[int], weights: list[int]) -> Fraction:
    """Step 4's tilt, in place; returns the probability moved (half the weights' L1 change).
    Leaves the weights as they are if the tilt would take a book to zero (step 4's fallback,
    :func:`_absorb`, then moves it all)."""
    total = sum(weights)
    segments: dict[tuple[int, bool], list[int]] = defaultdict(list)
    for i, payout in enumerate(payouts):
        band = law.bands[law.band_of(payout)]
        if band.high <= TILT_UP_TO * PER_BET * law.cost:
            segments[law.segment_of(payout)].append(i)
    means = {
        s: Fraction(sum(weights[i] * payouts[i] for i in ids), sum(weights[i] for i in ids) or 1)
        for s, ids in segments.items()
    }
    spread = sum(weights[i] * (payouts[i] - means[s]) ** 2 for s, ids in segments.items() for i in ids)
    if spread == 0:
        return Fraction(0)
    t = _deficit(law, payouts, weights) / spread
    new = list(weights)
    for s, ids in segments.items():
        for i in ids:
            new[i] = round(weights[i] * (1 + t * (payouts[i] - means[s])))
        # The segment's probability exactly as it was: the integers' remainder to its heaviest book.
        heaviest = max(ids, key=lambda i: new[i])
        new[heaviest] += sum(weights[i] for i in ids) - sum(new[i] for i in ids)
    if any(n < 1 <= w for n, w in zip(new, weights, strict=True)):
        return Fraction(0)
    moved = sum(abs(n - w) for n, w in zip(new, weights, strict=True))
    weights[:] = new
    return Fraction(moved, 2 * total)


def _absorb(law: GridLaw, payouts: list[int], weights: list[int]) -> Fraction:
    """Step 4's remainder, in place: weight moved in the heaviest segments from their heaviest
    book to their top (or bottom) book; returns the probability moved."""
    total = sum(weights)
    books_by_band: dict[tuple[int, bool], list[int]] = defaultdict(list)
    for i, payout in enumerate(payouts):
        books_by_band[law.segment_of(payout)].append(i)
    # Segments with two payouts or more, the heaviest first (the change is smallest there).
    bands = sorted(
        (b for b, ids in books_by_band.items() if len({payouts[i] for i in ids}) > 1),
        key=lambda b: -sum(weights[i] for i in books_by_band[b]),
    )
    moved = 0
    for band in bands:
        deficit = _deficit(law, payouts, weights)
        if abs(deficit) < 1:
            break
        ids = books_by_band[band]
        up = deficit > 0  # more return wanted: weight goes up the band
        end = max(ids, key=lambda i: payouts[i]) if up else min(ids, key=lambda i: payouts[i])
        donors = [i for i in ids if (payouts[i] < payouts[end] if up else payouts[i] > payouts[end])]
        donor = max(donors, key=lambda i: weights[i])
        gap = abs(payouts[end] - payouts[donor])
        t = min(round(abs(deficit) / gap), weights[donor] - 1)
        weights[donor] -= t
        weights[end] += t
        moved += t
    return Fraction(moved, total)
