"""Many operators on one server: operator accounts and their hashed API keys; players belong to an
operator (an external id is unique within it); settings rows belong to an operator (0: the
server's own).  The upgrade makes operator 1, the deployment's own, holding every existing player
and setting; its key (REELFORGE_OPERATOR_KEY, or the generated one) is recorded the first time it
is used (operators/directory.py), since a migration does not know it.

Revision ID: 0011
Revises: 0010
"""

import time

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

# Server-wide rows of server_settings (wallets/seamless_books.py): not an operator's.
SERVER_KEYS = ("seamless_installation", "seamless_next_round_id")


def upgrade() -> None:
    op.create_table(
        "operators",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(128), nullable=False, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("server_defaults", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("suspended_at", sa.Float),
    )
    op.create_table(
        "operator_keys",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("operator_id", sa.Integer, sa.ForeignKey("operators.id"), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("label", sa.String(64)),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("revoked_at", sa.Float),
    )
    op.create_index("ix_operator_keys_operator", "operator_keys", ["operator_id"])
    ts = time.time()
    op.execute(
        sa.text(
            "INSERT INTO operators (id, name, status, settings, version, server_defaults, created_at,"
            " updated_at) VALUES (1, 'default', 'active', '{}', 1, 1, :ts, :ts)"
        ).bindparams(ts=ts)
    )
    sqlite = op.get_bind().dialect.name == "sqlite"
    if not sqlite:  # PostgreSQL: the explicit id 1 leaves the sequence behind it
        op.execute("SELECT setval(pg_get_serial_sequence('operators', 'id'), 1)")

    # players: operator_id (every existing player is operator 1's), unique per operator.
    if sqlite:
        # SQLite cannot drop the unnamed UNIQUE of 0001: the table is copied (batch mode), its
        # reflected constraint named by the convention so that it can be dropped (storage/db.py
        # turns the foreign keys' checks off around the migrations, for the copy).
        convention = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
        with op.batch_alter_table("players", naming_convention=convention, recreate="always") as batch:
            batch.add_column(sa.Column("operator_id", sa.Integer, nullable=False, server_default="1"))
            batch.drop_constraint("uq_players_external_id", type_="unique")
            batch.create_foreign_key("fk_players_operator", "operators", ["operator_id"], ["id"])
            batch.create_unique_constraint("uq_players_operator_external_id", ["operator_id", "external_id"])
        with op.batch_alter_table("players", recreate="always") as batch:
            batch.alter_column("operator_id", server_default=None)
    else:
        op.add_column("players", sa.Column("operator_id", sa.Integer, nullable=True))
        op.execute("UPDATE players SET operator_id = 1")
        op.alter_column("players", "operator_id", nullable=False)
        op.create_foreign_key("fk_players_operator", "players", "operators", ["operator_id"], ["id"])
        op.drop_constraint("players_external_id_key", "players", type_="unique")
        op.create_unique_constraint(
            "uq_players_operator_external_id", "players", ["operator_id", "external_id"]
        )

    # server_settings: keyed by (operator_id, key); the server's own rows are operator 0's.
    op.rename_table("server_settings", "server_settings_old")
    op.create_table(
        "server_settings",
        sa.Column("operator_id", sa.Integer, primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    server_keys = ", ".join(f"'{k}'" for k in SERVER_KEYS)
    op.execute(
        "INSERT INTO server_settings (operator_id, key, value) SELECT CASE WHEN key IN"  # nosec B608
        f" ({server_keys}) THEN 0 ELSE 1 END, key, value FROM server_settings_old"
    )
    op.drop_table("server_settings_old")

    # The operator's idempotency keys for calls naming no player were scoped "operator".
    op.execute("UPDATE idempotency SET scope = 'operator:1' WHERE scope = 'operator'")


def downgrade() -> None:
    raise NotImplementedError("0011 is not reversible: two operators may share an external id")
