"""The outermost guards (reelforge.server.http.guards) and the body limit: the request rate limit
per session, operator and client address (429 with Retry-After, in the error format and as
the OpenAPI document says); the body limit on every route, with a declared length or a
chunked body without one; the security headers on every reply, and the client's policy
allowing no inline script but the import map it names by hash."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from openapi_contract import Contract
from reelforge.server.http.api import create_app
from reelforge.server.http.guards import TokenBuckets
from server_support import OPERATOR_KEY, Api, make_server

# A token every 100 s: no refill can come between the calls of a test, however slow the machine.
RATE, BURST = 0.01, 3


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_token_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(RATE, BURST, clock)
    assert [buckets.take(b"a") for _ in range(BURST)] == [0.0] * BURST
    assert buckets.take(b"a") == pytest.approx(1 / RATE)  # empty: one token is 1/rate away
    assert buckets.take(b"b") == 0.0  # another caller has its own bucket
    clock.now += 1 / RATE
    assert buckets.take(b"a") == 0.0 and buckets.take(b"a") > 0
    clock.now += 3600  # refilled to the burst, never past it
    assert [buckets.take(b"a") for _ in range(BURST)] == [0.0] * BURST
    assert buckets.take(b"a") > 0


@pytest.fixture
def limited(tmp_path: Any) -> Iterator[tuple[Api, Contract]]:
    server = make_server(
        f"sqlite:///{tmp_path / 'rl.db'}", tmp_path, rate_limit_per_second=RATE, rate_limit_burst=BURST
    )
    contract = Contract(create_app(server))
    yield Api(contract.client()), contract
    server.engine.dispose()


def test_the_rate_limit_answers_429_per_session_and_the_document_says_so(
    limited: tuple[Api, Contract],
) -> None:
    api, contract = limited
    one, two = api.new_player("rl-1"), api.new_player("rl-2")  # the operator is exempt
    for _ in range(BURST):
        api.call("GET", "/balance", token=one, expect=200)
    refused = api.call("GET", "/balance", token=one, expect=429)
    assert refused["error"]["code"] == "rate_limited"
    assert int(api.last.headers["retry-after"]) >= 1
    assert api.last.headers["content-type"] == "application/json"
    api.call("POST", "/rounds", token=one, json={"game": "reign-of-gnomes", "stake": 40}, expect=429)
    api.call("GET", "/balance", token=two, expect=200)  # another session is not held back
    for _ in range(20):  # the operator's calls are exempt by default
        api.operator("GET", "/players/rl-1", expect=200)
    # Without valid credentials a caller is limited by its address: a wrong key is no way out.
    statuses = [api.operator("GET", "/profile", headers={"X-Operator-Key": "nope"}) for _ in range(BURST + 1)]
    assert api.last.status_code == 429, statuses
    assert api.client.get("/api/v1/health").status_code == 200  # never limited
    assert not contract.problems, contract.problems
    assert ("GET", "/api/v1/balance", 429) in contract.seen


def test_the_operator_can_be_limited_separately(tmp_path: Any) -> None:
    server = make_server(
        f"sqlite:///{tmp_path / 'op.db'}",
        tmp_path,
        operator_rate_limit_per_second=0.01,  # no refill between the calls
        operator_rate_limit_burst=2,
    )
    client = TestClient(create_app(server))
    op = {"X-Operator-Key": OPERATOR_KEY}
    statuses = [client.get("/api/v1/operator/profile", headers=op).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    server.engine.dispose()


@pytest.fixture(scope="module")
def app_and_doc(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestClient, dict[str, Any], int]:
    tmp = tmp_path_factory.mktemp("guards")
    server = make_server(f"sqlite:///{tmp / 'g.db'}", tmp)
    app = create_app(server)
    return TestClient(app), app.openapi(), server.settings.max_body_bytes


def test_every_route_refuses_a_body_over_the_limit_declared_or_chunked(
    app_and_doc: tuple[TestClient, dict[str, Any], int],
) -> None:
    client, doc, limit = app_and_doc
    big = b'{"pad": "' + b"x" * limit + b'"}'
    headers = {"X-Operator-Key": OPERATOR_KEY, "Content-Type": "application/json", "Idempotency-Key": "big"}
    checked = 0
    for template, operations in doc["paths"].items():
        url = re.sub(r"\{[^}]+\}", "1", template)
        for method, op in operations.items():
            r = client.request(method.upper(), url, content=big, headers=headers)
            assert r.status_code == 413, (method, url, r.status_code)
            assert r.json()["error"]["code"] == "body_too_large"
            if "requestBody" in op:  # a route that reads its body: chunked, no Content-Length
                chunks = (big[i : i + 1000] for i in range(0, len(big), 1000))
                r = client.request(method.upper(), url, content=chunks, headers=headers)
                assert "content-length" not in r.request.headers
                assert r.status_code == 413, (method, url, r.status_code, r.text)
                assert r.json()["error"]["code"] == "body_too_large"
            checked += 1
    assert checked >= 40
    assert client.post("/", content=big).status_code == 413  # the client's files too


def test_every_reply_carries_the_security_headers(
    app_and_doc: tuple[TestClient, dict[str, Any], int],
) -> None:
    client, _, _ = app_and_doc
    replies = {
        "api": client.get("/api/v1/health"),
        "refused": client.get("/api/v1/balance"),
        "no route": client.get("/api/v1/nowhere"),
        "index": client.get("/"),
        "module": client.get("/js/app.js"),
        "stylesheet": client.get("/css/app.css"),
        "missing file": client.get("/nowhere.js"),
    }
    for name, r in replies.items():
        assert r.headers["x-content-type-options"] == "nosniff", name
        assert r.headers["x-frame-options"] == "DENY", name
        assert r.headers["referrer-policy"] == "no-referrer", name
    for name in ("api", "refused", "no route"):
        assert (
            replies[name].headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'"
        )
    page = replies["index"]
    policy = dict([*d.split(" ", 1), ""][:2] for d in page.headers["content-security-policy"].split("; "))
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    assert policy["default-src"] == policy["style-src"] == "'self'"
    assert "unsafe" not in page.headers["content-security-policy"]
    # The one inline script is the import map, allowed by its hash; no handler attributes.
    inline = re.findall(r"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", page.text, re.S)
    assert len(inline) == 1 and '"imports"' in inline[0]
    digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
    assert policy["script-src"] == f"'self' 'sha256-{digest}'"
    assert not re.search(r"\son[a-z]+\s*=", page.text, re.I)
    assert not re.search(r"\sstyle\s*=", page.text, re.I)
