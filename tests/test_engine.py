"""Engine: way and line evaluation by hand, and exact expectations against brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from reelforge.engine.evaluate import evaluate_lines, evaluate_ways, scatter_positions
from reelforge.engine.exact import (
    symbol_count_distribution,
    ways_expectation,
    ways_expectation_by_symbol,
    ways_hit_and_scatter,
)
from reelforge.engine.reels import ReelSet, ReelStrip
from reelforge.money import BetLevel, InvalidBet, bet_levels, find_bet, format_minor, parse_minor
from reelforge.rng import SeededRandom

PAYS = {"A": {3: 5, 4: 10, 5: 50}, "B": {3: 2, 4: 4, 5: 8}}


def test_ways_pay_the_longest_combination_times_the_ways() -> None:
    window = [["A", "B", "C"], ["A", "W", "C"], ["A", "C", "C"], ["C", "C", "C"], ["A", "A", "A"]]
    wins = {w.symbol: w for w in evaluate_ways(window, PAYS, wild="W")}
    # A: reel1 1, reel2 2 (A + wild), reel3 1 -> 3 long, 2 ways; reel 4 breaks it.
    assert (wins["A"].length, wins["A"].ways, wins["A"].credits) == (3, 2, 10)
    # B: reel1 1, reel2 1 (wild), reel3 0 -> too short to pay.
    assert "B" not in wins
    assert [0, 0] in wins["A"].positions and [1, 1] in wins["A"].positions


def test_ways_five_long_multiplies_every_reel() -> None:
    window = [["A", "A", "B"], ["W", "A", "A"], ["A", "B", "B"], ["A", "W", "B"], ["A", "B", "A"]]
    (win_a,) = [w for w in evaluate_ways(window, PAYS, wild="W") if w.symbol == "A"]
    assert win_a.length == 5 and win_a.ways == 2 * 3 * 1 * 2 * 2 and win_a.credits == 50 * 24


def test_scatter_positions_anywhere() -> None:
    window = [["S", "A", "A"], ["A", "A", "A"], ["A", "S", "A"]]
    assert scatter_positions(window, "S") == [[0, 0], [2, 1]]


def test_lines_pay_the_highest_combination_per_line_and_sum() -> None:
    window = [["A", "B", "C"], ["W", "B", "C"], ["A", "B", "C"], ["W", "C", "C"], ["B", "C", "C"]]
    lines = [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1]]
    wins = evaluate_lines(window, lines, PAYS, wild="W", wild_pays={4: 100})
    assert [(w.line, w.symbol, w.length, w.credits) for w in wins] == [(0, "A", 4, 10), (1, "B", 3, 2)]
    # A leading run of wilds pays as wilds when that pays more.
    window2 = [["W"], ["W"], ["W"], ["W"], ["A"]]
    (best,) = evaluate_lines(window2, [[0] * 5], PAYS, wild="W", wild_pays={4: 100})
    assert (best.symbol, best.credits) == ("W", 100)


TOY = ReelSet.from_lists(
    [
        ["A", "B", "S", "C", "A", "B"],
        ["W", "A", "C", "B", "S", "C", "A"],
        ["B", "A", "W", "C", "C"],
        ["A", "S", "B", "C", "A", "C"],
        ["C", "A", "B", "B", "S"],
    ]
)


def _brute_force(reels: ReelSet) -> tuple[Fraction, dict[tuple[bool, int], Fraction], dict[int, Fraction]]:
    total = 1
    for strip in reels.strips:
        total *= len(strip)
    credits = 0
    joint: dict[tuple[bool, int], int] = {}
    scatters: dict[int, int] = {}
    for stops in itertools.product(*(range(len(s)) for s in reels.strips)):
        window = reels.window(stops)
        wins = evaluate_ways(window, PAYS, wild="W")
        credits += sum(w.credits for w in wins)
        k = len(scatter_positions(window, "S"))
        joint[(bool(wins), k)] = joint.get((bool(wins), k), 0) + 1
        scatters[k] = scatters.get(k, 0) + 1
    return (
        Fraction(credits, total),
        {key: Fraction(v, total) for key, v in joint.items()},
        {k: Fraction(v, total) for k, v in scatters.items()},
    )


def test_exact_expectations_match_brute_force_enumeration() -> None:
    expect, joint, scatters = _brute_force(TOY)
    assert ways_expectation(TOY, PAYS, "W") == expect
    assert ways_hit_and_scatter(TOY, PAYS, "W", "S") == dict(sorted(joint.items()))
    assert symbol_count_distribution(TOY, "S") == dict(sorted(scatters.items()))


@pytest.mark.parametrize("weighted", [False, True])
def test_ways_by_symbol_and_length_match_brute_force(weighted: bool) -> None:
    """Each symbol's (probability it pays, expected credits) per paying length, against every
    stop combination weighted by its stops' weights; a paytable with a missing length (4 pays
    as 3) and the wild a paying symbol of its own."""
    pays = {"A": {3: 5, 5: 50}, "B": {2: 1, 3: 2, 4: 4, 5: 8}, "W": {3: 20, 4: 40, 5: 100}}
    reels = (
        ReelSet(
            tuple(
                ReelStrip(s.symbols, tuple((i + j) % 3 + 1 for j in range(len(s))))
                for i, s in enumerate(TOY.strips)
            )
        )
        if weighted
        else TOY
    )
    total = 1
    for strip in reels.strips:
        total *= strip.total_weight
    probability: dict[tuple[str, int], int] = {}
    credits: dict[tuple[str, int], int] = {}
    for stops in itertools.product(*(range(len(s)) for s in reels.strips)):
        w = 1
        for strip, stop in zip(reels.strips, stops, strict=True):
            w *= strip.stop_weight(stop)
        for win in evaluate_ways(reels.window(stops), pays, wild="W"):
            key = (win.symbol, max(n for n in pays[win.symbol] if n <= win.length))
            probability[key] = probability.get(key, 0) + w
            credits[key] = credits.get(key, 0) + w * win.credits
    got = ways_expectation_by_symbol(reels, pays, "W")
    assert {(s, n) for s, per in got.items() for n, (p, _) in per.items() if p} == set(probability)
    for (symbol, n), weight in probability.items():
        assert got[symbol][n] == (Fraction(weight, total), Fraction(credits[(symbol, n)], total))


def test_weighted_strips_are_enumerated_by_weight() -> None:
    weighted = ReelSet(
        tuple(
            ReelStrip(s.symbols, tuple(range(1, len(s) + 1))) if i == 1 else s
            for i, s in enumerate(TOY.strips)
        )
    )
    dist_direct = symbol_count_distribution(weighted, "S")
    counts: dict[int, Fraction] = {}
    total = 1
    for strip in weighted.strips:
        total *= strip.total_weight
    for combo in itertools.product(*(range(len(s)) for s in weighted.strips)):
        w = 1
        for strip, stop in zip(weighted.strips, combo, strict=True):
            w *= strip.stop_weight(stop)
        k = len(scatter_positions(weighted.window(combo), "S"))
        counts[k] = counts.get(k, Fraction(0)) + Fraction(w, total)
    assert dist_direct == dict(sorted(counts.items()))
    rng = SeededRandom(1)
    assert all(0 <= weighted.strips[1].draw_stop(rng) < len(weighted.strips[1]) for _ in range(100))


def test_money_is_integers_and_bets_are_checked() -> None:
    assert format_minor(480) == "£4.80" and format_minor(-5) == "-£0.05"
    assert parse_minor("£4.80") == 480 and parse_minor("0.4") == 40
    with pytest.raises(ValueError):
        parse_minor("1.234")
    with pytest.raises(TypeError):
        format_minor(1.5)  # type: ignore[arg-type]
    levels = bet_levels([1, 2, 12], 40)
    assert find_bet(levels, 80) == BetLevel(coin=2, credits=40)
    with pytest.raises(InvalidBet, match="not offered"):
        find_bet(levels, 81)
    with pytest.raises(InvalidBet):
        find_bet(levels, 80.0)  # type: ignore[arg-type]


def test_a_copied_round_equals_a_deep_copy_and_shares_nothing_that_changes() -> None:
    """``Round.copied`` (what every game's ``act`` changes) against pydantic's deep copy, at
    every step of rounds of every registered game, the player state carried."""
    import numpy as np

    from reelforge.engine.game import InsufficientSideBalance, levels_for
    from reelforge.games import get_game, registry

    steps = 0
    for game_id in sorted(registry()):
        game = get_game(game_id)
        rng = SeededRandom(np.random.SeedSequence(7))
        player_state = None  # carried over the modes: the base game wins what the upper game plays
        for mode in game.modes:
            stake = levels_for(game, game.default_variant, mode)[0].stake
            for _ in range(400):
                try:
                    rnd = game.start(stake, rng, mode=mode, player_state=player_state)
                except InsufficientSideBalance:
                    break
                while True:
                    copy = rnd.copied()
                    assert copy == rnd.model_copy(deep=True) and copy is not rnd
                    copy.events.append({"type": "marker"})
                    copy.state["marker"] = [1]
                    for event in copy.events:
                        event["marker"] = True
                    assert all("marker" not in e for e in rnd.events) and "marker" not in rnd.state
                    if rnd.complete:
                        break
                    rnd = game.act(rnd, rnd.default_action(), rng)
                    steps += 1
                player_state = rnd.player_state
    assert steps > 1_000  # free spins, picks, Lock & Spin, nudges, the upper game
