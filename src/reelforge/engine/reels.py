"""Reel strips, reel sets and the window a spin shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reelforge.rng import RandomSource, weighted_index

Window = list[list[str]]
"""``window[reel][row]``: the symbols in view, reel by reel, top row first."""


@dataclass(frozen=True)
class ReelStrip:
    """A circular strip.  A stop shows ``rows`` consecutive symbols from the stop down."""

    symbols: tuple[str, ...]
    weights: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not self.symbols:
            raise ValueError("a reel strip needs at least one symbol")
        if self.weights is not None:
            if len(self.weights) != len(self.symbols):
                raise ValueError("a weighted strip needs one weight per stop")
            if any(w < 0 for w in self.weights) or sum(self.weights) == 0:
                raise ValueError("stop weights must be non-negative with a positive total")

    def __len__(self) -> int:
        return len(self.symbols)

    def draw_stop(self, rng: RandomSource) -> int:
        if self.weights is None:
            return rng.randbelow(len(self.symbols))
        return weighted_index(rng, self.weights)

    def view(self, stop: int, rows: int) -> list[str]:
        n = len(self.symbols)
        return [self.symbols[(stop + r) % n] for r in range(rows)]

    def stop_weight(self, stop: int) -> int:
        return 1 if self.weights is None else self.weights[stop]

    @property
    def total_weight(self) -> int:
        return len(self.symbols) if self.weights is None else sum(self.weights)


@dataclass(frozen=True)
class ReelSet:
    """Independent strips, one per reel, shown ``rows`` high."""

    strips: tuple[ReelStrip, ...]
    rows: int = 3

    @classmethod
    def from_lists(cls, strips: Sequence[Sequence[str]], rows: int = 3) -> ReelSet:
        return cls(tuple(ReelStrip(tuple(s)) for s in strips), rows)

    def draw_stops(self, rng: RandomSource) -> list[int]:
        """One draw per reel, reel 1 first: the order every kernel follows too."""
        return [strip.draw_stop(rng) for strip in self.strips]

    def window(self, stops: Sequence[int]) -> Window:
        return [strip.view(stop, self.rows) for strip, stop in zip(self.strips, stops, strict=True)]

    def spin(self, rng: RandomSource) -> tuple[list[int], Window]:
        stops = self.draw_stops(rng)
        return stops, self.window(stops)

    def windows_of_reel(self, reel: int) -> list[tuple[int, list[str]]]:
        """Every ``(weight, visible symbols)`` of one reel: what exact enumeration walks."""
        strip = self.strips[reel]
        return [(strip.stop_weight(s), strip.view(s, self.rows)) for s in range(len(strip))]
