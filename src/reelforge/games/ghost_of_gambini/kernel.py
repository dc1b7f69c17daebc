"""Ghost of Gambini in numba: the rules of :mod:`.rules`, draw for draw, at Monte Carlo speed.

The kernel plays the three modes of ``rules.py`` with the default play (every ``spin`` of
Lock & Spin is taken as offered) and asks for exactly the same ``randbelow`` draws in the
same order (the draw orders are in the docstrings of :mod:`.panel`, :mod:`.piggies` and
:mod:`.lock_spin`), so that fed the same PCG64DXSM state it deals the same rounds;
``tests/test_gambini_kernel.py`` checks this round by round against the readable rules.

* ``base``: one panel spin, the piggy toss, and Lock & Spin when a piggy pops.  The two
  piggy banks carry over from round to round (``play_rounds`` takes their starting sizes;
  ``simulate_chunk`` starts a chunk with two new piggies, as a new player would).
* ``buy-lock-spin`` / ``buy-super-lock-spin``: the feature straight away with
  ``buy.spins`` spins; the piggies are neither read nor touched.  The stake is the mode's
  price, ``d.price_credits(mode)`` credits.

The max-win cap: :func:`play_rounds` is the rules (a round whose total reaches
``max_win_credits`` pays the cap and ends there: after a base spin that reaches it there
is no piggy toss and so no feature).  :func:`simulate_chunk` freezes the capped win at the
cap but plays on with no cap, so that ``win_uncapped`` measures the game the exact RTP
describes; in the base game such a round then also tosses into the piggies and may play a
feature the rules would have forfeited, so from a round that reached the cap *on its base
spin* on, the piggy sizes and the draw stream differ from what the rules would deal.  (A
cap reached at the end of a feature changes no draw: the feature's prizes are the last
draws of a round.)  With the shipped data no base spin comes near the cap (10,000 x the
bet); only Lock & Spin boards of many pots reach it.

Randomness: :mod:`reelforge.engine.kernel_rng`, numpy's PCG64DXSM word stream with the
rejection scaling of :func:`reelforge.rng.scale_unbiased`; the state is read from and
written back to the numpy bit generator.  (A division-free reduction of the kept word, a
multiply-high by a precomputed reciprocal, measured no faster here than ``word % n``.)

Evaluation: each position has a table stop -> *cell*, the symbol id (Gambini and the ghost
read as one wild id on the lines) and the mask of the paying symbols it extends.  No wild
lands on reels 1-2 (the data model keeps them to the center), so a line pays only if reel 2
shows its reel-1 symbol and, when no pay is shorter than 3, reel 3 that symbol or the wild:
ANDing the OR of each reel's three masks rules out four spins in five with two loads per
reel.  The rest are walked line by line, grouped by their rows on reels 1 and 2, each line
stopping at its first miss.  The cap, coins and jackpots are precomputed in credits, the
rewind targets per stop, and every weight table as cumulative weights with its total and
largest kept word.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.engine.kernel_rng import DRAWS, WORDS, accept_max_py, below, rng_state, store_rng_state
from reelforge.engine.kernel_stats import N_WIN_SLOTS, add_round, check_rounds, sim_stats
from reelforge.engine.memo import by_identity
from reelforge.engine.stats import SimStats

from .data_model import CENTER, JACKPOTS, N_POS, N_REELS, N_ROWS, OUTER, Feature, GambiniData

MODES = ("base", "buy-lock-spin", "buy-super-lock-spin")
_BASE, _BUY_LS, _BUY_SLS = range(3)


def _range_info(n: int) -> tuple[int, int]:
    """(n, largest raw word kept) of ``randbelow(n)``."""
    return n, accept_max_py(n)


# -- tables -------------------------------------------------------------------------------------

# weight tables: one row each of cumulative weights (wcum) and values (wval)
T_SHOT, T_CENTER, T_JACKPOT, T_GHOST_COUNT, T_GHOST_PRIZE, T_TOSS = range(6)
T_FEATURE = 6  # then per feature (Lock & Spin, then Super): the six tables below
F_START, F_PER_SPIN, F_COLOUR, F_BRONZE, F_SILVER, F_GOLD = range(6)
T_SIZES = T_FEATURE + 2 * 6  # then one table per piggy size

# params layout
(
    P_CAP,
    P_N_PAY,
    P_WILD,
    P_BLANK,
    P_LARGEST,
    P_BUY_SPINS,
    P_SHOT_STOP_GB,
    P_SHOT_STOP_GG,
    P_GOLD_ONLY_LS,
    P_GOLD_ONLY_SLS,
    P_MIN_RUN,
) = range(11)
_N_PARAMS = 11

GOLD = 3  # frame levels: 0 empty, 1 bronze, 2 silver, 3 gold

# A position's cell: its symbol id (pay symbols 0..n_pay-1, then one wild id for Gambini and
# the ghost, then the rest) in the low bits, above them the mask of the pay symbols it
# extends on a line (its own bit; every bit for the wild; none for coins, jackpots, blanks).
_ID_BITS = 8
_ID_MASK = (1 << _ID_BITS) - 1


class Tables(NamedTuple):
    """The kernel's arrays, in the order the jitted function takes them (separate arguments,
    not a tuple read in the loop: see the Reign of Gnomes kernel)."""

    sym: np.ndarray  # int32[position, stop]: cell: symbol id | (pay mask << _ID_BITS)
    center_kind: np.ndarray  # int8[stop]: the center strip's 0 royal, 1 Gambini, 2 ghost
    rewind: np.ndarray  # int16[position, stop]: stop the rewind moves to (center: a wild; else a jackpot)
    pos_range: np.ndarray  # uint64[position, 2]: strip length, largest raw word kept
    small_range: np.ndarray  # uint64[n, 2]: the same for randbelow(n), n = 0..15 (row 0 unused)
    line_group: np.ndarray  # int64[10]: lines of rows (r1, r2) are line_pos[g[3 r1 + r2] : g[.. + 1]]
    line_pos: np.ndarray  # int64[line, 3]: the line's positions on reels 3, 4, 5
    pay: np.ndarray  # int64[pay symbol, run length 0..5]: credits per line
    prize: np.ndarray  # int64[symbol id]: credits a coin or jackpot collects, else 0
    jackpot: np.ndarray  # int64[symbol id]: the jackpot's index (MINI..GRAND) or -1
    wcum: np.ndarray  # int64[table, entry]: cumulative weights (rng.weighted_index's walk)
    wval: np.ndarray  # int64[table, entry]: the entry's value (a count, credits or an index)
    wjack: np.ndarray  # int64[table, entry]: a prize entry's jackpot index or -1
    wrange: np.ndarray  # uint64[table, 2]: total weight, largest raw word kept
    params: np.ndarray  # int64, P_* layout


def _weight_row(weights: list[int]) -> list[int]:
    out, total = [], 0
    for w in weights:
        total += w
        out.append(total)
    return out


def build_tables(d: GambiniData) -> Tables:
    """The kernel's view of a data file (a pure function of the data)."""
    if len(d.strips) != N_POS or N_REELS != 5 or N_ROWS != 3:
        raise ValueError("the kernel plays 15 positions, 5 reels of 3 rows")
    pay_symbols = list(d.pays)
    ids: dict[str, int] = {s: k for k, s in enumerate(pay_symbols)}
    wild_id = len(pay_symbols)
    for w in d.wild_set:
        ids[w] = wild_id
    for s in d.symbols:
        if s not in ids:
            ids[s] = len(set(ids.values()))
    n_ids = len(set(ids.values()))
    if n_ids > 255 or len(pay_symbols) > 23:
        raise ValueError("the kernel's cells hold 255 symbol ids and 23 paying symbols")
    all_pay = (1 << len(pay_symbols)) - 1

    longest = max(len(s) for s in d.strips)
    if longest >= 2**15:
        raise ValueError("the kernel's rewind table holds stops below 32768")
    sym = np.zeros((N_POS, longest), dtype=np.int32)
    rewind = np.zeros((N_POS, longest), dtype=np.int16)
    pos_range = np.zeros((N_POS, 2), dtype=np.uint64)
    jackpot_syms = set(d.jackpots)
    for p, strip in enumerate(d.strips):
        n = len(strip)
        pos_range[p] = _range_info(n)
        wanted = d.wild_set if p == CENTER else jackpot_syms
        for stop, s in enumerate(strip):
            k = ids[s]
            mask = all_pay if k == wild_id else (1 << k) if k < len(pay_symbols) else 0
            sym[p, stop] = k | (mask << _ID_BITS)
            # panel.rewind_target: the nearest stop above, moving the reel back
            for dist in range(1, n + 1):
                if strip[(stop - dist) % n] in wanted:
                    rewind[p, stop] = (stop - dist) % n
                    break
            else:
                rewind[p, stop] = -1  # never read: the data model guarantees a target
    center = d.strips[CENTER]
    center_kind = np.array(
        [1 if s == d.wilds.gambini else 2 if s == d.wilds.ghost else 0 for s in center]
        + [0] * (longest - len(center)),
        dtype=np.int8,
    )
    small_range = np.zeros((16, 2), dtype=np.uint64)
    for n in range(1, 16):
        small_range[n] = _range_info(n)

    groups: list[list[tuple[int, int, int]]] = [[] for _ in range(9)]
    for line in d.lines:
        positions = tuple(r * N_ROWS + line[r] for r in range(2, 5))
        groups[3 * line[0] + line[1]].append(positions)  # type: ignore[arg-type]
    line_group = np.zeros(10, dtype=np.int64)
    line_pos = np.zeros((max(len(d.lines), 1), 3), dtype=np.int64)
    k = 0
    for g, members in enumerate(groups):
        line_group[g] = k
        for positions in members:
            line_pos[k] = positions
            k += 1
    line_group[9] = k

    # evaluate_lines pays the exact run length the paytable lists (no shorter fallback)
    pay = np.zeros((max(len(pay_symbols), 1), 6), dtype=np.int64)
    for i, s in enumerate(pay_symbols):
        for length, credits in d.pays[s].items():
            pay[i, length] = credits
    prize = np.zeros(n_ids, dtype=np.int64)
    jackpot = np.full(n_ids, -1, dtype=np.int64)
    for s, k in ids.items():
        if d.is_prize(s):
            prize[k] = d.prize_credits(s)
        if s in d.jackpots:
            jackpot[k] = JACKPOTS.index(s)

    # weight tables, in T_* order: (weights, values, jackpot indices)
    def prizes(table: dict[str, int]) -> tuple[list[int], list[int], list[int]]:
        names = list(table)
        return (
            list(table.values()),
            [d.prize_credits(x) for x in names],
            [JACKPOTS.index(x) if x in d.jackpots else -1 for x in names],
        )

    def plain(weights: list[int], values: list[int] | None = None) -> tuple[list[int], list[int], list[int]]:
        return weights, values if values is not None else list(range(len(weights))), [-1] * len(weights)

    def feature(f: Feature) -> list[tuple[list[int], list[int], list[int]]]:
        out = [
            plain(list(f.start_ghosts.values()), list(f.start_ghosts)),
            plain(list(f.ghosts_per_spin.values()), list(f.ghosts_per_spin)),
            plain(f.colour_weights),
        ]
        for table in (f.frames.bronze, f.frames.silver, f.frames.gold):
            out.append(prizes(table) if table else ([1], [0], [-1]))  # empty: never drawn
        return out

    rows = [
        plain(d.magic_shot.weights),
        plain(d.magic_rewind.center.weights),
        plain(d.magic_rewind.jackpot.weights),
        plain(list(d.ghost_coins.count.values()), list(d.ghost_coins.count)),
        prizes(d.ghost_coins.prizes),
        plain(d.piggies.toss_weights),
        *feature(d.lock_spin),
        *feature(d.super_lock_spin),
        *(plain(size.weights) for size in d.piggies.sizes),
    ]
    width = max(len(r[0]) for r in rows)
    wcum = np.zeros((len(rows), width), dtype=np.int64)
    wval = np.zeros((len(rows), width), dtype=np.int64)
    wjack = np.full((len(rows), width), -1, dtype=np.int64)
    wrange = np.zeros((len(rows), 2), dtype=np.uint64)
    for t, (weights, values, jacks) in enumerate(rows):
        cum = _weight_row(weights)
        wcum[t, : len(cum)] = cum
        wcum[t, len(cum) :] = cum[-1] + 1  # beyond the total: the walk never passes it
        wval[t, : len(values)] = values
        wjack[t, : len(jacks)] = jacks
        wrange[t] = _range_info(cum[-1])

    params = np.zeros(_N_PARAMS, dtype=np.int64)
    params[P_CAP] = d.max_win_credits
    params[P_N_PAY] = len(pay_symbols)
    params[P_MIN_RUN] = min(
        (length for pays in d.pays.values() for length, c in pays.items() if c > 0), default=N_REELS + 1
    )
    params[P_WILD] = wild_id
    params[P_BLANK] = ids[d.blank]
    params[P_LARGEST] = len(d.piggies.sizes) - 1
    params[P_BUY_SPINS] = d.buy.spins
    for key, wild, weight in (
        (P_SHOT_STOP_GB, d.wilds.gambini, d.magic_shot.gambini),
        (P_SHOT_STOP_GG, d.wilds.ghost, d.magic_shot.ghost),
    ):
        if weight and wild not in center:
            # panel.first_stop fails there too; the data model does not rule it out
            raise ValueError(f"magic_shot can land {wild!r}, which the center strip does not hold")
        params[key] = center.index(wild) if wild in center else 0
    params[P_GOLD_ONLY_LS] = int(d.lock_spin.gold_only)
    params[P_GOLD_ONLY_SLS] = int(d.super_lock_spin.gold_only)
    return Tables(
        sym,
        center_kind,
        rewind,
        pos_range,
        small_range,
        line_group,
        line_pos,
        pay,
        prize,
        jackpot,
        wcum,
        wval,
        wjack,
        wrange,
        params,
    )


