"""The upper game's exact math (``upper_exact``, ``upper_minigames_exact``) against the targets,
hand-computed cases, closed forms and Monte Carlo play of the readable rules.

The Monte Carlo checks play ``LosTresPinguinos`` itself (``start``, ``auto_action`` and
``advance``, the step ``act`` takes on a copy of the round) on fixed seeds and take their 99%
bounds from the variance they measure; none of them uses the code under test to produce its
estimate.  Bonuses count at ``bonus_value``; Double-or-Bonuses is
COLLECT ALL unless the test says AUTO-RISK.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from typer.testing import CliRunner

from reelforge.cli import app
from reelforge.engine.round import Round
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import upper_exact as U
from reelforge.games.los_3_pinguinos import upper_minigames_exact as M
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.los_3_pinguinos.upper_lines import evaluate, window
from reelforge.rng import ScriptedRandom, SeededRandom

F = Fraction
GAME = LosTresPinguinos()
VARIANTS = ("95", "90", "80", "70")
Z99 = 2.576
ALL_STOPS = list(product(range(16), repeat=3))


def play_out(rnd: Round, rng: Any, risk: bool = False) -> Round:
    """Finish a round the way AUTO-PLAY does (AUTO-RISK when ``risk``)."""
    d = GAME.data(rnd.variant)
    while rnd.status != "complete":
        action = GAME.auto_action(rnd, {"auto_risk": risk})
        assert action is not None
        rnd.allowed(action)
        GAME.advance(d, rnd, action, rng)  # act() without its copy of the round
    return rnd


def returned(d: LowerData, rnd: Round) -> int:
    """What a round returns, cents: cash plus its Bonuses at their value."""
    return rnd.win + rnd.state["bonuses_won"] * d.game.bonus_value


def fresh(d: LowerData, i: int, counter: int = 0, pieces: int = 0) -> dict[str, Any]:
    """A machine holding exactly bet ``i``'s Bonuses."""
    stake = d.upper_stakes[i]
    return {
        "bonuses": d.upper.bets[i].bonuses,
        "vertical_lines": counter,
        "accumulators": {str(stake): pieces},
    }


def assert_inside(estimate: float, sd: float, exact: float, what: str) -> None:
    """The estimate within 99% two-sided of the exact figure, ``sd`` being the estimate's own
    standard error from the same sample.  What it can see: an error of (2.576 + 1.282) sd = 3.86 sd
    is caught with 90% power, 4.9 sd with 99%; these checks of the readable rules (Python speed,
    thousands of rounds) guard a wrong rule or exact formula, which moves a figure by far more
    than that, not small drifts (the kernel tests and bench runs hold the RTP to 0.5 points)."""
    assert abs(estimate - exact) <= Z99 * sd, f"{what}: {estimate:.5f} vs exact {exact:.5f} (sd {sd:.5f})"


# -- (a) the configured figures meet the targets ---------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_bet_meets_its_variant_target(variant: str) -> None:
    d = GAME.data(variant)
    target = F(int(variant), 100)
    report = GAME.exact(variant, mode="upper")
    assert (report["mode"], report["method"], report["variant"]) == ("upper", "exact", variant)
    assert len(report["by_bet"]) == len(d.upper.bets) == 6
    for i, row in enumerate(report["by_bet"]):
        f = U.bet_figures(d, i)
        collect = f.rtp("collect")
        assert abs(collect - target) <= F(1, 1000), (variant, i, float(collect))
        assert F(row["rtp_fraction"]) == collect and row["rtp"] == float(collect)
        assert F(row["rtp_risk_fraction"]) == f.rtp("risk")
        assert row["stake"] == row["value"] == row["cash"] + row["bonuses"] * d.game.bonus_value
        # The 8-line game has its own offer chance: 5 and 8 lines each meet the target, so the
        # counter cannot move the RTP.  A played fraction returns twice itself or its value in
        # Bonuses, so AUTO-RISK is worth more.
        for lines in (5, 8):
            assert abs(f.rtp("collect", lines) - target) <= F(1, 1000), (variant, i, lines)
        assert f.e8.base["collect"] > f.e5.base["collect"]  # the columns pay line prizes
        assert U.offer_chance(d, i, 8) < U.offer_chance(d, i, 5)  # so minigames come less often
        assert f.rtp("risk") > collect
        assert row["lines5"]["collect"] == float(f.rtp("collect", 5))
        assert row["lines8"]["risk"] == float(f.rtp("risk", 8))
    assert report["rtp"] == report["by_bet"][0]["rtp"]
    assert F(report["rtp_fraction"]) == U.bet_figures(d, 0).rtp("collect")
    assert sum(report["components"].values()) == pytest.approx(report["rtp"], abs=1e-12)
    assert sum(report["counter_distribution"]) == pytest.approx(1, abs=1e-12)


