"""Reign of Gnomes: 5x3, 243 ways, Dragon Spins with the Golden Wheel."""

from .rules import ReignOfGnomes

__all__ = ["ReignOfGnomes"]
