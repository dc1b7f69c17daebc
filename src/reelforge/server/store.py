"""Database operations shared by the server's requests.  Every function runs inside the
caller's transaction (``conn``); none commits."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from reelforge.server import schema as t
from reelforge.server.errors import ApiError, not_found


def now() -> float:
    return time.time()


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


# -- players and the ledger ------------------------------------------------------------


def lock_player(conn: Connection, player_id: int) -> Row:
    """The player's row, locked until the transaction ends: one request per player at a time
    (``FOR UPDATE`` on PostgreSQL; SQLite transactions already hold the write lock)."""
    row = conn.execute(select(t.players).where(t.players.c.id == player_id).with_for_update()).first()
    if row is None:
        raise not_found("no such player")
    return row


def find_player(conn: Connection, external_id: str, *, lock: bool = False) -> Row:
    query = select(t.players).where(t.players.c.external_id == external_id)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query).first()
    if row is None:
        raise not_found(f"no player {external_id!r}")
    return row


def ledger_entry(
    conn: Connection,
    player_id: int,
    amount: int,
    balance_after: int,
    kind: str,
    reference: str,
    round_id: int | None = None,
) -> None:
    """One ledger row.  The unique (player, reference) constraint makes a repeated movement
    fail the whole transaction (reported as 409), so nothing is ever paid twice."""
    if balance_after < 0:
        raise ApiError(402, "insufficient_funds", f"the balance cannot cover {-amount}")
    conn.execute(
        insert(t.ledger).values(
            player_id=player_id,
            amount=amount,
            balance_after=balance_after,
            kind=kind,
            round_id=round_id,
            reference=reference,
            created_at=now(),
        )
    )


def set_balance(conn: Connection, player_id: int, balance: int, **extra: Any) -> None:
    conn.execute(update(t.players).where(t.players.c.id == player_id).values(balance=balance, **extra))


def move_money(
    conn: Connection,
    player: Row,
    balance: int,
    amount: int,
    kind: str,
    reference: str,
    round_id: int | None = None,
) -> int:
    """A ledger row and the new balance; returns the balance.  Never below zero."""
    new_balance = balance + amount
    if new_balance < 0:
        raise ApiError(402, "insufficient_funds", f"the balance {balance} cannot cover {-amount}")
    ledger_entry(conn, player.id, amount, new_balance, kind, reference, round_id)
    set_balance(conn, player.id, new_balance)
    return new_balance


# -- idempotency -----------------------------------------------------------------------


def remembered(conn: Connection, scope: str, key: str, fingerprint: str) -> tuple[int, dict] | None:
    """The first reply to this key, or None; a key reused for another request is refused."""
    row = conn.execute(
        select(t.idempotency.c.fingerprint, t.idempotency.c.status_code, t.idempotency.c.response).where(
            t.idempotency.c.scope == scope, t.idempotency.c.key == key
        )
    ).first()
    if row is None:
        return None
    if row.fingerprint != fingerprint:
        raise ApiError(422, "idempotency_key_reused", "this Idempotency-Key was used for a different request")
    return row.status_code, json.loads(row.response)


def remember(conn: Connection, scope: str, key: str, fingerprint: str, status: int, response: dict) -> None:
    conn.execute(
        insert(t.idempotency).values(
            scope=scope,
            key=key,
            fingerprint=fingerprint,
            status_code=status,
            response=dumps(response),
            created_at=now(),
        )
    )


# -- settings and persistent player state ----------------------------------------------


def get_setting(conn: Connection, key: str, default: str) -> str:
    value = conn.execute(select(t.settings_table.c.value).where(t.settings_table.c.key == key)).scalar()
    return default if value is None else value


def put_setting(conn: Connection, key: str, value: str) -> None:
    done = conn.execute(
        update(t.settings_table).where(t.settings_table.c.key == key).values(value=value)
    ).rowcount
    if not done:
        conn.execute(insert(t.settings_table).values(key=key, value=value))


def load_player_state(conn: Connection, player_id: int, game: str, state_key: str | None) -> dict | None:
    if state_key is None:
        return None
    raw = conn.execute(
        select(t.player_state.c.state).where(
            t.player_state.c.player_id == player_id,
            t.player_state.c.game == game,
            t.player_state.c.state_key == state_key,
        )
    ).scalar()
    return None if raw is None else json.loads(raw)


def save_player_state(conn: Connection, player_id: int, game: str, state_key: str, state: dict) -> None:
    where = (
        (t.player_state.c.player_id == player_id)
        & (t.player_state.c.game == game)
        & (t.player_state.c.state_key == state_key)
    )
    done = conn.execute(
        update(t.player_state).where(where).values(state=dumps(state), updated_at=now())
    ).rowcount
    if not done:
        conn.execute(
            insert(t.player_state).values(
                player_id=player_id, game=game, state_key=state_key, state=dumps(state), updated_at=now()
            )
        )


def all_player_state(conn: Connection, player_id: int, game: str | None) -> list[dict]:
    query = select(t.player_state).where(t.player_state.c.player_id == player_id)
    if game is not None:
        query = query.where(t.player_state.c.game == game)
    return [
        {"game": r.game, "state_key": r.state_key, "state": json.loads(r.state), "updated_at": r.updated_at}
        for r in conn.execute(query.order_by(t.player_state.c.game, t.player_state.c.state_key))
    ]
