"""The operator API's back office on SQLite and PostgreSQL: a player's sessions (list, revoke,
one live session per player), pending rounds across players, the ledger's pages and the
cash replies, the games as the operator sees them, one currency per player, idempotency keys
scoped per player, and the reports route."""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from helpers import stops_without, trigger_script
from reelforge.server.reports.report_theory import Theory
from reelforge.server.storage import schema as t
from server_support import Api, client_for, make_server

GNOMES = "reign-of-gnomes"


def plain_spin(d) -> list[int]:
    """Reign of Gnomes stops showing no scatter: the round ends at its start."""
    return [stops_without(d.base_reels.strips[r], {d.scatter}) for r in range(5)]


def open_session(api: Api, player: str, expect: int = 201, **body: Any) -> dict:
    return api.operator("POST", f"/players/{player}/sessions", json=body, expect=expect)


def sessions(api: Api, player: str, query: str = "") -> dict:
    return api.operator("GET", f"/players/{player}/sessions{query}", expect=200)


# -- sessions ------------------------------------------------------------------------------------


def test_a_new_session_replaces_the_last_unless_asked_to_keep_it(api: Api) -> None:
    first_token = api.new_player("s1", 10_000)
    second = open_session(api, "s1")
    listed = sessions(api, "s1")["sessions"]
    first_id = listed[-1]["id"]
    assert second["replaced"] == [first_id] and second["session_id"] > first_id
    err = api.call("GET", "/balance", token=first_token, expect=403)["error"]
    assert err == {"code": "session_closed", "message": "the session is closed: replaced"}
    kept = open_session(api, "s1", keep_other_sessions=True)
    assert kept["replaced"] == []
    for token in (second["token"], kept["token"]):
        api.call("GET", "/balance", token=token, expect=200)
    listed = sessions(api, "s1")["sessions"]  # newest first
    assert [s["id"] for s in listed] == [kept["session_id"], second["session_id"], first_id]
    assert [s["state"] for s in listed] == ["open", "open", "closed"]
    assert listed[2]["close_reason"] == "replaced" and listed[2]["closed_at"] is not None
    assert {"created_at", "expires_at", "staked", "won", "net_position", "profile"} <= set(listed[0])
    # A plain open now replaces both live sessions (the cap is one).
    third = open_session(api, "s1")
    assert sorted(third["replaced"]) == sorted([second["session_id"], kept["session_id"]])
    assert [s["id"] for s in sessions(api, "s1", "?open=true")["sessions"]] == [third["session_id"]]
    assert len(sessions(api, "s1", "?open=false")["sessions"]) == 3
    page = sessions(api, "s1", "?limit=3")
    rest = sessions(api, "s1", f"?limit=3&before={page['next_before']}")
    assert [s["id"] for s in page["sessions"] + rest["sessions"]] == [
        s["id"] for s in sessions(api, "s1")["sessions"]
    ]
    assert rest["next_before"] is None
    assert api.operator("GET", "/players/nobody/sessions", expect=404)["error"]["code"] == "not_found"


def test_the_cap_of_live_sessions_is_a_setting(db_url, tmp_path) -> None:
    srv = make_server(db_url, tmp_path, max_sessions_per_player=2)
    try:
        api = Api(client_for(srv))
        api.new_player("cap", 1_000)
        second = open_session(api, "cap")
        assert second["replaced"] == []
        third = open_session(api, "cap")
        assert len(third["replaced"]) == 1  # the oldest
        states = [s["state"] for s in sessions(api, "cap")["sessions"]]
        assert states == ["open", "open", "closed"]
    finally:
        srv.engine.dispose()


