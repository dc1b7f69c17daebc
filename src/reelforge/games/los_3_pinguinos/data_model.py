"""The schema of a Los 3 Pinguinos data file (one per RTP variant), checked on load.

Every prize is written at the smallest bet, ``game.unit`` cents (€0.20): at a bet of
``b`` cents a cash prize pays ``cents * b / unit`` and a Bonus prize ``bonuses * b / unit``,
so every bet has the same RTP.  The one exception is the Disco, whose prizes the seed gives
per bet: ``disco_game.at_bet`` holds a bet's own table, amounts at that bet, checked to have
the unit table's mean cash and mean Bonuses per cent staked (so the bet's RTP is the same
under every play that collects).  A *weight table* ``{ outcome = weight }`` is drawn with one
``randbelow(total)`` in file order.
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from reelforge.engine.datafile import Currencies, DataFileError, parse_model

from .data_parts import Chance, Strict, Strips, Weight
from .upper_data import UpperBet, UpperData, merge

N_REELS = 3
STOPS = 16
DATA_DIR = Path(__file__).parent / "data"
WILD_REELS = (0, 2)  # the wild lands on the left and right reels only


class Step(Strict):
    """One rung of a ladder: PLAY goes ``up`` or ``fails``."""

    up: Weight
    fail: Weight

    @property
    def weights(self) -> list[int]:
        return [self.fail, self.up]  # index 1 = up


class GameInfo(Strict):
    id: str
    name: str
    version: str
    variant: str
    currency: str = Field("EUR", description="the currency the docs write its amounts in")
    currencies: Currencies = Field(description="the currencies the game has tables in")
    unit: int = Field(ge=1, description="cents of the smallest bet, at which prizes are written")
    bets: tuple[int, ...] = Field(min_length=1)
    bonus_value: int = Field(ge=1, description="cents a prize turned into Bonuses converts at (€0.80)")
    bonus_worth: int | None = Field(
        default=None,
        ge=0,
        description="cents a Bonus is worth in the machine's cash: what the upper game returns per Bonus "
        "staked (by design the variant's RTP x bonus_value); decisions weigh Bonuses at it "
        "(default: bonus_value)",
    )
    bonus_cap: int = Field(ge=1)
    vertical_lines_max: int = Field(ge=1)


class Nudges(Strict):
    offer: Chance
    count: dict[int, Weight]

    @model_validator(mode="after")
    def _check(self) -> Nudges:
        if not self.count or min(self.count) < 1 or max(self.count) > 4 or sum(self.count.values()) <= 0:
            raise ValueError("nudges.count: weights for 1 to 4 nudges")
        return self


class Disco(Strict):
    penguins: int = Field(ge=2)
    prizes: dict[str, Weight]  # "C<cents>" cash or "B<n>" Bonuses, at the unit bet
    # Per other bet (its cents, as a string key): its own table, amounts AT that bet (the seed
    # gives each bet its own ranges).  A bet not listed plays the unit table scaled.
    at_bet: dict[int, dict[str, Weight]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Disco:
        for where, table in [("prizes", self.prizes), *((f"at_bet.{b}", t) for b, t in self.at_bet.items())]:
            if sum(table.values()) <= 0:
                raise ValueError(f"disco_game.{where}: a positive total weight")
            for k in table:
                if not (k[:1] in "CB" and k[1:].isdigit() and int(k[1:]) > 0):
                    raise ValueError(f"disco_game.{where}: {k!r} is neither C<cents> nor B<bonuses>")
        return self


def _means(table: dict[str, int], coin: int) -> tuple[Fraction, Fraction]:
    """A Disco table's mean cash (cents) and mean Bonuses, per unit bet staked."""
    total = sum(table.values())
    cash = sum(int(k[1:]) * w for k, w in table.items() if k[0] == "C")
    bonuses = sum(int(k[1:]) * w for k, w in table.items() if k[0] == "B")
    return Fraction(cash, total * coin), Fraction(bonuses, total * coin)


