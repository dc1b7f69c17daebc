"""The exact law of one spin of a Reign of Gnomes reel set: how many stop combinations give
each (scatters in view, way-win credits), by enumerating them all.

The reel sets are small enough to enumerate outright: the base reels have
41 x 44 x 44 x 43 x 41 = 140,130,544 stop combinations, the free reels 99,068,764, Spin To
Win 81,096,849 and each Random Wilds set 99,068,764 (all 6 in about 2 s in numba).  Two
shortcuts keep it so, neither an approximation: pays start at 3 of a kind, so a combination
whose reels 1-3 share no symbol (wild included) pays nothing, and reels 4-5 then only add
their scatters (folded in by the distribution of their scatter count, not visited one by
one); otherwise reels 4-5 are walked stop by stop.  The win of a window is computed from the
kernel's precomputed per-stop tables (:func:`.kernel.tables`), the same arithmetic the
Monte Carlo uses and ``tests/test_gnomes_kernel.py`` holds to ``rules.py``;
``tests/test_gnomes_distribution.py`` checks the law against ``evaluate_ways`` on every
window of small reel sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from reelforge.engine.memo import by_identity

from .data_model import GnomesData
from .kernel import P_SCATTER, tables

# reel-set indices of the kernel's tables: base, free, Spin To Win, then the Random Wilds sets
BASE, FREE, SPIN_TO_WIN, RANDOM_WILDS_0 = range(4)
_MAX_SCATTERS = 16


@dataclass(frozen=True)
class SpinLaw:
    """``counts[k, w]``: stop combinations showing ``k`` scatters and paying ``w`` credits of
    way wins (before any multiplier; scatter pays are not included)."""

    counts: np.ndarray  # int64[scatters, credits]
    total: int  # all stop combinations: the product of the strip lengths

    def probability(self, scatters: int, credits: int) -> Fraction:
        return Fraction(int(self.counts[scatters, credits]), self.total)

    def cells(self) -> list[tuple[int, int, int]]:
        """``(scatters, credits, combinations)`` of every outcome that occurs."""
        ks, ws = np.nonzero(self.counts)
        return [(int(k), int(w), int(self.counts[k, w])) for k, w in zip(ks, ws, strict=True)]


@njit(cache=True)
def _enumerate(
    mask: np.ndarray, count: np.ndarray, strip: np.ndarray, pay: np.ndarray, si: int, sc: int, bound: int
) -> tuple[np.ndarray, np.ndarray]:
    """``hist[k, w]`` over combinations whose reels 1-3 share a symbol, and ``dead[k]``: the
    combinations of reels 1-3 sharing none, by their scatters."""
    n0 = strip[si, 0, 0]
    n1 = strip[si, 1, 0]
    n2 = strip[si, 2, 0]
    n3 = strip[si, 3, 0]
    n4 = strip[si, 4, 0]
    hist = np.zeros((_MAX_SCATTERS, bound + 1), dtype=np.int64)
    dead = np.zeros(_MAX_SCATTERS, dtype=np.int64)
    one = np.uint64(1)
    for a in range(n0):
        for b in range(n1):
            m01 = mask[si, 0, a] & mask[si, 1, b]
            for c in range(n2):
                common = m01 & mask[si, 2, c]
                s3 = (
                    np.int64(count[si, 0, a, sc])
                    + np.int64(count[si, 1, b, sc])
                    + np.int64(count[si, 2, c, sc])
                )
                if common == 0:
                    dead[s3] += 1
                    continue
                for e in range(n3):
                    m4 = mask[si, 3, e]
                    s4 = s3 + np.int64(count[si, 3, e, sc])
                    for f in range(n4):
                        m5 = mask[si, 4, f]
                        left = common
                        sym = 0
                        ways = 0
                        while left != 0:
                            if left & one:
                                bit = np.uint64(sym)
                                run = 3
                                if (m4 >> bit) & one:
                                    run = 4
                                    if (m5 >> bit) & one:
                                        run = 5
                                length = pay[sym, run, 1]
                                if length:
                                    n_ways = (
                                        np.int64(count[si, 0, a, sym])
                                        * np.int64(count[si, 1, b, sym])
                                        * np.int64(count[si, 2, c, sym])
                                    )
                                    if length >= 4:
                                        n_ways *= np.int64(count[si, 3, e, sym])
                                        if length == 5:
                                            n_ways *= np.int64(count[si, 4, f, sym])
                                    ways += pay[sym, run, 0] * n_ways
                            left >>= one
                            sym += 1
                        hist[s4 + np.int64(count[si, 4, f, sc]), ways] += 1
    return hist, dead


def _win_bound(t_count: np.ndarray, t_pay: np.ndarray, si: int, n_symbols: int, lengths: list[int]) -> int:
    """An upper bound of one window's way win: each symbol's best pay times the most
    positions it can show on each reel it spans."""
    bound = 0
    for sym in range(n_symbols):
        most = [int(t_count[si, r, : lengths[r], sym].max()) for r in range(5)]
        best = 0
        for run in range(6):
            credits, length = int(t_pay[sym, run, 0]), int(t_pay[sym, run, 1])
            if length:
                ways = 1
                for r in range(length):
                    ways *= most[r]
                best = max(best, credits * ways)
        bound += best
    return bound


@by_identity(maxsize=8)
def spin_laws(d: GnomesData) -> tuple[SpinLaw, ...]:
    """The law of every reel set, in the kernel's order: base, free, Spin To Win, then the
    Random Wilds sets."""
    t = tables(d)
    sc = int(t.params[P_SCATTER])
    count = t.count.astype(np.int64)
    strip = t.strip.astype(np.int64)
    laws = []
    for si in range(t.mask.shape[0]):
        lengths = [int(strip[si, r, 0]) for r in range(5)]
        bound = _win_bound(count, t.pay, si, sc, lengths)
        hist, dead = _enumerate(t.mask, count, strip, t.pay, si, sc, bound)
        # Reels 4-5 of a dead combination only add scatters: fold their scatter counts in.
        tail = np.zeros(_MAX_SCATTERS, dtype=np.int64)
        for e in range(lengths[3]):
            for f in range(lengths[4]):
                tail[count[si, 3, e, sc] + count[si, 4, f, sc]] += 1
        for k in range(_MAX_SCATTERS):
            if dead[k]:
                for j in range(_MAX_SCATTERS - k):
                    hist[k + j, 0] += dead[k] * tail[j]
        total = lengths[0] * lengths[1] * lengths[2] * lengths[3] * lengths[4]
        if int(hist.sum()) != total:  # pragma: no cover - an enumeration bug, not bad data
            raise AssertionError(f"reel set {si}: {int(hist.sum())} combinations counted of {total}")
        used = int(np.nonzero(hist.any(axis=0))[0].max()) + 1
        laws.append(SpinLaw(hist[:, :used].copy(), total))
    return tuple(laws)
