"""Los 3 Pinguinos, the lower game, through the real rules: the line (wilds, Bonuses, three of
a kind), the Disco, holds, nudges and the machine state, each forced with scripted draws (see
pinguinos_helpers.py).  The ladders, bets, bad input, restores, the AUTO decisions and the
seeded invariants are in test_pinguinos_play.py."""

from __future__ import annotations

import pytest

from pinguinos_helpers import (
    ALL,
    BO,
    FEW,
    GAME,
    SCALE,
    SEESAW,
    SP,
    WI,
    D,
    actions,
    chance,
    counts,
    done,
    events,
    fewest,
    find,
    game,
    has_pair,
    hold_offer,
    improves,
    judge,
    line,
    moved,
    near_miss,
    only,
    penguins,
    scripted,
    shows,
    types,
)
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.games.los_3_pinguinos.payline import (
    FEW_NUDGES,
    count_weights,
    evaluate,
    fewest_nudges,
    line_symbols,
    nudge_offerable,
    nudge_vectors,
)
from reelforge.rng import ScriptedRandom, SeededRandom

DIRECT = [s for s in D.pays if s not in D.blue and s not in D.yellow]  # paid at once
NONE = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}


def _no_marks(s: tuple[int, int, int]) -> bool:
    return all(stop not in D.vertical_lines[r] for r, stop in enumerate(s))


