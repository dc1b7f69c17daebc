"""Exact first and second moments of a base round's win: the base game's volatility index.

The law of a base spin is out of reach (:data:`.distribution.BASE_BLOCKED`), but its first
two moments are sums over one line, one position, or two of each, and every such term is a
product over independent positions:

* ``X = L + 1{wild} (K + J) + 1{ghost} G``: ``L`` the lines, ``K`` the coins and jackpots the
  14 outer positions show, ``J`` the jackpot rewind, ``G`` the ghost's coins (independent of
  the rest);
* ``E[L^2] = sum over ordered pairs of lines of E[pay_l pay_l']``: each line's pay is a sum
  over its (symbol, run length) events, an event fixes at every reel of the line whether the
  position matches the symbol (or the wild), must not, or is free; two events meet position
  by position, so ``P(e and e') = prod_p P(symbol at p allowed by both)``;
* the jackpot rewind picks one of the ``N`` outer blanks uniformly: ``J = V_P`` with
  probability ``fire``, so ``E[J h] = fire sum_p E[V_p] E[1{p blank} h / N]``; given a line
  event (or another position's prize), the blanks of the other positions are independent, so
  ``E[1 / N]`` is a sum over the convolution of their blank probabilities.

A round adds the feature a pop starts: ``W = X + F`` with ``F`` independent of ``X`` given who
is in the center and how many piggies popped, so ``E[W^2 | piggies] = E[X^2] + sum_k
P(k | piggies) (2 E[X | by_k] E[F_k] + E[F_k^2])`` with the features' exact laws
(:mod:`.feature_law`).  All of it in exact fractions; the max-win cap moves the moments by
less than ``W_max^2 P(cap)`` (bounded from :mod:`.cap_odds`), which is stated beside them.

The parts are kept apart by what moves them (the tuner, :mod:`.volatility`, moves coins,
ghost prizes and frame tables): the lines' moments, and the wild terms' coefficients
(:class:`WildLinear`) times the outer positions' prize values; the features' moments are in
:mod:`.feature_moments`.  The heavy sums (pairs of lines, the rewind's polynomials) run in
integers, each position's probabilities over a common denominator: about 1 s for a file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .cap_odds import KINDS, base_cap_odds, max_spin_credits
from .data_model import CENTER, N_POS, N_REELS, OUTER, GambiniData, position
from .exact_common import cache, chance, dist
from .exact_panel import position_dists
from .exact_piggies import piggy_chain
from .feature_law import feature_law
from .feature_moments import feature_moments, kind_of
from .panel import rewind_target

F = Fraction
ANY = ("any", "")  # a line event's constraint at a position: free, match(s) or nomatch(s)
Constraint = tuple[str, str]


@dataclass(frozen=True)
class _Event:
    """One (symbol, run length) outcome of a line: ``pay`` credits, a constraint per reel."""

    pay: int
    constraints: tuple[tuple[str, str], ...]


def _events(d: GambiniData, line: tuple[int, ...]) -> list[_Event]:
    out = []
    for s, pays in d.pays.items():
        for length, pay in pays.items():
            if not pay:
                continue
            cons = [("m", s) if k < length else ("n", s) if k == length else ANY for k in range(N_REELS)]
            out.append(_Event(pay, tuple(cons)))
    return out


def allowed(d: GambiniData, c: tuple[str, str], symbol: str) -> bool:
    """Whether ``symbol`` at a position meets the line event's constraint ``c`` there."""
    kind, s = c
    if kind == "any":
        return True
    match = symbol == s or symbol in d.wild_set
    return match if kind == "m" else not match


