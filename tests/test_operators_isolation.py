"""Many operators on one server (issue 25), on SQLite and PostgreSQL: each operator's key reaches
only its own players, rounds, sessions, settings and reports, and each player's token only its
own rounds.

Operator A is the deployment's own (the server's configured key, ``OPERATOR_KEY``); operator B
is made through the admin API.  Both hold players (one external id, "alice", at both), open
sessions, rounds complete and in play, and ledger rows.  Every operator route, as the app lists
them, is called with B's key naming A's things: the reply is the one for an id that exists
nowhere (status and body, the id itself aside), and not one row of the database moves.  A route
added later without a case here fails ``test_every_operator_route_has_a_case``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select

from helpers import trigger_script
from operators_support import ADMIN, api_routes, operator_api, plain_spin
from reelforge.server.storage import schema as t
from server_support import OPERATOR_KEY, Api, client_for, make_server

GNOMES = "reign-of-gnomes"
GHOST_ROUND = 987_654_321  # a round id that exists nowhere
GHOST_SESSION = 876_543_219  # a session id that exists nowhere
GHOST_PLAYER = "nobody-here"  # an external id that exists nowhere


def create_operator(api: Api, name: str, **body: Any) -> dict:
    return api.call("POST", "/admin/operators", json={"name": name, **body}, headers=ADMIN, expect=201)


def session_ids(api: Api, player: str) -> list[int]:
    return [s["id"] for s in api.operator("GET", f"/players/{player}/sessions", expect=200)["sessions"]]


def database(server) -> dict[str, list[tuple]]:
    """Every row of every table: what a refused call must leave as it was."""
    with server.engine.connect() as conn:
        return {
            table.name: sorted((tuple(r) for r in conn.execute(select(table))), key=repr)
            for table in t.metadata.sorted_tables
        }


def changed_tables(before: dict[str, list[tuple]], after: dict[str, list[tuple]]) -> dict[str, Any]:
    return {
        name: {
            "gone": sorted(set(before[name]) - set(rows), key=repr),
            "new": sorted(set(rows) - set(before[name]), key=repr),
        }
        for name, rows in after.items()
        if rows != before[name]
    }


@dataclass
class World:
    server: Any
    a: Api  # operator A: the server's own key
    b: Api  # operator B: made through the admin API
    b_id: int
    tokens: dict[str, str] = field(default_factory=dict)  # "a:alice", "b:b-only", ...
    rounds: dict[str, int] = field(default_factory=dict)  # "a_done", "a_pending", "b_done", "b_pending"
    sessions: dict[str, int] = field(default_factory=dict)  # the tokens' session ids, by the same names


@pytest.fixture
def world(db_url, tmp_path, gnomes_data) -> Iterator[World]:
    """Operators A and B on one server, each with players, sessions, rounds and ledger rows."""
    srv = make_server(db_url, tmp_path, admin_key="adm")
    try:
        with client_for(srv) as client:
            a = operator_api(client, OPERATOR_KEY)
            made = create_operator(a, "casino-b")
            b = operator_api(client, made["key"])
            w = World(srv, a, b, made["operator"]["id"])
            for who, api, players in (("a", a, ("alice", "a-only")), ("b", b, ("alice", "b-only"))):
                for name in players:
                    w.tokens[f"{who}:{name}"] = api.new_player(name, 10_000 if who == "a" else 7_000)
                    w.sessions[f"{who}:{name}"] = session_ids(api, name)[0]
                api.operator("POST", f"/players/{players[1]}/debit", json={"amount": 100}, expect=200)
                done = api.start(w.tokens[f"{who}:alice"], script=plain_spin(gnomes_data))["round"]
                pending = api.start(w.tokens[f"{who}:{players[1]}"], script=trigger_script(gnomes_data))[
                    "round"
                ]
                assert done["status"] == "complete" and pending["status"] == "pending"
                w.rounds[f"{who}_done"], w.rounds[f"{who}_pending"] = done["id"], pending["id"]
            yield w
    finally:
        srv.engine.dispose()


# -- the cases: every operator route -----------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """One call with B's key naming A's things (``real``), and the same call naming things
    that exist nowhere (``ghost``); ``names`` pairs each of A's ids in it with its ghost."""

    method: str
    real: str
    ghost: str
    body: Any
    names: tuple[tuple[Any, Any], ...]


