"""Hand-written SQL for the per-request path, run straight on the driver.

The statements on a spin's path are plain SQL written once with ``:name`` parameters and
executed on the DBAPI cursor of the transaction's connection: SQLAlchemy's statement
building, compilation and result machinery cost more than the database work itself
(measured: about 3 ms of the 3.6 ms a spin took).
The same text serves SQLite (which takes ``:name``) and PostgreSQL (rewritten once to
psycopg's ``%(name)s``).  Only portable SQL goes here: no ``::`` casts, no ``%``.

``q`` runs a statement whose rows (or RETURNING) the caller reads; ``x`` one whose result
nobody reads (most writes).  On SQLite both run at once.  Inside a request's transaction on
PostgreSQL (:class:`Pipelined`, opened by ``ServerContext.run``) they go through psycopg's
pipeline mode: ``x`` holds its statement, ``q`` sends what is held ahead of its own and
waits once, and the commit sends the last writes; held writes that name no common table
go as one statement (:func:`combine`), and the transaction needs no BEGIN or COMMIT of its
own (see :class:`Pipelined`).  A spin is then two round trips (the lock and the reads; the
writes and the commit) and three statements, where it was one round trip per statement
and fourteen.  The database runs the statements in the order they were issued,
so a read sees every write held before it; a write that fails (a unique reference, a NOT
NULL guard) fails the transaction at the next ``q`` or at the commit, as an IntegrityError.
"""

from __future__ import annotations

import contextlib
import re
from collections import namedtuple
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.util import await_only

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

    def __init__(self, description: Any, rows: list[tuple[Any, ...]], row_type: type | None = None) -> None:
        if row_type is None:
            if description is None:
                self.rows: list[Any] = []
                return
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
    """Run one statement and fetch its rows (none for a write without RETURNING)."""
    statement = for_dialect(sql, conn.dialect.name)
    tx = conn.info.get(Pipelined.KEY)
    if tx is not None:
        return tx.query(statement, params or {})
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


def in_transaction(conn: Connection) -> bool:
    """Whether ``conn`` is in a transaction: SQLAlchemy's, or a :class:`Pipelined` one (which
    SQLAlchemy does not see: it is the driver's)."""
    return conn.in_transaction() or Pipelined.KEY in conn.info


def q_many(conn: Connection, statements: list[tuple[str, dict[str, Any]]]) -> list[Rows]:
    """Run statements in order and fetch the rows of each: one round trip when pipelined."""
    tx = conn.info.get(Pipelined.KEY)
    if tx is not None:
        return tx.query_many([(for_dialect(sql, "postgresql"), params) for sql, params in statements])
    return [q(conn, sql, params) for sql, params in statements]


def x(conn: Connection, sql: str, params: dict[str, Any] | None = None) -> None:
    """Run one statement whose result nobody reads: queued in a pipelined transaction (its
    errors come at the next ``q`` or the commit), run at once elsewhere."""
    tx = conn.info.get(Pipelined.KEY)
    if tx is not None:
        tx.queue(for_dialect(sql, "postgresql"), params or {})
    else:
        q(conn, sql, params)


_TABLES = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_PG_PARAM = re.compile(r"%\(([A-Za-z_][A-Za-z0-9_]*)\)s")
_DML = ("INSERT ", "UPDATE ", "DELETE ")


@lru_cache(maxsize=512)
def _tables(statement: str) -> frozenset[str]:
    """Every table a statement names (written or read): what decides whether two writes may
    share one statement."""
    return frozenset(name.lower() for name in _TABLES.findall(statement))


@lru_cache(maxsize=256)
def _combined(statements: tuple[str, ...]) -> str:
    """Writes as one statement: ``WITH w0 AS (first), w1 AS (second) last``, each one's
    parameters renamed ``w<i>_<name>``."""
    renamed = [_PG_PARAM.sub(rf"%(w{i}_\1)s", st) for i, st in enumerate(statements)]
    head = ", ".join(f"w{i} AS ({st})" for i, st in enumerate(renamed[:-1]))
    return f"WITH {head} {renamed[-1]}"


_UPDATE = re.compile(r"UPDATE\s+(\w+)\s+SET\s+(.+?)\s+WHERE\s+(.+)", re.IGNORECASE | re.DOTALL)
_ASSIGN = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


def _assignments(set_list: str) -> list[str] | None:
    """The columns a SET list assigns, in order; None if it is not plainly ``col = expr, …``
    (a string literal, unbalanced parentheses)."""
    if "'" in set_list:
        return None
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(set_list):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return None
        if ch == "," and depth == 0:
            parts.append(set_list[start:i])
            start = i + 1
    parts.append(set_list[start:])
    columns = []
    for part in parts:
        m = _ASSIGN.match(part)
        if m is None:
            return None
        columns.append(m[1].lower())
    return columns