class _Space:
    """The positions' symbol probabilities (the center's restricted to ``center``) and the
    probability of each constraint, and of each pair of constraints, at each position."""

    def __init__(self, d: GambiniData, center: set[str] | None = None) -> None:
        self.d = d
        self.dists = list(position_dists(d))
        if center is not None:
            self.dists[CENTER] = {s: q for s, q in self.dists[CENTER].items() if s in center}
        self.single: list[dict[tuple[str, str], Fraction]] = [{} for _ in range(N_POS)]
        self.pair: list[dict[tuple[tuple[str, str], tuple[str, str]], Fraction]] = [{} for _ in range(N_POS)]
        self.scales: dict[int, int] = {}

    def allowed(self, c: tuple[str, str], symbol: str) -> bool:
        return allowed(self.d, c, symbol)

    def p1(self, p: int, c: tuple[str, str]) -> Fraction:
        if c not in self.single[p]:
            self.single[p][c] = sum((q for s, q in self.dists[p].items() if self.allowed(c, s)), F(0))
        return self.single[p][c]

    def p2(self, p: int, c: tuple[str, str], c2: tuple[str, str]) -> Fraction:
        key = (c, c2)
        if key not in self.pair[p]:
            self.pair[p][key] = sum(
                (q for s, q in self.dists[p].items() if self.allowed(c, s) and self.allowed(c2, s)), F(0)
            )
        return self.pair[p][key]

    def mass(self, p: int) -> Fraction:
        return sum(self.dists[p].values(), F(0))

    def scale(self, p: int) -> int:
        """A common denominator of position ``p``'s probabilities."""
        if p not in self.scales:
            self.scales[p] = math.lcm(*(q.denominator for q in self.dists[p].values()))
        return self.scales[p]

    def n1(self, p: int, c: tuple[str, str]) -> int:
        """``p1`` times :meth:`scale`: an integer."""
        return int(self.p1(p, c) * self.scale(p))

    def n2(self, p: int, c: tuple[str, str], c2: tuple[str, str]) -> int:
        return int(self.p2(p, c, c2) * self.scale(p))

    def total_mass(self, skip: set[int]) -> Fraction:
        out = F(1)
        for p in range(N_POS):
            if p not in skip:
                out *= self.mass(p)
        return out


def _positions(line: tuple[int, ...]) -> list[int]:
    return [position(k, row) for k, row in enumerate(line)]


def line_mean(space: _Space) -> Fraction:
    """``E[L; center in the space's set]``."""
    total = F(0)
    for line in space.d.lines:
        pos = _positions(line)
        rest = space.total_mass(set(pos))
        for e in _events(space.d, line):
            prob = rest
            for p, c in zip(pos, e.constraints, strict=True):
                prob *= space.p1(p, c)
            total += e.pay * prob
    return total


def line_second_moment(space: _Space) -> Fraction:
    """``E[L^2; center in the space's set]``, over ordered pairs of lines.

    For lines ``i`` and ``j`` sharing the reels ``S`` (the same position there), events
    meet only on ``S``: ``sum_{e, e'} pay pay' prod_{k not in S} P_i(e_k) P_j(e'_k)
    prod_{k in S} P(e_k and e'_k)``, so each line's events are first summed by their
    constraints on ``S``.  In integers: every position's probabilities over a common
    denominator, one division per pair of lines."""
    d = space.d
    events = _events(d, d.lines[0])  # a constraint per reel: the same for every line
    positions = [_positions(line) for line in d.lines]
    grouped: dict[tuple[tuple[int, ...], tuple[int, ...]], dict[tuple[Constraint, ...], int]] = {}

    def group(pos: list[int], shared: tuple[int, ...]) -> dict[tuple[Constraint, ...], int]:
        """``sum of pay x prod_{k not in S} P(e_k)`` (scaled) by the constraints on ``S``."""
        key = (tuple(pos), shared)
        if key not in grouped:
            out: dict[tuple[Constraint, ...], int] = {}
            for e in events:
                w = e.pay
                for k in range(N_REELS):
                    if k not in shared:
                        w *= space.n1(pos[k], e.constraints[k])
                if w:
                    on = tuple(e.constraints[k] for k in shared)
                    out[on] = out.get(on, 0) + w
            grouped[key] = out
        return grouped[key]

    total = F(0)
    for i, pos_i in enumerate(positions):
        for j in range(i, len(positions)):
            pos_j = positions[j]
            shared = tuple(k for k in range(N_REELS) if pos_i[k] == pos_j[k])
            acc = 0
            b = group(pos_j, shared)
            for on_a, wa in group(pos_i, shared).items():
                for on_b, wb in b.items():
                    w = wa * wb
                    for k, ca, cb in zip(shared, on_a, on_b, strict=True):
                        w *= space.n2(pos_i[k], ca, cb)
                        if not w:
                            break
                    acc += w
            if not acc:
                continue
            scale = 1
            for k in range(N_REELS):
                scale *= space.scale(pos_i[k]) * (1 if k in shared else space.scale(pos_j[k]))
            rest = space.total_mass(set(pos_i) | set(pos_j))
            total += (1 if i == j else 2) * rest * F(acc, scale)
    return total