def probes(w: World) -> dict[tuple[str, str], list[Probe]]:
    """The cross-operator calls of each route naming a player, a session or a round."""
    a_done, a_pending = w.rounds["a_done"], w.rounds["a_pending"]
    a_only_sid, a_alice_sid = w.sessions["a:a-only"], w.sessions["a:alice"]
    out: dict[tuple[str, str], list[Probe]] = {}

    def player(method: str, template: str, body: Any = None) -> None:
        real = template.format(external_id="a-only")
        ghost = template.format(external_id=GHOST_PLAYER)
        out[(method, "/api/v1/operator" + template)] = [
            Probe(method, real, ghost, body, (("a-only", GHOST_PLAYER),))
        ]

    def rounds(method: str, template: str, body: Any = None) -> None:
        out[(method, "/api/v1/operator" + template)] = [
            Probe(
                method,
                template.format(round_id=r),
                template.format(round_id=GHOST_ROUND),
                body,
                ((r, GHOST_ROUND),),
            )
            for r in (a_done, a_pending)
        ]

    player("GET", "/players/{external_id}")
    player("POST", "/players/{external_id}/credit", {"amount": 100})
    player("POST", "/players/{external_id}/debit", {"amount": 100})
    player("POST", "/players/{external_id}/sessions", {})
    player("GET", "/players/{external_id}/sessions")
    player("POST", "/players/{external_id}/sessions/revoke", {"reason": "probe"})
    player("GET", "/players/{external_id}/history")
    player("GET", "/players/{external_id}/ledger")
    one = "/players/{}/sessions/{}/revoke"
    out[("POST", "/api/v1/operator/players/{external_id}/sessions/{session_id}/revoke")] = [
        # A's player and its session; B's own players naming A's sessions.
        Probe("POST", one.format("a-only", a_only_sid), one.format(GHOST_PLAYER, GHOST_SESSION), {},
              (("a-only", GHOST_PLAYER), (a_only_sid, GHOST_SESSION))),
        Probe("POST", one.format("b-only", a_only_sid), one.format("b-only", GHOST_SESSION), {},
              ((a_only_sid, GHOST_SESSION),)),
        Probe("POST", one.format("alice", a_alice_sid), one.format("alice", GHOST_SESSION), {},
              ((a_alice_sid, GHOST_SESSION),)),
    ]  # fmt: skip
    rounds("GET", "/rounds/{round_id}")
    rounds("GET", "/rounds/{round_id}/replay")
    rounds("POST", "/rounds/{round_id}/void", {"reason": "probe"})
    return out


# Routes whose case is not "an id of A's is one that exists nowhere": lists, reports, settings.
COVERED_ELSEWHERE = {
    ("POST", "/api/v1/operator/players"): "test_two_operators_each_hold_their_own_alice",
    ("GET", "/api/v1/operator/rounds/pending"): "test_lists_and_reports_show_only_the_operators_own",
    ("GET", "/api/v1/operator/reports"): "test_lists_and_reports_show_only_the_operators_own",
    ("GET", "/api/v1/operator/profile"): "test_one_operators_settings_never_reach_the_other",
    ("PUT", "/api/v1/operator/profile"): "test_one_operators_settings_never_reach_the_other",
    ("GET", "/api/v1/operator/games/{game_id}/bets"): "test_one_operators_settings_never_reach_the_other",
    ("PUT", "/api/v1/operator/games/{game_id}/bets"): "test_one_operators_settings_never_reach_the_other",
    (
        "GET",
        "/api/v1/operator/games/{game_id}/currencies",
    ): "test_one_operators_settings_never_reach_the_other",
    (
        "PUT",
        "/api/v1/operator/games/{game_id}/currencies",
    ): "test_one_operators_settings_never_reach_the_other",
    ("GET", "/api/v1/operator/games/{game_id}/variant"): "test_one_operators_settings_never_reach_the_other",
    ("PUT", "/api/v1/operator/games/{game_id}/variant"): "test_one_operators_settings_never_reach_the_other",
}

