"""The law of one round's total win, and the figures a math designer reads off it.

A :class:`WinDistribution` is game-independent: the probability of every win amount in
credits (the stake is ``stake`` credits), either exact (``Fraction``s) or as a rigorous
floating-point enclosure (:class:`reelforge.engine.pmf_bounds.PmfBounds`: every probability
lies between two floats, plus a tiny mass whose place is not known).  Every figure is
returned as a :class:`Bounded` ``[low, high]`` that contains the true value; for an exact law
``low == high``.  Never a sample: games compute these from their structure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the arithmetic (numpy, scipy) loads only where a law is computed
    from reelforge.engine.pmf_bounds import PmfBounds

# Bands of the win in multiples of the stake: "0" is no win at all, then (low, high]; the
# last band runs from 1000x to just below the cap (or without end for a game with none),
# and the cap is a band of its own.
BAND_EDGES = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Bounded:
    """A figure known to lie in ``[low, high]``."""

    low: float
    high: float
    exact: Fraction | None = None

    @classmethod
    def of(cls, value: Fraction | int) -> Bounded:
        f = Fraction(value)
        x = f.numerator / f.denominator
        return cls(x, x, f)

    @property
    def value(self) -> float:
        return (
            self.exact.numerator / self.exact.denominator
            if self.exact is not None
            else (self.low + self.high) / 2
        )

    @property
    def bound(self) -> float:
        """Half the width: the true value is within ``value +- bound``."""
        return 0.0 if self.exact is not None else (self.high - self.low) / 2

    @property
    def one_in(self) -> float | None:
        return 1 / self.value if self.value > 0 else None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "low": self.low, "high": self.high, "bound": self.bound}
        if self.exact is not None:
            out["fraction"] = f"{self.exact.numerator}/{self.exact.denominator}"
        if self.one_in is not None:
            out["one_in"] = self.one_in
        return out


@dataclass(frozen=True)
class Band:
    label: str
    low_x: float | None  # multiples of the stake: (low_x, high_x]; None: the edge is open
    high_x: float | None
    probability: Bounded

    def as_dict(self) -> dict[str, Any]:
        return {"band": self.label, "from_x": self.low_x, "to_x": self.high_x, **self.probability.as_dict()}


@dataclass(frozen=True, eq=False)
class WinDistribution:
    """The law of one round's win in credits; ``stake`` credits are one stake."""

    game: str
    variant: str
    mode: str
    stake: int
    cap: int | None  # credits a round's win is capped at (the last cell), None if none
    method: str
    error_bound: str  # how the enclosure was obtained, in words
    bounds: PmfBounds | None = None
    exact_pmf: Mapping[int, Fraction] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if (self.bounds is None) == (self.exact_pmf is None):
            raise ValueError("a win distribution is either exact or bounded")
        if self.bounds is not None and self.cap is not None and self.bounds.cap != self.cap:
            raise ValueError("the enclosure's last cell must be the cap")

    # -- probabilities --------------------------------------------------------------------

    def probability(self, start: int, stop: int | None = None) -> Bounded:
        """``P(start <= win < stop)`` for whole credits; ``stop=None``: no upper end."""
        if self.exact_pmf is not None:
            total = sum(
                (p for x, p in self.exact_pmf.items() if x >= start and (stop is None or x < stop)),
                Fraction(0),
            )
            return Bounded.of(total)
        assert self.bounds is not None
        end = self.bounds.cap + 1 if stop is None else stop
        lo, hi = self.bounds.probability(start, end)
        return Bounded(lo, min(hi, 1.0))

    @property
    def top(self) -> int:
        """The largest amount that may occur (the cap for a capped game)."""
        if self.cap is not None:
            return self.cap
        assert self.exact_pmf is not None
        return max(x for x, p in self.exact_pmf.items() if p > 0)

    def p_no_win(self) -> Bounded:
        return self.probability(0, 1)

    def p_at_most_stake(self) -> Bounded:
        """A return at or below the stake: no win, or a win that does not exceed it."""
        return self.probability(0, self.stake + 1)

    def p_cap(self) -> Bounded | None:
        return None if self.cap is None else self.probability(self.cap, self.cap + 1)

    def max_win(self) -> tuple[int, Bounded]:
        """``(credits, probability)`` of the largest win: the cap, or the largest amount."""
        return self.top, self.probability(self.top, self.top + 1)

    def bands(self) -> list[Band]:
        """No win, then (0,1], (1,2], ... (500,1000], above 1000x, each stopping short of the
        cap, and the cap itself (bands wholly above the cap are left out)."""
        out = [Band("0 (no win)", None, 0, self.p_no_win())]
        cap_x = None if self.cap is None else self.cap / self.stake
        edges: list[float | None] = [*BAND_EDGES, None]
        for low, high in itertools.pairwise(edges):
            assert low is not None
            if cap_x is not None and low >= cap_x:
                break
            start = int(low * self.stake) + 1
            if cap_x is not None and (high is None or high >= cap_x):  # runs into the cap
                assert self.cap is not None
                label = f"({_x(low)}x, {_x(cap_x)}x)"
                out.append(Band(label, low, cap_x, self.probability(start, self.cap)))
                break
            if high is None:
                out.append(Band(f"> {_x(low)}x", low, None, self.probability(start)))
            else:
                stop = int(high * self.stake) + 1
                out.append(Band(f"({_x(low)}x, {_x(high)}x]", low, high, self.probability(start, stop)))
        if self.cap is not None and cap_x is not None:
            out.append(
                Band(f"{_x(cap_x)}x (the cap)", cap_x, cap_x, self.probability(self.cap, self.cap + 1))
            )
        return out

    # -- moments --------------------------------------------------------------------------

    def _moment(self, power: int) -> Bounded:
        if self.exact_pmf is not None:
            return Bounded.of(sum((Fraction(x) ** power * p for x, p in self.exact_pmf.items()), Fraction(0)))
        assert self.bounds is not None
        return Bounded(*self.bounds.moment(power))

    def mean(self) -> Bounded:
        """The return in stakes: the RTP of the game as played (cap applied)."""
        m = self._moment(1)
        if m.exact is not None:
            return Bounded.of(m.exact / self.stake)
        return Bounded(m.low / self.stake * (1 - 2e-16), m.high / self.stake * (1 + 2e-16))

    def sd(self) -> Bounded:
        """Standard deviation of one round's win in stakes: the volatility index."""
        m1 = self._moment(1)
        m2 = self._moment(2)
        if m1.exact is not None and m2.exact is not None:
            var = (m2.exact - m1.exact**2) / self.stake**2
            root = math.sqrt(var.numerator / var.denominator)
            return Bounded(root, root)  # the root of a fraction: exact to the float
        lo = max(m2.low - m1.high**2, 0.0) * (1 - 1e-15)
        hi = (m2.high - m1.low**2) * (1 + 1e-15)
        return Bounded(math.sqrt(lo) / self.stake * (1 - 1e-15), math.sqrt(hi) / self.stake * (1 + 1e-15))

    # -- output ---------------------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        top, p_top = self.max_win()
        out: dict[str, Any] = {
            "game": self.game,
            "variant": self.variant,
            "mode": self.mode,
            "stake_credits": self.stake,
            "cap_credits": self.cap,
            "method": self.method,
            "error_bound": self.error_bound,
            "mean": self.mean().as_dict(),
            "volatility_index": self.sd().as_dict(),
            "p_no_win": self.p_no_win().as_dict(),
            "p_return_at_most_stake": self.p_at_most_stake().as_dict(),
            "max_win": {"credits": top, "multiple": top / self.stake, **p_top.as_dict()},
            "bands": [b.as_dict() for b in self.bands()],
        }
        if self.bounds is not None:
            out["unplaced_mass"] = self.bounds.unplaced
        out.update(self.details)
        return out


def _x(multiple: float | None) -> str:
    if multiple is None:
        return ""
    return f"{multiple:,.0f}" if float(multiple).is_integer() else f"{multiple:,.2f}"
