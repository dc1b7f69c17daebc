"""Ghost of Gambini: 15 independent reels, 40 lines, piggy banks, Lock & Spin, bonus buys."""

from .rules import GhostOfGambini

__all__ = ["GhostOfGambini"]
