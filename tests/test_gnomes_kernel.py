"""The Reign of Gnomes numba kernel against the readable rules, draw for draw, and its Monte
Carlo against the exact figures.

The differential tests feed the kernel and the rules the same PCG64DXSM stream and demand
identical rounds: win, free spins, diamonds, Spin To Win games, wheel awards, the number of
draws, and the generator state afterwards.  Extra batches force free spins on every round
(a base reel set that always shows three scatters) and hit the max-win cap often.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pytest

from reelforge.engine import kernel_rng as krng
from reelforge.engine.game import play_default
from reelforge.engine.stats import Z99
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes import kernel as K
from reelforge.games.reign_of_gnomes.data_model import GnomesData
from reelforge.games.reign_of_gnomes.exact import exact_rtp
from reelforge.rng import RecordingRandom, SeededRandom

# columns compared with the rules (the kernel's "words" and "win_uncapped" have no rules twin)
COMPARED = ("win", "base_win", "free_spins", "diamonds", "spin_to_win_games", "draws", "triggers")
COMPARED += ("retriggers", "max_win")


def _col(name: str) -> int:
    return K.COLUMNS.index(name)


def _cap_cause(events: list[dict[str, Any]]) -> str:
    """What reached the cap: the base spin, a Spin To Win game, the Ice Diamonds award or a
    free spin's main reels (named by the round's last wheel award)."""
    i = next(k for k, e in enumerate(events) if e["type"] == "max_win")
    last = events[i - 1]
    if last["type"] == "ice_diamonds_award":
        return "ice_diamonds_award"
    wheel = [e["award"] for e in events[:i] if e["type"] == "wheel"]
    return f"{last['reels']}:{wheel[-1]}" if wheel else "base"


def rules_rows(
    game: ReignOfGnomes, seed: int, rounds: int, causes: Counter | None = None
) -> tuple[np.ndarray, list[Counter], Any]:
    """Play ``rounds`` rounds through the rules (default play) on one SeededRandom stream.

    Returns the COMPARED columns, the wheel awards of each round, and the generator state;
    tallies what reached the cap into ``causes``.
    """
    rng = SeededRandom(seed)
    stake = game.bet_levels()[0].stake
    rows = np.zeros((rounds, len(COMPARED)), dtype=np.int64)
    wheels: list[Counter] = []
    for i in range(rounds):
        rec = RecordingRandom(rng)
        rnd = play_default(game, game.start(stake, rec), rec)
        ev = rnd.events
        rows[i] = (
            rnd.state["credits"],
            ev[0]["credits"],
            rnd.state["free_spins_played"],
            sum(e["diamonds"] for e in ev if e["type"] == "ice_diamonds_award"),
            sum(1 for e in ev if e["type"] == "spin" and e["reels"] == "spin_to_win"),
            len(rec.draws),
            any(e["type"] == "free_spins_awarded" and not e.get("retrigger") for e in ev),
            sum(1 for e in ev if e["type"] == "free_spins_awarded" and e.get("retrigger")),
            any(e["type"] == "max_win" for e in ev),
        )
        wheels.append(Counter(e["award"] for e in ev if e["type"] == "wheel"))
        if causes is not None and rows[i, -1]:
            causes[_cap_cause(ev)] += 1
    return rows, wheels, rng.bit_generator.state


def assert_same_rounds(
    game: ReignOfGnomes, seed: int, rounds: int, causes: Counter | None = None
) -> np.ndarray:
    """Kernel vs rules on the same seed; returns the kernel's rows for coverage checks."""
    d = game.data()
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    kernel = K.play_rounds(d, bitgen, rounds)
    expected, wheels, state = rules_rows(game, seed, rounds, causes)
    got = kernel[:, [_col(c) for c in COMPARED]]
    bad = np.flatnonzero((got != expected).any(axis=1))
    if bad.size:
        i = int(bad[0])
        detail = {c: (int(expected[i, k]), int(got[i, k])) for k, c in enumerate(COMPARED)}
        pytest.fail(f"{bad.size} rounds differ; first: round {i} (rules, kernel) {detail}")
    labels = [seg.label for seg in d.wheel]
    for i, awards in enumerate(wheels):
        mine: Counter = Counter()
        for k, label in enumerate(labels):
            if kernel[i, K.R_SEGMENTS + k]:
                mine[label] += int(kernel[i, K.R_SEGMENTS + k])
        assert mine == awards, f"round {i}: wheel awards differ"
    # Same words consumed in all: the generators end in the same state.
    assert bitgen.state == state
    return kernel


