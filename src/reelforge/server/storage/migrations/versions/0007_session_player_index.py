"""Sessions by player: the operator lists a player's sessions, and opening one finds the
player's live sessions to replace, without scanning every session.

Revision ID: 0007
Revises: 0006
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_sessions_player", "sessions", ["player_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_player", "sessions")
