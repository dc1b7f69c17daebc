"""Payline and scatter evaluation of one 5x3 window, the readable way the rules deal it.

A line pays its one best combination, left to right from reel 1:

* a leading run of ``W`` wilds pays as wilds (``wild_pays[W]``, when the data gives the wild
  pays of its own) or stands for the symbol ``X`` that ends it; ``X`` then pays for the run of
  ``X`` or wild from reel 1, ``L`` long (``line_pays[X][L]``); the larger of the two is paid;
* a line of five wilds pays ``wild_pays[5]``, or, for a wild without pays, the best five of
  a kind of any paying symbol;
* the wild never stands for the scatter: a scatter ends a run and pays nothing on a line.

Scatters pay anywhere, by how many are in view, times the total bet.  The exact calculator
(:mod:`.exact`), the window enumeration (:mod:`.enumerate`) and the kernel follow these
rules; the tests hold them to this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reelforge.engine.reels import Window

from .data_model import REELS, LinesData


@dataclass(frozen=True)
class LineResult:
    symbol: str
    length: int
    pay: int  # credits per line, from the paytable


def five_wild(d: LinesData) -> tuple[str, int]:
    """What a line of five wilds pays, and as which symbol."""
    assert d.wild is not None
    if d.wild_pays:
        return d.wild, d.wild_pays.get(REELS, 0)
    best = max(d.line_pays, key=lambda code: d.line_pay(code, REELS))
    return best, d.line_pay(best, REELS)


def line_result(symbols: Sequence[str], d: LinesData) -> LineResult | None:
    """The line's best combination, None when it pays nothing."""
    wild = d.wild
    w = 0
    while w < REELS and symbols[w] == wild:
        w += 1
    if w == REELS:
        code, pay = five_wild(d)
        return LineResult(code, REELS, pay) if pay else None
    x = symbols[w]
    length = w + 1
    while length < REELS and symbols[length] in (x, wild):
        length += 1
    best: LineResult | None = None
    x_pay = d.line_pay(x, length)
    if x_pay:
        best = LineResult(x, length, x_pay)
    w_pay = d.wild_pays.get(w, 0)
    if w_pay > (best.pay if best else 0):
        assert wild is not None
        best = LineResult(wild, w, w_pay)
    return best


def evaluate_window(
    d: LinesData, window: Window, multiplier: int = 1
) -> tuple[list[dict], list[list[int]], int]:
    """The line wins (JSON, credits after ``multiplier``), the scatters' positions, and the
    scatter pay in credits (after ``multiplier``)."""
    wins: list[dict] = []
    for index, rows in enumerate(d.paylines):
        found = line_result([window[r][row] for r, row in enumerate(rows)], d)
        if found is not None:
            wins.append(
                {
                    "line": index,
                    "symbol": found.symbol,
                    "length": found.length,
                    "pay": found.pay,
                    "credits": found.pay * multiplier,
                    "positions": [[r, rows[r]] for r in range(found.length)],
                }
            )
    scatters = (
        [[r, row] for r, col in enumerate(window) for row, s in enumerate(col) if s == d.scatter]
        if d.scatter is not None
        else []
    )
    scatter_credits = d.scatter_pays.get(len(scatters), 0) * d.lines * multiplier
    return wins, scatters, scatter_credits
