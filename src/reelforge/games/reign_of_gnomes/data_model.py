"""The schema of a Reign of Gnomes data file, checked on load.

Everything numeric about the game lives in ``data/*.toml`` (one file per RTP variant);
this module only says what a valid file looks like and fails naming the bad field.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from reelforge.engine.datafile import Currencies, load_model, parse_model
from reelforge.engine.reels import ReelSet

WHEEL_AWARDS = ("multiplier", "spin_to_win", "random_wilds", "ice_diamonds")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _split_strips(value: object) -> object:
    """Each strip is written as one string of space-separated symbol codes."""
    if isinstance(value, list):
        return [tuple(v.split()) if isinstance(v, str) else v for v in value]
    return value


Strips = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(_split_strips)]


class Reels(Strict):
    strips: Strips = Field(min_length=5, max_length=5)

    @field_validator("strips")
    @classmethod
    def _long_enough(cls, strips: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        for i, strip in enumerate(strips):
            if len(strip) < 3:
                raise ValueError(f"reel {i + 1} has {len(strip)} stops; a 3-row window needs at least 3")
        return strips

    def reel_set(self) -> ReelSet:
        return ReelSet.from_lists(self.strips, rows=3)


class WheelSegment(Strict):
    award: Literal["multiplier", "spin_to_win", "random_wilds", "ice_diamonds"]
    multiplier: int | None = Field(default=None, ge=2)
    weight: int = Field(ge=1)

    @model_validator(mode="after")
    def _multiplier_only_for_multipliers(self) -> WheelSegment:
        if (self.award == "multiplier") != (self.multiplier is not None):
            raise ValueError("a 'multiplier' segment needs 'multiplier'; other awards must not have one")
        return self

    @property
    def label(self) -> str:
        return f"x{self.multiplier}" if self.award == "multiplier" else self.award


class IceLevel(Strict):
    min_diamonds: int = Field(ge=0)
    award: int = Field(ge=1, description="times the total bet")


class IceDiamonds(Strict):
    stones: int = Field(ge=2)
    diamonds: int = Field(ge=1)
    empties_to_end: int = Field(ge=1)
    levels: tuple[IceLevel, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> IceDiamonds:
        if self.diamonds >= self.stones:
            raise ValueError("ice_diamonds.diamonds must be fewer than the stones")
        if self.empties_to_end > self.stones - self.diamonds:
            raise ValueError("ice_diamonds.empties_to_end exceeds the empty stones")
        mins = [lv.min_diamonds for lv in self.levels]
        if mins[0] != 0 or mins != sorted(set(mins)) or mins[-1] > self.diamonds:
            raise ValueError("ice_diamonds.levels: min_diamonds must start at 0 and rise strictly")
        awards = [lv.award for lv in self.levels]
        if awards != sorted(set(awards)):
            raise ValueError("ice_diamonds.levels: awards must rise with the level")
        return self

    def level_for(self, diamonds: int) -> int:
        """0-based level reached with ``diamonds`` collected."""
        return max(i for i, lv in enumerate(self.levels) if lv.min_diamonds <= diamonds)


class RandomWildSet(Strict):
    """Replacement strips for reels 2, 3 and 4."""

    strips: Strips = Field(min_length=3, max_length=3)


class GameInfo(Strict):
    id: str
    name: str
    version: str
    variant: str
    currency: str = Field("GBP", description="the currency the docs write its amounts in")
    currencies: Currencies = Field(description="the currencies the game has tables in")
    base_credits: int = Field(ge=1)
    coins: tuple[int, ...] = Field(min_length=1)
    max_win: int = Field(ge=1, description="cap on one round's win, times the total bet")


class GnomesData(Strict):
    game: GameInfo
    symbols: dict[str, str]
    wild: str
    scatter: str
    ways_pays: dict[str, dict[int, int]]
    scatter_pays: dict[int, int]
    free_spins: dict[int, int]
    wheel: tuple[WheelSegment, ...] = Field(min_length=1)
    ice_diamonds: IceDiamonds
    base_reels: Reels
    free_reels: Reels
    spin_to_win_reels: Reels
    random_wild_sets: tuple[RandomWildSet, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_checks(self) -> GnomesData:
        known = set(self.symbols)
        for name in ("wild", "scatter"):
            if getattr(self, name) not in known:
                raise ValueError(f"{name} {getattr(self, name)!r} is not in symbols")
        for symbol, pays in self.ways_pays.items():
            if symbol not in known or symbol in (self.wild, self.scatter):
                raise ValueError(f"ways_pays.{symbol}: not a paying symbol")
            if not pays or min(pays) < 3 or max(pays) > 5:
                raise ValueError(f"ways_pays.{symbol}: combinations are 3, 4 or 5 long")
        if set(self.scatter_pays) != set(self.free_spins):
            raise ValueError("scatter_pays and free_spins must name the same scatter counts")
        if min(self.scatter_pays) < 3:
            raise ValueError("scatter_pays: 3 or more scatters pay")
        reel_groups = {
            "base_reels": self.base_reels.strips,
            "free_reels": self.free_reels.strips,
            "spin_to_win_reels": self.spin_to_win_reels.strips,
        }
        for i, rw in enumerate(self.random_wild_sets):
            reel_groups[f"random_wild_sets[{i}]"] = rw.strips
        for group, strips in reel_groups.items():
            for r, strip in enumerate(strips):
                unknown = set(strip) - known
                if unknown:
                    raise ValueError(f"{group} reel {r + 1}: unknown symbols {sorted(unknown)}")
        for group in ("base_reels", "free_reels", "spin_to_win_reels"):
            strips = reel_groups[group]
            # No wild on reel 1 or 5: every way win then starts with a real symbol.
            for r in (0, 4):
                if self.wild in strips[r]:
                    raise ValueError(f"{group} reel {r + 1}: the wild lands on reels 2-4 only")
        if any(self.scatter in strip for strip in self.spin_to_win_reels.strips):
            raise ValueError("spin_to_win_reels: Spin To Win reels carry no scatter")
        self._check_random_wilds()
        return self

    def _check_random_wilds(self) -> None:
        """Each set is the free-spin strips of reels 2-4 with some stops turned wild, and on
        at least one of its reels every window shows one of those new wilds."""
        for i, rw in enumerate(self.random_wild_sets):
            guaranteed = False
            for j, strip in enumerate(rw.strips):
                base = self.free_reels.strips[j + 1]
                where = f"random_wild_sets[{i}] reel {j + 2}"
                if len(strip) != len(base):
                    raise ValueError(f"{where}: must have the free-spin strip's {len(base)} stops")
                changed = []
                for pos, (new, old) in enumerate(zip(strip, base, strict=True)):
                    if new != old:
                        if new != self.wild or old == self.scatter:
                            raise ValueError(f"{where} stop {pos}: may only turn a non-scatter into the wild")
                        changed.append(pos)
                n = len(strip)
                if changed and all(any((s + r) % n in changed for r in range(3)) for s in range(n)):
                    guaranteed = True
            if not guaranteed:
                raise ValueError(f"random_wild_sets[{i}]: no reel guarantees an added wild in view")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> GnomesData:
        """A changed copy is validated again (and its reel sets rebuilt, not inherited)."""
        raw = self.model_dump()
        raw.update(update or {})
        return type(self).model_validate(raw)

    @cached_property
    def base(self) -> ReelSet:
        return self.base_reels.reel_set()

    @cached_property
    def free(self) -> ReelSet:
        return self.free_reels.reel_set()

    @cached_property
    def spin_to_win(self) -> ReelSet:
        return self.spin_to_win_reels.reel_set()

    @cached_property
    def random_wild_reels(self) -> tuple[ReelSet, ...]:
        out = []
        for rw in self.random_wild_sets:
            strips = (self.free_reels.strips[0], *rw.strips, self.free_reels.strips[4])
            out.append(ReelSet.from_lists(strips, rows=3))
        return tuple(out)

    @property
    def wheel_weights(self) -> list[int]:
        return [seg.weight for seg in self.wheel]


def parse(raw: dict, source: str) -> GnomesData:
    return parse_model(GnomesData, raw, source)


def load(path: Path) -> GnomesData:
    return load_model(GnomesData, path)