# The player routes naming a round, with the body each is called with.
PLAYER_ROUND_ROUTES = {
    ("POST", "/api/v1/rounds/{round_id}/actions"): {"action": "spin", "choice": None},
    ("GET", "/api/v1/rounds/{round_id}"): None,
    ("GET", "/api/v1/rounds/{round_id}/replay"): None,
}


def routes(app, prefix: str) -> set[tuple[str, str]]:
    return {
        (method, r.path) for r in api_routes(app.routes) if r.path.startswith(prefix) for method in r.methods
    }


def masked(reply: Any, names: tuple[Any, ...]) -> str:
    """The reply's JSON with the ids named replaced by placeholders, in order."""
    text = json.dumps(reply, sort_keys=True)
    for i, name in enumerate(names):
        if isinstance(name, int):
            text = re.sub(rf"(?<!\d){name}(?!\d)", f"<{i}>", text)
        else:
            text = text.replace(name, f"<{i}>")
    return text


def same_as_nowhere(api: Api, probe: Probe) -> None:
    """The call naming another operator's things answers as the call naming nothing."""
    got = api.operator(probe.method, probe.real, json=probe.body)
    got_status = api.last.status_code
    want = api.operator(probe.method, probe.ghost, json=probe.body)
    want_status = api.last.status_code
    assert want_status == 404, (probe, want)
    real_names = tuple(n for n, _ in probe.names)
    ghost_names = tuple(g for _, g in probe.names)
    assert (got_status, masked(got, real_names)) == (want_status, masked(want, ghost_names)), probe


# -- the tests ---------------------------------------------------------------------------------


def test_every_operator_route_has_a_case(world: World) -> None:
    """Every route under /api/v1/operator (as the app lists them) is checked by this file, and
    every player route naming a round: a route added without a case fails here."""
    app = world.a.client.app
    cases = set(probes(world)) | set(COVERED_ELSEWHERE)
    listed = routes(app, "/api/v1/operator")
    assert listed == cases, {"without a case": listed - cases, "no such route": cases - listed}
    naming_rounds = {(m, p) for m, p in routes(app, "/api/v1/") if "{round_id}" in p and "/operator" not in p}
    naming_rounds -= {(m, p) for m, p in naming_rounds if p.startswith("/api/v1/admin")}
    assert naming_rounds == set(PLAYER_ROUND_ROUTES)


def test_another_operators_ids_answer_as_ids_that_exist_nowhere(world: World) -> None:
    """B's key naming A's player, A's sessions (also under B's own players, one of them B's
    "alice") and A's rounds, complete and in play, gets exactly the 404 a name that exists
    nowhere gets, for every route; afterwards every table is as it was (no credit, debit,
    session opened or closed, round voided, idempotency key stored)."""
    before = database(world.server)
    for cases in probes(world).values():
        for probe in cases:
            same_as_nowhere(world.b, probe)
    assert changed_tables(before, database(world.server)) == {}
    # A's own key still reaches every one of them (they exist: the 404 was B's alone).
    a = world.a
    assert a.operator("GET", "/players/a-only", expect=200)["balance"] == 10_000 - 100 - 40
    for r in (world.rounds["a_done"], world.rounds["a_pending"]):
        assert a.operator("GET", f"/rounds/{r}", expect=200)["player"] in ("alice", "a-only")
    assert session_ids(a, "a-only") == [world.sessions["a:a-only"]]
    a.call("GET", "/balance", token=world.tokens["a:a-only"], expect=200)


