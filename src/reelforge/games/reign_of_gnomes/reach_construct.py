"""Reign of Gnomes' max win, constructed by hand from the reel strips.

The cap (``game.max_win`` × the stake) is reached through Spin To Win: every Spin To Win game
that wins nothing adds one to the multiplier of the next.  The sequence: base stops showing
three scatters (Dragon Spins), then one free spin whose wheel draw lands on Spin To Win,
``L`` losing Spin To Win games and one winning game whose way win times ``L + 1`` reaches
the cap.  The winning stops are, per reel, the stop showing most of the best symbol (or the
wild); ``L`` is the fewest losses that reach the cap.
"""

from __future__ import annotations

from typing import Any

from reelforge.engine.evaluate import evaluate_ways
from reelforge.engine.reels import ReelSet
from reelforge.engine.report.script import Planned, Script, offset
from reelforge.engine.round import Action, Round

from .data_model import GnomesData

METHOD = (
    "constructed by hand from the reel strips (construct_gnomes): three scatters on the base reels, "
    "the wheel's Spin To Win, losing Spin To Win games until the multiplier times the best winning "
    "window's way win reaches the cap"
)


def _rows(reels: ReelSet, reel: int, stop: int) -> list[str]:
    return reels.strips[reel].view(stop, reels.rows)


def _stop_where(reels: ReelSet, reel: int, test: Any) -> int:
    return next(s for s in range(len(reels.strips[reel])) if test(_rows(reels, reel, s)))


def trigger_stops(d: GnomesData) -> list[int]:
    """Scatters in view on reels 1-3, none on reels 4-5: three scatters."""
    b = d.base
    return [_stop_where(b, r, lambda w: d.scatter in w) for r in range(3)] + [
        _stop_where(b, r, lambda w: d.scatter not in w) for r in (3, 4)
    ]


def losing_stops(d: GnomesData) -> list[int]:
    """Spin To Win stops with no way win: reels 1 and 2 share no symbol and reel 2 holds no wild."""
    stw = d.spin_to_win
    for a in range(len(stw.strips[0])):
        w1 = set(_rows(stw, 0, a))
        for b in range(len(stw.strips[1])):
            w2 = set(_rows(stw, 1, b))
            if not w1 & w2 and d.wild not in w2:
                return [a, b, 0, 0, 0]
    raise ValueError("every Spin To Win game wins: the multiplier cannot grow")


def _ways_credits(d: GnomesData, reels: ReelSet, stops: list[int]) -> int:
    return sum(w.credits for w in evaluate_ways(reels.window(stops), d.ways_pays, d.wild))


def winning_stops(d: GnomesData) -> tuple[list[int], int]:
    """The best of, per paying symbol, the stops showing most of it (wild counted) per reel."""
    stw = d.spin_to_win
    best: tuple[list[int], int] = ([], 0)
    for symbol in d.ways_pays:
        stops = []
        for r in range(len(stw.strips)):
            n = len(stw.strips[r])
            stops.append(
                max(range(n), key=lambda s, r=r: sum(x in (symbol, d.wild) for x in _rows(stw, r, s)))
            )
        credits = _ways_credits(d, stw, stops)
        if credits > best[1]:
            best = (stops, credits)
    return best


def construct(d: GnomesData) -> tuple[list[Planned], str]:
    cap = d.game.max_win * d.game.base_credits
    base = d.base.window(trigger_stops(d))
    base_credits = sum(w.credits for w in evaluate_ways(base, d.ways_pays, d.wild))
    base_credits += d.scatter_pays.get(3, 0) * d.game.base_credits
    win_stops, win_credits = winning_stops(d)
    losses = max(0, -(-(cap - base_credits) // win_credits) - 1)  # fewest L with W (L + 1) >= rest
    wheel = offset({i: s.weight for i, s in enumerate(d.wheel)}, _spin_to_win_index(d))
    free = [wheel, *losing_stops(d) * losses, *win_stops]

    def step(rnd: Round) -> tuple[Action, Script]:
        return Action(name="spin"), Script(free)  # one free spin: the cap ends the round

    note = (
        f"{losses} losing Spin To Win games, then a way win of {win_credits:,} credits "
        f"× {losses + 1} on the stops {win_stops}"
    )
    return [Planned(lambda _: Script(trigger_stops(d)), None, step)], note


def _spin_to_win_index(d: GnomesData) -> int:
    return next(i for i, s in enumerate(d.wheel) if s.award == "spin_to_win")
