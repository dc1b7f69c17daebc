"""The operator's back office: players and cash, voids, game settings, sessions and the books' audit."""
