"""Initial schema: players, ledger, sessions, rounds, steps, player state, idempotency,
settings, autoplays.

Revision ID: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("external_id", sa.String(128), nullable=False, unique=True),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("last_round_at", sa.Float),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("profile", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("closed_at", sa.Float),
        sa.Column("close_reason", sa.String(64)),
        sa.Column("time_limit_seconds", sa.Integer),
        sa.Column("spend_limit", sa.BigInteger),
        sa.Column("staked", sa.BigInteger, nullable=False),
        sa.Column("won", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id")),
        sa.Column("autoplay_id", sa.Integer),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("game_version", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("mode", sa.String(32), nullable=False),
        sa.Column("stake", sa.BigInteger, nullable=False),
        sa.Column("coin", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("win", sa.BigInteger, nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("balance_before", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("completed_at", sa.Float),
        sa.Column("completed_by", sa.String(16)),
    )
    op.create_index("ix_rounds_player", "rounds", ["player_id", "id"])
    op.create_index("ix_rounds_status_updated", "rounds", ["status", "updated_at"])
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id")),
        sa.Column("reference", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("player_id", "reference", name="uq_ledger_player_reference"),
    )
    op.create_index("ix_ledger_player", "ledger", ["player_id", "id"])
    op.create_table(
        "round_steps",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("action", sa.Text),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("draws", sa.Text, nullable=False),
        sa.Column("events", sa.Text, nullable=False),
        sa.Column("win_after", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("round_id", "step", name="uq_round_steps_round_step"),
    )
    op.create_table(
        "player_state",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("state_key", sa.String(64), primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "idempotency",
        sa.Column("scope", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "server_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "autoplays",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("session_id", sa.Integer, sa.ForeignKey("sessions.id"), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_autoplays_player", "autoplays", ["player_id", "status"])


def downgrade() -> None:
    for table in ("autoplays", "server_settings", "idempotency", "player_state", "round_steps", "ledger"):
        op.drop_table(table)
    op.drop_table("rounds")
    op.drop_table("sessions")
    op.drop_table("players")
