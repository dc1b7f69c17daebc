"""The conformance kit, math part: every registered game, mode and RTP variant, through the
protocol and the registry alone (no game's own module is imported here).  A new game is
covered by registering it.

- The game keeps its word: the protocol's attributes, the capabilities it declares; its exact
  report, kept on disk as a server keeps it, reads back equal to a fresh computation.
- Its exact RTP lies inside the 99% interval of a fixed-seed Monte Carlo of its kernel
  (``simulate_chunk``), run long enough that an error of 0.3 points is caught with 90% power
  at the default variant of every mode (the one dealt unless the operator picks another), 0.5
  points at the other variants (the same calculator and kernel on other data):
  n >= ((z99 + z90) * SD / tolerance)^2, the SD the game states or, where it states none, its exact law's.
  That SD only sizes the run (the run's own SD is held to the size asked), so it is kept on disk
  as the exact reports are, under the same key (the data's and the code's digests): computed
  once per data and code, read back by later runs.
- Its kernel plays the readable rules draw for draw: the same seed through ``simulate_chunk``
  and through ``start``/``act`` on ``SeededRandom`` (the rules' auto play, the player state
  carried from round to round) gives the same total win, sum of squares and hit count, to
  the unit.  One round played differently, or one draw taken more or less, changes them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reelforge.engine.capabilities import CAPABILITIES, check_game, has
from reelforge.engine.exact_store import ExactStore, default_dir, figures_key
from reelforge.engine.game import Game, levels_for, stated_sd, win_distribution
from reelforge.engine.stats import Z99
from reelforge.games import get_game, registry
from reelforge.rng import SeededRandom

Z90 = 1.2815515655446004  # one-sided 90%: the power asked of the RTP check
TOLERANCE = 0.003  # an RTP error of 0.3 points must be caught at the default variant
OTHER_TOLERANCE = 0.005  # and of 0.5 points at the others
KERNEL_ROUNDS = 3_000

GAMES = sorted(registry())
CASES = [(g, v, m) for g in GAMES for v in get_game(g).variants for m in get_game(g).modes]


def case_id(case: tuple[str, str, str]) -> str:
    return "-".join(case)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_game_keeps_its_word(game_id: str) -> None:
    game = get_game(game_id)
    store = ExactStore()  # the one the server and the Monte Carlo below read
    check_game(game)
    assert set(game.capabilities) <= set(CAPABILITIES)
    assert game.default_variant in game.variants and "base" in game.modes
    info = game.info()
    assert info["id"] == game.id and info["variants"] == game.variants
    for variant in game.variants:
        for mode in game.modes:
            levels = levels_for(game, variant, mode)
            assert levels and all(b.stake > 0 for b in levels)
            assert all(game.cost(b.stake, mode) >= b.stake or mode in game.own_bet_modes for b in levels)
            exact = game.exact(variant=variant, mode=mode)
            assert exact["game"] == game.id and exact["mode"] == mode
            assert 0 < exact["rtp"] < 1.2, exact["rtp"]
            # The figures a server keeps on disk read back as this fresh computation: the
            # ones kept by an earlier run of this code and data, or these, kept now.
            if store.kept(game, variant, mode) is None:
                store.keep(game, variant, mode, exact)
            assert store.kept(game, variant, mode) == exact


# The SDs, kept as the server keeps exact reports (ExactStore: keyed by the variant's data and
# the code's source, so a changed data file or calculator computes afresh), in a folder of their
# own beside them: Ghost of Gambini's base moments take 5 s a variant, Golden Scarab's law 6-11 s.
SD_STORE = ExactStore(default_dir() / "conformance-sd")


def exact_sd(game: Game, variant: str, mode: str) -> float | None:
    """:func:`computed_sd`, from :data:`SD_STORE` when kept for this data and code."""
    try:
        figures_key(game, variant, mode)
    except (AttributeError, TypeError, ValueError, OSError):  # no data to digest: never kept
        return computed_sd(game, variant, mode)
    kept = SD_STORE.kept(game, variant, mode)
    if kept is not None and set(kept) == {"sd"}:
        return None if kept["sd"] is None else float(kept["sd"])
    sd = computed_sd(game, variant, mode)
    SD_STORE.keep(game, variant, mode, {"sd": sd})
    return sd


def computed_sd(game: Game, variant: str, mode: str) -> float | None:
    """One round's SD in stakes: the SD the game states (quicker to have: Reign of Gnomes' first
    two moments take 4 s, its law 12 s), else its exact law's; None: neither."""
    stated = stated_sd(game, variant, mode)
    if stated is not None:
        return stated[0]
    if has(game, "win_distribution"):
        try:
            law = win_distribution(game, variant, mode)
        except NotImplementedError:
            law = None
        if law is not None:
            return float(law.sd().value)
    return None


