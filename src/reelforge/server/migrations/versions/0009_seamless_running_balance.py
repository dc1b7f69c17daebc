"""A seamless player's balance becomes our running figure of the operator's money, moved only by
ledger rows (its reconciliations with the operator are rows of kind ``operator``): this books,
for each seamless player, the one ``operator`` row that makes the ledger's sum their balance.

Revision ID: 0009
Revises: 0008
"""

import time

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_SUM = "COALESCE((SELECT SUM(l.amount) FROM ledger l WHERE l.player_id = p.id), 0)"


def upgrade() -> None:
    op.get_bind().execute(
        sa.text(
            "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"
            f" SELECT p.id, p.balance - {_SUM}, p.balance, 'operator', NULL, 'operator:migration-0009',"
            f" :now FROM players p JOIN seamless_accounts a ON a.player_id = p.id WHERE p.balance <> {_SUM}"
        ),
        {"now": time.time()},
    )


def downgrade() -> None:
    op.execute("DELETE FROM ledger WHERE reference = 'operator:migration-0009'")
