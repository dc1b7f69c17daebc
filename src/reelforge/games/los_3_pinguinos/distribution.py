"""Los 3 Pinguinos' exact win distribution: the law of one lower-game round's win.

A round settles exactly one line (the paid game's, or, when it had no prize and a hold was
offered, the held game's), so its win is never a sum: it is a *mixture*, over the line the
round settles on, of what that line pays.  The law is computed in two steps, every figure an
exact fraction:

1. **The settled line** (:func:`line_law`): the chance of each line outcome (no prize, a cash
   prize and its ladder, a Bonus prize, the Disco) at the end of the round, walked over the
   same positions :mod:`.strategy` values, with the decisions the play takes there: the
   nudges of ``strategy.tables(d, play)`` walked one move at a time as the rules take them
   (``best_nudge`` then ``first_move``, again), the hold ``strategy.values(d, play).hold_mask``
   (the best one, or the suggested pair under the default play).  Chances are integers over
   a common denominator (16³ stops, the nudge offer and the count tables (each offer's table
   keeps the counts reaching an improvement, all scaled to the lcm of their totals), the hold
   offer, the 16^k stops a held game spins, its own nudges), turned into fractions at the end.
2. **What a line pays** (:func:`prize_law`): cash at once, or collected from its ladder (AUTO
   and the default play), or the ladder played to its end (AUTO-RISK: an absorbing Markov
   chain over the scale's levels, :func:`ladder_laws`, whose absorption chances are solved
   exactly; a failed Sube-Bonos PLAY pays the prize's value in Bonuses, rounded at random, so
   two amounts); Bonuses at ``LowerData.bonus_worth`` cents each; the Disco, one draw of its table (the
   stop lights a uniform one of five penguins drawn alike) paid as its own prize.

Amounts are cents at the bet (``coin`` × the unit bet's prizes, Bonuses at ``bonus_worth``
cents); the stake is ``unit × coin`` cents.  Every prize scales with the bet except the
Disco's (each bet has its own table, with the same means per cent staked) and the random
rounding of Bonuses in a failed Sube-Bonos PLAY, so the law in stakes depends on the bet
through the Disco; the mean does only under AUTO-RISK (a little).
The upper game's law is in :mod:`.upper_distribution`.
"""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction
from itertools import product
from math import lcm
from typing import Any

from reelforge.engine.distribution import WinDistribution
from reelforge.engine.memo import by_identity
from reelforge.money import BetLevel, InvalidBet

from . import payline
from . import strategy as S
from .data_model import STOPS, LowerData
from .payline import evaluate, line_symbols

F = Fraction
Law = dict[int, Fraction]  # cents at the bet -> probability
# The line a round settles on: (kind, cents or Bonuses at the unit bet, ladder).
Atom = tuple[str, int, str | None]
NO_PRIZE: Atom = ("none", 0, None)
DISCO: Atom = ("disco", 0, None)
PLAY_NAMES = {
    "auto": "AUTO: best holds and nudges, collect on ladders",
    "default": "default play: the suggested hold, best nudges, collect",
    "auto_risk": "AUTO-RISK: best holds and nudges, every ladder played to its end",
}


def _atom(kind: str, cents: int, bonuses: int, ladder: str | None) -> Atom:
    if kind == "cash":
        return ("cash", cents, ladder)
    if kind == "bonus":
        return ("bonus", bonuses, None)
    if kind == "disco":
        return DISCO
    return NO_PRIZE


# -- 1. the settled line ---------------------------------------------------------------------


