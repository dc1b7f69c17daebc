"""Migration 0011 (many operators) upgrades a single-operator database in place, on SQLite and
PostgreSQL.

A database is migrated to 0010 only and filled the way a single-operator server of that time
left it: players with external ids, their ledger, a finished round and one still in play (with
their steps, dealt by the real game), sessions stored as token hashes, the operator's settings
(profile, an RTP variant, bets switched off), the server's seamless installation id, and an
idempotency record scoped ``operator``.  Then the real ``migrate()`` runs to head, and:

* the schema is exactly the declared one, every foreign key holds, and a second ``migrate()``
  changes nothing;
* operator 1 ("default") holds every player and every old setting; the seamless rows are the
  server's own (operator 0); the old ``operator`` idempotency scope is operator 1's;
* a server started with the old operator key serves the old player as before: balance,
  history, ledger, a replay of the old round, a session token issued before the upgrade, the
  old key's stored reply, and the round left in play can be finished;
* a second operator, made with the admin API, can then create a player of the same external
  id, which stays its own.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, exc, inspect, text

from conftest import PG_ADMIN, drop_pg_database
from helpers import stops_without, trigger_script
from reelforge.engine.game import Game
from reelforge.engine.round import Round
from reelforge.games import get_game
from reelforge.rng import RecordingRandom, ScriptedRandom, SeededRandom
from reelforge.server.play import bets as bets_mod
from reelforge.server.play.context import fingerprint
from reelforge.server.play.tokens import derive_token, token_hash
from reelforge.server.storage.db import MIGRATIONS, make_engine, migrate
from reelforge.server.storage.schema import metadata
from server_support import OPERATOR_KEY, client_for, make_server

GNOMES = "reign-of-gnomes"
VARIANT = "94.00"  # not the game's default (95.97): the old setting must still be in force
DISABLED = [480]  # the old operator switched its highest Gnomes stake off
INSTALLATION = "0badcafe"
ADMIN_KEY = "adm"
BETS_KEY = "bets-before-the-upgrade"  # the Idempotency-Key of the old PUT /games/.../bets


# -- databases at revision 0010 -------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def old_db(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty database (SQLite file, or a new PostgreSQL database: no template, since the
    template is migrated to head)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    request.getfixturevalue("pg_template")  # skips (outside CI) where PostgreSQL is not reachable
    name = f"rf_old_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    try:
        yield PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    finally:
        drop_pg_database(name)


def migrate_to_0010(engine: Engine) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0010")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "0010"


def deal(game: Game, script: list[int], seed: int) -> tuple[Round, list[tuple[int, int]]]:
    """A round's start as the server deals it (its draws recorded), at the old variant."""
    rec = RecordingRandom(ScriptedRandom(script, SeededRandom(seed)))
    rnd = game.start(40, rec, variant=VARIANT, mode="base", player_state=None)
    return rnd, list(rec.draws)


