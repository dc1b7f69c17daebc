"""What a PAR sheet holds, game-independent: the tables of cells a game gives
(:mod:`reelforge.engine.report.tables`), exact figures and the simulated figures beside them.
The games' PAR adapters and :mod:`.gather` fill it; :mod:`.render` only prints.

Every key figure carries a ``key`` (written as ``data-key`` on its cell) and its unrounded
``value`` (``data-value``), so that a reader's tools, and the tests, find a figure by name
instead of by its place on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reelforge.engine.distribution import Bounded
from reelforge.engine.report.tables import Cell, CellLike, MaxWin, RateCheck, ReelSet, Table

Z90 = 1.6448536269514722
Z95 = 1.959963984540054
Z99 = 2.5758293035489004
CONFIDENCE = (("90%", Z90), ("95%", Z95), ("99%", Z99))


@dataclass
class ExactPart:
    """Everything the sheet takes from the data file and the exact calculators."""

    game_id: str
    game_name: str
    version: str
    variant: str
    mode: str
    currency: str
    data_files: list[tuple[str, str]]  # (file name, sha256)
    reel_sets: list[ReelSet]
    paytables: list[Table]
    bets: Table
    exact: dict[str, Any]  # the game's exact() report
    odds: list[Table]
    extra: list[Table]  # game-specific exact tables (return by state, by bet, by play)
    max_win: MaxWin
    distribution: Any | None  # an engine.distribution.WinDistribution, or None
    distribution_note: str
    checks: list[RateCheck]
    hit_comparable: bool
    hit_note: str
    stake_credits: int | None  # the simulation's stake, in its win units (None: no replay)
    cap_credits: int | None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    # The volatility index where the game has it exactly without the whole law (None: from
    # the law, or simulated).
    sd: Any | None = None


@dataclass
class SimPart:
    """A simulation: :func:`reelforge.analysis.simulate.simulate`'s result, and the same rounds
    replayed one by one: ``histogram`` (round win in credits -> rounds), for the bands and the
    interval of the standard deviation."""

    result: dict[str, Any]
    histogram: dict[int, int] | None = None
    replay_note: str = ""
    seconds: float = 0.0

    @property
    def rounds(self) -> int:
        return int(self.result["rounds"])


@dataclass(frozen=True)
class Comparison:
    """An exact figure beside its simulated estimate and the estimate's 99% interval."""

    label: str
    key: str
    kind: str  # "pct" (a fraction printed as %), "x" (a multiple of the stake), "prob"
    exact: Bounded | None
    sim: float | None
    low: float | None
    high: float | None
    note: str = ""
    compare: bool = True  # False: the two count different events; shown side by side only

    @property
    def outside(self) -> bool:
        """The exact figure (its whole enclosure) lies outside the simulated interval."""
        if not self.compare or self.exact is None or self.low is None or self.high is None:
            return False
        return self.exact.high < self.low or self.exact.low > self.high


__all__ = [
    "CONFIDENCE", "Z90", "Z95", "Z99", "Cell", "CellLike", "Comparison", "ExactPart", "MaxWin",
    "RateCheck", "ReelSet", "SimPart", "Table",
]  # fmt: skip
