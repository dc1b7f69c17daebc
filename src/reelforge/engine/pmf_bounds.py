"""Enclosures of probability mass functions on an integer grid with a cap.

Interval arithmetic for exact win distributions computed in floating point.  A
:class:`PmfBounds` holds two arrays with ``lo[x] <= p(x) <= hi[x]`` for every amount
``x = 0 .. cap`` (credits), where cell ``cap`` holds all the mass at or above the cap, plus
``unplaced``: mass that belongs somewhere on the grid but is not in ``lo`` and not in ``hi``
(e.g. free-spin trees deeper than the recursion went).  For any set ``A`` of amounts,
``sum(lo[A]) <= P(A) <= sum(hi[A]) + unplaced``.

Amounts only grow during a round and the cap takes all that reaches it, so a round's capped
win is ``min(cap, X + Y)`` of its parts, and :meth:`PmfBounds.convolve` is that law.  Every
operation returns an enclosure of the exact result of the exact inputs:

* sums and products of arrays: each rounding (relative ``u = 2**-53``) is absorbed by
  widening ``lo`` down and ``hi`` up (:func:`widen`);
* a convolution below the cap with a small operand: a direct sum of non-negative products,
  relative error at most ``(terms + 1) u``;
* a convolution below the cap of two large operands: by FFT.  Its error bound, for
  non-negative vectors ``a``, ``b`` padded to ``M`` (a power of two), is
  ``|fft_conv - a*b| <= 1.01 (3 eps + 3 u) max(|a|_1 |b|_2, |a|_2 |b|_1)`` on every entry,
  with ``eps = 10 log2(M) u``: the bound of Higham, *Accuracy and Stability of Numerical
  Algorithms* (2nd ed., Thm 24.2) for the radix-2 FFT, ``log2(M) (mu + gamma_4 (sqrt 2 +
  mu))`` with twiddle error ``mu <= u``, about ``6.7 log2(M) u``, with a 1.5x margin for
  numpy's pocketfft (mixed radix-4/2 with a real-input stage).  That error is absolute, so
  the tails (1e-20 and less near a 5,000x cap) would drown in it: each convolution is done
  again on exponentially tilted operands, ``a[x] e^(theta x)`` (tilting commutes with
  convolution), for a few ``theta``, and each entry keeps the tightest enclosure of any tilt;
* the cap cell: ``sum_x a[x] P(Y >= cap - x)``, a direct sum of non-negative terms.

``tests/test_gnomes_distribution.py`` checks the FFT bound against exact integer
convolutions (the observed errors are orders of magnitude inside it).
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
import scipy.fft

U = 2.0**-53  # unit roundoff of float64
_WORKERS = max(1, min(4, os.cpu_count() or 1))  # a batch of transforms runs on this many threads
_EXACT_INT = 1 << 53
# Below this many non-zero cells an operand is convolved directly (cost ~ cells * grid),
# above it by FFT (cost ~ tilts * 6 FFTs); the two meet near here on this machine.
SPARSE_CELLS = 256
# Tilts in units of 1/cap: theta * cap = 0 keeps the bulk exact, the others bring tails that
# fall by e^-20 .. e^-90 over the grid (Reign of Gnomes: about e^-25 between 1,000x and
# 5,000x) to within a few orders of the largest tilted entry.
DEFAULT_TILTS = (0.0, 24.0, 60.0)


def widen(lo: np.ndarray, hi: np.ndarray, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """``lo (1 - rel)`` rounded down and ``hi (1 + rel)`` rounded up (3u absorbs the two
    roundings of the factor and the product)."""
    rel = rel * 1.01 + 3 * U
    return lo * (1.0 - rel), hi * (1.0 + rel)


def _widen_scalar(lo: float, hi: float, rel: float) -> tuple[float, float]:
    rel = rel * 1.01 + 3 * U
    return lo * (1.0 - rel), hi * (1.0 + rel)


def fraction_bounds(value: Fraction | int) -> tuple[float, float]:
    """Floats enclosing an exact non-negative number (Python's int division rounds correctly)."""
    f = Fraction(value)
    x = f.numerator / f.denominator
    return float(np.nextafter(x, 0.0)) if x > 0 else 0.0, float(np.nextafter(x, np.inf)) if x > 0 else 0.0


@lru_cache(maxsize=16)
def _tilt_vectors(n: int, theta: float) -> tuple[np.ndarray, np.ndarray, float]:
    """``e^(theta x)``, ``e^(-theta x)`` for ``x < n``, and their relative error bound: the
    argument's rounding (``u |theta x|``) and exp's (numpy's SIMD exp: under 4 ulp)."""
    arg = theta * np.arange(n, dtype=np.float64)
    up = np.exp(arg)
    down = np.exp(-arg)
    up.setflags(write=False)
    down.setflags(write=False)
    return up, down, (float(arg[-1]) + 8.0) * U if n else 8 * U


@dataclass(frozen=True)
class _Spectra:
    """The FFTs of a body's tilted copies, one row each: row ``side * len(tilts) + j`` is the
    ``lo`` (side 0) or ``hi`` (side 1) body tilted by ``tilts[j]`` and scaled by
    ``2**scale_exp`` (exact) so that its largest entry lies in [0.5, 1)."""

    values: np.ndarray  # complex [rows, m // 2 + 1]
    scale_exp: list[int]
    norm1: list[float]  # upper bounds of each tilted, scaled body's 1- and 2-norms
    norm2: list[float]
    rel: list[float]  # relative error of each against the exact tilt of the body
    empty: list[bool]  # a body with no mass (its row is zero)


@dataclass(frozen=True, eq=False)
class PmfBounds:
    """``lo <= p <= hi`` on ``0 .. cap`` (cell ``cap``: at or above it), plus ``unplaced`` mass."""

    lo: np.ndarray
    hi: np.ndarray
    unplaced: float = 0.0
    _spectra: dict[tuple[tuple[float, ...], int], _Spectra] = field(
        default_factory=dict, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.lo.shape != self.hi.shape or self.lo.ndim != 1 or len(self.lo) < 2:
            raise ValueError("lo and hi must be 1-d arrays of the same length (at least 2)")
        lo = np.maximum(self.lo, 0.0)
        hi = np.maximum(self.hi, lo)
        lo.setflags(write=False)
        hi.setflags(write=False)
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    # -- construction ---------------------------------------------------------------------

    @property
    def cap(self) -> int:
        return len(self.lo) - 1

    @classmethod
    def zero(cls, cap: int) -> PmfBounds:
        z = np.zeros(cap + 1)
        return cls(z, z.copy())

    @classmethod
    def from_weights(
        cls, cap: int, values: Iterable[int], weights: Iterable[int], denominator: int
    ) -> PmfBounds:
        """Point masses ``weight / denominator`` at ``min(value, cap)``, from exact integers."""
        cells: dict[int, int] = {}
        for v, w in zip(values, weights, strict=True):
            if v < 0 or w < 0:
                raise ValueError("amounts and weights must be non-negative")
            if w:
                key = min(int(v), cap)
                cells[key] = cells.get(key, 0) + int(w)
        lo = np.zeros(cap + 1)
        hi = np.zeros(cap + 1)
        if cells:
            idx = np.fromiter(cells, dtype=np.int64, count=len(cells))
            num = list(cells.values())
            if max(num) < _EXACT_INT and denominator < _EXACT_INT:
                p = np.array(num, dtype=np.float64) / float(denominator)  # one correct rounding
            else:
                p = np.array([w / denominator for w in num])  # int / int rounds correctly too
            lo[idx] = np.nextafter(p, 0.0)
            hi[idx] = np.nextafter(p, np.inf)
        return cls(lo, hi)

    @classmethod
    def from_bounds(cls, lo: np.ndarray, hi: np.ndarray, unplaced: float = 0.0) -> PmfBounds:
        return cls(np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64), unplaced)

    # -- linear operations ----------------------------------------------------------------

    def __add__(self, other: PmfBounds) -> PmfBounds:
        self._same_grid(other)
        lo, hi = widen(self.lo + other.lo, self.hi + other.hi, 0.0)
        return PmfBounds(lo, hi, (self.unplaced + other.unplaced) * (1 + 4 * U))

    def scaled(self, factor: Fraction | int) -> PmfBounds:
        """The sub-distribution times an exact non-negative factor (a probability)."""
        f_lo, f_hi = fraction_bounds(factor)
        lo, hi = widen(self.lo * f_lo, self.hi * f_hi, 0.0)
        return PmfBounds(lo, hi, self.unplaced * f_hi * (1 + 4 * U))

    @staticmethod
    def total(parts: Sequence[PmfBounds], cap: int) -> PmfBounds:
        out = PmfBounds.zero(cap)
        for p in parts:
            out = out + p
        return out

    # -- figures --------------------------------------------------------------------------

    def mass(self) -> tuple[float, float]:
        """Bounds of the total mass (``unplaced`` included in the upper one)."""
        return self.probability(0, self.cap + 1, with_unplaced=True)

    def probability(self, start: int, stop: int, *, with_unplaced: bool = True) -> tuple[float, float]:
        """Bounds of ``P(start <= X < stop)``; the unplaced mass may lie anywhere, so it is
        added to the upper bound."""
        start = max(start, 0)
        stop = min(stop, self.cap + 1)
        if stop <= start:
            return 0.0, 0.0
        n = stop - start
        lo, hi = _widen_scalar(float(self.lo[start:stop].sum()), float(self.hi[start:stop].sum()), n * U)
        if with_unplaced:
            hi = (hi + self.unplaced) * (1 + 2 * U)
        return lo, hi

    def moment(self, power: int) -> tuple[float, float]:
        """Bounds of ``E[X**power]`` (X the capped amount); unplaced mass counts at the cap."""
        x = np.arange(self.cap + 1, dtype=np.float64) ** power  # exact below 2**53
        rel_x = 2 * U * power if self.cap**power >= _EXACT_INT else 0.0
        n = self.cap + 1
        lo, hi = _widen_scalar(float(x @ self.lo), float(x @ self.hi), (n + 2) * U + rel_x)
        hi = (hi + self.unplaced * float(self.cap) ** power) * (1 + 4 * U)
        return lo, hi

    # -- convolution ----------------------------------------------------------------------

    def convolve(self, other: PmfBounds, tilts: Sequence[float] = DEFAULT_TILTS) -> PmfBounds:
        """The law of ``min(cap, X + Y)`` for independent ``X ~ self``, ``Y ~ other``.

        ``tilts`` are ``theta * cap`` of the FFT's exponential tilts (see the module doc)."""
        self._same_grid(other)
        a, b = (self, other) if self.cells() <= other.cells() else (other, self)
        if a.cells() <= SPARSE_CELLS:
            lo, hi = _direct_body(a, b)
        else:
            lo, hi = _fft_body(a, b, tilts)
        cap_lo, cap_hi = _cap_cell(a, b)
        lo = np.append(lo, cap_lo)
        hi = np.append(hi, cap_hi)
        mass_a = a.mass()[1]
        mass_b = b.mass()[1]
        # Unplaced mass of one operand, met by anything of the other, stays unplaced.
        unplaced = (a.unplaced * mass_b + b.unplaced * mass_a) * (1 + 8 * U)
        return PmfBounds(lo, hi, unplaced)

    def power(self, n: int, tilts: Sequence[float] = DEFAULT_TILTS) -> PmfBounds:
        return self.powers([n], tilts)[n]

    def powers(self, wanted: Iterable[int], tilts: Sequence[float] = DEFAULT_TILTS) -> dict[int, PmfBounds]:
        """``{n: law of the capped sum of n copies}`` for each ``n`` wanted, sharing work: the
        gcd ``g`` of the wanted counts by binary powering, then each as a power of it."""
        wanted = sorted(set(wanted))
        if not wanted or wanted[0] < 1:
            raise ValueError("powers need positive counts")
        g = 0
        for n in wanted:
            g = math.gcd(g, n)
        base = self._binary_power(g, tilts)
        done: dict[int, PmfBounds] = {1: base}
        for k in (n // g for n in wanted):
            _chain_power(done, k, tilts)
        return {n: done[n // g] for n in wanted}

    def compound(
        self, coefficients: dict[int, PmfBounds], tilts: Sequence[float] = DEFAULT_TILTS
    ) -> PmfBounds:
        """``sum_n coefficients[n] * self^(*n)`` (e.g. a base spin's law by the free spins it
        awards, compounded with one spin's law), by Horner's rule in ``self^(*g)``, ``g`` the
        gcd of the counts: for 10, 15, 20 spins, ``P^2 (c10 + P (c15 + P c20))`` with ``P =
        self^(*5)``, 7 convolutions."""
        counts = sorted(coefficients)
        out = coefficients[0] if counts and counts[0] == 0 else None
        counts = [n for n in counts if n > 0]
        if not counts:
            return out if out is not None else PmfBounds.zero(self.cap)
        g = 0
        for n in counts:
            g = math.gcd(g, n)
        gaps = [counts[0] // g] + [(b - a) // g for a, b in itertools.pairwise(counts)]
        step = self._binary_power(g, tilts)
        done: dict[int, PmfBounds] = {1: step}
        for k in set(gaps):
            _chain_power(done, k, tilts)
        acc: PmfBounds | None = None
        for n, gap in reversed(list(zip(counts, gaps, strict=True))):
            term = coefficients[n] if acc is None else coefficients[n] + acc
            acc = term.convolve(done[gap], tilts)
        assert acc is not None
        return acc if out is None else out + acc

    def _binary_power(self, n: int, tilts: Sequence[float]) -> PmfBounds:
        done: dict[int, PmfBounds] = {1: self}
        _chain_power(done, n, tilts)
        return done[n]

    # -- internals ------------------------------------------------------------------------

    def cells(self) -> int:
        """Cells that may hold mass."""
        return int(np.count_nonzero(self.hi))

    def _same_grid(self, other: PmfBounds) -> None:
        if other.cap != self.cap:
            raise ValueError(f"grids differ: cap {self.cap} and {other.cap}")

    def spectra(self, tilts: tuple[float, ...], m: int) -> _Spectra:
        """The FFTs of the tilted bodies (cells below the cap) of ``lo`` and ``hi``, batched."""
        key = (tilts, m)
        if key not in self._spectra:
            n = self.cap
            rows = np.zeros((2 * len(tilts), n))
            scale, norm1, norm2, rel, empty = [], [], [], [], []
            grow = 1 + 1.01 * (n + 3) * U  # the sums' roundings
            for side, v in enumerate((self.lo[:n], self.hi[:n])):
                for j, theta_cap in enumerate(tilts):
                    up, _, rel_tilt = _tilt_vectors(n, theta_cap / n)
                    w = rows[side * len(tilts) + j]
                    np.multiply(v, up, out=w)
                    peak = float(w.max()) if n else 0.0
                    k = 0 if peak <= 0.0 else min(-math.frexp(peak)[1], 1000)
                    w *= 2.0**k  # exact: a power of two
                    scale.append(k)
                    norm1.append(float(w.sum()) * grow)
                    norm2.append(math.sqrt(float(w @ w)) * grow)
                    rel.append(rel_tilt + U)
                    empty.append(peak <= 0.0)
            values = scipy.fft.rfft(rows, m, axis=1, workers=_WORKERS)
            self._spectra[key] = _Spectra(values, scale, norm1, norm2, rel, empty)
        return self._spectra[key]


def _chain_power(done: dict[int, PmfBounds], n: int, tilts: Sequence[float]) -> None:
    """Fill ``done[n]`` from ``done[1]`` by squaring and multiplying (binary method, reusing
    whatever is already in ``done``)."""
    if n in done:
        return
    half = n // 2
    _chain_power(done, half, tilts)
    sq = done[half] if half * 2 == n else None
    if sq is not None:
        done[n] = sq.convolve(sq, tilts)
        return
    _chain_power(done, n - half, tilts)
    done[n] = done[half].convolve(done[n - half], tilts)


def _direct_body(a: PmfBounds, b: PmfBounds) -> tuple[np.ndarray, np.ndarray]:
    """Cells below the cap of ``a * b`` by direct sums (``a`` the sparse one)."""
    n = a.cap
    lo = np.zeros(n)
    hi = np.zeros(n)
    support = np.nonzero(a.hi[:n])[0]
    for x in support:
        lo[x:] += a.lo[x] * b.lo[: n - x]
        hi[x:] += a.hi[x] * b.hi[: n - x]
    # each cell: at most len(support) products summed
    return widen(lo, hi, (len(support) + 1) * U)


def _fft_body(a: PmfBounds, b: PmfBounds, tilts: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Cells below the cap of ``a * b`` by tilted FFTs; each cell keeps its tightest bounds."""
    n = a.cap
    tilts = tuple(tilts)
    m = 1 << max(1, (2 * n - 1).bit_length())  # holds the linear convolution of two bodies
    eps = 10.0 * math.log2(m) * U
    sa = a.spectra(tilts, m)
    sb = b.spectra(tilts, m)
    products = scipy.fft.irfft(sa.values * sb.values, m, axis=1, workers=_WORKERS)
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    for row in range(2 * len(tilts)):
        side, j = divmod(row, len(tilts))
        if sa.empty[row] or sb.empty[row]:  # one body is empty: so is the product's
            if side == 1:
                hi[:] = 0.0
            continue
        _, down, rel_untilt = _tilt_vectors(n, tilts[j] / n)
        tilted = products[row, :n]
        err = 1.01 * (3 * eps + 3 * U) * max(sa.norm1[row] * sb.norm2[row], sa.norm2[row] * sb.norm1[row])
        # Tilted entries that underflowed to subnormals: an absolute 2**-1074 each before the
        # scaling by 2**k (negligible, kept for rigour).
        big = max(sa.scale_exp[row], sb.scale_exp[row], 0)
        err += math.ldexp(2.0 * n * max(sa.norm1[row], sb.norm1[row]), big - 1074)
        rel = sa.rel[row] + sb.rel[row] + rel_untilt + 4 * U
        shift = -(sa.scale_exp[row] + sb.scale_exp[row])
        grow = rel * 1.01 + 3 * U  # as widen: the factor's and the product's roundings
        # 2**shift is exact while the factor stays normal; below that the entries are under
        # 1e-290: 0 is a lower bound, and 2**-1000 an upper one's scale
        if side == 0:
            if shift >= -1000:
                low = np.maximum(tilted - err, 0.0) * down
                low *= math.ldexp(1.0 - grow, shift)
                np.maximum(lo, low, out=lo)
        else:
            high = (tilted + err) * down
            high *= math.ldexp(1.0 + grow, max(shift, -1000))
            np.minimum(hi, high, out=hi)
    hi[np.isinf(hi)] = 0.0
    return lo, np.maximum(hi, lo)


def _cap_cell(a: PmfBounds, b: PmfBounds) -> tuple[float, float]:
    """``P(X + Y >= cap) = sum_x a[x] P(Y >= cap - x)``, all terms non-negative."""
    cap = a.cap
    out = []
    for av, bv in ((a.lo, b.lo), (a.hi, b.hi)):
        tail = np.cumsum(bv[::-1])[::-1]  # tail[j] = sum_{y >= j} b[y]
        # x = 0 .. cap meets P(Y >= cap - x) = tail[cap - x]
        out.append(float(av @ tail[::-1]))
    n = cap + 1
    lo, hi = _widen_scalar(out[0], out[1], (2 * n + 2) * U)
    return lo, hi
