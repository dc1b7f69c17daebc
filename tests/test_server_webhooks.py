"""Webhooks on SQLite and PostgreSQL: every way a round ends and a session closes sends one
signed event, enqueued in the event's own transaction (sent if and only if it committed),
retried from the outbox until the receiver answers 2xx, and delivered after a SIGKILL and a
restart of a real ``reelforge serve``.

Delivery is at least once: the receiver (``webhook_support.Receiver``) deduplicates on the
event id, and the tests count the duplicates it saw rather than assume there are none.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update

from helpers import stops_without, trigger_script
from reelforge.server.core.config import Settings
from reelforge.server.runtime.outbox_runner import handlers_for, make_outbox, start_outbox
from reelforge.server.storage import schema as t
from reelforge.server.wallets import webhooks
from reelforge.server.wallets.outbox import DONE, OutboxWorker, stats
from server_process import OP_HEADERS, ServerPool
from server_support import Api, client_for, make_server
from webhook_support import SECRET, Receiver

GNOMES = "reign-of-gnomes"


@pytest.fixture
def receiver():
    r = Receiver().start()
    yield r
    r.stop()


@pytest.fixture
def hooked(db_url, tmp_path, receiver):
    """A server whose webhooks go to the receiver (delivered by the tests' own worker)."""
    srv = make_server(
        db_url,
        tmp_path,
        webhook_url=receiver.url,
        webhook_secret=SECRET,
        webhook_timeout_seconds=2.0,
        outbox_lease_seconds=5.0,
    )
    yield srv
    srv.engine.dispose()


def worker_for(server) -> OutboxWorker:
    return OutboxWorker(server.engine, handlers_for(server), lease_s=5.0, rng=lambda: 1.0)


def deliver_all(server, now: float | None = None) -> int:
    """Deliver every due row (one worker pass after another); how many deliveries ran."""
    worker, total = worker_for(server), 0
    while n := worker.run_once(now):
        total += n
    return total


def plain_spin(d) -> list[int]:
    """Reign of Gnomes stops showing no scatter: the round ends at its start."""
    return [stops_without(d.base_reels.strips[r], {d.scatter}) for r in range(5)]


def outbox_rows(server) -> list[Any]:
    with server.engine.connect() as conn:
        return list(conn.execute(select(t.outbox).order_by(t.outbox.c.id)))


def expected_events(server) -> dict[str, tuple[str, int]]:
    """What the database says must have been sent: {event id: (type, subject id)}."""
    with server.engine.connect() as conn:
        rounds = list(conn.execute(select(t.rounds.c.id, t.rounds.c.status)))
        closed = list(conn.execute(select(t.sessions.c.id).where(t.sessions.c.closed_at.is_not(None))))
    out: dict[str, tuple[str, int]] = {}
    for r in rounds:
        kind = {"complete": webhooks.ROUND_COMPLETED, "voided": webhooks.ROUND_VOIDED}.get(r.status)
        if kind:
            out[f"{kind}:{r.id}"] = (kind, r.id)
    for s in closed:
        out[f"{webhooks.SESSION_CLOSED}:{s.id}"] = (webhooks.SESSION_CLOSED, s.id)
    return out


# -- every event, once, signed -------------------------------------------------------------------


def test_every_round_end_and_session_close_sends_one_signed_event(
    hooked, receiver: Receiver, gnomes_data
) -> None:
    api = Api(client_for(hooked))
    api.new_player("w1", 100_000)
    # A second session replaces the first (one live session per player by default).
    second = api.operator("POST", "/players/w1/sessions", json={}, expect=201)
    token = second["token"]
    # A round over at its start, one ended by actions (free spins), two by autoplay.
    done_at_start = api.start(token, script=plain_spin(gnomes_data))
    assert done_at_start["round"]["status"] == "complete"
    by_actions = api.finish(token, api.start(token, script=trigger_script(gnomes_data)))
    auto = {"game": GNOMES, "stake": 40, "spins": 2, "loss_limit": 10_000}
    api.call("POST", "/autoplay", token=token, json=auto, expect=201)
    for _ in range(2):
        api.call("POST", "/autoplay/next", token=token, expect=200)
    for left in api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"]:
        api.finish(token, {"round": left})  # a pick the autoplay left to the player
    # The sweeper finishes a round left waiting; the operator voids another.
    swept = api.start(token, script=trigger_script(gnomes_data))["round"]
    assert hooked.complete_stale_rounds(older_than=0) == 1
    voided = api.start(token, script=trigger_script(gnomes_data))["round"]
    api.operator("POST", f"/rounds/{voided['id']}/void", json={"reason": "stuck"}, expect=200)
    # Sessions: closed by the player, revoked by the operator, ended by their time limit.
    api.call("POST", "/session/close", token=token, expect=200)
    third = api.operator("POST", "/players/w1/sessions", json={}, expect=201)
    api.operator("POST", f"/players/w1/sessions/{third['session_id']}/revoke", expect=200)
    timed = api.operator("POST", "/players/w1/sessions", json={"time_limit_seconds": 60}, expect=201)
    with hooked.engine.begin() as conn:
        conn.execute(update(t.sessions).where(t.sessions.c.id == timed["session_id"]).values(created_at=1.0))
    assert api.call("GET", "/balance", token=timed["token"], expect=403)["error"]["code"] == "session_closed"

    expected = expected_events(hooked)
    assert len(outbox_rows(hooked)) == len(expected)  # enqueued once each, nothing delivered yet
    assert receiver.deliveries == []
    assert deliver_all(hooked) == len(expected)
    assert set(receiver.processed) == set(expected) and not receiver.duplicates
    assert all(d.signature_ok and d.status == 200 for d in receiver.deliveries)
    for d in receiver.deliveries:
        assert d.headers["x-reelforge-event-id"] == d.payload["id"] == d.event_id
        assert d.headers["x-reelforge-event"] == d.payload["type"]
        assert d.headers["x-reelforge-delivery-attempt"] == "1"
        assert d.headers["content-type"] == "application/json"
    assert all(r.status == DONE for r in outbox_rows(hooked))

    events = receiver.processed
    rounds = {e["data"]["round_id"]: e for e in events.values() if e["type"] == webhooks.ROUND_COMPLETED}
    history = api.operator("GET", "/players/w1/history?limit=100", expect=200)["rounds"]
    for line in history:
        if line["status"] != "complete":
            continue
        data = rounds[line["id"]]["data"]
        assert (data["stake"], data["win"], data["balance_after"]) == (
            line["stake"], line["win"], line["balance_after"],
        )  # fmt: skip
        assert data["player"] == "w1" and data["currency"] == "GBP" and data["game"] == GNOMES
    assert rounds[swept["id"]]["data"]["completed_by"] == "server"
    assert rounds[done_at_start["round"]["id"]]["data"]["session_id"] == second["session_id"]
    assert by_actions["round"]["id"] in rounds
    void = events[f"round.voided:{voided['id']}"]["data"]
    assert (void["refund"], void["reason"], void["player"]) == (40, "stuck", "w1")
    closes = {
        e["data"]["session_id"]: e["data"]["reason"] for e in events.values() if e["type"] == "session.closed"
    }
    assert closes == {
        first_session_id(api): "replaced",
        second["session_id"]: "closed by the player",
        third["session_id"]: "revoked by the operator",
        timed["session_id"]: "time limit reached",
    }
    closed = events[f"session.closed:{second['session_id']}"]["data"]
    assert closed["staked"] - closed["won"] == -closed["net_position"] and closed["staked"] > 0
    # The request that caused an event names it (X-Request-Id, observability.py); the sweeper's none.
    assert set(events[f"round.voided:{voided['id']}"]) == {"id", "type", "created_at", "data", "request_id"}
    assert "request_id" not in rounds[swept["id"]]


def first_session_id(api: Api) -> int:
    """The id of w1's first session: the oldest in the listing."""
    sessions = api.operator("GET", "/players/w1/sessions?limit=100", expect=200)["sessions"]
    return min(s["id"] for s in sessions)


# -- retries, and the dedup key -------------------------------------------------------------------


def test_a_failing_receiver_is_retried_with_backoff_and_dedupes_on_the_event_id(
    hooked, receiver: Receiver, gnomes_data
) -> None:
    api = Api(client_for(hooked))
    token = api.new_player("w2", 10_000)
    rnd = api.start(token, script=plain_spin(gnomes_data))["round"]
    eid = f"round.completed:{rnd['id']}"
    worker = worker_for(hooked)
    t0 = time.time()
    receiver.failing = True
    assert worker.run_once(t0) == 1  # 500: retried after the backoff (1 s for the first failure)
    with hooked.engine.connect() as conn:
        assert stats(conn).retrying == 1
    assert worker.run_once(t0 + 0.5) == 0  # not due yet
    receiver.failing = False
    receiver.lose_reply = {eid}  # processed, but the reply is lost: the sender must send it again
    assert worker.run_once(t0 + 1.0) == 1
    assert worker.run_once(t0 + 1.5) == 0  # the next backoff is 2 s
    assert worker.run_once(t0 + 3.0) == 1
    assert worker.run_once(t0 + 100) == 0  # done: nothing more
    assert [d.status for d in receiver.deliveries] == [500, 500, 200]
    assert [d.headers["x-reelforge-delivery-attempt"] for d in receiver.deliveries] == ["1", "2", "3"]
    assert len({d.body for d in receiver.deliveries}) == 1  # the same bytes on every attempt
    assert all(d.signature_ok for d in receiver.deliveries)
    assert list(receiver.processed) == [eid] and receiver.duplicates == Counter({eid: 1})
    assert [r.status for r in outbox_rows(hooked)] == [DONE]


def test_a_timeout_is_a_failure_retried_later(hooked, receiver: Receiver, gnomes_data, monkeypatch) -> None:
    api = Api(client_for(hooked))
    token = api.new_player("w3", 10_000)
    api.start(token, script=plain_spin(gnomes_data))
    sender = handlers_for(hooked)["webhook"]

    def slow(*_a: Any, **_k: Any) -> None:
        raise httpx.ReadTimeout("timed out")

    monkeypatch.setattr(sender.client, "post", slow)
    worker = OutboxWorker(hooked.engine, {"webhook": sender}, lease_s=5.0, rng=lambda: 1.0)
    t0 = time.time()
    assert worker.run_once(t0) == 1
    (row,) = outbox_rows(hooked)
    assert row.status == "pending" and row.attempts == 1 and "ReadTimeout" in row.last_error
    monkeypatch.undo()
    assert deliver_all(hooked, t0 + 2) == 1 and len(receiver.processed) == 1


# -- sent if and only if the event committed -----------------------------------------------------


def test_an_event_is_enqueued_only_with_its_committed_transaction(hooked, gnomes_data) -> None:
    api = Api(client_for(hooked))
    token = api.new_player("w4", 10_000)
    body = {"game": GNOMES, "stake": 40, "script": plain_spin(gnomes_data)}

    def boom(*_a: Any) -> None:
        raise RuntimeError("the request fails after the round completed")

    hooked.sessions.close_if_spent = boom  # runs after the round's end, in its transaction
    with contextlib.suppress(RuntimeError):  # the test client re-raises what the server did not
        api.call("POST", "/rounds", token=token, json=body, idem="r1", expect=500)
    del hooked.sessions.close_if_spent
    assert outbox_rows(hooked) == []
    with hooked.engine.connect() as conn:
        assert conn.execute(select(t.rounds)).all() == []
    # The same request succeeds: one event; its repeat (same key) changes nothing and adds none.
    first = api.call("POST", "/rounds", token=token, json=body, idem="r1", expect=201)
    again = api.call("POST", "/rounds", token=token, json=body, idem="r1", expect=201)
    assert first == again
    assert [r.dedup_key for r in outbox_rows(hooked)] == [f"webhook:round.completed:{first['round']['id']}"]
    # A refused void, or a close of an already closed session, sends nothing.
    api.operator("POST", f"/rounds/{first['round']['id']}/void", json={}, expect=409)
    assert len(outbox_rows(hooked)) == 1


def test_no_webhook_url_enqueues_nothing(server, api, gnomes_data) -> None:
    """An operator without a webhook URL: nothing is queued, so the process's worker (every
    process runs one: any operator may be given a URL at any time) has nothing to send."""
    token = api.new_player("w5", 10_000)
    api.finish(token, api.start(token, script=trigger_script(gnomes_data)))
    api.call("POST", "/session/close", token=token, expect=200)
    assert outbox_rows(server) == []
    worker = make_outbox(server)
    assert worker is not None and worker.run_once(time.time() + 100) == 0


def test_the_process_worker_delivers_in_the_background(hooked, receiver: Receiver, gnomes_data) -> None:
    api = Api(client_for(hooked))
    token = api.new_player("w6", 10_000)
    rnd = api.start(token, script=plain_spin(gnomes_data))["round"]
    worker = start_outbox(hooked, handlers_for(hooked))
    assert worker is not None
    try:
        assert receiver.wait_for({f"round.completed:{rnd['id']}"}, timeout=20)
    finally:
        worker.stop()


def test_webhooks_need_a_secret_and_an_http_url(tmp_path) -> None:
    with pytest.raises(ValueError, match="webhook_secret"):
        Settings(data_dir=tmp_path, webhook_url="http://127.0.0.1:9/hooks")
    with pytest.raises(ValueError, match="http"):
        Settings(data_dir=tmp_path, webhook_url="ftp://example.com/", webhook_secret="s")
    with pytest.raises(ValueError, match="lease"):
        Settings(
            data_dir=tmp_path, webhook_url="http://x/", webhook_secret="s",
            webhook_timeout_seconds=30, outbox_lease_seconds=10,
        )  # fmt: skip


# -- a real server killed while the receiver fails ------------------------------------------------


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


def test_webhooks_are_delivered_after_a_sigkill_and_a_restart(
    db_url, tmp_path, pool: ServerPool, receiver: Receiver, gnomes_data
) -> None:
    env = {
        "REELFORGE_WEBHOOK_URL": receiver.url,
        "REELFORGE_WEBHOOK_SECRET": SECRET,
        "REELFORGE_WEBHOOK_TIMEOUT_SECONDS": "1",
        "REELFORGE_OUTBOX_LEASE_SECONDS": "3",  # a claim the killed worker held returns after 3 s
        "REELFORGE_OUTBOX_POLL_SECONDS": "0.1",
        "REELFORGE_OUTBOX_BASE_DELAY_SECONDS": "0.2",
        "REELFORGE_OUTBOX_MAX_DELAY_SECONDS": "0.5",
        "REELFORGE_PENDING_TIMEOUT_SECONDS": "2",
        "REELFORGE_SWEEP_INTERVAL_SECONDS": "0.5",
    }
    proc = pool.new(db_url, "hooks", env)
    receiver.failing = True
    proc.start()
    with proc.client() as c:
        op = {**OP_HEADERS}

        def post(path: str, body: dict, token: str | None = None, expect: int = 200) -> dict:
            headers = {"Idempotency-Key": f"{path}:{time.monotonic_ns()}"}
            headers.update({"Authorization": f"Bearer {token}"} if token else op)
            r = c.post(path, json=body, headers=headers)
            assert r.status_code == expect, (path, r.status_code, r.text)
            return r.json()

        for name in ("ka", "kb"):
            assert c.post("/operator/players", json={"external_id": name}, headers=op).status_code == 201
            post(f"/operator/players/{name}/credit", {"amount": 50_000})
        post("/operator/players/ka/sessions", {}, expect=201)
        token = post("/operator/players/ka/sessions", {}, expect=201)["token"]  # replaces the first
        plain = {"game": GNOMES, "stake": 40, "script": plain_spin(gnomes_data)}
        feature = {"game": GNOMES, "stake": 40, "script": trigger_script(gnomes_data)}
        for _ in range(3):
            post("/rounds", plain, token, 201)
        stuck = post("/rounds", feature, token, 201)
        post(f"/operator/rounds/{stuck['round']['id']}/void", {"reason": "support"})
        other = post("/operator/players/kb/sessions", {}, expect=201)["token"]
        left = post("/rounds", feature, other, 201)
        post("/session/close", {}, other)
        deadline = time.monotonic() + 30  # the sweeper finishes kb's round left waiting
        while c.get(f"/operator/rounds/{left['round']['id']}", headers=op).json()["status"] != "complete":
            assert time.monotonic() < deadline, "the sweeper did not finish the round"
            time.sleep(0.2)
    check = make_server(db_url, tmp_path / "check", seed=None)
    expected = set(expected_events(check))
    assert len(expected) == 3 + 1 + 1 + 2  # 3 spins + 1 swept, 1 void, 2 sessions closed
    deadline = time.monotonic() + 30
    while not receiver.refused(expected, times=2):  # every event tried and refused, twice or more
        assert time.monotonic() < deadline, proc.log_tail()
        time.sleep(0.1)
    proc.kill()  # SIGKILL: rows in delivery stay claimed until their lease ends
    with check.engine.connect() as conn:
        assert stats(conn).done == 0 and stats(conn).pending == len(expected)
    lost = f"round.voided:{stuck['round']['id']}"
    receiver.lose_reply = {lost}  # one reply lost after the restart: a duplicate the receiver drops
    proc.start()
    receiver.failing = False
    assert receiver.wait_for(expected, timeout=60), (expected - set(receiver.processed), proc.log_tail())
    deadline = time.monotonic() + 30
    while True:  # the lost reply's event is sent again and confirmed
        with check.engine.connect() as conn:
            if stats(conn).done == len(expected):
                break
        assert time.monotonic() < deadline, proc.log_tail()
        time.sleep(0.1)
    proc.kill()
    check.engine.dispose()

    assert set(receiver.processed) == expected  # every event, and nothing else
    assert all(d.signature_ok for d in receiver.deliveries)
    assert receiver.duplicates[lost] >= 1  # at least once: the receiver deduplicated on the id
    for eid in expected:
        bodies = {d.body for d in receiver.deliveries if d.event_id == eid}
        assert len(bodies) == 1, eid  # every delivery of an event carried the same bytes