def test_revoking_sessions_keeps_the_round_in_play_for_the_next_one(api: Api, server, gnomes_data) -> None:
    token = api.new_player("s2", 10_000)
    session_id = sessions(api, "s2")["sessions"][0]["id"]
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    assert rnd["status"] == "pending"
    reply = api.operator("POST", f"/players/s2/sessions/{session_id}/revoke", idem="rv", expect=200)
    assert reply["session"]["state"] == "closed"
    assert reply["session"]["close_reason"] == "revoked by the operator"
    again = api.operator("POST", f"/players/s2/sessions/{session_id}/revoke", idem="rv", expect=200)
    assert again == reply  # the same key: the same reply
    err = api.operator("POST", f"/players/s2/sessions/{session_id}/revoke", expect=409)["error"]
    assert err["code"] == "session_not_open" and "revoked by the operator" in err["message"]
    for path in ("/balance", "/rounds/pending"):
        err = api.call("GET", path, token=token, expect=403)["error"]
        assert err == {"code": "session_closed", "message": "the session is closed: revoked by the operator"}
    api.act(token, rnd["id"], "spin", expect=403)
    # The player comes back: the round waits, as it was, and finishes in the new session.
    back = open_session(api, "s2")["token"]
    (pending,) = api.call("GET", "/rounds/pending", token=back, expect=200)["rounds"]
    assert pending == rnd
    assert api.finish(back, {"round": pending})["round"]["status"] == "complete"
    # Another player's session, or none, is 404; a revoke needs its key.
    other = api.new_player("s3", 0)
    other_id = sessions(api, "s3")["sessions"][0]["id"]
    api.operator("POST", f"/players/s2/sessions/{other_id}/revoke", expect=404)
    api.operator("POST", "/players/s2/sessions/999999/revoke", expect=404)
    missing = api.operator("POST", f"/players/s3/sessions/{other_id}/revoke", idem=None, expect=400)
    assert missing["error"]["code"] == "idempotency_key_missing"
    api.call("GET", "/balance", token=other, expect=200)
    assert server.audit()["balances_match_ledger"]


def test_revoke_all_closes_every_open_session_and_stops_their_autoplay(api: Api, server) -> None:
    token = api.new_player("s4", 10_000)
    other = open_session(api, "s4", keep_other_sessions=True)["token"]
    expired = open_session(api, "s4", keep_other_sessions=True)
    with server.engine.begin() as conn:
        conn.execute(
            update(t.sessions).where(t.sessions.c.id == expired["session_id"]).values(expires_at=1.0)
        )
    assert sessions(api, "s4")["sessions"][0]["state"] == "expired"
    err = api.operator("POST", f"/players/s4/sessions/{expired['session_id']}/revoke", expect=409)["error"]
    assert err["code"] == "session_not_open" and "expired" in err["message"]
    body = {"game": GNOMES, "stake": 40, "spins": 5, "loss_limit": 1_000}
    api.call("POST", "/autoplay", token=other, json=body, expect=201)
    reply = api.operator("POST", "/players/s4/sessions/revoke", json={"reason": "self-excluded"}, expect=200)
    assert sorted(s["close_reason"] for s in reply["revoked"]) == ["self-excluded", "self-excluded"]
    for t_ in (token, other):
        err = api.call("GET", "/session", token=t_, expect=403)["error"]
        assert err == {"code": "session_closed", "message": "the session is closed: self-excluded"}
    assert api.operator("POST", "/players/s4/sessions/revoke", expect=200)["revoked"] == []
    back = open_session(api, "s4")["token"]
    autoplay = api.call("GET", "/autoplay", token=back, expect=200)["autoplay"]
    assert autoplay["running"] is False and autoplay["stop_reason"] == "cancelled"
    assert [s["state"] for s in sessions(api, "s4")["sessions"]] == ["open", "expired", "closed", "closed"]
    api.operator("POST", "/players/s4/sessions/revoke", json={"reason": "x" * 65}, expect=422)


# -- lists ---------------------------------------------------------------------------------------


def test_pending_rounds_across_players_page_like_history(api: Api, gnomes_data) -> None:
    ids = []
    for name in ("q1", "q2", "q3"):
        token = api.new_player(name, 10_000)
        api.start(token, script=plain_spin(gnomes_data))  # complete: not listed
        ids.append(api.start(token, script=trigger_script(gnomes_data))["round"]["id"])
    meter = api.new_player("q4", 10_000)
    held = api.start(meter, game="test-meter", stake=10, script=[6, 5, 4])["round"]
    assert held["status"] == "pending"
    every = api.operator("GET", "/rounds/pending", expect=200)
    assert [r["id"] for r in every["rounds"]] == [held["id"], *reversed(ids)] and every["next_before"] is None
    first = api.operator("GET", f"/rounds/pending?game={GNOMES}&limit=2", expect=200)
    assert [r["id"] for r in first["rounds"]] == [ids[2], ids[1]] and first["next_before"] == ids[1]
    rest = api.operator("GET", f"/rounds/pending?game={GNOMES}&limit=2&before={ids[1]}", expect=200)
    assert [r["id"] for r in rest["rounds"]] == [ids[0]] and rest["next_before"] is None
    line = rest["rounds"][0]
    assert (line["player"], line["status"], line["game"], line["stake"]) == ("q1", "pending", GNOMES, 40)
    assert line["waiting_seconds"] >= 0 and line["updated_at"] and line["session_id"]
    api.operator("GET", "/rounds/pending?limit=0", expect=422)


