"""Exact RTP of Test Meter, as fractions, from the data file alone.

Derivation (docs/games/test-meter.md has it in full).  Reels stop independently; let
``q_r(s)`` be the share of reel ``r``'s stops showing ``s``.

* One spin wins with ``p = sum_s q_1(s) q_2(s) q_3(s)`` over paying symbols and pays
  ``E = sum_s pay(s) q_1(s) q_2(s) q_3(s)`` credits on average.
* Default play holds nothing: a losing first spin (probability ``1 - p``) is followed by a
  fresh spin of all three reels, so the line part is ``E + (1 - p) E``.
* Best hold: for each losing first window ``w`` (enumerated by its symbols, weighted by
  how many stops show them) the hold ``h`` maximising
  ``sum_s pay(s) prod_{r in h} [w_r = s] prod_{r not in h} q_r(s)`` (ties: the smallest
  mask); the line part is ``E`` plus the mean of that maximum over first spins.
* The meter: every round adds one and every ``size``-th round pays ``bonus``, so in the
  long run it pays exactly ``bonus / size`` credits per round.
* The gamble is fair (``randbelow(2)``: double with probability 1/2, else 0), so any
  gambling policy leaves the expected win, and the RTP, unchanged; collecting always is
  the default play.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

from .data_model import N_REELS, MeterData

Window = tuple[str, ...]


def symbol_shares(d: MeterData) -> list[dict[str, Fraction]]:
    """``q_r(s)``: per reel, the share of its stops showing each symbol."""
    return [{s: Fraction(strip.count(s), len(strip)) for s in sorted(set(strip))} for strip in d.strips]


def hold_expectation(d: MeterData, shares: list[dict[str, Fraction]], window: Window, mask: int) -> Fraction:
    """Expected credits of the respin after holding the reels in ``mask`` on ``window``."""
    total = Fraction(0)
    for symbol, pay in d.pays.items():
        prob = Fraction(1)
        for r in range(N_REELS):
            if mask >> r & 1:
                prob *= 1 if window[r] == symbol else 0
            else:
                prob *= shares[r].get(symbol, Fraction(0))
            if not prob:
                break
        total += pay * prob
    return total


def best_hold(d: MeterData, shares: list[dict[str, Fraction]], window: Window) -> tuple[int, Fraction]:
    """``(mask, expected respin credits)`` of the best hold on a losing window; ties: smallest mask."""
    best_mask, best_value = 0, hold_expectation(d, shares, window, 0)
    for mask in range(1, (1 << N_REELS) - 1):
        value = hold_expectation(d, shares, window, mask)
        if value > best_value:
            best_mask, best_value = mask, value
    return best_mask, best_value


def best_hold_policy(d: MeterData) -> dict[Window, int]:
    """The best hold for every losing first window, by its symbols."""
    shares = symbol_shares(d)
    return {
        window: best_hold(d, shares, window)[0]
        for window in product(*(sorted(q) for q in shares))
        if d.pay(window) == 0
    }


@dataclass
class ExactResult:
    rtp: Fraction  # default play: hold nothing, always collect
    rtp_best_hold: Fraction  # best hold, always collect
    components: dict[str, Fraction]  # default play, fractions of the stake
    components_best_hold: dict[str, Fraction]
    hit_frequency: Fraction  # the first spin wins a line
    spin_win: Fraction  # E: mean credits of one spin
    details: dict[str, object] = field(default_factory=dict)


def exact_rtp(d: MeterData) -> ExactResult:
    credits = d.game.credits
    shares = symbol_shares(d)
    p = Fraction(0)
    for symbol in d.pays:
        p += math.prod((q.get(symbol, Fraction(0)) for q in shares), start=Fraction(1))
    spin_win = hold_expectation(d, shares, ("",) * N_REELS, 0)  # holding nothing: a fresh spin
    best_respin = Fraction(0)
    policy: dict[Window, int] = {}
    for window in product(*(sorted(q) for q in shares)):
        if d.pay(window):
            continue
        weight = Fraction(1)
        for r, s in enumerate(window):
            weight *= shares[r][s]
        mask, value = best_hold(d, shares, window)
        policy[window] = mask
        best_respin += weight * value
    meter = Fraction(d.meter.bonus, d.meter.size)
    components = {
        "line_first_spin": spin_win / credits,
        "line_respin": (1 - p) * spin_win / credits,
        "meter_bonus": meter / credits,
    }
    components_best = {
        "line_first_spin": spin_win / credits,
        "line_respin": best_respin / credits,
        "meter_bonus": meter / credits,
    }
    return ExactResult(
        rtp=sum(components.values(), Fraction(0)),
        rtp_best_hold=sum(components_best.values(), Fraction(0)),
        components=components,
        components_best_hold=components_best,
        hit_frequency=p,
        spin_win=spin_win,
        details={"symbol_shares": shares, "best_hold_policy": policy},
    )
