"""Los 3 Pinguinos, the upper game, through the real rules: paylines, the vertical-lines
counter, the accumulators and the WINNING SPIN, the minigames, mixed sevens, every path of
Double-or-Bonuses, refusals, the AUTO decisions, resumes and the machine shared with the
lower game; each forced with draws the oracle of pinguinos_upper_helpers.py computes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import pinguinos_helpers as lower
from pinguinos_upper_helpers import (
    AC_CO,
    AC_LOST,
    ALL,
    BV,
    CAP,
    COLUMN,
    GAME,
    LOST,
    MIXED,
    MIXED_CO,
    MULTI,
    PAYS,
    PIECES,
    RAW,
    STAKES,
    TRIGGER,
    TWO_LINES,
    VL_IC,
    VL_LOST,
    VL_MAX,
    Stops,
    act,
    actions,
    bet,
    collect_all,
    dealt,
    done,
    double,
    event,
    events,
    fishing,
    judge,
    line_wins,
    machine,
    mixed,
    offer,
    only,
    open_minigame,
    paid,
    pieces,
    roulette,
    rounding,
    shuffled,
    single,
    slides,
    spin,
    start,
    types,
    vertical,
)
from pinguinos_upper_helpers import (
    KNOBS as RAW_KNOBS,
)
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.games.los_3_pinguinos.upper_round import InsufficientBonuses
from reelforge.money import InvalidBet

SECTIONS: list[int] = RAW["roulette"]["sections"]
TOP = bet(100)["max_prize"]  # €0.20 + 1 Bonus: 10000 cents
FLOOR = bet(100)["minigame_floor"]
FRACTION = bet(100)["fraction"]
SLIDES = [500, 800, 1000, 1500, 2000]  # five platforms' prizes (unit cents)


# -- paylines ------------------------------------------------------------------------------


@pytest.mark.parametrize("counter", [0, 1, 4, VL_MAX])
def test_a_column_pays_only_with_the_counter_above_zero_which_loses_one(counter: int) -> None:
    assert judge(COLUMN, 100, 8).wins and not judge(COLUMN).wins
    lines = 8 if counter else 5
    rng = dealt(spin(COLUMN))
    rnd = start(100, rng, machine(bonuses=3, vertical=counter))
    assert only(rnd, "upper_start") == event(
        "upper_start",
        bet_value=100,
        cash=20,
        bonuses=1,
        bonuses_left=2,
        lines=lines,
        counter=max(0, counter - 1),
    )
    wins = line_wins(COLUMN, 100, lines)
    assert only(rnd, "upper_spin")["wins"] == wins and only(rnd, "upper_spin")["lines"] == lines
    if counter:
        assert wins[0]["line"] > 5
        rnd = collect_all(rnd, PAYS["CH"])
    else:
        assert wins == [] and types(rnd)[-2:] == ["no_prize", "round_end"]
    assert rnd.player_state == machine(bonuses=2, vertical=max(0, counter - 1))
    done(rnd, rng, PAYS["CH"] if counter else 0)


def test_each_upper_game_uses_one_of_the_counter() -> None:
    state = machine(vertical=2)
    for lines, after in ((8, 1), (8, 0), (5, 0)):
        rng = dealt(spin(LOST))
        rnd = start(100, rng, state)
        assert only(rnd, "upper_start")["lines"] == lines and rnd.player_state is not None
        assert rnd.player_state["vertical_lines"] == after
        done(rnd, rng, 0)
        state = rnd.player_state
    assert state == machine(bonuses=997)


@pytest.mark.parametrize("lines", [5, 8])
@pytest.mark.parametrize("stake", STAKES)
def test_several_lines_are_summed_and_the_bet_multiplies_them(stake: int, lines: int) -> None:
    expected = judge(MULTI, stake, lines)
    assert len(expected.wins) >= 3 and expected.direct < bet(stake)["max_prize"]
    assert expected.direct == sum(PAYS[s] for _, s, _ in expected.wins) * bet(stake)["multiplier"]
    rng = dealt(spin(MULTI))
    rnd = start(stake, rng, machine(vertical=1 if lines == 8 else 0))
    assert only(rnd, "upper_spin")["wins"] == line_wins(MULTI, stake, lines)
    assert only(rnd, "double_start") == event(
        "double_start", prize=expected.direct, fraction=min(bet(stake)["fraction"], expected.direct)
    )
    done(collect_all(rnd, expected.direct), rng, expected.direct)


@pytest.mark.parametrize("stake", [100, 5000, 13500])
@pytest.mark.parametrize("seven", RAW["sevens"])
def test_same_colour_sevens_pay_their_prize_and_are_not_mixed(seven: str, stake: int) -> None:
    stops = single(seven)
    prize = PAYS[seven] * bet(stake)["multiplier"]
    rng = dealt(spin(stops))  # no mixed draw, even at a bet with a mixed table
    rnd = start(stake, rng)
    assert only(rnd, "upper_spin")["wins"][0]["symbol"] == seven and "mixed" not in types(rnd)
    done(collect_all(rnd, prize), rng, prize)


def test_the_line_prize_is_capped_at_the_maximum_and_paid_directly() -> None:
    """No window of the real strips passes a bet's maximum (the biggest is one seven line or
    one mixed draw), so the cap is forced on a copy whose Cherries pay 3000."""
    for stake in STAKES:
        top_mixed = max(map(int, bet(stake)["mixed"]), default=0)
        biggest = max(judge(s, stake, 8).direct + judge(s, stake, 8).mixed * top_mixed for s in ALL)
        assert biggest < bet(stake)["max_prize"]
    d = GAME.data()
    upper = d.upper.model_dump()
    upper["pays"] = {**upper["pays"], "CH": 3000}
    game = type(GAME)({"95": d.model_copy(update={"upper": upper})})
    assert judge(MULTI).direct // PAYS["CH"] * 3000 > TOP
    rng = dealt(spin(MULTI))
    rnd = game.start(100, rng, mode="upper", player_state=machine())
    assert paid(rnd) == [("maximum", TOP, "paid")] and "double_start" not in types(rnd)
    done(rnd, rng, TOP)


# -- the vertical-lines counter -----------------------------------------------------------


@pytest.mark.parametrize(("counter", "step", "after"), [(0, 3, 3), (2, 1, 2), (5, 5, 9), (VL_MAX, 4, 9)])
def test_the_vertical_lines_symbol_adds_the_drawn_step_up_to_nine(
    counter: int, step: int, after: int
) -> None:
    rng = dealt(spin(VL_LOST), vertical(step))
    rnd = start(100, rng, machine(vertical=counter))
    before = max(0, counter - 1)
    assert only(rnd, "vertical_lines") == event("vertical_lines", gained=step, before=before, counter=after)
    assert rnd.player_state is not None
    assert rnd.player_state["vertical_lines"] == after == min(VL_MAX, before + step)
    done(rnd, rng, 0)


# -- the accumulator and the WINNING SPIN ---------------------------------------------------


@pytest.mark.parametrize("stake", [100, 13500])
def test_the_accumulator_of_the_bet_gains_the_drawn_step(stake: int) -> None:
    key = str(stake)
    rng = dealt(spin(AC_LOST), pieces(3))
    rnd = start(stake, rng, machine(acc={key: 2, "500": 5}))
    assert only(rnd, "accumulator") == event(
        "accumulator", bet_value=stake, gained=3, before=2, pieces=5, full=False
    )
    assert rnd.player_state is not None and rnd.player_state["accumulators"] == {key: 5, "500": 5}
    done(rnd, rng, 0)


@pytest.mark.parametrize(("before", "step"), [(PIECES - 1, 1), (PIECES - 2, 2), (PIECES - 1, 3)])
def test_a_full_accumulator_empties_and_plays_the_winning_spin(before: int, step: int) -> None:
    """The spins that pay nothing on 5 lines are redrawn, a column win too though the counter
    is above zero; the pieces past the top are lost; other bets' accumulators stay."""
    plum = single("PL")
    rng = dealt(spin(AC_LOST), pieces(step), spin(COLUMN), spin(LOST), spin(VL_LOST), spin(MIXED), spin(plum))
    rnd = start(100, rng, machine(vertical=4, acc={"100": before, "7500": 6}))
    assert only(rnd, "accumulator") == event(
        "accumulator", bet_value=100, gained=step, before=before, pieces=PIECES, full=True
    )
    assert types(rnd)[-4:] == ["no_prize", "winning_spin", "upper_spin", "double_start"]
    first, winning = events(rnd, "upper_spin")
    assert (first["game"], first["lines"], first["tries"]) == ("paid", 8, 1)
    assert (winning["game"], winning["lines"], winning["tries"]) == ("winning", 5, 5)
    assert winning["stops"] == list(plum) and winning["wins"] == line_wins(plum)
    assert "vertical_lines" not in types(rnd) and rnd.state["game"] == "winning"
    rnd = collect_all(rnd, PAYS["PL"])
    assert paid(rnd) == [("double_end", PAYS["PL"], "winning")]
    assert rnd.player_state == machine(bonuses=999, vertical=3, acc={"100": 0, "7500": 6})
    done(rnd, rng, PAYS["PL"])


