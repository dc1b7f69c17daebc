"""What the center payline of the lower game shows and pays.

* **Bonus symbols**: one or more on the line win ``bonus_pays[n]`` Bonuses, where every
  wild on the line joins the Bonus symbols (the wild "always combines with the Bonus").
* **Three of a kind**: the center symbol (the center reel has no wild) with the left and
  right reels showing it or the wild; the Speaker's three start the Disco game.
* **Pairs** (for a held game): no prize, and two reels show the same symbol, or a wild and a
  symbol, of the three-of-a-kind symbols (fruits and the Speaker).
* **Nudges** move one reel one stop back: the symbol above comes onto the line
  (stop - 1, wrapping); a nudge vector ``(k0, k1, k2)`` says how far each reel moves.
* **Near misses**: the fewest nudges improving the line (:func:`fewest_nudges`) are at most
  ``FEW_NUDGES``; an offer's count is drawn among the counts that reach that far.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

from .data_model import N_REELS, STOPS, LowerData

Stops = tuple[int, int, int]
MAX_NUDGES = 4  # the seed: "a maximum of four Nuzzles"
FEW_NUDGES = 2  # "a few more spins": a near miss is improvable with at most this many nudges


@dataclass(frozen=True)
class Outcome:
    kind: str  # "cash", "bonus", "disco" or "none"
    symbol: str | None = None
    cents: int = 0  # cash at the unit bet
    bonuses: int = 0  # Bonuses at the unit bet
    ladder: str | None = None  # "sube_bonos", "sube_nada" or None (paid at once)
    pairs: tuple[int, ...] = ()  # hold masks of the pairs on a line without a prize

    @property
    def is_prize(self) -> bool:
        return self.kind != "none"


def line_symbols(d: LowerData, stops: Stops) -> tuple[str, str, str]:
    return (d.strips[0][stops[0]], d.strips[1][stops[1]], d.strips[2][stops[2]])


def evaluate(d: LowerData, symbols: tuple[str, str, str]) -> Outcome:
    """The line's outcome; kept per data (a pure function of 11**3 symbol triples at most,
    asked up to 35 times a game by :func:`fewest_nudges`)."""
    memo = d.line_memo
    key = ("evaluate", symbols)
    out = memo.get(key)
    if out is None:
        out = memo[key] = _evaluate(d, symbols)
    return out  # type: ignore[no-any-return]


def _evaluate(d: LowerData, symbols: tuple[str, str, str]) -> Outcome:
    left, center, right = symbols
    bonus_count = sum(s == d.bonus for s in symbols)
    if bonus_count:
        n = min(3, bonus_count + sum(s == d.wild for s in symbols))
        return Outcome("bonus", d.bonus, bonuses=d.bonus_pays[n])
    if left in (center, d.wild) and right in (center, d.wild):
        if center == d.disco:
            return Outcome("disco", center)
        if center in d.pays:
            cents = d.pays[center]
            ladder = None
            if center in d.yellow:
                ladder = "sube_nada"
            elif center in d.blue and cents <= d.ladders.seesaw_above:
                ladder = "sube_bonos"
            return Outcome("cash", center, cents=cents, ladder=ladder)
    return Outcome("none", pairs=pair_masks(d, symbols))


def pair_masks(d: LowerData, symbols: tuple[str, str, str]) -> tuple[int, ...]:
    """Masks (bit r = reel r) of the reel pairs that match, best prize first."""
    pairable = set(d.pays) | {d.disco}
    found: list[tuple[int, int]] = []
    for a, b in ((0, 1), (1, 2), (0, 2)):
        x, y = symbols[a], symbols[b]
        symbol = x if x != d.wild else y
        if symbol in pairable and x in (symbol, d.wild) and y in (symbol, d.wild) and symbol != d.wild:
            worth = d.pays.get(symbol, d.ladders.scale[-1])  # the Speaker's Disco ranks first
            found.append((-worth, (1 << a) | (1 << b)))
    return tuple(mask for _, mask in sorted(found))


def nudged(stops: Stops, vector: tuple[int, int, int]) -> Stops:
    return tuple((s - k) % STOPS for s, k in zip(stops, vector, strict=True))  # type: ignore[return-value]


@cache
def nudge_vectors(n: int) -> tuple[tuple[int, int, int], ...]:
    """Every way to spend at most ``n`` nudges, the zero vector first, then by total."""
    vectors = [v for v in product(range(n + 1), repeat=N_REELS) if sum(v) <= n]
    return tuple(sorted(vectors, key=lambda v: (sum(v), v)))


def fewest_nudges(d: LowerData, stops: Stops, outcome: Outcome, held_game: bool) -> int | None:
    """The fewest nudges (total over the reels) that improve the line: into cash or the Disco,
    or, for a paid game's line with no prize and no pair, into a pair for a held game.  None
    when no prize is improvable (cash, Disco) or no vector of up to ``MAX_NUDGES`` improves it.
    A Bonus line counts only cash or the Disco; a line that already has a pair, only those too.
    Kept per data and arguments (16**3 stops, two kinds of game)."""
    memo = d.line_memo
    key = ("fewest", stops, outcome, held_game)
    if key not in memo:
        memo[key] = _fewest_nudges(d, stops, outcome, held_game)
    return memo[key]  # type: ignore[no-any-return]


def _fewest_nudges(d: LowerData, stops: Stops, outcome: Outcome, held_game: bool) -> int | None:
    if outcome.kind in ("cash", "disco"):
        return None
    want_pair = outcome.kind == "none" and not held_game and not outcome.pairs
    for vector in nudge_vectors(MAX_NUDGES)[1:]:  # by total: the first hit is the fewest
        after = evaluate(d, line_symbols(d, nudged(stops, vector)))
        if after.kind in ("cash", "disco") or (want_pair and after.pairs):
            return sum(vector)
    return None


def nudge_offerable(d: LowerData, stops: Stops, outcome: Outcome, held_game: bool) -> bool:
    """A near miss (the seed's "a few more spins"): at most ``FEW_NUDGES`` nudges improve
    the line (:func:`fewest_nudges`)."""
    m = fewest_nudges(d, stops, outcome, held_game)
    return m is not None and m <= FEW_NUDGES


def count_weights(d: LowerData, fewest: int) -> dict[int, int]:
    """The ``nudges.count`` weights an offer draws from when ``fewest`` nudges improve the
    line: only counts of at least ``fewest`` (file order, one draw over their total), so every
    offer can improve the line."""
    weights = {n: w for n, w in d.nudges.count.items() if n >= fewest}
    if not sum(weights.values()):
        raise ValueError(f"nudges.count: no weight for {fewest} or more nudges")
    return weights


def vertical_hits(d: LowerData, stops: Stops) -> int:
    """Reels whose stop on the line carries the vertical-lines symbol."""
    return sum(s in d.vertical_set[r] for r, s in enumerate(stops))
