"""Database operations shared by the server's requests.  Every function runs inside the
caller's transaction (``conn``); none commits."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, Row, delete, insert, select, update

from reelforge.server.core.errors import ApiError, bad_request, not_found
from reelforge.server.storage import schema as t
from reelforge.server.storage.sql import for_update, q, x


def now() -> float:
    return time.time()


def iso(ts: float | None) -> str | None:
    """A stored time (``now()``) as the API shows it: ISO 8601 in UTC, to the millisecond."""
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")


_ORJSON = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(data: Any) -> str:
    """Compact JSON with sorted keys (orjson: a tenth of the stdlib's time; the same text
    but for non-ASCII characters, written as UTF-8 rather than escaped).  What orjson does
    not take (an integer past 64 bits) falls back to the stdlib."""
    try:
        return orjson.dumps(data, option=_ORJSON).decode()
    except TypeError:
        return json.dumps(data, separators=(",", ":"), sort_keys=True)


def canonical(data: Any) -> str:
    """The stdlib's compact, sorted, ASCII-escaped JSON: what request fingerprints hash, so a
    key stored by an earlier version still matches its repeat."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # e.g. an integer past 64 bits: the stdlib reads it
        return json.loads(text)


class Reply(dict):
    """A reply's body with its JSON text, encoded once: the text stored for the
    Idempotency-Key is the one the HTTP layer sends (``api.json_response``).  Not to be
    changed once made; a copy (``dict(reply)``, or ``type(reply)(reply)``, which keeps a
    subclass's mark) has no text and may be."""

    __slots__ = ("json",)

    @classmethod
    def of(cls, body: dict, text: str) -> Reply:
        reply = cls(body)
        reply.json = text
        return reply


# -- players and the ledger ------------------------------------------------------------


def lock_player(conn: Connection, player_id: int) -> Row:
    """The player's row, locked until the transaction ends: one request per player at a time
    (``FOR UPDATE`` on PostgreSQL; SQLite transactions already hold the write lock)."""
    # bandit B608 is a false positive: fixed SQL text, every value a bound parameter
    row = q(conn, "SELECT * FROM players WHERE id = :id" + for_update(conn), {"id": player_id}).first()  # nosec B608
    if row is None:
        raise not_found("no such player")
    return row


def find_player(conn: Connection, operator_id: int, external_id: str, *, lock: bool = False) -> Row:
    """The operator's player by its external id; another operator's is not found (404, the
    same answer as for an id no one has)."""
    query = select(t.players).where(
        t.players.c.operator_id == operator_id, t.players.c.external_id == external_id
    )
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
    x(
        conn,
        "INSERT INTO ledger (player_id, amount, balance_after, kind, round_id, reference, created_at)"
        " VALUES (:player_id, :amount, :balance_after, :kind, :round_id, :reference, :created_at)",
        {
            "player_id": player_id,
            "amount": amount,
            "balance_after": balance_after,
            "kind": kind,
            "round_id": round_id,
            "reference": reference,
            "created_at": now(),
        },
    )


def set_balance(conn: Connection, player_id: int, balance: int, last_round_at: float | None = None) -> None:
    if last_round_at is None:
        x(conn, "UPDATE players SET balance = :b WHERE id = :id", {"b": balance, "id": player_id})
    else:
        x(
            conn,
            "UPDATE players SET balance = :b, last_round_at = :t WHERE id = :id",
            {"b": balance, "t": last_round_at, "id": player_id},
        )


def set_last_round_at(conn: Connection, player_id: int, ts: float) -> None:
    """The start of the player's last game cycle (the minimum cycle time reads it)."""
    x(conn, "UPDATE players SET last_round_at = :t WHERE id = :id", {"t": ts, "id": player_id})


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


def check_key(key: str | None) -> str:
    """The request's Idempotency-Key header, checked: present, 1-128 printable characters."""
    if not key:
        raise bad_request("an Idempotency-Key header is required for this request", "idempotency_key_missing")
    if len(key) > 128 or not key.isprintable():
        raise bad_request("the Idempotency-Key must be 1-128 printable characters", "idempotency_key_invalid")
    return key


class Scoped(NamedTuple):
    """An idempotency scope whose stored reply for the request's key was read already, by
    the statements that locked the player (``stored``: a row with ``idem_fingerprint``,
    ``idem_status`` and ``idem_response``, all None when the key is new)."""

    name: str
    stored: Any


def stored_reply_columns(scope_sql: str) -> tuple[str, str]:
    """The columns and the join that read the stored reply of the key ``:idem_key`` in the
    scope ``scope_sql`` (an SQL expression), for a statement that reads more besides."""
    return (
        "i.fingerprint AS idem_fingerprint, i.status_code AS idem_status, i.response AS idem_response",
        f" LEFT JOIN idempotency i ON i.scope = {scope_sql} AND i.key = :idem_key",
    )


def replay(stored: Any, fingerprint: str) -> tuple[int, dict] | None:
    """The first reply found by :func:`remembered` or with :func:`stored_reply_columns`."""
    if stored is None or stored.idem_fingerprint is None:
        return None
    if stored.idem_fingerprint != fingerprint:
        raise ApiError(422, "idempotency_key_reused", "this Idempotency-Key was used for a different request")
    return stored.idem_status, Reply.of(loads(stored.idem_response), stored.idem_response)


def remembered(conn: Connection, scope: str, key: str, fingerprint: str) -> tuple[int, dict] | None:
    """The first reply to this key, or None; a key reused for another request is refused."""
    row = q(
        conn,
        "SELECT fingerprint AS idem_fingerprint, status_code AS idem_status, response AS idem_response"
        " FROM idempotency WHERE scope = :scope AND key = :key",
        {"scope": scope, "key": key},
    ).first()
    return replay(row, fingerprint)