def _nudge_end(moves: Any, held: int, i: int, n: int) -> int:
    """Where the play's ``n`` nudges take stop index ``i``: one move at a time, each the first
    move of the best vector for the nudges left (the rules' own walk)."""
    s = [i // (STOPS * STOPS), (i // STOPS) % STOPS, i % STOPS]
    for left in range(n, 0, -1):
        reel = int(moves[held, left - 1, S.index((s[0], s[1], s[2]))])
        if reel < 0:
            break
        s[reel] = (s[reel] - 1) % STOPS
    return S.index((s[0], s[1], s[2]))


@by_identity()
def line_law(d: LowerData, play: str) -> dict[Atom, Fraction]:
    """The chance that a round under ``play`` settles on each line outcome (exact)."""
    if play not in S.PLAYS:
        raise ValueError(f"unknown play {play!r}; plays: {sorted(S.PLAYS)}")
    outcomes = [evaluate(d, line_symbols(d, s)) for s in S.ALL_STOPS]
    atoms = [_atom(o.kind, o.cents, o.bonuses, o.ladder) for o in outcomes]
    moves, _ = S.tables(d, play)
    hold_mask = S.values(d, play).hold_mask
    offer_no, offer_yes = d.nudges.offer.weights
    # An offer's count table keeps the counts reaching an improvement (payline.count_weights):
    # its total depends on the fewest nudges m, so every table is scaled to their lcm.
    tables = {m: payline.count_weights(d, m) for m in range(1, payline.FEW_NUDGES + 1)}
    count_total = lcm(*(sum(t.values()) for t in tables.values()))
    counts = {
        m: [(n, w * (count_total // sum(t.values()))) for n, w in t.items() if w] for m, t in tables.items()
    }
    nudge_den = (offer_no + offer_yes) * count_total  # the denominator landing adds

    def landed(final: list[Counter[Atom]], held: bool) -> list[Counter[Atom]]:
        """A game as it lands: nudges offered on a near miss (chance x count weights), the
        play's nudges taken; the result carries ``nudge_den`` more in its denominator."""
        out = []
        near = S.near_misses(d, held)
        for i in range(len(S.ALL_STOPS)):
            law: Counter[Atom] = Counter()
            if not near[i]:
                for a, w in final[i].items():
                    law[a] += w * nudge_den
            else:
                for a, w in final[i].items():
                    law[a] += w * offer_no * count_total
                for n, wn in counts[near[i]]:
                    for a, w in final[_nudge_end(moves, int(held), i, n)].items():
                        law[a] += w * offer_yes * wn
            out.append(law)
        return out

    landed_held = landed([Counter({a: 1}) for a in atoms], held=True)  # over nudge_den
    n_all = len(S.ALL_STOPS)
    respin_all: Counter[Atom] = Counter()
    for a in atoms:  # a held game spinning every reel is offered no nudges: its lines as landed
        respin_all[a] += nudge_den  # over nudge_den x 16^3
    holds: dict[tuple[int, tuple[int, ...]], Counter[Atom]] = {}

    def hold_law(stops: S.Stops, mask: int) -> Counter[Atom]:
        """The held game after holding ``mask``: over nudge_den x 16^3 (the free reels' 16^k
        stops, scaled up to 16^3 so that every hold shares one denominator)."""
        if mask == 0:
            return respin_all
        key = (mask, tuple(s for r, s in enumerate(stops) if mask >> r & 1))
        if key not in holds:
            free = [r for r in range(3) if not mask >> r & 1]
            scale = STOPS ** (3 - len(free))
            law: Counter[Atom] = Counter()
            for combo in product(range(STOPS), repeat=len(free)):
                s = list(stops)
                for r, v in zip(free, combo, strict=True):
                    s[r] = v
                for a, w in landed_held[S.index((s[0], s[1], s[2]))].items():
                    law[a] += w * scale
            holds[key] = law
        return holds[key]

    hold_no, hold_yes = d.hold.weights
    final_den = (hold_no + hold_yes) * nudge_den * n_all
    final_paid: list[Counter[Atom]] = []
    for i, stops in enumerate(S.ALL_STOPS):
        mask = hold_mask[i]
        if mask < 0:  # a prize, or no prize and no pair: the line is what it shows
            final_paid.append(Counter({atoms[i]: final_den}))
            continue
        law = Counter({NO_PRIZE: hold_no * nudge_den * n_all})
        for a, w in hold_law(stops, mask).items():
            law[a] += hold_yes * w
        final_paid.append(law)
    total: Counter[Atom] = Counter()
    for law in landed(final_paid, held=False):
        total.update(law)
    den = final_den * nudge_den * n_all
    return {a: F(w, den) for a, w in sorted(total.items(), key=_atom_order) if w}


def _atom_order(item: tuple[Atom, int]) -> tuple[int, int, str]:
    (kind, amount, ladder), _ = item
    return (("none", "cash", "bonus", "disco").index(kind), amount, ladder or "")


# -- 2. what a line pays ---------------------------------------------------------------------


def _bonus_amounts(d: LowerData, cents: int) -> Law:
    """A prize of ``cents`` turned into Bonuses: ``cents // bonus_value`` of them, and one more
    with chance remainder / ``bonus_value`` (the rules' ``randbelow``), each worth
    ``LowerData.bonus_worth`` cents."""
    bv, worth = d.game.bonus_value, d.bonus_worth
    whole, rest = divmod(cents, bv)
    if not rest:
        return {whole * worth: F(1)}
    return {whole * worth: F(bv - rest, bv), (whole + 1) * worth: F(rest, bv)}


@by_identity()
def ladder_laws(d: LowerData, kind: str, coin: int = 1) -> tuple[Law, ...]:
    """The law of what a ladder played to its end pays, from each level of the scale (the
    top is paid at once).  Levels below the top are the transient states of an absorbing
    chain: PLAY goes up (the top absorbs, paying it), or fails: Sube-Nada pays nothing,
    Sube-Bonos at or below the seesaw pays the prize in Bonuses and above it falls a level.
    Absorption chances: ``(I - Q) B = R``, solved exactly."""
    scale = d.ladders.scale
    top = len(scale) - 1
    steps = d.ladders.sube_bonos if kind == "sube_bonos" else d.ladders.sube_nada
    seesaw = d.ladders.seesaw_index
    ends: dict[int, int] = {}  # amount -> column of R
    rows: list[dict[int, Fraction]] = []
    a = [[F(int(r == c)) for c in range(top)] for r in range(top)]
    for i in range(top):
        fail, up = (F(w, sum(steps[i].weights)) for w in steps[i].weights)
        row: dict[int, Fraction] = Counter()
        if i + 1 == top:
            row[scale[top] * coin] += up
        else:
            a[i][i + 1] -= up
        if kind == "sube_nada":
            row[0] += fail
        elif i <= seesaw:
            for amount, p in _bonus_amounts(d, scale[i] * coin).items():
                row[amount] += fail * p
        else:
            a[i][i - 1] -= fail
        rows.append(row)
        for amount in row:
            ends.setdefault(amount, len(ends))
    r = [[row.get(amount, F(0)) for amount in ends] for row in rows]
    b = S.solve_exact(a, r)
    laws = tuple({amount: b[i][j] for amount, j in sorted(ends.items()) if b[i][j]} for i in range(top))
    return (*laws, {scale[top] * coin: F(1)})


def _disco_law(d: LowerData, ladders: str, coin: int) -> Law:
    """One draw of the bet's own Disco table (amounts at the bet)."""
    table = d.disco_table(coin)
    total = sum(table.values())
    law: Law = Counter()
    for key, w in table.items():
        amount = int(key[1:])
        if key[0] == "B":
            sub = {amount * d.bonus_worth: F(1)}
        elif amount // coin <= d.ladders.seesaw_above and ladders == "risk":
            sub = ladder_laws(d, "sube_bonos", coin)[d.ladders.scale.index(amount // coin)]
        else:  # paid at once, or its ladder collected
            sub = {amount: F(1)}
        for x, p in sub.items():
            law[x] += F(w, total) * p
    return dict(law)


def ladder_rule(d: LowerData, play: str) -> str:
    """``collect`` or ``risk``: the ladder rule of a play; the best play's ladder policy is
    one of them when it plays every rung or none (checked), the only cases computed."""
    ladders = S.PLAYS[play][0]
    if ladders != "best":
        return ladders
    policies = {S.ladder_policy(d, kind, "best") for kind in ("sube_bonos", "sube_nada")}
    for rule in ("collect", "risk"):
        if policies == {S.ladder_policy(d, "sube_bonos", rule)}:
            return rule
    raise ValueError(f"{play}: its ladder policy plays some rungs only; its law is not computed")


def prize_law(d: LowerData, atom: Atom, ladders: str, coin: int = 1) -> Law:
    """What a settled line pays, in cents at the bet, under the ladder rule of a play."""
    kind, amount, ladder = atom
    if kind == "cash":
        if ladder is None or ladders == "collect":
            return {amount * coin: F(1)}
        return ladder_laws(d, ladder, coin)[d.ladders.scale.index(amount)]
    if kind == "bonus":
        return {amount * coin * d.bonus_worth: F(1)}
    if kind == "disco":
        return _disco_law(d, ladders, coin)
    return {0: F(1)}


@by_identity()
def round_law(d: LowerData, play: str = "auto", coin: int = 1) -> Law:
    """The exact law of one round's win (cents at the bet, Bonuses at ``bonus_worth``)."""
    ladders = ladder_rule(d, play)
    law: Law = Counter()
    for atom, p in line_law(d, play).items():
        for x, q in prize_law(d, atom, ladders, coin).items():
            law[x] += p * q
    return {x: law[x] for x in sorted(law) if law[x]}


# -- the result ------------------------------------------------------------------------------


def _line_name(d: LowerData, atom: Atom) -> str:
    kind, amount, ladder = atom
    if kind == "cash":
        symbols = "/".join(s for s, c in d.pays.items() if c == amount)
        return f"3 x {symbols}" + (f" ({ladder})" if ladder else "")
    if kind == "bonus":
        return f"{amount} Bonuses"
    return "Disco" if kind == "disco" else "no prize"


def win_distribution(d: LowerData, play: str = "auto", coin: int = 1) -> WinDistribution:
    """One lower-game round's win under ``play`` at the bet ``unit x coin``, exact."""
    started = time.perf_counter()
    law = round_law(d, play, coin)
    lines = line_law(d, play)
    return WinDistribution(
        game="los-3-pinguinos",
        variant=d.game.variant,
        mode="base",
        stake=d.game.unit * coin,
        cap=None,
        method=(
            "exact: every stop, the play's holds and nudges, the ladders as absorbing chains, "
            "the Disco's table (fractions)"
        ),
        error_bound="none: every probability is an exact fraction",
        exact_pmf=law,
        details={
            "play": play,
            "play_name": PLAY_NAMES[play],
            "bet_cents": d.game.unit * coin,
            "currency": d.game.currency,
            "amounts": "cents at the bet: cash plus Bonuses at their value",
            "bonus_value_cents": d.game.bonus_value,
            "bonus_worth_cents": d.bonus_worth,
            "settled_line": [
                {
                    "line": _line_name(d, a),
                    "probability": float(p),
                    "fraction": f"{p.numerator}/{p.denominator}",
                }
                for a, p in lines.items()
            ],
            "seconds": round(time.perf_counter() - started, 2),
        },
    )


def for_bet(d: LowerData, mode: str, play: str, level: BetLevel | None) -> WinDistribution:
    """The law behind ``LosTresPinguinos.win_distribution``, Bonuses at ``bonus_worth`` cents:
    the lower game (mode ``base``) under ``play`` (``auto``, the configured play; ``default``;
    ``auto_risk``) at a lower bet (None: the unit bet), or (mode ``upper``) one round of
    upper-only play at an upper bet (None: the first) under COLLECT ALL."""
    if mode == "upper":
        from .upper_distribution import win_distribution as upper_law

        if play != "auto":
            raise InvalidBet(f"the upper game's law is computed for COLLECT ALL only, not play {play!r}")
        return upper_law(d, 0 if level is None else d.upper_bet(level.stake)[0])
    if play not in S.PLAYS:
        raise InvalidBet(f"unknown play {play!r}; plays: {sorted(S.PLAYS)}")
    return win_distribution(d, play, 1 if level is None else level.coin)
