"""Bets switched off by the operator, per game, on SQLite and on the real PostgreSQL: read and
set through the operator API, persisted, applied at once to GET /games, to starting a round
(buys included) and to autoplay; bad input changes nothing; a round in play finishes."""

from __future__ import annotations

from typing import Any

from reelforge.server.storage import schema as t
from server_support import Api, client_for, make_server

GNOMES = "reign-of-gnomes"
GNOMES_STAKES = [40 * c for c in range(1, 13)]


def bets(api: Api, game: str = GNOMES, **kw: Any) -> Any:
    return api.operator("GET", f"/games/{game}/bets", expect=kw.pop("expect", 200), **kw)


def put_bets(api: Api, disabled: list[Any], game: str = GNOMES, **kw: Any) -> Any:
    expect = kw.pop("expect", 200)
    return api.operator("PUT", f"/games/{game}/bets", json={"disabled": disabled}, expect=expect, **kw)


def game_info(api: Api, token: str, game: str = GNOMES) -> dict:
    games = api.call("GET", "/games", token=token, expect=200)["games"]
    return next(g for g in games if g["id"] == game)


def everything(server) -> dict:
    """The database's money, rounds, autoplays and settings: what a refusal must not change."""
    with server.engine.connect() as conn:
        return {
            "players": sorted(tuple(r) for r in conn.execute(t.players.select())),
            "ledger": len(list(conn.execute(t.ledger.select()))),
            "rounds": sorted((r.id, r.status, r.step) for r in conn.execute(t.rounds.select())),
            "autoplays": sorted((r.id, r.status, r.state) for r in conn.execute(t.autoplays.select())),
            "settings": sorted(tuple(r) for r in conn.execute(t.settings_table.select())),
        }


def test_the_operator_switches_bets_off_and_on_and_it_applies_at_once(api, server, db_url, tmp_path) -> None:
    token = api.new_player("bets1", 10_000)
    view = bets(api)
    assert view == {
        "game": GNOMES,
        "variant": view["variant"],
        "stakes": GNOMES_STAKES,
        "enabled": GNOMES_STAKES,
        "disabled": [],
    }
    assert game_info(api, token)["bets_disabled"] == []
    view = put_bets(api, [80, 40, 80])  # duplicates and order do not matter
    assert view["disabled"] == [40, 80] and view["enabled"] == GNOMES_STAKES[2:]
    assert bets(api) == view
    info = game_info(api, token)
    assert [b["stake"] for b in info["bet_levels"]] == GNOMES_STAKES[2:]
    assert info["bets_disabled"] == [40, 80]
    before = everything(server)
    err = api.start(token, GNOMES, 40, expect=400)
    assert err["error"]["code"] == "bet_disabled" and "40" in err["error"]["message"]
    body = {"game": GNOMES, "stake": 80, "spins": 5, "loss_limit": 1_000}
    err = api.call("POST", "/autoplay", token=token, json=body, expect=400)
    assert err["error"]["code"] == "bet_disabled"
    assert everything(server) == before
    api.finish(token, api.start(token, GNOMES, 120))  # the others play
    # Persisted: another server process on the same database refuses it too.
    other = make_server(db_url, tmp_path / "other")
    try:
        assert bets(Api(client_for(other))) == view
        err = Api(client_for(other)).start(token, GNOMES, 80, expect=400)
        assert err["error"]["code"] == "bet_disabled"
    finally:
        other.engine.dispose()
    # Switched on again: [] is every stake.
    assert put_bets(api, [])["disabled"] == []
    api.finish(token, api.start(token, GNOMES, 40))
    assert game_info(api, token)["bets_disabled"] == []
    # Other games are not touched.
    assert bets(api, "test-meter")["disabled"] == []
    assert server.audit()["balances_match_ledger"]


def test_bad_bet_settings_are_refused_and_change_nothing(api, server) -> None:
    put_bets(api, [400])
    before = everything(server)
    err = put_bets(api, [41], expect=400)
    assert err["error"]["code"] == "invalid_bet" and "41" in err["error"]["message"]
    err = put_bets(api, GNOMES_STAKES, expect=400)
    assert err["error"]["code"] == "all_bets_disabled"
    for bad in (["40"], [40.5], [None], [-40], [0]):
        err = put_bets(api, bad, expect=422)
        assert err["error"]["code"] == "invalid_request"
    err = api.operator("PUT", f"/games/{GNOMES}/bets", json={"disabled": [40], "x": 1}, expect=422)
    err = api.operator("PUT", f"/games/{GNOMES}/bets", json={}, expect=422)
    err = put_bets(api, [40], game="no-such-game", expect=404)
    assert err["error"]["code"] == "not_found"
    err = put_bets(api, [40], idem=None, expect=400)
    assert err["error"]["code"] == "idempotency_key_missing"
    api.call("PUT", f"/operator/games/{GNOMES}/bets", json={"disabled": [40]}, expect=401)
    api.call("GET", f"/operator/games/{GNOMES}/bets", expect=401)
    assert everything(server) == before
    assert bets(api)["disabled"] == [400]


def test_a_repeated_key_returns_the_first_reply(api, server) -> None:
    first = put_bets(api, [40], idem="b-1")
    put_bets(api, [80], idem="b-2")
    assert put_bets(api, [40], idem="b-1") == first  # the stored reply; nothing changes
    assert bets(api)["disabled"] == [80]
    err = put_bets(api, [120], idem="b-1", expect=422)
    assert err["error"]["code"] == "idempotency_key_reused"


def test_a_round_in_play_finishes_and_autoplay_at_a_switched_off_stake_waits(api, server) -> None:
    token = api.new_player("bets2", 10_000)
    rnd = api.start(token, "test-meter", 20, script=[0, 0, 0])["round"]  # the meter waits: hold
    assert rnd["status"] == "pending"
    put_bets(api, [20], game="test-meter")
    done = api.finish(token, {"round": rnd})["round"]
    assert done["status"] == "complete"
    err = api.start(token, "test-meter", 20, expect=400)
    assert err["error"]["code"] == "bet_disabled"
    # An autoplay already running when its stake is switched off: its next round is refused,
    # nothing changes, and it plays on once the stake is back.
    body = {"game": GNOMES, "stake": 40, "spins": 3, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    api.call("POST", "/autoplay/next", token=token, expect=200)
    put_bets(api, [40])
    before = everything(server)
    err = api.call("POST", "/autoplay/next", token=token, expect=400)
    assert err["error"]["code"] == "bet_disabled"
    assert everything(server) == before
    assert api.call("GET", "/autoplay", token=token)["autoplay"]["running"]
    put_bets(api, [])
    reply = api.call("POST", "/autoplay/next", token=token, expect=200)
    assert reply["round"]["stake"] == 40 and reply["autoplay"]["spins_left"] == 1
    assert server.audit()["rounds_match_ledger"]


def test_a_switched_off_bet_level_cannot_be_bought_either(api, server) -> None:
    token = api.new_player("bets3", 100_000)
    put_bets(api, [40], game="ghost-of-gambini")
    before = everything(server)
    err = api.start(token, "ghost-of-gambini", 40, mode="buy-lock-spin", expect=400)
    assert err["error"]["code"] == "bet_disabled"
    assert everything(server) == before
    info = game_info(api, token, "ghost-of-gambini")
    assert 40 not in [b["stake"] for b in info["bet_levels"]] and info["bets_disabled"] == [40]
