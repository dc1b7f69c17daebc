"""The game server: HTTP API, wallet ledger, sessions, rounds, recall and profiles."""
