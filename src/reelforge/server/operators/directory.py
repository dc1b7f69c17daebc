"""The operator accounts in the database, and each process's cache of them.

A request finds its operator by an API key (``X-Operator-Key``, stored as its SHA-256) or by
its session's player (``players.operator_id``).  The account's settings are read once and held
by id with the row's ``version``: the player's session lookup reads the version with the
session (no extra round trip), and a process reloads an account whose version moved, so a
change made by any process is in force at the next request of every other.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Row

from reelforge.server.core.config import Settings
from reelforge.server.core.errors import ApiError, conflict, not_found
from reelforge.server.operators.accounts import (
    ACTIVE,
    DEFAULT_OPERATOR_ID,
    Operator,
    OperatorSettings,
    effective,
)
from reelforge.server.storage.sql import for_update, q, x
from reelforge.server.storage.store import now

KEY_PREFIX = "rf_"
MAX_REMEMBERED = 100_000  # callers the rate limiter can tell apart by operator


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


UNAUTHORIZED = ApiError(401, "unauthorized", "a valid X-Operator-Key header is required")

_COLUMNS = "id, name, status, settings, version, server_defaults, created_at, updated_at, suspended_at"


class Directory:
    """The accounts: authentication, the cached settings, and (for the rate limiter, which sees
    requests before any database) which operator a key or a session token belongs to."""

    def __init__(
        self, settings: Settings, run: Callable[[Callable[[Connection], Any]], Any], bootstrap_key: str
    ):
        self.server_settings = settings
        self.run = run
        self._bootstrap = bootstrap_key
        self._cache: dict[int, Operator] = {}
        self._lock = threading.Lock()
        self.any_seamless = False  # an operator this process has read pays through a seamless wallet
        # sha256 digests -> operator id, filled as requests authenticate (guards.RateLimit).
        self.key_owners: OrderedDict[bytes, int] = OrderedDict()
        self.key_owners[hashlib.sha256(bootstrap_key.encode()).digest()] = DEFAULT_OPERATOR_ID
        self.token_owners: OrderedDict[bytes, int] = OrderedDict()

    # -- reading -------------------------------------------------------------------------

    def _from_row(self, row: Row) -> Operator:
        own = OperatorSettings.model_validate_json(row.settings)
        server_defaults = bool(row.server_defaults)
        return Operator(
            id=row.id,
            name=row.name,
            status=row.status,
            version=row.version,
            server_defaults=server_defaults,
            own=own,
            settings=effective(row.id, own, self.server_settings, server_defaults),
            created_at=row.created_at,
            updated_at=row.updated_at,
            suspended_at=row.suspended_at,
        )

    def get(self, conn: Connection, operator_id: int, version: int | None = None) -> Operator:
        """The account, from the cache when ``version`` is the one held (None: read the row's
        version first, one small query)."""
        held = self._cache.get(operator_id)
        if version is None:
            version = q(conn, "SELECT version FROM operators WHERE id = :id", {"id": operator_id}).scalar()
            if version is None:
                raise not_found(f"no operator {operator_id}")
        if held is not None and held.version == version:
            return held
        row = q(conn, f"SELECT {_COLUMNS} FROM operators WHERE id = :id", {"id": operator_id}).first()  # nosec B608
        if row is None:
            raise not_found(f"no operator {operator_id}")
        found = self._from_row(row)
        if found.settings.wallet_mode == "seamless":
            self.any_seamless = True
        with self._lock:
            held = self._cache.get(operator_id)
            if held is None or held.version <= found.version:
                self._cache[operator_id] = found
        return found

    def cached(self, operator_id: int) -> Operator | None:
        """The account as last read by this process (the rate limiter's view), or None."""
        return self._cache.get(operator_id)

    def all(self, conn: Connection) -> list[Operator]:
        rows = q(conn, f"SELECT {_COLUMNS} FROM operators ORDER BY id").all()  # nosec B608
        return [self._from_row(r) for r in rows]

    # -- authentication ------------------------------------------------------------------

    def authenticate(self, key: str | None) -> Operator:
        """The operator whose live key this is: 401 for none, a wrong or a revoked key; 403
        ``operator_suspended`` for a suspended account's."""
        if not key:
            raise UNAUTHORIZED
        h = key_hash(key)

        def work(conn: Connection) -> Operator:
            row = q(
                conn,
                "SELECT k.operator_id, k.revoked_at, o.version FROM operator_keys k"
                " JOIN operators o ON o.id = k.operator_id WHERE k.key_hash = :h",
                {"h": h},
            ).first()
            if row is None and hmac.compare_digest(key.encode(), self._bootstrap.encode()):
                # The deployment's configured key (REELFORGE_OPERATOR_KEY or the generated
                # one) is its own operator's, once: a key the studio revoked stays revoked.
                add_key(conn, DEFAULT_OPERATOR_ID, key, "server key", if_absent=True)
                return work(conn)
            if row is None or row.revoked_at is not None:
                self.key_owners.pop(bytes.fromhex(h), None)
                raise UNAUTHORIZED
            return self.get(conn, row.operator_id, row.version)

        operator = self.run(work)
        self._remember(self.key_owners, bytes.fromhex(h), operator.id)
        if not operator.active:
            raise ApiError(403, "operator_suspended", "this operator is suspended: its API is closed")
        return operator

    def note_token(self, token_digest: bytes, operator_id: int) -> None:
        """A session token of the operator's players (the rate limiter applies its limits)."""
        if self.token_owners.get(token_digest) != operator_id:
            self._remember(self.token_owners, token_digest, operator_id)

    @staticmethod
    def _remember(table: OrderedDict[bytes, int], digest: bytes, operator_id: int) -> None:
        table[digest] = operator_id
        if len(table) > MAX_REMEMBERED:
            table.popitem(last=False)

    def forget(self, operator_id: int) -> None:
        with self._lock:
            self._cache.pop(operator_id, None)


# -- writing (the studio's side: backoffice/studio.py) --------------------------------------


def create(conn: Connection, name: str, own: OperatorSettings) -> int:
    ts = now()
    taken = q(conn, "SELECT id FROM operators WHERE name = :n", {"n": name}).first()
    if taken is not None:
        raise conflict(f"an operator named {name!r} exists (id {taken.id})", "operator_exists")
    return int(
        q(
            conn,
            "INSERT INTO operators (name, status, settings, version, server_defaults, created_at, updated_at)"
            " VALUES (:n, :s, :cfg, 1, 0, :ts, :ts) RETURNING id",
            {"n": name, "s": ACTIVE, "cfg": own.stored(), "ts": ts},
        ).scalar_one()
    )


def lock(conn: Connection, operator_id: int) -> Row:
    """The operator's row, locked for the transaction (404 when there is none)."""
    row = q(
        conn,
        f"SELECT {_COLUMNS} FROM operators WHERE id = :id" + for_update(conn),  # nosec B608
        {"id": operator_id},
    ).first()
    if row is None:
        raise not_found(f"no operator {operator_id}")
    return row


def save_settings(conn: Connection, operator_id: int, own: OperatorSettings) -> None:
    x(
        conn,
        "UPDATE operators SET settings = :cfg, version = version + 1, updated_at = :ts WHERE id = :id",
        {"cfg": own.stored(), "ts": now(), "id": operator_id},
    )


def set_status(conn: Connection, operator_id: int, status: str) -> None:
    ts = now()
    x(
        conn,
        "UPDATE operators SET status = :s, version = version + 1, updated_at = :ts,"
        " suspended_at = :at WHERE id = :id",
        {"s": status, "ts": ts, "at": None if status == ACTIVE else ts, "id": operator_id},
    )


def bump(conn: Connection, operator_id: int) -> None:
    """A change to the operator's settings rows (profile, variants, bets, currencies): every
    process's cached copy is stale from now on."""
    x(conn, "UPDATE operators SET version = version + 1 WHERE id = :id", {"id": operator_id})


def add_key(
    conn: Connection, operator_id: int, key: str, label: str | None, *, if_absent: bool = False
) -> int | None:
    params = {"o": operator_id, "h": key_hash(key), "p": key[:8], "l": label, "ts": now()}
    sql = (
        "INSERT INTO operator_keys (operator_id, key_hash, prefix, label, created_at)"
        " VALUES (:o, :h, :p, :l, :ts)"
    )
    if if_absent:
        sql += " ON CONFLICT (key_hash) DO NOTHING"
    row = q(conn, sql + " RETURNING id", params).first()
    return None if row is None else int(row.id)


def keys(conn: Connection, operator_id: int) -> list[dict[str, Any]]:
    rows = q(
        conn,
        "SELECT id, prefix, label, created_at, revoked_at FROM operator_keys"
        " WHERE operator_id = :o ORDER BY id",
        {"o": operator_id},
    ).all()
    names = ("id", "prefix", "label", "created_at", "revoked_at")
    return [{n: getattr(r, n) for n in names} for r in rows]


def revoke_key(conn: Connection, operator_id: int, key_id: int) -> dict[str, Any]:
    row = q(
        conn,
        "SELECT id, revoked_at FROM operator_keys WHERE id = :k AND operator_id = :o",
        {"k": key_id, "o": operator_id},
    ).first()
    if row is None:
        raise not_found(f"operator {operator_id} has no key {key_id}")
    if row.revoked_at is None:
        x(conn, "UPDATE operator_keys SET revoked_at = :ts WHERE id = :k", {"ts": now(), "k": key_id})
    return next(k for k in keys(conn, operator_id) if k["id"] == key_id)
