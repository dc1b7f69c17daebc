"""The exact law of a Lock & Spin (or Super Lock & Spin) win, in integers.

What the chain's state needs: nothing of the frames' values.  A frame draws its prize once,
at the end, from its level's table, independently of every other frame and of how the board
was filled (lock_spin.convert), so given the final board's counts ``(b, s, g)`` of bronze,
silver and gold frames the win is the sum of ``b`` draws of the bronze table, ``s`` of the
silver and ``g`` of the gold.  :func:`exact_feature.feature_result` already gives the exact
law of the final board (the chain over (board, counter) is a finite tree: every ghost raises
the progress ``b + 2s + 3g``, which cannot pass ``3 * N_POS``, so it needs no truncation), and

    P(win) = sum_(b,s,g) P(b, s, g) * B^(*b) * S^(*s) * G^(*g)

with ``B``, ``S``, ``G`` the three prize tables and ``*`` convolution.  It is evaluated by
Horner's rule, nested: over ``b`` for each ``(s, g)``, then over ``s``, then over ``g``, so
every convolution is by one small table.  All of it is in integers: the tables' weights, and
the board probabilities over their common denominator, so the result is exact.

The max-win cap: the capped win is ``min(cap, sum)``; prizes are never negative, so capping
the partial sums of Horner's rule gives the same law (``min(c, min(c, x) + y) = min(c, x +
y)``).  The last cell takes all the mass at or above the cap, and beside it the law keeps the
uncapped first moment of that mass, so the uncapped mean (the exact RTP, which ignores the
cap) is recovered exactly too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .data_model import Feature, GambiniData
from .exact_common import cache
from .exact_feature import feature_result

Table = list[tuple[int, int]]  # (value in grid units, integer weight)


@dataclass
class CappedCounts:
    """Integer masses of an amount on the grid ``k * unit`` below the cap (``cells[k]``,
    zero beyond the array), ``cap_mass`` at or above it, and ``cap_first``: the sum over that
    capped mass of mass times the uncapped amount in credits."""

    unit: int
    top: int  # cells below the cap: k * unit < cap exactly for k < top
    cells: np.ndarray  # dtype object (Python ints): exact
    cap_mass: int = 0
    cap_first: int = 0

    @classmethod
    def point(cls, unit: int, top: int, weight: int, at: int = 0) -> CappedCounts:
        out = cls(unit, top, np.zeros(0, dtype=object))
        if at >= top:
            out.cap_mass, out.cap_first = weight, weight * at * unit
        else:
            cells = np.zeros(at + 1, dtype=object)
            cells[at] = weight
            out.cells = cells
        return out

    def total(self) -> int:
        return int(sum(self.cells.tolist())) + self.cap_mass

    def scaled(self, factor: int) -> CappedCounts:
        return CappedCounts(
            self.unit, self.top, self.cells * factor, self.cap_mass * factor, self.cap_first * factor
        )

    def plus(self, other: CappedCounts) -> CappedCounts:
        n = max(len(self.cells), len(other.cells))
        cells = np.zeros(n, dtype=object)
        cells[: len(self.cells)] += self.cells
        cells[: len(other.cells)] += other.cells
        return CappedCounts(
            self.unit, self.top, cells, self.cap_mass + other.cap_mass, self.cap_first + other.cap_first
        )

    def times(self, table: Table) -> CappedCounts:
        """Convolved with the (unnormalised) law ``table``: every mass times every weight."""
        top, unit = self.top, self.unit
        weight = sum(w for _, w in table)
        n = len(self.cells)
        width = min(top, n + max(v for v, _ in table))
        cells = np.zeros(width, dtype=object)
        ks = np.arange(n, dtype=object)
        cap_mass = self.cap_mass * weight
        cap_first = self.cap_first * weight + self.cap_mass * sum(w * v * unit for v, w in table)
        for v, w in table:
            below = max(0, min(n, top - v))  # cells that stay below the cap
            if below:
                cells[v : v + below] += self.cells[:below] * w
            if below < n:
                over = self.cells[below:]
                mass = int(sum(over.tolist()))
                cap_mass += w * mass
                cap_first += w * (int((over * ks[below:]).sum()) + mass * v) * unit
        return CappedCounts(unit, top, cells, cap_mass, cap_first)


@dataclass(frozen=True)
class ExactLaw:
    """An exact law of credits: ``P(k * unit) = cells[k] / denominator`` below the cap,
    ``P(cap) = cap_mass / denominator``; ``cap_first / denominator = E[X; X >= cap]``
    of the uncapped amount ``X``."""

    unit: int
    cap: int
    cells: tuple[int, ...]
    cap_mass: int
    cap_first: int
    denominator: int

    def pmf(self) -> dict[int, Fraction]:
        out = {k * self.unit: Fraction(c, self.denominator) for k, c in enumerate(self.cells) if c}
        if self.cap_mass:
            out[self.cap] = Fraction(self.cap_mass, self.denominator)
        return out

    def _moment(self, power: int) -> int:
        return sum(c * (k * self.unit) ** power for k, c in enumerate(self.cells) if c)

    def mean(self) -> Fraction:
        """Of the capped amount."""
        return Fraction(self._moment(1) + self.cap_mass * self.cap, self.denominator)

    def mean_uncapped(self) -> Fraction:
        return Fraction(self._moment(1) + self.cap_first, self.denominator)

    def second_moment(self) -> Fraction:
        """Of the capped amount."""
        return Fraction(self._moment(2) + self.cap_mass * self.cap**2, self.denominator)

    def p_cap(self) -> Fraction:
        return Fraction(self.cap_mass, self.denominator)


def _table(d: GambiniData, weights: dict[str, int], unit: int) -> Table:
    merged: dict[int, int] = {}
    for prize, w in weights.items():
        if w:
            v = d.prize_credits(prize) // unit
            merged[v] = merged.get(v, 0) + w
    return sorted(merged.items())


def grid_unit(d: GambiniData, f: Feature) -> int:
    """The largest unit every frame prize is a whole number of (credits)."""
    values = [
        d.prize_credits(p)
        for table in (f.frames.bronze, f.frames.silver, f.frames.gold)
        for p, w in table.items()
        if w
    ]
    return math.gcd(*values)


def _horner(terms: Iterable[tuple[int, CappedCounts]], table: Table, empty: CappedCounts) -> CappedCounts:
    """``sum_i x_i T^(*i)`` from ``(i, x_i)`` (any order; missing i are zero)."""
    by = dict(terms)
    if not by:
        return empty
    acc = by[max(by)]
    for i in range(max(by) - 1, -1, -1):
        acc = acc.times(table)
        if i in by:
            acc = acc.plus(by[i])
    return acc


@cache
def feature_law(d: GambiniData, super_: bool, spins: int) -> ExactLaw:
    """The exact law of the feature's win in credits, capped at the game's max win."""
    f = d.super_lock_spin if super_ else d.lock_spin
    boards = feature_result(d, super_, spins).final_boards
    unit = grid_unit(d, f)
    cap = d.max_win_credits
    top = -(-cap // unit)  # cells k * unit < cap
    tables = [_table(d, getattr(f.frames, lv), unit) for lv in ("bronze", "silver", "gold")]
    totals = [sum(w for _, w in t) if t else 1 for t in tables]
    depth = max(sum(b) for b in boards)  # the most frames a board holds
    denominator = math.lcm(*(q.denominator for q in boards.values()))
    empty = CappedCounts(unit, top, np.zeros(0, dtype=object))

    def point(weight: int) -> CappedCounts:
        return CappedCounts.point(unit, top, weight)

    # the board's probability as an integer over ``denominator``, each level's table power
    # completed to ``depth`` so that every term has the same scale
    by_sg: dict[tuple[int, int], list[tuple[int, CappedCounts]]] = {}
    for (b, s, g), q in boards.items():
        n = q.numerator * (denominator // q.denominator) * totals[0] ** (depth - b)
        by_sg.setdefault((s, g), []).append((b, point(n)))
    by_g: dict[int, list[tuple[int, CappedCounts]]] = {}
    for (s, g), terms in by_sg.items():
        inner = _horner(terms, tables[0], empty).scaled(totals[1] ** (depth - s))
        by_g.setdefault(g, []).append((s, inner))
    outer = [
        (g, _horner(terms, tables[1], empty).scaled(totals[2] ** (depth - g))) for g, terms in by_g.items()
    ]
    law = _horner(outer, tables[2], empty)
    scale = denominator * totals[0] ** depth * totals[1] ** depth * totals[2] ** depth
    cells = tuple(int(c) for c in law.cells)
    assert law.total() == scale, "the law's mass is not 1"
    return ExactLaw(unit, cap, cells, law.cap_mass, law.cap_first, scale)