@pytest.mark.parametrize("stops", [AC_CO, VL_IC])
def test_the_winning_spin_draws_no_counter_or_accumulator_step(stops: Stops) -> None:
    """A paid game with a prize settles first (its Double-or-Bonuses), then the WINNING SPIN
    lands on a window showing the accumulator or the vertical lines: no step is drawn."""
    rng = dealt(spin(AC_CO), pieces(1), offer(100, False))
    rnd = start(100, rng, machine(acc={"100": PIECES - 1}))
    assert only(rnd, "minigame_not_offered")["minigame"] == "fishing"
    symbol = judge(stops).wins[0][1]
    rng2 = dealt(spin(stops), offer(100, False))
    rnd = act(rnd, "collect_all", rng2)  # the paid game's 300, then the WINNING SPIN
    assert types(rnd).count("accumulator") == 1 and "vertical_lines" not in types(rnd)
    assert events(rnd, "minigame_not_offered")[-1]["minigame"] == RAW["minigames"][symbol]
    rnd = act(rnd, "collect_all", dealt())
    assert paid(rnd) == [("double_end", PAYS["CO"], "paid"), ("double_end", PAYS[symbol], "winning")]
    assert rnd.player_state == machine(bonuses=999, acc={"100": 0})
    assert rng.exhausted
    done(rnd, rng2, PAYS["CO"] + PAYS[symbol])


