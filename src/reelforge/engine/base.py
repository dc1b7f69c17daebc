"""The base every game class starts from: its RTP variants (one data file each), the
protocol's defaults and what every game's ``info`` and bet table repeat, so a game states
only what is its own."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from reelforge.engine.game import NoPlaySettings
from reelforge.engine.round import Round
from reelforge.engine.variants import Variants
from reelforge.money import BetLevel, find_bet

D = TypeVar("D")


def rtp_files(data_dir: Path) -> list[Path]:
    """A game's ``rtp-NNNN.toml`` (or ``rtp-NN.toml``) files, highest RTP first: the first is
    the default variant."""
    return sorted(data_dir.glob("rtp-*.toml"), key=lambda p: -float("0." + p.stem.split("-")[1]))


class GameBase(Variants[D]):
    """Defaults: no side balance, no bets of a mode's own, no autoplay cap of the game's own,
    no capability beyond the protocol.  A game overrides what it has."""

    name: ClassVar[str]
    side_balances: ClassVar[tuple[str, ...]] = ()
    own_bet_modes: ClassVar[tuple[str, ...]] = ()
    autoplay_max_spins: ClassVar[int | None] = None
    capabilities: ClassVar[frozenset[str]] = frozenset()
    report_hit_names: ClassVar[dict[str, str]] = {}
    reveal_only_actions: ClassVar[frozenset[str]] = frozenset()
    version: str

    @property
    def folder(self) -> Path:
        """The game's own folder (``games/<id>/``): its package, where its data lives."""
        return Path(inspect.getfile(type(self))).resolve().parent

    def set_variants(self, variants: dict[str, D]) -> None:
        """The game's data files by variant name; the first is the default."""
        if not variants:
            raise ValueError(f"{self.name} has no data file")
        self.data_by_variant = variants
        self.default_variant = next(iter(variants))
        self.version = variants[self.default_variant].game.version  # type: ignore[attr-defined]

    def load_variants(self, paths: Iterable[Path], load: Callable[[Path], D]) -> None:
        """Load each data file (highest RTP first) as a variant named by its ``[game] variant``."""
        loaded = [load(path) for path in paths]
        self.set_variants({d.game.variant: d for d in loaded})  # type: ignore[attr-defined]

    def cost(self, stake: int, mode: str = "base") -> int:
        """The stake itself (a game that sells features prices them)."""
        self.check_mode(mode)
        return find_bet(self.bet_levels(), stake).stake  # type: ignore[attr-defined]

    def open_round(
        self,
        stake: int,
        variant: str | None,
        mode: str,
        state: dict[str, Any],
        price: Callable[[Any], int] | None = None,
    ) -> tuple[Any, BetLevel, Round]:
        """Check the mode and the stake and open a round's first step: the variant's data, the
        bet level, and the Round (its stake the level's, or ``price(data)`` credits a coin for a
        bought feature) holding ``state``."""
        self.check_mode(mode)
        d: Any = self.data(variant)
        level = find_bet(self.bet_levels(variant), stake)  # type: ignore[attr-defined]
        rnd = Round(
            game=self.id,  # type: ignore[attr-defined]
            game_version=self.version,
            variant=d.game.variant,
            mode=mode,
            coin=level.coin,
            stake=level.stake if price is None else level.coin * price(d),
            step=1,
            state=state,
        )
        return d, level, rnd

    def info_head(self) -> dict[str, Any]:
        """What every game's ``info`` opens with: who it is, its variants, modes and bets."""
        d: Any = self.data()
        return {
            "id": self.id,  # type: ignore[attr-defined]
            "name": self.name,
            "version": self.version,
            "modes": self.modes,
            "variants": self.variants,
            "default_variant": self.default_variant,
            "currency": d.game.currency,
            "bet_levels": [b.to_json() for b in self.bet_levels()],  # type: ignore[attr-defined]
        }


class PlainGame(NoPlaySettings, GameBase[D]):
    """A game that offers the player no switches (every game but one with decisions to automate)."""


__all__ = ["GameBase", "PlainGame", "rtp_files"]
