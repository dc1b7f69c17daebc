"""Scale-out: two ``reelforge serve`` processes on one database (PostgreSQL, and SQLite in
WAL mode), one player, the same round hit from both at once.

* Concurrent ``POST /rounds`` for the same game from both processes: one round opens, the
  others are refused with 409 round_pending, and the ledger holds one stake.
* Concurrent ``spin`` actions with ``expected_step`` = the current step and distinct
  Idempotency-Keys, half to each process: exactly one succeeds per step, the others get 409;
  the recall shows steps 1..N once each, in order.
* The same Idempotency-Key sent to both processes at once: every reply is the same and the
  step happens once.
* The books balance at the end (the server's audit and the raw tables).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from typing import Any

import httpx
import pytest

from helpers import trigger_script, wheel_draw
from server_process import OP_HEADERS, ServerPool, check_books

GNOMES = "reign-of-gnomes"
METER = "test-meter"
CREDIT = 100_000
PER_PROCESS = 3  # concurrent requests sent to each process per step
REFUSED = {"step_mismatch", "round_not_pending", "action_not_allowed"}
_keys = itertools.count(1)


@pytest.fixture
def pool(tmp_path):
    pool = ServerPool(tmp_path / "servers")
    yield pool
    pool.close()


def concurrently(calls: list[tuple[httpx.Client, str, str, dict, dict | None]]) -> list[tuple[int, Any]]:
    """Send every call from its own thread, released together; (status, json) in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, client: httpx.Client, method: str, path: str, headers: dict, body: Any) -> None:
        try:
            barrier.wait(10)
            r = client.request(method, path, json=body, headers=headers)
            results[i] = (r.status_code, r.json())
        except Exception as exc:  # reported below, in the test's thread
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, *call)) for i, call in enumerate(calls)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not any(th.is_alive() for th in threads), "a request did not return"
    for r in results:
        if isinstance(r, Exception):
            raise r
    return results


def test_two_processes_serve_one_player_and_each_step_happens_once(db_url, tmp_path, pool, gnomes_data):
    a = pool.new(db_url, "a")
    b = pool.new(db_url, "b")
    for proc in (a, b):  # both start (and migrate) at once
        proc.launch()
    for proc in (a, b):
        proc.wait_ready()
    ca, cb = a.client(), b.client()
    try:
        assert ca.post("/operator/players", json={"external_id": "p"}, headers=OP_HEADERS).status_code == 201
        r = cb.post(
            "/operator/players/p/credit",
            json={"amount": CREDIT},
            headers={**OP_HEADERS, "Idempotency-Key": "c"},
        )
        assert r.status_code == 200, r.text
        r = ca.post("/operator/players/p/sessions", json={}, headers={**OP_HEADERS, "Idempotency-Key": "s"})
        token = r.json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        clients = [ca, cb] * PER_PROCESS

        def fresh(**extra: str) -> dict:
            return {**auth, "Idempotency-Key": f"k{next(_keys)}", **extra}

        # -- concurrent starts, distinct keys: one round, one stake ----------------------------
        start = {"game": GNOMES, "stake": 40, "script": trigger_script(gnomes_data)}
        replies = concurrently([(c, "POST", "/rounds", fresh(), start) for c in clients])
        opened = [body for status, body in replies if status == 201]
        assert len(opened) == 1, replies
        assert all(body["error"]["code"] == "round_pending" for status, body in replies if status != 201), (
            replies
        )
        assert all(status in (201, 409) for status, _ in replies), replies
        rnd = opened[0]["round"]
        rid = rnd["id"]
        assert rnd["status"] == "pending" and rnd["actions"][0]["name"] == "spin"
        assert ca.get("/balance", headers=auth).json()["balance"] == CREDIT - 40

        # -- concurrent spins per step: one wins, the rest get 409 --------------------------
        wins = 0
        same_key_steps = 0
        codes: Counter[str] = Counter()
        while rnd["status"] == "pending":
            step = rnd["step"]
            body = {
                "action": "spin",
                "expected_step": step,
                "script": [wheel_draw(gnomes_data, ("x3", "x5", "spin_to_win")[step % 3])],
            }
            path = f"/rounds/{rid}/actions"
            if step % 3 == 2:  # the same key to both processes at once: one step, one reply
                same = fresh()
                replies = concurrently([(c, "POST", path, same, body) for c in clients])
                assert all(r == replies[0] for r in replies), replies
                assert replies[0][0] == 200, replies[0]
                same_key_steps += 1
                rnd = replies[0][1]["round"]
            else:
                replies = concurrently([(c, "POST", path, fresh(), body) for c in clients])
                ok = [body for status, body in replies if status == 200]
                assert len(ok) == 1, replies
                refused = [body["error"]["code"] for status, body in replies if status != 200]
                assert all(status in (200, 409) for status, _ in replies), replies
                assert set(refused) <= REFUSED, refused
                codes.update(refused)
                rnd = ok[0]["round"]
            wins += 1
            assert rnd["step"] == step + 1
            # Either process reads the same round now.
            for c in (ca, cb):
                recall = c.get(f"/rounds/{rid}", headers=auth).json()
                assert recall["round"] == rnd
        assert same_key_steps >= 2 and codes["step_mismatch"] > 0, (same_key_steps, codes)

        recall = ca.get(f"/operator/rounds/{rid}", headers=OP_HEADERS).json()
        assert [s["step"] for s in recall["steps"]] == list(range(1, wins + 2))
        assert recall["steps"][0]["action"]["name"] == "start"
        assert all(s["action"]["name"] == "spin" and s["actor"] == "player" for s in recall["steps"][1:])
        assert recall["status"] == "complete" and recall["win"] == rnd["win"]
        replay = cb.get(f"/operator/rounds/{rid}/replay", headers=OP_HEADERS).json()
        assert replay["matches_record"] is True

        # -- the same start key to both processes at once: identical replies, one round ------
        meter = {"game": METER, "stake": 10, "script": [0, 0, 0]}
        same = fresh()
        replies = concurrently([(c, "POST", "/rounds", same, meter) for c in clients])
        assert all(r == replies[0] for r in replies) and replies[0][0] == 201, replies
        mrnd = replies[0][1]["round"]
        # ... and fresh keys now: refused, the round is still in play.
        replies = concurrently([(c, "POST", "/rounds", fresh(), meter) for c in clients])
        assert all(s == 409 and body["error"]["code"] == "round_pending" for s, body in replies), replies
        # Collect from both at once with distinct keys: once.
        body = {"action": "collect", "expected_step": mrnd["step"]}
        replies = concurrently([(c, "POST", f"/rounds/{mrnd['id']}/actions", fresh(), body) for c in clients])
        ok = [body for status, body in replies if status == 200]
        assert len(ok) == 1 and ok[0]["round"]["status"] == "complete", replies
        assert all(
            status == 409 and body["error"]["code"] in REFUSED for status, body in replies if status != 200
        )

        history = ca.get("/operator/players/p/history", headers=OP_HEADERS).json()["rounds"]
        assert [h["id"] for h in history] == [mrnd["id"], rid]
        ledger = cb.get("/operator/players/p/ledger", headers=OP_HEADERS).json()
        stakes = Counter(e["round_id"] for e in ledger["entries"] if e["kind"] == "stake")
        assert stakes == {rid: 1, mrnd["id"]: 1}
        expected = CREDIT - 40 - 10 + rnd["win"] + ok[0]["round"]["win"]
        assert ledger["balance"] == expected == ca.get("/balance", headers=auth).json()["balance"]
    finally:
        ca.close()
        cb.close()
        pool.close()
    audit = check_books(db_url, tmp_path / "audit", {"p": CREDIT})
    assert audit["rounds"] == 2


