"""The base every game class starts from: its RTP variants (one data file each) and the
protocol's defaults, so a game states only what is its own."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from reelforge.engine.game import NoPlaySettings
from reelforge.engine.variants import Variants

D = TypeVar("D")


class GameBase(Variants[D]):
    """Defaults: no side balance, no bets of a mode's own, no autoplay cap of the game's own,
    no capability beyond the protocol.  A game overrides what it has."""

    side_balances: ClassVar[tuple[str, ...]] = ()
    own_bet_modes: ClassVar[tuple[str, ...]] = ()
    autoplay_max_spins: ClassVar[int | None] = None
    capabilities: ClassVar[frozenset[str]] = frozenset()
    report_hit_names: ClassVar[dict[str, str]] = {}


class PlainGame(NoPlaySettings, GameBase[D]):
    """A game that offers the player no switches (every game but one with decisions to automate)."""


__all__ = ["GameBase", "PlainGame"]
