"""Los 3 Pinguinos, the upper game: the readable rules of one upper round (mode ``upper``).

A round is one game paid with cash and Bonuses, the Double-or-Bonuses of its prize, and, when
the game completes the bet's accumulator, the WINNING SPIN and its Double-or-Bonuses.  Every
decision is a stored step.  Draw order (the numba kernel follows it draw for draw):

1. At the start the bet's Bonuses are taken from the machine; a counter above zero loses one
   and the game has 8 paylines, else 5.
2. A game: one stop per reel, left to right (``randbelow(16)``).  The WINNING SPIN repeats
   this until its 5 paylines pay (:attr:`.upper_lines.Evaluation.pays`).
3. Only in the paid game: the vertical-lines symbol in the window draws ``vertical_step``
   (the counter gains it, at most ``vertical_lines_max``); then the accumulator symbol draws
   ``accumulator_step`` (the bet's accumulator gains it; reaching ``accumulator_pieces`` it
   empties and the WINNING SPIN is owed, pieces past the top are lost).
4. Each mixed-sevens line draws the bet's ``mixed`` table; the line prize is the direct prizes
   plus the mixed ones, at most the bet's ``max_prize``.
5. A minigame trigger draws the bet's ``minigame_offer`` (``minigame_offer_8`` in a game on
   8 paylines); offered, the minigame replaces the
   line prize with ``min(max_prize, max(floor, line prize, result))``:
   * Roulette (action ``spin``): ``randbelow(sections)`` lights a section, then ``again``
     draws whether another lights, until it says no or the sum reaches the maximum;
   * Fishing (action ``fish``): each penguin in turn draws ``catch`` until the cross (or
     until the sum reaches the maximum, when no further draw is made);
   * Slides: at the offer, ``platforms`` draws of ``prizes`` (shown) and a Fisher-Yates
     shuffle (``platforms - 1`` draws, hidden); ``pick`` with a platform draws nothing.
6. Double-or-Bonuses, when the prize is above zero: the maximum prize is paid at once, as is
   every prize while the machine holds more than ``bonus_cap`` Bonuses.  Otherwise the prize
   is played in fractions of the bet's ``fraction`` (the last one may be smaller): ``collect``
   takes the fraction, ``collect_all`` the rest, ``play`` draws ``double`` - doubled (paid)
   or its value in Bonuses (``fraction // bonus_value`` Bonuses and one more when
   ``randbelow(bonus_value)`` falls below the remainder).  Once the doubles bring the prize to
   the bet's maximum, the game ends and pays the maximum; once the Bonuses pass the cap, the
   rest is collected.
7. Then the WINNING SPIN if owed (step 2, 5 paylines, no counter or accumulator), its
   mixed lines, minigame and Double-or-Bonuses (steps 4-6).
"""

from __future__ import annotations

from typing import Any

from reelforge.engine.game import InsufficientSideBalance
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.rng import RandomSource, shuffle, weighted_index

from .data_model import LowerData
from .upper_data import STOPS, UpperBet
from .upper_lines import Evaluation, evaluate, window

MINIGAME_ACTIONS = {"roulette": "spin", "fishing": "fish", "slides": "pick"}


class InsufficientBonuses(InsufficientSideBalance):  # an InvalidBet: the server answers 402
    """The machine's Bonuses do not cover the upper bet."""


def _bonuses(n: int) -> str:
    return f"{n} Bonus" if n == 1 else f"{n} Bonuses"


def cash_of(key: str) -> int:
    return int(key[1:])


def bet_of(d: LowerData, rnd: Round) -> UpperBet:
    return d.upper.bets[rnd.state["bet"]]