class Ladders(Strict):
    scale: tuple[int, ...] = Field(min_length=3)  # the payout scale, cents at the unit bet
    seesaw_above: int  # the 3-Bells prize: above it Sube-Bonos goes up or down
    sube_bonos: tuple[Step, ...]  # one rung per scale level but the top
    sube_nada: tuple[Step, ...]

    @model_validator(mode="after")
    def _check(self) -> Ladders:
        if list(self.scale) != sorted(set(self.scale)):
            raise ValueError("ladders.scale must rise strictly")
        if self.seesaw_above not in self.scale[:-1]:
            raise ValueError("ladders.seesaw_above must be a prize of the scale below the top")
        for name in ("sube_bonos", "sube_nada"):
            steps = getattr(self, name)
            if len(steps) != len(self.scale) - 1:
                raise ValueError(f"ladders.{name}: one rung per scale level but the top")
            for i, s in enumerate(steps):
                if s.up + s.fail <= 0:
                    raise ValueError(f"ladders.{name}[{i}]: up + fail must be positive")
        return self

    @property
    def seesaw_index(self) -> int:
        return self.scale.index(self.seesaw_above)


class LowerData(Strict):
    game: GameInfo
    symbols: dict[str, str]
    wild: str
    bonus: str
    disco: str
    pays: dict[str, int]  # three on the line: cents at the unit bet
    bonus_pays: dict[int, int]  # Bonus symbols on the line (wilds join them) -> Bonuses
    blue: tuple[str, ...]  # prizes that enter Sube-Bonos
    yellow: tuple[str, ...]  # prizes that enter Sube-Nada
    strips: Strips = Field(min_length=N_REELS, max_length=N_REELS)
    vertical_lines: tuple[tuple[int, ...], ...] = Field(min_length=N_REELS, max_length=N_REELS)
    hold: Chance
    nudges: Nudges
    disco_game: Disco
    ladders: Ladders
    upper: UpperData  # the upper game (data/upper.toml with the variant's [upper] knobs)

    @model_validator(mode="after")
    def _cross_checks(self) -> LowerData:
        known = set(self.symbols)
        for code in (self.wild, self.bonus, self.disco, *self.pays, *self.blue, *self.yellow):
            if code not in known:
                raise ValueError(f"{code!r} is not in symbols")
        for r, strip in enumerate(self.strips):
            if len(strip) != STOPS:
                raise ValueError(f"strips[{r}]: {STOPS} symbols, got {len(strip)}")
            if set(strip) - known:
                raise ValueError(f"strips[{r}]: unknown symbols {sorted(set(strip) - known)}")
            if r not in WILD_REELS and self.wild in strip:
                raise ValueError(f"strips[{r}]: the wild lands on the left and right reels only")
        for r, stops in enumerate(self.vertical_lines):
            if any(not 0 <= s < STOPS for s in stops) or len(set(stops)) != len(stops):
                raise ValueError(f"vertical_lines[{r}]: distinct stops 0-{STOPS - 1}")
        if set(self.bonus_pays) != {1, 2, 3}:
            raise ValueError("bonus_pays: Bonuses for 1, 2 and 3 Bonus symbols")
        scale = set(self.ladders.scale)
        for s in (*self.blue, *self.yellow):
            if s not in self.pays or self.pays[s] not in scale:
                raise ValueError(f"{s}: a ladder prize must be a cash prize on ladders.scale")
        if set(self.blue) & set(self.yellow):
            raise ValueError("a prize is blue or yellow, not both")
        self._check_disco(scale)
        if max(self.pays.values()) > self.ladders.scale[-1]:
            raise ValueError("no prize may exceed the top of ladders.scale")
        if self.disco in self.pays:
            raise ValueError("the disco combination starts the Disco game, it has no cash prize")
        unit_value = self.upper_value(self.upper.bets[0])
        for i, bet in enumerate(self.upper.bets):
            if self.upper_value(bet) != bet.multiplier * unit_value:
                raise ValueError(
                    f"upper.bets[{i}]: multiplier {bet.multiplier} is not its value over the first bet's"
                )
        return self

    def _check_disco(self, scale: set[int]) -> None:
        """Every bet's Disco table: its cash a whole number of coins; a cash prize up to the
        3 Bells prize (it enters Sube-Bonos) on the scale; and the unit table's means per cent
        staked, cash and Bonuses apart, so every bet returns the same under a play that
        collects (the design rule that lets the unit bet's figures stand for every bet)."""
        for bet in self.disco_game.at_bet:
            if bet not in self.game.bets or bet == self.game.unit:
                raise ValueError(f"disco_game.at_bet: {bet} is not an offered bet above the unit")
        unit_means = _means(self.disco_game.prizes, 1)
        for bet in self.game.bets:
            coin = bet // self.game.unit
            table = self.disco_table(coin)
            for k in table:
                cents = int(k[1:])
                if k[0] != "C":
                    continue
                if cents % coin:
                    raise ValueError(f"disco_game at {bet}: cash {k} is not a whole number of coins ({coin})")
                if cents // coin <= self.ladders.seesaw_above and cents // coin not in scale:
                    raise ValueError(
                        f"disco_game at {bet}: cash {k} must be on ladders.scale (x{coin}): "
                        "it may enter Sube-Bonos"
                    )
            if _means(table, coin) != unit_means:
                raise ValueError(
                    f"disco_game at {bet}: mean cash and Bonuses per cent staked must equal the unit "
                    f"table's ({unit_means[0]} cents, {unit_means[1]} Bonuses per unit bet)"
                )

    def disco_table(self, coin: int) -> dict[str, int]:
        """The Disco's prizes at the bet ``unit × coin``: ``C<cents>`` / ``B<n>`` at that bet."""
        own = self.disco_game.at_bet.get(self.game.unit * coin)
        if own is not None:
            return dict(own)
        return {f"{k[0]}{int(k[1:]) * coin}": w for k, w in self.disco_game.prizes.items()}

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> LowerData:
        raw = self.model_dump()
        raw.update(update or {})
        return type(self).model_validate(raw)

    @property
    def bonus_worth(self) -> int:
        """Cents a Bonus is worth in the machine's cash accounting (see ``GameInfo``)."""
        w = self.game.bonus_worth
        return self.game.bonus_value if w is None else w

    @cached_property
    def line_memo(self) -> dict[tuple, object]:
        """Results of the payline's pure functions of this data (``payline.evaluate``,
        ``payline.fewest_nudges``), filled as they are asked; shared by every data with the
        same line (copies that differ elsewhere, as the machine's Bonus-worth search makes)."""
        line = (
            self.strips, self.wild, self.bonus, self.disco, tuple(sorted(self.pays.items())),
            tuple(sorted(self.bonus_pays.items())), self.blue, self.yellow,
            self.ladders.seesaw_above, self.ladders.scale,
        )  # fmt: skip  (every field payline.py reads)
        return _line_memo(line)

    @cached_property
    def vertical_set(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(v) for v in self.vertical_lines)

    def multiplier(self, bet: int) -> int:
        if bet not in self.game.bets or bet % self.game.unit:
            raise ValueError(f"bet {bet} is not offered")
        return bet // self.game.unit

    # -- the upper game's bets ------------------------------------------------------------

    def upper_value(self, bet: UpperBet) -> int:
        """A bet's value in cents, its Bonuses at ``bonus_value``: the stake that names it."""
        return bet.cash + bet.bonuses * self.game.bonus_value

    @cached_property
    def upper_stakes(self) -> tuple[int, ...]:
        return tuple(self.upper_value(b) for b in self.upper.bets)

    def upper_bet(self, stake: int) -> tuple[int, UpperBet]:
        """The index and bet an upper stake (its value in cents) names; ValueError if none."""
        if isinstance(stake, int) and not isinstance(stake, bool) and stake in self.upper_stakes:
            i = self.upper_stakes.index(stake)
            return i, self.upper.bets[i]
        raise ValueError(f"stake {stake} is not an upper bet; offered: {list(self.upper_stakes)}")


@lru_cache(maxsize=32)
def _line_memo(line: tuple) -> dict[tuple, object]:
    return {}


def _with_upper(raw: dict, data_dir: Path) -> dict:
    """Merge the shared upper file a variant's ``[upper]`` names into it."""
    upper = raw.get("upper")
    if not isinstance(upper, dict) or "file" not in upper:
        return raw
    knobs = dict(upper)
    path = data_dir / str(knobs.pop("file"))
    try:
        shared = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataFileError(f"{path.name}: {exc}") from exc
    try:
        merged = merge(shared, knobs)
    except ValueError as exc:
        raise DataFileError(f"{path.name}: {exc}") from exc
    return {**raw, "upper": merged}


def parse(raw: dict, source: str, data_dir: Path = DATA_DIR) -> LowerData:
    return parse_model(LowerData, _with_upper(raw, data_dir), source)


def load(path: Path) -> LowerData:
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DataFileError(f"{path.name}: not valid TOML: {exc}") from exc
    return parse(raw, path.name, path.parent)
