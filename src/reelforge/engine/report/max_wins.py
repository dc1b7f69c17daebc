"""Defaults of the reachability capability a game shares: where its stored max-win sequences
live (its own folder) and which stakes they are stored for (the lowest of each mode)."""

from __future__ import annotations

import inspect
from pathlib import Path

from reelforge.engine.game import Game, levels_for

FILE_NAME = "max_win_draws.json"


class StoredMaxWins:
    """Mixin for a game class defined in its own folder (``games/<id>/``)."""

    def max_win_draws_path(self) -> Path:
        return Path(inspect.getfile(type(self))).parent / FILE_NAME

    def max_win_stakes(self: Game, variant: str, mode: str) -> list[int]:  # type: ignore[misc]
        """The lowest stake of the mode's table: a win in credits scales with the coin."""
        return [b.stake for b in levels_for(self, variant, mode)][:1]
