"""Exact first and second moments of one round's win, without enumerating a reel set.

A spin of any reel set pays ``J = m W + P``: ``W = sum_s W_s`` its way wins (``m`` the
Golden Wheel's multiplier, 1 elsewhere), ``P`` the scatter pay, and adds ``F`` free spins;
``P`` and ``F`` are functions of the scatter count ``K``.  Reels stop independently, and so
does every factor of a way win: symbol ``s`` with ``c_r`` matching positions (itself or the
wild) on reel ``r`` has its longest run ``k`` when ``c_1..c_k > 0`` and ``c_{k+1} = 0``, and
then pays ``pay_s(k) c_1 ... c_L`` (``L``: the longest paid length up to ``k``, as
``evaluate_ways`` falls back).  So ``W_s = sum_k pay_s(k) prod_r role(r)`` with each reel's
*role* one of ``c`` (r < L), ``1{c > 0}`` (L <= r < k), ``1{c = 0}`` (r = k) or ``1``, and

* ``E[W_s W_t] = sum_{k, l} pay_s(k) pay_t(l) prod_r E[role_sk(c_s) role_tl(c_t)]``: one
  matrix per reel holds every ``E[role(c_s) role'(c_t)]`` over its windows;
* ``E[W_s h(K)]`` for ``h`` = ``P``, ``F`` or 1: a product over reels of polynomials in the
  scatter count, ``sum_window role(c_s) x**scatters``;

all in integers over the windows (the denominator is the product of the strip lengths), a
few milliseconds for a reel set.  Only the base spin moves with the base reels: the free
game's subtree (the moments ``t1``, ``t2`` of a free spin's win with all it retriggers) is
combined from the free, Spin To Win and Random Wilds reels' moments by :func:`feature_moments`,
which :func:`.distribution.exact_moments` shares, feeding it moments from the enumerated
laws instead (the independent route, and the tuner's check).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from reelforge.engine.exact import ways_hit_and_scatter
from reelforge.engine.memo import by_identity
from reelforge.engine.reels import ReelSet, ReelStrip

from .data_model import GnomesData
from .exact import ice_diamonds_level_distribution

_COUNT, _SOME, _NONE, _ANY = range(4)  # a reel's role in a way win: c, 1{c>0}, 1{c=0}, 1


@dataclass(frozen=True)
class Awards:
    """The Golden Wheel's probabilities, by what each award does."""

    multipliers: dict[int, Fraction]  # multiplier -> probability
    spin_to_win: Fraction
    random_wilds: Fraction
    ice_diamonds: Fraction


def wheel_awards(d: GnomesData) -> Awards:
    total = sum(d.wheel_weights)
    mult: dict[int, Fraction] = {}
    other = {"spin_to_win": Fraction(0), "random_wilds": Fraction(0), "ice_diamonds": Fraction(0)}
    for seg in d.wheel:
        p = Fraction(seg.weight, total)
        if seg.award == "multiplier":
            assert seg.multiplier is not None
            mult[seg.multiplier] = mult.get(seg.multiplier, Fraction(0)) + p
        else:
            other[seg.award] += p
    return Awards(mult, **other)


@dataclass(frozen=True)
class SpinParts:
    """Exact moments of one spin's way wins ``W``, scatter pay ``P`` and spins added ``F``."""

    w: Fraction
    w2: Fraction
    wp: Fraction
    wf: Fraction
    p: Fraction
    p2: Fraction
    pf: Fraction
    f: Fraction
    ff: Fraction  # E[F (F - 1)]

    def times(self, m: int = 1) -> SpinMoments:
        """The moments of ``J = m W + P`` and ``R = F``."""
        return SpinMoments(
            self.w * m + self.p,
            self.w2 * m * m + 2 * m * self.wp + self.p2,
            self.f,
            self.ff,
            self.wf * m + self.pf,
        )


@dataclass(frozen=True)
class SpinMoments:
    """E[J], E[J^2], E[R], E[R(R-1)], E[J R] of one spin: J its credits, R the spins it adds."""

    j: Fraction
    j2: Fraction
    r: Fraction
    rr: Fraction
    jr: Fraction


@dataclass(frozen=True)
class Moments:
    """Exact moments of the uncapped win, in credits."""

    mean: Fraction
    second: Fraction

    @property
    def variance(self) -> Fraction:
        return self.second - self.mean**2


# -- one spin, reel by reel ------------------------------------------------------------------


@dataclass(frozen=True)
class ReelTable:
    """One reel's windows summed: ``pairs[i, j] = sum_w role_i role_j``, ``scatters[i, k] =
    sum_w role_i 1{k scatters}`` (role index ``role * n + symbol``), and the total weight."""

    pairs: np.ndarray  # object (exact integers)
    scatters: np.ndarray  # object
    total: int


