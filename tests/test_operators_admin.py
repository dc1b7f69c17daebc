"""The admin API (/api/v1/admin/, ``X-Admin-Key``) and the ``reelforge operators`` command, on
SQLite and PostgreSQL (the command on SQLite): operator accounts made, listed, shown and
configured, their secrets never echoed, bad settings refused, keys added and revoked, an
operator suspended (its sessions closed, its round in play finished by default play and paid,
its keys refused) and resumed, and the studio's report across operators."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from helpers import trigger_script
from operators_support import ADMIN, api_routes, operator_api, plain_spin
from reelforge.cli import app as cli_app
from reelforge.server.reports.report_theory import Theory
from reelforge.server.storage import schema as t
from server_support import OPERATOR_KEY, Api, client_for, make_server

GNOMES = "reign-of-gnomes"
SECRET = "very-secret-value-42"


def admin(api: Api, method: str, path: str, json: Any = None, expect: Any = None, **kw: Any) -> Any:
    headers = kw.pop("headers", ADMIN)
    return api.call(method, "/admin" + path, json=json, headers=headers, expect=expect, **kw)


def admin_routes(app) -> list[tuple[str, str]]:
    """Every admin route, its path ids filled in (1)."""
    out = []
    for r in api_routes(app.routes):
        if r.path.startswith("/api/v1/admin"):
            path = r.path.removeprefix("/api/v1").replace("{operator_id}", "1").replace("{key_id}", "1")
            out.extend((m, path) for m in sorted(r.methods))
    return sorted(out)


def operator_calls(app) -> list[tuple[str, str]]:
    """Every operator route (``/operator/...``), its path ids filled in."""
    fill = {"{external_id}": "alice", "{round_id}": "1", "{session_id}": "1", "{game_id}": GNOMES}
    out = []
    for r in api_routes(app.routes):
        if r.path.startswith("/api/v1/operator"):
            path = r.path.removeprefix("/api/v1/operator")
            for name, value in fill.items():
                path = path.replace(name, value)
            assert "{" not in path, r.path
            out.extend((m, path) for m in sorted(r.methods))
    assert len(out) >= 20
    return sorted(out)


def refused_everywhere(api: Api, status: int, code: str) -> None:
    """Every operator route (and ``GET /games`` with the key) answers ``status`` ``code``."""
    for method, path in operator_calls(api.client.app):
        body = {} if method in ("POST", "PUT") else None
        err = api.operator(method, path, json=body)
        assert (api.last.status_code, err["error"]["code"]) == (status, code), (method, path, err)
    err = api.call("GET", "/games", headers=api.op)
    assert (api.last.status_code, err["error"]["code"]) == (status, code)


@pytest.fixture
def studio(db_url, tmp_path) -> Iterator[Api]:
    """A server with the admin API on (key "adm"): an Api over it with the server's own key."""
    srv = make_server(db_url, tmp_path, admin_key="adm")
    try:
        with client_for(srv) as client:
            api = Api(client)
            api.server = srv  # type: ignore[attr-defined]
            yield api
    finally:
        srv.engine.dispose()


# -- access ------------------------------------------------------------------------------------


def test_without_an_admin_key_configured_every_admin_route_is_404(api: Api) -> None:
    """No admin key set: the admin API is not there, whatever key a request brings."""
    listed = admin_routes(api.client.app)
    assert ("GET", "/admin/operators") in listed and ("POST", "/admin/operators") in listed
    for method, path in listed:
        for headers in ({}, ADMIN, {"X-Admin-Key": ""}, {"X-Admin-Key": OPERATOR_KEY}):
            body = {} if method in ("POST", "PATCH") else None
            err = api.call(method, path, json=body, headers=headers)
            assert api.last.status_code == 404, (method, path, headers, err)
            assert err["error"]["code"] == "not_found"


def test_a_wrong_or_missing_admin_key_is_401_and_an_operator_key_is_no_admin_key(studio: Api) -> None:
    listed = admin_routes(studio.client.app)
    for method, path in listed:
        for headers in ({}, {"X-Admin-Key": "wrong"}, {"X-Admin-Key": ""}, {"X-Operator-Key": OPERATOR_KEY}):
            body = {} if method in ("POST", "PATCH") else None
            err = studio.call(method, path, json=body, headers=headers)
            assert studio.last.status_code == 401, (method, path, headers, err)
            assert err["error"]["code"] == "unauthorized"
    # And the admin key opens no operator route.
    err = studio.call("GET", "/operator/profile", headers=ADMIN, expect=401)
    assert err["error"]["code"] == "unauthorized"
    assert [o["id"] for o in admin(studio, "GET", "/operators", expect=200)["operators"]] == [1]


