"""Simulation statistics, re-exported from :mod:`reelforge.engine.stats`.

The games' kernels produce :class:`SimStats`, so the class lives in the engine layer;
analysis code may keep importing it from here.
"""

from reelforge.engine.stats import Z99, SimStats

__all__ = ["Z99", "SimStats"]
