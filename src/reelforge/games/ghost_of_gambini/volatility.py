"""The base round's volatility for the tuner: exact, and cheap for every candidate file.

:func:`.base_moments.round_moments` takes seconds (the sums over pairs of lines and the
jackpot rewind's polynomials), too slow for the hundreds of candidates a tuning step scores.
But those sums do not depend on what the tuner moves:

* a coin turned into another on an outer position changes only that position's prize
  values ``V(p, c)`` (a coin never matches a line symbol nor is a blank, so every line
  event's and every blank's probability stays; the rewind lands on jackpots only);
* the ghost's prize weights change only the ghost coins' moments ``E[G]``, ``E[G^2]``;
* a frame table changes only its level's mean and variance: the final board's law, and so
  its counts' moments, do not depend on what frames turn into, nor do the piggies' chain and
  the odds of each feature.

So :class:`BaseVolatility` holds the lines' moments, the wild terms' coefficients
(:class:`.base_moments.WildLinear`), the boards' moments and the stationary trigger odds of a
reference file, and puts a candidate's values back into the formulas the full calculator
uses (``wild_combine``, ``spin_combine``, ``feature_combine``, ``round_combine``): the same
fractions, for a millisecond or two.  A file that differs from the reference in anything
else is refused (:func:`skeleton`).  The figure is the variance of a round's uncapped win,
over the piggies' stationary law, in stakes squared.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from .base_moments import (
    KINDS,
    Constraint,
    constraints_at,
    ghost_coin_moments,
    line_moments,
    prize_values,
    round_combine,
    spin_combine,
    stationary_trigger,
    wild_combine,
    wild_linear,
)
from .data_model import OUTER, GambiniData
from .feature_moments import LEVELS, board_moments, feature_combine, frame_moments, kind_of

FEATURES = ("lock_spin", "super_lock_spin")


def skeleton(d: GambiniData) -> dict[str, Any]:
    """The file less what the tuner's moves change (which coin is where, the ghost's prize
    weights, the frame tables, the variant's name): what the cached sums depend on."""
    raw = d.model_dump(mode="json")
    raw["strips"] = [["$" if s in d.coin_values else s for s in strip] for strip in d.strips]
    raw["game"].pop("variant")
    raw["ghost_coins"].pop("prizes")
    for feature in FEATURES:
        raw[feature].pop("frames")
    return raw


def strip_law(strip: tuple[str, ...]) -> dict[str, Fraction]:
    """The symbol an outer position shows: each stop equally likely."""
    return {s: Fraction(n, len(strip)) for s, n in Counter(strip).items()}


@dataclass(frozen=True)
class Values:
    """What the moves change: per outer position its prize values, the ghost coins'
    moments, per feature and level its frames' mean and variance."""

    outer: dict[int, dict[Constraint, Fraction]]
    ghost: tuple[Fraction, Fraction]
    levels: dict[str, tuple[tuple[Fraction, Fraction], ...]]


class BaseVolatility:
    """The variance of a base round, for files sharing the reference's :func:`skeleton`."""

    def __init__(self, reference: GambiniData) -> None:
        self._skeleton = skeleton(reference)
        self._lines = line_moments(reference)
        self._wild = wild_linear(reference)
        self._constraints = constraints_at(self._wild)
        self._boards = {k: board_moments(reference, *kind_of(k)) for k in KINDS}
        self._trigger = stationary_trigger(reference)
        self._bet = reference.game.base_credits

    def values(self, d: GambiniData) -> Values:
        if skeleton(d) != self._skeleton:
            raise ValueError("the file differs from the reference in more than coins and weight tables")
        outer = {p: self._position(d, p, d.strips[p]) for p in OUTER}
        levels = {f: self._levels(d, f, getattr(d, f).frames.model_dump()) for f in FEATURES}
        return Values(outer, ghost_coin_moments(d), levels)

    def _position(self, d: GambiniData, p: int, strip: tuple[str, ...]) -> dict[Constraint, Fraction]:
        return prize_values(d, strip_law(strip), self._constraints[p])

    @staticmethod
    def _levels(
        d: GambiniData, feature: str, frames: dict[str, dict[str, int]]
    ) -> tuple[tuple[Fraction, Fraction], ...]:
        return tuple(frame_moments(d, frames[lv]) for lv in LEVELS)

    def with_strip(self, d: GambiniData, v: Values, p: int, strip: tuple[str, ...]) -> Values:
        return replace(v, outer={**v.outer, p: self._position(d, p, strip)})

    def with_ghost(self, d: GambiniData, v: Values, prizes: dict[str, int]) -> Values:
        return replace(v, ghost=ghost_coin_moments(d, prizes))

    def with_frames(
        self, d: GambiniData, v: Values, feature: str, level: str, table: dict[str, int]
    ) -> Values:
        levels = list(v.levels[feature])
        levels[LEVELS.index(level)] = frame_moments(d, table)
        return replace(v, levels={**v.levels, feature: tuple(levels)})

    def variance(self, v: Values) -> Fraction:
        x = spin_combine(self._lines, wild_combine(self._wild, v.outer), v.ghost)
        feats = {}
        for k in KINDS:
            super_, _ = kind_of(k)
            feats[k] = feature_combine(self._boards[k], v.levels[FEATURES[super_]])
        mean, second = round_combine(x, feats, self._trigger)
        return (second - mean * mean) / self._bet**2


class SharedVolatility:
    """One :class:`BaseVolatility` for a tuning run's stages, built when first asked for:
    the stages change nothing it holds, so the first stage's data serves every later one."""

    def __init__(self) -> None:
        self._model: BaseVolatility | None = None

    def get(self, d: GambiniData) -> BaseVolatility:
        if self._model is None:
            self._model = BaseVolatility(d)
        return self._model