# -- accounts ----------------------------------------------------------------------------------


def test_operators_are_created_listed_shown_and_configured_and_secrets_never_echoed(studio: Api) -> None:
    """Create (201, a key that works at once), the name taken (409), list, show, patch (a field
    cleared with null, the rest kept); the secrets are "set" in every reply, never shown."""
    settings = {
        "webhook_url": "https://b.example/hooks",
        "webhook_secret": SECRET,
        "currencies": ["EUR"],
        "games": [GNOMES],
        "max_sessions_per_player": 2,
    }
    made = admin(
        studio, "POST", "/operators", {"name": "casino-b", "settings": settings, "profile": "gb"}, 201
    )
    texts = [studio.last.text]
    op = made["operator"]
    assert made["key"].startswith("rf_") and isinstance(made["key_id"], int)
    assert (op["name"], op["status"], op["profile"]) == ("casino-b", "active", "gb")
    assert op["id"] != 1
    assert (
        op["settings"]["webhook_secret"] == "set" and op["settings"]["webhook_url"] == settings["webhook_url"]
    )
    assert op["settings"]["currencies"] == ["EUR"] and op["settings"]["games"] == [GNOMES]
    assert op["settings"]["wallet_secret"] is None
    err = admin(studio, "POST", "/operators", {"name": "casino-b"}, 409)["error"]
    assert err["code"] == "operator_exists"

    listed = admin(studio, "GET", "/operators", expect=200)["operators"]
    texts.append(studio.last.text)
    assert [(o["id"], o["name"]) for o in listed] == [(1, "default"), (op["id"], "casino-b")]
    shown = admin(studio, "GET", f"/operators/{op['id']}", expect=200)
    texts.append(studio.last.text)
    assert shown == op or shown.get("operator") == op
    assert admin(studio, "GET", "/operators/99999", expect=404)["error"]["code"] == "not_found"

    patched = admin(
        studio,
        "PATCH",
        f"/operators/{op['id']}",
        {"settings": {"webhook_url": None, "webhook_secret": None, "autoplay": False}},
        200,
    )
    texts.append(studio.last.text)
    patched = patched.get("operator", patched)
    assert patched["settings"]["webhook_url"] is None and patched["settings"]["webhook_secret"] is None
    assert patched["settings"]["autoplay"] is False and patched["settings"]["currencies"] == ["EUR"]
    assert patched["settings"]["max_sessions_per_player"] == 2 and patched["profile"] == "gb"
    again = admin(studio, "PATCH", f"/operators/{op['id']}", {"settings": {"wallet_secret": SECRET}}, 200)
    texts.append(studio.last.text)
    assert again.get("operator", again)["settings"]["wallet_secret"] == "set"
    assert not any(SECRET in text for text in texts)

    # The new key works at once and its settings apply: euros only, one game, the gb profile.
    b = operator_api(studio.client, made["key"])
    b.operator("POST", "/players", json={"external_id": "eu", "currency": "EUR"}, idem=None, expect=201)
    b.operator(
        "POST", "/players", json={"external_id": "uk", "currency": "GBP"}, idem=None, expect=(400, 409, 422)
    )
    b.operator("POST", "/players/eu/credit", json={"amount": 1_000}, expect=200)
    session = b.operator("POST", "/players/eu/sessions", json={}, expect=201)
    assert session["profile"] == "gb"
    games = b.call("GET", "/games", token=session["token"], expect=200)["games"]
    assert [g["id"] for g in games] == [GNOMES]
    # The default operator still offers every game.
    token = studio.new_player("home", 0)
    assert len(studio.call("GET", "/games", token=token, expect=200)["games"]) > 1


BAD_SETTINGS = [
    {"wallet_mode": "bogus"},
    {"wallet_url": "ftp://wallet.example"},
    {"webhook_url": "not a url"},
    {"currencies": ["eur"]},
    {"currencies": "EUR"},
    {"games": "reign-of-gnomes"},
    {"rate_limit_per_second": -1},
    {"rate_limit_burst": 0},
    {"rate_limit_burst": "10"},
    {"token_ttl_seconds": 5},
    {"max_sessions_per_player": 0},
    {"autoplay": "yes"},
    {"autoplay_max_spins": 0},
    {"colour": "blue"},
]


