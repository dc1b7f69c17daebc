"""The upper game's exact win distribution per bet: one round of upper-only play, COLLECT ALL.

A round is the paid game and, when that game fills the bet's accumulator, the WINNING SPIN
(:mod:`.upper_round`); under COLLECT ALL each game pays its settled prize in cash and no
Bonuses.  What a round can win depends on the machine's state at its start, the
vertical-lines counter ``c`` (above zero: 8 paylines) and the bet's accumulator ``k`` (how
near the next WINNING SPIN is), so *the* law of a round is the one of a round drawn from the
long run of upper-only play at one bet: the state at the stationary law of its chain.

* **A game's prize** (:func:`game_laws`): the 4,096 stop triples grouped by their direct
  prize, mixed-sevens lines, minigame named and whether the accumulator symbol shows; a
  group's prize is the line prize (the mixed draws' law, capped at the maximum) or, offered
  with the bet's chance at the game's line count, the minigame's
  ``min(max, max(floor, line prize, result))`` (:mod:`.upper_minigames_exact`, exact laws).
* **The state** (:func:`state_law`): the counter and the accumulator form one chain (both
  are moved by the symbols of the same window, so they are not independent: here the two
  symbols never show together); its stationary law is solved exactly.
* **The round**: the paid game at ``L`` lines, plus the WINNING SPIN ``W`` (the 5-line game
  conditioned on paying) when the accumulator shows and its draw fills it from ``k``
  (chance ``F_k``).  With ``X_L`` the law of a game at ``L`` lines and ``A_L`` its part where
  the accumulator shows, ``law = Σ_L π(L) X_L + g_L (A_L * W − A_L)``, ``g_L = Σ_k π(L, k)
  F_k`` and ``*`` the convolution (a round holds two games, each capped at the maximum).

Its mean is the configured COLLECT figure of :mod:`.upper_exact` exactly.  AUTO-RISK (every
fraction of Double-or-Bonuses played) is not carried as a law here; see the doc page.
"""

from __future__ import annotations

import time
from collections import Counter
from fractions import Fraction
from itertools import product

from reelforge.engine.distribution import WinDistribution
from reelforge.engine.memo import by_identity

from . import upper_exact as E
from . import upper_minigames_exact as M
from .data_model import LowerData
from .upper_lines import evaluate, window

F = Fraction
Law = dict[int, Fraction]  # cents at the bet -> probability
Group = tuple[int, int, str | None, bool]  # direct at the unit bet, mixed lines, minigame, accumulator shown


@by_identity()
def _unit_groups(d: LowerData, lines: int) -> dict[Group, int]:
    """Stop triples per (direct prize at the unit multiplier, mixed lines, minigame,
    accumulator shown), at 5 or 8 lines (``upper_exact``'s probe bet counts mixed lines)."""
    out: Counter[Group] = Counter()
    for stops in E.ALL_STOPS:
        ev = evaluate(d.upper, E._PROBE, stops, lines == 8)
        out[(ev.direct, ev.mixed_lines, ev.minigame, ev.accumulator)] += 1
    return dict(out)


def _mix(into: Counter[int], law: Law, weight: Fraction) -> None:
    for x, p in law.items():
        into[x] += weight * p


def _settled(d: LowerData, i: int, direct: int, mixed: int, kind: str | None, offer: Fraction) -> Law:
    """A game's prize for one group (COLLECT: the settled prize is paid as it is)."""
    bet = d.upper.bets[i]
    line = M.line_prize(d, i, direct, mixed)
    if kind is None or offer == 0:
        return line
    out: Counter[int] = Counter()
    _mix(out, line, 1 - offer)
    for x, p in line.items():
        _mix(out, M.replaced(bet, x, M.minigame(d, i, kind)), offer * p)
    return dict(out)