def test_the_winning_spin_may_start_a_minigame_and_its_prize_is_doubled() -> None:
    rng = dealt(spin(AC_LOST), pieces(1), spin(TRIGGER["roulette"]), offer(100, True))
    rnd = start(100, rng, machine(acc={"100": PIECES - 1}))
    assert rnd.state["phase"] == "roulette" and rnd.state["game"] == "winning"
    rng2 = dealt(roulette(SECTIONS.index(1200)), double(True))
    rnd = act(rnd, "spin", rng2)
    rnd = act(rnd, "play", rng2)  # the first €4 fraction doubled, the rest collected
    rnd = act(rnd, "collect_all", rng2)
    assert paid(rnd) == [("double_end", 1200 + FRACTION, "winning")]
    assert rng.exhausted
    done(rnd, rng2, 1200 + FRACTION)


@pytest.mark.parametrize(("stake", "accepted"), [(100, False), (5000, True)])
def test_a_mixed_line_pays_the_winning_spin_only_where_it_draws(stake: int, accepted: bool) -> None:
    prize = min(map(int, bet(stake)["mixed"])) if accepted else PAYS["PL"]
    tail = [mixed(stake, prize)] if accepted else [spin(single("PL"))]  # else redrawn
    rng = dealt(spin(AC_LOST), pieces(1), spin(MIXED), *tail)
    rnd = start(stake, rng, machine(acc={str(stake): PIECES - 1}))
    assert events(rnd, "upper_spin")[-1]["tries"] == (1 if accepted else 2)
    done(collect_all(rnd, prize), rng, prize)


