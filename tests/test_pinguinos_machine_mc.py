"""The whole Los 3 Pinguinos machine in numba (``machine_kernel``): the rules, and the exact figure.

1. Draw for draw: the machine kernel and the readable rules (lower rounds under AUTO while the
   machine's Bonuses do not cover the upper bet, upper games under COLLECT ALL while they do,
   the player state carried from game to game) fed the same PCG64DXSM stream deal the same
   games: kind, cash in and out, Bonuses won and staked, paylines, and the machine after each
   game (Bonuses, the shared counter, the accumulator); at the end both generators are in
   the same state.
2. A fixed-seed Monte Carlo per variant holds the exact whole-machine cash return of
   ``machine_best.play_figure(d, "auto")`` at the €0.20 pairing in its 99% interval (batch
   means over independent chunks, each its own seed and new machine).  The exact figure is a
   bracket (its 5-line and 8-line values): the interval must overlap it.
3. Its upper games per lower round and its share of 8-line upper games agree with the exact
   ones.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pytest
from scipy.stats import poisson

from reelforge.games import get_game
from reelforge.games.los_3_pinguinos import machine_best as MB
from reelforge.games.los_3_pinguinos import machine_exact as ME
from reelforge.games.los_3_pinguinos import machine_kernel as M
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.rng import SeededRandom

GAME = get_game("los-3-pinguinos")
VARIANTS = tuple(GAME.variants)
AUTO = {"auto_advance": True, "auto_risk": False}  # AUTO lower rounds; COLLECT ALL upper games
DIFF_GAMES = 20_000  # per variant, at the €0.20 pairing
# 16,000,000 games in 40 chunks of 400,000 (plus 5,000 uncounted each).  A game's cash out has
# an SD of about 251 cents (12.5 bets) at the €0.20 pairing (bench/pinguinos_machine_mc.py, 100M
# games at 95), so the chunk mean's standard error is near 0.31 points of RTP (the batch means
# agree with the iid figure: the dependence through the machine is short); the 99% half-width is
# t(0.995, 39) x 0.31 = 0.85 points, and an error of (2.71 + 1.28) x 0.31 = 1.25 points in the
# cash return is caught with 90% power.
MC_GAMES = 16_000_000
MC_CHUNKS = 40
MC_WARMUP = 5_000
MC_SEED = 2027


class CountingRandom:
    """SeededRandom that counts its ``randbelow`` calls."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededRandom(seed)
        self.draws = 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        return self.inner.randbelow(n)


def rules_games(
    d: LowerData, variant: str, rng: CountingRandom, games: int, upper: int
) -> tuple[np.ndarray, Any]:
    """The standard play through the rules, one row per game (machine_kernel.COLUMNS)."""
    p = M.pairing(d, upper)
    stake = d.upper_stakes[upper]
    key = str(stake)
    machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    rows = np.zeros((games, len(M.COLUMNS)), dtype=np.int64)
    for n in range(games):
        up = machine["bonuses"] >= p.need
        before = rng.draws
        if up:
            rnd = GAME.start(stake, rng, variant=variant, mode="upper", player_state=machine)
        else:
            rnd = GAME.start(p.lower_bet, rng, variant=variant, player_state=machine)
        while not rnd.complete:
            action = GAME.auto_action(rnd, AUTO)
            assert action is not None
            rnd.allowed(action)
            GAME.advance(d, rnd, action, rng)
        machine = rnd.player_state
        st = rnd.state
        rows[n] = (
            int(up),
            p.cash if up else p.lower_bet,
            rnd.win,
            st["bonuses_won"],
            p.need if up else 0,
            st["lines"] if up else 0,
            machine["bonuses"],
            machine["vertical_lines"],
            machine["accumulators"].get(key, 0),
            rng.draws - before,
        )
    return rows, machine


def assert_same_games(variant: str, seed: int, games: int, upper: int = 0) -> np.ndarray:
    d = GAME.data(variant)
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    k_machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    got = M.play_games(d, bitgen, games, upper, k_machine)
    rng = CountingRandom(seed)
    expected, r_machine = rules_games(d, variant, rng, games, upper)
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        i = int(bad[0])
        detail = {c: (int(expected[i, k]), int(got[i, k])) for k, c in enumerate(M.COLUMNS)}
        pytest.fail(f"{variant}: {bad.size} games differ; first: game {i} (rules, kernel) {detail}")
    assert k_machine == r_machine
    assert bitgen.state == rng.inner.bit_generator.state  # the same words consumed, rejections included
    return got