def modified(d: GnomesData, *, always_trigger: bool = False, max_win: int | None = None) -> ReignOfGnomes:
    """A game on changed data: base reels 1-3 showing one scatter in every window, a small cap."""
    raw = d.model_dump()
    if always_trigger:
        strips = [list(s) for s in raw["base_reels"]["strips"]]
        for r in range(3):
            plain = [s for s in strips[r] if s != d.scatter]
            plain = plain[: len(plain) // 2 * 2]
            # period 3 (scatter, a, b): every 3-row window, wrapped too, holds exactly one scatter
            strips[r] = [x for i in range(0, len(plain), 2) for x in (d.scatter, plain[i], plain[i + 1])]
        raw["base_reels"]["strips"] = [tuple(s) for s in strips]
    if max_win is not None:
        raw["game"]["max_win"] = max_win
    new = GnomesData.model_validate(raw)
    return ReignOfGnomes({new.game.variant: new})


# -- the random stream ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**100 + 7])
def test_words_are_numpys_pcg64dxsm(seed: int) -> None:
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    rs = krng.rng_state(bitgen)
    words = krng.raw_words(rs, 50_000)
    assert np.array_equal(words, bitgen.random_raw(50_000))
    # The state written back continues the numpy stream where the kernel stopped.
    mine = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    krng.store_rng_state(mine, rs)
    assert np.array_equal(mine.random_raw(1000), bitgen.random_raw(1000))


def test_randbelow_is_seeded_randoms_rejection_scaling() -> None:
    gen = np.random.default_rng(3)
    ns = np.concatenate(
        [
            np.arange(1, 200, dtype=np.uint64),
            gen.integers(1, 2**63, 300, dtype=np.uint64),
            # ranges just above 2**63 and near 2**64 reject about half the words
            np.array([2**63 + 1, 2**63 + 12345, 2**64 - 1, 3 * 2**62 + 5] * 50, dtype=np.uint64),
        ]
    )
    rs = krng.rng_state(np.random.PCG64DXSM(np.random.SeedSequence(8)))
    got = krng.randbelow_many(rs, ns)
    ref = SeededRandom(8)
    expected = [ref.randbelow(int(n)) for n in ns]
    assert [int(x) for x in got] == expected
    assert int(rs[krng.DRAWS]) == len(ns)
    assert int(rs[krng.WORDS]) > len(ns)  # some words were rejected, and redrawn as the rules do
    assert krng.rng_state(ref.bit_generator).tolist()[:4] == rs.tolist()[:4]


def test_rng_state_needs_pcg64dxsm() -> None:
    with pytest.raises(TypeError, match="PCG64DXSM"):
        krng.rng_state(np.random.PCG64(1))  # type: ignore[arg-type]


# -- kernel == rules --------------------------------------------------------------------------------


def test_kernel_plays_the_rules_round_for_round(gnomes: ReignOfGnomes) -> None:
    rows = assert_same_rounds(gnomes, 20240607, 100_000)
    assert rows[:, _col("triggers")].sum() > 500  # some 750 free-spin features among them
    assert rows[:, _col("spin_to_win_games")].sum() > 0 and rows[:, _col("diamonds")].sum() > 0


def test_kernel_plays_forced_free_spins_like_the_rules(gnomes_data: GnomesData) -> None:
    game = modified(gnomes_data, always_trigger=True)
    rows = assert_same_rounds(game, 77, 1500)
    assert rows[:, _col("triggers")].all()
    segments = rows[:, K.R_SEGMENTS :].sum(axis=0)
    assert (segments > 500).all(), segments  # every wheel award many times over
    assert rows[:, _col("retriggers")].sum() > 30  # some 0.4% of free spins retrigger
    assert rows[:, _col("max_win")].sum() == 0


@pytest.mark.parametrize(("max_win", "seed"), [(2, 5), (5, 6), (25, 7)])
def test_kernel_stops_at_the_cap_like_the_rules(gnomes_data: GnomesData, max_win: int, seed: int) -> None:
    """A cap of 2 stakes ends rounds on the base spin's scatter pay; 5 and 25 end them in
    every kind of free spin, the Ice Diamonds award and Spin To Win included."""
    game = modified(gnomes_data, always_trigger=True, max_win=max_win)
    causes: Counter = Counter()
    rows = assert_same_rounds(game, seed, 800, causes)
    capped = rows[:, _col("max_win")] == 1
    assert capped.sum() > 50
    assert (rows[capped, _col("win")] == max_win * gnomes_data.game.base_credits).all()
    assert (rows[~capped, _col("win")] < max_win * gnomes_data.game.base_credits).all()
    if max_win == 2:  # 3 scatters pay 2 stakes: the base spin reaches the cap, no free spins
        assert causes == {"base": 800}
        assert (rows[:, _col("free_spins")] == 0).all()
    else:  # the cap reached in each place a win is added
        for cause in ("base", "ice_diamonds_award", "spin_to_win:spin_to_win", "free:spin_to_win"):
            assert causes[cause] > 0, (cause, causes)
        for cause in ("free:x3", "free:x5", "free:x6", "free:ice_diamonds"):
            assert causes[cause] > 0, (cause, causes)
        assert sum(n for c, n in causes.items() if c.startswith("random_wilds_")) > 0


def test_play_rounds_advances_the_generator(gnomes_data: GnomesData) -> None:
    one = np.random.PCG64DXSM(np.random.SeedSequence(4))
    whole = K.play_rounds(gnomes_data, one, 3000)
    two = np.random.PCG64DXSM(np.random.SeedSequence(4))
    parts = np.vstack([K.play_rounds(gnomes_data, two, n) for n in (1000, 1, 1999)])
    assert np.array_equal(whole, parts)
    assert one.state == two.state
    assert whole.shape == (3000, K.R_SEGMENTS + len(gnomes_data.wheel))


# -- Monte Carlo ------------------------------------------------------------------------------------

# What the run can see (99% two-sided, Gnomes' SD 5.99 stakes a round): the RTP interval is
# +-0.33 points at 22,000,000 rounds, and a kernel or exact calculator off by 0.49 points fails
# with 90% power (0.63 points with 99% power), so a 0.5-point error does not hide here.  The
# test asserts that from the run's own SD.  Longer runs (bench/gnomes_mc.py, bench/billion.py:
# +-0.05 points at 1e9 rounds) are on docs/games/reign-of-gnomes.md.
MC_ROUNDS = 22_000_000
Z90 = 1.2815515655446004  # one-sided 90% normal quantile: the power asked of each check
TOLERANCE = 0.005  # an RTP error of half a point must be caught


@pytest.fixture(scope="module")
def mc(gnomes_data: GnomesData) -> Any:
    return K.simulate_chunk(gnomes_data, np.random.SeedSequence(20250101), MC_ROUNDS)


def _within(observed: int, n: int, p: float) -> bool:
    """A count of ``n`` Bernoulli(p) trials inside its two-sided 99% normal interval: at
    22,000,000 rounds +-0.026 points of hit frequency (31.7%), +-0.0042 points of trigger rate
    (0.75%); over the ~2.2 million free spins each wheel share within +-0.07 points or less."""
    return abs(observed / n - p) <= Z99 * math.sqrt(p * (1 - p) / n)


def test_monte_carlo_agrees_with_the_exact_rtp(gnomes: ReignOfGnomes, mc: Any) -> None:
    exact = gnomes.exact()
    s = mc.summary()
    assert s["rounds"] == MC_ROUNDS
    lo, hi = s["ci99_uncapped"]
    assert lo <= exact["rtp"] <= hi, (exact["rtp"], s["ci99_uncapped"])
    assert s["ci99"][0] <= s["rtp"] <= s["ci99"][1]
    assert (Z99 + Z90) * s["std"] / math.sqrt(MC_ROUNDS) < TOLERANCE  # 0.5 points caught, power 90%
    assert 0 <= s["cap_effect"] < 0.01
    assert _within(mc.hits, MC_ROUNDS, exact["hit_frequency"])
    triggers = mc.counters["free_spins_triggers"]
    assert _within(triggers, MC_ROUNDS, exact["free_spins_frequency"])


def test_monte_carlo_feature_counts_match_the_data(gnomes_data: GnomesData, mc: Any) -> None:
    c = mc.counters
    spins = c["free_spins_played"]
    total = sum(gnomes_data.wheel_weights)
    for seg in gnomes_data.wheel:  # each wheel award in proportion to its weight
        assert _within(c[f"wheel_{seg.label}"], spins, seg.weight / total), seg.label
    # Mean free spins per trigger against the exact mean, at 99% with the SD of spins per
    # trigger taken from separate rounds (the exact code gives the mean, not that law): about
    # 2.4 spins, so +-0.015 spins over ~165,000 triggers (an error of 0.03 spins, 0.3% of the
    # 10.66 mean, caught with 99% power).
    exact = exact_rtp(gnomes_data)
    rows = K.play_rounds(gnomes_data, np.random.PCG64DXSM(np.random.SeedSequence(77)), 1_000_000)
    per_trigger = rows[rows[:, _col("triggers")] > 0, _col("free_spins")]
    assert len(per_trigger) > 5000
    sd = float(per_trigger.std(ddof=1))
    mean = spins / c["free_spins_triggers"]
    assert abs(mean - float(exact.mean_free_spins)) <= Z99 * sd / math.sqrt(c["free_spins_triggers"])
    # Spin To Win games per feature are geometric with mean 1 / p.
    p = float(exact.details["spin_to_win_win_probability"])
    n = c["wheel_spin_to_win"]
    games_per = c["spin_to_win_games"] / n
    assert abs(games_per - 1 / p) <= Z99 * math.sqrt((1 - p) / p**2 / n)
    assert set(c) == {
        "free_spins_triggers",
        "free_spins_played",
        "retriggers",
        "wheel_x3",
        "wheel_x5",
        "wheel_x6",
        "wheel_spin_to_win",
        "wheel_random_wilds",
        "wheel_ice_diamonds",
        "spin_to_win_games",
        "max_win_hits",
    }


def test_same_seed_same_stats(gnomes_data: GnomesData) -> None:
    a = K.simulate_chunk(gnomes_data, np.random.SeedSequence(99), 200_000)
    b = K.simulate_chunk(gnomes_data, np.random.SeedSequence(99), 200_000)
    c = K.simulate_chunk(gnomes_data, np.random.SeedSequence(100), 200_000)
    assert a == b
    assert a != c
    # The game's surface runs the same kernel.
    assert ReignOfGnomes().simulate_chunk(200_000, np.random.SeedSequence(99)) == a


def test_capped_simulation_plays_on_for_the_uncapped_win(gnomes_data: GnomesData) -> None:
    """At the cap the win stays at the cap while the round plays on for ``win_uncapped``:
    the uncapped figures match a run with no cap at all, draw for draw."""
    small = modified(gnomes_data, max_win=20).data()
    huge = modified(gnomes_data, max_win=10**9).data()
    seed = np.random.SeedSequence(31)
    capped = K.simulate_chunk(small, seed, 300_000)
    free = K.simulate_chunk(huge, seed, 300_000)
    assert capped.counters["max_win_hits"] > 10
    assert capped.max_win == 20 * gnomes_data.game.base_credits
    assert capped.win < free.win
    assert (capped.win_uncapped, capped.win_uncapped_sq) == (free.win, free.win_sq)
    for key in capped.counters:
        if key != "max_win_hits":
            assert capped.counters[key] == free.counters[key], key
    assert free.counters["max_win_hits"] == 0


def test_simulate_chunk_checks_rounds(gnomes_data: GnomesData) -> None:
    empty = K.simulate_chunk(gnomes_data, np.random.SeedSequence(1), 0)
    assert empty.rounds == 0 and empty.win == 0
    with pytest.raises(ValueError, match="rounds"):
        K.simulate_chunk(gnomes_data, np.random.SeedSequence(1), -1)


def test_simulation_and_play_rounds_agree(gnomes_data: GnomesData) -> None:
    """Below the cap the two modes deal the same rounds: the sums match row by row."""
    rows = K.play_rounds(gnomes_data, np.random.PCG64DXSM(np.random.SeedSequence(12)), 100_000)
    stats = K.simulate_chunk(gnomes_data, np.random.SeedSequence(12), 100_000)
    assert rows[:, _col("max_win")].sum() == 0
    win = [int(w) for w in rows[:, _col("win")]]
    assert stats.win == stats.win_uncapped == sum(win)
    assert stats.win_sq == stats.win_uncapped_sq == sum(w * w for w in win)
    assert stats.hits == int((rows[:, _col("base_win")] > 0).sum())
    assert stats.max_win == max(win)
    assert stats.counters["free_spins_triggers"] == int(rows[:, _col("triggers")].sum())
    assert stats.counters["free_spins_played"] == int(rows[:, _col("free_spins")].sum())
    assert stats.counters["spin_to_win_games"] == int(rows[:, _col("spin_to_win_games")].sum())
