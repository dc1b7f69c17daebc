"""The ``reelforge`` command line on Los 3 Pinguinos: the exact RTP of a variant with the RTP by
play (AUTO, the default play, AUTO-RISK), the numba Monte Carlo, and terminal play with its
decisions (a hold with another mask than the suggested one, nudges and done from a menu, PLAY and
COLLECT on the ladders, the Disco stop) and the machine state carried from round to round."""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Any

import pytest
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.engine.game import win_distribution
from reelforge.engine.round import Action, Round
from reelforge.games import get_game
from reelforge.money import format_minor
from reelforge.rng import SeededRandom

GAME_ID = "los-3-pinguinos"
GAME = get_game(GAME_ID)  # the registry's instance, as the CLI's: exact figures cached
runner = CliRunner()


def invoke(*args: str, stdin: str | None = None) -> Any:
    # A wide terminal: a sentence stays on one line (Rich wraps at the terminal's width).
    return runner.invoke(app, list(args), input=stdin, env={"COLUMNS": "400"})


def json_out(*args: str) -> Any:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- rtp -----------------------------------------------------------------------------------------


def test_rtp_json_of_variant_70_has_the_rtp_by_play() -> None:
    out = json_out("rtp", GAME_ID, "--variant", "70")
    named = {"hit_frequency_name", "round_hit_frequency"}  # the CLI names the hit frequencies
    assert {k: v for k, v in out.items() if k not in named} == json.loads(json.dumps(GAME.exact("70")))
    assert (out["game"], out["variant"], out["mode"], out["method"]) == (GAME_ID, "70", "base", "exact")
    by_play = out["rtp_by_play"]
    # Every offered play has its figure; the promise is the best play's, which no play beats.
    assert set(by_play) == set(out["plays"]) >= {"best", "auto", "default", "auto_risk", "worst"}
    assert out["rtp"] == by_play["best"] == max(by_play.values()) == pytest.approx(0.70, abs=1e-4)
    # "worst" is the worst of the plays that never risk a prize; AUTO-RISK risks, and at 70 its
    # PLAYs return less than collecting, so it may fall below it (and below every other play)
    assert by_play["worst"] == min(v for p, v in by_play.items() if p != "auto_risk") < by_play["default"]
    assert by_play["auto_risk"] < by_play["auto"]
    for play, fraction in out["rtp_by_play_fraction"].items():
        assert float(Fraction(fraction)) == pytest.approx(by_play[play], rel=1e-15)
    assert sum(out["components"].values()) == pytest.approx(out["rtp"], abs=1e-12)
    assert out["bonus_value_cents"] == GAME.data("70").game.bonus_value
    assert GAME.exact("95")["rtp"] == pytest.approx(0.95, abs=1e-4)  # the variant matters

    table = invoke("rtp", GAME_ID, "--variant", "70")
    assert table.exit_code == 0, table.output
    text = table.stdout
    assert "variant 70" in text and f"{out['rtp'] * 100:.4f}%" in text
    # The RTP by play is a table of its own, in percent, not a dump of a dict.
    assert "rtp by play" in text and "rtp by play: {" not in text
    assert "machine rtp by play" in text  # the whole machine's figures: a table too
    for play, value in by_play.items():
        row = next(line for line in text.splitlines() if re.search(rf"│ {play.replace('_', ' ')}\s+│", line))
        assert f"{value * 100:.4f}%" in row
    result = invoke("rtp", GAME_ID, "--variant", "60")
    assert result.exit_code != 0 and "60" in result.output