def col(rows: np.ndarray, name: str) -> np.ndarray:
    return rows[:, M.COLUMNS.index(name)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_machine_kernel_plays_the_rules_game_for_game(variant: str) -> None:
    start = time.perf_counter()
    rows = assert_same_games(variant, 20260101 + VARIANTS.index(variant), DIFF_GAMES)
    print(f"{variant}: {len(rows)} games compared in {time.perf_counter() - start:.1f} s")
    lines = col(rows, "lines")
    # both games, many times; the counter fed by the lower game and spent by the upper one
    assert (col(rows, "upper") == 1).sum() > 1000
    assert (lines == 8).sum() > 1000
    assert (col(rows, "counter") == 9).sum() > 1000
    assert (col(rows, "accumulator") == 0).sum() > 0 and col(rows, "accumulator").max() >= 6
    assert col(rows, "bonuses").max() >= 4  # a Bonus prize pays for a run of upper games


def test_machine_kernel_at_the_largest_pairing_plays_that_bets_prizes() -> None:
    """€15.00 + 150 Bonuses with the €15 lower bet: the Bonus line's prizes × 75, the Disco
    from the €15 bet's own table (50-300 Bonuses)."""
    rows = assert_same_games("95", 20260201, 6_000, upper=5)
    assert (col(rows, "upper") == 1).sum() > 100
    won = col(rows, "bonuses_won")[col(rows, "upper") == 0]
    won = won[won > 0]
    d = GAME.data("95")
    allowed = {75 * n for n in d.bonus_pays.values()} | {int(k[1:]) for k in d.disco_table(75) if k[0] == "B"}
    assert won.size > 0 and set(won.tolist()) <= allowed


@pytest.fixture(scope="module")
def runs() -> dict[str, dict[str, Any]]:
    out = {}
    for v in VARIANTS:
        d = GAME.data(v)
        exact = MB.play_figure(d, "auto")["by_pairing"][0]
        assert exact["lower_bet"] == 20 and exact["upper_stake"] == 100  # the €0.20 pairing
        seed = np.random.SeedSequence(MC_SEED, spawn_key=(VARIANTS.index(v),))
        start = time.perf_counter()
        tallies = M.simulate(d, seed, MC_GAMES, MC_CHUNKS, upper=0, warmup=MC_WARMUP)
        seconds = time.perf_counter() - start
        s = M.summarize(tallies, (exact["rtp_5_lines"], exact["rtp_8_lines"]))
        s["exact"] = exact
        s["seconds"] = seconds
        out[v] = s
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_monte_carlo_holds_the_exact_whole_machine_figure(
    runs: dict[str, dict[str, Any]], variant: str
) -> None:
    s = runs[variant]
    r = s["rtp"]
    print(
        f"{variant}: {s['games']:,} games in {s['seconds']:.1f} s, cash return {r['value']:.5f} "
        f"[{r['low']:.5f}, {r['high']:.5f}], exact {s['exact_bracket']}, z {s['z']:+.2f}"
    )
    assert s["games"] == MC_GAMES and s["lower_games"] + s["upper_games"] == MC_GAMES
    assert s["totals"].cash_in == 20 * MC_GAMES  # both bets of the pairing take €0.20
    assert r["half_width"] < 0.011  # the half-width stated above, and with it the detectable error
    assert s["inside"], f"{variant}: the exact figure {s['exact_bracket']} is outside {r}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_upper_games_per_lower_round_is_the_exact_one(runs: dict[str, dict[str, Any]], variant: str) -> None:
    s = runs[variant]
    x = s["upper_per_lower"]
    exact = s["exact"]["upper_games_per_lower_round"]
    assert x["low"] <= exact <= x["high"], f"{variant}: {exact} outside {x}"
    # every Bonus won is staked again: won - staked is what the balance moved from the end of a
    # chunk's warm-up to its end (checked per chunk by simulate_chunk), a few Bonuses a chunk
    assert abs(s["bonuses_won"] - s["bonuses_staked"]) < MC_CHUNKS * 100


def test_eight_line_share_is_the_exact_chains(runs: dict[str, dict[str, Any]]) -> None:
    """The 5-line upper games (the counter at zero) are rare, isolated events: their count is
    held to the exact chain's share of upper games (machine_exact) by a Poisson 99% interval."""
    d = GAME.data("95")
    share = ME.standard_play(d)[0]["eight_line_share_of_upper"]
    s = runs["95"]
    expected = (1 - share) * s["upper_games"]
    lo, hi = poisson.interval(0.99, expected)
    assert lo <= s["five_line_games"] <= hi, (s["five_line_games"], expected)
    assert math.isclose(s["eight_line_share"], share, abs_tol=1e-4)
