"""The durable outbox: deliveries that must happen after a commit, until they are confirmed.

A round that ends owes the player its win.  With a seamless wallet the win is paid by an HTTP
call to the operator, which may time out, fail, or be cut off by a crash of this process — but
the round is already committed.  So the credit is not called in the request: it is written to
the ``outbox`` table by :func:`enqueue`, *in the round's own transaction* (both commit, or
neither does), and an :class:`OutboxWorker` delivers it afterwards, retrying until the receiver
confirms.  Rollbacks of debits with an unknown outcome, and webhooks, go the same way.

Delivery is **at least once**: a worker can deliver and crash before recording it, and the row
is delivered again.  Handlers must therefore be idempotent on the row's ``key`` — the seamless
protocol is, by its ``transaction_id`` (a repeat gets the first reply).

Claims.  A worker claims a batch of due rows in a short transaction (``SELECT … FOR UPDATE
SKIP LOCKED`` on PostgreSQL, so several server processes share the work without blocking each
other; SQLite's single writer lock serialises claims) and sets a *lease*: ``next_attempt_at``
moves to the lease's end and ``claimed_by`` to a fresh claim token.  The handler runs outside
any transaction (an HTTP call must not hold the database).  The outcome is written only if the
row still carries that token, so a worker that outlived its lease cannot overwrite a newer
claim.  A worker that dies mid-delivery leaves its rows to be claimed again when the lease
ends; ``lease_s`` must exceed the handler's worst case (e.g. the HTTP client's timeout).

Failures and giving up.  A handler that raises is retried with exponential backoff and jitter
(``base_delay_s · 2^(attempt-1)``, capped at ``max_delay_s``, then drawn from the upper half of
that delay so that workers do not retry in lockstep).  **It never gives up on its own**: a
credit must eventually be paid, so after ``alert_after`` attempts the row keeps retrying at the
cap, every failure is logged at ERROR, and :func:`stats` counts it as ``alerting``.  Only a
handler that knows retrying cannot help raises :class:`PermanentFailure`: the row becomes
``failed`` (logged at ERROR, counted by :func:`stats`) and waits for a person, who fixes the
cause and calls :func:`requeue`.  Nothing is ever dropped silently.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, and_, case, func, select, update

from reelforge.server.storage.schema import outbox
from reelforge.server.storage.sql import in_transaction, q, x

log = logging.getLogger("reelforge.outbox")

PENDING, DONE, FAILED = "pending", "done", "failed"

# Kinds the game server uses (the table accepts any kind a handler is registered for).
WALLET_CREDIT = "wallet.credit"
WALLET_ROLLBACK = "wallet.rollback"
WEBHOOK = "webhook"

ALERT_AFTER = 10  # attempts after which a pending row is reported as needing attention
MAX_KEY_LENGTH = 200
MAX_KIND_LENGTH = 64


class OutboxConflict(ValueError):
    """The key is already enqueued with another kind or payload: a caller's bug."""


class PermanentFailure(Exception):
    """Raised by a handler when retrying cannot succeed (e.g. the receiver definitively
    refused): the row becomes ``failed`` until :func:`requeue`."""


@dataclass(frozen=True)
class OutboxMessage:
    """One claimed row, as its handler sees it.  ``attempt`` counts from 1."""

    id: int
    kind: str
    key: str
    payload: dict[str, Any]
    attempt: int
    created_at: float
    claim: str  # the claim token this delivery holds


Handler = Callable[[OutboxMessage], None]


# -- in the caller's transaction ---------------------------------------------------------------

_INSERT = (
    "INSERT INTO outbox (kind, dedup_key, payload, status, attempts, next_attempt_at, created_at)"
    " VALUES (:kind, :key, :payload, 'pending', 0, :due, :now)"
    " ON CONFLICT (dedup_key) DO NOTHING"
)


