"""The HTTP API (FastAPI): JSON under /api/v1, documented by the generated OpenAPI.

Operator calls carry ``X-Operator-Key``; player calls ``Authorization: Bearer <token>``.
Every state-changing call needs an ``Idempotency-Key`` header: a repeat returns the first
reply and changes nothing.  Errors are ``{"error": {"code", "message"}}`` with a 4xx status.
"""

from __future__ import annotations

import json
import logging
import pathlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request
from fastapi import Body as FastBody
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.core.errors import ApiError
from reelforge.server.http import api_models as m
from reelforge.server.http import guards
from reelforge.server.http.api_admin import add_routes as add_admin_routes
from reelforge.server.http.api_bets import add_routes as add_bet_routes
from reelforge.server.http.api_docs import OPERATOR, PLAYER, finish_openapi, replies
from reelforge.server.http.api_health import add_routes as add_health_routes
from reelforge.server.http.api_variants import add_routes as add_variant_routes
from reelforge.server.http.hot_routes import HotRoutes, bearer_value
from reelforge.server.http.observability import Observe, metrics_response
from reelforge.server.http.operator_auth import Op
from reelforge.server.http.webclient import ClientFiles
from reelforge.server.play.context import Replayed
from reelforge.server.runtime.readiness import Readiness
from reelforge.server.runtime.service import GameServer
from reelforge.server.storage import store

log = logging.getLogger("reelforge.server")

WEB_DIR = pathlib.Path(__file__).resolve().parents[2] / "web"


class Body(BaseModel):
    # Strict: a stake is a JSON integer; "40", 40.0 and true are refused, never coerced.
    model_config = ConfigDict(extra="forbid", strict=True)


class StartRound(Body):
    game: str = Field(min_length=1, max_length=64)
    stake: int = Field(gt=0, lt=10**12)
    mode: str = Field(default="base", min_length=1, max_length=32)
    script: list[Annotated[int, Field(ge=0, lt=2**63)]] | None = Field(default=None, max_length=256)


class ActBody(Body):
    action: str = Field(min_length=1, max_length=32)
    choice: int | None = Field(default=None, ge=-(2**31), lt=2**31)
    expected_step: int | None = Field(default=None, ge=1)
    script: list[Annotated[int, Field(ge=0, lt=2**63)]] | None = Field(default=None, max_length=256)


class AutoplayBody(Body):
    game: str = Field(min_length=1, max_length=64)
    stake: int = Field(gt=0, lt=10**12)
    mode: str = Field(default="base", min_length=1, max_length=32)  # "upper": Los 3 Pinguinos' upper game
    spins: int = Field(ge=1, le=10_000)
    loss_limit: int = Field(gt=0, lt=10**12)
    single_win_limit: int | None = Field(default=None, gt=0, lt=10**12)
    total_win_limit: int | None = Field(default=None, gt=0, lt=10**12)


class PlayerBody(Body):
    external_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")
    currency: str = Field(default="GBP", pattern=r"^[A-Z]{3}$")


class AmountBody(Body):
    amount: int = Field(gt=0, lt=10**12)


class SessionBody(Body):
    time_limit_seconds: int | None = Field(default=None, gt=0, le=7 * 24 * 3600)
    spend_limit: int | None = Field(default=None, gt=0, lt=10**12)
    # Shorter than the profile's interval only; the server says so with 400 otherwise.
    reality_check_seconds: int | None = Field(default=None, gt=0, le=24 * 3600)
    limits_url: str | None = Field(default=None, min_length=1, max_length=2048)  # http(s) only
    # True: open this session without closing the player's others (past the per-player cap).
    keep_other_sessions: bool = False


class DemoBody(Body):
    """A demo session's limits, as the player chose them (``GET /demo`` says which are needed)."""

    time_limit_seconds: int | None = Field(default=None, gt=0, le=7 * 24 * 3600)
    spend_limit: int | None = Field(default=None, gt=0, lt=10**12)


class RevokeBody(Body):
    reason: str = Field(default="revoked by the operator", min_length=1, max_length=64)


class LaunchBody(SessionBody):
    """A seamless launch: the operator's launch token, and the session's limits if any."""

    token: str = Field(min_length=1, max_length=512)
    # Whose wallet the token is for (its id); optional where one operator alone is seamless.
    operator: int | None = Field(default=None, ge=1, lt=2**31)


class VoidBody(Body):
    reason: str = Field(default="voided by the operator", min_length=1, max_length=200)


class ProfileBody(Body):
    profile: str = Field(min_length=1, max_length=16)


