"""What every numba kernel's Monte Carlo adds up, and how the sums become a :class:`SimStats`.

A kernel's accumulator (an int64 array) opens with the slots below, the same in every game;
its own counters follow from :data:`N_WIN_SLOTS`.  Squares are added in 32-bit halves, so
each half-sum stays exact in int64 for up to :data:`MAX_ROUNDS` rounds; a round won beyond
:data:`TOO_BIG` credits (its square would not fit) is counted apart and refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numba import njit

from reelforge.engine.stats import SimStats

(
    A_WIN,  # total win after the cap
    A_WIN_SQ_HI,
    A_WIN_SQ_LO,
    A_WIN_U,  # total win the rounds would have paid without the cap
    A_WIN_U_SQ_HI,
    A_WIN_U_SQ_LO,
    A_HITS,
    A_MAX_WIN,  # the largest round win after the cap
    A_MAX_WIN_HITS,  # rounds stopped at the cap
    A_TOO_BIG,
) = range(10)
N_WIN_SLOTS = 10
SQ_SPLIT = 32
SQ_LOW = (1 << SQ_SPLIT) - 1
TOO_BIG = 3_000_000_000  # a round win whose square would not fit int64
MAX_ROUNDS = 1 << 31


@njit(cache=True)
def add_round(acc: np.ndarray, win: int, win_u: int, hit: bool, capped: int) -> None:
    """Count one round: its win after the cap, without it, whether it hit, whether it was capped."""
    if win_u >= TOO_BIG:
        acc[A_TOO_BIG] += 1
        return
    acc[A_WIN] += win
    sq = win * win
    acc[A_WIN_SQ_HI] += sq >> SQ_SPLIT
    acc[A_WIN_SQ_LO] += sq & SQ_LOW
    acc[A_WIN_U] += win_u
    sq = win_u * win_u
    acc[A_WIN_U_SQ_HI] += sq >> SQ_SPLIT
    acc[A_WIN_U_SQ_LO] += sq & SQ_LOW
    if hit:
        acc[A_HITS] += 1
    if win > acc[A_MAX_WIN]:
        acc[A_MAX_WIN] = win
    acc[A_MAX_WIN_HITS] += capped


def check_rounds(rounds: int) -> None:
    if not 0 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be in [0, {MAX_ROUNDS}], got {rounds}")


def sim_stats(acc: Sequence[int], rounds: int, stake: int, counters: Mapping[str, int]) -> SimStats:
    """The chunk's statistics from its accumulator (``stake``: credits per round)."""
    a = [int(x) for x in acc]
    if a[A_TOO_BIG]:
        raise OverflowError("a round won more than 3e9 credits: its square does not fit the kernel's sums")
    return SimStats(
        stake=stake,
        rounds=int(rounds),
        win=a[A_WIN],
        win_sq=(a[A_WIN_SQ_HI] << SQ_SPLIT) + a[A_WIN_SQ_LO],
        win_uncapped=a[A_WIN_U],
        win_uncapped_sq=(a[A_WIN_U_SQ_HI] << SQ_SPLIT) + a[A_WIN_U_SQ_LO],
        hits=a[A_HITS],
        max_win=a[A_MAX_WIN],
        counters={"max_win_hits": a[A_MAX_WIN_HITS], **counters},
    )