# -- minigames ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lit", "prize"),
    [([SECTIONS.index(1200)], 1200), ([0, 3, 5], SECTIONS[0] + SECTIONS[3] + SECTIONS[5])],
)
def test_roulette_lights_sections_while_again_says_yes(lit: list[int], prize: int) -> None:
    rnd, rng = open_minigame("roulette")
    assert actions(rnd) == ["spin"] and rnd.state["minigame"] == {"kind": "roulette", "replaces": PAYS["IC"]}
    rng2 = dealt(roulette(*lit))
    rnd = act(rnd, "spin", rng2)
    assert only(rnd, "minigame_end") == event(
        "minigame_end", minigame="roulette", sections=lit, result=prize, prize=prize
    )
    assert rng.exhausted
    done(collect_all(rnd, prize), rng2, prize)


@pytest.mark.parametrize("lit", [[SECTIONS.index(TOP)], [SECTIONS.index(5000), SECTIONS.index(TOP)]])
def test_roulette_stops_drawing_once_the_sum_reaches_the_maximum(lit: list[int]) -> None:
    rnd, _ = open_minigame("roulette")
    rng2 = dealt(roulette(*lit)[:-1])  # no `again` draw after the maximum
    rnd = act(rnd, "spin", rng2)
    end = only(rnd, "minigame_end")
    assert end["result"] == sum(SECTIONS[i] for i in lit) >= TOP and end["prize"] == TOP
    assert paid(rnd) == [("maximum", TOP, "paid")] and "double_start" not in types(rnd)
    done(rnd, rng2, TOP)


@pytest.mark.parametrize(
    ("catches", "prize"),
    [([[500, 800], [], [1000]], 2300), ([[], [1500], []], 1500), ([[], [], []], FLOOR)],
)
def test_fishing_three_penguins_fish_until_their_cross(catches: list[list[int]], prize: int) -> None:
    """The prize is every fish; with no fish it is the floor (above the replaced line)."""
    rnd, _ = open_minigame("fishing")
    rng2 = dealt(fishing(*catches))
    rnd = act(rnd, "fish", rng2)
    end = only(rnd, "minigame_end")
    assert (end["catches"], end["result"], end["prize"]) == (catches, sum(map(sum, catches)), prize)
    assert PAYS["CO"] < FLOOR
    done(collect_all(rnd, prize), rng2, prize)


def test_fishing_stops_every_penguin_once_the_sum_reaches_the_maximum() -> None:
    rnd, _ = open_minigame("fishing")
    rng2 = dealt(fishing([5000, 10000], [], [], top=TOP))  # no cross draws at all
    rnd = act(rnd, "fish", rng2)
    assert only(rnd, "minigame_end")["catches"] == [[5000, 10000], [], []]
    assert paid(rnd) == [("maximum", TOP, "paid")]
    done(rnd, rng2, TOP)


def test_a_minigame_never_pays_below_the_line_prize_it_replaces() -> None:
    """A plain line and a trigger line at €1 + 5: 2500, above the floor and the fish caught."""
    stake = 500
    j = judge(MIXED_CO, stake)
    assert j.minigame == "fishing" and j.direct > bet(stake)["minigame_floor"] and not j.mixed
    rng = dealt(spin(MIXED_CO), offer(stake, True), fishing([], [], []))
    rnd = start(stake, rng)
    assert only(rnd, "minigame_start")["replaces"] == j.direct
    rnd = act(rnd, "fish", rng)
    assert only(rnd, "minigame_end")["result"] == 0 and only(rnd, "minigame_end")["prize"] == j.direct
    done(collect_all(rnd, j.direct), rng, j.direct)


def test_slides_draws_the_platforms_hides_the_order_and_the_pick_draws_nothing() -> None:
    prizes, js = [500, 800, 1000, 1500, 3000], [1, 3, 0, 1]
    rnd, rng = open_minigame("slides", 100, slides(prizes, js))
    order = shuffled(js)
    assert rnd.state["minigame"]["platforms"] == prizes and rnd.state["_slides_order"] == order
    assert only(rnd, "minigame_start")["platforms"] == prizes
    view = rnd.public_view()
    assert "_slides_order" not in view["state"] and all("order" not in e for e in view["events"])
    assert rnd.actions[0].choices == [0, 1, 2, 3, 4] and rnd.actions[0].default == 0
    choice = order.index(prizes.index(1500))
    rnd = act(rnd, "pick", dealt(), choice)  # draws nothing
    end = only(rnd, "minigame_end")
    assert (end["platform"], end["order"], end["result"], end["prize"]) == (choice, order, 1500, 1500)
    assert "_slides_order" not in rnd.state and rng.exhausted
    done(collect_all(rnd, 1500), dealt(), 1500)