def _lost(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and not has_pair(sym)


def _paired(sym: tuple[str, str, str]) -> bool:
    return judge(sym)[0] == "none" and has_pair(sym)


def _suggested(sym: tuple[str, str, str]) -> int:
    """The pair the game holds by itself (by hand): the reels of the pair worth most, a wild
    standing in for the symbol; the Speaker's pair (the Disco) ranks above every prize."""
    pairs = []
    for a, b in ((0, 1), (1, 2), (0, 2)):
        kinds = {sym[a], sym[b]} - {WI}
        if len(kinds) == 1 and (k := kinds.pop()) in (*D.pays, SP):
            pairs.append((D.pays.get(k, SCALE[-1] + 1), (1 << a) | (1 << b)))
    return max(pairs)[1]


# -- the line: Bonuses with wilds, three of a kind ---------------------------------------


@pytest.mark.parametrize(
    ("wilds", "count"),
    [((False, False), 1), ((True, False), 2), ((False, True), 2), ((True, True), 3)],
)
def test_the_wild_joins_the_bonus_symbols(wilds: tuple[bool, bool], count: int) -> None:
    """The Bonus lands on the center reel; each wild beside it counts as one more Bonus symbol."""

    def want(sym: tuple[str, str, str]) -> bool:
        return sym[1] == BO and (sym[0] == WI, sym[2] == WI) == wilds

    s = find(want, near=None)
    rng = scripted(game(s))
    rnd = GAME.start(100, rng, player_state={"bonuses": 7, "vertical_lines": 0, "accumulators": {"100": 2}})
    bonuses = D.bonus_pays[count] * 5  # €1 = 5 units
    prize = only(rnd, "prize")
    assert (prize["kind"], prize["bonuses"], prize["credits"], prize["ladder"]) == ("bonus", bonuses, 0, None)
    assert only(rnd, "bonuses") == {"type": "bonuses", "won": bonuses, "balance": 7 + bonuses}
    assert rnd.player_state is not None
    assert rnd.player_state["bonuses"] == 7 + bonuses and rnd.player_state["accumulators"] == {"100": 2}
    assert rnd.state["bonuses_won"] == bonuses and rnd.win == 0
    done(rnd, rng)


def test_bonus_pays_rise_with_the_count_and_all_three_are_reachable() -> None:
    assert D.bonus_pays[1] < D.bonus_pays[2] < D.bonus_pays[3]
    assert {judge(line(s))[1] for s in ALL if BO in line(s)} == set(D.bonus_pays.values())


def _three(symbol: str, pattern: str) -> tuple[str, ...]:
    """The line ``pattern`` spells: X the symbol, W a wild."""
    return tuple(WI if c == "W" else symbol for c in pattern)


PATTERNS = ["XXX", "WXW", "WXX", "XXW"]
# every pattern the strips can show: a symbol carried on the center reel only pays as WI-X-WI
THREES = [(p, x) for p in PATTERNS for x in DIRECT if any(shows(*_three(x, p))(line(s)) for s in ALL)]


def test_every_direct_prize_can_land() -> None:
    """Each prize above the 3 Bells has a line on the strips that pays it (with wilds or not)."""
    assert {x for _, x in THREES} == set(DIRECT)


@pytest.mark.parametrize(("pattern", "symbol"), THREES)
def test_three_of_a_kind_with_wilds_pays_the_center_symbol(symbol: str, pattern: str) -> None:
    """Direct prizes (above the 3 Bells) are paid at once, a wild standing in on either side."""
    want = _three(symbol, pattern)
    rng = scripted(game(find(shows(*want))))  # a cash line is never a near miss: no offer draw
    rnd = GAME.start(20, rng)
    assert only(rnd, "prize")["credits"] == D.pays[symbol] > D.ladders.seesaw_above
    assert only(rnd, "prize")["ladder"] is None and types(rnd)[-2:] == ["prize", "round_end"]
    assert rnd.win == D.pays[symbol] and rnd.state["bonuses_won"] == 0
    done(rnd, rng)


def test_a_wild_with_two_different_symbols_pays_nothing() -> None:
    s = find(lambda sym: sym[0] == WI and sym[2] not in (WI, sym[1]) and sym[1] != BO, near=None)
    assert judge(line(s))[0] == "none"
    rnd = GAME.start(20, scripted(game(s), hold_offer(False) if has_pair(line(s)) else []))
    assert "prize" not in types(rnd) and rnd.win == 0


def test_a_blue_prize_with_a_wild_enters_sube_bonos() -> None:
    rng = scripted(game(find(shows(WI, "CH", "CH"))))
    rnd = GAME.start(20, rng)
    assert only(rnd, "ladder_start") == {
        "type": "ladder_start",
        "kind": "sube_bonos",
        "credits": D.pays["CH"],
    }
    assert rnd.state["ladder"] == {"kind": "sube_bonos", "level": SCALE.index(D.pays["CH"])}
    assert actions(rnd) == ["collect", "play"] and rnd.win == 0 and not rng.script


# -- the Disco ---------------------------------------------------------------------------


DISCO_LINES = [(SP, SP, SP), (WI, SP, WI)]


@pytest.mark.parametrize(
    ("prize", "expect"),
    [
        ("C40", ("ladder", 0)),
        (f"C{D.ladders.seesaw_above}", ("ladder", SEESAW)),  # the 3-Bells prize itself enters
        ("C400", ("cash", 400)),  # above it: paid
        (f"C{SCALE[-1]}", ("cash", SCALE[-1])),
        ("B3", ("bonuses", 3)),
    ],
)
@pytest.mark.parametrize("sym", DISCO_LINES)
def test_the_disco_draws_five_penguins_and_stop_draws_the_lit_one(
    sym: tuple[str, str, str], prize: str, expect: tuple[str, int]
) -> None:
    lit = 3
    shown = ["C60", "B1", "C10000", prize, "B4"]
    s = find(shows(*sym))
    marks = sum(s[r] in D.vertical_lines[r] for r in range(3))  # the line's vertical-lines signs
    rng = scripted(game(s), penguins(*shown))
    rnd = GAME.start(20, rng)
    assert only(rnd, "prize")["kind"] == "disco" and only(rnd, "disco_start")["penguins"] == shown
    assert rnd.state["phase"] == "disco" and rnd.actions == [ActionSpec(name="stop", needs_player=True)]
    assert not rng.script and rnd.win == 0
    rng = scripted(lit)  # randbelow(5): the penguin lit when PLAY stopped it
    rnd = GAME.act(rnd, Action(name="stop"), rng)
    assert only(rnd, "disco_stop") == {"type": "disco_stop", "penguin": lit, "prize": prize, "at_bet": True}
    kind, amount = expect
    if kind == "ladder":
        assert rnd.state["ladder"] == {"kind": "sube_bonos", "level": amount} and rnd.win == 0
        assert actions(rnd) == ["collect", "play"] and not rng.script
    elif kind == "cash":
        assert rnd.win == amount and rnd.state["bonuses_won"] == 0
        done(rnd, rng)
    else:
        assert rnd.state["bonuses_won"] == amount
        assert rnd.player_state == {**NONE, "bonuses": amount, "vertical_lines": marks}
        done(rnd, rng)


@pytest.mark.parametrize(
    ("bet", "prize", "expect"),
    [
        (100, "B30", ("bonuses", 30)),  # the seed's €1 Bonuses: 5-30
        (100, "C100000", ("cash", 100_000)),  # €1,000 at €1, paid at once (above 3 Bells)
        (100, "C200", ("ladder", 0)),  # €2 at €1: the scale's first prize, into Sube-Bonos
        (1500, "B50", ("bonuses", 50)),  # €15: 50-300 Bonuses, not scaled from €0.20
        (1500, "B300", ("bonuses", 300)),
        (1500, "C15000", ("ladder", SEESAW)),  # the 3-Bells prize at €15 enters Sube-Bonos
        (1500, "C30000", ("cash", 30_000)),
        (1500, "C1500000", ("cash", 1_500_000)),  # €15,000: 1,000 bets
    ],
)
def test_the_disco_at_each_bet_draws_from_that_bets_own_table(
    bet: int, prize: str, expect: tuple[str, int]
) -> None:
    rng = scripted(game(find(shows(SP, SP, SP))), penguins(*[prize] * 5, bet=bet), 0)
    rnd = GAME.start(bet, rng)
    assert only(rnd, "disco_start") == {"type": "disco_start", "penguins": [prize] * 5, "at_bet": True}
    rnd = GAME.act(rnd, Action(name="stop"), rng)
    kind, amount = expect
    if kind == "ladder":
        assert rnd.state["ladder"] == {"kind": "sube_bonos", "level": amount} and rnd.win == 0
        assert not rng.script
        return
    if kind == "cash":
        assert rnd.win == amount and rnd.state["bonuses_won"] == 0
    else:
        assert rnd.state["bonuses_won"] == amount and rnd.win == 0
    done(rnd, rng)


def test_a_disco_dealt_before_the_per_bet_tables_resumes_with_the_unit_prizes_scaled() -> None:
    """A round stored mid-Disco by an earlier version (no ``disco_at_bet`` in its state) names
    the unit bet's prizes: the stop pays them scaled, as they were shown."""
    rng = scripted(game(find(shows(SP, SP, SP))), penguins(*["B100"] * 5, bet=1500))
    rnd = GAME.start(1500, rng)
    old = rnd.model_copy(deep=True)
    old.state["disco"] = ["B2"] * 5
    del old.state["disco_at_bet"]
    rnd = GAME.act(old, Action(name="stop"), scripted(0))
    assert only(rnd, "disco_stop")["at_bet"] is False
    assert rnd.state["bonuses_won"] == 2 * 75 and rnd.win == 0


# -- holds ---------------------------------------------------------------------------


def _hold_round(sym_want=_paired, bet: int = 20, **kw) -> tuple[Round, tuple[int, int, int]]:  # type: ignore[no-untyped-def]
    s = find(sym_want, near=None, **kw)
    rng = scripted(game(s), hold_offer(True))
    rnd = GAME.start(bet, rng)
    assert not rng.script
    return rnd, s


def test_a_pair_without_prize_in_the_paid_game_draws_the_hold_offer() -> None:
    s = find(_paired, near=None)
    rng = scripted(game(s), hold_offer(False))
    rnd = GAME.start(20, rng)
    assert types(rnd)[-2:] == ["no_prize", "round_end"] and rnd.win == 0
    done(rnd, rng)
    rnd, s = _hold_round()
    mask = _suggested(line(s))
    assert only(rnd, "hold_offer") == {"type": "hold_offer", "suggested": mask}
    assert rnd.state["phase"] == "hold" and rnd.state["suggested_hold"] == mask
    assert rnd.actions == [
        ActionSpec(name="hold", choices=[0, 1, 2, 3, 4, 5, 6], default=mask, needs_player=True)
    ]
    assert rnd.status == "pending" and rnd.win == 0


def test_a_lost_line_without_a_pair_draws_no_hold_offer() -> None:
    s = find(_lost, near=None)
    rng = scripted(game(s))
    rnd = GAME.start(20, rng)
    assert "hold_offer" not in types(rnd)
    done(rnd, rng)


def test_the_suggested_hold_keeps_the_pair_and_spins_the_third_reel_free() -> None:
    def cash_pair(sym: tuple[str, str, str]) -> bool:
        return _paired(sym) and sym.count(WI) == 0 and SP not in sym

    rnd, s = _hold_round(cash_pair, bet=500)
    mask = rnd.state["suggested_hold"]
    (r,) = free = [x for x in range(3) if not mask >> x & 1]
    target = line(s)[(r + 1) % 3]  # the pair's symbol
    stops = list(s)
    stops[r] = D.strips[r].index(target)  # the free reel lands on it: three of a kind
    held = (stops[0], stops[1], stops[2])
    assert judge(line(held)) == ("cash", D.pays[target])
    rng = scripted(game(held, held=True, spinning=free))
    after = GAME.act(rnd, Action(name="hold", choice=mask), rng)
    assert only(after, "hold") == {
        "type": "hold",
        "mask": mask,
        "held": [x for x in range(3) if mask >> x & 1],
        "suggested": mask,
    }
    spin = events(after, "spin")[-1]
    assert spin["game"] == "held" and spin["spinning"] == free and spin["stops"] == list(held)
    assert after.state["held_game"] is True
    # the bet cannot change: the held game is a step of the same round, at its stake and coin
    assert (after.stake, after.coin, after.step) == (500, 25, 2)
    if after.state["phase"] == "ladder":
        after = GAME.act(after, Action(name="collect"), rng)
    assert after.win == D.pays[target] * 25
    done(after, rng)


def test_with_two_pairs_the_game_suggests_the_one_worth_most() -> None:
    def two_pairs(sym: tuple[str, str, str]) -> bool:
        return _paired(sym) and sym[0] == WI and sym[1] != sym[2] and {sym[1], sym[2]} <= set(D.pays)

    rnd, s = _hold_round(two_pairs)
    low, high = sorted((line(s)[1], line(s)[2]), key=D.pays.__getitem__)
    assert D.pays[low] < D.pays[high]
    expected = 0b011 if line(s)[1] == high else 0b101
    assert rnd.state["suggested_hold"] == expected == _suggested(line(s))


@pytest.mark.parametrize("mask", [0, 1, 2, 4, 3, 5, 6])
def test_the_player_may_hold_other_reels_or_release_them_all(mask: int) -> None:
    rnd, s = _hold_round()
    free = [r for r in range(3) if not mask >> r & 1]

    def respun(t: tuple[int, int, int]) -> bool:
        return all(t[r] != s[r] if r in free else t[r] == s[r] for r in range(3))

    new = find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=respun)
    rng = scripted(game(new, held=True, spinning=free))
    after = GAME.act(rnd, Action(name="hold", choice=mask), rng)
    spin = events(after, "spin")[-1]
    assert spin["spinning"] == free and spin["stops"] == list(new) and spin["game"] == "held"
    assert only(after, "hold")["suggested"] == rnd.state["suggested_hold"] and after.state["held_game"]
    assert "hold_offer" not in types(after)[len(rnd.events) :]  # no hold offer in the held game
    done(after, rng)


