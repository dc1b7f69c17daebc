"""The durable outbox on SQLite and PostgreSQL: atomic enqueue, retries with backoff, claims
that several workers share, restarts, and credits delivered to the reference wallet."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from reelforge.seamless.client import outbox_handlers
from reelforge.seamless.protocol import CreditRequest
from reelforge.server.storage.db import is_postgres, make_engine, migrate
from reelforge.server.storage.schema import outbox
from reelforge.server.wallets.outbox import (
    DONE,
    FAILED,
    PENDING,
    WALLET_CREDIT,
    WEBHOOK,
    OutboxConflict,
    OutboxMessage,
    OutboxWorker,
    PermanentFailure,
    backoff_delay,
    enqueue,
    requeue,
    stats,
)
from wallet_support import WalletServer

T0 = 1_700_000_000.0
LEASE = 30.0


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    migrate(eng)
    yield eng
    eng.dispose()


def rows(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(outbox).order_by(outbox.c.id)))


def add(engine: Engine, key: str, kind: str = WALLET_CREDIT, now: float = T0, **payload: Any) -> int:
    with engine.begin() as conn:
        return enqueue(conn, kind, key, payload or {"key": key}, now=now)


class Recorder:
    """A handler that fails its first ``failures`` calls, then records deliveries."""

    def __init__(self, failures: int = 0, exc: Exception | None = None) -> None:
        self.failures = failures
        self.exc = exc or ConnectionError("wallet away")
        self.calls: list[OutboxMessage] = []
        self.delivered: list[str] = []

    def __call__(self, message: OutboxMessage) -> None:
        self.calls.append(message)
        if len(self.calls) <= self.failures:
            raise self.exc
        self.delivered.append(message.key)


def worker(engine: Engine, handler: Any, kind: str = WALLET_CREDIT, **kw: Any) -> OutboxWorker:
    kw.setdefault("rng", lambda: 1.0)  # the jitter at its top: delays are exactly base · 2^(n-1)
    return OutboxWorker(engine, {kind: handler}, lease_s=LEASE, **kw)


# -- enqueue ------------------------------------------------------------------------------------


def test_enqueue_commits_with_the_callers_transaction(engine: Engine) -> None:
    assert add(engine, "tx-1", amount=250) == rows(engine)[0].id
    (row,) = rows(engine)
    assert (row.kind, row.dedup_key, row.payload, row.status, row.attempts) == (
        WALLET_CREDIT,
        "tx-1",
        '{"amount":250}',
        PENDING,
        0,
    )
    assert row.next_attempt_at == row.created_at == T0


def test_enqueue_in_a_transaction_that_rolls_back_leaves_nothing(engine: Engine) -> None:
    with pytest.raises(RuntimeError, match="the round failed"), engine.begin() as conn:
        enqueue(conn, WALLET_CREDIT, "tx-1", {"amount": 1}, now=T0)
        raise RuntimeError("the round failed")
    with engine.connect() as conn:
        conn.begin()
        enqueue(conn, WALLET_CREDIT, "tx-2", {"amount": 1}, now=T0)
        conn.rollback()
    assert rows(engine) == []
    recorder = Recorder()
    assert worker(engine, recorder).run_once(T0 + 1) == 0 and recorder.calls == []


def test_enqueue_needs_an_open_transaction(engine: Engine) -> None:
    with engine.connect() as conn, pytest.raises(RuntimeError, match="inside the caller's transaction"):
        enqueue(conn, WALLET_CREDIT, "tx-1", {})
    with engine.begin() as conn, pytest.raises(ValueError):
        enqueue(conn, WALLET_CREDIT, "k" * 201, {})


def test_enqueue_is_idempotent_per_key_and_refuses_conflicts(engine: Engine) -> None:
    with engine.begin() as conn:
        first = enqueue(conn, WALLET_CREDIT, "tx-1", {"amount": 5, "round": 1}, now=T0)
        assert enqueue(conn, WALLET_CREDIT, "tx-1", {"round": 1, "amount": 5}, now=T0 + 9) == first
        with pytest.raises(OutboxConflict):
            enqueue(conn, WALLET_CREDIT, "tx-1", {"amount": 6, "round": 1})
        with pytest.raises(OutboxConflict):
            enqueue(conn, WEBHOOK, "tx-1", {"amount": 5, "round": 1})
        enqueue(conn, WALLET_CREDIT, "tx-2", {"amount": 7}, now=T0)  # the transaction is still usable
    assert [r.dedup_key for r in rows(engine)] == ["tx-1", "tx-2"]


# -- retries --------------------------------------------------------------------------------------


def test_a_handler_failing_twice_then_succeeding_delivers_once(engine: Engine) -> None:
    add(engine, "tx-1")
    recorder = Recorder(failures=2)
    w = worker(engine, recorder, base_delay_s=1.0)
    assert w.run_once(T0) == 1
    (row,) = rows(engine)
    assert (row.status, row.attempts, row.next_attempt_at, row.claimed_by) == (PENDING, 1, T0 + 1, None)
    assert row.last_error == "ConnectionError: wallet away"
    assert w.run_once(T0 + 0.5) == 0  # not due yet
    assert w.run_once(T0 + 1) == 1
    assert rows(engine)[0].next_attempt_at == T0 + 1 + 2
    assert w.run_once(T0 + 3) == 1
    (row,) = rows(engine)
    assert (row.status, row.attempts, row.done_at, row.last_error) == (DONE, 3, T0 + 3, None)
    assert w.run_once(T0 + 1_000) == 0
    assert [m.attempt for m in recorder.calls] == [1, 2, 3] and recorder.delivered == ["tx-1"]


def test_a_batch_is_delivered_several_at_once_each_outcome_recorded(engine: Engine) -> None:
    """With ``concurrency``, one batch's deliveries overlap (each waits on its receiver, not on
    the others); every row still ends once, as its handler said: done, or due again."""
    for i in range(8):
        add(engine, f"tx-{i}")
    lock, state = threading.Lock(), {"now": 0, "most": 0}
    gate = threading.Barrier(4, timeout=10)  # four handlers must be in flight at the same time

    def handler(message: OutboxMessage) -> None:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        try:
            if int(message.key.split("-")[1]) < 4:
                gate.wait()  # passes only once four deliveries run together
            if message.key == "tx-7":
                raise ConnectionError("wallet away")
        finally:
            with lock:
                state["now"] -= 1

    w = worker(engine, handler, concurrency=4, batch_size=8, base_delay_s=1.0)
    try:
        assert w.run_once(T0) == 8
    finally:
        w.stop()
    assert state["most"] >= 4
    outcome = {r.dedup_key: (r.status, r.attempts, r.claimed_by) for r in rows(engine)}
    assert outcome == {
        **{f"tx-{i}": (DONE, 1, None) for i in range(7)},
        "tx-7": (PENDING, 1, None),
    }


def test_backoff_reaches_the_cap_and_never_gives_up(engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    add(engine, "tx-1")
    w = worker(engine, Recorder(failures=10**9), base_delay_s=1.0, max_delay_s=60.0, alert_after=5)
    now, delays = T0, []
    with caplog.at_level(logging.WARNING, logger="reelforge.outbox"):
        for _ in range(10):
            assert w.run_once(now) == 1
            due = rows(engine)[0].next_attempt_at
            delays.append(due - now)
            now = due
    assert delays == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]
    (row,) = rows(engine)
    assert (row.status, row.attempts) == (PENDING, 10)  # still pending: a credit must be paid
    with engine.connect() as conn:
        s = stats(conn, alert_after=5)
    assert (s.pending, s.retrying, s.alerting, s.failed, s.done) == (1, 1, 1, 0, 0) and s.needs_attention
    levels = [r.levelname for r in caplog.records]
    assert levels == ["WARNING"] * 4 + ["ERROR"] * 6
    assert "needs attention" in caplog.records[-1].getMessage()


def test_backoff_delay_is_jittered_within_its_upper_half() -> None:
    assert backoff_delay(1, rng=lambda: 0.0) == 0.5 and backoff_delay(1, rng=lambda: 1.0) == 1.0
    assert backoff_delay(4, base_s=0.5, rng=lambda: 1.0) == 4.0
    assert backoff_delay(10_000, cap_s=60, rng=lambda: 0.0) == 30.0  # no overflow, capped
    assert all(30.0 <= backoff_delay(50) <= 60.0 for _ in range(100))


def test_a_permanent_failure_waits_for_a_person(engine: Engine) -> None:
    message_id = add(engine, "tx-1")
    recorder = Recorder(failures=1, exc=PermanentFailure("operator refused: unknown_player"))
    w = worker(engine, recorder)
    w.run_once(T0)
    (row,) = rows(engine)
    assert (row.status, row.last_error) == (FAILED, "PermanentFailure: operator refused: unknown_player")
    assert w.run_once(T0 + 10_000) == 0
    with engine.connect() as conn:
        s = stats(conn)
    assert (s.failed, s.pending, s.needs_attention) == (1, 0, True)
    with engine.begin() as conn:
        assert requeue(conn, message_id, now=T0 + 20_000)
        assert not requeue(conn, message_id)  # only a failed row
    assert w.run_once(T0 + 20_000) == 1
    assert rows(engine)[0].status == DONE and recorder.delivered == ["tx-1"]


def test_kinds_without_a_handler_are_left_alone(engine: Engine) -> None:
    add(engine, "hook-1", kind=WEBHOOK)
    add(engine, "tx-1")
    recorder = Recorder()
    assert worker(engine, recorder).run_once(T0) == 1
    assert [(r.dedup_key, r.status, r.attempts) for r in rows(engine)] == [
        ("hook-1", PENDING, 0),
        ("tx-1", DONE, 1),
    ]


# -- claims, leases, restarts ---------------------------------------------------------------------


def test_a_restarted_worker_picks_up_pending_rows(db_url: str, engine: Engine) -> None:
    for i in range(3):
        add(engine, f"tx-{i}")
    crashed = worker(engine, Recorder())
    assert len(crashed.claim(T0)) == 3  # ...and the process dies before delivering
    add(engine, "tx-3")  # enqueued while no worker runs
    engine.dispose()

    fresh_engine = make_engine(db_url)
    try:
        recorder = Recorder()
        restarted = worker(fresh_engine, recorder)
        assert restarted.run_once(T0 + 1) == 1  # the unclaimed row at once
        assert restarted.run_once(T0 + 2) == 0  # the others are still leased
        assert restarted.run_once(T0 + LEASE + 1) == 3  # the lease ran out
        assert sorted(recorder.delivered) == ["tx-0", "tx-1", "tx-2", "tx-3"]
        assert [(r.status, r.attempts) for r in rows(fresh_engine)] == [(DONE, 2)] * 3 + [(DONE, 1)]
    finally:
        fresh_engine.dispose()


def test_a_worker_that_outlived_its_lease_cannot_overwrite_the_outcome(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    add(engine, "tx-1")
    slow = worker(engine, Recorder(failures=1), name="slow")
    (late,) = slow.claim(T0)
    assert worker(engine, Recorder(), name="quick").run_once(T0 + LEASE + 1) == 1
    with caplog.at_level(logging.WARNING, logger="reelforge.outbox"):
        assert slow.deliver(late, T0 + LEASE + 2) == PENDING  # its handler failed, but...
    (row,) = rows(engine)
    assert (row.status, row.last_error) == (DONE, None)  # ...the quick worker's outcome stands
    assert "lease lost" in caplog.text


def test_two_workers_never_deliver_the_same_row_concurrently(engine: Engine) -> None:
    keys = [f"tx-{i:03d}" for i in range(40)]
    for key in keys:
        add(engine, key)
    lock = threading.Condition()
    in_flight: dict[int, str] = {}
    overlap: list[int] = []
    delivered: list[tuple[str, str]] = []
    both_busy = threading.Event()

    def handler(name: str) -> Any:
        def handle(message: OutboxMessage) -> None:
            with lock:
                if message.id in in_flight:
                    overlap.append(message.id)
                in_flight[message.id] = name
                if len(set(in_flight.values())) == 2:
                    both_busy.set()
            both_busy.wait(2.0)  # hold the first rows until the other worker delivers too
            time.sleep(0.001)
            with lock:
                del in_flight[message.id]
                delivered.append((message.key, name))

        return handle

    workers = [
        OutboxWorker(engine, {WALLET_CREDIT: handler(name)}, name=name, batch_size=3, lease_s=LEASE)
        for name in ("a", "b")
    ]

    def drain(w: OutboxWorker) -> None:
        idle = 0
        while idle < 3:
            idle = idle + 1 if w.run_once(T0) == 0 else 0

    threads = [threading.Thread(target=drain, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert both_busy.is_set(), "the two workers never delivered at the same time"
    assert overlap == []
    assert sorted(key for key, _ in delivered) == keys  # each row exactly once
    assert {name for _, name in delivered} == {"a", "b"}
    assert all(r.status == DONE and r.attempts == 1 for r in rows(engine))


def test_a_claim_skips_rows_another_claim_holds(engine: Engine) -> None:
    for i in range(4):
        add(engine, f"tx-{i}")
    w = worker(engine, Recorder(), batch_size=10)
    if not is_postgres(engine):
        # SQLite has one writer: a claim waits for the other and then sees the rows taken.
        assert len(w.claim(T0)) == 4 and w.claim(T0) == []
        return
    with engine.connect() as holder:
        holder.begin()  # another worker's claim, still in its transaction, holds two rows
        holder.execute(text("SELECT id FROM outbox WHERE dedup_key IN ('tx-0', 'tx-1') FOR UPDATE"))
        started = time.monotonic()
        taken = [m.key for m in w.claim(T0)]
        assert time.monotonic() - started < 1.0  # not blocked by the held rows
        holder.rollback()
    assert taken == ["tx-2", "tx-3"]


def test_the_worker_thread_delivers_promptly_and_stops(engine: Engine) -> None:
    recorder = Recorder(failures=1)
    w = OutboxWorker(engine, {WALLET_CREDIT: recorder}, poll_s=0.05, base_delay_s=0.05, lease_s=LEASE)
    with w:
        add(engine, "tx-1", now=time.time())
        w.wake()
        deadline = time.monotonic() + 10
        while recorder.delivered != ["tx-1"]:
            assert time.monotonic() < deadline, rows(engine)
            time.sleep(0.01)
    assert w._thread is None and rows(engine)[0].status == DONE


# -- credits to a seamless wallet -----------------------------------------------------------------


@pytest.fixture(scope="module")
def wallet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WalletServer]:
    server = WalletServer(tmp_path_factory.mktemp("wallet") / "wallet.db").start()
    yield server
    server.stop()


def _credit(player: str, tx: str, amount: int) -> dict[str, Any]:
    request = CreditRequest(transaction_id=tx, round_id="1", player_id=player, amount=amount, currency="EUR")
    return request.model_dump()


def test_credits_reach_the_wallet_once_through_failures(engine: Engine, wallet: WalletServer) -> None:
    player = wallet.player(1_000)
    wallet.faults(
        {"op": "credit", "action": "error_500"},
        {"op": "credit", "action": "drop_reply", "delay_s": 1.0},  # paid, but no answer
    )
    with wallet.client(timeout_s=0.3) as client:
        w = OutboxWorker(engine, outbox_handlers(client), lease_s=LEASE, base_delay_s=1.0, rng=lambda: 1.0)
        with engine.begin() as conn:  # the round's transaction
            enqueue(conn, WALLET_CREDIT, f"{player}-c1", _credit(player, f"{player}-c1", 750), now=T0)
        for now in (T0, T0 + 1, T0 + 3):
            assert w.run_once(now) == 1
    (row,) = rows(engine)
    assert (row.status, row.attempts) == (DONE, 3)
    balance, txs = wallet.books(player)
    assert balance == 1_750  # paid once, although delivered three times
    assert [t["kind"] for t in txs] == ["adjustment", "credit"]
    wallet.clear_faults()


def test_a_credit_the_operator_refuses_is_failed_not_dropped(engine: Engine, wallet: WalletServer) -> None:
    with wallet.client() as client:
        w = OutboxWorker(engine, outbox_handlers(client), lease_s=LEASE)
        with engine.begin() as conn:
            enqueue(conn, WALLET_CREDIT, "ghost-c1", _credit("ghost", "ghost-c1", 5), now=T0)
            enqueue(conn, WALLET_CREDIT, "bad-c1", {"transaction_id": "bad-c1", "amount": 1.5}, now=T0)
        assert w.run_once(T0) == 2
    assert [(r.status, r.last_error.split(":")[0]) for r in rows(engine)] == [
        (FAILED, "PermanentFailure")
    ] * 2
    assert "unknown_player" in rows(engine)[0].last_error