@pytest.mark.parametrize(("prize", "pays"), [(500, FLOOR), (20000, TOP)])
def test_slides_prize_is_bounded_by_the_floor_and_the_maximum(prize: int, pays: int) -> None:
    rnd, _ = open_minigame("slides", 100, slides([prize] * 5, [0, 0, 0, 0]))
    rnd = act(rnd, "pick", dealt(), 4)
    assert only(rnd, "minigame_end")["prize"] == pays
    if pays == TOP:
        assert paid(rnd) == [("maximum", TOP, "paid")]
        done(rnd, dealt(), TOP)
    else:
        done(collect_all(rnd, pays), dealt(), pays)


@pytest.mark.parametrize("kind", ["roulette", "fishing", "slides"])
def test_a_minigame_declined_pays_the_line_prize(kind: str) -> None:
    rng = dealt(spin(TRIGGER[kind]), offer(100, False))
    rnd = start(100, rng)
    assert only(rnd, "minigame_not_offered") == event("minigame_not_offered", minigame=kind)
    done(collect_all(rnd, 300), rng, 300)


# -- mixed sevens ---------------------------------------------------------------------------


@pytest.mark.parametrize("stake", [5000, 7500, 13500])
def test_a_mixed_line_draws_the_bets_table(stake: int) -> None:
    for cents in map(int, bet(stake)["mixed"]):
        rng = dealt(spin(MIXED), mixed(stake, cents))
        rnd = start(stake, rng)
        assert (
            only(rnd, "upper_spin")["wins"] == line_wins(MIXED, stake)
            and only(rnd, "mixed")["cents"] == cents
        )
        done(collect_all(rnd, cents), rng, cents)


@pytest.mark.parametrize("stake", [100, 500, 2500])
def test_a_mixed_line_pays_and_draws_nothing_at_the_smaller_bets(stake: int) -> None:
    rng = dealt(spin(MIXED))
    rnd = start(stake, rng)
    assert only(rnd, "upper_spin")["wins"] == [] and types(rnd)[-2:] == ["no_prize", "round_end"]
    done(rnd, rng, 0)


def test_mixed_lines_add_to_the_line_prize_a_minigame_replaces() -> None:
    stake = 13500
    j = judge(MIXED_CO, stake)
    rng = dealt(spin(MIXED_CO), mixed(stake, 15000), offer(stake, True))
    rnd = start(stake, rng)
    assert only(rnd, "minigame_start")["replaces"] == j.direct + 15000
    rng2 = dealt(fishing([], [], []))
    rnd = act(rnd, "fish", rng2)
    done(collect_all(rnd, j.direct + 15000), rng2, j.direct + 15000)


# -- Double-or-Bonuses ----------------------------------------------------------------------


def test_collect_one_fraction_then_bonuses_for_a_whole_number_draw_no_rounding() -> None:
    rng = dealt(spin(single("BE")))
    rnd = start(100, rng)
    assert only(rnd, "double_start") == event("double_start", prize=800, fraction=FRACTION)
    rnd = act(rnd, "collect", dealt())
    assert rnd.events[-1] == event("double_collect", cents=FRACTION, remaining=800 - FRACTION)
    assert rnd.state["double"]["secured"] == FRACTION and rnd.win == 0
    rng2 = dealt(double(False))  # 400 cents = 5 Bonuses: no rounding draw
    rnd = act(rnd, "play", rng2)
    assert rnd.events[-3] == event(
        "double_play",
        result="bonuses",
        bonuses=FRACTION // BV,
        from_cents=FRACTION,
        balance=999 + 5,
        remaining=0,
    )
    assert rnd.player_state is not None and rnd.player_state["bonuses"] == 1004
    done(rnd, rng2, FRACTION, bonuses_won=5)


def test_play_doubles_the_fraction() -> None:
    rng = dealt(spin(single("PL")), double(True))
    rnd = act(start(100, rng), "play", rng)
    assert events(rnd, "double_play") == [event("double_play", result="double", cents=800, remaining=0)]
    done(rnd, rng, 800)


