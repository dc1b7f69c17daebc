"""The certification evidence bundle (``reelforge certify``): what a test lab is handed.

:mod:`.bundle` runs a list of section builders, each ``(game, out_dir) -> Section``
(:mod:`.model`): :mod:`.digests` (the manifest and ``--verify``), :mod:`.par_section` (PAR
sheets and the exact-versus-simulated table), :mod:`.rng_section` (dieharder and ent on the
production source, and our own tests on scaled outcomes); :mod:`.index` writes the index page.
Nothing is imported here: the command line loads :mod:`.command` on every start.
"""
