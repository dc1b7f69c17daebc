"""The base game's odds of the max win, bracketed by rigorous bounds (exact rationals).

A base round reaches the cap only through a feature: one base spin pays far less than the
cap (:func:`max_spin_credits`), and a feature follows only a spin with Gambini or the ghost
in the center.  With ``X`` that spin's win and ``F`` the feature's (independent of ``X``
given who is in the center and how many piggies popped),

    P(X + F >= cap) = G(0) + sum_(f < cap) P(F = f) P(X >= cap - f),  G(0) = P(F >= cap),

exactly.  ``P(F = f)`` is exact (:mod:`.feature_law`).  The lower end of the bracket drops
the sum (``P(X >= .) >= 0``); the upper end bounds every ``P(X >= t)`` from above: the spin's
win is the lines of reel 1's three rows, ``L_0 + L_1 + L_2``, plus what the center collects,
``C``, so ``X >= t`` needs ``L_r >= a_r`` for some row or ``C >= a_3`` whenever
``a_0 + a_1 + a_2 + a_3 = t``, and

    P(X >= t) <= min over such splits of  sum_r P(L_r >= a_r) + P(C >= a_3).

Each ``L_r`` is the sum of the lines that start on row ``r``: they all pay reel 1's symbol
there, so given that symbol each other position either matches it (the symbol or the wild)
or not, independently, and the law of ``L_r`` is an enumeration of those match patterns
(a few thousand), exact.  ``C`` is bounded by the collection of the 14 positions (independent:
an exact convolution) plus the largest jackpot the rewind can bring plus the ghost's coins.
Every figure is an exact fraction; only the choice of the split is searched in floats.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from reelforge.engine.memo import by_identity

from .data_model import CENTER, N_REELS, OUTER, GambiniData, position
from .exact_common import cache, dist
from .exact_panel import position_dists
from .exact_piggies import piggy_chain
from .feature_law import ExactLaw, feature_law

KINDS = ("lock_spin_3", "lock_spin_4", "super_lock_spin_3", "super_lock_spin_4")


@dataclass(frozen=True)
class Tail:
    """``P(Y >= a)`` of an amount ``Y`` with finite support, exact."""

    values: tuple[int, ...]  # support, rising
    tails: tuple[Fraction, ...]  # tails[i] = P(Y >= values[i])

    @classmethod
    def of(cls, law: dict[int, Fraction]) -> Tail:
        values = sorted(v for v, p in law.items() if p)
        tails: list[Fraction] = []
        acc = Fraction(0)
        for v in reversed(values):
            acc += law[v]
            tails.append(acc)
        return cls(tuple(values), tuple(reversed(tails)))

    def at_least(self, a: int) -> Fraction:
        i = bisect.bisect_left(self.values, a)
        return self.tails[i] if i < len(self.values) else Fraction(0)

    @property
    def top(self) -> int:
        return self.values[-1] if self.values else 0


def row_line_law(d: GambiniData, row: int) -> dict[int, Fraction]:
    """The exact law of the credits paid by the lines starting on reel 1's ``row``, with a
    wild in the center (the only spins a feature can follow)."""
    dists = position_dists(d)
    lines = [ln for ln in d.lines if ln[0] == row]
    law: dict[int, Fraction] = defaultdict(Fraction)
    first = dists[position(0, row)]
    for symbol, q0 in first.items():
        if symbol not in d.pays:
            law[0] += q0
            continue
        pays = d.pays[symbol]
        cells = sorted({position(k, ln[k]) for ln in lines for k in range(1, N_REELS)} - {CENTER})
        match = {
            p: sum((dists[p].get(s, Fraction(0)) for s in (symbol, *d.wild_set)), Fraction(0)) for p in cells
        }
        for pattern in itertools.product((False, True), repeat=len(cells)):
            hit = dict(zip(cells, pattern, strict=True))
            prob = q0
            for p in cells:
                prob *= match[p] if hit[p] else 1 - match[p]
            if not prob:
                continue
            credits = 0
            for ln in lines:
                run = 1
                while run < N_REELS and (position(run, ln[run]) == CENTER or hit[position(run, ln[run])]):
                    run += 1
                credits += pays.get(run, 0)
            law[credits] += prob
    return dict(law)


def _convolve(a: dict[int, Fraction], b: dict[int, Fraction]) -> dict[int, Fraction]:
    out: dict[int, Fraction] = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


def collect_bound_law(d: GambiniData, ghost: bool) -> dict[int, Fraction]:
    """An amount at least what the center collects: every coin and jackpot of the 14 outer
    positions, plus the largest jackpot the rewind can bring, plus (the ghost) its coins."""
    law: dict[int, Fraction] = {0: Fraction(1)}
    for p in OUTER:
        here: dict[int, Fraction] = defaultdict(Fraction)
        for s, q in position_dists(d)[p].items():
            here[d.prize_credits(s) if d.is_prize(s) else 0] += q
        law = _convolve(law, dict(here))
    rewind = max(d.prize_credits(s) for p in OUTER for s in d.strips[p] if s in d.jackpots)
    law = {x + rewind: q for x, q in law.items()}
    if ghost:
        coin: dict[int, Fraction] = defaultdict(Fraction)
        for prize, q in dist(d.ghost_coins.prizes).items():
            coin[d.prize_credits(prize)] += q
        coins: dict[int, Fraction] = defaultdict(Fraction)
        power: dict[int, Fraction] = {0: Fraction(1)}
        for n in range(1, max(d.ghost_coins.count) + 1):
            power = _convolve(power, dict(coin))
            q = dist(d.ghost_coins.count).get(n, Fraction(0))
            for x, p in power.items():
                coins[x] += q * p
        law = _convolve(law, dict(coins))
    return law


@dataclass(frozen=True)
class SpinTail:
    """Upper bounds of ``P(X >= t)`` for a base spin with a wild in the center."""

    rows: tuple[Tail, ...]
    collect: Tail

    @property
    def top(self) -> int:
        """No such spin pays more."""
        return sum(r.top for r in self.rows) + self.collect.top

    def bound(self, t: int) -> Fraction:
        """``min(1, sum_r P(L_r >= a_r) + P(C >= a_3))`` for a split ``sum a = t``: exact;
        the split is the best of a grid, searched in floats (any split gives a bound)."""
        if t <= 0:
            return Fraction(1)
        if t > self.top:
            return Fraction(0)
        a = self._best_split(t)
        value = self.collect.at_least(a[3])
        for r, x in zip(self.rows, a[:3], strict=True):
            value += r.at_least(x)
        return min(Fraction(1), value)

    def _best_split(self, t: int) -> tuple[int, int, int, int]:
        grid = _SPLITS
        a3 = (t * grid[:, 3]) // _STEPS
        rest = t - a3
        a0 = (rest * grid[:, 0]) // _STEPS
        a1 = (rest * grid[:, 1]) // _STEPS
        a2 = rest - a0 - a1
        est = _float_tail(self.collect, a3)
        for r, x in zip(self.rows, (a0, a1, a2), strict=True):
            est = est + _float_tail(r, x)
        i = int(np.argmin(est))
        return int(a0[i]), int(a1[i]), int(a2[i]), int(a3[i])


_STEPS = 24
# shares of t: the collection's k3 / 24, then rows 0 and 1 k0 / 24 and k1 / 24 of the rest
_SPLITS = np.array(
    [
        (k0, k1, 0, k3)
        for k3 in range(_STEPS + 1)
        for k0 in range(_STEPS + 1)
        for k1 in range(_STEPS + 1 - k0)
    ],
    dtype=np.int64,
)


@by_identity(maxsize=64)
def _float_arrays(tail: Tail) -> tuple[np.ndarray, np.ndarray]:
    return np.array(tail.values, dtype=np.int64), np.array([float(x) for x in tail.tails] + [0.0])


def _float_tail(tail: Tail, a: np.ndarray) -> np.ndarray:
    values, tails = _float_arrays(tail)
    return tails[np.searchsorted(values, a, side="left")]


@cache
def spin_tails(d: GambiniData) -> dict[str, SpinTail]:
    """By who is in the center ('gambini', 'ghost')."""
    rows = tuple(Tail.of(row_line_law(d, r)) for r in range(3))
    return {
        "gambini": SpinTail(rows, Tail.of(collect_bound_law(d, False))),
        "ghost": SpinTail(rows, Tail.of(collect_bound_law(d, True))),
    }


def max_spin_credits(d: GambiniData) -> int:
    """An upper bound of one base spin's win (lines and collection)."""
    return max(t.top for t in spin_tails(d).values())