@by_identity(maxsize=16)
def tables(d: GambiniData) -> Tables:
    return build_tables(d)


# -- the rounds -------------------------------------------------------------------------------------

# per-round result layout (play_rounds' columns)
COLUMNS = (
    "win",  # credits, after the max-win cap
    "win_uncapped",  # credits the draws dealt would pay without the cap
    "base_win",  # credits of the base spin (lines + collection); 0 in the buy modes
    "line_win",  # of which the lines
    "collect_win",  # of which the coins and jackpots collected
    "feature_win",  # credits the Lock & Spin board turned into (before the cap)
    "feature",  # FEATURE_KINDS index: 0 none
    "feature_spins",  # Lock & Spin spins played (the start ghosts not counted)
    "all_gold",  # 1 if the board ended all gold
    "draws",  # randbelow calls (what RecordingRandom records)
    "words",  # raw 64-bit words consumed (draws + rejections)
    "piggy_left",  # piggy sizes after the round (buy modes: as given, untouched)
    "piggy_right",
    "shot",  # magic shot: 0 none, 1 Gambini, 2 the ghost
    "center_wild",  # the base spin's final center: 0 a royal, 1 Gambini, 2 the ghost
    "center_rewind",  # 1 if the center rewind fired
    "jackpot_rewind",  # 1 if the jackpot rewind fired
    "ghost_coins",  # ghost coins thrown
    "max_win",  # 1 if the round reached the cap
)
(
    R_WIN,
    R_WIN_U,
    R_BASE,
    R_LINES,
    R_COLLECT,
    R_FEATURE_WIN,
    R_FEATURE,
    R_FEATURE_SPINS,
    R_ALL_GOLD,
    R_DRAWS,
    R_WORDS,
    R_PIGGY_L,
    R_PIGGY_R,
    R_SHOT,
    R_CENTER,
    R_CENTER_REWIND,
    R_JACKPOT_REWIND,
    R_GHOST_COINS,
    R_MAX_WIN,
) = range(len(COLUMNS))

