"""Los 3 Pinguinos, the upper game, in numba: :mod:`.upper_round` played draw for draw.

The kernel plays upper games at one bet (an index into ``upper.bets``) one after another,
carrying the machine between rounds as the rules do: the vertical-lines counter, the bet's
accumulator and the Bonuses.  Two plays, as ``upper_round.auto_action`` makes them:

* COLLECT (``risk=False``): every Double-or-Bonuses is collected whole (``collect_all``);
* AUTO-RISK (``risk=True``): every fraction is played.

Minigames play themselves and Slides pick platform 0.  A round asks for exactly the
``randbelow`` draws of the rules, in the order of :mod:`.upper_round`'s docstring: three
stops (the WINNING SPIN repeating them until its five paylines pay), the vertical-lines
step, the accumulator step, one draw per mixed-sevens line, the minigame offer, the
minigame (Roulette and Fishing stop drawing once the bet's maximum is reached; Slides draw
every platform and the hidden shuffle), and under AUTO-RISK one ``double`` draw per fraction
and the Bonus rounding draw; ``tests/test_pinguinos_upper_kernel.py`` checks this round by
round against the rules.

Bonuses, two modes:

* uncapped (the Monte Carlo, :func:`simulate_chunk`): the player is assumed to hold Bonuses
  for every game and the 4,000 cap is never applied, the assumption of the exact figures
  ("Bonuses at or below the cap"); the balance is a net position;
* capped (``capped=True``, for the differential test): a real balance with the cap applied
  as the rules apply it; when it cannot cover the bet it is topped up to ``refill`` first
  (a player bringing Bonuses from the lower game), which the test mirrors.

Every stop position of the three reels is one index ``(s0 * 16 + s1) * 16 + s2``; what the
window pays at it (unit line prizes, mixed-sevens lines, the minigame named, whether the
accumulator or vertical-lines symbol shows) is precomputed with 5 and with 8 paylines
(:class:`Tables`).  A round's value is its cash plus ``bonus_value`` cents per Bonus won; the
stake of a round is the bet's value (cash + Bonuses × ``bonus_value``), the RTP accounting of
the exact figures.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from reelforge.engine.kernel_rng import DRAWS, WORDS, accept_max_py, below, rng_state, store_rng_state
from reelforge.engine.memo import by_identity
from reelforge.engine.stats import SimStats

from .data_model import LowerData
from .upper_data import N_REELS, STOPS, UpperBet
from .upper_lines import evaluate

N_INDEX = STOPS**N_REELS
MINIGAMES = ("roulette", "fishing", "slides")
M_NONE, M_ROULETTE, M_FISHING, M_SLIDES = -1, 0, 1, 2

# draw ranges: rows (n, largest raw word kept) of Tables.ranges
G_STOPS, G_VSTEP, G_ASTEP, G_MIXED, G_OFFER, G_SECTIONS = range(6)
G_AGAIN, G_CATCH, G_SLIDES, G_DOUBLE, G_BV, G_OFFER8 = range(6, 12)
_N_RANGES = 12
# params layout
P_MULT, P_FRACTION, P_FLOOR, P_MAX, P_BET_BONUSES, P_HAS_MIXED, P_OFFER_NO, P_AGAIN_NO = range(8)
P_PENGUINS, P_PLATFORMS, P_DOUBLE_NO, P_BONUS_VALUE, P_CAP, P_VMAX, P_PIECES, P_OFFER8_NO = range(8, 16)
_N_PARAMS = 16

# a probe bet: unit prizes, and a mixed table so that mixed-sevens lines are counted
_PROBE = UpperBet(cash=1, bonuses=1, multiplier=1, fraction=1, minigame_floor=1, max_prize=2, mixed={1: 1})


class Tables(NamedTuple):
    """The kernel's arrays for one bet, in the order the jitted function takes them."""

    direct: np.ndarray  # int64[8 paylines?, index]: direct line prizes at the unit bet (row 0: 5, row 1: 8)
    mixed: np.ndarray  # int8[8 paylines?, index]: mixed-sevens lines (drawn only at a bet with a table)
    minigame: np.ndarray  # int8[8 paylines?, index]: M_* the first trigger line names
    shown: np.ndarray  # int8[index]: 1 accumulator symbol in the window, 2 vertical-lines symbol
    vstep: np.ndarray  # int64[2, entry]: cumulative vertical_step weights, the step
    astep: np.ndarray  # int64[2, entry]: cumulative accumulator_step weights, the step
    mixed_table: np.ndarray  # int64[2, entry]: cumulative weights, cents (the bet's own)
    sections: np.ndarray  # int64[section]: roulette prize at the bet
    catch: np.ndarray  # int64[2, entry]: cumulative weights, fish at the bet (-1: the cross)
    slides: np.ndarray  # int64[2, entry]: cumulative weights, prize at the bet
    shuffle_max: np.ndarray  # uint64[n]: largest raw word kept for randbelow(n), n <= platforms
    ranges: np.ndarray  # uint64[G_*, 2]
    params: np.ndarray  # int64, P_* layout


