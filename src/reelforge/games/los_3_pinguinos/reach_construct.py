"""Los 3 Pinguinos' max win, constructed by hand from the strips and tables.

* Lower game, at every bet: the top prize of a round is the Disco's largest cash prize in
  the bet's own table (the top of the scale at €0.20, 1,000 bets above).  The paid game's
  stops show three Disco symbols on the line (the first such stops of the 4,096); each
  penguin draws that prize; STOP lights the first penguin.
* Upper game: the bet's maximum prize twice, once in the paid game and once in the WINNING
  SPIN it owes.  The paid game's stops (the first of the 4,096) show the accumulator piece
  and three Cocktails on a line (the Fishing trigger; the accumulator's reel shows no Ice
  Cube beside it), the machine's accumulator for the bet is one piece short (built up
  from a new machine, below), the offer says yes and FISH catches the largest fish until the catch
  reaches the maximum.  The WINNING SPIN's stops show a Cocktail line, played the same way.
  The machine starts new: lower-game rounds landing the largest Bonus prize (no vertical-lines
  sign, so the upper game stays on 5 lines) pay the upper rounds' Bonuses, and upper rounds
  showing the piece and paying nothing bring the accumulator to within one step.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from reelforge.engine.report.script import Planned, Script, index_offset, offset
from reelforge.engine.round import Action, Round

from .data_model import STOPS, LowerData
from .payline import evaluate, line_symbols, nudge_offerable, vertical_hits
from .upper_lines import evaluate as upper_evaluate

METHOD = (
    "constructed by hand from the strips and tables (construct_pinguinos), from a new machine: lower "
    "game, three Disco symbols and every penguin on the bet's top cash prize; upper game, lower-game Bonus "
    "rounds and upper rounds showing the accumulator piece, then a Fishing trigger beside the piece that "
    "fills the accumulator, the largest fish until the maximum, and the WINNING SPIN the same way"
)


def construct_lower(d: LowerData, stake: int) -> tuple[list[Planned], str]:
    stops = next(
        s for s in product(range(STOPS), repeat=3) if evaluate(d, line_symbols(d, s)).kind == "disco"
    )
    outcome = evaluate(d, line_symbols(d, stops))
    start = list(stops)
    if nudge_offerable(d, stops, outcome, False):
        start.append(index_offset(d.nudges.offer.weights, 0))  # no nudges
    coin = stake // d.game.unit
    table = d.disco_table(coin)
    cash = [k for k in table if k[0] == "C"]
    top = max(cash, key=lambda k: int(k[1:]))
    if int(top[1:]) // coin <= d.ladders.seesaw_above:
        raise ValueError("the top Disco prize would start a ladder: this construction does not apply")
    start += [offset(table, top)] * d.disco_game.penguins

    def step(rnd: Round) -> tuple[Action, Script]:
        return Action(name="stop"), Script([0])

    note = f"stops {list(stops)}: three Disco symbols; every penguin draws {top}"
    return [Planned(lambda _: Script(list(start)), None, step)], note


def _fishing_stops(d: LowerData, i: int, need_accumulator: bool) -> tuple[list[int], Any]:
    u = d.upper
    bet = u.bets[i]
    for stops in product(range(STOPS), repeat=3):
        ev = upper_evaluate(u, bet, stops, False)
        if ev.minigame == "fishing" and ev.accumulator == need_accumulator and not ev.vertical:
            return list(stops), ev
    raise ValueError("no stops show a Fishing trigger as needed")


def _fishing_draws(d: LowerData, i: int) -> list[int]:
    """The largest fish, again and again, until the catch reaches the maximum prize (no more
    draws are made then)."""
    fi = d.upper.fishing
    bet = d.upper.bets[i]
    fish = {k: int(k[1:]) for k in fi.catch if k != "X"}
    largest = max(fish, key=lambda k: fish[k])
    draws: list[int] = []
    total = 0
    while total < bet.max_prize:
        draws.append(offset(fi.catch, largest))
        total += fish[largest] * bet.multiplier
    return draws


def _game_draws(d: LowerData, i: int, stops: list[int], ev: Any, gain: int | None) -> list[int]:
    """A game's draws up to its minigame offer (or its end): ``gain`` accumulator pieces
    when the paid game shows the piece (None: the WINNING SPIN, which draws none)."""
    u = d.upper
    draws = list(stops)
    if gain is not None and ev.accumulator:
        draws.append(offset(u.accumulator_step, gain))
    if ev.mixed_lines:  # a bet with a mixed table: each mixed line draws its largest prize
        draws += [offset(u.bets[i].mixed, max(u.bets[i].mixed))] * ev.mixed_lines
    if ev.minigame is not None:
        draws.append(index_offset(u.offer(i, 5).weights, 1))  # the minigame is offered
    return draws


def _piece_stops(d: LowerData, i: int) -> tuple[list[int], Any]:
    """Upper stops showing the accumulator piece and paying nothing (no vertical-lines sign)."""
    u = d.upper
    for stops in product(range(STOPS), repeat=3):
        ev = upper_evaluate(u, u.bets[i], stops, False)
        if ev.accumulator and not ev.pays and ev.minigame is None and not ev.vertical:
            return list(stops), ev
    raise ValueError("every window with the accumulator piece pays")


def _bonus_round(d: LowerData) -> tuple[list[int], int]:
    """Lower-game draws landing the largest Bonus prize on the line (no vertical-lines sign on
    it, so the upper game stays on 5 lines), and the Bonuses it pays at the unit bet."""
    top = max(d.bonus_pays.values())
    for stops in product(range(STOPS), repeat=3):
        o = evaluate(d, line_symbols(d, stops))
        if o.kind == "bonus" and o.bonuses == top and not vertical_hits(d, stops):
            draws = list(stops)
            if nudge_offerable(d, stops, o, False):
                draws.append(index_offset(d.nudges.offer.weights, 0))  # no nudges
            return draws, top
    raise ValueError("no stops land the largest Bonus prize")


def construct_upper(d: LowerData, stake: int) -> tuple[list[Planned], str, None]:
    """From a new machine: lower-game rounds at the largest lower bet win the Bonuses; upper
    rounds showing the accumulator piece (and paying nothing) fill it to within one step; the
    last round fills it with the maximum prize in the paid game and the WINNING SPIN."""
    i, bet = d.upper_bet(stake)
    u = d.upper
    most = max(u.accumulator_step)
    gains = []
    left = u.accumulator_pieces
    while left > most:
        gains.append(most)
        left -= most
    gains.append(left)  # the last paid game's gain fills the accumulator
    lower = max(lower_levels(d), key=lambda b: b[1])
    bonus_draws, per_unit = _bonus_round(d)
    need = bet.bonuses * len(gains)
    lower_rounds = -(-need // (per_unit * lower[1]))
    plans = [
        Planned(lambda _: Script(list(bonus_draws)), mode="base", stake=lower[0]) for _ in range(lower_rounds)
    ]
    piece_stops, piece_ev = _piece_stops(d, i)
    for g in gains[:-1]:
        draws = _game_draws(d, i, piece_stops, piece_ev, g)
        plans.append(Planned(lambda _, draws=draws: Script(list(draws))))
    paid_stops, paid_ev = _fishing_stops(d, i, True)
    win_stops, win_ev = _fishing_stops(d, i, False)
    start = _game_draws(d, i, paid_stops, paid_ev, gains[-1])
    # FISH in the paid game settles it and plays the WINNING SPIN up to its Fishing; FISH there
    # settles the round.
    winning = _game_draws(d, i, win_stops, win_ev, None)

    def step(rnd: Round) -> tuple[Action, Script]:
        more = winning if rnd.state["game"] == "paid" else []
        return Action(name="fish"), Script(_fishing_draws(d, i) + more)

    plans.append(Planned(lambda _: Script(list(start)), None, step))
    note = (
        f"from a new machine: {lower_rounds} lower-game round(s) at {lower[0]:,} landing {per_unit} "
        f"Bonuses × {lower[1]} (stops {bonus_draws[:3]}), {len(gains) - 1} upper rounds showing the "
        f"accumulator piece (stops {piece_stops}, +{most} pieces each), then the paid game's stops "
        f"{paid_stops} (Fishing beside "
        f"the piece, +{gains[-1]}: the accumulator fills) and the WINNING SPIN's {win_stops}; each Fishing "
        f"catches the largest fish until {bet.max_prize:,}"
    )
    return plans, note, None


def lower_levels(d: LowerData) -> list[tuple[int, int]]:
    """The lower game's ``(stake, coin)`` levels."""
    return [(b, b // d.game.unit) for b in d.game.bets]
