"""Ghost of Gambini Lock & Spin and Super Lock & Spin through the real rules, with scripted
draws (see gambini_helpers.py): the frames the ghosts raise, the counter, the end's
conversion, the all-gold end, a feature popped from the base game, and the max-win cap."""

from __future__ import annotations

from gambini_helpers import (
    BET,
    GAME,
    GB,
    LARGEST,
    LS,
    SLS,
    D,
    count,
    credits_of,
    events,
    ghost,
    gold_ghosts,
    jackpot_rewind,
    only,
    prize,
    scripted,
    shot,
    size,
    toss,
    types,
    view_stops,
)
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS, Feature
from reelforge.rng import ScriptedRandom

SPIN = Action(name="spin")
EMPTY, BRONZE, SILVER, GOLD = range(4)


def _spin(rnd: Round, rng: ScriptedRandom) -> Round:
    assert rnd.actions == [ActionSpec(name="spin")] and rnd.status == "pending"
    return GAME.act(rnd, SPIN, rng)


def _record(colour: str, landed: int, before: str, frame: str, moved_to: int | None = None) -> dict:
    return {"colour": colour, "landed": landed, "moved_to": moved_to, "before": before, "frame": frame}


def test_white_ghosts_raise_a_frame_one_level_and_gold_ghosts_make_it_gold() -> None:
    rng = scripted(
        count(LS.start_ghosts, 7),
        ghost(LS, "white", 0),  # empty -> bronze
        ghost(LS, "white", 0),  # bronze -> silver
        ghost(LS, "white", 0),  # silver -> gold
        ghost(LS, "gold", 1),  # empty -> gold
        ghost(LS, "white", 2),  # empty -> bronze
        ghost(LS, "gold", 2),  # bronze -> gold
        ghost(LS, "white", 0, to=9, gold={0, 1, 2}),  # on gold: moves to a chosen open position
    )
    rnd = GAME.start(BET, rng, mode="buy-lock-spin")
    assert only(rnd, "lock_spin_start")["ghosts"] == [
        _record("white", 0, "empty", "bronze"),
        _record("white", 0, "bronze", "silver"),
        _record("white", 0, "silver", "gold"),
        _record("gold", 1, "empty", "gold"),
        _record("white", 2, "empty", "bronze"),
        _record("gold", 2, "bronze", "gold"),
        _record("white", 0, "empty", "bronze", moved_to=9),
    ]
    board = [GOLD, GOLD, GOLD] + [EMPTY] * 6 + [BRONZE] + [EMPTY] * 5
    assert rnd.state["feature"]["board"] == board and not rng.script
    # A gold ghost on a gold frame moves on too; the index runs over open positions in order.
    rng = scripted(
        count(LS.ghosts_per_spin, 2), ghost(LS, "gold", 1, to=14, gold={0, 1, 2}), ghost(LS, "white", 9)
    )
    rnd = _spin(rnd, rng)
    assert rnd.events[-1]["ghosts"] == [
        _record("gold", 1, "empty", "gold", moved_to=14),
        _record("white", 9, "bronze", "silver"),
    ]
    board[14], board[9] = GOLD, SILVER
    assert rnd.events[-1]["board"] == rnd.state["feature"]["board"] == board


