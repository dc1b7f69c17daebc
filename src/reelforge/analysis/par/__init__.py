"""PAR sheets: what a test lab reads to sign a game off (``reelforge par``).

:mod:`.gather` collects the exact and simulated figures (game-specific parts from the
game's own PAR adapter, :mod:`.adapter`), :mod:`.charts` draws them, :mod:`.render` writes the
HTML, :mod:`.pdf` prints it through Chromium, :mod:`.command` is the CLI command.  Nothing is imported here:
the command line loads :mod:`.command` on every start, and matplotlib only when a sheet is made.
"""
