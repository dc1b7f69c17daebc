"""The schema of the Test Meter data file, checked on load.

Every number of the game lives in ``data/test-meter.toml``; this module only says what a
valid file looks like and fails naming the bad field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from reelforge.engine.datafile import Currencies, load_model, parse_model

N_REELS = 3


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _split_strips(value: object) -> object:
    """Each strip is written as one string of space-separated symbol codes."""
    if isinstance(value, list):
        return [tuple(v.split()) if isinstance(v, str) else v for v in value]
    return value


Strips = Annotated[
    tuple[Annotated[tuple[str, ...], Field(min_length=1)], ...], BeforeValidator(_split_strips)
]


class GameInfo(Strict):
    id: str
    name: str
    version: str
    variant: str
    currency: str = Field("GBP", description="the currency the docs write its amounts in")
    currencies: Currencies = Field(description="the currencies the game has tables in")
    credits: int = Field(ge=1, description="credits staked per game")
    coins: tuple[int, ...] = Field(min_length=1, description="minor units per credit, one per bet level")

    @model_validator(mode="after")
    def _distinct_coins(self) -> GameInfo:
        if any(c < 1 for c in self.coins):
            raise ValueError("coins: every coin is at least 1 minor unit")
        if list(self.coins) != sorted(set(self.coins)):
            raise ValueError("coins: must rise strictly (each bet level a distinct stake)")
        return self


class Reels(Strict):
    strips: Strips = Field(min_length=N_REELS, max_length=N_REELS)


class Meter(Strict):
    size: int = Field(ge=1, description="rounds that fill the meter; the filling round pays the bonus")
    bonus: int = Field(ge=0, description="credits paid when the meter fills")


class Gamble(Strict):
    max_gambles: int = Field(ge=0, description="rungs of the double-or-nothing ladder")


class MeterData(Strict):
    game: GameInfo
    symbols: dict[str, str] = Field(min_length=1)
    pays: dict[str, Annotated[int, Field(ge=1)]] = Field(min_length=1)
    reels: Reels
    meter: Meter
    gamble: Gamble

    @model_validator(mode="after")
    def _cross_checks(self) -> MeterData:
        known = set(self.symbols)
        for symbol in self.pays:
            if symbol not in known:
                raise ValueError(f"pays.{symbol}: not in symbols")
        for r, strip in enumerate(self.reels.strips):
            unknown = set(strip) - known
            if unknown:
                raise ValueError(f"reels.strips reel {r + 1}: unknown symbols {sorted(unknown)}")
        return self

    @property
    def strips(self) -> tuple[tuple[str, ...], ...]:
        return self.reels.strips

    def pay(self, window: list[str] | tuple[str, ...]) -> int:
        """Credits of a one-row window: three of a kind of a paying symbol, else 0."""
        first = window[0]
        if all(s == first for s in window):
            return self.pays.get(first, 0)
        return 0


def parse(raw: dict, source: str) -> MeterData:
    return parse_model(MeterData, raw, source)


def load(path: Path) -> MeterData:
    return load_model(MeterData, path)
