"""RNG: the scaling of raw words and bits, checked draw by draw; reproducibility and replay.

The scaling tests feed each source known raw words (SeededRandom) or known bits
(SystemRandom) and assert the exact integer dealt and how many words or bits it took, so a
modulo shortcut or a dropped rejection step fails here deterministically.  The statistical
checks of the sources are in ``test_rng_stats.py``.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Sequence

import pytest

from reelforge.rng import (
    RecordingRandom,
    ReplayError,
    ReplayRandom,
    ScriptedRandom,
    SeededRandom,
    SystemRandom,
    randbelow_from_bits,
    rejection_limit,
    scale_unbiased,
    shuffle,
    weighted_index,
)


def test_rejection_limit_is_the_largest_multiple_below_two_to_64() -> None:
    for n in (1, 2, 3, 7, 37, 2**33 + 1, 2**63 + 5):
        limit = rejection_limit(n)
        assert limit % n == 0
        assert 2**64 - n < limit <= 2**64


def test_words_in_the_biased_tail_are_rejected() -> None:
    # 2**64 mod 3 == 1: the single top word would favour residue 0, so it is redrawn.
    assert scale_unbiased(2**64 - 1, 3) is None
    assert scale_unbiased(2**64 - 2, 3) == (2**64 - 2) % 3
    assert scale_unbiased(5, 3) == 2


def test_scaling_is_exactly_uniform_over_the_accepted_words() -> None:
    # With a 4-bit word (16 values) and n = 6, the accepted words 0..11 hit each
    # residue exactly twice; the same arithmetic is used at 64 bits.
    counts = [0] * 6
    for word in range(16):
        if word < 16 - 16 % 6:
            counts[word % 6] += 1
    assert counts == [2] * 6


def test_randbelow_rejects_bad_ranges() -> None:
    for src in (SystemRandom(), SeededRandom(1)):
        for bad in (0, -1, 2.5, True):
            with pytest.raises(ValueError, match="positive integer"):
                src.randbelow(bad)  # type: ignore[arg-type]


def test_same_seed_same_stream_and_spawned_children_are_independent_of_count() -> None:
    a, b = SeededRandom(42), SeededRandom(42)
    assert [a.randbelow(1000) for _ in range(50)] == [b.randbelow(1000) for _ in range(50)]
    three = [c.randbelow(10**9) for c in SeededRandom(9).spawn(3)]
    five = [c.randbelow(10**9) for c in SeededRandom(9).spawn(5)]
    assert three == five[:3]


def test_recording_and_replay_deal_identical_draws_and_catch_mismatches() -> None:
    rec = RecordingRandom(SeededRandom(3))
    first = [rec.randbelow(n) for n in (5, 40, 41, 7)]
    replay = ReplayRandom(rec.draws)
    assert [replay.randbelow(n) for n in (5, 40, 41, 7)] == first
    assert replay.exhausted
    with pytest.raises(ReplayError, match="exhausted"):
        replay.randbelow(5)
    with pytest.raises(ReplayError, match="recorded range 5"):
        ReplayRandom(rec.draws).randbelow(6)


def test_scripted_random_checks_ranges_then_falls_back() -> None:
    src = ScriptedRandom([3, 0], SeededRandom(1))
    assert src.randbelow(4) == 3
    with pytest.raises(ValueError, match="outside the range"):
        ScriptedRandom([9], SeededRandom(1)).randbelow(4)
    assert src.randbelow(2) == 0
    assert 0 <= src.randbelow(10) < 10


# -- scaling fed known words and bits -----------------------------------------------------------


class Words:
    """A stand-in bit generator: deals the given raw 64-bit words, then fails."""

    def __init__(self, words: Sequence[int]) -> None:
        self.words = list(words)
        self.dealt = 0

    def random_raw(self) -> int:
        assert self.dealt < len(self.words), "asked for more raw words than the test expects"
        self.dealt += 1
        return self.words[self.dealt - 1]


def seeded_on(words: Sequence[int]) -> tuple[SeededRandom, Words]:
    src, fake = SeededRandom(0), Words(words)
    src.bit_generator = fake  # type: ignore[assignment]  # randbelow reads only random_raw
    return src, fake


# Rejection limits worked by hand: 2**64 = 6,148,914,691,236,517,205 * 3 + 1, so one word is
# rejected for n = 3; 2**64 = 1 * (2**63 + 1) + (2**63 - 1), so words from 2**63 + 1 up (just
# under half of them) are rejected; 2**64 = 1 * (2**64 - 1) + 1 leaves only the top word; powers
# of two divide 2**64 and reject nothing.
HAND_LIMITS = {3: 2**64 - 1, 6: 2**64 - 4, 2**63 + 1: 2**63 + 1, 2**64 - 1: 2**64 - 1, 2**40: 2**64, 1: 2**64}


def test_rejection_limits_match_the_hand_worked_values() -> None:
    assert {n: rejection_limit(n) for n in HAND_LIMITS} == HAND_LIMITS


@pytest.mark.parametrize("n", sorted(HAND_LIMITS))
def test_seeded_random_redraws_every_word_at_or_above_the_limit(n: int) -> None:
    limit = HAND_LIMITS[n]
    rejected = [w for w in (limit, limit + 1, 2**64 - 1) if limit <= w < 2**64]  # none when n | 2**64
    # Every rejected edge word is redrawn; the first accepted word (the last below the limit)
    # deals its residue: limit - 1 is a multiple of n minus one, so it deals n - 1.
    src, fake = seeded_on([*rejected, limit - 1])
    assert src.randbelow(n) == n - 1
    assert fake.dealt == len(rejected) + 1
    # The lowest words deal themselves, one word each; a multiple of n deals 0.
    src, fake = seeded_on([0, min(n - 1, 2**64 - 1), limit - n])
    assert [src.randbelow(n) for _ in range(3)] == [0, n - 1, 0]
    assert fake.dealt == 3


def test_seeded_random_deals_a_known_word_stream() -> None:
    # Hand-computed for n = 6 (limit 2**64 - 4): 17 -> 5; 2**64 - 1, -2, -3, -4 all rejected,
    # then 2**64 - 5 = 6k + 5 -> 5 (2**64 = 6k + 4); 2**32 -> 4 (2**32 = 6 * 715,827,882 + 4).
    src, fake = seeded_on([17, 2**64 - 1, 2**64 - 2, 2**64 - 3, 2**64 - 4, 2**64 - 5, 2**32])
    assert [src.randbelow(6) for _ in range(3)] == [5, 5, 4]
    assert fake.dealt == 7


class Bits:
    """A stand-in bit supplier: deals the given integers, recording each request's width."""

    def __init__(self, values: Sequence[int]) -> None:
        self.values = list(values)
        self.asked: list[int] = []

    def __call__(self, k: int) -> int:
        assert len(self.asked) < len(self.values), "asked for more bits than the test expects"
        self.asked.append(k)
        return self.values[len(self.asked) - 1]


