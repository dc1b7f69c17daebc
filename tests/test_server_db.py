"""The migrated schema is exactly the one the code queries, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from reelforge.server.db import make_engine, migrate
from reelforge.server.schema import metadata


def test_migrations_create_exactly_the_declared_schema(db_url) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)  # a second start finds nothing to do
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    engine.dispose()
    assert diff == []