class OldServer:
    """Writes rows as the single-operator server (revision 0010) did, with raw SQL."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.ts = time.time() - 3600.0

    def insert(self, table: str, row: dict[str, Any], returning: bool = True) -> int | None:
        cols = ", ".join(row)
        vals = ", ".join(f":{k}" for k in row)
        sql = f"INSERT INTO {table} ({cols}) VALUES ({vals})" + (" RETURNING id" if returning else "")
        result = self.conn.execute(text(sql), row)
        return int(result.scalar_one()) if returning else None

    def player(self, external_id: str) -> int:
        return self.insert(
            "players",
            {"external_id": external_id, "currency": "GBP", "balance": 0, "last_round_at": None,
             "created_at": self.ts},
        )  # fmt: skip

    def money(
        self, player_id: int, amount: int, kind: str, reference: str, round_id: int | None = None
    ) -> int:
        balance = self.conn.execute(
            text("SELECT balance FROM players WHERE id = :p"), {"p": player_id}
        ).scalar_one()
        after = balance + amount
        self.insert(
            "ledger",
            {"player_id": player_id, "amount": amount, "balance_after": after, "kind": kind,
             "round_id": round_id, "reference": reference, "created_at": self.ts},
        )  # fmt: skip
        self.conn.execute(text("UPDATE players SET balance = :b WHERE id = :p"), {"b": after, "p": player_id})
        return after

    def session(self, player_id: int, token: str, closed: bool = False) -> int:
        return self.insert(
            "sessions",
            {"player_id": player_id, "token_hash": token_hash(token), "profile": "gb",
             "created_at": self.ts, "expires_at": time.time() + 8 * 3600,
             "closed_at": self.ts + 1 if closed else None, "close_reason": "replaced" if closed else None,
             "time_limit_seconds": None, "spend_limit": None, "staked": 0, "won": 0,
             "play_settings": None, "reality_check_seconds": None,
             "reality_checks_acknowledged": None, "limits_url": None},
        )  # fmt: skip

    def round(
        self, player_id: int, session_id: int, rnd: Round, draws: list[tuple[int, int]], request_id: str
    ) -> int:
        """A round's start: its row, its first step, the stake (and the win of a round over at
        once), the session's counters, as rounds.open_round wrote them."""
        before = self.conn.execute(
            text("SELECT balance FROM players WHERE id = :p"), {"p": player_id}
        ).scalar_one()
        done = rnd.complete
        win = rnd.win if done else 0
        round_id = self.insert(
            "rounds",
            {"player_id": player_id, "session_id": session_id, "autoplay_id": None, "game": rnd.game,
             "game_version": rnd.game_version, "variant": rnd.variant, "mode": rnd.mode,
             "stake": rnd.stake, "coin": rnd.coin, "status": rnd.status, "win": rnd.win,
             "step": rnd.step, "balance_before": before,
             "balance_after": before - rnd.stake + win if done else None,
             "state": rnd.model_dump_json(), "created_at": self.ts, "updated_at": self.ts,
             "completed_at": self.ts if done else None, "completed_by": "player" if done else None},
        )  # fmt: skip
        start = {"name": "start", "stake": 40, "mode": "base", "player_state": None}
        self.insert(
            "round_steps",
            {"round_id": round_id, "step": rnd.step, "action": json.dumps(start), "actor": "player",
             "draws": json.dumps([list(d) for d in draws]), "events": json.dumps(rnd.events),
             "win_after": rnd.win, "created_at": self.ts, "request_id": request_id},
        )  # fmt: skip
        self.money(player_id, -rnd.stake, "stake", f"round:{round_id}:stake", round_id)
        if win:
            self.money(player_id, win, "win", f"round:{round_id}:win", round_id)
        self.conn.execute(
            text("UPDATE sessions SET staked = staked + :s, won = won + :w WHERE id = :id"),
            {"s": rnd.stake, "w": win, "id": session_id},
        )
        self.conn.execute(
            text("UPDATE players SET last_round_at = :ts WHERE id = :p"), {"ts": self.ts, "p": player_id}
        )
        return round_id

    def setting(self, key: str, value: str) -> None:
        self.insert("server_settings", {"key": key, "value": value}, returning=False)


def head_revision() -> str:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    assert head is not None and head >= "0011", head
    return head


def fill_as_0010(engine: Engine, gnomes_data) -> dict[str, Any]:
    """The single-operator server's data; what the test needs to find again."""
    game = get_game(GNOMES)
    plain = [stops_without(gnomes_data.base_reels.strips[r], {gnomes_data.scatter}) for r in range(5)]
    done, done_draws = deal(game, plain, 11)
    pending, pending_draws = deal(game, trigger_script(gnomes_data), 12)
    assert done.complete and not pending.complete  # free spins wait for the player
    nonce = "nonce-issued-before-the-upgrade"
    token = derive_token("session-token:" + OPERATOR_KEY, nonce)  # as play/tokens.py makes them
    with engine.begin() as conn:
        old = OldServer(conn)
        alice = old.player("alice")
        bob = old.player("bob")
        old.money(alice, 100_000, "deposit", "op:dep-alice")
        old.money(bob, 5_000, "deposit", "op:dep-bob")
        old.session(bob, "bob-token-long-gone", closed=True)
        session_id = old.session(alice, token)
        done_id = old.round(alice, session_id, done, done_draws, "req-old-1")
        pending_id = old.round(alice, session_id, pending, pending_draws, "req-old-2")
        # The operator's settings, and the server's seamless installation id and round counter.
        old.setting("profile", "gb")
        old.setting(f"variant:{GNOMES}", VARIANT)
        old.setting(f"bets_disabled:{GNOMES}", json.dumps(DISABLED))
        old.setting("seamless_installation", INSTALLATION)
        old.setting("seamless_next_round_id", "7")
        # The stored reply to the operator's PUT of the bets (scope "operator": no player named).
        reply = bets_mod.view(game, VARIANT, bets_mod.BASE, DISABLED)
        old.insert(
            "idempotency",
            {"scope": "operator", "key": BETS_KEY,
             "fingerprint": fingerprint("PUT", f"/games/{GNOMES}/bets", {"disabled": DISABLED}),
             "status_code": 200, "response": json.dumps(reply), "created_at": old.ts},
            returning=False,
        )  # fmt: skip
        balance = conn.execute(text("SELECT balance FROM players WHERE id = :p"), {"p": alice}).scalar_one()
    assert balance == 100_000 - 80 + done.win
    return {
        "alice": alice,
        "bob": bob,
        "token": token,
        "session_id": session_id,
        "done": (done_id, done),
        "pending": (pending_id, pending),
        "balance": balance,
        "bets_reply": reply,
    }


