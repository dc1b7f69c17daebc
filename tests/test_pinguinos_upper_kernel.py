"""The Los 3 Pinguinos upper-game numba kernel against the readable rules, draw for draw.

The differential tests feed the kernel and the rules (``start(..., mode="upper")`` with the
machine carried from round to round, then ``auto_action`` and ``advance`` until complete)
the same PCG64DXSM stream and demand identical rounds, in order: cash and Bonuses won,
draws, paylines, the counter, the accumulator and the Bonus balance after the round, the
steps drawn, the WINNING SPIN's tries and, per game, its stops, line prize, minigame
(triggered, offered, result), the prize entering Double-or-Bonuses, what it paid, the
fractions played, the maximum prizes and the times the Bonus cap acted; at the end both
generators must be in the same state.  Each variant plays 100,000 rounds in segments of
several bets (the €0.20+1 bet, the mixed-sevens bets) under COLLECT and AUTO-RISK, with a real
capped Bonus balance kept near the cap (so the cap acts) and uncapped.  A Monte Carlo per
variant must hold the exact upper RTP in its 99% interval.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos import upper_kernel as K
from reelforge.games.los_3_pinguinos.data_model import LowerData
from reelforge.games.los_3_pinguinos.upper_data import UpperBet
from reelforge.games.los_3_pinguinos.upper_lines import evaluate
from reelforge.rng import SeededRandom

VARIANTS = ("95", "90", "80", "70")
COMPARED = tuple(c for c in K.COLUMNS if c != "words")  # words: the final states are compared
# (bet index, AUTO-RISK, capped balance, rounds): 100,000 rounds per variant.  Stakes: 100
# (€0.20+1), 500, 2500, 5000 (mixed sevens), 7500 and 13500 (mixed sevens, €15+150).
# Uncapped, AUTO-RISK only at bets whose Double-or-Bonuses cannot bring the rules' balance
# (the bet's Bonuses before each round) past the cap within a round.
SEGMENTS = (
    (0, False, False, 16_000),
    (0, True, False, 10_000),
    (0, True, True, 20_000),
    (3, True, True, 14_000),
    (3, False, False, 6_000),
    (5, True, True, 10_000),
    (5, False, True, 4_000),
    (4, True, True, 8_000),
    (1, True, False, 6_000),
    (2, True, True, 6_000),
)
RUN = 500  # capped segments restart the balance near the cap every RUN rounds
assert sum(s[3] for s in SEGMENTS) == 100_000


@pytest.fixture(scope="module")
def game() -> LosTresPinguinos:
    return LosTresPinguinos()


class CountingRandom:
    """SeededRandom that counts its ``randbelow`` calls."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededRandom(seed)
        self.draws = 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        return self.inner.randbelow(n)


def refill_of(d: LowerData, bet: int) -> int:
    """A top-up just above the cap: the balance crosses it often, so the cap acts."""
    return d.game.bonus_cap + 3 * d.upper.bets[bet].bonuses


def near_cap(d: LowerData, bet: int, run: int) -> int:
    """Where a run's balance starts: above the cap (it acts until the bets bring the balance
    below), or below it (AUTO-RISK's Bonuses may bring it past)."""
    return refill_of(d, bet) if run % 2 == 0 else d.game.bonus_cap - 2 * d.upper.bets[bet].bonuses


def rules_row(d: LowerData, rnd: Any, draws: int) -> tuple[int, ...]:
    """A finished upper round of the rules as the kernel's COMPARED columns."""
    bet = d.upper.bets[rnd.state["bet"]]
    games: dict[str, dict[str, int]] = {
        g: {"stops": -1, "line_prize": 0, "minigame": -1, "offered": 0, "result": -1, "prize": 0, "cash": 0,
            "bonuses": 0} for g in ("paid", "winning")
    }  # fmt: skip
    v: dict[str, int] = {"vertical_gain": 0, "accumulator_gain": 0, "winning_tries": 0, "doubles": 0}
    v |= {"maximum": 0, "cap": 0}
    g = games["paid"]
    for e in rnd.events:
        t = e["type"]
        if t == "upper_start":
            v["lines"] = e["lines"]
        elif t == "upper_spin":
            g = games[e["game"]]
            s0, s1, s2 = e["stops"]
            g["stops"] = (s0 * 16 + s1) * 16 + s2
            g["line_prize"] = sum(w["cents"] for w in e["wins"])
            if e["game"] == "winning":
                v["winning_tries"] = e["tries"]
        elif t == "vertical_lines":
            v["vertical_gain"] = e["gained"]
        elif t == "accumulator":
            v["accumulator_gain"] = e["gained"]
        elif t == "mixed":
            g["line_prize"] += e["cents"]
        elif t in ("minigame_start", "minigame_not_offered"):
            g["minigame"] = K.MINIGAMES.index(e["minigame"])
            g["offered"] = int(t == "minigame_start")
        elif t == "minigame_end":
            g["result"] = e["result"]
        elif t == "double_start":
            g["prize"] = e["prize"]
        elif t == "double_play":
            v["doubles"] += 1
            g["bonuses"] += e.get("bonuses", 0)
            v["maximum"] += int(e.get("maximum", False))
        elif t == "double_collect_all" and e.get("reason") == "bonus_cap":
            v["cap"] += 1
        elif t == "paid":
            g["cash"] += e["cents"]
            if e["how"] in ("maximum", "bonus_cap"):
                g["prize"] = e["cents"]
                v["maximum" if e["how"] == "maximum" else "cap"] += 1
    for g in games.values():
        g["line_prize"] = min(g["line_prize"], bet.max_prize)
    st = rnd.state
    machine = rnd.player_state
    v |= {
        "win": st["credits"] + d.game.bonus_value * st["bonuses_won"],
        "cash": st["credits"],
        "bonuses": st["bonuses_won"],
        "draws": draws,
        "counter": machine["vertical_lines"],
        "accumulator": machine["accumulators"].get(str(st["bet_value"]), 0),
        "balance": machine["bonuses"],
    }
    v |= {f"{name}_{k}": x for name, g in games.items() for k, x in g.items()}
    return tuple(v[c] for c in COMPARED)


