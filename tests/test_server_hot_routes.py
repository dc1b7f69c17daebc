"""The hot routes (server/http/hot_routes.py) answer the spin's two requests exactly as the FastAPI
routes they stand in for: the same status, headers and bytes, for first replies, replays
(``Idempotency-Replayed``) and the service's refusals; what they do not take (a body the
strict models refuse, an oversized body) is FastAPI's.  Each case is sent twice, once with
the hot routes and once with them passing everything on to FastAPI.  SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from reelforge.server.http.hot_routes import HotRoutes
from reelforge.server.storage import schema as t
from reelforge.server.storage import store
from server_support import Api

GAME = "reign-of-gnomes"
SCRIPT = [0] * 64  # a spin drawn from the script alone: the same outcome on both paths


class Paths:
    """Switches the hot routes off (everything goes on to FastAPI) and records which requests
    the FastAPI app saw."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.hot = True
        self.to_fastapi: list[str] = []
        original = HotRoutes.__call__
        paths = self

        async def call(self: HotRoutes, scope: Any, receive: Any, send: Any) -> None:
            inner = self.app

            async def recorded(s: Any, r: Any, se: Any) -> None:
                if s["path"].startswith("/api/v1/rounds"):
                    paths.to_fastapi.append(s["path"])
                await inner(s, r, se)

            if not paths.hot:
                await recorded(scope, receive, send)
                return
            self.app = recorded
            try:
                await original(self, scope, receive, send)
            finally:
                self.app = inner

        monkeypatch.setattr(HotRoutes, "__call__", call)

    @contextmanager
    def fastapi_only(self) -> Iterator[None]:
        self.hot = False
        try:
            yield
        finally:
            self.hot = True


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Paths:
    return Paths(monkeypatch)