def test_the_rtp_command_prints_a_table_per_bet() -> None:
    runner = CliRunner()
    args = ["rtp", "los-3-pinguinos", "--variant", "80", "--mode", "upper"]
    out = runner.invoke(app, [*args, "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(json.dumps(GAME.exact("80", mode="upper")))
    named = {"hit_frequency_name", "round_hit_frequency"}  # the CLI names the hit frequencies
    assert {k: v for k, v in json.loads(out.stdout).items() if k not in named} == report
    table = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    text = table.stdout
    assert "RTP by bet" in text and "by bet: [" not in text
    rows = report["by_bet"]
    for row, label in ((rows[0], "€0.20 + 1 Bonus "), (rows[-1], "€15.00 + 150 Bonuses")):
        line = next(x for x in text.splitlines() if label in x)
        for figure in (row["rtp"], row["rtp_risk"], row["lines5"]["collect"], row["lines8"]["collect"]):
            assert f"{figure * 100:.4f}%" in line


# -- (b) hand-computed cases and closed forms ------------------------------------------------


def with_bet0(d: LowerData, **changes: int) -> LowerData:
    raw = d.upper.model_dump()
    raw["bets"][0].update(changes)
    return d.model_copy(update={"upper": raw})


def test_double_or_bonuses_by_hand() -> None:
    d = GAME.data("95")
    bet = d.upper.bets[0]
    p = F(d.upper.double.double, d.upper.double.double + d.upper.double.bonuses)
    # Below half the maximum the cap never binds: each fraction returns (1 + p) times itself.
    for prize in (1, 37, bet.fraction, bet.fraction + 1, 3 * bet.fraction - 7, bet.max_prize // 2 - 1):
        assert M.risk_value(d, 0, prize) == prize * (1 + p), prize
    assert M.risk_value(d, 0, bet.max_prize) == bet.max_prize  # paid at once
    assert M.settled_value(d, 0, 1234, "collect") == 1234
    # A maximum of 1000 with fractions of 400: 700 plays 400 (a double reaches the maximum:
    # 1000) then 300 (doubled to 600, or 300 in Bonuses).
    small = with_bet0(d, max_prize=1000, minigame_floor=500)
    assert M.risk_value(small, 0, 700) == p * 1000 + (1 - p) * (400 + 300 * (1 + p))
    assert M.risk_value(small, 0, 300) == 300 * (1 + p)


def test_the_rules_double_or_bonuses_near_the_maximum_agrees_with_the_chain() -> None:
    """AUTO-RISK of a 9,900 prize at the €0.20 bet (24 fractions of 400, then 300 whose Bonuses
    are rounded at random), played by the rules: a Roulette of 5,000 + 2,500 + 1,200 + 600 + 600
    is dealt, the rest is drawn.  Doubles soon reach the maximum (€100), which ends the game."""
    d = GAME.data("95")
    u = d.upper
    bet = u.bets[0]
    stops = trigger(d, 0, "roulette")
    again_yes, again_no = u.roulette.again.no, 0  # [no, yes] weights: a draw >= no says yes
    lit = [u.roulette.sections.index(c) for c in (5000, 2500, 1200, 600, 600)]
    script = [*stops, u.minigame_offer[0].no]
    for k, section in enumerate(lit):
        script += [section, again_yes if k + 1 < len(lit) else again_no]
    rng = SeededRandom(4242)
    prize, n = 9900, 3000
    assert bet.max_prize // 2 < prize < bet.max_prize
    total = sq = 0
    for _ in range(n):
        dealt = ScriptedRandom(script, rng)
        rnd = play_out(GAME.start(d.upper_stakes[0], dealt, variant="95", mode="upper",
                                  player_state=fresh(d, 0)), dealt, risk=True)  # fmt: skip
        assert next(e for e in rnd.events if e["type"] == "double_start")["prize"] == prize
        x = returned(d, rnd)
        total += x
        sq += x * x
    mean = total / n
    sd = math.sqrt((sq / n - mean * mean) / n)
    exact = M.risk_value(d, 0, prize)
    assert_inside(mean, sd, float(exact), "AUTO-RISK of 9,900")
    p = F(u.double.double, u.double.double + u.double.bonuses)
    assert prize < exact < prize * (1 + p)  # the maximum binds


def trigger(d: LowerData, i: int, kind: str) -> list[int]:
    """Stops whose 5 lines start ``kind`` and draw nothing else before the offer (no mixed
    line, neither the accumulator nor the vertical lines in view)."""
    bet = d.upper.bets[i]
    for stops in ALL_STOPS:
        ev = evaluate(d.upper, bet, stops, False)
        if ev.minigame == kind and not (ev.accumulator or ev.vertical or ev.mixed_lines):
            return list(stops)
    raise AssertionError(f"no {kind} trigger")


def test_minigame_means_without_the_maximum_have_closed_forms() -> None:
    """With the maximum far away (truncation chance ~1e-18) the exact distributions' means are
    the compound-geometric closed forms."""
    d = with_bet0(GAME.data("95"), max_prize=100_000)
    u = d.upper
    again = F(u.roulette.again.yes, u.roulette.again.yes + u.roulette.again.no)
    roulette = F(sum(u.roulette.sections), len(u.roulette.sections)) / (1 - again)
    fish = {k: w for k, w in u.fishing.catch.items() if k != "X"}
    fishing = u.fishing.penguins * F(sum(int(k[1:]) * w for k, w in fish.items()), u.fishing.catch["X"])
    slides = F(sum(int(k[1:]) * w for k, w in u.slides.prizes.items()), sum(u.slides.prizes.values()))
    for kind, closed in (("roulette", roulette), ("fishing", fishing), ("slides", slides)):
        dist = M.minigame(d, 0, kind)
        assert sum(dist.values()) == 1
        mean = sum(p * x for x, p in dist.items())
        assert abs(mean - closed) < closed * F(1, 10**9), (kind, float(mean), float(closed))
    assert M.slides(d, 0) == {
        int(k[1:]): F(w, sum(u.slides.prizes.values()))
        for k, w in sorted(u.slides.prizes.items(), key=lambda kv: int(kv[0][1:]))
    }
    # One roulette section and stop: each section's prize has (1/16)(1 - again) at least.
    first = M.roulette(GAME.data("95"), 0)
    assert first[500] >= 3 * F(1, 16) * (1 - again)
    # Mixed sevens: n draws of the table; the sum's mean is n times the table's.
    d3 = GAME.data("95")
    table = d3.upper.bets[3].mixed
    one = F(sum(k * w for k, w in table.items()), sum(table.values()))
    for n in (1, 2, 3):
        dist = M.mixed_sum(d3, 3, n)
        assert sum(dist.values()) == 1 and sum(p * x for x, p in dist.items()) == n * one


def test_the_counter_and_accumulator_chains() -> None:
    d = GAME.data("95")
    u = d.upper

    # The symbols' window chances, counted from the strips: a symbol on a reel shows in the
    # window for the 3 stops around each copy.
    def shown(symbol: str) -> Fraction:
        miss = F(1)
        for strip in u.strips:
            at = {(k + dk) % 16 for k, s in enumerate(strip) if s == symbol for dk in (-1, 0, 1)}
            miss *= 1 - F(len(at), 16)
        return 1 - miss

    a, v = U.window_chances(d)
    assert (a, v) == (shown(u.accumulator), shown(u.vertical_lines))
    p, pi = U.counter_chain(d)
    assert sum(pi) == 1 and all(x > 0 for x in pi)
    assert all(sum(row) == 1 for row in p)
    for j in range(len(pi)):
        assert sum(pi[i] * p[i][j] for i in range(len(pi))) == pi[j]
    # Balance across the cut between {0..k} and {k+1..}: the flow up equals the flow down
    # (a game lowers the counter by exactly one).
    steps = {g: F(w, sum(u.vertical_step.values())) for g, w in u.vertical_step.items()}
    for k in range(len(pi) - 1):
        up = sum(pi[c] * v * sum(q for g, q in steps.items() if max(c - 1, 0) + g > k) for c in range(k + 1))
        down = pi[k + 1] * (1 - v)
        assert up == down, k
    # The accumulator: renewal theory.  m(k) = the accumulator events needed to fill from k.
    top = u.accumulator_pieces
    gains = {g: F(w, sum(u.accumulator_step.values())) for g, w in u.accumulator_step.items()}
    m = [F(0)] * (top + 3)
    for k in range(top - 1, -1, -1):
        m[k] = 1 + sum(q * (m[k + g] if k + g < top else 0) for g, q in gains.items())
    pieces, fills = U.accumulator_chain(d)
    assert fills == a / m[0] and sum(pieces) == 1


def quiet_blank(d: LowerData, i: int) -> list[int]:
    """Stops of a game that pays nothing and shows neither the accumulator nor the vertical
    lines (draws nothing after its stops)."""
    bet = d.upper.bets[i]
    for stops in ALL_STOPS:
        ev = evaluate(d.upper, bet, stops, True)
        if not ev.wins and not ev.accumulator and not ev.vertical:
            return list(stops)
    raise AssertionError("no quiet blank game")


def stratified(d: LowerData, i: int, lines: int, risk: bool, runs: int, seed: int) -> tuple[float, float]:
    """The paid game's mean return over the bet's value, every stop triple dealt in turn (the
    rules' first three draws) and the rest of the round drawn at random: ``runs`` rounds for a
    triple whose prize is random, one for the others.  Returns the mean and its sd."""
    inner = SeededRandom(seed)
    stake = d.upper_stakes[i]
    total = var = 0.0

    def one(stops: tuple[int, ...]) -> Round:
        machine = fresh(d, i, counter=1 if lines == 8 else 0)
        rnd = GAME.start(stake, ScriptedRandom(list(stops), inner), mode="upper", variant=d.game.variant,
                         player_state=machine)  # fmt: skip
        return play_out(rnd, inner, risk)

    for stops in ALL_STOPS:
        rnd = one(stops)
        x = returned(d, rnd)
        drawn = {"minigame_start", "minigame_not_offered", "mixed"} | ({"double_start"} if risk else set())
        if not any(e["type"] in drawn for e in rnd.events):
            total += x
            continue
        xs = [x] + [returned(d, one(stops)) for _ in range(runs - 1)]
        mean = sum(xs) / runs
        total += mean
        var += sum((y - mean) ** 2 for y in xs) / (runs - 1) / runs
    n = len(ALL_STOPS) * stake
    return total / n, math.sqrt(var) / n


@pytest.mark.parametrize(
    ("variant", "i", "lines", "risk", "runs"),
    [("95", 0, 5, False, 150), ("70", 3, 8, False, 40), ("90", 0, 8, True, 40)],
)
def test_the_paid_game_dealt_stop_by_stop(variant: str, i: int, lines: int, risk: bool, runs: int) -> None:
    d = GAME.data(variant)
    mean, sd = stratified(d, i, lines, risk, runs, seed=1000 + i + lines)
    game = U.bet_figures(d, i).e5 if lines == 5 else U.bet_figures(d, i).e8
    exact = game.value["risk" if risk else "collect"] / d.upper_stakes[i]
    assert_inside(mean, sd, float(exact), f"{variant} bet {i} {lines} lines")


def test_the_winning_spin_by_the_rules() -> None:
    """A blank paid game that fills the accumulator owes the WINNING SPIN: the round's return
    is its value, and its tries are geometric with the 5-line game's paying chance."""
    d = GAME.data("95")
    bet = d.upper.bets[0]
    stake = d.upper_stakes[0]
    stops = next(
        s for s in ALL_STOPS
        if (ev := evaluate(d.upper, bet, s, False)) and not ev.wins and ev.accumulator and not ev.vertical
    )  # fmt: skip
    rng = SeededRandom(777)
    n = 12_000
    total = sq = tries = 0
    for _ in range(n):
        machine = fresh(d, 0, pieces=d.upper.accumulator_pieces - 1)
        rnd = GAME.start(stake, ScriptedRandom([*stops, 0], rng), variant="95", mode="upper",
                         player_state=machine)  # fmt: skip
        rnd = play_out(rnd, rng)
        assert any(e["type"] == "winning_spin" for e in rnd.events)
        x = returned(d, rnd) / stake
        total += x
        sq += x * x
        tries += next(e["tries"] for e in rnd.events if e["type"] == "upper_spin" and e["game"] == "winning")
    mean = total / n
    sd = math.sqrt((sq / n - mean * mean) / n)
    w = U.bet_figures(d, 0).winning
    assert_inside(mean, sd, float(w.value["collect"] / stake), "WINNING SPIN value")
    pays = U.bet_figures(d, 0).e5.pays
    mean_tries = tries / n
    sd_tries = math.sqrt(float((1 - pays) / pays**2) / n)
    assert_inside(mean_tries, sd_tries, float(1 / pays), "WINNING SPIN tries")


@pytest.mark.parametrize("i", [0, 5])
def test_minigames_played_by_the_rules_follow_the_exact_distributions(i: int) -> None:
    """Each minigame started from its trigger line (offer forced) many times: the mean result
    (capped at the maximum) and the chance of reaching the maximum."""
    d = GAME.data("95")
    bet = d.upper.bets[i]
    offer = d.upper.minigame_offer[i]
    rng = SeededRandom(31 + i)
    for kind in ("roulette", "fishing", "slides"):
        stops = trigger(d, i, kind)
        n = 6000
        results = []
        for _ in range(n):
            script = ScriptedRandom([*stops, offer.no], rng)  # the offer draw: "yes"
            rnd = play_out(GAME.start(d.upper_stakes[i], script, variant="95", mode="upper",
                                      player_state=fresh(d, i)), rng)  # fmt: skip
            results.append(
                min(bet.max_prize, next(e["result"] for e in rnd.events if e["type"] == "minigame_end"))
            )
        dist = M.minigame(d, i, kind)
        mean = sum(results) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in results) / (n - 1) / n)
        assert_inside(mean, sd, float(sum(p * x for x, p in dist.items())), f"{kind} at bet {i}")
        top = dist.get(bet.max_prize, F(0))
        hits = sum(x == bet.max_prize for x in results) / n
        assert_inside(
            hits, math.sqrt(float(top * (1 - top)) / n) + 1 / n, float(top), f"{kind} top at bet {i}"
        )


def batch_means(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    var = sum((x - mean) ** 2 for x in values) / (len(values) - 1)
    return mean, math.sqrt(var / len(values))


def test_brute_force_play_agrees_with_the_configured_figure() -> None:
    """Upper-only play at the €0.20 bet, the machine carried from round to round (the counter
    and the accumulator evolve as the rules say): the RTP, the share of 8-line games and the
    WINNING SPINs per game, with 99% bounds from batch means (the chains correlate rounds)."""
    d = GAME.data("95")
    stake = d.upper_stakes[0]
    bet = d.upper.bets[0]
    rng = SeededRandom(20240917)
    machine = fresh(d, 0)
    batches, size = 150, 1000
    rtp: list[float] = []
    eight: list[float] = []
    fills: list[float] = []
    for _ in range(batches):
        ret = lines8 = won = 0
        for _ in range(size):
            machine["bonuses"] = bet.bonuses  # COLLECT wins no Bonuses; the bet takes its own
            rnd = play_out(GAME.start(stake, rng, variant="95", mode="upper", player_state=machine), rng)
            machine = rnd.player_state
            ret += returned(d, rnd)
            lines8 += rnd.events[0]["lines"] == 8
            won += any(e["type"] == "winning_spin" for e in rnd.events)
        rtp.append(ret / size / stake)
        eight.append(lines8 / size)
        fills.append(won / size)
    f = U.bet_figures(d, 0)
    for what, values, exact in (
        ("RTP", rtp, f.rtp("collect")),
        ("8-line share", eight, f.eight_share),
        ("fills per game", fills, f.fills),
    ):
        mean, sd = batch_means(values)
        assert_inside(mean, sd, float(exact), what)


# -- (c) every advertised prize can be won -----------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_advertised_prize_is_reachable(variant: str) -> None:
    d = GAME.data(variant)
    for i, bet in enumerate(d.upper.bets):
        odds = {o.name: o for o in U.prize_odds(d, i)}
        expected = {f"line {s}" for s in d.upper.pays} | {f"mixed {k}" for k, w in bet.mixed.items() if w}
        expected |= {f"{k} {e}" for k in ("roulette", "fishing", "slides") for e in ("top", "least")}
        assert set(odds) == expected | {"maximum"}, i
        for o in odds.values():
            assert isinstance(o.chance, Fraction) and 0 < o.chance < 1, (variant, i, o)
        assert odds["maximum"].cents == bet.max_prize
        for kind in ("roulette", "fishing", "slides"):
            assert odds[f"{kind} top"].cents == bet.max_prize
            least = odds[f"{kind} least"].cents
            assert bet.minigame_floor <= least < bet.max_prize
        # The maximum comes from the minigames and the lines: at least the minigames' share.
        tops = sum(odds[f"{k} top"].chance for k in ("roulette", "fishing", "slides"))
        assert odds["maximum"].chance >= tops
    # The €0.20 bet's floor (€5) is above its least trigger prize (€3): the floor is paid.
    assert all(o.cents == d.upper.bets[0].minigame_floor for o in U.prize_odds(d, 0) if "least" in o.name)


def test_line_odds_by_counting_windows() -> None:
    """Three of a symbol on one of the 5 lines, counted here from the windows directly."""
    d = GAME.data("95")
    u = d.upper
    counted: dict[str, int] = {s: 0 for s in u.pays}
    for stops in ALL_STOPS:
        w = window(u, stops)
        hit = {w[0][a] for a, b, c in u.lines if w[0][a] == w[1][b] == w[2][c] and w[0][a] in u.pays}
        for s in hit:
            counted[s] += 1
    for s, c in counted.items():
        assert U.line_symbol_chances(d, 0)[s] == F(c, 4096), s
