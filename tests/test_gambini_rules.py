"""Ghost of Gambini base game through the real rules: lines, the collection, the ghost's
coins, the magic shot, both rewinds, the piggy banks, the bought modes and bad input, each
forced with scripted draws (see gambini_helpers.py), plus seeded invariants over every mode.
Lock & Spin itself is in test_gambini_lock_spin.py."""

from __future__ import annotations

import itertools

import pytest

from gambini_helpers import (
    BET,
    BLANK,
    GAME,
    GB,
    GG,
    LARGEST,
    LS,
    SLS,
    D,
    center_rewind,
    count,
    events,
    ghost,
    ghost_coins,
    jackpot_rewind,
    nearest_above,
    only,
    scripted,
    shot,
    size,
    stop_of,
    toss,
    types,
    view_stops,
)
from reelforge.engine.game import play_default
from reelforge.engine.round import Action, ActionSpec, InvalidAction, Round
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS
from reelforge.games.ghost_of_gambini.lock_spin import LEVELS
from reelforge.games.ghost_of_gambini.piggies import InvalidPlayerState
from reelforge.money import InvalidBet
from reelforge.rng import SeededRandom

MIDDLE_ROW = (1, 4, 7, 10, 13)  # positions of row 1 (reel * 3 + 1)


def _done(rnd: Round) -> None:
    assert rnd.complete and rnd.actions == [] and rnd.state["phase"] == "done"
    assert rnd.events[-1] == {"type": "round_end", "credits": rnd.state["credits"], "win": rnd.win}


# -- lines, collection, the ghost's coins ------------------------------------------------


def test_a_plain_spin_pays_its_lines_by_the_paytable() -> None:
    """Aces along the middle row, cobwebs elsewhere: line 1 (row 1 throughout) pays 5 Aces;
    lines 36 '1 1 1 0 0' and 37 '1 1 1 2 2' pay 3; lines 16/17 '1 1 0 1 1' stop at 2."""
    view = {p: "A" for p in MIDDLE_ROW}
    rng = scripted(shot("none"), view_stops(view), center_rewind(False))
    rnd = GAME.start(2 * BET, rng)  # coin 2
    spin = only(rnd, "spin")
    assert spin["window"][2] == [BLANK, "A", BLANK] and spin["center_wild"] is None
    assert [(w["line"], w["symbol"], w["length"]) for w in spin["lines"]] == [
        (0, "A", 5),
        (35, "A", 3),
        (36, "A", 3),
    ]
    credits = D.pays["A"][5] + 2 * D.pays["A"][3]  # 200 + 25 + 25
    assert spin["line_credits"] == spin["credits"] == credits and spin["collected"] == []
    assert rnd.state["credits"] == credits and rnd.win == 2 * credits
    assert types(rnd) == ["spin", "round_end"] and rnd.step == 1
    _done(rnd)


def test_a_spin_without_wild_collects_nothing_and_leaves_the_piggies() -> None:
    view = {0: "C05", 5: "MINI", 12: "C10", CENTER: "Q"}
    rng = scripted(shot("none"), view_stops(view), center_rewind(False))
    rnd = GAME.start(BET, rng, player_state={"piggies": [3, 1]})
    spin = only(rnd, "spin")
    assert spin["collected"] == [] and spin["collect_credits"] == 0 and rnd.win == 0
    assert "piggy_toss" not in types(rnd)
    assert rnd.player_state == {"piggies": [3, 1]}
    fresh = GAME.start(BET, scripted(shot("none"), view_stops(view), center_rewind(False)))
    assert fresh.player_state == {"piggies": [0, 0]}  # new piggies are stored too
    _done(rnd)


