"""Exact odds for the PAR sheet: hit frequency, every prize, every jackpot and the max win.

* Hit frequency: a base spin wins nothing exactly when no line pays and, with a wild in the
  center, nothing is collected and no piggy pops.  A line pays only with its first three
  reels matching, so the line event is enumerated over reels 1-3: for each reel-1 column
  (paying symbol or "other" per row), each reel-2 row is one of the reel-1 symbols or other;
  the lines still alive then ask independent questions of reel 3's three rows.
* Line prizes: the expected number of lines paying each (symbol, length) per spin (exact;
  for prizes this rare it is the probability of seeing one, to within the chance of two).
* Jackpots: MINI and MINOR land in the base game (and through the jackpot rewind and the
  ghost's coins); every jackpot can come out of a Lock & Spin frame.  Odds per round.
* Max win: exact per buy mode (at least ``grands_needed`` GRAND pots in the feature: for the
  shipped data, nine and six MAJORs fall short of the cap); per base round the rigorous
  bracket of :mod:`.cap_odds` (the features' exact laws against bounds on the base spin's
  tail), a few parts in 10^7 wide.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product
from math import lcm
from typing import Any

from .data_model import CENTER, N_POS, OUTER, GambiniData, position
from .exact import base_result
from .exact_common import F, cache, chance, dist
from .exact_feature import Board, feature_result
from .exact_panel import position_dists
from .exact_piggies import toss_outcomes
from .panel import rewind_target

OTHER = "·"  # any symbol that cannot extend a line


def _integer_weights(dist: dict[str, Fraction]) -> tuple[dict[str, int], int]:
    """A (sub-)distribution as integer weights over one common denominator."""
    den = lcm(*(q.denominator for q in dist.values())) if dist else 1
    return {s: int(q * den) for s, q in dist.items()}, den


def _no_line_win(d: GambiniData, dists: list[dict[str, Fraction]]) -> Fraction:
    """P(no line pays) for independent positions with (sub-)distributions ``dists``.

    Summed in integers over each position's common denominator (exact, and far faster
    than fractions); divided once at the end.
    """
    pays3 = [s for s in d.pays if 3 in d.pays[s]]
    if any(min(p) < 3 for p in d.pays.values()):
        raise NotImplementedError("the enumeration assumes every line prize needs 3 symbols")
    wild = d.wild_set
    weights, dens = zip(*(_integer_weights(x) for x in dists), strict=True)

    def classes(p: int, keep: list[str]) -> list[tuple[str, int]]:
        out: dict[str, int] = defaultdict(int)
        for s, w in weights[p].items():
            out[s if s in keep else OTHER] += w
        return [(s, w) for s, w in out.items() if w]

    reel3 = [weights[position(2, row)] for row in range(3)]
    reel3_total = [sum(w.values()) for w in reel3]
    reel1 = [classes(position(0, r), pays3) for r in range(3)]
    total = 0
    for col in product(*reel1):
        syms = [s for s, _ in col]
        q1 = col[0][1] * col[1][1] * col[2][1]
        distinct = sorted({s for s in syms if s != OTHER})
        reel2 = [classes(position(1, r), distinct) for r in range(3)]
        for col2 in product(*reel2):
            q2 = q1 * col2[0][1] * col2[1][1] * col2[2][1]
            need: list[set[str]] = [set(), set(), set()]  # reel-3 row -> symbols that would pay
            for line in d.lines:
                s = syms[line[0]]
                if s != OTHER and col2[line[1]][0] == s:
                    need[line[2]].add(s)
            q3 = 1
            for row in range(3):
                if need[row]:
                    hit = sum(w for s, w in reel3[row].items() if s in need[row] or s in wild)
                    q3 *= reel3_total[row] - hit
                else:
                    q3 *= reel3_total[row]
            total += q2 * q3
    result = F(total)
    for p in range(9):
        result /= dens[p]
    for p in range(9, N_POS):  # reels 4 and 5 only restrict the symbols allowed
        result *= sum(dists[p].values(), F(0))
    return result


def _restricted(d: GambiniData, center: str, allow: set[str] | None) -> list[dict[str, Fraction]]:
    """Position distributions with the center fixed and outer symbols limited to ``allow``."""
    out = []
    for p, dd in enumerate(position_dists(d)):
        if p == CENTER:
            out.append({center: F(1)})
        elif allow is None:
            out.append(dict(dd))
        else:
            out.append({s: q for s, q in dd.items() if s in allow})
    return out


@cache
def hit_frequency(d: GambiniData) -> Fraction:
    """P(a base round wins anything), over the piggy banks' long run."""
    center = position_dists(d)[CENTER]
    r = base_result(d)
    chain = r.chain
    pop_gambini = sum(
        (
            chain.stationary[s] * q
            for s in chain.states
            for (_, pops), q in toss_outcomes(d, s, "gambini").items()
            if pops
        ),
        F(0),
    )
    miss = F(0)
    non_prize = {s for s in d.symbols if not d.is_prize(s)}
    non_prize_blank = non_prize - {d.blank}
    skip = 1 - chance(d.magic_rewind.jackpot.fire, d.magic_rewind.jackpot.skip)
    for c, qc in center.items():
        if c not in d.wild_set:
            miss += qc * _no_line_win(d, _restricted(d, c, None))
        elif c == d.wilds.gambini:
            # nothing collected: no prize in view and the jackpot rewind did not fire
            none_blank = _no_line_win(d, _restricted(d, c, non_prize_blank))
            no_prize = _no_line_win(d, _restricted(d, c, non_prize))
            quiet = none_blank + skip * (no_prize - none_blank)
            miss += qc * quiet * (1 - pop_gambini)
        # the ghost always throws at least one coin: a ghost spin always wins
    return 1 - miss


