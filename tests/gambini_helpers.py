"""Scripts that force Ghost of Gambini outcomes through the real rules (test-only).

Each helper returns the ``randbelow`` values of one step of the draw order documented in
``panel.py``, ``piggies.py`` and ``lock_spin.py``, computed from the data file (strips,
weight tables), so the tests stay valid when the numbers change.  :func:`scripted` deals
them through :class:`ScriptedRandom` with an inner source that fails on any extra draw, so
a test also pins the exact number of draws each rule makes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from reelforge.engine.round import Round
from reelforge.games import get_game
from reelforge.games.ghost_of_gambini import GhostOfGambini
from reelforge.games.ghost_of_gambini.data_model import CENTER, N_POS, OUTER, Chance, Feature
from reelforge.rng import ScriptedRandom

GAME = get_game("ghost-of-gambini")
assert isinstance(GAME, GhostOfGambini)
D = GAME.data()
BET = D.game.base_credits  # credits per game: jackpots are "times the bet"
BLANK = D.blank
GB = D.wilds.gambini
GG = D.wilds.ghost
LS = D.lock_spin
SLS = D.super_lock_spin

K = TypeVar("K")


class NoMoreDraws:
    """The inner source of :func:`scripted`: any draw beyond the script is a test failure."""

    def randbelow(self, n: int) -> int:
        raise AssertionError(f"the rules drew beyond the script (a draw in range {n})")


def scripted(*parts: int | Iterable[int]) -> ScriptedRandom:
    """A ScriptedRandom dealing ``parts`` (values or lists of values) in order, then nothing."""
    script: list[int] = []
    for part in parts:
        script.extend([part] if isinstance(part, int) else part)
    return ScriptedRandom(script, NoMoreDraws())


def pick(table: Mapping[K, int], key: K) -> int:
    """The draw value that selects ``key`` from a weight table walked in file order."""
    acc = 0
    for k, weight in table.items():
        if k == key:
            assert weight > 0, f"{key!r} has weight 0: it can never be drawn"
            return acc
        acc += weight
    raise AssertionError(f"{key!r} is not in the table {dict(table)}")


def chance(c: Chance, fire: bool) -> int:
    return pick({"fire": c.fire, "skip": c.skip}, "fire" if fire else "skip")


# -- the panel ---------------------------------------------------------------------------


def stop_of(p: int, symbol: str, after: int = 0) -> int:
    """The first stop of position ``p``'s strip at or after ``after`` showing ``symbol``."""
    strip = D.strips[p]
    for s in range(after, len(strip)):
        if strip[s] == symbol:
            return s
    raise AssertionError(f"{symbol} is not on strip {p} at or after stop {after}")


def nearest_above(p: int, stop: int, wanted: Iterable[str]) -> int:
    """Walk position ``p``'s reel back (stop - 1, stop - 2, ... wrapping) to a wanted symbol."""
    strip, want = D.strips[p], set(wanted)
    n = len(strip)
    for d in range(1, n):
        if strip[(stop - d) % n] in want:
            return (stop - d) % n
    raise AssertionError(f"none of {sorted(want)} on strip {p}")


def view_stops(view: Mapping[int, str], *, fill: str = BLANK, shot: bool = False) -> list[int]:
    """Step 2: the stops showing ``view[p]`` (``fill`` elsewhere), reel by reel, top row
    first; the center has no stop draw when the magic shot fired."""
    stops = []
    for p in range(N_POS):
        if p == CENTER:
            if shot:
                assert CENTER not in view, "the magic shot sets the center"
                continue
            stops.append(stop_of(p, view[CENTER]))
        else:
            stops.append(stop_of(p, view.get(p, fill)))
    return stops


def shot(kind: str) -> int:
    """Step 1: the magic shot ('none', 'gambini' or 'ghost')."""
    return pick(D.magic_shot.model_dump(), kind)


def center_rewind(fire: bool) -> int:
    return chance(D.magic_rewind.center, fire)


def jackpot_rewind(fire: bool) -> int:
    return chance(D.magic_rewind.jackpot, fire)


def ghost_coins(*coins: tuple[str, int]) -> list[int]:
    """Step 4b: the count, then (prize, outer position) per coin."""
    script = [pick(D.ghost_coins.count, len(coins))]
    for prize, p in coins:
        script += [pick(D.ghost_coins.prizes, prize), OUTER.index(p)]
    return script


# -- the piggy banks -------------------------------------------------------------------


def toss(into: str) -> int:
    """Gambini's toss: 'left', 'right' or 'both' (the ghost tosses into both: no draw)."""
    return pick(D.piggies.gambini_toss, into)


def size(current: int, grow: bool) -> int:
    s = D.piggies.sizes[current]
    return pick({"grow": s.grow, "stay": s.stay}, "grow" if grow else "stay")


LARGEST = len(D.piggies.sizes) - 1  # a piggy that grows at this size pops


# -- Lock & Spin -----------------------------------------------------------------------


def count(table: Mapping[int, int], n: int) -> int:
    """``start_ghosts`` or ``ghosts_per_spin``."""
    return pick(table, n)


def ghost(
    f: Feature, colour: str, landed: int, *, to: int | None = None, gold: Iterable[int] = ()
) -> list[int]:
    """One ghost: its colour (not drawn when the feature is gold only), where it lands and,
    on a gold frame (``landed in gold``), which non-gold position ``to`` it moves on to."""
    script = [] if f.gold_only else [pick(f.colours, colour)]
    script.append(landed)
    gold = set(gold)
    if landed in gold:
        assert to is not None, "a ghost landing on a gold frame moves on"
        script.append([p for p in range(N_POS) if p not in gold].index(to))
    return script


def gold_ghosts(f: Feature, positions: Iterable[int]) -> list[int]:
    return [v for p in positions for v in ghost(f, "gold", p)]


def prize(table: Mapping[str, int], name: str) -> int:
    """End of the feature: the draw turning one frame into ``name``."""
    return pick(table, name)


def credits_of(name: str) -> int:
    """A coin's or a jackpot's credits, by hand from the data file."""
    return D.coin_values[name] if name in D.coin_values else D.jackpots[name] * BET


# -- reading rounds ------------------------------------------------------------------


def types(rnd: Round) -> list[str]:
    return [e["type"] for e in rnd.events]


def only(rnd: Round, kind: str) -> dict[str, Any]:
    (event,) = [e for e in rnd.events if e["type"] == kind]
    return event


def events(rnd: Round, kind: str) -> list[dict[str, Any]]:
    return [e for e in rnd.events if e["type"] == kind]
