"""The schema of a ``lines`` game's data file: a 5-reel, 3-row payline slot defined by data.

One file per RTP variant.  It names the symbols (code, display name, colour), the reel strips
of the base game and of the free spins, the paylines, the line pays, an optional wild (it
stands for every symbol but the scatter) with optional pays of its own, the scatter (pays
anywhere, times the total bet, and awards free spins), the free spins (award by scatter count,
retrigger award, win multiplier, most spins one feature may play), the max-win cap and the bet
table.  Everything is checked on load; an error names the file and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from reelforge.engine.datafile import Currencies, load_model, parse_model
from reelforge.engine.reels import ReelSet

REELS = 5
ROWS = 3
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_CODE = re.compile(r"^[A-Z0-9]{1,3}$")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _split(value: object) -> object:
    """Strips and paylines are written as strings of space-separated codes or rows."""
    if isinstance(value, list):
        return [tuple(v.split()) if isinstance(v, str) else v for v in value]
    return value


def _int_keys(value: object) -> object:
    """TOML table keys are strings: ``{3 = 10}`` is read as a count -> value table."""
    if isinstance(value, Mapping):
        try:
            return {int(k): v for k, v in value.items()}
        except (TypeError, ValueError):
            return value
    return value


Strips = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(_split)]
CountTable = Annotated[dict[int, int], BeforeValidator(_int_keys)]


class Symbol(Strict):
    name: str = Field(min_length=1, max_length=40)
    colour: str

    @field_validator("colour")
    @classmethod
    def _hex(cls, v: str) -> str:
        if not _COLOUR.match(v):
            raise ValueError(f"colour {v!r} must be #rrggbb")
        return v


class Reels(Strict):
    strips: Strips = Field(min_length=REELS, max_length=REELS)

    @field_validator("strips")
    @classmethod
    def _long_enough(cls, strips: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        for i, strip in enumerate(strips):
            if len(strip) < ROWS:
                raise ValueError(f"reel {i + 1} has {len(strip)} stops; a 3-row window needs at least 3")
        return strips

    def reel_set(self) -> ReelSet:
        return ReelSet.from_lists(self.strips, rows=ROWS)


class FreeSpins(Strict):
    award: CountTable = Field(description="free spins by scatter count in the base game")
    retrigger: CountTable = Field(default_factory=dict, description="more spins by count in free spins")
    multiplier: int = Field(ge=1, le=100, description="every free-spin win is multiplied by it")
    max_spins: int = Field(ge=1, le=500, description="most spins one feature plays, retriggers included")

    @model_validator(mode="after")
    def _counts(self) -> FreeSpins:
        if not self.award:
            raise ValueError("free_spins.award: at least one scatter count must award free spins")
        for name in ("award", "retrigger"):
            for k, n in getattr(self, name).items():
                if not 1 <= k <= REELS * ROWS or n < 1:
                    raise ValueError(f"free_spins.{name}: {k} scatters -> {n} spins is not a valid award")
        if max(self.award.values()) > self.max_spins:
            raise ValueError("free_spins.max_spins is below an award")
        return self


class GameInfo(Strict):
    kind: Literal["lines"]
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    version: str
    variant: str
    currency: str = Field("GBP", description="the currency the docs write its amounts in")
    currencies: Currencies = Field(description="the currencies the game has tables in")
    coins: tuple[int, ...] = Field(min_length=1, description="minor units per line; stake = coin x lines")
    max_win: int = Field(ge=1, description="cap on one round's win, times the total bet")

    @field_validator("currencies", mode="before")
    @classmethod
    def _tuple(cls, v: object) -> object:
        return tuple(v) if isinstance(v, list) else v

    @field_validator("coins", mode="before")
    @classmethod
    def _coins(cls, v: object) -> object:
        if isinstance(v, list):
            v = tuple(v)
        if isinstance(v, tuple) and (
            any(not isinstance(c, int) or c < 1 for c in v) or list(v) != sorted(set(v))
        ):
            raise ValueError("coins must be positive whole minor units, rising")
        return v


class LinesData(Strict):
    game: GameInfo
    symbols: dict[str, Symbol] = Field(min_length=2)
    wild: str | None = None
    scatter: str | None = None
    paylines: Annotated[tuple[tuple[int, ...], ...], BeforeValidator(_split)] = Field(
        min_length=1, max_length=100
    )
    line_pays: dict[str, CountTable]
    wild_pays: CountTable = Field(default_factory=dict)
    scatter_pays: CountTable = Field(default_factory=dict)
    free_spins: FreeSpins | None = None
    base_reels: Reels
    free_reels: Reels | None = None

    @field_validator("paylines", mode="before")
    @classmethod
    def _rows(cls, v: object) -> object:
        v = _split(v)
        if isinstance(v, list):
            try:
                return tuple(tuple(int(x) for x in line) for line in v)
            except (TypeError, ValueError):
                return v
        return v

    @model_validator(mode="after")
    def _cross_checks(self) -> LinesData:
        known = set(self.symbols)
        for code in known:
            if not _CODE.match(code):
                raise ValueError(f"symbols.{code}: a code is 1-3 capital letters or digits")
        for name in ("wild", "scatter"):
            code = getattr(self, name)
            if code is not None and code not in known:
                raise ValueError(f"{name} {code!r} is not in symbols")
        if self.wild is not None and self.wild == self.scatter:
            raise ValueError("the wild and the scatter must be different symbols")
        self._check_paylines()
        self._check_pays(known)
        self._check_strips(known)
        self._check_feature()
        return self

    def _check_paylines(self) -> None:
        seen = set()
        for i, line in enumerate(self.paylines):
            if len(line) != REELS or any(not 0 <= r < ROWS for r in line):
                raise ValueError(f"paylines[{i}]: five rows, each 0 (top), 1 or 2 (bottom)")
            if line in seen:
                raise ValueError(f"paylines[{i}]: the same line twice")
            seen.add(line)

    def _check_pays(self, known: set[str]) -> None:
        if not self.line_pays:
            raise ValueError("line_pays: at least one symbol must pay")
        for code, pays in self.line_pays.items():
            if code not in known or code in (self.wild, self.scatter):
                raise ValueError(f"line_pays.{code}: not a paying symbol")
            _check_run_pays(f"line_pays.{code}", pays)
        if self.wild_pays:
            if self.wild is None:
                raise ValueError("wild_pays without a wild")
            _check_run_pays("wild_pays", self.wild_pays)
        if self.scatter_pays and self.scatter is None:
            raise ValueError("scatter_pays without a scatter")
        for k, x in self.scatter_pays.items():
            if not 1 <= k <= REELS * ROWS or x < 1:
                raise ValueError(f"scatter_pays: {k} scatters -> {x} x the bet is not a valid pay")

    def _check_strips(self, known: set[str]) -> None:
        groups = {"base_reels": self.base_reels} | (
            {"free_reels": self.free_reels} if self.free_reels else {}
        )
        for group, reels in groups.items():
            for r, strip in enumerate(reels.strips):
                unknown = set(strip) - known
                if unknown:
                    raise ValueError(f"{group} reel {r + 1}: unknown symbols {sorted(unknown)}")
                if self.scatter is not None and _shows_twice(strip, self.scatter):
                    raise ValueError(f"{group} reel {r + 1}: two scatters within one 3-row window")

    def _check_feature(self) -> None:
        if self.free_spins is None:
            if self.free_reels is not None:
                raise ValueError("free_reels without free_spins")
            return
        if self.scatter is None:
            raise ValueError("free_spins need a scatter to trigger them")
        if self.free_reels is None:
            raise ValueError("free_spins need free_reels")

    # -- derived ----------------------------------------------------------------------------

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> LinesData:
        """A changed copy is validated again (and its cached reel sets rebuilt, not inherited)."""
        raw = self.model_dump()
        raw.update(update or {})
        return type(self).model_validate(raw)

    @property
    def lines(self) -> int:
        """Credits staked per game: one per line."""
        return len(self.paylines)

    @cached_property
    def base(self) -> ReelSet:
        return self.base_reels.reel_set()

    @cached_property
    def free(self) -> ReelSet:
        assert self.free_reels is not None
        return self.free_reels.reel_set()

    def line_pay(self, code: str, length: int) -> int:
        return self.line_pays.get(code, {}).get(length, 0)


def _check_run_pays(where: str, pays: dict[int, int]) -> None:
    """Lengths 1-5, every length from the shortest paying one up to 5, pays not falling."""
    if not pays:
        raise ValueError(f"{where}: empty")
    lengths = sorted(pays)
    if lengths != list(range(lengths[0], REELS + 1)):
        raise ValueError(f"{where}: must list every length from {lengths[0]} to 5")
    values = [pays[k] for k in lengths]
    if any(v < 1 for v in values) or values != sorted(values):
        raise ValueError(f"{where}: pays must be positive and not fall with the length")


def _shows_twice(strip: tuple[str, ...], code: str) -> bool:
    n = len(strip)
    return any(sum(strip[(s + r) % n] == code for r in range(ROWS)) > 1 for s in range(n))


def parse(raw: dict, source: str) -> LinesData:
    return parse_model(LinesData, raw, source)


def load(path: Path) -> LinesData:
    return load_model(LinesData, path)