def reel_table(strip: ReelStrip, rows: int, symbols: Sequence[str], wild: str, scatter: str) -> ReelTable:
    n, stops = len(symbols), len(strip)
    code = {s: i for i, s in enumerate(symbols)}
    # the strip as codes: a paying symbol's index, n for the wild, n + 1 for the scatter, else n + 2
    other = {wild: n, scatter: n + 1}
    codes = np.array([code.get(s, other.get(s, n + 2)) for s in strip.symbols])
    windows = codes[(np.arange(stops)[:, None] + np.arange(rows)[None, :]) % stops]
    matching = (windows[:, :, None] == np.arange(n)[None, None, :]) | (windows[:, :, None] == n)
    c = matching.sum(axis=1)  # stops x symbols: positions showing the symbol or the wild
    roles = np.concatenate([c, c > 0, c == 0, np.ones_like(c)], axis=1).astype(np.int64)
    kinds = np.zeros((stops, rows + 1), dtype=np.int64)
    kinds[np.arange(stops), (windows == n + 1).sum(axis=1)] = 1
    weights = np.array([strip.stop_weight(i) for i in range(stops)], dtype=np.int64)
    weighted = roles * weights[:, None]
    # entries are at most rows**2 times the strip's weight: int64 is exact here
    return ReelTable(
        (weighted.T @ roles).astype(object),
        (weighted.T @ kinds).astype(object),
        int(weights.sum()),
    )


def _paid(pays: dict[int, int], k: int) -> tuple[int, int]:
    """``(pay, length paid)`` of a longest run of ``k``: ``evaluate_ways``' fallback."""
    length = max((n for n in pays if n <= k), default=0)
    return (pays[length], length) if length else (0, 0)


def _role(r: int, k: int, paid: int, n_reels: int) -> int:
    if r < paid:
        return _COUNT
    if r < k:
        return _SOME
    return _NONE if r == k and k < n_reels else _ANY


def _times(poly: np.ndarray, step: np.ndarray) -> np.ndarray:
    """Row by row, the product of polynomials in the scatter count (coefficients by power)."""
    out = np.zeros((poly.shape[0], poly.shape[1] + step.shape[1] - 1), dtype=object)
    for b in range(step.shape[1]):
        out[:, b : b + poly.shape[1]] += poly * step[:, b : b + 1]
    return out


def spin_parts_of(d: GnomesData, tables: Sequence[ReelTable]) -> SpinParts:
    """The moments of one spin from its reels' tables (see the module doc)."""
    symbols = list(d.ways_pays)
    n, n_reels = len(symbols), len(tables)
    credits = d.game.base_credits
    runs = []  # (pay vector over the symbols, row indices per reel) of every paying run length
    for k in range(1, n_reels + 1):
        paid = [_paid(d.ways_pays[s], k) for s in symbols]
        if any(p for p, _ in paid):
            rows = [
                [_role(r, k, length, n_reels) * n + i for i, (_, length) in enumerate(paid)]
                for r in range(n_reels)
            ]
            runs.append((np.array([p for p, _ in paid], dtype=object), rows))
    w2 = 0
    for pay_k, rows_k in runs:
        for pay_l, rows_l in runs:
            prod = np.ones((n, n), dtype=object)
            for t, rk, rl in zip(tables, rows_k, rows_l, strict=True):
                prod = prod * t.pairs[np.ix_(rk, rl)]
            w2 += int(pay_k @ prod @ pay_l)
    # scatter polynomials: one per symbol and run length, and the scatter count's own
    scatter_law = np.ones((1, 1), dtype=object)
    for t in tables:
        scatter_law = _times(scatter_law, t.scatters[[_ANY * n]])
    scatter_law = scatter_law[0]
    top = len(scatter_law)
    pay = np.array([d.scatter_pays.get(k, 0) * credits for k in range(top)], dtype=object)
    spins = np.array([d.free_spins.get(k, 0) for k in range(top)], dtype=object)
    w = wp = wf = 0
    for pay_k, rows_k in runs:
        poly = np.ones((n, 1), dtype=object)
        for t, rk in zip(tables, rows_k, strict=True):
            poly = _times(poly, t.scatters[rk])
        by_count = pay_k @ poly  # sum_s pay_s(k) * (that symbol's polynomial)
        w += int(by_count.sum())
        wp += int(by_count @ pay)
        wf += int(by_count @ spins)
    total = 1
    for t in tables:
        total *= t.total
    f = Fraction(1, total)
    return SpinParts(
        w * f,
        w2 * f,
        wp * f,
        wf * f,
        int(scatter_law @ pay) * f,
        int(scatter_law @ (pay * pay)) * f,
        int(scatter_law @ (pay * spins)) * f,
        int(scatter_law @ spins) * f,
        int(scatter_law @ (spins * (spins - 1))) * f,
    )


