"""The whole machine's chain: the lower round's joint law of Bonuses and vertical-line hits
against the readable rules, and the long-run figures of standard play on a small case.

The law is walked by ``machine_exact``; the Monte Carlo plays the real rules (``start`` then
``auto_action`` with AUTO-ADVANCE on and AUTO-RISK off) on a fixed seed and compares the
cell counts by a chi-square test (cells pooled to an expected count of at least 20) and the
means of Bonuses and hits within 99% bounds from their variances.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from scipy.stats import chi2

from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import machine_exact as M
from reelforge.rng import SeededRandom

AUTO = {"auto_advance": True, "auto_risk": False}
ROUNDS = 40_000


@pytest.fixture(scope="module")
def game() -> LosTresPinguinos:
    return LosTresPinguinos()


def _play_lower(game: LosTresPinguinos, rounds: int, seed: int) -> Counter[tuple[int, int]]:
    rng = SeededRandom(seed)
    seen: Counter[tuple[int, int]] = Counter()
    for _ in range(rounds):
        rnd = game.start(20, rng, player_state=None)
        while not rnd.complete:
            action = game.auto_action(rnd, AUTO)
            assert action is not None
            rnd = game.act(rnd, action, rng)
        hits = sum(e["hits"] for e in rnd.events if e["type"] == "vertical_lines")
        seen[(rnd.state["bonuses_won"], hits)] += 1
    return seen


def test_the_lower_round_law_is_a_distribution(game: LosTresPinguinos) -> None:
    law = M.lower_round_law(game.data())
    assert sum(law.values()) == 1
    assert all(p > 0 for p in law.values())
    assert max(h for _, h in law) <= 6  # two games, three reels each


def test_the_lower_round_law_matches_the_rules(game: LosTresPinguinos) -> None:
    law = M.lower_round_law(game.data())
    seen = _play_lower(game, ROUNDS, seed=20261201)
    # Pool rare cells so every expected count is at least 20.
    cells = sorted(law, key=lambda k: -law[k])
    groups: list[list[tuple[int, int]]] = []
    for cell in cells:
        if groups and sum(law[c] for c in groups[-1]) * ROUNDS < 20:
            groups[-1].append(cell)
        else:
            groups.append([cell])
    if len(groups) > 1 and sum(law[c] for c in groups[-1]) * ROUNDS < 20:
        groups[-2] += groups.pop()
    assert sum(seen.values()) == ROUNDS
    assert set(seen) <= set(law), f"cells the law says cannot happen: {set(seen) - set(law)}"
    stat = 0.0
    for group in groups:
        expected = float(sum(law[c] for c in group)) * ROUNDS
        observed = sum(seen[c] for c in group)
        stat += (observed - expected) ** 2 / expected
    # At 99.9% (many cells, Python-speed rounds): a cell of probability p off by a relative r
    # adds ROUNDS p r**2 / (1 - p) to the noncentrality, caught with 90% power once that is
    # about 29-50 (5-30 df): at 40,000 rounds r = 2.7-3.5% for p = 50%, 8-11% for p = 10%.
    assert stat < chi2.ppf(0.999, len(groups) - 1), f"chi-square {stat:.1f} over {len(groups)} cells"
    for which in (0, 1):
        mean = sum(k[which] * p for k, p in law.items())
        var = sum(k[which] ** 2 * p for k, p in law.items()) - mean**2
        got = sum(k[which] * n for k, n in seen.items()) / ROUNDS
        bound = 2.576 * math.sqrt(float(var) / ROUNDS)
        assert abs(got - float(mean)) < bound, (which, got, float(mean), bound)


def test_the_upper_counter_step_is_a_distribution(game: LosTresPinguinos) -> None:
    step = M.upper_counter_step(game.data())
    assert sum(p for _, p in step) == 1
    assert [k for k, _ in step] == [0, 1, 2, 3, 4, 5]


def test_standard_play_long_run_on_a_hand_made_value(game: LosTresPinguinos) -> None:
    """With the upper game returning exactly its cash at 5 and 8 lines, the machine returns a
    stake-weighted mix of the lower game's cash return and 100%; the shares are probabilities."""
    d = game.data()
    value = Fraction(d.upper.bets[0].cash)
    out = M.machine_long_run(d, 20, 0, (value, value))
    lower_rtp = float(M.S.values(d, "auto").cash_cents) / 20
    assert 0 < out["upper_game_share"] < 1
    assert 0 <= out["eight_line_share_of_upper"] <= 1
    lo, hi = sorted((lower_rtp, 1.0))
    assert lo < out["rtp"] < hi
    # Bonuses in = Bonuses out in the long run: lower rounds' Bonuses pay the upper games.
    law = M.lower_round_law(d)
    mean_bonuses = float(sum(b * p for (b, _), p in law.items()))
    s = out["upper_game_share"]
    assert (1 - s) * mean_bonuses == pytest.approx(s * d.upper.bets[0].bonuses, rel=1e-9)


def test_the_whole_machine_under_standard_play_returns_the_configured_rtp(game: LosTresPinguinos) -> None:
    """Lower games until the Bonuses cover €0.20 + 1 Bonus, then upper games: the lower game
    fills the counter, so nearly every upper game has 8 lines; the chain's cash return is
    machine_best's (renewal) figure of the AUTO play, between its 5-line and 8-line values, and
    within 0.1 point of the variant's target, at every pairing."""
    from reelforge.games.los_3_pinguinos import machine_best as MB

    for variant in ("95", "70"):
        d = game.data(variant)
        runs = M.standard_play(d)
        exact = MB.play_figure(d, "auto")["by_pairing"]
        for run, row in zip(runs, exact, strict=True):
            assert run["eight_line_share_of_upper"] > 0.99
            lo, hi = sorted((row["rtp_5_lines"], row["rtp_8_lines"]))
            assert lo - 1e-9 <= run["rtp"] <= hi + 1e-9, (variant, run, row)
            assert abs(run["rtp"] - int(variant) / 100) < 0.001, run


def test_the_lower_round_law_at_a_larger_bet_carries_that_bets_own_disco(game: LosTresPinguinos) -> None:
    """At €15 the Disco pays 50-300 Bonuses (its own table), the Bonus line 75 × the unit's,
    and the mean Bonuses a round are 75 × the unit's (the table keeps the means per stake)."""
    d = game.data()
    unit, big = M.lower_round_law(d), M.lower_round_law(d, 75)
    assert sum(big.values()) == 1 and all(p > 0 for p in big.values())
    amounts = {b for b, _ in big}
    disco = {int(k[1:]) for k in d.disco_table(75) if k[0] == "B"}
    assert disco == {50, 100, 150, 200, 250, 300}
    assert amounts == {0} | {75 * n for n in d.bonus_pays.values()} | disco
    assert sum(b * p for (b, _), p in big.items()) == 75 * sum(b * p for (b, _), p in unit.items())
    # the vertical-line hits do not depend on the bet
    hits = {h: sum(p for (_, g), p in law.items() if g == h) for law in (unit,) for h in range(7)}
    assert hits == {h: sum(p for (_, g), p in big.items() if g == h) for h in range(7)}