def rounds_needed(sd: float, tolerance: float) -> int:
    return math.ceil(((Z99 + Z90) * sd / tolerance) ** 2)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_exact_rtp_lies_in_a_monte_carlo_that_catches_a_small_error(case: tuple[str, str, str]) -> None:
    game_id, variant, mode = case
    game = get_game(game_id)
    tolerance = TOLERANCE if variant == game.default_variant else OTHER_TOLERANCE
    # The exact report as a server keeps it (test_the_game_keeps_its_word: equal to a fresh one).
    exact = ExactStore().exact(game, variant, mode)
    seed = np.random.SeedSequence([20261206, GAMES.index(game_id), game.variants.index(variant)])
    sd = exact_sd(game, variant, mode)
    if sd is None:  # no exact SD: a pilot run's, 10% wider for its own error
        pilot = game.simulate_chunk(200_000, seed.spawn(1)[0], variant=variant, mode=mode).summary()
        sd = 1.1 * pilot["std"]
    # A margin: the kernel's play may spread a little wider than the law's.
    n = rounds_needed(1.05 * sd, tolerance)
    s = game.simulate_chunk(n, seed, variant=variant, mode=mode).summary()
    capped = bool(exact.get("max_win_cap_included", True))
    lo, hi = s["ci99"] if capped else s["ci99_uncapped"]
    assert lo <= exact["rtp"] <= hi, (exact["rtp"], (lo, hi), n)
    detectable = (hi - lo) / 2 * (Z99 + Z90) / Z99  # from the run's own SD
    assert detectable <= tolerance * 1.02, (detectable, n)  # the size held


def rules_play(game: Game, variant: str, mode: str, seed: np.random.SeedSequence, rounds: int) -> np.ndarray:
    """Each round's win through the readable rules: the kernel's stake (the mode's lowest), the
    game's auto play (the default action where that needs a human), the state carried."""
    stake = levels_for(game, variant, mode)[0].stake
    rng = SeededRandom(seed)
    settings = game.play_settings()
    states: dict[str | None, Any] = {}
    wins = np.zeros(rounds, dtype=np.int64)
    for i in range(rounds):
        key = game.state_key(stake, mode)
        rnd = game.start(stake, rng, variant=variant, mode=mode, player_state=states.get(key))
        while not rnd.complete:
            rnd = game.act(rnd, game.auto_action(rnd, settings) or rnd.default_action(), rng)
        states[key] = rnd.player_state
        wins[i] = rnd.win
    return wins


# A game with a side balance (Los 3 Pinguinos' Bonuses) counts what its kernel returns in two
# currencies, and its upper game needs Bonuses to start: its kernel is held to its rules in
# its own tests (tests/test_pinguinos_kernel.py, test_pinguinos_upper_kernel.py), named here
# so that the kit says which games it leaves to them.
OWN_KERNEL_TESTS = {"los-3-pinguinos": ("test_pinguinos_kernel.py", "test_pinguinos_upper_kernel.py")}
PLAIN = [g for g in GAMES if not get_game(g).side_balances]
KERNEL_CASES = [(g, get_game(g).default_variant, m) for g in PLAIN for m in get_game(g).modes]


@pytest.mark.parametrize("game_id", [g for g in GAMES if get_game(g).side_balances])
def test_a_game_with_a_side_balance_holds_its_kernel_to_its_rules_in_its_own_tests(game_id: str) -> None:
    here = Path(__file__).parent
    own = OWN_KERNEL_TESTS[game_id]  # a KeyError: a new game with a side balance must name its own
    assert all("def test_kernel_plays_the_rules_round_for_round" in (here / f).read_text() for f in own)


@pytest.mark.parametrize("case", KERNEL_CASES, ids=case_id)
def test_the_kernel_plays_the_rules_draw_for_draw(case: tuple[str, str, str]) -> None:
    game_id, variant, mode = case
    game = get_game(game_id)
    seed = np.random.SeedSequence([20261205, GAMES.index(game_id), game.modes.index(mode)])
    stats = game.simulate_chunk(KERNEL_ROUNDS, seed, variant=variant, mode=mode)
    wins = rules_play(game, variant, mode, seed, KERNEL_ROUNDS)
    stake = levels_for(game, variant, mode)[0].stake
    cost = game.cost(stake, mode)
    s = stats.summary()
    rules_rtp = wins.sum() / (cost * KERNEL_ROUNDS)
    rules_std = float(np.std(wins / cost))
    assert s["rtp"] == pytest.approx(rules_rtp, rel=1e-12, abs=1e-15), (s["rtp"], rules_rtp)
    assert s["std"] == pytest.approx(rules_std, rel=1e-9), (s["std"], rules_std)
    assert s["hit_frequency"] == pytest.approx(float((wins > 0).mean()), abs=1e-15)
    assert (wins > 0).sum() > 0.05 * KERNEL_ROUNDS  # the rounds compared win something
