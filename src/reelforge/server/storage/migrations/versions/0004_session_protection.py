"""Player protection in every profile: each session keeps its reality-check interval, how
many intervals the player has acknowledged, and the operator's limits page.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: sessions opened before this revision fall back to their profile's interval.
    op.add_column("sessions", sa.Column("reality_check_seconds", sa.Integer))
    op.add_column("sessions", sa.Column("reality_checks_acknowledged", sa.Integer))
    op.add_column("sessions", sa.Column("limits_url", sa.String(2048)))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("limits_url")
        batch.drop_column("reality_checks_acknowledged")
        batch.drop_column("reality_check_seconds")