def test_gambini_in_the_center_collects_every_coin_and_jackpot_in_view() -> None:
    view = {0: "C05", 3: "C1", 5: "MINI", 6: "MINOR", 9: "C2", 12: "C10", CENTER: GB}
    rng = scripted(shot("none"), view_stops(view), jackpot_rewind(False), toss("left"), size(0, grow=False))
    rnd = GAME.start(BET, rng)
    spin = only(rnd, "spin")
    assert spin["center_wild"] == "gambini" and spin["line_credits"] == 0
    expected = 20 + 40 + 10 * BET + 25 * BET + 80 + 400  # C05 C1 MINI MINOR C2 C10
    assert expected == sum(D.coin_values[c] for c in ("C05", "C1", "C2", "C10")) + BET * (
        D.jackpots["MINI"] + D.jackpots["MINOR"]
    )
    assert spin["collected"] == [
        {"position": p, "prizes": [s], "credits": v}
        for p, s, v in [
            (0, "C05", 20),
            (3, "C1", 40),
            (5, "MINI", 400),
            (6, "MINOR", 1000),
            (9, "C2", 80),
            (12, "C10", 400),
        ]
    ]
    assert spin["collect_credits"] == spin["credits"] == rnd.state["credits"] == expected
    assert rnd.win == expected
    _done(rnd)


def test_the_ghosts_coins_stack_on_coins_and_lie_on_symbols_without_breaking_lines() -> None:
    """Kings along the middle row through the ghost (wild) pay their lines; one ghost coin
    lands on the C05 at position 0 (both prizes, summed), one on the King at position 10."""
    view = {0: "C05", 1: "K", 4: "K", 10: "K", 13: "K", CENTER: GG}
    rng = scripted(
        shot("none"),
        view_stops(view),
        jackpot_rewind(False),
        ghost_coins(("C1", 0), ("C2", 10)),
        size(0, grow=False),  # the ghost tosses into both piggies: left, then right
        size(0, grow=False),
    )
    rnd = GAME.start(BET, rng)
    spin = only(rnd, "spin")
    assert spin["ghost_coins"] == [
        {"position": 0, "prize": "C1", "credits": 40, "on": "C05"},
        {"position": 10, "prize": "C2", "credits": 80, "on": "K"},
    ]
    assert spin["collected"] == [
        {"position": 0, "prizes": ["C05", "C1"], "credits": 20 + 40},
        {"position": 10, "prizes": ["C2"], "credits": 80},
    ]
    lines = D.pays["K"][5] + 2 * D.pays["K"][3]  # the King on position 10 still counts
    assert spin["symbols"][10] == "K" and spin["line_credits"] == lines
    assert spin["collect_credits"] == 140 and rnd.state["credits"] == lines + 140
    assert only(rnd, "piggy_toss")["into"] == ["left", "right"]
    _done(rnd)


# -- the magic shot and the rewinds --------------------------------------------------


@pytest.mark.parametrize("kind", ["gambini", "ghost"])
def test_the_magic_shot_sets_the_center_without_a_stop_draw(kind: str) -> None:
    wild = GB if kind == "gambini" else GG
    coins = ghost_coins(("C05", 2)) if kind == "ghost" else []
    tossing = [size(0, False), size(0, False)] if kind == "ghost" else [toss("right"), size(0, False)]
    rng = scripted(shot(kind), view_stops({}, shot=True), jackpot_rewind(False), coins, tossing)
    rnd = GAME.start(BET, rng)
    spin = only(rnd, "spin")
    assert spin["shot"] == kind and spin["center_wild"] == kind
    assert spin["stops"][CENTER] == D.strips[CENTER].index(wild) and spin["symbols"][CENTER] == wild
    assert spin["center_rewind"] is None and not rng.script
    _done(rnd)


def _wild_tail(symbol: str) -> list[int]:
    """What a spin draws after its center turned wild, on a board of cobwebs."""
    if symbol == GG:
        return [jackpot_rewind(False), *ghost_coins(("C05", 0)), size(0, False), size(0, False)]
    return [jackpot_rewind(False), toss("left"), size(0, False)]


