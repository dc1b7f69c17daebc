"""``reelforge play los-3-pinguinos --mode upper``: the upper game in the terminal, as a player
reads it.  Before the first game the machine's Bonuses and what the bet takes (or, short of
Bonuses, how to bring some: ``--bonuses`` or the lower game); each round debits the bet's cash
part and takes its Bonuses; bets and accumulators named by bet (``€0.20 + 1 Bonus: 3 of 8
pieces``), counts in the right number; the minigames asked with the key that plays them (Enter
spins the roulette, a platform 1-5); the minigame floor said when it pays; the session summary
counts Bonuses staked and won beside cash.  Every outcome is checked against the rules dealt
from the same seed, and every figure is read from the game (its info), not written here."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.money import format_minor
from reelforge.rng import SeededRandom

GAME_ID = "los-3-pinguinos"
GAME = get_game(GAME_ID)
INFO = GAME.info()
BETS = {b["stake"]: b for b in INFO["upper"]["bets"]}
PIECES = INFO["upper"]["accumulator_pieces"]
BONUS_VALUE = INFO["bonus_value"]
runner = CliRunner()
BONUSES = 12
WIDE = {"COLUMNS": "400"}  # one sentence a line: Rich wraps at the terminal's width

Policy = Callable[[Round], tuple[list[str], Action]]  # a decision: what is typed, what it plays


def eur(cents: int) -> str:
    return format_minor(cents, "EUR")


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def bonuses(n: int) -> str:
    return plural(n, "Bonus", "Bonuses")


def bet_name(stake: int) -> str:
    return f"{eur(BETS[stake]['cash'])} + {bonuses(BETS[stake]['bonuses'])}"


def invoke(*args: str, stdin: str | None = None) -> Any:
    return runner.invoke(app, list(args), input=stdin, env=WIDE)


def play_once_then_collect(rnd: Round) -> tuple[list[str], Action]:
    """Enter in the minigames (the first platform on the Slides), ``play`` on a
    Double-or-Bonuses' first fraction, then ``collect_all``."""
    if rnd.state["phase"] == "double":
        first = rnd.state["double"]["remaining"] == rnd.state["double"]["prize"]
        return ["play" if first else "collect_all"], Action(name="play" if first else "collect_all")
    return [""], rnd.default_action()


def session(seed: int, bonuses: int, policy: Policy, stake: int = 100) -> tuple[list[str], list[Round]]:
    """What the player types and the rounds the rules deal from ``seed``: Enter to play, the
    policy at each decision; until the Bonuses no longer cover the bet."""
    rng = SeededRandom(seed)
    state: dict[str, Any] = {"bonuses": bonuses, "vertical_lines": 0, "accumulators": {}}
    lines: list[str] = []
    rounds: list[Round] = []
    while state["bonuses"] >= BETS[stake]["bonuses"]:
        lines.append("")
        rnd = GAME.start(stake, rng, mode="upper", player_state=state)
        while not rnd.complete:
            typed, action = policy(rnd)
            lines += typed
            rnd = GAME.act(rnd, action, rng)
        rounds.append(rnd)
        state = rnd.player_state or {}
    return lines, rounds


def events(rounds: list[Round], kind: str) -> list[dict[str, Any]]:
    return [e for r in rounds for e in r.events if e["type"] == kind]


def a_seed(
    want: Callable[[list[Round]], bool], policy: Policy, bonuses: int = BONUSES, stake: int = 100
) -> tuple[int, list[str], list[Round]]:
    for seed in range(800):
        lines, rounds = session(seed, bonuses, policy, stake)
        if want(rounds):
            return seed, lines, rounds
    raise AssertionError("no seed deals what the test needs: the data changed, widen the search")


