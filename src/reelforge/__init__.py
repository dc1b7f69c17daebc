"""reelforge: slot-game engine, exact math, simulation and game server."""

__version__ = "0.1.0"
