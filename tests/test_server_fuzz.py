"""No request produces a 500: every route of the OpenAPI, with malformed path values,
bodies and headers, with and without credentials."""

from __future__ import annotations

import itertools
import random

import pytest

from server_support import OPERATOR_KEY, Api, client_for, make_server

WEIRD_PATH_VALUES = ["0", "-1", "abc", "99999999999999999999999", "%00", "1.5", "alice"]
WEIRD_BODIES = [
    None,
    b"",
    b"null",
    b"[]",
    b'"text"',
    b"{}",
    b'{"game": null, "stake": 1e309}',
    b'{"game": "reign-of-gnomes", "stake": 99999999999999999999999999}',
    b'{"action": "spin", "choice": 99999999999999999999}',
    b'{"amount": -5, "external_id": "\\u0000"}',
    b'{"profile": "es", "variant": "x", "reason": ""}',
    b"[" * 2000 + b"]" * 2000,
    b"\xff\xfe\x00garbage",
    b'{"spins": 5, "loss_limit": 400, "stake": 40, "game": "reign-of-gnomes", "extra": {"a": [1, 2]}}',
]


@pytest.fixture(scope="module")
def fuzz_api(tmp_path_factory) -> Api:
    tmp = tmp_path_factory.mktemp("fuzz")
    server = make_server(f"sqlite:///{tmp / 'fuzz.db'}", tmp)
    api = Api(client_for(server))
    assert api.client.app.state.readiness.bring_up()  # /health/ready: 200, not the 503 of a cold app
    return api


def test_no_route_answers_500_to_malformed_input(fuzz_api: Api) -> None:
    api = fuzz_api
    token = api.new_player("fuzzer")
    spec = api.client.get("/openapi.json").json()
    auths = [
        {},
        {"Authorization": f"Bearer {token}", "X-Operator-Key": OPERATOR_KEY},
        {"Authorization": b"Bearer \xc3\xa9\xff", "X-Operator-Key": b"n\xffpe"},
    ]
    sent = 0
    rng = random.Random(20261130)
    for path, methods in spec["paths"].items():
        for method in methods:
            combos = list(itertools.product(WEIRD_PATH_VALUES, WEIRD_BODIES, auths))
            for value, body, auth in rng.sample(combos, 40):
                url = (
                    path.replace("{round_id}", value)
                    .replace("{external_id}", value)
                    .replace("{game_id}", value)
                )
                headers = {"Content-Type": "application/json", "Idempotency-Key": f"fz-{sent}", **auth}
                r = api.client.request(
                    method.upper(), url + "?limit=abc&before=-3&game=%00", content=body, headers=headers
                )
                sent += 1
                assert r.status_code < 500, (method, url, body, r.status_code, r.text)
                if r.status_code >= 400:
                    assert "error" in r.json() or "detail" in r.json()
    assert sent > 800
