"""The ceiling for ``bench/server_load.py --ceiling``: a bare spin endpoint that does only a
spin's unavoidable work, behind the same uvicorn (same settings, same worker count).

``POST /api/v1/rounds`` with the player's bearer token and an Idempotency-Key, in one
transaction on PostgreSQL: lock the player (found through the session's token hash, the
stored reply of the key looked up in the same statement), write the round, its ledger rows
(stake, and the win when there is one), the balance and the stored idempotent reply; then
answer ``{"round": {...}, "balance": n}`` as reelforge does, so the same load generator
drives it.  No game rules (the win is a cheap draw), no framework: a raw ASGI app, its
database work on the event loop with psycopg's async connections in pipeline mode (BEGIN
and the read in one round trip, the writes and COMMIT in a second), so nothing here is a
cost reelforge could not, in principle, avoid.  The rows it writes pass the bench's audit
and ``GameServer.audit()`` (a round complete at its first step, its ledger = win - stake).

Serve with ``uvicorn ceiling_app:create --factory`` (``bench/`` on PYTHONPATH) and
``REELFORGE_DB`` pointing at a migrated reelforge database whose players and sessions
exist.  ``GET /api/v1/health`` and ``GET /api/v1/rounds/pending`` (always empty) are
there for the load generator.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import secrets
import time
from typing import Any

import psycopg

# A slot-like outcome without the rules: about one spin in three wins a few stakes.
_PAYS = (0, 0, 0, 0, 0, 0, 1, 2, 5)

READ = (
    "SELECT p.id, p.balance, i.fingerprint, i.status_code, i.response, nextval('rounds_id_seq') AS rid"
    " FROM sessions s JOIN players p ON p.id = s.player_id"
    " LEFT JOIN idempotency i ON i.scope = 'player:' || p.id AND i.key = %(key)s"
    " WHERE s.token_hash = %(h)s AND s.closed_at IS NULL FOR UPDATE OF p"
)
INSERT_ROUND = (
    "INSERT INTO rounds (id, player_id, session_id, autoplay_id, game, game_version, variant, mode,"
    " stake, coin, status, win, step, balance_before, balance_after, state, created_at, updated_at,"
    " completed_at, completed_by) VALUES (%(id)s, %(p)s, NULL, NULL, %(game)s, '1', 'ceiling', 'base',"
    " %(stake)s, 1, 'complete', %(win)s, 1, %(before)s, %(after)s, %(state)s, %(ts)s, %(ts)s, %(ts)s,"
    " 'player')"
)
LEDGER_1 = (
    "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"
    " VALUES (%(p)s, %(a1)s, %(b1)s, 'stake', %(id)s, %(r1)s, %(ts)s)"
)
LEDGER_2 = LEDGER_1 + ", (%(p)s, %(a2)s, %(b2)s, 'win', %(id)s, %(r2)s, %(ts)s)"
BALANCE = "UPDATE players SET balance = %(b)s WHERE id = %(p)s"
REMEMBER = (
    "INSERT INTO idempotency (scope, key, fingerprint, status_code, response, created_at)"
    " VALUES (%(scope)s, %(key)s, %(fp)s, 201, %(response)s, %(ts)s)"
)

JSON_HEADERS = [(b"content-type", b"application/json")]


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":")).encode()


try:  # the same encoder reelforge uses, where it is installed
    import orjson

    def _dumps(data: Any) -> bytes:  # type: ignore[no-redef]
        return orjson.dumps(data)
except ImportError:  # pragma: no cover
    pass


class Ceiling:
    def __init__(self, url: str, connections: int) -> None:
        self.url = url.replace("postgresql+psycopg://", "postgresql://")
        self.size = connections
        self.pool: asyncio.Queue[psycopg.AsyncConnection] | None = None

    async def start(self) -> None:
        self.pool = asyncio.Queue()
        for _ in range(self.size):
            conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            self.pool.put_nowait(conn)

    async def stop(self) -> None:
        assert self.pool is not None
        while not self.pool.empty():
            await self.pool.get_nowait().close()

    async def spin(self, token: str, key: str, body: dict[str, Any]) -> tuple[int, bytes]:
        stake = body["stake"]
        fp = hashlib.sha256(f"POST /rounds {json.dumps(body, sort_keys=True)}".encode()).hexdigest()
        assert self.pool is not None
        conn = await self.pool.get()
        try:
            async with conn.pipeline() as pipe:
                cur = conn.cursor()
                await cur.execute("BEGIN")
                await cur.execute(READ, {"key": key, "h": hashlib.sha256(token.encode()).hexdigest()})
                row = await cur.fetchone()
                if row is None:
                    await cur.execute("ROLLBACK")
                    return 401, _dumps({"error": {"code": "invalid_token", "message": "no session"}})
                pid, balance, old_fp, old_status, old_response, rid = row
                if old_fp is not None:
                    await cur.execute("ROLLBACK")
                    if old_fp != fp:
                        return 422, _dumps({"error": {"code": "idempotency_key_reused", "message": ""}})
                    return old_status, old_response.encode()
                if balance < stake:
                    await cur.execute("ROLLBACK")
                    return 402, _dumps({"error": {"code": "insufficient_funds", "message": ""}})
                win = stake * _PAYS[secrets.randbelow(len(_PAYS))]
                after = balance - stake + win
                ts = time.time()
                stops = [secrets.randbelow(64) for _ in range(5)]
                rnd = {
                    "id": rid, "game": body["game"], "game_version": "1", "variant": "ceiling",
                    "mode": "base", "coin": 1, "stake": stake, "status": "complete", "step": 1,
                    "win": win, "events": [{"type": "spin", "stops": stops, "win": win}], "actions": [],
                    "state": {}, "player_state": None,
                }  # fmt: skip
                reply = _dumps({"round": rnd, "balance": after})
                await cur.execute(
                    INSERT_ROUND,
                    {"id": rid, "p": pid, "game": body["game"], "stake": stake, "win": win,
                     "before": balance, "after": after, "state": _dumps(rnd).decode(), "ts": ts},
                )  # fmt: skip
                ledger = {
                    "p": pid, "id": rid, "ts": ts, "a1": -stake, "b1": balance - stake,
                    "r1": f"round:{rid}:stake", "a2": win, "b2": after, "r2": f"round:{rid}:win",
                }  # fmt: skip
                await cur.execute(LEDGER_2 if win else LEDGER_1, ledger)
                await cur.execute(BALANCE, {"b": after, "p": pid})
                await cur.execute(
                    REMEMBER,
                    {"scope": f"player:{pid}", "key": key, "fp": fp, "response": reply.decode(), "ts": ts},
                )
                await cur.execute("COMMIT")
                await pipe.sync()
            return 201, reply
        except BaseException:
            try:
                await conn.rollback()
            except Exception:  # a broken connection: replace it
                await conn.close()
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            raise
        finally:
            self.pool.put_nowait(conn)


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def create() -> Any:
    ceiling = Ceiling(os.environ["REELFORGE_DB"], int(os.environ.get("REELFORGE_POOL_SIZE", "8")))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await ceiling.start()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await ceiling.stop()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        path, method = scope["path"], scope["method"]
        headers = dict(scope["headers"])
        body = await _read_body(receive)
        if method == "POST" and path == "/api/v1/rounds":
            auth = headers.get(b"authorization", b"").decode()
            token = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
            key = headers.get(b"idempotency-key", b"").decode()
            status, out = await ceiling.spin(token, key, json.loads(body))
        elif method == "GET" and path == "/api/v1/health":
            status, out = 200, b'{"ok":true}'
        elif method == "GET" and path == "/api/v1/rounds/pending":
            status, out = 200, b'{"rounds":[]}'
        else:
            status, out = 404, b'{"error":{"code":"not_found","message":""}}'
        await send({"type": "http.response.start", "status": status,
                    "headers": [*JSON_HEADERS, (b"content-length", str(len(out)).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": out})

    return app