def dump(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (the revision's too), in primary-key order."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        schema = inspect(conn)
        for name in schema.get_table_names():
            order = ", ".join(schema.get_pk_constraint(name)["constrained_columns"]) or "1"
            out[name] = [tuple(r) for r in conn.execute(text(f"SELECT * FROM {name} ORDER BY {order}"))]
    return out


# -- the test -------------------------------------------------------------------------------------


class Http:
    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.n = 0

    def __call__(
        self, method: str, path: str, expect: int | None = 200, *, headers: dict[str, str] | None = None,
        json: Any = None, idem: str | None = None,
    ) -> Any:  # fmt: skip
        h = dict(headers or {})
        if method in ("POST", "PUT", "PATCH"):
            self.n += 1
            h["Idempotency-Key"] = idem or f"mig-{self.n}"
        r = self.client.request(method, "/api/v1" + path, headers=h, json=json)
        if expect is not None:
            assert r.status_code == expect, (method, path, r.status_code, r.text)
        self.last = r
        return r.json()


OLD = {"X-Operator-Key": OPERATOR_KEY}


def test_a_single_operator_database_upgrades_in_place(old_db: str, tmp_path, gnomes_data) -> None:
    engine = make_engine(old_db)
    try:
        migrate_to_0010(engine)
        old = fill_as_0010(engine, gnomes_data)
        before = dump(engine)

        migrate(engine)  # the real upgrade, as a server start runs it
        after = dump(engine)
        assert after["alembic_version"] == [(head_revision(),)]
        migrate(engine)  # a second start: nothing to do, nothing changed
        assert dump(engine) == after
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
            if engine.dialect.name == "sqlite":
                assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
                assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"

        # Operator 1 holds every player and every old setting; the seamless rows are the server's.
        ops = after["operators"]
        assert [(o[0], o[1], o[2]) for o in ops] == [(1, "default", "active")]
        assert {p[0]: p[1] for p in _players(engine)} == {old["alice"]: 1, old["bob"]: 1}
        settings = {(r[0], r[1]): r[2] for r in after["server_settings"]}
        assert settings == {
            (1, "profile"): "gb",
            (1, f"variant:{GNOMES}"): VARIANT,
            (1, f"bets_disabled:{GNOMES}"): json.dumps(DISABLED),
            (0, "seamless_installation"): INSTALLATION,
            (0, "seamless_next_round_id"): "7",
        }
        assert [r[:2] for r in after["idempotency"]] == [("operator:1", BETS_KEY)]
        # Nothing else moved: the money, the rounds, their steps and the sessions are as they were.
        for table in ("ledger", "rounds", "round_steps", "sessions"):
            assert after[table] == before[table], table
        assert [r[:1] + r[2:] for r in _players(engine, full=True)] == before["players"]
        # The foreign key holds on both databases: no player of an operator that does not exist.
        with pytest.raises(exc.IntegrityError), engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO players (operator_id, external_id, currency, balance, created_at)"
                    " VALUES (99, 'ghost', 'GBP', 0, 0)"
                )
            )
    finally:
        engine.dispose()

    server = make_server(old_db, tmp_path, admin_key=ADMIN_KEY)  # migrates again: a no-op
    try:
        with client_for(server) as client:
            http = Http(client)
            _old_operator_serves_as_before(http, old)
            _a_second_operator_has_its_own_players(http, old)
        audit = server.audit()
        assert audit["balances_match_ledger"] and audit["rounds_match_ledger"], audit
        assert audit["player_states_follow_rounds"], audit
        with server.engine.connect() as conn:
            # The configured key, unknown to the migration, was recorded as operator 1's at its
            # first use; the new operator's key is its own.
            found = conn.execute(text("SELECT operator_id, revoked_at, prefix FROM operator_keys"))
            keys = sorted(tuple(k) for k in found)
            assert [k[:2] for k in keys] == [(1, None), (2, None)] and keys[0][2] == OPERATOR_KEY[:8], keys
    finally:
        server.engine.dispose()


def _players(engine: Engine, full: bool = False) -> list[tuple[Any, ...]]:
    """(id, operator_id) of every player, or (with ``full``) the whole row with operator_id
    second."""
    cols = "id, operator_id, external_id, currency, balance, last_round_at, created_at"
    with engine.connect() as conn:
        rows = conn.execute(text(f"SELECT {cols if full else 'id, operator_id'} FROM players ORDER BY id"))
        return [tuple(r) for r in rows]


