"""Test Meter, the test-only game: persistent meter, hold, gamble ladder, exact RTP."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from reelforge.engine.datafile import DataFileError
from reelforge.engine.game import play_default
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.games import registry
from reelforge.games.test_meter import TestMeter
from reelforge.games.test_meter.data_model import MeterData, parse
from reelforge.games.test_meter.exact import best_hold_policy, exact_rtp
from reelforge.games.test_meter.rules import DATA_DIR, InvalidPlayerState
from reelforge.money import InvalidBet
from reelforge.rng import RecordingRandom, ReplayRandom, ScriptedRandom, SeededRandom

DOC = Path(__file__).resolve().parents[1] / "docs" / "games" / "test-meter.md"

COLLECT = Action(name="collect")
GAMBLE = Action(name="gamble")


def hold(mask: int) -> Action:
    return Action(name="hold", choice=mask)


@pytest.fixture(scope="module")
def game() -> TestMeter:
    return TestMeter()


@pytest.fixture(scope="module")
def d(game: TestMeter) -> MeterData:
    return game.data()


def stop_of(strip: tuple[str, ...], symbol: str) -> int:
    return strip.index(symbol)


def winning_stops(d: MeterData, symbol: str = "A") -> list[int]:
    return [stop_of(strip, symbol) for strip in d.strips]


def losing_stops(d: MeterData) -> list[int]:
    """Three blanks: a losing window (the blank pays nothing, even three of a kind)."""
    assert "X" not in d.pays
    return [stop_of(strip, "X") for strip in d.strips]


def scripted(values: list[int], seed: int = 0) -> ScriptedRandom:
    return ScriptedRandom(values, SeededRandom(seed))


# -- the meter -------------------------------------------------------------------------


def test_meter_counts_pays_the_bonus_and_resets(game: TestMeter, d: MeterData) -> None:
    size, bonus = d.meter.size, d.meter.bonus
    state = None
    rng = SeededRandom(11)
    seen = []
    for i in range(2 * size + 1):
        rnd = game.start(20, rng, player_state=state)
        meter_event = rnd.events[0]
        assert meter_event["type"] == "meter"
        assert meter_event["previous"] == i % size
        filled = (i + 1) % size == 0
        assert meter_event["filled"] is filled
        assert meter_event["bonus"] == (bonus if filled else 0)
        assert rnd.state["bonus_credits"] == meter_event["bonus"]
        assert rnd.win >= rnd.state["bonus_credits"] * rnd.coin
        assert rnd.player_state == {"meter": meter_event["value"]}
        # Every round the game returns carries the updated state, to the last step.
        while not rnd.complete:
            rnd = game.act(rnd, rnd.default_action(), rng)
            assert rnd.player_state == {"meter": meter_event["value"]}
        assert rnd.events[-1]["bonus_credits"] == meter_event["bonus"]
        seen.append(rnd.player_state["meter"])
        state = rnd.player_state
    assert seen == [(i + 1) % size for i in range(2 * size + 1)]


def test_empty_state_is_a_zero_meter_and_bad_state_is_refused(game: TestMeter, d: MeterData) -> None:
    for empty in (None, {}):
        rnd = game.start(10, SeededRandom(1), player_state=empty)
        assert rnd.events[0]["previous"] == 0 and rnd.player_state == {"meter": 1}
    full = game.start(10, SeededRandom(1), player_state={"meter": d.meter.size - 1})
    assert full.player_state == {"meter": 0} and full.state["bonus_credits"] == d.meter.bonus
    for bad in ({"meter": -1}, {"meter": d.meter.size}, {"meter": "2"}, {"meter": True}, {"metre": 1}):
        with pytest.raises(InvalidPlayerState):
            game.start(10, SeededRandom(1), player_state=bad)


def test_one_meter_per_bet_level(game: TestMeter) -> None:
    stakes = [b.stake for b in game.bet_levels()]
    assert stakes == [10, 20, 50]
    keys = [game.state_key(s) for s in stakes]
    assert keys == ["stake:10", "stake:20", "stake:50"]
    with pytest.raises(InvalidBet):
        game.state_key(15)
    with pytest.raises(InvalidBet):
        game.state_key(10, mode="bonus")


def test_meter_bonus_is_paid_when_the_gamble_is_lost(game: TestMeter, d: MeterData) -> None:
    rnd = game.start(50, scripted(winning_stops(d)), player_state={"meter": d.meter.size - 1})
    assert rnd.win == (d.meter.bonus + d.pays["A"]) * 5
    lost = game.act(rnd, GAMBLE, scripted([0]))
    assert lost.complete and lost.win == d.meter.bonus * 5
    assert lost.events[-2] == {"type": "gamble", "rung": 1, "draw": 0, "result": "lose", "credits": 0}


# -- hold ------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", range(7))
def test_hold_respins_only_the_reels_not_held(game: TestMeter, d: MeterData, mask: int) -> None:
    first = losing_stops(d)
    rnd = game.start(10, scripted(first))
    assert rnd.state["line_credits"] == 0
    [spec] = rnd.actions
    assert spec.name == "hold" and spec.choices == list(range(7)) and spec.default == 0 and spec.needs_player
    rec = RecordingRandom(SeededRandom(mask))
    after = game.act(rnd, hold(mask), rec)
    not_held = [r for r in range(3) if not mask >> r & 1]
    assert [n for n, _ in rec.draws] == [len(d.strips[r]) for r in not_held]
    stops = after.state["stops"]
    for r in range(3):
        if mask >> r & 1:
            assert stops[r] == first[r]
    assert [stops[r] for r in not_held] == [v for _, v in rec.draws]
    hold_event, spin = after.events[2], after.events[3]
    assert hold_event == {"type": "hold", "mask": mask, "held": [r for r in range(3) if mask >> r & 1]}
    assert spin["reels"] == "respin" and spin["stops"] == stops
    assert spin["window"] == [[d.strips[r][stops[r]]] for r in range(3)]


def test_a_winning_respin_opens_the_ladder_a_losing_one_ends(game: TestMeter, d: MeterData) -> None:
    first = losing_stops(d)
    rnd = game.start(10, scripted(first))
    win_stops = winning_stops(d, "B")
    won = game.act(rnd, hold(0), scripted(win_stops))
    assert not won.complete and won.state["line_credits"] == d.pays["B"]
    assert [a.name for a in won.actions] == ["collect", "gamble"]
    assert won.win == (d.pays["B"] + won.state["bonus_credits"]) * won.coin
    lost = game.act(rnd, hold(0), scripted(first))
    assert lost.complete and lost.state["line_credits"] == 0
    assert lost.events[-1]["type"] == "round_end"


def test_holding_all_three_is_not_allowed(game: TestMeter, d: MeterData) -> None:
    rnd = game.start(10, scripted(losing_stops(d)))
    with pytest.raises(InvalidAction):
        game.act(rnd, hold(7), SeededRandom(0))


# -- the gamble ladder -----------------------------------------------------------------


def test_gamble_doubles_and_the_top_rung_collects(game: TestMeter, d: MeterData) -> None:
    rnd = game.start(20, scripted(winning_stops(d)))
    pay = d.pays["A"]
    assert [a.name for a in rnd.actions] == ["collect", "gamble"]
    assert rnd.default_action() == COLLECT
    assert all(a.needs_player for a in rnd.actions)
    for rung in range(1, d.gamble.max_gambles + 1):
        rnd = game.act(rnd, GAMBLE, scripted([1]))
        assert rnd.state["line_credits"] == pay * 2**rung
        assert rnd.win == pay * 2**rung * 2
        event = next(e for e in rnd.events if e["type"] == "gamble" and e["rung"] == rung)
        assert event["result"] == "win" and event["credits"] == pay * 2**rung
        if rung < d.gamble.max_gambles:
            assert not rnd.complete
    assert rnd.complete
    assert rnd.events[-2] == {"type": "collect", "credits": pay * 2**d.gamble.max_gambles, "automatic": True}
    assert rnd.events[-1]["win"] == rnd.win


def test_gamble_loss_zeroes_and_collect_ends(game: TestMeter, d: MeterData) -> None:
    rnd = game.start(10, scripted(winning_stops(d, "C")))
    once = game.act(rnd, GAMBLE, scripted([1]))
    lost = game.act(once, GAMBLE, scripted([0]))
    assert lost.complete and lost.win == 0 and lost.state["line_credits"] == 0
    kept = game.act(once, COLLECT, SeededRandom(0))
    assert kept.complete and kept.win == 2 * d.pays["C"]
    assert kept.events[-2] == {"type": "collect", "credits": 2 * d.pays["C"], "automatic": False}


def test_no_ladder_collects_at_once(d: MeterData) -> None:
    no_gamble = TestMeter(MeterData.model_validate({**d.model_dump(), "gamble": {"max_gambles": 0}}))
    rnd = no_gamble.start(10, scripted(winning_stops(d)))
    assert rnd.complete and rnd.win == d.pays["A"]


# -- default play, JSON, replay --------------------------------------------------------


def test_default_play_needs_nothing_but_default_actions(game: TestMeter) -> None:
    rng = SeededRandom(5)
    state = None
    for _ in range(300):
        rnd = game.start(10, rng, player_state=state)
        while not rnd.complete:
            action = rnd.default_action()
            assert action in (hold(0), COLLECT)
            rnd = game.act(rnd, action, rng)
        state = rnd.player_state
        again = play_default(game, game.start(10, SeededRandom(1)), SeededRandom(2))
        assert again.complete


def _random_play(game: TestMeter, seed: int, state: dict | None) -> tuple[list[Round], list, list[Action]]:
    """A round with random choices; every step round-trips through JSON before it continues."""
    chooser = np.random.default_rng(seed)
    rec = RecordingRandom(SeededRandom(seed))
    stake = [10, 20, 50][seed % 3]
    steps = [game.start(stake, rec, player_state=state)]
    actions: list[Action] = []
    while not steps[-1].complete:
        stored = json.loads(steps[-1].model_dump_json())  # what the server keeps
        rebuilt = Round.model_validate_json(json.dumps(stored))
        assert rebuilt == steps[-1]
        spec = rebuilt.actions[int(chooser.integers(len(rebuilt.actions)))]
        choice = None if spec.choices is None else int(chooser.choice(spec.choices))
        action = Action(name=spec.name, choice=choice)
        actions.append(action)
        steps.append(game.act(rebuilt, action, rec))
    assert Round.model_validate_json(steps[-1].model_dump_json()) == steps[-1]
    return steps, rec.draws, actions


def test_every_step_round_trips_json_and_replays_identically(game: TestMeter) -> None:
    state = None
    kinds: set[str] = set()
    for seed in range(200):
        steps, draws, actions = _random_play(game, seed, state)
        kinds |= {e["type"] for s in steps for e in s.events}
        replay = ReplayRandom(draws)
        again = [game.start(steps[0].stake, replay, player_state=state)]
        for action in actions:
            again.append(game.act(Round.model_validate_json(again[-1].model_dump_json()), action, replay))
        assert again == steps
        assert replay.exhausted
        assert [s.step for s in steps] == list(range(1, len(steps) + 1))
        state = steps[-1].player_state
    assert kinds == {"meter", "spin", "hold", "gamble", "collect", "round_end"}


def test_public_view_hides_nothing_it_needs(game: TestMeter) -> None:
    rnd = game.start(10, SeededRandom(3))
    assert rnd.public_view()["state"] == rnd.state  # no hidden state in this game
    assert rnd.public_view()["player_state"] == rnd.player_state


# -- bad input -------------------------------------------------------------------------


def test_bad_stakes_variants_and_modes_are_refused(game: TestMeter) -> None:
    for kwargs in ({"stake": 15}, {"stake": 0}, {"stake": 10.0}, {"stake": True}):
        with pytest.raises(InvalidBet):
            game.start(kwargs["stake"], SeededRandom(0))  # type: ignore[arg-type]
    with pytest.raises(InvalidBet):
        game.start(10, SeededRandom(0), variant="nope")
    with pytest.raises(InvalidBet):
        game.start(10, SeededRandom(0), mode="bonus")
    with pytest.raises(InvalidBet):
        game.exact(mode="bonus")
    rec = RecordingRandom(SeededRandom(0))
    with pytest.raises(InvalidBet):
        game.start(15, rec)
    assert rec.draws == []  # refused before any draw


def test_bad_actions_are_refused_and_leave_the_round_unchanged(game: TestMeter, d: MeterData) -> None:
    at_hold = game.start(10, scripted(losing_stops(d)))
    at_ladder = game.start(10, scripted(winning_stops(d)))
    done = game.act(at_ladder, COLLECT, SeededRandom(0))
    cases = [
        (at_hold, GAMBLE),
        (at_hold, COLLECT),
        (at_hold, Action(name="hold")),
        (at_hold, hold(7)),
        (at_hold, hold(-1)),
        (at_ladder, hold(0)),
        (at_ladder, Action(name="gamble", choice=1)),
        (at_ladder, Action(name="spin")),
        (done, COLLECT),
    ]
    for rnd, action in cases:
        before = rnd.model_dump_json()
        rec = RecordingRandom(SeededRandom(0))
        with pytest.raises(InvalidAction):
            game.act(rnd, action, rec)
        assert rnd.model_dump_json() == before and rec.draws == []
    # Legal actions do not touch the round passed in either.
    for rnd, action in ((at_hold, hold(3)), (at_ladder, GAMBLE), (at_ladder, COLLECT)):
        before = rnd.model_dump_json()
        game.act(rnd, action, SeededRandom(1))
        assert rnd.model_dump_json() == before


def test_a_data_file_error_names_the_field(d: MeterData) -> None:
    raw = d.model_dump()
    bad = [
        ({**raw, "meter": {"size": 0, "bonus": 5}}, "meter.size"),
        ({**raw, "gamble": {"max_gambles": -1}}, "gamble.max_gambles"),
        ({**raw, "pays": {**raw["pays"], "Z": 5}}, "pays.Z"),
        ({**raw, "reels": {"strips": ["A B", "A B"]}}, "reels.strips"),
        ({**raw, "reels": {"strips": ["A B", "A Q", "A B"]}}, "reel 2"),
        ({**raw, "wild": "A"}, "wild"),
        ({**raw, "game": {**raw["game"], "coins": [2, 1]}}, "coins"),
    ]
    for content, field in bad:
        with pytest.raises(DataFileError, match=re.escape(field)):
            parse(content, "test-meter.toml")


# -- math ------------------------------------------------------------------------------


def _brute_force(d: MeterData) -> tuple[Fraction, Fraction]:
    """Line credits per round by walking every stop: (default play, best hold)."""
    strips = d.strips
    sizes = [len(s) for s in strips]
    total_default = total_best = Fraction(0)
    for first in product(*(range(n) for n in sizes)):
        pay = d.pay([strips[r][first[r]] for r in range(3)])
        if pay:
            total_default += pay
            total_best += pay
            continue
        per_mask = []
        for mask in range(7):
            ranges = [[first[r]] if mask >> r & 1 else range(sizes[r]) for r in range(3)]
            won = sum(d.pay([strips[r][stops[r]] for r in range(3)]) for stops in product(*ranges))
            per_mask.append(Fraction(won, math.prod(len(x) for x in ranges)))
        total_default += per_mask[0]
        total_best += max(per_mask)
    combos = math.prod(sizes)
    return total_default / combos, total_best / combos


def test_exact_matches_brute_force_enumeration(game: TestMeter, d: MeterData) -> None:
    default_line, best_line = _brute_force(d)
    result = exact_rtp(d)
    meter = Fraction(d.meter.bonus, d.meter.size)
    assert result.rtp == (default_line + meter) / d.game.credits
    assert result.rtp_best_hold == (best_line + meter) / d.game.credits
    exact = game.exact()
    assert exact["rtp"] == float(result.rtp) and exact["rtp_best_hold"] == float(result.rtp_best_hold)
    assert exact["method"] == "exact" and exact["game"] == "test-meter" and exact["variant"] == "test"
    assert sum(exact["components"].values()) == pytest.approx(exact["rtp"], abs=1e-15)


def test_the_rules_pay_what_the_enumeration_counts(game: TestMeter, d: MeterData) -> None:
    """Every first spin through the rules, then the best hold on each losing one with the
    free reels forced to some other stops: the rules show and pay those windows."""
    policy = best_hold_policy(d)
    sizes = [len(s) for s in d.strips]
    for first in product(*(range(n) for n in sizes)):
        replay = ReplayRandom(list(zip(sizes, first, strict=True)))
        rnd = game.start(10, replay)
        assert replay.exhausted
        window = tuple(d.strips[r][first[r]] for r in range(3))
        assert rnd.events[1]["window"] == [[s] for s in window]
        assert rnd.state["line_credits"] == d.pay(window)
        if rnd.state["line_credits"]:
            continue
        mask = policy[window]
        free = [r for r in range(3) if not mask >> r & 1]
        stops = list(first)
        for r in free:
            stops[r] = (first[r] + r + 1) % sizes[r]
        replay = ReplayRandom([(sizes[r], stops[r]) for r in free])
        after = game.act(rnd, hold(mask), replay)
        assert replay.exhausted and after.state["stops"] == stops
        assert after.state["line_credits"] == d.pay([d.strips[r][stops[r]] for r in range(3)])


def test_exact_agrees_with_a_seeded_simulation(game: TestMeter) -> None:
    exact = game.exact()
    sim = game.simulate_chunk(200_000, np.random.SeedSequence(20240611))
    summary = sim.summary()
    # At 200,000 rounds (SD 2.33 stakes) the RTP interval is +-1.34 points, an error of 2.0 points
    # caught with 90% power (the meter's RTP is also checked exactly, by enumeration, above);
    # the hit frequency (7.9%) +-0.16 points, an error of 0.23 points caught with 90% power.
    low, high = summary["ci99"]
    assert low <= exact["rtp"] <= high, (exact["rtp"], summary["ci99"])
    p = exact["hit_frequency"]
    half = 2.5758 * (p * (1 - p) / sim.rounds) ** 0.5
    assert abs(summary["hit_frequency"] - p) <= half
    assert sim.counters["meter_bonus"] == sim.rounds // 5
    assert sim.stake == 10 and sim.win_uncapped == sim.win
    again = game.simulate_chunk(1000, np.random.SeedSequence(7))
    assert again == game.simulate_chunk(1000, np.random.SeedSequence(7))


def test_best_hold_beats_no_hold(game: TestMeter) -> None:
    exact = game.exact()
    assert exact["rtp_best_hold"] > exact["rtp"]
    assert exact["components_best_hold"]["line_first_spin"] == exact["components"]["line_first_spin"]


# -- registry, info, docs --------------------------------------------------------------


def test_registry_has_the_game_only_with_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REELFORGE_TEST_GAMES", raising=False)
    assert "test-meter" not in registry()
    monkeypatch.setenv("REELFORGE_TEST_GAMES", "0")
    assert "test-meter" not in registry()
    monkeypatch.setenv("REELFORGE_TEST_GAMES", "1")
    games = registry()
    assert isinstance(games["test-meter"], TestMeter)
    assert "reign-of-gnomes" in games


def test_info(game: TestMeter, d: MeterData) -> None:
    info = game.info()
    assert info["test_only"] is True
    assert (
        info["id"] == "test-meter" and info["name"] == "Test Meter (test only)" and info["version"] == "1.0.0"
    )
    assert info["modes"] == ["base"] and info["variants"] == ["test"] and info["default_variant"] == "test"
    assert info["currency"] == "GBP"
    assert info["bet_levels"] == [
        {"coin": 1, "credits": 10, "stake": 10},
        {"coin": 2, "credits": 10, "stake": 20},
        {"coin": 5, "credits": 10, "stake": 50},
    ]
    assert info["paytable"] == d.pays
    assert info["meter"] == {"size": d.meter.size, "bonus": d.meter.bonus}
    assert info["gamble"] == {"max_gambles": d.gamble.max_gambles}
    json.dumps(info)
    assert (DATA_DIR / "test-meter.toml").exists()


def test_doc_page_states_the_numbers(game: TestMeter, d: MeterData) -> None:
    text = DOC.read_text()
    exact = game.exact()
    assert "test only" in text.lower()
    for key in ("rtp", "rtp_best_hold"):
        assert f"{exact[key] * 100:.4f}%" in text, key
        assert exact[f"{key}_fraction"].replace("/", " / ") in text, key
    for symbol, pay in d.pays.items():
        assert f"| {symbol} | {d.symbols[symbol]} | {pay} |" in text
    for i, strip in enumerate(d.strips):
        assert f"reel {i + 1} ({len(strip)}): {' '.join(strip)}" in text