def test_the_ledger_pages_and_cash_replies_carry_their_ledger_row(api: Api) -> None:
    api.operator("POST", "/players", json={"external_id": "l1"}, idem=None, expect=201)
    replies = [
        api.operator("POST", "/players/l1/credit", json={"amount": 500}, idem="c1", expect=200),
        api.operator("POST", "/players/l1/credit", json={"amount": 300}, idem="c2", expect=200),
        api.operator("POST", "/players/l1/debit", json={"amount": 200}, idem="d1", expect=200),
    ]
    assert [r["balance"] for r in replies] == [500, 800, 600]
    entry = replies[2]["entry"]
    assert (entry["amount"], entry["balance_after"], entry["kind"], entry["reference"]) == (
        -200, 600, "withdrawal", "op:d1",
    )  # fmt: skip
    assert entry["at"].endswith("+00:00") and entry["round_id"] is None
    ledger = api.operator("GET", "/players/l1/ledger?limit=2", expect=200)
    assert ledger["entries"] == [replies[2]["entry"], replies[1]["entry"]]
    assert ledger["next_before"] == replies[1]["entry"]["id"] and ledger["balance"] == 600
    rest = api.operator("GET", f"/players/l1/ledger?limit=2&before={ledger['next_before']}", expect=200)
    assert rest["entries"] == [replies[0]["entry"]] and rest["next_before"] is None
    again = api.operator("POST", "/players/l1/debit", json={"amount": 200}, idem="d1", expect=200)
    assert again == replies[2]  # a repeat returns the row the first call wrote


# -- games, players, keys ------------------------------------------------------------------------


def test_the_operator_lists_every_game_with_its_variants_and_modes(api: Api) -> None:
    api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)  # no bonus buys for players
    api.operator("PUT", "/games/reign-of-gnomes/variant", json={"variant": "94.00"}, expect=200)
    api.operator("PUT", "/games/reign-of-gnomes/bets", json={"disabled": [40]}, expect=200)
    listing = api.call("GET", "/games", headers=api.op, expect=200)
    games = {g["id"]: g for g in listing["games"]}
    assert listing["profile"] == "gb" and {GNOMES, "ghost-of-gambini", "los-3-pinguinos"} <= set(games)
    gambini = games["ghost-of-gambini"]
    assert "buy-lock-spin" in gambini["modes"] and "buy-lock-spin" not in gambini["modes_offered"]
    gnomes = games[GNOMES]
    assert gnomes["variant"] == "94.00" and gnomes["variants"] == ["95.97", "94.00", "92.00"]
    assert gnomes["default_variant"] == "95.97" and abs(gnomes["rtp"] - 0.94) < 1e-4
    assert gnomes["bets"]["base"]["disabled"] == [40] and 40 in gnomes["bets"]["base"]["stakes"]
    assert "upper" in games["los-3-pinguinos"]["bets"]
    bad = api.call("GET", "/games", headers={"X-Operator-Key": "wrong"}, expect=401)
    assert bad["error"]["code"] == "unauthorized"
    assert api.call("GET", "/games", expect=401)["error"]["code"] == "unauthorized"
    token = api.new_player("g1", 0)
    player_view = {g["id"]: g for g in api.call("GET", "/games", token=token, expect=200)["games"]}
    assert "buy-lock-spin" not in player_view["ghost-of-gambini"]["modes"]
    api.operator("PUT", "/profile", json={"profile": "default"}, expect=200)


def test_a_player_exists_in_one_currency(api: Api) -> None:
    made = api.operator(
        "POST", "/players", json={"external_id": "c1", "currency": "EUR"}, idem=None, expect=201
    )
    same = api.operator(
        "POST", "/players", json={"external_id": "c1", "currency": "EUR"}, idem=None, expect=200
    )
    assert same == made
    err = api.operator(
        "POST", "/players", json={"external_id": "c1", "currency": "GBP"}, idem=None, expect=409
    )
    assert err["error"]["code"] == "currency_mismatch" and "EUR" in err["error"]["message"]
    assert api.operator("GET", "/players/c1", expect=200)["currency"] == "EUR"