def _no_prize_outer(d: GambiniData, prize: str) -> tuple[Fraction, Fraction]:
    """With a wild in the center: P(``prize`` not in view), and P(it is not in view and the
    jackpot rewind does not bring it)."""
    dists = position_dists(d)
    fire = chance(d.magic_rewind.jackpot.fire, d.magic_rewind.jackpot.skip)
    absent = F(1)
    for p in OUTER:
        absent *= 1 - dists[p].get(prize, F(0))
    brought = F(0)
    jackpots = set(d.jackpots)
    for p in OUTER:
        # others show no ``prize``; count their blanks
        others: dict[int, Fraction] = {0: F(1)}
        for q in OUTER:
            if q == p:
                continue
            blank = dists[q].get(d.blank, F(0))
            rest = 1 - blank - dists[q].get(prize, F(0))
            nxt: dict[int, Fraction] = defaultdict(F)
            for k, v in others.items():
                nxt[k] += v * rest
                nxt[k + 1] += v * blank
            others = nxt
        picked = sum((v / (1 + k) for k, v in others.items()), F(0))
        strip = d.strips[p]
        for stop, sym in enumerate(strip):
            if sym == d.blank and strip[rewind_target(strip, stop, jackpots)] == prize:
                brought += fire * picked / len(strip)
    return absent, absent - brought


@cache
def jackpot_odds(d: GambiniData) -> dict[str, dict[str, Fraction]]:
    """Per jackpot: P(won in the base spin of a round), P(won in a Lock & Spin of a round)
    (both over the piggies' long run), and P(won in a bought feature) for each buy mode."""
    return {jp: prize_odds(d, jp) for jp in d.jackpots}


