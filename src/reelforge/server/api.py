"""The HTTP API (FastAPI): JSON under /api/v1, documented by the generated OpenAPI.

Operator calls carry ``X-Operator-Key``; player calls ``Authorization: Bearer <token>``.
Every state-changing call needs an ``Idempotency-Key`` header: a repeat returns the first
reply and changes nothing.  Errors are ``{"error": {"code", "message"}}`` with a 4xx status.
"""

from __future__ import annotations

import json
import logging
import pathlib
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query, Request
from fastapi import Body as FastBody
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelforge.server.errors import ApiError
from reelforge.server.service import GameServer

log = logging.getLogger("reelforge.server")

WEB_DIR = pathlib.Path(__file__).resolve().parent.parent / "web"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


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


class VoidBody(Body):
    reason: str = Field(default="voided by the operator", min_length=1, max_length=200)


class ProfileBody(Body):
    profile: str = Field(min_length=1, max_length=16)


class VariantBody(Body):
    variant: str = Field(min_length=1, max_length=32)


class BetsBody(Body):
    disabled: list[Annotated[StrictInt, Field(gt=0, lt=10**12)]] = Field(max_length=256)
    mode: str | None = Field(default=None, min_length=1, max_length=32)  # an own-bet table; None: base


def json_response(status: int, data: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(data, separators=(",", ":"), sort_keys=True),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


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
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise ApiError(
                        413, "body_too_large", f"request bodies are limited to {self.max_bytes} bytes"
                    )
            return message

        await self.app(scope, limited, send)

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


def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


Token = Annotated[str | None, Depends(bearer)]
RoundId = Annotated[int, Path(ge=1, lt=2**62)]
ExternalId = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@-]+$")]
GameId = Annotated[str, Path(min_length=1, max_length=64)]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key")]
ModeQuery = Annotated[str | None, Query(min_length=1, max_length=32)]


