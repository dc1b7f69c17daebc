"""The Ghost of Gambini numba kernel against the readable rules, draw for draw.

The differential tests feed the kernel and the rules the same PCG64DXSM stream and demand
identical rounds, in order: the win, the number of draws, the piggy sizes after the round,
the feature played and its spins, and what the base spin did (magic shot, center wild,
rewinds, ghost coins, line and collection credits); at the end both generators must be in
the same state.  Each mode is compared over 100,000 rounds; further batches play the cap
(the rules end a round there) on a copy of the data with a small ``max_win``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pytest

from reelforge.engine import kernel_rng as krng
from reelforge.engine.stats import Z99
from reelforge.games.ghost_of_gambini import GhostOfGambini
from reelforge.games.ghost_of_gambini import kernel as K
from reelforge.games.ghost_of_gambini.data_model import GambiniData
from reelforge.rng import SeededRandom

MODES = ("base", "buy-lock-spin", "buy-super-lock-spin")
DIFF_ROUNDS = 100_000  # per mode (the issue asks for at least 100,000)

# kernel columns the rules can tell (words and win_uncapped have no rules twin)
COMPARED = (
    "win",
    "draws",
    "piggy_left",
    "piggy_right",
    "feature",
    "feature_spins",
    "all_gold",
    "feature_win",
    "shot",
    "center_wild",
    "center_rewind",
    "jackpot_rewind",
    "ghost_coins",
    "line_win",
    "collect_win",
    "max_win",
)
_SHOTS = {None: 0, "gambini": 1, "ghost": 2}


@pytest.fixture(scope="module")
def game() -> GhostOfGambini:
    return GhostOfGambini()


@pytest.fixture(scope="module")
def data(game: GhostOfGambini) -> GambiniData:
    return game.data()


class CountingRandom:
    """SeededRandom that counts its ``randbelow`` calls (cheaper than RecordingRandom)."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededRandom(seed)
        self.draws = 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        return self.inner.randbelow(n)


def _feature_kind(start: dict[str, Any]) -> int:
    if start["bought"]:
        return K.FEATURE_KINDS.index("bought_super_lock_spin" if start["super"] else "bought_lock_spin")
    name = ("super_lock_spin_" if start["super"] else "lock_spin_") + str(start["spins"])
    return K.FEATURE_KINDS.index(name)


def rules_rows(
    game: GhostOfGambini, seed: int, rounds: int, mode: str, piggies: tuple[int, int] = (0, 0)
) -> tuple[np.ndarray, Any]:
    """Play ``rounds`` rounds of ``mode`` through the rules on one stream (each Lock & Spin
    spin taken as offered; base: the piggies carried from round to round).  Returns the
    COMPARED columns and the generator's state afterwards."""
    d = game.data()
    rng = CountingRandom(seed)
    stake = game.bet_levels()[0].stake
    player_state: dict[str, Any] | None = {"piggies": list(piggies)}
    rows = np.zeros((rounds, len(COMPARED)), dtype=np.int64)
    for i in range(rounds):
        before = rng.draws
        rnd = game.start(stake, rng, mode=mode, player_state=player_state if mode == "base" else None)
        while not rnd.complete:
            game.advance(d, rnd, rng)
        if mode == "base":
            player_state = rnd.player_state
        spin = next((e for e in rnd.events if e["type"] == "spin"), None)
        start = next((e for e in rnd.events if e["type"] == "lock_spin_start"), None)
        end = next((e for e in rnd.events if e["type"] == "lock_spin_end"), None)
        sizes = player_state["piggies"] if player_state else piggies
        rows[i] = (
            rnd.state["credits"],
            rng.draws - before,
            sizes[0],
            sizes[1],
            _feature_kind(start) if start else 0,
            sum(1 for e in rnd.events if e["type"] == "lock_spin"),
            int(end["all_gold"]) if end else 0,
            end["credits"] if end else 0,
            _SHOTS[spin["shot"]] if spin else 0,
            _SHOTS[spin["center_wild"]] if spin else 0,
            int(bool(spin and spin["center_rewind"])),
            int(bool(spin and spin["jackpot_rewind"])),
            len(spin["ghost_coins"]) if spin else 0,
            spin["line_credits"] if spin else 0,
            spin["collect_credits"] if spin else 0,
            int(any(e["type"] == "max_win" for e in rnd.events)),
        )
    return rows, rng.inner.bit_generator.state


