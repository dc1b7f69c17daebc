"""Scripts that force Los 3 Pinguinos outcomes through the real rules (test-only).

The draw order is the one documented in ``games/los_3_pinguinos/rules.py``.  Each helper
returns the ``randbelow`` values of one step, computed from the data file (strips, weight
tables), so the tests stay valid when the numbers change.  :func:`scripted` deals them through
:class:`ScriptedRandom` with an inner source that fails on any extra draw, and the tests check
that the script is used up, so every test also pins the number of draws each rule makes.

The line is judged here by an *oracle* written from the seed, independently of
``payline.py``: it decides which positions are near misses (and so draw a nudge offer), which
pay and which hold a pair.  Where the oracle and the rules disagree, a script runs short or
long and the test fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import product
from typing import Any, TypeVar

from reelforge.engine.round import Round
from reelforge.games.los_3_pinguinos import LosTresPinguinos
from reelforge.games.los_3_pinguinos.data_model import Chance, LowerData
from reelforge.rng import ScriptedRandom

GAME = LosTresPinguinos()  # one instance: its data objects share the strategy's caches
D = GAME.data()  # the default variant (95)
UNIT = D.game.unit
BV = D.game.bonus_value  # the conversion rate of a prize into Bonuses
BW = D.bonus_worth  # a Bonus's cash worth: every RTP figure counts it so
WI, BO, SP = D.wild, D.bonus, D.disco
SCALE = D.ladders.scale
TOP = len(SCALE) - 1
SEESAW = SCALE.index(D.ladders.seesaw_above)
N = 16  # stops per reel

K = TypeVar("K")
Stops = tuple[int, int, int]


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


def chance(c: Chance, yes: bool) -> int:
    """A ``{yes, no}`` chance is drawn as the table ``[no, yes]``."""
    return pick({"no": c.no, "yes": c.yes}, "yes" if yes else "no")


# -- the oracle: the center line judged from the seed ----------------------------------


def line(stops: Iterable[int], d: LowerData = D) -> tuple[str, str, str]:
    a, b, c = (d.strips[r][s % N] for r, s in enumerate(stops))
    return a, b, c


def judge(symbols: tuple[str, str, str], d: LowerData = D) -> tuple[str, int]:
    """``(kind, amount)``: ("bonus", Bonuses), ("cash", cents), ("disco", 0) or ("none", 0)."""
    bonus = symbols.count(d.bonus)
    if bonus:  # the wild always joins a Bonus symbol
        return "bonus", d.bonus_pays[min(3, bonus + symbols.count(d.wild))]
    center = symbols[1]  # the center reel carries no wild
    if all(s in (center, d.wild) for s in symbols):
        if center == d.disco:
            return "disco", 0
        if center in d.pays:
            return "cash", d.pays[center]
    return "none", 0


def has_pair(symbols: tuple[str, str, str], d: LowerData = D) -> bool:
    """Two reels showing one paying symbol (or the Speaker), a wild standing in for it: of
    some pair of reels, one shows such a symbol and the other the same or the wild."""
    kinds = {*d.pays, d.disco}
    for a, b in ((symbols[0], symbols[1]), (symbols[1], symbols[2]), (symbols[0], symbols[2])):
        if (a in kinds and b in (a, d.wild)) or (b in kinds and a == d.wild):
            return True
    return False


def moved(stops: Stops, vector: Iterable[int]) -> Stops:
    """Each nudge brings the symbol above onto the line: the stop goes one back."""
    a, b, c = ((s - k) % N for s, k in zip(stops, vector, strict=True))
    return a, b, c


VECTORS = [v for v in product(range(5), repeat=3) if 1 <= sum(v) <= 4]  # "a maximum of four"
FEW = 2  # "a few more spins of any reel": at most two nudges


def improves(stops: Stops, after: tuple[str, str, str], held: bool = False, d: LowerData = D) -> bool:
    """``after`` improves the line at ``stops``: cash or the Disco; or, from a paid game's line
    with no prize and no pair, a pair for a held game."""
    now = line(stops, d)
    kind = judge(now, d)[0]
    if kind in ("cash", "disco"):
        return False
    if judge(after, d)[0] in ("cash", "disco"):
        return True
    lost = kind == "none" and not held and not has_pair(now, d)
    return lost and judge(after, d)[0] == "none" and has_pair(after, d)


def fewest(stops: Stops, held: bool = False, d: LowerData = D) -> int | None:
    """The fewest nudges (all reels together, at most four) that improve the line, or None."""
    hits = [sum(v) for v in VECTORS if improves(stops, line(moved(stops, v), d), held, d)]
    return min(hits, default=None)


def near_miss(stops: Stops, held: bool = False, d: LowerData = D) -> bool:
    """ "A few more spins of any reel could have resulted in a prize or the possibility of
    holding two reels": at most ``FEW`` nudges improve the line."""
    m = fewest(stops, held, d)
    return m is not None and m <= FEW


