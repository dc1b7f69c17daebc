"""Reign of Gnomes' exact win distribution: the law of one round's win, from the structure.

All amounts are whole credits (the stake is ``base_credits``), so every law lives on the
integer grid ``0 .. cap`` (cap = ``max_win`` stakes), the last cell holding all the mass at
or above it: a round's capped win is ``min(cap, sum of its parts)``, because parts only add
and the rules end the round the moment the total reaches the cap.

1. **One spin of a reel set**: the joint law of (way-win credits, scatters in view), counted
   over every stop combination (:mod:`.spin_law`), exact integers.
2. **One free spin** ``(X, R)``: its win and the free spins it adds, a mixture over the
   Golden Wheel: ``m x ways + scatter pay`` for a multiplier; the Spin To Win feature ``S``
   plus the free reels; a Random Wilds set, each with equal probability; the Ice Diamonds
   award plus the free reels.  ``S = M W``: ``W`` the winning game's way win, ``M = 1 +``
   the losing games before it, geometric and independent of ``W``, so
   ``P(S = m w) = q**(m-1) P(W = w)``, with the mass of every ``m w >= cap`` summed in closed
   form (``q**(m0-1) P(W = w) / p``).  Laws grouped by ``R`` (0, or the spins a retrigger
   adds): ``Q_r = P(X in ., R = r)``.
3. **The feature**: free spins are i.i.d. and each spin's retrigger starts spins of its own,
   so the win of a spin and all it retriggers, ``T``, satisfies the distribution-valued
   renewal equation ``T = Q_0 + sum_r Q_r * T^(*r)`` (``*``: capped convolution).  Iterating
   it from ``Q_0`` ``d`` times gives ``U_d = P(T in ., retrigger depth <= d)`` exactly; the
   rest has mass ``P(depth > d) <= pi m**d``, the mean number of spins of generation ``d``
   that retrigger (``m`` the mean spins a free spin adds, 0.039; ``pi`` the chance that a
   spin retriggers), carried as unplaced mass.  ``d`` is the least with ``E[F] pi m**d``
   (``E[F]``: spins a base game triggers) below ``1e-19`` per round: 11 for 95.97.
4. **The round**: the base spin's win plus, when it triggers ``F`` spins, ``T^(*F)``.

Arithmetic: float64 with rigorous enclosures (:mod:`reelforge.engine.pmf_bounds`): every
probability of every cell is bracketed, the brackets widened for every rounding and for the
FFT's a-priori error bound, and each convolution done at several exponential tilts so that
the 1e-20 tails keep their relative accuracy.  The exact mean and second moment of the
uncapped win are computed beside it as fractions (:func:`exact_moments`): the mean is the
exact RTP of :mod:`.exact` by another route.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from reelforge.engine.distribution import WinDistribution
from reelforge.engine.memo import by_identity
from reelforge.engine.pmf_bounds import DEFAULT_TILTS, PmfBounds, fraction_bounds, widen

from .base_moments import Moments, SpinParts, feature_moments, round_moments, wheel_awards
from .data_model import GnomesData
from .exact import ice_diamonds_level_distribution
from .spin_law import BASE, FREE, RANDOM_WILDS_0, SPIN_TO_WIN, SpinLaw, spin_laws

# The mass left unplaced by stopping the retrigger recursion, per round, at most this.
DEPTH_TARGET = 1e-19
_NORMAL_FLOOR = 2.0**-960  # geometric terms below this are bounded, not placed (no subnormals)


# -- the parts of a free spin -------------------------------------------------------------------


def _retrigger(d: GnomesData, scatters: int) -> int:
    return d.free_spins.get(scatters, 0)


def spin_classes(
    d: GnomesData, law: SpinLaw, cap: int, *, multiplier: int = 1, weight: int = 1, share: int = 1
) -> dict[int, PmfBounds]:
    """``{r: P(ways x multiplier + scatter pay in ., spins awarded = r)}`` of one spin, every
    probability times ``weight / share`` (exact integers)."""
    credits = d.game.base_credits
    cells: dict[int, tuple[list[int], list[int]]] = {}
    for k, w, n in law.cells():
        values, weights = cells.setdefault(_retrigger(d, k), ([], []))
        values.append(w * multiplier + d.scatter_pays.get(k, 0) * credits)
        weights.append(n * weight)
    return {r: PmfBounds.from_weights(cap, v, wt, law.total * share) for r, (v, wt) in cells.items()}


def spin_to_win_law(law: SpinLaw, cap: int) -> PmfBounds:
    """The Spin To Win feature's pay ``M W`` on the capped grid (see the module doc)."""
    wins = law.counts.sum(axis=0)  # the Spin To Win reels carry no scatter
    total = law.total
    losing = int(wins[0])
    if losing == total:
        raise ValueError("no Spin To Win game ever wins: the feature would never end")
    p = Fraction(total - losing, total)
    q = 1 - p
    q_lo, q_hi = fraction_bounds(q)
    p_lo, _ = fraction_bounds(p)
    lo = np.zeros(cap + 1)
    hi = np.zeros(cap + 1)
    unplaced = 0.0
    support = [int(w) for w in np.nonzero(wins)[0] if w > 0]
    for w in support:
        c_lo, c_hi = fraction_bounds(Fraction(int(wins[w]), total))
        first_capped = -(-cap // w)  # the first multiplier reaching the cap
        # the last multiplier whose q**(m-1) stays a normal float
        normal = 1 + math.floor(math.log(_NORMAL_FLOOR) / math.log(q_hi)) if 0 < q_hi < 1 else 2
        stop = min(first_capped, normal)
        m = np.arange(1, stop, dtype=np.float64)
        exps = m - 1
        cells = (m * w).astype(np.int64)
        np.add.at(lo, cells, np.power(q_lo, exps) * c_lo)
        np.add.at(hi, cells, np.power(q_hi, exps) * c_hi)
        tail_lo = q_lo ** (first_capped - 1) * c_lo / float(np.nextafter(float(p), np.inf))
        tail_hi = q_hi ** (first_capped - 1) * c_hi / p_lo
        if stop == first_capped:
            lo[cap] += tail_lo
            hi[cap] += tail_hi
        else:  # the terms from ``normal`` on: bounded by their geometric sum, place unknown
            unplaced += q_hi ** (normal - 1) * c_hi / p_lo * (1 + 1e-12)
    # pow within 4 ulp (numpy's SIMD loops) of its float input (inputs bracket q), the product,
    # the division, and up to len(support) terms summed into a cell
    rel = (len(support) + 24) * 2.0**-53
    return PmfBounds.from_bounds(*widen(lo, hi, rel), unplaced)


def ice_diamonds_law(d: GnomesData, cap: int) -> PmfBounds:
    levels = ice_diamonds_level_distribution(d.ice_diamonds)
    denominator = math.lcm(*(p.denominator for p in levels))
    values = [lv.award * d.game.base_credits for lv in d.ice_diamonds.levels]
    weights = [p.numerator * (denominator // p.denominator) for p in levels]
    return PmfBounds.from_weights(cap, values, weights, denominator)


def free_spin_classes(d: GnomesData, cap: int, tilts: tuple[float, ...]) -> dict[int, PmfBounds]:
    """``Q_r``: the law of one free spin's win with ``r`` spins retriggered."""
    laws = spin_laws(d)
    awards = wheel_awards(d)
    wheel_total = sum(d.wheel_weights)
    parts: list[dict[int, PmfBounds]] = []
    for mult, p in awards.multipliers.items():
        # p = weight / wheel_total exactly: the weights are integers
        parts.append(
            spin_classes(d, laws[FREE], cap, multiplier=mult, weight=int(p * wheel_total), share=wheel_total)
        )
    n_sets = len(d.random_wild_sets)
    if awards.random_wilds:
        w = int(awards.random_wilds * wheel_total)
        for i in range(n_sets):
            parts.append(spin_classes(d, laws[RANDOM_WILDS_0 + i], cap, weight=w, share=wheel_total * n_sets))
    plain = spin_classes(d, laws[FREE], cap)
    for prob, extra in (
        (awards.spin_to_win, spin_to_win_law(laws[SPIN_TO_WIN], cap) if awards.spin_to_win else None),
        (awards.ice_diamonds, ice_diamonds_law(d, cap) if awards.ice_diamonds else None),
    ):
        if extra is not None:
            parts.append({r: extra.convolve(law, tilts).scaled(prob) for r, law in plain.items()})
    out: dict[int, PmfBounds] = {}
    for part in parts:
        for r, law in part.items():
            out[r] = out[r] + law if r in out else law
    out.setdefault(0, PmfBounds.zero(cap))
    return out


# -- exact figures ---------------------------------------------------------------------------


def retrigger_rate(d: GnomesData) -> Fraction:
    """``m``: the mean number of spins one free spin adds (exact)."""
    laws = spin_laws(d)
    awards = wheel_awards(d)

    def mean_r(law: SpinLaw) -> Fraction:
        return sum((Fraction(n * _retrigger(d, k), law.total) for k, _, n in law.cells()), Fraction(0))

    free = mean_r(laws[FREE])
    rw = [mean_r(laws[RANDOM_WILDS_0 + i]) for i in range(len(d.random_wild_sets))]
    plain = sum(awards.multipliers.values(), Fraction(0)) + awards.spin_to_win + awards.ice_diamonds
    return plain * free + awards.random_wilds * sum(rw, Fraction(0)) / len(rw)


def law_parts(d: GnomesData, law: SpinLaw) -> SpinParts:
    """The moments of ``W``, ``P``, ``F`` of one spin, summed over its enumerated law."""
    total = {k: Fraction(0) for k in ("w", "w2", "wp", "wf", "p", "p2", "pf", "f", "ff")}
    credits = d.game.base_credits
    for k, w, n in law.cells():
        q = Fraction(n, law.total)
        p, f = d.scatter_pays.get(k, 0) * credits, _retrigger(d, k)
        for key, value in (
            ("w", w), ("w2", w * w), ("wp", w * p), ("wf", w * f),
            ("p", p), ("p2", p * p), ("pf", p * f), ("f", f), ("ff", f * (f - 1)),
        ):  # fmt: skip
            total[key] += q * value
    return SpinParts(**total)


@by_identity(maxsize=8)
def exact_moments(d: GnomesData) -> Moments:
    """Mean and second moment of one round's uncapped win, exact, from the enumerated laws of
    every reel set (see the module doc); :func:`.base_moments.fast_moments` gets the same
    from the reels' tables, and both combine the spins by the same formulas."""
    laws = spin_laws(d)
    p_win = 1 - laws[SPIN_TO_WIN].probability(0, 0)
    t1, t2 = feature_moments(
        d,
        law_parts(d, laws[FREE]),
        [law_parts(d, laws[RANDOM_WILDS_0 + i]) for i in range(len(d.random_wild_sets))],
        law_parts(d, laws[SPIN_TO_WIN]),
        p_win,
    )
    return round_moments(law_parts(d, laws[BASE]).times(), t1, t2)  # base: R = F, the spins triggered


def _base_free_spins(d: GnomesData) -> Fraction:
    """E[F]: the free spins a base game triggers, on average (exact)."""
    law = spin_laws(d)[BASE]
    return sum((Fraction(n * _retrigger(d, k), law.total) for k, _, n in law.cells()), Fraction(0))


def retrigger_probability(d: GnomesData) -> Fraction:
    """``pi``: the probability that a free spin retriggers (exact)."""
    laws = spin_laws(d)
    awards = wheel_awards(d)

    def p(law: SpinLaw) -> Fraction:
        return sum((Fraction(n, law.total) for k, _, n in law.cells() if _retrigger(d, k)), Fraction(0))

    rw = [p(laws[RANDOM_WILDS_0 + i]) for i in range(len(d.random_wild_sets))]
    plain = sum(awards.multipliers.values(), Fraction(0)) + awards.spin_to_win + awards.ice_diamonds
    return plain * p(laws[FREE]) + awards.random_wilds * sum(rw, Fraction(0)) / len(rw)


@dataclass(frozen=True)
class Depth:
    """How deep the retrigger recursion goes and what it leaves out."""

    generations: int  # U_d: trees of at most this many retrigger generations
    rate: Fraction  # m: spins a free spin adds on average
    neglected: Fraction  # P(a tree is deeper) <= pi m^d: the mean retriggers in generation d
    per_round: Fraction  # E[F] pi m^d: a bound of the mass left out of one round


def recursion_depth(d: GnomesData, target: float = DEPTH_TARGET) -> Depth:
    """The fewest generations whose neglected mass per round is below ``target``."""
    m = retrigger_rate(d)
    if m >= 1:
        raise ValueError(f"free spins add {float(m):.3f} spins per spin: the feature never ends")
    pi = retrigger_probability(d)
    spins = _base_free_spins(d)
    depth = 0
    while pi * spins * m**depth > Fraction(target):
        depth += 1
    return Depth(depth, m, pi * m**depth, spins * pi * m**depth)


# -- the round -------------------------------------------------------------------------------


def _feature(q: dict[int, PmfBounds], depth: Depth, tilts: tuple[float, ...]) -> PmfBounds:
    """``U_d`` of the renewal equation, the mass of deeper trees unplaced."""
    retriggers = {r: law for r, law in q.items() if r > 0}
    u = q[0]
    for _ in range(depth.generations if retriggers else 0):
        u = q[0] + u.compound(retriggers, tilts)
    deeper = fraction_bounds(depth.neglected)[1] if retriggers else 0.0
    return PmfBounds(u.lo, u.hi, (u.unplaced + deeper) * (1 + 1e-15))


@by_identity(maxsize=4)
def round_law(d: GnomesData, tilts: tuple[float, ...] = DEFAULT_TILTS) -> tuple[PmfBounds, dict[str, object]]:
    """The enclosure of one round's capped win in credits, and how it was computed."""
    started = time.perf_counter()
    cap = d.game.max_win * d.game.base_credits
    depth = recursion_depth(d)
    feature = _feature(free_spin_classes(d, cap, tilts), depth, tilts)
    base = spin_classes(d, spin_laws(d)[BASE], cap)
    base.setdefault(0, PmfBounds.zero(cap))
    law = feature.compound(base, tilts)
    info: dict[str, object] = {
        "retrigger_generations": depth.generations,
        "retrigger_rate": float(depth.rate),
        "neglected_mass_bound": float(depth.per_round),
        "tilts": list(tilts),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return law, info


def win_distribution(d: GnomesData, mode: str = "base") -> WinDistribution:
    law, info = round_law(d)
    moments = exact_moments(d)
    credits = d.game.base_credits
    var = moments.variance / credits**2
    rtp = moments.mean / credits
    return WinDistribution(
        game=d.game.id,
        variant=d.game.variant,
        mode=mode,
        stake=credits,
        cap=d.game.max_win * credits,
        method="exact (structure: every reel window, the wheel's awards, retriggers by renewal)",
        error_bound=(
            "float64 enclosures: every rounding and the FFT's a-priori error bound widen each "
            "probability's bracket; the retrigger recursion's remainder is unplaced mass"
        ),
        bounds=law,
        details={
            **info,
            "uncapped": {
                "rtp_fraction": f"{rtp.numerator}/{rtp.denominator}",
                "rtp": float(rtp),
                "sd": math.sqrt(var.numerator / var.denominator),
            },
        },
    )
