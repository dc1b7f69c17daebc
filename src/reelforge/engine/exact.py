"""Exact expectations over independent reel strips, as fractions.

Reels stop independently, so a ways win factorises: for symbol ``s`` with ``c_r`` matching
positions on reel ``r`` (the symbol or a wild), the longest combination has length ``k``
exactly when ``c_1..c_k > 0`` and ``c_{k+1} = 0``, and pays ``pay(s, k) * c_1 * ... * c_k``.
Its expectation is therefore ``pay(s, k) * E[c_1] * ... * E[c_k] * P(c_{k+1} = 0)``
(the product is zero whenever some ``c_r`` is zero, so no further condition is needed).
Probabilities that need the joint view of several reels (hit frequency) enumerate the
stop combinations of the reels involved.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction

from reelforge.engine.evaluate import Paytable
from reelforge.engine.reels import ReelSet


def matching_count_distribution(
    reels: ReelSet, reel: int, symbol: str, wild: str | None
) -> dict[int, Fraction]:
    """Distribution of the number of positions in view matching ``symbol`` (or wild)."""
    total = reels.strips[reel].total_weight
    dist: dict[int, int] = defaultdict(int)
    for weight, view in reels.windows_of_reel(reel):
        dist[sum(1 for s in view if s == symbol or (wild is not None and s == wild))] += weight
    return {k: Fraction(w, total) for k, w in sorted(dist.items())}


def symbol_count_distribution(reels: ReelSet, symbol: str) -> dict[int, Fraction]:
    """Distribution of how many ``symbol`` show in the whole window (e.g. scatters)."""
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for reel in range(len(reels.strips)):
        per_reel = matching_count_distribution(reels, reel, symbol, None)
        new: dict[int, Fraction] = defaultdict(Fraction)
        for a, pa in dist.items():
            for b, pb in per_reel.items():
                new[a + b] += pa * pb
        dist = dict(new)
    return {k: v for k, v in sorted(dist.items()) if v}


def ways_expectation_by_symbol(
    reels: ReelSet, paytable: Paytable, wild: str | None
) -> dict[str, dict[int, tuple[Fraction, Fraction]]]:
    """``result[symbol][length] = (probability it pays, expected credits)`` per spin.

    Lengths without a paytable entry fall back to the longest shorter one, as in
    :func:`reelforge.engine.evaluate.evaluate_ways`.
    """
    n_reels = len(reels.strips)
    result: dict[str, dict[int, tuple[Fraction, Fraction]]] = {}
    for symbol, pays in paytable.items():
        dists = [matching_count_distribution(reels, r, symbol, wild) for r in range(n_reels)]
        mean = [sum((k * p for k, p in d.items()), Fraction(0)) for d in dists]
        p_zero = [d.get(0, Fraction(0)) for d in dists]
        p_some = [1 - z for z in p_zero]
        per_len: dict[int, tuple[Fraction, Fraction]] = {}
        for k in range(1, n_reels + 1):
            paying = max((length for length in pays if length <= k), default=None)
            if paying is None:
                continue
            stop = p_zero[k] if k < n_reels else Fraction(1)
            prob = stop
            expect = Fraction(pays[paying]) * stop
            for r in range(k):
                prob *= p_some[r]
                expect *= mean[r]
            old_p, old_e = per_len.get(paying, (Fraction(0), Fraction(0)))
            per_len[paying] = (old_p + prob, old_e + expect)
        result[symbol] = per_len
    return result


def ways_expectation(reels: ReelSet, paytable: Paytable, wild: str | None) -> Fraction:
    """Expected credits of all way wins on one spin."""
    by_symbol = ways_expectation_by_symbol(reels, paytable, wild)
    return sum((e for per_len in by_symbol.values() for _, e in per_len.values()), Fraction(0))


def _reel_masks(
    reels: ReelSet, reel: int, bits: Mapping[str, int], wild: str | None, scatter: str | None
) -> dict[tuple[int, int], int]:
    """Per reel: ``(mask of paying symbols in view, scatters in view) -> weight``."""
    every = sum(bits.values())
    out: dict[tuple[int, int], int] = defaultdict(int)
    for weight, view in reels.windows_of_reel(reel):
        mask = 0
        for s in view:
            if wild is not None and s == wild:
                mask = every
            else:
                mask |= bits.get(s, 0)
        out[(mask, sum(1 for s in view if s == scatter))] += weight
    return out


def ways_hit_and_scatter(
    reels: ReelSet, paytable: Paytable, wild: str | None, scatter: str | None
) -> dict[tuple[bool, int], Fraction]:
    """Joint distribution of (any way win, scatters in view) for one spin.

    A way win needs at least ``m`` reels (the shortest paying length), so only the first
    ``m`` reels decide whether one exists: their stop combinations are enumerated as
    symbol bitmasks; the remaining reels only add scatters.
    """
    shortest = min(length for pays in paytable.values() for length in pays)
    bits = {symbol: 1 << i for i, symbol in enumerate(paytable)}
    n_reels = len(reels.strips)
    masks = [_reel_masks(reels, r, bits, wild, scatter) for r in range(n_reels)]
    # Fold the deciding reels: state (AND of masks, scatters so far) -> weight.
    state: dict[tuple[int, int], int] = {(sum(bits.values()), 0): 1}
    for r in range(shortest):
        new: dict[tuple[int, int], int] = defaultdict(int)
        for (acc, sc), w in state.items():
            for (mask, s), w2 in masks[r].items():
                new[(acc & mask, sc + s)] += w * w2
        state = new
    joint: dict[tuple[bool, int], int] = defaultdict(int)
    for (acc, sc), w in state.items():
        joint[(acc != 0, sc)] += w
    for r in range(shortest, n_reels):
        per_reel: dict[int, int] = defaultdict(int)
        for (_, s), w2 in masks[r].items():
            per_reel[s] += w2
        new_joint: dict[tuple[bool, int], int] = defaultdict(int)
        for (hit, sc), w in joint.items():
            for s, w2 in per_reel.items():
                new_joint[(hit, sc + s)] += w * w2
        joint = new_joint
    total = 1
    for strip in reels.strips:
        total *= strip.total_weight
    return {key: Fraction(w, total) for key, w in sorted(joint.items())}