# the feature of a round: triggered by one pop (3 spins) or two (4 spins), or bought
FEATURE_KINDS = (
    None,
    "lock_spin_3",
    "lock_spin_4",
    "super_lock_spin_3",
    "super_lock_spin_4",
    "bought_lock_spin",
    "bought_super_lock_spin",
)

# accumulator layout of the simulation: the engine's win slots, then the game's own counts
(
    A_SHOT_GB,
    A_SHOT_GG,
    A_CENTER_GB,
    A_CENTER_GG,
    A_CENTER_REWIND,
    A_JACKPOT_REWIND,
    A_GHOST_COINS,
    A_POPS,
    A_FEATURE_SPINS,
    A_ALL_GOLD,
) = range(N_WIN_SLOTS, N_WIN_SLOTS + 10)
A_FEATURE = N_WIN_SLOTS + 10  # then one count per FEATURE_KINDS entry (index 0 unused)
A_JACKPOT = A_FEATURE + len(FEATURE_KINDS)  # then one count per jackpot won, MINI..GRAND
_N_ACC = A_JACKPOT + len(JACKPOTS)

_CENTER = CENTER
_OUTER = np.array(OUTER, dtype=np.int64)
_N_OUTER = len(OUTER)


@njit(inline="always")
def _weighted(rs: np.ndarray, wcum: np.ndarray, wrange: np.ndarray, t: int) -> int:
    """rng.weighted_index on table ``t``: one randbelow(total), then the cumulative walk."""
    r = below(rs, wrange[t, 0], wrange[t, 1])
    i = 0
    while r >= wcum[t, i]:
        i += 1
    return i


