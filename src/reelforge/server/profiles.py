"""Jurisdiction profiles: what a session may do, set by the operator.

* ``default``: autoplay up to 1,000 spins, bonus buy allowed, no cycle minimum.
* ``gb``: no autoplay, no bonus buy, at least 2.5 s between the starts of a player's game
  cycles; the session shows the net position and the time elapsed.
* ``es``: time and spend limits must be set when the session opens and cannot change; the
  session closes when one is reached; autoplay at most 100 spins.  *Spend* is the session's
  net loss (stakes minus wins): a round is refused if its stake could take the net loss
  past the limit, and the session closes once not even the smallest stake fits under it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    autoplay_max_spins: int | None  # None: autoplay forbidden
    bonus_buy: bool
    min_cycle_seconds: float
    requires_session_limits: bool
    shows_net_position: bool

    @property
    def autoplay_allowed(self) -> bool:
        return self.autoplay_max_spins is not None


PROFILES = {
    "default": Profile("default", 1000, True, 0.0, False, False),
    "gb": Profile("gb", None, False, 2.5, False, True),
    "es": Profile("es", 100, True, 0.0, True, True),
}


def is_bonus_buy(mode: str) -> bool:
    """A game mode that buys a feature is named ``buy`` or ``buy-…``."""
    return mode == "buy" or mode.startswith("buy-")