@by_identity()
def game_laws(d: LowerData, i: int, lines: int, winning: bool = False) -> tuple[Law, Law]:
    """``(X, A)``: the law of a game's settled prize at bet ``i`` on ``lines`` paylines, and
    its part on the stops that show the accumulator symbol (a sub-probability).  ``winning``:
    the WINNING SPIN, the 5-line game conditioned on paying (then ``A`` is empty)."""
    bet = d.upper.bets[i]
    offer = E.offer_chance(d, i, 5 if winning else lines)
    table: Counter[Group] = Counter()
    for (direct, mixed, kind, acc), n in _unit_groups(d, lines).items():
        key = (direct * bet.multiplier, mixed if bet.mixed else 0, kind, acc and not winning)
        if winning and not (key[0] or key[1]):
            continue
        table[key] += n
    total = sum(table.values())
    x: Counter[int] = Counter()
    a: Counter[int] = Counter()
    for (direct, mixed, kind, acc), n in table.items():
        law = _settled(d, i, direct, mixed, kind, offer)
        _mix(x, law, F(n, total))
        if acc:
            _mix(a, law, F(n, total))
    return _clean(x), _clean(a)


def _clean(law: Counter[int] | Law) -> Law:
    return {k: law[k] for k in sorted(law) if law[k]}


def _convolve(a: Law, b: Law) -> Law:
    out: Counter[int] = Counter()
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return _clean(out)


def _stationary(p: list[dict[int, Fraction]]) -> list[Fraction]:
    """The stationary law of an irreducible chain given as sparse rows ``p[i] = {j: P(i, j)}``:
    ``pi (P - I) = 0`` with ``pi[0]`` fixed to 1 (one equation is redundant), solved exactly
    by sparse elimination (the chain moves a few states at a time, so the system is banded),
    then normalised."""
    n = len(p)
    cols: list[dict[int, Fraction]] = [{} for _ in range(n)]  # equation j over unknowns i
    for i, row in enumerate(p):
        for j, q in row.items():
            cols[j][i] = cols[j].get(i, F(0)) + q
    for j in range(n):
        cols[j][j] = cols[j].get(j, F(0)) - 1
    # unknowns 1..n-1, equations 1..n-1 (equation 0 dropped), pi[0] = 1 moved to the right
    eqs = [{i: c for i, c in cols[j].items() if i and c} for j in range(1, n)]
    rhs = [-cols[j].get(0, F(0)) for j in range(1, n)]
    order: list[int] = []
    for col in range(1, n):
        r = next(r for r in range(col - 1, n - 1) if eqs[r].get(col))
        eqs[col - 1], eqs[r] = eqs[r], eqs[col - 1]
        rhs[col - 1], rhs[r] = rhs[r], rhs[col - 1]
        pivot = eqs[col - 1]
        inv = 1 / pivot[col]
        for k in pivot:
            pivot[k] *= inv
        rhs[col - 1] *= inv
        for r in range(col, n - 1):
            f = eqs[r].get(col)
            if f:
                row = eqs[r]
                for k, c in pivot.items():
                    v = row.get(k, F(0)) - f * c
                    if v:
                        row[k] = v
                    else:
                        row.pop(k, None)
                rhs[r] -= f * rhs[col - 1]
        order.append(col)
    x = [F(0)] * n
    x[0] = F(1)
    for col in reversed(order):  # back substitution: pivot rows are upper triangular
        row = eqs[col - 1]
        x[col] = rhs[col - 1] - sum((c * x[k] for k, c in row.items() if k != col), F(0))
    total = sum(x, F(0))
    return [v / total for v in x]


