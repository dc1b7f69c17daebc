"""Index the per-spin lookup of a player's rounds in play (player, status, game).

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_player_status", "rounds", ["player_id", "status", "game"])


def downgrade() -> None:
    op.drop_index("ix_rounds_player_status", "rounds")
