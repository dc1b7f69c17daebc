"""Reign of Gnomes in numba: the rules of :mod:`.rules`, draw for draw, at Monte Carlo speed.

The kernel plays the default play of ``rules.py`` (Ice Diamonds picks stones 0, 1, 2, ...)
and asks for exactly the same ``randbelow`` draws in the same order, so that fed the same
PCG64DXSM state it deals the same rounds; ``tests/test_gnomes_kernel.py`` checks this
round by round against the readable rules.

Randomness: :mod:`reelforge.engine.kernel_rng`, numpy's PCG64DXSM word stream and the
rejection scaling of :func:`reelforge.rng.scale_unbiased`, inlined in the hot loop; the
state is read from and written back to the numpy bit generator.

Evaluation: for every reel set, reel and stop the 3-row window is precomputed as a bitmask
of the paying symbols it can extend (the symbol or the wild), the count of each, and the
scatter count.  A way win exists only if reels 1-3 share a bit, so most spins cost three
loads and an AND after the five draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.engine.kernel_rng import DRAWS, WORDS, accept_max_py, below, rng_state, store_rng_state
from reelforge.engine.kernel_stats import N_WIN_SLOTS, TOO_BIG, add_round, check_rounds, sim_stats
from reelforge.engine.memo import by_identity
from reelforge.engine.reels import ReelSet
from reelforge.engine.stats import SimStats

from .data_model import GnomesData

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


# -- tables -------------------------------------------------------------------------------------

_MULTIPLIER, _SPIN_TO_WIN, _RANDOM_WILDS, _ICE_DIAMONDS = range(4)
_AWARD_KIND = {"multiplier": _MULTIPLIER, "spin_to_win": _SPIN_TO_WIN, "random_wilds": _RANDOM_WILDS}
_BASE, _FREE, _STW, _RW0 = range(4)  # reel-set indices; random wild set i is _RW0 + i

# params array layout
P_CAP, P_WHEEL_TOTAL, P_N_RW, P_STONES, P_DIAMONDS, P_EMPTIES_TO_END, P_N_SEGMENTS, P_SCATTER = range(8)


class Tables(NamedTuple):
    """The kernel's arrays, in the order the jitted functions take them.

    Kept as separate arguments in the kernel (not a tuple read in the loop): numba
    reference-counts every array read out of a tuple, which cost more than the spin itself.
    """

    mask: np.ndarray  # uint64[set, reel, stop]: bit s = paying symbol s or the wild in the window
    count: np.ndarray  # uint8[set, reel, stop, symbol]: how many; last column: scatters
    strip: np.ndarray  # uint64[set, reel, 2]: strip length, largest raw word kept for it
    pay: np.ndarray  # int64[symbol, longest run, 2]: credits per way, reels the paid combination spans
    scatter: np.ndarray  # int64[scatters, 2]: credits, free spins awarded
    wheel: np.ndarray  # int64[segment, 3]: weight, award kind, multiplier
    ice_award: np.ndarray  # int64[diamonds collected]: credits
    accept: np.ndarray  # uint64[n]: largest raw word kept for randbelow(n); [0]: the wheel's total
    params: np.ndarray  # int64, P_* layout


def build_tables(d: GnomesData) -> Tables:
    """The kernel's view of a data file (pure function of the data)."""
    paying = list(d.ways_pays)
    if len(paying) > 64:
        raise ValueError("the kernel's window masks hold at most 64 paying symbols")
    # Built from the fields, not the cached ReelSet properties: model_copy(update=...) keeps
    # those cached values, stale, beside the new strips.
    free = d.free_reels.strips
    sets = [
        d.base_reels.reel_set(),
        d.free_reels.reel_set(),
        d.spin_to_win_reels.reel_set(),
        *(ReelSet.from_lists((free[0], *rw.strips, free[4]), rows=3) for rw in d.random_wild_sets),
    ]
    longest = max(len(strip) for rs in sets for strip in rs.strips)
    n_sets = len(sets)
    scatter_col = len(paying)
    mask = np.zeros((n_sets, 5, longest), dtype=np.uint64)
    count = np.zeros((n_sets, 5, longest, scatter_col + 1), dtype=np.uint8)
    strip_info = np.zeros((n_sets, 5, 2), dtype=np.uint64)
    for si, reel_set in enumerate(sets):
        if len(reel_set.strips) != 5 or reel_set.rows != 3:
            raise ValueError("the kernel plays 5 reels of 3 rows")
        for r, strip in enumerate(reel_set.strips):
            if strip.weights is not None:
                raise ValueError("the kernel draws unweighted stops only")
            strip_info[si, r] = (len(strip), accept_max_py(len(strip)))
            for stop in range(len(strip)):
                view = strip.view(stop, 3)
                count[si, r, stop, scatter_col] = sum(s == d.scatter for s in view)
                bits = 0
                for k, symbol in enumerate(paying):
                    c = sum(s == symbol or s == d.wild for s in view)
                    count[si, r, stop, k] = c
                    if c:
                        bits |= 1 << k
                mask[si, r, stop] = bits

    # evaluate_ways pays the longest combination the paytable lists, up to the run's length
    pay = np.zeros((max(len(paying), 1), 6, 2), dtype=np.int64)
    for k, symbol in enumerate(paying):
        for run in range(6):
            length = run
            while length and length not in d.ways_pays[symbol]:
                length -= 1
            if length:
                pay[k, run] = (d.ways_pays[symbol][length], length)

    credits = d.game.base_credits
    scatter = np.zeros((16, 2), dtype=np.int64)
    for k in range(16):
        scatter[k] = (d.scatter_pays.get(k, 0) * credits, d.free_spins.get(k, 0))

    wheel = np.array(
        [(s.weight, _AWARD_KIND.get(s.award, _ICE_DIAMONDS), s.multiplier or 1) for s in d.wheel],
        dtype=np.int64,
    )
    ice = d.ice_diamonds
    ice_award = np.array(
        [ice.levels[ice.level_for(n)].award * credits for n in range(ice.diamonds + 1)], dtype=np.int64
    )
    wheel_total = sum(d.wheel_weights)
    small = max(ice.stones, len(d.random_wild_sets))
    accept = np.array(
        [accept_max_py(wheel_total)] + [accept_max_py(n) for n in range(1, small + 1)], dtype=np.uint64
    )
    params = np.zeros(8, dtype=np.int64)
    params[P_CAP] = d.game.max_win * credits
    params[P_WHEEL_TOTAL] = wheel_total
    params[P_N_RW] = len(d.random_wild_sets)
    params[P_STONES] = ice.stones
    params[P_DIAMONDS] = ice.diamonds
    params[P_EMPTIES_TO_END] = ice.empties_to_end
    params[P_N_SEGMENTS] = len(d.wheel)
    params[P_SCATTER] = scatter_col
    return Tables(mask, count, strip_info, pay, scatter, wheel, ice_award, accept, params)