def test_player_tokens_reach_only_their_own_rounds(world: World) -> None:
    """A's player's token naming B's rounds (complete and in play) gets the 404 of a round that
    exists nowhere, on every player route naming a round; nothing moves."""
    token = world.tokens["a:alice"]
    before = database(world.server)
    for (method, path), body in PLAYER_ROUND_ROUTES.items():
        template = path.removeprefix("/api/v1")
        for r in (world.rounds["b_done"], world.rounds["b_pending"]):
            got = world.a.call(method, template.format(round_id=r), token=token, json=body)
            got_status = world.a.last.status_code
            want = world.a.call(method, template.format(round_id=GHOST_ROUND), token=token, json=body)
            assert world.a.last.status_code == 404, (path, want)
            assert (got_status, masked(got, (r,))) == (404, masked(want, (GHOST_ROUND,))), (path, r)
    assert changed_tables(before, database(world.server)) == {}
    # And the other way: B's token and A's round in play.
    b_token = world.tokens["b:b-only"]
    err = world.b.act(b_token, world.rounds["a_pending"], "spin", expect=404)
    assert masked(err, (world.rounds["a_pending"],)) == masked(
        world.b.act(b_token, GHOST_ROUND, "spin", expect=404), (GHOST_ROUND,)
    )
    # Each player's pending list and history hold its own rounds only.
    assert [
        r["id"] for r in world.a.call("GET", "/rounds/pending", token=world.tokens["a:a-only"])["rounds"]
    ] == [world.rounds["a_pending"]]
    assert [r["id"] for r in world.b.call("GET", "/history", token=world.tokens["b:alice"])["rounds"]] == [
        world.rounds["b_done"]
    ]


def test_lists_and_reports_show_only_the_operators_own(world: World, gnomes_data) -> None:
    """``GET /rounds/pending`` and ``GET /reports`` of each operator hold its own rounds and
    players only; B's play moves B's report and leaves A's as it was."""
    a, b = world.a, world.b
    assert [r["id"] for r in a.operator("GET", "/rounds/pending", expect=200)["rounds"]] == [
        world.rounds["a_pending"]
    ]
    assert [r["id"] for r in b.operator("GET", "/rounds/pending", expect=200)["rounds"]] == [
        world.rounds["b_pending"]
    ]
    # A page "before" one of A's ids, asked by B: still only B's.
    page = b.operator("GET", f"/rounds/pending?before={world.rounds['a_pending'] + 1}", expect=200)
    assert {r["id"] for r in page["rounds"]} <= {world.rounds["b_pending"]}
    assert b.operator("GET", f"/rounds/pending?game={GNOMES}", expect=200)["rounds"][0]["player"] == "b-only"

    def report(api: Api) -> dict:
        return api.operator("GET", "/reports?theory=false&players=true", expect=200)

    a_report, b_report = report(a), report(b)
    assert {p["player"] for p in a_report["players"]} <= {"alice", "a-only"}
    assert {p["player"] for p in b_report["players"]} <= {"alice", "b-only"}
    assert "alice" in {p["player"] for p in b_report["players"]}
    # B plays one more round: B's report counts it, A's does not move.
    rnd = b.start(world.tokens["b:alice"], script=plain_spin(gnomes_data))["round"]
    assert report(a) == a_report
    (before,), (after,) = b_report["totals"], report(b)["totals"]
    assert (after["rounds"], after["stakes"], after["wins"]) == (
        before["rounds"] + 1, before["stakes"] + rnd["stake"], before["wins"] + rnd["win"],
    )  # fmt: skip


