"""Exact values of every lower-game position, and the best decisions they imply.

A *play* fixes how the player decides (:data:`PLAYS`):

* ``ladders``: ``"collect"`` takes every ladder prize at once; ``"risk"`` (AUTO-RISK) plays
  every ladder to its end; ``"best"`` PLAYs a rung only where that is worth more than
  collecting (a policy found by policy iteration on the ladder's chain);
* ``holds``: ``"best"`` holds the reels worth most; ``"suggested"`` keeps the pair the game
  holds by itself; ``"none"`` holds nothing (the free game spins every reel);
* ``nudges``: ``"best"`` plays them for the most value (AUTO-ADVANCE); ``"none"`` stops at once.

**Accounting.**  Every value is a pair, cash cents and Bonuses (at the unit bet), kept apart
so the whole machine's cash return can be counted (:mod:`.machine_best`).  A decision compares
``cash + worth × Bonuses``, ``worth`` being what a Bonus is worth in the machine's cash
(``LowerData.bonus_worth``: the cash the upper game returns per Bonus staked, by design).  A
prize turned into Bonuses converts at ``bonus_value`` (the seed's €0.80, the rest rounded at
random, which keeps the expectation): ``cents / bonus_value`` Bonuses.

* ``prize_pair(outcome)``: what a prize is worth under the ladder rule (ladders as chains);
* ``final``: a final position: its prize, or, with a pair in the paid game, the chance of a
  held game times the chosen hold's expected value;
* ``landed``: a position as it lands: with a near miss, nudges are offered (chance × the
  count weights of the counts reaching an improvement) and the most valuable reachable final
  position is taken.

The held game is valued first (it offers nudges, unless every reel spins, but no further
hold), then the paid game.
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
from .payline import (
    FEW_NUDGES,
    Outcome,
    Stops,
    count_weights,
    evaluate,
    fewest_nudges,
    line_symbols,
    nudge_vectors,
    nudged,
)

F = Fraction
ALL_STOPS: tuple[Stops, ...] = tuple(product(range(STOPS), repeat=3))  # type: ignore[assignment]
HOLD_MASKS = (0, 1, 2, 3, 4, 5, 6)  # at most two reels held
# play -> (ladders, holds, nudges)
PLAYS = {
    "best": ("best", "best", "best"),
    "auto": ("collect", "best", "best"),
    "default": ("collect", "suggested", "best"),
    "auto_risk": ("risk", "best", "best"),
    "worst": ("collect", "none", "none"),
}
PLAY_NAMES = {
    "best": "the best play: every decision for the most cash plus Bonuses at their worth",
    "auto": "AUTO: best holds and nudges (AUTO-ADVANCE), collect on ladders",
    "default": "the default play: the hold the game suggests, best nudges, collect",
    "auto_risk": "AUTO-RISK: best holds and nudges, every ladder played to its end",
    "worst": "the worst reasonable play: never hold, never nudge, always collect",
}
ZERO = (F(0), F(0))
Pair = tuple[Fraction, Fraction]  # (cash cents, Bonuses) at the unit bet


def index(stops: Stops) -> int:
    return (stops[0] * STOPS + stops[1]) * STOPS + stops[2]


def _p(weights: list[int]) -> Fraction:
    """Chance of index 1 of a [no, yes] weight pair."""
    return F(weights[1], weights[0] + weights[1])


def worth(d: LowerData) -> Fraction:
    return F(d.bonus_worth)


def combined(d: LowerData, pair: Pair) -> Fraction:
    return pair[0] + worth(d) * pair[1]


# -- ladders -------------------------------------------------------------------------------


def solve_exact(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[list[Fraction]]:
    """Solve ``a x = b`` exactly for a matrix ``b`` (Gauss-Jordan, one pivot per column)."""
    n = len(a)
    a = [row[:] for row in a]
    b = [row[:] for row in b]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col])
        a[col], a[piv] = a[piv], a[col]
        b[col], b[piv] = b[piv], b[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        b[col] = [x * inv for x in b[col]]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] = [x - f * y for x, y in zip(b[r], b[col], strict=True)]
    return b


def ladder_pairs(d: LowerData, kind: str, policy: tuple[bool, ...]) -> tuple[Pair, ...]:
    """(cash, Bonuses) of a ladder from each scale level when PLAY is pressed at the levels
    ``policy`` marks and COLLECT at the others.  PLAY goes up (the top is paid at once) or
    fails: Sube-Nada pays nothing; Sube-Bonos at or below the seesaw pays the prize in
    Bonuses (``prize / bonus_value`` of them in expectation), above it falls one level."""
    scale = d.ladders.scale
    top = len(scale) - 1
    steps = d.ladders.sube_bonos if kind == "sube_bonos" else d.ladders.sube_nada
    s = d.ladders.seesaw_index
    a = [[F(int(r == c)) for c in range(top)] for r in range(top)]
    b = [[F(0), F(0)] for _ in range(top)]
    for i in range(top):
        if not policy[i]:
            b[i][0] += scale[i]
            continue
        up = _p(steps[i].weights)
        if i + 1 == top:
            b[i][0] += up * scale[top]
        else:
            a[i][i + 1] -= up
        if kind == "sube_nada":
            continue
        if i <= s:
            b[i][1] += (1 - up) * F(scale[i], d.game.bonus_value)
        else:
            a[i][i - 1] -= 1 - up
    x = solve_exact(a, b)
    return (*((row[0], row[1]) for row in x), (F(scale[top]), F(0)))


@by_identity()
def ladder_policy(d: LowerData, kind: str, ladders: str) -> tuple[bool, ...]:
    """PLAY (True) or COLLECT per level below the top: ``risk`` plays all, ``collect`` none,
    ``best`` is found by policy iteration on ``cash + worth × Bonuses`` (improve every level
    whose PLAY is worth strictly more than its current choice, until none is)."""
    top = len(d.ladders.scale) - 1
    if ladders in ("risk", "collect"):
        return (ladders == "risk",) * top
    steps = d.ladders.sube_bonos if kind == "sube_bonos" else d.ladders.sube_nada
    s = d.ladders.seesaw_index
    scale = d.ladders.scale
    policy = (False,) * top
    for _ in range(4 * top + 4):
        v = [combined(d, p) for p in ladder_pairs(d, kind, policy)]
        new = []
        for i in range(top):
            up = _p(steps[i].weights)
            if kind == "sube_nada":
                fail = F(0)
            elif i <= s:
                fail = worth(d) * F(scale[i], d.game.bonus_value)
            else:
                fail = v[i - 1]
            play = up * v[i + 1] + (1 - up) * fail
            collect = F(scale[i])
            new.append(play > collect if play != collect else policy[i])
        if tuple(new) == policy:
            return policy
        policy = tuple(new)
    raise RuntimeError("ladder policy iteration did not settle")


@by_identity()
def ladder_values(d: LowerData, kind: str, ladders: str = "risk") -> tuple[Fraction, ...]:
    """A ladder's value from each level (``cash + worth × Bonuses``) under a ladder rule;
    the default is AUTO-RISK's, playing it to its end."""
    return tuple(combined(d, p) for p in ladder_pairs(d, kind, ladder_policy(d, kind, ladders)))


