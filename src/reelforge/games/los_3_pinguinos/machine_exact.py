"""The whole machine in the long run: lower and upper games sharing Bonuses and the counter.

*Standard play* (the doc's statement): at a pairing of a lower bet and an upper bet, play
lower games (AUTO: best holds and nudges, collect on ladders) until the machine's Bonuses
cover the upper bet, then upper games (COLLECT ALL) while they do.  The machine is then a
Markov chain on (Bonuses, counter):

* a lower round adds its Bonuses and its vertical-line hits (counter capped at 9); their
  joint law comes from :func:`lower_round_law`, which walks the lower round's tree with the
  decisions :mod:`.strategy` makes (at the pairing's lower bet: its own Disco table);
* an upper game (COLLECT wins no Bonuses) takes the bet's Bonuses, uses one from the counter
  if above 0 (8 lines) and adds the vertical-lines step when the symbol shows.

The stationary law of this chain is solved in floating point (a sparse linear system); the
per-game cash it weights (the lower game's exact AUTO cash, the upper game's exact cash at 5
and 8 lines with the accumulator at its long-run rate) are exact fractions.  Its cash return
is :mod:`.machine_best`'s figure of the AUTO play at the chain's own share of 8-line games (a
cross-check of that module's renewal argument).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import spsolve

from reelforge.engine.memo import by_identity

from . import strategy as S
from .data_model import STOPS, LowerData
from .payline import FEW_NUDGES, count_weights, evaluate, fewest_nudges, line_symbols, nudged, vertical_hits
from .upper_lines import evaluate as upper_evaluate

F = Fraction
Law = dict[tuple[int, int], Fraction]  # (Bonuses at the unit bet, vertical hits) -> chance
PLAY = "auto"


def _weights(pairs: dict[int, int]) -> list[tuple[int, Fraction]]:
    total = sum(pairs.values())
    return [(k, F(w, total)) for k, w in pairs.items() if w]


def _auto_nudged(d: LowerData, stops: S.Stops, left: int, held_game: bool) -> S.Stops:
    """Where AUTO-ADVANCE's nudges leave the reels: one move at a time, as ``auto_action``."""
    pos = stops
    while left:
        move = S.first_move(S.best_nudge(d, PLAY, pos, left, held_game))
        if move is None:
            break
        vec = [0, 0, 0]
        vec[move] = 1
        pos = nudged(pos, tuple(vec))  # type: ignore[arg-type]
        left -= 1
    return pos


def _finals(d: LowerData, landed: S.Stops, held_game: bool) -> list[tuple[S.Stops, Fraction]]:
    """The final positions a landing leads to, with their chances (nudges offered or not)."""
    outcome = evaluate(d, line_symbols(d, landed))
    m = fewest_nudges(d, landed, outcome, held_game)
    if m is None or m > FEW_NUDGES:
        return [(landed, F(1))]
    offer = F(d.nudges.offer.yes, d.nudges.offer.yes + d.nudges.offer.no)
    out = [(landed, 1 - offer)]
    for n, p in _weights(count_weights(d, m)):  # only counts that can improve the line
        out.append((_auto_nudged(d, landed, n, held_game), offer * p))
    return out


DISCO = -1  # in the unit law: the line is the Disco, whose Bonuses depend on the bet's own table


def _prize_bonuses(d: LowerData, stops: S.Stops) -> list[tuple[int, Fraction]]:
    """Bonuses (unit bet) a final line wins under AUTO (ladders collected: cash stays cash),
    or :data:`DISCO`."""
    o = evaluate(d, line_symbols(d, stops))
    if o.kind == "bonus":
        return [(o.bonuses, F(1))]
    if o.kind == "disco":
        return [(DISCO, F(1))]
    return [(0, F(1))]


def disco_bonuses(d: LowerData, coin: int) -> list[tuple[int, Fraction]]:
    """The Bonuses the Disco pays at the bet ``unit × coin`` (its own table; cash counts 0)."""
    table = d.disco_table(coin)
    total = sum(table.values())
    law: dict[int, Fraction] = defaultdict(F)
    for k, w in table.items():
        law[int(k[1:]) if k[0] == "B" else 0] += F(w, total)
    return list(law.items())


def _add(law: Law, other: Law, p: Fraction, db: int = 0, dh: int = 0) -> None:
    for (b, h), q in other.items():
        law[(b + db, h + dh)] += p * q


@by_identity()
def lower_round_law(d: LowerData, coin: int = 1) -> Law:
    """Joint law of (Bonuses won at the bet ``unit × coin``, vertical-line hits) of one lower
    round: the unit bet's walk, its Bonus lines scaled and its Disco the bet's own table."""
    law: Law = defaultdict(F)
    for (b, h), p in _unit_round_law(d).items():
        for won, q in disco_bonuses(d, coin) if b == DISCO else [(b * coin, F(1))]:
            law[(won, h)] += p * q
    return dict(law)