def counts(stops: Stops, held: bool = False, d: LowerData = D) -> dict[int, int]:
    """The count weights an offer at ``stops`` draws from: the counts that can improve it."""
    m = fewest(stops, held, d)
    assert m is not None
    return {n: w for n, w in d.nudges.count.items() if n >= m}


ALL: list[Stops] = [(a, b, c) for a in range(N) for b in range(N) for c in range(N)]


def find(
    want: Callable[[tuple[str, str, str]], bool],
    *,
    near: bool | None = False,
    held: bool = False,
    also: Callable[[Stops], bool] = lambda s: True,
    d: LowerData = D,
) -> Stops:
    """The first stops whose line satisfies ``want`` (and ``also``), a near miss or not."""
    for s in ALL:
        if want(line(s, d)) and (near is None or near_miss(s, held, d) == near) and also(s):
            return s
    raise AssertionError("no stops on the strips fit")


def shows(*pattern: str | None) -> Callable[[tuple[str, str, str]], bool]:
    """A line showing ``pattern`` (None: anything)."""
    return lambda sym: all(p is None or p == s for p, s in zip(pattern, sym, strict=True))


def three(symbol: str, d: LowerData = D) -> Stops:
    """Stops whose line pays ``symbol``'s three of a kind: the symbol on all three reels where
    the strips allow it, else with a wild standing in on one side, else on both (a symbol the
    center reel alone carries pays only as WI-X-WI)."""
    for pattern in ((symbol, symbol, symbol), (d.wild, symbol, symbol), (symbol, symbol, d.wild)):
        if any(shows(*pattern)(line(s, d)) for s in ALL):
            return find(shows(*pattern), d=d)
    return find(shows(d.wild, symbol, d.wild), d=d)


# -- draws, in the rules' order ------------------------------------------------------


def game(
    stops: Stops,
    *,
    nudges: int | None = None,
    held: bool = False,
    spinning: Iterable[int] = (0, 1, 2),
    d: LowerData = D,
) -> list[int]:
    """Step 1-2: the spinning reels' stops, then, on a near miss (never in a held game that
    spins every reel: nudges come "after a game played with two or one reel held"), the nudge
    offer (declined unless ``nudges``) and the number of nudges, drawn among the counts that
    can improve the line."""
    spinning = tuple(spinning)
    draws = [stops[r] for r in spinning]
    if near_miss(stops, held, d) and not (held and len(spinning) == 3):
        draws.append(chance(d.nudges.offer, nudges is not None))
        if nudges is not None:
            draws.append(pick(counts(stops, held, d), nudges))
    else:
        assert nudges is None, f"{stops} {line(stops, d)} is no near miss: no nudges can be offered"
    return draws


def hold_offer(yes: bool, d: LowerData = D) -> int:
    return chance(d.hold, yes)


def penguins(*prizes: str, d: LowerData = D, bet: int | None = None) -> list[int]:
    """The Disco: one draw per penguin from the bet's table (None: the unit bet's), prizes
    named as that table names them (amounts at the bet)."""
    assert len(prizes) == d.disco_game.penguins
    table = d.disco_table((bet or d.game.unit) // d.game.unit)
    return [pick(table, p) for p in prizes]


def step(kind: str, level: int, up: bool, d: LowerData = D) -> int:
    """A ladder PLAY at ``level``: the table ``[fail, up]``."""
    s = (d.ladders.sube_bonos if kind == "sube_bonos" else d.ladders.sube_nada)[level]
    return pick({"fail": s.fail, "up": s.up}, "up" if up else "fail")


# -- reading rounds ------------------------------------------------------------------


def types(rnd: Round) -> list[str]:
    return [e["type"] for e in rnd.events]


def only(rnd: Round, kind: str) -> dict[str, Any]:
    (event,) = [e for e in rnd.events if e["type"] == kind]
    return event


def events(rnd: Round, kind: str) -> list[dict[str, Any]]:
    return [e for e in rnd.events if e["type"] == kind]


def actions(rnd: Round) -> list[str]:
    return [a.name for a in rnd.actions]


def done(rnd: Round, rng: ScriptedRandom | None = None) -> None:
    """The round is complete and (with ``rng``) used its script exactly."""
    assert rnd.complete and rnd.actions == [] and rnd.state["phase"] == "done"
    assert rnd.events[-1] == {
        "type": "round_end",
        "credits": rnd.state["credits"],
        "win": rnd.win,
        "bonuses_won": rnd.state["bonuses_won"],
    }
    assert rnd.win == rnd.state["credits"] * rnd.coin
    if rng is not None:
        assert rng.script == [], f"draws left unused: {rng.script}"
