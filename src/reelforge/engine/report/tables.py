"""The tables a game's PAR adapter fills (reel sets, paytables, odds, checks): what the sheet
prints, game-independent.

Every key figure carries a ``key`` (written as ``data-key`` on its cell) and its unrounded
``value`` (``data-value``), so that a reader's tools, and the tests, find a figure by name
instead of by its place on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reelforge.engine.distribution import Bounded


@dataclass(frozen=True)
class Cell:
    text: str
    key: str | None = None  # data-key
    value: float | None = None  # data-value: the figure before rounding
    cls: str = ""  # extra CSS classes ("num", "outside", ...)
    title: str = ""  # a tooltip (the exact fraction, a bound)


CellLike = Cell | str


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[CellLike]]
    note: str = ""
    id: str = ""


@dataclass(frozen=True)
class ReelSet:
    """One reel set as the data file has it: one strip per reel (or per position)."""

    name: str
    labels: list[str]  # a column heading per strip: "Reel 1", "R3 mid", ...
    strips: list[tuple[str, ...]]
    note: str = ""
    names: dict[str, str] = field(default_factory=dict)  # symbol code -> name, in paytable order


@dataclass(frozen=True)
class MaxWin:
    """The largest win one round can pay, in stakes, and its odds where they are known."""

    multiple: float | None
    probability: Bounded | None  # low < high: a bracket, not a rounding bound
    text: str  # how it is reached
    bracket: bool = False  # the probability is a bracket [low, high], not a point
    odds_note: str = ""  # where the odds come from, or why they are not available (no distribution)


@dataclass(frozen=True)
class RateCheck:
    """An exact frequency that a simulation counter estimates: ``sum(counters) / per``."""

    label: str
    key: str
    exact: float
    counters: tuple[str, ...]
    per: str | None = None  # a counter as denominator; None: rounds
    note: str = ""
