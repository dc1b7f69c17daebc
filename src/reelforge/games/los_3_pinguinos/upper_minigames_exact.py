"""Exact distributions of the upper game's random prizes, and the value of Double-or-Bonuses.

Everything is in the bet's own cents, as exact fractions, from the data file alone:

* a minigame's *result* (before the floor, the line prize it replaces and the maximum):
  Roulette and Fishing add draws until they stop or the sum reaches the bet's maximum prize
  (no draw is made past it), so a dynamic programme over the running sum, truncated at the
  maximum, gives the finite distribution; Slides is one draw of its table (the shuffle makes
  the picked platform's prize a plain draw);
* the mixed-sevens prize of ``n`` mixed lines: ``n`` independent draws of the bet's table;
* Double-or-Bonuses under AUTO-RISK: a Markov chain over (cash secured, prize left) in
  fractions of the bet's ``fraction``.

A result at or above the maximum is stored as the maximum: the prize a minigame pays is
``min(max_prize, max(floor, line prize, result))``, so nothing above the maximum matters.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from reelforge.engine.memo import by_identity

from .data_model import LowerData
from .upper_data import UpperBet

F = Fraction
Dist = dict[int, Fraction]  # cents -> probability


def _cash(key: str) -> int:
    return int(key[1:])


def _sorted(dist: dict[int, Fraction]) -> Dist:
    return {k: dist[k] for k in sorted(dist) if dist[k]}


def _chance(yes: int, no: int) -> Fraction:
    return F(yes, yes + no)


def _add_until_top(start: Dist, steps: Dist, stop: Fraction, top: int) -> tuple[Dist, Fraction]:
    """From ``start`` (sums below ``top``), each sum below the top stops with chance ``stop``
    or adds a step drawn from ``steps`` (chances summing to 1 − ``stop``).  Returns the
    stopped sums below the top and the chance of reaching the top (where drawing ends)."""
    active: dict[int, Fraction] = defaultdict(F, start)
    stopped: Dist = {}
    reached = F(0)
    while active:
        t = min(active)  # sums only grow: the smallest one has all its mass
        mass = active.pop(t)
        stopped[t] = stopped.get(t, F(0)) + mass * stop
        for step, chance in steps.items():
            nxt = t + step
            if nxt >= top:
                reached += mass * chance
            else:
                active[nxt] += mass * chance
    return stopped, reached


@by_identity()
def roulette(d: LowerData, i: int) -> Dist:
    """Roulette at bet ``i``: a uniform section, then another with ``again`` while the sum is
    below the maximum."""
    bet = d.upper.bets[i]
    ro = d.upper.roulette
    top = bet.max_prize
    each = F(1, len(ro.sections))
    again = _chance(ro.again.yes, ro.again.no)
    first: dict[int, Fraction] = defaultdict(F)
    reached = F(0)
    for s in ro.sections:
        if s * bet.multiplier >= top:
            reached += each
        else:
            first[s * bet.multiplier] += each
    steps: dict[int, Fraction] = defaultdict(F)
    for s in ro.sections:
        steps[s * bet.multiplier] += again * each
    stopped, more = _add_until_top(dict(first), dict(steps), 1 - again, top)
    out = dict(stopped)
    out[top] = out.get(top, F(0)) + reached + more
    return _sorted(out)


@by_identity()
def fishing(d: LowerData, i: int) -> Dist:
    """Fishing at bet ``i``: each penguin draws ``catch`` until the cross, all of them
    stopping once the sum reaches the maximum."""
    bet = d.upper.bets[i]
    fi = d.upper.fishing
    top = bet.max_prize
    total = sum(fi.catch.values())
    cross = F(fi.catch["X"], total)
    steps: dict[int, Fraction] = defaultdict(F)
    for key, w in fi.catch.items():
        if key != "X" and w:
            steps[_cash(key) * bet.multiplier] += F(w, total)
    dist: Dist = {0: F(1)}
    reached = F(0)
    for _ in range(fi.penguins):
        dist, more = _add_until_top(dist, dict(steps), cross, top)
        reached += more
    out = dict(dist)
    out[top] = out.get(top, F(0)) + reached
    return _sorted(out)


@by_identity()
def slides(d: LowerData, i: int) -> Dist:
    """Slides at bet ``i``: the picked platform's prize is one draw of the table."""
    bet = d.upper.bets[i]
    table = d.upper.slides.prizes
    total = sum(table.values())
    out: dict[int, Fraction] = defaultdict(F)
    for key, w in table.items():
        out[min(bet.max_prize, _cash(key) * bet.multiplier)] += F(w, total)
    return _sorted(out)


