"""Ghost of Gambini's exact math, checked against computations that do not share its code:
every draw path of the rules on small data files, brute-force windows, the stationary
distribution by a different method, and the targets the issue sets."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
import pytest

from draw_paths import every_path
from reelforge.games.ghost_of_gambini import GhostOfGambini
from reelforge.games.ghost_of_gambini import exact_panel as ep
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS, GambiniData, parse
from reelforge.games.ghost_of_gambini.exact import base_result
from reelforge.games.ghost_of_gambini.exact_feature import feature_result
from reelforge.games.ghost_of_gambini.exact_piggies import piggy_chain, toss_outcomes
from reelforge.games.ghost_of_gambini.odds import _no_line_win, hit_frequency, jackpot_odds, max_win_odds
from reelforge.games.ghost_of_gambini.panel import line_wins, spin_panel
from reelforge.games.ghost_of_gambini.piggies import toss

F = Fraction


@pytest.fixture(scope="module")
def gambini() -> GhostOfGambini:
    return GhostOfGambini()


@pytest.fixture(scope="module")
def data(gambini: GhostOfGambini) -> GambiniData:
    return gambini.data()


# -- every draw path ----------------------------------------------------------------------


def small_data(data: GambiniData, strips: dict[int, str], **changes: Any) -> GambiniData:
    """The real data file with some strips replaced (1-4 stops) and small weight tables."""
    raw = data.model_dump(mode="python")
    raw["strips"] = [strips.get(p, "MINI") for p in range(N_POS)]
    raw["magic_shot"] = {"none": 2, "gambini": 1, "ghost": 1}
    raw["magic_rewind"] = {"center": {"fire": 1, "skip": 1}, "jackpot": {"fire": 1, "skip": 2}}
    raw["ghost_coins"] = {"count": {1: 1}, "prizes": {"C1": 1}}
    for key, value in changes.items():
        raw[key] = value
    return parse(raw, "small")


SMALL_STRIPS = {
    0: "A MINI",
    2: "BL MINOR BL MINI",
    4: "K MINOR",
    6: "BL MINI",
    CENTER: "A GB K GG",
    11: "C1 MINI",
    13: "BL MINOR",
}


def test_one_spin_expectations_match_every_draw_path_of_the_rules(data: GambiniData) -> None:
    d = small_data(data, SMALL_STRIPS)
    center: dict[str, Fraction] = defaultdict(F)
    lines = collect = total = F(0)
    for prob, spin in every_path(lambda rng: spin_panel(d, rng)):
        total += prob
        center[spin.center] += prob
        lines += prob * spin.line_credits
        collect += prob * spin.collect_credits
    assert total == 1
    assert dict(center) == ep.center_distribution(d)
    exact_lines = sum((c for _, c in ep.line_prizes(d).values()), F(0))
    assert lines == exact_lines
    dist = ep.center_distribution(d)
    p_g, p_h = dist[d.wilds.gambini], dist[d.wilds.ghost]
    rewind, _ = ep.jackpot_rewind(d)
    expected = (p_g + p_h) * (ep.outer_prize_credits(d) + rewind) + p_h * ep.ghost_coin_credits(d)
    assert collect == expected
    assert rewind > 0 and collect > 0


def _windows(d: GambiniData) -> Iterator[tuple[Fraction, list[str]]]:
    """Every window of the strips (the center as its strip shows it), with its probability."""
    for stops in product(*(range(len(s)) for s in d.strips)):
        prob = F(1)
        for s in d.strips:
            prob /= len(s)
        yield prob, [strip[i] for strip, i in zip(d.strips, stops, strict=True)]


def test_line_wins_and_no_win_odds_match_brute_force_windows(data: GambiniData) -> None:
    strips = {p: "K MINI" if p % 3 == 1 else "A MINI" for p in range(9)}
    strips.update({4: "A K MINI", CENTER: "A K GB", 9: "A MINI", 10: "K MINI", 12: "A MINOR"})
    d = small_data(data, strips, magic_shot={"none": 1, "gambini": 0, "ghost": 0})
    d = parse(
        {
            **d.model_dump(mode="python"),
            "magic_rewind": {"center": {"fire": 0, "skip": 1}, "jackpot": {"fire": 0, "skip": 1}},
        },
        "s",
    )
    paid = no_win = F(0)
    for prob, symbols in _windows(d):
        credits = sum(w["credits"] for w in line_wins(d, symbols))
        paid += prob * credits
        no_win += prob * (credits == 0)
    assert paid == sum((c for _, c in ep.line_prizes(d).values()), F(0))
    assert _no_line_win(d, list(ep.position_dists(d))) == no_win
    assert 0 < no_win < 1


def test_piggy_toss_outcomes_match_every_draw_path(data: GambiniData) -> None:
    raw = data.model_dump(mode="python")
    raw["piggies"] = {
        "gambini_toss": {"left": 2, "right": 1, "both": 1},
        "sizes": [{"grow": 1, "stay": 2}, {"grow": 2, "stay": 1}, {"grow": 1, "stay": 1}],
    }
    d = parse(raw, "small")
    for sizes in product(range(3), repeat=2):
        for by in ("gambini", "ghost"):
            brute: dict[tuple[tuple[int, int], int], Fraction] = defaultdict(F)
            for prob, t in every_path(lambda rng, s=sizes, b=by: toss(d, s, b, rng)):
                brute[(t.sizes, t.popped)] += prob
            assert dict(brute) == toss_outcomes(d, sizes, by), (sizes, by)


def test_stationary_distribution_matches_power_iteration(data: GambiniData) -> None:
    chain = piggy_chain(data)
    states = chain.states
    idx = {s: i for i, s in enumerate(states)}
    p = np.zeros((len(states), len(states)))
    for s, row in chain.transition.items():
        for s2, q in row.items():
            p[idx[s], idx[s2]] += float(q)
    assert np.allclose(p.sum(axis=1), 1.0)
    v = np.full(len(states), 1.0 / len(states))
    for _ in range(20000):
        v = v @ p
    pi = np.array([float(chain.stationary[s]) for s in states])
    assert sum(chain.stationary.values()) == 1
    assert np.allclose(v, pi, rtol=0, atol=1e-12)


# -- the targets ------------------------------------------------------------------------


def test_exact_rtps_meet_the_targets_quickly(gambini: GhostOfGambini) -> None:
    start = time.perf_counter()
    base = gambini.exact(mode="base")
    buys = [gambini.exact(mode=m) for m in ("buy-lock-spin", "buy-super-lock-spin")]
    assert time.perf_counter() - start < 60
    rtp = F(base["rtp_fraction"])
    assert F(9598, 10000) <= rtp <= F(9602, 10000)
    assert sum(base["components"].values()) == pytest.approx(base["rtp"], abs=1e-12)
    for b in buys:
        assert F(9550, 10000) <= F(b["rtp_fraction"]) <= F(9650, 10000), b["mode"]
    assert 100 <= base["feature_one_in"] <= 300
    shares = [row["share"] for row in base["by_state"]]
    assert sum(shares) == pytest.approx(1.0, abs=1e-12)
    assert sum(r["share"] * r["next_spin_rtp"] for r in base["by_state"]) == pytest.approx(
        base["rtp"], abs=1e-12
    )
    assert sum(r["share"] * r["bias_stakes"] for r in base["by_state"]) == pytest.approx(0.0, abs=1e-9)


def test_every_jackpot_is_reachable_and_the_max_win_odds_are_exact(data: GambiniData) -> None:
    odds = jackpot_odds(data)
    for jp, entry in odds.items():
        per_round = entry["base_spin"] + entry["lock_spin"]
        assert per_round > F(1, 100_000_000), jp
        assert entry["buy-lock-spin"] > 0 and entry["buy-super-lock-spin"] > 0
    assert odds["GRAND"]["base_spin"] == 0  # the GRAND comes only out of Lock & Spin
    cap = max_win_odds(data)
    lo, hi = cap["base"]
    assert 0 < lo <= hi < F(1, 100_000_000)  # shown with its odds, as rarer than 1 in 1e8
    assert cap["grands_alone"] * data.prize_credits("GRAND") >= data.max_win_credits
    assert cap["buy-super-lock-spin"] > 0


def test_hit_frequency_is_a_probability_and_below_the_wild_rate_plus_lines(data: GambiniData) -> None:
    hit = hit_frequency(data)
    r = base_result(data)
    assert r.p_gambini + r.p_ghost < hit < 1
    assert F(10, 100) < hit < F(40, 100)


def test_feature_value_is_linear_in_the_frame_means(data: GambiniData) -> None:
    fr = feature_result(data, False, 3)
    b, s, g = fr.mean_frames()
    total = sum(fr.final_boards.values())
    assert total == 1
    assert all(x + y + z <= N_POS for x, y, z in fr.final_boards)
    assert b + s + g > 0 and fr.mean_spins >= 3