def start(d: LowerData, rnd: Round, stake: int, rng: RandomSource) -> None:
    """Take the bet's Bonuses and play the paid game (``rnd`` is new, its state empty)."""
    i, bet = d.upper_bet(stake)
    machine = rnd.player_state
    assert machine is not None
    if machine["bonuses"] < bet.bonuses:
        raise InsufficientBonuses(
            f"this bet takes {_bonuses(bet.bonuses)} and the machine holds {_bonuses(machine['bonuses'])}"
        )
    machine["bonuses"] -= bet.bonuses
    counter = machine["vertical_lines"]
    lines = 8 if counter > 0 else 5
    if counter > 0:
        machine["vertical_lines"] = counter - 1
    rnd.state = {
        "phase": "spin",
        "bet": i,
        "bet_value": stake,
        "bonus_stake": bet.bonuses,
        "lines": lines,
        "credits": 0,  # cash won and settled, cents (Round.win)
        "bonuses_won": 0,
        "stops": [0, 0, 0],
        "winning_spin": False,  # owed: the paid game filled the accumulator
        "game": "paid",
    }
    rnd.events.append(
        {
            "type": "upper_start",
            "bet_value": stake,
            "cash": bet.cash,
            "bonuses": bet.bonuses,
            "bonuses_left": machine["bonuses"],
            "lines": lines,
            "counter": machine["vertical_lines"],
        }
    )
    _game(d, rnd, rng)


def _spin(d: LowerData, rnd: Round, rng: RandomSource, vertical: bool) -> Evaluation:
    st = rnd.state
    st["stops"] = [rng.randbelow(STOPS) for _ in range(3)]
    return evaluate(d.upper, bet_of(d, rnd), st["stops"], vertical)


def _game(d: LowerData, rnd: Round, rng: RandomSource) -> None:
    """Play a game (the paid one, or the WINNING SPIN) up to its prize or its minigame."""
    st = rnd.state
    u = d.upper
    bet = bet_of(d, rnd)
    winning = st["game"] == "winning"
    tries = 1
    ev = _spin(d, rnd, rng, vertical=st["lines"] == 8 and not winning)
    while winning and not ev.pays:
        tries += 1
        ev = _spin(d, rnd, rng, vertical=False)
    rnd.events.append(
        {
            "type": "upper_spin",
            "game": st["game"],
            "lines": 5 if winning else st["lines"],
            "tries": tries,
            "stops": list(st["stops"]),
            "window": window(u, st["stops"]),
            "wins": [{"line": w.line, "symbol": w.symbol, "cents": w.cents} for w in ev.wins],
        }
    )
    machine = rnd.player_state
    assert machine is not None
    if not winning and ev.vertical:
        gained = _draw_key(rng, u.vertical_step)
        before = machine["vertical_lines"]
        machine["vertical_lines"] = min(d.game.vertical_lines_max, before + gained)
        rnd.events.append(
            {
                "type": "vertical_lines",
                "gained": gained,
                "before": before,
                "counter": machine["vertical_lines"],
            }
        )
    if not winning and ev.accumulator:
        gained = _draw_key(rng, u.accumulator_step)
        key = str(st["bet_value"])
        before = int(machine["accumulators"].get(key, 0))
        pieces = before + gained
        full = pieces >= u.accumulator_pieces
        machine["accumulators"][key] = 0 if full else pieces
        if full:
            st["winning_spin"] = True
        rnd.events.append(
            {"type": "accumulator", "bet_value": st["bet_value"], "gained": gained, "before": before,
             "pieces": min(pieces, u.accumulator_pieces), "full": full}
        )  # fmt: skip
    prize = ev.direct
    for _ in range(ev.mixed_lines):
        drawn = _draw_key(rng, bet.mixed)
        rnd.events.append({"type": "mixed", "cents": drawn})
        prize += drawn
    prize = min(prize, bet.max_prize)
    st["line_prize"] = prize
    if ev.minigame is not None:
        lines = 5 if winning else st["lines"]
        offered = weighted_index(rng, u.offer(st["bet"], lines).weights) == 1
        if offered:
            _minigame_start(d, rnd, ev.minigame, prize, rng)
            return
        rnd.events.append({"type": "minigame_not_offered", "minigame": ev.minigame})
    _double_start(d, rnd, prize, rng)


