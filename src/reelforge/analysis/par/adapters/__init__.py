"""The per-game adapters, by game id; a game without one gets the cautious fallback."""

from __future__ import annotations

from reelforge.engine.game import Game

from .base import Adapter


def adapter_for(game: Game, variant: str, mode: str) -> Adapter:
    # Imported here: each adapter imports its game's kernel (numba), which only the game asked for
    # should pay for.
    if game.id == "reign-of-gnomes":
        from .gnomes import GnomesAdapter

        return GnomesAdapter(game, variant, mode)
    if game.id == "ghost-of-gambini":
        from .gambini import GambiniAdapter

        return GambiniAdapter(game, variant, mode)
    if game.id == "los-3-pinguinos":
        from .pinguinos import PinguinosAdapter

        return PinguinosAdapter(game, variant, mode)
    return Adapter(game, variant, mode)


__all__ = ["Adapter", "adapter_for"]