@pytest.mark.parametrize(("draw", "won"), [(0, 13), (39, 13), (40, 12), (79, 12)])
def test_ten_euros_are_twelve_and_a_half_bonuses_rounded_by_one_draw(draw: int, won: int) -> None:
    """€1 + 5 Bonuses plays €10 fractions: 12 Bonuses and a 13th when randbelow(80) < 40."""
    lemon = single("LE")
    assert PAYS["LE"] * bet(500)["multiplier"] == bet(500)["fraction"] == 1000
    rng = dealt(spin(lemon), double(False), rounding(draw))
    rnd = act(start(500, rng), "play", rng)
    assert events(rnd, "double_play")[0]["bonuses"] == won
    done(rnd, rng, 0, bonuses_won=won)


def test_the_last_fraction_may_be_smaller() -> None:
    stake = 500
    prize = judge(TWO_LINES, stake).direct
    assert prize % bet(stake)["fraction"] == 500
    rng = dealt(spin(TWO_LINES))
    rnd = act(start(stake, rng), "collect", rng)
    assert rnd.events[-1] == event("double_collect", cents=1000, remaining=500)
    rnd = act(rnd, "play", dealt(double(True)))
    assert events(rnd, "double_play")[0]["cents"] == 1000
    done(rnd, dealt(), 2000)


def test_doubles_reaching_the_maximum_end_the_game_paying_it() -> None:
    lit = [SECTIONS.index(5000), SECTIONS.index(3000), SECTIONS.index(1000)]
    rnd, _ = open_minigame("roulette")
    rnd = act(rnd, "spin", dealt(roulette(*lit)))
    assert rnd.state["double"]["prize"] == 9000
    for n in (1, 2):
        rnd = act(rnd, "play", dealt(double(True)))
        db = rnd.state["double"]
        assert (db["remaining"], db["secured"]) == (9000 - n * FRACTION, 2 * n * FRACTION)
    rnd = act(rnd, "play", dealt(double(True)))
    assert events(rnd, "double_play")[-1] == event(
        "double_play", result="double", cents=800, maximum=True, remaining=0
    )
    assert paid(rnd) == [("double_end", TOP, "paid")]
    done(rnd, dealt(), TOP)


def test_auto_risk_plays_every_fraction_until_the_maximum() -> None:
    rng = dealt(spin(single("R7")), [double(True)] * 13)
    rnd = start(100, rng)
    plays = 0
    while not rnd.complete:
        assert GAME.auto_action(rnd, {"auto_risk": True}) == Action(name="play")
        rnd = GAME.act(rnd, Action(name="play"), rng)
        plays += 1
    assert plays == 13 and events(rnd, "double_play")[-1].get("maximum") is True
    done(rnd, rng, TOP)


@pytest.mark.parametrize(("held", "offered"), [(CAP, True), (CAP + 1, False), (CAP + 500, False)])
def test_no_double_up_while_the_machine_holds_more_than_the_cap(held: int, offered: bool) -> None:
    rng = dealt(spin(single("PL")))
    rnd = start(100, rng, machine(bonuses=held + 1))  # the bet takes one
    if offered:
        assert rnd.state["phase"] == "double"
        return
    assert paid(rnd) == [("bonus_cap", PAYS["PL"], "paid")] and "double_start" not in types(rnd)
    done(rnd, rng, PAYS["PL"])


@pytest.mark.parametrize("held", [CAP - 3, CAP - 4])
def test_bonuses_passing_the_cap_mid_way_collect_the_rest(held: int) -> None:
    """The bet takes one Bonus and a €4 fraction brings 5: past 4,000 the rest is collected,
    at exactly 4,000 the Double-or-Bonuses goes on."""
    rng = dealt(spin(single("BE")), double(False))
    rnd = act(start(100, rng, machine(bonuses=held)), "play", rng)
    balance = held - 1 + FRACTION // BV
    assert events(rnd, "double_play") == [
        event("double_play", result="bonuses", bonuses=5, from_cents=FRACTION, balance=balance, remaining=400)
    ]
    assert rnd.player_state is not None and rnd.player_state["bonuses"] == balance
    if balance == CAP:
        assert rnd.state["phase"] == "double" and rng.exhausted
        return
    assert rnd.events[-3] == event("double_collect_all", cents=800 - FRACTION, reason="bonus_cap")
    assert paid(rnd) == [("double_end", 800 - FRACTION, "paid")]
    done(rnd, rng, 800 - FRACTION, bonuses_won=5)


