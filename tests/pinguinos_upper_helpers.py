"""Scripts that force Los 3 Pinguinos' upper game through the real rules (test-only).

The draw order is the one documented in ``games/los_3_pinguinos/upper_round.py``.  Each helper
returns the draws of one step as ``(range, value)`` pairs computed from the data files, and
:func:`dealt` deals them through :class:`ReplayRandom`, which fails on a draw in another range
and on any draw past the script; the tests check the script is used up, so every test pins the
number and the ranges of the draws each rule makes.

The window and the paylines are judged here by an *oracle* read straight from
``data/upper.toml`` and written from the seed (section 3), independently of ``upper_lines.py``
and of the data schema: it finds the stops that show each situation and computes the prize
the rules must pay.  Where the oracle and the rules disagree, a script runs short or long
(or a draw asks for another range) and the test fails.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

from reelforge.engine.round import Action, Round
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.rng import ReplayRandom

GAME = LosTresPinguinos()
DATA = Path(__file__).parents[1] / "src/reelforge/games/los_3_pinguinos/data"
RAW = tomllib.loads((DATA / "upper.toml").read_text())
VARIANT = tomllib.loads((DATA / "rtp-95.toml").read_text())  # the default variant
KNOBS = VARIANT["upper"]
BV = VARIANT["game"]["bonus_value"]
CAP = VARIANT["game"]["bonus_cap"]
VL_MAX = VARIANT["game"]["vertical_lines_max"]
N = 16
STRIPS = [s.split() for s in RAW["strips"]]
BETS: list[dict[str, Any]] = RAW["bets"]
STAKES = [b["cash"] + b["bonuses"] * BV for b in BETS]  # an upper bet is named by its value
SEVENS = set(RAW["sevens"])
PAYS: dict[str, int] = RAW["pays"]
MINIGAMES: dict[str, str] = RAW["minigames"]
PIECES = RAW["accumulator_pieces"]

Draw = tuple[int, int]  # (range, value)
Stops = tuple[int, int, int]
ALL: list[Stops] = list(product(range(N), repeat=3))


def bet(stake: int) -> dict[str, Any]:
    return BETS[STAKES.index(stake)]


def machine(bonuses: int = 1000, vertical: int = 0, acc: dict[str, int] | None = None) -> dict[str, Any]:
    return {"bonuses": bonuses, "vertical_lines": vertical, "accumulators": dict(acc or {})}


# -- the oracle -----------------------------------------------------------------------


def window(stops: Iterable[int]) -> list[list[str]]:
    """Per reel: the stop above, the stop, the stop below (rows 0, 1, 2)."""
    return [[STRIPS[r][(s + k) % N] for k in (-1, 0, 1)] for r, s in enumerate(stops)]


@dataclass(frozen=True)
class Judged:
    wins: tuple[tuple[int, str, int], ...]  # (1-based line, symbol or "mixed", cents)
    direct: int  # direct prizes summed, cents at the bet, uncapped
    mixed: int  # mixed-sevens lines that draw the bet's table
    minigame: str | None  # named by the first trigger line
    accumulator: bool
    vertical: bool

    @property
    def pays(self) -> bool:
        return self.direct > 0 or self.mixed > 0


@cache
def judge(stops: Stops, stake: int = 100, lines: int = 5) -> Judged:
    w = window(stops)
    cells = [[w[r][row] for r, row in enumerate(line)] for line in RAW["lines"]]
    if lines == 8:
        cells += [list(col) for col in w]  # the three columns are paylines 6-8
    b = bet(stake)
    wins: list[tuple[int, str, int]] = []
    minigame = None
    for n, (x, y, z) in enumerate(cells, start=1):
        if x == y == z and x in PAYS:
            wins.append((n, x, PAYS[x] * b["multiplier"]))
            if minigame is None and x in MINIGAMES:
                minigame = MINIGAMES[x]
        elif {x, y, z} <= SEVENS and b["mixed"]:
            wins.append((n, "mixed", 0))
    shown = {s for col in w for s in col}
    return Judged(
        wins=tuple(wins),
        direct=sum(c for _, _, c in wins),
        mixed=sum(1 for _, s, _ in wins if s == "mixed"),
        minigame=minigame,
        accumulator=RAW["accumulator"] in shown,
        vertical=RAW["vertical_lines"] in shown,
    )


def find(want: Callable[[Stops], bool]) -> Stops:
    for s in ALL:
        if want(s):
            return s
    raise AssertionError("no stops on the strips fit")


def plain(s: Stops) -> bool:
    """Neither the accumulator nor the vertical-lines symbol is shown (no step draw)."""
    j = judge(s)
    return not j.accumulator and not j.vertical


def lost(s: Stops) -> bool:
    """Pays nothing on 8 lines at any bet, and draws nothing."""
    return plain(s) and not judge(s, 13500, 8).wins


# -- draws, in the rules' order ------------------------------------------------------


def weight(table: Mapping[Any, int], key: Any) -> Draw:
    """The draw that selects ``key`` from a weight table walked in file order."""
    acc = 0
    for k, w in table.items():
        if str(k) == str(key):
            assert w > 0, f"{key!r} has weight 0"
            return sum(table.values()), acc
        acc += w
    raise AssertionError(f"{key!r} is not in {dict(table)}")


def yes_no(table: Mapping[str, int], yes: bool) -> Draw:
    """A ``{yes, no}`` chance, drawn as the table ``[no, yes]``."""
    return weight({"no": table["no"], "yes": table["yes"]}, "yes" if yes else "no")


def spin(stops: Stops) -> list[Draw]:
    return [(N, s) for s in stops]


def vertical(step: int) -> Draw:
    return weight(RAW["vertical_step"], step)


def pieces(step: int) -> Draw:
    return weight(RAW["accumulator_step"], step)


def mixed(stake: int, cents: int) -> Draw:
    return weight(bet(stake)["mixed"], cents)


def offer(stake: int, yes: bool, lines: int = 5) -> Draw:
    """The minigame offer of a game on ``lines`` paylines (8 has its own table)."""
    table = KNOBS["minigame_offer_8" if lines == 8 else "minigame_offer"]
    return yes_no(table[STAKES.index(stake)], yes)


def roulette(*sections: int) -> list[Draw]:
    """Sections by index: each after the first is an ``again`` yes; a final no follows unless
    the caller drops it (the sum reached the maximum)."""
    n = len(RAW["roulette"]["sections"])
    out: list[Draw] = [(n, sections[0])]
    for s in sections[1:]:
        out += [yes_no(RAW["roulette"]["again"], True), (n, s)]
    return [*out, yes_no(RAW["roulette"]["again"], False)]


def catch(key: str) -> Draw:
    return weight(RAW["fishing"]["catch"], key)


def fishing(*penguins: Iterable[int], top: int | None = None, multiplier: int = 1) -> list[Draw]:
    """Each penguin's fish (unit cents) then its cross; once the sum reaches ``top`` no draw
    is made at all."""
    out: list[Draw] = []
    total = 0
    for fish in penguins:
        for f in fish:
            out.append(catch(f"C{f}"))
            total += f * multiplier
        if top is None or total < top:
            out.append(catch("X"))
    return out


def slides(prizes: Iterable[int], shuffle: Iterable[int]) -> list[Draw]:
    """The platforms' prizes (unit cents), then Fisher-Yates ``j`` values from the top down."""
    out = [weight(RAW["slides"]["prizes"], f"C{p}") for p in prizes]
    js = list(shuffle)
    n = RAW["slides"]["platforms"]
    assert len(js) == n - 1
    return out + [(i + 1, j) for i, j in zip(range(n - 1, 0, -1), js, strict=True)]