def assert_same_rounds(
    game: GhostOfGambini, seed: int, rounds: int, mode: str, piggies: tuple[int, int] = (0, 0)
) -> np.ndarray:
    """Kernel vs rules on the same seed; returns the kernel's rows for coverage checks."""
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    kernel = K.play_rounds(game.data(), bitgen, rounds, mode, piggies)
    expected, state = rules_rows(game, seed, rounds, mode, piggies)
    got = kernel[:, [K.COLUMNS.index(c) for c in COMPARED]]
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        i = int(bad[0])
        detail = {c: (int(expected[i, k]), int(got[i, k])) for k, c in enumerate(COMPARED)}
        pytest.fail(f"{mode}: {bad.size} rounds differ; first: round {i} (rules, kernel) {detail}")
    assert bitgen.state == state  # the same words consumed in all, rejections included
    return kernel


def col(rows: np.ndarray, name: str) -> np.ndarray:
    return rows[:, K.COLUMNS.index(name)]


def with_cap(d: GambiniData, max_win: int) -> GhostOfGambini:
    game = d.model_dump()["game"]
    game["max_win"] = max_win
    new = d.model_copy(update={"game": game})
    return GhostOfGambini({new.game.variant: new})


# -- the random stream ---------------------------------------------------------------------------


def test_words_and_state_are_numpys_pcg64dxsm() -> None:
    """kernel_rng's word stream (also covered by the Gnomes kernel tests), as this kernel uses it."""
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(2024))
    rs = krng.rng_state(bitgen)
    assert np.array_equal(krng.raw_words(rs, 20_000), bitgen.random_raw(20_000))
    mine = np.random.PCG64DXSM(np.random.SeedSequence(2024))
    krng.store_rng_state(mine, rs)
    assert np.array_equal(mine.random_raw(100), bitgen.random_raw(100))


# -- kernel == rules --------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_kernel_plays_the_rules_round_for_round(game: GhostOfGambini, mode: str) -> None:
    start = time.perf_counter()
    rows = assert_same_rounds(game, 20250611 + MODES.index(mode), DIFF_ROUNDS, mode)
    print(f"{mode}: {DIFF_ROUNDS} rounds compared in {time.perf_counter() - start:.1f} s")
    feature = col(rows, "feature")
    if mode == "base":
        # every branch of the base spin, and every kind of triggered feature, many times
        for name in ("center_rewind", "jackpot_rewind"):
            assert col(rows, name).sum() > 100, name
        assert (col(rows, "shot") == 1).sum() > 1000 and (col(rows, "shot") == 2).sum() > 30
        assert (col(rows, "center_wild") == 2).sum() > 100 and col(rows, "ghost_coins").sum() > 200
        counts = np.bincount(feature, minlength=5)
        assert counts[1] > 200 and counts[3] > 20, counts  # double pops: see the test below
        sizes = col(rows, "piggy_left") * 5 + col(rows, "piggy_right")
        assert len(set(sizes.tolist())) == 25  # every pair of piggy sizes
    else:
        assert (feature == (6 if "super" in mode else 5)).all()
        assert col(rows, "feature_spins").sum() > 3 * DIFF_ROUNDS
    assert col(rows, "max_win").sum() == 0


def test_base_rounds_from_given_piggies(game: GhostOfGambini) -> None:
    """Piggies one step from popping: features from the first rounds on."""
    rows = assert_same_rounds(game, 99, 3000, "base", piggies=(4, 4))
    assert (col(rows, "feature") > 0).sum() > 5


def test_double_pops_like_the_rules(data: GambiniData) -> None:
    """Two-size piggies that grow 4 times in 5, Gambini tossing into both 3 times in 5, and a
    magic shot that fires half the time: both piggies pop together often, by Gambini and by
    the ghost (4-spin features)."""
    sizes = [{"grow": 80, "stay": 20}] * 2
    new = data.model_copy(
        update={
            "piggies": {"gambini_toss": {"left": 20, "right": 20, "both": 60}, "sizes": sizes},
            "magic_shot": {"none": 500, "gambini": 300, "ghost": 200},
        }
    )
    rows = assert_same_rounds(GhostOfGambini({new.game.variant: new}), 7, 4000, "base", piggies=(1, 0))
    counts = np.bincount(col(rows, "feature"), minlength=5)
    assert (counts[1:5] > 50).all(), counts


@pytest.mark.parametrize(("mode", "max_win", "seed"), [("base", 2, 3), ("buy-lock-spin", 60, 4)])
def test_kernel_stops_at_the_cap_like_the_rules(
    game: GhostOfGambini, mode: str, max_win: int, seed: int
) -> None:
    """A cap of 2 bets ends base rounds on the spin (no toss) and at the end of features; a
    cap of 60 bets cuts a bought feature's board."""
    d = game.data()
    capped_game = with_cap(d, max_win)
    assert capped_game.data().max_win_credits == max_win * d.game.base_credits
    rounds = 20_000 if mode == "base" else 3000
    rows = assert_same_rounds(capped_game, seed, rounds, mode, piggies=(3, 3) if mode == "base" else (0, 0))
    cap = max_win * d.game.base_credits
    capped = col(rows, "max_win") == 1
    assert capped.sum() > 50
    assert (col(rows, "win")[capped] == cap).all()
    assert (col(rows, "win")[~capped] < cap).all()
    assert (col(rows, "win_uncapped")[capped] >= cap).all()
    if mode == "base":
        on_spin = capped & (col(rows, "base_win") >= cap)
        assert on_spin.sum() > 10 and (col(rows, "feature")[on_spin] == 0).all()
        # the cap reached by a feature the base spin started
        assert (capped & (col(rows, "feature") > 0) & (col(rows, "base_win") < cap)).sum() > 0


