"""The ``reelforge`` command line, driven through Typer's test runner."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.engine.game import Game
from reelforge.engine.round import Action, Round
from reelforge.games import get_game, registry
from reelforge.money import format_minor
from reelforge.rng import SeededRandom

GAME = "reign-of-gnomes"
runner = CliRunner()


def invoke(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, list(args), input=stdin)


def json_out(*args: str) -> Any:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _reproducible(sim: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in sim.items() if k not in {"rounds_per_second", "seconds"}}


@pytest.fixture
def rules_game(monkeypatch: pytest.MonkeyPatch) -> str:
    """Registers the pure-Python stand-in for the kernel (in-process runs only)."""
    from test_simulate import RulesGnomes

    game = RulesGnomes()
    monkeypatch.setitem(registry(), game.id, game)
    return game.id


# -- games / rtp --------------------------------------------------------------------------


def test_games_json_lists_every_game() -> None:
    entries = json_out("games")
    assert [e["id"] for e in entries] == list(registry())
    gnomes = next(e for e in entries if e["id"] == GAME)
    game = get_game(GAME)
    assert set(gnomes) == {"id", "name", "version", "modes", "variants", "default_variant", "bet_levels"}
    assert gnomes["name"] == "Reign of Gnomes"
    assert gnomes["modes"] == game.modes
    assert gnomes["variants"] == game.variants
    assert gnomes["default_variant"] == game.default_variant
    assert gnomes["bet_levels"] == [b.to_json() for b in game.bet_levels()]


def test_games_table() -> None:
    result = invoke("games")
    assert result.exit_code == 0
    assert GAME in result.stdout and "£0.40" in result.stdout and "95.97" in result.stdout


def test_rtp_json_is_the_exact_result() -> None:
    out = json_out("rtp", GAME)
    exact = get_game(GAME).exact()
    assert out == json.loads(json.dumps(exact))
    assert 0.9596 <= out["rtp"] <= 0.9598
    assert out["method"] == "exact"
    assert {"game", "variant", "mode", "rtp", "components", "hit_frequency"} <= set(out)
    assert sum(out["components"].values()) == pytest.approx(out["rtp"], abs=1e-12)


def test_rtp_table() -> None:
    result = invoke("rtp", GAME)
    assert result.exit_code == 0
    assert "95.9706%" in result.stdout
    assert "base_ways" in result.stdout and "hit frequency" in result.stdout


# -- simulate -----------------------------------------------------------------------------


def test_simulate_same_seed_same_result(rules_game: str) -> None:
    a = json_out("simulate", rules_game, "--rounds", "3000", "--seed", "17")
    b = json_out("simulate", rules_game, "--rounds", "3000", "--seed", "17")
    c = json_out("simulate", rules_game, "--rounds", "3000", "--seed", "18")
    assert _reproducible(a) == _reproducible(b)
    assert a["rtp"] != c["rtp"]
    for key in ("rtp", "ci99", "std", "hit_frequency", "max_win", "features", "rounds_per_second"):
        assert key in a
    assert (a["rounds"], a["seed"], a["workers"]) == (3000, 17, 1)
    assert a["ci99"][0] <= a["rtp"] <= a["ci99"][1]


def test_simulate_table_sets_exact_against_the_interval(rules_game: str) -> None:
    result = invoke("simulate", rules_game, "--rounds", "2000", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert "exact RTP" in result.stdout and "95.9706%" in result.stdout
    assert "99% CI" in result.stdout
    assert "inside" in result.stdout or "OUTSIDE" in result.stdout


def test_simulate_real_game_reproducible_on_any_worker_count() -> None:
    # Three chunks of 2**20 rounds, so the two Dask workers both have work.
    args = ("simulate", GAME, "--rounds", "2200000", "--seed", "5")
    one = json_out(*args)
    two = json_out(*args, "--workers", "2")
    assert (one["workers"], two["workers"], one["chunks"]) == (1, 2, 3)
    drop = {"rounds_per_second", "seconds", "workers"}
    assert {k: v for k, v in one.items() if k not in drop} == {k: v for k, v in two.items() if k not in drop}
    assert one["ci99"][0] < one["rtp"] < one["ci99"][1]
    # The exact RTP inside the 99% interval: +-1.04 points at 2,200,000 rounds (SD 5.99 stakes),
    # so only an error above 2.0 points is caught with 99% power; this checks that the command
    # reports the run's interval, and tests/test_gnomes_kernel.py holds the RTP to 0.5 points.
    exact = get_game(GAME).exact()["rtp"]
    assert one["ci99_uncapped"][0] < exact < one["ci99_uncapped"][1]


def test_demo_prints_exact_and_simulation() -> None:
    result = invoke("demo", "--rounds", "100000")
    assert result.exit_code == 0, result.output
    assert "Exact RTP" in result.stdout and "95.9706%" in result.stdout
    assert "Monte Carlo" in result.stdout and "99% CI" in result.stdout


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("rtp", "no-such-game"), "unknown game 'no-such-game'"),
        (("simulate", "no-such-game", "--seed", "1"), "unknown game"),
        (("play", "no-such-game"), "unknown game"),
        (("rtp", GAME, "--variant", "99.99"), "unknown RTP variant '99.99'"),
        (("rtp", GAME, "--mode", "bonus-buy"), "unknown mode 'bonus-buy'"),
        (("simulate", GAME, "--rounds", "0", "--seed", "1"), "--rounds must be positive"),
        (("simulate", GAME, "--rounds", "-3", "--seed", "1"), "--rounds must be positive"),
        (("simulate", GAME, "--rounds", "10", "--seed", "1", "--variant", "x"), "unknown RTP variant"),
        (("play", GAME, "--rounds", "0"), "--rounds must be positive"),
        (("demo", "--rounds", "0"), "--rounds must be positive"),
    ],
)
def test_bad_input_is_a_one_line_error_with_exit_code_2(args: tuple[str, ...], message: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_play_refuses_a_stake_not_offered() -> None:
    result = invoke("play", GAME, "--stake", "41", stdin="\n")
    assert result.exit_code == 2
    assert "does not offer a stake of 41" in result.stderr
    assert "40 (£0.40)" in result.stderr and "480 (£4.80)" in result.stderr


# -- play ---------------------------------------------------------------------------------


def _scripted_session(game: Game, seed: int, rounds: int, stake: int) -> tuple[str, int, bool]:
    """The input a player types over ``rounds`` rounds and the total they win.

    Policy: Enter to spin; at the first stone pick type garbage, then the last stone
    offered; every later pick takes the default with Enter.  Played here on the real rules
    with the same seeded stream the command uses, so the test knows the outcome.
    """
    rng = SeededRandom(seed)
    lines: list[str] = []
    won = 0
    first_pick = True
    for _ in range(rounds):
        lines.append("")
        rnd: Round = game.start(stake, rng)
        while not rnd.complete:
            spec = rnd.actions[0]
            if spec.choices is None:
                action = Action(name=spec.name)
            elif first_pick:
                lines += ["no idea", str(spec.choices[-1])]
                action = Action(name=spec.name, choice=spec.choices[-1])
                first_pick = False
            else:
                lines.append("")
                action = Action(name=spec.name, choice=spec.default)
            rnd = game.act(rnd, action, rng)
        won += rnd.win
    return "\n".join(lines) + "\n", won, not first_pick


def _seed_with_ice_diamonds(game: Game, stake: int) -> tuple[int, int]:
    """A seed and a round count whose session reaches an Ice Diamonds pick early on."""
    for seed in range(200):
        rng = SeededRandom(seed)
        for i in range(400):
            rnd = game.start(stake, rng)
            while not rnd.complete:
                rnd = game.act(rnd, rnd.default_action(), rng)
            if any(e["type"] == "ice_diamonds_start" for e in rnd.events):
                return seed, i + 1
    raise AssertionError("no Ice Diamonds in 200 seeds x 400 rounds")


def test_play_scripted_session_with_picks() -> None:
    game = get_game(GAME)
    stake, balance = 80, 1_000_000
    seed, rounds = _seed_with_ice_diamonds(game, stake)
    script, won, picked = _scripted_session(game, seed, rounds, stake)
    assert picked
    result = invoke(
        "play", GAME, "--seed", str(seed), "--stake", str(stake), "--balance", str(balance),
        "--rounds", str(rounds), stdin=script,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Enter to spin £0.80 / q to quit" in out
    assert "free spins!" in out and "Free spin 1" in out
    assert "Ice Diamonds!" in out and "pick a stone [" in out
    assert "'no idea' is not one of the choices." in out
    assert "┌" in out  # reel windows drawn as grids
    final = balance - rounds * stake + won
    assert f"Played {rounds} game{'' if rounds == 1 else 's'}" in out
    assert f"won {format_minor(won)}" in out
    assert f"Final balance {format_minor(final)}." in out


def test_play_quits_on_q_and_at_end_of_input() -> None:
    result = invoke("play", GAME, "--seed", "1", "--balance", "1000", stdin="\n\nq\n")
    assert result.exit_code == 0, result.output
    assert "Played 2 games:" in result.stdout
    result = invoke("play", GAME, "--seed", "1", "--balance", "1000", stdin="\n")
    assert result.exit_code == 0, result.output
    assert "Played 1 game:" in result.stdout


def test_play_stops_on_insufficient_balance() -> None:
    result = invoke("play", GAME, "--seed", "1", "--stake", "40", "--balance", "30", stdin="\n\n")
    assert result.exit_code == 0, result.output
    assert "Balance £0.30 is below the stake £0.40: stopping." in result.stdout
    assert "Played 0 games:" in result.stdout