def play(seed: int, lines: list[str], bonuses: int = BONUSES, stake: int = 100, balance: int = 10_000) -> str:
    result = invoke(
        "play", GAME_ID, "--mode", "upper", "--stake", str(stake), "--bonuses", str(bonuses),
        "--seed", str(seed), "--balance", str(balance), stdin="\n".join(lines) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def assert_counts_read_right(out: str) -> None:
    """No ``(s)`` and no singular count with a plural noun, or the reverse."""
    assert "(s)" not in out
    for word in ("Bonuses", "games", "pieces", "times"):
        assert not re.search(rf"(?<![\d.,])1 {word}\b", out), word
    for word in ("Bonus", "game", "piece", "time"):
        assert not re.search(rf"\b(?:0|[2-9]|\d\d+) {word}\b(?![a-z])", out), word


# -- a whole session ---------------------------------------------------------------------------


def test_play_the_upper_game_until_the_bonuses_run_out() -> None:
    def wanted(rounds: list[Round]) -> bool:
        kinds = {e["type"] for r in rounds for e in r.events}
        won = sum(r.state["bonuses_won"] for r in rounds)
        return {"minigame_start", "double_start", "vertical_lines", "accumulator"} <= kinds and won > 0

    seed, lines, rounds = a_seed(wanted, play_once_then_collect)
    balance = 10_000
    out = play(seed, lines, balance=balance)
    assert "Symbols: CH Cherries, LE Lemon, PL Plum" in out and "IC Ice Cube (Roulette)" in out
    # Before the first game: the machine's Bonuses and what the bet takes.
    first = out.index("Enter to play")
    assert f"Machine: {bonuses(BONUSES)}, vertical lines counter 0\n" in out[:first]
    assert (
        f"The upper bet €0.20 + 1 Bonus takes 1 Bonus a game besides its cash: the machine's Bonuses "
        f"cover {plural(BONUSES, 'game')}." in out[:first]
    )
    # Every start names the bet and what the machine holds; no start the Bonuses refuse.
    held = [BONUSES] + [r.player_state["bonuses"] for r in rounds[:-1]]
    prompts = re.findall(r"^Balance €[\d.]+, (.+)\. Enter to play (.+) / q to quit: ", out, flags=re.M)
    assert prompts == [(bonuses(h), bet_name(100)) for h in held]
    for e in events(rounds, "upper_start"):
        assert (
            f"Upper game, bet €0.20 + 1 Bonus: {bonuses(e['bonuses_left'])} left; {e['lines']} paylines"
            in out
        )
    assert "Upper reels, 5 lines" in out and "┌" in out
    # The accumulator named by its bet, pieces counted.
    for e in events(rounds, "accumulator"):
        assert (
            f"accumulator +{plural(e['gained'], 'piece')}: €0.20 + 1 Bonus: {e['pieces']} of {PIECES} pieces"
            in out
        )
    starts = events(rounds, "minigame_start")
    assert out.count("It replaces the line prize") == len(starts) >= 1
    # Double-or-Bonuses: what each action does, the menu, the Bonuses won.
    doubles = events(rounds, "double_start")
    assert out.count("DOUBLE OR BONUSES on") == len(doubles) >= 1
    menus = out.count("collect_all / collect / play (Enter = collect_all): ")
    assert out.count("  collect_all (Enter): take the ") == menus > len(doubles)  # a legend at each
    frac = BETS[100]["fraction"]
    whole = frac // BONUS_VALUE
    worth = bonuses(whole) if frac % BONUS_VALUE == 0 else f"{whole} or {bonuses(whole + 1)}"
    assert f"  play: risk {eur(frac)}: doubled to {eur(2 * frac)}, or {worth}" in out
    assert "collect_all / collect / play (Enter = collect_all): " in out and "PLAY: " in out
    for e in events(rounds, "double_play"):
        if e["result"] == "bonuses":
            assert f"turns into {bonuses(e['bonuses'])} (the machine holds {bonuses(e['balance'])})" in out
    for e in events(rounds, "double_collect_all"):  # always after a PLAY here: the rest
        assert f"Collected the rest, {eur(e['cents'])}" in out
    assert re.search(r"vertical lines \+\d: counter \d -> \d", out)
    # The machine after every round, as the rules left it, accumulators by bet.
    shown = re.findall(
        r"^Machine: (\d+) Bonus(?:es)?, vertical lines counter (\d)(?:; accumulators €0\.20 \+ 1 Bonus: "
        rf"(\d) of {PIECES} pieces)?$",
        out,
        flags=re.M,
    )
    assert [(int(b), int(v), int(a or 0)) for b, v, a in shown] == [(BONUSES, 0, 0)] + [
        (s["bonuses"], s["vertical_lines"], s["accumulators"].get("100", 0))
        for s in (r.player_state or {} for r in rounds)
    ]
    # Out of Bonuses: said, with how to bring more.
    assert (
        "Not enough Bonuses for the upper game: €0.20 + 1 Bonus takes 1 Bonus and the machine holds 0" in out
    )
    assert "Bring Bonuses with --bonuses N" in out and f"reelforge play {GAME_ID}" in out
    # The summary: cash and Bonuses, staked and won.
    won = sum(r.win for r in rounds)
    won_bonuses = sum(r.state["bonuses_won"] for r in rounds)
    staked = BETS[100]["cash"] * len(rounds)
    final = rounds[-1].player_state["bonuses"]
    assert (
        f"Played {plural(len(rounds), 'game')}: staked {eur(staked)} + {bonuses(len(rounds))}, "
        f"won {eur(won)} + {bonuses(won_bonuses)}. Final balance {eur(balance - staked + won)}; "
        f"the machine holds {bonuses(final)}." in out
    )
    assert won_bonuses > 0 and BONUSES - len(rounds) + won_bonuses == final
    assert "{'type'" not in out  # every event told in words
    assert_counts_read_right(out)


# -- the minigames: the keys, the platforms, the floor -----------------------------------------


def slides_at_3_after_two_wrong_keys(rnd: Round) -> tuple[list[str], Action]:
    if rnd.state["phase"] == "slides":
        return ["9", "0", "3"], Action(name="pick", choice=2)  # platform 3 is the rules' 2
    return [""], rnd.default_action()


def test_the_minigames_say_which_key_plays_them_and_platforms_count_from_1() -> None:
    def wanted(rounds: list[Round]) -> bool:
        return {e["minigame"] for e in events(rounds, "minigame_start")} == {"roulette", "fishing", "slides"}

    seed, lines, rounds = a_seed(wanted, slides_at_3_after_two_wrong_keys, bonuses=40)
    out = play(seed, lines, bonuses=40)
    kinds = [e["minigame"] for e in events(rounds, "minigame_start")]
    assert out.count("Press Enter to spin the roulette: ") == kinds.count("roulette") >= 1
    assert out.count("Press Enter to set the penguins fishing: ") == kinds.count("fishing") >= 1
    assert out.count("Pick a platform 1-5 (Enter = 1): ") == 3 * kinds.count("slides") >= 3
    assert "'9' is not a platform: type a number from 1 to 5." in out
    assert "'0' is not a platform: type a number from 1 to 5." in out
    for start, end in zip(events(rounds, "minigame_start"), events(rounds, "minigame_end"), strict=True):
        if start["minigame"] == "slides":
            shown = ", ".join(f"{i}: {eur(p)}" for i, p in enumerate(start["platforms"], start=1))
            assert f"the platforms showed {shown}; the prizes slide away, shuffled" in out
            assert end["platform"] == 2
            assert f"Platform 3: a penguin slides down with {eur(end['result'])}" in out
        elif start["minigame"] == "roulette":
            lit = ", ".join(str(s + 1) for s in end["sections"])
            assert f"The roulette lights section{'s' if len(end['sections']) > 1 else ''} {lit}: " in out
        else:
            assert f"The fish add up to {eur(end['result'])}" in out
    assert_counts_read_right(out)


@pytest.mark.parametrize("stake", [100, 500])
def test_the_minigame_floor_is_said_when_it_pays(stake: int) -> None:
    """A minigame pays at least the bet's floor or the line prize it replaced, whichever is more:
    said at its start, and at its end when the result falls below it."""
    floor = BETS[stake]["minigame_floor"]

    def wanted(rounds: list[Round]) -> bool:
        return any(e["prize"] > e["result"] for e in events(rounds, "minigame_end"))

    seed, lines, rounds = a_seed(
        wanted, play_once_then_collect, bonuses=40 * BETS[stake]["bonuses"], stake=stake
    )
    out = play(seed, lines, bonuses=40 * BETS[stake]["bonuses"], stake=stake, balance=1_000_000)
    names = {"roulette": "Roulette", "fishing": "Fishing", "slides": "Slides"}
    for start, end in zip(events(rounds, "minigame_start"), events(rounds, "minigame_end"), strict=True):
        least = max(floor, start["replaces"])
        what = "the bet's minigame floor" if floor >= start["replaces"] else "the line prize it replaced"
        assert (
            f"It replaces the line prize {eur(start['replaces'])} and pays at least {eur(least)} ({what})"
            in out
        )
        pays = f"the {names[end['minigame']]} pays {eur(least)}."
        below = f"{eur(end['result'])} is below {what} ({eur(least)}): {pays}"
        assert (below in out) == (end["prize"] > end["result"])
        assert f"{end['minigame'].upper()} prize: {eur(end['prize'])}" in out
    assert "is below the" in out


# -- no Bonuses, other bets ---------------------------------------------------------------------


def test_without_bonuses_the_upper_game_says_how_to_bring_them() -> None:
    result = invoke("play", GAME_ID, "--mode", "upper", stdin="\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Machine: 0 Bonuses, vertical lines counter 0" in out
    short = "Not enough Bonuses for the upper game: €0.20 + 1 Bonus takes 1 Bonus and the machine holds 0"
    assert f"{short}: stopping." in out
    assert (
        f"Bring Bonuses with --bonuses N (e.g. --bonuses 10), or win them in the lower game first "
        f"(reelforge play {GAME_ID}) and start here with --bonuses set to what it leaves." in out
    )
    assert "Enter to play" not in out  # nothing offered that the machine would refuse
    assert "Played 0 games: staked €0.00 + 0 Bonuses, won €0.00 + 0 Bonuses. Final balance €100.00" in out
    # A bigger bet: its own Bonuses, named in full.
    out = invoke("play", GAME_ID, "--mode", "upper", "--stake", "500", "--bonuses", "4", stdin="\n").stdout
    assert (
        f"Not enough Bonuses for the upper game: {bet_name(500)} takes 5 Bonuses and the machine holds 4"
        in out
    )
    assert "Played 0 games" in out
    help_text = invoke("play", "--help").stdout
    assert "--bonuses" in help_text and "start with N Bonuses" in " ".join(help_text.split())


def test_upper_stakes_are_offered_by_bet_name_and_bonuses_are_for_pinguinos() -> None:
    result = invoke("play", GAME_ID, "--mode", "upper", "--stake", "20", stdin="q\n")
    assert result.exit_code != 0 and "does not offer a stake of 20" in result.output
    for stake in BETS:
        assert f"{stake} ({bet_name(stake)})" in result.output
    assert "1 Bonuses" not in result.output
    result = invoke("play", "reign-of-gnomes", "--bonuses", "5", stdin="q\n")
    assert result.exit_code != 0
    assert "--bonuses is for a game with Bonuses; Reign of Gnomes has none" in result.output


def test_a_bigger_bet_names_its_accumulator_and_its_bonuses() -> None:
    stake = 500

    def wanted(rounds: list[Round]) -> bool:
        return bool(events(rounds, "accumulator"))

    seed, lines, rounds = a_seed(wanted, play_once_then_collect, bonuses=20, stake=stake)
    out = play(seed, lines, bonuses=20, stake=stake, balance=100_000)
    assert "The upper bet €1.00 + 5 Bonuses takes 5 Bonuses a game besides its cash" in out
    assert "the machine's Bonuses cover 4 games." in out
    for e in events(rounds, "accumulator"):
        assert f"€1.00 + 5 Bonuses: {e['pieces']} of {PIECES} pieces" in out
    assert f"staked {eur(100 * len(rounds))} + {bonuses(5 * len(rounds))}" in out
    assert_counts_read_right(out)