# -- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(("stake", "held"), [(100, 0), (500, 4), (7500, 74), (13500, 149)])
def test_a_bet_without_enough_bonuses_is_refused_and_nothing_changes(stake: int, held: int) -> None:
    state = machine(bonuses=held, vertical=3, acc={"100": 5})
    kept = copy.deepcopy(state)
    rng = dealt()
    with pytest.raises(InsufficientBonuses):
        start(stake, rng, state)
    assert state == kept and rng.position == 0
    assert issubclass(InsufficientBonuses, InvalidBet)


@pytest.mark.parametrize("stake", [20, 1000, 1500, 0, 7000])
def test_stakes_that_are_not_upper_bets_are_refused(stake: int) -> None:
    with pytest.raises(InvalidBet) as caught:
        start(stake, dealt())
    assert not isinstance(caught.value, InsufficientBonuses)


def test_the_two_fifteen_euro_bets_are_distinct() -> None:
    assert GAME.cost(7500, "upper") == GAME.cost(13500, "upper") == 1500
    for stake, bonuses in ((7500, 75), (13500, 150)):
        rng = dealt(spin(single("CH")))
        rnd = start(stake, rng, machine(bonuses=200))
        prize = PAYS["CH"] * bet(stake)["multiplier"]
        assert rnd.player_state is not None and rnd.player_state["bonuses"] == 200 - bonuses
        assert (rnd.stake, rnd.coin) == (1500, bet(stake)["multiplier"])
        done(collect_all(rnd, prize), rng, prize)
    with pytest.raises(InsufficientBonuses):
        start(13500, dealt(), machine(bonuses=149))
    start(7500, dealt(spin(LOST)), machine(bonuses=149))


def test_actions_out_of_turn_are_refused() -> None:
    rnd, _ = open_minigame("slides", 100, slides([500] * 5, [0, 0, 0, 0]))
    for name, choice in (("collect", None), ("spin", None), ("pick", 5), ("pick", None), ("pick", -1)):
        with pytest.raises(InvalidAction):
            act(rnd, name, dealt(), choice)
    rnd = act(rnd, "pick", dealt(), 2)
    for name, choice in (("pick", 0), ("spin", None), ("fish", None), ("collect", 1)):
        with pytest.raises(InvalidAction):
            act(rnd, name, dealt(), choice)
    rnd = act(rnd, "collect_all", dealt())
    assert rnd.complete
    for name in ("collect", "play", "collect_all", "pick"):
        with pytest.raises(InvalidAction, match="complete"):
            GAME.act(rnd, Action(name=name), dealt())


# -- AUTO-PLAY and AUTO-RISK ----------------------------------------------------------------


@pytest.mark.parametrize("risk", [False, True])
def test_auto_actions_at_each_decision(risk: bool) -> None:
    settings = {"auto_advance": False, "auto_risk": risk}
    expected = {"roulette": Action(name="spin"), "fishing": Action(name="fish")}
    expected["slides"] = Action(name="pick", choice=0)  # the first platform
    tails = {"roulette": [], "fishing": [], "slides": [slides([500] * 5, [0, 0, 0, 0])]}
    for kind, action in expected.items():
        rnd, _ = open_minigame(kind, 100, *tails[kind])
        assert GAME.auto_action(rnd, settings) == action
    rnd = start(100, dealt(spin(single("PL"))))
    assert GAME.auto_action(rnd, settings) == Action(name="play" if risk else "collect_all")
    done_round = start(100, dealt(spin(LOST)))
    assert GAME.auto_action(done_round, settings) is None


# -- resume ---------------------------------------------------------------------------------


RESUMES: dict[str, tuple[Stops, list[Any], str, int | None, list[Any]]] = {
    "roulette": (TRIGGER["roulette"], [offer(100, True)], "spin", None, roulette(2, 9)),
    "fishing": (TRIGGER["fishing"], [offer(100, True)], "fish", None, fishing([800], [500, 500], [])),
    "slides": (TRIGGER["slides"], [offer(100, True), slides(SLIDES, [4, 0, 2, 1])], "pick", 3, []),
    "double": (single("BE"), [], "play", None, [double(False)]),
}