@pytest.mark.parametrize("start", ["after_the_first_wild", "wrapping_from_stop_0"])
def test_the_center_rewind_moves_back_to_the_nearest_wild(start: str) -> None:
    strip = D.strips[CENTER]
    first_wild = min(strip.index(GB), strip.index(GG))
    stop = first_wild + 3 if start == "after_the_first_wild" else 0
    assert strip[stop] not in (GB, GG)
    to = nearest_above(CENTER, stop, {GB, GG})
    view = {CENTER: strip[stop]}
    stops = view_stops(view)
    stops[CENTER] = stop
    rng = scripted(shot("none"), stops, center_rewind(True), _wild_tail(strip[to]))
    rnd = GAME.start(BET, rng)
    spin = only(rnd, "spin")
    distance = (stop - to) % len(strip)
    if start == "after_the_first_wild":
        assert to == first_wild and distance == 3
    else:
        assert to > stop and distance == len(strip) - to  # wrapped to the strip's last wild
    assert spin["center_rewind"] == {"from": stop, "to": to, "distance": distance}
    assert spin["stops"][CENTER] == to and spin["symbols"][CENTER] == strip[to]
    assert spin["center_wild"] == ("gambini" if strip[to] == GB else "ghost")
    assert not rng.script


def test_the_jackpot_rewind_turns_a_blank_into_the_nearest_jackpot_above() -> None:
    """Position 6's strip holds the MINOR; its first cobweb below the MINOR rewinds to it."""
    p = 6
    minor = stop_of(p, "MINOR")
    blank_stop = stop_of(p, BLANK, after=minor)
    assert nearest_above(p, blank_stop, D.jackpots) == minor
    view = {CENTER: GB, 0: "C1"}  # every other outer position shows a cobweb
    stops = view_stops(view)
    stops[p] = blank_stop
    blanks = [q for q in range(N_POS) if q not in view]  # in position order
    rng = scripted(shot("none"), stops, jackpot_rewind(True), blanks.index(p), toss("left"), size(0, False))
    rnd = GAME.start(BET, rng)
    spin = only(rnd, "spin")
    assert spin["jackpot_rewind"] == {
        "position": p,
        "from": blank_stop,
        "to": minor,
        "distance": blank_stop - minor,
        "jackpot": "MINOR",
    }
    assert spin["stops"][p] == minor and spin["symbols"][p] == "MINOR"
    assert spin["collected"] == [
        {"position": 0, "prizes": ["C1"], "credits": 40},
        {"position": p, "prizes": ["MINOR"], "credits": D.jackpots["MINOR"] * BET},
    ]
    assert rnd.state["credits"] == 40 + 25 * BET
    _done(rnd)


# -- the piggy banks ---------------------------------------------------------------


def _gambini_spin() -> list[int]:
    """A base spin with Gambini in the center on cobwebs: nothing won, a toss to come."""
    return [shot("none"), *view_stops({CENTER: GB}), jackpot_rewind(False)]


def test_gambini_tosses_into_one_piggy_that_grows() -> None:
    rng = scripted(_gambini_spin(), toss("right"), size(2, grow=True))
    rnd = GAME.start(BET, rng, player_state={"piggies": [1, 2]})
    assert only(rnd, "piggy_toss") == {
        "type": "piggy_toss",
        "by": "gambini",
        "into": ["right"],
        "grew": [True],
        "before": [1, 2],
        "sizes": [1, 3],
        "popped": [],
    }
    assert rnd.player_state == {"piggies": [1, 3]}
    _done(rnd)


def test_gambini_tosses_into_both_piggies_left_first() -> None:
    rng = scripted(_gambini_spin(), toss("both"), size(1, grow=False), size(2, grow=True))
    rnd = GAME.start(BET, rng, player_state={"piggies": [1, 2]})
    event = only(rnd, "piggy_toss")
    assert event["into"] == ["left", "right"] and event["grew"] == [False, True]
    assert rnd.player_state == {"piggies": [1, 3]}
    _done(rnd)


