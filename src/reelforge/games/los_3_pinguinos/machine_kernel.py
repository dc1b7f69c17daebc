"""The whole Los 3 Pinguinos machine in numba: the standard play, lower and upper games in turn.

At a *pairing* (an upper bet with the lower bet of the same cash, as
:func:`.machine_best.pairings`) the standard play is: lower rounds while the machine's Bonuses
do not cover the upper bet's Bonuses, upper games while they do.  The lower round is AUTO
(``kernel.tables(d, "auto")``: best holds and nudges, every ladder collected, the Disco stopped
at once); the upper game is COLLECT ALL (``upper_kernel.tables(d, bet)``).  The machine carries
what the rules carry in the player's state:

* the Bonuses: a lower round adds its Bonuses (at the lower bet: its Disco has its own table),
  an upper game takes the bet's Bonuses (COLLECT ALL wins none);
* the vertical-lines counter, shared: a lower round adds its games' vertical-line hits (at most
  ``vertical_lines_max``; capping once per round equals capping per game, the hits being
  non-negative); an upper game spends one for its 8 paylines and adds its ``vertical_step``;
* the upper bet's accumulator (one bet is played, so one accumulator).

Each game is played by the very code of the two kernels, inlined: ``kernel._round`` and
``upper_kernel._round``, with the rules' draws in the rules' order on one PCG64DXSM stream, so
that fed the same generator state the rules deal the same games
(``tests/test_pinguinos_machine_mc.py`` compares them game by game).  The upper game applies
the 4,000-Bonus cap as the rules do (under COLLECT ALL it changes no payment).

Accounting: cash only.  Cash in is the lower bet per lower round and the upper bet's cash per
upper game (equal at a pairing); cash out is every cash prize.  The figure a chunk estimates is
cash out / cash in, the whole machine's RTP of :func:`.machine_best.play_figure` (play
``"auto"``).  Consecutive games depend on each other through the machine, so a chunk is the
unit of independence: its own ``SeedSequence`` child, its own new machine, ``warmup`` games
not counted; intervals are batch means over chunks (:func:`summarize`).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit
from scipy.stats import t as student

from reelforge.engine import kernel_rng
from reelforge.engine.kernel_rng import DRAWS, rng_state, store_rng_state

from . import kernel as L
from . import upper_kernel as U
from .data_model import LowerData

PLAY = "auto"  # the lower game's play; the upper game's is COLLECT ALL
WARMUP = 10_000  # uncounted games per chunk: the accumulator and the counter near their long run
LEVEL = 0.99

# per-game rows (play_games)
COLUMNS = (
    "upper",  # 0 a lower round, 1 an upper game
    "cash_in",  # cents
    "cash_out",  # cents
    "bonuses_won",
    "bonuses_staked",
    "lines",  # the upper game's paylines (5 or 8); 0 for a lower round
    "bonuses",  # the machine's Bonuses after the game
    "counter",  # the vertical-lines counter after the game
    "accumulator",  # the upper bet's accumulator after the game
    "draws",  # randbelow calls
)
(R_UPPER, R_CASH_IN, R_CASH_OUT, R_WON, R_STAKED, R_LINES, R_BONUSES, R_COUNTER, R_ACC, R_DRAWS) = range(
    len(COLUMNS)
)

# per-chunk counts (Tally's fields, in order)
ACC = (
    "games",
    "lower_games",
    "upper_games",
    "eight_line_games",
    "cash_in",
    "cash_out",
    "cash_out_sq",  # sum over games of cash_out²: the games' own variance, for comparison
    "max_cash_out",
    "bonuses_won",
    "bonuses_staked",
)
(A_GAMES, A_LOWER, A_UPPER, A_EIGHT, A_IN, A_OUT, A_OUT_SQ, A_MAX, A_WON, A_STAKED) = range(len(ACC))
# params layout
P_COIN, P_LOWER_BET, P_UPPER_CASH, P_NEED, P_VMAX = range(5)


@njit(cache=True, _nrt=False)  # see _guard_cache
def _run(
    lower: tuple,
    upper: tuple,
    rs: np.ndarray,
    machine: np.ndarray,
    games: int,
    params: np.ndarray,
    acc: np.ndarray,
    lower_acc: np.ndarray,
    upper_acc: np.ndarray,
    drawn: np.ndarray,
    plat: np.ndarray,
    order: np.ndarray,
    no_rows: np.ndarray,
    rows: np.ndarray,
) -> None:
    """Play ``games`` games of the standard play from ``machine`` = [Bonuses, counter,
    accumulator], left as the last game leaves it.  Adds to ``acc`` (:data:`ACC`) and to the
    kernels' own counts; ``rows`` (``games`` rows, or none) gets one row per game."""
    coin = params[P_COIN]
    lower_bet = params[P_LOWER_BET]
    upper_cash = params[P_UPPER_CASH]
    need = params[P_NEED]
    vmax = params[P_VMAX]
    keep_rows = rows.shape[0] > 0
    bonuses = machine[0]
    counter = machine[1]
    accumulator = machine[2]
    for n in range(games):
        draws0 = rs[DRAWS]
        if bonuses >= need:
            lines = 8 if counter > 0 else 5
            counter, accumulator, bonuses, out, won = U._round(
                upper, rs, counter, accumulator, bonuses, False, True, 0, upper_acc, plat, order, no_rows, 0
            )
            cash_in = upper_cash
            staked = need
            acc[A_UPPER] += 1
            if lines == 8:
                acc[A_EIGHT] += 1
        else:
            res = L._round(lower, rs, lower_acc, drawn)
            out = res[0] * coin
            won = res[1]  # at the bet already (the tables at the pairing's coin)
            bonuses += won
            counter = min(vmax, counter + res[2])
            cash_in = lower_bet
            staked = 0
            lines = 0
            acc[A_LOWER] += 1
        acc[A_IN] += cash_in
        acc[A_OUT] += out
        acc[A_OUT_SQ] += out * out
        if out > acc[A_MAX]:
            acc[A_MAX] = out
        acc[A_WON] += won
        acc[A_STAKED] += staked
        if keep_rows:
            rows[n, R_UPPER] = 1 if lines else 0
            rows[n, R_CASH_IN] = cash_in
            rows[n, R_CASH_OUT] = out
            rows[n, R_WON] = won
            rows[n, R_STAKED] = staked
            rows[n, R_LINES] = lines
            rows[n, R_BONUSES] = bonuses
            rows[n, R_COUNTER] = counter
            rows[n, R_ACC] = accumulator
            rows[n, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
    acc[A_GAMES] += games
    machine[0] = bonuses
    machine[1] = counter
    machine[2] = accumulator


def _guard_cache() -> None:
    """numba keys :func:`_run`'s cache on this file alone, not on the kernels it inlines: flush
    it when their sources change (a stamp file named by their digest sits beside the cache)."""
    cache = getattr(_run, "_cache", None)
    path = getattr(cache, "_cache_path", None)
    if cache is None or path is None:
        return
    src = b"".join(Path(m.__file__).read_bytes() for m in (L, U, kernel_rng) if m.__file__)
    stamp = Path(path) / f"machine_kernel-inlined-{hashlib.sha256(src).hexdigest()[:16]}.stamp"
    if stamp.exists():
        return
    cache.flush()
    for old in Path(path).glob("machine_kernel-inlined-*.stamp"):
        old.unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # a read-only cache: numba will not write there either
        stamp.touch()


_guard_cache()


# -- Python API -------------------------------------------------------------------------------

_INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class Pairing:
    """An upper bet (index into ``upper.bets``) with the lower bet of the same cash."""

    upper: int
    lower_bet: int  # cents
    coin: int  # the lower bet's multiplier of the unit prizes
    cash: int  # the upper bet's cash, cents (= lower_bet)
    need: int  # the upper bet's Bonuses


def pairing(d: LowerData, upper: int = 0) -> Pairing:
    if not 0 <= upper < len(d.upper.bets):
        raise ValueError(f"upper must index upper.bets (0-{len(d.upper.bets) - 1}), got {upper!r}")
    bet = d.upper.bets[upper]
    if bet.cash not in d.game.bets:
        raise ValueError(f"no lower bet of {bet.cash} cents to pair with upper bet {upper}")
    return Pairing(upper, bet.cash, d.multiplier(bet.cash), bet.cash, bet.bonuses)


def max_game_cash(d: LowerData, p: Pairing) -> int:
    """A bound on one game's cash out: a lower prize × the coin, or two upper games' maxima."""
    t = L.tables(d, PLAY, p.coin)
    lower = max(int(t.cents.max()), int(t.disco_cash.max())) * p.coin
    return max(lower, 2 * d.upper.bets[p.upper].max_prize)


class _Machine:
    """The arrays one run needs, allocated once (the jitted loop allocates nothing)."""

    def __init__(self, d: LowerData, p: Pairing) -> None:
        self.lower = tuple(L.tables(d, PLAY, p.coin))  # Bonuses and the Disco at the lower bet
        self.upper = tuple(U.tables(d, p.upper))
        self.params = np.array(
            [p.coin, p.lower_bet, p.cash, p.need, d.game.vertical_lines_max], dtype=np.int64
        )
        self.lower_acc = np.zeros(len(L.ACC), dtype=np.int64)
        self.upper_acc = np.zeros(len(U.ACC), dtype=np.int64)
        self.drawn = np.zeros(d.disco_game.penguins, dtype=np.int64)
        self.plat, self.order = U.scratch(d)
        self.no_rows = np.zeros((0, len(U.COLUMNS)), dtype=np.int64)

    def play(self, rs: np.ndarray, state: np.ndarray, games: int, rows: np.ndarray) -> np.ndarray:
        acc = np.zeros(len(ACC), dtype=np.int64)
        _run(self.lower, self.upper, rs, state, games, self.params, acc, self.lower_acc, self.upper_acc,
             self.drawn, self.plat, self.order, self.no_rows, rows)  # fmt: skip
        return acc


def play_games(
    d: LowerData,
    bit_generator: np.random.PCG64DXSM,
    games: int,
    upper: int = 0,
    machine: dict[str, Any] | None = None,
) -> np.ndarray:
    """Play ``games`` games of the standard play at ``pairing(d, upper)`` exactly as the rules
    do, one row each (:data:`COLUMNS`).  ``machine`` is a player state (``rules.read_machine``'s
    shape; None: a new machine), updated in place; the bit generator is advanced past the words
    consumed, as if the rules had drawn from it."""
    if games < 0:
        raise ValueError(f"games must be non-negative, got {games}")
    p = pairing(d, upper)
    if machine is None:
        machine = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    key = str(d.upper_stakes[upper])
    state = np.array(
        [machine["bonuses"], machine["vertical_lines"], int(machine["accumulators"].get(key, 0))],
        dtype=np.int64,
    )
    rows = np.zeros((games, len(COLUMNS)), dtype=np.int64)
    rs = rng_state(bit_generator)
    _Machine(d, p).play(rs, state, games, rows)
    store_rng_state(bit_generator, rs)
    machine["bonuses"], machine["vertical_lines"] = int(state[0]), int(state[1])
    if (rows[:, R_UPPER] == 1).any() or key in machine["accumulators"]:
        machine["accumulators"][key] = int(state[2])
    return rows


@dataclass
class Tally:
    """One chunk's counts (exact integers, :data:`ACC`)."""

    games: int = 0
    lower_games: int = 0
    upper_games: int = 0
    eight_line_games: int = 0
    cash_in: int = 0
    cash_out: int = 0
    cash_out_sq: int = 0
    max_cash_out: int = 0
    bonuses_won: int = 0
    bonuses_staked: int = 0
    bonuses_end: int = 0  # the machine's Bonuses at the chunk's end

    def add(self, acc: np.ndarray) -> None:
        for k, f in enumerate(fields(self)[: len(ACC)]):
            x = int(acc[k])
            setattr(self, f.name, max(getattr(self, f.name), x) if k == A_MAX else getattr(self, f.name) + x)


def simulate_chunk(
    d: LowerData, seed: np.random.SeedSequence, games: int, upper: int = 0, warmup: int = WARMUP
) -> Tally:
    """One chunk: a new machine, ``warmup`` games not counted, then ``games`` games counted."""
    if games < 0 or warmup < 0:
        raise ValueError(f"games and warmup must be non-negative, got {games}, {warmup}")
    p = pairing(d, upper)
    m = _Machine(d, p)
    block = max(1, _INT64_MAX // max_game_cash(d, p) ** 2)  # a block's squares stay exact in int64
    rs = rng_state(np.random.PCG64DXSM(seed))
    state = np.zeros(3, dtype=np.int64)
    no_rows = np.zeros((0, len(COLUMNS)), dtype=np.int64)
    m.play(rs, state, warmup, no_rows)
    bonuses0 = int(state[0])
    tally = Tally()
    left = games
    while left > 0:
        n = min(left, block)
        tally.add(m.play(rs, state, n, no_rows))
        left -= n
    tally.bonuses_end = int(state[0])
    if tally.bonuses_won - tally.bonuses_staked != tally.bonuses_end - bonuses0:
        raise AssertionError("the Bonuses won and staked do not account for the machine's balance")
    return tally


def simulate(
    d: LowerData, seed: np.random.SeedSequence, games: int, chunks: int, upper: int = 0, warmup: int = WARMUP
) -> list[Tally]:
    """``chunks`` chunks of ``games // chunks`` games, chunk ``j`` seeded by ``seed.spawn(chunks)[j]``."""
    if chunks < 2 or games < chunks:
        raise ValueError(f"need at least 2 chunks and a game per chunk, got {chunks} chunks, {games} games")
    return [simulate_chunk(d, s, games // chunks, upper, warmup) for s in seed.spawn(chunks)]


def _batch_means(x: np.ndarray) -> dict[str, float]:
    """Mean with a Student-t :data:`LEVEL` interval over the chunks, and its standard error."""
    m = float(x.mean())
    se = float(x.std(ddof=1)) / math.sqrt(len(x))
    half = float(student.ppf(0.5 + LEVEL / 2, len(x) - 1)) * se
    return {"value": m, "low": m - half, "high": m + half, "half_width": half, "se": se}


def summarize(tallies: list[Tally], bracket: tuple[float, float] | None = None) -> dict[str, Any]:
    """Whole-machine figures over the chunks (batch means).  ``bracket``: the exact figure's
    [5-line, 8-line] pair; the MC is *inside* when its interval overlaps [min, max] of it, and
    ``z`` is its distance from the nearer end in standard errors (0 inside the bracket)."""

    def per(attr: str, over: str) -> np.ndarray:
        return np.array([getattr(t, attr) / getattr(t, over) for t in tallies], dtype=np.float64)

    total = Tally()
    for t in tallies:
        for f in fields(Tally):
            a, b = getattr(total, f.name), getattr(t, f.name)
            setattr(total, f.name, max(a, b) if f.name == "max_cash_out" else a + b)
    rtp = _batch_means(per("cash_out", "cash_in"))
    mean_out = total.cash_out / total.games
    sd_game = math.sqrt(max(total.cash_out_sq / total.games - mean_out**2, 0.0))
    out: dict[str, Any] = {
        "games": total.games,
        "chunks": len(tallies),
        "lower_games": total.lower_games,
        "upper_games": total.upper_games,
        "rtp": rtp,
        # what the interval would be if the games were independent (they are not)
        "rtp_iid_se": sd_game / math.sqrt(total.games) / (total.cash_in / total.games),
        "sd_game_cash_out": sd_game,
        "upper_per_lower": _batch_means(per("upper_games", "lower_games")),
        "eight_line_share": total.eight_line_games / max(total.upper_games, 1),
        "five_line_games": total.upper_games - total.eight_line_games,
        "bonuses_won": total.bonuses_won,
        "bonuses_staked": total.bonuses_staked,
        "max_cash_out": total.max_cash_out,
        "totals": total,
    }
    if bracket is not None:
        lo, hi = min(bracket), max(bracket)
        out["exact_bracket"] = [lo, hi]
        out["inside"] = rtp["low"] <= hi and rtp["high"] >= lo
        gap = rtp["value"] - hi if rtp["value"] > hi else min(rtp["value"] - lo, 0.0)
        out["z"] = gap / rtp["se"]
    return out
