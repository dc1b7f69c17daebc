"""What a section of the bundle hands back, and the options the builders share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from reelforge.engine.game import Game
from reelforge.rng import RandomSource, SystemRandom

Say = Callable[[str], None]


def quiet(_: str) -> None:
    pass


class RawSource(Protocol):
    def raw_bytes(self, n: int) -> bytes: ...


@dataclass
class Section:
    """One part of the bundle: its files (relative to the bundle folder), its verdict (None:
    evidence without a verdict) and a few summary lines for the index page."""

    key: str
    title: str
    files: list[str]
    passed: bool | None
    summary: list[str] = field(default_factory=list)


SectionBuilder = Callable[[Game, Path], Section]


@dataclass
class Options:
    """Sample sizes and sources.  ``source`` is what the scaled-outcome tests draw through and
    ``raw_source`` what feeds dieharder and ent: the production source unless a test injects
    another (a biased one, to see the tests fail)."""

    variants: list[str] | None = None  # None: every RTP variant
    modes: list[str] | None = None  # None: every mode
    rounds: int = 1_000_000  # simulated rounds per variant and mode
    seed: int = 2024
    rng_draws: int = 1_000_000  # draws per table for the chi-square, runs and serial tests
    ent_bytes: int = 100_000_000
    dieharder_tests: list[int] | None = None  # None: the whole battery (-a)
    skip_dieharder: bool = False
    source: Callable[[], RandomSource] = SystemRandom
    raw_source: Callable[[], RawSource] = SystemRandom
    say: Say = quiet
