"""Jurisdiction profiles and server-enforced autoplay, through the HTTP API."""

from __future__ import annotations

import pytest

from helpers import trigger_script, wheel_draw
from reelforge.rng import ScriptedRandom, SeededRandom
from reelforge.server.play.profiles import is_bonus_buy
from reelforge.server.storage import schema as t
from server_support import Api, client_for, make_server


def test_gb_forbids_autoplay_and_spaces_game_cycles_by_2_5_seconds(api, server) -> None:
    api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)
    token = api.new_player("gb1")
    err = api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 5, "loss_limit": 400},
        expect=403,
    )
    assert err["error"]["code"] == "autoplay_forbidden"
    api.finish(token, api.start(token))
    err = api.start(token, expect=429)
    assert err["error"]["code"] == "too_soon" and int(api.last.headers["Retry-After"]) >= 1
    with server.engine.begin() as conn:  # 3 s later
        conn.execute(t.players.update().values(last_round_at=t.players.c.last_round_at - 3))
    api.finish(token, api.start(token))
    info = api.call("GET", "/session", token=token, expect=200)
    assert info["profile"] == "gb"  # the clock and net position: every profile (test_server_protection.py)
    assert info["net_position"] == info["won"] - info["staked"] and info["staked"] == 80
    assert info["elapsed_seconds"] >= 0
    games = api.call("GET", "/games", token=token)["games"]
    assert all(not any(is_bonus_buy(m) for m in g["modes"]) for g in games)


def test_bonus_buy_modes_are_recognised() -> None:
    assert is_bonus_buy("buy") and is_bonus_buy("buy-super") and not is_bonus_buy("base")


def test_es_needs_fixed_limits_and_closes_the_session_at_the_spend_limit(api, server) -> None:
    api.operator("PUT", "/profile", json={"profile": "es"}, expect=200)
    api.operator("POST", "/players", json={"external_id": "es1"}, idem=None, expect=201)
    api.operator("POST", "/players/es1/credit", json={"amount": 100_000}, expect=200)
    err = api.operator("POST", "/players/es1/sessions", json={}, expect=400)
    assert err["error"]["code"] == "session_limits_required"
    token = api.operator(
        "POST", "/players/es1/sessions", json={"time_limit_seconds": 3600, "spend_limit": 200}, expect=201
    )["token"]
    closed = None
    for _ in range(3000):
        reply = api.start(token, game="test-meter", stake=10, expect=(201, 403))
        if api.last.status_code == 403:
            closed = reply
            break
        reply = api.finish(token, reply)
        if reply.get("session_closed"):
            closed = reply
            break
    assert closed is not None
    info = server.run(lambda conn: conn.execute(t.sessions.select()).first())
    # Closed once not even the smallest stake (10p, the test game's) fits under the limit.
    assert info.closed_at is not None and info.staked - info.won + 10 > 200
    err = api.call("GET", "/balance", token=token, expect=403)
    assert err["error"]["code"] == "session_closed"


def test_es_closes_the_session_when_the_time_limit_is_reached(api, server) -> None:
    api.operator("PUT", "/profile", json={"profile": "es"}, expect=200)
    api.operator("POST", "/players", json={"external_id": "es2"}, idem=None, expect=201)
    api.operator("POST", "/players/es2/credit", json={"amount": 10_000}, expect=200)
    token = api.operator(
        "POST", "/players/es2/sessions", json={"time_limit_seconds": 60, "spend_limit": 5000}, expect=201
    )["token"]
    api.finish(token, api.start(token))
    with server.engine.begin() as conn:  # an hour later
        conn.execute(t.sessions.update().values(created_at=t.sessions.c.created_at - 3600))
    err = api.start(token, expect=403)
    assert err["error"]["code"] == "session_closed" and "time limit" in err["error"]["message"]
    row = server.run(lambda conn: conn.execute(t.sessions.select()).first())
    assert row.close_reason == "time limit reached"
    err = api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 5, "loss_limit": 400},
        expect=403,
    )


