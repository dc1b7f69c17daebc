"""Every window of a reel set, enumerated in numba: the joint law of one spin's line pay and
scatter count, exactly (integer counts over the product of the strip lengths).

The five stops are walked as nested loops; each line's state (the symbol its run is of, the
leading wild run, the run's length, or its pay once the run has ended) is carried from reel
to reel, so the innermost loops touch only the lines still running: a 36-stop game's 60
million windows take a couple of seconds.  The evaluation is :mod:`.evaluate`'s, written
again for speed; the tests hold the two together.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from reelforge.engine.memo import by_identity
from reelforge.engine.reels import ReelSet

from .data_model import REELS, ROWS, LinesData
from .evaluate import five_wild

MAX_SCATTERS = REELS * ROWS


@dataclass(frozen=True)
class Tables:
    """A data file's symbols as indices: paying symbols first, then the rest."""

    codes: tuple[str, ...]
    pay: np.ndarray  # int64[symbol, length 0..5]: line pay (0 for the wild, scatter, blanks)
    wild: int  # index of the wild, -1 for none
    wild_pay: np.ndarray  # int64[0..5]
    five_wild: int
    scatter: int  # index of the scatter, -1 for none
    lines: np.ndarray  # int64[line, reel]: row


def tables(d: LinesData) -> Tables:
    codes = tuple(d.symbols)
    pay = np.zeros((len(codes), REELS + 1), dtype=np.int64)
    for i, code in enumerate(codes):
        for length in range(REELS + 1):
            pay[i, length] = d.line_pay(code, length)
    wild_pay = np.array([d.wild_pays.get(k, 0) for k in range(REELS + 1)], dtype=np.int64)
    return Tables(
        codes,
        pay,
        codes.index(d.wild) if d.wild is not None else -1,
        wild_pay,
        five_wild(d)[1] if d.wild is not None else 0,
        codes.index(d.scatter) if d.scatter is not None else -1,
        np.array(d.paylines, dtype=np.int64),
    )


