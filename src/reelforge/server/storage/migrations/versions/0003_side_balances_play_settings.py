"""Side balances and play settings: the ``side_ledger`` table (every movement of a game's
second currency kept in player state) and ``sessions.play_settings`` (the player's switches).

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "side_ledger",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("state_key", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(32), nullable=False),
        sa.Column("round_id", sa.Integer, sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.UniqueConstraint("round_id", "step", "currency", name="uq_side_ledger_round_step_currency"),
    )
    op.create_index("ix_side_ledger_player", "side_ledger", ["player_id", "game", "id"])
    op.add_column("sessions", sa.Column("play_settings", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("play_settings")
    op.drop_index("ix_side_ledger_player", "side_ledger")
    op.drop_table("side_ledger")