def test_a_hold_of_three_reels_is_refused() -> None:
    rnd, _ = _hold_round()
    before = rnd.model_dump_json()
    with pytest.raises(InvalidAction, match="choice from"):
        GAME.act(rnd, Action(name="hold", choice=7), scripted())
    with pytest.raises(InvalidAction, match="choice from"):
        GAME.act(rnd, Action(name="hold"), scripted())
    with pytest.raises(InvalidAction, match="not allowed now"):
        GAME.act(rnd, Action(name="play"), scripted())
    assert rnd.model_dump_json() == before


def test_no_hold_offer_in_the_held_game() -> None:
    """The held game lands another pair without prize: no hold draw, the round ends."""
    rnd, s = _hold_round()
    mask = rnd.state["suggested_hold"]
    (r,) = [x for x in range(3) if not mask >> x & 1]

    def repaired(t: tuple[int, int, int]) -> bool:
        return all(t[x] == s[x] for x in range(3) if x != r)

    held = find(_paired, near=None, held=True, also=repaired)
    rng = scripted(game(held, held=True, spinning=[r]))
    after = GAME.act(rnd, Action(name="hold", choice=mask), rng)
    assert types(after)[-2:] == ["no_prize", "round_end"] and "hold_offer" not in types(after)[3:]
    done(after, rng)


