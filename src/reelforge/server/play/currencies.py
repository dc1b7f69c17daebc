"""Which currencies a game is offered in, and the currency rule of a round.

A round is always in the player's wallet currency (``players.currency``, fixed when the player is
created).  A game has tables in the currencies its data names (``Game.currencies``); the operator
offers it in some or all of them (``PUT /operator/games/{game}/currencies``: the server setting
``currencies:<game>``, a JSON list; unset, all of them) and switches its bets on and off per
currency (bets.py, ``?currency=``).  A game not offered in the player's currency is not listed for
them, and a round of it is refused 409 ``currency_not_offered`` before anything moves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from reelforge.engine.game import Game
from reelforge.server.core.errors import ApiError, bad_request


def currencies_key(game_id: str) -> str:
    """The server setting holding the currencies the operator offers a game in."""
    return f"currencies:{game_id}"


def offered_from(game: Game, raw: str | None) -> list[str]:
    """The game's currencies the operator offers it in (``raw``: the setting's value), in the
    game's order."""
    chosen = json.loads(raw) if raw else list(game.currencies)
    return [c for c in game.currencies if c in chosen]


def offered(game: Game, settings: Mapping[str, str]) -> list[str]:
    return offered_from(game, settings.get(currencies_key(game.id)))


def check_offered(game: Game, currency: str, here: list[str]) -> None:
    """A round of ``game`` for a player whose wallet is in ``currency``: refused (409) unless
    the game is offered in it (``here``: the currencies it is offered in)."""
    if currency not in here:
        raise ApiError(
            409,
            "currency_not_offered",
            f"{game.name} is not offered in {currency} (the player's wallet currency); offered in: {here}",
        )


def check_currency(game: Game, currency: str) -> str:
    """A currency an operator request names for a game: one it has tables in (else 400)."""
    if currency not in game.currencies:
        raise bad_request(
            f"{game.id} has no tables in {currency!r}; it has: {list(game.currencies)}", "invalid_currency"
        )
    return currency


def check_choice(game: Game, wanted: list[str]) -> list[str]:
    """The currencies an operator offers a game in: each one the game has tables in, at least one."""
    for currency in wanted:
        check_currency(game, currency)
    if not wanted:
        raise bad_request(f"{game.id} must be offered in at least one currency", "invalid_currency")
    return [c for c in game.currencies if c in wanted]