def test_one_operators_settings_never_reach_the_other(world: World) -> None:
    """Profile, RTP variant, bets and currencies are each operator's: what B sets, A does not
    see (in its settings routes, its ``GET /games``, its players' rounds and sessions), and
    the other way round.  B's key on ``GET /games`` shows B's settings.  The same
    Idempotency-Key used by both for a settings call names two requests."""
    a, b = world.a, world.b

    def views(api: Api) -> dict[str, Any]:
        return {
            "profile": api.operator("GET", "/profile", expect=200),
            "bets": api.operator("GET", f"/games/{GNOMES}/bets", expect=200),
            "currencies": api.operator("GET", f"/games/{GNOMES}/currencies", expect=200),
            "variant": api.operator("GET", f"/games/{GNOMES}/variant", expect=200),
        }

    def listing(api: Api) -> dict[str, Any]:
        games = api.call("GET", "/games", headers=api.op, expect=200)
        gnomes = next(g for g in games["games"] if g["id"] == GNOMES)
        return {
            "profile": games["profile"],
            "variant": gnomes["variant"],
            "disabled": gnomes["bets"]["base"]["disabled"],
            "offered": gnomes["currencies_offered"],
        }

    a_start, b_start = views(a), views(b)
    assert a_start == b_start  # both at the defaults
    assert (
        listing(a)
        == listing(b)
        == {"profile": "default", "variant": "95.97", "disabled": [], "offered": ["GBP", "EUR"]}
    )

    # B changes everything; the settings call with the same key as A's later one.
    b.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)
    b.operator("PUT", f"/games/{GNOMES}/variant", json={"variant": "92.00"}, idem="shared", expect=200)
    b.operator("PUT", f"/games/{GNOMES}/bets", json={"disabled": [40]}, expect=200)
    b.operator("PUT", f"/games/{GNOMES}/currencies", json={"currencies": ["GBP"]}, expect=200)
    assert views(a) == a_start
    b_set = views(b)
    assert b_set != b_start
    assert b_set["profile"]["profile"] == "gb" and b_set["variant"]["variant"] == "92.00"
    assert b_set["bets"]["disabled"] == [40] and b_set["currencies"]["offered"] == ["GBP"]
    assert listing(b) == {"profile": "gb", "variant": "92.00", "disabled": [40], "offered": ["GBP"]}
    assert listing(a) == {"profile": "default", "variant": "95.97", "disabled": [], "offered": ["GBP", "EUR"]}
    # Their players: A's play at 40 at A's variant; B's 40 is off; new sessions take each profile.
    assert a.start(world.tokens["a:alice"], stake=40)["round"]["variant"] == "95.97"
    assert b.start(world.tokens["b:alice"], stake=40, expect=400)["error"]["code"] == "bet_disabled"
    assert b.start(world.tokens["b:alice"], stake=80)["round"]["variant"] == "92.00"
    assert a.operator("POST", "/players/alice/sessions", json={}, expect=201)["profile"] == "default"
    assert b.operator("POST", "/players/alice/sessions", json={}, expect=201)["profile"] == "gb"

    # A changes its own (the same Idempotency-Key as B's variant call: another request).
    a.operator("PUT", f"/games/{GNOMES}/variant", json={"variant": "94.00"}, idem="shared", expect=200)
    a.operator("PUT", f"/games/{GNOMES}/bets", json={"disabled": [80]}, expect=200)
    a.operator("PUT", f"/games/{GNOMES}/currencies", json={"currencies": ["EUR"]}, expect=200)
    assert views(b) == b_set
    assert listing(b) == {"profile": "gb", "variant": "92.00", "disabled": [40], "offered": ["GBP"]}
    assert listing(a) == {"profile": "default", "variant": "94.00", "disabled": [80], "offered": ["EUR"]}
    assert a.operator("GET", f"/games/{GNOMES}/variant", expect=200)["variant"] == "94.00"