def test_a_near_miss_only_for_a_pair_offers_no_nudges_in_the_held_game() -> None:
    rnd, _ = _hold_round()

    def pair_only(t: tuple[int, int, int]) -> bool:
        return near_miss(t) and not near_miss(t, held=True)

    new = find(_lost, near=None, also=pair_only)
    rng = scripted(game(new, held=True, spinning=[0, 1, 2]))  # no offer draw
    after = GAME.act(rnd, Action(name="hold", choice=0), rng)
    assert "nudge_offer" not in types(after)
    done(after, rng)


# -- nudges --------------------------------------------------------------------------


def _to_cash(s: tuple[int, int, int], vec: tuple[int, int, int]) -> bool:
    t = moved(s, vec)
    return judge(line(t))[0] == "cash" and line(t)[1] in DIRECT


def test_a_lost_near_miss_may_offer_nudges() -> None:
    s = find(_lost, near=True)
    rng = scripted(game(s, nudges=3))
    rnd = GAME.start(20, rng)
    assert only(rnd, "nudge_offer") == {"type": "nudge_offer", "nudges": 3}
    assert rnd.state["phase"] == "nudge" and rnd.state["nudges_left"] == 3
    assert set(actions(rnd)) == {"nudge", "done"} and all(a.needs_player for a in rnd.actions)
    assert "no_prize" not in types(rnd) and not rng.script
    declined = GAME.start(20, scripted(game(s)))
    assert types(declined) == ["spin", "no_prize", "round_end"]  # offer drawn, not given