def reel_tables(d: GnomesData, reels: ReelSet) -> list[ReelTable]:
    symbols = list(d.ways_pays)
    return [reel_table(s, reels.rows, symbols, d.wild, d.scatter) for s in reels.strips]


def spin_parts(d: GnomesData, reels: ReelSet) -> SpinParts:
    return spin_parts_of(d, reel_tables(d, reels))


# -- the free game's subtree and the round, whichever way the spins' moments came -------------


def feature_moments(
    d: GnomesData, free: SpinParts, random_wilds: Sequence[SpinParts], spin_to_win: SpinParts, p_win: Fraction
) -> tuple[Fraction, Fraction]:
    """``E[T]``, ``E[T^2]``: one free spin's win with every spin it retriggers, in credits.
    ``p_win``: the chance that a Spin To Win game pays."""
    awards = wheel_awards(d)
    stw = spin_to_win.times()
    # S = M W given a win; M = 1 + failures before the first win: E[M] = 1/p, E[M^2] = (2-p)/p^2
    s1 = stw.j / p_win * (1 / p_win)
    s2 = stw.j2 / p_win * ((2 - p_win) / p_win**2)
    ice = ice_diamonds_level_distribution(d.ice_diamonds)
    values = [lv.award * d.game.base_credits for lv in d.ice_diamonds.levels]
    i1 = sum((p * v for p, v in zip(ice, values, strict=True)), Fraction(0))
    i2 = sum((p * v * v for p, v in zip(ice, values, strict=True)), Fraction(0))
    x = dict.fromkeys(("x", "x2", "r", "rr", "xr"), Fraction(0))

    def add(prob: Fraction, m: SpinMoments, a1: Fraction = Fraction(0), a2: Fraction = Fraction(0)) -> None:
        # X = A + J with the award's extra A independent of the spin's J (and of its R)
        x["x"] += prob * (a1 + m.j)
        x["x2"] += prob * (a2 + 2 * a1 * m.j + m.j2)
        x["r"] += prob * m.r
        x["rr"] += prob * m.rr
        x["xr"] += prob * (a1 * m.r + m.jr)

    for mult, p in awards.multipliers.items():
        add(p, free.times(mult))
    for rw in random_wilds:
        add(awards.random_wilds / len(random_wilds), rw.times())
    add(awards.spin_to_win, free.times(), s1, s2)
    add(awards.ice_diamonds, free.times(), i1, i2)
    # T = X + the R subtrees it retriggers: E[T] = E[X] / (1 - m) and
    # E[T^2] (1 - m) = E[X^2] + 2 E[X R] E[T] + E[R(R-1)] E[T]^2
    t1 = x["x"] / (1 - x["r"])
    t2 = (x["x2"] + 2 * x["xr"] * t1 + x["rr"] * t1**2) / (1 - x["r"])
    return t1, t2


def round_moments(base: SpinMoments, t1: Fraction, t2: Fraction) -> Moments:
    """The round: the base spin, then the ``F`` subtrees its trigger starts (i.i.d.)."""
    mean = base.j + base.r * t1
    second = base.j2 + 2 * base.jr * t1 + base.r * t2 + base.rr * t1**2
    return Moments(mean, second)


def spin_to_win_odds(d: GnomesData) -> Fraction:
    """The chance that a Spin To Win game pays (its reels carry no scatter)."""
    joint = ways_hit_and_scatter(d.spin_to_win, d.ways_pays, d.wild, d.scatter)
    return sum((p for (hit, _), p in joint.items() if hit), Fraction(0))


@by_identity(maxsize=8)
def free_game_moments(d: GnomesData) -> tuple[Fraction, Fraction]:
    """``(t1, t2)`` of :func:`feature_moments` from the reels' tables: nothing on the base
    reels enters them."""
    return feature_moments(
        d,
        spin_parts(d, d.free),
        [spin_parts(d, reels) for reels in d.random_wild_reels],
        spin_parts(d, d.spin_to_win),
        spin_to_win_odds(d),
    )


def fast_moments(d: GnomesData) -> Moments:
    """The round's exact moments, every reel set by its tables (milliseconds, no enumeration)."""
    return round_moments(spin_parts(d, d.base).times(), *free_game_moments(d))


def volatility_squared(d: GnomesData, moments: Moments) -> Fraction:
    """The variance of one round's win in stakes squared: the volatility index, squared."""
    return moments.variance / d.game.base_credits**2
