"""The spin's fast path: a request's statements batched (sql.combine), the PostgreSQL
transaction in pipeline mode (sql.Pipelined: one transaction, rolled back whole when
refused or failed), the combined stake-and-win call, and the hot routes handing everything
but the plain case to FastAPI.  On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text

from reelforge.server.core.errors import ApiError
from reelforge.server.storage import schema as t
from reelforge.server.storage.sql import Pipelined, combine, q, q_many, x
from server_support import Api


def _pg(sql: str) -> str:
    from reelforge.server.storage.sql import for_dialect

    return for_dialect(sql, "postgresql")


# -- combine: which writes may share a statement --------------------------------------------


def test_writes_naming_no_common_table_go_as_one_statement() -> None:
    out = combine(
        [
            (_pg("INSERT INTO rounds (id, game) VALUES (:id, :g)"), {"id": 7, "g": "x", "unused": 1}),
            (_pg("INSERT INTO round_steps (round_id, step) VALUES (:id, 1)"), {"id": 7}),
            (_pg("UPDATE sessions SET staked = staked + :s WHERE id = :id"), {"s": 40, "id": 3}),
        ]
    )
    assert len(out) == 1
    sql, params = out[0]
    assert sql.startswith("WITH w0 AS (INSERT INTO rounds") and sql.endswith("WHERE id = %(w2_id)s")
    assert params == {"w0_id": 7, "w0_g": "x", "w1_id": 7, "w2_s": 40, "w2_id": 3}


def test_a_table_named_twice_starts_a_new_statement_in_order() -> None:
    out = combine(
        [
            (_pg("INSERT INTO rounds (id) VALUES (:id)"), {"id": 1}),
            (_pg("UPDATE rounds SET step = :s WHERE id = :id"), {"s": 2, "id": 1}),
            (_pg("INSERT INTO ledger (round_id) SELECT id FROM rounds WHERE id = :id"), {"id": 1}),
        ]
    )
    assert [sql.split()[0] for sql, _ in out] == ["INSERT", "UPDATE", "INSERT"]  # nothing joined


def test_two_updates_of_one_row_become_one_and_others_do_not() -> None:
    last = (_pg("UPDATE players SET last_round_at = :t WHERE id = :id"), {"t": 1.5, "id": 4})
    money = (
        _pg("UPDATE players SET balance = CASE WHEN balance = :before THEN :after END WHERE id = :id"),
        {"before": 100, "after": 60, "id": 4},
    )
    (merged,) = combine([last, money])
    assert merged[0] == (
        "UPDATE players SET last_round_at = %(t)s, balance = CASE WHEN balance = %(m0_before)s"
        " THEN %(m0_after)s END WHERE id = %(id)s"
    )
    assert merged[1] == {"t": 1.5, "id": 4, "m0_before": 100, "m0_after": 60}
    other_row = (money[0], {**money[1], "id": 5})
    assert len(combine([last, other_row])) == 2
    reads_it = (_pg("UPDATE players SET last_round_at = balance WHERE id = :id"), {"id": 4})
    assert len(combine([money, reads_it])) == 2  # the second reads what the first sets


def test_a_statement_stays_within_what_psycopg_caches() -> None:
    wide = [(_pg(f"INSERT INTO t{i} (a) VALUES (" + ", ".join(f":p{j}" for j in range(20)) + ")"),
             {f"p{j}": j for j in range(20)}) for i in range(3)]  # fmt: skip
    assert len(combine(wide)) == 2  # 60 parameters: 40 + 20


# -- the transaction ----------------------------------------------------------------------------


def test_a_transaction_commits_whole_and_reads_see_its_own_writes(server) -> None:
    ctx = server.context

    def work(conn):
        x(
            conn,
            "INSERT INTO server_settings (operator_id, key, value) VALUES (0, :k, :v)",
            {"k": "a", "v": "1"},
        )
        seen = q(conn, "SELECT value FROM server_settings WHERE key = :k", {"k": "a"}).scalar()
        # A SQLAlchemy statement in the middle, then more of ours.
        core = conn.execute(select(t.settings_table.c.value).where(t.settings_table.c.key == "a")).scalar()
        x(conn, "UPDATE server_settings SET value = :v WHERE key = :k", {"k": "a", "v": "2"})
        both = q_many(conn, [("SELECT value FROM server_settings WHERE key = :k", {"k": "a"})] * 2)
        return seen, core, [r.scalar() for r in both]

    assert ctx.run(work) == ("1", "1", ["2", "2"])
    with server.engine.connect() as conn:
        assert conn.execute(text("SELECT value FROM server_settings WHERE key = 'a'")).scalar() == "2"


@pytest.mark.parametrize("with_core", [False, True])
def test_a_refused_or_failed_transaction_leaves_nothing(server, with_core) -> None:
    ctx = server.context

    def refused(conn):
        x(conn, "INSERT INTO server_settings (key, value) VALUES ('b', '1')")
        q(conn, "SELECT value FROM server_settings WHERE key = 'b'")  # sent, answered
        if with_core:
            conn.execute(select(t.settings_table.c.value))
        x(conn, "INSERT INTO server_settings (key, value) VALUES ('c', '1')")
        raise ApiError(409, "nope", "refused after the writes")

    with pytest.raises(ApiError):
        ctx.run(refused)

    def failing(conn):
        x(conn, "INSERT INTO server_settings (key, value) VALUES ('d', '1')")
        x(conn, "INSERT INTO server_settings (key, value) VALUES ('d', '2')")  # the same key

    with pytest.raises(ApiError) as caught:  # the IntegrityError, as 409
        ctx.run(failing)
    assert caught.value.status == 409
    with server.engine.connect() as conn:
        keys = conn.execute(text("SELECT key FROM server_settings WHERE key IN ('b', 'c', 'd')")).all()
    assert keys == []
    # The connections went back to the pool as they were lent: psycopg's own transactions.
    with server.engine.connect() as conn:
        assert Pipelined.KEY not in conn.info
        if conn.dialect.name == "postgresql":
            assert conn.connection.dbapi_connection.autocommit is False


# -- the spin's requests ------------------------------------------------------------------------


def test_a_refused_start_writes_nothing_and_a_repeat_gets_the_stored_bytes(api: Api, server) -> None:
    token = api.new_player("p1", balance=30)
    api.start(token, stake=40, expect=402)
    with server.engine.connect() as conn:
        assert conn.execute(select(t.rounds)).all() == []
    api.operator("POST", "/players/p1/credit", json={"amount": 10_000}, expect=200)
    h = {"Authorization": f"Bearer {token}", "Idempotency-Key": "same"}
    first = api.client.post("/api/v1/rounds", json={"game": "reign-of-gnomes", "stake": 40}, headers=h)
    again = api.client.post("/api/v1/rounds", json={"game": "reign-of-gnomes", "stake": 40}, headers=h)
    assert first.status_code == again.status_code == 201 and first.content == again.content
    with server.engine.connect() as conn:
        assert len(conn.execute(select(t.rounds)).all()) == 1


def test_what_the_hot_routes_do_not_take_fastapi_answers(api: Api) -> None:
    token = api.new_player("p2")
    auth = {"Authorization": f"Bearer {token}", "Idempotency-Key": "k1"}
    cases = [
        ({**auth, "Content-Type": "text/plain"}, b'{"game": "reign-of-gnomes", "stake": 40}', 422),
        ({**auth, "Content-Type": "application/json"}, b'{"game": "reign-of-gnomes", "stake": "40"}', 422),
        ({**auth, "Content-Type": "application/json"}, b"[" * 5000 + b"]" * 5000, 422),  # nested too deep
        ({**auth, "Content-Type": "application/json"}, b"{not json", 422),
    ]
    for headers, body, status in cases:
        r = api.client.post("/api/v1/rounds", content=body, headers=headers)
        assert r.status_code == status, (body[:40], r.text)
        assert "error" in r.json()
    r = api.client.post("/api/v1/rounds/0/actions", json={"action": "spin"}, headers=auth)
    assert r.status_code == 422  # round ids start at 1: FastAPI's path validation
    r = api.client.post("/api/v1/rounds/999999/actions", json={"action": "spin"}, headers=auth)
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