def test_a_nudge_moves_the_reel_one_stop_back_so_the_symbol_above_lands() -> None:
    s = find(lambda sym: judge(sym)[0] == "none", near=True, also=lambda t: _to_cash(t, (0, 0, 1)))
    rng = scripted(game(s, nudges=1))
    rnd = GAME.start(20, rng)
    above = only(rnd, "spin")["window"][2][0]
    assert rnd.actions[0].name == "nudge" and rnd.actions[0].default == 2  # the best move
    after = GAME.act(rnd, Action(name="nudge", choice=2), rng)
    nudge = only(after, "nudge")
    assert (nudge["reel"], nudge["from"], nudge["to"], nudge["left"]) == (2, s[2], (s[2] - 1) % 16, 0)
    assert nudge["line"][2] == above and nudge["window"][2][1] == above
    assert after.state["stops"] == [s[0], s[1], (s[2] - 1) % 16]
    # the last nudge settles the line
    assert only(after, "prize")["symbol"] == line(moved(s, (0, 0, 1)))[1]
    assert after.win == D.pays[line(moved(s, (0, 0, 1)))[1]] and "nudges_left" not in after.state
    done(after, rng)


def test_a_nudge_wraps_from_stop_0_to_stop_15() -> None:
    s = find(_lost, near=True, also=lambda t: t[0] == 0)
    rnd = GAME.start(20, scripted(game(s, nudges=2)))
    after = GAME.act(rnd, Action(name="nudge", choice=0), scripted())
    assert after.state["stops"][0] == 15 and only(after, "nudge")["to"] == 15


