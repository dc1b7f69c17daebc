"""Win evaluation on a window: ways, paylines and scatters, with wild substitution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from reelforge.engine.reels import Window

Paytable = Mapping[str, Mapping[int, int]]
"""``paytable[symbol][length]`` = credits (per way, per line, or per total bet for scatters)."""


@dataclass(frozen=True)
class WayWin:
    symbol: str
    length: int
    ways: int
    pay: int  # credits per way
    credits: int  # pay * ways
    positions: list[list[int]]  # [reel, row] of each symbol counted

    def to_json(self) -> dict:
        # What dataclasses.asdict gives (the lists copied), without its recursive deepcopy,
        # which cost a spin about as much as evaluating the ways.
        return {
            "symbol": self.symbol, "length": self.length, "ways": self.ways, "pay": self.pay,
            "credits": self.credits, "positions": [list(p) for p in self.positions],
        }  # fmt: skip


@dataclass(frozen=True)
class LineWin:
    line: int
    symbol: str
    length: int
    credits: int
    positions: list[list[int]]

    def to_json(self) -> dict:
        return {
            "line": self.line, "symbol": self.symbol, "length": self.length, "credits": self.credits,
            "positions": [list(p) for p in self.positions],
        }  # fmt: skip


def evaluate_ways(window: Window, paytable: Paytable, wild: str | None = None) -> list[WayWin]:
    """Left-to-right ways: for each paying symbol only its longest combination pays.

    The symbol (or a wild) must show on every reel from the first; the number of ways is
    the product of the matching positions per reel over the combination's length.
    """
    wins: list[WayWin] = []
    for symbol, pays in paytable.items():
        counts: list[list[int]] = []  # rows matching, reel by reel
        for reel in window:
            rows = [r for r, s in enumerate(reel) if s == symbol or (wild is not None and s == wild)]
            if not rows:
                break
            counts.append(rows)
        length = len(counts)
        while length and length not in pays:
            length -= 1  # shorter combinations only if the paytable has no entry
        if length == 0:
            continue
        ways = 1
        for rows in counts[:length]:
            ways *= len(rows)
        positions = [[reel, row] for reel, rows in enumerate(counts[:length]) for row in rows]
        pay = pays[length]
        wins.append(WayWin(symbol, length, ways, pay, pay * ways, positions))
    return wins


def evaluate_lines(
    window: Window,
    lines: Sequence[Sequence[int]],
    paytable: Paytable,
    wild: str | None = None,
    wild_pays: Mapping[int, int] | None = None,
) -> list[LineWin]:
    """Left-to-right paylines; each line pays only its highest combination.

    ``lines[i][reel]`` is the row of line ``i`` on that reel.  A leading run of wilds may
    pay as wilds (``wild_pays``) or substitute for the first other symbol, whichever
    pays more.
    """
    wins: list[LineWin] = []
    for index, line in enumerate(lines):
        symbols = [window[reel][row] for reel, row in enumerate(line)]
        best: LineWin | None = None
        candidates = {s for s in symbols if s != wild and s in paytable}
        for symbol in candidates:
            length = 0
            for s in symbols:
                if s in (symbol, wild):
                    length += 1
                else:
                    break
            credits = paytable[symbol].get(length, 0)
            if credits and (best is None or credits > best.credits):
                best = LineWin(index, symbol, length, credits, [[r, line[r]] for r in range(length)])
        if wild is not None and wild_pays:
            run = 0
            for s in symbols:
                if s != wild:
                    break
                run += 1
            credits = wild_pays.get(run, 0)
            if credits and (best is None or credits > best.credits):
                best = LineWin(index, wild, run, credits, [[r, line[r]] for r in range(run)])
        if best is not None:
            wins.append(best)
    return wins


def scatter_positions(window: Window, symbol: str) -> list[list[int]]:
    return [[reel, row] for reel, col in enumerate(window) for row, s in enumerate(col) if s == symbol]