@njit(cache=True)
def _run(
    sym: np.ndarray,
    center_kind: np.ndarray,
    rewind: np.ndarray,
    pos_range: np.ndarray,
    small_range: np.ndarray,
    line_group: np.ndarray,
    line_pos: np.ndarray,
    pay: np.ndarray,
    prize: np.ndarray,
    jackpot: np.ndarray,
    wcum: np.ndarray,
    wval: np.ndarray,
    wjack: np.ndarray,
    wrange: np.ndarray,
    params: np.ndarray,
    outer: np.ndarray,
    rs: np.ndarray,
    rounds: int,
    mode: int,
    piggy_left: int,
    piggy_right: int,
    continue_past_cap: bool,
    keep_rows: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``rounds`` rounds of ``mode``; returns (accumulators, per-round rows).

    ``continue_past_cap=False`` is the rules: at the cap the round ends and what is left is
    forfeited.  ``True`` freezes the capped win but plays on with no cap (see the module
    docstring).  Rows (:data:`COLUMNS`) are kept only if ``keep_rows``.
    """
    cap = params[P_CAP]
    n_pay = params[P_N_PAY]
    wild = params[P_WILD]
    blank = params[P_BLANK]
    largest = params[P_LARGEST]
    n_outer = outer.shape[0]
    acc = np.zeros(_N_ACC, dtype=np.int64)
    rows = np.zeros((rounds if keep_rows else 0, len(COLUMNS)), dtype=np.int64)
    stops = np.zeros(N_POS, dtype=np.int64)
    cells = np.zeros(N_POS, dtype=np.int64)  # the window's cells, by position
    reel3_filter = params[P_MIN_RUN] >= 3
    board = np.zeros(N_POS, dtype=np.int64)
    r15 = small_range[N_POS]
    r_outer = small_range[n_outer]
    pl = piggy_left
    pr = piggy_right

    for rnd in range(rounds):
        draws0 = rs[DRAWS]
        words0 = rs[WORDS]
        win = 0  # capped round total
        win_u = 0  # uncapped round total
        capped = False
        base_win = 0
        line_win = 0
        collect = 0
        feature_win = 0
        kind = 0  # FEATURE_KINDS index
        feature_spins = 0
        all_gold = 0
        shot = 0
        ck = 0
        center_rewind = 0
        jackpot_rewind = 0
        ghost_coins = 0
        feature_super = False
        feature_spins_start = 0

        if mode == _BASE:
            # ---- 1. the magic shot; 2. the stops, reel by reel, top row first
            shot = _weighted(rs, wcum, wrange, T_SHOT)
            for p in range(N_POS):
                if p == _CENTER and shot != 0:
                    stop = params[P_SHOT_STOP_GB] if shot == 1 else params[P_SHOT_STOP_GG]
                else:
                    stop = below(rs, pos_range[p, 0], pos_range[p, 1])
                stops[p] = stop
                cells[p] = sym[p, stop]
            ck = np.int64(center_kind[stops[_CENTER]])
            # ---- 3. no wild in the center: the center rewind
            if ck == 0 and _weighted(rs, wcum, wrange, T_CENTER) == 0:
                to = np.int64(rewind[_CENTER, stops[_CENTER]])
                stops[_CENTER] = to
                cells[_CENTER] = sym[_CENTER, to]
                ck = np.int64(center_kind[to])
                center_rewind = 1
            # ---- 4. a wild in the center: the jackpot rewind, the ghost's coins, the collection
            if ck != 0:
                n_blanks = 0
                for i in range(n_outer):
                    if cells[outer[i]] & _ID_MASK == blank:
                        n_blanks += 1
                if n_blanks > 0 and _weighted(rs, wcum, wrange, T_JACKPOT) == 0:
                    k = below(rs, small_range[n_blanks, 0], small_range[n_blanks, 1])
                    for i in range(n_outer):
                        p = outer[i]
                        if cells[p] & _ID_MASK == blank:
                            if k == 0:
                                to = np.int64(rewind[p, stops[p]])
                                stops[p] = to
                                cells[p] = sym[p, to]
                                break
                            k -= 1
                    jackpot_rewind = 1
                    acc[A_JACKPOT_REWIND] += 1
                for i in range(n_outer):
                    s = cells[outer[i]] & _ID_MASK
                    credits = prize[s]
                    if credits != 0:
                        collect += credits
                        j = jackpot[s]
                        if j >= 0:
                            acc[A_JACKPOT + j] += 1
                if ck == 2:
                    ghost_coins = wval[T_GHOST_COUNT, _weighted(rs, wcum, wrange, T_GHOST_COUNT)]
                    for _ in range(ghost_coins):
                        e = _weighted(rs, wcum, wrange, T_GHOST_PRIZE)
                        collect += wval[T_GHOST_PRIZE, e]
                        j = wjack[T_GHOST_PRIZE, e]
                        if j >= 0:
                            acc[A_JACKPOT + j] += 1
                        below(rs, r_outer[0], r_outer[1])  # where it lands: no effect on the sum
                    acc[A_GHOST_COINS] += ghost_coins
                    acc[A_CENTER_GG] += 1
                else:
                    acc[A_CENTER_GB] += 1
            # ---- 5. the lines.  No wild lands on reels 1-2, so a line pays only if reel 2 shows its
            # reel-1 symbol (and, when no pay is shorter than 3, reel 3 that symbol or the wild):
            # the pay masks of the reels' three rows tell in a few ANDs that no line can pay.
            common = ((cells[0] | cells[1] | cells[2]) & (cells[3] | cells[4] | cells[5])) >> _ID_BITS
            if reel3_filter:
                common &= (cells[6] | cells[7] | cells[8]) >> _ID_BITS
            if common != 0:
                for r1 in range(N_ROWS):
                    s = cells[r1] & _ID_MASK
                    if s >= n_pay:
                        continue
                    for r2 in range(N_ROWS):
                        if cells[N_ROWS + r2] & _ID_MASK != s:
                            continue
                        g = N_ROWS * r1 + r2
                        for li in range(line_group[g], line_group[g + 1]):
                            x = cells[line_pos[li, 0]] & _ID_MASK
                            run = 2
                            if (x == s) | (x == wild):
                                run = 3
                                x = cells[line_pos[li, 1]] & _ID_MASK
                                if (x == s) | (x == wild):
                                    run = 4
                                    x = cells[line_pos[li, 2]] & _ID_MASK
                                    if (x == s) | (x == wild):
                                        run = 5
                            line_win += pay[s, run]
            base_win = line_win + collect
            win_u = base_win
            win = base_win
            if win >= cap:
                win = cap
                capped = True
            if shot != 0:
                acc[A_SHOT_GB + shot - 1] += 1
            if center_rewind:
                acc[A_CENTER_REWIND] += 1
            # ---- the piggy toss (not after a spin that reached the cap, unless playing on)
            if ck != 0 and (continue_past_cap or not capped):
                target = 2 if ck == 2 else _weighted(rs, wcum, wrange, T_TOSS)  # left, right, both
                popped = 0
                if target != 1 and _weighted(rs, wcum, wrange, T_SIZES + pl) == 0:  # left first
                    if pl == largest:
                        pl = 0
                        popped += 1
                    else:
                        pl += 1
                if target != 0 and _weighted(rs, wcum, wrange, T_SIZES + pr) == 0:
                    if pr == largest:
                        pr = 0
                        popped += 1
                    else:
                        pr += 1
                if popped:
                    acc[A_POPS] += popped
                    feature_super = ck == 2
                    feature_spins_start = 3 if popped == 1 else 4
                    kind = (3 if feature_super else 1) + popped - 1
        else:
            feature_super = mode == _BUY_SLS
            feature_spins_start = params[P_BUY_SPINS]
            kind = 6 if feature_super else 5

        # ---- Lock & Spin: the start ghosts, then the spins, then the frames' prizes
        if kind != 0:
            fo = T_FEATURE + (6 if feature_super else 0)
            gold_only = params[P_GOLD_ONLY_SLS] if feature_super else params[P_GOLD_ONLY_LS]
            for p in range(N_POS):
                board[p] = 0
            n_gold = 0
            table = fo + F_START
            counter = -1  # before the start ghosts
            while True:
                n_ghosts = wval[table, _weighted(rs, wcum, wrange, table)]
                landed = 0
                for _ in range(n_ghosts):
                    if n_gold == N_POS:
                        break  # ghosts left over once the board is all gold draw nothing
                    gold = gold_only != 0 or _weighted(rs, wcum, wrange, fo + F_COLOUR) == 1
                    t = below(rs, r15[0], r15[1])
                    if board[t] == GOLD:  # it moves on to one of the positions not gold
                        k = below(rs, small_range[N_POS - n_gold, 0], small_range[N_POS - n_gold, 1])
                        for q in range(N_POS):
                            if board[q] != GOLD:
                                if k == 0:
                                    t = q
                                    break
                                k -= 1
                    level = GOLD if gold else board[t] + 1
                    board[t] = level
                    if level == GOLD:
                        n_gold += 1
                    landed += 1
                if counter < 0:
                    counter = feature_spins_start
                else:
                    feature_spins += 1
                    counter = feature_spins_start if landed else counter - 1
                if counter == 0 or n_gold == N_POS:
                    break
                table = fo + F_PER_SPIN
            for p in range(N_POS):
                level = board[p]
                if level != 0:
                    t = fo + F_BRONZE + level - 1
                    e = _weighted(rs, wcum, wrange, t)
                    feature_win += wval[t, e]
                    j = wjack[t, e]
                    if j >= 0:
                        acc[A_JACKPOT + j] += 1
            all_gold = 1 if n_gold == N_POS else 0
            win_u += feature_win
            if not capped:
                win += feature_win
                if win >= cap:
                    win = cap
                    capped = True
            acc[A_FEATURE + kind] += 1
            acc[A_FEATURE_SPINS] += feature_spins
            acc[A_ALL_GOLD] += all_gold

        # ---- book the round
        max_win = 1 if capped else 0
        if keep_rows:
            rows[rnd, R_WIN] = win
            rows[rnd, R_WIN_U] = win_u
            rows[rnd, R_BASE] = base_win
            rows[rnd, R_LINES] = line_win
            rows[rnd, R_COLLECT] = collect
            rows[rnd, R_FEATURE_WIN] = feature_win
            rows[rnd, R_FEATURE] = kind
            rows[rnd, R_FEATURE_SPINS] = feature_spins
            rows[rnd, R_ALL_GOLD] = all_gold
            rows[rnd, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
            rows[rnd, R_WORDS] = np.int64(rs[WORDS] - words0)
            rows[rnd, R_PIGGY_L] = pl
            rows[rnd, R_PIGGY_R] = pr
            rows[rnd, R_SHOT] = shot
            rows[rnd, R_CENTER] = ck
            rows[rnd, R_CENTER_REWIND] = center_rewind
            rows[rnd, R_JACKPOT_REWIND] = jackpot_rewind
            rows[rnd, R_GHOST_COINS] = ghost_coins
            rows[rnd, R_MAX_WIN] = max_win
        if win_u == 0:
            continue
        add_round(acc, win, win_u, win > 0, max_win)
    return acc, rows


# -- Python API -------------------------------------------------------------------------------



def _mode_code(mode: str) -> int:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
    return MODES.index(mode)


def _call(
    d: GambiniData,
    rs: np.ndarray,
    rounds: int,
    mode: str,
    piggies: tuple[int, int],
    continue_past_cap: bool,
    keep_rows: bool,
) -> tuple[np.ndarray, np.ndarray]:
    code = _mode_code(mode)
    n_sizes = len(d.piggies.sizes)
    left, right = (int(x) for x in piggies)
    if not (0 <= left < n_sizes and 0 <= right < n_sizes):
        raise ValueError(f"piggy sizes must be in [0, {n_sizes}), got {piggies!r}")
    t = tables(d)
    return _run(*t, _OUTER, rs, int(rounds), code, left, right, continue_past_cap, keep_rows)


def play_rounds(
    d: GambiniData,
    bit_generator: np.random.PCG64DXSM,
    rounds: int,
    mode: str = "base",
    piggies: tuple[int, int] = (0, 0),
) -> np.ndarray:
    """Play ``rounds`` rounds of ``mode`` exactly as the rules do (stopping at the cap), one
    row each (:data:`COLUMNS`).  In the base game the piggies start at ``piggies`` and carry
    over from round to round.  The bit generator is advanced past the words consumed, as if
    the rules had drawn from it."""
    if rounds < 0:
        raise ValueError(f"rounds must be non-negative, got {rounds}")
    rs = rng_state(bit_generator)
    _, out = _call(d, rs, rounds, mode, piggies, False, True)
    store_rng_state(bit_generator, rs)
    return out


def simulate_chunk(d: GambiniData, seed: np.random.SeedSequence, rounds: int, mode: str = "base") -> SimStats:
    """Monte Carlo of ``rounds`` rounds of ``mode`` from one seed (base: two new piggies at
    the start, carried over from round to round); the stake is the mode's price.

    A round that reaches the cap keeps its win at the cap but plays on, uncapped, so that
    ``win_uncapped`` measures the game without the cap (what the exact RTP describes).
    """
    check_rounds(rounds)
    rs = rng_state(np.random.PCG64DXSM(seed))
    acc, _ = _call(d, rs, rounds, mode, (0, 0), True, False)
    a = [int(x) for x in acc]
    counters = {
        "magic_shot_gambini": a[A_SHOT_GB],
        "magic_shot_ghost": a[A_SHOT_GG],
        "center_gambini": a[A_CENTER_GB],
        "center_ghost": a[A_CENTER_GG],
        "center_rewinds": a[A_CENTER_REWIND],
        "jackpot_rewinds": a[A_JACKPOT_REWIND],
        "ghost_coins": a[A_GHOST_COINS],
        "piggy_pops": a[A_POPS],
        "feature_spins": a[A_FEATURE_SPINS],
        "all_gold": a[A_ALL_GOLD],
    }
    for k, name in enumerate(FEATURE_KINDS):
        if name is not None:
            counters[name] = a[A_FEATURE + k]
    for k, name in enumerate(JACKPOTS):
        counters[f"jackpot_{name.lower()}"] = a[A_JACKPOT + k]
    return sim_stats(acc, rounds, d.price_credits(mode), counters)
