"""The game server through its HTTP API, on SQLite and on the real PostgreSQL: wallet,
rounds, idempotency, restoration, recall, replay, void, authorisation and bad input."""

from __future__ import annotations

import pytest

from helpers import trigger_script, wheel_draw
from reelforge.server.storage import schema as t
from server_support import Api, client_for, make_server


def test_a_round_debits_the_stake_credits_the_win_and_keeps_the_ledger(api, server, gnomes_data) -> None:
    token = api.new_player("p1", 10_000)
    total_win = 0
    for _ in range(20):
        reply = api.finish(token, api.start(token))
        total_win += reply["round"]["win"]
    assert api.balance(token) == 10_000 - 20 * 40 + total_win
    audit = server.audit()
    assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
    history = api.call("GET", "/history", token=token, expect=200)
    assert len(history["rounds"]) == 10 and history["next_before"] is not None
    older = api.call("GET", f"/history?before={history['next_before']}", token=token, expect=200)
    assert len(older["rounds"]) == 10 and older["next_before"] is None
    first = older["rounds"][-1]
    assert first["balance_before"] == 10_000 and first["stake"] == 40


def test_a_repeated_idempotency_key_returns_the_first_reply_and_changes_nothing(api) -> None:
    token = api.new_player("p2", 1_000)
    body = {"game": "reign-of-gnomes", "stake": 40}
    first = api.call("POST", "/rounds", token=token, json=body, idem="same", expect=201)
    again = api.call("POST", "/rounds", token=token, json=body, idem="same", expect=201)
    assert again == first
    assert api.balance(token) == first["balance"]
    other = api.call("POST", "/rounds", token=token, json={**body, "stake": 80}, idem="same", expect=422)
    assert other["error"]["code"] == "idempotency_key_reused"
    missing = api.call("POST", "/rounds", token=token, json=body, idem=None, expect=400)
    assert missing["error"]["code"] == "idempotency_key_missing"


def test_no_wager_without_funds_and_the_balance_never_goes_negative(api, server) -> None:
    token = api.new_player("p3", 60)
    api.finish(token, api.start(token))
    balance = api.balance(token)
    if balance < 40:
        err = api.start(token, expect=402)
        assert err["error"]["code"] == "insufficient_funds"
    err = api.start(token, stake=480, expect=402)
    assert api.balance(token) == balance
    debit = api.operator("POST", "/players/p3/debit", json={"amount": balance + 1}, expect=402)
    assert debit["error"]["code"] == "insufficient_funds"
    assert server.audit()["balances_match_ledger"]


def test_free_spins_and_a_pick_resume_from_the_pending_round(api, gnomes_data) -> None:
    token = api.new_player("p4")
    reply = api.start(token, script=trigger_script(gnomes_data))
    rnd = reply["round"]
    assert rnd["status"] == "pending" and rnd["actions"][0]["name"] == "spin"
    reply = api.act(
        token, rnd["id"], "spin", expected_step=1, script=[wheel_draw(gnomes_data, "ice_diamonds")]
    )
    rnd = reply["round"]
    assert rnd["actions"][0]["name"] == "pick" and rnd["actions"][0]["needs_player"]
    assert "_ice_layout" not in rnd["state"]
    # A reconnecting client reads the pending round: the same step, nothing re-drawn.
    pending = api.call("GET", "/rounds/pending", token=token, expect=200)["rounds"]
    assert len(pending) == 1 and pending[0]["step"] == rnd["step"] and pending[0]["events"] == rnd["events"]
    stale = api.act(token, rnd["id"], "pick", 3, expected_step=1, expect=409)
    assert stale["error"]["code"] == "step_mismatch"
    bad = api.act(token, rnd["id"], "pick", 99, expect=409)
    assert bad["error"]["code"] == "action_not_allowed"
    api.act(token, rnd["id"], "pick", 3, expected_step=2)
    final = api.finish(token, {"round": api.call("GET", "/rounds/pending", token=token)["rounds"][0]})
    assert final["round"]["status"] == "complete"
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    picks = [s for s in recall["steps"] if s["action"] and s["action"]["name"] == "pick"]
    assert picks[0]["action"]["choice"] == 3 and all("draws" in s for s in recall["steps"])
    assert recall["balance_before"] - 40 + recall["win"] == recall["balance_after"]
    assert recall["started_at"] and recall["game_version"] == "1.0.0" and recall["variant"] == "95.97"


def test_replay_re_deals_the_round_from_stored_draws(api, gnomes_data) -> None:
    token = api.new_player("p5")
    script = trigger_script(gnomes_data)
    rnd = api.finish(token, api.start(token, script=script))["round"]
    replay = api.call("GET", f"/rounds/{rnd['id']}/replay", token=token, expect=200)
    assert replay["replay"] is True and replay["matches_record"] is True
    assert replay["win"] == rnd["win"] and len(replay["steps"]) == rnd["step"]