def test_rtp_distribution_takes_the_play_and_the_stake() -> None:
    """``--play`` and ``--stake`` reach the law: AUTO-RISK's mean at €0.20 is the exact RTP of
    that play (``rtp_by_play``, another module's figure); at €15 the Disco's own table and the
    rounding of a failed Sube-Bonos PLAY move the law (and, under AUTO-RISK, its mean a
    little); AUTO's mean is the same at every bet."""
    unit = json_out("rtp", GAME_ID, "--distribution", "--play", "auto-risk")
    at_15 = json_out("rtp", GAME_ID, "--distribution", "--play", "auto-risk", "--stake", "1500")
    by_play = json_out("rtp", GAME_ID)["rtp_by_play_fraction"]
    assert unit["play"] == at_15["play"] == "auto_risk"
    assert unit["mean"]["fraction"] == by_play["auto_risk"] != at_15["mean"]["fraction"]
    assert (unit["bet_cents"], at_15["bet_cents"]) == (20, 1500)
    assert unit["bands"] != at_15["bands"]
    auto = json_out("rtp", GAME_ID, "--distribution")
    auto_15 = json_out("rtp", GAME_ID, "--distribution", "--stake", "1500")
    assert auto["play"] == "auto"
    assert auto["mean"]["fraction"] == by_play["auto"] == auto_15["mean"]["fraction"]
    table = invoke("rtp", GAME_ID, "--distribution", "--play", "auto-risk", "--stake", "1500")
    assert table.exit_code == 0, table.output
    assert "AUTO-RISK" in table.stdout and "€15.00" in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--distribution", "--play", "bogus"), "unknown play 'bogus'"),
        (("--distribution", "--stake", "7"), "stake 7 is not offered"),
        (("--play", "auto-risk"), "--play goes with --distribution"),
        (("--distribution", "--mode", "upper", "--play", "auto-risk"), "COLLECT ALL only"),
    ],
)
def test_rtp_distribution_refuses_bad_options(args: tuple[str, ...], message: str) -> None:
    result = invoke("rtp", GAME_ID, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_rtp_distribution_of_a_game_without_plays_refuses_play() -> None:
    result = invoke("rtp", "reign-of-gnomes", "--distribution", "--play", "auto-risk")
    assert result.exit_code == 2, result.output
    assert "takes no play" in result.output


# -- simulate --------------------------------------------------------------------------------------


def test_simulate_the_auto_play_of_a_variant() -> None:
    args = ("simulate", GAME_ID, "--variant", "70", "--rounds", "20000", "--seed", "7")
    sim = json_out(*args)
    assert (sim["game"], sim["variant"], sim["mode"], sim["rounds"], sim["seed"]) == (
        GAME_ID,
        "70",
        "base",
        20_000,
        7,
    )
    lo, hi = sim["ci99"]
    # At 20,000 rounds (SD 4.74 bets) the interval is +-8.6 points: only an error of 13 points is
    # caught with 90% power.  A check of the command; tests/test_pinguinos_kernel.py holds 0.5.
    assert lo < GAME.exact("70")["rtp"] < hi and 0 < sim["hit_frequency"] < 1
    assert sim["features"]["bonuses"]["count"] > 0
    again = json_out(*args)
    drop = {"rounds_per_second", "seconds"}
    assert {k: v for k, v in again.items() if k not in drop} == {
        k: v for k, v in sim.items() if k not in drop
    }
    table = invoke(*args)
    assert table.exit_code == 0, table.output
    assert "Monte Carlo" in table.stdout and "inside" in table.stdout


# -- play ------------------------------------------------------------------------------------------


class Policy:
    """What the test player types, played here on the rules with the seeded stream the command
    uses: a hold of another mask than the suggested one; at the first nudge offer garbage, then
    ``done``; at the second a bare reel number (the best one); later Enter; on a ladder PLAY
    once (``p``), then COLLECT (``c``); Enter to stop the Disco."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.nudge_menus = 0
        self.seen: set[str] = set()

    def decide(self, rnd: Round, plays: int) -> Action:
        names = [a.name for a in rnd.actions]
        phase = rnd.state["phase"]
        self.seen.add(phase)
        if phase == "ladder":
            assert names == ["collect", "play"]
            self.lines.append("p" if plays == 0 else "c")
            return Action(name="play" if plays == 0 else "collect")
        if phase == "nudge":
            assert sorted(names) == ["done", "nudge"]
            self.nudge_menus += 1
            nudge = next(a for a in rnd.actions if a.name == "nudge")
            if self.nudge_menus == 1:
                self.lines += ["zzz", "done"]
                return Action(name="done")
            if self.nudge_menus == 2:
                self.lines.append(str(nudge.default))
                return Action(name="nudge", choice=nudge.default)
            self.lines.append("")
            return rnd.default_action()
        if phase == "hold":
            (spec,) = rnd.actions
            mask = next(c for c in spec.choices or [] if c != spec.default)
            self.lines.append(str(mask))
            return Action(name="hold", choice=mask)
        assert phase == "disco" and names == ["stop"]
        self.lines.append("")
        return Action(name="stop")


def session(seed: int, stake: int, max_rounds: int) -> tuple[Policy, list[Round]]:
    """Rounds as ``reelforge play --seed`` deals them to the policy, until every kind of
    decision has come (or ``max_rounds``)."""
    rng = SeededRandom(seed)
    policy = Policy()
    state = None
    rounds = []
    while len(rounds) < max_rounds:
        policy.lines.append("")  # Enter to spin
        rnd = GAME.start(stake, rng, player_state=state)
        plays = 0
        while not rnd.complete:
            action = policy.decide(rnd, plays)
            plays += action.name == "play"
            rnd = GAME.act(rnd, action, rng)
        state = rnd.player_state
        rounds.append(rnd)
        if every_decision(policy, rounds):
            break
    return policy, rounds


def every_decision(policy: Policy, rounds: list[Round]) -> bool:
    """Every kind of decision, three nudge menus and three nudge offers (the designed data offers
    nudges in about 0.5% of games: a session runs to several hundred rounds)."""
    offers = sum(1 for r in rounds for e in r.events if e["type"] == "nudge_offer")
    return {"ladder", "nudge", "hold", "disco"} <= policy.seen and policy.nudge_menus >= 3 and offers >= 3


def a_full_session(stake: int) -> tuple[int, Policy, list[Round]]:
    for seed in range(200):
        policy, rounds = session(seed, stake, 3000)
        if every_decision(policy, rounds) and any(r.state["bonuses_won"] for r in rounds):
            return seed, policy, rounds
    raise AssertionError("no seed brings every decision within 3000 rounds")


def test_play_in_the_terminal_with_every_decision() -> None:
    stake, balance = 100, 100_000  # €1: coin 5
    seed, policy, rounds = a_full_session(stake)
    result = invoke(
        "play", GAME_ID, "--seed", str(seed), "--stake", str(stake), "--balance", str(balance),
        "--rounds", str(len(rounds)), stdin="\n".join(policy.lines) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Symbols: CH Cherries" in out and "Enter to spin €1.00 / q to quit" in out
    assert "payline:" in out and "┌" in out
    # Nudges: a menu of both actions, the reels spelt out; garbage refused, then done.
    offers = sum(1 for r in rounds for e in r.events if e["type"] == "nudge_offer")
    assert out.count("nudge(s)!") == offers >= 3
    assert re.search(r"(nudge \[0, 1, 2\] / done|done / nudge \[0, 1, 2\]) \(Enter = ", out)
    assert "0 reel 1  1 reel 2  2 reel 3" in out
    assert "'zzz' is not one of the choices." in out and "Nudges done (" in out
    assert re.search(r"Nudge reel \d \(\d left\)", out)
    # The hold: the masks spelt out, another mask than the suggested one held.
    assert "HOLD! Hold up to two reels" in out and "0 none  1 reel 1  2 reel 2  3 reels 1+2" in out
    assert re.search(r"hold \[0, 1, 2, 3, 4, 5, 6\] \(Enter = \d, reels? [\d+]+\): ", out)
    assert "(suggested reel" in out and "Held game: " in out
    # The ladders and the Disco.
    assert "collect / play (Enter = collect): " in out and "PLAY: " in out and "COLLECT it or PLAY" in out
    assert "DISCO!" in out and "The Disco stops on penguin" in out and "Enter to stop: " in out
    assert "Bonuses won" in out or "Bonus line:" in out
    # The machine before the first round and after every round, as the rules left it.
    shown = re.findall(r"^Machine: (\d+) Bonus(es)?, vertical lines counter (\d+)$", out, flags=re.M)
    assert [(int(b), many, int(v)) for b, many, v in shown] == [(0, "es", 0)] + [
        (s["bonuses"], "" if s["bonuses"] == 1 else "es", s["vertical_lines"])
        for s in (r.player_state for r in rounds)
    ]
    final = rounds[-1].player_state["bonuses"]
    assert final > 0
    won = sum(r.win for r in rounds)
    won_bonuses = sum(r.state["bonuses_won"] for r in rounds)
    assert won_bonuses == final  # the lower game stakes no Bonuses
    staked = len(rounds) * stake
    assert (
        f"Played {len(rounds)} games: staked {format_minor(staked, 'EUR')} + 0 Bonuses, "
        f"won {format_minor(won, 'EUR')} + {won_bonuses} Bonus{'' if won_bonuses == 1 else 'es'}. "
        f"Final balance {format_minor(balance - staked + won, 'EUR')}; the machine holds {final} Bonus" in out
    )
    assert "{'type'" not in out  # every event of the game is told in words


def test_play_refuses_a_stake_not_offered_and_stops_below_the_bet() -> None:
    result = invoke("play", GAME_ID, "--stake", "40", stdin="\n")
    assert result.exit_code != 0 and "offered stakes" in result.output
    result = invoke("play", GAME_ID, "--seed", "1", "--stake", "100", "--balance", "99", stdin="\n")
    assert result.exit_code == 0, result.output
    assert "Balance €0.99 is below the stake €1.00: stopping." in result.stdout
    assert "Played 0 games: staked €0.00 + 0 Bonuses" in result.stdout


# -- hit frequency: one meaning per name -----------------------------------------------------------

LINE_HITS = {
    "base": "line hit frequency (paid games showing a prize on the line as they land)",
    "upper": "line hit frequency (5-line paid games showing a prize as they land)",
}
ROUND_HITS = "round hit frequency (rounds winning anything)"


def row(text: str, name: str) -> str:
    """The table row a name starts (the whole line)."""
    (line,) = [ln for ln in text.splitlines() if f"│ {name} " in ln]
    return line


@pytest.mark.parametrize("mode", ["base", "upper"])
def test_hit_frequency_means_one_thing_under_each_name_in_rtp_and_simulate(mode: str) -> None:
    """The exact report counts paid games whose line pays as it lands; a simulation counts
    rounds that win anything.  Each figure has its name wherever it is shown, and ``rtp`` gives
    the round figure too (exact, from the win distribution), which the simulation must match."""
    exact = GAME.exact(mode=mode)
    dist = win_distribution(GAME, mode=mode)
    assert dist is not None
    rounds_exact = 1 - float(dist.p_no_win().value)
    rounds = 200_000
    sd = math.sqrt(rounds_exact * (1 - rounds_exact) / rounds)
    # two different events, far enough apart that the simulation below tells them apart
    assert abs(rounds_exact - exact["hit_frequency"]) > 2 * 3.9 * sd

    out = json_out("rtp", GAME_ID, "--mode", mode)
    assert out["hit_frequency"] == exact["hit_frequency"]
    assert out["hit_frequency_name"] == LINE_HITS[mode]
    assert out["round_hit_frequency"] == pytest.approx(rounds_exact, abs=1e-15)
    text = invoke("rtp", GAME_ID, "--mode", mode).stdout
    assert f"{exact['hit_frequency'] * 100:.2f}%" in row(text, LINE_HITS[mode])
    assert f"{rounds_exact * 100:.2f}%" in row(text, ROUND_HITS)
    assert "│ hit frequency " not in text  # never a bare name

    args = ("simulate", GAME_ID, "--mode", mode, "--rounds", str(rounds), "--seed", "11")
    sim = json_out(*args)
    assert sim["hit_frequency_name"] == ROUND_HITS and sim["rounds"] == rounds
    assert abs(sim["hit_frequency"] - rounds_exact) < 3.9 * sd  # the same event as the round figure
    text = invoke(*args).stdout
    line = row(text, ROUND_HITS)
    assert f"{sim['hit_frequency'] * 100:.2f}%" in line and f"exact {rounds_exact * 100:.2f}%" in line
    assert "inside" in line
    assert "│ hit frequency " not in text and LINE_HITS[mode] not in text
