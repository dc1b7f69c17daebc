"""Los 3 Pinguinos (the lower game) in numba: the AUTO play of :mod:`.rules`, draw for draw.

The kernel plays what ``LosTresPinguinos.auto_action`` plays with AUTO-ADVANCE on and
AUTO-RISK off: the best holds and nudges of ``strategy.tables(d, "auto")``, COLLECT on
every ladder, the Disco stopped at once, at the unit bet (``game.unit`` cents, coin 1).
With ``play="default"`` it plays the default play instead (the suggested hold, the nudges
best for that play: ``strategy.tables(d, "default")``), which draws the same way.  It
asks for exactly the ``randbelow`` draws of the rules, in the order of the rules' module
docstring, so that fed the same PCG64DXSM state it deals the same rounds;
``tests/test_pinguinos_kernel.py`` checks this round by round.  Under this play a round
draws:

1. three stops, left to right (``randbelow(16)`` each);
2. on a near miss, the ``nudges.offer`` draw and, when offered, the count draw over the
   ``nudges.count`` weights of the counts that reach an improvement (``payline.count_weights``;
   the nudges themselves draw nothing: they follow the decision table);
3. on a line without a prize but with a pair, the ``hold`` draw; offered, the reels not
   held spin again (one stop each, left to right) as the held game, which may again be
   offered nudges (step 2; not when every reel spins) but no hold;
4. on the Disco, one ``disco_game.prizes`` draw per penguin, then ``randbelow(penguins)``
   for the one it stops on.  Collecting a ladder draws nothing.

Every position of the three reels is one *stop index* ``(s0 * 16 + s1) * 16 + s2`` (as
:func:`.strategy.index`), and everything the round needs of it is precomputed per index
(:class:`Tables`): the line's kind, cash, Bonuses and ladder, the hold AUTO chooses, whether
the paid or the held game is offered nudges there, the vertical-line hits, and where AUTO's
nudges take it with 1 to 4 nudges (the decision table walked move by move, as the rules do)
and how many it uses.  A round is then three draws and a few table loads.

Wins: cash in cents at the unit bet, Bonuses counted at ``LowerData.bonus_worth`` cents each
(the RTP accounting of :mod:`.exact`); the stake of a round is ``game.unit`` cents.

Randomness: :mod:`reelforge.engine.kernel_rng`, numpy's PCG64DXSM word stream with the
rejection scaling of :func:`reelforge.rng.scale_unbiased`; the state is read from and
written back to the numpy bit generator.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from reelforge.engine.kernel_rng import DRAWS, WORDS, accept_max_py, below, rng_state, store_rng_state
from reelforge.engine.memo import by_identity
from reelforge.engine.stats import SimStats

from . import strategy
from .data_model import N_REELS, STOPS, LowerData
from .payline import FEW_NUDGES, count_weights, evaluate, line_symbols, nudge_vectors

N_INDEX = STOPS**N_REELS
PLAY = "auto"  # the play the kernel plays (strategy.PLAYS): best holds and nudges, collect
KERNEL_PLAYS = ("auto", "default")  # the plays that collect every ladder (the kernel never plays one)

# line kinds (payline.Outcome.kind) and ladders, as the kernel's codes
KINDS = ("none", "cash", "bonus", "disco")
K_NONE, K_CASH, K_BONUS, K_DISCO = range(4)
LADDERS = (None, "sube_bonos", "sube_nada")
L_NONE, L_SUBE_BONOS, L_SUBE_NADA = range(3)

# ranges of the draws: (n, largest raw word kept) rows; the count draw's range depends on the
# fewest improving nudges m (its table keeps the counts >= m): row G_COUNT + m, m = 1..FEW_NUDGES
G_OFFER, G_HOLD, G_DISCO, G_PENGUIN, G_COUNT = range(5)
_N_RANGES = G_COUNT + FEW_NUDGES + 1
# params layout
P_OFFER_NO, P_HOLD_NO, P_PENGUINS, P_BONUS_VALUE = range(4)
_N_PARAMS = 4

_STOPS_N = np.uint64(STOPS)
_STOPS_MAX = np.uint64(accept_max_py(STOPS))


class Tables(NamedTuple):
    """The kernel's arrays, in the order the jitted function takes them."""

    kind: np.ndarray  # int8[index]: K_* of the line
    cents: np.ndarray  # int64[index]: cash prize, cents at the unit bet (0 unless cash)
    bonuses: np.ndarray  # int64[index]: Bonus prize (0 unless bonus)
    ladder: np.ndarray  # int8[index]: L_* a cash prize enters (collected at once)
    hold: np.ndarray  # int8[index]: AUTO's hold mask on a line with a pair and no prize, else -1
    near: np.ndarray  # int8[held game, index]: fewest nudges improving a near miss there, else 0
    vert: np.ndarray  # int8[index]: reels showing the vertical-lines sign on the line
    nudge_to: np.ndarray  # int16[held game, nudges - 1, index]: where AUTO's nudges end
    nudge_used: np.ndarray  # int8[held game, nudges - 1, index]: nudges AUTO spends getting there
    count_cum: np.ndarray  # int64[m, entry]: cumulative nudges.count weights of the counts >= m
    count_val: np.ndarray  # int64[entry]: the entry's number of nudges
    disco_cum: np.ndarray  # int64[entry]: cumulative disco_game.prizes weights
    disco_cash: np.ndarray  # int64[entry]: cash cents of a C prize, else 0
    disco_bonus: np.ndarray  # int64[entry]: Bonuses of a B prize, else 0
    disco_ladder: np.ndarray  # int8[entry]: 1 if a C prize enters Sube-Bonos (collected at once)
    ranges: np.ndarray  # uint64[G_*, 2]: randbelow range, largest raw word kept
    params: np.ndarray  # int64, P_* layout