def _table(pairs: list[tuple[int, int]]) -> np.ndarray:
    """(value, weight) pairs in file order as [cumulative weights, values]."""
    if not pairs:
        return np.zeros((2, 1), dtype=np.int64)
    values, weights = zip(*pairs, strict=True)
    return np.array([np.cumsum(weights), values], dtype=np.int64)


@by_identity(maxsize=8)
def line_tables(d: LowerData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per stop index, with 5 (row 0) and 8 (row 1) paylines: (direct unit prizes, mixed-sevens
    lines, minigame code, shown flags), from :func:`.upper_lines.evaluate` itself."""
    u = d.upper
    direct = np.zeros((2, N_INDEX), dtype=np.int64)
    mixed = np.zeros((2, N_INDEX), dtype=np.int8)
    minigame = np.full((2, N_INDEX), M_NONE, dtype=np.int8)
    shown = np.zeros(N_INDEX, dtype=np.int8)
    for i in range(N_INDEX):
        stops = (i // (STOPS * STOPS), (i // STOPS) % STOPS, i % STOPS)
        for v in (0, 1):
            ev = evaluate(u, _PROBE, stops, bool(v))
            direct[v, i] = ev.direct
            mixed[v, i] = ev.mixed_lines
            if ev.minigame is not None:
                minigame[v, i] = MINIGAMES.index(ev.minigame)
        shown[i] = int(ev.accumulator) | 2 * int(ev.vertical)
    return direct, mixed, minigame, shown


def build_tables(d: LowerData, bet: int) -> Tables:
    """The kernel's view of a data file at one upper bet."""
    u = d.upper
    b = u.bets[bet]
    m = b.multiplier
    direct, mixed, minigame, shown = line_tables(d)
    vstep = _table(list(u.vertical_step.items()))
    astep = _table(list(u.accumulator_step.items()))
    mixed_table = _table(list(b.mixed.items()))
    sections = np.array(u.roulette.sections, dtype=np.int64) * m
    catch = _table([(-1 if k == "X" else int(k[1:]) * m, w) for k, w in u.fishing.catch.items()])
    slides = _table([(int(k[1:]) * m, w) for k, w in u.slides.prizes.items()])
    shuffle_max = np.array(
        [0] + [accept_max_py(n) for n in range(1, u.slides.platforms + 1)], dtype=np.uint64
    )
    offer = u.minigame_offer[bet]
    offer8 = u.minigame_offer_8[bet]
    ranges = np.zeros((_N_RANGES, 2), dtype=np.uint64)
    for g, n in (
        (G_STOPS, STOPS),
        (G_VSTEP, int(vstep[0, -1])),
        (G_ASTEP, int(astep[0, -1])),
        (G_MIXED, max(int(mixed_table[0, -1]), 1)),
        (G_OFFER, offer.yes + offer.no),
        (G_OFFER8, offer8.yes + offer8.no),
        (G_SECTIONS, len(u.roulette.sections)),
        (G_AGAIN, u.roulette.again.yes + u.roulette.again.no),
        (G_CATCH, int(catch[0, -1])),
        (G_SLIDES, int(slides[0, -1])),
        (G_DOUBLE, u.double.double + u.double.bonuses),
        (G_BV, d.game.bonus_value),
    ):
        ranges[g] = (n, accept_max_py(n))
    params = np.zeros(_N_PARAMS, dtype=np.int64)
    params[P_MULT] = m
    params[P_FRACTION] = b.fraction
    params[P_FLOOR] = b.minigame_floor
    params[P_MAX] = b.max_prize
    params[P_BET_BONUSES] = b.bonuses
    params[P_HAS_MIXED] = int(bool(b.mixed))
    params[P_OFFER_NO] = offer.no
    params[P_OFFER8_NO] = offer8.no
    params[P_AGAIN_NO] = u.roulette.again.no
    params[P_PENGUINS] = u.fishing.penguins
    params[P_PLATFORMS] = u.slides.platforms
    params[P_DOUBLE_NO] = u.double.bonuses  # the draw below it turns the fraction into Bonuses
    params[P_BONUS_VALUE] = d.game.bonus_value
    params[P_CAP] = d.game.bonus_cap
    params[P_VMAX] = d.game.vertical_lines_max
    params[P_PIECES] = u.accumulator_pieces
    return Tables(direct, mixed, minigame, shown, vstep, astep, mixed_table, sections, catch, slides,
                  shuffle_max, ranges, params)  # fmt: skip


@by_identity(maxsize=64)
def tables(d: LowerData, bet: int) -> Tables:
    return build_tables(d, bet)


def max_game_value(d: LowerData, bet: int) -> int:
    """A bound on one game's value in cents under either play: the cash secured is at most the
    maximum prize, and the fractions lost (less than the maximum in all) are worth their cents
    plus below one Bonus of rounding each, on top of it."""
    b = d.upper.bets[bet]
    fractions = -(-b.max_prize // b.fraction)
    return 2 * b.max_prize + fractions * d.game.bonus_value


# -- the rounds -------------------------------------------------------------------------------------

# per-round result layout (play_rounds' columns); per game: the paid one, then the WINNING SPIN
GAME_COLUMNS = ("stops", "line_prize", "minigame", "offered", "result", "prize", "cash", "bonuses")
COLUMNS = (
    "win",  # cents: cash + bonus_value x Bonuses
    "cash",  # cash cents won
    "bonuses",  # Bonuses won
    "draws",  # randbelow calls
    "words",  # raw 64-bit words consumed (draws + rejections)
    "lines",  # paylines of the paid game: 5, or 8 with the counter above zero
    "counter",  # the vertical-lines counter after the round
    "accumulator",  # the bet's accumulator after the round
    "balance",  # the machine's Bonuses after the round (uncapped: a net position)
    "vertical_gain",  # the vertical_step drawn (0: the symbol did not show)
    "accumulator_gain",  # the accumulator_step drawn (0: the symbol did not show)
    "winning_tries",  # spins of the WINNING SPIN until it paid (0: none owed)
    *(f"paid_{c}" for c in GAME_COLUMNS),
    *(f"winning_{c}" for c in GAME_COLUMNS),
    "doubles",  # fractions played in Double-or-Bonuses
    "maximum",  # games paying the bet's maximum (at once, or doubled to it)
    "cap",  # times the Bonus cap acted (a prize paid at once, or the rest collected)
)
R_WIN, R_CASH, R_BONUSES, R_DRAWS, R_WORDS, R_LINES = range(6)
R_COUNTER, R_ACC, R_BALANCE, R_VGAIN, R_AGAIN, R_TRIES = range(6, 12)
R_GAME0 = 12  # first column of the paid game; the WINNING SPIN's follow
(C_STOPS, C_LINE, C_MINIGAME, C_OFFERED, C_RESULT, C_PRIZE, C_CASH, C_BONUSES) = range(len(GAME_COLUMNS))
R_DOUBLES = R_GAME0 + 2 * len(GAME_COLUMNS)
R_MAXIMUM = R_DOUBLES + 1
R_CAP = R_DOUBLES + 2
_N_GAME = len(GAME_COLUMNS)
assert len(COLUMNS) - 1 == R_CAP

# accumulator layout of the simulation
ACC = (
    "win", "win_sq", "hits", "max_win", "cash_cents", "bonuses",
    "eight_line_games",  # paid games with 8 paylines
    "vertical_shown", "accumulator_shown",  # paid games showing the symbol (a step drawn)
    "winning_spins", "winning_spin_tries",  # WINNING SPINs, and their spins until one paid
    "paid_game_prizes",  # paid games with a line prize
    "mixed_lines",  # mixed-sevens draws
    "roulette_triggers", "fishing_triggers", "slides_triggers",  # three on a line (any game)
    "roulette_games", "fishing_games", "slides_games",  # minigames offered and played
    "doubles_played", "doubled",  # fractions played (AUTO-RISK), and doubled
    "maximum_prizes",  # games paying the bet's maximum
)  # fmt: skip
A_WIN, A_WIN_SQ, A_HITS, A_MAX_WIN, A_CASH, A_BONUSES, A_EIGHT, A_VSHOWN, A_ASHOWN = range(9)
A_WINNING, A_TRIES, A_PAID_PRIZES, A_MIXED, A_TRIGGER0 = range(9, 14)  # 3 triggers, one per minigame
A_MINIGAME0, A_DOUBLES, A_DOUBLED, A_MAXIMUM = 16, 19, 20, 21  # 3 minigames played
assert (ACC.index("roulette_triggers"), ACC.index("roulette_games"), ACC[-1]) == (
    A_TRIGGER0,
    A_MINIGAME0,
    "maximum_prizes",
)
assert ACC.index("doubles_played") == A_DOUBLES and len(ACC) == A_MAXIMUM + 1
_N_ACC = len(ACC)


@njit(inline="always")
def _walk(cum: np.ndarray, r: int) -> int:
    """rng.weighted_index's walk of a drawn ``r`` over cumulative weights (row 0)."""
    i = 0
    while r >= cum[0, i]:
        i += 1
    return i


@njit(inline="always")
def _round(
    t: tuple,
    rs: np.ndarray,
    counter: int,
    accumulator: int,
    balance: int,
    risk: bool,
    capped: bool,
    refill: int,
    acc: np.ndarray,
    plat: np.ndarray,
    order: np.ndarray,
    rows: np.ndarray,
    rnd: int,
) -> tuple[int, int, int, int, int]:
    """One upper round from the machine (``counter``, ``accumulator``, ``balance``); returns
    the machine after it and (cash cents, Bonuses won).

    ``t``: the :class:`Tables` arrays as a tuple; ``acc``: the counts, to which the round adds
    its own (all but the win columns, which the caller books); ``plat``, ``order``: Slides'
    scratch (``platforms`` entries); ``rows``: when it has rows, row ``rnd`` gets the round's
    :data:`COLUMNS`.  Inlined into :func:`_run` and into the whole machine's loop
    (:mod:`.machine_kernel`), so both play the very same code; both are compiled without
    numba's reference counting (``_nrt=False``, see ``kernel._round``)."""
    (direct, mixed, minigame, shown, vstep, astep, mixed_table, sections, catch, slides, shuffle_max,
     ranges, params) = t  # fmt: skip
    m = params[P_MULT]
    fraction = params[P_FRACTION]
    floor = params[P_FLOOR]
    top = params[P_MAX]
    bet_bonuses = params[P_BET_BONUSES]
    has_mixed = params[P_HAS_MIXED] != 0
    offer_no = params[P_OFFER_NO]
    offer8_no = params[P_OFFER8_NO]
    again_no = params[P_AGAIN_NO]
    penguins = params[P_PENGUINS]
    platforms = params[P_PLATFORMS]
    double_no = params[P_DOUBLE_NO]
    bv = params[P_BONUS_VALUE]
    cap = params[P_CAP]
    vmax = params[P_VMAX]
    pieces = params[P_PIECES]
    stops_n, stops_max = ranges[G_STOPS, 0], ranges[G_STOPS, 1]
    n_sections = ranges[G_SECTIONS, 0]
    keep_rows = rows.shape[0] > 0
    draws0 = rs[DRAWS]
    words0 = rs[WORDS]
    # ---- the start: the bet's Bonuses, a counter above zero buys the 8 paylines
    if capped and balance < bet_bonuses:
        balance = refill
    balance -= bet_bonuses
    v = 0
    if counter > 0:
        v = 1
        counter -= 1
        acc[A_EIGHT] += 1
    eight = v
    owed = False
    cash = 0
    won = 0
    vgain = 0
    again = 0
    tries = 0
    doubles = 0
    maximum = 0
    capped_acts = 0
    for g in range(2):  # the paid game, then the WINNING SPIN if owed
        if g == 1:
            if not owed:
                if keep_rows:
                    for c in range(_N_GAME):
                        rows[rnd, R_GAME0 + _N_GAME + c] = 0
                    rows[rnd, R_GAME0 + _N_GAME + C_STOPS] = -1
                    rows[rnd, R_GAME0 + _N_GAME + C_MINIGAME] = M_NONE
                    rows[rnd, R_GAME0 + _N_GAME + C_RESULT] = -1
                break
            v = 0
            acc[A_WINNING] += 1
        # ---- the spin (the WINNING SPIN: again until its five paylines pay)
        while True:
            s0 = below(rs, stops_n, stops_max)
            s1 = below(rs, stops_n, stops_max)
            s2 = below(rs, stops_n, stops_max)
            i = (s0 * STOPS + s1) * STOPS + s2
            if g == 0:
                break
            tries += 1
            if direct[0, i] > 0 or (has_mixed and mixed[0, i] > 0):
                break
        if g == 0:
            # ---- the counter, then the accumulator (the paid game only)
            if shown[i] & 2:
                acc[A_VSHOWN] += 1
                vgain = vstep[1, _walk(vstep, below(rs, ranges[G_VSTEP, 0], ranges[G_VSTEP, 1]))]
                counter = min(vmax, counter + vgain)
            if shown[i] & 1:
                acc[A_ASHOWN] += 1
                again = astep[1, _walk(astep, below(rs, ranges[G_ASTEP, 0], ranges[G_ASTEP, 1]))]
                if accumulator + again >= pieces:
                    accumulator = 0
                    owed = True
                else:
                    accumulator += again
        # ---- the line prize: direct, plus the mixed-sevens draws, at most the maximum
        prize = direct[v, i] * m
        if has_mixed:
            for _ in range(mixed[v, i]):
                prize += mixed_table[1, _walk(mixed_table, below(rs, ranges[G_MIXED, 0], ranges[G_MIXED, 1]))]
                acc[A_MIXED] += 1
        prize = min(prize, top)
        line_prize = prize
        if g == 0 and prize > 0:
            acc[A_PAID_PRIZES] += 1
        # ---- the minigame, when offered
        mg = np.int64(minigame[v, i])
        offered = 0
        result = -1
        if mg != M_NONE:
            acc[A_TRIGGER0 + mg] += 1
            if v == 1:  # a game on 8 paylines has its own offer chance
                offered = int(below(rs, ranges[G_OFFER8, 0], ranges[G_OFFER8, 1]) >= offer8_no)
            else:
                offered = int(below(rs, ranges[G_OFFER, 0], ranges[G_OFFER, 1]) >= offer_no)
            if offered:
                acc[A_MINIGAME0 + mg] += 1
                if mg == M_ROULETTE:
                    total = sections[below(rs, n_sections, ranges[G_SECTIONS, 1])]
                    while total < top and below(rs, ranges[G_AGAIN, 0], ranges[G_AGAIN, 1]) >= again_no:
                        total += sections[below(rs, n_sections, ranges[G_SECTIONS, 1])]
                elif mg == M_FISHING:
                    total = 0
                    for _ in range(penguins):
                        while total < top:
                            fish = catch[1, _walk(catch, below(rs, ranges[G_CATCH, 0], ranges[G_CATCH, 1]))]
                            if fish < 0:  # the cross
                                break
                            total += fish
                else:  # slides: every platform drawn and shuffled; AUTO picks platform 0
                    for p in range(platforms):
                        plat[p] = slides[
                            1, _walk(slides, below(rs, ranges[G_SLIDES, 0], ranges[G_SLIDES, 1]))
                        ]
                        order[p] = p
                    for j in range(platforms - 1, 0, -1):
                        k = below(rs, np.uint64(j + 1), shuffle_max[j + 1])
                        tmp = order[j]
                        order[j] = order[k]
                        order[k] = tmp
                    total = plat[order[0]]
                result = total
                prize = min(top, max(floor, prize, total))
        # ---- Double-or-Bonuses
        paid = 0
        bonus = 0
        if prize > 0:
            if prize >= top:
                paid = prize
                maximum += 1
            elif capped and balance > cap:
                paid = prize
                capped_acts += 1
            elif not risk:
                paid = prize  # COLLECT ALL
            else:
                remaining = prize
                secured = 0
                while remaining > 0:
                    frac = min(fraction, remaining)
                    doubles += 1
                    remaining -= frac
                    if below(rs, ranges[G_DOUBLE, 0], ranges[G_DOUBLE, 1]) >= double_no:
                        acc[A_DOUBLED] += 1
                        secured += 2 * frac
                        if secured + remaining >= top:
                            secured = top
                            remaining = 0
                            maximum += 1
                    else:
                        whole = frac // bv
                        rest = frac - whole * bv
                        if rest > 0 and below(rs, ranges[G_BV, 0], ranges[G_BV, 1]) < rest:
                            whole += 1
                        balance += whole
                        bonus += whole
                    if remaining > 0 and capped and balance > cap:
                        secured += remaining
                        remaining = 0
                        capped_acts += 1
                paid = secured
        cash += paid
        won += bonus
        if keep_rows:
            base = R_GAME0 + g * _N_GAME
            rows[rnd, base + C_STOPS] = i
            rows[rnd, base + C_LINE] = line_prize
            rows[rnd, base + C_MINIGAME] = mg
            rows[rnd, base + C_OFFERED] = offered
            rows[rnd, base + C_RESULT] = result
            rows[rnd, base + C_PRIZE] = prize
            rows[rnd, base + C_CASH] = paid
            rows[rnd, base + C_BONUSES] = bonus

    # ---- book the round
    win = cash + bv * won
    acc[A_TRIES] += tries
    acc[A_DOUBLES] += doubles
    acc[A_MAXIMUM] += maximum
    if keep_rows:
        rows[rnd, R_WIN] = win
        rows[rnd, R_CASH] = cash
        rows[rnd, R_BONUSES] = won
        rows[rnd, R_DRAWS] = np.int64(rs[DRAWS] - draws0)
        rows[rnd, R_WORDS] = np.int64(rs[WORDS] - words0)
        rows[rnd, R_LINES] = 8 if eight else 5
        rows[rnd, R_COUNTER] = counter
        rows[rnd, R_ACC] = accumulator
        rows[rnd, R_BALANCE] = balance
        rows[rnd, R_VGAIN] = vgain
        rows[rnd, R_AGAIN] = again
        rows[rnd, R_TRIES] = tries
        rows[rnd, R_DOUBLES] = doubles
        rows[rnd, R_MAXIMUM] = maximum
        rows[rnd, R_CAP] = capped_acts
    return counter, accumulator, balance, cash, won


@njit(cache=True, _nrt=False)
def _run(
    direct: np.ndarray,
    mixed: np.ndarray,
    minigame: np.ndarray,
    shown: np.ndarray,
    vstep: np.ndarray,
    astep: np.ndarray,
    mixed_table: np.ndarray,
    sections: np.ndarray,
    catch: np.ndarray,
    slides: np.ndarray,
    shuffle_max: np.ndarray,
    ranges: np.ndarray,
    params: np.ndarray,
    rs: np.ndarray,
    machine: np.ndarray,
    rounds: int,
    risk: bool,
    capped: bool,
    refill: int,
    acc: np.ndarray,
    rows: np.ndarray,
    plat: np.ndarray,
    order: np.ndarray,
) -> None:
    """Play ``rounds`` upper rounds; ``machine`` = [counter, accumulator, Bonuses] is carried
    and left as the last round leaves it.  Adds to ``acc`` (zeros, :data:`ACC`); ``rows``
    (``rounds`` rows, or none) gets one row per round; ``plat`` and ``order`` are Slides'
    scratch.  No reference counting (see :func:`_round`): :func:`_call` allocates."""
    bv = params[P_BONUS_VALUE]
    t = (direct, mixed, minigame, shown, vstep, astep, mixed_table, sections, catch, slides, shuffle_max,
         ranges, params)  # fmt: skip
    counter = machine[0]
    accumulator = machine[1]
    balance = machine[2]
    for rnd in range(rounds):
        counter, accumulator, balance, cash, won = _round(
            t, rs, counter, accumulator, balance, risk, capped, refill, acc, plat, order, rows, rnd
        )
        win = cash + bv * won
        if win == 0:
            continue
        acc[A_WIN] += win
        acc[A_WIN_SQ] += win * win
        acc[A_HITS] += 1
        acc[A_CASH] += cash
        acc[A_BONUSES] += won
        if win > acc[A_MAX_WIN]:
            acc[A_MAX_WIN] = win
    machine[0] = counter
    machine[1] = accumulator
    machine[2] = balance


# -- Python API -------------------------------------------------------------------------------

_INT64_MAX = (1 << 63) - 1


def _call(
    d: LowerData,
    t: Tables,
    rs: np.ndarray,
    state: np.ndarray,
    rounds: int,
    risk: bool,
    capped: bool,
    refill: int,
    keep_rows: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_run` with its arrays allocated; returns (accumulators, rows if ``keep_rows``)."""
    acc = np.zeros(_N_ACC, dtype=np.int64)
    rows = np.zeros((rounds if keep_rows else 0, len(COLUMNS)), dtype=np.int64)
    plat, order = scratch(d)
    _run(*t, rs, state, rounds, risk, capped, refill, acc, rows, plat, order)
    return acc, rows


def scratch(d: LowerData) -> tuple[np.ndarray, np.ndarray]:
    """Slides' scratch arrays (platform prizes and their order) for :func:`_round`."""
    n = d.upper.slides.platforms
    return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)


def _check(d: LowerData, rounds: int, bet: int) -> None:
    if not isinstance(bet, int) or not 0 <= bet < len(d.upper.bets):
        raise ValueError(f"bet must index upper.bets (0-{len(d.upper.bets) - 1}), got {bet!r}")
    if rounds < 0:
        raise ValueError(f"rounds must be non-negative, got {rounds}")


def play_rounds(
    d: LowerData,
    bit_generator: np.random.PCG64DXSM,
    rounds: int,
    bet: int = 0,
    risk: bool = False,
    *,
    machine: dict[str, Any] | None = None,
    capped: bool = False,
    refill: int = 0,
) -> np.ndarray:
    """Play ``rounds`` upper rounds at ``upper.bets[bet]`` exactly as the rules do, one row
    each (:data:`COLUMNS`).

    ``machine`` is a player state (``rules.read_machine``'s shape; None: a new machine) that
    the rounds update in place as the rules update theirs.  ``capped``: a real Bonus balance
    with the cap applied, topped up to ``refill`` (at least the bet's Bonuses) before a round
    it cannot pay for; else the cap is never applied and the balance is a net position.  The
    bit generator is advanced past the words consumed, as if the rules had drawn from it."""
    _check(d, rounds, bet)
    b = d.upper.bets[bet]
    if capped and refill < b.bonuses:
        raise ValueError(f"refill must cover the bet's {b.bonuses} Bonuses, got {refill}")
    if machine is None:
        machine = {"bonuses": 0, "vertical_lines": 0, "accumulators": {}}
    key = str(d.upper_stakes[bet])
    state = np.array(
        [machine["vertical_lines"], int(machine["accumulators"].get(key, 0)), machine["bonuses"]],
        dtype=np.int64,
    )
    rs = rng_state(bit_generator)
    _, out = _call(d, tables(d, bet), rs, state, int(rounds), bool(risk), bool(capped), int(refill), True)
    store_rng_state(bit_generator, rs)
    machine["vertical_lines"] = int(state[0])
    if rounds:
        machine["accumulators"][key] = int(state[1])
    machine["bonuses"] = int(state[2])
    return out


def simulate_chunk(
    d: LowerData, seed: np.random.SeedSequence, rounds: int, bet: int = 0, risk: bool = False
) -> SimStats:
    """Monte Carlo of ``rounds`` upper rounds at ``upper.bets[bet]`` from one seed, COLLECT
    (or AUTO-RISK with ``risk``), Bonuses uncapped.

    The chunk starts from a new machine (counter and accumulator at 0) and carries it from
    round to round.  The stake is the bet's value in cents; a round's win is its cash plus
    ``bonus_value`` cents per Bonus won; ``hits`` counts the rounds that won anything.
    """
    _check(d, rounds, bet)
    top = 2 * max_game_value(d, bet)  # the paid game and the WINNING SPIN
    block = max(1, _INT64_MAX // top**2)  # the squared wins of a block stay exact in int64
    rs = rng_state(np.random.PCG64DXSM(seed))
    state = np.zeros(3, dtype=np.int64)
    t = tables(d, bet)
    totals = [0] * _N_ACC
    left = int(rounds)
    while left > 0:
        n = min(left, block)
        acc, _ = _call(d, t, rs, state, n, bool(risk), False, 0, False)
        for k in range(_N_ACC):
            totals[k] = max(totals[k], int(acc[k])) if k == A_MAX_WIN else totals[k] + int(acc[k])
        left -= n
    a = dict(zip(ACC, totals, strict=True))
    counters = {k: v for k, v in a.items() if k not in ("win", "win_sq", "hits", "max_win")}
    return SimStats(
        stake=d.upper_stakes[bet],
        rounds=int(rounds),
        win=a["win"],
        win_sq=a["win_sq"],
        win_uncapped=a["win"],
        win_uncapped_sq=a["win_sq"],
        hits=a["hits"],
        max_win=a["max_win"],
        counters=counters,
    )
