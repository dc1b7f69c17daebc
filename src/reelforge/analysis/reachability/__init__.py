"""The reachability section of a certification bundle: every prize's exact odds (flagged when
rarer than 1 in 100,000,000 or unreachable) and the max win shown reachable by stored draw
sequences replayed through each game's rules."""

from __future__ import annotations

from .report import reachability, write_reachability

__all__ = ["reachability", "write_reachability"]
