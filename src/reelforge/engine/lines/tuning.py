"""A ``lines`` game's tuning knobs (``reelforge tune``): one paying symbol swapped for another
on a base reel.

Only the base strips change, and only paying symbols trade places (never the wild or the
scatter), so the scatter law, the trigger rate, the free spins and everything they pay stay
as in the source variant, and so do the strip lengths.  A reel never loses its last copy of
a symbol, so every line prize stays reachable.  What moves is the base game's line pay: a
candidate's RTP is the source's less its base line pay plus the candidate's, from the
closed form of :func:`.exact.line_expectation` (a few hundred terms).  The tuner checks the
file it writes with the game's own exact calculator, every window enumerated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterator
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

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

from .data_model import LinesData, load, parse
from .exact import exact_figures, feature_figures, line_expectation, rtp_parts

if TYPE_CHECKING:
    from .rules import LinesGame

_KEEP_APART = 2  # a swapped-in symbol goes, where it can, 3+ stops from its own kind


def swap_stop(strip: tuple[str, ...], old: str, new: str) -> int:
    """Which ``old`` turns into ``new``: the first with no ``new`` within two stops (a swap
    should not build a stack), else the first."""
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

    def _rest(self, d: LinesData) -> Fraction:
        """RTP less the base line pays: what the swaps cannot touch."""
        parts = rtp_parts(d)
        return sum(parts.values(), Fraction(0)) - parts["base_lines"]

    def figures(self, d: LinesData, kept: frozenset[str] = frozenset()) -> Figures:
        parts = rtp_parts(d)
        return {"rtp": sum(parts.values(), Fraction(0)), "feature-frequency": feature_figures(d)[0]}

    def floor(self, d: LinesData) -> Fraction:
        return self._rest(d)

    def candidates(self, d: LinesData, kept: frozenset[str]) -> Iterator[tuple[Move, Figures]]:
        rest = self._rest(d)
        strips = d.base_reels.strips
        paying = list(d.line_pays)
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
                    rtp = rest + line_expectation(d, changed)  # one credit a line: lines x E / lines
                    yield (
                        Move(f"base reel {r + 1}", f"{old} -> {new} at stop {stop}", (r, stop, new)),
                        {"rtp": rtp},
                    )

    def apply(self, d: LinesData, move: Move) -> LinesData:
        r, stop, new = move.key
        strips = list(d.base_reels.strips)
        strips[r] = replace_first(strips[r], stop, new)
        return d.model_copy(update={"base_reels": {"strips": [" ".join(s) for s in strips]}})


class LinesTuning(VariantNamed):
    """``GameTuning`` of a ``lines`` game, for the game's own data folder."""

    keepable = ("feature-frequency",)
    figure_names: ClassVar[dict[str, str]] = {"feature-frequency": "free spins trigger per base game"}

    def __init__(self, game: LinesGame) -> None:
        self.game_id = game.id
        self.data_dir: Path = game.folder / "data"

    def load(self, path: Path) -> LinesData:
        return load(path)

    def parse(self, text: str, source: str) -> LinesData:
        return parse(parse_toml(text).unwrap(), source)

    def stages(self) -> list[Callable[[LinesData], BaseReelSwaps]]:
        return [lambda d: BaseReelSwaps()]

    def exact(self, d: LinesData, keep: Collection[str] = ()) -> Exact:
        f = exact_figures(d)
        return Exact({"base": f.rtp}, {"feature-frequency": f.feature_frequency})

    def dump(self, source_text: str, d: LinesData) -> str:
        def edit(doc: Any) -> None:
            set_strings(doc["base_reels"]["strips"], d.base_reels.strips)

        return write_back(source_text, d.game.variant, edit, "base reel strips only")

    def changes(self, before: LinesData, after: LinesData) -> list[Change]:
        out = []
        for r, (old, new) in enumerate(zip(before.base_reels.strips, after.base_reels.strips, strict=True)):
            change = count_changes(f"base reel {r + 1}", old, new)
            if change:
                out.append(change)
        return out