def test_bad_settings_are_refused_and_change_nothing(studio: Api) -> None:
    made = admin(studio, "POST", "/operators", {"name": "casino-b", "settings": {"currencies": ["GBP"]}}, 201)
    op_id = made["operator"]["id"]
    before = admin(studio, "GET", f"/operators/{op_id}", expect=200)
    for bad in BAD_SETTINGS:
        err = admin(studio, "PATCH", f"/operators/{op_id}", {"settings": bad}, (400, 422))
        assert err["error"]["code"] and err["error"]["message"], bad
        err = admin(studio, "POST", "/operators", {"name": "casino-x", "settings": bad}, (400, 422))
        assert err["error"]["code"], bad
    for body in ({"profile": "xx"}, {"settings": {}, "extra": 1}, {"settings": []}):
        admin(studio, "PATCH", f"/operators/{op_id}", body, (400, 422))
    for body in ({"name": ""}, {}, {"name": "x" * 500}, {"name": "casino-y", "profile": "xx"}):
        admin(studio, "POST", "/operators", body, (400, 422))
    assert admin(studio, "GET", f"/operators/{op_id}", expect=200) == before
    names = [o["name"] for o in admin(studio, "GET", "/operators", expect=200)["operators"]]
    assert names == ["default", "casino-b"]
    admin(studio, "PATCH", "/operators/99999", {"settings": {"autoplay": False}}, 404)


def test_keys_are_added_and_revoked(studio: Api) -> None:
    """A second key works as the first; a revoked one is 401 on every operator route (the
    other still works); a key id of another operator is 404 under this one."""
    made = admin(studio, "POST", "/operators", {"name": "casino-b"}, 201)
    op_id, first, first_id = made["operator"]["id"], made["key"], made["key_id"]
    added = admin(studio, "POST", f"/operators/{op_id}/keys", {"label": "backup"}, 201)
    second, second_id = added["key"], added["key_id"]
    assert second.startswith("rf_") and second != first and second_id != first_id
    one, two = operator_api(studio.client, first), operator_api(studio.client, second)
    one.operator("POST", "/players", json={"external_id": "p"}, idem=None, expect=201)
    assert two.operator("GET", "/players/p", expect=200)["external_id"] == "p"

    view = admin(studio, "POST", f"/operators/{op_id}/keys/{first_id}/revoke", expect=200)
    view = view.get("key", view)
    assert view["id"] == first_id and view["revoked_at"] is not None
    assert first not in studio.last.text and second not in studio.last.text
    refused_everywhere(one, 401, "unauthorized")
    assert two.operator("GET", "/players/p", expect=200)["balance"] == 0
    # A key of another operator, or none, under this one: 404, and it stays live.
    home_key = admin(studio, "POST", "/operators/1/keys", {}, 201)
    admin(studio, "POST", f"/operators/{op_id}/keys/{home_key['key_id']}/revoke", expect=404)
    admin(studio, "POST", f"/operators/{op_id}/keys/99999/revoke", expect=404)
    admin(studio, "POST", "/operators/99999/keys", {}, 404)
    operator_api(studio.client, home_key["key"]).operator("GET", "/profile", expect=200)
    studio.operator("GET", "/profile", expect=200)  # the server's own key too


# -- suspend and resume ------------------------------------------------------------------------