def _ladder_pair(d: LowerData, kind: str, cents: int, ladders: str) -> Pair:
    pairs = ladder_pairs(d, kind, ladder_policy(d, kind, ladders))
    return pairs[d.ladders.scale.index(cents)]


def prize_pair(d: LowerData, outcome: Outcome, ladders: str) -> Pair:
    if outcome.kind == "cash":
        if outcome.ladder is None or ladders == "collect":
            return (F(outcome.cents), F(0))
        return _ladder_pair(d, outcome.ladder, outcome.cents, ladders)
    if outcome.kind == "bonus":
        return (F(0), F(outcome.bonuses))
    if outcome.kind == "disco":
        return disco_pair(d, ladders)
    return ZERO


def prize_value(d: LowerData, outcome: Outcome, ladders: str) -> Fraction:
    return combined(d, prize_pair(d, outcome, ladders))


def disco_prize_pair(d: LowerData, prize: str, ladders: str) -> Pair:
    amount = int(prize[1:])
    if prize[0] == "B":
        return (F(0), F(amount))
    if amount <= d.ladders.seesaw_above and ladders != "collect":
        return _ladder_pair(d, "sube_bonos", amount, ladders)
    return (F(amount), F(0))


@by_identity()
def disco_pair(d: LowerData, ladders: str) -> Pair:
    """The stopped penguin is a uniform one of five drawn alike: one draw from the table."""
    total = sum(d.disco_game.prizes.values())
    cash, bonuses = F(0), F(0)
    for k, w in d.disco_game.prizes.items():
        c, b = disco_prize_pair(d, k, ladders)
        cash += F(w, total) * c
        bonuses += F(w, total) * b
    return (cash, bonuses)