def remember(
    conn: Connection, scope: str, key: str, fingerprint: str, status: int, response: dict | str
) -> None:
    """Store the first reply (``response``: the body, or its JSON text already made)."""
    x(
        conn,
        "INSERT INTO idempotency (scope, key, fingerprint, status_code, response, created_at)"
        " VALUES (:scope, :key, :fingerprint, :status, :response, :created_at)",
        {
            "scope": scope,
            "key": key,
            "fingerprint": fingerprint,
            "status": status,
            "response": response if isinstance(response, str) else dumps(response),
            "created_at": now(),
        },
    )


# -- settings and persistent player state ----------------------------------------------


def get_setting(conn: Connection, key: str, default: str, *, operator_id: int) -> str:
    """An operator's setting (``operator_id`` 0: the server's own)."""
    value = q(
        conn,
        "SELECT value FROM server_settings WHERE operator_id = :o AND key = :key",
        {"o": operator_id, "key": key},
    ).scalar()
    return default if value is None else value


def put_setting(conn: Connection, key: str, value: str, *, operator_id: int) -> None:
    table = t.settings_table
    done = conn.execute(
        update(table).where(table.c.operator_id == operator_id, table.c.key == key).values(value=value)
    ).rowcount
    if not done:
        conn.execute(insert(table).values(operator_id=operator_id, key=key, value=value))


PLAYER_STATE_SQL = "SELECT state FROM player_state WHERE player_id = {p} AND game = :g AND state_key = :sk"


def load_player_state(conn: Connection, player_id: int, game: str, state_key: str | None) -> dict | None:
    if state_key is None:
        return None
    raw = q(conn, PLAYER_STATE_SQL.format(p=":p"), {"p": player_id, "g": game, "sk": state_key}).scalar()
    return None if raw is None else json.loads(raw)


def save_player_state(conn: Connection, player_id: int, game: str, state_key: str, state: dict) -> None:
    # One upsert (PostgreSQL and SQLite 3.24+), no row count to read: it can be queued.
    x(
        conn,
        "INSERT INTO player_state (player_id, game, state_key, state, updated_at)"
        " VALUES (:p, :g, :sk, :state, :ts) ON CONFLICT (player_id, game, state_key)"
        " DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
        {"p": player_id, "g": game, "sk": state_key, "state": dumps(state), "ts": now()},
    )


def delete_player_state(conn: Connection, player_id: int, game: str, state_key: str) -> None:
    conn.execute(
        delete(t.player_state).where(
            (t.player_state.c.player_id == player_id)
            & (t.player_state.c.game == game)
            & (t.player_state.c.state_key == state_key)
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


# -- side balances: a game's second currency, kept in player_state ------------------------


def side_value(state: dict | None, name: str) -> int:
    """A side balance as ``state`` holds it: absent (or no state) is 0; anything but a
    non-negative integer is refused (the game, or the stored state, is wrong)."""
    value = 0 if not state else state.get(name, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"side balance {name!r} must be a non-negative integer, got {value!r}")
    return value


def side_entry(
    conn: Connection,
    player_id: int,
    game: str,
    state_key: str,
    currency: str,
    round_id: int,
    step: int,
    amount: int,
    balance_after: int,
) -> None:
    """One side-ledger row.  Unique per (round, step, currency): a step moves a currency once."""
    x(
        conn,
        "INSERT INTO side_ledger (player_id, game, state_key, currency, round_id, step, amount,"
        " balance_after, created_at) VALUES (:player_id, :game, :state_key, :currency, :round_id,"
        " :step, :amount, :balance_after, :created_at)",
        {
            "player_id": player_id,
            "game": game,
            "state_key": state_key,
            "currency": currency,
            "round_id": round_id,
            "step": step,
            "amount": amount,
            "balance_after": balance_after,
            "created_at": now(),
        },
    )


def record_side_movements(
    conn: Connection,
    player_id: int,
    game: str,
    currencies: tuple[str, ...],
    state_key: str,
    round_id: int,
    step: int,
    before: dict | None,
    after: dict | None,
) -> dict[str, int]:
    """A side-ledger row for every side balance the step changed (``before`` is the stored
    player state, ``after`` what the game wrote); returns {currency: amount} moved."""
    moved: dict[str, int] = {}
    for currency in currencies:
        try:
            old = side_value(before, currency)
            new = side_value(after, currency)
        except ValueError as exc:  # a bug of the game or a damaged row: nothing is committed
            raise RuntimeError(f"{game} round {round_id} step {step}: {exc}") from None
        if new != old:
            side_entry(conn, player_id, game, state_key, currency, round_id, step, new - old, new)
            moved[currency] = new - old
    return moved


def side_balances(conn: Connection, player_id: int, games: dict[str, tuple[str, ...]]) -> dict:
    """{game: {currency: balance}} for the games given, summed over their state keys; a game
    whose state was never stored holds 0 of each."""
    out: dict[str, dict[str, int]] = {g: dict.fromkeys(names, 0) for g, names in games.items()}
    if not games:
        return out
    query = select(t.player_state.c.game, t.player_state.c.state).where(
        t.player_state.c.player_id == player_id, t.player_state.c.game.in_(list(games))
    )
    for game, raw in conn.execute(query):
        state = json.loads(raw)
        for name in games[game]:
            out[game][name] += side_value(state, name)
    return out
