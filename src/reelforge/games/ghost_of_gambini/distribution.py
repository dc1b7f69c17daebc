"""Ghost of Gambini's exact win distributions: the law of one round's win, by mode.

* ``buy-lock-spin`` / ``buy-super-lock-spin``: the round is the feature alone (``buy.spins``
  spins, an empty board, the piggies untouched), so its win is the feature's win, capped at
  ``game.max_win`` times the bet.  :mod:`.feature_law` computes that law exactly, as
  integers over one denominator: the Lock & Spin chain's final board (exact, a finite tree)
  mixed over the convolution powers of the three prize tables.  No truncation, no rounding:
  every probability is a fraction, and the uncapped mean equals :mod:`.exact`'s RTP exactly.
  The stake of a bought round is its price (``buy.*`` times the bet), as in the simulator.

* ``base``: the law itself is not computed; :data:`BASE_BLOCKED` says what stands in the
  way, and :func:`win_distribution` raises :class:`NotImplementedError` with it.  What is
  exact without the law, :func:`base_figures` gives: the round's mean and second moment
  (:mod:`.base_moments`), so the volatility index, and the odds of the max win bracketed to
  within a few parts in 10^7 (:mod:`.cap_odds`), each over the piggies' stationary law and
  for the next round from each piggy state.  The band probabilities on the doc page are
  simulated, and marked so.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from reelforge.engine.distribution import WinDistribution

from .base_moments import RoundMoments, round_moments
from .cap_odds import base_cap_odds
from .data_model import GambiniData
from .feature_law import ExactLaw, feature_law

BUY_MODES = {"buy-lock-spin": False, "buy-super-lock-spin": True}  # mode -> Super?

BASE_BLOCKED = (
    "exact distribution not available: one base spin's win is the 40 lines "
    "plus the coins and jackpots collected on the same 14 positions that break the lines, "
    "plus the jackpot rewind, which picks one of the blanks in view uniformly (a 1/N that "
    "couples every position).  Exactly, that is a chain over the lines still alive after each "
    "position (82,909 states after reel 3 and 160,636 after reel 4 row 2 with a wild in the "
    "center, counted by a state-only run) that would carry, per state, the law of the "
    "collection so far and the count of blanks: out of reach of this release.  The bought "
    "features' laws are exact; for the base game, distribution.base_figures gives the exact "
    "volatility index and the max-win odds (bracketed), and the doc page simulated bands."
)


def _fraction(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def buy_distribution(d: GambiniData, mode: str) -> WinDistribution:
    """The exact law of a bought feature's round (see the module doc)."""
    if mode not in BUY_MODES:
        raise ValueError(f"not a bought feature: {mode!r}")
    super_ = BUY_MODES[mode]
    law = feature_law(d, super_, d.buy.spins)
    price = d.price_credits(mode)
    return WinDistribution(
        game=d.game.id,
        variant=d.game.variant,
        mode=mode,
        stake=price,
        cap=d.max_win_credits,
        method=(
            "exact fractions (the Lock & Spin chain's final board, mixed over the convolution "
            "powers of the frames' prize tables)"
        ),
        error_bound="none: every probability is an exact fraction",
        exact_pmf=law.pmf(),
        details=_details(d, law, price),
    )


def _details(d: GambiniData, law: ExactLaw, price: int) -> dict[str, Any]:
    bet = d.game.base_credits
    rtp_uncapped = law.mean_uncapped() / price
    capped = law.mean() / price
    var = (law.second_moment() - law.mean() ** 2) / bet**2
    return {
        "price_x_bet": price // bet,
        "grid_unit_credits": law.unit,
        "rtp_uncapped": {"value": float(rtp_uncapped), "fraction": _fraction(rtp_uncapped)},
        "cap_effect": {
            "value": float(rtp_uncapped - capped),
            "fraction": _fraction(rtp_uncapped - capped),
            "what": "E[(win - cap)+] / stake: the RTP the cap takes away",
        },
        "sd_bets": math.sqrt(var.numerator / var.denominator),
        "cells": sum(1 for c in law.cells if c) + (1 if law.cap_mass else 0),
    }


def _sd(m: RoundMoments, bet: int) -> dict[str, float]:
    lo, hi = m.sd_bounds(bet)
    return {"value": (lo + hi) / 2, "low": lo, "high": hi}


def _bracket(lo: Fraction, hi: Fraction) -> dict[str, Any]:
    return {
        "low": float(lo),
        "high": float(hi),
        "one_in_low": float(1 / hi) if hi else None,  # the likelier end
        "one_in_high": float(1 / lo) if lo else None,
        "fraction_low": _fraction(lo),
        "fraction_high": _fraction(hi),
    }


def base_figures(d: GambiniData) -> dict[str, Any]:
    """What is exact about a base round's win without its law (see the module doc).

    ``stationary``: averaged over the piggies' stationary distribution (a player's long run);
    ``by_state``: the next round played from the given piggy sizes."""
    bet = d.game.base_credits
    moments = round_moments(d)
    odds = base_cap_odds(d)
    st = moments["stationary"]
    assert isinstance(st, RoundMoments)
    by_state = moments["by_state"]
    assert isinstance(by_state, dict)
    return {
        "game": d.game.id,
        "variant": d.game.variant,
        "mode": "base",
        "distribution": BASE_BLOCKED,
        "method": (
            "exact fractions: the round's first two moments over pairs of lines and positions; "
            "the max win's odds between exact rational bounds"
        ),
        "which": "figures over the piggies' stationary law; by_state: the next round from those piggies",
        "rtp_uncapped": {"value": float(st.mean / bet), "fraction": _fraction(st.mean / bet)},
        "volatility_index": _sd(st, bet),
        "max_win": {"credits": d.max_win_credits, "multiple": d.game.max_win, **_bracket(*odds.stationary)},
        "max_win_by_feature": {k: _bracket(*v) for k, v in odds.by_kind.items()},
        "by_state": [
            {
                "piggies": list(s),
                "rtp_uncapped": float(m.mean / bet),
                "volatility_index": _sd(m, bet),
                "max_win": _bracket(*odds.by_state[s]),
            }
            for s, m in by_state.items()
        ],
    }


def win_distribution(d: GambiniData, mode: str = "base") -> WinDistribution:
    """The law of one round's win in ``mode``: exact for the bought features."""
    if mode == "base":
        raise NotImplementedError(BASE_BLOCKED)
    return buy_distribution(d, mode)