def test_two_operators_each_hold_their_own_alice(world: World) -> None:
    """One external id at two operators is two players: separate ids, balances, ledgers,
    sessions and histories; a credit (even under the same Idempotency-Key) moves one only; a
    revoke of one's sessions leaves the other's open.  ``POST /players`` with B's key naming
    A's player (in a currency other than A's player holds) makes B's own, as for a new name."""
    a, b = world.a, world.b
    a_alice = a.operator("GET", "/players/alice", expect=200)
    b_alice = b.operator("GET", "/players/alice", expect=200)
    assert a_alice["id"] != b_alice["id"]
    assert (a_alice["balance"], b_alice["balance"]) == (
        a.balance(world.tokens["a:alice"]),
        b.balance(world.tokens["b:alice"]),
    )
    with world.server.engine.connect() as conn:
        rows = conn.execute(
            select(t.players.c.id, t.players.c.operator_id).where(t.players.c.external_id == "alice")
        )
        owners = dict(rows.all())
    assert owners == {a_alice["id"]: 1, b_alice["id"]: world.b_id}

    # A credit to A's alice, then B's under the same key: two movements, one each.
    moved = a.operator("POST", "/players/alice/credit", json={"amount": 1_000}, idem="same", expect=200)
    assert moved["balance"] == a_alice["balance"] + 1_000
    assert b.operator("GET", "/players/alice", expect=200)["balance"] == b_alice["balance"]
    other = b.operator("POST", "/players/alice/credit", json={"amount": 5}, idem="same", expect=200)
    assert other["balance"] == b_alice["balance"] + 5
    assert a.operator("GET", "/players/alice", expect=200)["balance"] == a_alice["balance"] + 1_000
    a_ledger = a.operator("GET", "/players/alice/ledger", expect=200)["entries"]
    b_ledger = b.operator("GET", "/players/alice/ledger", expect=200)["entries"]
    assert not {e["id"] for e in a_ledger} & {e["id"] for e in b_ledger}
    assert a_ledger[0]["amount"] == 1_000 and b_ledger[0]["amount"] == 5

    # Histories and sessions are each player's.
    a_hist = a.operator("GET", "/players/alice/history", expect=200)["rounds"]
    b_hist = b.operator("GET", "/players/alice/history", expect=200)["rounds"]
    assert [r["id"] for r in a_hist] == [world.rounds["a_done"]]
    assert [r["id"] for r in b_hist] == [world.rounds["b_done"]]
    assert session_ids(a, "alice") == [world.sessions["a:alice"]]
    assert session_ids(b, "alice") == [world.sessions["b:alice"]]
    revoked = b.operator("POST", "/players/alice/sessions/revoke", json={"reason": "b closes"}, expect=200)
    assert [s["id"] for s in revoked["revoked"]] == [world.sessions["b:alice"]]
    assert a.balance(world.tokens["a:alice"]) == a_alice["balance"] + 1_000  # A's session still open
    err = b.call("GET", "/balance", token=world.tokens["b:alice"], expect=403)["error"]
    assert err["code"] == "session_closed"

    # B "creates" A's a-only, in euros: a new player of B's (201), A's own untouched.
    a_only = a.operator("GET", "/players/a-only", expect=200)
    made = b.operator(
        "POST", "/players", json={"external_id": "a-only", "currency": "EUR"}, idem=None, expect=201
    )
    ghost = b.operator(
        "POST", "/players", json={"external_id": GHOST_PLAYER, "currency": "EUR"}, idem=None, expect=201
    )
    assert {k: v for k, v in made.items() if k not in ("id", "external_id")} == {
        k: v for k, v in ghost.items() if k not in ("id", "external_id")
    }
    assert made["id"] != a_only["id"] and (made["balance"], made["currency"]) == (0, "EUR")
    assert a.operator("GET", "/players/a-only", expect=200) == a_only
    # A's player of that name stays A's: its sessions and rounds are not B's new one's.
    assert session_ids(b, "a-only") == []
    assert b.operator("GET", "/players/a-only/history", expect=200)["rounds"] == []
