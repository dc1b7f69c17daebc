"""Player play settings, on SQLite and on the real PostgreSQL: a game's switches set per
session (GET/PUT /settings), shown in GET /session, refused when unknown or not booleans
(nothing changed), idempotent; the server's autoplay plays what ``Game.auto_action`` answers
for them and stops where it answers None; the sweeper keeps the default play."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from reelforge.engine.game import standard_auto_action
from reelforge.engine.round import Action, ActionSpec, Round
from reelforge.games import registry
from reelforge.rng import ScriptedRandom, SeededRandom
from reelforge.server.storage import schema as t
from server_support import Api, client_for
from test_server_side_balances import BONUS_ROUND, DECIDE, GAME, START, WIN_BONUS, BonusGame

DEFAULTS = {"auto_advance": True, "auto_spend": False}


@pytest.fixture
def bonus_api(server) -> Api:
    server.games[GAME] = BonusGame()
    return Api(client_for(server))


def settings(api: Api, token: str, game: str = GAME) -> Any:
    return api.call("GET", f"/settings?game={game}", token=token, expect=200)


def put(api: Api, token: str, body: Any, game: str = GAME, **kw: Any) -> Any:
    expect = kw.pop("expect", 200)
    return api.call("PUT", f"/settings?game={game}", token=token, json=body, expect=expect, **kw)


def stored(server) -> list[Any]:
    with server.engine.connect() as conn:
        return sorted((r.id, r.play_settings) for r in conn.execute(select(t.sessions)))


def test_settings_are_set_per_session_and_shown(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("s1")
    assert settings(api, token) == {"game": GAME, "settings": DEFAULTS, "defaults": DEFAULTS}
    assert put(api, token, {"auto_spend": True}) == {
        "game": GAME,
        "settings": {"auto_advance": True, "auto_spend": True},
    }
    # Names left out keep their value.
    reply = put(api, token, {"auto_advance": False})
    assert reply["settings"] == {"auto_advance": False, "auto_spend": True}
    assert settings(api, token)["settings"] == reply["settings"]
    session = api.call("GET", "/session", token=token, expect=200)
    assert session["play_settings"][GAME] == reply["settings"]
    # Games without switches show none; an empty body is accepted and changes nothing.
    assert "reign-of-gnomes" not in session["play_settings"]
    assert settings(api, token, "reign-of-gnomes")["settings"] == {}
    assert put(api, token, {}, game="reign-of-gnomes")["settings"] == {}
    # A new session of the same player (kept beside the first) starts from the game's defaults.
    body = {"keep_other_sessions": True}
    again = api.operator("POST", "/players/s1/sessions", json=body, expect=201)["token"]
    assert settings(api, again)["settings"] == DEFAULTS
    assert settings(api, token)["settings"] == reply["settings"]
    info = next(g for g in api.call("GET", "/games", token=token)["games"] if g["id"] == GAME)
    assert info["play_settings"] == DEFAULTS


def test_bad_settings_are_refused_and_change_nothing(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("s2")
    put(api, token, {"auto_spend": True})
    before = stored(server)
    for body in (
        {"auto_spin": True},
        {"auto_spend": False, "nope": True},
        {"auto_spend": 1},
        {"auto_spend": "true"},
        {"auto_spend": None},
        {"auto_spend": [True]},
    ):
        err = put(api, token, body, expect=400)
        assert err["error"]["code"] == "invalid_setting" and err["error"]["message"], body
    err = put(api, token, {"auto_spend": True}, game="reign-of-gnomes", expect=400)
    assert err["error"]["code"] == "invalid_setting"
    assert put(api, token, {"a": True}, game="no-such-game", expect=404)["error"]["code"] == "not_found"
    assert put(api, token, [True], expect=422)["error"]["code"] == "invalid_request"
    assert put(api, token, {"auto_spend": True}, idem=None, expect=400)["error"]["code"] == (
        "idempotency_key_missing"
    )
    api.call("PUT", f"/settings?game={GAME}", json={"auto_spend": True}, expect=401)
    api.call("PUT", "/settings", token=token, json={"auto_spend": True}, expect=422)  # no game
    api.call("GET", "/settings?game=no-such-game", token=token, expect=404)
    assert stored(server) == before
    assert settings(api, token)["settings"] == {"auto_advance": True, "auto_spend": True}


def test_a_repeated_key_returns_the_first_reply(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("s3")
    first = put(api, token, {"auto_spend": True}, idem="p-1")
    put(api, token, {"auto_spend": False}, idem="p-2")
    assert put(api, token, {"auto_spend": True}, idem="p-1") == first
    assert settings(api, token)["settings"]["auto_spend"] is False
    err = put(api, token, {"auto_advance": False}, idem="p-1", expect=422)
    assert err["error"]["code"] == "idempotency_key_reused"


def run_autoplay(api: Api, token: str, spins: int, game: str = GAME, stake: int = 10) -> tuple[dict, list]:
    body = {"game": game, "stake": stake, "spins": spins, "loss_limit": 10_000}
    api.call("POST", "/autoplay", token=token, json=body, expect=201)
    rounds = []
    while True:
        reply = api.call("POST", "/autoplay/next", token=token, expect=200)
        if reply["round"] is not None:
            rounds.append(reply["round"])
        if not reply["autoplay"]["running"]:
            return reply["autoplay"], rounds


def script(server, values: list[int]) -> None:
    stream = ScriptedRandom(values, SeededRandom(11))
    server.rng_factory = lambda: stream


def test_autoplay_plays_what_the_settings_resolve_and_stops_where_a_human_must_decide(
    bonus_api, server
) -> None:
    api = bonus_api
    token = api.new_player("s4", 10_000)
    # Defaults: "advance" is pressed (no player needed), the decision stops the run.
    script(server, [BONUS_ROUND, 1, DECIDE])
    ap, rounds = run_autoplay(api, token, 5)
    assert ap["stop_reason"] == "player_action" and ap["spins_left"] == 3
    assert rounds[0]["status"] == "complete" and rounds[1]["status"] == "pending"
    assert [a["name"] for a in rounds[1]["actions"]] == ["collect", "spend"]
    steps = api.call("GET", f"/rounds/{rounds[0]['id']}", token=token)["steps"]
    assert [(s["actor"], s["action"]["name"]) for s in steps] == [
        ("autoplay", "start"),
        ("autoplay", "advance"),
    ]
    api.act(token, rounds[1]["id"], "collect")  # the player decides
    # auto_spend resolves the decision (a needs_player step): autoplay plays it on.
    put(api, token, {"auto_spend": True})
    script(server, [DECIDE, 0, WIN_BONUS])
    ap, rounds = run_autoplay(api, token, 2)
    assert ap["stop_reason"] == "spins_done" and all(r["status"] == "complete" for r in rounds)
    steps = api.call("GET", f"/rounds/{rounds[0]['id']}", token=token)["steps"]
    assert [(s["actor"], s["action"]["name"]) for s in steps[1:]] == [
        ("autoplay", "spend"),
        ("autoplay", "advance"),
    ]
    # auto_advance off: autoplay stops even at a step that needs no player.
    put(api, token, {"auto_advance": False})
    script(server, [START, BONUS_ROUND])
    ap, rounds = run_autoplay(api, token, 3)
    assert ap["stop_reason"] == "player_action" and rounds[-1]["actions"] == [
        {"name": "advance", "choices": None, "default": None, "needs_player": False}
    ]
    assert server.audit()["side_balances_match_ledger"]


def test_the_sweeper_keeps_the_default_play_whatever_the_settings(bonus_api, server) -> None:
    api = bonus_api
    token = api.new_player("s5", 10_000)
    api.finish(token, api.start(token, GAME, 10, script=[WIN_BONUS]))  # one Bonus to spend
    put(api, token, {"auto_spend": True})
    rnd = api.start(token, GAME, 10, script=[DECIDE])["round"]
    assert server.complete_stale_rounds(older_than=-1) == 1
    steps = api.call("GET", f"/rounds/{rnd['id']}", token=token)["steps"]
    assert [(s["actor"], s["action"]["name"]) for s in steps[1:]] == [("server", "collect")]


def test_the_existing_games_keep_their_autoplay(api, server) -> None:
    """Without play settings a game answers the default action, and None at a decision that
    needs the player: test-meter's hold stops autoplay at once, as it always did."""
    token = api.new_player("s6", 10_000)
    ap, rounds = run_autoplay(api, token, 3, game="test-meter", stake=10)
    assert ap["stop_reason"] == "player_action" and len(rounds) == 1 and rounds[0]["status"] == "pending"
    for game in registry().values():
        if game.id in ("reign-of-gnomes", "ghost-of-gambini", "test-meter"):
            assert game.play_settings() == {} and game.side_balances == ()
    rnd = Round(game="g", game_version="1", variant="v", mode="base", coin=1, stake=1)
    rnd.actions = [ActionSpec(name="spin")]
    assert standard_auto_action(rnd) == Action(name="spin")
    rnd.actions = [ActionSpec(name="pick", choices=[1, 2], default=2, needs_player=True)]
    assert standard_auto_action(rnd) is None
