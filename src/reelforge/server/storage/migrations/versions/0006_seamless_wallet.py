"""The seamless wallet: players whose money the operator keeps (their last known operator
balance) and our side's book of every transaction sent to the operator's wallet.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seamless_accounts",
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("operator_balance", sa.BigInteger, nullable=False),
        sa.Column("balance_sent_at", sa.Float, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "seamless_transactions",
        sa.Column("transaction_id", sa.String(128), primary_key=True),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("round_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("original_transaction_id", sa.String(128)),
        sa.Column("operator_transaction_id", sa.String(128)),
        sa.Column("operator_balance", sa.BigInteger),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("confirmed_at", sa.Float),
    )
    op.create_index("ix_seamless_transactions_player", "seamless_transactions", ["player_id", "status"])
    op.create_index("ix_seamless_transactions_round", "seamless_transactions", ["round_id"])


def downgrade() -> None:
    op.drop_index("ix_seamless_transactions_round", "seamless_transactions")
    op.drop_index("ix_seamless_transactions_player", "seamless_transactions")
    op.drop_table("seamless_transactions")
    op.drop_table("seamless_accounts")