def _cumulative(weights: list[int]) -> np.ndarray:
    return np.cumsum(np.array(weights, dtype=np.int64))


def _digits(index: np.ndarray) -> list[np.ndarray]:
    return [(index // STOPS ** (N_REELS - 1 - r)) % STOPS for r in range(N_REELS)]


def _index(digits: list[np.ndarray]) -> np.ndarray:
    out = np.zeros_like(digits[0])
    for s in digits:
        out = out * STOPS + s
    return out


def build_tables(d: LowerData, play: str = PLAY, coin: int = 1) -> Tables:
    """The kernel's view of a data file (a pure function of the data and the play's strategy).
    Cash is in cents at the unit bet (the caller multiplies by the coin); at ``coin`` > 1 (the
    whole machine's kernel at a larger pairing) every Bonus prize is at the bet and the Disco is
    the bet's own table, its cash in unit cents (a whole number of coins, checked on load)."""
    if N_REELS != 3:
        raise ValueError("the kernel plays three reels")
    if play not in KERNEL_PLAYS:
        raise ValueError(f"the kernel plays {KERNEL_PLAYS}, not {play!r}")
    all_stops = strategy.ALL_STOPS
    kind = np.zeros(N_INDEX, dtype=np.int8)
    cents = np.zeros(N_INDEX, dtype=np.int64)
    bonuses = np.zeros(N_INDEX, dtype=np.int64)
    ladder = np.zeros(N_INDEX, dtype=np.int8)
    has_pair = np.zeros(N_INDEX, dtype=bool)
    vert = np.zeros(N_INDEX, dtype=np.int8)
    for stops in all_stops:
        i = strategy.index(stops)
        o = evaluate(d, line_symbols(d, stops))
        kind[i] = KINDS.index(o.kind)
        cents[i] = o.cents
        bonuses[i] = o.bonuses * coin
        ladder[i] = LADDERS.index(o.ladder)
        has_pair[i] = bool(o.pairs)
        vert[i] = sum(s in d.vertical_set[r] for r, s in enumerate(stops))

    # payline.fewest_nudges for every index, paid and held game, kept where a near miss
    idx = np.arange(N_INDEX, dtype=np.int64)
    digits = _digits(idx)
    prize_kind = (kind == K_CASH) | (kind == K_DISCO)
    pair_target = (kind == K_NONE) & ~has_pair  # the paid game: a pair improves this line too
    fewest = np.zeros((2, N_INDEX), dtype=np.int64)  # 0: not improvable within FEW_NUDGES
    for vec in nudge_vectors(FEW_NUDGES)[1:]:  # by total: the first hit is the fewest
        after = _index([(s - k) % STOPS for s, k in zip(digits, vec, strict=True)])
        hit_held = ~prize_kind & prize_kind[after]
        hit_paid = hit_held | (pair_target & has_pair[after])
        for held, hit in ((0, hit_paid), (1, hit_held)):
            fewest[held] = np.where((fewest[held] == 0) & hit, sum(vec), fewest[held])
    near = fewest.astype(np.int8)

    # AUTO's nudges, move by move as the rules take them (best_nudge then first_move, again)
    moves, holds = strategy.tables(d, play)
    nudge_to = np.zeros((2, 4, N_INDEX), dtype=np.int16)
    nudge_used = np.zeros((2, 4, N_INDEX), dtype=np.int8)
    for held in (0, 1):
        for n in range(1, 5):
            cur = idx.copy()
            used = np.zeros(N_INDEX, dtype=np.int64)
            active = np.ones(N_INDEX, dtype=bool)
            for left in range(n, 0, -1):
                move = moves[held, left - 1, cur]
                active &= move >= 0
                s = _digits(cur)
                for r in range(N_REELS):
                    s[r] = np.where(active & (move == r), (s[r] - 1) % STOPS, s[r])
                cur = _index(s)
                used += active
            nudge_to[held, n - 1] = cur
            nudge_used[held, n - 1] = used
    hold = np.asarray(holds, dtype=np.int8)

    counts = list(d.nudges.count)
    # row m: payline.count_weights(d, m) in file order, the counts below m weighing 0
    count_cum = np.zeros((FEW_NUDGES + 1, len(counts)), dtype=np.int64)
    for m in range(FEW_NUDGES + 1):
        restricted = count_weights(d, max(m, 1))
        count_cum[m] = _cumulative([restricted.get(n, 0) for n in counts])
    count_val = np.array(counts, dtype=np.int64)
    table = d.disco_table(coin)
    prizes = list(table)
    disco_cum = _cumulative(list(table.values()))
    disco_cash = np.array([int(p[1:]) // coin if p[0] == "C" else 0 for p in prizes], dtype=np.int64)
    disco_bonus = np.array([int(p[1:]) if p[0] == "B" else 0 for p in prizes], dtype=np.int64)
    seesaw = d.ladders.seesaw_above
    disco_ladder = np.array([1 if 0 < c <= seesaw else 0 for c in disco_cash], dtype=np.int8)

    ranges = np.zeros((_N_RANGES, 2), dtype=np.uint64)
    for g, n in (
        (G_OFFER, d.nudges.offer.yes + d.nudges.offer.no),
        (G_HOLD, d.hold.yes + d.hold.no),
        (G_DISCO, int(disco_cum[-1])),
        (G_PENGUIN, d.disco_game.penguins),
        *((G_COUNT + m, int(count_cum[m, -1])) for m in range(FEW_NUDGES + 1)),
    ):
        ranges[g] = (n, accept_max_py(n))
    params = np.zeros(_N_PARAMS, dtype=np.int64)
    params[P_OFFER_NO] = d.nudges.offer.no
    params[P_HOLD_NO] = d.hold.no
    params[P_PENGUINS] = d.disco_game.penguins
    params[P_BONUS_VALUE] = d.bonus_worth
    return Tables(
        kind,
        cents,
        bonuses,
        ladder,
        hold,
        near,
        vert,
        nudge_to,
        nudge_used,
        count_cum,
        count_val,
        disco_cum,
        disco_cash,
        disco_bonus,
        disco_ladder,
        ranges,
        params,
    )


@by_identity(maxsize=16)
def tables(d: LowerData, play: str = PLAY, coin: int = 1) -> Tables:
    return build_tables(d, play, coin)


def max_round_win(d: LowerData, coin: int = 1) -> int:
    """The most one round can win, cents at the bet ``unit × coin`` (one prize a round; the
    Disco's table is the bet's own)."""
    t = tables(d)
    bv = d.bonus_worth
    disco = d.disco_table(coin)
    return int(
        max(
            t.cents.max() * coin,
            t.bonuses.max() * bv * coin,
            *(int(k[1:]) * (1 if k[0] == "C" else bv) for k in disco),
        )
    )


# -- the rounds -------------------------------------------------------------------------------------

# per-round result layout (play_rounds' columns)
COLUMNS = (
    "win",  # cents at the unit bet: cash + bonus_worth x Bonuses
    "cash",  # cash cents won
    "bonuses",  # Bonuses won
    "draws",  # randbelow calls (what RecordingRandom records)
    "words",  # raw 64-bit words consumed (draws + rejections)
    "vertical_hits",  # vertical-line signs on the line, summed over the round's games (uncapped)
    "paid_kind",  # KINDS index of the paid game's line (after its nudges)
    "paid_nudges",  # nudges offered in the paid game (0: none)
    "paid_nudges_used",  # of which played
    "hold",  # the hold mask of the held game; -1: no held game
    "held_kind",  # KINDS index of the held game's line; -1: no held game
    "held_nudges",  # nudges offered in the held game
    "held_nudges_used",
    "ladder",  # LADDERS index of the ladder entered (and collected); 0: none
    "disco_prize",  # index in disco_game.prizes of the stopped penguin's prize; -1: no Disco
    "disco_penguin",  # the penguin stopped on; -1: no Disco
    "stops",  # stop index of the round's last line
)
(
    R_WIN,
    R_CASH,
    R_BONUSES,
    R_DRAWS,
    R_WORDS,
    R_VERT,
    R_PAID_KIND,
    R_PAID_NUDGES,
    R_PAID_USED,
    R_HOLD,
    R_HELD_KIND,
    R_HELD_NUDGES,
    R_HELD_USED,
    R_LADDER,
    R_DISCO_PRIZE,
    R_DISCO_PENGUIN,
    R_STOPS,
) = range(len(COLUMNS))

# accumulator layout of the simulation
ACC = (
    "win",
    "win_sq",
    "hits",
    "max_win",
    "cash_cents",
    "bonuses",
    "paid_cash",
    "paid_bonus",
    "paid_disco",
    "held_cash",
    "held_bonus",
    "held_disco",
    "near_misses_paid",
    "near_misses_held",
    "nudge_offers_paid",
    "nudge_offers_held",
    "nudges_offered",
    "nudges_used",
    "hold_offers",
    "held_games",
    "held_respin_all",
    "ladders_sube_bonos",
    "ladders_sube_nada",
    "disco_games",
    "disco_bonus",
    "vertical_hits",
)
(
    A_WIN,
    A_WIN_SQ,
    A_HITS,
    A_MAX_WIN,
    A_CASH,
    A_BONUSES,
    A_PAID_CASH,
    A_PAID_BONUS,
    A_PAID_DISCO,
    A_HELD_CASH,
    A_HELD_BONUS,
    A_HELD_DISCO,
    A_NEAR_PAID,
    A_NEAR_HELD,
    A_OFFER_PAID,
    A_OFFER_HELD,
    A_NUDGES_OFFERED,
    A_NUDGES_USED,
    A_HOLD_OFFERS,
    A_HELD_GAMES,
    A_RESPIN_ALL,
    A_LADDER_SB,
    A_LADDER_SN,
    A_DISCO,
    A_DISCO_BONUS,
    A_VERT,
) = range(len(ACC))
_N_ACC = len(ACC)


@njit(inline="always")
def _walk(cum: np.ndarray, r: int) -> int:
    """rng.weighted_index's walk of a drawn ``r`` over cumulative weights."""
    i = 0
    while r >= cum[i]:
        i += 1
    return i


@njit(inline="always")
def _walk_row(cum: np.ndarray, row: int, r: int) -> int:
    """:func:`_walk` over one row of a 2-d table (indexed in place: no view to count)."""
    i = 0
    while r >= cum[row, i]:
        i += 1
    return i


@njit(inline="always")
def _round(t: tuple, rs: np.ndarray, acc: np.ndarray, drawn: np.ndarray) -> tuple[int, ...]:
    """One round at the unit bet; returns (cash cents, Bonuses won, vertical-line hits summed
    over its games (uncapped), then the :data:`COLUMNS` from ``paid_kind`` to ``stops``).

    ``t``: the :class:`Tables` arrays as a tuple; ``acc``: the counts, to which the round adds
    its own (all but the win columns, which the caller books); ``drawn``: scratch for the
    Disco's penguins.  Inlined into :func:`_run` and into the whole machine's loop
    (:mod:`.machine_kernel`), so both play the very same code.  Both are compiled without
    numba's reference counting (``_nrt=False``): with it, every array this inlined body binds
    costs an atomic count pair per round, which numba cannot prune across its loops (5-15x
    slower); without it the caller allocates every array."""
    (kind, cents, bonuses, ladder, hold, near, vert, nudge_to, nudge_used, count_cum, count_val,
     disco_cum, disco_cash, disco_bonus, disco_ladder, ranges, params) = t  # fmt: skip
    offer_no = params[P_OFFER_NO]
    hold_no = params[P_HOLD_NO]
    penguins = params[P_PENGUINS]
    offer_n, offer_max = ranges[G_OFFER, 0], ranges[G_OFFER, 1]
    hold_n, hold_max = ranges[G_HOLD, 0], ranges[G_HOLD, 1]
    disco_n, disco_max = ranges[G_DISCO, 0], ranges[G_DISCO, 1]
    peng_n, peng_max = ranges[G_PENGUIN, 0], ranges[G_PENGUIN, 1]
    # ---- the paid game: three stops, left to right
    s0 = below(rs, _STOPS_N, _STOPS_MAX)
    s1 = below(rs, _STOPS_N, _STOPS_MAX)
    s2 = below(rs, _STOPS_N, _STOPS_MAX)
    i = (s0 * STOPS + s1) * STOPS + s2
    game = 0  # 0 the paid game, 1 the held game
    n_vert = 0
    paid_kind = 0
    paid_nudges = 0
    paid_used = 0
    mask = -1
    held_kind = -1
    held_nudges = 0
    held_used = 0
    cash = 0
    won_bonuses = 0
    lad = 0
    disco_prize = -1
    lit = -1
    while True:
        # ---- a near miss (none in a held game spinning every reel): the offer, the count
        # among the counts reaching an improvement, then AUTO's nudges
        m = np.int64(near[game, i])
        if m > 0 and not (game == 1 and mask == 0):
            acc[A_NEAR_PAID + game] += 1
            if below(rs, offer_n, offer_max) >= offer_no:
                g = G_COUNT + m
                n = count_val[_walk_row(count_cum, m, below(rs, ranges[g, 0], ranges[g, 1]))]
                used = np.int64(nudge_used[game, n - 1, i])
                i = np.int64(nudge_to[game, n - 1, i])
                acc[A_OFFER_PAID + game] += 1
                acc[A_NUDGES_OFFERED] += n
                acc[A_NUDGES_USED] += used
                if game == 0:
                    paid_nudges = n
                    paid_used = used
                else:
                    held_nudges = n
                    held_used = used
        # ---- the line settles: vertical lines, then the prize or a held game
        n_vert += vert[i]
        k = np.int64(kind[i])
        if game == 0:
            paid_kind = k
            if k != K_NONE:
                acc[A_PAID_CASH + k - 1] += 1
        else:
            held_kind = k
            if k != K_NONE:
                acc[A_HELD_CASH + k - 1] += 1
        if k == K_NONE:
            if game == 1 or hold[i] < 0:
                break
            if below(rs, hold_n, hold_max) < hold_no:
                break
            acc[A_HOLD_OFFERS] += 1
            mask = np.int64(hold[i])
            acc[A_HELD_GAMES] += 1
            if mask == 0:
                acc[A_RESPIN_ALL] += 1
            s0 = i // (STOPS * STOPS)
            s1 = (i // STOPS) % STOPS
            s2 = i % STOPS
            if (mask & 1) == 0:
                s0 = below(rs, _STOPS_N, _STOPS_MAX)
            if (mask & 2) == 0:
                s1 = below(rs, _STOPS_N, _STOPS_MAX)
            if (mask & 4) == 0:
                s2 = below(rs, _STOPS_N, _STOPS_MAX)
            i = (s0 * STOPS + s1) * STOPS + s2
            game = 1
            continue
        if k == K_CASH:
            cash = cents[i]
            lad = np.int64(ladder[i])
        elif k == K_BONUS:
            won_bonuses = bonuses[i]
        else:  # the Disco: every penguin drawn, then the one it stops on
            for p in range(penguins):
                drawn[p] = _walk(disco_cum, below(rs, disco_n, disco_max))
            lit = below(rs, peng_n, peng_max)
            disco_prize = drawn[lit]
            cash = disco_cash[disco_prize]
            won_bonuses = disco_bonus[disco_prize]
            if disco_ladder[disco_prize]:
                lad = L_SUBE_BONOS
            acc[A_DISCO] += 1
            if won_bonuses > 0:
                acc[A_DISCO_BONUS] += 1
        break

    # ---- book the round's counts
    if lad == L_SUBE_BONOS:
        acc[A_LADDER_SB] += 1
    elif lad == L_SUBE_NADA:
        acc[A_LADDER_SN] += 1
    acc[A_VERT] += n_vert
    return (cash, won_bonuses, n_vert, paid_kind, paid_nudges, paid_used, mask, held_kind, held_nudges,
            held_used, lad, disco_prize, lit, i)  # fmt: skip


@njit(cache=True, _nrt=False)
def _run(
    kind: np.ndarray,
    cents: np.ndarray,
    bonuses: np.ndarray,
    ladder: np.ndarray,
    hold: np.ndarray,
    near: np.ndarray,
    vert: np.ndarray,
    nudge_to: np.ndarray,
    nudge_used: np.ndarray,
    count_cum: np.ndarray,
    count_val: np.ndarray,
    disco_cum: np.ndarray,
    disco_cash: np.ndarray,
    disco_bonus: np.ndarray,
    disco_ladder: np.ndarray,
    ranges: np.ndarray,
    params: np.ndarray,
    rs: np.ndarray,
    rounds: int,
    acc: np.ndarray,
    rows: np.ndarray,
    drawn: np.ndarray,
    hist: np.ndarray,
) -> None:
    """Play ``rounds`` rounds, adding to ``acc`` (zeros, :data:`ACC`); ``rows`` (``rounds``
    rows, or none) gets one row per round (:data:`COLUMNS`); ``drawn`` is the Disco's scratch
    (``penguins`` entries).  A non-empty ``hist`` counts
    the rounds by their win (``hist[win] += 1``).  No reference counting (see :func:`_round`):
    :func:`_call` allocates the arrays."""
    bonus_value = params[P_BONUS_VALUE]
    keep_rows = rows.shape[0] > 0
    t = (kind, cents, bonuses, ladder, hold, near, vert, nudge_to, nudge_used, count_cum, count_val,
         disco_cum, disco_cash, disco_bonus, disco_ladder, ranges, params)  # fmt: skip

    for rnd in range(rounds):
        draws0 = rs[DRAWS]
        words0 = rs[WORDS]
        out = _round(t, rs, acc, drawn)
        cash = out[0]
        won_bonuses = out[1]
        win = cash + bonus_value * won_bonuses
        if keep_rows:
            rows[rnd, R_WIN] = win
            rows[rnd, R_CASH] = cash
            rows[rnd, R_BONUSES] = won_bonuses
            rows[rnd, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
            rows[rnd, R_WORDS] = np.int64(rs[WORDS] - words0)
            rows[rnd, R_VERT] = out[2]
            for c in range(R_PAID_KIND, R_STOPS + 1):  # the round's tuple in COLUMNS order
                rows[rnd, c] = out[3 + c - R_PAID_KIND]
        if hist.shape[0] > 0:
            hist[win] += 1
        if win == 0:
            continue
        acc[A_WIN] += win
        acc[A_WIN_SQ] += win * win
        acc[A_HITS] += 1
        acc[A_CASH] += cash
        acc[A_BONUSES] += won_bonuses
        if win > acc[A_MAX_WIN]:
            acc[A_MAX_WIN] = win


# -- Python API -------------------------------------------------------------------------------

_INT64_MAX = (1 << 63) - 1


_NO_HIST = np.zeros(0, dtype=np.int64)


def _call(
    d: LowerData, rs: np.ndarray, rounds: int, keep_rows: bool, play: str = PLAY, hist: np.ndarray = _NO_HIST
) -> tuple[np.ndarray, np.ndarray]:
    t = tables(d, play)
    acc = np.zeros(_N_ACC, dtype=np.int64)
    rows = np.zeros((int(rounds) if keep_rows else 0, len(COLUMNS)), dtype=np.int64)
    drawn = np.zeros(d.disco_game.penguins, dtype=np.int64)
    _run(*t, rs, int(rounds), acc, rows, drawn, hist)
    return acc, rows


def play_rounds(
    d: LowerData, bit_generator: np.random.PCG64DXSM, rounds: int, play: str = PLAY
) -> np.ndarray:
    """Play ``rounds`` rounds of ``play`` (AUTO, or the default play) at the unit bet exactly
    as the rules do, one row each (:data:`COLUMNS`).  The bit generator is advanced past the
    words consumed, as if the rules had drawn from it."""
    if rounds < 0:
        raise ValueError(f"rounds must be non-negative, got {rounds}")
    rs = rng_state(bit_generator)
    _, out = _call(d, rs, rounds, True, play)
    store_rng_state(bit_generator, rs)
    return out


def simulate_chunk(d: LowerData, seed: np.random.SeedSequence, rounds: int) -> SimStats:
    """Monte Carlo of ``rounds`` AUTO rounds at the unit bet from one seed.

    The stake is ``game.unit`` cents; a round's win is its cash cents plus ``bonus_worth``
    cents per Bonus won (the RTP accounting of the exact figures); ``hits`` counts the
    rounds that won anything (cash or Bonuses, the held game's included).
    """
    top = max_round_win(d)
    most = _INT64_MAX // max(top, 1) ** 2  # the sum of squared wins stays exact in int64
    if not 0 <= rounds <= most:
        raise ValueError(f"rounds must be in [0, {most}], got {rounds}")
    rs = rng_state(np.random.PCG64DXSM(seed))
    acc, _ = _call(d, rs, rounds, False)
    a = {name: int(x) for name, x in zip(ACC, acc, strict=True)}
    counters = {k: v for k, v in a.items() if k not in ("win", "win_sq", "hits", "max_win")}
    return SimStats(
        stake=d.game.unit,
        rounds=int(rounds),
        win=a["win"],
        win_sq=a["win_sq"],
        win_uncapped=a["win"],
        win_uncapped_sq=a["win_sq"],
        hits=a["hits"],
        max_win=a["max_win"],
        counters=counters,
    )


def win_counts(d: LowerData, seed: np.random.SeedSequence, rounds: int, play: str = PLAY) -> np.ndarray:
    """A histogram of ``rounds`` rounds of ``play`` at the unit bet from one seed (the rounds
    of :func:`simulate_chunk` for the same seed under AUTO): ``counts[x]`` rounds won ``x``
    cents (cash plus ``bonus_worth`` per Bonus), for ``x`` up to :func:`max_round_win`."""
    if rounds < 0:
        raise ValueError(f"rounds must be non-negative, got {rounds}")
    hist = np.zeros(max_round_win(d) + 1, dtype=np.int64)
    rs = rng_state(np.random.PCG64DXSM(seed))
    _call(d, rs, rounds, False, play, hist)
    return hist
