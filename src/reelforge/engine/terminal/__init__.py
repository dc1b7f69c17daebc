"""A game told in the terminal: the words every game shares (:mod:`.text`) and the view a game's
rounds are shown through (:mod:`.view`).  A game with events of its own subclasses the view in
its folder (its ``terminal`` capability); ``reelforge play`` drives any view the same way."""

from .view import TerminalView

__all__ = ["TerminalView"]
