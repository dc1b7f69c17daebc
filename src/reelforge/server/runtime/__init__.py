"""The running server: GameServer, the facade every caller holds, and its process's outbox worker."""