def _lock_spin_start(f, ghosts: int) -> list[int]:
    """Start ghosts, each a white (or, in Super, gold) ghost on its own position."""
    colour = "gold" if f.gold_only else "white"
    return [count(f.start_ghosts, ghosts), *(v for p in range(ghosts) for v in ghost(f, colour, p))]


def test_one_popping_piggy_starts_lock_and_spin_with_3_spins() -> None:
    n = min(LS.start_ghosts)
    rng = scripted(_gambini_spin(), toss("left"), size(LARGEST, grow=True), _lock_spin_start(LS, n))
    rnd = GAME.start(BET, rng, player_state={"piggies": [LARGEST, 2]})
    assert only(rnd, "piggy_toss")["popped"] == ["left"]
    assert rnd.player_state == {"piggies": [0, 2]}  # the popped piggy is back at 0
    start = only(rnd, "lock_spin_start")
    assert (start["super"], start["spins"], start["bought"]) == (False, 3, False)
    assert [g["frame"] for g in start["ghosts"]] == ["bronze"] * n
    assert rnd.state["feature"] == {
        "super": False,
        "spins": 3,
        "counter": 3,
        "played": 0,
        "board": [1] * n + [0] * (N_POS - n),
    }
    assert rnd.status == "pending" and rnd.actions == [ActionSpec(name="spin")] and rnd.win == 0


def test_both_piggies_popping_start_lock_and_spin_with_4_spins() -> None:
    n = min(LS.start_ghosts)
    rng = scripted(
        _gambini_spin(), toss("both"), size(LARGEST, True), size(LARGEST, True), _lock_spin_start(LS, n)
    )
    rnd = GAME.start(BET, rng, player_state={"piggies": [LARGEST, LARGEST]})
    assert only(rnd, "piggy_toss")["popped"] == ["left", "right"]
    assert rnd.player_state == {"piggies": [0, 0]}
    assert only(rnd, "lock_spin_start")["spins"] == 4 and rnd.state["feature"]["counter"] == 4


def test_the_ghost_popping_a_piggy_starts_super_lock_and_spin_with_gold_ghosts_only() -> None:
    n = min(SLS.start_ghosts)
    rng = scripted(
        shot("none"),
        view_stops({CENTER: GG}),
        jackpot_rewind(False),
        ghost_coins(("C05", 0)),
        size(1, grow=False),
        size(LARGEST, grow=True),
        _lock_spin_start(SLS, n),  # one position draw per ghost: no colour draw
    )
    rnd = GAME.start(BET, rng, player_state={"piggies": [1, LARGEST]})
    assert only(rnd, "piggy_toss")["by"] == "ghost" and rnd.player_state == {"piggies": [1, 0]}
    start = only(rnd, "lock_spin_start")
    assert start["super"] and start["spins"] == 3
    assert all(g["colour"] == "gold" and g["frame"] == "gold" for g in start["ghosts"])
    assert rnd.state["feature"]["board"] == [3] * n + [0] * (N_POS - n)
    assert rnd.win == 20 * rnd.coin  # the ghost's coin, paid before the feature


@pytest.mark.parametrize(
    "state",
    [
        {"piggies": [LARGEST + 1, 0]},
        {"piggies": [-1, 0]},
        {"piggies": [0]},
        {"piggies": [0, 0, 0]},
        {"piggies": (0, 0)},
        {"piggies": [0, True]},
        {"piggies": [0, 1.0]},
        {"piggies": [0, 0], "meter": 3},
        {"coins": 3},
        ["piggies"],
    ],
)
def test_bad_player_state_is_rejected_before_any_draw(state) -> None:
    with pytest.raises(InvalidPlayerState, match="player_state"):
        GAME.start(BET, scripted(), player_state=state)


