"""The operator's bet-table and currency routes (``/api/v1/operator/games/{game}/bets`` and
``/currencies``): the stakes switched off, for every currency or one, and the currencies a game
is offered in (bets.py, currencies.py).  Kept apart from api.py, which adds them to its operator
router."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Header, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from reelforge.server.core.errors import ApiError
from reelforge.server.http import api_models as m
from reelforge.server.http.api_docs import OPERATOR, replies
from reelforge.server.http.operator_auth import Op
from reelforge.server.runtime.service import GameServer


class BetsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # as api.Body: never coerced

    disabled: list[Annotated[StrictInt, Field(gt=0, lt=10**12)]] = Field(max_length=256)
    mode: str | None = Field(default=None, min_length=1, max_length=32)  # an own-bet table; None: base
    # The switches of rounds in this currency (they replace those for every currency); None: those.
    currency: str | None = Field(default=None, pattern=r"^[A-Z]{3}$")


class CurrenciesBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    currencies: list[Annotated[str, Field(pattern=r"^[A-Z]{3}$")]] = Field(max_length=16)


GameId = Annotated[str, Path(min_length=1, max_length=64)]
IdemKey = Annotated[str | None, Header(alias="Idempotency-Key")]
ModeQuery = Annotated[str | None, Query(min_length=1, max_length=32)]
CurrencyQuery = Annotated[str | None, Query(pattern=r"^[A-Z]{3}$")]


def add_routes(operator: APIRouter, server: GameServer, respond: Callable[..., Response]) -> None:
    """``respond``: api.json_response; every route acts for its key's operator (``Op``)."""

    @operator.get("/games/{game_id}/bets", responses=replies(200, m.Bets, OPERATOR, 400, 404, 422))
    def get_bets(o: Op, game_id: GameId, mode: ModeQuery = None, currency: CurrencyQuery = None) -> Response:
        """The base bets, or (``?mode=upper``) a mode's own bet table; the switches for every
        currency, or (``?currency=EUR``) those of rounds in one currency."""
        return respond(200, server.get_bets(o, game_id, mode, currency))

    @operator.put("/games/{game_id}/bets", responses=replies(200, m.Bets, OPERATOR, 404, keyed=True))
    def set_bets(
        o: Op,
        game_id: GameId,
        body: BetsBody,
        mode: ModeQuery = None,
        currency: CurrencyQuery = None,
        key: IdemKey = None,
    ) -> Response:
        """Switch stakes of a game's bet table off (the list replaces the last one; [] switches
        all on): the base table, or a mode's own (``?mode=upper`` or ``"mode"`` in the body);
        for every currency, or for rounds in one (``?currency=EUR`` or ``"currency"``), whose
        list then replaces the one for every currency."""
        if mode is not None and body.mode is not None and mode != body.mode:
            raise ApiError(400, "invalid_mode", f"the query names mode {mode!r}, the body {body.mode!r}")
        if currency is not None and body.currency is not None and currency != body.currency:
            raise ApiError(
                400, "invalid_currency", f"the query names {currency!r}, the body {body.currency!r}"
            )
        return respond(
            *server.set_bets(o, key, game_id, body.disabled, body.mode or mode, body.currency or currency)
        )

    @operator.get(
        "/games/{game_id}/currencies",
        responses=replies(200, m.GameCurrencies, OPERATOR, 404, 422),
    )
    def get_currencies(o: Op, game_id: GameId) -> Response:
        """The currencies the game has tables in, and those it is offered in."""
        return respond(200, server.get_currencies(o, game_id))

    @operator.put(
        "/games/{game_id}/currencies",
        responses=replies(200, m.GameCurrencies, OPERATOR, 400, 404, 422, keyed=True),
    )
    def set_currencies(o: Op, game_id: GameId, body: CurrenciesBody, key: IdemKey = None) -> Response:
        """Offer the game in these of its currencies (the list replaces the last one): a player
        whose wallet is in another no longer sees it, and a round of it is refused 409
        ``currency_not_offered``."""
        return respond(*server.set_currencies(o, key, game_id, body.currencies))
