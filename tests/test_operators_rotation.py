"""An operator's API key is rotated while its calls are in flight, against a real
``reelforge serve`` process, on SQLite and PostgreSQL.

Operator B is made with the admin API and given a second key.  Threads keep calling with the
old key (credits under distinct Idempotency-Keys, player reads) while another keeps calling
with the new one, and the old key is revoked in the middle.  Proven:

* every answer to the old key is a success or a 401 (never a 5xx, never anything else), and
  every call the old key started after the revoke returned is a 401;
* the new key is answered 200 throughout, before, during and after the revoke;
* nothing is half done: the players' balances are exactly the credits answered 200, the
  ledger holds one row for each of them and none for a credit answered 401, and a credit
  answered 200 sent again with the new key is replayed, not paid twice (the idempotency keys
  are the operator's, whichever of its keys sent them);
* the server's audit (balances against the ledger) holds afterwards.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from reelforge.server.core.config import Settings
from reelforge.server.runtime.service import GameServer
from server_process import OPERATOR_KEY, ServerPool, ServerProcess, local_client

ADMIN_KEY = "rotation-admin-key"
ADMIN = {"X-Admin-Key": ADMIN_KEY}
PLAYERS = ("r1", "r2", "r3")
OLD_KEY_THREADS = 4
REVOKE_AFTER = 24  # old-key credits answered 200 before the revoke is sent
AFTER_REVOKE = 6  # calls each old-key thread starts after the revoke returned, then it stops
TIMEOUT = 40.0


@pytest.fixture
def pool(tmp_path) -> Iterator[ServerPool]:
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


@dataclass
class Call:
    key: str  # "old" or "new"
    kind: str  # "credit" or "read"
    player: str
    started: float
    ended: float
    status: int
    amount: int = 0
    idem: str = ""
    body: Any = None


@dataclass
class Record:
    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    changed: threading.Condition = field(init=False)
    errors: list[BaseException] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.changed = threading.Condition(self.lock)

    def add(self, call: Call) -> None:
        with self.changed:
            self.calls.append(call)
            self.changed.notify_all()

    def wait(self, predicate: Any, what: str) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: predicate() or self.errors, TIMEOUT):
                raise AssertionError(f"{what}: not reached within {TIMEOUT} s")
        if self.errors:
            raise self.errors[0]


def admin(http: httpx.Client, method: str, path: str, expect: int, body: Any = None, idem: str = "") -> Any:
    headers = dict(ADMIN)
    if method == "POST":
        headers["Idempotency-Key"] = idem or f"admin-{time.monotonic_ns()}"
    r = http.request(method, "/admin" + path, headers=headers, json=body)
    assert r.status_code == expect, (method, path, r.status_code, r.text)
    return r.json()


def caller(
    proc: ServerProcess, key: str, label: str, seed: int, record: Record, stop: threading.Event
) -> None:
    """Credits (distinct Idempotency-Keys, amounts from a seeded stream) and reads, one after
    another, until ``stop``; each answer recorded."""
    rng = random.Random(seed)
    headers = {"X-Operator-Key": key}
    try:
        with local_client(base_url=proc.url, timeout=30) as http:
            n = 0
            while not stop.is_set():
                n += 1
                player = rng.choice(PLAYERS)
                started = time.monotonic()
                if n % 3:
                    amount, idem = rng.randint(1, 5_000), f"{label}-{n}"
                    r = http.post(
                        f"/operator/players/{player}/credit",
                        headers={**headers, "Idempotency-Key": idem},
                        json={"amount": amount},
                    )
                    call = Call(
                        label, "credit", player, started, time.monotonic(), r.status_code, amount, idem
                    )
                else:
                    r = http.get(f"/operator/players/{player}", headers=headers)
                    call = Call(label, "read", player, started, time.monotonic(), r.status_code)
                call.body = (
                    r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text
                )
                record.add(call)
    except BaseException as error:  # surfaced by the main thread
        with record.changed:
            record.errors.append(error)
            record.changed.notify_all()


def test_a_key_revoked_while_its_calls_are_in_flight(db_url: str, tmp_path, pool: ServerPool) -> None:
    proc = pool.new(db_url, env={"REELFORGE_ADMIN_KEY": ADMIN_KEY, "REELFORGE_THREADS": "4"}).start()
    http = proc.client()
    made = admin(http, "POST", "/operators", 201, {"name": "casino-b", "settings": {}})
    operator_id, old_key, old_key_id = made["operator"]["id"], made["key"], made["key_id"]
    assert operator_id != 1 and old_key.startswith("rf_")
    added = admin(http, "POST", f"/operators/{operator_id}/keys", 201)
    new_key = added["key"]
    assert new_key != old_key and added["key_id"] != old_key_id
    for player in PLAYERS:
        r = http.post("/operator/players", headers={"X-Operator-Key": old_key}, json={"external_id": player})
        assert r.status_code == 201, r.text

    record, stop = Record(), threading.Event()
    threads = [
        threading.Thread(target=caller, args=(proc, old_key, f"old{i}", 100 + i, record, stop), daemon=True)
        for i in range(OLD_KEY_THREADS)
    ]
    threads.append(
        threading.Thread(target=caller, args=(proc, new_key, "new", 99, record, stop), daemon=True)
    )
    for thread in threads:
        thread.start()
    revoked_at = float("inf")
    try:

        def old(pred: Any) -> list[Call]:
            return [c for c in record.calls if c.key.startswith("old") and pred(c)]

        record.wait(
            lambda: len(old(lambda c: c.kind == "credit" and c.status == 200)) >= REVOKE_AFTER,
            "old-key credits before the revoke",
        )
        admin(http, "POST", f"/operators/{operator_id}/keys/{old_key_id}/revoke", 200)
        revoked_at = time.monotonic()

        def each_old_thread_saw_the_revoke() -> bool:
            late = old(lambda c: c.started > revoked_at)
            return all(sum(c.key == f"old{i}" for c in late) >= AFTER_REVOKE for i in range(OLD_KEY_THREADS))

        record.wait(each_old_thread_saw_the_revoke, "old-key calls after the revoke")
        # The new key keeps working after the revoke too.
        record.wait(lambda: sum(c.key == "new" and c.started > revoked_at for c in record.calls) >= 3, "new")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=TIMEOUT)
    assert not record.errors, record.errors
    calls = list(record.calls)

    # Old key: a success or a 401, never anything else; after the revoke, 401 only.
    olds = [c for c in calls if c.key.startswith("old")]
    assert {c.status for c in olds} <= {200, 401}, sorted({(c.status, str(c.body)) for c in olds})
    late = [c for c in olds if c.started > revoked_at]
    assert late and all(c.status == 401 for c in late), [(c.status, c.body) for c in late if c.status != 401]
    assert all(c.body["error"]["code"] == "unauthorized" for c in olds if c.status == 401)
    assert any(c.status == 401 for c in olds) and any(c.status == 200 for c in olds)
    # New key: 200 throughout.
    news = [c for c in calls if c.key == "new"]
    assert news and all(c.status == 200 for c in news), [(c.status, c.body) for c in news if c.status != 200]
    assert any(c.started < revoked_at for c in news) and any(c.started > revoked_at for c in news)

    # Nothing half done: the balances and the ledger are exactly the credits answered 200.
    new = {"X-Operator-Key": new_key}
    paid = [c for c in calls if c.kind == "credit" and c.status == 200]
    refused = [c for c in calls if c.kind == "credit" and c.status == 401]
    for player in PLAYERS:
        mine = [c for c in paid if c.player == player]
        r = http.get(f"/operator/players/{player}", headers=new)
        assert r.status_code == 200 and r.json()["balance"] == sum(c.amount for c in mine), (player, r.text)
        r = http.get(f"/operator/players/{player}/ledger?limit=1000", headers=new)
        assert r.status_code == 200, r.text
        entries = r.json()["entries"]
        assert sorted((e["reference"], e["amount"]) for e in entries) == sorted(
            (f"op:{c.idem}", c.amount) for c in mine
        ), player
        assert {f"op:{c.idem}" for c in refused if c.player == player}.isdisjoint(
            e["reference"] for e in entries
        )
        for c in mine:  # every 200 carried the balance after its own ledger row
            assert c.body["entry"]["reference"] == f"op:{c.idem}" and c.body["amount"] == c.amount
    # A credit answered 200 to the old key, sent again with the new one: replayed, not paid again.
    again = next(c for c in paid if c.key.startswith("old"))
    before = http.get(f"/operator/players/{again.player}", headers=new).json()["balance"]
    r = http.post(
        f"/operator/players/{again.player}/credit",
        headers={**new, "Idempotency-Key": again.idem},
        json={"amount": again.amount},
    )
    assert r.status_code == 200 and r.headers.get("Idempotency-Replayed") == "true", (r.status_code, r.text)
    assert r.json() == again.body
    assert http.get(f"/operator/players/{again.player}", headers=new).json()["balance"] == before
    # The revoked key stays refused on every route; the new key is B's, not operator 1's.
    for method, path in (("GET", "/operator/profile"), ("GET", f"/operator/players/{PLAYERS[0]}")):
        assert http.request(method, path, headers={"X-Operator-Key": old_key}).status_code == 401
    r = http.post(
        "/operator/players",
        headers={"X-Operator-Key": old_key, "Idempotency-Key": "x"},
        json={"external_id": "z"},
    )
    assert r.status_code == 401, r.text
    r = http.get(f"/operator/players/{PLAYERS[0]}", headers={"X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 404, r.text  # operator 1 has no such player: B's are B's
    http.close()
    proc.kill()

    server = GameServer(Settings(db=db_url, data_dir=tmp_path / "audit", operator_key=OPERATOR_KEY))
    try:
        audit = server.audit()
        assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
        with server.engine.connect() as conn:
            owners = conn.execute(
                text("SELECT DISTINCT operator_id FROM players WHERE external_id IN ('r1', 'r2', 'r3')")
            ).scalars()
            assert list(owners) == [operator_id]
            assert conn.execute(
                text("SELECT revoked_at IS NOT NULL FROM operator_keys WHERE id = :k"), {"k": old_key_id}
            ).scalar_one()
    finally:
        server.engine.dispose()
