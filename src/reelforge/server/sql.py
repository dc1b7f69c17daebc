"""Hand-written SQL for the per-request path, run straight on the driver.

The statements on a spin's path are plain SQL written once with ``:name`` parameters and
executed on the DBAPI cursor of the transaction's connection: SQLAlchemy's statement
building, compilation and result machinery cost more than the database work itself
(measured: about 3 ms of the 3.6 ms a spin took).  Transactions stay SQLAlchemy's.
The same text serves SQLite (which takes ``:name``) and PostgreSQL (rewritten once to
psycopg's ``%(name)s``).  Only portable SQL goes here: no ``::`` casts, no ``%``.
"""

from __future__ import annotations

import re
from collections import namedtuple
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

_PARAM = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")


@lru_cache(maxsize=256)
def for_dialect(sql: str, dialect: str) -> str:
    if dialect == "postgresql":
        return _PARAM.sub(r"%(\1)s", sql)
    return sql


@lru_cache(maxsize=256)
def _row_type(names: tuple[str, ...]) -> type:
    return namedtuple("Row", names)  # type: ignore[misc]


class Rows:
    """The rows of one statement, fetched at once, with attribute access by column name."""

    __slots__ = ("rows",)

    def __init__(self, description: Any, rows: list[tuple[Any, ...]]) -> None:
        if description is None:
            self.rows: list[Any] = []
        else:
            row_type = _row_type(tuple(d[0] for d in description))
            self.rows = [row_type(*r) for r in rows]

    def first(self) -> Any:
        return self.rows[0] if self.rows else None

    def one(self) -> Any:
        if len(self.rows) != 1:
            raise LookupError(f"expected one row, got {len(self.rows)}")
        return self.rows[0]

    def scalar(self) -> Any:
        return self.rows[0][0] if self.rows else None

    def scalar_one(self) -> Any:
        return self.one()[0]

    def all(self) -> list[Any]:
        return self.rows


def q(conn: Connection, sql: str, params: dict[str, Any] | None = None) -> Rows:
    statement = for_dialect(sql, conn.dialect.name)
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(statement, params or {})
        description = cursor.description
        return Rows(description, cursor.fetchall() if description is not None else [])
    except dbapi.Error as exc:
        # The same exception classes SQLAlchemy raises (IntegrityError, OperationalError…).
        raise DBAPIError.instance(statement, params, exc, dbapi.Error) from exc
    finally:
        cursor.close()


def for_update(conn: Connection, of: str | None = None) -> str:
    """Row locking where the database has it (SQLite's transactions lock the database)."""
    if conn.dialect.name != "postgresql":
        return ""
    return f" FOR UPDATE OF {of}" if of else " FOR UPDATE"