def _post(api: Api, path: str, token: str | None, key: str | None, body: Any) -> httpx.Response:
    # One request id for all: both paths echo it (observability.py), so headers compare equal.
    headers = {"Content-Type": "application/json", "X-Request-Id": "same-on-both-paths"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if key is not None:
        headers["Idempotency-Key"] = key
    content = body if isinstance(body, bytes) else httpx.Request("POST", "/", json=body).content
    return api.client.post("/api/v1" + path, content=content, headers=headers)


def _same(a: httpx.Response, b: httpx.Response) -> None:
    assert (a.status_code, a.headers.multi_items(), a.content) == (
        b.status_code,
        b.headers.multi_items(),
        b.content,
    )


def test_a_first_reply_and_its_replays_are_the_same_on_both_paths(api: Api, paths: Paths) -> None:
    hot_player, slow_player = api.new_player("hot"), api.new_player("slow")
    body = {"game": GAME, "stake": 40, "script": SCRIPT}
    hot = _post(api, "/rounds", hot_player, "k1", body)
    with paths.fastapi_only():
        slow = _post(api, "/rounds", slow_player, "k1", body)
    assert paths.to_fastapi == ["/api/v1/rounds"]  # the first went the hot way
    assert hot.status_code == slow.status_code == 201
    assert "idempotency-replayed" not in hot.headers
    assert hot.headers.multi_items() == slow.headers.multi_items()
    hot_id, slow_id = hot.json()["round"]["id"], slow.json()["round"]["id"]
    assert hot.content.replace(f'"id":{hot_id}'.encode(), b'"id":0') == slow.content.replace(
        f'"id":{slow_id}'.encode(), b'"id":0'
    )
    # A replay: the first reply's bytes, marked, whichever path serves it.
    replay_hot = _post(api, "/rounds", hot_player, "k1", body)
    with paths.fastapi_only():
        replay_slow = _post(api, "/rounds", hot_player, "k1", body)
    _same(replay_hot, replay_slow)
    assert replay_hot.content == hot.content and replay_hot.headers["idempotency-replayed"] == "true"
    # An action, when the round has one, the same way.
    rnd = hot.json()["round"]
    if rnd["status"] == "pending":
        spec = rnd["actions"][0]
        act = {"action": spec["name"], "choice": spec.get("default")}
        first = _post(api, f"/rounds/{rnd['id']}/actions", hot_player, "a1", act)
        with paths.fastapi_only():
            again = _post(api, f"/rounds/{rnd['id']}/actions", hot_player, "a1", act)
        assert first.status_code == 200 and again.headers["idempotency-replayed"] == "true"
        assert again.content == first.content


def test_refusals_are_the_same_bytes_on_both_paths(api: Api, paths: Paths) -> None:
    token = api.new_player("p", balance=30)
    cases: list[tuple[str, str | None, str | None, Any]] = [
        ("/rounds", token, "r1", {"game": GAME, "stake": 40}),  # 402: the balance is 30
        ("/rounds", token, "r2", {"game": "no-such-game", "stake": 40}),  # 404
        ("/rounds", token, "r3", {"game": GAME, "stake": 41}),  # 400: not a bet level
        ("/rounds", token, None, {"game": GAME, "stake": 40}),  # 400: no Idempotency-Key
        ("/rounds", None, "r4", {"game": GAME, "stake": 40}),  # 401: no token
        ("/rounds", "not-a-token", "r5", {"game": GAME, "stake": 40}),  # 401
        ("/rounds/999999/actions", token, "r6", {"action": "pick"}),  # 404: no such round
        # The strict models refuse these: FastAPI answers on both paths.
        ("/rounds", token, "r7", {"game": GAME, "stake": 40.0}),
        ("/rounds", token, "r8", {"game": GAME, "stake": True}),
        ("/rounds", token, "r9", {"game": GAME, "stake": 40, "extra": 1}),
        ("/rounds/1/actions", token, "r10", {"action": "pick", "choice": "1"}),
    ]
    strict = 4
    for path, who, key, body in cases:
        hot = _post(api, path, who, key, body)
        with paths.fastapi_only():
            slow = _post(api, path, who, key, body)
        _same(hot, slow)
        assert hot.status_code >= 400 and set(hot.json()) == {"error"}, (path, body, hot.text)
    # Only the strict refusals reached FastAPI with the hot routes on (and every case without).
    assert len(paths.to_fastapi) == len(cases) + strict


def test_an_oversized_body_is_the_body_limit_s_413(api: Api, paths: Paths, server: Any) -> None:
    token = api.new_player("big")
    body = (
        b'{"game": "reign-of-gnomes", "stake": 40, "mode": "' + b"x" * server.settings.max_body_bytes + b'"}'
    )
    hot = _post(api, "/rounds", token, "b1", body)
    with paths.fastapi_only():
        slow = _post(api, "/rounds", token, "b1", body)
    _same(hot, slow)
    assert hot.status_code == 413 and hot.json()["error"]["code"] == "body_too_large"


def test_a_refusal_with_headers_is_the_same_on_both_paths(
    api: Api, paths: Paths, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.operator("PUT", "/profile", json={"profile": "gb"}, expect=200)  # 2.5 s game cycles
    token = api.new_player("gb")
    api.finish(token, api.start(token))
    with server.engine.connect() as conn:
        last = conn.execute(select(t.players.c.last_round_at)).scalar_one()
    monkeypatch.setattr(store, "now", lambda: last + 1.0)  # both wait the same 1.5 s
    body = {"game": GAME, "stake": 40}
    hot = _post(api, "/rounds", token, "c1", body)
    with paths.fastapi_only():
        slow = _post(api, "/rounds", token, "c1", body)
    _same(hot, slow)
    assert hot.status_code == 429 and hot.headers["retry-after"] == "2"


def test_on_postgresql_the_spin_s_requests_run_on_the_event_loop(
    api: Api, server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PostgreSQL and the server's own ledger, the hot routes run the service on the
    event loop (play/context.py's ``call_on_loop``), not in the thread pool; SQLite stays in
    the pool.  Rounds with free spins (actions) balance to the cent either way."""
    on_loop: list[str] = []
    original = type(server.context).call_on_loop

    async def counted(self: Any, call: Any) -> Any:
        on_loop.append("call")
        return await original(self, call)

    monkeypatch.setattr(type(server.context), "call_on_loop", counted)
    token = api.new_player("loop-player", 100_000)
    start = api.balance(token)
    staked = won = requests = 0
    for _ in range(12):
        reply = api.start(token, GAME, 40)
        ids = [api.last.headers["x-request-id"]]
        requests += 1
        staked += 40
        rnd = reply["round"]
        while rnd["status"] == "pending":
            spec = rnd["actions"][0]
            reply = api.act(token, rnd["id"], spec["name"], spec.get("default"))
            ids.append(api.last.headers["x-request-id"])
            requests += 1
            rnd = reply["round"]
        won += rnd["win"]
        # The request id reached the step's row from the greenlet (the context went with it).
        recall = api.call("GET", f"/rounds/{rnd['id']}", token=token, expect=200)
        assert [s["request_id"] for s in recall["steps"]] == ids
    assert api.balance(token) == start - staked + won
    postgres = server.engine.dialect.name == "postgresql"
    assert len(on_loop) == (requests if postgres else 0)