def shuffled(js: Iterable[int]) -> list[int]:
    """The order Fisher-Yates makes of ``range(platforms)`` with the draws ``js``."""
    order = list(range(RAW["slides"]["platforms"]))
    for i, j in zip(range(len(order) - 1, 0, -1), js, strict=True):
        order[i], order[j] = order[j], order[i]
    return order


def double(win: bool) -> Draw:
    return weight(
        {"bonuses": KNOBS["double"]["bonuses"], "double": KNOBS["double"]["double"]},
        "double" if win else "bonuses",
    )


def rounding(value: int) -> Draw:
    return BV, value


def dealt(*parts: Draw | Iterable[Draw]) -> ReplayRandom:
    draws: list[Draw] = []
    for part in parts:
        if isinstance(part, tuple):
            draws.append(part)
        else:
            draws.extend(part)
    return ReplayRandom(draws)


# -- playing and reading rounds -------------------------------------------------------


def start(stake: int, rng: ReplayRandom, state: dict[str, Any] | None = None) -> Round:
    return GAME.start(stake, rng, mode="upper", player_state=machine() if state is None else state)


def act(rnd: Round, name: str, rng: ReplayRandom, choice: int | None = None) -> Round:
    return GAME.act(rnd, Action(name=name, choice=choice), rng)