def test_suspend_closes_sessions_finishes_rounds_and_resume_opens_the_keys_again(
    studio: Api, gnomes_data
) -> None:
    """Suspending B closes its open sessions (their tokens then 403 ``session_closed``),
    finishes its round in play by the game's default play with the win paid, and its keys
    answer 403 ``operator_suspended``; A's players, sessions, rounds and key go on as before.
    Resume opens B's keys again; the closed sessions stay closed."""
    server = studio.server  # type: ignore[attr-defined]
    made = admin(studio, "POST", "/operators", {"name": "casino-b"}, 201)
    b_id = made["operator"]["id"]
    b = operator_api(studio.client, made["key"])
    b_token = b.new_player("alice", 10_000)
    b_other = b.new_player("bob", 1_000)
    pending = b.start(b_token, script=trigger_script(gnomes_data))["round"]
    assert pending["status"] == "pending"
    after_stake = b.balance(b_token)
    a_token = studio.new_player("alice", 10_000)
    a_pending = studio.start(a_token, script=trigger_script(gnomes_data))["round"]

    reply = admin(studio, "POST", f"/operators/{b_id}/suspend", expect=200)
    assert reply["operator"]["status"] == "suspended" and reply["operator"]["id"] == b_id
    assert (reply["sessions_closed"], reply["rounds_finished"], reply["autoplays_stopped"]) == (2, 1, 0)
    for token in (b_token, b_other):
        err = b.call("GET", "/balance", token=token, expect=403)["error"]
        assert err["code"] == "session_closed"
    refused_everywhere(b, 403, "operator_suspended")
    with server.engine.connect() as conn:
        row = conn.execute(select(t.rounds).where(t.rounds.c.id == pending["id"])).one()
        player = conn.execute(select(t.players).where(t.players.c.id == row.player_id)).one()
        moves = (
            conn.execute(select(t.ledger.c.amount).where(t.ledger.c.round_id == pending["id"]))
            .scalars()
            .all()
        )
    assert (row.status, row.completed_by) == ("complete", "server")
    assert player.balance == after_stake + row.win and sum(moves) == row.win - pending["stake"]
    # Operator A: untouched.
    assert studio.balance(a_token) == 10_000 - a_pending["stake"]
    (still,) = studio.call("GET", "/rounds/pending", token=a_token, expect=200)["rounds"]
    assert still["id"] == a_pending["id"] and still["status"] == "pending"
    assert studio.operator("GET", "/players/alice", expect=200)["balance"] == 10_000 - a_pending["stake"]
    listed = {o["id"]: o["status"] for o in admin(studio, "GET", "/operators", expect=200)["operators"]}
    assert listed == {1: "active", b_id: "suspended"}
    again = admin(studio, "POST", f"/operators/{b_id}/suspend", expect=(200, 409))
    if studio.last.status_code == 200:
        assert (again["sessions_closed"], again["rounds_finished"]) == (0, 0)

    resumed = admin(studio, "POST", f"/operators/{b_id}/resume", expect=200)
    assert resumed.get("operator", resumed)["status"] == "active"
    assert b.operator("GET", "/players/alice", expect=200)["balance"] == after_stake + row.win
    err = b.call("GET", "/balance", token=b_token, expect=403)["error"]
    assert err["code"] == "session_closed"
    fresh = b.operator("POST", "/players/alice/sessions", json={}, expect=201)["token"]
    assert b.balance(fresh) == after_stake + row.win
    assert b.call("GET", "/rounds/pending", token=fresh, expect=200)["rounds"] == []
    admin(studio, "POST", "/operators/99999/suspend", expect=404)
    admin(studio, "POST", "/operators/99999/resume", expect=404)


def test_suspend_stops_the_operators_autoplay(studio: Api) -> None:
    made = admin(studio, "POST", "/operators", {"name": "casino-b"}, 201)
    b = operator_api(studio.client, made["key"])
    token = b.new_player("auto", 10_000)
    body = {"game": GNOMES, "stake": 40, "spins": 5, "loss_limit": 1_000}
    b.call("POST", "/autoplay", token=token, json=body, expect=201)
    a_token = studio.new_player("auto", 10_000)
    studio.call("POST", "/autoplay", token=a_token, json=body, expect=201)
    reply = admin(studio, "POST", f"/operators/{made['operator']['id']}/suspend", expect=200)
    assert reply["autoplays_stopped"] == 1 and reply["sessions_closed"] == 1
    assert studio.call("GET", "/autoplay", token=a_token, expect=200)["autoplay"]["running"] is True


# -- reports -----------------------------------------------------------------------------------


