"""A strict API, on SQLite and PostgreSQL: numbers are JSON integers (never coerced from a
string, a float or a boolean), and every error, routes that do not exist and methods a
route does not take included, is the one ``{"error": {"code", "message"}}`` format.  No
refused request moves money or starts a round."""

from __future__ import annotations

from typing import Any

import pytest

from server_support import OPERATOR_KEY, Api


def assert_error(body: Any, code: str) -> None:
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]


@pytest.mark.parametrize("stake", ["40", 40.0, True, 4e1, [40], None])
def test_a_stake_must_be_a_json_integer(api: Api, server: Any, stake: Any) -> None:
    token = api.new_player(f"strict-stake-{type(stake).__name__}", 1_000)
    body = api.call(
        "POST", "/rounds", token=token, json={"game": "reign-of-gnomes", "stake": stake}, expect=422
    )
    assert_error(body, "invalid_request")
    assert "stake" in body["error"]["message"]
    assert api.balance(token) == 1_000
    assert api.call("GET", "/history", token=token, expect=200)["rounds"] == []
    assert api.call("POST", "/rounds", token=token, json={"game": "reign-of-gnomes", "stake": 40}, expect=201)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/players/strict-op/credit", {"amount": "100"}),
        ("/players/strict-op/credit", {"amount": 100.0}),
        ("/players/strict-op/debit", {"amount": True}),
        ("/players/strict-op/sessions", {"spend_limit": "500"}),
        ("/players/strict-op/sessions", {"time_limit_seconds": 60.0}),
    ],
)
def test_operator_amounts_and_limits_must_be_json_integers(api: Api, path: str, body: dict) -> None:
    api.new_player("strict-op", 1_000)
    assert_error(api.operator("POST", path, json=body, expect=422), "invalid_request")
    assert api.operator("GET", "/players/strict-op", expect=200)["balance"] == 1_000


def test_an_action_choice_must_be_a_json_integer(api: Api, gnomes_data: Any) -> None:
    from helpers import trigger_script

    token = api.new_player("strict-act", 1_000)
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    assert rnd["status"] == "pending"
    spec = rnd["actions"][0]
    body = {"action": spec["name"], "choice": "0", "expected_step": rnd["step"]}
    path = f"/rounds/{rnd['id']}/actions"
    assert_error(api.call("POST", path, token=token, json=body, expect=422), "invalid_request")
    body = {"action": spec["name"], "expected_step": float(rnd["step"])}
    assert_error(api.call("POST", path, token=token, json=body, expect=422), "invalid_request")
    after = api.call("GET", "/rounds/pending", token=token, expect=200)
    assert [r["step"] for r in after["rounds"]] == [rnd["step"]]  # nothing moved


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "DELETE"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/operator/nope", "/api/v2/rounds", "/api/"])
def test_a_route_that_does_not_exist_is_a_json_404(api: Api, method: str, path: str) -> None:
    r = api.client.request(method, path, headers={"Idempotency-Key": "k", "X-Operator-Key": OPERATOR_KEY})
    assert r.status_code == 404, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    assert_error(r.json(), "not_found")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("DELETE", "/api/v1/balance", "GET"),
        ("PUT", "/api/v1/rounds", "POST"),
        ("GET", "/api/v1/rounds/7/actions", "POST"),
        ("POST", "/api/v1/operator/players/x", "GET"),
        ("PATCH", "/api/v1/session", "GET"),
    ],
)
def test_a_method_a_route_does_not_take_is_a_json_405(api: Api, method: str, path: str, allow: str) -> None:
    r = api.client.request(method, path)
    assert r.status_code == 405, (r.status_code, r.text)
    assert r.headers["allow"] == allow
    assert_error(r.json(), "method_not_allowed")


def test_malformed_requests_get_the_error_format(api: Api) -> None:
    token = api.new_player("strict-bad", 1_000)
    auth = {
        "Authorization": f"Bearer {token}",
        "Idempotency-Key": "bad-1",
        "Content-Type": "application/json",
    }
    cases = [
        ({**auth}, b"{not json", 422, "invalid_request"),
        ({**auth}, b"[]", 422, "invalid_request"),
        (
            {**auth, "Idempotency-Key": "x" * 129},
            b'{"game":"reign-of-gnomes","stake":40}',
            400,
            "idempotency_key_invalid",
        ),
        ({**auth, "Authorization": "Bearer"}, b'{"game":"reign-of-gnomes","stake":40}', 401, "unauthorized"),
        (
            {**auth, "Authorization": "Token abc"},
            b'{"game":"reign-of-gnomes","stake":40}',
            401,
            "unauthorized",
        ),
        ({**auth, "Content-Length": "abc"}, b'{"game":"reign-of-gnomes","stake":40}', 413, "body_too_large"),
    ]
    for headers, content, status, code in cases:
        r = api.client.post("/api/v1/rounds", content=content, headers=headers)
        assert r.status_code == status, (headers, r.status_code, r.text)
        assert_error(r.json(), code)
    bad_operator = api.client.get("/api/v1/operator/players/strict-bad", headers={"X-Operator-Key": "wrong"})
    assert bad_operator.status_code == 401
    assert_error(bad_operator.json(), bad_operator.json()["error"]["code"])
    assert api.balance(token) == 1_000
    assert api.call("GET", "/history", token=token, expect=200)["rounds"] == []