def _old_operator_serves_as_before(http: Http, old: dict[str, Any]) -> None:
    token = {"Authorization": f"Bearer {old['token']}"}
    done_id, pending_id = old["done"][0], old["pending"][0]
    # The old key is operator 1's, with its settings.
    assert http("GET", "/operator/profile", headers=OLD)["profile"] == "gb"
    variant = http("GET", f"/operator/games/{GNOMES}/variant", headers=OLD)
    assert variant["variant"] == VARIANT, variant
    bets = http("GET", f"/operator/games/{GNOMES}/bets", headers=OLD)
    assert bets["disabled"] == DISABLED and bets["variant"] == VARIANT, bets
    # The key's stored reply is still found (its scope is operator 1's now): replayed, not redone.
    replay = http(
        "PUT", f"/operator/games/{GNOMES}/bets", headers=OLD, json={"disabled": DISABLED}, idem=BETS_KEY
    )
    assert http.last.headers.get("Idempotency-Replayed") == "true", http.last.headers
    assert replay == old["bets_reply"]
    # The old player, by the operator.
    player = http("GET", "/operator/players/alice", headers=OLD)
    assert (player["balance"], player["currency"]) == (old["balance"], "GBP")
    assert http("GET", "/operator/players/bob", headers=OLD)["balance"] == 5_000
    history = http("GET", "/operator/players/alice/history?limit=10", headers=OLD)["rounds"]
    assert [(r["id"], r["status"]) for r in history] == [(pending_id, "pending"), (done_id, "complete")]
    ledger = http("GET", "/operator/players/alice/ledger", headers=OLD)["entries"]
    assert sum(e["amount"] for e in ledger) == old["balance"] and ledger[0]["balance_after"] == old["balance"]
    # The old round's stored draws deal it again, to the same outcome.
    assert http("GET", f"/operator/rounds/{done_id}/replay", headers=OLD)["matches_record"] is True
    # The old player, by the session token issued before the upgrade.
    assert http("GET", "/balance", headers=token)["balance"] == old["balance"]
    assert http("GET", "/session", headers=token)["profile"] == "gb"
    mine = http("GET", "/history", headers=token)["rounds"]
    assert [r["id"] for r in mine] == [pending_id, done_id]
    waiting = http("GET", "/rounds/pending", headers=token)["rounds"]
    assert [r["id"] for r in waiting] == [pending_id]
    # The round left in play is finished with the default actions, its win paid once.
    rnd = waiting[0]
    steps = 0
    while rnd["status"] == "pending":
        spec = rnd["actions"][0]
        body = {"action": spec["name"], "choice": spec.get("default")}
        reply = http("POST", f"/rounds/{pending_id}/actions", headers=token, json=body)
        rnd = reply["round"]
        steps += 1
        assert steps < 500, "the round never ended"
    assert rnd["status"] == "complete"
    final = old["balance"] + rnd["win"]
    assert reply["balance"] == final
    assert http("GET", "/operator/players/alice", headers=OLD)["balance"] == final
    recall = http("GET", f"/operator/rounds/{pending_id}", headers=OLD)
    assert recall["player"] == "alice" and recall["round"]["status"] == "complete"
    assert recall["steps"][0].get("request_id") == "req-old-2" and len(recall["steps"]) == steps + 1
    assert http("GET", f"/operator/rounds/{pending_id}/replay", headers=OLD)["matches_record"] is True
    old["final"] = final


def _a_second_operator_has_its_own_players(http: Http, old: dict[str, Any]) -> None:
    admin = {"X-Admin-Key": ADMIN_KEY}
    made = http("POST", "/admin/operators", 201, headers=admin, json={"name": "second", "settings": {}})
    assert made["operator"]["id"] == 2  # after the upgrade's operator 1 (PostgreSQL: its sequence moved on)
    b = {"X-Operator-Key": made["key"]}
    created = http("POST", "/operator/players", 201, headers=b, json={"external_id": "alice"}, idem=None)
    assert created["external_id"] == "alice" and created["balance"] == 0
    assert created["id"] not in (old["alice"], old["bob"])
    http("POST", "/operator/players/alice/credit", headers=b, json={"amount": 700})
    assert http("GET", "/operator/players/alice", headers=b)["balance"] == 700
    assert http("GET", "/operator/players/alice", headers=OLD)["balance"] == old["final"]
    http("GET", "/operator/players/bob", 404, headers=b)  # operator 1's player is not B's
    assert http("GET", "/operator/profile", headers=b)["profile"] == "default"  # not operator 1's "gb"
    bets = http("GET", f"/operator/games/{GNOMES}/bets", headers=b)
    assert bets["disabled"] == [] and bets["variant"] != VARIANT, bets
    # The old player's token is still operator 1's player, not B's namesake.
    token = {"Authorization": f"Bearer {old['token']}"}
    assert http("GET", "/balance", headers=token)["balance"] == old["final"]
