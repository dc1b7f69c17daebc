"""Exact RTP of the upper game, per bet, as fractions, from the data file alone.

Values are cents at the bet with Bonuses at ``bonus_value``; an upper bet's RTP is what it
returns over its value (cash + Bonuses × ``bonus_value``).  The steps:

1. All 16³ stop triples are evaluated at 5 and at 8 paylines and grouped by what decides the
   prize (direct prizes, mixed lines, the minigame named); a group's prize is the line prize
   (direct + one ``mixed`` draw per mixed line, at most the maximum) or, with the offer
   chance, ``min(max, max(floor, line prize, result))`` of its minigame
   (:mod:`.upper_minigames_exact`).
2. Double-or-Bonuses: COLLECT ALL takes the prize; AUTO-RISK plays every fraction (a Markov
   chain).  Both assume the machine's Bonuses at or below the cap (above it every prize is
   collected: the COLLECT figure).
3. The WINNING SPIN is the 5-line game conditioned on paying (rejection sampling), without
   counter or accumulator effects.
4. The accumulator is a Markov chain on its pieces (reset on filling, pieces past the top
   lost): its long-run fills per paid game.  The vertical-lines counter under upper-only play
   is a chain on 0..max at a game's start: its stationary chance of 0 weighs the 5-line game,
   the rest the 8-line game.

``RTP(bet) = [π(0)·E5 + (1 − π(0))·E8 + fills·W] / value``: the *configured* figure.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from reelforge.engine.memo import by_identity

from . import upper_minigames_exact as M
from .data_model import LowerData
from .upper_data import STOPS, UpperBet
from .upper_lines import evaluate, window

F = Fraction
PLAYS = ("collect", "risk")
VALUE_PLAYS = (*PLAYS, "risk_cash")  # risk_cash: AUTO-RISK's cash alone (the whole machine's accounting)
ALL_STOPS = tuple(product(range(STOPS), repeat=3))
Group = tuple[int, int, str | None]  # direct prize at the bet, mixed lines, minigame named


def _frac(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def offer_chance(d: LowerData, i: int, lines: int = 5) -> Fraction:
    """The minigame offer chance of a game at bet ``i`` on ``lines`` paylines (the WINNING
    SPIN plays 5)."""
    o = d.upper.offer(i, lines)
    return F(o.yes, o.yes + o.no)


# A bet that counts every mixed-sevens line, at the unit multiplier: the lines are evaluated
# once and each bet scales the direct prizes (and drops mixed lines where it has no table).
_PROBE = UpperBet(cash=1, bonuses=1, multiplier=1, fraction=1, minigame_floor=1, max_prize=2, mixed={1: 1})


@by_identity()
def _unit_groups(d: LowerData, lines: int) -> dict[Group, int]:
    out: Counter[Group] = Counter()
    for stops in ALL_STOPS:
        ev = evaluate(d.upper, _PROBE, stops, lines == 8)
        out[(ev.direct, ev.mixed_lines, ev.minigame)] += 1
    return dict(out)


@by_identity()
def groups(d: LowerData, i: int, lines: int, paying_only: bool = False) -> dict[Group, int]:
    """How many of the 4,096 stop triples share each (direct, mixed lines, minigame) at bet
    ``i`` with ``lines`` paylines; ``paying_only`` keeps those whose lines pay (the WINNING
    SPIN's conditional game)."""
    bet = d.upper.bets[i]
    out: Counter[Group] = Counter()
    for (direct, mixed, kind), count in _unit_groups(d, lines).items():
        key = (direct * bet.multiplier, mixed if bet.mixed else 0, kind)
        if paying_only and not (key[0] or key[1]):
            continue
        out[key] += count
    return dict(out)


@by_identity()
def window_chances(d: LowerData) -> tuple[Fraction, Fraction]:
    """Chances that a game's window shows the accumulator symbol and the vertical-lines one."""
    u = d.upper
    acc = vert = 0
    for stops in ALL_STOPS:
        shown = {s for col in window(u, stops) for s in col}
        acc += u.accumulator in shown
        vert += u.vertical_lines in shown
    n = len(ALL_STOPS)
    return F(acc, n), F(vert, n)


# -- a game's settled prize ------------------------------------------------------------------


@dataclass(frozen=True)
class GameValue:
    """One game (paid, or the WINNING SPIN) at a bet and a line count, per play."""

    base: dict[str, Fraction]  # the line prizes alone (no minigame offered)
    value: dict[str, Fraction]  # with the minigames at the bet's offer chance
    minigame_gain: dict[str, Fraction]  # what an offer adds over the line prize, per game
    triggers: dict[str, Fraction]  # chance per game of each minigame's trigger
    pays: Fraction  # chance that the lines pay


def _expect(d: LowerData, i: int, dist: M.Dist, play: str) -> Fraction:
    return sum((p * M.settled_value(d, i, x, play) for x, p in dist.items()), F(0))


@by_identity()
def _replaced_value(d: LowerData, i: int, kind: str, line: int, play: str) -> Fraction:
    bet = d.upper.bets[i]
    return _expect(d, i, M.replaced(bet, line, M.minigame(d, i, kind)), play)


@by_identity()
def game_value(d: LowerData, i: int, lines: int, winning: bool = False) -> GameValue:
    """The expected value of a game's settled prize, per play, at bet ``i``.  Linear in the
    offer chance o: ``value = base + o · minigame_gain``."""
    table = groups(d, i, lines, winning)
    n = sum(table.values())
    o = offer_chance(d, i, 5 if winning else lines)
    base = {p: F(0) for p in VALUE_PLAYS}
    gain = {p: F(0) for p in VALUE_PLAYS}
    triggers = {k: F(0) for k in ("roulette", "fishing", "slides")}
    pays = F(0)
    for (direct, mixed, kind), count in table.items():
        w = F(count, n)
        if direct or mixed:
            pays += w
        line = M.line_prize(d, i, direct, mixed)
        for play in VALUE_PLAYS:
            b = _expect(d, i, line, play)
            base[play] += w * b
            if kind is not None:
                g = sum((q * _replaced_value(d, i, kind, x, play) for x, q in line.items()), F(0))
                gain[play] += w * (g - b)
        if kind is not None:
            triggers[kind] += w
    value = {p: base[p] + o * gain[p] for p in VALUE_PLAYS}
    return GameValue(base=base, value=value, minigame_gain=gain, triggers=triggers, pays=pays)


# -- the chains ----------------------------------------------------------------------------


def _solve(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Solve a x = b exactly (Gauss-Jordan)."""
    n = len(b)
    a = [row[:] for row in a]
    b = b[:]
    for col in range(n):
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
    return b


def stationary(p: list[list[Fraction]]) -> list[Fraction]:
    """The stationary distribution of an irreducible chain: π P = π, Σ π = 1."""
    n = len(p)
    # (Pᵀ − I) π = 0 with the last equation replaced by Σ π = 1.
    a = [[p[j][i] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    a[-1] = [F(1)] * n
    b = [F(0)] * (n - 1) + [F(1)]
    return _solve(a, b)


def _steps(table: dict[int, int]) -> dict[int, Fraction]:
    total = sum(table.values())
    return {g: F(w, total) for g, w in table.items() if w}


@by_identity()
def counter_chain(d: LowerData) -> tuple[list[list[Fraction]], list[Fraction]]:
    """The vertical-lines counter at a game's start, upper games only: a game above zero
    uses one (8 lines); the symbol in the window (chance v) then adds a ``vertical_step``
    draw, at most the maximum.  Returns the transition matrix and its stationary π."""
    top = d.game.vertical_lines_max
    v = window_chances(d)[1]
    steps = _steps(d.upper.vertical_step)
    p = [[F(0)] * (top + 1) for _ in range(top + 1)]
    for c in range(top + 1):
        after = max(c - 1, 0)
        p[c][after] += 1 - v
        for g, q in steps.items():
            p[c][min(top, after + g)] += v * q
    return p, stationary(p)


@by_identity()
def accumulator_chain(d: LowerData) -> tuple[list[Fraction], Fraction]:
    """The bet's accumulator after each paid game (pieces 0..top − 1, reset on filling):
    the stationary distribution and the long-run fills (WINNING SPINs) per paid game."""
    u = d.upper
    top = u.accumulator_pieces
    a = window_chances(d)[0]
    steps = _steps(u.accumulator_step)
    p = [[F(0)] * top for _ in range(top)]
    fill = [F(0)] * top
    for k in range(top):
        p[k][k] += 1 - a
        for g, q in steps.items():
            if k + g >= top:
                p[k][0] += a * q
                fill[k] += a * q
            else:
                p[k][k + g] += a * q
    pi = stationary(p)
    return pi, sum((x * f for x, f in zip(pi, fill, strict=True)), F(0))


# -- per bet -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BetFigures:
    stake: int  # the bet's value in cents (the stake that names it)
    e5: GameValue
    e8: GameValue
    winning: GameValue
    eight_share: Fraction  # share of paid games with 8 lines (1 − π(0))
    fills: Fraction  # WINNING SPINs per paid game

    def rtp(self, play: str, lines: int | None = None) -> Fraction:
        """Configured (``lines`` None: the counter's long-run mix) or at fixed lines."""
        if lines == 5:
            game = self.e5.value[play]
        elif lines == 8:
            game = self.e8.value[play]
        else:
            game = (1 - self.eight_share) * self.e5.value[play] + self.eight_share * self.e8.value[play]
        return (game + self.fills * self.winning.value[play]) / self.stake


@by_identity()
def bet_figures(d: LowerData, i: int) -> BetFigures:
    _, pi = counter_chain(d)
    return BetFigures(
        stake=d.upper_stakes[i],
        e5=game_value(d, i, 5),
        e8=game_value(d, i, 8),
        winning=game_value(d, i, 5, True),
        eight_share=1 - pi[0],
        fills=accumulator_chain(d)[1],
    )


def offers_for_target(d: LowerData, i: int, target: Fraction) -> tuple[Fraction, Fraction]:
    """The offer chances (5 paylines, 8 paylines) that put bet ``i``'s COLLECT figure on
    ``target`` at 5 lines and at 8 lines alike (outside [0, 1] when it cannot be reached).
    Each figure is linear in its chance; the WINNING SPIN (5 lines) takes the 5-line one."""
    f = bet_figures(d, i)
    play = "collect"
    e5, e8, w = f.e5, f.e8, f.winning
    o5 = (target * f.stake - e5.base[play] - f.fills * w.base[play]) / (
        e5.minigame_gain[play] + f.fills * w.minigame_gain[play]
    )
    winning = w.base[play] + o5 * w.minigame_gain[play]
    o8 = (target * f.stake - e8.base[play] - f.fills * winning) / e8.minigame_gain[play]
    return o5, o8


# -- the odds of every advertised prize --------------------------------------------------------


@by_identity()
def line_symbol_chances(d: LowerData, i: int, lines: int = 5) -> dict[str, Fraction]:
    """Chance per game that at least one payline shows three of each paying symbol."""
    bet = d.upper.bets[i]
    seen: Counter[str] = Counter()
    for stops in ALL_STOPS:
        ev = evaluate(d.upper, bet, stops, lines == 8)
        for symbol in {w.symbol for w in ev.wins if w.symbol != "mixed"}:
            seen[symbol] += 1
    return {s: F(seen[s], len(ALL_STOPS)) for s in d.upper.pays}


@dataclass(frozen=True)
class PrizeOdds:
    name: str  # "line CH", "mixed 5000", "roulette top", "roulette least", "maximum"
    cents: int  # the prize at the bet (a line: its direct prize)
    chance: Fraction  # per paid game at 5 lines (the counter at 0), before Double-or-Bonuses


@by_identity()
def prize_odds(d: LowerData, i: int) -> tuple[PrizeOdds, ...]:
    """The chance per paid 5-line game of every prize the bet advertises: each line prize,
    each mixed-sevens prize (at least one mixed line draws it), each minigame's top (the
    maximum) and least prize (the floor, or the least line prize that triggers it when that
    is higher), and the maximum prize however it comes (before Double-or-Bonuses)."""
    bet = d.upper.bets[i]
    top = bet.max_prize
    o = offer_chance(d, i)
    table = groups(d, i, 5)
    n = sum(table.values())
    out = [PrizeOdds(f"line {s}", c * bet.multiplier, p) for s, c in d.upper.pays.items()
           for p in [line_symbol_chances(d, i)[s]]]  # fmt: skip
    total_mixed = sum(bet.mixed.values())
    for prize, wgt in bet.mixed.items():
        q = F(wgt, total_mixed)
        chance = sum((F(c, n) * (1 - (1 - q) ** m) for (_, m, _), c in table.items() if m), F(0))
        out.append(PrizeOdds(f"mixed {prize}", prize, chance))
    maximum = F(0)
    for kind in ("roulette", "fishing", "slides"):
        paid: dict[int, Fraction] = {}
        for (direct, mixed, k), c in table.items():
            if k != kind:
                continue
            for x, px in M.line_prize(d, i, direct, mixed).items():
                for y, py in M.replaced(bet, x, M.minigame(d, i, kind)).items():
                    paid[y] = paid.get(y, F(0)) + F(c, n) * o * px * py
        least = min(paid)
        out.append(PrizeOdds(f"{kind} top", top, paid.get(top, F(0))))
        out.append(PrizeOdds(f"{kind} least", least, paid[least]))
        maximum += paid.get(top, F(0))
    for (direct, mixed, k), c in table.items():
        line_top = M.line_prize(d, i, direct, mixed).get(top, F(0))
        maximum += F(c, n) * line_top * (1 - o if k is not None else 1)
    out.append(PrizeOdds("maximum", top, maximum))
    return tuple(out)
