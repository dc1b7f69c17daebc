"""The two requests of every spin, answered without FastAPI's per-request machinery.

``POST /api/v1/rounds`` and ``POST /api/v1/rounds/{id}/actions`` are most of the server's
traffic, and FastAPI's routing, dependency solving and request plumbing cost a spin about
as much CPU as the service and its SQL (measured with ``bench/profile_layers.py``).  This
ASGI middleware, inside the app's own (body limit, error format), takes the plain case of
those two requests: a JSON body that validates against the route's own model.  It calls
the same ``GameServer`` method in the same thread pool and answers exactly what the route
would (``api.json_response``; an :class:`ApiError` as the app's handler does).  Anything
else, a body FastAPI would refuse included, goes on to the app unchanged (the body read is
handed on), so every error, status and message stays FastAPI's.  The routes stay declared
in ``api.py``, which is what the OpenAPI document shows.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.core.errors import ApiError
from reelforge.server.http.observability import ROUTE_KEY

_ACT = re.compile(r"/api/v1/rounds/([1-9][0-9]{0,18})/actions")
_ROUND_ID_LIMIT = 2**62  # api.RoundId: 1 <= id < 2**62


def _json_content(value: bytes | None) -> bool:
    return value is not None and value.split(b";", 1)[0].strip().lower() == b"application/json"


class HotRoutes:
    def __init__(
        self,
        app: ASGIApp,
        server: Any,
        start_model: type[BaseModel],
        act_model: type[BaseModel],
        respond: Callable[..., Response],
        on_database_error: Callable[[DBAPIError], Response],
    ) -> None:
        self.app = app
        self.server = server  # the GameServer
        self.start_model = start_model  # api.StartRound
        self.act_model = act_model  # api.ActBody
        self.respond = respond  # api.json_response
        self.on_database_error = on_database_error  # api.database_error_response

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        round_id = None
        if path != "/api/v1/rounds":
            m = _ACT.fullmatch(path)
            if m is None or int(m[1]) >= _ROUND_ID_LIMIT:
                await self.app(scope, receive, send)
                return
            round_id = int(m[1])
        content_type = authorization = key = None
        for name, value in scope["headers"]:  # the first of each, as Starlette's Headers.get
            if name == b"content-type":
                content_type = value if content_type is None else content_type
            elif name == b"authorization":
                authorization = value if authorization is None else authorization
            elif name == b"idempotency-key":
                key = value if key is None else key
        if not _json_content(content_type):
            await self.app(scope, receive, send)
            return
        try:
            body, more = await _read_body(receive)
        except Exception as exc:  # e.g. the body limit's 413: raised where the app reads it
            await self.app(scope, _raising(exc, receive), send)
            return
        handed_on = _replay(body, more, receive)
        try:
            data = json.loads(body)  # the stdlib, as Starlette's Request.json()
            if type(data) is not dict:
                raise ValueError("not an object")
            model = (self.start_model if round_id is None else self.act_model).model_validate(data)
        except Exception:  # malformed, invalid, nested too deep…: FastAPI answers it, its way
            await self.app(scope, handed_on, send)
            return
        token = bearer_value(None if authorization is None else authorization.decode("latin-1"))
        idem = None if key is None else key.decode("latin-1")
        scope[ROUTE_KEY] = "/api/v1/rounds" if round_id is None else "/api/v1/rounds/{round_id}/actions"
        if round_id is None:
            call = functools.partial(
                self.server.start_round, token, idem, model.game, model.stake, model.mode, model.script
            )
        else:
            call = functools.partial(
                self.server.act, token, idem, round_id, model.action, model.choice, model.expected_step,
                model.script,
            )  # fmt: skip
        try:
            context = self.server.context
            if context.runs_on_loop():  # PostgreSQL, the own ledger: no thread (context.py)
                result = await context.call_on_loop(call)
            else:
                result = await anyio.to_thread.run_sync(call)
            response = self.respond(*result)
        except ApiError as exc:  # as the app's exception handler answers it
            response = self.respond(exc.status, exc.body(), exc.headers)
        except DBAPIError as exc:  # the database down or restarting: 503, as the routes answer it
            response = self.on_database_error(exc)
        await response(scope, handed_on, send)


def bearer_value(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (``api.bearer``)."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The whole body; ``more`` when the client went away before sending it all."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), True
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), False


def _raising(exc: Exception, receive: Receive) -> Receive:
    """A receive that raises what reading the body raised here, once, for the app."""
    raised = False

    async def again() -> Message:
        nonlocal raised
        if not raised:
            raised = True
            raise exc
        return await receive()

    return again


def _replay(body: bytes, cut: bool, receive: Receive) -> Receive:
    """A receive that gives the body already read once, then what the client sends next."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            if not cut:
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}
        return await receive()

    return again