def test_the_counter_resets_on_a_ghost_falls_without_one_and_the_end_converts_every_frame() -> None:
    rng = scripted(
        count(LS.start_ghosts, 4),
        ghost(LS, "white", 13),
        ghost(LS, "white", 5),
        ghost(LS, "white", 5),
        ghost(LS, "gold", 11),
    )
    rnd = GAME.start(2 * BET, rng, mode="buy-lock-spin")  # coin 2
    assert rnd.state["feature"]["counter"] == D.buy.spins == 3
    counters = []
    spins = [
        [count(LS.ghosts_per_spin, 0)],  # no ghost: 3 -> 2
        [count(LS.ghosts_per_spin, 1), *ghost(LS, "white", 2)],  # a ghost: back to 3
        [count(LS.ghosts_per_spin, 0)],  # 2
        [count(LS.ghosts_per_spin, 0)],  # 1
    ]
    for script in spins:
        rnd = _spin(rnd, scripted(script))
        counters.append(rnd.events[-1]["counter"])
        assert rnd.state["feature"]["counter"] == counters[-1] and rnd.win == 0
    assert counters == [2, 3, 2, 1]
    # The last spin (counter 1 -> 0) ends it: one draw per frame, in position order.
    end_draws = [
        prize(LS.frames.bronze, "C2"),  # position 2
        prize(LS.frames.silver, "MINOR"),  # position 5
        prize(LS.frames.gold, "GRAND"),  # position 11
        prize(LS.frames.bronze, "MINI"),  # position 13
    ]
    rng = scripted(count(LS.ghosts_per_spin, 0), end_draws)
    rnd = _spin(rnd, rng)
    assert rnd.events[-3]["counter"] == 0 and rnd.state["feature"]["played"] == 5
    credits = 80 + 25 * BET + 1000 * BET + 10 * BET  # C2, MINOR, GRAND, MINI (jackpots x bet)
    assert credits == credits_of("C2") + credits_of("MINOR") + credits_of("GRAND") + credits_of("MINI")
    assert only(rnd, "lock_spin_end") == {
        "type": "lock_spin_end",
        "super": False,
        "all_gold": False,
        "awards": [
            {"position": 2, "frame": "bronze", "prize": "C2", "credits": 80},
            {"position": 5, "frame": "silver", "prize": "MINOR", "credits": 25 * BET},
            {"position": 11, "frame": "gold", "prize": "GRAND", "credits": 1000 * BET},
            {"position": 13, "frame": "bronze", "prize": "MINI", "credits": 10 * BET},
        ],
        "credits": credits,
    }
    assert rnd.state["credits"] == credits and rnd.win == 2 * credits
    assert rnd.complete and rnd.actions == [] and rnd.step == 6
    assert types(rnd)[-2:] == ["lock_spin_end", "round_end"]


def _fill_the_board(f: Feature) -> tuple[list[int], list[list[int]]]:
    """Gold ghosts on positions 0, 1, 2, ...: the most start ghosts, then the most ghosts a
    spin can land, until every position is gold.  Returns the start's draws and each spin's;
    the last spin's count may hold more ghosts than positions left (they draw nothing)."""
    most_start, most_per_spin = max(f.start_ghosts), max(f.ghosts_per_spin)
    start = [count(f.start_ghosts, most_start), *gold_ghosts(f, range(most_start))]
    spins, p = [], most_start
    while p < N_POS:
        ghosts = range(p, min(p + most_per_spin, N_POS))
        spins.append([count(f.ghosts_per_spin, most_per_spin), *gold_ghosts(f, ghosts)])
        p = ghosts[-1] + 1
    return start, spins


def test_an_all_gold_board_ends_the_feature_at_once_with_counter_left() -> None:
    start, spins = _fill_the_board(LS)
    left_over = max(LS.ghosts_per_spin) - (N_POS - max(LS.start_ghosts)) % max(LS.ghosts_per_spin)
    assert 0 < left_over < max(LS.ghosts_per_spin), "the data changed: pick a board with ghosts left over"
    rnd = GAME.start(BET, scripted(start), mode="buy-lock-spin")
    for script in spins[:-1]:
        rnd = _spin(rnd, scripted(script))
    prizes = ["C5" if p % 2 else "C10" for p in range(N_POS)]
    end = [prize(LS.frames.gold, name) for name in prizes]
    rng = scripted(spins[-1], end)  # the left-over ghosts draw nothing: the end draws follow
    rnd = _spin(rnd, rng)
    last = events(rnd, "lock_spin")[-1]
    assert len(last["ghosts"]) == max(LS.ghosts_per_spin) - left_over
    assert last["counter"] == D.buy.spins > 0 and last["board"] == [GOLD] * N_POS
    end_event = only(rnd, "lock_spin_end")
    assert end_event["all_gold"] and [a["prize"] for a in end_event["awards"]] == prizes
    credits = 7 * 200 + 8 * 400  # 7 C5, 8 C10
    assert end_event["credits"] == rnd.state["credits"] == credits and rnd.complete
    assert not rng.script