def enqueue(
    conn: Connection,
    kind: str,
    key: str,
    payload: Mapping[str, Any],
    *,
    now: float | None = None,
    delay_s: float = 0.0,
    read_back: bool = True,
) -> int | None:
    """Add a delivery in the caller's open transaction; its row id.

    The row commits or rolls back with the caller's work.  Enqueuing the same ``key`` again
    with the same kind and payload returns the existing row (a retried request is harmless);
    with a different one it raises :class:`OutboxConflict`.  The insert never fails on a
    duplicate key (``ON CONFLICT DO NOTHING``), so the caller's transaction stays usable.

    ``read_back=False``, for a key that names one delivery whatever its caller (a webhook's
    event id, a seamless transaction id the caller's own book holds unique): the insert is
    not read back and returns None, so on PostgreSQL it goes with the transaction's other
    writes (``sql.x``); a repeat of the key keeps the row first enqueued, unchecked."""
    # The statement runs on the driver's cursor: without a begun transaction it would commit
    # on its own (SQLite) and break the atomicity this function exists for.
    if not in_transaction(conn):
        raise RuntimeError("enqueue() must run inside the caller's transaction (engine.begin())")
    if not 0 < len(key) <= MAX_KEY_LENGTH or not 0 < len(kind) <= MAX_KIND_LENGTH:
        raise ValueError(f"outbox kind/key must be 1-{MAX_KIND_LENGTH}/1-{MAX_KEY_LENGTH} characters")
    at = time.time() if now is None else now
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
    params = {"kind": kind, "key": key, "payload": text, "due": at + delay_s, "now": at}
    if not read_back:
        x(conn, _INSERT, params)
        return None
    row = q(conn, _INSERT + " RETURNING id", params).first()
    if row is not None:
        return int(row.id)
    existing = q(conn, "SELECT id, kind, payload FROM outbox WHERE dedup_key = :key", {"key": key}).one()
    if existing.kind != kind or existing.payload != text:
        raise OutboxConflict(
            f"outbox key {key!r} is already enqueued as {existing.kind} with another payload"
        )
    return int(existing.id)


def requeue(conn: Connection, message_id: int, *, now: float | None = None) -> bool:
    """Put a ``failed`` row back to ``pending``, due now (after its cause was fixed).  Its
    attempts keep counting.  False if the row is not failed."""
    at = time.time() if now is None else now
    result = conn.execute(
        update(outbox)
        .where(outbox.c.id == message_id, outbox.c.status == FAILED)
        .values(status=PENDING, next_attempt_at=at, claimed_by=None)
    )
    return result.rowcount == 1


def purge_done(conn: Connection, older_than_s: float, *, now: float | None = None) -> int:
    """Delete delivered rows done more than ``older_than_s`` ago; how many.  (A done row's key
    still deduplicates :func:`enqueue` until it is purged.)"""
    at = time.time() if now is None else now
    result = conn.execute(
        outbox.delete().where(outbox.c.status == DONE, outbox.c.done_at < at - older_than_s)
    )
    return int(result.rowcount)


@dataclass(frozen=True)
class OutboxStats:
    pending: int  # waiting or in delivery
    retrying: int  # pending rows that have failed at least once
    alerting: int  # pending rows with at least alert_after attempts: still retried, need a look
    failed: int  # permanently failed rows, waiting for requeue()
    done: int
    oldest_pending_at: float | None  # created_at of the oldest pending row

    @property
    def needs_attention(self) -> bool:
        return self.alerting > 0 or self.failed > 0


def stats(conn: Connection, *, alert_after: int = ALERT_AFTER) -> OutboxStats:
    """Counts for monitoring (a health check should alert on :attr:`OutboxStats.needs_attention`)."""
    o = outbox
    pending = o.c.status == PENDING

    def count(condition: Any) -> Any:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

    row = conn.execute(
        select(
            count(pending),
            count(and_(pending, o.c.attempts > 0)),
            count(and_(pending, o.c.attempts >= alert_after)),
            count(o.c.status == FAILED),
            count(o.c.status == DONE),
            func.min(case((pending, o.c.created_at))),
        )
    ).one()
    return OutboxStats(*(int(v) for v in row[:5]), oldest_pending_at=row[5])


