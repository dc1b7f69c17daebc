"""The durable outbox: deliveries (seamless-wallet credits and rollbacks, webhooks) enqueued in
the transaction that decides them and delivered after the commit, at least once.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("dedup_key", sa.String(200), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.Float, nullable=False),
        sa.Column("claimed_by", sa.String(64)),
        sa.Column("last_error", sa.Text),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("done_at", sa.Float),
        sa.UniqueConstraint("dedup_key", name="uq_outbox_dedup_key"),
    )
    # The workers' claim: due pending rows, oldest first.
    op.create_index("ix_outbox_due", "outbox", ["status", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_due", "outbox")
    op.drop_table("outbox")