@pytest.mark.parametrize("point", RESUMES)
def test_a_round_restored_from_json_continues_identically(point: str) -> None:
    stops, more, name, choice, after = RESUMES[point]
    rnd = start(100, dealt(spin(stops), *more))
    assert rnd.state["phase"] == point
    restored = Round.model_validate_json(rnd.model_dump_json())
    assert restored == rnd
    outcomes = []
    for r in (rnd, restored):
        rng = dealt(after)
        r = act(r, name, rng, choice)
        while not r.complete:
            r = act(r, "collect_all", rng)
        assert rng.exhausted
        outcomes.append(r.model_dump())
    assert outcomes[0] == outcomes[1]


# -- the machine shared with the lower game ------------------------------------------------


def test_bonuses_won_in_the_lower_game_pay_an_upper_bet() -> None:
    s = lower.find(lambda sym: sym[1] == lower.BO, near=None)
    low = lower.GAME.start(20, lower.scripted(lower.game(s)), player_state=machine(bonuses=0))
    won = low.state["bonuses_won"]
    assert won >= 1 and low.player_state == machine(bonuses=won)
    rng = dealt(spin(LOST))
    rnd = start(100, rng, low.player_state)
    assert only(rnd, "upper_start")["bonuses_left"] == won - 1
    done(rnd, rng, 0)


def test_the_counter_filled_by_the_lower_game_gives_the_upper_game_eight_lines() -> None:
    def marked(stops: tuple[int, int, int]) -> bool:
        return sum(st in lower.D.vertical_lines[r] for r, st in enumerate(stops)) == 1

    def lost(sym: tuple[str, str, str]) -> bool:
        return lower.judge(sym)[0] == "none" and not lower.has_pair(sym)

    s = lower.find(lost, near=None, also=marked)  # a near miss draws a declined nudge offer
    low = lower.GAME.start(20, lower.scripted(lower.game(s)), player_state=machine(bonuses=1))
    assert low.player_state == machine(bonuses=1, vertical=1)
    rng = dealt(spin(COLUMN))
    rnd = start(100, rng, low.player_state)
    assert only(rnd, "upper_start")["lines"] == 8
    rnd = collect_all(rnd, PAYS["CH"])
    assert rnd.player_state == machine(bonuses=0, vertical=0)
    done(rnd, rng, PAYS["CH"])


@pytest.mark.parametrize("kind", ["roulette", "fishing", "slides"])
def test_a_game_on_eight_paylines_draws_its_own_minigame_offer(kind: str) -> None:
    """The 8-line game's offer table is its own: a draw that is a yes on 5 paylines
    (at or above the 5-line table's `no`) but below the 8-line table's `no` is refused."""
    knobs = {"5": RAW_KNOBS["minigame_offer"][0], "8": RAW_KNOBS["minigame_offer_8"][0]}
    no5, no8 = knobs["5"]["no"], knobs["8"]["no"]
    assert no5 <= no8 - 1, "the 8-line game must offer minigames less often for this test"
    total = no8 + knobs["8"]["yes"]
    stops = TRIGGER[kind]
    rng = dealt(spin(stops), (total, no8 - 1))
    rnd = start(100, rng, machine(bonuses=3, vertical=1))
    assert only(rnd, "upper_start")["lines"] == 8
    assert only(rnd, "minigame_not_offered") == event("minigame_not_offered", minigame=kind)
    done(collect_all(rnd, PAYS[judge(stops, 100, 8).wins[0][1]]), rng, PAYS[judge(stops, 100, 8).wins[0][1]])
    # The same stops on 8 paylines with the 8-line table's yes open the minigame.
    rng = dealt(spin(stops), offer(100, True, lines=8))
    if kind == "slides":
        rng = dealt(spin(stops), offer(100, True, lines=8), slides([500] * 5, [0, 0, 0, 0]))
    rnd = start(100, rng, machine(bonuses=3, vertical=1))
    assert rnd.state["phase"] == kind