@by_identity()
def _unit_round_law(d: LowerData) -> Law:
    """:func:`lower_round_law` at the unit bet with the Disco left as :data:`DISCO`."""
    values = S.values(d, PLAY)
    hold_chance = F(d.hold.yes, d.hold.yes + d.hold.no)

    def final_law(stops: S.Stops, held_game: bool) -> Law:
        law: Law = defaultdict(F)
        hits = vertical_hits(d, stops)
        for b, p in _prize_bonuses(d, stops):
            law[(b, hits)] += p
        return law

    held_landed: dict[S.Stops, Law] = {}
    for stops in S.ALL_STOPS:
        law: Law = defaultdict(F)
        for final, p in _finals(d, stops, held_game=True):
            _add(law, final_law(final, True), p)
        held_landed[stops] = law

    respin_all: Law = defaultdict(F)  # a held game spinning every reel: offered no nudges
    for stops in S.ALL_STOPS:
        _add(respin_all, final_law(stops, True), F(1, len(S.ALL_STOPS)))
    hold_cache: dict[tuple[S.Stops, int], Law] = {}

    def hold_law(stops: S.Stops, mask: int) -> Law:
        if mask == 0:
            return respin_all
        key = (tuple(s if mask >> r & 1 else -1 for r, s in enumerate(stops)), mask)
        if key not in hold_cache:
            free = [r for r in range(3) if not mask >> r & 1]
            law: Law = defaultdict(F)
            n = STOPS ** len(free)
            for combo in np.ndindex(*([STOPS] * len(free))):
                s = list(stops)
                for r, v in zip(free, combo, strict=True):
                    s[r] = int(v)
                _add(law, held_landed[tuple(s)], F(1, n))  # type: ignore[index]
            hold_cache[key] = law
        return hold_cache[key]

    total: Law = defaultdict(F)
    n = len(S.ALL_STOPS)
    for stops in S.ALL_STOPS:
        for final, p in _finals(d, stops, held_game=False):
            p = p / n
            o = evaluate(d, line_symbols(d, final))
            hits = vertical_hits(d, final)
            mask = values.hold_mask[S.index(final)]
            if o.kind == "none" and mask >= 0:
                total[(0, hits)] += p * (1 - hold_chance)
                _add(total, hold_law(final, mask), p * hold_chance, dh=hits)
            else:
                _add(total, final_law(final, False), p)
    return dict(total)


@by_identity()
def upper_counter_step(d: LowerData) -> list[tuple[int, Fraction]]:
    """What an upper paid game adds to the counter: 0, or a drawn step when the symbol shows."""
    u = d.upper
    shown = sum(upper_evaluate(u, u.bets[0], stops, vertical=False).vertical for stops in S.ALL_STOPS)
    v = F(shown, len(S.ALL_STOPS))
    return [(0, 1 - v), *((k, v * p) for k, p in _weights(u.vertical_step))]


def machine_long_run(
    d: LowerData,
    lower_bet: int,
    upper_index: int,
    upper_value: tuple[Fraction, Fraction],
) -> dict[str, float]:
    """Long-run figures of standard play at a pairing, in cash: ``upper_value`` = the upper
    game's cash per game (cents, accumulator included) at 5 and at 8 lines, under COLLECT;
    ``rtp`` = cash out over cash in (the lower bet, the upper bet's cash), as machine_best
    counts it, here weighted by the chain's own share of 8-line upper games."""
    coin = d.multiplier(lower_bet)
    bet = d.upper.bets[upper_index]
    need = bet.bonuses
    lower = lower_round_law(d, coin)
    max_b = need - 1 + max(b for b, _ in lower)
    cmax = d.game.vertical_lines_max
    states = [(b, c) for b in range(max_b + 1) for c in range(cmax + 1)]
    idx = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []
    step = upper_counter_step(d)
    for (b, c), i in idx.items():
        if b >= need:
            c0 = c - 1 if c > 0 else 0
            for k, p in step:
                rows.append(idx[(b - need, min(cmax, c0 + k))])
                cols.append(i)
                vals.append(float(p))
        else:
            for (db, h), p in lower.items():
                rows.append(idx[(b + db, min(cmax, c + h))])
                cols.append(i)
                vals.append(float(p))
    n = len(states)
    p_mat = csr_matrix((vals, (rows, cols)), shape=(n, n))
    # (P - I) pi = 0 with sum(pi) = 1: replace the last equation by the normalisation.
    a = (p_mat - csr_matrix((np.ones(n), (range(n), range(n))), shape=(n, n))).tolil()
    a[n - 1, :] = np.ones(n)
    rhs = np.zeros(n)
    rhs[n - 1] = 1.0
    pi = spsolve(a.tocsr(), rhs)
    lower_value = float(S.values(d, PLAY).cash_cents) * coin  # cash cents per lower round
    upper_cash = bet.cash
    share_upper = share_eight = 0.0
    returned = staked = 0.0
    for (b, c), i in idx.items():
        w = pi[i]
        if b >= need:
            share_upper += w
            eight = c > 0
            share_eight += w * eight
            returned += w * float(upper_value[1] if eight else upper_value[0])
            staked += w * upper_cash
        else:
            returned += w * lower_value
            staked += w * lower_bet
    return {
        "rtp": returned / staked,
        "upper_game_share": share_upper,
        "eight_line_share_of_upper": share_eight / share_upper if share_upper else 0.0,
        "lower_bet": lower_bet,
        "upper_stake": d.upper_value(bet),
    }


def standard_play(d: LowerData) -> list[dict[str, float]]:
    """The long-run figures of standard play for each upper bet, paired with the lower bet
    of the same cash (€0.20 with €0.20 + 1 Bonus, …, €15 with both €15 bets)."""
    from .upper_exact import bet_figures

    out = []
    for i, bet in enumerate(d.upper.bets):
        figures = bet_figures(d, i)
        value = (figures.rtp("collect", 5) * figures.stake, figures.rtp("collect", 8) * figures.stake)
        run = machine_long_run(d, bet.cash, i, value)
        run["upper_rtp_here"] = (
            run["eight_line_share_of_upper"] * float(value[1])
            + (1 - run["eight_line_share_of_upper"]) * float(value[0])
        ) / figures.stake  # the upper game's design figure (over its value, a Bonus at €0.80)
        out.append(run)
    return out