def test_operator_idempotency_keys_are_scoped_per_player(api: Api, gnomes_data) -> None:
    for name in ("k1", "k2"):
        api.operator("POST", "/players", json={"external_id": name}, idem=None, expect=201)
    a = api.operator("POST", "/players/k1/credit", json={"amount": 100}, idem="same", expect=200)
    b = api.operator("POST", "/players/k2/credit", json={"amount": 250}, idem="same", expect=200)
    assert (a["balance"], b["balance"]) == (100, 250)  # two players, two requests
    assert a["entry"]["reference"] == b["entry"]["reference"] == "op:same"
    reused = api.operator("POST", "/players/k1/credit", json={"amount": 999}, idem="same", expect=422)
    assert reused["error"]["code"] == "idempotency_key_reused"
    s1 = api.operator("POST", "/players/k1/sessions", json={}, idem="open", expect=201)
    s2 = api.operator("POST", "/players/k2/sessions", json={}, idem="open", expect=201)
    assert s1["token"] != s2["token"] and s1["session_id"] != s2["session_id"]
    assert api.operator("POST", "/players/k1/sessions", json={}, idem="open", expect=201) == s1
    # A void is scoped to its round's player.
    api.operator("POST", "/players/k1/credit", json={"amount": 1_000}, idem="more", expect=200)
    rnd = api.start(s1["token"], script=trigger_script(gnomes_data))["round"]
    void = {"reason": "test"}
    err = api.operator("POST", f"/rounds/{rnd['id']}/void", json=void, idem="same", expect=422)
    assert err["error"]["code"] == "idempotency_key_reused"  # k1's "same" was its credit
    api.operator("POST", "/players/k2/credit", json={"amount": 1}, idem="k2-key", expect=200)
    api.operator("POST", f"/rounds/{rnd['id']}/void", json=void, idem="k2-key", expect=200)
    assert api.operator("GET", "/players/k1", expect=200)["balance"] == 1_100
    assert api.operator("GET", "/players/k2", expect=200)["balance"] == 251


# -- reports -------------------------------------------------------------------------------------


def test_the_reports_route(api: Api, server, gnomes_data) -> None:
    token = api.new_player("r1", 10_000)
    stakes = wins = 0
    for _ in range(3):
        rnd = api.start(token, script=plain_spin(gnomes_data))["round"]
        stakes, wins = stakes + rnd["stake"], wins + rnd["win"]
    money = api.operator("GET", "/reports?theory=false&players=true", expect=200)
    (total,) = money["totals"]
    assert (total["currency"], total["rounds"], total["stakes"], total["wins"]) == ("GBP", 3, stakes, wins)
    assert money["players"][0]["player"] == "r1" and money["players"][0]["staked"] == stakes
    assert money["games"][0]["flag"] == "no theory"
    stand_in = Theory(0.96, 6.0, "stand-in", True)
    server.back_office.report_theory = lambda *_: stand_in
    judged = api.operator("GET", f"/reports?game={GNOMES}&from=2000-01-01", expect=200)
    assert judged["games"][0]["theoretical"]["rtp"] == 0.96 and "players" not in judged
    assert judged["period"]["from"].startswith("2000-01-01")
    empty = api.operator("GET", "/reports?to=2000-01-01&theory=false", expect=200)
    assert empty["games"] == []
    for bad in ("from=yesterday", "from=2024-06-02&to=2024-06-01"):
        err = api.operator("GET", f"/reports?{bad}", expect=400)["error"]
        assert err["code"] == "invalid_report" and err["message"]


def test_the_new_routes_need_the_operator_key(api: Api) -> None:
    api.new_player("auth", 0)
    calls = [
        ("GET", "/operator/players/auth/sessions"),
        ("POST", "/operator/players/auth/sessions/revoke"),
        ("POST", "/operator/players/auth/sessions/1/revoke"),
        ("GET", "/operator/rounds/pending"),
        ("GET", "/operator/reports"),
    ]
    for method, path in calls:
        for headers in ({}, {"X-Operator-Key": "wrong"}):
            err = api.call(method, path, headers=headers, expect=401)
            assert err["error"]["code"] == "unauthorized", (method, path)
    assert (
        api.operator("PUT", "/rounds/pending", json={}, expect=405)["error"]["code"] == "method_not_allowed"
    )