def types(rnd: Round) -> list[str]:
    return [e["type"] for e in rnd.events]


def only(rnd: Round, kind: str) -> dict[str, Any]:
    (event,) = [e for e in rnd.events if e["type"] == kind]
    return event


def events(rnd: Round, kind: str) -> list[dict[str, Any]]:
    return [e for e in rnd.events if e["type"] == kind]


def actions(rnd: Round) -> list[str]:
    return [a.name for a in rnd.actions]


def done(rnd: Round, rng: ReplayRandom, win: int, bonuses_won: int = 0) -> None:
    """The round is complete, paid ``win`` cents and ``bonuses_won``, and used its script."""
    assert rnd.complete and rnd.actions == [] and rnd.state["phase"] == "done"
    assert rnd.win == rnd.state["credits"] == win
    assert rnd.state["bonuses_won"] == bonuses_won
    assert rnd.events[-1] == {"type": "round_end", "credits": win, "win": win, "bonuses_won": bonuses_won}
    assert rng.exhausted, f"draws left unused: {rng.draws[rng.position :]}"


def paid(rnd: Round) -> list[tuple[str, int, str]]:
    return [(e["how"], e["cents"], e["game"]) for e in events(rnd, "paid")]


# -- stops that show each situation (found by the oracle) --------------------------------


def symbols(s: Stops, stake: int, lines: int) -> list[str]:
    return [w[1] for w in judge(s, stake, lines).wins]


def single(symbol: str) -> Stops:
    """One line of ``symbol`` on 5 and on 8 lines at every bet, nothing else drawn."""
    return find(lambda s: plain(s) and all(symbols(s, b, n) == [symbol] for b in STAKES for n in (5, 8)))


LOST = find(lost)
COLUMN = find(lambda s: plain(s) and not judge(s, 13500, 5).wins and symbols(s, 100, 8) == ["CH"])
MULTI = find(
    lambda s: plain(s) and len(judge(s).wins) >= 3 and len(judge(s, 100, 8).wins) > len(judge(s).wins)
)
MIXED = find(lambda s: plain(s) and all(symbols(s, 13500, n) == ["mixed"] for n in (5, 8)))
AC_LOST = find(lambda s: judge(s).accumulator and not judge(s, 13500, 8).wins)
VL_LOST = find(lambda s: judge(s).vertical and not judge(s, 13500, 8).wins)
AC_CO = find(lambda s: judge(s).accumulator and all(symbols(s, 100, n) == ["CO"] for n in (5, 8)))
VL_IC = find(lambda s: judge(s).vertical and all(symbols(s, 100, n) == ["IC"] for n in (5, 8)))
# a mixed line, a plain line and a minigame line in one window
MIXED_CO = find(
    lambda s: plain(s) and judge(s, 13500, 5).minigame == "fishing" and len(judge(s, 13500, 5).wins) == 3
)
TWO_LINES = find(
    lambda s: plain(s) and symbols(s, 500, 5) == ["CH", "LE"] and symbols(s, 500, 8) == ["CH", "LE"]
)
TRIGGER = {MINIGAMES[k]: single(k) for k in MINIGAMES}


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def line_wins(stops: Stops, stake: int = 100, lines: int = 5) -> list[dict[str, Any]]:
    """The ``wins`` of the ``upper_spin`` event the oracle expects."""
    return [{"line": n, "symbol": s, "cents": c} for n, s, c in judge(stops, stake, lines).wins]


def collect_all(rnd: Round, prize: int) -> Round:
    """At a fresh Double-or-Bonuses of ``prize``: take it whole (draws nothing)."""
    assert rnd.state["phase"] == "double" and actions(rnd) == ["collect_all", "collect", "play"]
    assert rnd.state["double"] == {"prize": prize, "remaining": prize, "secured": 0, "bonuses": 0}
    return act(rnd, "collect_all", dealt())


def open_minigame(kind: str, stake: int = 100, *extra: Draw | Iterable[Draw]) -> tuple[Round, ReplayRandom]:
    """A paid game whose single trigger line is offered its minigame (``extra``: the Slides
    draws at the offer)."""
    rng = dealt(spin(TRIGGER[kind]), offer(stake, True), *extra)
    rnd = start(stake, rng)
    assert rnd.state["phase"] == kind and "double_start" not in types(rnd)
    symbol = {v: k for k, v in MINIGAMES.items()}[kind]
    assert only(rnd, "minigame_start")["replaces"] == PAYS[symbol] * bet(stake)["multiplier"]
    return rnd, rng
