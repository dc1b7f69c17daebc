"""What the upper game's window shows and pays (pure functions of the stops).

* The window: each reel shows the stop above, the stop and the stop below (rows 0, 1, 2).
* Paylines 1-5 are ``upper.lines`` (a row per reel); with the vertical-lines counter above
  zero, paylines 6-8 are the three reels' columns.
* A line pays when its three symbols are the same and have a prize (``pays``), times the
  bet's ``multiplier``.  Three sevens of mixed colours are a *mixed* line: at a bet with a
  ``mixed`` table each draws a prize from it (:mod:`.upper_round`), elsewhere it pays nothing.
* Three minigame symbols pay their line prize and make the game a minigame trigger: the
  first such line (payline order) names the minigame that may be offered.
* The accumulator and vertical-lines symbols count when shown anywhere in the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .upper_data import ROWS, STOPS, UpperBet, UpperData

Cells = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]  # (reel, row) per reel


@dataclass(frozen=True)
class LineWin:
    line: int  # 1-based payline number
    symbol: str  # the symbol of three; "mixed" for mixed sevens
    cents: int  # the direct prize at the bet (0 for a mixed line: drawn later)


@dataclass(frozen=True)
class Evaluation:
    wins: tuple[LineWin, ...]
    direct: int  # the sum of the direct prizes at the bet, cents (not yet capped)
    mixed_lines: int  # mixed-sevens lines that draw a prize at this bet
    minigame: str | None  # the minigame the first trigger line names
    accumulator: bool  # the accumulator symbol is in the window
    vertical: bool  # the vertical-lines symbol is in the window

    @property
    def pays(self) -> bool:
        """Whether the game pays something (a direct prize or a mixed draw)."""
        return self.direct > 0 or self.mixed_lines > 0


def window(u: UpperData, stops: tuple[int, ...] | list[int]) -> list[list[str]]:
    """Rows 0-2 per reel."""
    return [[u.strips[r][(s + k - 1) % STOPS] for k in range(ROWS)] for r, s in enumerate(stops)]


@cache
def _paylines(lines: tuple[tuple[int, int, int], ...], vertical: bool) -> tuple[Cells, ...]:
    out: list[Cells] = [((0, a), (1, b), (2, c)) for a, b, c in lines]
    if vertical:
        out += [((r, 0), (r, 1), (r, 2)) for r in range(3)]
    return tuple(out)


def paylines(u: UpperData, vertical: bool) -> tuple[Cells, ...]:
    """The cells of each payline: 5, or 8 with the vertical lines."""
    return _paylines(tuple(u.lines), vertical)


def evaluate(u: UpperData, bet: UpperBet, stops: tuple[int, ...] | list[int], vertical: bool) -> Evaluation:
    w = window(u, stops)
    sevens = set(u.sevens)
    wins: list[LineWin] = []
    direct = 0
    mixed = 0
    minigame: str | None = None
    for n, cells in enumerate(paylines(u, vertical), start=1):
        a, b, c = (w[r][row] for r, row in cells)
        if a == b == c and a in u.pays:
            cents = u.pays[a] * bet.multiplier
            wins.append(LineWin(n, a, cents))
            direct += cents
            if minigame is None and a in u.minigames:
                minigame = u.minigames[a]
        elif a in sevens and b in sevens and c in sevens and bet.mixed:
            wins.append(LineWin(n, "mixed", 0))
            mixed += 1
    shown = {s for col in w for s in col}
    return Evaluation(
        wins=tuple(wins),
        direct=direct,
        mixed_lines=mixed,
        minigame=minigame,
        accumulator=u.accumulator in shown,
        vertical=u.vertical_lines in shown,
    )