def test_play_rounds_advances_the_generator(data: GambiniData) -> None:
    one = np.random.PCG64DXSM(np.random.SeedSequence(4))
    whole = K.play_rounds(data, one, 3000)
    two = np.random.PCG64DXSM(np.random.SeedSequence(4))
    parts = []
    piggies = (0, 0)
    for n in (1000, 1, 1999):
        part = K.play_rounds(data, two, n, piggies=piggies)
        piggies = (int(part[-1, K.R_PIGGY_L]), int(part[-1, K.R_PIGGY_R]))
        parts.append(part)
    assert np.array_equal(whole, np.vstack(parts))
    assert one.state == two.state
    assert whole.shape == (3000, len(K.COLUMNS))


def test_play_rounds_checks_its_arguments(data: GambiniData) -> None:
    bitgen = np.random.PCG64DXSM(1)
    with pytest.raises(ValueError, match="mode"):
        K.play_rounds(data, bitgen, 1, "free")
    with pytest.raises(ValueError, match="piggy"):
        K.play_rounds(data, bitgen, 1, "base", piggies=(5, 0))
    with pytest.raises(TypeError, match="PCG64DXSM"):
        K.play_rounds(data, np.random.PCG64(1), 1)  # type: ignore[arg-type]


# -- simulate_chunk -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_same_seed_same_stats(game: GhostOfGambini, data: GambiniData, mode: str) -> None:
    a = K.simulate_chunk(data, np.random.SeedSequence(99), 100_000, mode)
    b = K.simulate_chunk(data, np.random.SeedSequence(99), 100_000, mode)
    c = K.simulate_chunk(data, np.random.SeedSequence(100), 100_000, mode)
    assert a == b
    assert a != c
    assert a.stake == data.price_credits(mode)
    # The game's surface runs the same kernel.
    assert game.simulate_chunk(100_000, np.random.SeedSequence(99), mode=mode) == a


@pytest.mark.parametrize("mode", MODES)
def test_simulation_and_play_rounds_agree(data: GambiniData, mode: str) -> None:
    """Below the cap the two deal the same rounds: the sums match row by row."""
    rounds = 200_000 if mode == "base" else 20_000
    rows = K.play_rounds(data, np.random.PCG64DXSM(np.random.SeedSequence(12)), rounds, mode)
    stats = K.simulate_chunk(data, np.random.SeedSequence(12), rounds, mode)
    assert col(rows, "max_win").sum() == 0
    win = [int(w) for w in col(rows, "win")]
    assert stats.rounds == rounds
    assert stats.win == stats.win_uncapped == sum(win)
    assert stats.win_sq == stats.win_uncapped_sq == sum(w * w for w in win)
    assert stats.hits == sum(1 for w in win if w > 0)
    assert stats.max_win == max(win)
    c = stats.counters
    feature = col(rows, "feature")
    for k, name in enumerate(K.FEATURE_KINDS):
        if name is not None:
            assert c[name] == int((feature == k).sum()), name
    assert c["feature_spins"] == int(col(rows, "feature_spins").sum())
    assert c["all_gold"] == int(col(rows, "all_gold").sum())
    assert c["magic_shot_gambini"] == int((col(rows, "shot") == 1).sum())
    assert c["magic_shot_ghost"] == int((col(rows, "shot") == 2).sum())
    assert c["center_gambini"] == int((col(rows, "center_wild") == 1).sum())
    assert c["center_ghost"] == int((col(rows, "center_wild") == 2).sum())
    assert c["center_rewinds"] == int(col(rows, "center_rewind").sum())
    assert c["jackpot_rewinds"] == int(col(rows, "jackpot_rewind").sum())
    assert c["ghost_coins"] == int(col(rows, "ghost_coins").sum())
    assert c["max_win_hits"] == 0
    if mode == "base":
        assert c["lock_spin_3"] > 0 and c["piggy_pops"] >= sum(c[n] for n in K.FEATURE_KINDS if n)
    else:
        assert c["jackpot_mini"] > 0


