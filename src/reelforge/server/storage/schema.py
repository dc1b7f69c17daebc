"""The database tables (SQLAlchemy Core).  Alembic migrations create exactly these; a test
compares the migrated schema with this metadata."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# Times are float seconds since the epoch (UTC): the same on SQLite and PostgreSQL.

# The casinos this server carries (migration 0011, reelforge.server.operators): each with its API
# keys, its players and its settings.  The upgrade of a single-operator database made operator 1,
# holding that database's key, settings and players.
operators = Table(
    "operators",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(128), nullable=False, unique=True),
    Column("status", String(16), nullable=False),  # active, suspended
    # JSON of what the studio configured (operators/accounts.py, OperatorSettings); the rest
    # comes from the server's settings.  Secrets in clear: they sign requests both ways.
    Column("settings", Text, nullable=False),
    Column("version", Integer, nullable=False),  # bumped by every change: processes reload on it
    # 1: the deployment's own operator (the upgrade's): its unset wallet and webhook settings are
    # the server's REELFORGE_* ones; 0: an account the studio created (unset: none).
    Column("server_defaults", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("suspended_at", Float),
)

operator_keys = Table(
    "operator_keys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("operator_id", Integer, ForeignKey("operators.id"), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),  # sha256 of the key, hex
    Column("prefix", String(16), nullable=False),  # the key's first characters, to tell keys apart
    Column("label", String(64)),
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float),
)
Index("ix_operator_keys_operator", operator_keys.c.operator_id)

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("operator_id", Integer, ForeignKey("operators.id"), nullable=False),
    Column("external_id", String(128), nullable=False),  # unique within its operator
    Column("currency", String(3), nullable=False),
    Column("balance", BigInteger, nullable=False),  # minor units; always the ledger's sum
    Column("last_round_at", Float),  # start of the last game cycle (GB 2.5 s rule)
    Column("created_at", Float, nullable=False),
    UniqueConstraint("operator_id", "external_id", name="uq_players_operator_external_id"),
)

ledger = Table(
    "ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("amount", BigInteger, nullable=False),  # signed minor units
    Column("balance_after", BigInteger, nullable=False),
    Column("kind", String(16), nullable=False),  # deposit, withdrawal, stake, win, refund, operator
    Column("round_id", Integer, ForeignKey("rounds.id")),
    Column("reference", String(200), nullable=False),  # unique per player: no double movement
    Column("created_at", Float, nullable=False),
    UniqueConstraint("player_id", "reference", name="uq_ledger_player_reference"),
)
Index("ix_ledger_player", ledger.c.player_id, ledger.c.id)

sessions = Table(
    "sessions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),  # sha256 of the token
    Column("profile", String(16), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("closed_at", Float),
    Column("close_reason", String(64)),
    Column("time_limit_seconds", Integer),
    Column("spend_limit", BigInteger),
    Column("staked", BigInteger, nullable=False),
    Column("won", BigInteger, nullable=False),
    # The player's play settings for this session, JSON {game: {name: bool}}: only what the
    # player set (the game's defaults fill the rest); null = nothing set.
    Column("play_settings", Text),
    # Player protection (migration 0004): the reality-check interval in force (null: the
    # profile's), how many intervals the player has acknowledged (null: none), and the
    # operator's page where the player sets limits (http/https, or null).
    Column("reality_check_seconds", Integer),
    Column("reality_checks_acknowledged", Integer),
    Column("limits_url", String(2048)),
)
Index("ix_sessions_player", sessions.c.player_id, sessions.c.id)  # migration 0007

rounds = Table(
    "rounds",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("session_id", Integer, ForeignKey("sessions.id")),
    Column("autoplay_id", Integer),
    Column("game", String(64), nullable=False),
    Column("game_version", String(32), nullable=False),
    Column("variant", String(32), nullable=False),
    Column("mode", String(32), nullable=False),
    Column("stake", BigInteger, nullable=False),
    Column("coin", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),  # pending, complete, voided
    Column("win", BigInteger, nullable=False),
    Column("step", Integer, nullable=False),
    Column("balance_before", BigInteger, nullable=False),
    Column("balance_after", BigInteger),
    Column("state", Text, nullable=False),  # the Round as JSON (hidden state included)
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("completed_at", Float),
    Column("completed_by", String(16)),  # player, server (default play), void
)
Index("ix_rounds_player", rounds.c.player_id, rounds.c.id)
Index("ix_rounds_status_updated", rounds.c.status, rounds.c.updated_at)
Index("ix_rounds_player_status", rounds.c.player_id, rounds.c.status, rounds.c.game)

round_steps = Table(
    "round_steps",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("round_id", Integer, ForeignKey("rounds.id"), nullable=False),
    Column("step", Integer, nullable=False),
    Column("action", Text),  # JSON of the player's action (null for the start)
    Column("actor", String(16), nullable=False),  # player, autoplay, server
    Column("draws", Text, nullable=False),  # JSON [[n, value], ...] from the production RNG
    Column("events", Text, nullable=False),  # JSON of the events this step added
    Column("win_after", BigInteger, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("request_id", String(64)),  # the request that made it (none: the server's own step)
    UniqueConstraint("round_id", "step", name="uq_round_steps_round_step"),
)

player_state = Table(
    "player_state",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("game", String(64), primary_key=True),
    Column("state_key", String(64), primary_key=True),
    Column("state", Text, nullable=False),
    Column("updated_at", Float, nullable=False),
)

# Movements of side balances (a game's second currency kept in player_state, e.g. Bonuses):
# one row per change a round step made, so every stored side balance is its movements' sum.
side_ledger = Table(
    "side_ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("game", String(64), nullable=False),
    Column("state_key", String(64), nullable=False),
    Column("currency", String(32), nullable=False),  # the player_state field, e.g. "bonuses"
    Column("round_id", Integer, ForeignKey("rounds.id"), nullable=False),
    Column("step", Integer, nullable=False),  # the round step that moved it (a void's step too)
    Column("amount", BigInteger, nullable=False),  # signed units of that currency
    Column("balance_after", BigInteger, nullable=False),
    Column("created_at", Float, nullable=False),
    UniqueConstraint("round_id", "step", "currency", name="uq_side_ledger_round_step_currency"),
)
Index("ix_side_ledger_player", side_ledger.c.player_id, side_ledger.c.game, side_ledger.c.id)

idempotency = Table(
    "idempotency",
    metadata,
    Column("scope", String(64), primary_key=True),
    Column("key", String(128), primary_key=True),
    Column("fingerprint", String(64), nullable=False),
    Column("status_code", Integer, nullable=False),
    Column("response", Text, nullable=False),
    Column("created_at", Float, nullable=False),
)

# Settings by operator (its profile, variants, bets, currencies); operator 0 holds the server's
# own (the seamless installation id and round counter).
settings_table = Table(
    "server_settings",
    metadata,
    Column("operator_id", Integer, primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

autoplays = Table(
    "autoplays",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("session_id", Integer, ForeignKey("sessions.id"), nullable=False),
    Column("game", String(64), nullable=False),
    Column("status", String(16), nullable=False),  # running, stopped
    Column("state", Text, nullable=False),  # reelforge.engine.autoplay.Autoplay as JSON
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)
Index("ix_autoplays_player", autoplays.c.player_id, autoplays.c.status)

# Deliveries that must happen after a commit, at least once (wallet credits and rollbacks to an
# operator's seamless wallet, webhooks): enqueued in the transaction that decides them, then
# delivered by reelforge.server.wallets.outbox.OutboxWorker until the receiver confirms.
outbox = Table(
    "outbox",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(64), nullable=False),  # e.g. wallet.credit, wallet.rollback, webhook
    Column("dedup_key", String(200), nullable=False),  # e.g. the wallet transaction id
    Column("payload", Text, nullable=False),  # JSON, the handler's input
    Column("status", String(16), nullable=False),  # pending, done, failed (needs a person)
    Column("attempts", Integer, nullable=False),  # deliveries started so far
    Column("next_attempt_at", Float, nullable=False),  # due time; while claimed, the lease's end
    Column("claimed_by", String(64)),  # the claim a worker holds (fences a late finisher)
    Column("last_error", Text),
    Column("created_at", Float, nullable=False),
    Column("done_at", Float),
    UniqueConstraint("dedup_key", name="uq_outbox_dedup_key"),
)
Index("ix_outbox_due", outbox.c.status, outbox.c.next_attempt_at)

# The seamless wallet (migration 0006, reelforge.server.wallets.seamless_wallet): players whose money the
# operator keeps, and our side's book of every transaction sent to the operator's wallet.
seamless_accounts = Table(
    "seamless_accounts",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    # The balance in the operator's freshest reply; players.balance is it plus what is owed
    # (credits and refunds queued, not yet confirmed).
    Column("operator_balance", BigInteger, nullable=False),
    Column("balance_sent_at", Float, nullable=False),  # when the request behind it was sent
    # the operator's ledger position of that balance (its replies' balance_seq), when it gives one
    Column("balance_seq", BigInteger),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)

seamless_transactions = Table(
    "seamless_transactions",
    metadata,
    Column("transaction_id", String(128), primary_key=True),  # the protocol's, unique forever
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("round_id", Integer, nullable=False),  # no FK: a debit's round may never be stored
    # debit (a stake), credit (a win, 0 closes a round), refund (a void: sent as a rollback),
    # rollback (the compensation of a debit whose round was not stored)
    Column("kind", String(16), nullable=False),
    # pending (sent or to send), confirmed, refused, cancelled (never sent), rolled_back (a debit
    # its compensation cancelled at the operator)
    Column("status", String(16), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("original_transaction_id", String(128)),  # a rollback's or refund's debit
    Column("operator_transaction_id", String(128)),
    Column("operator_balance", BigInteger),  # the balance the operator's reply gave
    Column("created_at", Float, nullable=False),
    Column("confirmed_at", Float),
)
Index(
    "ix_seamless_transactions_player",
    seamless_transactions.c.player_id,
    seamless_transactions.c.status,
)
Index("ix_seamless_transactions_round", seamless_transactions.c.round_id)