def rules_rows(
    game: LosTresPinguinos,
    variant: str,
    rng: CountingRandom,
    machine: dict[str, Any],
    bet: int,
    risk: bool,
    capped: bool,
    rounds: int,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Play ``rounds`` upper rounds through the rules, the machine carried over.  Uncapped, the
    balance is set to the bet's Bonuses before each round (the cap never acts at the bets
    played so) and the kernel's net position stands in for it."""
    d = game.data(variant)
    stake = d.upper_stakes[bet]
    b = d.upper.bets[bet]
    settings = {"auto_advance": True, "auto_risk": risk}
    rows = np.zeros((rounds, len(COMPARED)), dtype=np.int64)
    net = machine["bonuses"]
    for i in range(rounds):
        if capped:
            if machine["bonuses"] < b.bonuses:
                machine["bonuses"] = refill_of(d, bet)
        else:
            machine["bonuses"] = b.bonuses
        before = machine["bonuses"]
        n = rng.draws
        rnd = game.start(stake, rng, variant=variant, mode="upper", player_state=machine)
        while not rnd.complete:
            action = game.auto_action(rnd, settings)
            assert action is not None
            rnd.allowed(action)
            game.advance(d, rnd, action, rng)
        machine = rnd.player_state
        if not capped:
            net += machine["bonuses"] - before
            machine["bonuses"] = net
        rows[i] = rules_row(d, rnd, rng.draws - n)
    return rows, machine


def assert_same_rounds(game: LosTresPinguinos, variant: str, seed: int) -> np.ndarray:
    """Kernel vs rules over :data:`SEGMENTS` on one stream and one machine; returns the
    kernel's rows (the segment's bet index in an extra last column)."""
    d = game.data(variant)
    bitgen = np.random.PCG64DXSM(np.random.SeedSequence(seed))
    rng = CountingRandom(seed)
    k_machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    r_machine: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    out = []
    runs = [
        (b, r, c, min(RUN, n - k) if c else n)
        for b, r, c, n in SEGMENTS
        for k in range(0, n, RUN if c else n)
    ]
    for j, (bet, risk, capped, rounds) in enumerate(runs):
        k_machine["bonuses"] = r_machine["bonuses"] = near_cap(d, bet, j)  # an equal position
        got = K.play_rounds(d, bitgen, rounds, bet, risk, machine=k_machine, capped=capped,
                            refill=refill_of(d, bet))  # fmt: skip
        expected, r_machine = rules_rows(game, variant, rng, r_machine, bet, risk, capped, rounds)
        got_c = got[:, [K.COLUMNS.index(c) for c in COMPARED]]
        bad = np.flatnonzero((got_c != expected).any(axis=1))
        if bad.size:
            i = int(bad[0])
            detail = {c: (int(expected[i, k]), int(got_c[i, k])) for k, c in enumerate(COMPARED)}
            pytest.fail(f"{variant} bet {bet} risk {risk} capped {capped}: {bad.size} rounds differ; "
                        f"first: round {i} (rules, kernel) {detail}")  # fmt: skip
        assert k_machine == r_machine
        out.append(np.column_stack([got, np.full(rounds, bet)]))
    assert bitgen.state == rng.inner.bit_generator.state  # the same words consumed, rejections included
    return np.vstack(out)