@by_identity()
def state_law(d: LowerData) -> dict[tuple[int, int], Fraction]:
    """The stationary law of (counter, accumulator pieces) at a game's start under upper-only
    play at one bet: the counter loses one when above zero, then gains a ``vertical_step``
    draw (at most the maximum) when its symbol shows; the accumulator gains an
    ``accumulator_step`` draw when its symbol shows, emptying when it fills."""
    u = d.upper
    top = d.game.vertical_lines_max
    pieces = u.accumulator_pieces
    shows: Counter[tuple[bool, bool]] = Counter()
    for stops in E.ALL_STOPS:
        seen = {s for col in window(u, stops) for s in col}
        shows[(u.vertical_lines in seen, u.accumulator in seen)] += 1
    n = len(E.ALL_STOPS)
    v_steps = E._steps(u.vertical_step)
    a_steps = E._steps(u.accumulator_step)
    states = list(product(range(top + 1), range(pieces)))
    where = {s: j for j, s in enumerate(states)}
    p: list[dict[int, Fraction]] = [{} for _ in states]
    for (c, k), j in where.items():
        after = max(c - 1, 0)
        for (vert, acc), count in shows.items():
            w = F(count, n)
            cs = [(min(top, after + g), q) for g, q in v_steps.items()] if vert else [(after, F(1))]
            ks = [(k + g if k + g < pieces else 0, q) for g, q in a_steps.items()] if acc else [(k, F(1))]
            for c2, qc in cs:
                for k2, qk in ks:
                    to = where[(c2, k2)]
                    p[j][to] = p[j].get(to, F(0)) + w * qc * qk
    pi = _stationary(p)
    return {s: pi[j] for s, j in where.items()}


def fill_chance(d: LowerData, k: int) -> Fraction:
    """The chance that an accumulator draw fills the accumulator from ``k`` pieces."""
    u = d.upper
    return sum((q for g, q in E._steps(u.accumulator_step).items() if k + g >= u.accumulator_pieces), F(0))


@by_identity()
def _with_winning_spin(d: LowerData, i: int, lines: int) -> Law:
    """``A_L * W``: the paid game where the accumulator shows, followed by a WINNING SPIN."""
    w, _ = game_laws(d, i, 5, True)
    return _convolve(game_laws(d, i, lines)[1], w)


def state_round_law(d: LowerData, i: int, lines: int, pieces: int) -> Law:
    """The law of a round that starts with ``lines`` paylines and ``pieces`` in the bet's
    accumulator: ``X_L + F_k (A_L * W - A_L)``."""
    x, a = game_laws(d, i, lines)
    f = fill_chance(d, pieces)
    out: Counter[int] = Counter(x)
    _mix(out, _with_winning_spin(d, i, lines), f)
    _mix(out, a, -f)
    return _clean(out)


@by_identity()
def round_law(d: LowerData, i: int) -> Law:
    """The exact law of one upper round's cash win at bet ``i`` under COLLECT ALL, the
    machine's state at its long-run law (see the module doc)."""
    pi = state_law(d)
    out: Counter[int] = Counter()
    for lines in (5, 8):
        here = {s: p for s, p in pi.items() if (s[0] > 0) == (lines == 8)}
        g = sum((p * fill_chance(d, k) for (_, k), p in here.items()), F(0))
        x, a = game_laws(d, i, lines)
        _mix(out, x, sum(here.values(), F(0)))
        _mix(out, _with_winning_spin(d, i, lines), g)
        _mix(out, a, -g)
    return _clean(out)


def win_distribution(d: LowerData, i: int = 0) -> WinDistribution:
    started = time.perf_counter()
    law = round_law(d, i)
    pi = state_law(d)
    bet = d.upper.bets[i]
    return WinDistribution(
        game="los-3-pinguinos",
        variant=d.game.variant,
        mode="upper",
        stake=d.upper_stakes[i],
        cap=None,
        method=(
            "exact: every stop at 5 and 8 lines, the minigames' laws, the WINNING SPIN, the "
            "counter and accumulator at their stationary law (fractions)"
        ),
        error_bound="none: every probability is an exact fraction",
        exact_pmf=law,
        details={
            "play": "collect",
            "play_name": "COLLECT ALL on every Double-or-Bonuses; AUTO-PLAY minigames; upper-only play",
            "bet": {"cash": bet.cash, "bonuses": bet.bonuses, "value_cents": d.upper_stakes[i]},
            "amounts": "cash cents won by the round (COLLECT wins no Bonuses); the stake is the bet's value",
            "max_prize_per_game_cents": bet.max_prize,
            "p_at_least_max_prize": float(sum((p for x, p in law.items() if x >= bet.max_prize), F(0))),
            "eight_line_share": float(sum((p for (c, _), p in pi.items() if c > 0), F(0))),
            "seconds": round(time.perf_counter() - started, 2),
        },
    )