def _kind(name: str) -> tuple[bool, int, str]:
    super_ = name.startswith("super")
    return super_, int(name[-1]), "ghost" if super_ else "gambini"


def feature_cap_bracket(d: GambiniData, law: ExactLaw, tail: SpinTail) -> tuple[Fraction, Fraction]:
    """``P(X + F >= cap)``: exactly ``P(F >= cap)`` plus a term between 0 and its bound."""
    lo = law.p_cap()
    extra = Fraction(0)
    first = max(0, (law.cap - tail.top) // law.unit)  # below this the spin cannot make up the rest
    for k in range(first, len(law.cells)):
        c = law.cells[k]
        if c:
            extra += c * tail.bound(law.cap - k * law.unit)
    return lo, lo + extra / law.denominator


@dataclass(frozen=True)
class CapOdds:
    """P(a base round reaches the cap), bracketed: over the piggies' stationary law, and for
    each piggy state (the next round from that state)."""

    stationary: tuple[Fraction, Fraction]
    by_state: dict[tuple[int, int], tuple[Fraction, Fraction]]
    by_kind: dict[str, tuple[Fraction, Fraction]]  # given the feature kind was triggered

    def relative_width(self) -> float:
        lo, hi = self.stationary
        return float((hi - lo) / lo) if lo else math.inf


@cache
def base_cap_odds(d: GambiniData) -> CapOdds:
    if max_spin_credits(d) >= d.max_win_credits:
        raise NotImplementedError("a base spin alone can reach the cap: the bracket assumes it cannot")
    tails = spin_tails(d)
    by_kind = {}
    for name in KINDS:
        super_, spins, by = _kind(name)
        by_kind[name] = feature_cap_bracket(d, feature_law(d, super_, spins), tails[by])
    chain = piggy_chain(d)

    def mix(weights: dict[str, Fraction]) -> tuple[Fraction, Fraction]:
        lo = sum((q * by_kind[k][0] for k, q in weights.items()), Fraction(0))
        hi = sum((q * by_kind[k][1] for k, q in weights.items()), Fraction(0))
        return lo, hi

    by_state = {s: mix(chain.trigger[s]) for s in chain.states}
    lo = sum((chain.stationary[s] * by_state[s][0] for s in chain.states), Fraction(0))
    hi = sum((chain.stationary[s] * by_state[s][1] for s in chain.states), Fraction(0))
    return CapOdds((lo, hi), by_state, by_kind)
