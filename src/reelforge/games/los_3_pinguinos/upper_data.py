"""The schema of the upper game's data: ``data/upper.toml`` (reels, lines, prizes, minigames,
bets; shared by the variants) merged with a variant file's ``[upper]`` section (the minigame
offer chances per bet and the Double-or-Bonuses weights).

Line prizes and the minigame tables are cents at the unit upper bet (€0.20 + 1 Bonus, worth
€1.00); a bet of value ``m`` × €1.00 multiplies them by ``multiplier`` = m.  Mixed-sevens
tables, fractions, floors and maximum prizes are the bet's own cents.
"""

from __future__ import annotations

from functools import cached_property

from pydantic import Field, model_validator

from .data_parts import Chance, Strict, Strips, Weight

N_REELS = 3
STOPS = 16
ROWS = 3


def _positive_total(name: str, weights: dict) -> None:
    if not weights or sum(weights.values()) <= 0:
        raise ValueError(f"{name}: a positive total weight")


Offer = Chance  # a minigame offer, or the roulette lighting another section


class Double(Strict):
    """PLAY/ACCUMULATE on a fraction: ``double`` pays it twice, ``bonuses`` turns it into
    its value in Bonuses."""

    double: Weight
    bonuses: Weight

    @model_validator(mode="after")
    def _total(self) -> Double:
        if self.double + self.bonuses <= 0:
            raise ValueError("double + bonuses must be positive")
        return self

    @property
    def weights(self) -> list[int]:
        return [self.bonuses, self.double]  # index 1 = double


class Roulette(Strict):
    sections: tuple[int, ...] = Field(min_length=2)
    again: Offer

    @model_validator(mode="after")
    def _check(self) -> Roulette:
        if min(self.sections) <= 0:
            raise ValueError("roulette.sections: positive prizes")
        if self.again.yes >= self.again.yes + self.again.no:
            raise ValueError("roulette.again: `no` must be positive (the wheel must stop)")
        return self


def _cash_key(key: str) -> int:
    if not (key[:1] == "C" and key[1:].isdigit() and int(key[1:]) > 0):
        raise ValueError(f"{key!r} is not C<cents>")
    return int(key[1:])


class Fishing(Strict):
    penguins: int = Field(ge=1)
    catch: dict[str, Weight]  # "C<cents>" a fish, "X" the cross that stops a penguin

    @model_validator(mode="after")
    def _check(self) -> Fishing:
        _positive_total("fishing.catch", self.catch)
        if self.catch.get("X", 0) <= 0:
            raise ValueError("fishing.catch: the cross X needs a positive weight (the penguins must stop)")
        for k in self.catch:
            if k != "X":
                _cash_key(k)
        return self


class Slides(Strict):
    platforms: int = Field(ge=2)
    prizes: dict[str, Weight]

    @model_validator(mode="after")
    def _check(self) -> Slides:
        _positive_total("slides.prizes", self.prizes)
        for k in self.prizes:
            _cash_key(k)
        return self


class UpperBet(Strict):
    cash: int = Field(ge=1)
    bonuses: int = Field(ge=1)
    multiplier: int = Field(ge=1)
    fraction: int = Field(ge=1)
    minigame_floor: int = Field(ge=1)
    max_prize: int = Field(ge=1)
    mixed: dict[int, Weight]

    @model_validator(mode="after")
    def _check(self) -> UpperBet:
        if self.mixed:
            _positive_total("mixed", self.mixed)
            if min(self.mixed) <= 0 or max(self.mixed) > self.max_prize:
                raise ValueError("mixed: prizes in (0, max_prize]")
        if not self.minigame_floor < self.max_prize:
            raise ValueError("minigame_floor must be below max_prize")
        return self


class UpperData(Strict):
    strips: Strips = Field(min_length=N_REELS, max_length=N_REELS)
    lines: tuple[tuple[int, int, int], ...] = Field(min_length=1)
    sevens: tuple[str, ...] = Field(min_length=2)
    accumulator: str
    vertical_lines: str
    minigames: dict[str, str]  # symbol -> "roulette" | "fishing" | "slides"
    accumulator_pieces: int = Field(ge=1)
    accumulator_step: dict[int, Weight]
    vertical_step: dict[int, Weight]
    symbols: dict[str, str]
    pays: dict[str, int]
    roulette: Roulette
    fishing: Fishing
    slides: Slides
    bets: tuple[UpperBet, ...] = Field(min_length=1)
    # the variant's knobs
    double: Double
    minigame_offer: tuple[Offer, ...]  # per bet: a game on 5 paylines (and the WINNING SPIN)
    minigame_offer_8: tuple[Offer, ...]  # per bet: a game on 8 paylines

    @model_validator(mode="after")
    def _cross_checks(self) -> UpperData:
        known = set(self.symbols)
        for code in (*self.sevens, self.accumulator, self.vertical_lines, *self.minigames, *self.pays):
            if code not in known:
                raise ValueError(f"{code!r} is not in upper symbols")
        for r, strip in enumerate(self.strips):
            if len(strip) != STOPS:
                raise ValueError(f"strips[{r}]: {STOPS} symbols, got {len(strip)}")
            if set(strip) - known:
                raise ValueError(f"strips[{r}]: unknown symbols {sorted(set(strip) - known)}")
        for i, line in enumerate(self.lines):
            if any(not 0 <= row < ROWS for row in line):
                raise ValueError(f"lines[{i}]: rows 0-{ROWS - 1}")
        if set(self.minigames.values()) - {"roulette", "fishing", "slides"}:
            raise ValueError("minigames: each symbol starts roulette, fishing or slides")
        for s in self.minigames:
            if s not in self.pays:
                raise ValueError(f"minigame symbol {s!r}: three on a line need a line prize to replace")
        for s in self.sevens:
            if s not in self.pays:
                raise ValueError(f"seven {s!r}: three of one colour need a prize")
        for name in ("accumulator_step", "vertical_step"):
            steps = getattr(self, name)
            _positive_total(name, steps)
            if min(steps) < 1:
                raise ValueError(f"{name}: steps of at least 1")
        if max(self.vertical_step) > 5 or max(self.accumulator_step) > 3:
            raise ValueError("the counter gains 1 to 5, an accumulator 1 to 3 (the seed)")
        for name in ("minigame_offer", "minigame_offer_8"):
            if len(getattr(self, name)) != len(self.bets):
                raise ValueError(f"{name}: one chance per bet")
        values = [b.cash for b in self.bets]
        if len({self.bet_value_key(b) for b in self.bets}) != len(self.bets):
            raise ValueError(f"bets must differ in cash or Bonuses: {values}")
        return self

    def offer(self, bet: int, lines: int) -> Offer:
        """The minigame offer of a game at bet index ``bet`` on ``lines`` paylines: the 8-line
        game has its own chance, so that both line counts return the configured RTP."""
        return self.minigame_offer_8[bet] if lines == 8 else self.minigame_offer[bet]

    @staticmethod
    def bet_value_key(bet: UpperBet) -> tuple[int, int]:
        return (bet.cash, bet.bonuses)

    @cached_property
    def payline_count(self) -> int:
        return len(self.lines)


def merge(shared: dict, knobs: dict) -> dict:
    """The shared upper game with a variant's knobs (which may not redefine shared fields)."""
    clash = set(shared) & set(knobs)
    if clash:
        raise ValueError(f"[upper] may not redefine {sorted(clash)} of the shared upper file")
    return {**shared, **knobs}