def minigame(d: LowerData, i: int, kind: str) -> Dist:
    return {"roulette": roulette, "fishing": fishing, "slides": slides}[kind](d, i)


@by_identity()
def mixed_sum(d: LowerData, i: int, n: int) -> Dist:
    """The sum of ``n`` draws of bet ``i``'s mixed-sevens table (not yet capped)."""
    bet = d.upper.bets[i]
    total = sum(bet.mixed.values())
    dist: Dist = {0: F(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = defaultdict(F)
        for s, p in dist.items():
            for prize, w in bet.mixed.items():
                if w:
                    nxt[s + prize] += p * F(w, total)
        dist = dict(nxt)
    return _sorted(dist)


def line_prize(d: LowerData, i: int, direct: int, mixed_lines: int) -> Dist:
    """The line prize: the direct prizes plus the mixed draws, at most the maximum."""
    top = d.upper.bets[i].max_prize
    out: dict[int, Fraction] = defaultdict(F)
    for s, p in mixed_sum(d, i, mixed_lines).items():
        out[min(top, direct + s)] += p
    return _sorted(out)


def replaced(bet: UpperBet, line: int, result: Dist) -> Dist:
    """What an offered minigame pays when it replaces the line prize ``line``."""
    out: dict[int, Fraction] = defaultdict(F)
    for r, p in result.items():
        out[min(bet.max_prize, max(bet.minigame_floor, line, r))] += p
    return _sorted(out)


# -- Double-or-Bonuses ---------------------------------------------------------------------


def double_chance(d: LowerData) -> Fraction:
    return _chance(d.upper.double.double, d.upper.double.bonuses)


@by_identity()
def _risk_memo(d: LowerData, i: int, bonus_weight: Fraction) -> dict[tuple[int, int], Fraction]:
    return {}


def risk_value(d: LowerData, i: int, prize: int, bonus_weight: Fraction | int = 1) -> Fraction:
    """A prize's value (cash plus Bonuses at their value) under AUTO-RISK: every fraction
    is played.  A double secures twice the fraction and ends the game at the maximum once
    the secured cash and the prize left reach it; otherwise the fraction turns into Bonuses
    worth ``bonus_weight`` times it (1: at ``bonus_value``, the random rounding of a part
    Bonus keeping the expectation; 0: the cash alone).  The
    maximum (or more) is paid at once; below half of it a prize P is worth P (1 + p).
    Assumes the machine's Bonuses stay at or below the cap, where every fraction may be
    played."""
    bet = d.upper.bets[i]
    top = bet.max_prize
    if prize <= 0:
        return F(0)
    if prize >= top:
        return F(prize)
    p = double_chance(d)
    bonus_weight = F(bonus_weight)
    memo = _risk_memo(d, i, bonus_weight)

    def value(secured: int, left: int) -> Fraction:
        if secured + 2 * left < top:
            # Every later check sees at most secured + 2 × left: the maximum cannot bind, and
            # each fraction left returns (2p + (1 - p) bonus_weight) times itself.
            return secured + left * (2 * p + (1 - p) * bonus_weight)
        hit = memo.get((secured, left))
        if hit is not None:
            return hit
        frac = min(bet.fraction, left)
        # a double secures 2 × frac; reaching the maximum with what is left ends the game
        doubled = F(top) if secured + left + frac >= top else value(secured + 2 * frac, left - frac)
        v = p * doubled + (1 - p) * (bonus_weight * frac + value(secured, left - frac))
        memo[(secured, left)] = v
        return v

    return value(0, prize)


def settled_value(d: LowerData, i: int, prize: int, play: str) -> Fraction:
    """A settled prize's value: ``collect`` takes it (COLLECT ALL), ``risk`` plays it (Bonuses
    at ``bonus_value``), ``risk_cash`` is the cash part of ``risk``."""
    if play == "collect":
        return F(prize)
    return risk_value(d, i, prize, F(0) if play == "risk_cash" else F(1))