def disco_value(d: LowerData, ladders: str) -> Fraction:
    return combined(d, disco_pair(d, ladders))


# -- positions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Values:
    """Per stop index (see :func:`index`): the values of one play, ``cash + worth × Bonuses``,
    and the paid game's cash and Bonuses apart."""

    final_held: tuple[Fraction, ...]
    landed_held: tuple[Fraction, ...]
    hold: tuple[Fraction, ...]  # paid game with a pair: the chosen hold's value (else 0)
    hold_mask: tuple[int, ...]  # the chosen hold (-1 without a pair)
    final_paid: tuple[Fraction, ...]
    landed_paid: tuple[Fraction, ...]
    landed_cash: tuple[Fraction, ...]  # the paid game's cash part (cents at the unit bet)
    landed_bonuses: tuple[Fraction, ...]  # the paid game's Bonuses (at the unit bet)

    @property
    def rtp_cents(self) -> Fraction:
        """A round's expected ``cash + worth × Bonuses``, cents at the unit bet."""
        return sum(self.landed_paid, F(0)) / len(self.landed_paid)

    @property
    def cash_cents(self) -> Fraction:
        return sum(self.landed_cash, F(0)) / len(self.landed_cash)

    @property
    def bonuses(self) -> Fraction:
        return sum(self.landed_bonuses, F(0)) / len(self.landed_bonuses)


@by_identity()
def near_misses(d: LowerData, held_game: bool) -> tuple[int, ...]:
    """Per stop index: the fewest nudges improving the line where nudges may be offered
    (:func:`.payline.nudge_offerable`), 0 where they may not, in the paid game or a held game
    with a reel held (one spinning every reel is offered none); the same for every play."""
    out = []
    for s in ALL_STOPS:
        m = fewest_nudges(d, s, evaluate(d, line_symbols(d, s)), held_game)
        out.append(m if m is not None and m <= FEW_NUDGES else 0)
    return tuple(out)


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


class _Table:
    """Per stop index: cash and Bonuses, and their combined value for decisions."""

    def __init__(self, d: LowerData, cash: list[Fraction], bonuses: list[Fraction]) -> None:
        self.cash, self.bonuses = cash, bonuses
        w = worth(d)
        self.value = [c + w * b for c, b in zip(cash, bonuses, strict=True)]


def _landed(d: LowerData, final: _Table, held_game: bool, nudges: str) -> _Table:
    if nudges == "none":
        return final
    offer = _p(d.nudges.offer.weights)
    near = near_misses(d, held_game)
    reach = {n: best_vectors(final.value, n)[1] for n in d.nudges.count}
    by_fewest = {m: count_weights(d, m) for m in set(near) if m}  # the offer's count table
    cash, bonuses = [], []
    for i in range(len(ALL_STOPS)):
        if not near[i]:
            cash.append(final.cash[i])
            bonuses.append(final.bonuses[i])
            continue
        c = b = F(0)
        counts = by_fewest[near[i]]
        total = sum(counts.values())
        for n, w in counts.items():
            j = int(reach[n][i])
            c += F(w, total) * final.cash[j]
            b += F(w, total) * final.bonuses[j]
        cash.append((1 - offer) * final.cash[i] + offer * c)
        bonuses.append((1 - offer) * final.bonuses[i] + offer * b)
    return _Table(d, cash, bonuses)


