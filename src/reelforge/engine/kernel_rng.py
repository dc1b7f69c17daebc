"""PCG64DXSM for numba kernels: numpy's word stream and ``randbelow``, inlined in the hot loop.

A game's numba kernel must ask for exactly the ``randbelow`` draws its readable rules ask
for, in the same order, and get the same integers, so that fed the same PCG64DXSM state
it deals the same rounds.  This module is the shared random half of that contract.

Algorithm: PCG64DXSM is re-implemented here (128-bit LCG with the cheap multiplier and
the DXSM output function, numpy's ``pcg_cm_random_r``) so the word stream is identical to
``np.random.PCG64DXSM.random_raw()`` while staying inlined in the hot loop.  Each word is
the DXSM output of the pre-step state: ``hi ^= hi >> 32; hi *= CHEAP; hi ^= hi >> 48;
hi *= lo | 1``; then the state steps as ``state = state * CHEAP + inc`` (a 128 x 64-bit
product: :func:`umulhi` gives the high half of ``lo * CHEAP`` in one ``mul``).  Words are
scaled to ``[0, n)`` exactly as :func:`reelforge.rng.scale_unbiased`: words at or above
``2**64 - 2**64 % n`` are redrawn, the rest taken modulo ``n`` (:func:`below` takes the
largest word kept, :func:`accept_max`, precomputed once per range).

State: a uint64 array of :data:`STATE_SIZE` entries, indexed by :data:`HI`, :data:`LO`
(the 128-bit state), :data:`INC_HI`, :data:`INC_LO` (the increment), then :data:`DRAWS`
(``randbelow`` calls, what ``RecordingRandom`` records) and :data:`WORDS` (raw words
consumed, rejections included), the counts the differential tests compare.
:func:`rng_state` reads it from a numpy bit generator, which it leaves untouched, and
:func:`store_rng_state` writes the advanced state back, so the generator continues the
stream where the kernel stopped.

The hot helpers are ``inline="always"``: numba inlines them at the IR level into the
kernel's loop, which keeps the state array's reference counting out of it.  A kernel
cached with ``cache=True`` does not notice edits to this module (numba checks only the
cached function's own file): clear the kernel's ``__pycache__`` after changing it.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "DRAWS",
    "HI",
    "INC_HI",
    "INC_LO",
    "LO",
    "STATE_SIZE",
    "WORDS",
    "accept_max",
    "accept_max_py",
    "below",
    "below_u64",
    "next_word",
    "randbelow_many",
    "raw_words",
    "rng_state",
    "store_rng_state",
    "umulhi",
]

_CHEAP = np.uint64(0xDA942042E4DD58B5)  # PCG_CHEAP_MULTIPLIER_128 in numpy's pcg64.h
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_S32 = np.uint64(32)
_S48 = np.uint64(48)
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_MASK64 = (1 << 64) - 1

# rng state array layout: the 128-bit state and increment, then the counts the tests compare
HI, LO, INC_HI, INC_LO, DRAWS, WORDS = range(6)
STATE_SIZE = 6


@intrinsic
def umulhi(typingctx, a, b):  # type: ignore[no-untyped-def]
    """High 64 bits of the 128-bit product of two uint64 (one ``mul`` on x86-64)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(product, ir.Constant(i128, 64)), ir.IntType(64))

    return sig, codegen


@njit(inline="always")
def next_word(rs: np.ndarray) -> np.uint64:
    """One raw word, as ``PCG64DXSM.random_raw()``: DXSM output of the pre-step state."""
    hi = rs[HI]
    lo = rs[LO]
    out = hi ^ (hi >> _S32)
    out = out * _CHEAP
    out = out ^ (out >> _S48)
    out = out * (lo | _ONE)
    # state = state * CHEAP (128 x 64 bits) + inc, with the carry of the low half
    new_hi = hi * _CHEAP + umulhi(lo, _CHEAP)
    new_lo = lo * _CHEAP
    low_sum = new_lo + rs[INC_LO]
    carry = _ONE if low_sum < new_lo else _ZERO
    rs[HI] = new_hi + rs[INC_HI] + carry
    rs[LO] = low_sum
    rs[WORDS] += _ONE
    return out


@njit(inline="always")
def below_u64(rs: np.ndarray, n: np.uint64, max_kept: np.uint64) -> np.uint64:
    """``randbelow(n)``; ``max_kept = 2**64 - 1 - 2**64 % n`` (:func:`accept_max`) is the largest
    word kept."""
    while True:
        word = next_word(rs)
        if word <= max_kept:
            rs[DRAWS] += _ONE
            return word % n


@njit(inline="always")
def below(rs: np.ndarray, n: np.uint64, max_kept: np.uint64) -> int:
    """``randbelow(n)`` as an index (for ranges far below 2**63, as every game draw is)."""
    return np.int64(below_u64(rs, n, max_kept))


@njit(inline="always")
def accept_max(n: np.uint64) -> np.uint64:
    """The largest raw word :func:`below_u64` keeps for ``randbelow(n)``, in the kernel."""
    nu = np.uint64(n)
    return _ALL_ONES - (_ZERO - nu) % nu


def accept_max_py(n: int) -> int:
    """:func:`accept_max` in Python, for tables built before the kernel runs."""
    return _MASK64 - ((1 << 64) % n)


def rng_state(bit_generator: np.random.PCG64DXSM) -> np.ndarray:
    """The kernel's state array for a numpy PCG64DXSM (which it leaves untouched)."""
    if not isinstance(bit_generator, np.random.PCG64DXSM):
        raise TypeError(f"the kernel runs on np.random.PCG64DXSM, got {type(bit_generator).__name__}")
    st = bit_generator.state["state"]
    state, inc = int(st["state"]), int(st["inc"])
    return np.array([state >> 64, state & _MASK64, inc >> 64, inc & _MASK64, 0, 0], dtype=np.uint64)


def store_rng_state(bit_generator: np.random.PCG64DXSM, rs: np.ndarray) -> None:
    """Write the kernel's advanced state back, so the bit generator continues from it."""
    full = bit_generator.state
    full["state"]["state"] = (int(rs[HI]) << 64) | int(rs[LO])
    bit_generator.state = full


@njit(cache=True)
def raw_words(rs: np.ndarray, count: int) -> np.ndarray:
    """``count`` raw words from the kernel generator: checked against ``random_raw``."""
    out = np.empty(count, dtype=np.uint64)
    for i in range(count):
        out[i] = next_word(rs)
    return out


@njit(cache=True)
def randbelow_many(rs: np.ndarray, ns: np.ndarray) -> np.ndarray:
    """One ``randbelow(ns[i])`` per entry (``ns`` uint64): checked against ``SeededRandom``."""
    out = np.empty(ns.shape[0], dtype=np.uint64)
    for i in range(ns.shape[0]):
        out[i] = below_u64(rs, ns[i], accept_max(ns[i]))
    return out
