"""Database engine, transactions and migrations.

SQLite (the embedded default) runs in WAL mode and every transaction starts with
``BEGIN IMMEDIATE``: writers queue on the database lock instead of failing on upgrade.
PostgreSQL serialises a player's requests with ``SELECT ... FOR UPDATE`` on the player row.
Migrations (Alembic) run at start, under an advisory lock on PostgreSQL so that several
server processes starting together migrate once.
"""

from __future__ import annotations

import time
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, exc, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from reelforge.server.core.data_dir import DIR_MODE, secure_file

MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_LOCK = 7_461_001  # arbitrary advisory-lock id for reelforge migrations
# A pooled PostgreSQL connection idle longer than this is pinged before it is handed out.
PING_AFTER_IDLE_SECONDS = 5.0


def make_engine(url: str, pool_size: int = 8) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            # The database and its WAL files (SQLite gives them the database's mode): owner only.
            path = Path(parsed.database)
            path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                if part == path or part.exists():
                    secure_file(part)
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
    engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size)
    _ping_when_idle(engine, PING_AFTER_IDLE_SECONDS)
    return engine


def make_loop_engine(url: URL, pool_size: int = 8) -> AsyncEngine:
    """PostgreSQL through psycopg's async connections, for requests run on the event loop
    (``ServerContext.call_on_loop``), with the idle ping of ``make_engine``.  No overflow:
    on the loop every request in flight asks for a connection at once, and an overflow
    connection is closed when it comes back, so a burst would connect and disconnect one per
    request; past ``pool_size`` requests wait for one (asynchronously) instead.  Its
    connections stay in autocommit and are not reset when they come back: every use is a
    ``sql.LoopPipelined`` transaction, which runs in autocommit and ends what it began (so
    a checkout and a return are no round trips and no lock of psycopg's)."""
    engine = create_async_engine(
        url, pool_size=pool_size, max_overflow=0, isolation_level="AUTOCOMMIT", pool_reset_on_return=None
    )
    _ping_when_idle(engine.sync_engine, PING_AFTER_IDLE_SECONDS)
    return engine


def _ping_when_idle(engine: Engine, idle_seconds: float) -> None:
    """Pessimistic disconnect handling, for connections that sat idle only.

    ``pool_pre_ping`` pings on every checkout: a round trip (and two autocommit switches)
    per request, about a tenth of a spin's SQL time under load.  A connection checked in a
    moment ago is alive as far as a ping could tell; one idle longer than ``idle_seconds``
    (the database restarted, a proxy dropped it) is pinged, and a dead one is replaced by
    the pool (``DisconnectionError`` from a checkout handler makes it retry afresh)."""

    @event.listens_for(engine, "connect")
    def _fresh(_dbapi_conn, record) -> None:  # type: ignore[no-untyped-def]
        record.info["rf_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_conn, record) -> None:  # type: ignore[no-untyped-def]
        if record is not None:
            record.info["rf_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, record, _proxy) -> None:  # type: ignore[no-untyped-def]
        since = record.info.get("rf_idle_since")
        if since is not None and time.monotonic() - since < idle_seconds:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_conn)
        except Exception as error:
            raise exc.DisconnectionError(f"stale pooled connection: {error}") from error
        if not alive:
            raise exc.DisconnectionError("stale pooled connection")


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (idempotent, safe across processes)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as conn:
        # SQLite: a migration that copies a table (alembic's batch mode) drops the old one,
        # which other tables' foreign keys point at; their checks are off meanwhile (a pragma
        # SQLite ignores inside a transaction, so it is sent before BEGIN) and the whole
        # database is checked before the commit.
        raw = conn.connection.dbapi_connection
        if sqlite:
            raw.execute("PRAGMA foreign_keys=OFF")
        try:
            with conn.begin():
                if is_postgres(engine):
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
                if sqlite and (broken := conn.exec_driver_sql("PRAGMA foreign_key_check").all()):
                    raise RuntimeError(f"the migration broke foreign keys: {broken[:5]}")
        finally:
            if sqlite:
                raw.execute("PRAGMA foreign_keys=ON")
