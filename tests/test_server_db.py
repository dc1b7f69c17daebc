"""The migrated schema is exactly the one the code queries, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from reelforge.server.storage.db import make_engine, migrate
from reelforge.server.storage.schema import metadata


def test_migrations_create_exactly_the_declared_schema(db_url) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)  # a second start finds nothing to do
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    engine.dispose()
    assert diff == []


def test_a_database_that_does_not_answer_is_503_with_retry_after_not_500(tmp_path) -> None:
    """PostgreSQL down (here: nothing listens on the port) is a 503 `database_unavailable` with
    `Retry-After`, the status the browser client resends with the same Idempotency-Key; a 500
    it would not resend, and a request whose commit landed before the connection died would
    never get its stored reply (the soak, bench/soak.py, restarts PostgreSQL under load)."""
    from fastapi.testclient import TestClient

    from reelforge.server.core.config import Settings
    from reelforge.server.http.api import create_app
    from reelforge.server.runtime.service import GameServer
    from server_process import free_port

    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/nowhere"
    server = GameServer(Settings(db=url, data_dir=tmp_path, operator_key="k", test_games=True))
    client = TestClient(create_app(server), raise_server_exceptions=False)
    calls = [
        ("GET", "/api/v1/balance", {"Authorization": "Bearer x"}, None),
        ("POST", "/api/v1/rounds", {"Authorization": "Bearer x", "Idempotency-Key": "a"},
         {"game": "reign-of-gnomes", "stake": 40}),
        ("POST", "/api/v1/operator/players", {"X-Operator-Key": "k"}, {"external_id": "p"}),
    ]  # fmt: skip
    try:
        for method, path, headers, body in calls:
            r = client.request(method, path, headers=headers, json=body)
            assert r.status_code == 503, (path, r.status_code, r.text)
            assert r.json()["error"]["code"] == "database_unavailable", r.text
            assert r.headers["Retry-After"] == "1"
        doc = client.get("/openapi.json").json()  # documented once, for every route
        assert "database_unavailable" in doc["components"]["responses"]["DatabaseUnavailable"]["description"]
    finally:
        server.engine.dispose()


def test_a_connection_lost_inside_a_transaction_raises_the_database_error(pg_template, tmp_path) -> None:
    """PostgreSQL ends the connection in the middle of a request's transaction (a restart, a
    failover): what reaches the routes is the driver's OperationalError, which they answer 503
    (resent by clients), not the PendingRollbackError that reading ``conn.info`` of the dead
    connection raised while cleaning up, which was answered 500 (found by the soak)."""
    import pytest
    from sqlalchemy import text
    from sqlalchemy.exc import OperationalError

    from conftest import drop_pg_database, fresh_pg_database
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    name, url = fresh_pg_database(pg_template)
    server = GameServer(Settings(db=url, data_dir=tmp_path, operator_key="k", test_games=True))
    try:
        ctx = server.context
        assert ctx.pipelined

        def work(conn) -> None:
            conn.execute(text("SELECT pg_terminate_backend(pg_backend_pid())"))
            conn.execute(text("SELECT 1"))  # the connection is gone by now

        with pytest.raises(OperationalError):
            ctx.run(work)
        assert ctx.run(lambda conn: conn.execute(text("SELECT 2")).scalar_one()) == 2  # a new one
    finally:
        server.engine.dispose()
        drop_pg_database(name)