@pytest.mark.parametrize("state", [None, {}])
def test_no_stored_state_means_two_new_piggies(state) -> None:
    rng = scripted(_gambini_spin(), toss("left"), size(0, grow=True))
    assert GAME.start(BET, rng, player_state=state).player_state == {"piggies": [1, 0]}


# -- bought features, costs and state keys ----------------------------------------


@pytest.mark.parametrize(
    ("mode", "times", "super_"), [("buy-lock-spin", 100, False), ("buy-super-lock-spin", 200, True)]
)
def test_a_bought_feature_debits_its_price_and_opens_the_feature(mode, times, super_) -> None:
    assert times == (D.buy.super_lock_spin if super_ else D.buy.lock_spin)
    f = SLS if super_ else LS
    for stake in (BET, 50 * BET):
        rng = scripted(_lock_spin_start(f, min(f.start_ghosts)))
        rnd = GAME.start(stake, rng, mode=mode, player_state={"piggies": [LARGEST, LARGEST]})
        assert rnd.stake == times * stake == GAME.cost(stake, mode)
        assert rnd.events[0] == {"type": "buy", "feature": "super_lock_spin" if super_ else "lock_spin"}
        start = only(rnd, "lock_spin_start")
        assert (start["super"], start["bought"], start["spins"]) == (super_, True, D.buy.spins)
        assert rnd.state["feature"]["counter"] == D.buy.spins
        assert rnd.player_state is None  # the piggies are neither read nor touched
        assert rnd.actions == [ActionSpec(name="spin")] and rnd.win == 0
        assert GAME.state_key(stake, mode) is None


def test_costs_and_state_keys_per_bet_level() -> None:
    for level in GAME.bet_levels():
        assert GAME.cost(level.stake) == level.stake == level.coin * BET
        assert GAME.cost(level.stake, "buy-lock-spin") == 100 * level.stake
        assert GAME.cost(level.stake, "buy-super-lock-spin") == 200 * level.stake
        assert GAME.state_key(level.stake) == f"stake:{level.stake}"
    assert GAME.state_key(40) != GAME.state_key(80)  # two piggy banks per bet level
    for bad in (GAME.cost, GAME.state_key):
        with pytest.raises(InvalidBet, match="not offered"):
            bad(41)
        with pytest.raises(InvalidBet, match="mode"):
            bad(40, "free-spins")


# -- bad input, immutability and JSON --------------------------------------------------


def test_bad_stakes_and_modes_are_refused() -> None:
    for stake in (0, 39, 41, -40, 40.0, True):
        with pytest.raises(InvalidBet):
            GAME.start(stake, scripted())
    with pytest.raises(InvalidBet, match="mode"):
        GAME.start(40, scripted(), mode="buy")
    with pytest.raises(InvalidBet, match="variant"):
        GAME.start(40, scripted(), variant="99.00")


def _pending_feature() -> Round:
    rnd = GAME.start(BET, scripted(_lock_spin_start(LS, min(LS.start_ghosts))), mode="buy-lock-spin")
    assert not rnd.complete
    return rnd


def test_actions_not_allowed_are_refused_and_act_never_mutates_its_input() -> None:
    rnd = _pending_feature()
    before = rnd.model_dump_json()
    for bad in (Action(name="pick"), Action(name="spin", choice=1), Action(name="gamble")):
        with pytest.raises(InvalidAction):
            GAME.act(rnd, bad, scripted())
    foreign = rnd.model_copy(update={"game": "reign-of-gnomes"})
    with pytest.raises(InvalidAction, match="reign-of-gnomes"):
        GAME.act(foreign, Action(name="spin"), scripted())
    nxt = GAME.act(rnd, Action(name="spin"), scripted(count(LS.ghosts_per_spin, 0)))
    assert rnd.model_dump_json() == before
    assert nxt.step == rnd.step + 1 and nxt.state["feature"]["counter"] == 2
    assert rnd.state["feature"]["counter"] == 3


