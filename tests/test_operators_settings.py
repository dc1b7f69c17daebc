"""An operator's own settings in force: its rate limits (its API calls and its players'
sessions), its session and autoplay settings, its games; and a change made through one process
in force at the next request of another process that cached the old settings."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from operators_support import ADMIN, operator_api
from reelforge.server.http.api import create_app
from server_support import OPERATOR_KEY, Api, make_server

GNOMES = "reign-of-gnomes"


def new_operator(client: TestClient, name: str, settings: dict[str, Any]) -> tuple[int, str]:
    r = client.post("/api/v1/admin/operators", headers=ADMIN, json={"name": name, "settings": settings})
    assert r.status_code == 201, r.text
    return r.json()["operator"]["id"], r.json()["key"]


def test_each_operator_is_limited_by_its_own_rates(tmp_path: Any) -> None:
    """B's API calls and B's players' requests are limited at B's rates; A's, at the server's
    (here: none), from the same process at the same time."""
    server = make_server(f"sqlite:///{tmp_path / 'r.db'}", tmp_path, admin_key="adm")
    client = TestClient(create_app(server))
    _, key_b = new_operator(
        client,
        "limited",
        {
            "operator_rate_limit_per_second": 0.01,  # no refill between the calls
            "operator_rate_limit_burst": 3,
            "rate_limit_per_second": 0.01,
            "rate_limit_burst": 4,
        },
    )
    b, a = operator_api(client, key_b), Api(client)
    # The limiter learns a key's operator at its first authenticated call (which the server's
    # limits govern); from then on B's: create, credit and open are its burst of three.
    b.operator("GET", "/profile", expect=200)
    token_b = b.new_player("b1")
    assert b.operator("GET", "/players/b1", expect=429)["error"]["code"] == "rate_limited"
    for _ in range(10):  # A is not limited: the server's default exempts operator calls
        a.operator("GET", "/profile", expect=200)
    statuses = [b.call("GET", "/balance", token=token_b).get("error", {}).get("code") for _ in range(6)]
    # The token's first request is the server's to limit (none here), then B's burst of 4.
    assert statuses == [None] * 5 + ["rate_limited"], statuses
    token_a = a.new_player("a1")
    for _ in range(10):
        a.call("GET", "/balance", token=token_a, expect=200)  # the server's: no limit in tests
    server.engine.dispose()


def test_sessions_autoplay_and_games_follow_the_operators_settings(tmp_path: Any) -> None:
    server = make_server(f"sqlite:///{tmp_path / 's.db'}", tmp_path, admin_key="adm")
    client = TestClient(create_app(server))
    settings = {"max_sessions_per_player": 2, "token_ttl_seconds": 600, "autoplay": False, "games": [GNOMES]}
    _, key_b = new_operator(client, "b", settings)
    b = operator_api(client, key_b)
    first = b.new_player("p")
    second = b.operator("POST", "/players/p/sessions", json={}, expect=201)
    assert second["replaced"] == []  # two sessions allowed: the first stays open
    b.call("GET", "/balance", token=first, expect=200)
    opened = b.call("GET", "/session", token=second["token"], expect=200)
    from datetime import datetime

    life = datetime.fromisoformat(opened["expires_at"]) - datetime.fromisoformat(opened["opened_at"])
    assert abs(life.total_seconds() - 600) < 2
    body = {"game": GNOMES, "stake": 40, "spins": 3, "loss_limit": 1_000}
    err = b.call("POST", "/autoplay", token=first, json=body, expect=403)
    assert err["error"]["code"] == "autoplay_forbidden"
    listed = b.call("GET", "/games", token=first, expect=200)["games"]
    assert [g["id"] for g in listed] == [GNOMES]
    missing = b.call("POST", "/rounds", token=first, json={"game": "golden-scarab", "stake": 20}, expect=404)
    unknown = b.call("POST", "/rounds", token=first, json={"game": "no-such-game", "stake": 20}, expect=404)
    assert missing["error"]["message"].replace("golden-scarab", "X") == unknown["error"]["message"].replace(
        "no-such-game", "X"
    )
    # A, on the server's defaults, keeps one session per player, autoplay and every game.
    a = Api(client)
    token_a = a.new_player("p")
    assert len(a.call("GET", "/games", token=token_a, expect=200)["games"]) > 1
    a.call("POST", "/autoplay", token=token_a, json=body, expect=201)
    assert a.operator("POST", "/players/p/sessions", json={}, expect=201)["replaced"] != []
    server.engine.dispose()


def test_a_change_made_by_one_process_is_in_force_at_the_next_request_of_another(tmp_path: Any) -> None:
    """Two servers on one database (two processes' worth of caches): the second has B's
    settings cached; the first changes them; the second's next request uses the new ones."""
    url = f"sqlite:///{tmp_path / 'c.db'}"
    one = make_server(url, tmp_path, admin_key="adm")
    two = make_server(url, tmp_path, admin_key="adm")
    c1, c2 = TestClient(create_app(one)), TestClient(create_app(two))
    _, key_b = new_operator(c1, "b", {})
    b2 = operator_api(c2, key_b)
    token = b2.new_player("p")
    body = {"game": GNOMES, "stake": 40, "spins": 2, "loss_limit": 1_000}
    b2.call("POST", "/autoplay", token=token, json=body, expect=201)  # cached: autoplay on
    b2.call("POST", "/autoplay/stop", token=token, expect=200)
    r = c1.patch("/api/v1/admin/operators/2", headers=ADMIN, json={"settings": {"autoplay": False}})
    assert r.status_code == 200, r.text
    err = b2.call("POST", "/autoplay", token=token, json=body, expect=403)  # the other process
    assert err["error"]["code"] == "autoplay_forbidden"
    # Suspended through the first: the second refuses the key at once.
    assert c1.post("/api/v1/admin/operators/2/suspend", headers=ADMIN).status_code == 200
    assert b2.operator("GET", "/profile", expect=403)["error"]["code"] == "operator_suspended"
    assert Api(c2).operator("GET", "/profile", headers={"X-Operator-Key": OPERATOR_KEY}, expect=200)
    one.engine.dispose()
    two.engine.dispose()
