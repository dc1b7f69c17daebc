"""Jurisdiction profiles: what a session may do, set by the operator.

* ``default``: autoplay up to 1,000 spins, bonus buy allowed, no cycle minimum; a reality
  check every 60 minutes.
* ``gb``: no autoplay, no bonus buy, at least 2.5 s between the starts of a player's game
  cycles; a reality check every 60 minutes.
* ``es``: time and spend limits must be set when the session opens and cannot change; the
  session closes when one is reached; autoplay at most 100 spins; a reality check every
  30 minutes.  *Spend* is the session's net loss (stakes minus wins): a round is refused if
  its stake could take the net loss past the limit, and the session closes once not even
  the smallest stake fits under it.

Every profile shows the session's elapsed time and net position (the former
``shows_net_position`` switch is retired: player protection is not a GB/ES extra).  The
reality-check interval is the longest the profile allows; the operator may ask for a shorter
one when it opens a session, never a longer one.
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
    reality_check_seconds: int  # time played between two reality checks, at most
    currency: str  # the jurisdiction's currency: a demo player's wallet is in it

    @property
    def autoplay_allowed(self) -> bool:
        return self.autoplay_max_spins is not None


PROFILES = {
    "default": Profile("default", 1000, True, 0.0, False, 60 * 60, "GBP"),
    "gb": Profile("gb", None, False, 2.5, False, 60 * 60, "GBP"),
    "es": Profile("es", 100, True, 0.0, True, 30 * 60, "EUR"),
}


def is_bonus_buy(mode: str) -> bool:
    """A game mode that buys a feature is named ``buy`` or ``buy-…``."""
    return mode == "buy" or mode.startswith("buy-")