def _draw_key(rng: RandomSource, table: dict[int, int]) -> int:
    keys = list(table)
    return keys[weighted_index(rng, list(table.values()))]


# -- minigames ---------------------------------------------------------------------------


def _minigame_start(d: LowerData, rnd: Round, kind: str, replaces: int, rng: RandomSource) -> None:
    st = rnd.state
    bet = bet_of(d, rnd)
    st["phase"] = kind
    st["minigame"] = {"kind": kind, "replaces": replaces}
    event: dict[str, Any] = {"type": "minigame_start", "minigame": kind, "replaces": replaces}
    if kind == "slides":
        sl = d.upper.slides
        keys = list(sl.prizes)
        weights = list(sl.prizes.values())
        platforms = [
            cash_of(keys[weighted_index(rng, weights)]) * bet.multiplier for _ in range(sl.platforms)
        ]
        order = list(range(sl.platforms))
        shuffle(rng, order)
        st["minigame"]["platforms"] = platforms
        st["_slides_order"] = order  # hidden until the pick: which prize slid to which platform
        event["platforms"] = platforms
    rnd.events.append(event)


def minigame_play(d: LowerData, rnd: Round, action: Action, rng: RandomSource) -> None:
    st = rnd.state
    bet = bet_of(d, rnd)
    mg = st["minigame"]
    kind = mg["kind"]
    m = bet.multiplier
    top = bet.max_prize
    event: dict[str, Any] = {"type": "minigame_end", "minigame": kind}
    if kind == "roulette":
        ro = d.upper.roulette
        lit = [rng.randbelow(len(ro.sections))]
        total = ro.sections[lit[0]] * m
        while total < top and weighted_index(rng, ro.again.weights) == 1:
            lit.append(rng.randbelow(len(ro.sections)))
            total += ro.sections[lit[-1]] * m
        event["sections"] = lit
    elif kind == "fishing":
        fi = d.upper.fishing
        keys = list(fi.catch)
        weights = list(fi.catch.values())
        catches: list[list[int]] = []
        total = 0
        for _ in range(fi.penguins):
            caught: list[int] = []
            while total < top:
                key = keys[weighted_index(rng, weights)]
                if key == "X":
                    break
                fish = cash_of(key) * m
                caught.append(fish)
                total += fish
            catches.append(caught)
        event["catches"] = catches
    else:  # slides
        assert action.choice is not None
        order = st.pop("_slides_order")
        total = mg["platforms"][order[action.choice]]
        event["platform"] = action.choice
        event["order"] = order
    prize = min(top, max(bet.minigame_floor, mg["replaces"], total))
    event["result"] = total
    event["prize"] = prize
    rnd.events.append(event)
    del st["minigame"]
    _double_start(d, rnd, prize, rng)


# -- Double-or-Bonuses ----------------------------------------------------------------------


def _double_start(d: LowerData, rnd: Round, prize: int, rng: RandomSource) -> None:
    st = rnd.state
    st.pop("line_prize", None)
    bet = bet_of(d, rnd)
    machine = rnd.player_state
    assert machine is not None
    if prize <= 0:
        rnd.events.append({"type": "no_prize", "game": st["game"]})
        _next_game(d, rnd, rng)
        return
    if prize >= bet.max_prize:
        _pay(rnd, prize, "maximum")
        _next_game(d, rnd, rng)
        return
    if machine["bonuses"] > d.game.bonus_cap:
        _pay(rnd, prize, "bonus_cap")
        _next_game(d, rnd, rng)
        return
    st["phase"] = "double"
    st["double"] = {"prize": prize, "remaining": prize, "secured": 0, "bonuses": 0}
    rnd.events.append({"type": "double_start", "prize": prize, "fraction": _fraction(d, rnd)})


def _fraction(d: LowerData, rnd: Round) -> int:
    return min(bet_of(d, rnd).fraction, rnd.state["double"]["remaining"])


