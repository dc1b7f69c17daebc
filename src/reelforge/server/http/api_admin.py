"""The studio's admin API under ``/api/v1/admin/``: the operator accounts this server carries
(backoffice/studio.py).  Its calls carry ``X-Admin-Key`` (``REELFORGE_ADMIN_KEY``); with none
configured there is no admin API (every path answers 404, as an unknown route does)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Header, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from reelforge.server.core.errors import ApiError, not_found
from reelforge.server.http import api_admin_models as am
from reelforge.server.http.api_docs import ADMIN, replies
from reelforge.server.runtime.service import GameServer

OperatorId = Annotated[int, Path(ge=1, lt=2**31)]
KeyId = Annotated[int, Path(ge=1, lt=2**62)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CreateOperator(Body):
    name: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:@ -]+$")
    # OperatorSettings' fields (operators/accounts.py), checked there: 422 invalid_settings.
    settings: dict[str, Any] | None = Field(default=None, max_length=64)
    profile: str | None = Field(default=None, min_length=1, max_length=16)


class ConfigureOperator(Body):
    settings: dict[str, Any] | None = Field(default=None, max_length=64)
    profile: str | None = Field(default=None, min_length=1, max_length=16)


class AddKey(Body):
    label: str | None = Field(default=None, min_length=1, max_length=64)


def add_routes(app: FastAPI, server: GameServer, respond: Callable[..., Response]) -> None:
    """``respond``: api.json_response."""

    def admin(x_admin_key: Annotated[str | None, Header()] = None) -> None:
        configured = server.settings.admin_key.get_secret_value()
        if not configured:
            raise not_found("no admin API here: REELFORGE_ADMIN_KEY is not set")
        if not x_admin_key or not hmac.compare_digest(x_admin_key.encode(), configured.encode()):
            raise ApiError(401, "unauthorized", "a valid X-Admin-Key header is required")

    router = APIRouter(prefix="/api/v1/admin", tags=["admin"], dependencies=[Depends(admin)])
    studio = server.studio

    @router.post(
        "/operators", status_code=201, responses=replies(201, am.OperatorCreated, ADMIN, 400, 409, 422)
    )
    def create_operator(body: CreateOperator) -> Response:
        """A new operator account and its first API key (shown in this reply only)."""
        return respond(201, studio.create(body.name, body.settings, body.profile))

    @router.get("/operators", responses=replies(200, am.Operators, ADMIN))
    def list_operators() -> Response:
        return respond(200, studio.list())

    @router.get("/operators/{operator_id}", responses=replies(200, am.OperatorView, ADMIN, 422))
    def show_operator(operator_id: OperatorId) -> Response:
        return respond(200, studio.show(operator_id))

    @router.patch("/operators/{operator_id}", responses=replies(200, am.OperatorView, ADMIN, 400, 422))
    def configure_operator(operator_id: OperatorId, body: ConfigureOperator) -> Response:
        """Change some settings (a null clears one: the server's default applies) and the
        profile; in force at every process's next request."""
        return respond(200, studio.configure(operator_id, body.settings, body.profile))

    @router.post(
        "/operators/{operator_id}/keys", status_code=201, responses=replies(201, am.KeyAdded, ADMIN, 422)
    )
    def add_key(operator_id: OperatorId, body: AddKey | None = None) -> Response:
        """Another API key (rotation: add, switch the casino over, revoke the old one)."""
        return respond(201, studio.add_key(operator_id, (body or AddKey()).label))

    @router.post(
        "/operators/{operator_id}/keys/{key_id}/revoke", responses=replies(200, am.KeyRevoked, ADMIN, 422)
    )
    def revoke_key(operator_id: OperatorId, key_id: KeyId) -> Response:
        return respond(200, studio.revoke_key(operator_id, key_id))

    @router.post("/operators/{operator_id}/suspend", responses=replies(200, am.Suspended, ADMIN, 422))
    def suspend_operator(operator_id: OperatorId) -> Response:
        """Sessions closed, autoplays stopped, rounds in play finished by the default play,
        keys refused (403 ``operator_suspended``) until resumed."""
        return respond(200, studio.suspend(operator_id))

    @router.post("/operators/{operator_id}/resume", responses=replies(200, am.OperatorView, ADMIN, 422))
    def resume_operator(operator_id: OperatorId) -> Response:
        return respond(200, studio.resume(operator_id))

    @router.get("/reports", responses=replies(200, am.StudioReport, ADMIN, 400, 422))
    def studio_report(
        from_: Annotated[str | None, Query(alias="from", max_length=64)] = None,
        to: Annotated[str | None, Query(max_length=64)] = None,
    ) -> Response:
        """GGR per operator and currency, and every game, variant and mode in play against
        its exact RTP across operators, over ``[from, to)``."""
        return respond(200, server.studio_report(from_, to))

    app.include_router(router)