def _hold_pair(landed: _Table, stops: Stops, mask: int) -> Pair:
    free = [r for r in range(3) if not mask >> r & 1]
    cash = bonuses = F(0)
    count = 0
    for values in product(range(STOPS), repeat=len(free)):
        s = list(stops)
        for r, v in zip(free, values, strict=True):
            s[r] = v
        i = index(tuple(s))  # type: ignore[arg-type]
        cash += landed.cash[i]
        bonuses += landed.bonuses[i]
        count += 1
    return (cash / count, bonuses / count)


@by_identity()
def values(d: LowerData, play: str) -> Values:
    ladders, holds, nudges = PLAYS[play]
    outcomes = [evaluate(d, line_symbols(d, s)) for s in ALL_STOPS]
    prizes = [prize_pair(d, o, ladders) for o in outcomes]
    final_held = _Table(d, [p[0] for p in prizes], [p[1] for p in prizes])
    landed_held = _landed(d, final_held, True, nudges)
    hold_chance = _p(d.hold.weights)
    hold: list[Pair] = []
    hold_mask = []
    # A hold's value depends only on the mask and the held reels' stops: many pair lines
    # share them, so each is summed once.
    held_pairs: dict[tuple[int, tuple[int, ...]], Pair] = {}
    w = worth(d)
    for stops, o in zip(ALL_STOPS, outcomes, strict=True):
        if o.kind != "none" or not o.pairs:
            hold.append(ZERO)
            hold_mask.append(-1)
            continue
        if holds == "suggested":
            options: tuple[int, ...] = (o.pairs[0],)
        elif holds == "none":
            options = (0,)
        else:
            options = (o.pairs[0], *HOLD_MASKS)
        best_mask, best, best_value = -1, ZERO, F(-1)
        for mask in options:
            key = (mask, tuple(x for r, x in enumerate(stops) if mask >> r & 1))
            if key not in held_pairs:
                # a held game spinning every reel is offered no nudges: its final values
                held_pairs[key] = _hold_pair(final_held if mask == 0 else landed_held, stops, mask)
            pair = held_pairs[key]
            value = pair[0] + w * pair[1]
            if value > best_value:
                best_mask, best, best_value = mask, pair, value
        hold.append(best)
        hold_mask.append(best_mask)
    rows = list(zip(outcomes, prizes, hold, strict=True))
    final_paid = _Table(
        d,
        [hold_chance * h[0] if o.kind == "none" else p[0] for o, p, h in rows],
        [hold_chance * h[1] if o.kind == "none" else p[1] for o, p, h in rows],
    )
    landed_paid = _landed(d, final_paid, False, nudges)
    return Values(
        final_held=tuple(final_held.value),
        landed_held=tuple(landed_held.value),
        hold=tuple(h[0] + w * h[1] for h in hold),
        hold_mask=tuple(hold_mask),
        final_paid=tuple(final_paid.value),
        landed_paid=tuple(landed_paid.value),
        landed_cash=tuple(landed_paid.cash),
        landed_bonuses=tuple(landed_paid.bonuses),
    )


def best_nudge(d: LowerData, play: str, stops: Stops, left: int, held_game: bool) -> tuple[int, int, int]:
    """The nudge vector worth most from ``stops`` with ``left`` nudges (the first on ties)."""
    if PLAYS[play][2] == "none":
        return (0, 0, 0)
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
    if PLAYS[play][2] != "none":
        for held in (0, 1):
            final = v.final_held if held else v.final_paid
            for left in range(1, 5):
                first = np.array([-1 if (m := first_move(vec)) is None else m for vec in nudge_vectors(left)])
                moves[held, left - 1] = first[best_vectors(final, left)[0]]  # best_nudge, then first_move
    holds = np.array(v.hold_mask, dtype=np.int64)
    return moves, holds
