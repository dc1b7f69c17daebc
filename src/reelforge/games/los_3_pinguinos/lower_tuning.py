"""Tune the lower game's hold offer to a target, the best play's ``cash + worth × Bonuses``.

The hold offer (``[hold] yes / 10000``) is the designed "may randomly allow" of the seed; the
best play's value rises with it (a held game is free and worth more than nothing), so the
offer that comes nearest the target is found by bisection over whole ten-thousandths.  Used
to write the data files (``python -m reelforge.games.los_3_pinguinos.lower_tuning``); the tests
check the figures the files give, not this search.
"""

from __future__ import annotations

import sys
from fractions import Fraction

from . import strategy as S
from .data_model import DATA_DIR, LowerData, load

F = Fraction
DENOMINATOR = 10_000


def with_hold(d: LowerData, yes: int) -> LowerData:
    return d.model_copy(update={"hold": {"yes": yes, "no": DENOMINATOR - yes}})


def best_rtp(d: LowerData) -> Fraction:
    return S.values(d, "best").rtp_cents / d.game.unit


def hold_for_target(d: LowerData, target: Fraction) -> tuple[int, Fraction]:
    """The hold offer (yes of 10000) whose best-play figure is nearest ``target``."""
    lo, hi = 0, DENOMINATOR
    at = {lo: best_rtp(with_hold(d, lo)), hi: best_rtp(with_hold(d, hi))}
    if not at[lo] <= target <= at[hi]:
        raise ValueError(f"target {float(target):.4%} is outside [{float(at[lo]):.4%}, {float(at[hi]):.4%}]")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        at[mid] = best_rtp(with_hold(d, mid))
        if at[mid] < target:
            lo = mid
        else:
            hi = mid
    yes = min((lo, hi), key=lambda y: abs(at[y] - target))
    return yes, at[yes]


def main(variants: list[str]) -> None:
    for v in variants:
        d = load(DATA_DIR / f"rtp-{v}.toml")
        yes, rtp = hold_for_target(d, F(int(v), 100))
        print(f"variant {v}: hold yes = {yes}, no = {DENOMINATOR - yes}: best play {float(rtp):.6%}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["95", "90", "80", "70"])