def test_two_processes_sweeping_finish_each_round_left_waiting_once(db_url, tmp_path, pool, gnomes_data):
    """Every process runs the sweeper: rounds left waiting are finished once, not twice."""
    proc = pool.new(db_url, "leave")
    proc.start()
    names = [f"p{i}" for i in range(4)]
    left: dict[str, list[int]] = {}
    with proc.client() as c:
        for name in names:
            assert (
                c.post("/operator/players", json={"external_id": name}, headers=OP_HEADERS).status_code == 201
            )
            h = {**OP_HEADERS, "Idempotency-Key": f"c-{name}"}
            assert (
                c.post(f"/operator/players/{name}/credit", json={"amount": CREDIT}, headers=h).status_code
                == 200
            )
            h = {**OP_HEADERS, "Idempotency-Key": f"s-{name}"}
            token = c.post(f"/operator/players/{name}/sessions", json={}, headers=h).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            ids = []
            for body in (
                {"game": GNOMES, "stake": 40, "script": trigger_script(gnomes_data)},  # 10 free spins
                {"game": METER, "stake": 10, "script": [6, 5, 4]},  # at the hold
            ):
                r = c.post("/rounds", json=body, headers={**auth, "Idempotency-Key": f"k{next(_keys)}"})
                assert r.status_code == 201 and r.json()["round"]["status"] == "pending", r.text
                ids.append(r.json()["round"]["id"])
            left[name] = ids
    proc.kill()
    sweep = {"REELFORGE_PENDING_TIMEOUT_SECONDS": "1", "REELFORGE_SWEEP_INTERVAL_SECONDS": "0.05"}
    a = pool.new(db_url, "a", sweep)
    b = pool.new(db_url, "b", sweep)
    for p in (a, b):
        p.launch()
    for p in (a, b):
        p.wait_ready()
    with a.client() as c:
        deadline = time.monotonic() + 30
        for rid in (rid for ids in left.values() for rid in ids):
            while (recall := c.get(f"/operator/rounds/{rid}", headers=OP_HEADERS).json())[
                "status"
            ] == "pending":
                assert time.monotonic() < deadline, "the sweepers did not finish the rounds left waiting"
                time.sleep(0.05)
            assert recall["completed_by"] == "server"
            steps = recall["steps"]
            assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
            assert all(s["actor"] == "server" for s in steps[1:]) and len(steps) > 1
            assert (
                c.get(f"/operator/rounds/{rid}/replay", headers=OP_HEADERS).json()["matches_record"] is True
            )
    pool.close()
    audit = check_books(db_url, tmp_path / "audit", dict.fromkeys(names, CREDIT))
    assert audit["rounds"] == 2 * len(names)
