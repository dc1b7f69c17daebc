"""The PAR sheet's view of a game: the game's own adapter where it has the ``par_sheet``
capability, else the cautious fallback (what ``info()`` and ``exact()`` give; it never guesses)."""

from __future__ import annotations

from reelforge.engine.capabilities import has
from reelforge.engine.game import Game
from reelforge.engine.report.par_adapter import Adapter


def adapter_for(game: Game, variant: str, mode: str) -> Adapter:
    if has(game, "par_sheet"):
        return game.par_adapter(variant, mode)  # type: ignore[attr-defined, no-any-return]
    return Adapter(game, variant, mode)


__all__ = ["Adapter", "adapter_for"]
