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

def upgrade() -> None:
    op.get_bind().execute(
        sa.text(
            "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"
            " SELECT p.id, p.balance - s.total, p.balance, 'operator', NULL, 'operator:migration-0009', :now"
            " FROM players p JOIN seamless_accounts a ON a.player_id = p.id"
            " JOIN (SELECT pl.id AS player_id, COALESCE((SELECT SUM(l.amount) FROM ledger l"
            " WHERE l.player_id = pl.id), 0) AS total FROM players pl) s ON s.player_id = p.id"
            " WHERE p.balance <> s.total"
        ),
        {"now": time.time()},
    )


def downgrade() -> None:
    op.execute("DELETE FROM ledger WHERE reference = 'operator:migration-0009'")