def double_act(d: LowerData, rnd: Round, action: Action, rng: RandomSource) -> None:
    st = rnd.state
    db = st["double"]
    bet = bet_of(d, rnd)
    frac = _fraction(d, rnd)
    machine = rnd.player_state
    assert machine is not None
    if action.name == "collect_all":
        db["secured"] += db["remaining"]
        rnd.events.append({"type": "double_collect_all", "cents": db["remaining"]})
        db["remaining"] = 0
    elif action.name == "collect":
        db["secured"] += frac
        db["remaining"] -= frac
        rnd.events.append({"type": "double_collect", "cents": frac, "remaining": db["remaining"]})
    else:  # play
        doubled = weighted_index(rng, d.upper.double.weights) == 1
        db["remaining"] -= frac
        if doubled:
            db["secured"] += 2 * frac
            event: dict[str, Any] = {"type": "double_play", "result": "double", "cents": 2 * frac}
            if db["secured"] + db["remaining"] >= bet.max_prize:
                db["secured"], db["remaining"] = bet.max_prize, 0
                event["maximum"] = True
        else:
            whole, rest = divmod(frac, d.game.bonus_value)
            if rest and rng.randbelow(d.game.bonus_value) < rest:
                whole += 1
            machine["bonuses"] += whole
            st["bonuses_won"] += whole
            db["bonuses"] += whole
            event = {"type": "double_play", "result": "bonuses", "bonuses": whole, "from_cents": frac,
                     "balance": machine["bonuses"]}  # fmt: skip
        event["remaining"] = db["remaining"]
        rnd.events.append(event)
    if db["remaining"] and machine["bonuses"] > d.game.bonus_cap:
        rnd.events.append({"type": "double_collect_all", "cents": db["remaining"], "reason": "bonus_cap"})
        db["secured"] += db["remaining"]
        db["remaining"] = 0
    if db["remaining"] == 0:
        del st["double"]
        _pay(rnd, db["secured"], "double_end")
        _next_game(d, rnd, rng)


def _pay(rnd: Round, cents: int, how: str) -> None:
    st = rnd.state
    st["credits"] += cents
    rnd.win = st["credits"]
    rnd.events.append({"type": "paid", "how": how, "cents": cents, "game": st["game"]})


def _next_game(d: LowerData, rnd: Round, rng: RandomSource) -> None:
    """After a game's prize is settled: the WINNING SPIN if owed, else the round ends."""
    st = rnd.state
    st["phase"] = "done"
    if st["winning_spin"]:
        st["winning_spin"] = False
        st["game"] = "winning"
        st["phase"] = "spin"
        rnd.events.append({"type": "winning_spin", "bet_value": st["bet_value"]})
        _game(d, rnd, rng)


def actions(d: LowerData, rnd: Round) -> list[ActionSpec]:
    st = rnd.state
    phase = st["phase"]
    if phase in MINIGAME_ACTIONS:
        name = MINIGAME_ACTIONS[phase]
        if phase == "slides":
            n = len(st["minigame"]["platforms"])
            return [ActionSpec(name=name, choices=list(range(n)), default=0, needs_player=True)]
        return [ActionSpec(name=name, needs_player=True)]
    if phase == "double":
        # COLLECT ALL first: the default play (a player who is gone) takes the prize in one step.
        return [
            ActionSpec(name="collect_all", needs_player=True),
            ActionSpec(name="collect", needs_player=True),
            ActionSpec(name="play", needs_player=True),
        ]
    return []


def auto_action(rnd: Round, settings: dict[str, bool]) -> Action | None:
    """AUTO-PLAY: minigames play themselves (the first platform on Slides); AUTO-RISK plays
    every fraction, else the prize is collected whole."""
    phase = rnd.state.get("phase")
    if phase in ("roulette", "fishing"):
        return Action(name=MINIGAME_ACTIONS[phase])
    if phase == "slides":
        return Action(name="pick", choice=0)
    if phase == "double":
        return Action(name="play" if settings.get("auto_risk") else "collect_all")
    return None