def window_table(reels: ReelSet, codes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``win[reel, stop, row]`` (symbol indices) and each strip's length."""
    longest = max(len(s) for s in reels.strips)
    win = np.zeros((REELS, longest, ROWS), dtype=np.int64)
    lengths = np.zeros(REELS, dtype=np.int64)
    for r, strip in enumerate(reels.strips):
        lengths[r] = len(strip)
        for stop in range(len(strip)):
            win[r, stop] = [codes.index(s) for s in strip.view(stop, ROWS)]
    return win, lengths


@njit(inline="always")
def _best(pay: np.ndarray, wild_pay: np.ndarray, w: int, x: int, length: int) -> int:
    xp = pay[x, length]
    wp = wild_pay[w]
    return xp if xp >= wp else wp


@njit(cache=True)
def _enumerate(
    win: np.ndarray,
    lengths: np.ndarray,
    lines: np.ndarray,
    pay: np.ndarray,
    wild: int,
    wild_pay: np.ndarray,
    five_wild_pay: int,
    scatter: int,
    top: int,
) -> np.ndarray:
    """``hist[k, c]``: windows with ``k`` scatters whose lines pay ``c`` credits."""
    n_lines = lines.shape[0]
    hist = np.zeros((MAX_SCATTERS + 1, top + 1), dtype=np.int64)
    # per line, after each reel: x (-1: wilds only so far), w (leading wilds), run length,
    # and whether the run still goes on; a line whose run ended adds its pay to `fixed`
    xs = np.zeros((REELS, n_lines), dtype=np.int64)
    ws = np.zeros((REELS, n_lines), dtype=np.int64)
    runs = np.zeros((REELS, n_lines), dtype=np.int64)
    live = np.zeros((REELS, n_lines), dtype=np.int64)  # indices of the lines still running
    n_live = np.zeros(REELS, dtype=np.int64)
    fixed = np.zeros(REELS, dtype=np.int64)
    scat = np.zeros(REELS, dtype=np.int64)
    stops = np.zeros(REELS, dtype=np.int64)
    # An explicit stack of reels instead of recursion: stops[r] walks reel r.
    r = 0
    stops[0] = -1
    while r >= 0:
        stops[r] += 1
        if stops[r] >= lengths[r]:
            r -= 1
            continue
        s = stops[r]
        k = 0
        if scatter >= 0:
            for row in range(3):
                if win[r, s, row] == scatter:
                    k += 1
        if r == 0:
            scat[0] = k
            fixed[0] = 0
            n = 0
            for li in range(n_lines):
                c = win[0, s, lines[li, 0]]
                if c == wild:
                    xs[0, n] = -1
                    ws[0, n] = 1
                else:
                    xs[0, n] = c
                    ws[0, n] = 0
                runs[0, n] = 1
                live[0, n] = li
                n += 1
            n_live[0] = n
        else:
            scat[r] = scat[r - 1] + k
            acc = fixed[r - 1]
            n = 0
            for j in range(n_live[r - 1]):
                li = live[r - 1, j]
                c = win[r, s, lines[li, r]]
                x = xs[r - 1, j]
                w = ws[r - 1, j]
                run = runs[r - 1, j]
                if x < 0:  # wilds only so far
                    if c == wild:
                        w += 1
                    else:
                        x = c
                elif c != x and c != wild:  # the run ends here
                    acc += _best(pay, wild_pay, w, x, run)
                    continue
                run += 1
                if r == REELS - 1:
                    acc += five_wild_pay if x < 0 else _best(pay, wild_pay, w, x, run)
                    continue
                xs[r, n] = x
                ws[r, n] = w
                runs[r, n] = run
                live[r, n] = li
                n += 1
            n_live[r] = n
            fixed[r] = acc
        if r == REELS - 1:
            hist[scat[r], fixed[r]] += 1
        else:
            r += 1
            stops[r] = -1
    return hist


@dataclass(frozen=True)
class SpinLaw:
    """One spin's joint law: ``counts[k, c]`` windows of ``total`` show ``k`` scatters and
    pay ``c`` credits on the lines."""

    counts: np.ndarray
    total: int

    def line_expectation(self) -> Fraction:
        c = np.arange(self.counts.shape[1], dtype=object)
        return Fraction(int((self.counts.sum(axis=0).astype(object) * c).sum()), self.total)

    def credits(self, d: LinesData) -> np.ndarray:
        """``amount[k, c]``: the spin's credits (lines and scatter pay) in each cell."""
        c = np.arange(self.counts.shape[1], dtype=np.int64)
        scatter = np.array([d.scatter_pays.get(k, 0) * d.lines for k in range(MAX_SCATTERS + 1)])
        return c[None, :] + scatter[:, None]

    def hit_frequency(self, d: LinesData) -> Fraction:
        hits = int(self.counts[self.credits(d) > 0].sum())
        return Fraction(hits, self.total)

    def largest(self, d: LinesData, scatters: set[int] | None = None) -> int:
        """The most one spin pays (among windows with a scatter count in ``scatters``)."""
        amounts = self.credits(d)
        mask = self.counts > 0
        if scatters is not None:
            rows = np.array([k in scatters for k in range(MAX_SCATTERS + 1)])
            mask &= rows[:, None]
        return int(amounts[mask].max()) if mask.any() else 0


@dataclass(frozen=True)
class SpinLaws:
    base: SpinLaw
    free: SpinLaw | None

    def largest_round_win(self, d: LinesData) -> int:
        """An upper bound of a round's win before the cap, reached when it is the base spin's
        largest: a triggering base spin's largest pay plus every spin of the longest feature
        at the free spins' largest pay."""
        best = self.base.largest(d)
        fs = d.free_spins
        if fs is None or self.free is None:
            return best
        trigger = self.base.largest(d, set(fs.award))
        feature = fs.max_spins * fs.multiplier * self.free.largest(d)
        return max(best, trigger + feature)


def spin_law(d: LinesData, reels: ReelSet) -> SpinLaw:
    t = tables(d)
    win, lengths = window_table(reels, t.codes)
    top = d.lines * max(int(t.pay.max()), int(t.wild_pay.max()), t.five_wild)
    counts = _enumerate(win, lengths, t.lines, t.pay, t.wild, t.wild_pay, t.five_wild, t.scatter, top)
    return SpinLaw(counts, int(np.prod(lengths.astype(object))))


@by_identity(maxsize=8)
def spin_laws(d: LinesData) -> SpinLaws:
    free = spin_law(d, d.free) if d.free_reels is not None else None
    return SpinLaws(spin_law(d, d.base), free)