def test_acting_on_a_complete_round_is_refused() -> None:
    done = GAME.start(BET, scripted(_gambini_spin(), toss("left"), size(0, False)))
    with pytest.raises(InvalidAction, match="complete"):
        GAME.act(done, Action(name="spin"), scripted())


def test_a_round_restored_from_json_mid_feature_continues_identically() -> None:
    """A base round popping into Lock & Spin, stored after each step, plays out the same."""
    n = min(LS.start_ghosts)
    rng = scripted(_gambini_spin(), toss("left"), size(LARGEST, grow=True), _lock_spin_start(LS, n))
    first = GAME.start(BET, rng, player_state={"piggies": [LARGEST, 0]})
    rnd = first
    while not rnd.complete:
        restored = Round.model_validate_json(rnd.model_dump_json())
        assert restored == rnd
        a = play_default(GAME, rnd, SeededRandom(rnd.step))
        b = play_default(GAME, restored, SeededRandom(rnd.step))
        assert a == b and a.complete
        rnd = GAME.act(rnd, Action(name="spin"), SeededRandom(100 + rnd.step))
    assert rnd.player_state == first.player_state == {"piggies": [0, 0]}


# -- seeded invariants over every mode ---------------------------------------------


def _check_feature(rnd: Round) -> None:
    start = only(rnd, "lock_spin_start")
    spins = [e for e in rnd.events if e["type"] == "lock_spin"]
    boards = [start["board"], *(e["board"] for e in spins)]
    for before, after in itertools.pairwise(boards):
        assert all(a >= b for a, b in zip(after, before, strict=True)), "a frame fell"
    for e in [start, *spins]:
        for g in e["ghosts"]:  # a white ghost raises its frame one level, a gold one to gold
            up = LEVELS.index(g["before"]) + 1 if g["colour"] == "white" else 3
            assert g["before"] != "gold" and LEVELS.index(g["frame"]) == up
            assert g["colour"] == "gold" or not start["super"]
    end = events(rnd, "lock_spin_end")
    if not end:  # only the max-win cap ends a round without its feature's end
        assert "max_win" in types(rnd)
        return
    last = boards[-1]
    assert (spins and spins[-1]["counter"] == 0) or all(f == 3 for f in last)
    assert end[0]["all_gold"] == all(f == 3 for f in last)
    assert [a["position"] for a in end[0]["awards"]] == [p for p in range(N_POS) if last[p]]
    assert all(0 <= e["counter"] <= start["spins"] for e in spins)


def test_seeded_rounds_keep_every_invariant() -> None:
    cap = D.game.max_win * BET
    features = 0
    for mode, rounds in (("base", 3000), ("buy-lock-spin", 400), ("buy-super-lock-spin", 400)):
        rng = SeededRandom(2024)
        state = None
        for i in range(rounds):
            stake = GAME.bet_levels()[i % len(GAME.bet_levels())].stake
            rnd = play_default(GAME, GAME.start(stake, rng, mode=mode, player_state=state), rng)
            credits = rnd.state["credits"]
            assert rnd.complete and rnd.win == credits * rnd.coin and 0 <= credits <= cap
            assert rnd.stake == GAME.cost(stake, mode)
            assert ("max_win" in types(rnd)) == (credits == cap)
            paid = sum(e["credits"] for e in events(rnd, "spin")) + sum(
                e["credits"] for e in events(rnd, "lock_spin_end")
            )
            assert credits == min(paid, cap)
            if mode == "base":
                sizes = rnd.player_state["piggies"]
                assert all(0 <= s <= LARGEST for s in sizes)
                state = rnd.player_state  # one bet level's piggies carried on, across stakes
            else:
                assert rnd.player_state is None and events(rnd, "spin") == []
            if "lock_spin_start" in types(rnd):
                features += 1
                _check_feature(rnd)
            _done(rnd)
    assert features > 800  # every bought round plus the base game's pops