def test_done_stops_nudging_early_and_settles_the_line_as_it_stands() -> None:
    def ok(t: tuple[int, int, int]) -> bool:
        return _lost(line(moved(t, (1, 0, 0))))

    s = find(_lost, near=True, also=ok)
    rnd = GAME.start(20, scripted(game(s, nudges=4)))
    rnd = GAME.act(rnd, Action(name="nudge", choice=0), scripted())
    assert rnd.state["nudges_left"] == 3 and rnd.state["phase"] == "nudge"
    rng = scripted()  # a lost line without a pair: nothing more is drawn
    after = GAME.act(rnd, Action(name="done"), rng)
    assert only(after, "nudges_done") == {"type": "nudges_done", "left": 3}
    assert types(after)[-2:] == ["no_prize", "round_end"] and after.state["stops"][0] == (s[0] - 1) % 16
    done(after, rng)


def test_a_cash_win_offers_no_nudges() -> None:
    s = find(lambda sym: judge(sym)[0] == "cash", near=None)
    assert not near_miss(s)
    rng = scripted(list(s))  # the three stops, nothing else
    rnd = GAME.start(20, rng)
    assert "nudge_offer" not in types(rnd) and not rng.script


def test_after_a_bonus_win_nudges_may_turn_it_into_cash() -> None:
    """One Bonus symbol on the line, one nudge from the Orange's three (a Sube-Nada prize): the
    player may keep the Bonus or nudge it away for the cash."""

    def orange_after(t: tuple[int, int, int]) -> int | None:  # the reel whose nudge lands it
        for reel in range(3):
            after = line(moved(t, tuple(int(r == reel) for r in range(3))))
            if judge(after) == ("cash", D.pays["OR"]) and after[1] == "OR":
                return reel
        return None

    one_bonus = ("bonus", D.bonus_pays[1])
    s = find(lambda sym: judge(sym) == one_bonus, near=True, also=lambda t: orange_after(t) is not None)
    reel = orange_after(s)
    assert reel is not None and "OR" in D.yellow
    rnd = GAME.start(20, scripted(game(s, nudges=1)))
    assert "bonuses" not in types(rnd) and rnd.state["phase"] == "nudge"
    kept = GAME.act(rnd, Action(name="done"), scripted())  # the Bonus prize stands
    assert kept.state["bonuses_won"] == D.bonus_pays[1] and kept.win == 0
    done(kept)
    nudged = GAME.act(rnd, Action(name="nudge", choice=reel), scripted())
    assert only(nudged, "prize")["symbol"] == "OR" and nudged.state["bonuses_won"] == 0
    assert nudged.state["ladder"] == {"kind": "sube_nada", "level": SCALE.index(D.pays["OR"])}


def test_nudges_can_set_up_a_held_game() -> None:
    def sets_up(t: tuple[int, int, int]) -> bool:
        return _paired(line(moved(t, (1, 0, 0))))

    s = find(_lost, near=True, also=sets_up)
    rnd = GAME.start(20, scripted(game(s, nudges=1)))
    rng = scripted(hold_offer(True))
    after = GAME.act(rnd, Action(name="nudge", choice=0), rng)
    assert types(after)[-1] == "hold_offer" and after.state["phase"] == "hold"
    assert after.state["suggested_hold"] == _suggested(line(moved(s, (1, 0, 0)))) and not rng.script
    mask = after.state["suggested_hold"]
    free = [r for r in range(3) if not mask >> r & 1]
    pos = moved(s, (1, 0, 0))

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == pos[r] for r in range(3) if r not in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=keeps)
    rng = scripted(game(new, held=True, spinning=free))
    held = GAME.act(after, Action(name="hold", choice=mask), rng)
    assert events(held, "spin")[-1]["game"] == "held" and events(held, "spin")[-1]["stops"] == list(new)
    done(held, rng)


def test_the_held_game_may_offer_nudges_towards_cash() -> None:
    rnd, s = _hold_round()
    mask = rnd.state["suggested_hold"]
    free = [r for r in range(3) if not mask >> r & 1]

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == s[r] for r in range(3) if r not in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=True, held=True, also=keeps)
    rng = scripted(game(new, held=True, nudges=4, spinning=free))
    after = GAME.act(rnd, Action(name="hold", choice=mask), rng)
    assert after.state["phase"] == "nudge" and after.state["held_game"] is True and not rng.script
    assert only(after, "nudge_offer")["nudges"] == 4
    while after.state["phase"] == "nudge":  # the best nudges, as the game ranks them
        after = GAME.act(after, after.default_action(), SeededRandom(1))
    assert "hold_offer" not in types(after)[len(rnd.events) :] and "prize" in types(after)


