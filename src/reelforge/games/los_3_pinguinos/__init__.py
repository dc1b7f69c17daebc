"""Los 3 Pinguinos: a Spanish AWP fruit machine (the lower game: holds, nudges, ladders, Disco)."""

from .rules import LosTresPinguinos

__all__ = ["LosTresPinguinos"]
