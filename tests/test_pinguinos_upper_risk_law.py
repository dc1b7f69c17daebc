"""``bench/pinguinos_upper_risk_law.py``: the upper game's AUTO-RISK law, simulated.

* The bench's accounting is the rules': a batch played by the bench (warm-up, blocks of
  ``play_rounds`` with the machine carried) books exactly what the readable rules pay when
  they play the same rounds from the same stream (``rules_rows`` of the kernel's differential
  test), and its bands are those ``WinDistribution.bands()`` gives for the rules' rounds.
* A modest fixed-seed run holds the exact AUTO-RISK RTP in its 99% batch-means interval,
  an interval narrow enough (below 2 points) that a real error could not hide in it.
* The doc page's SIMULATED table names every variant and bet, quotes the exact ``rtp_risk``
  and marks it inside or outside the interval it shows.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from reelforge.engine.distribution import WinDistribution
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import upper_kernel as K
from test_pinguinos_upper_kernel import COMPARED, CountingRandom, rules_rows

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs/games/los-3-pinguinos.md"
# The RTP interval's half-width must be below 2 points.  It is a Student-t interval over 40
# batch means (t = 2.708 at 39 df), so an error of (2.708 + 1.304) / 2.708 = 1.48 half-widths,
# under 3 points, is caught with 90% power: a cheap check of AUTO-RISK at 1,600,000 rounds
# against the exact rtp_risk.  The strong one is bench/pinguinos_upper_mc.py --risk (1e8 games
# per case, +-0.16 points; figures on docs/games/los-3-pinguinos.md).
TOLERANCE = 0.02


def _load_bench() -> ModuleType:
    path = ROOT / "bench/pinguinos_upper_risk_law.py"
    spec = importlib.util.spec_from_file_location("pinguinos_upper_risk_law", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


B = _load_bench()


@pytest.fixture(scope="module")
def game() -> LosTresPinguinos:
    return LosTresPinguinos()


# -- the accounting ---------------------------------------------------------------------------------


def expected_tally(stake: int, wins: list[int], cash: list[int], bonuses: list[int]) -> dict[str, Any]:
    """What a batch of these rounds must book, the bands from the engine's own law object."""
    n = len(wins)
    law = WinDistribution(
        game="los-3-pinguinos", variant="", mode="upper", stake=stake, cap=None, method="", error_bound="",
        exact_pmf={w: Fraction(c, n) for w, c in Counter(wins).items()},
    )  # fmt: skip
    return {
        "rounds": n,
        "win": sum(wins),
        "win_sq": sum(w * w for w in wins),
        "cash": sum(cash),
        "bonuses": sum(bonuses),
        "max_win": max(wins),
        "bands": [int(b.probability.exact * n) for b in law.bands()],  # type: ignore[operator]
    }


# (variant, bet, rounds, batch): a batch of seed 7's case where the rules' cap does not act (from
# €5 + 25 Bonuses up a round may win more than the cap's 4,000 Bonuses, which the bench, as the
# exact figure, leaves uncapped)
@pytest.mark.parametrize(
    ("variant", "bet", "rounds", "batch"), [("95", 0, 700, 1), ("70", 1, 500, 1), ("90", 3, 500, 0)]
)
def test_a_batch_books_what_the_rules_pay(
    game: LosTresPinguinos, variant: str, bet: int, rounds: int, batch: int
) -> None:
    """The bench's batch (warm-up, blocks of 128 rounds, machine carried) against the rules
    playing the same rounds from the same seed under AUTO-RISK, the machine carried."""
    d = game.data(variant)
    stake = d.upper_stakes[bet]
    warmup = 40
    seed = B.case_seeds(7, B.VARIANTS.index(variant) * B.N_BETS + bet, 3)[batch]
    tally = B.play_batch(d, seed, rounds, bet, warmup=warmup, sub=128)

    machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    rng = CountingRandom(seed)
    rows, _ = rules_rows(game, variant, rng, machine, bet, True, False, warmup + rounds)

    def column(name: str) -> list[int]:
        return [int(x) for x in rows[warmup:, COMPARED.index(name)]]

    assert not any(column("cap")), "the Bonus cap acted in the rules: pick another seed"
    wins, cash, bonuses = column("win"), column("cash"), column("bonuses")
    assert wins == [c + d.game.bonus_value * b for c, b in zip(cash, bonuses, strict=True)]
    assert sum(column("doubles")) > 20 and sum(bonuses) > 0  # fractions played, Bonuses won
    got = {k: getattr(tally, k) for k in ("rounds", "win", "win_sq", "cash", "bonuses", "max_win", "bands")}
    assert got == expected_tally(stake, wins, cash, bonuses)


def test_case_seeds_are_the_documented_spawn_tree() -> None:
    tree = np.random.SeedSequence(2026).spawn(24)[13].spawn(5)
    mine = B.case_seeds(2026, 13, 5)
    assert [s.generate_state(4).tolist() for s in mine] == [s.generate_state(4).tolist() for s in tree]


