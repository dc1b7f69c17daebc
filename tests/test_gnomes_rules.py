"""Reign of Gnomes rules: every feature through the real state machine, serialisation at
every decision point, replay from stored draws, and rejected bad input."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from helpers import losing_spin_to_win_stops, trigger_script, wheel_draw
from reelforge.engine.evaluate import evaluate_ways
from reelforge.engine.game import play_default
from reelforge.engine.round import Action, InvalidAction, Round
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.money import InvalidBet
from reelforge.rng import RecordingRandom, ReplayRandom, ScriptedRandom, SeededRandom


def _types(rnd: Round) -> list[str]:
    return [e["type"] for e in rnd.events]


def test_a_base_round_without_trigger_completes_in_one_step(gnomes: ReignOfGnomes) -> None:
    rng = SeededRandom(5)
    for _ in range(50):
        rnd = gnomes.start(40, rng)
        if "free_spins_awarded" not in _types(rnd):
            break
    assert rnd.complete and rnd.actions == [] and rnd.step == 1
    spin = rnd.events[0]
    assert spin["type"] == "spin" and len(spin["window"]) == 5 and all(len(c) == 3 for c in spin["window"])
    assert rnd.win == spin["credits"] * rnd.coin


def test_stake_scales_wins_by_the_coin(gnomes: ReignOfGnomes) -> None:
    small = play_default(gnomes, gnomes.start(40, SeededRandom(77)), SeededRandom(78))
    big = play_default(gnomes, gnomes.start(480, SeededRandom(77)), SeededRandom(78))
    assert big.win == 12 * small.win and big.state["credits"] == small.state["credits"]


def test_three_scatters_start_dragon_spins_and_each_spin_turns_the_wheel(gnomes, gnomes_data) -> None:
    script = [*trigger_script(gnomes_data), wheel_draw(gnomes_data, "x5")]
    rng = ScriptedRandom(script, SeededRandom(1))
    rnd = gnomes.start(40, rng)
    assert rnd.state["free_spins_left"] == gnomes_data.free_spins[3]
    assert rnd.actions[0].name == "spin" and not rnd.actions[0].needs_player
    rnd = gnomes.act(rnd, Action(name="spin"), rng)
    wheel = [e for e in rnd.events if e["type"] == "wheel"]
    assert wheel[0]["award"] == "x5"
    spin = rnd.events[-1] if rnd.events[-1]["type"] == "spin" else rnd.events[-2]
    assert spin["multiplier"] == 5
    assert spin["credits"] == 5 * sum(w["credits"] for w in spin["ways"]) + spin["scatter_credits"]


def test_spin_to_win_plays_until_a_win_with_a_growing_multiplier(gnomes, gnomes_data) -> None:
    lose = losing_spin_to_win_stops(gnomes_data)
    script = trigger_script(gnomes_data) + [wheel_draw(gnomes_data, "spin_to_win")] + lose * 3
    rng = ScriptedRandom(script, SeededRandom(2))
    rnd = gnomes.act(gnomes.start(40, rng), Action(name="spin"), rng)
    games = [e for e in rnd.events if e["type"] == "spin" and e["reels"] == "spin_to_win"]
    assert [g["multiplier"] for g in games] == list(range(1, len(games) + 1))
    assert len(games) >= 4
    assert all(not g["ways"] for g in games[:-1]) and games[-1]["ways"]
    last = games[-1]
    assert last["credits"] == len(games) * sum(w["credits"] for w in last["ways"])
    # The main reels resolve after the feature.
    main = [e for e in rnd.events if e["type"] == "spin" and e["reels"] == "free"]
    assert main and rnd.events.index(main[-1]) > rnd.events.index(last)


def test_random_wilds_use_a_replacement_set_with_an_added_wild(gnomes, gnomes_data) -> None:
    for which in range(len(gnomes_data.random_wild_sets)):
        script = [*trigger_script(gnomes_data), wheel_draw(gnomes_data, "random_wilds"), which]
        rng = ScriptedRandom(script, SeededRandom(3 + which))
        rnd = gnomes.act(gnomes.start(40, rng), Action(name="spin"), rng)
        main = [e for e in rnd.events if e["type"] == "spin" and e["reels"] == f"random_wilds_{which}"]
        assert main, _types(rnd)
        free = gnomes_data.free.window(main[0]["stops"])
        added = sum(c.count(gnomes_data.wild) for c in main[0]["window"]) - sum(
            c.count(gnomes_data.wild) for c in free
        )
        assert added >= 1


def _to_ice(gnomes, gnomes_data, seed: int):
    script = [*trigger_script(gnomes_data), wheel_draw(gnomes_data, "ice_diamonds")]
    rng = ScriptedRandom(script, SeededRandom(seed))
    rnd = gnomes.act(gnomes.start(40, rng), Action(name="spin"), rng)
    return rnd, rng


def test_ice_diamonds_waits_for_the_player_and_hides_the_layout(gnomes, gnomes_data) -> None:
    rnd, rng = _to_ice(gnomes, gnomes_data, 4)
    (spec,) = rnd.actions
    assert spec.name == "pick" and spec.needs_player and spec.choices == list(range(15))
    assert "_ice_layout" not in rnd.public_view()["state"]
    picks = 0
    while rnd.actions and rnd.actions[0].name == "pick":
        rnd = gnomes.act(rnd, Action(name="pick", choice=rnd.actions[0].choices[-1]), rng)
        picks += 1
    award = next(e for e in rnd.events if e["type"] == "ice_diamonds_award")
    ice = gnomes_data.ice_diamonds
    found = [e for e in rnd.events if e["type"] == "pick"]
    diamonds = sum(e["diamond"] for e in found)
    assert award["diamonds"] == diamonds and len(found) == picks
    assert diamonds == ice.diamonds or len(found) - diamonds == ice.empties_to_end
    assert award["credits"] == ice.levels[ice.level_for(diamonds)].award * 40
    assert sum(award["layout"]) == ice.diamonds


def test_bad_actions_are_refused_and_change_nothing(gnomes, gnomes_data) -> None:
    rnd, _ = _to_ice(gnomes, gnomes_data, 5)
    before = rnd.model_dump_json()
    rng = SeededRandom(0)
    for bad in (
        Action(name="spin"),
        Action(name="pick"),
        Action(name="pick", choice=15),
        Action(name="pick", choice=-1),
        Action(name="gamble", choice=1),
    ):
        with pytest.raises(InvalidAction):
            gnomes.act(rnd, bad, rng)
    rnd2 = gnomes.act(rnd, Action(name="pick", choice=3), rng)
    with pytest.raises(InvalidAction, match="needs a choice"):
        gnomes.act(rnd2, Action(name="pick", choice=3), rng)  # already picked
    assert rnd.model_dump_json() == before
    with pytest.raises(ValidationError):
        Action.model_validate({"name": "pick", "choice": 1, "extra": True})
    done = play_default(gnomes, rnd2, rng)
    with pytest.raises(InvalidAction, match="complete"):
        gnomes.act(done, Action(name="spin"), rng)


def test_bad_bets_are_refused(gnomes) -> None:
    rng = SeededRandom(0)
    for stake in (0, 39, 41, 520, -40):
        with pytest.raises(InvalidBet):
            gnomes.start(stake, rng)
    with pytest.raises(InvalidBet, match="variant"):
        gnomes.start(40, rng, variant="99.00")
    with pytest.raises(InvalidBet, match="mode"):
        gnomes.start(40, rng, mode="buy")
    assert [b.stake for b in gnomes.bet_levels()] == [40 * c for c in range(1, 13)]


def _play_recorded(gnomes, gnomes_data, seed: int):
    """A round through free spins and an Ice Diamonds pick, with its draws and choices."""
    script = [*trigger_script(gnomes_data), wheel_draw(gnomes_data, "ice_diamonds")]
    rec = RecordingRandom(ScriptedRandom(script, SeededRandom(seed)))
    steps = [gnomes.start(40, rec)]
    draws_at = [len(rec.draws)]
    actions: list[Action] = []
    while not steps[-1].complete:
        spec = steps[-1].actions[0]
        choice = spec.choices[len(actions) % len(spec.choices)] if spec.choices else None
        action = Action(name=spec.name, choice=choice)
        actions.append(action)
        steps.append(gnomes.act(steps[-1], action, rec))
        draws_at.append(len(rec.draws))
    return steps, actions, rec.draws, draws_at


def test_every_step_round_trips_through_json_and_resumes_identically(gnomes, gnomes_data) -> None:
    steps, actions, draws, draws_at = _play_recorded(gnomes, gnomes_data, 21)
    assert any(s.actions and s.actions[0].name == "pick" for s in steps)
    final = steps[-1]
    for k, step in enumerate(steps[:-1]):
        restored = Round.model_validate_json(step.model_dump_json())
        assert restored == step
        rng = ReplayRandom(draws[draws_at[k] :])
        rnd = restored
        for action in actions[k:]:
            rnd = gnomes.act(Round.model_validate_json(rnd.model_dump_json()), action, rng)
        assert rnd == final
        assert rng.exhausted


def test_replay_from_stored_draws_gives_the_identical_round(gnomes, gnomes_data) -> None:
    steps, actions, draws, _ = _play_recorded(gnomes, gnomes_data, 22)
    rng = ReplayRandom(draws)
    rnd = gnomes.start(40, rng)
    for action in actions:
        rnd = gnomes.act(rnd, action, rng)
    assert rnd.model_dump() == steps[-1].model_dump() and rng.exhausted


def test_max_win_cap_ends_the_round_at_5000x(gnomes, gnomes_data) -> None:
    """The advertised maximum is reachable in one game: Spin To Win losing long enough
    before a big win pushes the round to the cap, which ends it."""
    d = gnomes_data
    stw = d.spin_to_win_reels.strips
    best_stops = []
    for strip in stw:  # the stop showing the most Gnome Kings (or wilds) on each reel
        n = len(strip)
        best_stops.append(
            max(
                range(n),
                key=lambda s, st=strip, n=n: sum(st[(s + r) % n] in ("KG", d.wild) for r in range(3)),
            )
        )
    big = d.spin_to_win.window(best_stops)
    big_credits = sum(w.credits for w in evaluate_ways(big, d.ways_pays, d.wild))
    cap = d.game.max_win * d.game.base_credits
    losses_needed = -(-cap // big_credits) - 1
    lose = losing_spin_to_win_stops(d)
    script = trigger_script(d) + [wheel_draw(d, "spin_to_win")] + lose * losses_needed + best_stops
    rng = ScriptedRandom(script, SeededRandom(6))
    rnd = gnomes.act(gnomes.start(480, rng), Action(name="spin"), rng)
    assert rnd.complete and rnd.win == d.game.max_win * 480
    assert any(e["type"] == "max_win" for e in rnd.events)
    assert rnd.state["free_spins_left"] == 0