@by_identity(maxsize=16)
def tables(d: GnomesData) -> Tables:
    return build_tables(d)


# -- the rounds -------------------------------------------------------------------------------------
#
# Everything per round lives in one jitted function with a single spin site: numba
# reference-counts each array handed to a helper inside a loop (two atomic operations per
# array per call, which cost more than the spin itself), so the only helpers take
# scalars or the rng state, whose reference counts numba's pruning removes.

# per-round result layout (also play_rounds' columns)
COLUMNS = (
    "win",  # credits, after the max-win cap
    "win_uncapped",  # credits the draws dealt would pay without the cap
    "base_win",  # credits of the paid base spin
    "free_spins",  # free spins played
    "diamonds",  # Ice Diamonds collected, all features of the round together
    "spin_to_win_games",
    "draws",  # randbelow calls (what RecordingRandom records)
    "words",  # raw 64-bit words consumed (draws + rejections)
    "triggers",  # 1 if the base spin awarded free spins
    "retriggers",  # free spins that awarded more free spins
    "max_win",  # 1 if the round reached the cap
)
(
    R_WIN,
    R_WIN_U,
    R_BASE,
    R_FREE_SPINS,
    R_DIAMONDS,
    R_STW_GAMES,
    R_DRAWS,
    R_WORDS,
    R_TRIGGERS,
    R_RETRIGGERS,
    R_MAX_WIN,
) = range(len(COLUMNS))
R_SEGMENTS = len(COLUMNS)  # then one count per wheel segment

# accumulator layout of the simulation: the engine's win slots, then the game's own counts
(
    A_TRIGGERS,
    A_FREE_SPINS,
    A_RETRIGGERS,
    A_STW_GAMES,
) = range(N_WIN_SLOTS, N_WIN_SLOTS + 4)
A_SEGMENTS = N_WIN_SLOTS + 4  # then one count per wheel segment

# what the next spin of a round is
_SPIN_BASE, _SPIN_STW, _SPIN_MAIN = range(3)


@njit(inline="always")
def _add_capped(total: int, credits: int, cap: int) -> tuple[int, bool]:
    """rules._add_credits on the capped total: the new total, and whether the cap is reached."""
    total += credits
    if total >= cap:
        return cap, True
    return total, False