def test_system_random_uses_the_os_csprng() -> None:
    assert SystemRandom().randbits is secrets.randbits


@pytest.mark.parametrize("n", [*range(1, 34), 41, 100, 1000])
def test_system_random_takes_bit_length_bits_and_redraws_every_candidate_above_the_range(n: int) -> None:
    k = n.bit_length()
    for candidate in range(2**k):
        bits = Bits([candidate, n - 1])
        got = SystemRandom(bits).randbelow(n)
        if candidate < n:  # accepted as it is: one request
            assert (got, bits.asked) == (candidate, [k])
        else:  # redrawn, never folded modulo n
            assert (got, bits.asked) == (n - 1, [k, k])


def test_system_random_deals_a_known_bit_stream() -> None:
    # n = 6 takes 3 bits; 7 and 6 are redrawn, then 5; n = 41 takes 6 bits: 63..41 redrawn.
    bits = Bits([7, 6, 5, 63, 41, 40, 0])
    src = SystemRandom(bits)
    assert [src.randbelow(6), src.randbelow(41), src.randbelow(1)] == [5, 40, 0]
    assert bits.asked == [3, 3, 3, 6, 6, 6, 1]


def test_bits_outside_the_request_are_refused() -> None:
    for bad in (8, -1):
        with pytest.raises(ValueError, match="3-bit request"):
            randbelow_from_bits(Bits([bad]), 6)


def test_weighted_index_maps_each_draw_to_its_weight_band() -> None:
    # Hand count: bands of 10, 6, 4, 6, 6 and 4 consecutive draws out of 36; zero weights never dealt.
    for weights, bands in (
        ([10, 6, 4, 6, 6, 4], [0] * 10 + [1] * 6 + [2] * 4 + [3] * 6 + [4] * 6 + [5] * 4),
        ([0, 3, 0, 1, 0], [1, 1, 1, 3]),
    ):
        total = len(bands)
        got = []
        for r in range(total):
            rec = RecordingRandom(ScriptedRandom([r], SeededRandom(0)))
            got.append(weighted_index(rec, weights))
            assert rec.draws == [(total, r)]  # one draw, over the total weight
        assert got == bands


def test_shuffle_deals_each_permutation_from_exactly_one_draw_sequence() -> None:
    # Fisher-Yates on 4 items asks for ranges 4, 3, 2 (4 * 3 * 2 = 24 sequences); each sequence
    # must give a different permutation, so uniform draws give uniform permutations exactly.
    seen = {}
    for draws in itertools.product(range(4), range(3), range(2)):
        rec = RecordingRandom(ReplayRandom([(4, draws[0]), (3, draws[1]), (2, draws[2])]))
        items = ["a", "b", "c", "d"]
        shuffle(rec, items)
        assert [n for n, _ in rec.draws] == [4, 3, 2]
        seen[tuple(items)] = draws
    assert len(seen) == 24
    # Worked by hand: draws 0, 0, 0 swap positions 3<->0, 2<->0, 1<->0; draws 1, 2, 0 swap 3<->1,
    # leave 2, swap 1<->0; draws 3, 2, 1 swap nothing.
    assert seen[("b", "c", "d", "a")] == (0, 0, 0)
    assert seen[("d", "a", "c", "b")] == (1, 2, 0)
    assert seen[("a", "b", "c", "d")] == (3, 2, 1)
