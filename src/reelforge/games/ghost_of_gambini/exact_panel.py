"""Exact expectations of one base-game spin: the center's symbol, the lines, the collection,
the jackpot rewind and the ghost's coins (docs/games/ghost-of-gambini.md derives them)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from .data_model import CENTER, N_POS, OUTER, GambiniData, position
from .exact_common import F, cache, chance, dist
from .panel import rewind_target


def position_distribution(d: GambiniData, p: int) -> dict[str, Fraction]:
    strip = d.strips[p]
    out: dict[str, Fraction] = defaultdict(F)
    for s in strip:
        out[s] += F(1, len(strip))
    return dict(out)


def center_distribution(d: GambiniData) -> dict[str, Fraction]:
    """The center's symbol after the magic shot and the center rewind."""
    shot = dist({"none": d.magic_shot.none, "gambini": d.magic_shot.gambini, "ghost": d.magic_shot.ghost})
    fire = chance(d.magic_rewind.center.fire, d.magic_rewind.center.skip)
    strip = d.strips[CENTER]
    out: dict[str, Fraction] = defaultdict(F)
    out[d.wilds.gambini] += shot.get("gambini", F(0))
    out[d.wilds.ghost] += shot.get("ghost", F(0))
    p_stop = shot.get("none", F(0)) / len(strip)
    for stop, sym in enumerate(strip):
        if sym in d.wild_set:
            out[sym] += p_stop
        else:
            out[sym] += p_stop * (1 - fire)
            out[strip[rewind_target(strip, stop, d.wild_set)]] += p_stop * fire
    return {k: v for k, v in out.items() if v}


@cache
def position_dists(d: GambiniData) -> tuple[dict[str, Fraction], ...]:
    return tuple(center_distribution(d) if p == CENTER else position_distribution(d, p) for p in range(N_POS))


def line_prizes(d: GambiniData) -> dict[tuple[str, int], tuple[Fraction, Fraction]]:
    """``(symbol, length) -> (expected occurrences per spin, expected credits per spin)``."""
    dists = position_dists(d)
    out: dict[tuple[str, int], tuple[Fraction, Fraction]] = {}

    def match(p: int, s: str) -> Fraction:
        dist = dists[p]
        return dist.get(s, F(0)) + sum((dist.get(w, F(0)) for w in d.wild_set), F(0))

    for line in d.lines:
        pos = [position(r, row) for r, row in enumerate(line)]
        for s, pays in d.pays.items():
            prob = dists[pos[0]].get(s, F(0))
            for length in range(1, 6):
                if not prob:
                    break
                stop = 1 - match(pos[length], s) if length < 5 else F(1)
                if length in pays:
                    n, c = out.get((s, length), (F(0), F(0)))
                    out[(s, length)] = (n + prob * stop, c + prob * stop * pays[length])
                if length < 5:
                    prob *= match(pos[length], s)
    return out


def outer_prize_credits(d: GambiniData) -> Fraction:
    """Expected credits of the coins and jackpots the 14 outer positions show."""
    total = F(0)
    for p in OUTER:
        for s, q in position_dists(d)[p].items():
            if d.is_prize(s):
                total += q * d.prize_credits(s)
    return total


def jackpot_rewind(d: GambiniData) -> tuple[Fraction, dict[str, Fraction]]:
    """Given a wild in the center: expected credits the jackpot rewind adds, and the
    probability it lands each jackpot."""
    fire = chance(d.magic_rewind.jackpot.fire, d.magic_rewind.jackpot.skip)
    blank = {p: position_dists(d)[p].get(d.blank, F(0)) for p in OUTER}
    credits = F(0)
    by_jackpot: dict[str, Fraction] = defaultdict(F)
    for p in OUTER:
        others: dict[int, Fraction] = {0: F(1)}  # blanks among the other outer positions
        for q in OUTER:
            if q == p:
                continue
            nxt: dict[int, Fraction] = defaultdict(F)
            for k, v in others.items():
                nxt[k] += v * (1 - blank[q])
                nxt[k + 1] += v * blank[q]
            others = nxt
        picked = sum((v / (1 + k) for k, v in others.items()), F(0))
        strip = d.strips[p]
        for stop, sym in enumerate(strip):
            if sym == d.blank:
                jackpot = strip[rewind_target(strip, stop, set(d.jackpots))]
                q = fire * picked / len(strip)
                credits += q * d.prize_credits(jackpot)
                by_jackpot[jackpot] += q
    return credits, dict(by_jackpot)


def ghost_coin_credits(d: GambiniData) -> Fraction:
    count = dist(d.ghost_coins.count)
    prize = dist(d.ghost_coins.prizes)
    mean_count = sum((k * q for k, q in count.items()), F(0))
    mean_prize = sum((d.prize_credits(k) * q for k, q in prize.items()), F(0))
    return mean_count * mean_prize
