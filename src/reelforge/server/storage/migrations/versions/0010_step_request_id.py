"""Every round step records the request that made it (its ``X-Request-Id``, or the one the
server gave it), so an operator can follow a round from the load balancer's log through the
server's JSON log lines and webhooks to its history.  Steps the server makes on its own (the
sweeper's default play) and steps stored before this migration have none.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("round_steps", sa.Column("request_id", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("round_steps") as batch:
        batch.drop_column("request_id")