@pytest.mark.parametrize(("mode", "max_win"), [("base", 2), ("buy-super-lock-spin", 250)])
def test_capped_simulation_plays_on_for_the_uncapped_win(data: GambiniData, mode: str, max_win: int) -> None:
    """At the cap the win stays at the cap while the round plays on for ``win_uncapped``:
    the uncapped figures match a run with no cap at all, draw for draw (in the base game the
    toss and the feature after a capped spin included)."""
    small = with_cap(data, max_win).data()
    huge = with_cap(data, 10**6).data()
    seed = np.random.SeedSequence(31)
    rounds = 300_000 if mode == "base" else 30_000
    capped = K.simulate_chunk(small, seed, rounds, mode)
    free = K.simulate_chunk(huge, seed, rounds, mode)
    assert capped.counters["max_win_hits"] > 10
    assert capped.max_win == max_win * data.game.base_credits
    assert capped.win < free.win
    assert (capped.win_uncapped, capped.win_uncapped_sq) == (free.win, free.win_sq)
    for key in capped.counters:
        if key != "max_win_hits":
            assert capped.counters[key] == free.counters[key], key
    assert free.counters["max_win_hits"] == 0


def test_simulate_chunk_checks_its_arguments(data: GambiniData) -> None:
    empty = K.simulate_chunk(data, np.random.SeedSequence(1), 0)
    assert empty.rounds == 0 and empty.win == 0
    with pytest.raises(ValueError, match="rounds"):
        K.simulate_chunk(data, np.random.SeedSequence(1), -1)
    with pytest.raises(ValueError, match="mode"):
        K.simulate_chunk(data, np.random.SeedSequence(1), 10, "bonus")


def test_model_copy_validates_and_recomputes(data: GambiniData) -> None:
    """A changed copy gets its own cap (the cached one is not carried over) and is checked."""
    assert data.max_win_credits == data.game.max_win * data.game.base_credits
    assert with_cap(data, 7).data().max_win_credits == 7 * data.game.base_credits
    with pytest.raises(ValueError, match="max_win"):
        data.model_copy(update={"game": {**data.model_dump()["game"], "max_win": 0}})


# -- Monte Carlo against the exact figures ---------------------------------------------------------

# What each run can see at 99% two-sided (SD a round from bench/game_mc.py on
# docs/games/ghost-of-gambini.md): the bought features (SD 1.289 and 1.149 prices) +-0.23 and
# +-0.21 RTP points at 2,000,000 rounds, so a 0.5-point error fails with power above 99%
# (0.35 and 0.31 points with 90%).  The base game is a cheap check: SD 12.73 stakes, +-1.64
# points at 4,000,000 rounds, an error of 2.45 points caught with 90% power; 0.5 points would
# take about 100 million rounds (10.0 s for 1e8 in bench/game_mc.py, too long for the suite).
# Its strong check is bench/billion.py: 1e9 base rounds, +-0.104 points (0.5 points caught with
# power above 99.99%), on the doc page.  Successive base rounds share the piggies, so the base
# interval, which treats rounds as independent, is an approximation there.
MC_ROUNDS = {"base": 4_000_000, "buy-lock-spin": 2_000_000, "buy-super-lock-spin": 2_000_000}
Z90 = 1.2815515655446004  # one-sided 90% normal quantile: the power asked of an RTP check
TOLERANCE = 0.005  # an RTP error of half a point must be caught (the bought features)


def _within(observed: int, n: int, p: float, z: float = Z99) -> bool:
    """A count of ``n`` Bernoulli(p) trials inside its two-sided normal interval."""
    return abs(observed / n - p) <= z * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("mode", MODES)
def test_monte_carlo_agrees_with_the_exact_rtp(game: GhostOfGambini, data: GambiniData, mode: str) -> None:
    n = MC_ROUNDS[mode]
    stats = K.simulate_chunk(data, np.random.SeedSequence(20250612), n, mode)
    exact = game.exact(mode=mode)
    s = stats.summary()
    lo, hi = s["ci99_uncapped"]
    assert lo <= exact["rtp"] <= hi, (exact["rtp"], s["ci99_uncapped"])
    detectable = (Z99 + Z90) * s["std"] / math.sqrt(n)  # the error caught with 90% power
    assert detectable < (TOLERANCE if mode != "base" else 0.025), detectable
    c = stats.counters
    if mode == "base":
        assert _within(c["center_gambini"] + c["center_ghost"], n, exact["center_wild_frequency"])
        # successive rounds share the piggies, so the feature count is not binomial: a wider band
        triggered = sum(
            c[k] for k in ("lock_spin_3", "lock_spin_4", "super_lock_spin_3", "super_lock_spin_4")
        )
        assert _within(triggered, n, exact["feature_frequency"], z=5.0)
    else:
        assert _within(c["all_gold"], n, exact["all_gold"])
        assert abs(c["feature_spins"] / n - exact["mean_spins"]) < 0.01 * exact["mean_spins"]
