"""What an operator's monitoring reads: ``/metrics`` counts what was played, by game, mode and
outcome, the requests by route and status with their latency, the wallet's calls and the
outbox; every reply carries a request id, which the JSON log lines and the webhooks carry.

Counters are the process's (shared by every app a test process builds), so each check reads
them before and after and compares the difference with what the test did, round by round.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from reelforge.server.core.request_id import REQUEST_ID
from reelforge.server.http.observability import JsonLogs
from server_support import OPERATOR_KEY, Api, client_for, make_server


def scrape(api: Api) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = api.client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain"), r.text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def delta(before: dict, after: dict, name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_metrics_count_the_rounds_requests_wallet_calls_and_outbox(tmp_path: Any) -> None:
    server = make_server(
        f"sqlite:///{tmp_path / 'm.db'}",
        tmp_path,
        webhook_url="http://127.0.0.1:9/hooks",  # nothing listens: the events wait in the outbox
        webhook_secret="s" * 32,
    )
    api = Api(client_for(server))
    token = api.new_player("metered", balance=10_000)
    before = scrape(api)
    outcomes: Counter[str] = Counter()
    staked = won = 0
    acts = 0
    for _ in range(12):
        rnd = api.start(token, stake=40)["round"]
        while rnd["status"] == "pending":  # api.finish, counting the action requests
            spec = rnd["actions"][0]
            rnd = api.act(token, rnd["id"], spec["name"], spec.get("default"))["round"]
            acts += 1
        outcomes["completed_win" if rnd["win"] else "completed_no_win"] += 1
        staked += 40
        won += rnd["win"]
    api.start(token, stake=41, expect=400)  # a bet not offered: refused, nothing counted as played
    after = scrape(api)

    game = ("reign-of-gnomes", "base")
    assert delta(before, after, "reelforge_rounds_total", game=game[0], mode=game[1], outcome="started") == 12
    for outcome in ("completed_win", "completed_no_win"):
        got = delta(before, after, "reelforge_rounds_total", game=game[0], mode=game[1], outcome=outcome)
        assert got == outcomes[outcome], (outcome, got, outcomes)
    assert delta(before, after, "reelforge_staked_minor_units_total", game=game[0], currency="GBP") == staked
    assert delta(before, after, "reelforge_won_minor_units_total", game=game[0], currency="GBP") == won
    # The internal ledger: a debit per round, a credit per win.
    assert delta(before, after, "reelforge_wallet_calls_total", wallet="internal", operation="debit",
                 result="ok") == 12  # fmt: skip
    assert delta(before, after, "reelforge_wallet_calls_total", wallet="internal", operation="credit",
                 result="ok") == outcomes["completed_win"]  # fmt: skip
    # Requests by route template and status, and their latency histogram.
    starts = {"method": "POST", "route": "/api/v1/rounds"}
    assert delta(before, after, "reelforge_http_requests_total", status="201", **starts) == 12
    assert delta(before, after, "reelforge_http_requests_total", status="400", **starts) == 1
    assert delta(before, after, "reelforge_http_request_duration_seconds_count", **starts) == 13
    actions = {"method": "POST", "route": "/api/v1/rounds/{round_id}/actions"}
    assert delta(before, after, "reelforge_http_requests_total", status="200", **actions) == acts
    assert delta(before, after, "reelforge_http_request_duration_seconds_bucket", le="+Inf", **starts) == 13
    # Every completed round's webhook waits in the outbox (nothing listens): its depth and age.
    depth = after[("reelforge_outbox_messages", (("status", "pending"),))]
    assert depth == 12 and after[("reelforge_outbox_oldest_age_seconds", (("status", "pending"),))] >= 0
    assert after[("reelforge_db_pool_connections", (("state", "size"),))] >= 1
    server.engine.dispose()


def test_a_request_id_is_echoed_or_made_and_carried_by_webhooks(tmp_path: Any) -> None:
    hooks = {"webhook_url": "http://127.0.0.1:9/h", "webhook_secret": "s" * 32}
    server = make_server(f"sqlite:///{tmp_path / 'r.db'}", tmp_path, **hooks)
    api = Api(client_for(server))
    token = api.new_player("traced")
    mine = api.client.get("/api/v1/health", headers={"X-Request-Id": "lb-7f3a.1"})
    assert mine.headers["x-request-id"] == "lb-7f3a.1"
    made = api.client.get("/api/v1/health", headers={"X-Request-Id": "bad id with spaces"})
    assert made.headers["x-request-id"] != "bad id with spaces" and len(made.headers["x-request-id"]) == 32
    r = api.client.post(
        "/api/v1/rounds",
        json={"game": "reign-of-gnomes", "stake": 40, "script": [0, 0, 0, 0, 0]},
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k1", "X-Request-Id": "spin-1"},
    )
    assert r.status_code == 201 and r.headers["x-request-id"] == "spin-1", r.text
    rnd = api.finish(token, r.json())["round"]
    with server.engine.connect() as conn:
        from sqlalchemy import text

        # each outbox row: the event and its operator (the event is what is sent)
        payloads = [json.loads(p)["event"] for (p,) in conn.execute(text("SELECT payload FROM outbox"))]
    (event,) = [p for p in payloads if p["data"]["round_id"] == rnd["id"]]
    # The request that completed the round: the start, or the last action's (ids made anew).
    over_at_start = r.json()["round"]["status"] == "complete"
    assert event["request_id"] == ("spin-1" if over_at_start else api.last.headers["x-request-id"])
    # History carries it too: each step the id of the request that made it.
    played = api.client.post(
        "/api/v1/rounds",
        json={"game": "reign-of-gnomes", "stake": 40},
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": "k2", "X-Request-Id": "spin-2"},
    ).json()
    ids = ["spin-2"]
    rnd = played["round"]
    while rnd["status"] == "pending":
        spec = rnd["actions"][0]
        rnd = api.act(token, rnd["id"], spec["name"], spec.get("default"))["round"]
        ids.append(api.last.headers["x-request-id"])
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    assert [s["request_id"] for s in recall["steps"]] == ids
    operator_view = api.operator("GET", f"/rounds/{rnd['id']}", expect=200)
    assert [s["request_id"] for s in operator_view["steps"]] == ids
    server.engine.dispose()


def test_log_lines_are_json_with_the_request_id() -> None:
    record = logging.LogRecord("reelforge.server", logging.WARNING, __file__, 1, "wallet %s", ("slow",), None)
    token = REQUEST_ID.set("req-42")
    try:
        line = json.loads(JsonLogs().format(record))
    finally:
        REQUEST_ID.reset(token)
    assert line["message"] == "wallet slow" and line["level"] == "warning" and line["request_id"] == "req-42"
    assert line["logger"] == "reelforge.server" and line["time"].endswith("Z")
    assert "request_id" not in json.loads(JsonLogs().format(record))  # outside a request: none


def test_metrics_can_be_switched_off(tmp_path: Any) -> None:
    server = make_server(f"sqlite:///{tmp_path / 'o.db'}", tmp_path, metrics=False)
    client = client_for(server)
    assert client.get("/metrics", headers={"X-Operator-Key": OPERATOR_KEY}).status_code == 404
    server.engine.dispose()
