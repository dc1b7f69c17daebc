"""One base-game spin of the 15-reel panel: the magic shot, the stops, Magic Rewind, the
ghost's coins, the collection and the line wins.  The piggy toss is in :mod:`.piggies`.

Draw order (the numba kernel follows it draw for draw):

1. Magic shot: one draw over ``magic_shot`` (none, gambini, ghost).
2. One stop per position, reel by reel and top row first (``randbelow(len(strip))``),
   skipping the center when the shot fired (it then shows the first stop of its strip
   that holds the shot's symbol).
3. No wild in the center: one ``magic_rewind.center`` draw; when it fires the center
   reel moves back (stop - 1, stop - 2, ... wrapping) to the nearest Gambini or ghost.
4. A wild in the center:
   a. a blank in view: one ``magic_rewind.jackpot`` draw; when it fires, one draw
      ``randbelow(blanks in view)`` picks a blank (in position order), whose reel moves
      back to the nearest jackpot symbol on its strip;
   b. the ghost: one draw of ``ghost_coins.count``, then per ghost coin one draw of
      ``ghost_coins.prizes`` and one ``randbelow(14)`` for the outer position it lands on;
   c. every coin and jackpot in view, and every ghost coin, is collected.
5. Line wins are read from the final window; they draw nothing.

A ghost coin lies on top of the symbol it lands on: a coin or jackpot there gains its
value, any other symbol keeps counting for the lines (so the lines and the collection are
separate sums).  A blank and a jackpot both break a line, so the jackpot rewind never
changes a line win.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reelforge.engine.evaluate import evaluate_lines
from reelforge.rng import RandomSource, weighted_index

from .data_model import CENTER, N_POS, N_ROWS, OUTER, GambiniData

SHOT_NAMES = (None, "gambini", "ghost")
WILD = "WILD"  # Gambini and the ghost read as one wild on the lines


@dataclass
class SpinOutcome:
    stops: list[int]
    symbols: list[str]  # by position, after the rewinds
    center: str  # final center symbol
    line_credits: int = 0
    collect_credits: int = 0
    event: dict[str, Any] = field(default_factory=dict)

    @property
    def credits(self) -> int:
        return self.line_credits + self.collect_credits

    @property
    def wild_in_center(self) -> str | None:
        """'gambini', 'ghost' or None."""
        return self.event["center_wild"]


def first_stop(strip: tuple[str, ...], symbol: str) -> int:
    return strip.index(symbol)


def rewind_target(strip: tuple[str, ...], stop: int, wanted: frozenset[str] | set[str]) -> int:
    """The nearest stop above ``stop`` (moving the reel back) whose symbol is wanted."""
    n = len(strip)
    for d in range(1, n + 1):
        s = (stop - d) % n
        if strip[s] in wanted:
            return s
    raise ValueError("no wanted symbol on the strip")  # the data model rules this out


def window_of(symbols: list[str]) -> list[list[str]]:
    """``window[reel][row]`` from symbols by position."""
    return [symbols[r * N_ROWS : (r + 1) * N_ROWS] for r in range(N_POS // N_ROWS)]


def line_wins(d: GambiniData, symbols: list[str]) -> list[dict[str, Any]]:
    window = [[WILD if s in d.wild_set else s for s in col] for col in window_of(symbols)]
    return [w.to_json() for w in evaluate_lines(window, d.lines, d.pays, wild=WILD)]


def spin_panel(d: GambiniData, rng: RandomSource) -> SpinOutcome:
    """Steps 1-5 above: one base-game spin, without the piggy toss."""
    shot = SHOT_NAMES[weighted_index(rng, d.magic_shot.weights)]
    stops: list[int] = []
    for p, strip in enumerate(d.strips):
        if p == CENTER and shot is not None:
            wild = d.wilds.gambini if shot == "gambini" else d.wilds.ghost
            stops.append(first_stop(strip, wild))
        else:
            stops.append(rng.randbelow(len(strip)))
    symbols = [strip[s] for strip, s in zip(d.strips, stops, strict=True)]
    event: dict[str, Any] = {
        "type": "spin",
        "shot": shot,
        "stops": list(stops),
        "center_rewind": None,
        "jackpot_rewind": None,
        "ghost_coins": [],
    }
    if symbols[CENTER] not in d.wild_set and weighted_index(rng, d.magic_rewind.center.weights) == 0:
        strip = d.strips[CENTER]
        to = rewind_target(strip, stops[CENTER], d.wild_set)
        event["center_rewind"] = {
            "from": stops[CENTER],
            "to": to,
            "distance": (stops[CENTER] - to) % len(strip),
        }
        stops[CENTER] = to
        symbols[CENTER] = strip[to]
    center = symbols[CENTER]
    wild_kind = None if center not in d.wild_set else ("gambini" if center == d.wilds.gambini else "ghost")
    event["center_wild"] = wild_kind
    collected: list[dict[str, Any]] = []
    collect_credits = 0
    if wild_kind is not None:
        blanks = [p for p in OUTER if symbols[p] == d.blank]
        if blanks and weighted_index(rng, d.magic_rewind.jackpot.weights) == 0:
            p = blanks[rng.randbelow(len(blanks))]
            strip = d.strips[p]
            to = rewind_target(strip, stops[p], set(d.jackpots))
            event["jackpot_rewind"] = {
                "position": p,
                "from": stops[p],
                "to": to,
                "distance": (stops[p] - to) % len(strip),
                "jackpot": strip[to],
            }
            stops[p] = to
            symbols[p] = strip[to]
        extra: dict[int, list[str]] = {}
        if wild_kind == "ghost":
            counts = list(d.ghost_coins.count)
            n = counts[weighted_index(rng, list(d.ghost_coins.count.values()))]
            prizes = list(d.ghost_coins.prizes)
            weights = list(d.ghost_coins.prizes.values())
            for _ in range(n):
                prize = prizes[weighted_index(rng, weights)]
                p = OUTER[rng.randbelow(len(OUTER))]
                extra.setdefault(p, []).append(prize)
                event["ghost_coins"].append(
                    {"position": p, "prize": prize, "credits": d.prize_credits(prize), "on": symbols[p]}
                )
        for p in OUTER:
            prizes_here = ([symbols[p]] if d.is_prize(symbols[p]) else []) + extra.get(p, [])
            if prizes_here:
                credits = sum(d.prize_credits(x) for x in prizes_here)
                collected.append({"position": p, "prizes": prizes_here, "credits": credits})
                collect_credits += credits
    wins = line_wins(d, symbols)
    line_credits = sum(w["credits"] for w in wins)
    event.update(
        {
            "stops": stops,
            "symbols": symbols,
            "window": window_of(symbols),
            "lines": wins,
            "line_credits": line_credits,
            "collected": collected,
            "collect_credits": collect_credits,
            "credits": line_credits + collect_credits,
        }
    )
    return SpinOutcome(stops, symbols, center, line_credits, collect_credits, event)