def test_round_wins_are_cash_plus_bonuses_at_their_value(game: LosTresPinguinos) -> None:
    d = game.data("95")
    rows = K.play_rounds(d, np.random.PCG64DXSM(np.random.SeedSequence(3)), 20_000, 5, True)
    win = B.round_wins(d, rows)
    assert np.array_equal(win, rows[:, K.R_CASH] + 80 * rows[:, K.R_BONUSES])
    assert (rows[:, K.R_BONUSES] > 0).sum() > 100  # AUTO-RISK wins Bonuses
    rows[0, K.R_WIN] += 1
    with pytest.raises(AssertionError, match="win column"):
        B.round_wins(d, rows)


def test_bands_are_the_engines(game: LosTresPinguinos) -> None:
    stake = 2500
    starts = B.band_starts(stake)
    labels = [b.label for b in B.bands_of(stake)]
    assert labels[0] == "0 (no win)" and labels[-1] == "> 1,000x" and len(starts) == len(labels) == 12
    wins = [0, 1, 2500, 2501, 5000, 5001, 2_500_000, 2_500_001, 9_000_000]
    t = B.Tally(len(starts))
    rows = np.zeros((len(wins), len(K.COLUMNS)), dtype=np.int64)
    rows[:, K.R_CASH] = rows[:, K.R_WIN] = wins
    t.add(game.data("95"), rows, starts)
    assert t.bands == expected_tally(stake, wins, wins, [0] * len(wins))["bands"]
    assert t.bands == [1, 2, 2, 1, 0, 0, 0, 0, 0, 0, 1, 2]


def test_intervals_from_batches(game: LosTresPinguinos) -> None:
    """Independent rounds (a known law) in 40 batches: the intervals hold the true figures,
    and batch means give about the iid half-width."""
    d = game.data("95")
    starts = B.band_starts(100)
    rng = np.random.default_rng(5)
    tallies = []
    for _ in range(40):
        w = rng.integers(0, 1000, 5000) * (rng.random(5000) < 0.2)
        rows = np.zeros((len(w), len(K.COLUMNS)), dtype=np.int64)
        rows[:, K.R_CASH] = rows[:, K.R_WIN] = w
        t = B.Tally(len(starts))
        t.add(d, rows, starts)
        tallies.append(t)
    mean, square = 0.2 * 499.5, 0.2 * 999 * 1999 / 6  # U uniform on 0..999, paid with chance 0.2
    s = B.summarize(tallies, 100, mean / 100)
    assert s["exact_inside"] and s["rounds"] == 200_000
    assert 0.7 < s["rtp"]["half_width"] / s["rtp_iid_half_width"] < 1.4
    sd = s["sd"]
    assert sd["low"] < np.sqrt(square - mean**2) / 100 < sd["high"] and sd["half_width"] < 0.05 * sd["value"]
    p0 = s["p_no_win"]
    assert p0["low"] < 0.8 + 0.2 / 1000 < p0["high"]
    assert B.wilson(0, 100)[0] == 0 and 0 < B.wilson(0, 100)[1] < 0.07


# -- the mean against the exact AUTO-RISK figure ---------------------------------------------------------


@pytest.mark.parametrize("variant", B.VARIANTS)
@pytest.mark.parametrize("bet", [0, 5])
def test_simulated_mean_holds_the_exact_auto_risk_rtp(game: LosTresPinguinos, variant: str, bet: int) -> None:
    d = game.data(variant)
    exact = game.exact(variant=variant, mode="upper")["by_bet"][bet]
    assert exact["stake"] == d.upper_stakes[bet]
    case = B.VARIANTS.index(variant) * B.N_BETS + bet
    tallies = [B.play_batch(d, s, 40_000, bet) for s in B.case_seeds(2027, case, 40)]  # 1,600,000 rounds
    s = B.summarize(tallies, d.upper_stakes[bet], exact["rtp_risk"])
    r = s["rtp"]
    assert r["half_width"] < TOLERANCE, r
    assert s["exact_inside"], (exact["rtp_risk"], r)
    assert s["sd"]["low"] > 4 and s["p_no_win"]["value"] > 0.8


# -- the doc page ---------------------------------------------------------------------------------


def test_the_doc_page_shows_the_simulated_law_beside_the_exact_mean(game: LosTresPinguinos) -> None:
    text = DOC.read_text()
    assert "The AUTO-RISK law" in text and "**SIMULATED**" in text
    text = text[text.index("**SIMULATED**") :]
    seen = 0
    for variant in game.variants:
        d = game.data(variant)
        for i, b in enumerate(d.upper.bets):
            name = B.bet_name(b.cash, b.bonuses)
            exact = game.exact(variant=variant, mode="upper")["by_bet"][i]["rtp_risk"]
            row = re.search(rf"^\| {variant} \| {re.escape(name)} \| ([\d,]+) \| (.*)$", text, re.M)
            assert row, (variant, name)
            cells = [c.strip() for c in row.group(2).split("|")]
            lo, hi = (float(x.rstrip("%")) / 100 for x in cells[1].strip("[]").split(", "))
            assert cells[2] == f"{exact * 100:.4f}%", (variant, name)
            assert cells[3] == ("yes" if lo <= exact <= hi else "**no**"), (variant, name)
            seen += 1
    assert seen == 24