REPLAYED = {"Idempotency-Replayed": "true"}


def json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> Response:
    if type(data) is Replayed:  # the stored first reply to a repeated Idempotency-Key
        headers = {**headers, **REPLAYED} if headers else REPLAYED
    # A reply encoded once already (store.Reply: a stored or a first idempotent one) is sent
    # as that text; a copy of one (``type(reply)(reply)``, changed) has none and is encoded.
    text = getattr(data, "json", None) if isinstance(data, store.Reply) else None
    if text is None:
        text = store.dumps(data)
    return Response(text.encode(), status_code=status, media_type="application/json", headers=headers)


class BodyLimit:
    """Refuse request bodies over the limit with 413, before the app reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._refuse(send)
            return
        # A body without a declared length (chunked) is counted as it arrives: past the limit
        # the 413 is sent here and the app is told the client left, so whatever it answers
        # (its body parser calls a cut-off body malformed: 400) is dropped.
        seen = 0
        cut = refused = started = False

        async def guarded(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def limited() -> Message:
            nonlocal seen, cut, refused
            if cut:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    cut = True
                    if not started:  # (a reply already begun is left to finish)
                        refused = True
                        await self._refuse(send)
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, limited, guarded)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": {
                    "code": "body_too_large",
                    "message": f"request bodies are limited to {self.max_bytes} bytes",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


_HTTP_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def error_code(status: int) -> str:
    return _HTTP_CODES.get(status, "bad_request" if status < 500 else "internal")


class JsonErrors:
    """Every reply under /api/ that is an error is ``{"error": {...}}``.  A request no API
    route takes in full falls through to the client's files at ``/`` (a wrong method too),
    whose 404/405 are plain text: they are rewritten, 405 with ``Allow`` where an API route
    has the path, 404 where none has."""

    def __init__(self, app: ASGIApp, routes: list[BaseRoute]) -> None:
        self.app = app
        self.routes = routes

    def allowed(self, scope: Scope) -> list[str]:
        """The methods some API route takes at this path (the mount at ``/`` left out)."""
        api = [r for r in self.routes if not isinstance(r, Mount)]
        return [
            m
            for m in ("GET", "POST", "PUT", "PATCH", "DELETE")
            if any(r.matches({**scope, "method": m})[0] is Match.FULL for r in api)
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        held: dict[str, Any] = {}

        async def rewrite(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                plain = not headers.get(b"content-type", b"").startswith(b"application/json")
                if message["status"] >= 400 and plain:
                    held["start"] = message
                    return
            elif "start" in held:
                if message.get("more_body"):
                    return  # the plain body is dropped: only its status counts
                start = held.pop("start")
                status = start["status"]
                extra: list[tuple[bytes, bytes]] = []
                if status in (404, 405):
                    allowed = self.allowed(scope)
                    if allowed:
                        status = 405
                        allow = ", ".join(allowed)
                        text = f"{scope['method']} is not allowed on {scope['path']}; allowed: {allow}"
                        extra = [(b"allow", allow.encode())]
                    else:
                        status, text = 404, f"no route {scope['path']}"
                else:
                    text = HTTPStatus(status).phrase
                body = json.dumps({"error": {"code": error_code(status), "message": text}}).encode()
                length = str(len(body)).encode()
                headers = [(b"content-type", b"application/json"), (b"content-length", length), *extra]
                await send({**start, "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await send(message)

        await self.app(scope, receive, rewrite)


# async: FastAPI runs a plain ``def`` dependency in the thread pool, a thread hand-off of its
# own per request before the endpoint's (measured: about a tenth of a spin's server CPU).
async def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    return bearer_value(authorization)


Token = Annotated[str | None, Depends(bearer)]
RoundId = Annotated[int, Path(ge=1, lt=2**62)]
ExternalId = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")]
GameId = Annotated[str, Path(min_length=1, max_length=64)]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key")]
SessionId = Annotated[int, Path(ge=1, lt=2**62)]
# A filter the database sees: PostgreSQL takes no NUL in text, so one is refused here (422).
GameQuery = Annotated[str | None, Query(max_length=64, pattern=r"^[^\x00]*$")]


def database_error_response(exc: DBAPIError) -> Response:
    """The reply to a database error, for the routes and the hot routes alike.

    The database down, restarting or its connection lost (or a transaction it rolled back):
    nothing was kept, or a commit landed and its reply is stored under the key.  503 is what
    clients resend with the same Idempotency-Key; a 500 they would not."""
    if not (isinstance(exc, OperationalError) or exc.connection_invalidated):
        log.exception("unhandled database error", exc_info=exc)
        return json_response(500, {"error": {"code": "internal", "message": "internal error"}})
    log.warning("database unavailable: %s", (str(exc.orig or exc).splitlines() or [""])[0][:300])
    return json_response(
        503,
        {"error": {"code": "database_unavailable",
                   "message": "the database did not answer; send the same request again"}},
        {"Retry-After": "1"},
    )  # fmt: skip


def create_app(server: GameServer, readiness: Readiness | None = None) -> FastAPI:
    """The app's routes and middleware over ``server``; ``readiness``: what
    ``/health/ready`` reports (app.build's; None: one never started, so never ready)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # The spin's requests on the serving loop (play/context.py); app.build's lifespan,
        # which replaces this one, does the same.
        await server.context.attach_loop()
        try:
            yield
        finally:
            await server.context.detach_loop()

    app = FastAPI(
        title="reelforge game server",
        version="1",
        description="Wallet, rounds, restoration, recall and jurisdiction profiles for reelforge games.",
        lifespan=lifespan,
    )

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> Response:
        return json_response(exc.status, exc.body(), exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_: Request, exc: StarletteHTTPException) -> Response:
        # The router's own refusals (405 on a route's path) in the one error format.
        if exc.status_code == 400 and exc.__cause__ is not None:
            # FastAPI's body parser gave up (JSON nested too deep, bytes that are no text):
            # malformed JSON, as a syntax error is (422 invalid_request).
            why = "nested too deep" if isinstance(exc.__cause__, RecursionError) else "not readable"
            return json_response(422, {"error": {"code": "invalid_request", "message": f"body: JSON {why}"}})
        return json_response(
            exc.status_code,
            {"error": {"code": error_code(exc.status_code), "message": str(exc.detail)}},
            dict(exc.headers or {}),
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'] if p != 'body') or 'body'}: {err['msg']}"
            for err in exc.errors()
        )
        return json_response(422, {"error": {"code": "invalid_request", "message": problems[:1000]}})

    @app.exception_handler(DBAPIError)
    async def _database(_: Request, exc: DBAPIError) -> Response:
        return database_error_response(exc)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> Response:  # pragma: no cover - a bug if reached
        log.exception("unhandled error", exc_info=exc)
        return json_response(500, {"error": {"code": "internal", "message": "internal error"}})

    # The browser client's files, the games' own web folders with them (webclient.py).
    client = ClientFiles(WEB_DIR, server.games.values())

    player = APIRouter(prefix="/api/v1", tags=["player"])
    operator = APIRouter(prefix="/api/v1/operator", tags=["operator"])

    app.state.server = server  # the operator routes' ``Op`` finds it there (operator_auth.py)

    # -- player ----------------------------------------------------------------------------

    @player.get(
        "/games",
        responses=replies(
            200,
            m.GameListing,
            PLAYER,
            notes={
                200: "The games on offer to the session's player (Games); with X-Operator-Key "
                "instead of a token, every game as the operator sees it (OperatorGames)."
            },
        ),
    )
    def games(token: Token, x_operator_key: Annotated[str | None, Header()] = None) -> Response:
        """The games on offer to the session's player; with ``X-Operator-Key`` (instead of a
        token), every game with its variants, modes and bet tables as the operator sees them.
        A game with a browser renderer of its own names its module (``client``)."""
        if x_operator_key is not None:
            operator = server.check_operator(x_operator_key)
            return json_response(200, client.with_renderers(server.operator_games(operator)))
        return json_response(200, client.with_renderers(server.list_games(token)))

    @player.get("/balance", responses=replies(200, m.Balance, PLAYER))
    def balance(token: Token) -> Response:
        return json_response(200, server.balance(token))

    @player.get("/session", responses=replies(200, m.SessionInfo, PLAYER))
    def session(token: Token) -> Response:
        return json_response(200, server.session_info(token))

    @player.post("/session/close", responses=replies(200, m.SessionClosedReply, PLAYER, keyed=True))
    def close_session(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.close_session(token, key))

    @player.post("/session/reality-check", responses=replies(200, m.RealityCheckSeen, PLAYER, keyed=True))
    def reality_check(token: Token, key: IdemKey = None) -> Response:
        """The player saw the reality check and chose to continue (409 when none is due)."""
        return json_response(*server.acknowledge_reality_check(token, key))

    @player.post(
        "/rounds",
        status_code=201,
        responses=replies(201, m.RoundStarted, PLAYER, 402, 404, 429, 503, keyed=True),
    )
    def start_round(body: StartRound, token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.start_round(token, key, body.game, body.stake, body.mode, body.script))

    @player.get("/rounds/pending", responses=replies(200, m.PendingRounds, PLAYER, 422))
    def pending(token: Token, game: GameQuery = None) -> Response:
        return json_response(200, server.pending(token, game))

    @player.post("/rounds/{round_id}/actions", responses=replies(200, m.RoundActed, PLAYER, 404, keyed=True))
    def act(round_id: RoundId, body: ActBody, token: Token, key: IdemKey = None) -> Response:
        return json_response(
            *server.act(token, key, round_id, body.action, body.choice, body.expected_step, body.script)
        )

    @player.get("/rounds/{round_id}", responses=replies(200, m.Recall, PLAYER, 404, 422))
    def recall(round_id: RoundId, token: Token) -> Response:
        return json_response(200, server.player_recall(token, round_id))

    @player.get("/rounds/{round_id}/replay", responses=replies(200, m.Replay, PLAYER, 404, 409, 422))
    def replay(round_id: RoundId, token: Token) -> Response:
        return json_response(200, server.player_replay(token, round_id))

    @player.get("/history", responses=replies(200, m.History, PLAYER, 422))
    def history(
        token: Token,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        before: Annotated[int | None, Query(ge=1, lt=2**63)] = None,
    ) -> Response:
        return json_response(200, server.player_history(token, limit, before))

    @player.get("/state", responses=replies(200, m.PlayerStates, PLAYER, 422))
    def state(token: Token, game: GameQuery = None) -> Response:
        return json_response(200, server.player_state(token, game))

    @player.get("/settings", responses=replies(200, m.PlaySettings, PLAYER, 404, 422))
    def get_settings(token: Token, game: Annotated[str, Query(min_length=1, max_length=64)]) -> Response:
        return json_response(200, server.get_play_settings(token, game))

    @player.put("/settings", responses=replies(200, m.PlaySettingsSet, PLAYER, 404, keyed=True))
    def put_settings(
        body: Annotated[dict[str, Any], FastBody(max_length=64)],
        token: Token,
        game: Annotated[str, Query(min_length=1, max_length=64)],
        key: IdemKey = None,
    ) -> Response:
        """Set play switches of a game for this session: ``{"auto_advance": true}``; names left
        out keep their value; unknown names or values other than true/false: 400."""
        return json_response(*server.set_play_settings(token, key, game, body))

    @player.get("/autoplay", responses=replies(200, m.AutoplayStatus, PLAYER))
    def autoplay_status(token: Token) -> Response:
        return json_response(200, server.autoplay_status(token))

    @player.post(
        "/autoplay", status_code=201, responses=replies(201, m.AutoplayReply, PLAYER, 404, keyed=True)
    )
    def autoplay_start(body: AutoplayBody, token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_start(token, key, body.model_dump()))

    @player.post(
        "/autoplay/next", responses=replies(200, m.AutoplayNext, PLAYER, 402, 404, 429, 503, keyed=True)
    )
    def autoplay_next(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_next(token, key))

    @player.post("/autoplay/stop", responses=replies(200, m.AutoplayReply, PLAYER, keyed=True))
    def autoplay_stop(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_stop(token, key))

    # -- operator --------------------------------------------------------------------------

    @operator.post(
        "/players",
        status_code=201,
        responses=replies(
            (201, 200), m.Player, OPERATOR, 400, 409, 422, notes={200: "The player exists already."}
        ),
    )
    def create_player(o: Op, body: PlayerBody) -> Response:
        return json_response(*server.create_player(o, body.external_id, body.currency))

    @operator.get("/players/{external_id}", responses=replies(200, m.Player, OPERATOR, 404, 422))
    def get_player(o: Op, external_id: ExternalId) -> Response:
        return json_response(200, server.get_player(o, external_id))

    @operator.post(
        "/players/{external_id}/credit",
        responses=replies(200, m.WalletMove, OPERATOR, 404, keyed=True),
    )
    def credit(o: Op, external_id: ExternalId, body: AmountBody, key: IdemKey = None) -> Response:
        return json_response(*server.wallet_move(o, key, external_id, body.amount, "deposit"))

    @operator.post(
        "/players/{external_id}/debit",
        responses=replies(200, m.WalletMove, OPERATOR, 402, 404, keyed=True),
    )
    def debit(o: Op, external_id: ExternalId, body: AmountBody, key: IdemKey = None) -> Response:
        return json_response(*server.wallet_move(o, key, external_id, body.amount, "withdrawal"))

    @operator.post(
        "/players/{external_id}/sessions",
        status_code=201,
        responses=replies(201, m.SessionOpened, OPERATOR, 404, keyed=True),
    )
    def open_session(o: Op, external_id: ExternalId, body: SessionBody, key: IdemKey = None) -> Response:
        return json_response(
            *server.open_session(
                o,
                key,
                external_id,
                body.time_limit_seconds,
                body.spend_limit,
                body.reality_check_seconds,
                body.limits_url,
                body.keep_other_sessions,
            )
        )

    @operator.get(
        "/players/{external_id}/sessions",
        responses=replies(200, m.Sessions, OPERATOR, 404, 422),
    )
    def list_sessions(
        o: Op,
        external_id: ExternalId,
        open_: Annotated[bool | None, Query(alias="open")] = None,
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        before: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        """The player's sessions, newest first (``open=true``: only those a token can use)."""
        return json_response(200, server.list_sessions(o, external_id, open_, limit, before))

    @operator.post(
        "/players/{external_id}/sessions/revoke",
        responses=replies(200, m.SessionsRevoked, OPERATOR, 404, keyed=True),
    )
    def revoke_sessions(
        o: Op, external_id: ExternalId, body: RevokeBody | None = None, key: IdemKey = None
    ) -> Response:
        """Close every open session of the player (self-exclusion, say)."""
        reason = (body or RevokeBody()).reason
        return json_response(*server.revoke_sessions(o, key, external_id, reason))

    @operator.post(
        "/players/{external_id}/sessions/{session_id}/revoke",
        responses=replies(200, m.SessionRevoked, OPERATOR, 404, keyed=True),
    )
    def revoke_session(
        o: Op,
        external_id: ExternalId,
        session_id: SessionId,
        body: RevokeBody | None = None,
        key: IdemKey = None,
    ) -> Response:
        """Close one open session of the player: its token is refused from now on."""
        reason = (body or RevokeBody()).reason
        return json_response(*server.revoke_session(o, key, external_id, session_id, reason))

    @operator.get(
        "/players/{external_id}/history",
        responses=replies(200, m.History, OPERATOR, 404, 422),
    )
    def player_history(
        o: Op,
        external_id: ExternalId,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        before: Annotated[int | None, Query(ge=1, lt=2**63)] = None,
    ) -> Response:
        return json_response(200, server.operator_history(o, external_id, limit, before))

    @operator.get("/players/{external_id}/ledger", responses=replies(200, m.Ledger, OPERATOR, 404, 422))
    def player_ledger(
        o: Op,
        external_id: ExternalId,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        before: Annotated[int | None, Query(ge=1, lt=2**63)] = None,
    ) -> Response:
        return json_response(200, server.ledger(o, external_id, limit, before))

    # before /rounds/{round_id}, which it would match
    @operator.get("/rounds/pending", responses=replies(200, m.PendingAcross, OPERATOR, 400, 422))
    def operator_pending(
        o: Op,
        game: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
        limit: Annotated[int, Query(ge=1, le=100)] = 50,
        before: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        """Rounds in play across players, newest first, for support."""
        return json_response(200, server.operator_pending(o, game, limit, before))

    @operator.get("/reports", responses=replies(200, m.Report, OPERATOR, 400, 422))
    def report(
        o: Op,
        from_: Annotated[str | None, Query(alias="from", max_length=64)] = None,
        to: Annotated[str | None, Query(max_length=64)] = None,
        game: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
        players: bool = False,
        theory: bool = True,
    ) -> Response:
        """The operator report over ``[from, to)`` (ISO 8601, UTC without a zone): per game,
        variant and mode against the exact RTP, and per player with ``players=true``.  The
        first report of a process computes the theoretical figures (up to a minute);
        ``theory=false`` gives the money alone."""
        return json_response(200, server.report(o, from_, to, game, players, theory))

    @operator.get("/rounds/{round_id}", responses=replies(200, m.OperatorRecall, OPERATOR, 404, 422))
    def operator_recall(o: Op, round_id: RoundId) -> Response:
        return json_response(200, server.operator_recall(o, round_id))

    @operator.get(
        "/rounds/{round_id}/replay",
        responses=replies(200, m.Replay, OPERATOR, 404, 409, 422),
    )
    def operator_replay(o: Op, round_id: RoundId) -> Response:
        return json_response(200, server.operator_replay(o, round_id))

    @operator.post(
        "/rounds/{round_id}/void",
        responses=replies(200, m.Voided, OPERATOR, 404, keyed=True),
    )
    def void(o: Op, round_id: RoundId, body: VoidBody, key: IdemKey = None) -> Response:
        return json_response(*server.void_round(o, key, round_id, body.reason))

    @operator.get("/profile", responses=replies(200, m.ProfileReply, OPERATOR))
    def get_profile(o: Op) -> Response:
        return json_response(200, server.get_profile(o))

    @operator.put("/profile", responses=replies(200, m.ProfileReply, OPERATOR, 400, 409, 422))
    def set_profile(o: Op, body: ProfileBody) -> Response:
        return json_response(200, server.set_profile(o, body.profile))

    add_bet_routes(operator, server, json_response)  # api_bets.py
    add_variant_routes(operator, server, json_response)  # api_variants.py
    add_admin_routes(app, server, json_response)  # api_admin.py: the studio's, under /api/v1/admin

    @player.post(
        "/seamless/session",
        status_code=201,
        responses=replies(
            201,
            m.SeamlessSession,
            400,
            401,
            402,
            403,
            404,
            409,
            413,
            422,
            429,
            503,
            replayed=True,
            notes={
                401: "The operator's wallet refused the launch token (`invalid_token`).",
                402: "The operator's wallet refused (`wallet_refused`).",
                403: "The operator's wallet says the player is blocked (`player_blocked`).",
                404: "This server keeps its own wallet: sessions are opened by the operator.",
                503: "The operator's wallet did not answer (`wallet_unavailable`); try again.",
            },
        ),
    )
    def seamless_session(body: LaunchBody, key: IdemKey = None) -> Response:
        """Seamless deployments: open a session with the operator's launch token (its wallet
        names the player, currency and balance); 404 where the server keeps its own wallet."""
        limits = body.model_dump(exclude={"token"})
        return json_response(*server.seamless_launch(key, body.token, **limits))

    @player.get(
        "/demo",
        responses=replies(200, m.DemoTerms, 404, 413, 429, notes={404: "Demo sessions are off here."}),
    )
    def demo_terms() -> Response:
        """Demo mode only: what a demo session here holds and which limits the profile needs
        the player to set before it opens (asked for by the client, then `POST /demo/session`)."""
        return json_response(200, server.demo_terms())

    @player.post(
        "/demo/session",
        status_code=201,
        responses=replies(
            201,
            m.SessionOpened,
            400,
            404,
            409,
            413,
            422,
            429,
            replayed=True,
            notes={404: "Demo sessions are off here."},
        ),
    )
    def demo_session(body: DemoBody | None = None, key: IdemKey = None) -> Response:
        """Demo mode only (`reelforge serve --demo`): a new player with play money; the body
        carries the limits the player chose (where the profile needs them: see `GET /demo`)."""
        limits = body.model_dump() if body is not None else {}
        return json_response(*server.demo_session(key, **limits))

    app.state.readiness = readiness = readiness or Readiness(server, migrate=False)
    add_health_routes(app, readiness, json_response)  # api_health.py

    def prometheus_metrics(_: Request) -> Response:
        """Prometheus' text format (observability.py), not part of the JSON API's document;
        unauthenticated, as scrapers expect: keep it on the operator's network, or off
        (REELFORGE_METRICS=0).  A plain function: Starlette runs it in the thread pool."""
        if not server.settings.metrics:
            raise ApiError(404, "not_found", "metrics are off here")
        return metrics_response(server.engine)

    app.add_route("/metrics", prometheus_metrics, methods=["GET"], include_in_schema=False)
    app.include_router(player)
    app.include_router(operator)
    # The browser client at / (after the API routes, which win): compressed, versioned, cached.
    app.mount("/", client, name="web")
    # The spin's two requests without FastAPI's per-request machinery (hot_routes.py), inside
    # the body limit and the error format, as the routes above are.
    app.add_middleware(
        HotRoutes,
        server=server,
        start_model=StartRound,
        act_model=ActBody,
        respond=json_response,
        on_database_error=database_error_response,
    )
    app.add_middleware(BodyLimit, max_bytes=server.settings.max_body_bytes)
    app.add_middleware(JsonErrors, routes=app.router.routes)
    guards.install(app, server.settings, server.operators)  # outside the app's own middleware
    app.add_middleware(Observe)  # outermost: every request's id, count and time (observability.py)
    finish_openapi(app)
    return app