@lru_cache(maxsize=256)
def _mergeable(a: str, b: str) -> tuple[str, tuple[str, ...], str, tuple[str, ...]] | None:
    """Whether the UPDATE ``b`` may be folded into the UPDATE ``a`` just before it (the same
    table and WHERE text, neither reading a column the other sets): (the merged text, the
    WHERE's parameters, the prefix given ``b``'s parameters, ``b``'s parameters); else None."""
    ma, mb = _UPDATE.fullmatch(a.strip()), _UPDATE.fullmatch(b.strip())
    if ma is None or mb is None or ma[1].lower() != mb[1].lower() or ma[3] != mb[3]:
        return None
    where = ma[3]
    cols_a, cols_b = _assignments(ma[2]), _assignments(mb[2])
    if cols_a is None or cols_b is None or set(cols_a) & set(cols_b):
        return None
    words_a = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", ma[2] + " " + where)}
    words_b = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", mb[2] + " " + where)}
    if set(cols_b) & (words_a - set(cols_a)) or set(cols_a) & (words_b - set(cols_b)):
        return None  # one reads what the other writes
    n = 0
    while f"%(m{n}_" in a:  # a merge of merges: fresh names
        n += 1
    set_b = _PG_PARAM.sub(rf"%(m{n}_\1)s", mb[2])
    names_b = tuple(dict.fromkeys(_PG_PARAM.findall(mb[2])))
    # bandit B608 is a false positive: SQL text made of constants, every value bound
    merged = f"UPDATE {ma[1]} SET {ma[2]}, {set_b} WHERE {where}"  # nosec B608
    return merged, tuple(_PG_PARAM.findall(where)), f"m{n}_", names_b


