"""The schema of a Ghost of Gambini data file, checked on load.

Every number of the game (strips, paytable, coin and jackpot values, the weights of the
magic shot, the rewinds, the ghost's coins, the piggy banks and Lock & Spin) lives in
``data/*.toml``; this module only says what a valid file looks like, fails naming the bad
field, and derives the lookup tables the rules, the exact calculator and the kernel share.

A *weight table* is a TOML inline table ``{ outcome = weight, ... }``: a draw picks an
outcome with probability weight / total, walking the entries in file order (one
``randbelow(total)``; :func:`reelforge.rng.weighted_index`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from reelforge.engine.datafile import Currencies, load_model, parse_model

N_REELS = 5
N_ROWS = 3
N_POS = N_REELS * N_ROWS  # one independent strip per position
CENTER = 2 * N_ROWS + 1  # reel 3, row 2 (positions run reel by reel, top row first)
OUTER = tuple(p for p in range(N_POS) if p != CENTER)  # the 14 positions coins land on
JACKPOTS = ("MINI", "MINOR", "MAJOR", "GRAND")


def position(reel: int, row: int) -> int:
    return reel * N_ROWS + row


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _split(value: object) -> object:
    """Strips and lines are written as one string of space-separated items each."""
    if isinstance(value, list):
        return [tuple(v.split()) if isinstance(v, str) else v for v in value]
    return value


Strips = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(_split)]
Lines = Annotated[tuple[tuple[int, ...], ...], BeforeValidator(_split)]
Weights = dict[str, Annotated[int, Field(ge=0)]]
CountWeights = dict[int, Annotated[int, Field(ge=0)]]


def _positive_total(name: str, table: dict) -> None:
    if not table or sum(table.values()) <= 0:
        raise ValueError(f"{name}: a weight table needs a positive total")


class GameInfo(Strict):
    id: str
    name: str
    version: str
    variant: str
    currency: str = Field("GBP", description="the currency the docs write its amounts in")
    currencies: Currencies = Field(description="the currencies the game has tables in")
    base_credits: int = Field(ge=1, description="credits per game: 1 per line")
    coins: tuple[int, ...] = Field(min_length=1)
    max_win: int = Field(ge=1, description="cap on one round's win, times the total bet")


class Wilds(Strict):
    gambini: str
    ghost: str


class MagicShot(Strict):
    """At the start of a base spin: none, or the center stops on Gambini / the ghost."""

    none: int = Field(ge=0)
    gambini: int = Field(ge=0)
    ghost: int = Field(ge=0)

    @property
    def weights(self) -> list[int]:
        return [self.none, self.gambini, self.ghost]


class Chance(Strict):
    """A yes/no draw: ``fire`` out of ``fire + skip``."""

    fire: int = Field(ge=0)
    skip: int = Field(ge=0)

    @model_validator(mode="after")
    def _total(self) -> Chance:
        if self.fire + self.skip <= 0:
            raise ValueError("fire + skip must be positive")
        return self

    @property
    def weights(self) -> list[int]:
        return [self.fire, self.skip]  # in file order: index 0 = fires


class MagicRewind(Strict):
    center: Chance  # no wild in the center: the center reel moves back to the nearest wild
    jackpot: Chance  # a wild in the center and a blank in view: one blank moves back to a jackpot


class GhostCoins(Strict):
    """The ghost in the center throws ``count`` ghost coins, each worth a ``prizes`` draw."""

    count: CountWeights
    prizes: Weights

    @model_validator(mode="after")
    def _check(self) -> GhostCoins:
        _positive_total("ghost_coins.count", self.count)
        _positive_total("ghost_coins.prizes", self.prizes)
        if min(self.count) < 1:
            raise ValueError("ghost_coins.count: the ghost throws at least one coin")
        return self


class PiggySize(Strict):
    grow: int = Field(ge=0)
    stay: int = Field(ge=0)

    @property
    def weights(self) -> list[int]:
        return [self.grow, self.stay]  # in file order: index 0 = grows


class Piggies(Strict):
    """Two piggy banks.  A piggy that grows at its largest size pops (back to size 0)."""

    sizes: tuple[PiggySize, ...] = Field(min_length=1)
    gambini_toss: dict[str, Annotated[int, Field(ge=0)]]  # left / right / both

    @model_validator(mode="after")
    def _check(self) -> Piggies:
        if list(self.gambini_toss) != ["left", "right", "both"]:
            raise ValueError("piggies.gambini_toss: weights for left, right, both, in that order")
        _positive_total("piggies.gambini_toss", self.gambini_toss)
        for i, s in enumerate(self.sizes):
            if s.grow + s.stay <= 0:
                raise ValueError(f"piggies.sizes[{i}]: grow + stay must be positive")
            if s.grow == 0:
                raise ValueError(f"piggies.sizes[{i}]: a piggy must be able to grow (grow > 0)")
        return self

    @property
    def toss_weights(self) -> list[int]:
        return list(self.gambini_toss.values())


class Frames(Strict):
    """What each frame turns into at the end of the feature (prize -> weight)."""

    bronze: Weights = Field(default_factory=dict)
    silver: Weights = Field(default_factory=dict)
    gold: Weights


class Feature(Strict):
    """Lock & Spin or Super Lock & Spin."""

    start_ghosts: CountWeights  # ghosts the popped piggy releases onto the empty board
    ghosts_per_spin: CountWeights
    colours: dict[str, Annotated[int, Field(ge=0)]]  # white / gold
    frames: Frames

    @model_validator(mode="after")
    def _check(self) -> Feature:
        _positive_total("start_ghosts", self.start_ghosts)
        _positive_total("ghosts_per_spin", self.ghosts_per_spin)
        if list(self.colours) != ["white", "gold"]:
            raise ValueError("colours: weights for white, gold, in that order")
        _positive_total("colours", self.colours)
        if min(self.start_ghosts) < 0 or min(self.ghosts_per_spin) < 0:
            raise ValueError("ghost counts are never negative")
        if self.ghosts_per_spin.get(0, 0) == 0:
            raise ValueError("ghosts_per_spin: a spin must be able to land no ghost (0), or it never ends")
        _positive_total("frames.gold", self.frames.gold)
        if self.colours["white"]:
            _positive_total("frames.bronze", self.frames.bronze)
            _positive_total("frames.silver", self.frames.silver)
        return self

    @property
    def colour_weights(self) -> list[int]:
        return list(self.colours.values())

    @property
    def gold_only(self) -> bool:
        return self.colours["white"] == 0


class Buy(Strict):
    lock_spin: int = Field(ge=1, description="price of a bought Lock & Spin, times the total bet")
    super_lock_spin: int = Field(ge=1)
    spins: int = Field(ge=1, description="spins a bought feature starts with")


class GambiniData(Strict):
    game: GameInfo
    symbols: dict[str, str]
    wilds: Wilds
    blank: str
    pays: dict[str, dict[int, int]]  # symbol -> length -> credits per line
    coin_values: dict[str, int]  # coin symbol -> credits
    jackpots: dict[str, int]  # MINI..GRAND -> times the total bet
    lines: Lines = Field(min_length=1)
    strips: Strips = Field(min_length=N_POS, max_length=N_POS)
    magic_shot: MagicShot
    magic_rewind: MagicRewind
    ghost_coins: GhostCoins
    piggies: Piggies
    lock_spin: Feature
    super_lock_spin: Feature
    buy: Buy

    @model_validator(mode="after")
    def _cross_checks(self) -> GambiniData:
        known = set(self.symbols)
        wild = {self.wilds.gambini, self.wilds.ghost}
        if list(self.jackpots) != list(JACKPOTS):
            raise ValueError(f"jackpots: values for {', '.join(JACKPOTS)}, in that order")
        if list(self.jackpots.values()) != sorted(set(self.jackpots.values())):
            raise ValueError("jackpots: values must rise from MINI to GRAND")
        for code in (*wild, self.blank, *self.coin_values, *self.pays, *self.jackpots):
            if code not in known:
                raise ValueError(f"{code!r} is not in symbols")
        for symbol, pays in self.pays.items():
            if (
                symbol in wild
                or symbol == self.blank
                or symbol in self.coin_values
                or symbol in self.jackpots
            ):
                raise ValueError(f"pays.{symbol}: not a line symbol")
            if not pays or min(pays) < 2 or max(pays) > N_REELS:
                raise ValueError(f"pays.{symbol}: combinations are 2 to 5 long")
        for i, line in enumerate(self.lines):
            if len(line) != N_REELS or any(not 0 <= r < N_ROWS for r in line):
                raise ValueError(f"lines[{i}]: one row (0-2) per reel")
        if len(set(self.lines)) != len(self.lines):
            raise ValueError("lines: every line must differ")
        if len(self.lines) != self.game.base_credits:
            raise ValueError("game.base_credits must equal the number of lines (1 credit a line)")
        center_ok = wild | set(self.royals)
        for p, strip in enumerate(self.strips):
            unknown = set(strip) - known
            if unknown:
                raise ValueError(f"strips[{p}]: unknown symbols {sorted(unknown)}")
            if p == CENTER:
                if not set(strip) <= center_ok:
                    raise ValueError("strips[7] (the center): only royals, Gambini and the ghost")
                if not set(strip) & wild:
                    raise ValueError("strips[7] (the center): needs Gambini or the ghost for the rewind")
                for name, code in (("gambini", self.wilds.gambini), ("ghost", self.wilds.ghost)):
                    if getattr(self.magic_shot, name) and code not in strip:
                        raise ValueError(f"strips[7] (the center): the magic shot lands {code}, so hold it")
            else:
                if set(strip) & wild:
                    raise ValueError(f"strips[{p}]: Gambini and the ghost land only in the center")
                if not set(strip) & set(self.jackpots):
                    raise ValueError(f"strips[{p}]: needs a jackpot symbol for the jackpot rewind")
                if "GRAND" in strip:
                    raise ValueError(f"strips[{p}]: the GRAND is won only in Lock & Spin")
        tables = [("ghost_coins.prizes", self.ghost_coins.prizes)]
        for feat in ("lock_spin", "super_lock_spin"):
            for lv in ("bronze", "silver", "gold"):
                tables.append((f"{feat}.frames.{lv}", getattr(getattr(self, feat).frames, lv)))
        for name, table in tables:
            for prize in table:
                if prize not in self.coin_values and prize not in self.jackpots:
                    raise ValueError(f"{name}: {prize!r} is neither a coin nor a jackpot")
        if not self.super_lock_spin.gold_only:
            raise ValueError("super_lock_spin.colours: only gold ghosts (white = 0)")
        if any(p not in self.jackpots for p in self.super_lock_spin.frames.gold):
            raise ValueError("super_lock_spin.frames.gold: gold frames turn into pots (jackpots) only")
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> GambiniData:
        """A changed copy is validated again, and its derived values (``max_win_credits``,
        ``royals``, ...) computed afresh: pydantic's own copy neither checks ``update`` nor
        drops the cached properties, so a copy with a new ``game.max_win`` kept the old cap."""
        raw = self.model_dump()
        raw.update(update or {})
        return type(self).model_validate(raw)

    # -- derived --------------------------------------------------------------------------

    @cached_property
    def royals(self) -> tuple[str, ...]:
        return tuple(s for s in ("A", "K", "Q", "J", "T") if s in self.symbols)

    @cached_property
    def wild_set(self) -> frozenset[str]:
        return frozenset((self.wilds.gambini, self.wilds.ghost))

    def prize_credits(self, prize: str) -> int:
        """A coin's or a jackpot's value in credits."""
        if prize in self.coin_values:
            return self.coin_values[prize]
        return self.jackpots[prize] * self.game.base_credits

    def is_prize(self, symbol: str) -> bool:
        return symbol in self.coin_values or symbol in self.jackpots

    @cached_property
    def max_win_credits(self) -> int:
        return self.game.max_win * self.game.base_credits

    def price_credits(self, mode: str) -> int:
        """Credits staked by a round of ``mode``."""
        if mode == "base":
            return self.game.base_credits
        if mode == "buy-lock-spin":
            return self.buy.lock_spin * self.game.base_credits
        if mode == "buy-super-lock-spin":
            return self.buy.super_lock_spin * self.game.base_credits
        raise ValueError(f"unknown mode {mode!r}")


def parse(raw: dict, source: str) -> GambiniData:
    return parse_model(GambiniData, raw, source)


def load(path: Path) -> GambiniData:
    return load_model(GambiniData, path)
