"""What the exact calculators share: fractions of weight tables, and a cache keyed on the
data file."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from reelforge.engine.memo import by_identity

F = Fraction


cache = by_identity()  # the data model holds dicts, so it does not hash


def dist(weights: dict[Any, int]) -> dict[Any, Fraction]:
    total = sum(weights.values())
    return {k: F(w, total) for k, w in weights.items() if w}


def chance(fire: int, skip: int) -> Fraction:
    return F(fire, fire + skip)