def test_a_player_cannot_see_or_touch_another_players_round(api, gnomes_data) -> None:
    alice = api.new_player("alice")
    bob = api.new_player("bob")
    rnd = api.start(alice, script=trigger_script(gnomes_data))["round"]
    for method, path, body in (
        ("GET", f"/rounds/{rnd['id']}", None),
        ("GET", f"/rounds/{rnd['id']}/replay", None),
        ("POST", f"/rounds/{rnd['id']}/actions", {"action": "spin"}),
    ):
        err = api.call(method, path, token=bob, json=body, expect=404)
        assert err["error"]["code"] == "not_found"
    assert api.call("GET", "/rounds/pending", token=bob)["rounds"] == []
    for token in (None, "forged-token"):
        api.call("GET", "/balance", token=token, expect=401)
    api.call("GET", "/operator/players/alice", expect=401)
    api.call("GET", "/operator/players/alice", headers={"X-Operator-Key": "wrong"}, expect=401)


def test_tokens_are_stored_hashed_and_expire(api, server) -> None:
    token = api.new_player("p6")
    with server.engine.connect() as conn:
        stored = [r.token_hash for r in conn.execute(t.sessions.select())]
    assert token not in stored and all(len(h) == 64 for h in stored)
    with server.engine.begin() as conn:
        conn.execute(t.sessions.update().values(expires_at=0))
    err = api.call("GET", "/balance", token=token, expect=401)
    assert err["error"]["code"] == "session_expired"


def test_malformed_oversized_and_out_of_turn_requests_get_4xx_and_change_nothing(api, server) -> None:
    token = api.new_player("p7", 1_000)
    before = api.balance(token)
    cases = [
        ({"game": "reign-of-gnomes"}, 422),
        ({"game": "reign-of-gnomes", "stake": "forty"}, 422),
        ({"game": "reign-of-gnomes", "stake": 41}, 400),
        ({"game": "reign-of-gnomes", "stake": 40, "mode": "buy"}, 400),
        ({"game": "no-such-game", "stake": 40}, 404),
        ({"game": "reign-of-gnomes", "stake": 40, "extra": 1}, 422),
        ({"game": "reign-of-gnomes", "stake": -40}, 422),
    ]
    for body, status in cases:
        err = api.call("POST", "/rounds", token=token, json=body, expect=status)
        assert err["error"]["message"]
    r = api.client.post(
        "/api/v1/rounds",
        content=b"{not json",
        headers={
            "Authorization": f"Bearer {token}",
            "Idempotency-Key": "x1",
            "content-type": "application/json",
        },
    )
    assert r.status_code == 422
    r = api.client.post(
        "/api/v1/rounds",
        content=b"x" * 100_000,
        headers={
            "Authorization": f"Bearer {token}",
            "Idempotency-Key": "x2",
            "content-type": "application/json",
        },
    )
    assert r.status_code == 413
    done = api.finish(token, api.start(token))["round"]
    err = api.act(token, done["id"], "spin", expect=409)
    assert err["error"]["code"] == "round_not_pending"
    api.act(token, 999_999, "spin", expect=404)
    api.call("GET", "/history?limit=0", token=token, expect=422)
    assert api.balance(token) == before - 40 + done["win"]
    assert server.audit()["balances_match_ledger"]


def test_scripted_draws_are_refused_in_production(db_url, tmp_path) -> None:
    srv = make_server(db_url, tmp_path, seed=None, allow_scripted_draws=False)
    api = Api(client_for(srv))
    token = api.new_player("p8")
    err = api.start(token, script=[0, 0, 0, 0, 0], expect=403)
    assert err["error"]["code"] == "scripted_draws_refused"
    # The production source deals the round: its draws are stored with the step.
    rnd = api.finish(token, api.start(token))["round"]
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    assert len(recall["steps"][0]["draws"]) == 5
    srv.engine.dispose()


def test_operator_voids_a_round_in_play_refunding_the_stake(api, server, gnomes_data) -> None:
    token = api.new_player("p9", 1_000)
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    assert api.balance(token) == 960
    voided = api.operator(
        "POST", f"/rounds/{rnd['id']}/void", json={"reason": "cannot resume"}, idem="v1", expect=200
    )
    assert voided["status"] == "voided" and voided["balance"] == 1_000
    again = api.operator(
        "POST", f"/rounds/{rnd['id']}/void", json={"reason": "cannot resume"}, idem="v1", expect=200
    )
    assert again == voided
    api.operator("POST", f"/rounds/{rnd['id']}/void", json={"reason": "twice"}, expect=409)
    recall = api.operator("GET", f"/rounds/{rnd['id']}", expect=200)
    assert recall["status"] == "voided" and recall["steps"][-1]["events"][0]["type"] == "void"
    assert api.balance(token) == 1_000 and server.audit()["rounds_match_ledger"]


