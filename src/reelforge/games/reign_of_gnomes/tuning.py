"""Reign of Gnomes' tuning knobs: one paying symbol swapped for another on a base reel.

Only the base game's reel strips change.  Swaps are between paying symbols (never the wild
or the Dragon's Egg), so the scatter count's law, and with it the Dragon Spins trigger
rate, the free spins awarded and everything the Golden Wheel pays, stay exactly as in the
source variant; strip lengths stay too.  A reel never loses its last copy of a symbol, so
every way prize stays reachable.  What changes is the base game's way wins, and with reels
1-3 the hit frequency (a way win needs reels 1-3).

A candidate's figures are exact and cheap: the RTP is the source's minus its base way wins
plus the candidate's (``ways_expectation``; the rest does not depend on the base reels'
paying symbols), and the hit frequency comes from the same enumeration ``exact_rtp`` uses.
The volatility (carried as the variance of a round's win, in stakes squared) changes only
through the base spin's ``E[J]``, ``E[J^2]`` and ``E[J R]``: the free game's subtree and the
spins a trigger awards are the source's.  So a candidate's is :mod:`.base_moments`' tables of
the five base reels, four of them cached and the changed one rebuilt (about 2 ms), with the
free game's moments of the same module.  The tuner checks the result with ``exact_rtp`` and
``exact_moments`` (every reel set's law enumerated) on the file as written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from reelforge.engine.exact import ways_expectation, ways_hit_and_scatter
from reelforge.engine.reels import ReelSet, ReelStrip
from reelforge.engine.tuning import (
    Change,
    Exact,
    Figures,
    Move,
    VariantNamed,
    count_changes,
    parse_toml,
    replace_first,
    set_strings,
    write_back,
)

from .base_moments import (
    ReelTable,
    fast_moments,
    free_game_moments,
    reel_table,
    round_moments,
    spin_parts_of,
    volatility_squared,
)
from .data_model import GnomesData, load, parse
from .distribution import exact_moments
from .exact import exact_rtp
from .rules import DATA_DIR

_KEEP_APART = 2  # a swapped-in symbol is placed, where it can be, 3+ stops from its own kind


def _hit_frequency(d: GnomesData, reels: ReelSet) -> Fraction:
    """As ``exact_rtp`` counts it: a way win, or enough scatters to pay."""
    joint = ways_hit_and_scatter(reels, d.ways_pays, d.wild, d.scatter)
    return sum((p for (way_hit, k), p in joint.items() if way_hit or k in d.scatter_pays), Fraction(0))


def swap_stop(strip: tuple[str, ...], old: str, new: str) -> int:
    """Which ``old`` turns into ``new``: the first one with no ``new`` within two stops
    (a swap should not build a stack), else the first one."""
    n = len(strip)
    stops = [i for i, s in enumerate(strip) if s == old]
    for i in stops:
        if all(strip[(i + k) % n] != new for k in range(-_KEEP_APART, _KEEP_APART + 1)):
            return i
    return stops[0]


class BaseReelSwaps:
    """Stage: the base game's RTP, by swapping paying symbols on the base reels."""

    mode = "base"
    knobs = "base reels 1-5: one paying symbol swapped for another (no wild, no scatter)"
    changes = frozenset({"hit-frequency", "volatility"})

    def __init__(self) -> None:
        self._rest: dict[int, tuple[GnomesData, Fraction]] = {}

    def _rest_of(self, d: GnomesData) -> Fraction:
        """RTP less the base way wins: what the swaps cannot touch."""
        hit = self._rest.get(id(d))
        if hit is None or hit[0] is not d:
            rest = exact_rtp(d).rtp - ways_expectation(d.base, d.ways_pays, d.wild) / d.game.base_credits
            self._rest = {id(d): (d, rest)}
            return rest
        return hit[1]

    def figures(self, d: GnomesData, kept: frozenset[str] = frozenset()) -> Figures:
        r = exact_rtp(d)
        out = {"rtp": r.rtp, "hit-frequency": r.hit_frequency, "feature-frequency": r.free_spins_frequency}
        if "volatility" in kept:
            out["volatility"] = volatility_squared(d, fast_moments(d))
        return out

    def floor(self, d: GnomesData) -> Fraction:
        return self._rest_of(d)

    def candidates(self, d: GnomesData, kept: frozenset[str]) -> Iterator[tuple[Move, Figures]]:
        rest = self._rest_of(d)
        strips = d.base_reels.strips
        paying = list(d.ways_pays)
        hit_now = _hit_frequency(d, d.base) if "hit-frequency" in kept else None
        # the five reels' tables, and the free game's moments: the swaps leave it alone
        vol = (
            ([self._reel_table(d, s) for s in strips], free_game_moments(d)) if "volatility" in kept else None
        )
        for r, strip in enumerate(strips):
            counts = Counter(strip)
            for old in paying:
                if counts[old] < 2:  # the last one stays: every prize reachable
                    continue
                for new in paying:
                    if new == old:
                        continue
                    stop = swap_stop(strip, old, new)
                    changed = list(strips)
                    changed[r] = replace_first(strip, stop, new)
                    reels = ReelSet.from_lists(changed, rows=3)
                    ways = ways_expectation(reels, d.ways_pays, d.wild)
                    move = Move(f"base reel {r + 1}", f"{old} -> {new} at stop {stop}", (r, stop, new))
                    figures = {"rtp": rest + ways / d.game.base_credits}
                    if hit_now is not None:
                        # a way win needs reels 1-3: reels 4 and 5 leave the hit frequency alone
                        figures["hit-frequency"] = _hit_frequency(d, reels) if r < 3 else hit_now
                    if vol is not None:
                        tables, free = vol
                        base = [*tables[:r], self._reel_table(d, changed[r]), *tables[r + 1 :]]
                        moments = round_moments(spin_parts_of(d, base).times(), *free)
                        figures["volatility"] = volatility_squared(d, moments)
                    yield move, figures

    @staticmethod
    def _reel_table(d: GnomesData, strip: tuple[str, ...]) -> ReelTable:
        return reel_table(ReelStrip(strip), d.base.rows, list(d.ways_pays), d.wild, d.scatter)

    def apply(self, d: GnomesData, move: Move) -> GnomesData:
        r, stop, new = move.key
        strips = list(d.base_reels.strips)
        strips[r] = replace_first(strips[r], stop, new)
        return d.model_copy(update={"base_reels": {"strips": strips}})