# -- the machine state ---------------------------------------------------------------


def test_the_vertical_lines_counter_counts_marked_reels_on_the_line_and_stops_at_9() -> None:
    s = tuple(D.vertical_lines[r][0] for r in range(3))
    assert all(s[r] in D.vertical_lines[r] for r in range(3))
    for before, after in [(0, 3), (5, 8), (7, 9), (9, 9)]:
        rng = scripted(game(s), hold_offer(False) if _paired(line(s)) else [])  # type: ignore[arg-type]
        rnd = GAME.start(20, rng, player_state={**NONE, "vertical_lines": before})
        if rnd.state["phase"] == "ladder":
            rnd = GAME.act(rnd, Action(name="collect"), rng)
        assert only(rnd, "vertical_lines") == {
            "type": "vertical_lines",
            "hits": 3,
            "before": before,
            "counter": after,
        }
        assert rnd.player_state is not None and rnd.player_state["vertical_lines"] == after


def test_the_counter_counts_the_line_after_the_nudges_and_after_each_game() -> None:
    """One marked reel lands; a nudge moves it off: nothing counts.  Held games count too."""
    mark = D.vertical_lines[0][0]

    def one_mark(t: tuple[int, int, int]) -> bool:
        off = moved(t, (1, 0, 0))
        return t[0] == mark and _no_marks((0, t[1], t[2])) and _no_marks(off) and _lost(line(off))

    # offered one nudge: the line must be one nudge from an improvement (the count is drawn
    # among the counts that can improve it)
    s = find(_lost, near=True, also=lambda t: one_mark(t) and fewest(t) == 1)
    rnd = GAME.start(20, scripted(game(s, nudges=1)), player_state={**NONE, "vertical_lines": 4})
    assert "vertical_lines" not in types(rnd)  # the line has not settled yet
    after = GAME.act(rnd, Action(name="nudge", choice=0), scripted())
    assert "vertical_lines" not in types(after) and after.player_state == {**NONE, "vertical_lines": 4}
    kept = GAME.start(20, scripted(game(s)), player_state={**NONE, "vertical_lines": 4})
    assert only(kept, "vertical_lines")["hits"] == 1
    assert kept.player_state == {**NONE, "vertical_lines": 5}

    # a paid game and its held game each count their line; a marked reel held counts again
    def marked_and_held(t: tuple[int, int, int]) -> bool:
        marked = [r for r in range(3) if t[r] in D.vertical_lines[r]]
        return len(marked) == 1 and _suggested(line(t)) >> marked[0] & 1 == 1

    rnd, p = _hold_round(also=marked_and_held)
    mask = rnd.state["suggested_hold"]
    free = [r for r in range(3) if not mask >> r & 1]

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == p[r] for r in range(3) if r not in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=None, held=True, also=keeps)
    hits = sum(new[r] in D.vertical_lines[r] for r in range(3))
    assert hits >= 1  # the held marked reel is still on the line
    after = GAME.act(rnd, Action(name="hold", choice=mask), scripted(game(new, held=True, spinning=free)))
    assert [e["hits"] for e in events(after, "vertical_lines")] == [1, hits]
    assert after.player_state == {**NONE, "vertical_lines": 1 + hits}


# -- nudges: the seed's near miss ("a few more spins"), after one or two reels held ----------


class _Ranges:
    """Deals a script and records the range of every draw the rules ask for."""

    def __init__(self, rng: ScriptedRandom) -> None:
        self.rng, self.ranges = rng, []  # type: list[int]

    def randbelow(self, n: int) -> int:
        self.ranges.append(n)
        return self.rng.randbelow(n)