def test_a_popped_feature_pays_on_top_of_the_base_spin_and_keeps_the_piggies() -> None:
    n = min(LS.start_ghosts)
    rng = scripted(
        shot("none"),
        view_stops({CENTER: GB, 0: "C1"}),
        jackpot_rewind(False),
        toss("both"),
        size(LARGEST, grow=True),
        size(1, grow=False),
        count(LS.start_ghosts, n),
        [v for p in range(n) for v in ghost(LS, "white", p)],
    )
    rnd = GAME.start(BET, rng, player_state={"piggies": [LARGEST, 1]})
    assert rnd.win == 40 and rnd.player_state == {"piggies": [0, 1]}
    for _ in range(2):
        rnd = _spin(rnd, scripted(count(LS.ghosts_per_spin, 0)))
        assert rnd.win == 40 and rnd.player_state == {"piggies": [0, 1]}
    rnd = _spin(rnd, scripted(count(LS.ghosts_per_spin, 0), [prize(LS.frames.bronze, "C1")] * n))
    assert only(rnd, "lock_spin_end")["credits"] == n * 40
    assert rnd.complete and rnd.win == 40 + n * 40 and rnd.player_state == {"piggies": [0, 1]}


def test_super_lock_and_spin_lands_gold_ghosts_and_its_frames_turn_into_pots() -> None:
    assert ghost(SLS, "gold", 8) == [8]  # gold only: a ghost draws where it lands, no colour
    rng = scripted(
        count(SLS.start_ghosts, 3),
        ghost(SLS, "gold", 4),
        ghost(SLS, "gold", 4, to=5, gold={4}),  # on the first's gold frame: moves on to 5
        ghost(SLS, "gold", 8),
    )
    rnd = GAME.start(BET, rng, mode="buy-super-lock-spin")
    ghosts = only(rnd, "lock_spin_start")["ghosts"]
    assert ghosts == [
        _record("gold", 4, "empty", "gold"),
        _record("gold", 4, "empty", "gold", moved_to=5),
        _record("gold", 8, "empty", "gold"),
    ]
    for _ in range(D.buy.spins - 1):
        rnd = _spin(rnd, scripted(count(SLS.ghosts_per_spin, 0)))
    pots = [prize(SLS.frames.gold, name) for name in ("MINI", "MAJOR", "MINOR")]
    rnd = _spin(rnd, scripted(count(SLS.ghosts_per_spin, 0), pots))
    awards = only(rnd, "lock_spin_end")["awards"]
    assert [(a["position"], a["prize"]) for a in awards] == [(4, "MINI"), (5, "MAJOR"), (8, "MINOR")]
    assert rnd.state["credits"] == (10 + 100 + 25) * BET and rnd.complete


def test_the_max_win_caps_the_round_and_ends_it() -> None:
    """A bought Super Lock & Spin filled with gold and turned into GRANDs pays past the cap."""
    stake = 50 * BET
    start, spins = _fill_the_board(SLS)
    rnd = GAME.start(stake, scripted(start), mode="buy-super-lock-spin")
    for script in spins[:-1]:
        rnd = _spin(rnd, scripted(script))
    rng = scripted(spins[-1], [prize(SLS.frames.gold, "GRAND")] * N_POS)
    rnd = _spin(rnd, rng)
    cap = D.game.max_win * BET
    uncapped = N_POS * D.jackpots["GRAND"] * BET
    assert uncapped > cap
    assert only(rnd, "lock_spin_end")["credits"] == uncapped
    assert only(rnd, "max_win") == {"type": "max_win", "credits": cap}
    assert types(rnd)[-3:] == ["lock_spin_end", "max_win", "round_end"]
    assert rnd.state["credits"] == cap and rnd.win == D.game.max_win * stake
    assert rnd.complete and rnd.actions == [] and not rng.script
