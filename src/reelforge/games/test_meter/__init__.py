"""Test Meter: a TEST-ONLY 3x1 game (persistent meter, hold, gamble ladder).

Registered only when ``REELFORGE_TEST_GAMES=1``; see docs/games/test-meter.md.
"""

from .rules import TestMeter

__all__ = ["TestMeter"]
