"""The ``lines`` building block: a 5x3 payline game with wilds, scatters and free spins
(retriggers, a win multiplier), defined by data files alone.

``data_model`` (the file's schema), ``evaluate`` (a window's wins), ``rules`` (the game:
:class:`LinesGame`), ``exact`` (RTP as fractions), ``enumerate`` (every window, in numba),
``distribution`` (the round's law), ``kernel`` (Monte Carlo), ``tuning`` (``reelforge tune``).
"""

from .data_model import LinesData, load, parse
from .rules import LinesGame

__all__ = ["LinesData", "LinesGame", "load", "parse"]