def test_es_caps_autoplay_at_100_spins(api) -> None:
    api.operator("PUT", "/profile", json={"profile": "es"}, expect=200)
    api.operator("POST", "/players", json={"external_id": "es3"}, idem=None, expect=201)
    api.operator("POST", "/players/es3/credit", json={"amount": 10_000}, expect=200)
    token = api.operator(
        "POST", "/players/es3/sessions", json={"time_limit_seconds": 600, "spend_limit": 5000}, expect=201
    )["token"]
    body = {"game": "reign-of-gnomes", "stake": 40, "spins": 101, "loss_limit": 4000}
    err = api.call("POST", "/autoplay", token=token, json=body, expect=400)
    assert "100" in err["error"]["message"]
    api.call("POST", "/autoplay", token=token, json={**body, "spins": 100}, expect=201)


@pytest.mark.parametrize("seed", [5])
def test_autoplay_runs_on_the_server_until_a_limit(db_url, tmp_path, seed) -> None:
    server = make_server(db_url, tmp_path, seed=seed)  # a seed whose run hits no pick
    api = Api(client_for(server))
    token = api.new_player("ap1", 100_000)
    api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 200, "loss_limit": 400},
        expect=201,
    )
    # A manual start refused (a stake not offered) changes nothing, the autoplay included;
    # one accepted would stop it (pressing PLAY: test_pinguinos_server.py).
    api.start(token, stake=41, expect=400)
    assert api.call("GET", "/autoplay", token=token)["autoplay"]["running"] is True
    rounds = 0
    while True:
        reply = api.call("POST", "/autoplay/next", token=token, expect=200)
        if reply["round"] is not None:
            rounds += 1
            assert reply["round"]["status"] in ("complete", "pending")
        if not reply["autoplay"]["running"]:
            break
    ap = reply["autoplay"]
    assert ap["stop_reason"] == "loss_limit" and ap["staked"] - ap["won"] + 40 > 400
    assert ap["spins_left"] == 200 - rounds
    api.call("POST", "/autoplay/next", token=token, expect=409)
    assert api.balance(token) == 100_000 - (ap["staked"] - ap["won"])
    assert server.audit()["balances_match_ledger"]
    server.engine.dispose()


def test_autoplay_stops_where_the_player_must_pick_and_can_be_cancelled(
    db_url, tmp_path, gnomes_data
) -> None:
    script = [*trigger_script(gnomes_data), wheel_draw(gnomes_data, "ice_diamonds")]
    shared = ScriptedRandom(script, SeededRandom(9))
    srv = make_server(db_url, tmp_path)
    srv.rng_factory = lambda: shared
    api = Api(client_for(srv))
    token = api.new_player("ap2")
    api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 10, "loss_limit": 4000},
        expect=201,
    )
    reply = api.call("POST", "/autoplay/next", token=token, expect=200)
    assert reply["autoplay"]["stop_reason"] == "player_action" and not reply["autoplay"]["running"]
    rnd = reply["round"]
    assert rnd["status"] == "pending" and rnd["actions"][0]["name"] == "pick"
    assert rnd["state"]["free_spins_played"] == 1
    api.act(token, rnd["id"], "pick", 0)
    api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 10, "loss_limit": 4000},
        expect=409,
    )  # round still in play
    pending = api.call("GET", "/rounds/pending", token=token)["rounds"][0]
    api.finish(token, {"round": pending})
    api.call(
        "POST",
        "/autoplay",
        token=token,
        json={"game": "reign-of-gnomes", "stake": 40, "spins": 10, "loss_limit": 4000},
        expect=201,
    )
    stopped = api.call("POST", "/autoplay/stop", token=token, expect=200)
    assert stopped["autoplay"]["stop_reason"] == "cancelled"
    assert api.call("GET", "/autoplay", token=token)["autoplay"]["running"] is False
    srv.engine.dispose()


def test_autoplay_refuses_bad_limits(api) -> None:
    token = api.new_player("ap3")
    base = {"game": "reign-of-gnomes", "stake": 40, "spins": 10, "loss_limit": 400}
    for change, status in (
        ({"loss_limit": 0}, 422),
        ({"stake": 41}, 400),
        ({"loss_limit": 20}, 400),
        ({"spins": 0}, 422),
        ({"game": "nope"}, 404),
    ):
        api.call("POST", "/autoplay", token=token, json={**base, **change}, expect=status)
    body = dict(base)
    del body["loss_limit"]
    api.call("POST", "/autoplay", token=token, json=body, expect=422)
