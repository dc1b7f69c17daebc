"""The two piggy banks as an exact Markov chain on their sizes: its stationary distribution,
each state's expected feature win on the next spin, and the states' relative values."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from .data_model import GambiniData
from .exact_common import F, cache, dist
from .exact_feature import feature_result
from .exact_panel import center_distribution


def toss_outcomes(
    d: GambiniData, sizes: tuple[int, int], by: str
) -> dict[tuple[tuple[int, int], int], Fraction]:
    """``(sizes after, pops) -> probability`` of one toss."""
    targets = (
        {(0, 1): F(1)}
        if by == "ghost"
        else dict(zip(((0,), (1,), (0, 1)), dist(d.piggies.gambini_toss).values(), strict=True))
    )
    largest = len(d.piggies.sizes) - 1
    out: dict[tuple[tuple[int, int], int], Fraction] = defaultdict(F)
    for tgt, q in targets.items():
        branches: list[tuple[list[int], int, Fraction]] = [(list(sizes), 0, q)]
        for side in tgt:
            nxt = []
            for sz, pops, w in branches:
                size = d.piggies.sizes[sz[side]]
                grow = F(size.grow, size.grow + size.stay)
                nxt.append((sz, pops, w * (1 - grow)))
                grown = list(sz)
                popped = grown[side] == largest
                grown[side] = 0 if popped else grown[side] + 1
                nxt.append((grown, pops + popped, w * grow))
            branches = nxt
        for sz, pops, w in branches:
            if w:
                out[((sz[0], sz[1]), pops)] += w
    return dict(out)


@dataclass(frozen=True)
class PiggyChain:
    states: list[tuple[int, int]]
    transition: dict[tuple[int, int], dict[tuple[int, int], Fraction]]
    feature_credits: dict[tuple[int, int], Fraction]  # expected feature credits of the next spin
    trigger: dict[tuple[int, int], dict[str, Fraction]]  # P(feature kind) on the next spin
    stationary: dict[tuple[int, int], Fraction]


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Gauss-Jordan elimination over fractions."""
    n = len(rhs)
    a = [[*row[:], rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] for i in range(n)]


@cache
def piggy_chain(d: GambiniData) -> PiggyChain:
    center = center_distribution(d)
    p_by = {"gambini": center.get(d.wilds.gambini, F(0)), "ghost": center.get(d.wilds.ghost, F(0))}
    n = len(d.piggies.sizes)
    states = [(a, b) for a in range(n) for b in range(n)]
    values = {
        (super_, spins): feature_result(d, super_, spins).value
        for super_ in (False, True)
        for spins in (3, 4)
    }
    transition: dict[tuple[int, int], dict[tuple[int, int], Fraction]] = {}
    feature: dict[tuple[int, int], Fraction] = {}
    trigger: dict[tuple[int, int], dict[str, Fraction]] = {}
    for s in states:
        row: dict[tuple[int, int], Fraction] = defaultdict(F)
        row[s] += 1 - p_by["gambini"] - p_by["ghost"]
        value = F(0)
        kinds: dict[str, Fraction] = defaultdict(F)
        for by, pb in p_by.items():
            for (s2, pops), q in toss_outcomes(d, s, by).items():
                row[s2] += pb * q
                if pops:
                    spins = 3 if pops == 1 else 4
                    value += pb * q * values[(by == "ghost", spins)]
                    kinds[f"{'super_lock_spin' if by == 'ghost' else 'lock_spin'}_{spins}"] += pb * q
        transition[s] = dict(row)
        feature[s] = value
        trigger[s] = dict(kinds)
    # stationary: pi (P - I) = 0 with sum(pi) = 1 (the last equation replaced)
    idx = {s: i for i, s in enumerate(states)}
    m = [[F(0)] * len(states) for _ in states]
    for s, row in transition.items():
        for s2, q in row.items():
            m[idx[s2]][idx[s]] += q
    for i in range(len(states)):
        m[i][i] -= 1
    m[-1] = [F(1)] * len(states)
    rhs = [F(0)] * (len(states) - 1) + [F(1)]
    pi = _solve(m, rhs)
    return PiggyChain(states, transition, feature, trigger, dict(zip(states, pi, strict=True)))


def bias(
    chain: PiggyChain, reward: dict[tuple[int, int], Fraction], rate: Fraction
) -> dict[tuple[int, int], Fraction]:
    """Relative value h of each state: h = r - rate + P h, with sum(pi * h) = 0.  A player who
    starts in state s and plays n spins gets n * rate + h(s) - E[h(state after n)]."""
    states = chain.states
    idx = {s: i for i, s in enumerate(states)}
    m = [[F(0)] * len(states) for _ in states]
    rhs = [F(0)] * len(states)
    for s in states:
        i = idx[s]
        m[i][i] += 1
        for s2, q in chain.transition[s].items():
            m[i][idx[s2]] -= q
        rhs[i] = reward[s] - rate
    m[-1] = [chain.stationary[s] for s in states]
    rhs[-1] = F(0)
    h = _solve(m, rhs)
    return dict(zip(states, h, strict=True))


def stopping_values(
    chain: PiggyChain, net: dict[tuple[int, int], float], tol: float = 1e-12
) -> dict[tuple[int, int], float]:
    """The most a player can expect to gain (in stakes) from each state by choosing when to
    stop: ``V = max(0, net + P V)`` where ``net`` is the next spin's expected return minus
    the stake.  Value iteration from 0 rises monotonically to the optimum; it stops when a
    sweep changes no value by more than ``tol`` (floats: a numerical figure, not a fraction).
    """
    rows = {s: [(s2, float(q)) for s2, q in chain.transition[s].items()] for s in chain.states}
    v = dict.fromkeys(chain.states, 0.0)
    while True:
        new = {s: max(0.0, net[s] + sum(q * v[s2] for s2, q in rows[s])) for s in chain.states}
        if max(abs(new[s] - v[s]) for s in chain.states) < tol:
            return new
        v = new
