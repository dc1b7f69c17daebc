"""Streaming, mergeable simulation statistics: integer sums only, nothing kept per round.

Every chunk of a simulation returns a :class:`SimStats`; chunks merge by addition (and
max for the largest win), so the result does not depend on how chunks were spread over
workers, only on the seed.  Wins are counted in game credits; ``stake`` is the credits
staked per round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


@dataclass
class SimStats:
    stake: int  # credits staked per round
    rounds: int = 0
    win: int = 0  # total credits won, after the max-win cap
    win_sq: int = 0  # sum of squared round wins (credits^2)
    win_uncapped: int = 0  # total credits the rounds would have won without the cap
    win_uncapped_sq: int = 0
    hits: int = 0  # rounds whose first (paid) spin won anything
    max_win: int = 0  # largest round win, credits, after the cap
    counters: dict[str, int] = field(default_factory=dict)  # feature counts (game-defined)

    def merge(self, other: SimStats) -> SimStats:
        if other.stake != self.stake:
            raise ValueError("cannot merge simulations of different stakes")
        counters = dict(self.counters)
        for key, value in other.counters.items():
            counters[key] = counters.get(key, 0) + value
        return SimStats(
            stake=self.stake,
            rounds=self.rounds + other.rounds,
            win=self.win + other.win,
            win_sq=self.win_sq + other.win_sq,
            win_uncapped=self.win_uncapped + other.win_uncapped,
            win_uncapped_sq=self.win_uncapped_sq + other.win_uncapped_sq,
            hits=self.hits + other.hits,
            max_win=max(self.max_win, other.max_win),
            counters=counters,
        )

    def _mean_std(self, total: int, total_sq: int) -> tuple[float, float]:
        n = self.rounds
        mean = total / (n * self.stake)
        # Variance from exact integer sums: no cancellation error.
        var_num = n * total_sq - total * total
        var = var_num / (n * n * self.stake * self.stake) if n else 0.0
        return mean, math.sqrt(max(var, 0.0))

    def summary(self) -> dict[str, Any]:
        """RTP with its 99% interval, per-round std (in stakes), hit rate and features."""
        if self.rounds == 0:
            raise ValueError("no rounds simulated")
        n = self.rounds
        rtp, std = self._mean_std(self.win, self.win_sq)
        rtp_u, std_u = self._mean_std(self.win_uncapped, self.win_uncapped_sq)
        half = Z99 * std / math.sqrt(n)
        half_u = Z99 * std_u / math.sqrt(n)
        return {
            "rounds": n,
            "rtp": rtp,
            "ci99": [rtp - half, rtp + half],
            "std": std,
            "rtp_uncapped": rtp_u,
            "ci99_uncapped": [rtp_u - half_u, rtp_u + half_u],
            "cap_effect": rtp_u - rtp,
            "hit_frequency": self.hits / n,
            "max_win": self.max_win / self.stake,
            "features": {
                key: {"count": value, "per_round": value / n, "one_in": (n / value) if value else None}
                for key, value in sorted(self.counters.items())
            },
        }
