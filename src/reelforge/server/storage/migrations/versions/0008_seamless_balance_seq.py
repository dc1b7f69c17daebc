"""The operator's ledger position of a seamless player's balance (its replies' ``balance_seq``):
the freshest balance is the one at the highest position, so a redelivered credit answered with
its first reply never puts an older balance back.

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seamless_accounts", sa.Column("balance_seq", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("seamless_accounts", "balance_seq")