def test_the_studio_report_splits_by_operator(studio: Api, gnomes_data) -> None:
    """``GET /admin/reports``: rounds, stakes, wins and GGR per operator and currency, and each
    game and variant in play (B's own variant apart) against its theoretical RTP."""
    studio.server.studio.report_theory = lambda *_: Theory(0.96, 6.0, "stand-in", True)  # type: ignore[attr-defined]
    made = admin(studio, "POST", "/operators", {"name": "casino-b"}, 201)
    b = operator_api(studio.client, made["key"])
    b.operator("PUT", f"/games/{GNOMES}/variant", json={"variant": "92.00"}, expect=200)
    totals: dict[str, tuple[int, int, int]] = {}
    for who, api, rounds in (("default", studio, 2), ("casino-b", b, 3)):
        token = api.new_player("r", 10_000)
        played = [api.start(token, script=plain_spin(gnomes_data))["round"] for _ in range(rounds)]
        totals[who] = (rounds, sum(r["stake"] for r in played), sum(r["win"] for r in played))
    report = admin(studio, "GET", "/reports", expect=200)
    rows = {(r["operator_id"], r["name"], r["currency"]): r for r in report["operators"]}
    assert set(rows) == {(1, "default", "GBP"), (made["operator"]["id"], "casino-b", "GBP")}
    for (_, name, _), row in rows.items():
        n, stakes, wins = totals[name]
        assert (row["rounds"], row["stakes"], row["wins"], row["ggr"]) == (n, stakes, wins, stakes - wins)
    games = {(g["game"], g["variant"]): g for g in report["games"]}
    assert set(games) == {(GNOMES, "95.97"), (GNOMES, "92.00")}
    assert (games[(GNOMES, "95.97")]["rounds"], games[(GNOMES, "92.00")]["rounds"]) == (2, 3)
    assert games[(GNOMES, "92.00")]["theoretical"]["rtp"] == 0.96
    assert admin(studio, "GET", "/reports?to=2000-01-01", expect=200)["operators"] == []
    err = admin(studio, "GET", "/reports?from=yesterday", expect=400)["error"]
    assert err["code"] == "invalid_report"


# -- the command -------------------------------------------------------------------------------


def test_the_operators_command(tmp_path) -> None:
    """``reelforge operators ...`` against a SQLite database: every subcommand prints JSON, a
    refusal is one ``error:`` line and exit code 1, and what it did is what the server sees."""
    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'reelforge.db'}"

    def run(*args: str, code: int = 0) -> Any:
        result = runner.invoke(cli_app, ["operators", *args, "--db", url, "--data-dir", str(tmp_path)])
        assert result.exit_code == code, (args, result.output)
        return json.loads(result.stdout) if code == 0 else result.output

    made = run("create", "casino-c", "--set", 'currencies=["EUR"]', "--profile", "gb")
    op_id = made["operator"]["id"]
    assert made["key"].startswith("rf_") and made["operator"]["name"] == "casino-c"
    assert made["operator"]["settings"]["currencies"] == ["EUR"] and made["operator"]["profile"] == "gb"
    assert "operator_exists" in run("create", "casino-c", code=1)
    assert [o["name"] for o in run("list")["operators"]] == ["default", "casino-c"]
    assert run("show", str(op_id))["name"] == "casino-c"
    assert "not_found" in run("show", "999", code=1)
    sets = ["webhook_url=https://c.example/h", f"webhook_secret={SECRET}", "autoplay=false", "currencies="]
    conf = run("configure", str(op_id), *[arg for pair in sets for arg in ("--set", pair)])
    assert conf["settings"]["webhook_url"] == "https://c.example/h" and conf["settings"]["autoplay"] is False
    assert conf["settings"]["webhook_secret"] == "set" and conf["settings"]["currencies"] is None
    assert "invalid_settings" in run("configure", str(op_id), "--set", "token_ttl_seconds=5", code=1)
    listed = runner.invoke(cli_app, ["operators", "list", "--db", url, "--data-dir", str(tmp_path)]).output
    assert SECRET not in listed
    key = run("add-key", str(op_id), "--label", "second")
    assert key["key"].startswith("rf_") and key["key"] != made["key"]
    revoked = run("revoke-key", str(op_id), str(key["key_id"]))
    assert revoked["key"]["id"] == key["key_id"] and revoked["key"]["revoked_at"] is not None
    suspended = run("suspend", str(op_id))
    assert suspended["operator"]["status"] == "suspended" and suspended["sessions_closed"] == 0
    assert run("resume", str(op_id))["status"] == "active"
    report = run("report")
    assert report["operators"] == [] and report["games"] == []
    # The server sees it: the first key works (the gb profile is casino-c's), the revoked one not.
    srv = make_server(url, tmp_path)
    try:
        with client_for(srv) as client:
            assert (
                operator_api(client, made["key"]).operator("GET", "/profile", expect=200)["profile"] == "gb"
            )
            operator_api(client, key["key"]).operator("GET", "/profile", expect=401)
            assert Api(client).operator("GET", "/profile", expect=200)["profile"] == "default"
    finally:
        srv.engine.dispose()