@cache
def prize_odds(d: GambiniData, prize: str) -> dict[str, Fraction]:
    """The odds of :func:`jackpot_odds` for any coin or jackpot ``prize``: collected in view
    (or brought by the jackpot rewind) with a wild in the center, thrown by the ghost, or
    turned out of a Lock & Spin frame."""
    r = base_result(d)
    chain = r.chain
    ghost_count = dist(d.ghost_coins.count)
    ghost_prize = dist(d.ghost_coins.prizes)
    kinds = {(s, n): feature_result(d, s, n) for s in (False, True) for n in (3, 4)}
    _, quiet = _no_prize_outer(d, prize)
    q_ghost = ghost_prize.get(prize, F(0))
    ghost_miss = sum((q * (1 - q_ghost) ** n for n, q in ghost_count.items()), F(0))
    base = r.p_gambini * (1 - quiet) + r.p_ghost * (1 - quiet * ghost_miss)
    feature = F(0)
    for s in chain.states:
        for kind, q in chain.trigger[s].items():
            key = (kind.startswith("super"), int(kind[-1]))
            fr = kinds[key]
            f = d.super_lock_spin if key[0] else d.lock_spin
            feature += chain.stationary[s] * q * _prize_in(f.frames, fr.final_boards, prize)
    entry = {"base_spin": base, "lock_spin": feature}
    for mode, super_ in (("buy-lock-spin", False), ("buy-super-lock-spin", True)):
        fr = feature_result(d, super_, d.buy.spins)
        f = d.super_lock_spin if super_ else d.lock_spin
        entry[mode] = _prize_in(f.frames, fr.final_boards, prize)
    return entry


def _prize_in(frames: Any, final: dict[Board, Fraction], prize: str) -> Fraction:
    miss = []
    for level in ("bronze", "silver", "gold"):
        table = getattr(frames, level)
        total = sum(table.values())
        miss.append(F(total - table.get(prize, 0), total) if total else F(1))
    return sum(
        (q * (1 - miss[0] ** b * miss[1] ** s * miss[2] ** g) for (b, s, g), q in final.items()),
        F(0),
    )


def _at_least(final: dict[Board, Fraction], frames: Any, prize: str, k: int) -> Fraction:
    """P(at least ``k`` frames turn into ``prize``)."""
    ps = []
    for level in ("bronze", "silver", "gold"):
        table = getattr(frames, level)
        total = sum(table.values())
        ps.append(F(table.get(prize, 0), total) if total else F(0))
    out = F(0)
    for board, q in final.items():
        count: dict[int, Fraction] = {0: F(1)}
        for level, n in enumerate(board):
            for _ in range(n):
                nxt: dict[int, Fraction] = defaultdict(F)
                for c, v in count.items():
                    nxt[c] += v * (1 - ps[level])
                    nxt[min(c + 1, k)] += v * ps[level]
                count = nxt
        out += q * count.get(k, F(0))
    return out


def max_base_credits(d: GambiniData) -> int:
    """A bound on one base spin's win: every line at its top prize, every outer position at
    the largest prize, the ghost's most coins at the largest ghost prize."""
    lines = len(d.lines) * max(max(p.values()) for p in d.pays.values())
    outer = len(OUTER) * max(d.prize_credits(s) for s in {x for st in d.strips for x in st} if d.is_prize(s))
    ghost = max(d.ghost_coins.count) * max(d.prize_credits(p) for p in d.ghost_coins.prizes)
    return lines + outer + ghost


def grands_needed(d: GambiniData, extra: int) -> int:
    """Fewest GRAND pots that can reach the cap with ``extra`` credits besides them."""
    grand = d.prize_credits("GRAND")
    cap = d.max_win_credits
    best_other = max(
        d.prize_credits(p)
        for f in (d.lock_spin, d.super_lock_spin)
        for table in (f.frames.bronze, f.frames.silver, f.frames.gold)
        for p in table
        if p != "GRAND"
    )
    for k in range(N_POS + 1):
        if k * grand + (N_POS - k) * best_other + extra >= cap:
            return k
    return N_POS + 1


@cache
def max_win_odds(d: GambiniData) -> dict[str, Any]:
    """P(a round reaches the cap): exact per buy mode (the feature alone decides), and a
    bracket for the base game over the piggies' stationary law (:func:`.cap_odds.base_cap_odds`)."""
    from .cap_odds import base_cap_odds

    alone = grands_needed(d, 0)
    out: dict[str, Any] = {
        "grands_alone": alone,
        "grands_with_base": grands_needed(d, max_base_credits(d)),
        "base": base_cap_odds(d).stationary,
    }
    for mode, super_ in (("buy-lock-spin", False), ("buy-super-lock-spin", True)):
        fr = feature_result(d, super_, d.buy.spins)
        f = d.super_lock_spin if super_ else d.lock_spin
        out[mode] = _at_least(fr.final_boards, f.frames, "GRAND", alone)
    return out
