"""Random sources: the one interface every game draws through.

Every draw a game makes is ``randbelow(n)``: a uniform integer in ``[0, n)``.

* :class:`SystemRandom` is production: bits from the OS CSPRNG (:func:`secrets.randbits`)
  scaled by :func:`randbelow_from_bits`, which redraws out-of-range bit patterns (no modulo
  bias); a test hands it a known bit supplier to check the scaling draw by draw.
* :class:`SeededRandom` is simulation: numpy's counter-based PCG64DXSM seeded from a
  :class:`numpy.random.SeedSequence`.  It scales raw 64-bit words by rejection
  (:func:`scale_unbiased`), the exact algorithm the numba kernels use, so a kernel and
  the readable rules fed the same bit generator state see the same integers.
* :class:`RecordingRandom` / :class:`ReplayRandom` store the draws of a round and
  deal them again, so a stored round re-plays to the identical outcome.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, MutableSequence, Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

T = TypeVar("T")

_TWO64 = 1 << 64


@runtime_checkable
class RandomSource(Protocol):
    """Anything a game can draw from."""

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be at least 1."""
        ...


def _check_n(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"randbelow needs a positive integer range, got {n!r}")


def rejection_limit(n: int) -> int:
    """Largest multiple of ``n`` not above 2**64: raw words at or above it are redrawn."""
    return _TWO64 - (_TWO64 % n)


def scale_unbiased(word: int, n: int) -> int | None:
    """Map one raw 64-bit word to ``[0, n)`` or ``None`` if it must be rejected.

    Accepting only words below the largest multiple of ``n`` makes every residue
    equally likely; the rejected fraction is below ``n / 2**64``.
    """
    if word >= rejection_limit(n):
        return None
    return word % n


def randbelow_from_bits(randbits: Callable[[int], int], n: int) -> int:
    """A uniform integer in ``[0, n)`` from a supplier of ``k``-bit random integers.

    Each try takes ``k = n.bit_length()`` fresh bits; a candidate at or above ``n`` is
    redrawn, never folded modulo ``n``, so every accepted value is equally likely (a try
    fails with probability below 1/2).  This is CPython's ``secrets.randbelow``
    (``random._randbelow_with_getrandbits``), written out so a test can feed it known bits.
    """
    k = n.bit_length()
    while True:
        r = randbits(k)
        if r < 0 or r >> k:
            raise ValueError(f"bit supplier returned {r!r} for a {k}-bit request")
        if r < n:
            return r


class SystemRandom:
    """Production source: the operating system's CSPRNG.

    ``randbits`` is the bit supplier, :func:`secrets.randbits` (``os.urandom``) unless a test
    passes known bits to check the scaling.
    """

    def __init__(self, randbits: Callable[[int], int] = secrets.randbits) -> None:
        self.randbits = randbits

    def randbelow(self, n: int) -> int:
        _check_n(n)
        return randbelow_from_bits(self.randbits, n)

    def raw_bytes(self, n: int) -> bytes:
        """``n`` bytes of the CSPRNG's raw output (``os.urandom``, the stream ``randbelow``
        scales): what the certification bundle feeds to dieharder and ent."""
        return secrets.token_bytes(n)


class SeededRandom:
    """Reproducible simulation source on PCG64DXSM, seeded by a SeedSequence."""

    def __init__(self, seed: int | np.random.SeedSequence | None = None) -> None:
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self.seed_sequence = ss
        self.bit_generator = np.random.PCG64DXSM(ss)

    def next_word(self) -> int:
        return int(self.bit_generator.random_raw())

    def randbelow(self, n: int) -> int:
        _check_n(n)
        while True:
            value = scale_unbiased(self.next_word(), n)
            if value is not None:
                return value

    def spawn(self, count: int) -> list[SeededRandom]:
        """Independent child streams; child ``i`` depends on the seed and ``i`` alone."""
        return [SeededRandom(child) for child in self.seed_sequence.spawn(count)]


class ReplayError(RuntimeError):
    """A replayed round asked for a draw the record does not hold."""


class RecordingRandom:
    """Wraps a source and records every draw as ``(n, value)``."""

    def __init__(self, inner: RandomSource) -> None:
        self.inner = inner
        self.draws: list[tuple[int, int]] = []

    def randbelow(self, n: int) -> int:
        value = self.inner.randbelow(n)
        self.draws.append((n, value))
        return value


class ReplayRandom:
    """Deals recorded draws again, in order, checking each asks for the same range."""

    def __init__(self, draws: Sequence[Sequence[int]]) -> None:
        self.draws = [(int(n), int(v)) for n, v in draws]
        self.position = 0

    def randbelow(self, n: int) -> int:
        if self.position >= len(self.draws):
            raise ReplayError(f"replay exhausted after {self.position} draws (asked for range {n})")
        recorded_n, value = self.draws[self.position]
        if recorded_n != n:
            raise ReplayError(f"draw {self.position}: replay recorded range {recorded_n}, game asked for {n}")
        self.position += 1
        return value

    @property
    def exhausted(self) -> bool:
        return self.position == len(self.draws)


def shuffle(rng: RandomSource, items: MutableSequence[T]) -> None:
    """Fisher-Yates in place: ``len(items) - 1`` draws, from the top down."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


def weighted_index(rng: RandomSource, weights: Sequence[int]) -> int:
    """Pick an index with probability proportional to its integer weight (one draw)."""
    total = sum(weights)
    r = rng.randbelow(total)
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable: draw below the total weight")


class ScriptedRandom:
    """Test-only: deals a script of values first, then falls back to ``inner``.

    Forces a chosen outcome (free spins, a feature) through the real rules; every
    scripted value is checked against the range asked for.  Production never uses it.
    """

    def __init__(self, script: Sequence[int], inner: RandomSource) -> None:
        self.script = list(script)
        self.inner = inner

    def randbelow(self, n: int) -> int:
        _check_n(n)
        if self.script:
            value = self.script.pop(0)
            if not 0 <= value < n:
                raise ValueError(f"scripted draw {value} is outside the range [0, {n})")
            return value
        return self.inner.randbelow(n)