def backoff_delay(
    attempts: int, *, base_s: float = 1.0, cap_s: float = 60.0, rng: Callable[[], float] = random.random
) -> float:
    """Seconds to wait after the ``attempts``-th failure: ``base · 2^(attempts-1)`` capped at
    ``cap_s``, then jittered into its upper half ("equal jitter": never less than half)."""
    delay = min(cap_s, base_s * 2.0 ** min(max(attempts - 1, 0), 60))
    return delay / 2 + rng() * delay / 2


# -- the worker --------------------------------------------------------------------------------


class OutboxWorker:
    """Claims due rows whose kind has a handler, delivers them, records the outcome.

    Drive it with :meth:`run_once` (tests pass ``now`` to control time) or run it in a thread
    with :meth:`start` / :meth:`stop`; :meth:`wake` makes the thread look at once (e.g. after a
    commit that enqueued).  Several workers, in one process or many, may share a database."""

    def __init__(
        self,
        engine: Engine,
        handlers: Mapping[str, Handler],
        *,
        name: str | None = None,
        batch_size: int = 20,
        lease_s: float = 120.0,
        base_delay_s: float = 1.0,
        max_delay_s: float = 60.0,
        alert_after: int = ALERT_AFTER,
        poll_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
        concurrency: int = 1,
    ) -> None:
        if not handlers:
            raise ValueError("an outbox worker needs at least one handler")
        self.engine = engine
        self.handlers = dict(handlers)
        self.name = (name or f"worker-{uuid.uuid4().hex[:8]}")[:40]
        self.batch_size = batch_size
        self.lease_s = lease_s
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.alert_after = alert_after
        self.poll_s = poll_s
        self.clock = clock
        self.rng = rng
        # Deliveries of one batch at once: each waits on the receiver's reply, not the CPU.
        self.concurrency = max(1, concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- one pass --------------------------------------------------------------------------

    def run_once(self, now: float | None = None) -> int:
        """Claim one batch of due rows and deliver each (``concurrency`` at a time: every row
        is its own transaction, and receivers take deliveries in any order); how many were
        claimed."""
        messages = self.claim(now)
        if self.concurrency > 1 and len(messages) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix=f"outbox-{self.name}")
            for _ in self._pool.map(lambda m: self.deliver(m, now), messages):
                pass  # an error recording an outcome surfaces here, as in the loop below
        else:
            for message in messages:
                self.deliver(message, now)
        return len(messages)

    def claim(self, now: float | None = None) -> list[OutboxMessage]:
        """Lease up to ``batch_size`` due rows (oldest due first) to this worker."""
        at = self.clock() if now is None else now
        token = f"{self.name}/{uuid.uuid4().hex[:12]}"
        o = outbox
        due = and_(o.c.status == PENDING, o.c.next_attempt_at <= at, o.c.kind.in_(sorted(self.handlers)))
        with self.engine.begin() as conn:
            ids = (
                conn.execute(
                    select(o.c.id)
                    .where(due)
                    .order_by(o.c.next_attempt_at, o.c.id)
                    .limit(self.batch_size)
                    .with_for_update(skip_locked=True)  # PostgreSQL only; other workers skip these
                )
                .scalars()
                .all()
            )
            if not ids:
                return []
            # The conditions again: whatever the isolation level, only still-due rows are taken.
            rows = conn.execute(
                update(o)
                .where(o.c.id.in_(ids), due)
                .values(claimed_by=token, attempts=o.c.attempts + 1, next_attempt_at=at + self.lease_s)
                .returning(o.c.id, o.c.kind, o.c.dedup_key, o.c.payload, o.c.attempts, o.c.created_at)
            ).all()
        return [
            OutboxMessage(r.id, r.kind, r.dedup_key, json.loads(r.payload), r.attempts, r.created_at, token)
            for r in sorted(rows, key=lambda r: ids.index(r.id))
        ]

    def deliver_key(self, key: str, now: float | None = None) -> str | None:
        """Claim the row of ``key`` if it is due and nobody holds it, and deliver it here and
        now (the request that queued it, right after its commit); its outcome as
        :meth:`deliver`'s, or None if it was not this call's to deliver."""
        at = self.clock() if now is None else now
        token = f"{self.name}/{uuid.uuid4().hex[:12]}"
        o = outbox
        with self.engine.begin() as conn:
            row = conn.execute(
                update(o)
                .where(
                    o.c.dedup_key == key,
                    o.c.status == PENDING,
                    o.c.claimed_by.is_(None),
                    o.c.next_attempt_at <= at,
                    o.c.kind.in_(sorted(self.handlers)),
                )
                .values(claimed_by=token, attempts=o.c.attempts + 1, next_attempt_at=at + self.lease_s)
                .returning(o.c.id, o.c.kind, o.c.dedup_key, o.c.payload, o.c.attempts, o.c.created_at)
            ).first()
        if row is None:
            return None
        message = OutboxMessage(
            row.id, row.kind, row.dedup_key, json.loads(row.payload), row.attempts, row.created_at, token
        )
        return self.deliver(message, now)

    def deliver(self, message: OutboxMessage, now: float | None = None) -> str:
        """Run the handler on a claimed message and record the outcome; the row's new status
        (``done``, ``pending`` for a retry, ``failed``)."""
        try:
            self.handlers[message.kind](message)
        except PermanentFailure as exc:
            log.error("outbox %d %s %r failed permanently (attempt %d): %s", *_who(message), exc)
            self._record(message, now, status=FAILED, last_error=_describe(exc))
            return FAILED
        except Exception as exc:
            at = self.clock() if now is None else now
            delay = backoff_delay(
                message.attempt, base_s=self.base_delay_s, cap_s=self.max_delay_s, rng=self.rng
            )
            alerting = message.attempt >= self.alert_after
            log.log(
                logging.ERROR if alerting else logging.WARNING,
                "outbox %d %s %r failed (attempt %d%s), retry in %.1f s: %s",
                message.id,
                message.kind,
                message.key,
                message.attempt,
                ", still retrying: needs attention" if alerting else "",
                delay,
                _describe(exc),
            )
            self._record(message, now, next_attempt_at=at + delay, last_error=_describe(exc))
            return PENDING
        self._record(message, now, status=DONE, last_error=None, done=True)
        return DONE

    def _record(
        self, message: OutboxMessage, now: float | None, *, done: bool = False, **values: Any
    ) -> None:
        at = self.clock() if now is None else now
        if done:
            values["done_at"] = at
        o = outbox
        with self.engine.begin() as conn:
            result = conn.execute(
                update(o)
                .where(o.c.id == message.id, o.c.claimed_by == message.claim)
                .values(claimed_by=None, **values)
            )
        if result.rowcount != 1:
            # The lease ran out and another worker claimed the row: its outcome stands.
            log.warning("outbox %d %s %r: lease lost before attempt %d finished", *_who(message))

    # -- in a thread -----------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the worker is already running")
        self._stopping.clear()
        self._thread = threading.Thread(target=self._loop, name=f"outbox-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the delivery in progress (its row is recorded, or re-leased later)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def wake(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                full = self.run_once() >= self.batch_size  # a full batch: more may be due
            except Exception:  # the database is away, say: keep trying, loudly
                log.exception("outbox worker %s: pass failed", self.name)
                full = False
            if not full:
                self._wake.wait(self.poll_s)
                self._wake.clear()

    def __enter__(self) -> OutboxWorker:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def _who(message: OutboxMessage) -> tuple[int, str, str, int]:
    return message.id, message.kind, message.key, message.attempt


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:2000]
