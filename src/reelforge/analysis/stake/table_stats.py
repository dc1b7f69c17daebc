"""The figures the platform reports of a lookup table, computed from its rows alone.

Stake Engine's upload shows per mode: RTP, SD, variance, skew and excess kurtosis (of the win
in costs), hit rate, the max win's rate, P(no win), P(win < bet), mean and median win, min and
max payout and the count of distinct payouts.  Probabilities are ``weight / sum of weights``;
RTP and the rates are exact fractions here (the platform reads floats).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.analysis.stake.law import PER_BET


def table_stats(payouts: list[int], weights: list[int], cost: float) -> dict[str, Any]:
    """``payouts`` (bets x 100) and ``weights`` row for row; ``cost`` the mode's price in bets."""
    total = sum(weights)
    if total <= 0:
        raise ValueError("the weights sum to zero")
    by_payout: dict[int, int] = {}
    for p, w in zip(payouts, weights, strict=True):
        by_payout[p] = by_payout.get(p, 0) + w
    per_cost = Fraction(cost).limit_denominator(10**6) * PER_BET
    mean = Fraction(sum(p * w for p, w in by_payout.items()), total) / per_cost
    top = max(by_payout)
    hit = Fraction(sum(w for p, w in by_payout.items() if p > 0), total)
    below = Fraction(sum(w for p, w in by_payout.items() if p < per_cost), total)
    m = float(mean)
    central = [0.0, 0.0, 0.0]
    for p, w in by_payout.items():
        d = float(p / per_cost) - m
        q = w / total
        central[0] += q * d * d
        central[1] += q * d**3
        central[2] += q * d**4
    var = central[0]
    sd = math.sqrt(var)
    # The median win: the smallest payout whose cumulative probability reaches one half.
    acc = 0
    median = 0
    for p in sorted(by_payout):
        acc += by_payout[p]
        if 2 * acc >= total:
            median = p
            break
    p_top = Fraction(by_payout[top], total)
    return {
        "rtp": mean,
        "sd": sd,
        "var": var,
        "skew": central[1] / sd**3 if sd else 0.0,
        "excess_kurtosis": central[2] / var**2 - 3 if var else 0.0,
        "hit_rate": hit,
        "p_no_win": Fraction(by_payout.get(0, 0), total),
        "p_win_below_bet": below,
        "max_payout": top,
        "min_payout": min(by_payout),
        "max_win_rate": p_top,
        "max_win_one_in": float(1 / p_top) if p_top else None,
        "mean_payout": float(Fraction(sum(p * w for p, w in by_payout.items()), total)),
        "median_payout": median,
        "distinct_payouts": len(by_payout),
        "weight_sum": total,
        "rows": len(payouts),
    }


def band_probabilities(
    payouts: list[int], weights: list[int], bands: list[tuple[int, int]]
) -> list[Fraction]:
    """P(band) of the table for bands ``(low, high]`` in payout units (``low == high``: the
    single payout)."""
    total = sum(weights)
    out = [0] * len(bands)
    for p, w in zip(payouts, weights, strict=True):
        for i, (low, high) in enumerate(bands):
            if (p == low) if low == high else (low < p <= high):
                out[i] += w
                break
    return [Fraction(x, total) for x in out]


def as_json(stats: dict[str, Any]) -> dict[str, Any]:
    """Fractions as floats (the fraction itself kept for the RTP)."""
    out: dict[str, Any] = {}
    for k, v in stats.items():
        if isinstance(v, Fraction):
            out[k] = float(v)
            if k == "rtp":
                out["rtp_fraction"] = f"{v.numerator}/{v.denominator}"
        else:
            out[k] = v
    return out