def test_rounds_left_waiting_are_completed_with_the_default_play(api, server, gnomes_data) -> None:
    token = api.new_player("p10")
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    api.act(token, rnd["id"], "spin", script=[wheel_draw(gnomes_data, "ice_diamonds")])
    assert server.complete_stale_rounds(older_than=3600) == 0
    assert server.complete_stale_rounds(older_than=-1) == 1
    recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
    assert recall["status"] == "complete" and recall["completed_by"] == "server"
    assert any(s["actor"] == "server" and s["action"]["name"] == "pick" for s in recall["steps"])
    history = api.call("GET", "/history", token=token)["rounds"]
    assert history[0]["id"] == rnd["id"] and history[0]["completed_by"] == "server"
    assert server.audit()["rounds_match_ledger"]


def test_operator_sets_the_rtp_variant_and_profile_and_games_list_shows_them(api) -> None:
    token = api.new_player("p11")
    games = api.call("GET", "/games", token=token, expect=200)
    gnomes = next(g for g in games["games"] if g["id"] == "reign-of-gnomes")
    assert gnomes["variant"] == "95.97" and 0.9596 <= gnomes["rtp"] <= 0.9598
    assert [b["stake"] for b in gnomes["bet_levels"]][:2] == [40, 80]
    api.operator("PUT", "/games/reign-of-gnomes/variant", json={"variant": "95.97"}, expect=200)
    api.operator("PUT", "/games/reign-of-gnomes/variant", json={"variant": "50"}, expect=400)
    api.operator("PUT", "/profile", json={"profile": "mars"}, expect=400)
    assert api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200) == {"profile": "gb"}


def test_persistent_player_state_is_kept_per_bet_level(api) -> None:
    token = api.new_player("p12")
    for _ in range(3):
        api.finish(token, api.start(token, game="test-meter", stake=10))
    api.finish(token, api.start(token, game="test-meter", stake=20))
    states = {
        s["state_key"]: s["state"] for s in api.call("GET", "/state?game=test-meter", token=token)["states"]
    }
    assert states == {"stake:10": {"meter": 3}, "stake:20": {"meter": 1}}


def test_the_test_games_hold_and_gamble_decisions_work_over_http(api) -> None:
    token = api.new_player("p13")
    seen: set[str] = set()
    for _ in range(60):
        rnd = api.start(token, game="test-meter", stake=10)["round"]
        while rnd["status"] == "pending":
            spec = rnd["actions"][-1]  # hold, or gamble where offered
            seen.add(spec["name"])
            choice = spec["choices"][0] if spec.get("choices") else None
            rnd = api.act(token, rnd["id"], spec["name"], choice)["round"]
    assert {"hold", "gamble"} <= seen


def test_demo_sessions_only_in_demo_mode(db_url, tmp_path) -> None:
    srv = make_server(db_url, tmp_path, demo_mode=True)
    api = Api(client_for(srv))
    first = api.call("POST", "/demo/session", idem="d1", expect=201)
    assert api.call("POST", "/demo/session", idem="d1", expect=201)["token"] == first["token"]
    assert api.balance(first["token"]) == 100_000
    api.finish(first["token"], api.start(first["token"]))
    srv.engine.dispose()
    off = make_server(db_url, tmp_path)
    api = Api(client_for(off))
    api.call("POST", "/demo/session", idem="d2", expect=404)
    api.call("GET", "/demo", expect=404)
    off.engine.dispose()


def test_a_demo_session_under_es_has_the_limits_the_player_chose(db_url, tmp_path) -> None:
    srv = make_server(db_url, tmp_path, demo_mode=True)
    try:
        api = Api(client_for(srv))
        assert api.call("GET", "/demo", expect=200)["requires_session_limits"] is False
        api.operator("PUT", "/profile", json={"profile": "es"}, expect=200)
        terms = api.call("GET", "/demo", expect=200)
        assert terms["requires_session_limits"] is True and terms["currency"] == "EUR"
        assert terms["balance"] == 100_000 and terms["spend_limit"] == 100_000
        limits = {"time_limit_seconds": 1800, "spend_limit": 2_000}
        opened = api.call("POST", "/demo/session", idem="es1", json=limits, expect=201)
        assert (opened["time_limit_seconds"], opened["spend_limit"]) == (1800, 2_000)
        session = api.call("GET", "/session", token=opened["token"], expect=200)
        assert (session["time_limit_seconds"], session["spend_limit"]) == (1800, 2_000)
        api.call("POST", "/demo/session", idem="es2", json={"spend_limit": 0}, expect=422)
    finally:
        srv.engine.dispose()


def test_a_test_seed_is_refused_outside_test_deployments(tmp_path) -> None:
    from reelforge.server.core.config import Settings
    from reelforge.server.runtime.service import GameServer

    with pytest.raises(ValueError, match="test facility"):
        GameServer(Settings(db=f"sqlite:///{tmp_path / 'x.db'}", data_dir=tmp_path, test_seed=1))