def col(rows: np.ndarray, name: str) -> np.ndarray:
    return rows[:, K.COLUMNS.index(name)]


# -- the tables -----------------------------------------------------------------------------------


def test_line_tables_are_the_rules_at_every_bet(game: LosTresPinguinos) -> None:
    """Every stop index, 5 and 8 paylines, every bet: what upper_lines.evaluate says."""
    d = game.data("95")
    direct, mixed, minigame, shown = K.line_tables(d)
    for i in range(0, K.N_INDEX, 3):
        stops = (i // 256, (i // 16) % 16, i % 16)
        for bet in d.upper.bets:
            for v in (0, 1):
                ev = evaluate(d.upper, bet, stops, bool(v))
                assert direct[v, i] * bet.multiplier == ev.direct
                assert (mixed[v, i] if bet.mixed else 0) == ev.mixed_lines
                assert minigame[v, i] == (-1 if ev.minigame is None else K.MINIGAMES.index(ev.minigame))
                assert shown[i] == int(ev.accumulator) + 2 * int(ev.vertical)
    assert (mixed > 0).any()
    assert {int(x) for x in np.unique(minigame)} == {-1, 0, 1, 2}


def test_the_probe_bet_is_a_valid_bet() -> None:
    assert isinstance(K._PROBE, UpperBet)
    assert UpperBet.model_validate(K._PROBE.model_dump()) == K._PROBE


# -- kernel == rules --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_kernel_plays_the_rules_round_for_round(game: LosTresPinguinos, variant: str) -> None:
    start = time.perf_counter()
    rows = assert_same_rounds(game, variant, 20251201 + VARIANTS.index(variant))
    print(f"{variant}: {len(rows)} upper rounds compared in {time.perf_counter() - start:.1f} s")
    bets = rows[:, -1]
    # every branch, many times
    assert (col(rows, "lines") == 8).sum() > 20_000 and (col(rows, "lines") == 5).sum() > 20_000
    assert (col(rows, "counter") == 9).sum() > 50  # the counter reaches its top
    assert (col(rows, "vertical_gain") == 5).sum() > 500 and (col(rows, "accumulator_gain") == 3).sum() > 500
    tries = col(rows, "winning_tries")
    assert (tries > 0).sum() > 2500 and (tries > 1).sum() > 1000  # the WINNING SPIN's rejections
    for game_ in ("paid", "winning"):
        kind, offered = col(rows, f"{game_}_minigame"), col(rows, f"{game_}_offered")
        for m in range(3):
            assert ((kind == m) & (offered == 1)).sum() > 20 and ((kind == m) & (offered == 0)).sum() > 20
    result, prize = col(rows, "paid_result"), col(rows, "paid_prize")
    top = np.array([game.data(variant).upper.bets[b].max_prize for b in bets])
    assert (result >= top).sum() > 5  # Roulette and Fishing stopping at the maximum
    assert (col(rows, "maximum") > 0).sum() > 30 and (prize == top).sum() > 5
    mixed_lines = K.line_tables(game.data(variant))[1]
    paid_mixed = mixed_lines[(col(rows, "lines") == 8).astype(int), col(rows, "paid_stops")] > 0
    assert (paid_mixed & np.isin(bets, [3, 4, 5])).sum() > 100  # mixed sevens drawn
    assert (paid_mixed & np.isin(bets, [0, 1, 2])).sum() > 100  # and not drawn
    assert (col(rows, "doubles") > 0).sum() > 5000 and (col(rows, "bonuses") > 0).sum() > 3000
    cap, doubles = col(rows, "cap") > 0, col(rows, "doubles") > 0
    assert (cap & ~doubles).sum() > 50  # a prize paid at once above the cap
    assert (cap & doubles).sum() > 200  # ... or the rest collected once the Bonuses passed it
    assert (col(rows, "winning_bonuses") > 0).sum() > 50


def test_play_rounds_carries_the_machine(game: LosTresPinguinos) -> None:
    d = game.data("95")
    one = np.random.PCG64DXSM(np.random.SeedSequence(4))
    m1: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    whole = K.play_rounds(d, one, 3000, 3, True, machine=m1)
    two = np.random.PCG64DXSM(np.random.SeedSequence(4))
    m2: dict[str, Any] = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    parts = [K.play_rounds(d, two, n, 3, True, machine=m2) for n in (1000, 1, 1999)]
    assert np.array_equal(whole, np.vstack(parts))
    assert one.state == two.state and m1 == m2
    assert m1["accumulators"] == {"5000": int(col(whole, "accumulator")[-1])}
    assert m1["bonuses"] == int(col(whole, "bonuses").sum()) - 3000 * 50  # the net position
    assert (col(whole, "words") == col(whole, "draws")).mean() > 0.99


def test_play_rounds_checks_its_arguments(game: LosTresPinguinos) -> None:
    d = game.data("95")
    with pytest.raises(ValueError, match="rounds"):
        K.play_rounds(d, np.random.PCG64DXSM(1), -1)
    with pytest.raises(ValueError, match="bet"):
        K.play_rounds(d, np.random.PCG64DXSM(1), 1, bet=6)
    with pytest.raises(ValueError, match="refill"):
        K.play_rounds(d, np.random.PCG64DXSM(1), 1, bet=5, capped=True, refill=149)
    with pytest.raises(TypeError, match="PCG64DXSM"):
        K.play_rounds(d, np.random.PCG64(1), 1)  # type: ignore[arg-type]


# -- simulate_chunk -------------------------------------------------------------------------------


def test_simulation_and_play_rounds_agree(game: LosTresPinguinos) -> None:
    """The two deal the same rounds: sums and counters match row by row."""
    d = game.data("95")
    rounds = 200_000
    for bet, risk in ((0, False), (5, True)):
        rows = K.play_rounds(d, np.random.PCG64DXSM(np.random.SeedSequence(12)), rounds, bet, risk)
        stats = K.simulate_chunk(d, np.random.SeedSequence(12), rounds, bet, risk)
        win = [int(w) for w in col(rows, "win")]
        assert stats.stake == d.upper_stakes[bet]
        assert stats.win == stats.win_uncapped == sum(win)
        assert stats.win_sq == stats.win_uncapped_sq == sum(w * w for w in win)
        assert stats.hits == sum(1 for w in win if w > 0)
        assert stats.max_win == max(win)
        c = stats.counters
        assert c["cash_cents"] == int(col(rows, "cash").sum())
        assert c["bonuses"] == int(col(rows, "bonuses").sum())
        assert c["eight_line_games"] == int((col(rows, "lines") == 8).sum())
        assert c["vertical_shown"] == int((col(rows, "vertical_gain") > 0).sum())
        assert c["accumulator_shown"] == int((col(rows, "accumulator_gain") > 0).sum())
        assert c["winning_spins"] == int((col(rows, "winning_tries") > 0).sum())
        assert c["winning_spin_tries"] == int(col(rows, "winning_tries").sum())
        assert c["paid_game_prizes"] == int((col(rows, "paid_line_prize") > 0).sum())
        assert c["doubles_played"] == int(col(rows, "doubles").sum())
        assert c["maximum_prizes"] == int(col(rows, "maximum").sum())
        for m, name in enumerate(K.MINIGAMES):
            kinds = [(col(rows, f"{g}_minigame") == m) for g in ("paid", "winning")]
            offered = [col(rows, f"{g}_offered") == 1 for g in ("paid", "winning")]
            assert c[f"{name}_triggers"] == int(sum(k.sum() for k in kinds))
            assert c[f"{name}_games"] == int(sum((k & o).sum() for k, o in zip(kinds, offered, strict=True)))
        assert (c["mixed_lines"] > 0) == bool(d.upper.bets[bet].mixed)


def test_simulate_chunk_blocks_keep_the_squares_exact(
    game: LosTresPinguinos, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk is cut in blocks whose squared wins stay within int64 (at the top bet a default
    chunk needs several); the blocks add up to the chunk, whatever their size."""
    d = game.data("95")
    bet = 5
    top = 2 * K.max_game_value(d, bet)
    assert (1 << 63) // top**2 < 2**20  # a default chunk needs more than one block
    whole = K.simulate_chunk(d, np.random.SeedSequence(8), 300_000, bet, True)
    assert whole.max_win <= top and whole.rounds == 300_000
    monkeypatch.setattr(K, "_INT64_MAX", 7_001 * top**2)  # blocks of 7,001 rounds
    assert K.simulate_chunk(d, np.random.SeedSequence(8), 300_000, bet, True) == whole
    empty = K.simulate_chunk(d, np.random.SeedSequence(8), 0, bet)
    assert empty.rounds == 0 and empty.win == 0
    with pytest.raises(ValueError, match="rounds"):
        K.simulate_chunk(d, np.random.SeedSequence(1), -1)


def test_the_game_surface_runs_the_upper_kernel(game: LosTresPinguinos) -> None:
    d = game.data("90")
    a = game.simulate_chunk(100_000, np.random.SeedSequence(3), variant="90", mode="upper")
    assert a == K.simulate_chunk(d, np.random.SeedSequence(3), 100_000, 0, False)
    assert a.stake == d.upper_stakes[0] == 100 and a.counters["doubles_played"] == 0  # COLLECT


# The Monte Carlo against the exact RTP is the conformance kit's, for every variant and mode
# (tests/test_conformance_math.py: an error of 0.3 points caught with 90% power at the default
# variant, 0.5 at the others).
