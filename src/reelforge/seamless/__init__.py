"""Seamless operator wallet (issue 12): the operator keeps the money, the game server calls
the operator's HTTP wallet.  :mod:`.protocol` holds the messages and their signing,
:mod:`.client` the game server's side, :mod:`.reference_wallet` a small operator wallet that
integrators can read and tests can run.  See docs/wallet.md."""
