"""Each prize's exact odds and the max win's, as a game states them for the reachability
section of its certification bundle."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

RARE = Fraction(1, 100_000_000)  # rarer than 1 in 100,000,000: flagged for the lab


@dataclass(frozen=True)
class Odds:
    """One way to win one prize, and its exact probability ``per`` event.

    ``prize`` names what is won (``"jackpot:GRAND"``); one prize may have several rows (a
    jackpot in the base spin and in Lock & Spin): it is unreachable in a mode when every
    row of it is 0."""

    group: str
    prize: str
    name: str
    pays: str
    probability: Fraction | float | None  # None: not computed (``note`` says why)
    per: str
    source: str
    measure: str = "probability"  # or "expected count" (a count whose mean is the odds)
    note: str = ""
    design: str = ""  # for a 0: why the data rules it out (a prize no table holds), checked

    @property
    def zero(self) -> bool:
        return self.probability is not None and self.probability == 0

    @property
    def rare(self) -> bool:
        return self.probability is not None and 0 < self.probability < RARE

    def to_json(self) -> dict[str, Any]:
        p = self.probability
        out: dict[str, Any] = {
            "group": self.group,
            "prize": self.prize,
            "name": self.name,
            "pays": self.pays,
            "per": self.per,
            "measure": self.measure,
            "probability": None if p is None else float(p),
            "one_in": None if not p else float(1 / Fraction(p)) if isinstance(p, Fraction) else 1 / p,
            "exact": fraction_text(p) if isinstance(p, Fraction) else None,
            "rarer_than_1_in_100m": self.rare,
            "zero": self.zero,
            "source": self.source,
        }
        if self.note:
            out["note"] = self.note
        if self.design:
            out["design"] = self.design
        return out


def fraction_text(p: Fraction, digits: int = 120) -> str | None:
    """``"n/d"``, or None when it would be longer than ``digits`` characters."""
    text = f"{p.numerator}/{p.denominator}"
    return text if len(text) <= digits else None


@dataclass(frozen=True)
class MaxWinOdds:
    """The chance of the max win per round, where the game's calculators give it."""

    low: Fraction | float | None
    high: Fraction | float | None
    source: str

    @property
    def rare(self) -> bool:
        return self.high is not None and 0 < self.high < RARE

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.low, self.high
        return {
            "low": None if lo is None else float(lo),
            "high": None if hi is None else float(hi),
            "exact": lo == hi and lo is not None,
            "rarer_than_1_in_100m": self.rare,
            "source": self.source,
        }