def create_app(server: GameServer) -> FastAPI:
    app = FastAPI(
        title="reelforge game server",
        version="1",
        description="Wallet, rounds, restoration, recall and jurisdiction profiles for reelforge games.",
    )

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> Response:
        return json_response(exc.status, exc.body(), exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'] if p != 'body') or 'body'}: {err['msg']}"
            for err in exc.errors()
        )
        return json_response(422, {"error": {"code": "invalid_request", "message": problems[:1000]}})

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> Response:  # pragma: no cover - a bug if reached
        log.exception("unhandled error", exc_info=exc)
        return json_response(500, {"error": {"code": "internal", "message": "internal error"}})

    player = APIRouter(prefix="/api/v1", tags=["player"])
    operator = APIRouter(prefix="/api/v1/operator", tags=["operator"])

    def op_auth(x_operator_key: Annotated[str | None, Header()] = None) -> None:
        server.check_operator(x_operator_key)

    # -- player ----------------------------------------------------------------------------

    @player.get("/games")
    def games(token: Token) -> Response:
        return json_response(200, server.list_games(token))

    @player.get("/balance")
    def balance(token: Token) -> Response:
        return json_response(200, server.balance(token))

    @player.get("/session")
    def session(token: Token) -> Response:
        return json_response(200, server.session_info(token))

    @player.post("/session/close")
    def close_session(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.close_session(token, key))

    @player.post("/rounds", status_code=201)
    def start_round(body: StartRound, token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.start_round(token, key, body.game, body.stake, body.mode, body.script))

    @player.get("/rounds/pending")
    def pending(token: Token, game: Annotated[str | None, Query(max_length=64)] = None) -> Response:
        return json_response(200, server.pending(token, game))

    @player.post("/rounds/{round_id}/actions")
    def act(round_id: RoundId, body: ActBody, token: Token, key: IdemKey = None) -> Response:
        return json_response(
            *server.act(token, key, round_id, body.action, body.choice, body.expected_step, body.script)
        )

    @player.get("/rounds/{round_id}")
    def recall(round_id: RoundId, token: Token) -> Response:
        return json_response(200, server.player_recall(token, round_id))

    @player.get("/rounds/{round_id}/replay")
    def replay(round_id: RoundId, token: Token) -> Response:
        return json_response(200, server.player_replay(token, round_id))

    @player.get("/history")
    def history(
        token: Token,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        before: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        return json_response(200, server.player_history(token, limit, before))

    @player.get("/state")
    def state(token: Token, game: Annotated[str | None, Query(max_length=64)] = None) -> Response:
        return json_response(200, server.player_state(token, game))

    @player.get("/settings")
    def get_settings(token: Token, game: Annotated[str, Query(min_length=1, max_length=64)]) -> Response:
        return json_response(200, server.get_play_settings(token, game))

    @player.put("/settings")
    def put_settings(
        body: Annotated[dict[str, Any], FastBody(max_length=64)],
        token: Token,
        game: Annotated[str, Query(min_length=1, max_length=64)],
        key: IdemKey = None,
    ) -> Response:
        """Set play switches of a game for this session: ``{"auto_advance": true}``; names left
        out keep their value; unknown names or values other than true/false: 400."""
        return json_response(*server.set_play_settings(token, key, game, body))

    @player.get("/autoplay")
    def autoplay_status(token: Token) -> Response:
        return json_response(200, server.autoplay_status(token))

    @player.post("/autoplay", status_code=201)
    def autoplay_start(body: AutoplayBody, token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_start(token, key, body.model_dump()))

    @player.post("/autoplay/next")
    def autoplay_next(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_next(token, key))

    @player.post("/autoplay/stop")
    def autoplay_stop(token: Token, key: IdemKey = None) -> Response:
        return json_response(*server.autoplay_stop(token, key))

    # -- operator --------------------------------------------------------------------------

    op = [Depends(op_auth)]

    @operator.post("/players", dependencies=op, status_code=201)
    def create_player(body: PlayerBody) -> Response:
        return json_response(*server.create_player(body.external_id, body.currency))

    @operator.get("/players/{external_id}", dependencies=op)
    def get_player(external_id: ExternalId) -> Response:
        return json_response(200, server.get_player(external_id))

    @operator.post("/players/{external_id}/credit", dependencies=op)
    def credit(external_id: ExternalId, body: AmountBody, key: IdemKey = None) -> Response:
        return json_response(*server.wallet_move(key, external_id, body.amount, "deposit"))

    @operator.post("/players/{external_id}/debit", dependencies=op)
    def debit(external_id: ExternalId, body: AmountBody, key: IdemKey = None) -> Response:
        return json_response(*server.wallet_move(key, external_id, body.amount, "withdrawal"))

    @operator.post("/players/{external_id}/sessions", dependencies=op, status_code=201)
    def open_session(external_id: ExternalId, body: SessionBody, key: IdemKey = None) -> Response:
        return json_response(
            *server.open_session(key, external_id, body.time_limit_seconds, body.spend_limit)
        )

    @operator.get("/players/{external_id}/history", dependencies=op)
    def player_history(
        external_id: ExternalId,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        before: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        return json_response(200, server.operator_history(external_id, limit, before))

    @operator.get("/players/{external_id}/ledger", dependencies=op)
    def player_ledger(
        external_id: ExternalId,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        before: Annotated[int | None, Query(ge=1)] = None,
    ) -> Response:
        return json_response(200, server.ledger(external_id, limit, before))

    @operator.get("/rounds/{round_id}", dependencies=op)
    def operator_recall(round_id: RoundId) -> Response:
        return json_response(200, server.operator_recall(round_id))

    @operator.get("/rounds/{round_id}/replay", dependencies=op)
    def operator_replay(round_id: RoundId) -> Response:
        return json_response(200, server.operator_replay(round_id))

    @operator.post("/rounds/{round_id}/void", dependencies=op)
    def void(round_id: RoundId, body: VoidBody, key: IdemKey = None) -> Response:
        return json_response(*server.void_round(key, round_id, body.reason))

    @operator.get("/profile", dependencies=op)
    def get_profile() -> Response:
        return json_response(200, server.get_profile())

    @operator.put("/profile", dependencies=op)
    def set_profile(body: ProfileBody) -> Response:
        return json_response(200, server.set_profile(body.profile))

    @operator.get("/games/{game_id}/bets", dependencies=op)
    def get_bets(game_id: GameId, mode: ModeQuery = None) -> Response:
        """The base bets, or (``?mode=upper``) a mode's own bet table."""
        return json_response(200, server.get_bets(game_id, mode))

    @operator.put("/games/{game_id}/bets", dependencies=op)
    def set_bets(game_id: GameId, body: BetsBody, mode: ModeQuery = None, key: IdemKey = None) -> Response:
        """Switch stakes of a game's bet table off (the list replaces the last one; [] switches
        all on): the base table, or a mode's own (``?mode=upper`` or ``"mode"`` in the body)."""
        if mode is not None and body.mode is not None and mode != body.mode:
            raise ApiError(400, "invalid_mode", f"the query names mode {mode!r}, the body {body.mode!r}")
        return json_response(*server.set_bets(key, game_id, body.disabled, body.mode or mode))

    @operator.put("/games/{game_id}/variant", dependencies=op)
    def set_variant(game_id: GameId, body: VariantBody) -> Response:
        return json_response(200, server.set_variant(game_id, body.variant))

    @player.post("/demo/session", status_code=201)
    def demo_session(key: IdemKey = None) -> Response:
        """Demo mode only (`reelforge serve --demo`): a new player with play money."""
        return json_response(*server.demo_session(key))

    @app.get("/api/v1/health", tags=["health"])
    def health() -> Response:
        return json_response(200, {"ok": True})

    app.include_router(player)
    app.include_router(operator)
    # The browser client: static files served at / (after the API routes, which win).
    app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    app.add_middleware(BodyLimit, max_bytes=server.settings.max_body_bytes)
    return app