# -- the collection and the jackpot rewind (a wild in the center) ----------------------------------


def _value(d: GambiniData, symbol: str) -> int:
    return d.prize_credits(symbol) if d.is_prize(symbol) else 0


def _inverse_mean(poly: list[Fraction]) -> Fraction:
    """``sum_k c_k / (1 + k)``: ``E[1 / (1 + N)]`` times the mass, for ``N``'s (unnormalised)
    generating polynomial ``sum_k c_k t^k``."""
    return sum((c / (1 + k) for k, c in enumerate(poly)), F(0))


def _integral_scaled(a: list[int], b: list[int], width: int) -> int:
    """``width int_0^1 a(t) b(t) dt`` for integer polynomials given by their coefficients,
    ``width`` a multiple of every ``1 + degree``."""
    return sum(x * y * (width // (i + j + 1)) for i, x in enumerate(a) if x for j, y in enumerate(b) if y)


def _times(poly: list[Any], keep: Any, blank: Any) -> list[Any]:
    """``poly * (keep + blank t)`` (fractions or integers)."""
    out = [0 * keep] * (len(poly) + 1)
    for k, c in enumerate(poly):
        out[k] += c * keep
        out[k + 1] += c * blank
    return out


@dataclass(frozen=True)
class WildTerms:
    """Moments of the parts of a spin with a wild in the center, each given that wild
    (``k``: the outer coins and jackpots, ``j``: the rewind's jackpot, ``l``: the lines)."""

    k1: Fraction
    k2: Fraction
    j1: Fraction
    j2: Fraction
    kj: Fraction
    lk: Fraction  # E[L K | wild]
    lj: Fraction  # E[L J | wild]


SQUARE = ("sq", "")  # prize_values' key of E[V^2]


@dataclass(frozen=True)
class WildLinear:
    """:class:`WildTerms` with the outer prizes' values left out: ``K``'s terms are sums of a
    coefficient times ``V(p, c) = E[V_p; c holds at p]`` (``c`` a line event's constraint, or
    :data:`ANY`), the coefficients fixed by the lines, the blanks and the jackpots.  A coin
    never matches a line symbol nor is a blank, so turning one coin into another moves the
    ``V`` and nothing here (what the tuner relies on)."""

    j1: Fraction
    j2: Fraction
    lj: Fraction
    kj: dict[int, Fraction]  # E[K J | wild] = sum_q kj[q] V(q, ANY)
    lk: dict[tuple[int, Constraint], Fraction]  # E[L K | wild] = sum lk[p, c] V(p, c)


def prize_values(
    d: GambiniData, q: dict[str, Fraction], constraints: set[Constraint]
) -> dict[Constraint, Fraction]:
    """``V(c)`` of one outer position, its symbols' law ``q``, for each of ``constraints``
    (:data:`ANY` among them: ``E[V]``), and ``E[V^2]`` under :data:`SQUARE`."""
    out = {c: sum((x * _value(d, s) for s, x in q.items() if allowed(d, c, s)), F(0)) for c in constraints}
    out[SQUARE] = sum((x * _value(d, s) ** 2 for s, x in q.items()), F(0))
    return out


def wild_combine(lin: WildLinear, values: dict[int, dict[Constraint, Fraction]]) -> WildTerms:
    """The wild terms from their coefficients and the outer positions' prize values."""
    v1 = {p: values[p][ANY] for p in OUTER}
    k1 = sum(v1.values(), F(0))
    # E[K^2] = sum_p E[V_p^2] + sum_{p != q} E[V_p] E[V_q]
    k2 = sum((values[p][SQUARE] for p in OUTER), F(0)) + k1 * k1 - sum((v * v for v in v1.values()), F(0))
    kj = sum((c * v1[q] for q, c in lin.kj.items()), F(0))
    lk = sum((c * values[p][con] for (p, con), c in lin.lk.items()), F(0))
    return WildTerms(k1, k2, lin.j1, lin.j2, kj, lk, lin.lj)


def constraints_at(lin: WildLinear) -> dict[int, set[Constraint]]:
    out: dict[int, set[Constraint]] = {p: {ANY} for p in OUTER}
    for p, c in lin.lk:
        out[p].add(c)
    return out


def outer_values(d: GambiniData, lin: WildLinear) -> dict[int, dict[Constraint, Fraction]]:
    dists = position_dists(d)
    return {p: prize_values(d, dists[p], cons) for p, cons in constraints_at(lin).items()}


def wild_terms(d: GambiniData) -> WildTerms:
    lin = wild_linear(d)
    return wild_combine(lin, outer_values(d, lin))


@cache
def wild_linear(d: GambiniData) -> WildLinear:
    space = _Space(d, set(d.wild_set))
    p_wild = space.mass(CENTER)
    dists = space.dists
    fire = chance(d.magic_rewind.jackpot.fire, d.magic_rewind.jackpot.skip)
    blank = {p: dists[p].get(d.blank, F(0)) for p in OUTER}
    # the rewound jackpot's value, given the blank picked is at p (its stop uniform among blanks)
    jv1: dict[int, Fraction] = {}
    jv2: dict[int, Fraction] = {}
    jackpots = set(d.jackpots)
    for p in OUTER:
        strip = d.strips[p]
        values = [
            d.prize_credits(strip[rewind_target(strip, i, jackpots)])
            for i, s in enumerate(strip)
            if s == d.blank
        ]
        jv1[p] = F(sum(values), len(values)) if values else F(0)
        jv2[p] = F(sum(v * v for v in values), len(values)) if values else F(0)

    def others(skip: set[int]) -> list[Fraction]:
        poly = [F(1)]
        for q in OUTER:
            if q not in skip:
                poly = _times(poly, 1 - blank[q], blank[q])
        return poly

    picked = {p: blank[p] * _inverse_mean(others({p})) for p in OUTER}  # E[1{p blank} / N]
    j1 = fire * sum((jv1[p] * picked[p] for p in OUTER), F(0))
    j2 = fire * sum((jv2[p] * picked[p] for p in OUTER), F(0))
    kj: dict[int, Fraction] = {}
    for q in OUTER:
        # q shows a prize (so no blank): the other 12 positions' blanks count
        kj[q] = fire * sum(
            (
                jv1[p] * blank[p] * _inverse_mean(others({p, q}))
                for p in OUTER
                if p != q and jv1[p] * blank[p]
            ),
            F(0),
        )
    lk: dict[tuple[int, Constraint], Fraction] = {}
    lj = F(0)
    blank_n = {p: int(blank[p] * space.scale(p)) for p in OUTER}
    j_scale = math.lcm(*(v.denominator for v in jv1.values()))
    jv_n = {p: int(jv1[p] * j_scale) for p in OUTER}
    width = math.lcm(*range(1, len(OUTER) + 1))  # clears _integral's denominators
    lj_scale = j_scale * width * math.prod(space.scale(p) for p in OUTER)
    for line in d.lines:
        pos = _positions(line)
        on = set(pos)
        rest_mass = space.total_mass(on)  # positions off the line (all of mass 1 but the center)
        for e in _events(d, line):
            cons = dict(zip(pos, e.constraints, strict=True))
            probs = {p: space.p1(p, c) for p, c in cons.items()}
            prob = rest_mass
            for q in probs.values():
                prob *= q
            if not prob:
                continue
            # E[pay 1{e} K]: position by position, the prize at p within its constraint
            for p in OUTER:
                key, share = ((p, cons[p]), prob / probs[p]) if p in cons else ((p, ANY), prob)
                lk[key] = lk.get(key, F(0)) + e.pay * share / p_wild
            # E[pay 1{e} 1{p blank} / N]: the other outer positions' blanks within their
            # constraints; the product over them is a prefix times a suffix (leave p out).
            # In integers: position q's probabilities times scale(q), the integral times L
            factors = []
            for q in OUTER:
                c_q = cons.get(q, ANY)
                b_q = blank_n[q] if allowed(d, c_q, d.blank) else 0
                factors.append((space.n1(q, c_q) - b_q, b_q))
            prefix = [[1]]
            for keep, b in factors:
                prefix.append(_times(prefix[-1], keep, b))
            suffix = [[1]]
            for keep, b in reversed(factors):
                suffix.append(_times(suffix[-1], keep, b))
            suffix.reverse()
            acc = 0
            for i, p in enumerate(OUTER):
                b_p = factors[i][1]
                if b_p and jv_n[p]:
                    acc += jv_n[p] * b_p * _integral_scaled(prefix[i], suffix[i + 1], width)
            if acc:
                center = space.p1(CENTER, cons[CENTER]) if CENTER in cons else p_wild
                lj += e.pay * center * F(acc, lj_scale)
    lj *= fire
    return WildLinear(j1, j2, lj / p_wild, kj, lk)


# -- a base spin, and a base round --------------------------------------------------------------


@dataclass(frozen=True)
class SpinMoments:
    """Of one base spin's credits ``X`` (lines and collection, no feature), exact."""

    mean: Fraction
    second: Fraction
    by_wild: dict[str, Fraction]  # E[X; the center shows 'gambini' / 'ghost']
    p_wild: dict[str, Fraction]  # P(the center shows it)


def ghost_coin_moments(d: GambiniData, prizes: dict[str, int] | None = None) -> tuple[Fraction, Fraction]:
    """``E[G]``, ``E[G^2]`` of the ghost's coins (``prizes``: another prize table)."""
    count = dist(d.ghost_coins.count)
    prize = dist(d.ghost_coins.prizes if prizes is None else prizes)
    n1 = sum((k * q for k, q in count.items()), F(0))
    nn = sum((k * (k - 1) * q for k, q in count.items()), F(0))
    v1 = sum((d.prize_credits(x) * q for x, q in prize.items()), F(0))
    v2 = sum((d.prize_credits(x) ** 2 * q for x, q in prize.items()), F(0))
    return n1 * v1, n1 * v2 + nn * v1 * v1


@dataclass(frozen=True)
class LineMoments:
    """The lines ``L`` of a base spin: what no coin, ghost prize or frame moves."""

    mean: Fraction
    second: Fraction
    by_wild: dict[str, Fraction]  # E[L; the center shows 'gambini' / 'ghost']
    p_wild: dict[str, Fraction]


@cache
def line_moments(d: GambiniData) -> LineMoments:
    wild = {"gambini": d.wilds.gambini, "ghost": d.wilds.ghost}
    center = position_dists(d)[CENTER]
    return LineMoments(
        line_mean(_Space(d)),
        line_second_moment(_Space(d)),
        {k: line_mean(_Space(d, {s})) for k, s in wild.items()},
        {k: center.get(s, F(0)) for k, s in wild.items()},
    )


def spin_combine(lines: LineMoments, w: WildTerms, ghost: tuple[Fraction, Fraction]) -> SpinMoments:
    """``X = L + 1{wild} (K + J) + 1{ghost} G`` from its parts' moments."""
    g1, g2 = ghost
    p_wild = lines.p_wild
    by_wild = {k: lines.by_wild[k] + p_wild[k] * (w.k1 + w.j1 + (g1 if k == "ghost" else 0)) for k in p_wild}
    mean = lines.mean + sum((by_wild[k] - lines.by_wild[k] for k in p_wild), F(0))
    p_any = p_wild["gambini"] + p_wild["ghost"]
    second = lines.second + p_any * (2 * w.lk + 2 * w.lj + w.k2 + 2 * w.kj + w.j2)
    # the ghost's coins: independent of the rest of its spin
    second += 2 * (by_wild["ghost"] - p_wild["ghost"] * g1) * g1 + p_wild["ghost"] * g2
    return SpinMoments(mean, second, by_wild, dict(p_wild))


@cache
def spin_moments(d: GambiniData) -> SpinMoments:
    return spin_combine(line_moments(d), wild_terms(d), ghost_coin_moments(d))


# -- the round ---------------------------------------------------------------------------------


def round_combine(
    x: SpinMoments, feats: dict[str, tuple[Fraction, Fraction]], trigger: dict[str, Fraction]
) -> tuple[Fraction, Fraction]:
    """A round's uncapped mean and second moment: the spin, and the feature of kind ``k``
    with probability ``trigger[k]`` (linear in ``trigger``: the stationary mix of the
    states' triggers gives the stationary moments)."""
    mean, second = x.mean, x.second
    for k, q in trigger.items():
        by = "ghost" if k.startswith("super") else "gambini"
        f1, f2 = feats[k]
        mean += q * f1
        second += q * (2 * x.by_wild[by] / x.p_wild[by] * f1 + f2)
    return mean, second


def stationary_trigger(d: GambiniData) -> dict[str, Fraction]:
    """P(a feature of each kind) on a round, over the piggies' stationary law."""
    chain = piggy_chain(d)
    return {
        k: sum((chain.stationary[s] * chain.trigger[s].get(k, F(0)) for s in chain.states), F(0))
        for k in KINDS
    }


def uncapped_moments(d: GambiniData) -> tuple[Fraction, Fraction]:
    """The stationary round's uncapped mean and second moment, in credits (no cap odds)."""
    return round_combine(spin_moments(d), feature_moments(d), stationary_trigger(d))


@dataclass(frozen=True)
class RoundMoments:
    """A base round's win ``W`` in credits.  ``mean`` and ``second`` are exact and ignore the
    cap; the capped game's lie within ``cap_slack`` (mean) and ``cap_slack2`` (second) below."""

    mean: Fraction
    second: Fraction
    cap_slack: Fraction
    cap_slack2: Fraction

    def sd_bounds(self, bet: int) -> tuple[float, float]:
        """The capped game's SD in bets, bracketed (float rounding widened by 1e-12)."""
        lo = (self.second - self.cap_slack2) - self.mean**2
        hi = self.second - (self.mean - self.cap_slack) ** 2
        return _root(lo, bet) * (1 - 1e-12), _root(hi, bet) * (1 + 1e-12)


def _root(variance: Fraction, bet: int) -> float:
    return max(0.0, float(variance)) ** 0.5 / bet


def _max_feature_credits(d: GambiniData) -> int:
    top = 0
    for f in (d.lock_spin, d.super_lock_spin):
        for table in (f.frames.bronze, f.frames.silver, f.frames.gold):
            for x, w in table.items():
                if w:
                    top = max(top, d.prize_credits(x))
    return N_POS * top


@cache
def round_moments(d: GambiniData) -> dict[str, object]:
    """``{"stationary": RoundMoments, "by_state": {piggies: RoundMoments}}``: the round's
    moments over the piggies' stationary law, and for the next round from each state."""
    x = spin_moments(d)
    chain = piggy_chain(d)
    odds = base_cap_odds(d)
    w_max = max_spin_credits(d) + _max_feature_credits(d)
    cap = d.max_win_credits
    feats = feature_moments(d)
    for k in KINDS:
        assert feats[k][0] == feature_law(d, *kind_of(k)).mean_uncapped()

    def moments(trigger: dict[str, Fraction], p_cap_hi: Fraction) -> RoundMoments:
        mean, second = round_combine(x, feats, trigger)
        return RoundMoments(mean, second, (w_max - cap) * p_cap_hi, (w_max**2 - cap**2) * p_cap_hi)

    by_state = {s: moments(chain.trigger[s], odds.by_state[s][1]) for s in chain.states}
    pi = chain.stationary
    stationary = RoundMoments(
        sum((pi[s] * by_state[s].mean for s in chain.states), F(0)),
        sum((pi[s] * by_state[s].second for s in chain.states), F(0)),
        (w_max - cap) * odds.stationary[1],
        (w_max**2 - cap**2) * odds.stationary[1],
    )
    return {"stationary": stationary, "by_state": by_state}
