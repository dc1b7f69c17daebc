"""What the reachability section holds: each prize's exact odds, the max-win replays, and
the verdict, game-independent (each game's ``prize_odds`` fills the odds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reelforge.engine.report.odds import RARE, MaxWinOdds, Odds


@dataclass
class ModeSection:
    variant: str
    mode: str
    odds: list[Odds]
    max_win_odds: MaxWinOdds
    max_wins: list[dict[str, Any]] = field(default_factory=list)  # replays (see report)

    @property
    def unreachable(self) -> list[str]:
        """Prizes every row of which is 0: the finding the lab asks for."""
        by_prize: dict[str, list[Odds]] = {}
        for o in self.odds:
            by_prize.setdefault(o.prize, []).append(o)
        return [k for k, rows in by_prize.items() if all(r.zero for r in rows)]

    @property
    def unexpected(self) -> list[str]:
        """Unreachable prizes some row of which the data does not explain (``design``)."""
        return [k for k in self.unreachable if not all(o.design for o in self.odds if o.prize == k)]

    @property
    def max_win_ok(self) -> bool:
        return bool(self.max_wins) and all(m["ok"] for m in self.max_wins)


__all__ = ["RARE", "MaxWinOdds", "ModeSection", "Odds"]
