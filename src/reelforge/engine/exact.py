"""Exact expectations over independent reel strips, as fractions.

Reels stop independently, so a ways win factorises: for symbol ``s`` with ``c_r`` matching
positions on reel ``r`` (the symbol or a wild), the longest combination has length ``k``
exactly when ``c_1..c_k > 0`` and ``c_{k+1} = 0``, and pays ``pay(s, k) * c_1 * ... * c_k``.
Its expectation is therefore ``pay(s, k) * E[c_1] * ... * E[c_k] * P(c_{k+1} = 0)``
(the product is zero whenever some ``c_r`` is zero, so no further condition is needed).
A length the paytable lacks pays as the longest shorter one, its ways counted over that
one's reels (as the evaluator does): ``pay(s, j) * E[c_1..c_j] * P(c_{j+1..k} > 0) * P(c_{k+1} = 0)``.
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
    :func:`reelforge.engine.evaluate.evaluate_ways`, which then counts the ways over that
    shorter length's reels.  Each reel is walked once for every symbol, in integer weights
    (``E[c_r]`` and ``P(c_r = 0)`` over the reel's total weight); a length's fraction is made
    once from the products (tuning asks this thousands of times).
    """
    n_reels = len(reels.strips)
    totals = [reels.strips[r].total_weight for r in range(n_reels)]
    stats = [_match_weights(reels, r, paytable, wild) for r in range(n_reels)]
    result: dict[str, dict[int, tuple[Fraction, Fraction]]] = {}
    for symbol, pays in paytable.items():
        zero = [stats[r][symbol][0] for r in range(n_reels)]  # weight with no match on reel r
        matched = [stats[r][symbol][1] for r in range(n_reels)]  # sum of weight * matches
        per_len: dict[int, tuple[Fraction, Fraction]] = {}
        for k in range(1, n_reels + 1):  # the run is exactly k reels long
            paying = max((length for length in pays if length <= k), default=None)
            if paying is None:
                continue
            # The ways are counted over the paying length's reels; the rest only show a match.
            some = expect = denominator = 1
            for r in range(k):
                some *= totals[r] - zero[r]
                expect *= matched[r] if r < paying else totals[r] - zero[r]
                denominator *= totals[r]
            if k < n_reels:  # reel k+1 shows none
                some, expect, denominator = some * zero[k], expect * zero[k], denominator * totals[k]
            prob = Fraction(some, denominator)
            mean = Fraction(pays[paying]) * Fraction(expect, denominator)
            old_p, old_e = per_len.get(paying, (Fraction(0), Fraction(0)))
            per_len[paying] = (old_p + prob, old_e + mean)
        result[symbol] = per_len
    return result


def _match_weights(
    reels: ReelSet, reel: int, symbols: Mapping[str, object], wild: str | None
) -> dict[str, tuple[int, int]]:
    """Per symbol on one reel: (weight of the stops showing no match, sum over stops of weight
    times the matches in view), a match being the symbol or the wild."""
    out = {symbol: [0, 0] for symbol in symbols}
    for weight, view in reels.windows_of_reel(reel):
        wilds = view.count(wild) if wild is not None else 0
        for symbol, acc in out.items():
            c = view.count(symbol) + (wilds if symbol != wild else 0)
            if c:
                acc[1] += weight * c
            else:
                acc[0] += weight
    return {symbol: (z, m) for symbol, (z, m) in out.items()}


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
