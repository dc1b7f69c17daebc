"""A ``lines`` game in numba: the rules of :mod:`.rules`, draw for draw, at Monte Carlo speed.

Fed the same PCG64DXSM state as the readable rules (through
:mod:`reelforge.engine.kernel_rng`), the kernel asks for the same ``randbelow`` draws in the
same order (five stops a spin, reel 1 first) and deals the same rounds;
``tests/test_lines_game.py`` checks it round by round.  Each stop's 3-row window is
precomputed as symbol indices and a scatter count; a line is walked left to right as in
:mod:`.evaluate` and stops at the first symbol that breaks its run.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.engine.kernel_rng import DRAWS, accept_max_py, below, rng_state, store_rng_state
from reelforge.engine.kernel_stats import N_WIN_SLOTS, TOO_BIG, add_round, check_rounds, sim_stats
from reelforge.engine.memo import by_identity
from reelforge.engine.stats import SimStats

from .data_model import REELS, LinesData
from .enumerate import MAX_SCATTERS, tables, window_table


class Tables(NamedTuple):
    win: np.ndarray  # int64[set, reel, stop, row]: symbol index; set 0 base, 1 free
    strip: np.ndarray  # uint64[set, reel, 2]: strip length, largest raw word kept for it
    scat: np.ndarray  # int64[set, reel, stop]: scatters in the window
    lines: np.ndarray  # int64[line, reel]: row
    pay: np.ndarray  # int64[symbol, length]
    wild_pay: np.ndarray  # int64[length]
    scatter: np.ndarray  # int64[set, scatters, 2]: scatter pay (credits), spins awarded / added
    params: np.ndarray  # int64: wild, five-wild pay, multiplier, max spins, cap


P_WILD, P_FIVE_WILD, P_MULT, P_MAX_SPINS, P_CAP = range(5)


def build_tables(d: LinesData) -> Tables:
    t = tables(d)
    sets = [d.base_reels.reel_set()] + ([d.free_reels.reel_set()] if d.free_reels is not None else [])
    longest = max(len(s) for rs in sets for s in rs.strips)
    win = np.zeros((2, REELS, longest, 3), dtype=np.int64)
    strip = np.zeros((2, REELS, 2), dtype=np.uint64)
    scat = np.zeros((2, REELS, longest), dtype=np.int64)
    for si, rs in enumerate(sets):
        w, lengths = window_table(rs, t.codes)
        win[si, :, : w.shape[1]] = w
        for r in range(REELS):
            strip[si, r] = (lengths[r], accept_max_py(int(lengths[r])))
            if t.scatter >= 0:
                scat[si, r, : w.shape[1]] = (w[r] == t.scatter).sum(axis=1)
    fs = d.free_spins
    scatter = np.zeros((2, MAX_SCATTERS + 1, 2), dtype=np.int64)
    for k in range(MAX_SCATTERS + 1):
        pay = d.scatter_pays.get(k, 0) * d.lines
        scatter[0, k] = (pay, fs.award.get(k, 0) if fs else 0)
        scatter[1, k] = (pay, fs.retrigger.get(k, 0) if fs else 0)
    params = np.array(
        [
            t.wild,
            t.five_wild,
            fs.multiplier if fs else 1,
            fs.max_spins if fs else 0,
            d.game.max_win * d.lines,
        ],
        dtype=np.int64,
    )
    return Tables(win, strip, scat, t.lines, t.pay, t.wild_pay, scatter, params)


@by_identity(maxsize=16)
def kernel_tables(d: LinesData) -> Tables:
    return build_tables(d)


COLUMNS = ("win", "win_uncapped", "base_win", "free_spins", "draws", "triggers", "retriggers", "max_win")
R_WIN, R_WIN_U, R_BASE, R_FREE, R_DRAWS, R_TRIG, R_RETRIG, R_MAX = range(len(COLUMNS))
# the accumulator: the engine's win slots (engine.kernel_stats), then the game's own counts
A_TRIG, A_FREE, A_RETRIG = range(N_WIN_SLOTS, N_WIN_SLOTS + 3)
N_ACC = N_WIN_SLOTS + 3


@njit(inline="always")
def _line_credits(win, si, stops, lines, pay, wild_pay, wild, five_wild) -> int:  # type: ignore[no-untyped-def]
    total = 0
    for li in range(lines.shape[0]):
        w = 0
        while w < 5 and win[si, w, stops[w], lines[li, w]] == wild:
            w += 1
        if w == 5:
            total += five_wild
            continue
        x = win[si, w, stops[w], lines[li, w]]
        length = w + 1
        while length < 5:
            c = win[si, length, stops[length], lines[li, length]]
            if c != x and c != wild:
                break
            length += 1
        xp = pay[x, length]
        wp = wild_pay[w]
        total += xp if xp >= wp else wp
    return total


@njit(cache=True)
def _run(win, strip, scat, lines, pay, wild_pay, scatter, params, rs, rounds, past_cap, keep_rows):  # type: ignore[no-untyped-def]
    """Play ``rounds`` rounds; returns (accumulators, rows).  ``past_cap`` plays on past the cap,
    uncapped, to measure the game without it (the capped win is frozen at the cap)."""
    wild = params[P_WILD]
    five_wild = params[P_FIVE_WILD]
    mult = params[P_MULT]
    max_spins = params[P_MAX_SPINS]
    cap = params[P_CAP]
    acc = np.zeros(N_ACC, dtype=np.int64)
    rows = np.zeros((rounds if keep_rows else 0, len(COLUMNS)), dtype=np.int64)
    stops = np.zeros(5, dtype=np.int64)
    for rnd in range(rounds):
        draws0 = rs[DRAWS]
        win_c = 0
        win_u = 0
        capped = False
        free_spins = 0
        retriggers = 0
        si = 0
        m = 1
        left = 0
        awarded = 0
        base_win = 0
        while True:
            k = 0
            for r in range(5):
                stops[r] = below(rs, strip[si, r, 0], strip[si, r, 1])
                k += scat[si, r, stops[r]]
            credits = (
                _line_credits(win, si, stops, lines, pay, wild_pay, wild, five_wild) + scatter[si, k, 0]
            ) * m
            if si == 0:
                base_win = credits
            win_u += credits
            if not capped:
                win_c += credits
                if win_c >= cap:
                    win_c = cap
                    capped = True
            if capped and not past_cap:
                break
            if si == 0:
                left = scatter[0, k, 1]
                awarded = left
                si = 1
                m = mult
            else:
                extra = scatter[1, k, 1]
                if extra > max_spins - awarded:
                    extra = max_spins - awarded
                if extra > 0:
                    left += extra
                    awarded += extra
                    retriggers += 1
            if left == 0:
                break
            left -= 1
            free_spins += 1
        triggered = 1 if free_spins > 0 else 0
        if keep_rows:
            rows[rnd, R_WIN] = win_c
            rows[rnd, R_WIN_U] = win_u
            rows[rnd, R_BASE] = base_win
            rows[rnd, R_FREE] = free_spins
            rows[rnd, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
            rows[rnd, R_TRIG] = triggered
            rows[rnd, R_RETRIG] = retriggers
            rows[rnd, R_MAX] = 1 if capped else 0
        add_round(acc, win_c, win_u, base_win > 0, 1 if capped else 0)
        if win_u >= TOO_BIG:
            continue
        acc[A_TRIG] += triggered
        acc[A_FREE] += free_spins
        acc[A_RETRIG] += retriggers
    return acc, rows


def play_rounds(d: LinesData, bit_generator: np.random.PCG64DXSM, rounds: int) -> np.ndarray:
    """``rounds`` rounds exactly as the rules play them (stopping at the cap), a row each
    (:data:`COLUMNS`); the bit generator is advanced past the words consumed."""
    rs = rng_state(bit_generator)
    _, rows = _run(*kernel_tables(d), rs, int(rounds), False, True)
    store_rng_state(bit_generator, rs)
    return rows


def simulate_chunk(d: LinesData, seed: np.random.SeedSequence, rounds: int) -> SimStats:
    """Monte Carlo of ``rounds`` rounds from one seed; a capped round plays on uncapped, so
    ``win_uncapped`` measures what the exact RTP describes."""
    check_rounds(rounds)
    rs = rng_state(np.random.PCG64DXSM(seed))
    acc, _ = _run(*kernel_tables(d), rs, int(rounds), True, False)
    counters = {"free_spins_triggers": int(acc[A_TRIG]), "free_spins_played": int(acc[A_FREE])}
    return sim_stats(acc, rounds, d.lines, {**counters, "retriggers": int(acc[A_RETRIG])})
