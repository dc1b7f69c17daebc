"""Database engine, transactions and migrations.

SQLite (the embedded default) runs in WAL mode and every transaction starts with
``BEGIN IMMEDIATE``: writers queue on the database lock instead of failing on upgrade.
PostgreSQL serialises a player's requests with ``SELECT ... FOR UPDATE`` on the player row.
Migrations (Alembic) run at start, under an advisory lock on PostgreSQL so that several
server processes starting together migrate once.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url

MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_LOCK = 7_461_001  # arbitrary advisory-lock id for reelforge migrations


def make_engine(url: str, pool_size: int = 8) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=pool_size,
            max_overflow=pool_size,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn) -> None:  # type: ignore[no-untyped-def]
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=True)


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (idempotent, safe across processes)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if is_postgres(engine):
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
