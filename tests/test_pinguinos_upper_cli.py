"""``reelforge play los-3-pinguinos --mode upper``: the upper game in the terminal.  Each round
debits the bet's cash part and takes its Bonuses from the machine the session carries (started
with ``--bonuses``); minigames and Double-or-Bonuses are told in words and decided from the
keyboard; the session stops when the Bonuses no longer cover the bet.  The outcome is checked
against the rules dealt from the same seed."""

from __future__ import annotations

import re
from typing import Any

from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.money import format_minor
from reelforge.rng import SeededRandom

GAME_ID = "los-3-pinguinos"
GAME = get_game(GAME_ID)
runner = CliRunner()
BONUSES = 12


def invoke(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, list(args), input=stdin)


def session(seed: int, bonuses: int) -> tuple[list[str], list[Round]]:
    """What the player types and the rounds the rules deal from ``seed``: Enter to play, Enter
    in the minigames (the first platform on the Slides), ``play`` on a Double-or-Bonuses' first
    fraction, then ``collect_all``; until the Bonuses run out."""
    rng = SeededRandom(seed)
    state: dict[str, Any] = {"bonuses": bonuses, "vertical_lines": 0, "accumulators": {}}
    lines: list[str] = []
    rounds: list[Round] = []
    while state["bonuses"] >= 1:
        lines.append("")
        rnd = GAME.start(100, rng, mode="upper", player_state=state)
        while not rnd.complete:
            phase = rnd.state["phase"]
            if phase == "double":
                first = rnd.state["double"]["remaining"] == rnd.state["double"]["prize"]
                lines.append("play" if first else "collect_all")
                action = Action(name="play" if first else "collect_all")
            else:
                lines.append("")
                action = rnd.default_action()
            rnd = GAME.act(rnd, action, rng)
        rounds.append(rnd)
        state = rnd.player_state or {}
    return [*lines, ""], rounds  # a last Enter: the start the Bonuses refuse


def a_session_with_a_minigame_and_a_double() -> tuple[int, list[str], list[Round]]:
    for seed in range(500):
        lines, rounds = session(seed, BONUSES)
        kinds = {e["type"] for r in rounds for e in r.events}
        if {"minigame_start", "double_start", "vertical_lines"} <= kinds and len(rounds) <= 40:
            return seed, lines, rounds
    raise AssertionError("no seed brings a minigame and a Double-or-Bonuses")


def test_play_the_upper_game_until_the_bonuses_run_out() -> None:
    seed, lines, rounds = a_session_with_a_minigame_and_a_double()
    balance = 10_000
    result = invoke(
        "play", GAME_ID, "--mode", "upper", "--stake", "100", "--bonuses", str(BONUSES), "--seed", str(seed),
        "--balance", str(balance), stdin="\n".join(lines) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Symbols: CH Cherries, LE Lemon, PL Plum" in out and "IC Ice Cube (Roulette)" in out
    assert out.count("Enter to play upper: €0.20 + 1 Bonus / q to quit") == len(rounds) + 1
    assert f"Upper game: bet €0.20 + 1 Bonus (Bonuses left {BONUSES - 1}); 5 paylines" in out
    assert "Upper reels, 5 lines" in out and "┌" in out
    starts = [e for r in rounds for e in r.events if e["type"] == "minigame_start"]
    for e in starts:
        assert {"roulette": "ROULETTE!", "fishing": "FISHING!", "slides": "SLIDES!"}[e["minigame"]] in out
    assert out.count("It replaces the line prize") == len(starts)
    doubles = [e for r in rounds for e in r.events if e["type"] == "double_start"]
    assert out.count("DOUBLE OR BONUSES on") == len(doubles) >= 1
    assert "collect_all / collect / play (Enter = collect_all): " in out and "PLAY: " in out
    assert re.search(r"vertical lines \+\d: counter \d -> \d", out)
    # The machine after every round, as the rules left it.
    shown = re.findall(
        r"^bonuses (\d+), vertical lines (\d+)(?:, accumulators 100: (\d+))?$", out, flags=re.M
    )
    assert [(int(b), int(v), int(a or 0)) for b, v, a in shown] == [
        (s["bonuses"], s["vertical_lines"], s["accumulators"].get("100", 0))
        for s in (r.player_state or {} for r in rounds)
    ]
    assert "this bet takes 1 Bonuses and the machine holds 0: stopping." in out
    won = sum(r.win for r in rounds)
    staked = 20 * len(rounds)  # the cash part only: the Bonuses are no money
    assert f"Played {len(rounds)} round(s): staked {format_minor(staked, 'EUR')}" in out
    assert f"Final balance {format_minor(balance - staked + won, 'EUR')}." in out
    assert "{'type'" not in out  # every event told in words


def test_upper_stakes_and_bonuses_are_checked() -> None:
    result = invoke("play", GAME_ID, "--mode", "upper", "--stake", "20", stdin="q\n")
    assert result.exit_code != 0 and "does not offer a stake of 20" in result.output
    assert "13500" in result.output  # the upper bets offered
    result = invoke("play", "reign-of-gnomes", "--bonuses", "5", stdin="q\n")
    assert result.exit_code != 0 and "--bonuses is for Los 3 Pinguinos" in result.output
    # Without Bonuses the first upper start is refused and nothing is paid.
    result = invoke("play", GAME_ID, "--mode", "upper", "--stake", "500", "--bonuses", "4", stdin="\n")
    assert result.exit_code == 0, result.output
    assert "takes 5 Bonuses and the machine holds 4: stopping." in result.stdout
    assert "Played 0 round(s): staked €0.00, won €0.00. Final balance €100.00." in result.stdout
