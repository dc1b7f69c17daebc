"""Helpers for the server tests: a configured in-process server and a small API client."""

from __future__ import annotations

import itertools
from typing import Any

from fastapi.testclient import TestClient

from reelforge.rng import SeededRandom
from reelforge.server.core.config import Settings
from reelforge.server.http.api import create_app
from reelforge.server.runtime.service import GameServer

OPERATOR_KEY = "test-operator-key"
_keys = itertools.count(1)


def make_server(db_url: str, tmp_path, seed: int | None = 1234, **overrides: Any) -> GameServer:
    """A migrated server for tests.  With a seed its draws come from one seeded stream, so a
    test sees the same outcomes every run; ``seed=None`` keeps the production CSPRNG.
    Tests call at machine speed, so the request rate limit is off unless asked for
    (tests/test_server_guards.py tests it)."""
    overrides.setdefault("rate_limit_per_second", 0.0)
    settings = Settings(
        db=db_url,
        data_dir=tmp_path,
        operator_key=OPERATOR_KEY,
        test_games=True,
        allow_scripted_draws=overrides.pop("allow_scripted_draws", True),
        **overrides,
    )
    server = GameServer(settings)
    if seed is not None:
        stream = SeededRandom(seed)
        server.rng_factory = lambda: stream
    server.migrate()
    return server


def key() -> str:
    return f"k-{next(_keys)}"


class Api:
    """Thin client: operator calls and one player's calls, raising on unexpected status."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.op = {"X-Operator-Key": OPERATOR_KEY}

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        json: Any = None,
        idem: str | None = "auto",
        expect: int | tuple[int, ...] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        if method in ("POST", "PUT") and idem is not None:
            h["Idempotency-Key"] = key() if idem == "auto" else idem
        r = self.client.request(method, "/api/v1" + path, json=json, headers=h)
        if expect is not None:
            allowed = (expect,) if isinstance(expect, int) else expect
            assert r.status_code in allowed, (r.status_code, r.text)
        self.last = r
        return r.json()

    def operator(self, method: str, path: str, **kw: Any) -> Any:
        headers = dict(self.op)
        headers.update(kw.pop("headers", {}))
        return self.call(method, "/operator" + path, headers=headers, **kw)

    def new_player(self, name: str, balance: int = 100_000, **session: Any) -> str:
        self.operator("POST", "/players", json={"external_id": name}, idem=None, expect=(200, 201))
        if balance:
            self.operator("POST", f"/players/{name}/credit", json={"amount": balance}, expect=200)
        return self.operator("POST", f"/players/{name}/sessions", json=session, expect=201)["token"]

    def start(self, token: str, game: str = "reign-of-gnomes", stake: int = 40, **kw: Any) -> Any:
        expect = kw.pop("expect", 201)
        return self.call(
            "POST", "/rounds", token=token, json={"game": game, "stake": stake, **kw}, expect=expect
        )

    def act(self, token: str, round_id: int, action: str, choice: int | None = None, **kw: Any) -> Any:
        expect = kw.pop("expect", 200)
        body: dict[str, Any] = {"action": action, "choice": choice}
        body.update(kw)
        return self.call("POST", f"/rounds/{round_id}/actions", token=token, json=body, expect=expect)

    def finish(self, token: str, reply: dict) -> dict:
        """Play a round to its end with the default actions."""
        rnd = reply["round"]
        while rnd["status"] == "pending":
            spec = rnd["actions"][0]
            reply = self.act(token, rnd["id"], spec["name"], spec.get("default"))
            rnd = reply["round"]
        return reply

    def balance(self, token: str) -> int:
        return self.call("GET", "/balance", token=token, expect=200)["balance"]


def client_for(server: GameServer) -> TestClient:
    return TestClient(create_app(server), raise_server_exceptions=True)