class GnomesTuning(VariantNamed):
    game_id = "reign-of-gnomes"
    data_dir: Path = DATA_DIR
    keepable = ("hit-frequency", "feature-frequency", "volatility")
    figure_names: ClassVar[dict[str, str]] = {
        "hit-frequency": "a base game pays anything",
        "feature-frequency": "Dragon Spins trigger per base game",
        "volatility": "SD of a round's win, in stakes (uncapped)",
    }

    def load(self, path: Path) -> GnomesData:
        return load(path)

    def parse(self, text: str, source: str) -> GnomesData:
        return parse(parse_toml(text).unwrap(), source)

    def stages(self) -> list[Callable[[GnomesData], BaseReelSwaps]]:
        return [lambda d: BaseReelSwaps()]

    def exact(self, d: GnomesData, keep: Collection[str] = ()) -> Exact:
        r = exact_rtp(d)
        figures = {"hit-frequency": r.hit_frequency, "feature-frequency": r.free_spins_frequency}
        if "volatility" in keep:  # every reel set's law enumerated: seconds
            figures["volatility"] = volatility_squared(d, exact_moments(d))
        return Exact({"base": r.rtp}, figures)

    def dump(self, source_text: str, d: GnomesData) -> str:
        def edit(doc: Any) -> None:
            set_strings(doc["base_reels"]["strips"], d.base_reels.strips)

        return write_back(source_text, d.game.variant, edit, "base reel strips only")

    def changes(self, before: GnomesData, after: GnomesData) -> list[Change]:
        out = []
        for r, (old, new) in enumerate(zip(before.base_reels.strips, after.base_reels.strips, strict=True)):
            change = count_changes(f"base reel {r + 1}", old, new)
            if change:
                out.append(change)
        return out


TUNING = GnomesTuning()
