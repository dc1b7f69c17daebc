"""What every game does with its RTP variants: one data file each, looked up by name."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from reelforge.money import InvalidBet

D = TypeVar("D")


class Variants(Generic[D]):
    """Mixin: ``data_by_variant`` (variant name -> validated data file) and the default one."""

    modes: ClassVar[list[str]]
    data_by_variant: dict[str, D]
    default_variant: str

    @property
    def variants(self) -> list[str]:
        return list(self.data_by_variant)

    def data(self, variant: str | None = None) -> D:
        key = variant or self.default_variant
        try:
            return self.data_by_variant[key]
        except KeyError:
            raise InvalidBet(f"unknown RTP variant {key!r}; offered: {self.variants}") from None

    @property
    def currencies(self) -> tuple[str, ...]:
        """The currencies the game has tables in (its data's ``[game] currencies``): a round is
        played in the player's, read in its minor units."""
        return tuple(self.data().game.currencies)  # type: ignore[attr-defined]

    def check_mode(self, mode: str) -> None:
        if mode not in self.modes:
            raise InvalidBet(f"unknown mode {mode!r}; offered: {self.modes}")
