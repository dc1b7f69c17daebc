"""The player's side: the shared server context, sessions, rounds, bets, autoplay, lobby and history."""
