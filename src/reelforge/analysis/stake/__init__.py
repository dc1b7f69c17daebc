"""``reelforge export stake``: a game's stateless modes as Stake Engine's static math files.

Stake Engine publishes a game as fixed rounds ("books") and a lookup table of integer weights
that the platform draws a book by.  reelforge knows each such mode's exact win law, so the
weights come from it, not from a fit: :mod:`.law` puts the law on the platform's payout grid,
:mod:`.books` finds real rounds (played through the game's rules) for its payouts,
:mod:`.weights` weighs them, :mod:`.files` writes the files and :mod:`.verify` checks them
against the platform's published rules and against the exact figures.  docs/stake-engine.md.
"""