def _merge_updates(
    a: tuple[str, dict[str, Any]], b: tuple[str, dict[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    """Two UPDATEs in a row of the same rows (one table, the same WHERE with the same values)
    as one, when neither reads a column the other sets: one new row version, not two."""
    how = _mergeable(a[0], b[0])
    if how is None:
        return None
    text, where_names, prefix, names_b = how
    if any(n not in a[1] or a[1].get(n) != b[1].get(n) for n in where_names):
        return None  # the same WHERE text, other rows
    return text, {**a[1], **{prefix + k: b[1][k] for k in names_b}}


def combine(pending: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Queued writes (PostgreSQL text), in order, as few statements as can be made of them.

    Data-modifying statements in one ``WITH`` run on one snapshot, none seeing another's
    rows, in no set order; foreign keys are checked at the statement's end.  So writes are
    put together only while no two of them name a common table (two changes of one row, or
    a write and a read of a table, stay in separate statements, in their order); a
    statement other than INSERT, UPDATE or DELETE stays alone.  A group of one is sent as
    it is.  Before that, two UPDATEs in a row of the same rows become one
    (:func:`_merge_updates`)."""
    merged: list[tuple[str, dict[str, Any]]] = []
    for item in pending:
        joined = _merge_updates(merged[-1], item) if merged else None
        if joined is not None:
            merged[-1] = joined
        else:
            merged.append(item)
    out: list[tuple[str, dict[str, Any]]] = []
    for text, parts in _plan(tuple(st for st, _ in merged)):
        if type(parts) is int:  # a statement sent as it is
            out.append((text, merged[parts][1]))
        else:
            out.append((text, {new: merged[i][1][old] for i, new, old in parts}))
    return out


@lru_cache(maxsize=256)
def _plan(statements: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    """How :func:`combine` groups these statements: one (text, source) per statement to send,
    the source the index of a statement sent as it is, or, for a group, each parameter's
    (statement index, new name, name).  A spin sends the same statements every time: the
    grouping depends on their texts only, so it is worked out once."""
    out: list[tuple[str, Any]] = []
    group: list[int] = []
    seen: set[str] = set()
    size = [0, 0]  # the group's parameters and characters

    def close() -> None:
        if len(group) == 1:
            out.append((statements[group[0]], group[0]))
        elif group:
            sql = _combined(tuple(statements[i] for i in group))
            parts = tuple(
                (i, f"w{n}_{k}", k) for n, i in enumerate(group) for k in _param_names(statements[i])
            )
            out.append((sql, parts))
        group.clear()
        seen.clear()
        size[:] = [0, 0]

    for index, statement in enumerate(statements):
        if not statement.lstrip()[:7].upper().startswith(_DML):
            close()
            out.append((statement, index))
            continue
        tables = _tables(statement)
        names = len(_param_names(statement))
        # psycopg parses a statement's text anew at every call past 50 parameters or 4,096
        # characters: a group stays within both.
        too_big = size[0] + names > _PSYCOPG_CACHED[0] or size[1] + len(statement) > _PSYCOPG_CACHED[1]
        if seen & tables or too_big:
            close()
        group.append(index)
        seen.update(tables)
        size[0] += names
        size[1] += len(statement) + 16
    close()
    return tuple(out)


# What psycopg caches the parsing of (psycopg._queries.MAX_CACHED_STATEMENT_PARAMS / _LENGTH).
_PSYCOPG_CACHED = (50, 4096 - 64)


@lru_cache(maxsize=512)
def _param_names(statement: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_PG_PARAM.findall(statement)))


try:  # psycopg's fetch of a pipelined result with a flush request rather than a Sync
    from psycopg import Cursor as _Cursor

    _FETCH = getattr(_Cursor, "_fetch_pipeline", None)
except ImportError:  # pragma: no cover - psycopg is a dependency
    _FETCH = None

_UNKNOWN = object()
_RESULT_TYPES: dict[str, type | None] = {}  # statement text -> its row type (None: no rows)


class Pipelined:
    """One PostgreSQL transaction in psycopg's pipeline mode, as few statements and round
    trips as it can be.

    The connection is in autocommit for the transaction's length (psycopg would begin each
    transaction with a BEGIN and a round trip of its own, in pipeline mode too), and the
    transaction is the protocol's implicit one: everything sent before a Sync is one
    transaction, which the Sync commits (or, after an error, rolls back).  Reads wait for
    their results with a flush, not a Sync, so the transaction and its row locks go on; the
    commit is the Sync that goes with the last writes.  No BEGIN, no COMMIT: a spin is
    three statements (the lock, the reads, the writes) in two round trips.  Where the
    transaction must outlive a Sync (a SQLAlchemy statement inside it: :meth:`leave_pipeline`)
    or be rolled back, a BEGIN makes it an explicit transaction block, what came before it
    included (PostgreSQL's rule for a BEGIN in an implicit block), and COMMIT or ROLLBACK
    ends it.  With a psycopg whose cursors cannot fetch without a Sync, every transaction
    starts with a BEGIN instead.
    """

    KEY = "reelforge_pipelined"
    restore_autocommit = True  # the pool lends connections out of autocommit

    def __init__(self, dbapi_conn: Any, dbapi: Any) -> None:
        self.raw = dbapi_conn
        self.dbapi = dbapi
        self.pipe: Any = None  # psycopg's Pipeline while in pipeline mode
        self._pipe_cm: Any = None  # the context manager that made it
        self.started = False  # a statement of this transaction has been sent
        self.explicit = False  # a BEGIN has been sent: the transaction outlives a Sync
        self.cursor = dbapi_conn.cursor()
        self.more: list[Any] = []  # further cursors, for query_many
        self.pending: list[tuple[str, dict[str, Any]]] = []  # writes held (see queue)
        if not dbapi_conn.autocommit:  # the loop's connections are always (db.make_loop_engine)
            self._wait(dbapi_conn.set_autocommit(True))

    # psycopg's blocking calls, in one place: :class:`LoopPipelined` awaits the same calls of
    # an async connection instead.
    @staticmethod
    def _wait(value: Any) -> Any:
        return value

    def _pipe_open(self) -> Any:
        return self._pipe_cm.__enter__()

    def _pipe_close(self, cm: Any) -> None:
        cm.__exit__(None, None, None)

    def _enter(self) -> None:
        if self.pipe is None:
            self._pipe_cm = self.raw.pipeline()
            self.pipe = self._pipe_open()
        if not self.started:
            self.started = True
            if _FETCH is None:
                self._begin()

    def _begin(self) -> None:
        self._wait(self.cursor.execute("BEGIN"))
        self.explicit = True

    def _wrap(self, statement: str, params: Any, exc: Exception) -> Exception:
        return DBAPIError.instance(statement, params, exc, self.dbapi.Error)

    def queue(self, statement: str, params: dict[str, Any]) -> None:
        """A write nobody reads the result of: held until the next read, the end of the
        pipeline or the commit, then sent with the writes held with it (:func:`combine`)."""
        self.pending.append((statement, params))

    def _flush(self) -> None:
        """Send the held writes (into the pipeline: they are answered with what follows)."""
        if not self.pending:
            return
        pending, self.pending = self.pending, []
        for statement, params in combine(pending):
            try:
                self._wait(self.cursor.execute(statement, params))
            except self.dbapi.Error as exc:
                raise self._wrap(statement, params, exc) from exc

    def query(self, statement: str, params: dict[str, Any]) -> Rows:
        return self.query_many([(statement, params)])[0]

    def query_many(self, statements: list[tuple[str, dict[str, Any]]]) -> list[Rows]:
        """The statements' rows, each statement on a cursor of its own (a cursor keeps only
        its last result), after one round trip: what was held, and these."""
        while len(self.more) < len(statements) - 1:
            self.more.append(self.raw.cursor())
        cursors = [self.cursor, *self.more[: len(statements) - 1]]
        try:
            self._enter()
            self._flush()
            for cursor, (statement, params) in zip(cursors, statements, strict=True):
                self._wait(cursor.execute(statement, params))
            if self.explicit:
                self._wait(self.pipe.sync())
            else:
                # a flush: the results of all, the transaction going on
                self._wait(cursors[-1]._fetch_pipeline())
            out = []
            for cursor, (statement, _) in zip(cursors, statements, strict=True):
                # A statement's columns are always the same: its row type is made once
                # (psycopg's description builds an object per column at every call).
                row_type = _RESULT_TYPES.get(statement, _UNKNOWN)
                if row_type is _UNKNOWN:
                    description = cursor.description
                    row_type = None if description is None else _row_type(tuple(d[0] for d in description))
                    if len(_RESULT_TYPES) < 512:
                        _RESULT_TYPES[statement] = row_type
                rows = self._wait(cursor.fetchall()) if row_type is not None else []
                out.append(Rows(None, rows, row_type))
            return out
        except self.dbapi.Error as exc:
            raise self._wrap(statements[-1][0], statements[-1][1], exc) from exc

    def leave_pipeline(self) -> None:
        """Before a statement that is not ours: the transaction made explicit (so that it
        outlives the Sync), everything held sent, and the pipeline left (its errors raised
        here)."""
        try:
            self._enter()
            self._flush()
            if not self.explicit:
                self._begin()
            self.pipe = None
            self._pipe_close(self._pipe_cm)
        except self.dbapi.Error as exc:
            raise self._wrap("(queued statements)", None, exc) from exc

    def commit(self) -> None:
        try:
            if self.pending:
                self._enter()
                self._flush()
            if self.explicit:
                self._wait(self.cursor.execute("COMMIT"))  # pipelined: with the last writes
            if self.pipe is not None:
                # Leaving the pipeline sends a Sync and waits for every result: that Sync is
                # the commit of an implicit transaction (a Sync of our own before it was a
                # round trip more, the leaving's Sync answering nothing).
                pipe_cm, self.pipe = self._pipe_cm, None
                self._pipe_close(pipe_cm)
        except self.dbapi.Error as exc:
            raise self._wrap("COMMIT", None, exc) from exc
        finally:
            self._leave_quietly()

    def rollback(self) -> None:
        self.pending.clear()
        if self.pipe is not None and self.started and not self.explicit:
            # BEGIN then ROLLBACK: what the implicit transaction did is undone (after an
            # error the server skips both, and the Sync rolls it back anyway).
            with contextlib.suppress(self.dbapi.Error):
                self._begin()
                self._wait(self.cursor.execute("ROLLBACK"))
        self._leave_quietly()
        self._wait(self.raw.rollback())  # an explicit transaction still open (or failed): ROLLBACK

    def _leave_quietly(self) -> None:
        pipe, self.pipe = self.pipe, None
        if pipe is not None:
            # A failure here is the one already raised, or one the rollback clears.
            with contextlib.suppress(self.dbapi.Error):
                self._pipe_close(self._pipe_cm)

    def close(self) -> None:
        """Back to the connection as the pool lends it (psycopg's own transactions)."""
        self._leave_quietly()
        for cursor in (self.cursor, *self.more):
            self._wait(cursor.close())
        if self.restore_autocommit:
            self._wait(self.raw.set_autocommit(False))


class LoopPipelined(Pipelined):
    """:class:`Pipelined` on psycopg's async connection, for a transaction run on the event
    loop inside a greenlet (``ServerContext.on_loop``): each call the sync class makes is
    made on the async connection and awaited through SQLAlchemy's ``await_only``, so the
    request's code stays the same plain functions while the loop serves other requests
    during every round trip."""

    restore_autocommit = False  # db.make_loop_engine's connections stay in autocommit

    @staticmethod
    def _wait(value: Any) -> Any:
        return await_only(value)

    def _pipe_open(self) -> Any:
        return await_only(self._pipe_cm.__aenter__())

    def _pipe_close(self, cm: Any) -> None:
        await_only(cm.__aexit__(None, None, None))


def for_update(conn: Connection, of: str | None = None) -> str:
    """Row locking where the database has it (SQLite's transactions lock the database)."""
    if conn.dialect.name != "postgresql":
        return ""
    return f" FOR UPDATE OF {of}" if of else " FOR UPDATE"
