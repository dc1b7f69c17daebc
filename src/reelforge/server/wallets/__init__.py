"""Where money moves: the wallet contract and ledger, the seamless wallet, the outbox and webhooks."""
