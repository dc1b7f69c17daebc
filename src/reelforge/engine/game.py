"""What every game offers the engine, the simulator and the server."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from reelforge.engine.round import Action, Round
from reelforge.engine.stats import SimStats
from reelforge.money import BetLevel
from reelforge.rng import RandomSource


class Game(Protocol):
    id: str
    name: str
    version: str
    modes: list[str]
    variants: list[str]
    default_variant: str

    def bet_levels(self) -> list[BetLevel]: ...

    def cost(self, stake: int, mode: str = "base") -> int:
        """Minor units debited to open a round at this bet level (``stake``) in this mode:
        the stake itself for a plain spin, a multiple of it for a bought feature."""
        ...

    def state_key(self, stake: int, mode: str = "base") -> str | None:
        """Which persistent player state a round at this stake reads and writes: e.g. one per
        bet level, or one shared; None when the game keeps no player state."""
        ...

    def start(
        self,
        stake: int,
        rng: RandomSource,
        *,
        variant: str | None = None,
        mode: str = "base",
        player_state: dict[str, Any] | None = None,
    ) -> Round:
        """Open a round: the stake must be one of :meth:`bet_levels`."""
        ...

    def act(self, round_: Round, action: Action, rng: RandomSource) -> Round:
        """Take one player action on a pending round; returns the next state."""
        ...

    def exact(self, variant: str | None = None, mode: str = "base") -> dict[str, Any]:
        """Exact RTP: keys game, variant, mode, rtp, components, hit_frequency, method."""
        ...

    def simulate_chunk(
        self, rounds: int, seed: np.random.SeedSequence, *, variant: str | None = None, mode: str = "base"
    ) -> SimStats:
        """Monte Carlo of ``rounds`` rounds from one seed; depends on the seed alone."""
        ...

    def info(self) -> dict[str, Any]:
        """Id, name, version, modes, variants, bet levels, paytable: JSON for clients."""
        ...


def play_default(game: Game, round_: Round, rng: RandomSource) -> Round:
    """Finish a round with the default play at every decision."""
    while not round_.complete:
        round_ = game.act(round_, round_.default_action(), rng)
    return round_
