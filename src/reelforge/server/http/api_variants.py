"""The operator's RTP variant routes (``/api/v1/operator/games/{game}/variant``): the game's
variant, and each bet's (bet_variants.py).  Kept apart from api.py, which adds them to its
operator router."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Header, Path
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from reelforge.server.http import api_models as m
from reelforge.server.http.api_docs import OPERATOR, replies
from reelforge.server.http.operator_auth import Op
from reelforge.server.runtime.service import GameServer


class VariantBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # as api.Body: never coerced

    # With a stake: that bet's own variant (null clears it), of the base table or ``mode``'s.
    variant: str | None = Field(min_length=1, max_length=32)
    mode: str | None = Field(default=None, min_length=1, max_length=32)
    stake: int | None = Field(default=None, gt=0, lt=10**12)


GameId = Annotated[str, Path(min_length=1, max_length=64)]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key")]


def add_routes(operator: APIRouter, server: GameServer, respond: Callable[..., Response]) -> None:
    """``respond``: api.json_response; every route acts for its key's operator (``Op``)."""

    @operator.get(
        "/games/{game_id}/variant",
        responses=replies(200, m.VariantReply, OPERATOR, 404, 422),
    )
    def get_variant(o: Op, game_id: GameId) -> Response:
        """The game's RTP variant and the one each bet is dealt at."""
        return respond(200, server.get_variants(o, game_id))

    @operator.put(
        "/games/{game_id}/variant",
        responses=replies(200, m.VariantReply, OPERATOR, 404, keyed=True),
    )
    def set_variant(o: Op, game_id: GameId, body: VariantBody, key: IdemKey = None) -> Response:
        """The game's RTP variant, or with ``stake`` (and ``mode`` for a mode's own bets) one
        bet's (``null`` clears it): a bet's needs an Idempotency-Key, the game's takes one."""
        return respond(*server.set_variant(o, key, game_id, body.variant, body.mode, body.stake))