@njit(cache=True)
def _run(
    mask: np.ndarray,
    count: np.ndarray,
    strip: np.ndarray,
    pay: np.ndarray,
    scatter: np.ndarray,
    wheel: np.ndarray,
    ice_award: np.ndarray,
    accept: np.ndarray,
    params: np.ndarray,
    rs: np.ndarray,
    rounds: int,
    continue_past_cap: bool,
    keep_rows: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``rounds`` rounds of the default play; returns (accumulators, per-round rows).

    ``continue_past_cap=False`` is the rules: at the cap the round ends and what is left is
    forfeited.  ``True`` freezes the capped win but plays on with no cap, to measure the
    uncapped win; then every count but ``max_win`` describes the uncapped play.
    Rows (:data:`COLUMNS`, then wheel segment counts) are kept only if ``keep_rows``.
    """
    cap = params[P_CAP]
    sc = params[P_SCATTER]
    n_seg = params[P_N_SEGMENTS]
    wheel_total = np.uint64(params[P_WHEEL_TOTAL])
    n_rw = params[P_N_RW]
    stones = params[P_STONES]
    n_diamonds = params[P_DIAMONDS]
    empties_to_end = params[P_EMPTIES_TO_END]
    acc = np.zeros(A_SEGMENTS + n_seg, dtype=np.int64)
    rows = np.zeros((rounds if keep_rows else 0, R_SEGMENTS + n_seg), dtype=np.int64)
    segments = np.zeros(n_seg, dtype=np.int64)
    layout = np.zeros(stones, dtype=np.int8)
    stops = np.zeros(5, dtype=np.int64)

    for rnd in range(rounds):
        draws0 = rs[DRAWS]
        words0 = rs[WORDS]
        win = 0  # capped round total
        win_u = 0  # uncapped round total
        capped = False
        base_win = 0
        free_spins = 0
        diamonds = 0
        stw_games = 0
        triggers = 0
        retriggers = 0
        spins_left = 0
        for k in range(n_seg):
            segments[k] = 0

        kind = _SPIN_BASE
        reels = _BASE
        mult = 1  # multiplies way wins only, never the scatter pay
        while True:
            # ---- spin ``reels``: five stops, reel 1 first; then the ways, longest per symbol
            for r in range(5):
                stops[r] = below(rs, strip[reels, r, 0], strip[reels, r, 1])
            s0 = stops[0]
            s1 = stops[1]
            s2 = stops[2]
            s3 = stops[3]
            s4 = stops[4]
            scat = np.int64(count[reels, 0, s0, sc]) + np.int64(count[reels, 1, s1, sc])
            scat += np.int64(count[reels, 2, s2, sc]) + np.int64(count[reels, 3, s3, sc])
            scat += np.int64(count[reels, 4, s4, sc])
            ways = 0
            common = mask[reels, 0, s0] & mask[reels, 1, s1] & mask[reels, 2, s2]
            if common != _ZERO:  # else no symbol reaches reel 3: nothing pays (pays start at 3)
                m4 = mask[reels, 3, s3]
                m5 = mask[reels, 4, s4]
                sym = 0
                while common != _ZERO:
                    if common & _ONE:
                        bit = np.uint64(sym)
                        run = 3
                        if (m4 >> bit) & _ONE:
                            run = 4
                            if (m5 >> bit) & _ONE:
                                run = 5
                        length = pay[sym, run, 1]
                        if length:
                            n_ways = (
                                np.int64(count[reels, 0, s0, sym])
                                * np.int64(count[reels, 1, s1, sym])
                                * np.int64(count[reels, 2, s2, sym])
                            )
                            if length >= 4:
                                n_ways *= np.int64(count[reels, 3, s3, sym])
                                if length == 5:
                                    n_ways *= np.int64(count[reels, 4, s4, sym])
                            ways += pay[sym, run, 0] * n_ways
                    common >>= _ONE
                    sym += 1

            # ---- resolve the spin
            if kind == _SPIN_STW:
                stw_games += 1
                if ways == 0:
                    mult += 1  # a losing Spin To Win game: play again, one more multiplier
                    continue
            credits = ways * mult + scatter[scat, 0]
            if kind == _SPIN_BASE:
                base_win = credits
            win_u += credits
            if not capped:
                win, capped = _add_capped(win, credits, cap)
            if capped and not continue_past_cap:
                break
            if kind == _SPIN_BASE:
                spins_left = scatter[scat, 1]
                triggers = 1 if spins_left else 0
            elif kind == _SPIN_STW:  # the feature won: the free spin's main reels follow
                kind = _SPIN_MAIN
                reels = _FREE
                mult = 1
                continue
            elif scatter[scat, 1]:
                spins_left += scatter[scat, 1]
                retriggers += 1

            # ---- the next free spin, if any: the wheel, then its award's draws
            if spins_left == 0:
                break
            spins_left -= 1
            free_spins += 1
            r_w = below(rs, wheel_total, accept[0])
            seg = 0
            while r_w >= wheel[seg, 0]:  # rng.weighted_index: a cumulative scan
                r_w -= wheel[seg, 0]
                seg += 1
            segments[seg] += 1
            award = wheel[seg, 1]
            kind = _SPIN_MAIN
            reels = _FREE
            mult = 1
            if award == _MULTIPLIER:
                mult = wheel[seg, 2]
            elif award == _SPIN_TO_WIN:
                kind = _SPIN_STW
                reels = _STW
            elif award == _RANDOM_WILDS:
                reels = _RW0 + below(rs, np.uint64(n_rw), accept[n_rw])
            else:  # Ice Diamonds: shuffle the layout, pick stones 0, 1, 2, ... (the default play)
                for i in range(stones):
                    layout[i] = 1 if i < n_diamonds else 0
                for i in range(stones - 1, 0, -1):  # rng.shuffle: Fisher-Yates from the top down
                    j = below(rs, np.uint64(i + 1), accept[i + 1])
                    tmp = layout[i]
                    layout[i] = layout[j]
                    layout[j] = tmp
                found = 0
                empties = 0
                for i in range(stones):
                    if layout[i]:
                        found += 1
                        if found == n_diamonds:
                            break
                    else:
                        empties += 1
                        if empties == empties_to_end:
                            break
                diamonds += found
                credits = ice_award[found]
                win_u += credits
                if not capped:
                    win, capped = _add_capped(win, credits, cap)
                if capped and not continue_past_cap:
                    break  # the award reached the cap: the main reels do not spin

        # ---- book the round
        max_win = 1 if capped else 0
        if keep_rows:
            rows[rnd, R_WIN] = win
            rows[rnd, R_WIN_U] = win_u
            rows[rnd, R_BASE] = base_win
            rows[rnd, R_FREE_SPINS] = free_spins
            rows[rnd, R_DIAMONDS] = diamonds
            rows[rnd, R_STW_GAMES] = stw_games
            rows[rnd, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
            rows[rnd, R_WORDS] = np.int64(rs[WORDS] - words0)
            rows[rnd, R_TRIGGERS] = triggers
            rows[rnd, R_RETRIGGERS] = retriggers
            rows[rnd, R_MAX_WIN] = max_win
            for k in range(n_seg):
                rows[rnd, R_SEGMENTS + k] = segments[k]
        add_round(acc, win, win_u, base_win > 0, max_win)
        if win_u >= TOO_BIG:
            continue
        if free_spins:
            acc[A_TRIGGERS] += triggers
            acc[A_FREE_SPINS] += free_spins
            acc[A_RETRIGGERS] += retriggers
            acc[A_STW_GAMES] += stw_games
            for k in range(n_seg):
                acc[A_SEGMENTS + k] += segments[k]
    return acc, rows


# -- Python API -------------------------------------------------------------------------------



def play_rounds(data: GnomesData, bit_generator: np.random.PCG64DXSM, rounds: int) -> np.ndarray:
    """Play ``rounds`` rounds exactly as the rules do (stopping at the cap), one row each.

    Columns are :data:`COLUMNS` then one count per wheel segment.  The bit generator is
    advanced past the words consumed, as if the rules had drawn from it.
    """
    t = tables(data)
    rs = rng_state(bit_generator)
    _, out = _run(*t, rs, int(rounds), False, True)
    store_rng_state(bit_generator, rs)
    return out


def simulate_chunk(data: GnomesData, seed: np.random.SeedSequence, rounds: int) -> SimStats:
    """Monte Carlo of ``rounds`` rounds of the default play from one seed.

    A round that reaches the cap keeps its win at the cap but plays on, uncapped, so that
    ``win_uncapped`` measures the game without the cap (what the exact RTP describes).
    """
    check_rounds(rounds)
    t = tables(data)
    rs = rng_state(np.random.PCG64DXSM(seed))
    acc, _ = _run(*t, rs, int(rounds), True, False)
    a = [int(x) for x in acc]
    counters = {
        "free_spins_triggers": a[A_TRIGGERS],
        "free_spins_played": a[A_FREE_SPINS],
        "retriggers": a[A_RETRIGGERS],
        "spin_to_win_games": a[A_STW_GAMES],
    }
    for k, seg in enumerate(data.wheel):
        key = f"wheel_{seg.label}"
        counters[key] = counters.get(key, 0) + a[A_SEGMENTS + k]
    return sim_stats(acc, rounds, data.game.base_credits, counters)
