"""Exact values of every lower-game position, and the best decisions they imply.

A *play* fixes how the player decides:

* ``ladders``: ``"collect"`` takes every ladder prize at once; ``"risk"`` (AUTO-RISK) plays
  every ladder to its end;
* ``holds``: ``"best"`` holds the reels worth most; ``"suggested"`` keeps the pair the game
  holds by itself.

Nudges are always played for the most value (AUTO-ADVANCE).  Values are in cents at the unit
bet, Bonuses counted at ``bonus_value``, as exact fractions:

* ``PV(outcome)``: what a prize is worth under the ladder rule (ladders as Markov chains);
* ``F(stops)``: a final position: its prize, or, with a pair in the paid game, the chance of a
  held game times the best (or suggested) hold's expected value;
* ``G(stops)``: a position as it lands: with a near miss, nudges are offered (chance ×
  count weights) and the best reachable ``F`` is taken.

The held game is valued first (it offers nudges but no further hold), then the paid game.
Ties go to the first option in a fixed order (fewest nudges, reel order; the suggested hold,
then masks in order), so the rules and the kernel make the same choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

import numpy as np

from reelforge.engine.memo import by_identity

from .data_model import STOPS, LowerData
from .payline import Outcome, Stops, evaluate, line_symbols, nudge_offerable, nudge_vectors, nudged

F = Fraction
ALL_STOPS: tuple[Stops, ...] = tuple(product(range(STOPS), repeat=3))  # type: ignore[assignment]
HOLD_MASKS = (0, 1, 2, 3, 4, 5, 6)  # at most two reels held
PLAYS = {
    "auto": ("collect", "best"),
    "default": ("collect", "suggested"),
    "auto_risk": ("risk", "best"),
}


def index(stops: Stops) -> int:
    return (stops[0] * STOPS + stops[1]) * STOPS + stops[2]


def _p(weights: list[int]) -> Fraction:
    """Chance of index 1 of a [no, yes] weight pair."""
    return F(weights[1], weights[0] + weights[1])


@by_identity()
def ladder_values(d: LowerData, kind: str) -> tuple[Fraction, ...]:
    """Value of playing a ladder to its end from each scale level (AUTO-RISK)."""
    scale = d.ladders.scale
    top = len(scale) - 1
    steps = d.ladders.sube_bonos if kind == "sube_bonos" else d.ladders.sube_nada
    if kind == "sube_nada":
        v = [F(0)] * (top + 1)
        v[top] = F(scale[top])
        for i in range(top - 1, -1, -1):
            up = _p(steps[i].weights)
            v[i] = up * v[i + 1]
        return tuple(v)
    # Sube-Bonos: at or below the seesaw level a failed PLAY pays the prize's value in
    # Bonuses; above it, it falls one level.  Solve v = A v + b over levels 0..top-1.
    s = d.ladders.seesaw_index
    n = top
    a = [[F(0)] * n for _ in range(n)]
    b = [F(0)] * n
    for i in range(n):
        up = _p(steps[i].weights)
        a[i][i] = F(1)
        if i + 1 == top:
            b[i] += up * scale[top]
        else:
            a[i][i + 1] -= up
        if i <= s:
            b[i] += (1 - up) * scale[i]
        else:
            a[i][i - 1] -= 1 - up
    for col in range(n):  # Gauss-Jordan
        piv = next(r for r in range(col, n) if a[r][col])
        a[col], a[piv] = a[piv], a[col]
        b[col], b[piv] = b[piv], b[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        b[col] *= inv
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] -= f * b[col]
    return (*b, F(scale[top]))


def prize_value(d: LowerData, outcome: Outcome, ladders: str) -> Fraction:
    if outcome.kind == "cash":
        if outcome.ladder is None or ladders == "collect":
            return F(outcome.cents)
        return ladder_values(d, outcome.ladder)[d.ladders.scale.index(outcome.cents)]
    if outcome.kind == "bonus":
        return F(outcome.bonuses * d.game.bonus_value)
    if outcome.kind == "disco":
        return disco_value(d, ladders)
    return F(0)


def disco_prize_value(d: LowerData, prize: str, ladders: str) -> Fraction:
    amount = int(prize[1:])
    if prize[0] == "B":
        return F(amount * d.game.bonus_value)
    if amount <= d.ladders.seesaw_above and ladders == "risk":
        return ladder_values(d, "sube_bonos")[d.ladders.scale.index(amount)]
    return F(amount)


def disco_value(d: LowerData, ladders: str) -> Fraction:
    """The stopped penguin is a uniform one of five drawn alike: one draw from the table."""
    total = sum(d.disco_game.prizes.values())
    return sum(
        (F(w, total) * disco_prize_value(d, k, ladders) for k, w in d.disco_game.prizes.items()),
        F(0),
    )


@dataclass(frozen=True)
class Values:
    """Per stop index (see :func:`index`): the values of one play."""

    final_held: tuple[Fraction, ...]
    landed_held: tuple[Fraction, ...]
    hold: tuple[Fraction, ...]  # paid game with a pair: the chosen hold's value (else 0)
    hold_mask: tuple[int, ...]  # the chosen hold (-1 without a pair)
    final_paid: tuple[Fraction, ...]
    landed_paid: tuple[Fraction, ...]

    @property
    def rtp_cents(self) -> Fraction:
        return sum(self.landed_paid, F(0)) / len(self.landed_paid)


@by_identity()
def near_misses(d: LowerData, held_game: bool) -> tuple[bool, ...]:
    """Per stop index: whether nudges may be offered there (:func:`.payline.nudge_offerable`),
    in the paid game or the held game; the same for every play."""
    return tuple(nudge_offerable(d, s, evaluate(d, line_symbols(d, s)), held_game) for s in ALL_STOPS)


def _after(vector: tuple[int, int, int]) -> np.ndarray:
    """Per stop index: the stop index ``vector``'s nudges lead to."""
    i = np.arange(STOPS**3)
    s = [
        (i // STOPS**2 - vector[0]) % STOPS,
        (i // STOPS % STOPS - vector[1]) % STOPS,
        (i % STOPS - vector[2]) % STOPS,
    ]
    return (s[0] * STOPS + s[1]) * STOPS + s[2]


def best_vectors(final: Sequence[Fraction], n: int) -> tuple[np.ndarray, np.ndarray]:
    """For every stop index at once, what :func:`best_nudge` finds with ``n`` nudges: the
    position in ``nudge_vectors(n)`` of the first vector reaching the most valuable final
    position (the zero vector unless one is worth strictly more), and the index it reaches.
    Values are compared through their ranks among the distinct values (exact)."""
    distinct = sorted(set(final))
    rank_of = {v: r for r, v in enumerate(distinct)}
    rank = np.array([rank_of[v] for v in final], dtype=np.int64)
    best_pos = np.zeros(len(final), dtype=np.int64)
    best_to = np.arange(len(final), dtype=np.int64)
    best = rank.copy()
    for pos, vector in enumerate(nudge_vectors(n)[1:], start=1):
        to = _after(vector)
        better = rank[to] > best
        best = np.where(better, rank[to], best)
        best_pos = np.where(better, pos, best_pos)
        best_to = np.where(better, to, best_to)
    return best_pos, best_to


def _landed(d: LowerData, final: list[Fraction], held_game: bool) -> list[Fraction]:
    offer = _p(d.nudges.offer.weights)
    counts = d.nudges.count
    total = sum(counts.values())
    near = near_misses(d, held_game)
    reach = {n: best_vectors(final, n)[1] for n in counts}
    out = []
    for i in range(len(ALL_STOPS)):
        if not near[i]:
            out.append(final[i])
            continue
        nudge_value = F(0)
        for n, w in counts.items():
            nudge_value += F(w, total) * final[reach[n][i]]
        out.append((1 - offer) * final[i] + offer * nudge_value)
    return out


def _hold_value(landed_held: list[Fraction], stops: Stops, mask: int) -> Fraction:
    free = [r for r in range(3) if not mask >> r & 1]
    total = F(0)
    count = 0
    for values in product(range(STOPS), repeat=len(free)):
        s = list(stops)
        for r, v in zip(free, values, strict=True):
            s[r] = v
        total += landed_held[index(tuple(s))]  # type: ignore[arg-type]
        count += 1
    return total / count


@by_identity()
def values(d: LowerData, play: str) -> Values:
    ladders, holds = PLAYS[play]
    outcomes = [evaluate(d, line_symbols(d, s)) for s in ALL_STOPS]
    final_held = [prize_value(d, o, ladders) for o in outcomes]
    landed_held = _landed(d, final_held, held_game=True)
    hold_chance = _p(d.hold.weights)
    hold = []
    hold_mask = []
    respin_all = sum(landed_held, F(0)) / len(landed_held)
    # A hold's value depends only on the mask and the held reels' stops: many pair lines
    # share them, so each is summed once.
    held_values: dict[tuple[int, tuple[int, ...]], Fraction] = {}
    for stops, o in zip(ALL_STOPS, outcomes, strict=True):
        if o.kind != "none" or not o.pairs:
            hold.append(F(0))
            hold_mask.append(-1)
            continue
        options = (o.pairs[0],) if holds == "suggested" else (o.pairs[0], *HOLD_MASKS)
        best_mask, best = -1, F(-1)
        for mask in options:
            key = (mask, tuple(x for r, x in enumerate(stops) if mask >> r & 1))
            if key not in held_values:
                held_values[key] = respin_all if mask == 0 else _hold_value(landed_held, stops, mask)
            v = held_values[key]
            if v > best:
                best_mask, best = mask, v
        hold.append(best)
        hold_mask.append(best_mask)
    final_paid = [
        hold_chance * h if o.kind == "none" else f for o, f, h in zip(outcomes, final_held, hold, strict=True)
    ]
    landed_paid = _landed(d, final_paid, held_game=False)
    return Values(
        tuple(final_held),
        tuple(landed_held),
        tuple(hold),
        tuple(hold_mask),
        tuple(final_paid),
        tuple(landed_paid),
    )


def best_nudge(d: LowerData, play: str, stops: Stops, left: int, held_game: bool) -> tuple[int, int, int]:
    """The nudge vector worth most from ``stops`` with ``left`` nudges (the first on ties)."""
    v = values(d, play)
    final = v.final_held if held_game else v.final_paid
    best_vec = (0, 0, 0)
    best = final[index(stops)]
    for vec in nudge_vectors(left)[1:]:
        x = final[index(nudged(stops, vec))]
        if x > best:
            best_vec, best = vec, x
    return best_vec


def first_move(vector: tuple[int, int, int]) -> int | None:
    """The reel to nudge first for a vector (reel order), or None to stop."""
    return next((r for r, k in enumerate(vector) if k), None)


@by_identity()
def tables(d: LowerData, play: str) -> tuple[np.ndarray, np.ndarray]:
    """For the kernel: ``moves[held_game, left - 1, stop index]`` = the reel to nudge first
    (-1: stop nudging), and ``holds[stop index]`` = the hold mask (-1: no pair)."""
    v = values(d, play)
    moves = np.full((2, 4, STOPS**3), -1, dtype=np.int64)
    for held in (0, 1):
        final = v.final_held if held else v.final_paid
        for left in range(1, 5):
            first = np.array([-1 if (m := first_move(vec)) is None else m for vec in nudge_vectors(left)])
            moves[held, left - 1] = first[best_vectors(final, left)[0]]  # best_nudge, then first_move
    holds = np.array(v.hold_mask, dtype=np.int64)
    return moves, holds
