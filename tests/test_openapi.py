"""The OpenAPI document is the API's contract, on SQLite and PostgreSQL: every route documents a
reply schema for every status it can answer (the error format for every 4xx, the headers it
sends), and a run through the real API (every route, a round of each game through a feature,
history, recall, replay, autoplay, the operator's calls and deliberately bad calls) gets only
replies the document allows (openapi_contract.py).  A repeated Idempotency-Key returns the
first reply marked ``Idempotency-Replayed: true``; a first reply carries no such header."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import update

from openapi_contract import Contract
from operators_support import api_routes
from reelforge.server.http.api import create_app
from reelforge.server.storage import schema as t
from server_support import OPERATOR_KEY, Api, make_server

ERROR_REF = "#/components/schemas/ErrorReply"
GNOMES = "reign-of-gnomes"
GAMBINI = "ghost-of-gambini"
PINGUINOS = "los-3-pinguinos"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    tmp = tmp_path_factory.mktemp("openapi")
    return create_app(make_server(f"sqlite:///{tmp / 'doc.db'}", tmp))


@pytest.fixture(scope="module")
def doc(app: FastAPI) -> dict[str, Any]:
    return app.openapi()


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def header_params(op: dict[str, Any]) -> set[str]:
    return {p["name"] for p in op.get("parameters", []) if p["in"] == "header"}


# -- the document --------------------------------------------------------------------------------


def test_every_route_and_method_is_documented(app: FastAPI, doc: dict[str, Any]) -> None:
    routes = api_routes(app.routes)
    assert len(routes) >= 35
    documented = {(method, path) for method, path, _ in operations(doc)}
    for route in routes:
        assert route.include_in_schema, route.path
        for method in route.methods:
            assert (method, route.path) in documented, (method, route.path)
    assert len(documented) == sum(len(r.methods) for r in routes)


def test_every_status_has_a_json_schema_and_every_4xx_is_the_error_format(doc: dict[str, Any]) -> None:
    for method, path, op in operations(doc):
        where = f"{method} {path}"
        statuses = sorted(op["responses"])
        assert all(s.isdigit() for s in statuses), (where, statuses)  # no "default", no "4XX"
        # 5xx: only 503, a seamless deployment's operator wallet not answering
        assert not [s for s in statuses if s.startswith("5") and s != "503"], (where, statuses)
        successes = [s for s in statuses if s.startswith("2")]
        assert successes, where
        for status in statuses:
            reply = op["responses"][status]
            assert reply["description"].strip(), (where, status)
            schema = reply["content"]["application/json"]["schema"]
            ref = schema.get("$ref", "")
            assert ref.startswith("#/components/schemas/"), (where, status, schema)
            assert ref.rsplit("/", 1)[1] in doc["components"]["schemas"], (where, status)
            if status.startswith(("4", "5")):
                assert ref == ERROR_REF, (where, status)
            else:
                assert ref != ERROR_REF, (where, status)
    assert "HTTPValidationError" not in doc["components"]["schemas"]


def test_the_refusals_each_kind_of_route_can_answer_are_documented(app: FastAPI, doc: dict[str, Any]) -> None:
    by_route = {(m, r.path): r for r in api_routes(app.routes) for m in r.methods}
    for method, path, op in operations(doc):
        where = f"{method} {path}"
        statuses = {int(s) for s in op["responses"]}
        route = by_route[(method, path)]
        success = [s for s in statuses if s < 300]
        assert (route.status_code or 200) in success, where  # the route's own success status
        assert 413 in statuses, where  # any request: the body limit comes before routing
        headers = header_params(op)
        if path.startswith("/api/v1/operator/"):
            assert "x-operator-key" in headers and {401, 403} <= statuses, where
        elif path.startswith("/api/v1/admin/"):
            assert "x-admin-key" in headers and {401, 404} <= statuses, where
        elif "authorization" in headers:  # a player route
            assert {401, 403} <= statuses, where
        else:
            probe = path.startswith("/api/v1/health")
            unauthenticated = ("/api/v1/demo", "/api/v1/demo/session", "/api/v1/seamless/session")
            assert probe or path in unauthenticated, where
        if "Idempotency-Key" in headers:
            assert {400, 409} <= statuses, where
            for status in success:
                assert "Idempotency-Replayed" in op["responses"][str(status)]["headers"], where
        else:
            for status in success:
                assert "Idempotency-Replayed" not in op["responses"][str(status)].get("headers", {}), where
        takes_values = route.body_field is not None or any(
            p["in"] in ("path", "query") for p in op.get("parameters", [])
        )
        if takes_values or ("Idempotency-Key" in headers and path != "/api/v1/demo/session"):
            assert 422 in statuses, where  # invalid values, or a key reused for another request
        else:
            assert 422 not in statuses, where  # nothing it takes can fail validation
        if route.body_field is not None:
            assert 422 in statuses, where  # a malformed body, nested too deep to parse included
        # The request rate limit (guards.py) on every route but the health probe.
        assert (429 in statuses) == (not path.startswith("/api/v1/health")), where
        if 429 in statuses:
            assert "Retry-After" in op["responses"]["429"]["headers"], where
    not_allowed = doc["components"]["responses"]["MethodNotAllowed"]
    assert "Allow" in not_allowed["headers"]
    assert "Retry-After" in doc["components"]["responses"]["DatabaseUnavailable"]["headers"]


def test_the_document_and_its_page_are_served(app: FastAPI) -> None:
    from fastapi.testclient import TestClient

    client = TestClient(app)
    r = client.get("/openapi.json")
    assert r.status_code == 200 and r.json()["openapi"].startswith("3.1")
    page = client.get("/docs")
    assert page.status_code == 200 and "swagger" in page.text.lower()


# -- the contract: every reply of a run through the API ------------------------------------------


@pytest.fixture
def checked(db_url: str, tmp_path: Any) -> Any:
    """A server (demo mode on) whose every reply is checked against its OpenAPI document."""
    server = make_server(db_url, tmp_path, demo_mode=True, admin_key="tour-admin")
    contract = Contract(create_app(server))
    yield server, contract, Api(contract.client())
    server.engine.dispose()


def assert_kept(contract: Contract) -> None:
    assert contract.replies > 0
    assert not contract.problems, "\n".join(contract.problems[:40])


def seen_statuses(contract: Contract) -> set[int]:
    return {status for _, _, status in contract.seen}


# Routes only a seamless deployment serves (they answer 404 here).
NEEDS_SEAMLESS = {("POST", "/api/v1/seamless/session")}


def test_a_tour_of_every_route_gets_only_documented_replies(checked: Any, gnomes_data: Any) -> None:
    from helpers import trigger_script, wheel_draw

    server, contract, api = checked
    op = api.operator
    op("POST", "/players", json={"external_id": "tour"}, idem=None, expect=201)
    op("POST", "/players", json={"external_id": "tour"}, idem=None, expect=200)
    op("GET", "/players/tour", expect=200)
    op("POST", "/players/tour/credit", json={"amount": 100_000}, expect=200)
    op("POST", "/players/tour/debit", json={"amount": 1_000}, expect=200)
    session = {"reality_check_seconds": 60, "limits_url": "https://operator.example/limits"}
    token = op("POST", "/players/tour/sessions", json=session, expect=201)["token"]

    call = api.call
    call("GET", "/games", token=token, expect=200)
    call("GET", "/balance", token=token, expect=200)
    call("GET", "/session", token=token, expect=200)
    call("GET", f"/settings?game={PINGUINOS}", token=token, expect=200)
    call("PUT", f"/settings?game={PINGUINOS}", token=token, json={"auto_advance": True}, expect=200)
    call("GET", "/autoplay", token=token, expect=200)

    # Reign of Gnomes through Dragon Spins, the wheel and the Ice Diamonds pick.
    rnd = api.start(token, script=trigger_script(gnomes_data))["round"]
    assert rnd["status"] == "pending"
    call("GET", "/rounds/pending", token=token, expect=200)
    call("GET", f"/rounds/pending?game={GNOMES}", token=token, expect=200)
    rnd = api.act(token, rnd["id"], "spin", script=[wheel_draw(gnomes_data, "ice_diamonds")])["round"]
    call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)  # in play: no draws
    op("GET", f"/rounds/{rnd['id']}", expect=200)
    done = api.finish(token, {"round": rnd})["round"]
    assert done["status"] == "complete"
    call("GET", f"/rounds/{done['id']}", token=token, expect=200)
    call("GET", f"/rounds/{done['id']}/replay", token=token, expect=200)
    op("GET", f"/rounds/{done['id']}", expect=200)
    op("GET", f"/rounds/{done['id']}/replay", expect=200)
    for _ in range(3):
        api.finish(token, api.start(token))
    page = call("GET", "/history?limit=2", token=token, expect=200)
    call("GET", f"/history?limit=2&before={page['next_before']}", token=token, expect=200)
    op("GET", "/players/tour/history?limit=3", expect=200)
    op("GET", "/players/tour/ledger?limit=5", expect=200)
    call("GET", "/state", token=token, expect=200)

    # Autoplay: a run played to its end, one stopped by the player.
    body = {"game": GNOMES, "stake": 40, "spins": 3, "loss_limit": 1_000}
    call("POST", "/autoplay", token=token, json=body, expect=201)
    while call("POST", "/autoplay/next", token=token, expect=200)["autoplay"]["running"]:
        pass
    for left in call("GET", "/rounds/pending", token=token, expect=200)["rounds"]:
        api.finish(token, {"round": left})  # where the run stopped for the player
    call("POST", "/autoplay", token=token, json=body, expect=201)
    call("GET", "/autoplay", token=token, expect=200)
    call("POST", "/autoplay/stop", token=token, expect=200)

    # A round in play voided; the bet tables, the variant, the profile.
    pending = api.start(token, script=trigger_script(gnomes_data))["round"]
    op("POST", f"/rounds/{pending['id']}/void", json={"reason": "tour"}, expect=200)
    op("GET", f"/games/{GNOMES}/bets", expect=200)
    op("PUT", f"/games/{GNOMES}/bets", json={"disabled": [80]}, expect=200)
    op("GET", f"/games/{PINGUINOS}/bets?mode=upper", expect=200)
    op("PUT", f"/games/{PINGUINOS}/bets?mode=upper", json={"disabled": [100]}, expect=200)
    op("PUT", f"/games/{GNOMES}/bets", json={"disabled": []}, expect=200)
    op("PUT", f"/games/{GNOMES}/bets?currency=EUR", json={"disabled": [80]}, expect=200)
    op("GET", f"/games/{GNOMES}/bets?currency=EUR", expect=200)
    op("PUT", f"/games/{GNOMES}/currencies", json={"currencies": ["GBP", "EUR"]}, expect=200)
    op("GET", f"/games/{GNOMES}/currencies", expect=200)
    op("PUT", f"/games/{GNOMES}/variant", json={"variant": "95.97"}, expect=200)
    op("PUT", f"/games/{GNOMES}/variant", json={"variant": "92.00", "stake": 80}, expect=200)
    op("GET", f"/games/{GNOMES}/variant", expect=200)
    op("GET", f"/games/{GNOMES}/bets", expect=200)  # with its bet_variants
    op("GET", "/profile", expect=200)
    op("PUT", "/profile", json={"profile": "default"}, expect=200)

    # The back office: the operator's game listing, sessions, rounds in play, the report.
    api.call("GET", "/games", headers=api.op, expect=200)
    call("GET", "/games", token=token, expect=200)  # the bet at 80 with its own variant and RTP
    op("PUT", f"/games/{GNOMES}/variant", json={"variant": None, "stake": 80}, expect=200)
    a_round = api.start(token, script=trigger_script(gnomes_data))["round"]
    page = op("GET", f"/rounds/pending?game={GNOMES}&limit=1", expect=200)
    assert [r["id"] for r in page["rounds"]] == [a_round["id"]]
    api.finish(token, {"round": a_round})
    op("GET", "/reports?theory=false", expect=200)
    spare = op("POST", "/players/tour/sessions", json={"keep_other_sessions": True}, expect=201)
    op("GET", "/players/tour/sessions?limit=5", expect=200)
    op("POST", f"/players/tour/sessions/{spare['session_id']}/revoke", json={"reason": "tour"}, expect=200)
    op("POST", "/players/tour/sessions/revoke", json={"reason": "tour"}, expect=200)
    token = op("POST", "/players/tour/sessions", json=session, expect=201)["token"]

    # A reality check falls due (the session is an hour older), is seen; the session closes.
    with server.engine.begin() as conn:
        conn.execute(update(t.sessions).values(created_at=t.sessions.c.created_at - 61))
    assert call("GET", "/session", token=token, expect=200)["reality_check"]["due"] is True
    call("POST", "/session/reality-check", token=token, expect=200)
    call("POST", "/session/close", token=token, expect=200)
    call("POST", "/seamless/session", json={"token": "t"}, expect=404)  # this server keeps the wallet
    assert call("GET", "/demo", expect=200)["requires_session_limits"] is False
    demo = call("POST", "/demo/session", expect=201)
    call("GET", "/balance", token=demo["token"], expect=200)
    # The studio's admin API: a second operator, its keys, its settings, its suspension.
    admin = {"X-Admin-Key": "tour-admin"}
    made = call("POST", "/admin/operators", headers=admin, json={"name": "tour-b"}, idem=None, expect=201)
    b = made["operator"]["id"]
    call("GET", "/admin/operators", headers=admin, expect=200)
    call("GET", f"/admin/operators/{b}", headers=admin, expect=200)
    call(
        "PATCH",
        f"/admin/operators/{b}",
        headers=admin,
        json={"settings": {"currencies": ["EUR"]}},
        expect=200,
    )
    second = call("POST", f"/admin/operators/{b}/keys", headers=admin, json={}, idem=None, expect=201)
    call("POST", f"/admin/operators/{b}/keys/{made['key_id']}/revoke", headers=admin, idem=None, expect=200)
    call("GET", "/operator/profile", headers={"X-Operator-Key": made["key"]}, expect=401)  # revoked
    call("POST", f"/admin/operators/{b}/suspend", headers=admin, idem=None, expect=200)
    call("GET", "/operator/profile", headers={"X-Operator-Key": second["key"]}, expect=403)  # suspended
    call("POST", f"/admin/operators/{b}/resume", headers=admin, idem=None, expect=200)
    call("GET", "/admin/reports", headers=admin, expect=200)
    call("GET", "/admin/operators", expect=401)
    api.client.get("/api/v1/health")
    call("GET", "/health/live", expect=200)
    call("GET", "/health/ready", expect=503)  # an app made without app.build: not brought up
    contract.app.state.readiness.bring_up()
    call("GET", "/health/ready", expect=200)

    assert_kept(contract)
    for method, path, op_doc in operations(contract.doc):
        success = {int(s) for s in op_doc["responses"] if s.startswith("2")}
        got = {status for m, p, status in contract.seen if (m, p) == (method, path)}
        if (method, path) in NEEDS_SEAMLESS:  # 404 here; tests/test_seamless_faults.py launches
            assert got == {404}, (method, path, got)
            continue
        assert got & success, f"{method} {path} was not called with success"


def test_a_round_of_each_game_through_a_feature_gets_only_documented_replies(checked: Any) -> None:
    import pinguinos_upper_helpers as U
    from gambini_helpers import BET, LARGEST, LS
    from test_gambini_server import feature_start, grow, last_spin, pop_left, quiet_spin
    from test_pinguinos_server import disco_script, hold_script
    from test_pinguinos_upper_server import BONUS_LINE, ROULETTE, SECTIONS, vals
    from test_pinguinos_upper_server import lower_game as pinguinos_line

    _, contract, api = checked
    token = api.new_player("features", 1_000_000)

    def spin(
        rnd: dict, script: list[int] | None = None, name: str = "spin", choice: int | None = None
    ) -> dict:
        body = {"action": name, "choice": choice, "expected_step": rnd["step"], "script": script}
        return api.call("POST", f"/rounds/{rnd['id']}/actions", token=token, json=body, expect=200)["round"]

    def look_back(rnd: dict) -> None:
        api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
        api.operator("GET", f"/rounds/{rnd['id']}", expect=200)
        if rnd["status"] != "pending":
            assert api.call("GET", f"/rounds/{rnd['id']}/replay", token=token, expect=200)["matches_record"]
            api.operator("GET", f"/rounds/{rnd['id']}/replay", expect=200)

    # Ghost of Gambini: the piggy grows to its largest and pops into Lock & Spin.
    for now in range(LARGEST):
        api.start(token, game=GAMBINI, stake=BET, script=grow("left", now))
    ghosts = min(LS.start_ghosts)
    rnd = api.start(token, game=GAMBINI, stake=BET, script=pop_left(ghosts))["round"]
    assert rnd["status"] == "pending"
    look_back(rnd)
    rnd = spin(rnd, quiet_spin(LS))
    rnd = spin(rnd, quiet_spin(LS))
    rnd = spin(rnd, last_spin(LS, [("bronze", "C2")] * ghosts))
    assert rnd["status"] == "complete"
    look_back(rnd)
    # A bought Lock & Spin, played on by the (seeded) production draws.
    script = feature_start(LS, 5)
    rnd = api.start(token, game=GAMBINI, stake=BET, mode="buy-lock-spin", script=script)["round"]
    rnd = api.finish(token, {"round": rnd})["round"]
    look_back(rnd)

    # Los 3 Pinguinos: Bonuses won (5 a coin at 1500), then the upper game: the Roulette, then
    # Double-or-Bonuses played and collected.
    api.start(token, game=PINGUINOS, stake=1500, script=pinguinos_line(BONUS_LINE))
    start = vals(U.spin(ROULETTE), U.offer(100, True))
    rnd = api.start(token, game=PINGUINOS, stake=100, mode="upper", script=start)["round"]
    rnd = spin(rnd, vals(U.roulette(SECTIONS.index(1000))))
    rnd = spin(rnd, vals(U.double(False)), name="play")
    rnd = spin(rnd, name="collect")
    rnd = spin(rnd, vals(U.double(False), U.rounding(39)), name="play")
    assert rnd["status"] == "complete"
    look_back(rnd)
    # An upper round voided in play: its Bonus stake goes back (the void's side moves).
    rnd = api.start(token, game=PINGUINOS, stake=100, mode="upper", script=start)["round"]
    voided = api.operator("POST", f"/rounds/{rnd['id']}/void", json={}, expect=200)
    assert voided["side"] == {"bonuses": 1}
    look_back(rnd)
    # The lower game's Disco stopped, and a hold.
    rnd = api.start(token, game=PINGUINOS, stake=20, script=disco_script("C40", "B1", "B3", "C400", "B4"))
    rnd = spin(rnd["round"], [2], name="stop")
    look_back(rnd)
    rnd = api.start(token, game=PINGUINOS, stake=20, script=hold_script())["round"]
    rnd = api.finish(token, {"round": rnd})["round"]
    look_back(rnd)

    # The test game's hold and gamble decisions.
    for _ in range(20):
        rnd = api.start(token, game="test-meter", stake=10)["round"]
        while rnd["status"] == "pending":
            spec = rnd["actions"][-1]
            rnd = spin(rnd, name=spec["name"], choice=spec["choices"][0] if spec.get("choices") else None)
    look_back(rnd)

    api.call("GET", "/history?limit=100", token=token, expect=200)
    api.call("GET", "/state", token=token, expect=200)
    api.call("GET", "/balance", token=token, expect=200)
    api.operator("GET", "/players/features/ledger?limit=1000", expect=200)
    assert_kept(contract)


def test_deliberately_bad_calls_get_documented_errors(checked: Any, db_url: str, tmp_path: Any) -> None:
    from helpers import trigger_script

    server, contract, api = checked
    call, op = api.call, api.operator
    token = api.new_player("bad", 1_000)
    game = {"game": GNOMES, "stake": 40}
    # 400
    call("POST", "/rounds", token=token, json=game, idem=None, expect=400)
    call("POST", "/rounds", token=token, json={**game, "stake": 41}, expect=400)
    call("POST", "/rounds", token=token, json={**game, "mode": "nope"}, expect=400)
    call("PUT", f"/settings?game={PINGUINOS}", token=token, json={"nope": True}, expect=400)
    op("PUT", "/profile", json={"profile": "mars"}, expect=400)
    op("PUT", f"/games/{GNOMES}/variant", json={"variant": "50"}, expect=400)
    op("GET", f"/games/{GNOMES}/bets?mode=upper", expect=400)
    op("PUT", f"/games/{GNOMES}/bets", json={"disabled": [41]}, expect=400)
    op("POST", "/players/bad/sessions", json={"reality_check_seconds": 86_400}, expect=400)
    call("POST", "/demo/session", idem="x" * 129, expect=400)
    # 401
    call("GET", "/balance", expect=401)
    call("GET", "/balance", token="forged", expect=401)
    call("POST", "/rounds", token="forged", json=game, expect=401)
    op("GET", "/players/bad", headers={"X-Operator-Key": "wrong"}, expect=401)
    call("GET", "/operator/profile", expect=401)
    # 402
    poor = api.new_player("poor", 0)
    call("POST", "/rounds", token=poor, json=game, expect=402)
    op("POST", "/players/poor/debit", json={"amount": 1}, expect=402)
    # 404
    call("POST", "/rounds", token=token, json={**game, "game": "nope"}, expect=404)
    call("GET", "/rounds/999999", token=token, expect=404)
    call("GET", "/rounds/999999/replay", token=token, expect=404)
    call("POST", "/rounds/999999/actions", token=token, json={"action": "spin"}, expect=404)
    call("GET", "/settings?game=nope", token=token, expect=404)
    op("GET", "/players/nobody", expect=404)
    op("GET", "/players/nobody/ledger", expect=404)
    op("GET", "/rounds/999999", expect=404)
    op("POST", "/rounds/999999/void", json={}, expect=404)
    op("GET", "/games/nope/bets", expect=404)
    op("GET", "/games/nope/currencies", expect=404)
    op("PUT", f"/games/{GNOMES}/currencies", json={"currencies": ["USD"]}, expect=400)
    op("PUT", f"/games/{GNOMES}/currencies", json={"currencies": "GBP"}, expect=422)
    api.client.get("/api/v1/nope")  # a path no route has: 404
    # 405, with Allow
    assert api.client.delete("/api/v1/balance").headers["allow"] == "GET"
    api.client.get("/api/v1/rounds/7/actions")
    # 409
    rnd = api.start(token, script=trigger_script(server.game(GNOMES).data()))["round"]
    call("POST", "/rounds", token=token, json=game, expect=409)
    call("GET", f"/rounds/{rnd['id']}/replay", token=token, expect=409)
    op("GET", f"/rounds/{rnd['id']}/replay", expect=409)
    api.act(token, rnd["id"], "pick", 1, expect=409)
    api.act(token, rnd["id"], "spin", expected_step=5, expect=409)
    call("POST", "/autoplay", token=token, json={**game, "spins": 2, "loss_limit": 100}, expect=409)
    call("POST", "/autoplay/next", token=token, expect=409)
    call("POST", "/autoplay/stop", token=token, expect=409)
    call("POST", "/session/reality-check", token=token, expect=409)
    op("POST", f"/rounds/{rnd['id']}/void", json={}, expect=200)
    op("POST", f"/rounds/{rnd['id']}/void", json={}, expect=409)
    api.act(token, rnd["id"], "spin", expect=409)
    # 413
    big = {"Authorization": f"Bearer {token}", "Idempotency-Key": "big", "Content-Type": "application/json"}
    api.client.post("/api/v1/rounds", content=b" " * 100_000, headers=big)
    api.client.get("/api/v1/balance", headers={**big, "Content-Length": "abc"})
    api.client.get("/api/v1/health", headers={"Content-Length": "abc"})
    # 422
    nested = {"X-Operator-Key": OPERATOR_KEY, "Content-Type": "application/json"}
    r = api.client.post("/api/v1/operator/players", content=b"[" * 5000 + b"]" * 5000, headers=nested)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text
    call("POST", "/rounds", token=token, json={**game, "stake": "40"}, expect=422)
    call("POST", "/rounds", token=token, json={**game, "extra": 1}, expect=422)
    call("GET", "/history?limit=0", token=token, expect=422)
    call("GET", "/rounds/abc", token=token, expect=422)
    call("GET", "/rounds/pending?game=" + "x" * 65, token=token, expect=422)
    call("GET", "/rounds/pending?game=%00", token=token, expect=422)  # PostgreSQL takes no NUL
    call("GET", "/state?game=%00", token=token, expect=422)
    call("GET", f"/history?before={2**63}", token=token, expect=422)  # no SQLite integer
    op("GET", f"/players/bad/ledger?before={2**63}", expect=422)
    op("GET", f"/players/bad/history?before={2**63}", expect=422)
    call("POST", "/rounds", token=token, json=game, idem="reused", expect=201)
    call("POST", "/rounds", token=token, json={**game, "stake": 80}, idem="reused", expect=422)
    op("POST", "/players", json={"external_id": "bad id"}, idem=None, expect=422)
    op("GET", "/players/bad/ledger?limit=0", expect=422)
    op("POST", "/players/bad/credit", json={"amount": 1.5}, expect=422)
    # 403: a closed session; the jurisdiction's refusals.
    call("POST", "/session/close", token=token, expect=200)
    call("GET", "/balance", token=token, expect=403)
    call("POST", "/rounds", token=token, json=game, expect=403)
    op("PUT", "/profile", json={"profile": "gb"}, expect=200)
    gb = api.new_player("gb-player", 10_000)
    call(
        "POST", "/rounds", token=gb, json={"game": GAMBINI, "stake": 40, "mode": "buy-lock-spin"}, expect=403
    )
    call("POST", "/autoplay", token=gb, json={**game, "spins": 2, "loss_limit": 100}, expect=403)
    # 429, with Retry-After: a second round start within the GB cycle time.
    api.finish(gb, api.start(gb))
    assert call("POST", "/rounds", token=gb, json=game, expect=429)["error"]["code"] == "too_soon"
    assert int(api.last.headers["retry-after"]) >= 1
    # Scripted draws refused in production; demo sessions off.
    strict = make_server(db_url, tmp_path, allow_scripted_draws=False)
    refusing = Contract(create_app(strict))
    other = Api(refusing.client())
    other.operator("PUT", "/profile", json={"profile": "default"}, expect=200)
    tok = other.new_player("strict", 1_000)
    other.call("POST", "/rounds", token=tok, json={**game, "script": [0, 0, 0, 0, 0]}, expect=403)
    other.call("POST", "/demo/session", expect=404)
    other.call("GET", "/demo", expect=404)
    strict.engine.dispose()

    assert_kept(contract)
    assert_kept(refusing)
    assert {400, 401, 402, 403, 404, 409, 422, 429} <= seen_statuses(contract) | seen_statuses(refusing)


# -- the replay header ---------------------------------------------------------------------------


def replayed(api: Api) -> str | None:
    return api.last.headers.get("idempotency-replayed")


def test_a_repeated_key_returns_the_first_reply_marked_replayed(checked: Any, gnomes_data: Any) -> None:
    from helpers import trigger_script, wheel_draw

    server, contract, api = checked
    token = api.new_player("again", 10_000)

    def twice(method: str, path: str, json: Any = None, operator: bool = False, **kw: Any) -> Any:
        send = api.operator if operator else api.call
        key = f"same:{method}:{path}"
        first = send(method, path, json=json, idem=key, **kw)
        assert replayed(api) is None, (method, path)  # a first reply: no header
        status = api.last.status_code
        again = send(method, path, json=json, idem=key, **kw)
        assert again == first and api.last.status_code == status, (method, path)
        assert replayed(api) == "true", (method, path)
        return first

    body = {"game": GNOMES, "stake": 40, "script": trigger_script(gnomes_data)}
    rid = twice("POST", "/rounds", body, token=token)["round"]["id"]
    to_pick = {"action": "spin", "expected_step": 1, "script": [wheel_draw(gnomes_data, "ice_diamonds")]}
    assert twice("POST", f"/rounds/{rid}/actions", to_pick, token=token)["round"]["status"] == "pending"
    twice("POST", f"/rounds/{rid}/void", {"reason": "replayed"}, operator=True)
    twice("PUT", f"/settings?game={PINGUINOS}", {"auto_risk": True}, token=token)
    run = {"game": GNOMES, "stake": 40, "spins": 2, "loss_limit": 100}
    twice("POST", "/autoplay", run, token=token)
    twice("POST", "/autoplay/stop", token=token)
    api.call("POST", "/autoplay", token=token, json=run, expect=201)
    twice("POST", "/autoplay/next", token=token)
    twice("POST", "/players/again/credit", {"amount": 500}, operator=True)
    twice("POST", "/players/again/debit", {"amount": 500}, operator=True)
    opened = twice("POST", "/players/again/sessions", {"spend_limit": 5_000}, operator=True)
    twice("PUT", f"/games/{GNOMES}/bets", {"disabled": [80]}, operator=True)
    twice("POST", "/demo/session")
    with server.engine.begin() as conn:
        conn.execute(update(t.sessions).values(created_at=t.sessions.c.created_at - 3_601))
    twice("POST", "/session/reality-check", token=opened["token"])
    # (A repeat of a close finds the session closed: 403, before any key is looked at.)

    # A refused request stores nothing: the same key, once it can succeed, is a first reply.
    poor = api.new_player("poor-again", 0)
    body = {"game": GNOMES, "stake": 40}
    api.call("POST", "/rounds", token=poor, json=body, idem="after-402", expect=402)
    assert replayed(api) is None
    api.operator("POST", "/players/poor-again/credit", json={"amount": 100}, expect=200)
    api.call("POST", "/rounds", token=poor, json=body, idem="after-402", expect=201)
    assert replayed(api) is None
    api.call("POST", "/rounds", token=poor, json={**body, "stake": 80}, idem="after-402", expect=422)
    assert replayed(api) is None  # a key reused for another request: an error, not a replay
    # Replies no key stands behind are never marked.
    api.operator("POST", "/players", json={"external_id": "again"}, idem=None, expect=200)
    assert replayed(api) is None
    api.call("GET", "/balance", token=poor, expect=200)
    assert replayed(api) is None
    assert_kept(contract)