def test_a_held_game_spinning_every_reel_is_never_offered_nudges() -> None:
    """ "After a game played with two or one reel held": hold mask 0 spins every reel, and no
    held-game near miss it lands on draws an offer (only the three stops are drawn)."""
    rnd, _ = _hold_round()
    nears = [t for t in ALL if near_miss(t, held=True)]
    assert nears
    for new in nears:
        rng = scripted(list(new))
        after = GAME.act(rnd, Action(name="hold", choice=0), rng)
        assert "nudge_offer" not in types(after) and events(after, "spin")[-1]["stops"] == list(new)
        done(after, rng)


@pytest.mark.parametrize("mask", [1, 2, 4, "suggested"])
def test_a_held_game_with_one_or_two_reels_held_may_offer_nudges(mask: int | str) -> None:
    rnd, s = _hold_round()
    hold = rnd.state["suggested_hold"] if mask == "suggested" else mask
    assert isinstance(hold, int)
    free = [r for r in range(3) if not hold >> r & 1]

    def keeps(t: tuple[int, int, int]) -> bool:
        return all(t[r] == s[r] for r in range(3) if r not in free)

    new = find(lambda sym: judge(sym)[0] == "none", near=True, held=True, also=keeps)
    n = min(counts(new, held=True))
    rng = scripted(game(new, held=True, nudges=n, spinning=free))
    after = GAME.act(rnd, Action(name="hold", choice=hold), rng)
    assert only(after, "nudge_offer")["nudges"] == n and after.state["phase"] == "nudge" and not rng.script


def test_a_line_three_nudges_from_an_improvement_is_no_near_miss() -> None:
    s = find(_lost, near=None, also=lambda t: fewest(t) == 3 and _no_marks(t))
    o = evaluate(D, line_symbols(D, s))
    assert fewest_nudges(D, s, o, False) == 3 and not nudge_offerable(D, s, o, False)
    rng = scripted(list(s))  # the three stops: no offer draw, no hold draw
    rnd = GAME.start(20, rng)
    assert types(rnd) == ["spin", "no_prize", "round_end"]
    done(rnd, rng)


@pytest.mark.parametrize("m", [1, 2])
def test_the_count_is_drawn_among_the_counts_that_can_improve_the_line(m: int) -> None:
    s = find(_lost, near=True, also=lambda t: fewest(t) == m)
    table = {n: w for n, w in D.nudges.count.items() if n >= m}
    assert count_weights(D, m) == table
    for n in (n for n, w in table.items() if w):
        rng = _Ranges(scripted(game(s, nudges=n)))
        rnd = GAME.start(20, rng)  # type: ignore[arg-type]
        assert only(rnd, "nudge_offer")["nudges"] == n and not rng.rng.script
        offer = D.nudges.offer.yes + D.nudges.offer.no
        assert rng.ranges == [
            16,
            16,
            16,
            offer,
            sum(table.values()),
        ]  # the count drawn at the restricted total
    # the last value of the restricted total draws the largest count
    rnd = GAME.start(20, scripted(list(s), chance(D.nudges.offer, True), sum(table.values()) - 1))
    assert only(rnd, "nudge_offer")["nudges"] == max(n for n, w in table.items() if w)


@pytest.mark.parametrize("variant", GAME.variants)
def test_every_offered_count_can_improve_the_line(variant: str) -> None:
    """Over the 4,096 stops, paid and held game: every near miss is at most FEW_NUDGES from an
    improvement (the oracle's), and every count the offer can draw there reaches one: some
    vector of at most that many nudges improves the line.  The rules agree with the oracle."""
    d = GAME.data(variant)
    offers = 0
    for held in (False, True):
        for s in ALL:
            o = evaluate(d, line_symbols(d, s))
            least = fewest(s, held, d)  # the oracle's, once a stop (near_miss is least <= FEW)
            miss = least is not None and least <= FEW
            assert nudge_offerable(d, s, o, held) == miss, (s, held)
            if not miss:
                continue
            assert fewest_nudges(d, s, o, held) == least <= FEW_NUDGES
            for n, w in count_weights(d, least).items():
                if w:
                    assert any(improves(s, line(moved(s, v), d), held, d) for v in nudge_vectors(n)[1:])
                    offers += 1
    assert offers > 0
